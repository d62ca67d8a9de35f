/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's engine: the hooks the control commands call when they bind,
 * change and unbind CQs and QPs; start and stop around what librte_vhost
 * does to the rings; the data path's two entry points, poll (send queues,
 * READ responses, timers) and rx (packets for this device).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include <rte_vhost.h>

#include "net/net_dev.h"
#include "net/net_switch.h"
#include "rdma/rdma_ops.h"
#include "transport/tp.h"

static const char *const drop_names[VUR_TP_DROP_COUNT] = {
	[VUR_TP_DROP_MALFORMED] = "rx_drop_malformed",
	[VUR_TP_DROP_NO_QP] = "rx_drop_no_qp",
	[VUR_TP_DROP_QP_STATE] = "rx_drop_qp_state",
	[VUR_TP_DROP_TRANSPORT] = "rx_drop_transport",
	[VUR_TP_DROP_QKEY] = "rx_drop_qkey",
	[VUR_TP_DROP_NO_RECV] = "rx_drop_no_recv",
	[VUR_TP_DROP_PSN] = "rx_drop_psn",
	[VUR_TP_DROP_UC_ERROR] = "rx_drop_uc_error",
	[VUR_TP_DROP_NO_MBUF] = "tx_drop_no_mbuf",
};

_Static_assert(VUR_PKT_ERR_COUNT <= RTE_DIM(((struct vur_tp_stats *)0)->pkt_err),
		"a counter per packet error");

const char *
vur_tp_drop_name(enum vur_tp_drop why)
{
	return why < VUR_TP_DROP_COUNT ? drop_names[why] : "?";
}

struct rte_mempool *
vur_tp_hdr_pool(const struct vur_tp_dev *td)
{
	return td->nd->sw->rdma_pool;
}

struct rte_mempool *
vur_tp_ext_pool(const struct vur_tp_dev *td)
{
	return td->nd->sw->rdma_ext_pool;
}

void
vur_tp_send_reply(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf *m)
{
	uint32_t len = m->pkt_len; /* the outbox owns it once added */

	if (td->nd->sw == NULL || vur_switch_outbox_add(td->nd->sw, td->nd->slot, m) < 0) {
		vur_tp_drop(td, t, VUR_TP_DROP_NO_MBUF);
		rte_pktmbuf_free(m);
		return;
	}
	if (vur_txrate_limited(td->nd->txrate))
		vur_txrate_charge(td->nd->txrate, len, 1, vur_txrate_now_ns());
	VUR_TP_COUNT(td, t, tx_pkts, 1);
}

/* The data path may be asleep with nothing to wake it: a state change gives it work. */
static void
wake(struct vur_tp_dev *td)
{
	if (td->nd->sw != NULL)
		vur_switch_wake(td->nd->sw);
}

static void
set_path(struct vur_tp_qp *t)
{
	const struct vur_rdma_qp *qp = t->qp;
	const struct vur_rdma_av *av = &qp->attr.av;
	struct vur_pkt_addr *a = &t->path;

	memset(a, 0, sizeof(*a));
	memcpy(a->dmac.addr_bytes, av->dmac, RTE_ETHER_ADDR_LEN);
	memcpy(a->sgid, av->sgid, 16);
	memcpy(a->dgid, av->dgid, 16);
	a->ipv6 = vur_pkt_gid_is_ipv6(av->dgid);
	a->traffic_class = av->traffic_class;
	a->hop_limit = av->hop_limit;
	a->flow_label = av->flow_label;
	a->sport = vur_pkt_sport(qp->obj.index, qp->attr.dest_qp_num, av->flow_label);
	a->ect = true; /* ROCE-DEV-ECN-1: RC, UC; congestion control answers CE (tp_cc.h) */
}

uint32_t
vur_tp_line_mbps(const struct vur_tp_dev *td)
{
	uint64_t mbps = td->rd->port.speed * 100; /* 100 Mb/s units */

	/* no speed known yet: 100 Gb/s, so that the first cut still means something */
	return mbps == 0 ? 100000 : (uint32_t)RTE_MIN(mbps, (uint64_t)UINT32_MAX);
}

static int
cq_bind(void *arg, struct vur_rdma_cq *cq)
{
	struct vur_tp_dev *td = arg;

	cq->tp = calloc(1, sizeof(*cq->tp));
	if (cq->tp == NULL)
		return -ENOMEM;
	rte_ticketlock_init(&cq->tp->lock);
	vur_tp_ring_bind(&cq->tp->ring, cq->vq, &cq->tp->lock);
	cq->tp->ring.is_cq = true;
	if (cq->rings != NULL) { /* ROCE-DEV-RING-15: the device writes prod, reads cons */
		vur_tp_drv_bind(&cq->tp->ring, &cq->rings->ring[0], &cq->rings->rec,
				offsetof(struct virtio_rdma_cq_rec, cons),
				offsetof(struct virtio_rdma_cq_rec, prod));
		cq->tp->eq = cq->rings->q;
		cq->tp->ev_comp.type = VIRTIO_RDMA_EV_CQ_COMP;
		cq->tp->ev_err.type = VIRTIO_RDMA_EV_CQ_ERR;
		cq->tp->ev_comp.number = cq->tp->ev_err.number = cq->obj.index;
	}
	vur_tp_ring_activate(td, &cq->tp->ring, false);
	return 0;
}

/* ROCE-DEV-RING-23, -24: between two CQEs, as the data path writes them under the CQ's lock. */
static int
cq_resize(void *arg, struct vur_rdma_cq *cq, const struct vur_rdma_ring *ring, uint32_t cqe,
		uint32_t *switch_prod)
{
	int ret;

	if (cq->tp == NULL || !cq->tp->ring.drv)
		return -EINVAL;
	vur_tp_lock(&cq->tp->lock);
	ret = cq->error ? -EIO : vur_tp_drv_cq_resize(arg, &cq->tp->ring, ring, cqe, switch_prod);
	vur_tp_unlock(&cq->tp->lock);
	return ret;
}

static void
cq_unbind(void *arg, struct vur_rdma_cq *cq)
{
	if (cq->tp == NULL)
		return;
	vur_tp_ring_deactivate(arg, &cq->tp->ring);
	if (cq->tp->ring.drv) { /* ROCE-DEV-RING-20: nothing of it afterwards */
		vur_tp_event_cancel(arg, cq->tp->eq, &cq->tp->ev_comp);
		vur_tp_event_cancel(arg, cq->tp->eq, &cq->tp->ev_err);
	}
	free(cq->tp);
	cq->tp = NULL;
}

/*
 * A QP on rings (ROCE-DEV-RING-8 wrote its record at create): its send and
 * receive rings, and no poll until a doorbell or a packet lists it.
 */
static int
bind_rings(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	const struct vur_rdma_rings *g = t->qp->rings;

	vur_tp_ring_bind(&t->sq, UINT32_MAX, &t->lock);
	vur_tp_drv_bind(&t->sq, &g->ring[0], &g->rec, offsetof(struct virtio_rdma_qp_rec, sq_prod),
			offsetof(struct virtio_rdma_qp_rec, sq_cons));
	t->sq.is_sq = true;
	vur_tp_ring_bind(&t->rq, UINT32_MAX, &t->lock);
	if (g->has_rq)
		vur_tp_drv_bind(&t->rq, &g->ring[1], &g->rec,
				offsetof(struct virtio_rdma_qp_rec, rq_prod),
				offsetof(struct virtio_rdma_qp_rec, rq_cons));
	t->sq.dp = t->rq.dp = t->dp;
	vur_tp_ring_activate(td, &t->sq, false);
	if (g->has_rq)
		vur_tp_ring_activate(td, &t->rq, false);
	return 0;
}

static int
qp_bind(void *arg, struct vur_rdma_qp *qp)
{
	struct vur_tp_dev *td = arg;
	struct vur_tp_qp *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -ENOMEM;
	t->nwqe = qp->sq_size;
	/* on rings: made at its first send WR (tp_wq.c) */
	t->wqe = qp->rings != NULL ? NULL : calloc(t->nwqe, sizeof(*t->wqe));
	if (qp->rings == NULL && t->wqe == NULL) {
		free(t);
		return -ENOMEM;
	}
	rte_ticketlock_init(&t->lock);
	vur_tp_qp_reset_state(t);
	t->qp = qp;
	t->td = td;
	if (qp->srqn != 0)
		t->srq = ((struct vur_rdma_srq *)vur_pool_get(&td->rd->srqs, qp->srqn))->tp;
	t->dp = td->nd->sw != NULL ? vur_switch_qp_dp(td->nd->sw, td->nd->slot, qp->obj.index) : 0;
	qp->tp = t;
	if (qp->rings != NULL)
		return bind_rings(td, t);
	td->qp_bound[qp->obj.index / 64] |= 1ULL << (qp->obj.index % 64);
	__atomic_fetch_add(&td->qp_count[t->dp], 1, __ATOMIC_RELAXED);
	vur_tp_ring_bind(&t->sq, qp->sq_vq, &t->lock);
	t->sq.is_sq = true;
	vur_tp_ring_bind(&t->rq, qp->rq_vq, &t->lock);
	t->sq.dp = t->rq.dp = t->dp;
	/* receive kicks too: a WR posted in ERR is flushed at once (ROCE-DEV-QPS-6) */
	vur_tp_ring_activate(td, &t->sq, true);
	if (t->srq == NULL) /* ROCE-DEV-SRQ-6 */
		vur_tp_ring_activate(td, &t->rq, true);
	return 0;
}

static void
qp_unbind(void *arg, struct vur_rdma_qp *qp)
{
	struct vur_tp_dev *td = arg;
	struct vur_tp_qp *t = qp->tp;

	if (t == NULL)
		return;
	if (qp->rings == NULL) {
		td->qp_bound[qp->obj.index / 64] &= ~(1ULL << (qp->obj.index % 64));
		__atomic_fetch_sub(&td->qp_count[t->dp], 1, __ATOMIC_RELAXED);
	} else {
		vur_tp_qp_deactivate(td, t); /* ROCE-DEV-RING-20: off every list */
	}
	/*
	 * ROCE-DEV-QP-16: outstanding WRs are forgotten, not completed nor
	 * used; but the SRQ's WR it took goes back used (ROCE-DEV-SRQ-14).
	 */
	if (t->srq != NULL && t->rwqe_held) {
		vur_tp_srq_push(td, t->srq, t->rwqe.head);
		vur_tp_publish(td);
	}
	vur_tp_ring_deactivate(td, &t->sq);
	if (t->rq.drv || qp->rings == NULL)
		vur_tp_ring_deactivate(td, &t->rq);
	vur_tp_ooo_clear(&t->ooo);
	vur_tp_ooo_clear(&t->rd_ooo);
	free(t->wqe);
	free(t);
	qp->tp = NULL;
}

static void
qp_modified(void *arg, struct vur_rdma_qp *qp, uint8_t old)
{
	struct vur_tp_dev *td = arg;
	struct vur_tp_qp *t = qp->tp;
	uint8_t now = qp->attr.state;

	if (t == NULL)
		return;
	set_path(t);
	if (now == VIRTIO_IB_QPS_RESET && old != VIRTIO_IB_QPS_RESET) {
		vur_tp_qp_discard(td, t);
	} else if (now == VIRTIO_IB_QPS_ERR && old != VIRTIO_IB_QPS_ERR) {
		vur_tp_qp_flush(td, t);
	} else if (now == VIRTIO_IB_QPS_RTR && old == VIRTIO_IB_QPS_INIT) {
		t->epsn = qp->attr.rq_psn; /* the first PSN it accepts */
	} else if (now == VIRTIO_IB_QPS_RTS && old == VIRTIO_IB_QPS_RTR) {
		t->psn = t->una = t->sent_psn = qp->attr.sq_psn;
		t->ack_req_psn = vur_psn_add(qp->attr.sq_psn, VUR_PSN_MASK);
		vur_tp_win_init(&t->win);
		vur_tp_cc_init(&t->cc);
		t->retry_left = qp->attr.retry_cnt;
		t->rnr_left = qp->attr.rnr_retry;
	} else if (now == VIRTIO_IB_QPS_RTS && old == VIRTIO_IB_QPS_SQE) {
		t->flush_pending = false;
	}
	/*
	 * Its thread looks only when the QP has work it would not find by
	 * itself: WRs that waited for this state or for a new attribute, a
	 * flush (ERR, SQE: on rings it took send WRs here, past the sq_event
	 * the driver last saw, and the thread drops the QP again writing it,
	 * ROCE-DEV-RING-12). Else the next doorbell, kick or packet brings it.
	 * Listed or not, the thread may sleep: it is nudged. Waking it at every
	 * MODIFY_QP made it contend for the device lock with the commands that
	 * followed: 5x the time of a QP's set-up (bench/README.md).
	 */
	if (now == VIRTIO_IB_QPS_ERR || now == VIRTIO_IB_QPS_SQE || !vur_tp_qp_idle(td, t)) {
		if (qp->rings != NULL)
			vur_tp_qp_activate(td, t);
		vur_tp_self()->wake |= 1u << t->dp;
	}
	vur_tp_publish(td);
}

static bool
qp_sq_draining(void *arg, const struct vur_rdma_qp *qp)
{
	RTE_SET_USED(arg);
	/* ROCE-DEV-QPS-9: WRs started and not complete */
	return qp->tp != NULL && qp->attr.state == VIRTIO_IB_QPS_SQD &&
			qp->tp->started != qp->tp->head;
}

/*
 * ROCE-DEV-RING-13: a thread waits only with sleeping set in its summaries,
 * and the new ones say 0: it wakes and sets it again before it sleeps. (A
 * MODIFY_QP used to wake it anyway; now a driver's first doorbell on a new
 * frontend would find sleeping 0 and not notify a thread that sleeps.)
 */
static void
doorbells_moved(void *arg)
{
	struct vur_tp_dev *td = arg;

	vur_tp_self()->wake |= __atomic_load_n(&td->ring_dps, __ATOMIC_ACQUIRE);
	vur_tp_publish(td);
}

const struct vur_rdma_hooks vur_tp_hooks = {
	.cq_bind = cq_bind,
	.cq_unbind = cq_unbind,
	.cq_resize = cq_resize,
	.qp_bind = qp_bind,
	.qp_unbind = qp_unbind,
	.qp_modified = qp_modified,
	.qp_sq_draining = qp_sq_draining,
	.srq_bind = vur_tp_srq_bind,
	.srq_unbind = vur_tp_srq_unbind,
	.doorbells_moved = doorbells_moved,
};

void
vur_tp_init(struct vur_tp_dev *td, struct vur_rdma_dev *rd, struct vur_net_dev *nd)
{
	memset(td, 0, sizeof(*td));
	td->rd = rd;
	td->nd = nd;
	td->vid = -1;
	for (unsigned int i = 0; i < VUR_TP_MAX_THREADS; i++) {
		rte_spinlock_init(&td->act[i].lock);
		TAILQ_INIT(&td->act[i].inbox);
		TAILQ_INIT(&td->act[i].active);
	}
}

void
vur_tp_fini(struct vur_tp_dev *td)
{
	free(td->rq);
	td->rq = NULL;
	td->n_rq = 0;
}

static void
activate_cq(void *obj, void *arg)
{
	struct vur_rdma_cq *cq = obj;

	if (cq->tp != NULL)
		vur_tp_ring_activate(arg, &cq->tp->ring, false);
}

static void
activate_qp(void *obj, void *arg)
{
	struct vur_rdma_qp *qp = obj;

	if (qp->tp != NULL) {
		/* on rings: no kick of its own, doorbells instead */
		vur_tp_ring_activate(arg, &qp->tp->sq, qp->rings == NULL);
		if (qp->tp->srq == NULL && (qp->rings == NULL || qp->rings->has_rq))
			vur_tp_ring_activate(arg, &qp->tp->rq, qp->rings == NULL);
	}
}

int
vur_tp_start(struct vur_tp_dev *td, int vid)
{
	if (td->nd->sw == NULL || td->rd->qps.objs == NULL)
		return -ENODEV;
	if (!td->active) {
		free(td->mem);
		td->mem = NULL;
		if (rte_vhost_get_mem_table(vid, &td->mem) != 0)
			return -ENOMEM;
		td->vid = vid;
		td->active = true;
	}
	/* Rings that became ready since, too: each starts once. */
	vur_pool_foreach(&td->rd->cqs, activate_cq, td);
	vur_tp_srq_start(td);
	vur_pool_foreach(&td->rd->qps, activate_qp, td);
	vur_tp_rings_start(td);
	wake(td);
	return 0;
}

static void
deactivate_cq(void *obj, void *arg)
{
	struct vur_rdma_cq *cq = obj;

	if (cq->tp != NULL)
		vur_tp_ring_deactivate(arg, &cq->tp->ring);
}

static void
deactivate_qp(void *obj, void *arg)
{
	struct vur_rdma_qp *qp = obj;

	if (qp->tp != NULL) {
		vur_tp_ring_deactivate(arg, &qp->tp->sq);
		vur_tp_ring_deactivate(arg, &qp->tp->rq);
	}
}

void
vur_tp_stop(struct vur_tp_dev *td)
{
	if (!td->active)
		return;
	if (td->rd->cqs.objs != NULL)
		vur_pool_foreach(&td->rd->cqs, deactivate_cq, td);
	if (td->rd->qps.objs != NULL)
		vur_pool_foreach(&td->rd->qps, deactivate_qp, td);
	vur_tp_srq_stop(td);
	vur_tp_rings_stop(td);
	td->active = false;
	free(td->mem);
	td->mem = NULL;
}

static void
deadline(uint64_t *dl, uint64_t t)
{
	if (t != 0 && (*dl == 0 || t < *dl))
		*dl = t;
}

/*
 * READ responses and ACKs are answers: they go, and take the device's
 * transmit tokens (common/txrate.h) so that its requests wait for them.
 */
static void
charge_rate(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **m, uint16_t n,
		uint64_t now_ns)
{
	uint32_t bytes = 0, pkts = 0, pmtu;

	if (n == 0 || !vur_txrate_limited(td->nd->txrate))
		return;
	pmtu = vur_tp_pmtu(td, t);
	for (uint16_t i = 0; i < n; i++) {
		bytes += m[i]->pkt_len;
		pkts += RTE_MAX(1u,
				(m[i]->pkt_len + pmtu - 1) /
						pmtu); /* a local packet holds several */
	}
	vur_txrate_charge(td->nd->txrate, bytes, pkts, now_ns);
}

/* One QP's timers, READ responses and requests: the packets in @out after @n. */
uint16_t
vur_tp_poll_qp(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out, uint16_t n,
		uint16_t max, uint64_t now_ns, bool arm, uint64_t *dl)
{
	vur_tp_qp_lock(t);
	vur_tp_timers(td, t, now_ns);
	vur_tp_cc_tick(&t->cc, vur_tp_line_mbps(td), now_ns);
	t->sq.ring.no_kick = !arm;
	if (n < max) {
		uint16_t k = vur_tp_read_responses(td, t, out + n,
				RTE_MIN((uint16_t)(max - n), (uint16_t)VUR_TP_BURST));

		charge_rate(td, t, out + n, k, now_ns);
		n += k;
	}
	if (n < max)
		n += vur_tp_requester(td, t, out + n,
				RTE_MIN((uint16_t)(max - n), (uint16_t)VUR_TP_BURST), now_ns);
	deadline(dl, t->retx_deadline);
	deadline(dl, t->rnr_deadline);
	deadline(dl, t->probe_deadline);
	if (t->send != t->tail) {
		deadline(dl, vur_tp_cc_wait(&t->cc)); /* paced: work when the rate allows */
		/* the device's limit: when tokens return (passed: another reason holds it) */
		if (t->rate_ready_ns > now_ns)
			deadline(dl, t->rate_ready_ns);
	}
	vur_tp_qp_unlock(t);
	return n;
}

uint16_t
vur_tp_poll(struct vur_tp_dev *td, unsigned int dp, struct rte_mbuf **out, uint16_t max,
		uint64_t now_ns, bool arm, uint64_t *deadline_ns)
{
	uint32_t words = (td->rd->limits.max_qps + 63) / 64;
	struct vur_tp_qp *t;
	uint16_t n = 0;
	uint64_t bits;

	*deadline_ns = 0;
	if (!td->active)
		return 0;
	for (uint32_t w = 0; w < words; w++)
		for (bits = td->qp_bound[w]; bits != 0; bits &= bits - 1) {
			t = vur_tp_qp_get(td, w * 64 + (uint32_t)__builtin_ctzll(bits));
			if (t != NULL && t->dp == dp)
				n = vur_tp_poll_qp(td, t, out, n, max, now_ns, arm, deadline_ns);
		}
	if (td->n_rq != 0 || td->act[dp].n != 0)
		n = vur_tp_rings_poll(td, dp, out, n, max, now_ns, arm, deadline_ns);
	vur_tp_publish(td);
	return n;
}

static bool
transport_matches(const struct vur_rdma_qp *qp, uint8_t opcode)
{
	switch (VUR_TRANSPORT(opcode)) {
	case VUR_TRANSPORT_RC:
		return qp->type == VIRTIO_IB_QPT_RC;
	case VUR_TRANSPORT_UC:
		return qp->type == VIRTIO_IB_QPT_UC;
	default:
		return qp->type == VIRTIO_IB_QPT_UD || qp->type == VIRTIO_IB_QPT_GSI;
	}
}

/* QP @qpn, locked; the one held before (@held) is let go unless it is the same. */
static struct vur_tp_qp *
rx_qp(struct vur_tp_dev *td, struct vur_tp_qp *held, uint32_t qpn)
{
	struct vur_tp_qp *t = vur_tp_qp_get(td, qpn);

	if (t == held)
		return t;
	if (held != NULL)
		vur_tp_qp_unlock(held);
	if (t != NULL)
		vur_tp_qp_lock(t);
	return t;
}

/* ROCE-DEV-ECN-2: a CNP for the QP that sent @t's CE-marked request, at most one per gap. */
static void
on_ce(struct vur_tp_dev *td, struct vur_tp_qp *t, uint64_t now_ns)
{
	static const uint8_t rsvd[VUR_CNP_RSVD_LEN];
	struct vur_pkt_hdrs h = {
		.opcode = VUR_OPCODE_CNP,
		.dest_qpn = t->qp->attr.dest_qp_num,
	};
	struct rte_mbuf *m;

	VUR_TP_COUNT(td, t, ecn_ce_rx, 1);
	if ((t->qp->type != VIRTIO_IB_QPT_RC && t->qp->type != VIRTIO_IB_QPT_UC) ||
			!vur_tp_cc_want_cnp(&t->cc, now_ns))
		return;
	m = vur_tp_build(td, t, &h, VUR_CNP_RSVD_LEN);
	if (m == NULL || vur_pkt_append_copy(m, rsvd, sizeof(rsvd)) != 0) {
		rte_pktmbuf_free(m);
		vur_tp_drop(td, t, VUR_TP_DROP_NO_MBUF);
		return;
	}
	VUR_TP_COUNT(td, t, cnp_sent, 1);
	vur_tp_send_reply(td, t, m);
}

/* ROCE-DEV-ECN-3: a CNP slows the QP down (RC and UC send; others ignore it). */
static void
on_cnp(struct vur_tp_dev *td, struct vur_tp_qp *t, uint64_t now_ns)
{
	VUR_TP_COUNT(td, t, cnp_rx, 1);
	if (t->qp->type == VIRTIO_IB_QPT_RC || t->qp->type == VIRTIO_IB_QPT_UC)
		vur_tp_cc_on_cnp(&t->cc, vur_tp_line_mbps(td), now_ns);
}

/*
 * ROCE-DEV-MCAST-8, -9: a UD SEND to a group goes to every QP attached to
 * it, each checking its Q_Key and taking a receive WR of its own. The
 * group's list is stable: the device lock is held (for reading).
 */
static struct vur_tp_qp *
rx_mcast(struct vur_tp_dev *td, struct vur_tp_qp *held, const struct vur_pkt *p)
{
	const struct vur_rdma_mcast_grp *g = NULL;
	struct vur_tp_qp *t;

	/*
	 * ROCE-DEV-MCAST-9: the opcode's own transport, not its mask, which
	 * lists every transport the operation exists in (SEND_ONLY: all three)
	 */
	if (VUR_TRANSPORT(p->h.opcode) == VUR_TRANSPORT_UD && (p->mask & VUR_OPM_SEND) &&
			vur_rdma_gid_is_mcast(p->dgid))
		g = vur_rdma_mcast_find(td->rd, p->dgid);
	if (g == NULL) {
		vur_tp_stats(td)->rx_pkts++;
		vur_tp_stats(td)->drops[VUR_TP_DROP_NO_QP]++;
		return held;
	}
	vur_tp_stats(td)->mcast_rx++;
	for (uint32_t i = 0; i < g->nqps; i++) {
		t = rx_qp(td, held, g->qpns[i]);
		held = t;
		if (t == NULL) /* attached, but not bound (never in a state to receive) */
			continue;
		VUR_TP_COUNT(td, t, rx_pkts, 1);
		if (!vur_tp_state_receives(t->qp->attr.state))
			vur_tp_drop(td, t, VUR_TP_DROP_QP_STATE);
		else
			vur_tp_responder(td, t, p);
	}
	return held;
}

/* Take @m; returns the QP held now (consecutive packets for one QP keep it). */
static struct vur_tp_qp *
rx_one(struct vur_tp_dev *td, struct vur_tp_qp *held, struct rte_mbuf *m, uint64_t now_ns)
{
	enum vur_pkt_err e;
	struct vur_tp_qp *t;
	struct vur_pkt p;

	e = vur_pkt_parse(m, &p);
	if (e != VUR_PKT_OK) {
		vur_tp_stats(td)->pkt_err[e]++;
		vur_tp_stats(td)->drops[VUR_TP_DROP_MALFORMED]++;
		return held;
	}
	if (p.h.dest_qpn == VIRTIO_IB_MULTICAST_QPN)
		return rx_mcast(td, held, &p);
	t = rx_qp(td, held, p.h.dest_qpn);
	if (t == NULL) { /* ROCE-DEV-WIRE-4 */
		vur_tp_stats(td)->rx_pkts++;
		vur_tp_stats(td)->drops[VUR_TP_DROP_NO_QP]++;
		return NULL;
	}
	VUR_TP_COUNT(td, t, rx_pkts, p.npkts);
	if (!vur_tp_state_receives(t->qp->attr.state)) {
		vur_tp_drop(td, t, VUR_TP_DROP_QP_STATE);
		return t;
	}
	if (p.mask & VUR_OPM_CNP) {
		on_cnp(td, t, now_ns);
		return t;
	}
	if (!transport_matches(t->qp, p.h.opcode)) {
		vur_tp_drop(td, t, VUR_TP_DROP_TRANSPORT);
		return t;
	}
	/* whether to send it whole messages: a guess, pkt.h says why a wrong one is safe */
	t->peer_local = vur_pkt_is_local(m);
	if (p.ce && (p.mask & VUR_OPM_REQ))
		on_ce(td, t, now_ns);
	if (p.mask & (VUR_OPM_RRESP | VUR_OPM_ACK))
		vur_tp_completer(td, t, &p, now_ns);
	else
		vur_tp_responder(td, t, &p);
	return t;
}

void
vur_tp_rx(struct vur_tp_dev *td, struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns)
{
	struct vur_tp_qp *held = NULL;

	for (uint16_t i = 0; i < n && td->active; i++)
		held = rx_one(td, held, pkts[i], now_ns);
	if (held != NULL)
		vur_tp_qp_unlock(held);
	rte_pktmbuf_free_bulk(pkts, n);
	vur_tp_flush_acks(td);
	vur_tp_publish(td);
}

unsigned int
vur_tp_qp_infos(struct vur_tp_dev *td, struct vur_tp_qp_info *out, unsigned int max)
{
	unsigned int n = 0;

	for (uint32_t q = 0; q < td->rd->limits.max_qps + td->rd->limits.max_ring_qp; q++) {
		const struct vur_tp_qp *t = vur_tp_qp_get(td, q);

		if (t == NULL)
			continue;
		if (n < max)
			out[n] = (struct vur_tp_qp_info){
				.qpn = q,
				.type = t->qp->type,
				.state = t->qp->attr.state,
				.dest_qpn = t->qp->attr.dest_qp_num,
				.data_path = t->dp,
				.sq_psn = t->psn,
				.rq_psn = t->epsn,
				.outstanding = t->tail - t->head,
				.reads_out = vur_tp_reads_outstanding(t),
				.una = t->una,
				.window = t->win.cwnd,
				.rate_mbps = t->cc.rate,
				.srtt_us = (uint32_t)RTE_MIN(
						t->srtt_ns / 1000, (uint64_t)UINT32_MAX),
				.rings = t->qp->rings != NULL,
				.dbq = t->qp->rings != NULL ? t->qp->rings->q : 0,
				.sq_entries = t->qp->rings != NULL
						? 1u << t->qp->rings->ring[0].log_size
						: t->qp->sq_size,
				.active = t->act_on != 0,
				.stats = t->stats,
			};
		n++;
	}
	return n;
}

void
vur_tp_rates(struct vur_tp_dev *td, struct vur_tp_rates *out)
{
	struct vur_tp_qp *t;
	uint32_t rate;
	uint64_t bits;

	memset(out, 0, sizeof(*out));
	/* the bound QPs only: a device without a frontend has no QP pool to ask */
	for (uint32_t w = 0; w < RTE_DIM(td->qp_bound); w++)
		for (bits = td->qp_bound[w]; bits != 0; bits &= bits - 1) {
			t = vur_tp_qp_get(td, w * 64 + (uint32_t)__builtin_ctzll(bits));
			rate = t != NULL ? __atomic_load_n(&t->cc.rate, __ATOMIC_RELAXED) : 0;
			if (rate != 0) {
				out->paced_qps++;
				out->paced_mbps += rate;
			}
		}
}

bool
vur_tp_takes_mcast(const struct vur_tp_dev *td, const uint8_t *mac, const uint8_t *gid)
{
	uint8_t group_mac[RTE_ETHER_ADDR_LEN];

	if (td->rd->mcast == NULL || !vur_rdma_gid_is_mcast(gid))
		return false;
	vur_rdma_mcast_mac(gid, group_mac);
	return memcmp(mac, group_mac, sizeof(group_mac)) == 0 &&
			vur_rdma_mcast_find(td->rd, gid) != NULL;
}

bool
vur_tp_owns_gid(const struct vur_tp_dev *td, const uint8_t *gid)
{
	const struct vur_rdma_dev *rd = td->rd;

	for (uint32_t i = 0; rd->gids != NULL && i < rd->limits.gid_tbl_len; i++)
		if (rd->gids[i].valid && memcmp(rd->gids[i].raw, gid, 16) == 0)
			return true;
	return false;
}
