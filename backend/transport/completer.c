/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The completer: responses that reach an RC requester. ACKs are cumulative
 * (IBTA 9.7.5.1): one completes every WR whose last PSN it covers, and one
 * that lands inside a message acknowledges its packets so far; any that
 * moves the first unacknowledged PSN renews the retry counts and the timer
 * (ROCE-DEV-RETX-1). READ responses are placed into the WR's s/g list in
 * PSN order; a gap in them, or an ACK beyond a READ that lacks responses,
 * asks for the rest at once (ROCE-DEV-RETX-3). An ATOMIC_ACKNOWLEDGE places
 * the original value and completes its WR; an ACK beyond an atomic that
 * lacks it sends the atomic again (atomic.c). An RNR NAK waits the time it
 * names and retries up to rnr_retry times (7: for ever, ROCE-DEV-SEND-8); a
 * PSN sequence NAK sends again from its PSN; the other NAKs complete the
 * WR they name with their error, also one not yet sent whole
 * (ROCE-DEV-RETX-4, WRITE-4). A response for a PSN that was never sent, or
 * one older than what is already acknowledged, is dropped (ROCE-DEV-RETX-6).
 */
#include "transport/tp.h"

/* Whether anything sent is unacknowledged. */
static bool
outstanding(const struct vur_tp_qp *t)
{
	return vur_psn_diff(t->sent_psn, t->una) > 0;
}

static void
progress(struct vur_tp_qp *t, uint64_t now_ns)
{
	const struct vur_rdma_qp *qp = t->qp;

	t->retry_left = qp->attr.retry_cnt;
	t->rnr_left = qp->attr.rnr_retry;
	t->seq_nak_seen = false;
	t->retx_deadline = outstanding(t) && qp->attr.timeout != 0
			? now_ns + vur_tp_timeout_ns(qp->attr.timeout)
			: 0;
}

/*
 * Resending, the requester is behind what the peer acknowledged: a
 * responder that held what came after a gap (tp_ooo.h) has it all. Skip
 * to the first unacknowledged PSN instead of sending the rest again. READs
 * keep their own account (their responses).
 */
static void
skip_acknowledged(struct vur_tp_qp *t)
{
	struct vur_swqe *w, *u;

	if (t->send == t->started)
		return; /* not resending */
	w = &t->wqe[t->send % t->nwqe];
	if (w->opcode == VIRTIO_IB_WR_RDMA_READ ||
			vur_psn_diff(t->una, vur_psn_add(w->first_psn, w->next_pkt)) <= 0)
		return;
	u = vur_tp_holding(t, t->una);
	if (u == NULL || u->opcode == VIRTIO_IB_WR_RDMA_READ)
		return;
	t->peer_holds = true; /* it had what came after the gap */
	vur_tp_rewind(t, t->una);
}

/* Everything before PSN @to is acknowledged: the window and the timer move on. */
static void
advance(struct vur_tp_qp *t, uint32_t to, uint64_t now_ns)
{
	int32_t n = vur_psn_diff(to, t->una);

	if (n <= 0)
		return;
	/*
	 * The answer to a gap resent alone: acknowledged just past it with more
	 * sent behind it, the peer held nothing (go-back-N, or all of it lost):
	 * resend whole windows again.
	 */
	if (t->gap_resend && to == vur_psn_add(t->gap_psn, 1) && vur_psn_diff(t->sent_psn, to) > 0)
		t->peer_holds = false;
	t->gap_resend = false;
	t->una = to;
	vur_tp_win_acked(&t->win, (uint32_t)n, to);
	progress(t, now_ns);
	vur_tp_acked(t, to, now_ns);
	skip_acknowledged(t);
}

/*
 * The head READ or atomic @w lacks responses the peer has gone past: ask
 * for the rest (an atomic: ask again, answered from the responder's saved
 * result), once.
 */
static void
read_lost(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_swqe *w)
{
	uint32_t from = vur_tp_read_resume_psn(td, t, w);

	if (w->rereq)
		return;
	vur_tp_win_loss(&t->win, from, t->sent_psn, false);
	vur_tp_rewind(t, from);
}

/* Complete every WR whose packets PSN @psn acknowledges; acknowledge the packets up to it. */
static void
ack_upto(struct vur_tp_dev *td, struct vur_tp_qp *t, uint32_t psn, uint64_t now_ns)
{
	uint32_t to = vur_psn_add(psn, 1);
	struct vur_swqe *w;

	while (t->head != t->started && vur_tp_state_sends(t->qp->attr.state)) {
		w = &t->wqe[t->head % t->nwqe];
		if (vur_tp_wr_is_rd_atomic(w->opcode)) {
			/* its PSNs are its responses: acknowledged as they are placed */
			if (vur_psn_diff(psn, w->first_psn) >= 0) {
				to = vur_tp_read_resume_psn(td, t, w);
				/* later PSNs acknowledged, responses missing: lost */
				if (vur_psn_diff(psn, vur_psn_add(w->first_psn, w->span - 1)) >= 0)
					read_lost(td, t, w);
			}
			break;
		}
		if (vur_psn_diff(psn, vur_psn_add(w->first_psn, w->span - 1)) < 0)
			break; /* ROCE-DEV-RETX-1: inside the message, its packets so far */
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_SUCCESS);
	}
	advance(t, to, now_ns);
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

/* Whether WR @w holds PSN @psn. */
static bool
holds(const struct vur_swqe *w, uint32_t psn)
{
	return vur_psn_diff(psn, w->first_psn) >= 0 &&
			vur_psn_diff(psn, vur_psn_add(w->first_psn, w->span)) < 0;
}

static void
on_seq_nak(struct vur_tp_dev *td, struct vur_tp_qp *t, uint32_t psn)
{
	/* Packets sent behind an RNR-NAKed one: the RNR wait resends them. */
	if (t->rnr_deadline != 0)
		return;
	/* The same gap again, no progress: that costs a retry (bounded). */
	if (t->seq_nak_seen && t->seq_nak_psn == psn) {
		if (t->retry_left == 0) {
			vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_RETRY_EXC_ERR);
			return;
		}
		t->retry_left--;
	}
	t->seq_nak_seen = true;
	t->seq_nak_psn = psn;
	t->probing = t->probe_out = false;
	vur_tp_win_loss(&t->win, psn, t->sent_psn, false);
	vur_tp_rewind(t, psn);
	/*
	 * A peer that holds what follows a gap (tp_ooo.h) needs only the gap:
	 * it goes alone, as a probe, and the answer says where to go on.
	 */
	if (t->peer_holds) {
		t->gap_resend = true;
		t->gap_psn = psn;
	}
}

static void
on_aeth(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p, uint64_t now_ns)
{
	uint8_t syn = p->h.syndrome;
	uint32_t psn = p->h.psn;
	uint32_t before = vur_psn_add(psn, VUR_PSN_MASK); /* psn - 1 */
	struct vur_swqe *w;

	/*
	 * An ACK names a PSN from the last acknowledged one to the last sent;
	 * a NAK one after the last acknowledged: anything else is stale (a
	 * duplicate, or reordered behind a later response) or never sent.
	 */
	if (vur_psn_diff(psn, t->sent_psn) >= 0 ||
			vur_psn_diff(psn, t->una) < (VUR_AETH_TYPE(syn) == VUR_AETH_ACK ? -1 : 0)) {
		vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		return;
	}
	switch (VUR_AETH_TYPE(syn)) {
	case VUR_AETH_ACK:
		ack_upto(td, t, psn, now_ns);
		return;
	case VUR_AETH_RNR_NAK:
		ack_upto(td, t, before, now_ns);
		if (t->head == t->started)
			return;
		VUR_TP_COUNT(td, t, rnr_waits, 1);
		if (t->qp->attr.rnr_retry != 7) {
			if (t->rnr_left == 0) {
				vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_RNR_RETRY_EXC_ERR);
				return;
			}
			t->rnr_left--;
		}
		/* ROCE-DEV-RETX-4: nothing more goes until the wait ends, then from @psn */
		t->rnr_psn = psn;
		t->rnr_deadline = now_ns + vur_tp_rnr_ns(syn & 0x1f);
		t->retx_deadline = 0;
		return;
	case VUR_AETH_NAK:
		ack_upto(td, t, before, now_ns);
		if (t->head == t->started)
			return;
		if ((syn & 0x1f) == VUR_NAK_PSN_SEQ) {
			on_seq_nak(td, t, psn);
			return;
		}
		/* ROCE-DEV-RETX-4: the WR it names ends, sent whole or not */
		w = &t->wqe[t->head % t->nwqe];
		if (!holds(w, psn)) { /* behind a READ that lacks responses */
			vur_tp_drop(td, t, VUR_TP_DROP_PSN);
			return;
		}
		vur_tp_sq_complete_head(td, t, nak_status(syn & 0x1f));
		return;
	default: /* reserved syndromes */
		vur_tp_drop(td, t, VUR_TP_DROP_MALFORMED);
		return;
	}
}

/*
 * READ responses after a gap are held (tp_ooo.h) rather than dropped: a
 * link that reorders would otherwise have every READ asked again from each
 * swap on. The rest is asked for once GAP_THRESHOLD are held past the gap
 * (TCP's duplicate-ACK threshold, RFC 5681), or a response cannot be held.
 */
#define GAP_THRESHOLD 3

static bool
hold_response(struct vur_tp_qp *t, const struct vur_pkt *p, uint32_t expect)
{
	uint32_t n = t->rd_ooo.n;

	return p->npkts == 1 && vur_tp_ooo_hold(&t->rd_ooo, expect, p->h.psn, p->m) &&
			t->rd_ooo.n > n;
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
	if ((p->mask & VUR_OPM_AETH) && VUR_AETH_TYPE(p->h.syndrome) != VUR_AETH_ACK) {
		on_aeth(td, t, p, now_ns);
		return;
	}
	if (vur_psn_diff(p->h.psn, t->sent_psn) >= 0) { /* never asked for */
		vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		return;
	}
	w = &t->wqe[t->head % t->nwqe];
	while (t->head != t->started && !vur_tp_wr_is_rd_atomic(w->opcode) &&
			vur_psn_diff(p->h.psn, vur_psn_add(w->first_psn, w->span)) >= 0) {
		ack_upto(td, t, vur_psn_add(w->first_psn, w->span - 1), now_ns);
		if (t->head == t->started)
			break;
		w = &t->wqe[t->head % t->nwqe];
	}
	if (t->head == t->started || w->opcode != VIRTIO_IB_WR_RDMA_READ) {
		/* past an atomic: responses come in PSN order, its answer was lost */
		if (t->head != t->started && vur_tp_wr_is_atomic(w->opcode) &&
				vur_psn_diff(p->h.psn, w->first_psn) > 0)
			read_lost(td, t, w);
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
	if (p->h.psn != expect) {
		if (behind < 0 && hold_response(t, p, expect)) {
			VUR_TP_COUNT(td, t, ooo_held, 1);
			/* one late response is reordering; three past it, a loss */
			if (t->rd_ooo.n < GAP_THRESHOLD)
				return;
		} else {
			vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		}
		/*
		 * ROCE-DEV-RETX-3: a gap (not a duplicate) asks for the rest now,
		 * also a response of a later READ: responses come in PSN order
		 */
		if (behind < 0)
			read_lost(td, t, w);
		return;
	}
	/* what is left of the request this response answers (requester.c, read_chunk_len) */
	left = RTE_MIN((vur_tp_read_req_done(w) + 1) * w->chunk_len, w->length) - w->read_got;
	whole = p->npkts * pmtu; /* a local response may hold several (pkt.h) */
	first_or_only = p->mask & VUR_OPM_FIRST;
	last = p->mask & VUR_OPM_LAST;
	/* position and length as the request's size implies (else BAD_RESP) */
	if (first_or_only != (w->read_got % w->chunk_len == 0) || last != (left <= whole) ||
			p->pay_len != RTE_MIN(left, whole) ||
			(p->seg_size != 0 && p->seg_size != pmtu)) {
		VUR_TP_LOG(td, NOTICE,
				"QP %u: READ response PSN %u (opcode %#x, %u bytes) where %u bytes "
				"of its request are left",
				t->qp->obj.index, p->h.psn, p->h.opcode, p->pay_len, left);
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_BAD_RESP_ERR);
		return;
	}
	if (!vur_tp_sge_write(td, t->qp->pdn, w->sge, w->num_sge, w->read_got, p, 0, p->pay_len)) {
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_LOC_PROT_ERR);
		return;
	}
	w->read_got += p->pay_len;
	w->rereq = false; /* what was asked again is coming: a later gap is a new loss */
	VUR_TP_COUNT(td, t, rx_bytes, p->pay_len);
	if (last && w->read_got == w->length) { /* ROCE-DEV-READ-5 */
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_SUCCESS);
		advance(t, vur_psn_add(w->first_psn, w->span), now_ns);
	} else {
		advance(t, vur_psn_add(expect, p->npkts), now_ns);
	}
}

/*
 * An ATOMIC_ACKNOWLEDGE: it acknowledges the PSNs before its own, as a READ
 * response does, and answers the atomic that holds its PSN: the original
 * value goes into the WR's buffer, and the WR completes with byte_len 8.
 */
static void
on_atomic_ack(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p, uint64_t now_ns)
{
	uint32_t psn = p->h.psn;
	struct vur_swqe *w;

	if (VUR_AETH_TYPE(p->h.syndrome) != VUR_AETH_ACK) { /* a NAK says what it says */
		on_aeth(td, t, p, now_ns);
		return;
	}
	/* never asked for, or answered already (a replay of a duplicate) */
	if (vur_psn_diff(psn, t->sent_psn) >= 0 || vur_psn_diff(psn, t->una) < 0) {
		vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		return;
	}
	ack_upto(td, t, vur_psn_add(psn, VUR_PSN_MASK), now_ns); /* psn - 1 */
	w = &t->wqe[t->head % t->nwqe];
	if (t->head == t->started || !vur_tp_state_sends(t->qp->attr.state) ||
			!vur_tp_wr_is_atomic(w->opcode) || w->first_psn != psn) {
		/* behind a READ that lacks responses (asked again above), or not an atomic's */
		vur_tp_drop(td, t, VUR_TP_DROP_PSN);
		return;
	}
	if (!vur_tp_atomic_place(td, t, w, p)) { /* its MR went away */
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_LOC_PROT_ERR);
		return;
	}
	vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_SUCCESS);
	advance(t, vur_psn_add(psn, 1), now_ns);
}

/* The held READ responses that are next now, in order; the stale ones go. */
static void
take_held(struct vur_tp_dev *td, struct vur_tp_qp *t, uint64_t now_ns)
{
	struct rte_mbuf *m;
	struct vur_pkt p;

	vur_tp_ooo_forget_before(&t->rd_ooo, t->una);
	while (t->rd_ooo.n > 0 && t->head != t->started && vur_tp_state_sends(t->qp->attr.state) &&
			(m = vur_tp_ooo_take(&t->rd_ooo, t->una)) != NULL) {
		if (vur_pkt_parse(m, &p) == VUR_PKT_OK)
			on_read_response(td, t, &p, now_ns);
		rte_pktmbuf_free(m);
	}
	if (t->head == t->started || !vur_tp_state_sends(t->qp->attr.state))
		vur_tp_ooo_clear(&t->rd_ooo);
}

void
vur_tp_completer(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		uint64_t now_ns)
{
	if (t->qp->type != VIRTIO_IB_QPT_RC || VUR_TRANSPORT(p->h.opcode) != VUR_TRANSPORT_RC) {
		vur_tp_drop(td, t, VUR_TP_DROP_TRANSPORT);
		return;
	}
	if (!vur_tp_state_sends(t->qp->attr.state) || t->head == t->started) {
		vur_tp_drop(td, t, VUR_TP_DROP_PSN); /* nothing waits for it */
		return;
	}
	if (p->mask & VUR_OPM_RRESP)
		on_read_response(td, t, p, now_ns);
	else if (p->mask & VUR_OPM_ATOMIC_ACK)
		on_atomic_ack(td, t, p, now_ns);
	else
		on_aeth(td, t, p, now_ns);
	if (t->rd_ooo.n > 0)
		take_held(td, t, now_ns);
}
