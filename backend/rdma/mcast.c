/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast groups of UD QPs (IBTA 10.5; ROCE-DEV-MCAST-*): which QPs a
 * multicast packet to a GID goes to. The table is small (max_mcast_grp
 * groups) and read by the data path only for multicast packets, so a
 * group is found by a scan; the control thread changes it with the
 * device lock held for writing, the data path reads it with it held for
 * reading.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

bool
vur_rdma_gid_is_mcast(const uint8_t *gid)
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (gid[0] == 0xff) /* IPv6 ff00::/8 */
		return true;
	/* ::ffff:224.0.0.0/100, as rdma_cm forms an IPv4 group's GID for RoCE v2 */
	return memcmp(gid, v4_mapped, sizeof(v4_mapped)) == 0 && (gid[12] & 0xf0) == 0xe0;
}

void
vur_rdma_mcast_mac(const uint8_t *gid, uint8_t mac[6])
{
	if (gid[0] == 0xff) { /* RFC 2464: 33:33 and the low 32 bits */
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(&mac[2], &gid[12], 4);
		return;
	}
	/* RFC 1112: 01:00:5e and the low 23 bits */
	mac[0] = 0x01;
	mac[1] = 0x00;
	mac[2] = 0x5e;
	mac[3] = gid[13] & 0x7f;
	mac[4] = gid[14];
	mac[5] = gid[15];
}

struct vur_rdma_mcast_grp *
vur_rdma_mcast_find(struct vur_rdma_dev *rd, const uint8_t *gid)
{
	for (uint32_t i = 0; i < rd->limits.max_mcast_grp; i++)
		if (rd->mcast[i].nqps != 0 && memcmp(rd->mcast[i].gid, gid, 16) == 0)
			return &rd->mcast[i];
	return NULL;
}

static bool
attached(const struct vur_rdma_mcast_grp *g, uint32_t qpn, uint32_t *at)
{
	for (uint32_t i = 0; i < g->nqps; i++)
		if (g->qpns[i] == qpn) {
			*at = i;
			return true;
		}
	return false;
}

/* ROCE-DEV-MCAST-1: a live UD QP and a multicast GID. */
static int
check(struct vur_rdma_dev *rd, const char *what, uint32_t qpn, const uint8_t *gid)
{
	const struct vur_rdma_qp *qp = vur_pool_get(&rd->qps, qpn);

	if (rd->limits.max_mcast_grp == 0) { /* ROCE-DEV-CTRL-16 */
		VUR_RDMA_LOG(rd, NOTICE, "%s: the device has no multicast", what);
		return -EOPNOTSUPP;
	}
	if (qp == NULL || qp->type != VIRTIO_IB_QPT_UD) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: no UD QP %u", what, qpn);
		return -ENOENT;
	}
	if (!vur_rdma_gid_is_mcast(gid)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: QP %u: the GID is not a multicast GID", what, qpn);
		return -EINVAL;
	}
	return 0;
}

int
vur_rdma_attach_mcast(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_mcast *c)
{
	const struct vur_rdma_limits *l = &rd->limits;
	uint32_t qpn = rte_le_to_cpu_32(c->qpn), at;
	struct vur_rdma_mcast_grp *g, *free_grp = NULL;
	int ret = check(rd, "ATTACH_MCAST", qpn, c->gid);

	if (ret < 0)
		return ret;
	g = vur_rdma_mcast_find(rd, c->gid);
	if (g != NULL && attached(g, qpn, &at))
		return 0; /* ROCE-DEV-MCAST-3 */
	/* ROCE-DEV-MCAST-2 */
	if (rd->mcast_attached >= l->max_total_mcast_qp_attach) {
		VUR_RDMA_LOG(rd, NOTICE, "ATTACH_MCAST: max_total_mcast_qp_attach (%u) reached",
				l->max_total_mcast_qp_attach);
		return -ENOSPC;
	}
	if (g != NULL && g->nqps >= l->max_mcast_qp_attach) {
		VUR_RDMA_LOG(rd, NOTICE, "ATTACH_MCAST: the group has max_mcast_qp_attach (%u) QPs",
				l->max_mcast_qp_attach);
		return -ENOSPC;
	}
	for (uint32_t i = 0; g == NULL && free_grp == NULL && i < l->max_mcast_grp; i++)
		if (rd->mcast[i].nqps == 0)
			free_grp = &rd->mcast[i];
	if (g == NULL && free_grp == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "ATTACH_MCAST: max_mcast_grp (%u) groups in use",
				l->max_mcast_grp);
		return -ENOSPC;
	}
	if (g == NULL) {
		/* a slot's QP list is made when first used, and kept */
		if (free_grp->qpns == NULL)
			free_grp->qpns = calloc(l->max_mcast_qp_attach, sizeof(uint32_t));
		if (free_grp->qpns == NULL)
			return -ENOMEM;
		g = free_grp;
		memcpy(g->gid, c->gid, sizeof(g->gid));
	}
	g->qpns[g->nqps++] = qpn;
	rd->mcast_attached++;
	return 0;
}

static void
detach_at(struct vur_rdma_dev *rd, struct vur_rdma_mcast_grp *g, uint32_t at)
{
	g->qpns[at] = g->qpns[--g->nqps]; /* nqps 0: the group is gone */
	rd->mcast_attached--;
}

int
vur_rdma_detach_mcast(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_mcast *c)
{
	uint32_t qpn = rte_le_to_cpu_32(c->qpn), at;
	struct vur_rdma_mcast_grp *g;
	int ret = check(rd, "DETACH_MCAST", qpn, c->gid);

	if (ret < 0)
		return ret;
	g = vur_rdma_mcast_find(rd, c->gid);
	if (g == NULL || !attached(g, qpn, &at)) { /* ROCE-DEV-MCAST-4 */
		VUR_RDMA_LOG(rd, NOTICE, "DETACH_MCAST: QP %u is not attached to the group", qpn);
		return -ENOENT;
	}
	detach_at(rd, g, at);
	return 0;
}

void
vur_rdma_mcast_qp_gone(struct vur_rdma_dev *rd, uint32_t qpn)
{
	uint32_t at;

	for (uint32_t i = 0; rd->mcast != NULL && i < rd->limits.max_mcast_grp; i++)
		if (rd->mcast[i].nqps != 0 && attached(&rd->mcast[i], qpn, &at))
			detach_at(rd, &rd->mcast[i], at);
}

int
vur_rdma_mcast_init(struct vur_rdma_dev *rd)
{
	const struct vur_rdma_limits *l = &rd->limits;

	if (l->max_mcast_grp == 0)
		return 0;
	rd->mcast = calloc(l->max_mcast_grp, sizeof(*rd->mcast));
	return rd->mcast != NULL ? 0 : -ENOMEM;
}

void
vur_rdma_mcast_fini(struct vur_rdma_dev *rd)
{
	for (uint32_t i = 0; rd->mcast != NULL && i < rd->limits.max_mcast_grp; i++)
		free(rd->mcast[i].qpns);
	free(rd->mcast);
	rd->mcast = NULL;
	rd->mcast_attached = 0;
}
