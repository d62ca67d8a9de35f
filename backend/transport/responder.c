/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder: request packets that reach a QP. RC checks the PSN
 * (duplicates are acknowledged again or, for READs, replayed; a gap is
 * answered once with a PSN sequence error NAK, C9-113), SENDs fill the next
 * receive WR (RNR NAK when there is none), WRITEs and READs check the R_Key
 * against the QP's PD and access rights, atomics are done once and their
 * result kept for duplicates (atomic.c), and every violation is answered
 * with the NAK IBTA names and moves the QP to ERR (class B errors, as Linux
 * rxe does). UC has no ACKs: a lost packet drops the rest of its message.
 * UD checks the Q_Key and writes the GRH before the message.
 */
#include "net/net_dev.h"
#include "transport/tp.h"

/* IBTA 9.7.5.2.8: the RNR NAK timer codes, in microseconds. */
static const uint32_t rnr_us[32] = {
	655360,
	10,
	20,
	30,
	40,
	60,
	80,
	120,
	160,
	240,
	320,
	480,
	640,
	960,
	1280,
	1920,
	2560,
	3840,
	5120,
	7680,
	10240,
	15360,
	20480,
	30720,
	40960,
	61440,
	81920,
	122880,
	163840,
	245760,
	327680,
	491520,
};

uint64_t
vur_tp_rnr_ns(uint8_t code)
{
	return (uint64_t)rnr_us[code & 31] * 1000;
}

static void
put_aeth(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t syndrome, uint32_t psn)
{
	struct vur_pkt_hdrs h = {
		.opcode = VUR_TRANSPORT_RC | VUR_OP_ACK,
		.dest_qpn = t->qp->attr.dest_qp_num,
		.psn = psn,
		.syndrome = syndrome,
		.msn = t->msn,
	};
	struct rte_mbuf *m = vur_tp_build(td, t, &h, 0);

	if (m == NULL) {
		vur_tp_drop(td, t, VUR_TP_DROP_NO_MBUF);
		return;
	}
	vur_tp_send_reply(td, t, m);
}

static bool
res_pending(const struct vur_rd_res *r)
{
	return r->valid && r->next_pkt < r->npkts;
}

/* READs and atomics with responses still to send, replays too. */
static uint32_t
reads_pending(const struct vur_tp_qp *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < VUR_TP_RD_SLOTS; i++)
		n += res_pending(&t->res[i]);
	return n;
}

/*
 * READs and atomics outstanding as IBTA counts them against
 * max_dest_rd_atomic: replays are not new.
 */
static uint32_t
reads_new(const struct vur_tp_qp *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < VUR_TP_RD_SLOTS; i++)
		n += res_pending(&t->res[i]) && !t->res[i].replay;
	return n;
}

/*
 * The slot for a new READ: the next one, round the ring, that has nothing
 * to send (a served READ kept for replays goes, the oldest first); with
 * none, the replay of the oldest READ (its requester will ask again).
 */
static struct vur_rd_res *
res_slot(struct vur_tp_qp *t)
{
	struct vur_rd_res *r, *oldest = NULL;

	for (uint32_t i = 0; i < VUR_TP_RD_SLOTS; i++) {
		r = &t->res[(t->res_next + i) % VUR_TP_RD_SLOTS];
		if (!res_pending(r)) {
			t->res_next = (uint32_t)(r - t->res + 1) % VUR_TP_RD_SLOTS;
			return r;
		}
		if (r->replay && (oldest == NULL || vur_psn_diff(r->psn, oldest->psn) < 0))
			oldest = r;
	}
	return oldest;
}

/*
 * Send what waits before anything else, so that the requester sees the
 * PSNs in order. While READ responses are still to go, an ACK or NAK of a
 * later PSN waits behind them (ROCE-DEV-RETX-5): the requester would take
 * it for their loss. A later one replaces it (it says at least as much);
 * vur_tp_read_responses() sends it after the last response.
 */
static void
send_aeth(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t syndrome, uint32_t psn)
{
	if (t->ack_pending) {
		t->ack_pending = false;
		if (reads_pending(t) == 0)
			put_aeth(td, t, VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID, t->ack_psn);
	}
	if (reads_pending(t) > 0) {
		t->aeth_deferred = true;
		t->aeth_syndrome = syndrome;
		t->aeth_psn = psn;
		return;
	}
	put_aeth(td, t, syndrome, psn);
}

/*
 * ACKs are cumulative (IBTA 9.7.5.1.1): the requests of one burst that ask
 * for one get a single ACK of the last, once the burst is taken.
 */
static void
ack(struct vur_tp_dev *td, struct vur_tp_qp *t, uint32_t psn)
{
	struct vur_tp_self *self = vur_tp_self();

	if (reads_pending(t) > 0) {
		send_aeth(td, t, VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID, psn);
		return;
	}
	/* pending on another thread's list: that thread sends it, with this PSN */
	if (!t->ack_pending) {
		if (self->n_acks == VUR_TP_ACK_BATCH) {
			send_aeth(td, t, VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID, psn);
			return;
		}
		self->acks[self->n_acks++] = t;
		t->ack_pending = true;
	}
	t->ack_psn = psn;
}

void
vur_tp_flush_acks(struct vur_tp_dev *td)
{
	struct vur_tp_self *self = vur_tp_self();
	struct vur_tp_qp *t;

	for (uint16_t i = 0; i < self->n_acks; i++) {
		t = self->acks[i];
		vur_tp_qp_lock(t);
		if (t->ack_pending) {
			t->ack_pending = false;
			send_aeth(td, t, VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID, t->ack_psn);
		}
		vur_tp_qp_unlock(t);
	}
	self->n_acks = 0;
}

/* A class B error: NAK @code, the QP to ERR. */
static void
nak(struct vur_tp_dev *td, struct vur_tp_qp *t, enum vur_nak_code code, uint32_t psn,
		const char *why)
{
	static const char *const names[] = { "PSN sequence", "invalid request", "remote access",
		"remote operational" };

	VUR_TP_LOG(td, NOTICE, "QP %u: NAK %s at PSN %u: %s", t->qp->obj.index, names[code], psn,
			why);
	switch (code) {
	case VUR_NAK_PSN_SEQ:
		VUR_TP_COUNT(td, t, nak_seq, 1);
		break;
	case VUR_NAK_INV_REQ:
		VUR_TP_COUNT(td, t, nak_inv, 1);
		break;
	case VUR_NAK_REM_ACCESS:
		VUR_TP_COUNT(td, t, nak_access, 1);
		break;
	case VUR_NAK_REM_OP:
		VUR_TP_COUNT(td, t, nak_op, 1);
		break;
	}
	if (code == VUR_NAK_PSN_SEQ) {
		send_aeth(td, t, VUR_AETH_NAK | code, psn);
		return;
	}
	/* The QP stops here (no more READ responses): the NAK goes now. */
	t->ack_pending = t->aeth_deferred = false;
	put_aeth(td, t, VUR_AETH_NAK | code, psn);
	vur_tp_qp_error(td, t, VIRTIO_IB_QPS_ERR);
}

static bool
is_rc(const struct vur_tp_qp *t)
{
	return t->qp->type == VIRTIO_IB_QPT_RC;
}

/* Something wrong with a request: RC answers @code, UC drops the rest of the message. */
static void
refuse(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p, enum vur_nak_code code,
		const char *why)
{
	if (is_rc(t)) {
		nak(td, t, code, p->h.psn, why);
		return;
	}
	vur_tp_drop(td, t, VUR_TP_DROP_UC_ERROR);
	t->uc_drop = true;
	t->in_send = t->in_write = false;
}

/* Complete the held receive WR with an error (local to the responder). */
static void
fail_recv(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t status)
{
	struct vur_tp_cqe e = { .status = status, .opcode = VIRTIO_IB_WC_RECV };

	vur_tp_rq_complete(td, t, &e);
}

/* The receive WR a message needs: false when the request was answered instead. */
static bool
need_recv(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	if (!vur_tp_rq_take(td, t)) {
		if (is_rc(t)) { /* ROCE-DEV-SEND-6 */
			VUR_TP_COUNT(td, t, rnr_nak_sent, 1);
			send_aeth(td, t, VUR_AETH_RNR_NAK | (t->qp->attr.min_rnr_timer & 0x1f),
					p->h.psn);
		} else { /* ROCE-DEV-SEND-7 */
			vur_tp_drop(td, t, VUR_TP_DROP_NO_RECV);
			t->uc_drop = true;
		}
		return false;
	}
	if (t->rwqe.status != VIRTIO_IB_WC_SUCCESS) {
		fail_recv(td, t, t->rwqe.status);
		refuse(td, t, p, VUR_NAK_REM_OP, "the receive WR is malformed");
		return false;
	}
	return true;
}

static bool
do_send(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	struct vur_tp_cqe e = { .opcode = VIRTIO_IB_WC_RECV };

	if (p->mask & VUR_OPM_FIRST) {
		if (!need_recv(td, t, p))
			return false;
		t->in_send = true;
		t->roff = 0;
	}
	if ((uint64_t)t->roff + p->pay_len > t->rwqe.length) { /* ROCE-DEV-SEND-5 */
		fail_recv(td, t, VIRTIO_IB_WC_LOC_LEN_ERR);
		refuse(td, t, p, VUR_NAK_INV_REQ, "message longer than the receive WR");
		return false;
	}
	if (!vur_tp_sge_write(td, t->qp->pdn, t->rwqe.sge, t->rwqe.num_sge, t->roff, p, 0,
			    p->pay_len)) {
		fail_recv(td, t, VIRTIO_IB_WC_LOC_PROT_ERR); /* an MR went away */
		refuse(td, t, p, VUR_NAK_REM_OP, "the receive WR's memory is gone");
		return false;
	}
	t->roff += p->pay_len;
	if (p->mask & VUR_OPM_LAST) {
		e.byte_len = t->roff;
		e.imm = p->h.imm;
		e.wc_flags = (p->mask & VUR_OPM_IMM) ? VIRTIO_IB_WC_WITH_IMM : 0;
		e.solicited = p->h.se;
		if ((p->mask & VUR_OPM_IETH) && !vur_tp_recv_invalidate(td, t, p, &e)) {
			/* as Linux rxe: the receive fails, the QP goes to ERR */
			fail_recv(td, t, VIRTIO_IB_WC_REM_INV_REQ_ERR);
			refuse(td, t, p, VUR_NAK_INV_REQ, "the IETH names no MR to invalidate");
			return false;
		}
		vur_tp_rq_complete(td, t, &e);
		t->in_send = false;
	}
	return true;
}

/* Write the payload at the current WRITE position. */
static bool
write_payload(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	uint32_t done = 0, n;
	void *hva;

	while (done < p->pay_len) {
		n = p->pay_len - done;
		hva = vur_tp_rkey_hva(td, t->qp, t->wrkey, VIRTIO_IB_ACCESS_REMOTE_WRITE,
				t->wva + done, &n);
		if (hva == NULL)
			return false;
		vur_pkt_copy_payload(p, done, hva, n);
		done += n;
	}
	return true;
}

static bool
do_write(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	struct vur_tp_cqe e = { .opcode = VIRTIO_IB_WC_RECV_RDMA_WITH_IMM };
	bool imm_last = (p->mask & VUR_OPM_LAST) && (p->mask & VUR_OPM_IMM);

	if (p->mask & VUR_OPM_FIRST) {
		/* ROCE-DEV-WRITE-2, -6: a zero-length WRITE checks no key */
		if (p->h.dma_len != 0 &&
				(!(t->qp->attr.access_flags & VIRTIO_IB_ACCESS_REMOTE_WRITE) ||
						!vur_tp_rkey_ok(td, t->qp, p->h.rkey,
								VIRTIO_IB_ACCESS_REMOTE_WRITE,
								p->h.va, p->h.dma_len))) {
			refuse(td, t, p, VUR_NAK_REM_ACCESS,
					"R_Key, access or range"); /* WRITE-3 */
			return false;
		}
		if ((p->mask & VUR_OPM_LAST) ? p->pay_len != p->h.dma_len
					     : p->pay_len > p->h.dma_len) {
			refuse(td, t, p, VUR_NAK_INV_REQ, "payload and RETH length disagree");
			return false;
		}
		/* The receive WR first: after an RNR NAK the retry starts clean. */
		if (imm_last && !need_recv(td, t, p))
			return false;
		t->in_write = true;
		t->wva = p->h.va;
		t->wrkey = p->h.rkey;
		t->wleft = t->wlen = p->h.dma_len;
	} else {
		if (p->pay_len > t->wleft || ((p->mask & VUR_OPM_LAST) && p->pay_len != t->wleft)) {
			refuse(td, t, p, VUR_NAK_INV_REQ, "payload and RETH length disagree");
			return false;
		}
		/* The receive WR first, so that an RNR NAK leaves memory as it was. */
		if (imm_last && !need_recv(td, t, p))
			return false;
	}
	if (!write_payload(td, t, p)) {
		refuse(td, t, p, VUR_NAK_REM_ACCESS, "the MR went away");
		return false;
	}
	t->wva += p->pay_len;
	t->wleft -= p->pay_len;
	if (p->mask & VUR_OPM_LAST) {
		t->in_write = false;
		if (imm_last) { /* ROCE-DEV-WRITE-5 */
			e.byte_len = t->wlen;
			e.imm = p->h.imm;
			e.wc_flags = VIRTIO_IB_WC_WITH_IMM;
			e.solicited = p->h.se;
			vur_tp_rq_complete(td, t, &e);
		}
	}
	return true;
}

static bool
do_read(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	uint32_t pmtu = vur_tp_pmtu(td, t);
	struct vur_rd_res *r;

	if (p->h.dma_len != 0 &&
			(!(t->qp->attr.access_flags & VIRTIO_IB_ACCESS_REMOTE_READ) ||
					!vur_tp_rkey_ok(td, t->qp, p->h.rkey,
							VIRTIO_IB_ACCESS_REMOTE_READ, p->h.va,
							p->h.dma_len))) {
		refuse(td, t, p, VUR_NAK_REM_ACCESS, "R_Key, access or range"); /* READ-3 */
		return false;
	}
	r = reads_new(t) < RTE_MIN((uint32_t)t->qp->attr.max_dest_rd_atomic,
					   (uint32_t)VUR_TP_MAX_RD_RES)
			? res_slot(t)
			: NULL;
	if (r == NULL) {
		refuse(td, t, p, VUR_NAK_INV_REQ,
				"more READs than max_dest_rd_atomic"); /* READ-4 */
		return false;
	}
	*r = (struct vur_rd_res){
		.valid = true,
		.psn = p->h.psn,
		.npkts = RTE_MAX(1u, (p->h.dma_len + pmtu - 1) / pmtu),
		.va = p->h.va,
		.rkey = p->h.rkey,
		.len = p->h.dma_len,
	};
	t->epsn = vur_psn_add(t->epsn, r->npkts - 1); /* the caller adds the last one */
	return true;
}

/*
 * An atomic (atomic.c): checked, given a resource (shared with READs), done
 * once on the guest's memory; its ATOMIC_ACKNOWLEDGE goes from the resource
 * in PSN order with the READ responses (vur_tp_read_responses).
 */
static bool
do_atomic(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	enum vur_nak_code code;
	struct vur_rd_res *r;
	const char *why;
	uint64_t *target = vur_tp_atomic_target(td, t, p, &code, &why);

	if (target == NULL) {
		refuse(td, t, p, code, why);
		return false;
	}
	r = reads_new(t) < RTE_MIN((uint32_t)t->qp->attr.max_dest_rd_atomic,
					   (uint32_t)VUR_TP_MAX_RD_RES)
			? res_slot(t)
			: NULL;
	if (r == NULL) {
		refuse(td, t, p, VUR_NAK_INV_REQ, "more READs and atomics than max_dest_rd_atomic");
		return false;
	}
	*r = (struct vur_rd_res){
		.valid = true,
		.atomic = true,
		.psn = p->h.psn,
		.npkts = 1,
		.va = p->h.va,
		.rkey = p->h.rkey,
		.orig = vur_tp_atomic_execute(target, p),
	};
	VUR_TP_COUNT(td, t, atomics, 1);
	return true;
}

/*
 * A duplicate atomic: answered again with the value the first one found,
 * never done again. A resource that is gone (taken by later READs and
 * atomics) leaves it unanswered, as rxe does: the requester, still
 * waiting, runs out of retries.
 */
static void
duplicate_atomic(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	struct vur_rd_res *r;

	for (uint32_t i = 0; i < VUR_TP_RD_SLOTS; i++) {
		r = &t->res[i];
		if (r->valid && r->atomic && r->psn == p->h.psn) {
			if (!res_pending(r))
				r->replay = true;
			r->next_pkt = 0;
			VUR_TP_COUNT(td, t, atomic_replays, 1);
			return;
		}
	}
}

/* A duplicate request (RC): acknowledged again, or a READ replayed (IBTA 9.7.5.1.2). */
static void
duplicate(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	struct vur_rd_res *r;

	vur_tp_drop(td, t, VUR_TP_DROP_PSN);
	if (p->mask & VUR_OPM_ATOMIC) {
		duplicate_atomic(td, t, p);
		return;
	}
	if (!(p->mask & VUR_OPM_READ)) {
		ack(td, t, vur_psn_add(t->epsn, VUR_PSN_MASK)); /* epsn - 1 */
		return;
	}
	for (uint32_t i = 0; i < VUR_TP_RD_SLOTS; i++) {
		r = &t->res[i];
		if (r->valid && !r->atomic && vur_psn_diff(p->h.psn, r->psn) >= 0 &&
				vur_psn_diff(p->h.psn, vur_psn_add(r->psn, r->npkts)) < 0) {
			/* served whole already: a replay, not a new READ (READ-4) */
			if (!res_pending(r))
				r->replay = true;
			r->next_pkt = (uint32_t)vur_psn_diff(p->h.psn, r->psn);
			return;
		}
	}
}

/* C9-113: a PSN sequence NAK of the expected PSN, once per gap. */
static void
seq_nak(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	if (!t->nak_sent)
		nak(td, t, VUR_NAK_PSN_SEQ, t->epsn, "a PSN gap");
	t->nak_sent = true;
}

/* Whether @p continues the message in progress as its opcode says it must. */
static bool
in_sequence(const struct vur_tp_qp *t, const struct vur_pkt *p)
{
	bool busy = t->in_send || t->in_write;

	if (p->mask & VUR_OPM_FIRST)
		return !busy;
	if (p->mask & VUR_OPM_SEND)
		return t->in_send;
	return t->in_write;
}

static void
ud_recv(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	struct vur_tp_cqe e = { .opcode = VIRTIO_IB_WC_RECV };

	if (p->h.qkey != t->qp->attr.qkey) { /* ROCE-DEV-UD-4 */
		vur_tp_drop(td, t, VUR_TP_DROP_QKEY);
		return;
	}
	if (!vur_tp_rq_take(td, t)) { /* ROCE-DEV-SEND-7 */
		vur_tp_drop(td, t, VUR_TP_DROP_NO_RECV);
		return;
	}
	if (t->rwqe.status != VIRTIO_IB_WC_SUCCESS) {
		fail_recv(td, t, t->rwqe.status);
		return;
	}
	if (VUR_GRH_LEN + (uint64_t)p->pay_len > t->rwqe.length) {
		fail_recv(td, t, VIRTIO_IB_WC_LOC_LEN_ERR);
		return;
	}
	/* ROCE-DEV-UD-5 */
	if (!vur_tp_sge_write_buf(
			    td, t->qp->pdn, t->rwqe.sge, t->rwqe.num_sge, 0, p->grh, VUR_GRH_LEN) ||
			!vur_tp_sge_write(td, t->qp->pdn, t->rwqe.sge, t->rwqe.num_sge, VUR_GRH_LEN,
					p, 0, p->pay_len)) {
		fail_recv(td, t, VIRTIO_IB_WC_LOC_PROT_ERR);
		return;
	}
	e.byte_len = VUR_GRH_LEN + p->pay_len;
	e.imm = p->h.imm;
	e.src_qp = p->h.src_qp;
	e.wc_flags = VIRTIO_IB_WC_GRH | ((p->mask & VUR_OPM_IMM) ? VIRTIO_IB_WC_WITH_IMM : 0);
	e.solicited = p->h.se;
	vur_tp_rq_complete(td, t, &e);
}

/* UC: a gap loses the message in progress; a new message starts clean. */
static bool
uc_resync(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p)
{
	if (p->h.psn != t->epsn) {
		t->in_send = t->in_write = false;
		t->roff = 0;
		t->uc_drop = !(p->mask & VUR_OPM_FIRST);
		t->epsn = p->h.psn;
	}
	if (t->uc_drop && (p->mask & VUR_OPM_FIRST))
		t->uc_drop = false;
	if (t->uc_drop || !in_sequence(t, p)) {
		vur_tp_drop(td, t, VUR_TP_DROP_UC_ERROR);
		t->uc_drop = !(p->mask & VUR_OPM_LAST);
		t->in_send = t->in_write = false;
		t->epsn = vur_psn_add(p->h.psn, p->npkts);
		return false;
	}
	return true;
}

/*
 * Only the last packet of a message may be short of the path MTU; a local
 * packet that holds several is as long as they are together (pkt.h).
 */
static bool
length_ok(const struct vur_pkt *p, uint32_t pmtu)
{
	uint64_t whole = (uint64_t)p->npkts * pmtu;

	if (!(p->mask & VUR_OPM_PAYLOAD))
		return true;
	if (p->seg_size != 0 && p->seg_size != pmtu)
		return false;
	return (p->mask & VUR_OPM_LAST) ? p->pay_len <= whole : p->pay_len == whole;
}

/* Take one request packet; true when it was the expected one and was taken. */
static bool
respond(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *pkt)
{
	uint32_t pmtu = vur_tp_pmtu(td, t);
	struct vur_pkt trimmed;
	const struct vur_pkt *p = pkt;
	uint32_t held;
	int32_t d;
	bool ok;

	if (t->qp->type == VIRTIO_IB_QPT_UD || t->qp->type == VIRTIO_IB_QPT_GSI) {
		ud_recv(td, t, p);
		return false;
	}
	if (!is_rc(t)) {
		if (!uc_resync(td, t, p))
			return false;
	} else {
		d = vur_psn_diff(p->h.psn, t->epsn);
		if (d < 0 && (uint32_t)-d < p->npkts) {
			/* a retransmission that holds packets taken and new ones: the new */
			trimmed = *pkt;
			vur_pkt_skip(&trimmed, (uint32_t)-d);
			p = &trimmed;
			d = 0;
		}
		if (d < 0) {
			duplicate(td, t, p);
			return false;
		}
		if (d > 0) { /* C9-113: one NAK per gap */
			held = t->ooo.n;
			if (p->npkts == 1 && vur_tp_ooo_hold(&t->ooo, t->epsn, p->h.psn, p->m) &&
					t->ooo.n > held)
				VUR_TP_COUNT(td, t, ooo_held, 1);
			else /* not held, or held already (sent again) */
				vur_tp_drop(td, t, VUR_TP_DROP_PSN);
			seq_nak(td, t);
			return false;
		}
		t->nak_sent = false;
		if (!in_sequence(t, p)) {
			nak(td, t, VUR_NAK_INV_REQ, p->h.psn, "opcode out of sequence");
			return false;
		}
	}
	if (!length_ok(p, pmtu)) {
		refuse(td, t, p, VUR_NAK_INV_REQ, "payload length against the path MTU");
		return false;
	}
	if (p->mask & VUR_OPM_SEND)
		ok = do_send(td, t, p);
	else if (p->mask & VUR_OPM_WRITE)
		ok = do_write(td, t, p);
	else if (p->mask & VUR_OPM_ATOMIC)
		ok = do_atomic(td, t, p);
	else
		ok = do_read(td, t, p);
	if (!ok)
		return false;
	VUR_TP_COUNT(td, t, rx_bytes, p->pay_len);
	t->epsn = vur_psn_add(t->epsn, p->npkts);
	if (p->mask & VUR_OPM_LAST)
		t->msn = vur_psn_add(t->msn, 1);
	/* a READ's or an atomic's answer is its response */
	if (is_rc(t) && p->h.ack_req && !(p->mask & (VUR_OPM_READ | VUR_OPM_ATOMIC)))
		ack(td, t, vur_psn_add(p->h.psn, p->npkts - 1));
	return true;
}

void
vur_tp_responder(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *pkt)
{
	struct rte_mbuf *m;
	struct vur_pkt held;
	bool ok = respond(td, t, pkt), took = false;

	if (ok && t->ooo.n > 0)
		vur_tp_ooo_forget_before(&t->ooo, t->epsn);
	/* The gap is filled: what came after it, held, is taken in order (tp_ooo.h). */
	while (ok && t->ooo.n > 0 && (m = vur_tp_ooo_take(&t->ooo, t->epsn)) != NULL) {
		ok = vur_pkt_parse(m, &held) == VUR_PKT_OK && respond(td, t, &held);
		rte_pktmbuf_free(m);
		took = true;
	}
	/*
	 * One ACK says how far it got, so that the requester skips what it was
	 * about to send again; a further gap is its resending's to fill.
	 */
	if (took && ok)
		ack(td, t, vur_psn_add(t->epsn, VUR_PSN_MASK));
}

uint16_t
vur_tp_read_responses(
		struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out, uint16_t max)
{
	uint32_t pmtu = vur_tp_pmtu(td, t), off, len, done, n, segs;
	struct vur_pkt_hdrs h = { .dest_qpn = t->qp->attr.dest_qp_num, .msn = t->msn };
	struct vur_rd_res *r = NULL;
	struct rte_mbuf *m;
	uint16_t count = 0;
	void *hva;

	if (!vur_tp_state_receives(t->qp->attr.state) || !is_rc(t))
		return 0;
	while (count < max) {
		/* the oldest READ with responses to send: they go in PSN order */
		r = NULL;
		for (uint32_t i = 0; i < VUR_TP_RD_SLOTS; i++) {
			struct vur_rd_res *c = &t->res[i];

			if (res_pending(c) && (r == NULL || vur_psn_diff(c->psn, r->psn) < 0))
				r = c;
		}
		if (r == NULL)
			break;
		if (r->atomic) { /* its ATOMIC_ACKNOWLEDGE, in PSN order with the READs */
			m = vur_tp_atomic_ack(td, t, r);
			if (m == NULL)
				break;
			out[count++] = m;
			VUR_TP_COUNT(td, t, tx_pkts, 1);
			r->next_pkt = 1;
			continue;
		}
		/* to an engine of this backend, as few packets as can be (pkt.h) */
		segs = t->peer_local ? RTE_MIN(r->npkts - r->next_pkt, vur_pkt_max_segs(pmtu)) : 1;
		off = r->next_pkt * pmtu;
		len = r->len == 0 ? 0 : RTE_MIN(segs * pmtu, r->len - off);
		h.psn = vur_psn_add(r->psn, r->next_pkt);
		h.opcode = vur_op_segment(VUR_TRANSPORT_RC | VUR_OP_READ_RESP_ONLY,
				r->next_pkt == 0, r->next_pkt + segs == r->npkts);
		h.syndrome = VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID;
		m = vur_tp_build(td, t, &h, len);
		if (m == NULL)
			break;
		if (segs > 1)
			vur_pkt_set_seg_size(m, pmtu);
		for (done = 0; done < len; done += n) {
			n = len - done;
			hva = vur_tp_rkey_hva(td, t->qp, r->rkey, VIRTIO_IB_ACCESS_REMOTE_READ,
					r->va + off + done, &n);
			if (hva == NULL || vur_pkt_append_ref(m, vur_tp_ext_pool(td), hva, n) != 0)
				break;
		}
		if (done < len) {
			rte_pktmbuf_free(m);
			r->valid = false;
			nak(td, t, VUR_NAK_REM_ACCESS, h.psn, "the READ's MR went away");
			break;
		}
		out[count++] = m;
		VUR_TP_COUNT(td, t, tx_pkts, segs);
		VUR_TP_COUNT(td, t, tx_bytes, len);
		r->next_pkt += segs;
	}
	if (t->aeth_deferred && count < max && reads_pending(t) == 0) {
		h = (struct vur_pkt_hdrs){
			.opcode = VUR_TRANSPORT_RC | VUR_OP_ACK,
			.dest_qpn = t->qp->attr.dest_qp_num,
			.psn = t->aeth_psn,
			.syndrome = t->aeth_syndrome,
			.msn = t->msn,
		};
		m = vur_tp_build(td, t, &h, 0);
		if (m != NULL) {
			t->aeth_deferred = false;
			out[count++] = m;
			VUR_TP_COUNT(td, t, tx_pkts, 1);
		}
	}
	return count;
}
