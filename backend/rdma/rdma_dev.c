/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_rdma, rdma, INFO);

/* Queue sizes bound WR and CQE counts: QEMU's VIRTQUEUE_MAX_SIZE is 1024. */
#define VUR_MAX_QUEUE_SIZE 1024

/*
 * MRs of the guest's own; a device with rings offers one more per QP, SRQ
 * and CQ it may have on rings (vur_rdma_limits_rings).
 */
#define VUR_MAX_MR 4096

/* IPv6 40 + UDP 8 + BTH 12 + extended transport headers 32 + ICRC 4 */
#define ROCE_V2_MAX_OVERHEAD 96

void
vur_rdma_limits_default(struct vur_rdma_limits *l, uint32_t max_qps, uint32_t max_cqs)
{
	memset(l, 0, sizeof(*l));
	l->max_qps = max_qps;
	l->max_cqs = max_cqs;
	l->max_pd = 1024;
	l->max_mr = VUR_MAX_MR;
	l->max_mw = 4096;
	l->max_ah = 4096;
	l->max_qp_wr = VUR_MAX_QUEUE_SIZE;
	l->max_cqe = VUR_MAX_QUEUE_SIZE;
	l->max_sge = 16;
	l->max_qp_rd_atom = 16;
	l->gid_tbl_len = 16;
	l->max_msg_sz = 1u << 31;
	l->max_mr_size = VUR_MAX_MR_SIZE;
	l->max_fast_reg_page_list_len = VUR_MAX_FAST_REG_PAGES;
	/* ROCE-DEV-ATTR-14: every number but 0 and 1 may be an SRQ's */
	l->max_srq = max_qps > 2 ? max_qps - 2 : 0;
	l->max_srq_wr = l->max_srq != 0 ? VUR_MAX_QUEUE_SIZE : 0;
	l->max_srq_sge = l->max_srq != 0 ? l->max_sge : 0;
	/* rxe's are larger (8192 groups, 56 QPs each): guests join a few groups */
	l->max_mcast_grp = 64;
	l->max_mcast_qp_attach = RTE_MIN(max_qps, 256u);
	l->max_total_mcast_qp_attach = 1024;
}

/* Issue 28's aims: QPs of 32k WRs, CQs of 4M CQEs (as mlx5), 16k of each. */
#define VUR_MAX_RING_WR  32768u
#define VUR_MAX_RING_CQE (1u << 22)

void
vur_rdma_limits_rings(
		struct vur_rdma_limits *l, uint32_t k, uint32_t max_ring_qp, uint32_t max_ring_cq)
{
	l->ring_queues = k;
	l->max_ring_qp = k != 0 ? RTE_MIN(max_ring_qp, (uint32_t)VIRTIO_NET_ROCE_MAX_QPS) : 0;
	l->max_ring_cq = k != 0 ? RTE_MIN(max_ring_cq, (uint32_t)VIRTIO_NET_ROCE_MAX_QPS) : 0;
	l->max_ring_wr = k != 0 ? VUR_MAX_RING_WR : 0;
	l->max_ring_cqe = k != 0 ? VUR_MAX_RING_CQE : 0;
	/*
	 * ROCE-DEV-RING-26: a ring's memory may be an MR of its own (a
	 * process's QP rings always are, ROCE-DEV-RING-4), so MRs would
	 * otherwise run out long before ring QPs do. An MR costs memory only
	 * while it lives (the pool is chunked) and 4 bytes of its last rkey.
	 */
	l->max_mr = VUR_MAX_MR + l->max_ring_qp + l->max_ring_cq;
}

uint8_t
vur_rdma_port_mtu(uint32_t eth_mtu)
{
	uint8_t mtu = VIRTIO_IB_MTU_4096;

	/* enum virtio_ib_mtu n is 128 << n bytes */
	while (mtu > VIRTIO_IB_MTU_256 && (128u << mtu) + ROCE_V2_MAX_OVERHEAD > eth_mtu)
		mtu--;
	return mtu;
}

/* Bits that hold any MR index; the rest of a key is random. */
static uint32_t
index_bits(uint32_t last_index)
{
	uint32_t bits = 1;

	while (bits < 32 && (last_index >> bits) != 0)
		bits++;
	return bits;
}

int
vur_rdma_dev_init(struct vur_rdma_dev *rd, const char *name, const struct vur_rdma_limits *l,
		const struct vur_rdma_env *env)
{
	int ret = -ENOMEM;

	memset(rd, 0, sizeof(*rd));
	rd->name = name;
	rd->limits = *l;
	rd->env = *env;
	/* Handles start at 1 so that a zeroed field never names an object. */
	if (vur_pool_init(&rd->pds, "pd", 1, l->max_pd, sizeof(struct vur_rdma_pd)) < 0 ||
			vur_pool_init(&rd->mrs, "mr", 1, l->max_mr, sizeof(struct vur_rdma_mr)) <
					0 ||
			vur_pool_init(&rd->cqs, "cq", 0, l->max_cqs + l->max_ring_cq,
					sizeof(struct vur_rdma_cq)) < 0 ||
			vur_pool_init(&rd->qps, "qp", 0, l->max_qps + l->max_ring_qp,
					sizeof(struct vur_rdma_qp)) < 0 ||
			vur_pool_init(&rd->ahs, "ah", 1, l->max_ah, sizeof(struct vur_rdma_ah)) <
					0 ||
			vur_pool_init(&rd->srqs, "srq", 0, l->max_qps + l->max_ring_qp,
					sizeof(struct vur_rdma_srq)) < 0)
		goto fail;
	/* MWs share the MRs' key space: their indices follow the MRs' (ROCE-DEV-MR-16) */
	if (l->max_mw != 0 &&
			vur_pool_init(&rd->mws, "mw", 1 + l->max_mr, l->max_mw,
					sizeof(struct vur_rdma_mw)) < 0)
		goto fail;
	rd->mr_index_bits = index_bits(l->max_mr + l->max_mw);
	/* a key's low byte is its key byte, the index above it (mr.c) */
	if (rd->mr_index_bits > 24 || l->max_fast_reg_page_list_len > VUR_MAX_FAST_REG_PAGES) {
		ret = -EINVAL;
		goto fail;
	}
	rd->mr_last_rkey = calloc(l->max_mr, sizeof(*rd->mr_last_rkey));
	rd->mw_last_rkey = calloc(RTE_MAX(l->max_mw, 1u), sizeof(*rd->mw_last_rkey));
	rd->gids = calloc(l->gid_tbl_len, sizeof(*rd->gids));
	if (rd->mr_last_rkey == NULL || rd->mw_last_rkey == NULL || rd->gids == NULL ||
			vur_rdma_mcast_init(rd) < 0)
		goto fail;
	return 0;

fail:
	vur_rdma_dev_fini(rd);
	return ret;
}

static void
free_pages(void *obj, void *arg)
{
	struct vur_rdma_mr *mr = obj;

	RTE_SET_USED(arg);
	free(mr->pages);
	mr->pages = NULL;
}

static void
unbind_qp(void *obj, void *arg)
{
	struct vur_rdma_dev *rd = arg;

	rd->env.hooks->qp_unbind(rd->env.hooks_arg, obj);
}

static void
unbind_srq(void *obj, void *arg)
{
	struct vur_rdma_dev *rd = arg;

	rd->env.hooks->srq_unbind(rd->env.hooks_arg, obj);
}

static void
unbind_cq(void *obj, void *arg)
{
	struct vur_rdma_dev *rd = arg;

	rd->env.hooks->cq_unbind(rd->env.hooks_arg, obj);
}

/* The rings of every kind of object (the first member after the pool header differs). */
static void
free_qp_rings(void *obj, void *arg)
{
	struct vur_rdma_qp *qp = obj;

	vur_rdma_rings_free(arg, qp->rings);
	qp->rings = NULL;
}

static void
free_cq_rings(void *obj, void *arg)
{
	struct vur_rdma_cq *cq = obj;

	vur_rdma_rings_free(arg, cq->rings);
	cq->rings = NULL;
}

static void
free_srq_rings(void *obj, void *arg)
{
	struct vur_rdma_srq *srq = obj;

	vur_rdma_rings_free(arg, srq->rings);
	srq->rings = NULL;
}

void
vur_rdma_dev_fini(struct vur_rdma_dev *rd)
{
	if (rd->env.hooks != NULL && rd->qps.objs != NULL)
		vur_pool_foreach(&rd->qps, unbind_qp, rd);
	if (rd->env.hooks != NULL && rd->srqs.objs != NULL)
		vur_pool_foreach(&rd->srqs, unbind_srq, rd);
	if (rd->env.hooks != NULL && rd->cqs.objs != NULL)
		vur_pool_foreach(&rd->cqs, unbind_cq, rd);
	if (rd->qps.objs != NULL)
		vur_pool_foreach(&rd->qps, free_qp_rings, rd);
	if (rd->cqs.objs != NULL)
		vur_pool_foreach(&rd->cqs, free_cq_rings, rd);
	if (rd->srqs.objs != NULL)
		vur_pool_foreach(&rd->srqs, free_srq_rings, rd);
	vur_rdma_rings_forget(rd); /* ROCE-DEV-RING-20 */
	rd->ring_qps = 0;
	if (rd->mrs.objs != NULL)
		vur_pool_foreach(&rd->mrs, free_pages, NULL);
	vur_pool_fini(&rd->ahs);
	vur_pool_fini(&rd->srqs);
	vur_pool_fini(&rd->qps);
	vur_pool_fini(&rd->cqs);
	vur_pool_fini(&rd->mws);
	vur_pool_fini(&rd->mrs);
	vur_pool_fini(&rd->pds);
	free(rd->mr_last_rkey);
	rd->mr_last_rkey = NULL;
	free(rd->mw_last_rkey);
	rd->mw_last_rkey = NULL;
	free(rd->gids);
	rd->gids = NULL;
	vur_rdma_mcast_fini(rd);
}

int
vur_rdma_dev_reset(struct vur_rdma_dev *rd)
{
	const struct vur_rdma_limits limits = rd->limits;
	const struct vur_rdma_env env = rd->env;
	const struct vur_port_speed port = rd->port;
	const char *name = rd->name;
	struct vur_rdma_quota *quota = rd->quota;
	struct vur_addr_policy *policy = rd->policy;
	int ret;

	vur_rdma_dev_fini(rd);
	ret = vur_rdma_dev_init(rd, name, &limits, &env);
	rd->port = port;   /* the port's, not the driver's */
	rd->quota = quota; /* the administrator's, likewise */
	rd->policy = policy;
	return ret;
}

void
vur_rdma_dev_counts(const struct vur_rdma_dev *rd, struct vur_rdma_counts *c)
{
	uint32_t i;

	c->pds = rd->pds.count;
	c->mrs = rd->mrs.count;
	c->mws = rd->mws.count;
	c->cqs = rd->cqs.count;
	c->qps = rd->qps.count;
	c->ahs = rd->ahs.count;
	c->srqs = rd->srqs.count;
	c->mcast_grps = 0;
	for (i = 0; rd->mcast != NULL && i < rd->limits.max_mcast_grp; i++)
		c->mcast_grps += rd->mcast[i].nqps != 0;
	c->mcast_attached = rd->mcast_attached;
	c->gids = 0;
	for (i = 0; rd->gids != NULL && i < rd->limits.gid_tbl_len; i++)
		c->gids += rd->gids[i].valid;
}
