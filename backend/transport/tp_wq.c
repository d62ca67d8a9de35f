/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send and receive queues of a QP: taking WRs from their virtqueues,
 * checking them (ROCE-DEV-WR-2, -3, -4, UD-1, -2), completing them in
 * order, and what the error states and RESET do with them. A QP created
 * on an SRQ takes its receive WRs from the SRQ instead (tp_srq.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/qp_state.h"
#include "rdma/rdma_ops.h"
#include "transport/tp.h"

#define SQ_REQ_LEN sizeof(struct virtio_rdma_sq_req)
#define RQ_REQ_LEN sizeof(struct virtio_rdma_rq_req)
#define SGE_LEN    sizeof(struct virtio_rdma_sge)

struct vur_tp_qp *
vur_tp_qp_get(struct vur_tp_dev *td, uint32_t qpn)
{
	struct vur_rdma_qp *qp = vur_pool_get(&td->rd->qps, qpn);

	return qp != NULL ? qp->tp : NULL;
}

static void
ring_push(struct vur_tp_dev *td, struct vur_tp_ring *r, uint16_t head)
{
	/* ROCE-DEV-WR-5: used length 0, published after the CQEs (vur_tp_publish). */
	vur_tp_ring_push(td, r, head, 0);
}

static void
read_sges(const struct vur_chain *c, uint32_t off, uint32_t n, struct vur_tp_sge *sge,
		uint32_t *total, bool *too_long)
{
	struct virtio_rdma_sge w;
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		vur_chain_read(c, off + i * SGE_LEN, &w, sizeof(w));
		sge[i].addr = rte_le_to_cpu_64(w.addr);
		sge[i].length = rte_le_to_cpu_32(w.length);
		sge[i].lkey = rte_le_to_cpu_32(w.lkey);
		sum += sge[i].length;
	}
	*too_long = sum > UINT32_MAX;
	*total = (uint32_t)RTE_MIN(sum, (uint64_t)UINT32_MAX);
}

/* Which operations each QP type has (ROCE-DEV-WRITE-1, READ-1). */
static bool
op_allowed(uint8_t type, uint8_t opcode)
{
	switch (opcode) {
	case VIRTIO_IB_WR_SEND:
	case VIRTIO_IB_WR_SEND_WITH_IMM:
		return true;
	case VIRTIO_IB_WR_RDMA_WRITE:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
		return type == VIRTIO_IB_QPT_RC || type == VIRTIO_IB_QPT_UC;
	case VIRTIO_IB_WR_RDMA_READ:
	case VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP: /* atomic.c: RC only */
	case VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == VIRTIO_IB_QPT_RC;
	case VIRTIO_IB_WR_SEND_WITH_INV: /* IETH: RC's opcodes only (IBTA 9.2.1) */
		return type == VIRTIO_IB_QPT_RC;
	case VIRTIO_IB_WR_BIND_MW: /* ROCE-DEV-MW-6: the services with RDMA operations */
		return type == VIRTIO_IB_QPT_RC || type == VIRTIO_IB_QPT_UC;
	case VIRTIO_IB_WR_LOCAL_INV: /* local to the device: any send queue */
	case VIRTIO_IB_WR_REG_MR:
		return true;
	default:
		return false;
	}
}

static bool
is_ud(const struct vur_rdma_qp *qp)
{
	return qp->type == VIRTIO_IB_QPT_UD || qp->type == VIRTIO_IB_QPT_GSI;
}

/* The send WR in @c, copied and checked; a bad one keeps its error status. */
static void
decode_send(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_chain *c,
		struct vur_swqe *w)
{
	const struct vur_rdma_qp *qp = t->qp;
	struct virtio_rdma_sq_req req;
	uint32_t max_sge = qp->cap.max_send_sge;
	bool too_long = false;
	struct vur_rdma_ah *ah;
	uint64_t wr_id = 0;

	memset(w, 0, offsetof(struct vur_swqe, sge));
	w->head = c->head;
	w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR; /* until proven otherwise */
	if (c->out_len >= sizeof(wr_id))        /* else the CQE says wr_id 0 */
		vur_chain_read(c, 0, &wr_id, sizeof(wr_id));
	w->wr_id = rte_le_to_cpu_64(wr_id);
	if (c->n_in != 0 || c->out_len < SQ_REQ_LEN) /* ROCE-DEV-WR-2 */
		return;
	vur_chain_read(c, 0, &req, offsetof(struct virtio_rdma_sq_req, inline_data));
	vur_chain_read(c, offsetof(struct virtio_rdma_sq_req, num_sge), &req.num_sge,
			sizeof(req.num_sge));
	w->opcode = req.opcode;
	w->flags = req.send_flags;
	w->imm = req.imm_data;
	if (w->opcode == VIRTIO_IB_WR_RDMA_READ)
		max_sge = RTE_MIN(max_sge, td->rd->limits.max_sge);
	if (!op_allowed(qp->type, w->opcode) || (w->flags & ~0xfu) ||
			(vur_tp_wr_is_rd_atomic(w->opcode) && (w->flags & VIRTIO_IB_SEND_INLINE)))
		return;
	if (vur_tp_local_op(w->opcode)) {
		vur_tp_local_op_decode(td, t, c, &req, w);
		return;
	}
	if (w->opcode == VIRTIO_IB_WR_SEND_WITH_INV)
		w->inv_rkey = rte_le_to_cpu_32(req.inv.invalidate_rkey);
	if (is_ud(qp)) {
		w->remote_qpn = rte_le_to_cpu_32(req.ud.remote_qpn) & VUR_PSN_MASK;
		w->remote_qkey = rte_le_to_cpu_32(req.ud.remote_qkey);
		w->ah = rte_le_to_cpu_32(req.ud.ah);
		ah = vur_pool_get(&td->rd->ahs, w->ah);
		if (ah == NULL || ah->pdn != qp->pdn) /* ROCE-DEV-UD-1 */
			return;
	} else {
		w->remote_addr = rte_le_to_cpu_64(req.rdma.remote_addr);
		w->rkey = rte_le_to_cpu_32(req.rdma.rkey);
	}
	if (vur_tp_wr_is_atomic(w->opcode)) {
		w->remote_addr = rte_le_to_cpu_64(req.atomic.remote_addr);
		w->rkey = rte_le_to_cpu_32(req.atomic.rkey);
		w->compare_add = rte_le_to_cpu_64(req.atomic.compare_add);
		w->swap = rte_le_to_cpu_64(req.atomic.swap);
	}
	if (w->flags & VIRTIO_IB_SEND_INLINE) {
		/* ROCE-DEV-WR-11: inline data only, no s/g list */
		w->inline_len = rte_le_to_cpu_16(req.inline_len);
		if (w->inline_len > qp->cap.max_inline_data)
			return;
		vur_chain_read(c, offsetof(struct virtio_rdma_sq_req, inline_data), w->inline_data,
				w->inline_len);
		w->length = w->inline_len;
	} else {
		w->num_sge = rte_le_to_cpu_32(req.num_sge);
		if (w->num_sge > max_sge || c->out_len < SQ_REQ_LEN + w->num_sge * SGE_LEN) {
			w->num_sge = 0;
			return;
		}
		read_sges(c, SQ_REQ_LEN, w->num_sge, w->sge, &w->length, &too_long);
	}
	if (vur_tp_wr_is_atomic(w->opcode) && !vur_tp_atomic_wr_ok(w))
		return;
	w->status = VIRTIO_IB_WC_LOC_LEN_ERR; /* ROCE-DEV-WR-4, UD-2 */
	if (too_long || w->length > td->rd->limits.max_msg_sz ||
			(is_ud(qp) && w->length > (128u << td->rd->env.port_mtu)))
		return;
	/* the s/g elements when the WR starts: a REG_MR or LOCAL_INV before it counts */
	w->status = VIRTIO_IB_WC_SUCCESS;
}

bool
vur_tp_sq_sges_ok(struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w)
{
	/* ROCE-DEV-WR-3 */
	for (uint32_t i = 0; i < w->num_sge; i++)
		if (!vur_tp_sge_ok(td, t->qp->pdn, &w->sge[i],
				    vur_tp_wr_is_rd_atomic(w->opcode) ? VUR_TP_WRITE : VUR_TP_READ))
			return false;
	return true;
}

/*
 * A QP on rings copies its send WRs into wqe[] as a virtqueue QP does, but
 * makes it at its first WR, and smaller than its ring when that is large:
 * the engine takes at most @nwqe WRs ahead of their completion, the rest
 * wait in the ring. An idle QP thus costs no WR copies.
 */
#define VUR_TP_RING_WQES 128u

static bool
ring_wqes(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	uint32_t want;

	if (t->wqe != NULL)
		return true;
	if (t->sq.broken || !vur_tp_drv_moved(td, &t->sq))
		return false;
	want = RTE_MIN(1u << t->sq.dr.ring.log_size, RTE_MAX(t->qp->cap.max_send_wr, 1u));
	t->nwqe = RTE_MIN(want, VUR_TP_RING_WQES);
	t->wqe = calloc(t->nwqe, sizeof(*t->wqe));
	return t->wqe != NULL;
}

void
vur_tp_sq_fetch(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	struct vur_chain chain;
	struct vur_swqe *w;
	const char *why;

	if (t->sq.drv && !ring_wqes(td, t))
		return;
	while (t->sq.active && !t->sq.broken && t->tail - t->head < t->nwqe) {
		w = &t->wqe[t->tail % t->nwqe];
		switch (vur_tp_ring_pop(td, &t->sq, &chain, &why)) {
		case VUR_POP_EMPTY:
			return;
		case VUR_POP_BROKEN:
			t->sq.broken = true;
			VUR_TP_LOG(td, ERR, "QP %u: send queue broken: %s", t->qp->obj.index, why);
			vur_tp_qp_error(td, t, VIRTIO_IB_QPS_ERR);
			return;
		case VUR_POP_BAD_CHAIN:
			VUR_TP_LOG(td, NOTICE, "QP %u: unusable send WR: %s", t->qp->obj.index,
					why);
			memset(w, 0, offsetof(struct vur_swqe, sge));
			w->head = chain.head;
			w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR;
			break;
		case VUR_POP_OK:
			decode_send(td, t, &chain, w);
			if (w->status != VIRTIO_IB_WC_SUCCESS)
				VUR_TP_LOG(td, NOTICE,
						"QP %u: send WR 0x%" PRIx64 " refused (status %u)",
						t->qp->obj.index, w->wr_id, w->status);
			break;
		}
		w->state = VUR_SWQE_POSTED;
		t->tail++;
	}
}

static uint8_t
wc_opcode(uint8_t wr_opcode)
{
	switch (wr_opcode) {
	case VIRTIO_IB_WR_RDMA_WRITE:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
		return VIRTIO_IB_WC_RDMA_WRITE;
	case VIRTIO_IB_WR_RDMA_READ:
		return VIRTIO_IB_WC_RDMA_READ;
	case VIRTIO_IB_WR_LOCAL_INV:
		return VIRTIO_IB_WC_LOCAL_INV;
	case VIRTIO_IB_WR_REG_MR:
		return VIRTIO_IB_WC_REG_MR;
	case VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP:
		return VIRTIO_IB_WC_COMP_SWAP;
	case VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD:
		return VIRTIO_IB_WC_FETCH_ADD;
	case VIRTIO_IB_WR_BIND_MW:
		return VIRTIO_IB_WC_BIND_MW;
	default: /* SEND, with immediate, with invalidate */
		return VIRTIO_IB_WC_SEND;
	}
}

void
vur_tp_sq_complete_head(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t status)
{
	struct vur_rdma_qp *qp = t->qp;
	struct vur_swqe *w = &t->wqe[t->head % t->nwqe];
	struct vur_tp_cqe e = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = wc_opcode(w->opcode),
		.byte_len = w->length,
		.qp_num = qp->obj.index,
	};

	/* ROCE-DEV-WR-7, -8; the CQE before the used buffer (WR-5). */
	if (status != VIRTIO_IB_WC_SUCCESS || qp->sq_sig_all ||
			(w->flags & VIRTIO_IB_SEND_SIGNALED))
		vur_tp_cq_post(td, qp->send_cqn, &e);
	if (t->sq.active)
		ring_push(td, &t->sq, w->head);
	w->state = VUR_SWQE_DONE;
	t->head++;
	/* a WR completed before all its packets went (a NAK, an error): nothing more of it */
	if ((int32_t)(t->send - t->head) < 0)
		t->send = t->head;
	if ((int32_t)(t->started - t->head) < 0)
		t->started = t->head;
	if (status == VIRTIO_IB_WC_WR_FLUSH_ERR) {
		VUR_TP_COUNT(td, t, flushed, 1);
	} else if (status != VIRTIO_IB_WC_SUCCESS) {
		VUR_TP_COUNT(td, t, wr_errors, 1);
		/* ROCE-DEV-QPS-7, -8 */
		vur_tp_qp_error(td, t,
				qp->type == VIRTIO_IB_QPT_RC ? VIRTIO_IB_QPS_ERR
							     : VIRTIO_IB_QPS_SQE);
	}
}

bool
vur_tp_rq_take(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	struct vur_rwqe *w = &t->rwqe;
	struct virtio_rdma_rq_req req;
	struct vur_chain chain;
	uint32_t total = 0, max_sge;
	bool too_long = false;
	const char *why;

	if (t->rwqe_held)
		return true;
	if (t->srq == NULL && (!t->rq.active || t->rq.broken))
		return false;
	memset(w, 0, offsetof(struct vur_rwqe, sge));
	/* ROCE-DEV-SRQ-9: on an SRQ, its next WR */
	switch (t->srq != NULL ? vur_tp_srq_pop(td, t, &chain, &why)
			       : vur_tp_ring_pop(td, &t->rq, &chain, &why)) {
	case VUR_POP_EMPTY:
		return false;
	case VUR_POP_BROKEN:
		if (t->srq == NULL)
			t->rq.broken = true;
		VUR_TP_LOG(td, ERR, "QP %u: receive queue broken: %s", t->qp->obj.index, why);
		vur_tp_qp_error(td, t, VIRTIO_IB_QPS_ERR);
		return false;
	case VUR_POP_BAD_CHAIN:
		w->head = chain.head;
		w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR;
		t->rwqe_held = true;
		return true;
	case VUR_POP_OK:
		break;
	}
	t->rwqe_held = true;
	t->roff = 0;
	w->head = chain.head;
	w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR; /* ROCE-DEV-WR-2 */
	if (chain.out_len >= sizeof(w->wr_id)) {
		vur_chain_read(&chain, 0, &w->wr_id, sizeof(w->wr_id));
		w->wr_id = rte_le_to_cpu_64(w->wr_id);
	}
	if (chain.n_in != 0 || chain.out_len < RQ_REQ_LEN)
		return true;
	vur_chain_read(&chain, 0, &req, sizeof(req));
	w->num_sge = rte_le_to_cpu_32(req.num_sge);
	/* ROCE-DEV-SRQ-12: an SRQ's WR has up to the SRQ's max_sge */
	max_sge = t->srq != NULL ? t->srq->srq->max_sge : t->qp->cap.max_recv_sge;
	if (w->num_sge > max_sge || chain.out_len < RQ_REQ_LEN + w->num_sge * SGE_LEN) {
		w->num_sge = 0;
		return true;
	}
	read_sges(&chain, RQ_REQ_LEN, w->num_sge, w->sge, &total, &too_long);
	w->length = total;
	w->status = VIRTIO_IB_WC_LOC_PROT_ERR;
	for (uint32_t i = 0; i < w->num_sge; i++)
		if (!vur_tp_sge_ok(td, t->qp->pdn, &w->sge[i], VUR_TP_WRITE))
			return true;
	w->status = VIRTIO_IB_WC_SUCCESS;
	return true;
}

void
vur_tp_rq_complete(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_tp_cqe *e)
{
	e->wr_id = t->rwqe.wr_id;
	e->qp_num = t->qp->obj.index;
	vur_tp_cq_post(td, t->qp->recv_cqn, e); /* a receive WR always has a CQE */
	if (t->srq != NULL)                     /* ROCE-DEV-SRQ-10 */
		vur_tp_srq_push(td, t->srq, t->rwqe.head);
	else if (t->rq.active)
		ring_push(td, &t->rq, t->rwqe.head);
	t->rwqe_held = false;
	t->roff = 0;
	t->in_send = false;
	if (e->status == VIRTIO_IB_WC_WR_FLUSH_ERR) {
		VUR_TP_COUNT(td, t, flushed, 1);
	} else if (e->status != VIRTIO_IB_WC_SUCCESS) {
		VUR_TP_COUNT(td, t, wr_errors, 1);
		vur_tp_qp_error(td, t, VIRTIO_IB_QPS_ERR); /* ROCE-DEV-QPS-7 */
	}
}

void
vur_tp_qp_error(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t state)
{
	struct vur_rdma_qp *qp = t->qp;

	if (qp->attr.state == VIRTIO_IB_QPS_ERR ||
			(state == VIRTIO_IB_QPS_SQE && qp->attr.state == VIRTIO_IB_QPS_SQE))
		return;
	VUR_TP_LOG(td, INFO, "QP %u: %s -> %s", qp->obj.index, vur_qp_state_name(qp->attr.state),
			vur_qp_state_name(state));
	qp->attr.state = state;
	/* Flushed by the data path at its next pass, outside whatever loop found the error. */
	t->flush_pending = true;
}

static void
flush_rq(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	struct vur_tp_cqe e = { .status = VIRTIO_IB_WC_WR_FLUSH_ERR, .opcode = VIRTIO_IB_WC_RECV };

	/* ROCE-DEV-SRQ-13: the WR it took, and none of those left for the others */
	if (t->srq != NULL) {
		if (t->rwqe_held)
			vur_tp_rq_complete(td, t, &e);
		return;
	}
	while (vur_tp_rq_take(td, t))
		vur_tp_rq_complete(td, t, &e);
}

void
vur_tp_qp_flush(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	uint8_t state = t->qp->attr.state;

	t->flush_pending = false;
	if (state != VIRTIO_IB_QPS_ERR && state != VIRTIO_IB_QPS_SQE)
		return;
	/* ROCE-DEV-QPS-6, -8: what is outstanding, and what is posted meanwhile. */
	do {
		while (t->head != t->tail)
			vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_WR_FLUSH_ERR);
		vur_tp_sq_fetch(td, t);
	} while (t->head != t->tail);
	t->retx_deadline = t->rnr_deadline = t->probe_deadline = 0;
	if (state != VIRTIO_IB_QPS_ERR)
		return;
	if (t->rq.drv) /* ROCE-DEV-RING-22: rq_notify, a full barrier, then rq_prod */
		vur_tp_drv_rq_notify(td, &t->rq);
	flush_rq(td, t);
	t->in_write = false;
	memset(t->res, 0, sizeof(t->res));
	vur_tp_ooo_clear(&t->ooo);
	vur_tp_ooo_clear(&t->rd_ooo);
}

static void
discard_ring(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	struct vur_chain chain;
	const char *why;
	enum vur_pop_result res;

	if (!r->active || r->broken)
		return;
	for (;;) {
		res = vur_tp_ring_pop(td, r, &chain, &why);
		if (res != VUR_POP_OK && res != VUR_POP_BAD_CHAIN)
			break;
		ring_push(td, r, chain.head);
	}
}

void
vur_tp_qp_discard(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	if (t->qp->rings != NULL) { /* ROCE-DEV-RING-8: indices and record back to 0 */
		if (t->rwqe_held && t->srq != NULL)
			vur_tp_srq_push(td, t->srq, t->rwqe.head);
		t->head = t->tail;
		vur_tp_drv_reset(td, &t->sq);
		if (t->rq.drv)
			vur_tp_drv_reset(td, &t->rq);
		t->sq.broken = t->rq.broken = false;
		vur_tp_qp_reset_state(t);
		return;
	}
	/* ROCE-DEV-QPS-5: used, in order, without CQEs. */
	for (; t->head != t->tail; t->head++)
		if (t->sq.active)
			ring_push(td, &t->sq, t->wqe[t->head % t->nwqe].head);
	discard_ring(td, &t->sq);
	if (t->rwqe_held && t->srq != NULL) /* ROCE-DEV-SRQ-14 */
		vur_tp_srq_push(td, t->srq, t->rwqe.head);
	else if (t->rwqe_held && t->rq.active)
		ring_push(td, &t->rq, t->rwqe.head);
	t->rwqe_held = false;
	discard_ring(td, &t->rq);
	vur_tp_qp_reset_state(t);
}

void
vur_tp_qp_reset_state(struct vur_tp_qp *t)
{
	t->head = t->send = t->started = t->tail = 0;
	t->psn = t->una = t->sent_psn = t->ack_req_psn = 0;
	t->ack_req_ns = 0;
	vur_tp_win_init(&t->win);
	vur_tp_cc_init(&t->cc);
	t->retx_deadline = t->rnr_deadline = t->probe_deadline = 0;
	t->retry_left = t->rnr_left = 0;
	t->srtt_ns = t->rttvar_ns = 0;
	t->rtt_timing = t->probing = t->probe_out = false;
	t->peer_holds = t->gap_resend = t->probe_psn_valid = false;
	t->epsn = t->msn = 0;
	t->nak_sent = t->uc_drop = t->in_send = t->in_write = t->rwqe_held = false;
	t->ack_pending = t->aeth_deferred = false;
	t->seq_nak_seen = false;
	t->flush_pending = t->peer_local = false;
	t->roff = t->wleft = t->wlen = 0;
	memset(t->res, 0, sizeof(t->res));
	t->res_next = 0;
	vur_tp_ooo_clear(&t->ooo);
	vur_tp_ooo_clear(&t->rd_ooo);
}
