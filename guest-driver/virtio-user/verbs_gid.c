/* SPDX-License-Identifier: BSD-3-Clause */
/* The port's GID table (ADD_GID, DEL_GID) and the multicast groups of UD QPs. */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "verbs.h"

int
vur_user_add_gid(struct vur_user_dev *d, uint16_t index, const uint8_t gid[16])
{
	struct virtio_rdma_cmd_add_gid c = { .index = htole16(index) };

	if (d == NULL || gid == NULL)
		return -EINVAL;
	memcpy(c.gid, gid, sizeof(c.gid));
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_ADD_GID, &c, sizeof(c), NULL, 0);
}

int
vur_user_del_gid(struct vur_user_dev *d, uint16_t index)
{
	struct virtio_rdma_cmd_del_gid c = { .index = htole16(index) };

	if (d == NULL)
		return -EINVAL;
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DEL_GID, &c, sizeof(c), NULL, 0);
}

static int
mcast(struct vur_user_dev *d, uint8_t cmd, uint32_t qpn, const uint8_t gid[16])
{
	struct virtio_rdma_cmd_mcast c = { .qpn = htole32(qpn) };

	if (d == NULL || gid == NULL)
		return -EINVAL;
	memcpy(c.gid, gid, sizeof(c.gid));
	return vuser_roce_cmd(d, cmd, &c, sizeof(c), NULL, 0);
}

int
vur_user_attach_mcast(struct vur_user_dev *d, uint32_t qpn, const uint8_t gid[16])
{
	return mcast(d, VIRTIO_NET_CTRL_ROCE_ATTACH_MCAST, qpn, gid);
}

int
vur_user_detach_mcast(struct vur_user_dev *d, uint32_t qpn, const uint8_t gid[16])
{
	return mcast(d, VIRTIO_NET_CTRL_ROCE_DETACH_MCAST, qpn, gid);
}
