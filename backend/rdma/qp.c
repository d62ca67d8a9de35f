/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: creation on an eligible QP number (its send and receive
 * virtqueues, or its send virtqueue and an SRQ), the MODIFY_QP transitions of qp_state.c with the
 * range of every attribute checked, QUERY_QP and destruction.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/qp_state.h"
#include "rdma/rdma_ops.h"

#define QPN_GSI   1
#define PSN_LIMIT 0x1000000u /* 24-bit PSNs and QP numbers */

static int
check_caps(struct vur_rdma_dev *rd, const struct vur_rdma_qp_cap *cap, bool rings)
{
	const struct vur_rdma_limits *l = &rd->limits;
	uint32_t max_wr = rings ? l->max_ring_wr : l->max_qp_wr;

	/* ROCE-DEV-QP-5; on rings, the rings' limit (ROCE-DEV-RING-4) */
	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr ||
			cap->max_send_sge > l->max_sge || cap->max_recv_sge > l->max_sge ||
			cap->max_inline_data > VIRTIO_NET_ROCE_MAX_INLINE) {
		VUR_RDMA_LOG(rd, NOTICE,
				"CREATE_QP: capacities (wr %u/%u, sge %u/%u, inline %u) above the "
				"device's limits",
				cap->max_send_wr, cap->max_recv_wr, cap->max_send_sge,
				cap->max_recv_sge, cap->max_inline_data);
		return -EINVAL;
	}
	return 0;
}

static struct vur_rdma_cq *
usable_cq(struct vur_rdma_dev *rd, uint32_t cqn)
{
	struct vur_rdma_cq *cq = vur_pool_get(&rd->cqs, cqn);

	/* ROCE-DEV-QP-4 */
	if (cq == NULL || cq->error) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: CQ %u is not live or is in error", cqn);
		return NULL;
	}
	return cq;
}

/*
 * ROCE-DEV-QP-6, -7: the first eligible QP number, bound to its virtqueues;
 * on an SRQ (@on_srq) its send virtqueue only (ROCE-DEV-SRQ-6).
 */
static struct vur_rdma_qp *
bind_qp(struct vur_rdma_dev *rd, uint8_t type, const struct vur_rdma_qp_cap *cap, bool on_srq)
{
	uint32_t q, first = type == VIRTIO_IB_QPT_GSI ? QPN_GSI : QPN_GSI + 1;
	uint32_t last = type == VIRTIO_IB_QPT_GSI ? QPN_GSI : rd->limits.max_qps - 1;
	uint32_t sq, rq, max_cqs = rd->limits.max_cqs;
	uint16_t sq_size, rq_size;
	struct vur_rdma_qp *qp;

	for (q = first; q <= last; q++) {
		if (vur_pool_get(&rd->qps, q) != NULL || vur_pool_get(&rd->srqs, q) != NULL)
			continue;
		sq = virtio_net_roce_sq_vq(rd->env.n_pairs, max_cqs, q);
		rq = virtio_net_roce_rq_vq(rd->env.n_pairs, max_cqs, q);
		sq_size = rd->env.vq_size(rd->env.arg, sq);
		rq_size = on_srq ? 0 : rd->env.vq_size(rd->env.arg, rq);
		if (sq_size == 0 || (!on_srq && rq_size == 0) || sq_size < cap->max_send_wr ||
				rq_size < cap->max_recv_wr)
			continue;
		qp = vur_pool_alloc_at(&rd->qps, q);
		if (qp == NULL) /* no memory for its chunk */
			return NULL;
		qp->sq_vq = sq;
		qp->rq_vq = rq;
		qp->sq_size = sq_size;
		qp->rq_size = rq_size;
		return qp;
	}
	return NULL;
}

/* On rings (ROCE-DEV-RING-6, -4): the number and rings rings.c checked. */
static struct vur_rdma_qp *
bind_qp_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp_rings *rc,
		const struct vur_rdma_qp_cap *cap, int *ret)
{
	struct vur_rdma_rings *g = NULL;
	struct vur_rdma_qp *qp;
	uint32_t q;

	*ret = vur_rdma_qp_rings(rd, rc, cap, &g, &q);
	if (*ret < 0)
		return NULL;
	qp = vur_pool_alloc_at(&rd->qps, q);
	if (qp == NULL) {
		vur_rdma_rings_free(rd, g);
		*ret = -ENOMEM;
		return NULL;
	}
	qp->rings = g;
	qp->sq_vq = qp->rq_vq = UINT32_MAX; /* none: QPN 1's stay unused (GSI) */
	rd->ring_qps++;
	return qp;
}

static void forget_rings(struct vur_rdma_dev *rd, struct vur_rdma_qp *qp);

static int create_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp *c,
		const struct virtio_rdma_cmd_create_qp_rings *rc, uint32_t *qpn);

int
vur_rdma_create_qp(
		struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp *c, uint32_t *qpn)
{
	return create_qp(rd, c, NULL, qpn);
}

int
vur_rdma_create_qp_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp_rings *c,
		uint32_t *qpn)
{
	return create_qp(rd, &c->qp, c, qpn);
}

/* @rc: the command on rings (@c its first part), else NULL. */
static int
create_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp *c,
		const struct virtio_rdma_cmd_create_qp_rings *rc, uint32_t *qpn)
{
	uint32_t flags = rte_le_to_cpu_32(c->flags);
	uint32_t known = VIRTIO_RDMA_QP_F_SRQ | (rc != NULL ? VIRTIO_RDMA_QP_F_RINGS : 0);
	int ret = 0;
	struct vur_rdma_qp_cap cap = {
		.max_send_wr = rte_le_to_cpu_32(c->cap.max_send_wr),
		.max_recv_wr = rte_le_to_cpu_32(c->cap.max_recv_wr),
		.max_send_sge = rte_le_to_cpu_32(c->cap.max_send_sge),
		.max_recv_sge = rte_le_to_cpu_32(c->cap.max_recv_sge),
		.max_inline_data = rte_le_to_cpu_32(c->cap.max_inline_data),
	};
	uint32_t pdn = rte_le_to_cpu_32(c->pdn);
	struct vur_rdma_srq *srq = NULL;
	struct vur_rdma_cq *scq, *rcq;
	struct vur_rdma_pd *pd;
	struct vur_rdma_qp *qp;

	pd = vur_pool_get(&rd->pds, pdn);
	if (pd == NULL) { /* ROCE-DEV-QP-1 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: no PD %u", pdn);
		return -ENOENT;
	}
	if (c->qp_type != VIRTIO_IB_QPT_GSI && c->qp_type != VIRTIO_IB_QPT_RC &&
			c->qp_type != VIRTIO_IB_QPT_UC && c->qp_type != VIRTIO_IB_QPT_UD) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: QP type %u has no transport here",
				c->qp_type); /* ROCE-DEV-QP-2 */
		return -EINVAL;
	}
	if (c->sq_sig_all > 1) { /* ROCE-DEV-QP-3 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: sq_sig_all %u", c->sq_sig_all);
		return -EINVAL;
	}
	/* ROCE-DEV-QP-19; ROCE-DEV-RING-4: F_RINGS exactly with the rings' length */
	if ((flags & ~known) || ((flags & VIRTIO_RDMA_QP_F_SRQ) && rd->limits.max_srq == 0) ||
			(rc != NULL && !(flags & VIRTIO_RDMA_QP_F_RINGS))) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: flags 0x%x%s", flags,
				flags & VIRTIO_RDMA_QP_F_RINGS ? " without the rings' length" : "");
		return -EINVAL;
	}
	if (flags & VIRTIO_RDMA_QP_F_SRQ) {
		srq = vur_rdma_srq_for_qp(rd, c); /* ROCE-DEV-SRQ-5 */
		if (srq == NULL)
			return -EINVAL;
	}
	scq = usable_cq(rd, rte_le_to_cpu_32(c->send_cqn));
	rcq = usable_cq(rd, rte_le_to_cpu_32(c->recv_cqn));
	if (scq == NULL || rcq == NULL)
		return -ENOENT;
	if (check_caps(rd, &cap, rc != NULL) < 0)
		return -EINVAL;
	/* ROCE-DEV-QUOTA-1, -5: the WRs its queues can hold count as outstanding */
	if (vur_rdma_quota_take(rd, VUR_QUOTA_QPS, 1, "CREATE_QP") < 0 ||
			vur_rdma_quota_take(rd, VUR_QUOTA_WRS,
					(uint64_t)cap.max_send_wr + cap.max_recv_wr,
					"CREATE_QP") < 0)
		return -EDQUOT;
	if (rc != NULL) {
		qp = bind_qp_rings(rd, rc, &cap, &ret);
		if (qp == NULL)
			return ret;
	} else {
		qp = bind_qp(rd, c->qp_type, &cap, srq != NULL);
	}
	if (qp == NULL) {
		VUR_RDMA_LOG(rd, NOTICE,
				"CREATE_QP: no free QP number with ready virtqueues of %u/%u "
				"entries%s",
				cap.max_send_wr, cap.max_recv_wr,
				c->qp_type == VIRTIO_IB_QPT_GSI ? " (GSI: QP 1)" : "");
		return -ENOSPC;
	}
	qp->type = c->qp_type;
	qp->sq_sig_all = c->sq_sig_all;
	qp->pdn = pdn;
	qp->send_cqn = scq->obj.index;
	qp->recv_cqn = rcq->obj.index;
	qp->cap = cap; /* ROCE-DEV-QP-7: attributes zero, state RESET */
	qp->srqn = srq != NULL ? srq->obj.index : 0;
	if (rd->env.hooks != NULL && rd->env.hooks->qp_bind(rd->env.hooks_arg, qp) < 0) {
		VUR_RDMA_LOG(rd, ERR, "CREATE_QP: no memory for QP %u", qp->obj.index);
		forget_rings(rd, qp);
		vur_pool_free(&rd->qps, qp->obj.index);
		return -ENOMEM;
	}
	vur_pool_ref(pd);
	vur_pool_ref(scq);
	vur_pool_ref(rcq);
	if (srq != NULL)
		vur_pool_ref(srq);
	rd->qp_wrs += (uint64_t)cap.max_send_wr + cap.max_recv_wr;
	*qpn = qp->obj.index;
	return 0;
}

/* A QP on rings lets go of them (ROCE-DEV-RING-20). */
static void
forget_rings(struct vur_rdma_dev *rd, struct vur_rdma_qp *qp)
{
	if (qp->rings == NULL)
		return;
	vur_rdma_rings_free(rd, qp->rings);
	qp->rings = NULL;
	rd->ring_qps--;
}

/* ROCE-DEV-QP-12: the range of every attribute in the mask. */
static const char *
attr_out_of_range(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_modify_qp *c, uint32_t mask)
{
	const struct vur_rdma_limits *l = &rd->limits;

#define IN_MASK(bit) (mask & VIRTIO_IB_QP_##bit)
	if (IN_MASK(PATH_MTU) &&
			(c->path_mtu < VIRTIO_IB_MTU_256 || c->path_mtu > rd->env.port_mtu))
		return "path_mtu";
	if (IN_MASK(MAX_QP_RD_ATOMIC) && c->max_rd_atomic > l->max_qp_rd_atom)
		return "max_rd_atomic";
	if (IN_MASK(MAX_DEST_RD_ATOMIC) && c->max_dest_rd_atomic > l->max_qp_rd_atom)
		return "max_dest_rd_atomic";
	if (IN_MASK(MIN_RNR_TIMER) && c->min_rnr_timer > 31)
		return "min_rnr_timer";
	if (IN_MASK(TIMEOUT) && c->timeout > 31)
		return "timeout";
	if (IN_MASK(RETRY_CNT) && c->retry_cnt > 7)
		return "retry_cnt";
	if (IN_MASK(RNR_RETRY) && c->rnr_retry > 7)
		return "rnr_retry";
	if (IN_MASK(RQ_PSN) && rte_le_to_cpu_32(c->rq_psn) >= PSN_LIMIT)
		return "rq_psn";
	if (IN_MASK(SQ_PSN) && rte_le_to_cpu_32(c->sq_psn) >= PSN_LIMIT)
		return "sq_psn";
	if (IN_MASK(DEST_QPN) && rte_le_to_cpu_32(c->dest_qp_num) >= PSN_LIMIT)
		return "dest_qp_num";
	if (IN_MASK(ACCESS_FLAGS) &&
			(rte_le_to_cpu_32(c->qp_access_flags) &
					~(uint32_t)(VUR_RDMA_ACCESS_FLAGS |
							(rd->limits.max_mw != 0 ? VIRTIO_IB_ACCESS_MW_BIND
										: 0))))
		return "qp_access_flags";
#undef IN_MASK
	return NULL;
}

/* Copy the attributes of @mask from the command into @a. */
static void
apply_attrs(struct vur_rdma_qp_attr *a, const struct virtio_rdma_cmd_modify_qp *c, uint32_t mask,
		const struct vur_rdma_av *av)
{
#define SET(bit, field, value)                 \
	do {                                   \
		if (mask & VIRTIO_IB_QP_##bit) \
			a->field = (value);    \
	} while (0)
	SET(STATE, state, c->qp_state);
	SET(PATH_MTU, path_mtu, c->path_mtu);
	SET(MAX_QP_RD_ATOMIC, max_rd_atomic, c->max_rd_atomic);
	SET(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, c->max_dest_rd_atomic);
	SET(MIN_RNR_TIMER, min_rnr_timer, c->min_rnr_timer);
	SET(TIMEOUT, timeout, c->timeout);
	SET(RETRY_CNT, retry_cnt, c->retry_cnt);
	SET(RNR_RETRY, rnr_retry, c->rnr_retry);
	SET(QKEY, qkey, rte_le_to_cpu_32(c->qkey));
	SET(RQ_PSN, rq_psn, rte_le_to_cpu_32(c->rq_psn));
	SET(SQ_PSN, sq_psn, rte_le_to_cpu_32(c->sq_psn));
	SET(DEST_QPN, dest_qp_num, rte_le_to_cpu_32(c->dest_qp_num));
	SET(ACCESS_FLAGS, access_flags, rte_le_to_cpu_32(c->qp_access_flags));
	SET(RATE_LIMIT, rate_limit, rte_le_to_cpu_32(c->rate_limit));
	SET(AV, av, *av);
#undef SET
}

int
vur_rdma_modify_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_modify_qp *c)
{
	uint32_t qpn = rte_le_to_cpu_32(c->qpn), mask = rte_le_to_cpu_32(c->attr_mask), bad;
	struct vur_rdma_qp *qp = vur_pool_get(&rd->qps, qpn);
	struct vur_rdma_av av = { 0 };
	enum vur_qp_check chk;
	const char *range;
	uint8_t old_state;

	if (qp == NULL) { /* ROCE-DEV-QP-8 */
		VUR_RDMA_LOG(rd, NOTICE, "MODIFY_QP: no QP %u", qpn);
		return -ENOENT;
	}
	if (mask & ~(uint32_t)VIRTIO_IB_QP_ATTR_ALL) { /* ROCE-DEV-QP-9 */
		VUR_RDMA_LOG(rd, NOTICE, "MODIFY_QP %u: unknown attr_mask bits 0x%x", qpn,
				mask & ~(uint32_t)VIRTIO_IB_QP_ATTR_ALL);
		return -EINVAL;
	}
	/* ROCE-DEV-QP-10, QPS-1, QPS-2 */
	chk = vur_qp_check_modify(qp->type, qp->attr.state, c->qp_state, mask, &bad);
	if (chk != VUR_QP_CHECK_OK) {
		VUR_RDMA_LOG(rd, NOTICE, "MODIFY_QP %u (%s -> %s): %s (attr bits 0x%x)", qpn,
				vur_qp_state_name(qp->attr.state),
				mask & VIRTIO_IB_QP_STATE ? vur_qp_state_name(c->qp_state) : "same",
				vur_qp_check_name(chk), bad);
		return -EINVAL;
	}
	/* ROCE-DEV-QP-11 */
	if ((mask & VIRTIO_IB_QP_CUR_STATE) && c->cur_qp_state != qp->attr.state) {
		VUR_RDMA_LOG(rd, NOTICE, "MODIFY_QP %u: cur_qp_state %s but the QP is in %s", qpn,
				vur_qp_state_name(c->cur_qp_state),
				vur_qp_state_name(qp->attr.state));
		return -EINVAL;
	}
	range = attr_out_of_range(rd, c, mask);
	if (range != NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "MODIFY_QP %u: %s out of range", qpn, range);
		return -EINVAL;
	}
	/* ROCE-DEV-QP-13 */
	if ((mask & VIRTIO_IB_QP_AV) && vur_rdma_av_from_wire(rd, &c->ah_attr, false, &av) < 0)
		return -EINVAL;
	/* ROCE-DEV-QP-14: everything checked; now all of it at once. */
	old_state = qp->attr.state;
	if ((mask & VIRTIO_IB_QP_STATE) && c->qp_state == VIRTIO_IB_QPS_RESET)
		memset(&qp->attr, 0, sizeof(qp->attr)); /* RESET forgets all but cap */
	else
		apply_attrs(&qp->attr, c, mask, &av);
	if (rd->env.hooks != NULL)
		rd->env.hooks->qp_modified(rd->env.hooks_arg, qp, old_state);
	return 0;
}

int
vur_rdma_query_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_query_qp *c,
		struct virtio_rdma_ack_query_qp *a)
{
	uint32_t qpn = rte_le_to_cpu_32(c->qpn), mask = rte_le_to_cpu_32(c->attr_mask);
	const struct vur_rdma_qp *qp = vur_pool_get(&rd->qps, qpn);
	const struct vur_rdma_qp_attr *s;

	if (qp == NULL) { /* ROCE-DEV-QP-8 */
		VUR_RDMA_LOG(rd, NOTICE, "QUERY_QP: no QP %u", qpn);
		return -ENOENT;
	}
	if (mask & ~(uint32_t)VIRTIO_IB_QP_ATTR_ALL) { /* ROCE-DEV-QP-9 */
		VUR_RDMA_LOG(rd, NOTICE, "QUERY_QP %u: unknown attr_mask bits 0x%x", qpn, mask);
		return -EINVAL;
	}
	/* ROCE-DEV-QP-15: every attribute, whatever the mask asks. */
	s = &qp->attr;
	a->qp_state = s->state;
	a->path_mtu = s->path_mtu;
	a->sq_draining = rd->env.hooks != NULL &&
			rd->env.hooks->qp_sq_draining(rd->env.hooks_arg, qp);
	a->max_rd_atomic = s->max_rd_atomic;
	a->max_dest_rd_atomic = s->max_dest_rd_atomic;
	a->min_rnr_timer = s->min_rnr_timer;
	a->timeout = s->timeout;
	a->retry_cnt = s->retry_cnt;
	a->rnr_retry = s->rnr_retry;
	a->qkey = rte_cpu_to_le_32(s->qkey);
	a->rq_psn = rte_cpu_to_le_32(s->rq_psn);
	a->sq_psn = rte_cpu_to_le_32(s->sq_psn);
	a->dest_qp_num = rte_cpu_to_le_32(s->dest_qp_num);
	a->qp_access_flags = rte_cpu_to_le_32(s->access_flags);
	a->rate_limit = rte_cpu_to_le_32(s->rate_limit);
	a->cap.max_send_wr = rte_cpu_to_le_32(qp->cap.max_send_wr);
	a->cap.max_recv_wr = rte_cpu_to_le_32(qp->cap.max_recv_wr);
	a->cap.max_send_sge = rte_cpu_to_le_32(qp->cap.max_send_sge);
	a->cap.max_recv_sge = rte_cpu_to_le_32(qp->cap.max_recv_sge);
	a->cap.max_inline_data = rte_cpu_to_le_32(qp->cap.max_inline_data);
	vur_rdma_av_to_wire(&s->av, &a->ah_attr);
	return 0;
}

int
vur_rdma_destroy_qp(struct vur_rdma_dev *rd, uint32_t qpn)
{
	struct vur_rdma_qp *qp = vur_pool_get(&rd->qps, qpn);

	if (qp == NULL) { /* ROCE-DEV-QP-8 */
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_QP: no QP %u", qpn);
		return -ENOENT;
	}
	/* ROCE-DEV-QP-16, -17: the transport forgets its WRs and its virtqueues. */
	if (rd->env.hooks != NULL)
		rd->env.hooks->qp_unbind(rd->env.hooks_arg, qp);
	vur_pool_unref(vur_pool_get(&rd->pds, qp->pdn));
	vur_pool_unref(vur_pool_get(&rd->cqs, qp->send_cqn));
	vur_pool_unref(vur_pool_get(&rd->cqs, qp->recv_cqn));
	vur_rdma_mw_qp_gone(rd, qpn); /* ROCE-DEV-MW-13 */
	vur_rdma_mcast_qp_gone(rd, qpn);
	if (qp->srqn != 0)
		vur_pool_unref(vur_pool_get(&rd->srqs, qp->srqn));
	forget_rings(rd, qp);
	rd->qp_wrs -= (uint64_t)qp->cap.max_send_wr + qp->cap.max_recv_wr;
	vur_pool_free(&rd->qps, qpn);
	return 0;
}
