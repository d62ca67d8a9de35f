/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address vectors, for AHs and for connected QPs (MODIFY_QP with AV), and
 * address handles. An address vector is valid if its source GID index names
 * a GID, its destination GID is unicast and of the same family (IPv4-mapped
 * or not) as the source, and its flow label fits 20 bits. An AH's may name a
 * multicast group of that family instead, with the device's multicast.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

#define FLOW_LABEL_LIMIT 0x100000u

static bool
is_v4_mapped(const uint8_t *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

static bool
is_unicast(const uint8_t *gid)
{
	static const uint8_t zero[VIRTIO_NET_ROCE_GID_LEN];

	return gid[0] != 0xff && memcmp(gid, zero, sizeof(zero)) != 0;
}

int
vur_rdma_av_from_wire(struct vur_rdma_dev *rd, const struct virtio_rdma_ah_attr *w, bool for_ah,
		struct vur_rdma_av *av)
{
	const struct virtio_rdma_global_route *g = &w->grh;
	uint32_t flow_label = rte_le_to_cpu_32(g->flow_label);
	const struct vur_rdma_gid *sgid;
	bool mcast;

	if (g->sgid_index >= rd->limits.gid_tbl_len || !rd->gids[g->sgid_index].valid) {
		VUR_RDMA_LOG(rd, NOTICE, "address vector: no GID at sgid_index %u", g->sgid_index);
		return -EINVAL;
	}
	sgid = &rd->gids[g->sgid_index];
	mcast = for_ah && rd->limits.max_mcast_grp != 0 && vur_rdma_gid_is_mcast(g->dgid);
	if ((!mcast && !is_unicast(g->dgid)) || is_v4_mapped(g->dgid) != is_v4_mapped(sgid->raw)) {
		VUR_RDMA_LOG(rd, NOTICE,
				"address vector: destination GID not unicast (or a group of an AH) "
				"or "
				"not of the source GID's family");
		return -EINVAL;
	}
	if (flow_label >= FLOW_LABEL_LIMIT) {
		VUR_RDMA_LOG(rd, NOTICE, "address vector: flow label 0x%x above 20 bits",
				flow_label);
		return -EINVAL;
	}
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, g->dgid, sizeof(av->dgid));
	memcpy(av->sgid, sgid->raw, sizeof(av->sgid)); /* ROCE-DEV-AH-3 */
	av->flow_label = flow_label;
	av->sgid_index = g->sgid_index;
	av->hop_limit = g->hop_limit;
	av->traffic_class = g->traffic_class;
	/* ROCE-DEV-MCAST-7: a group's frames go to its MAC, whatever the driver says */
	if (mcast)
		vur_rdma_mcast_mac(g->dgid, av->dmac);
	else
		memcpy(av->dmac, w->dmac, sizeof(av->dmac));
	return 0;
}

void
vur_rdma_av_to_wire(const struct vur_rdma_av *av, struct virtio_rdma_ah_attr *w)
{
	memset(w, 0, sizeof(*w));
	memcpy(w->grh.dgid, av->dgid, sizeof(w->grh.dgid));
	w->grh.flow_label = rte_cpu_to_le_32(av->flow_label);
	w->grh.sgid_index = av->sgid_index;
	w->grh.hop_limit = av->hop_limit;
	w->grh.traffic_class = av->traffic_class;
	memcpy(w->dmac, av->dmac, sizeof(w->dmac));
}

int
vur_rdma_create_ah(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_ah *c,
		uint32_t *handle)
{
	uint32_t pdn = rte_le_to_cpu_32(c->pdn);
	struct vur_rdma_pd *pd = vur_pool_get(&rd->pds, pdn);
	struct vur_rdma_av av;
	struct vur_rdma_ah *ah;
	int ret;

	/* ROCE-DEV-AH-1 */
	if (pd == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_AH: no PD %u", pdn);
		return -ENOENT;
	}
	ret = vur_rdma_av_from_wire(rd, &c->ah_attr, true, &av);
	if (ret < 0)
		return ret;
	ah = vur_pool_alloc(&rd->ahs);
	if (ah == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_AH: max_ah (%u) AHs live", rd->limits.max_ah);
		return -ENOSPC;
	}
	ah->pdn = pdn;
	ah->av = av;
	vur_pool_ref(pd);
	*handle = ah->obj.index;
	return 0;
}

int
vur_rdma_destroy_ah(struct vur_rdma_dev *rd, uint32_t pdn, uint32_t handle)
{
	struct vur_rdma_ah *ah = vur_pool_get(&rd->ahs, handle);

	/* ROCE-DEV-AH-2 */
	if (ah == NULL || ah->pdn != pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_AH: no AH %u in PD %u", handle, pdn);
		return -ENOENT;
	}
	vur_pool_unref(vur_pool_get(&rd->pds, pdn));
	vur_pool_free(&rd->ahs, handle);
	return 0;
}
