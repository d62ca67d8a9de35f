/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions: a CQE into the next buffer of the CQ's completion
 * virtqueue, the notification when the CQ is armed for it, and the overrun
 * (IBTA has no CQ flow control, so a CQ without room is in error).
 */
#include <string.h>

#include "transport/tp.h"

/* The notification goes with the CQEs, when the pass publishes them. */
static void
notify(struct vur_tp_dev *td, struct vur_rdma_cq *cq)
{
	cq->armed = 0;
	vur_tp_ring_notify_cq(td, &cq->tp->ring);
}

struct overrun_ctx {
	struct vur_tp_dev *td;
	uint32_t cqn;
};

static void
fail_user(void *obj, void *arg)
{
	struct vur_rdma_qp *qp = obj;
	struct overrun_ctx *o = arg;
	struct vur_tp_qp *t = qp->tp;

	if (t == NULL || (qp->send_cqn != o->cqn && qp->recv_cqn != o->cqn))
		return;
	vur_tp_qp_lock(t);
	vur_tp_qp_error(o->td, t, VIRTIO_IB_QPS_ERR); /* ROCE-DEV-OVR-2 */
	vur_tp_qp_unlock(t);
}

void
vur_tp_cq_settle(struct vur_tp_dev *td)
{
	struct vur_tp_self *self = vur_tp_self();
	struct overrun_ctx o = { .td = td };

	for (uint16_t i = 0; i < self->n_overrun; i++) {
		o.cqn = self->overrun[i];
		vur_pool_foreach(&td->rd->qps, fail_user, &o);
	}
	self->n_overrun = 0;
}

/*
 * CQ lock held. The CQ's QPs go to ERR when the entry point ends
 * (vur_tp_cq_settle): the caller holds a QP, and other threads may hold the
 * others, each of which may be waiting for this CQ. The QP the caller holds
 * goes at once, so it takes no more work; the others before any control
 * command can look (the device lock is still held to read).
 */
static void
overrun(struct vur_tp_dev *td, struct vur_rdma_cq *cq, const char *why)
{
	struct vur_tp_self *self = vur_tp_self();
	struct vur_tp_qp *cur = self->locked;

	cq->error = true; /* ROCE-DEV-OVR-1, -5 */
	vur_tp_stats(td)->cq_overrun++;
	vur_tp_stats(td)->cqe_lost++;
	VUR_TP_LOG(td, NOTICE, "CQ %u overran (%s): in error, its QPs go to ERR", cq->obj.index,
			why);
	if (cur != NULL &&
			(cur->qp->send_cqn == cq->obj.index || cur->qp->recv_cqn == cq->obj.index))
		vur_tp_qp_error(td, cur, VIRTIO_IB_QPS_ERR);
	/* once per CQ (it stays in error), so the list holds them all */
	RTE_VERIFY(self->n_overrun < VUR_TP_CQ_MAX);
	self->overrun[self->n_overrun++] = cq->obj.index;
	if (cq->tp->ring.drv) { /* ROCE-DEV-RING-15: CQ_ERR to its event queue, once */
		vur_tp_event_post(td, cq->tp->eq, &cq->tp->ev_err);
		return;
	}
	if (cq->armed != 0) /* ROCE-DEV-OVR-4 */
		notify(td, cq);
}

/* ROCE-DEV-CQE-3, -4, -6: error CQEs carry no length, immediate or source. */
static void
encode(struct virtio_rdma_cq_req *w, const struct vur_tp_cqe *e)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = rte_cpu_to_le_64(e->wr_id);
	w->status = e->status;
	w->opcode = e->opcode;
	w->qp_num = rte_cpu_to_le_32(e->qp_num);
	if (e->status == VIRTIO_IB_WC_SUCCESS) {
		w->byte_len = rte_cpu_to_le_32(e->byte_len);
		if (e->wc_flags & VIRTIO_IB_WC_WITH_INVALIDATE)
			w->invalidate_rkey = rte_cpu_to_le_32(e->inv_rkey);
		else
			w->imm_data = e->imm;
		w->src_qp = rte_cpu_to_le_32(e->src_qp);
		w->wc_flags = rte_cpu_to_le_32(e->wc_flags);
	}
}

/* ROCE-DEV-RING-15, -16: into the CQ's ring; the notification when the pass publishes. */
static void
post_ring(struct vur_tp_dev *td, struct vur_rdma_cq *cq, const struct vur_tp_cqe *e)
{
	struct vur_tp_ring *r = &cq->tp->ring;
	struct virtio_rdma_cq_req w;

	encode(&w, e);
	if (!vur_tp_drv_cq_write(td, r, &w, e->solicited || e->status != VIRTIO_IB_WC_SUCCESS)) {
		overrun(td, cq, "no room in its ring");
		return;
	}
	vur_tp_ring_push(td, r, 0, sizeof(w)); /* listed for the publish */
	vur_tp_stats(td)->cqes++;
}

static void
post(struct vur_tp_dev *td, struct vur_rdma_cq *cq, const struct vur_tp_cqe *e)
{
	struct virtio_rdma_cq_req w;
	struct vur_tp_ring *r = &cq->tp->ring;
	struct vur_chain chain;
	const char *why = NULL;

	if (cq->error) { /* ROCE-DEV-OVR-3: lost, never written */
		vur_tp_stats(td)->cqe_lost++;
		return;
	}
	if (!r->active) {
		overrun(td, cq, "its virtqueue is not ready");
		return;
	}
	if (r->drv) {
		post_ring(td, cq, e);
		return;
	}
	switch (vur_split_ring_pop(&r->ring, td->mem, &chain, &why)) {
	case VUR_POP_OK:
		if (chain.n_out == 0 && chain.in_len >= sizeof(w))
			break;
		overrun(td, cq, "a buffer that cannot hold a CQE");
		return;
	case VUR_POP_EMPTY:
		overrun(td, cq, "no buffer");
		return;
	case VUR_POP_BAD_CHAIN:
		overrun(td, cq, why);
		return;
	case VUR_POP_BROKEN:
		r->broken = true;
		overrun(td, cq, why);
		return;
	}
	encode(&w, e);
	vur_chain_write(&chain, 0, &w, sizeof(w));
	vur_tp_ring_push(td, r, chain.head, sizeof(w));
	vur_tp_stats(td)->cqes++;
	/* ROCE-DEV-NOTIFY-1, -6: NEXT_COMPLETION prevails when both are armed. */
	if ((cq->armed & VIRTIO_IB_NOTIFY_NEXT_COMPLETION) ||
			((cq->armed & VIRTIO_IB_NOTIFY_SOLICITED) &&
					(e->solicited || e->status != VIRTIO_IB_WC_SUCCESS)))
		notify(td, cq);
}

/* The CQ's lock is taken here: the caller holds at most a QP (lock order: QP, then CQ). */
void
vur_tp_cq_post(struct vur_tp_dev *td, uint32_t cqn, const struct vur_tp_cqe *e)
{
	struct vur_rdma_cq *cq = vur_pool_get(&td->rd->cqs, cqn);

	if (cq == NULL || cq->tp == NULL)
		return;
	vur_tp_lock(&cq->tp->lock);
	post(td, cq, e);
	vur_tp_unlock(&cq->tp->lock);
}
