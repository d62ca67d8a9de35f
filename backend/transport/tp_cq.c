/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions: a CQE into the next buffer of the CQ's completion
 * virtqueue, the notification when the CQ is armed for it, and the overrun
 * (IBTA has no CQ flow control, so a CQ without room is in error).
 */
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

	if (qp->tp != NULL && (qp->send_cqn == o->cqn || qp->recv_cqn == o->cqn))
		vur_tp_qp_error(o->td, qp->tp, VIRTIO_IB_QPS_ERR); /* ROCE-DEV-OVR-2 */
}

static void
overrun(struct vur_tp_dev *td, struct vur_rdma_cq *cq, const char *why)
{
	struct overrun_ctx o = { .td = td, .cqn = cq->obj.index };

	cq->error = true; /* ROCE-DEV-OVR-1, -5 */
	td->stats.cq_overrun++;
	td->stats.cqe_lost++;
	VUR_TP_LOG(td, NOTICE, "CQ %u overran (%s): in error, its QPs go to ERR", cq->obj.index,
			why);
	vur_pool_foreach(&td->rd->qps, fail_user, &o);
	if (cq->armed != 0) /* ROCE-DEV-OVR-4 */
		notify(td, cq);
}

void
vur_tp_cq_post(struct vur_tp_dev *td, uint32_t cqn, const struct vur_tp_cqe *e)
{
	struct vur_rdma_cq *cq = vur_pool_get(&td->rd->cqs, cqn);
	struct virtio_rdma_cq_req w;
	struct vur_chain chain;
	struct vur_tp_ring *r;
	const char *why = NULL;

	if (cq == NULL || cq->tp == NULL)
		return;
	if (cq->error) { /* ROCE-DEV-OVR-3: lost, never written */
		td->stats.cqe_lost++;
		return;
	}
	r = &cq->tp->ring;
	if (!r->active) {
		overrun(td, cq, "its virtqueue is not ready");
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
	/* ROCE-DEV-CQE-3, -4, -6: error CQEs carry no length, immediate or source. */
	memset(&w, 0, sizeof(w));
	w.wr_id = rte_cpu_to_le_64(e->wr_id);
	w.status = e->status;
	w.opcode = e->opcode;
	w.qp_num = rte_cpu_to_le_32(e->qp_num);
	if (e->status == VIRTIO_IB_WC_SUCCESS) {
		w.byte_len = rte_cpu_to_le_32(e->byte_len);
		w.imm_data = e->imm;
		w.src_qp = rte_cpu_to_le_32(e->src_qp);
		w.wc_flags = rte_cpu_to_le_32(e->wc_flags);
	}
	vur_chain_write(&chain, 0, &w, sizeof(w));
	vur_tp_ring_push(td, r, chain.head, sizeof(w));
	td->stats.cqes++;
	/* ROCE-DEV-NOTIFY-1, -6: NEXT_COMPLETION prevails when both are armed. */
	if ((cq->armed & VIRTIO_IB_NOTIFY_NEXT_COMPLETION) ||
			((cq->armed & VIRTIO_IB_NOTIFY_SOLICITED) &&
					(e->solicited || e->status != VIRTIO_IB_WC_SUCCESS)))
		notify(td, cq);
}
