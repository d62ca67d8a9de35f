/* SPDX-License-Identifier: BSD-3-Clause */
/* Protection domains: CREATE_PD and DESTROY_PD. */
#include <endian.h>
#include <errno.h>

#include "device.h"
#include "rings.h"
#include "verbs.h"

int
vur_user_create_pd(struct vur_user_dev *d, uint32_t *pdn)
{
	struct virtio_rdma_ack_create_pd a;
	int ret;

	if (d == NULL || pdn == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, &a, sizeof(a));
	if (ret == 0)
		*pdn = le32toh(a.pdn);
	return ret;
}

int
vur_user_destroy_pd(struct vur_user_dev *d, uint32_t pdn)
{
	struct virtio_rdma_cmd_destroy_pd c = { .pdn = htole32(pdn) };

	if (d == NULL)
		return -EINVAL;
	/* the library's MR for the rings of the PD's QPs goes first */
	if (d->rings.available)
		vuser_rings_pd_release(d, pdn);
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &c, sizeof(c), NULL, 0);
}
