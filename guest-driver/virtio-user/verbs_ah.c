/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles (CREATE_AH, DESTROY_AH) and the address vector they
 * share with RC and UC QPs.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "verbs.h"

void
vuser_ah_attr_to_wire(const struct vur_user_ah_attr *a, struct virtio_rdma_ah_attr *w)
{
	memset(w, 0, sizeof(*w));
	memcpy(w->grh.dgid, a->grh.dgid, sizeof(w->grh.dgid));
	w->grh.flow_label = htole32(a->grh.flow_label);
	w->grh.sgid_index = a->grh.sgid_index;
	w->grh.hop_limit = a->grh.hop_limit;
	w->grh.traffic_class = a->grh.traffic_class;
	memcpy(w->dmac, a->dmac, sizeof(w->dmac));
}

void
vuser_ah_attr_from_wire(const struct virtio_rdma_ah_attr *w, struct vur_user_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid, w->grh.dgid, sizeof(a->grh.dgid));
	a->grh.flow_label = le32toh(w->grh.flow_label);
	a->grh.sgid_index = w->grh.sgid_index;
	a->grh.hop_limit = w->grh.hop_limit;
	a->grh.traffic_class = w->grh.traffic_class;
	memcpy(a->dmac, w->dmac, sizeof(a->dmac));
}

int
vur_user_create_ah(struct vur_user_dev *d, uint32_t pdn, const struct vur_user_ah_attr *attr,
		uint32_t *ah)
{
	struct virtio_rdma_cmd_create_ah c = { .pdn = htole32(pdn) };
	struct virtio_rdma_ack_create_ah a;
	int ret;

	if (d == NULL || attr == NULL || ah == NULL)
		return -EINVAL;
	vuser_ah_attr_to_wire(attr, &c.ah_attr);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_AH, &c, sizeof(c), &a, sizeof(a));
	if (ret == 0)
		*ah = le32toh(a.ah);
	return ret;
}

int
vur_user_destroy_ah(struct vur_user_dev *d, uint32_t pdn, uint32_t ah)
{
	struct virtio_rdma_cmd_destroy_ah c = { .pdn = htole32(pdn), .ah = htole32(ah) };

	if (d == NULL)
		return -EINVAL;
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_AH, &c, sizeof(c), NULL, 0);
}
