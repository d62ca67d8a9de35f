/* SPDX-License-Identifier: BSD-3-Clause */
/* The port's GID table, which the driver fills from its IP addresses. */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

static bool
is_zero(const uint8_t *gid)
{
	static const uint8_t zero[VIRTIO_NET_ROCE_GID_LEN];

	return memcmp(gid, zero, sizeof(zero)) == 0;
}

int
vur_rdma_add_gid(
		struct vur_rdma_dev *rd, uint16_t index, const uint8_t gid[VIRTIO_NET_ROCE_GID_LEN])
{
	struct vur_rdma_gid *e;

	/* ROCE-DEV-GID-1 */
	if (index >= rd->limits.gid_tbl_len) {
		VUR_RDMA_LOG(rd, NOTICE, "ADD_GID: index %u outside the %u-entry table", index,
				rd->limits.gid_tbl_len);
		return -EINVAL;
	}
	e = &rd->gids[index];
	if (e->valid) {
		VUR_RDMA_LOG(rd, NOTICE, "ADD_GID: entry %u already holds a GID", index);
		return -EEXIST;
	}
	if (is_zero(gid) || gid[0] == 0xff) {
		VUR_RDMA_LOG(rd, NOTICE, "ADD_GID: zero or multicast GID at %u", index);
		return -EINVAL;
	}
	/* ROCE-DEV-POLICY-1, -2: only the addresses the administrator allows */
	if (!vur_addr_policy_allows_gid(rd->policy, gid)) {
		char text[VUR_ADDR_TEXT_LEN];

		rd->policy->refused_gids++;
		vur_addr_format_gid(gid, text, sizeof(text));
		VUR_RDMA_LOG(rd, NOTICE, "ADD_GID: %s at %u is not an address the device may use",
				text, index);
		return -EACCES;
	}
	memcpy(e->raw, gid, sizeof(e->raw));
	e->valid = true;
	return 0;
}

int
vur_rdma_del_gid(struct vur_rdma_dev *rd, uint16_t index)
{
	/* ROCE-DEV-GID-2; -3: AHs and QPs hold a copy, so nothing else to check. */
	if (index >= rd->limits.gid_tbl_len || !rd->gids[index].valid) {
		VUR_RDMA_LOG(rd, NOTICE, "DEL_GID: no GID at index %u", index);
		return -ENOENT;
	}
	memset(&rd->gids[index], 0, sizeof(rd->gids[index]));
	return 0;
}
