/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester: send WRs become request packets. Messages are cut at the
 * path MTU (first, middle, last, only), each packet takes the next PSN, the
 * last of an RC message asks for an ACK; READs and atomics wait while
 * max_rd_atomic are outstanding, a FENCE waits for earlier READs and
 * atomics (ROCE-DEV-SEND-3, READ-2; atomic.c). An RC QP keeps at most its window unacknowledged
 * (tp_window.h, ROCE-DEV-RETX-7) and asks for an ACK at least four times per window. Unacknowledged
 * requests are sent again from the first unacknowledged PSN (go-back-N),
 * also from inside a message, when the ACK timer expires or a NAK or RNR
 * NAK says so; a READ is asked again for the responses that did not come
 * (ROCE-DEV-RETX-1 to -4). A READ larger than a window is asked for in
 * several requests (read_chunk_len, ROCE-DEV-RETX-8, -9).
 */
#include <rte_vhost.h>

#include "net/net_dev.h"
#include "net/net_state.h"
#include "rdma/rdma_ops.h"
#include "transport/tp.h"

/*
 * Ask for an ACK at least this often within a long message, to bound what a
 * loss costs, and at least four times per window so that it keeps moving.
 */
#define ACK_REQ_EVERY 64

uint32_t
vur_tp_pmtu(const struct vur_tp_dev *td, const struct vur_tp_qp *t)
{
	const struct vur_rdma_qp *qp = t->qp;
	uint8_t mtu = qp->type == VIRTIO_IB_QPT_RC || qp->type == VIRTIO_IB_QPT_UC
			? qp->attr.path_mtu
			: td->rd->env.port_mtu;

	return 128u << (mtu != 0 ? mtu : VIRTIO_IB_MTU_256);
}

uint64_t
vur_tp_timeout_ns(uint8_t timeout)
{
	/* 4.096 us x 2^timeout; 0 waits forever (IBTA 9.7.6.1.3) */
	return timeout == 0 ? 0 : 4096ULL << RTE_MIN(timeout, (uint8_t)31);
}

static bool
is_rc(const struct vur_tp_qp *t)
{
	return t->qp->type == VIRTIO_IB_QPT_RC;
}

static bool
is_ud(const struct vur_tp_qp *t)
{
	return t->qp->type == VIRTIO_IB_QPT_UD || t->qp->type == VIRTIO_IB_QPT_GSI;
}

static uint8_t
transport_of(const struct vur_tp_qp *t)
{
	return is_ud(t) ? VUR_TRANSPORT_UD : is_rc(t) ? VUR_TRANSPORT_RC : VUR_TRANSPORT_UC;
}

/* The BTH opcode of the packet that holds packets [@k, @k + @n) of @w. */
static uint8_t
opcode_of(const struct vur_tp_qp *t, const struct vur_swqe *w, uint32_t k, uint32_t n)
{
	uint8_t kind;

	switch (w->opcode) {
	case VIRTIO_IB_WR_RDMA_READ:
		return (uint8_t)(transport_of(t) | VUR_OP_READ_REQ);
	case VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP:
		return (uint8_t)(transport_of(t) | VUR_OP_CMP_SWAP);
	case VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD:
		return (uint8_t)(transport_of(t) | VUR_OP_FETCH_ADD);
	case VIRTIO_IB_WR_RDMA_WRITE:
		kind = VUR_OP_WRITE_ONLY;
		break;
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
		kind = VUR_OP_WRITE_ONLY_IMM;
		break;
	case VIRTIO_IB_WR_SEND_WITH_IMM:
		kind = VUR_OP_SEND_ONLY_IMM;
		break;
	case VIRTIO_IB_WR_SEND_WITH_INV: /* the IETH rides on the last packet */
		kind = VUR_OP_SEND_ONLY_INV;
		break;
	default:
		kind = VUR_OP_SEND_ONLY;
		break;
	}
	return vur_op_segment((uint8_t)(transport_of(t) | kind), k == 0, k + n == w->npkts);
}

/*
 * How many packets of @w from packet @k the next one holds. A peer that is
 * an engine of this backend gets a message in as few packets as the IP
 * length allows (ROCE-DEV-WIRE-7, see pkt.h); vur_pkt_to_wire() cuts them
 * at the path MTU again should one leave through a link after all.
 */
static uint32_t
segments(const struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w,
		uint32_t k)
{
	uint32_t pmtu = vur_tp_pmtu(td, t);

	if (!t->peer_local || w->opcode == VIRTIO_IB_WR_RDMA_READ || is_ud(t))
		return 1;
	return RTE_MAX(1u, RTE_MIN(w->npkts - k, vur_pkt_max_segs(pmtu)));
}

struct rte_mbuf *
vur_tp_build(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_pkt_hdrs *h, uint32_t pay_len)
{
	memcpy(t->path.smac.addr_bytes, td->nd->filter->mac, RTE_ETHER_ADDR_LEN);
	return vur_pkt_build(vur_tp_hdr_pool(td), &t->path, h, pay_len);
}

/* A UD packet's addresses, from the WR's AH. */
static bool
ud_path(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_swqe *w,
		struct vur_pkt_addr *a)
{
	const struct vur_rdma_ah *ah = vur_pool_get(&td->rd->ahs, w->ah);

	if (ah == NULL || ah->pdn != t->qp->pdn)
		return false;
	memset(a, 0, sizeof(*a));
	memcpy(a->smac.addr_bytes, td->nd->filter->mac, RTE_ETHER_ADDR_LEN);
	memcpy(a->dmac.addr_bytes, ah->av.dmac, RTE_ETHER_ADDR_LEN);
	memcpy(a->sgid, ah->av.sgid, 16);
	memcpy(a->dgid, ah->av.dgid, 16);
	a->ipv6 = vur_pkt_gid_is_ipv6(ah->av.dgid);
	a->traffic_class = ah->av.traffic_class;
	a->hop_limit = ah->av.hop_limit;
	a->flow_label = ah->av.flow_label;
	a->sport = vur_pkt_sport(t->qp->obj.index, w->remote_qpn, ah->av.flow_label);
	return true;
}

uint32_t
vur_tp_read_resume_psn(
		const struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w)
{
	return vur_psn_add(w->first_psn, w->read_got / vur_tp_pmtu(td, t));
}

/*
 * What one request of a READ asks for. A responder answers a request in
 * one burst that no window paces: a READ of 16 MiB is 16,384 packets back
 * to back, which a tap's queue or a receive ring loses most of, and each
 * request asked again for the rest replays beside the first. So a READ
 * towards another host goes as several requests of at most READ_REQ_MAX
 * responses (ordinary READ requests on the wire, each counted against
 * max_rd_atomic), chosen so that max_rd_atomic of them fill the largest
 * window; the window decides how many are out. The boundaries are fixed
 * when the READ starts: a request asked again after a loss then lies
 * within one the responder holds, as a duplicate must (IBTA 9.7.5.1.2). An
 * engine of this backend loses nothing: one request.
 */
#define READ_REQ_MIN 64
#define READ_REQ_MAX 256

static uint32_t
read_chunk_len(const struct vur_tp_qp *t, uint32_t pmtu, uint32_t span)
{
	uint32_t per = VUR_TP_WIN_MAX / RTE_MAX(t->qp->attr.max_rd_atomic, (uint8_t)1);

	if (t->peer_local)
		return span * pmtu;
	return RTE_MIN(RTE_MAX(RTE_MIN(per, (uint32_t)READ_REQ_MAX), (uint32_t)READ_REQ_MIN),
			       span) *
			pmtu;
}

uint32_t
vur_tp_read_req(const struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w,
		uint32_t c, uint32_t *npsn)
{
	uint32_t pmtu = vur_tp_pmtu(td, t), per = w->chunk_len / pmtu;
	uint32_t from = RTE_MAX(c * per, w->read_got / pmtu);

	*npsn = RTE_MIN((c + 1) * per, w->span) - from;
	return vur_psn_add(w->first_psn, from);
}

/*
 * Whether a packet that ends at @last_psn asks for an ACK: when
 * ACK_REQ_EVERY packets, or a quarter of the window, went since the last
 * that asked; when it resends PSNs before that one (its ACK may be what was
 * lost); and, on a QP congestion control paces, when PACED_ACK_REQ_NS went
 * since: at a low rate a quarter of the window takes longer than the ACK
 * timer, which would then expire with nothing lost.
 */
#define PACED_ACK_REQ_NS 1000000ULL

static bool
ack_due(const struct vur_tp_qp *t, uint32_t last_psn, uint64_t now_ns)
{
	int32_t since = vur_psn_diff(last_psn, t->ack_req_psn);
	uint32_t every = RTE_MIN((uint32_t)ACK_REQ_EVERY, RTE_MAX(t->win.cwnd / 4, 1u));

	return since < 0 || (uint32_t)since >= every ||
			(t->cc.rate != 0 && now_ns - t->ack_req_ns >= PACED_ACK_REQ_NS);
}

/*
 * The next packet of @w, holding @n of its packets from @w->next_pkt; NULL
 * when out of mbufs or when the WR failed (status set).
 */
static struct rte_mbuf *
build_packet(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_swqe *w, uint32_t n,
		uint64_t now_ns)
{
	const struct vur_rdma_qp *qp = t->qp;
	uint32_t k = w->next_pkt, pmtu = vur_tp_pmtu(td, t), off, len;
	struct vur_pkt_hdrs h = {
		.opcode = opcode_of(t, w, k, n),
		.dest_qpn = qp->attr.dest_qp_num,
		.psn = vur_psn_add(w->first_psn, k),
	};
	struct vur_pkt_addr ud;
	struct rte_mbuf *m;
	bool last = k + n == w->npkts;

	if (w->opcode == VIRTIO_IB_WR_RDMA_READ) {
		/*
		 * ROCE-DEV-RETX-3: asked again, a request asks for the responses
		 * it lacks: the PSN, address and length of its first missing one on.
		 */
		h.psn = vur_tp_read_req(td, t, w, k, &len);
		off = (uint32_t)vur_psn_diff(h.psn, w->first_psn) * pmtu;
		h.va = w->remote_addr + off;
		h.rkey = w->rkey;
		h.dma_len = RTE_MIN(off + len * pmtu, w->length) - off;
		h.ack_req = true;
		t->ack_req_psn = h.psn;
		return vur_tp_build(td, t, &h, 0);
	}
	if (vur_tp_wr_is_atomic(w->opcode)) { /* one packet, no payload (atomic.c) */
		vur_tp_atomic_request(w, &h);
		t->ack_req_psn = h.psn;
		return vur_tp_build(td, t, &h, 0);
	}
	off = k * pmtu;
	len = RTE_MIN(n * pmtu, w->length - off);
	h.se = last && (w->flags & VIRTIO_IB_SEND_SOLICITED); /* ROCE-DEV-SEND-2 */
	h.ack_req = is_rc(t) &&
			(last || t->probing || ack_due(t, vur_psn_add(h.psn, n - 1), now_ns));
	if (h.ack_req)
		t->ack_req_psn = vur_psn_add(h.psn, n - 1);
	h.imm = w->imm;
	h.ieth = w->inv_rkey;
	if (k == 0) { /* RETH rides on the first packet of a WRITE */
		h.va = w->remote_addr;
		h.rkey = w->rkey;
		h.dma_len = w->length;
	}
	if (is_ud(t)) {
		if (!ud_path(td, t, w, &ud)) { /* the AH went away: ROCE-DEV-UD-1 */
			w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR;
			return NULL;
		}
		/* ROCE-DEV-MCAST-7: a group's packets go to QP 0xffffff */
		h.dest_qpn = vur_rdma_gid_is_mcast(ud.dgid) ? VIRTIO_IB_MULTICAST_QPN
							    : w->remote_qpn;
		/* ROCE-DEV-UD-3: a controlled Q_Key means the QP's own */
		h.qkey = (w->remote_qkey & 0x80000000u) ? qp->attr.qkey : w->remote_qkey;
		h.src_qp = qp->obj.index;
		m = vur_pkt_build(vur_tp_hdr_pool(td), &ud, &h, len);
	} else {
		m = vur_tp_build(td, t, &h, len);
	}
	if (m == NULL)
		return NULL;
	if (n > 1)
		vur_pkt_set_seg_size(m, pmtu);
	if (w->flags & VIRTIO_IB_SEND_INLINE) {
		if (vur_pkt_append_copy(m, w->inline_data + off, len) == 0)
			return m;
	} else if (vur_tp_sge_append(td, qp->pdn, w->sge, w->num_sge, off, len, m)) {
		return m;
	}
	/* An MR went away since the WR was taken (or no segment was left). */
	rte_pktmbuf_free(m);
	if (rte_mempool_avail_count(vur_tp_ext_pool(td)) > 0)
		w->status = VIRTIO_IB_WC_LOC_PROT_ERR;
	return NULL;
}

uint32_t
vur_tp_reads_outstanding(const struct vur_tp_qp *t)
{
	const struct vur_swqe *w;
	uint32_t n = 0;

	for (uint32_t i = t->head; i != t->started; i++) {
		w = &t->wqe[i % t->nwqe];
		if (w->opcode == VIRTIO_IB_WR_RDMA_READ)
			n += w->next_pkt - RTE_MIN(w->next_pkt, vur_tp_read_req_done(w));
		else if (vur_tp_wr_is_atomic(w->opcode))
			n += w->next_pkt; /* sent (not rewound) and not answered: it is at most 1 */
	}
	return n;
}

/* Whether a READ or atomic started before is not complete (a FENCE waits for it). */
static bool
reads_incomplete(const struct vur_tp_qp *t)
{
	for (uint32_t i = t->head; i != t->started; i++)
		if (vur_tp_wr_is_rd_atomic(t->wqe[i % t->nwqe].opcode))
			return true;
	return false;
}

/*
 * The device's transmit limits (common/txrate.h): @segs packets of @w may
 * go now, their tokens taken; else they wait (never dropped: that would
 * cost the peer a retransmission) and the thread sleeps until the tokens
 * return (t->rate_ready_ns, a deadline of vur_tp_poll_qp()).
 */
static bool
rate_allows(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_swqe *w, uint32_t segs,
		uint64_t now_ns)
{
	uint32_t pmtu = vur_tp_pmtu(td, t), pay;

	if (!vur_txrate_limited(td->nd->txrate))
		return true;
	pay = vur_tp_wr_is_rd_atomic(w->opcode)
			? 0
			: RTE_MIN(segs * pmtu, w->length - w->next_pkt * pmtu);
	/* on the wire each packet has its headers (Ethernet, IP, UDP, BTH, ICRC: 58 bytes+) */
	if (vur_txrate_take(td->nd->txrate, pay + segs * VUR_TP_WIRE_HDR, segs, now_ns,
			    &t->rate_ready_ns)) {
		t->rate_ready_ns = 0;
		return true;
	}
	return false;
}

/* Whether READ or atomic @w may send a request now: at most max_rd_atomic are out. */
static bool
read_req_allowed(const struct vur_tp_qp *t, const struct vur_swqe *w)
{
	return !vur_tp_wr_is_rd_atomic(w->opcode) || !is_rc(t) ||
			vur_tp_reads_outstanding(t) < t->qp->attr.max_rd_atomic;
}

/* What stops @w from starting now (ROCE-DEV-QPS-9, SEND-3, READ-2). */
static bool
may_start(const struct vur_tp_qp *t, const struct vur_swqe *w)
{
	const struct vur_rdma_qp *qp = t->qp;

	if (qp->attr.state == VIRTIO_IB_QPS_SQD)
		return false;
	if (!is_rc(t))
		return true;
	if ((w->flags & VIRTIO_IB_SEND_FENCE) && reads_incomplete(t))
		return false;
	return !vur_tp_wr_is_rd_atomic(w->opcode) ||
			vur_tp_reads_outstanding(t) < qp->attr.max_rd_atomic;
}

static void
start(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_swqe *w)
{
	uint32_t pmtu = vur_tp_pmtu(td, t);

	uint32_t pkts = RTE_MAX(1u, (w->length + pmtu - 1) / pmtu);

	w->first_psn = t->psn;
	/* A READ takes one PSN per response packet (IBTA 9.7.1.1). */
	w->span = pkts;
	if (w->opcode == VIRTIO_IB_WR_RDMA_READ) {
		w->chunk_len = read_chunk_len(t, pmtu, pkts);
		w->npkts = (pkts + w->chunk_len / pmtu - 1) / (w->chunk_len / pmtu);
	} else if (vur_tp_wr_is_atomic(w->opcode)) {
		w->span = w->npkts = 1; /* one request, one PSN, one response */
	} else {
		w->npkts = is_ud(t) ? 1 : pkts;
	}
	t->psn = vur_psn_add(t->psn, w->span);
	w->next_pkt = 0;
	w->read_got = 0;
	w->rereq = false;
	w->state = VUR_SWQE_SENDING;
	t->started = t->send + 1;
}

/*
 * Whether the window lets the next packet of @w, holding @segs of its
 * packets, go now: the PSNs it takes (a READ: the responses it asks for)
 * on top of those unacknowledged before it. A peer on this backend loses
 * nothing (ROCE-DEV-WIRE-7): no window.
 */
static bool
window_allows(const struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w,
		uint32_t segs)
{
	uint32_t psn, pkts;
	int32_t before;

	if (!is_rc(t) || t->peer_local)
		return true;
	if (w->opcode == VIRTIO_IB_WR_RDMA_READ) {
		psn = vur_tp_read_req(td, t, w, w->next_pkt, &pkts);
	} else {
		psn = vur_psn_add(w->first_psn, w->next_pkt);
		pkts = segs;
	}
	before = vur_psn_diff(psn, t->una);
	return vur_tp_win_allows(&t->win, before > 0 ? (uint32_t)before : 0, pkts);
}

/*
 * The tail-loss probe (TCP's, RFC 8985, in IBTA's terms): when the last
 * packets of a burst are lost, no later packet makes the responder NAK,
 * and only the local ACK timer (67 ms at rdma-core's default timeout 14)
 * would notice. When the answer to the last packet that asked for an ACK
 * is late by two smoothed round trips, or the smoothed round trip and four
 * times its deviation, whichever is longer (at least 500 us), the first
 * unacknowledged packet goes again alone: the responder acknowledges how
 * far it got (or takes it), and the requester goes on from there. Any
 * requester may send an unacknowledged packet again (IBTA 9.7.4.1.4); a
 * probe costs no retry and does not touch the window. Timed from the
 * packets that ask for an ACK, not from every packet: a paced QP has many
 * in flight that no answer is due for. No probe before a round trip was
 * measured.
 */
#define PROBE_MIN_NS 500000ULL /* the round trips of a software link vary that much */

static uint64_t
probe_after(const struct vur_tp_qp *t)
{
	/* queues on a software link make the round trip vary: its deviation counts (RFC 6298) */
	uint64_t pto = RTE_MAX(
			RTE_MAX(2 * t->srtt_ns, t->srtt_ns + 4 * t->rttvar_ns), PROBE_MIN_NS);
	uint64_t timeout = vur_tp_timeout_ns(t->qp->attr.timeout);

	/*
	 * The ACK timer's job when it comes as soon (and none without a timer
	 * either way); none towards an engine of this backend, which loses
	 * nothing (ROCE-DEV-WIRE-7): a slow guest there is no lost packet.
	 */
	if (t->peer_local || t->srtt_ns == 0 || timeout == 0 || pto >= timeout / 2)
		return 0;
	return pto;
}

void
vur_tp_acked(struct vur_tp_qp *t, uint32_t to, uint64_t now_ns)
{
	uint64_t sample;

	t->probing = t->probe_out = false;
	if (t->rtt_timing && vur_psn_diff(to, t->rtt_psn) > 0) {
		sample = now_ns - t->rtt_sent_ns;
		if (t->srtt_ns == 0) {
			t->srtt_ns = sample;
			t->rttvar_ns = sample / 2;
		} else {
			t->rttvar_ns = (3 * t->rttvar_ns +
						       (sample > t->srtt_ns ? sample - t->srtt_ns
									    : t->srtt_ns - sample)) /
					4;
			t->srtt_ns = (7 * t->srtt_ns + sample) / 8;
		}
		t->rtt_timing = false;
	}
	/* the last request for an ACK is answered: no probe is due */
	if (vur_psn_diff(to, t->ack_req_psn) > 0)
		t->probe_deadline = 0;
	/*
	 * A probe that filled the first gap, and nothing held behind it: what
	 * went after it before the request whose answer was late is lost too.
	 * Go back to it (go-back-N), as the ACK timer would, sooner.
	 */
	if (t->probe_psn_valid && to == vur_psn_add(t->probe_psn, 1) &&
			vur_psn_diff(t->sent_psn, to) > 0)
		vur_tp_rewind(t, to);
	t->probe_psn_valid = false;
}

/* Packet @m of @w, holding @segs packets from @w->next_pkt, is going: count it. */
static void
sent(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_swqe *w, struct rte_mbuf *m,
		uint32_t segs, uint64_t now_ns)
{
	uint32_t pmtu = vur_tp_pmtu(td, t), last, end, npsn;

	/* the payload, wherever it sits (inline data is copied into the first segment) */
	uint32_t pay = vur_tp_wr_is_rd_atomic(w->opcode)
			? 0
			: RTE_MIN(segs * pmtu, w->length - w->next_pkt * pmtu);
	bool again = w->next_pkt < w->sent_max;

	if (w->opcode == VIRTIO_IB_WR_RDMA_READ) { /* a request: the responses it asks for */
		last = vur_tp_read_req(td, t, w, w->next_pkt, &npsn);
		end = vur_psn_add(last, npsn);
	} else {
		last = vur_psn_add(w->first_psn, w->next_pkt + segs - 1);
		end = vur_psn_add(last, 1);
	}
	if (again) {
		VUR_TP_COUNT(td, t, retransmits, RTE_MIN(segs, w->sent_max - w->next_pkt));
		VUR_TP_COUNT(td, t, retx_bytes, pay);
	}
	VUR_TP_COUNT(td, t, tx_pkts, segs);
	VUR_TP_COUNT(td, t, tx_bytes, pay);
	vur_tp_cc_sent(&t->cc, m->pkt_len, vur_tp_line_mbps(td), now_ns);
	w->next_pkt += segs;
	w->sent_max = RTE_MAX(w->sent_max, w->next_pkt);
	if (!is_rc(t))
		return;
	if (vur_psn_diff(end, t->sent_psn) > 0)
		t->sent_psn = end;
	/* ROCE-DEV-SEND-9: the timer runs while anything sent is unacknowledged */
	if (t->retx_deadline == 0 && t->qp->attr.timeout != 0)
		t->retx_deadline = now_ns + vur_tp_timeout_ns(t->qp->attr.timeout);
	if (t->ack_req_psn != last)
		return;
	t->ack_req_ns = now_ns;
	/* a first transmission that asks for an ACK times the round trip (Karn) */
	if (!again && !t->rtt_timing) {
		t->rtt_timing = true;
		t->rtt_psn = last;
		t->rtt_sent_ns = now_ns;
	}
	/* its answer is due within the probe time; a probe's, within twice that */
	t->probe_deadline =
			probe_after(t) == 0 ? 0 : now_ns + probe_after(t) * (t->probing ? 2 : 1);
}

/*
 * UC and UD WRs complete once sent, local ops (REG_MR, LOCAL_INV) once done
 * and every WR before them complete; any WR with an error completes at the
 * head.
 */
static void
complete_ready(struct vur_tp_dev *td, struct vur_tp_qp *t)
{
	struct vur_swqe *w;

	/* up to the tail: a refused WR may sit at the head before it was ever "sent" */
	while (t->head != t->tail && vur_tp_state_sends(t->qp->attr.state)) {
		w = &t->wqe[t->head % t->nwqe];
		if (w->status != VIRTIO_IB_WC_SUCCESS)
			vur_tp_sq_complete_head(td, t, w->status);
		else if ((!is_rc(t) || vur_tp_local_op(w->opcode)) && w->state == VUR_SWQE_SENT)
			vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_SUCCESS);
		else
			break;
	}
}

struct vur_swqe *
vur_tp_holding(struct vur_tp_qp *t, uint32_t psn)
{
	struct vur_swqe *w;

	for (uint32_t i = t->head; i != t->started; i++) {
		w = &t->wqe[i % t->nwqe];
		if (vur_psn_diff(psn, w->first_psn) >= 0 &&
				vur_psn_diff(psn, vur_psn_add(w->first_psn, w->span)) < 0)
			return w;
	}
	return NULL;
}

/*
 * The tail-loss probe: the first unacknowledged packet once more, alone, on
 * the side: where the QP sends from next does not change, so a probe that
 * a late answer proves needless costs one packet. It asks for an ACK.
 */
static uint16_t
send_probe(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out, uint64_t now_ns)
{
	struct vur_swqe *w = vur_tp_holding(t, t->una);
	uint32_t saved_pkt, saved_req = t->ack_req_psn;
	struct rte_mbuf *m;
	bool in_place;

	if (w == NULL) {
		t->probing = false;
		return 0;
	}
	saved_pkt = w->next_pkt;
	w->next_pkt = w->opcode == VIRTIO_IB_WR_RDMA_READ
			? vur_tp_read_req_done(w)
			: (uint32_t)vur_psn_diff(t->una, w->first_psn);
	in_place = w == &t->wqe[t->send % t->nwqe] && w->next_pkt == saved_pkt;
	m = build_packet(td, t, w, 1, now_ns);
	if (m == NULL) {
		w->next_pkt = saved_pkt;
		return 0; /* out of mbufs: the next pass tries again */
	}
	out[0] = m;
	t->probe_psn = t->una;
	t->probe_psn_valid = true;
	sent(td, t, w, m, 1, now_ns);
	t->probing = false;
	if (!in_place) {
		w->next_pkt = saved_pkt;
		/* the answer due is still the one to the last request of the stream */
		t->ack_req_psn = saved_req;
	}
	return 1;
}

uint16_t
vur_tp_requester(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out, uint16_t max,
		uint64_t now_ns)
{
	struct vur_rdma_qp *qp = t->qp;
	struct vur_swqe *w;
	struct rte_mbuf *m;
	uint32_t segs;
	uint16_t n = 0;

	if (t->flush_pending || qp->attr.state == VIRTIO_IB_QPS_ERR ||
			qp->attr.state == VIRTIO_IB_QPS_SQE) {
		vur_tp_qp_flush(td, t);
		return 0;
	}
	if (!vur_tp_state_sends(qp->attr.state)) /* RESET, INIT, RTR: not processed */
		return 0;
	vur_tp_sq_fetch(td, t);
	complete_ready(td, t);
	if (t->probing && n < max)
		n += send_probe(td, t, out + n, now_ns);
	/* a gap resent alone is out: nothing more until its answer (or the timer) */
	while (n < max && t->send != t->tail && t->rnr_deadline == 0 && !t->probe_out &&
			vur_tp_state_sends(qp->attr.state)) {
		w = &t->wqe[t->send % t->nwqe];
		if (w->status != VIRTIO_IB_WC_SUCCESS) {
			/* completes once the WRs before it have */
			complete_ready(td, t);
			break;
		}
		if (w->state == VUR_SWQE_POSTED) {
			if (qp->attr.state == VIRTIO_IB_QPS_SQD) /* ROCE-DEV-QPS-9 */
				break;
			if (vur_tp_wr_is_rd_atomic(w->opcode) && qp->attr.max_rd_atomic == 0) {
				/* ROCE-DEV-READ-6: a READ or atomic the QP can never let out */
				w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR;
				continue;
			}
			if (!may_start(t, w))
				break;
			if (vur_tp_local_op(w->opcode)) {
				if (!vur_tp_local_op_run(td, t, w))
					break; /* fenced */
				continue;
			}
			if (!vur_tp_sq_sges_ok(td, t, w)) {
				w->status = VIRTIO_IB_WC_LOC_PROT_ERR;
				continue;
			}
			start(td, t, w);
		}
		/* asked again, and answered meanwhile by what was out before */
		if (w->opcode == VIRTIO_IB_WR_RDMA_READ)
			w->next_pkt = RTE_MAX(w->next_pkt, vur_tp_read_req_done(w));
		while (n < max && w->next_pkt < w->npkts) {
			segs = segments(td, t, w, w->next_pkt);
			if (!read_req_allowed(t, w) || !window_allows(td, t, w, segs) ||
					!vur_tp_cc_may_send(&t->cc, now_ns) ||
					!rate_allows(td, t, w, segs, now_ns))
				break;
			m = build_packet(td, t, w, segs, now_ns);
			if (m == NULL)
				break;
			out[n++] = m;
			sent(td, t, w, m, segs, now_ns);
			if (t->gap_resend && !t->probe_out) { /* the gap alone, then its answer */
				t->probe_out = true;
				return n;
			}
		}
		if (w->next_pkt < w->npkts)
			break; /* out of budget, window or mbufs; a failed WR completes above */
		w->state = VUR_SWQE_SENT;
		t->send++;
	}
	complete_ready(td, t);
	return n;
}

void
vur_tp_rewind(struct vur_tp_qp *t, uint32_t psn)
{
	uint32_t i, at = t->head;
	struct vur_swqe *w;

	for (i = t->head; i != t->started; i++) {
		w = &t->wqe[i % t->nwqe];
		if (vur_psn_diff(psn, w->first_psn) >= 0 &&
				vur_psn_diff(psn, vur_psn_add(w->first_psn, w->span)) < 0) {
			at = i;
			break;
		}
	}
	/*
	 * Going back already from an earlier WR (a READ that the same ACK or
	 * NAK asked again): that resends this one too; never forward past it.
	 */
	if ((int32_t)(at - t->send) > 0)
		return;
	/* Not found: everything outstanding goes again. */
	t->send = at;
	t->rtt_timing = false; /* Karn: no sample from what is sent again */
	for (i = at; i != t->started; i++) {
		w = &t->wqe[i % t->nwqe];
		w->state = VUR_SWQE_SENDING;
		w->next_pkt = 0;
		if (w->opcode == VIRTIO_IB_WR_RDMA_READ) {
			/* asked again for what it lacks (build_packet): an answer is due */
			w->next_pkt = vur_tp_read_req_done(w);
			w->rereq = true;
			continue;
		}
		if (vur_tp_wr_is_atomic(w->opcode)) {
			/* sent again: the responder answers a duplicate from its saved result */
			w->rereq = true;
			continue;
		}
		/* ROCE-DEV-RETX-2: from the PSN on, not from the message's start */
		if (i == at && vur_psn_diff(psn, w->first_psn) > 0)
			w->next_pkt = (uint32_t)vur_psn_diff(psn, w->first_psn);
	}
}

static void
probe(struct vur_tp_dev *td, struct vur_tp_qp *t, uint64_t now_ns)
{
	if (t->probe_deadline == 0 || now_ns < t->probe_deadline)
		return;
	t->probe_deadline = 0;
	if (vur_psn_diff(t->sent_psn, t->una) <= 0 || t->head == t->started || t->rnr_deadline != 0)
		return;
	VUR_TP_COUNT(td, t, probes, 1);
	t->probing = true; /* the next pass sends it (send_probe) */
}

void
vur_tp_timers(struct vur_tp_dev *td, struct vur_tp_qp *t, uint64_t now_ns)
{
	struct vur_rdma_qp *qp = t->qp;

	if (t->rnr_deadline != 0 && now_ns >= t->rnr_deadline) {
		t->rnr_deadline = 0;
		vur_tp_rewind(t, t->rnr_psn);
	}
	probe(td, t, now_ns);
	if (t->retx_deadline == 0 || now_ns < t->retx_deadline)
		return;
	if (vur_psn_diff(t->sent_psn, t->una) <= 0 || t->head == t->started ||
			t->rnr_deadline != 0) {
		t->retx_deadline = 0;
		return;
	}
	VUR_TP_COUNT(td, t, timeouts, 1);
	if (t->retry_left == 0) { /* ROCE-DEV-SEND-9 */
		VUR_TP_LOG(td, NOTICE, "QP %u: no ACK of PSN %u after %u retries", qp->obj.index,
				t->una, qp->attr.retry_cnt);
		vur_tp_sq_complete_head(td, t, VIRTIO_IB_WC_RETRY_EXC_ERR);
		return;
	}
	t->retry_left--;
	t->probing = t->probe_out = t->gap_resend = false;
	vur_tp_win_loss(&t->win, t->una, t->sent_psn, true);
	/* ROCE-DEV-RETX-2: from the first PSN not acknowledged */
	vur_tp_rewind(t, t->una);
	t->retx_deadline = now_ns + vur_tp_timeout_ns(qp->attr.timeout);
}
