/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The completer: responses that reach an RC requester. An ACK completes
 * every WR whose last PSN it covers (ACKs are cumulative, IBTA 9.7.5.1);
 * READ responses are placed into the WR's s/g list in PSN order; an RNR
 * NAK waits the time it names and retries up to rnr_retry times (7: for
 * ever, ROCE-DEV-SEND-8); a PSN sequence NAK sends again from its PSN; the
 * other NAKs complete the WR with their error (ROCE-DEV-WRITE-4).
 */
#include "transport/tp.h"

static void
progress(struct vur_tp_qp *t, uint64_t now_ns)
{
	const struct vur_rdma_qp *qp = t->qp;

	t->retry_left = qp->attr.retry_cnt;
	t->rnr_left = qp->attr.rnr_retry;
	t->seq_nak_seen = false;
	t->retx_deadline = t->head != t->send && qp->attr.timeout != 0
			? now_ns + vur_tp_timeout_ns(qp->attr.timeout)
			: 0;
}

/* Complete every WR whose packets PSN @psn acknowledges. */
static void
ack_upto(struct vur_tp_dev *td, struct vur_tp_qp *t, uint32_t psn, uint64_t now_ns)
{
	struct vur_swqe *w;
	bool moved = false;

	while (t->head != t->send && vur_tp_state_sends(t->qp->attr.state)) {
		w = &t->wqe[t->head % t->nwqe];
		if (vur_psn_diff(psn, vur_psn_add(w->first_psn, w->span - 1)) < 0)
			break;
		if (w->opcode == VIRTIO_IB_WR_RDMA_READ) {
			/* later PSNs acknowledged, the READ's responses lost: ask again */
			vur_tp_rewind(t, w->first_psn);
			break;
		}
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_SUCCESS);
		moved = true;
	}
	if (moved)
		progress(t, now_ns);
}

static uint8_t
nak_status(uint8_t code)
{
	switch (code) {
	case VUR_NAK_INV_REQ:
		return VIRTIO_IB_WC_REM_INV_REQ_ERR;
	case VUR_NAK_REM_ACCESS:
		return VIRTIO_IB_WC_REM_ACCESS_ERR;
	case VUR_NAK_REM_OP:
		return VIRTIO_IB_WC_REM_OP_ERR;
	default:
		return VIRTIO_IB_WC_BAD_RESP_ERR;
	}
}

static void
on_aeth(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p, uint64_t now_ns)
{
	uint8_t syn = p->h.syndrome;
	uint32_t before = vur_psn_add(p->h.psn, VUR_PSN_MASK); /* psn - 1 */

	switch (VUR_AETH_TYPE(syn)) {
	case VUR_AETH_ACK:
		ack_upto(td, t, p->h.psn, now_ns);
		return;
	case VUR_AETH_RNR_NAK:
		ack_upto(td, t, before, now_ns);
		if (t->head == t->send)
			return;
		VUR_TP_COUNT(td, t, rnr_waits, 1);
		if (t->qp->attr.rnr_retry != 7) {
			if (t->rnr_left == 0) {
				vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_RNR_RETRY_EXC_ERR);
				return;
			}
			t->rnr_left--;
		}
		t->rnr_psn = p->h.psn;
		t->rnr_deadline = now_ns + vur_tp_rnr_ns(syn & 0x1f);
		t->retx_deadline = 0;
		return;
	case VUR_AETH_NAK:
		ack_upto(td, t, before, now_ns);
		if (t->head == t->send)
			return;
		if ((syn & 0x1f) == VUR_NAK_PSN_SEQ) {
			/* Packets sent behind an RNR-NAKed one: the RNR wait resends them. */
			if (t->rnr_deadline != 0)
				return;
			/* The same gap again, no progress: that costs a retry (bounded). */
			if (t->seq_nak_seen && t->seq_nak_psn == p->h.psn) {
				if (t->retry_left == 0) {
					vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_RETRY_EXC_ERR);
					return;
				}
				t->retry_left--;
			}
			t->seq_nak_seen = true;
			t->seq_nak_psn = p->h.psn;
			VUR_TP_COUNT(td, t, retransmits, 1);
			vur_tp_rewind(t, p->h.psn);
			return;
		}
		vur_tp_sq_complete_head(td, t, nak_status(syn & 0x1f));
		return;
	default: /* reserved syndromes */
		vur_tp_drop(td, t, VUR_TP_DROP_MALFORMED);
		return;
	}
}

static void
on_read_response(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		uint64_t now_ns)
{
	uint32_t pmtu = vur_tp_pmtu(td, t), k, left, whole, expect;
	struct vur_swqe *w;
	int32_t behind;
	struct vur_pkt trimmed;
	bool first_or_only, last;

	/* Responses acknowledge the requests before their READ. */
	if (p->mask & VUR_OPM_AETH) {
		if (VUR_AETH_TYPE(p->h.syndrome) != VUR_AETH_ACK) {
			on_aeth(td, t, p, now_ns);
			return;
		}
	}
	w = &t->wqe[t->head % t->nwqe];
	while (t->head != t->send && w->opcode != VIRTIO_IB_WR_RDMA_READ &&
			vur_psn_diff(p->h.psn, w->first_psn) > 0) {
		ack_upto(td, t, vur_psn_add(w->first_psn, w->span - 1), now_ns);
		w = &t->wqe[t->head % t->nwqe];
	}
	if (t->head == t->send || w->opcode != VIRTIO_IB_WR_RDMA_READ) {
		vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		return;
	}
	k = w->read_got / pmtu;
	expect = vur_psn_add(w->first_psn, k);
	behind = vur_psn_diff(expect, p->h.psn);
	if (behind > 0 && (uint32_t)behind < p->npkts) {
		/* a replay that holds responses placed and new ones: the new */
		trimmed = *p;
		vur_pkt_skip(&trimmed, (uint32_t)behind);
		p = &trimmed;
	}
	if (p->h.psn != expect) { /* a duplicate or a gap: the timer decides */
		vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		return;
	}
	left = w->length - w->read_got;
	whole = p->npkts * pmtu; /* a local response may hold several (pkt.h) */
	first_or_only = p->mask & VUR_OPM_FIRST;
	last = p->mask & VUR_OPM_LAST;
	/* position and length as the READ's size implies (else BAD_RESP) */
	if (first_or_only != (k == 0) || last != (left <= whole) ||
			p->pay_len != RTE_MIN(left, whole) ||
			(p->seg_size != 0 && p->seg_size != pmtu)) {
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_BAD_RESP_ERR);
		return;
	}
	if (!vur_tp_sge_write(td, t->qp->pdn, w->sge, w->num_sge, w->read_got, p, 0, p->pay_len)) {
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_LOC_PROT_ERR);
		return;
	}
	w->read_got += p->pay_len;
	VUR_TP_COUNT(td, t, rx_bytes, p->pay_len);
	if (last) { /* ROCE-DEV-READ-5 */
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_SUCCESS);
		progress(t, now_ns);
	} else if (t->qp->attr.timeout != 0) {
		t->retx_deadline = now_ns + vur_tp_timeout_ns(t->qp->attr.timeout);
	}
}

void
vur_tp_completer(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		uint64_t now_ns)
{
	if (t->qp->type != VIRTIO_IB_QPT_RC || VUR_TRANSPORT(p->h.opcode) != VUR_TRANSPORT_RC) {
		vur_tp_drop(td, t, VUR_TP_DROP_TRANSPORT);
		return;
	}
	if (!vur_tp_state_sends(t->qp->attr.state) || t->head == t->send) {
		vur_tp_drop(td, t, VUR_TP_DROP_PSN); /* nothing waits for it */
		return;
	}
	if (p->mask & VUR_OPM_RRESP)
		on_read_response(td, t, p, now_ns);
	else
		on_aeth(td, t, p, now_ns);
}
