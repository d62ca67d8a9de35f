/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Doorbells of QPs on rings (issue 28): a thread polls a QP on rings only
 * while it is on its active list, so 16k idle QPs cost nothing per pass.
 *
 * A QP is listed when a doorbell summary bit names it (the summaries of the
 * doorbell queues this thread owns), or when another thread touches it
 * (vur_tp_qp_lock: a packet gave it READ responses to send, an ACK freed
 * its window); a thread that finds work for another thread's QP puts it in
 * that thread's inbox and wakes it (ROCE-DEV-RING-13). The owner polls it
 * until it is drained, then writes sq_event (the index it consumed up to),
 * a full barrier, reads sq_prod again, and drops it only if nothing came.
 *
 * Sleeping (ROCE-DEV-RING-13): before the thread sleeps it stores sleeping
 * = 1 in each summary it owns, a full barrier, then takes the bits once
 * more; awake, it stores sleeping = 0. A driver that set a bit and then
 * (after its own full barrier) saw sleeping = 0 knows a thread will look.
 * Bits for a number that is no QP on rings of that doorbell queue are
 * ignored and counted (ROCE-DEV-RING-14).
 */
#include <rte_atomic.h>
#include <rte_spinlock.h>
#include <rte_vhost.h>

#include "net/net_dev.h"
#include "net/net_switch.h"
#include "transport/tp.h"

#define IN_INBOX  1
#define IN_ACTIVE 2

void
vur_tp_qp_activate(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	struct vur_tp_act *a = &td->act[t->dp];
	struct vur_tp_self *self = vur_tp_self();
	uint8_t no = 0;

	if (!__atomic_compare_exchange_n(
			    &t->act_on, &no, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return; /* listed already */
	rte_spinlock_lock(&a->lock);
	t->act_where = IN_INBOX;
	TAILQ_INSERT_TAIL(&a->inbox, t, act);
	__atomic_fetch_add(&a->n, 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&a->lock);
	if ((unsigned int)t->dp + 1 != self->shard) {
		vur_tp_stats(td)->ring_db_handoffs++;
		self->wake |= 1u << t->dp; /* vur_tp_publish() nudges it */
	}
}

/* The control thread (the engine at rest): off whichever list it is on. */
void
vur_tp_qp_deactivate(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	struct vur_tp_act *a = &td->act[t->dp];

	if (t->act_on == 0)
		return;
	TAILQ_REMOVE(t->act_where == IN_INBOX ? &a->inbox : &a->active, t, act);
	__atomic_fetch_sub(&a->n, 1, __ATOMIC_RELAXED);
	t->act_on = 0;
	t->act_where = 0;
}

/* The summary's word @w of doorbell queue @k; NULL when it cannot be reached. */
static uint64_t *
summary_word(struct vur_tp_dev *td, uint32_t k, uint32_t w)
{
	const struct vur_rdma_dev *rd = td->rd;
	uint64_t addr = rd->doorbells.addr + (uint64_t)k * rd->doorbell_size +
			offsetof(struct virtio_rdma_doorbell, bits) + (uint64_t)w * 8;
	uint32_t len = 8;
	uint64_t *p = vur_tp_mr_hva(td, rd->doorbells.pdn, rd->doorbells.lkey,
			VIRTIO_IB_ACCESS_LOCAL_WRITE, addr, &len);

	return len == 8 ? p : NULL;
}

static uint32_t *
sleeping_word(struct vur_tp_dev *td, uint32_t k)
{
	const struct vur_rdma_dev *rd = td->rd;
	uint32_t len = 4;
	uint32_t *p = vur_tp_mr_hva(td, rd->doorbells.pdn, rd->doorbells.lkey,
			VIRTIO_IB_ACCESS_LOCAL_WRITE,
			rd->doorbells.addr + (uint64_t)k * rd->doorbell_size, &len);

	return len == 4 ? p : NULL;
}

/* Bit @qpn of summary @k: list the QP if it is a live QP on rings of that queue. */
static void
rung(struct vur_tp_dev *td, uint32_t k, uint32_t qpn)
{
	struct vur_tp_qp *t = vur_tp_qp_get(td, qpn);

	if (t == NULL || t->qp->rings == NULL || t->qp->rings->q != k) {
		vur_tp_stats(td)->ring_db_ignored++;
		return;
	}
	vur_tp_stats(td)->ring_doorbells++;
	vur_tp_qp_activate(td, t);
}

/*
 * Take the bits of summary @k: each non-zero word exchanged with 0, read
 * page by page so a word is one translation (8-aligned: within a page).
 * Returns the bits taken.
 */
static uint32_t
take_bits(struct vur_tp_dev *td, uint32_t k)
{
	uint32_t words = (td->rd->limits.max_qps + td->rd->limits.max_ring_qp + 63) / 64;
	uint64_t *page = NULL, bits, v;
	uint32_t taken = 0;

	for (uint32_t w = 0; w < words; w++) {
		/* a new translation where the words cross into another page */
		if (page == NULL || ((uintptr_t)(page + 1) & 4095) == 0)
			page = summary_word(td, k, w);
		else
			page++;
		if (page == NULL)
			return taken;
		if (__atomic_load_n(page, __ATOMIC_RELAXED) == 0)
			continue;
		v = __atomic_exchange_n(page, 0, __ATOMIC_ACQ_REL);
		for (bits = rte_le_to_cpu_64(v); bits != 0; bits &= bits - 1, taken++)
			rung(td, k, w * 64 + (uint32_t)__builtin_ctzll(bits));
	}
	return taken;
}

/* The doorbell summaries of thread @dp: sleeping as @arm says, then their bits. */
static uint32_t
doorbells(struct vur_tp_dev *td, unsigned int dp, bool arm)
{
	uint32_t taken = 0, *sleeping;
	bool fence = false;

	if (!td->rd->doorbells_set)
		return 0;
	for (uint32_t k = 0; k < td->n_rq; k++) {
		struct vur_tp_rq *q = &td->rq[k];

		/*
		 * Written each time the thread is about to sleep (a SETUP_RINGS
		 * since may have moved the summaries), cleared once awake.
		 */
		if (q->dp != dp || (!arm && !q->sleeping))
			continue;
		sleeping = sleeping_word(td, k);
		if (sleeping != NULL)
			__atomic_store_n(sleeping, rte_cpu_to_le_32(arm ? 1 : 0), __ATOMIC_RELAXED);
		q->sleeping = arm;
		fence = true;
	}
	/* the store of sleeping before the loads of the bits (the driver: bit, then sleeping) */
	if (fence)
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t k = 0; k < td->n_rq; k++)
		if (td->rq[k].dp == dp)
			taken += take_bits(td, k);
	return taken;
}

/*
 * Whether the device takes @t's send WRs in its state: to send them, or to
 * flush them (ERR, SQE: ROCE-DEV-QPS-6, -8). In those states a post found
 * after sq_event is written must be served (ROCE-DEV-RING-12): a QP that
 * went to ERR while the driver posted would otherwise keep that WR.
 */
static bool
takes_sends(struct vur_tp_qp *t)
{
	uint8_t state = t->qp->attr.state;

	return !t->sq.broken &&
			(vur_tp_state_sends(state) || state == VIRTIO_IB_QPS_ERR ||
					state == VIRTIO_IB_QPS_SQE);
}

bool
vur_tp_qp_idle(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	uint8_t state = t->qp->attr.state;

	if (t->flush_pending || t->head != t->tail || t->retx_deadline != 0 ||
			t->rnr_deadline != 0 || t->probe_deadline != 0 || t->ack_pending ||
			t->aeth_deferred)
		return false;
	for (unsigned int i = 0; i < VUR_TP_RD_SLOTS; i++)
		if (t->res[i].valid && t->res[i].next_pkt < t->res[i].npkts)
			return false;
	/* receives posted in ERR before rq_notify was seen (ROCE-DEV-RING-22) */
	if (state == VIRTIO_IB_QPS_ERR && !t->rq.broken && vur_tp_ring_moved(td, &t->rq))
		return false;
	/* a state that takes no send WR: a MODIFY_QP lists it again */
	return !takes_sends(t) || !vur_tp_ring_moved(td, &t->sq);
}

/*
 * Drop @t (held) if drained: sq_event = what it consumed, a full barrier,
 * sq_prod again (ROCE-DEV-RING-12). Returns whether it was dropped; @again
 * when it has work that makes no packet (a flush, a post found by the
 * re-read): the pass must come back at once, not sleep on it.
 */
static bool
try_drop(struct vur_tp_dev *td, struct vur_tp_qp *t, bool *again)
{
	uint8_t state = t->qp->attr.state;
	uint32_t *ev;

	*again = false;
	if (!vur_tp_qp_idle(td, t)) {
		*again = state == VIRTIO_IB_QPS_ERR || state == VIRTIO_IB_QPS_SQE;
		return false;
	}
	ev = vur_tp_drv_rec(td, &t->sq.dr, offsetof(struct virtio_rdma_qp_rec, sq_event));
	if (ev != NULL)
		__atomic_store_n(ev, rte_cpu_to_le_32(t->sq.dr.next), __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (takes_sends(t) && vur_tp_drv_moved(td, &t->sq)) {
		*again = true;
		return false;
	}
	t->act_on = 0;
	return true;
}

uint16_t
vur_tp_rings_poll(struct vur_tp_dev *td, unsigned int dp, struct rte_mbuf **out, uint16_t n,
		uint16_t max, uint64_t now_ns, bool arm, uint64_t *dl)
{
	struct vur_tp_act *a = &td->act[dp];
	struct vur_tp_qp *t, *next;
	bool again;
	uint32_t found;

	found = doorbells(td, dp, arm);
	if (!TAILQ_EMPTY(&a->inbox)) {
		rte_spinlock_lock(&a->lock);
		TAILQ_FOREACH(t, &a->inbox, act)
			t->act_where = IN_ACTIVE;
		TAILQ_CONCAT(&a->active, &a->inbox, act);
		rte_spinlock_unlock(&a->lock);
	}
	for (t = TAILQ_FIRST(&a->active); t != NULL; t = next) {
		next = TAILQ_NEXT(t, act);
		n = vur_tp_poll_qp(td, t, out, n, max, now_ns, arm, dl);
		vur_tp_qp_lock(t);
		if (try_drop(td, t, &again)) {
			TAILQ_REMOVE(&a->active, t, act);
			t->act_where = 0;
			__atomic_fetch_sub(&a->n, 1, __ATOMIC_RELAXED);
		} else if (again && (*dl == 0 || now_ns < *dl)) {
			*dl = now_ns; /* a pass that sends nothing would let the thread sleep */
		}
		vur_tp_qp_unlock(t);
	}
	vur_tp_events_drain(td, dp);
	/* a QP not drained keeps its timers in @dl; a packet or an ACK lists it again */
	RTE_SET_USED(found);
	return n;
}

/*
 * A doorbell or event queue is bound once per device and keeps its
 * indices across stops; but a frontend that set a base other than the one
 * handed back at the stop (a new frontend, or a device reset) starts it
 * afresh from that base: with the old indices its first buffers would look
 * like a driver moving the avail index past the ring (issue 28: every
 * frontend after the first that took an event lost its event queues).
 */
static void
rebase(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	uint16_t avail, used;

	if (r->active || !r->started ||
			rte_vhost_get_vring_base(td->vid, (uint16_t)r->vq, &avail, &used) != 0)
		return;
	if (avail != r->ring.last_avail || used != r->ring.used_idx) {
		r->started = false;
		r->broken = false;
	}
}

void
vur_tp_rings_start(struct vur_tp_dev *td)
{
	uint32_t k_max = td->rd->limits.ring_queues;
	struct vur_switch *sw = td->nd->sw;
	uint32_t dps = 0;

	if (k_max == 0)
		return;
	/* made once: an event queue keeps its indices and waiting events across stops */
	if (td->rq == NULL) {
		uint32_t n_pairs = td->rd->env.n_pairs, cqs = td->rd->limits.max_cqs;
		uint32_t qps = td->rd->limits.max_qps;

		td->rq = calloc(k_max, sizeof(*td->rq));
		if (td->rq == NULL)
			return;
		for (uint32_t k = 0; k < k_max; k++) {
			struct vur_tp_rq *q = &td->rq[k];

			rte_ticketlock_init(&q->lock);
			TAILQ_INIT(&q->pending);
			vur_tp_ring_bind(&q->dbq, virtio_net_roce_dbq_vq(n_pairs, cqs, qps, k),
					&q->lock);
			vur_tp_ring_bind(&q->eq, virtio_net_roce_eq_vq(n_pairs, cqs, qps, k),
					&q->lock);
		}
	}
	for (uint32_t k = 0; k < k_max; k++) {
		struct vur_tp_rq *q = &td->rq[k];

		q->dp = sw != NULL ? (uint8_t)vur_switch_qp_dp(sw, td->nd->slot, k) : 0;
		q->dbq.dp = q->eq.dp = q->dp;
		rebase(td, &q->dbq);
		rebase(td, &q->eq);
		/* kicks only wake the thread: a doorbell queue carries no buffer */
		vur_tp_ring_activate(td, &q->dbq, true);
		vur_tp_ring_activate(td, &q->eq, true);
		q->sleeping = false;
		dps |= 1u << q->dp;
	}
	td->n_rq = k_max;
	__atomic_store_n(&td->ring_dps, dps, __ATOMIC_RELEASE);
}

void
vur_tp_rings_stop(struct vur_tp_dev *td)
{
	__atomic_store_n(&td->ring_dps, 0, __ATOMIC_RELEASE);
	for (uint32_t k = 0; k < td->n_rq; k++) {
		vur_tp_ring_deactivate(td, &td->rq[k].dbq);
		vur_tp_ring_deactivate(td, &td->rq[k].eq);
	}
}
