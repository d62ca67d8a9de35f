/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA engine against a peer that sends anything: frames into the
 * packet parser and on to the responder and completer of live QPs (an RC
 * pair, a UC QP, a UD QP over a DMA MR), send and receive WRs into their
 * rings, and the data path's passes, whose packets go back in with the
 * responder's replies (the RC QPs are each other's peer). A record makes SRQs and the QPs on them,
 * a CQ on rings (fuzz_srq.c); others arm the CQs (REQ_NOTIFY_CQ, or the record on rings), the SRQ
 * limit, offer CQ and event buffers, destroy SRQs and QPs.
 *
 * An input is a list of records, each a kind byte and its bytes:
 *   kind % 4 == 0  a frame: u8 fix, le16 length, the frame. Unless a bit of
 *                  fix says to keep them raw, the harness makes the frame
 *                  reach the transport: IP and UDP lengths, BTH version and
 *                  P_Key, destination QP (one of the QPs, by the raw value
 *                  modulo their number), PSN (near the one the QP expects,
 *                  by the raw low byte), R_Key and VA (the MR's), ICRC.
 *                  FIX_LOCAL makes it a packet of this backend (no pad, no
 *                  ICRC; FIX_SEGS: several of them in one), FIX_CHAIN puts
 *                  it in two mbufs.
 *   kind % 4 == 1  a send WR: u8 QP, le16 length, the WR's bytes into the send
 *                  ring; unless bit 7 of QP says raw, the s/g elements' and
 *                  the remote keys are the MR's and their addresses inside it
 *   kind % 4 == 2  a receive WR: the same into the receive ring
 *   kind % 4 == 3  a pass of the data path: u8 clock step (2^(step % 32) ns)
 * Kinds from 0xf0 on (no seed before them used one), by (kind & 0xf) % 6:
 *   0  make the SRQs (vur_fuzz_dev_srqs), once: QPs 4 to 6, which the
 *      frames' QP numbers and the WRs' QP bytes then reach too; a receive
 *      WR for a QP on an SRQ goes to its SRQ
 *   1  a driver's write: u8 what, le32 value; by what % 6: REQ_NOTIFY_CQ of
 *      the CQ, of the CQ on rings (refused); the CQ on rings' record: notify,
 *      cons; the SRQ on rings' record: limit, prod. Unless bit 7 of what says
 *      raw, the value is made one a driver writes (one condition, cons up to
 *      3 behind prod, a limit up to the ring's size, prod up to 3 ahead)
 *   2  CQE buffers: u8 n, le16 length: n % 16 more buffers to the CQ's
 *      virtqueue, read-only with bit 7 of n
 *   3  destroy: u8 which % 4: the SRQ on a virtqueue, the SRQ on rings, the
 *      QPs on the first, the QP on the second
 *   4  event buffers: u8 n: n % 9 buffers of (n >> 4) + 1 bytes to event queue 0
 *   5  a pass on a lossy wire: u8 clock step, u8 loss, u8 order: packet i of
 *      the pass is lost when bit i % 8 of loss is set; with bit 0 of order
 *      the others come back in the reverse order (the completer's gaps,
 *      held READ responses, retries)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz/fuzz_dev.h"
#include "fuzz/fuzz_input.h"
#include "rdma/rdma_ops.h"
#include "transport/icrc.h"
#include "transport/pkt.h"
#include "transport/roce_hdr.h"
#include "transport/transport.h"

#define FIX_LOCAL    0x01
#define FIX_SEGS     0x02
#define RAW_LENGTHS  0x04
#define RAW_ICRC     0x08
#define RAW_QPN      0x10
#define RAW_PSN      0x20
#define RAW_KEY      0x40
#define FIX_CHAIN    0x80
#define WR_RAW_KEYS  0x80
#define KIND_MORE    0xf0
#define WRITE_RAW    0x80
#define MAX_FRAME    4096
#define MAX_RECORDS  64
#define PASS_PACKETS 32

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vur_fuzz_dev dev;

/*
 * The responder's replies (ACKs, NAKs, atomic ACKs: vur_tp_send_reply) go
 * to the outbox of the data-path thread that runs the engine
 * (net_datapath.c), and without one they are dropped: the completer would
 * see only the ACKs an input forges. This target is linked with
 * --wrap=vur_switch_outbox_add (meson.build): the replies wait here for the
 * next pass, which delivers them with its packets.
 */
int __wrap_vur_switch_outbox_add(struct vur_switch *sw, int slot, struct rte_mbuf *m);

static struct rte_mbuf *replies[PASS_PACKETS];
static uint16_t n_replies;

int
__wrap_vur_switch_outbox_add(struct vur_switch *sw, int slot, struct rte_mbuf *m)
{
	RTE_SET_USED(sw);
	RTE_SET_USED(slot);
	if (n_replies == PASS_PACKETS)
		return -ENOSPC; /* as a full outbox: RC recovers it */
	replies[n_replies++] = m;
	return 0;
}

/* The fields that make frame @f of @len bytes reach the transport, as @fix leaves them. */
static void
fix_frame(uint8_t *f, uint32_t len, uint8_t fix)
{
	const struct vur_opcode_info *oi;
	uint32_t l3 = RTE_ETHER_HDR_LEN, l4, bth, ext, roce;
	struct vur_tp_qp *t;
	bool ipv6;

	if (len < RTE_ETHER_HDR_LEN + 2)
		return;
	ipv6 = f[12] == 0x86 && f[13] == 0xdd;
	if (!ipv6 && !(f[12] == 0x08 && f[13] == 0x00))
		return;
	l4 = l3 + (ipv6 ? 40 : 20);
	bth = l4 + 8;
	if (len < bth + VUR_BTH_LEN)
		return;
	oi = vur_opcode_info(f[bth]);
	if (!(fix & RAW_LENGTHS)) {
		/* a local packet's lengths count the pad and ICRC it leaves out */
		roce = len - bth + ((fix & FIX_LOCAL) ? VUR_BTH_PAD(f[bth + 1]) + VUR_ICRC_LEN : 0);
		if (ipv6) {
			f[l3] = (uint8_t)(0x60 | (f[l3] & 0x0f));
			f[l3 + 6] = IPPROTO_UDP;
			put_be16(f + l3 + 4, 8 + roce);
		} else {
			f[l3] = 0x45;
			f[l3 + 6] &= 0x40; /* DF only: neither MF nor a fragment offset */
			f[l3 + 7] = 0;
			f[l3 + 9] = IPPROTO_UDP;
			put_be16(f + l3 + 2, 20 + 8 + roce);
		}
		put_be16(f + l4 + 2, VUR_ROCE_UDP_PORT);
		put_be16(f + l4 + 4, 8 + roce);
		f[bth + 1] &= 0xf0; /* transport version 0 */
		f[bth + 2] |= 0x7f;
		f[bth + 3] = 0xff;
	}
	if (!(fix & RAW_QPN) && f[bth + 7] != 0xff && /* 0xffffff: multicast, kept */
			dev.qp[f[bth + 7] % dev.n_qps] != NULL)
		put_be32(f + bth + 4, dev.qp[f[bth + 7] % dev.n_qps]->obj.index);
	t = vur_tp_qp_get(&dev.td, ((uint32_t)f[bth + 5] << 16) | f[bth + 6] << 8 | f[bth + 7]);
	if (!(fix & RAW_PSN) && t != NULL && oi != NULL) {
		uint32_t base = (oi->mask & (VUR_OPM_RRESP | VUR_OPM_ACK)) ? t->una : t->epsn;

		put_be32(f + bth + 8,
				(f[bth + 8] & 0x80u) << 24 |
						vur_psn_add(base, (uint32_t)(int8_t)f[bth + 11]));
	}
	if (!(fix & RAW_KEY) && oi != NULL && (oi->mask & (VUR_OPM_RETH | VUR_OPM_ATOMIC))) {
		ext = bth + VUR_BTH_LEN + ((f[bth] >> 5) == 3 ? VUR_DETH_LEN : 0);
		if (len >= ext + 12) {
			/* inside the data half of memory, the raw low bits kept */
			uint64_t va = VUR_FUZZ_DATA_GPA +
					(f[ext + 6] << 8 | f[ext + 7]) % VUR_FUZZ_DATA_SZ;

			put_be32(f + ext, (uint32_t)(va >> 32));
			put_be32(f + ext + 4, (uint32_t)va);
			put_be32(f + ext + 8, dev.mr->rkey);
		}
	}
	if (!(fix & (RAW_ICRC | FIX_LOCAL)) && len >= l3 + VUR_ICRC_LEN) {
		uint32_t crc = vur_icrc_flat(f + l3, len - l3 - VUR_ICRC_LEN, ipv6);

		f[len - 4] = (uint8_t)crc;
		f[len - 3] = (uint8_t)(crc >> 8);
		f[len - 2] = (uint8_t)(crc >> 16);
		f[len - 1] = (uint8_t)(crc >> 24);
	}
}

/* Frame @f in an mbuf (two with FIX_CHAIN), local with FIX_LOCAL; NULL when it cannot be. */
static struct rte_mbuf *
to_mbuf(const uint8_t *f, uint32_t len, uint8_t fix)
{
	struct rte_mempool *pool = vur_fuzz_hdr_pool();
	uint32_t first = (fix & FIX_CHAIN) ? len / 2 : len;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *m2;

	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)first) == NULL)
		goto free_m;
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), f, first);
	if (first < len) {
		m2 = rte_pktmbuf_alloc(pool);
		if (m2 == NULL || rte_pktmbuf_append(m2, (uint16_t)(len - first)) == NULL) {
			rte_pktmbuf_free(m2);
			goto free_m;
		}
		memcpy(rte_pktmbuf_mtod(m2, uint8_t *), f + first, len - first);
		if (rte_pktmbuf_chain(m, m2) != 0) {
			rte_pktmbuf_free(m2);
			goto free_m;
		}
	}
	if (fix & FIX_LOCAL) {
		/* as the engine marks the packets it builds (pkt.c) */
		static const struct rte_mbuf_dynflag desc = { .name = "vur_roce_local" };

		m->ol_flags |= 1ULL << rte_mbuf_dynflag_lookup(desc.name, NULL);
		if (fix & FIX_SEGS)
			m->tso_segsz = 256;
	}
	return m;
free_m:
	rte_pktmbuf_free(m);
	return NULL;
}

static void
frame(struct input *in)
{
	static uint8_t f[MAX_FRAME];
	struct rte_mbuf *m;
	uint8_t fix, l[2];
	uint32_t len;

	if (!take(in, &fix, 1) || !take(in, l, 2))
		return;
	len = RTE_MIN((uint32_t)(l[0] | l[1] << 8) % (MAX_FRAME + 1), (uint32_t)in->left);
	take(in, f, len);
	fix_frame(f, len, fix);
	m = to_mbuf(f, len, fix);
	if (m != NULL)
		vur_tp_rx(&dev.td, &m, 1, dev.now_ns);
}

/* Driver address @a folded into the data half of memory. */
static uint64_t
fold(uint64_t a)
{
	return VUR_FUZZ_DATA_GPA + a % VUR_FUZZ_DATA_SZ;
}

/* The s/g list of @n elements at @sge (inside @wr's @len bytes) over the MR. */
static void
fix_sges(uint8_t *wr, uint32_t len, uint32_t off)
{
	struct virtio_rdma_sge sge;

	for (; off + sizeof(sge) <= len; off += sizeof(sge)) {
		memcpy(&sge, wr + off, sizeof(sge));
		sge.addr = rte_cpu_to_le_64(fold(rte_le_to_cpu_64(sge.addr)));
		sge.length = rte_cpu_to_le_32(rte_le_to_cpu_32(sge.length) % 4096);
		sge.lkey = rte_cpu_to_le_32(dev.mr->lkey);
		memcpy(wr + off, &sge, sizeof(sge));
	}
}

static void
work_request(struct input *in, bool send)
{
	static uint8_t wr[VUR_FUZZ_WR_SZ];
	struct virtio_rdma_sq_req *sq = (struct virtio_rdma_sq_req *)wr;
	uint8_t q, l[2];
	uint32_t len;

	if (!take(in, &q, 1) || !take(in, l, 2))
		return;
	len = RTE_MIN((uint32_t)(l[0] | l[1] << 8) % (VUR_FUZZ_WR_SZ + 1), (uint32_t)in->left);
	memset(wr, 0, sizeof(wr));
	take(in, wr, len);
	if (!(q & WR_RAW_KEYS)) {
		/* keys the driver has: the MR's; addresses inside it */
		if (!send) {
			fix_sges(wr, len, offsetof(struct virtio_rdma_rq_req, sg_list));
		} else if (len >= sizeof(*sq)) {
			sq->rdma.remote_addr = rte_cpu_to_le_64(
					fold(rte_le_to_cpu_64(sq->rdma.remote_addr)));
			sq->rdma.rkey = rte_cpu_to_le_32(dev.mr->rkey);
			fix_sges(wr, len, sizeof(*sq));
		}
	}
	q %= dev.n_qps;
	if (dev.qp[q] == NULL)
		return;
	if (send) {
		if (dev.sq[q].desc != 0) /* the UD QP on an SRQ has none */
			vur_fuzz_ring_offer(&dev.sq[q], wr, len, false);
	} else if (q < VUR_FUZZ_NQPS) {
		vur_fuzz_ring_offer(&dev.rq[q], wr, len, false);
	} else if (q == VUR_FUZZ_RC_RINGS) {
		if (dev.srq_rings != NULL)
			vur_fuzz_srq_rings_post(wr, len);
	} else if (dev.srq != NULL) {
		vur_fuzz_ring_offer(&dev.srq_ring, wr, len, false);
	}
}

/* One condition of REQ_NOTIFY_CQ, or @v itself with @raw. */
static uint32_t
condition(uint32_t v, bool raw)
{
	if (raw)
		return v;
	return (v & 1) ? VIRTIO_IB_NOTIFY_NEXT_COMPLETION : VIRTIO_IB_NOTIFY_SOLICITED;
}

/* A driver's write: arming, consuming, posting (the format's kind 0xf1). */
static void
driver_write(struct input *in)
{
	uint8_t what, l[4];
	uint32_t v;
	bool raw;

	if (!take(in, &what, 1) || !take(in, l, 4))
		return;
	v = (uint32_t)l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 | (uint32_t)l[3] << 24;
	raw = what & WRITE_RAW;
	switch (what % 6) {
	case 0:
		vur_rdma_req_notify_cq(&dev.rd, dev.cq->obj.index, condition(v, raw));
		return;
	case 1:
		if (dev.cq_rings != NULL) /* ROCE-DEV-RING-16: refused */
			vur_rdma_req_notify_cq(&dev.rd, dev.cq_rings->obj.index, condition(v, raw));
		return;
	}
	if (dev.srq_rings == NULL) /* the records exist with the SRQs */
		return;
	switch (what % 6) {
	case 2:
		vur_fuzz_rec_set(VUR_FUZZ_CQ_NOTIFY, condition(v, raw));
		break;
	case 3:
		vur_fuzz_rec_set(VUR_FUZZ_CQ_CONS,
				raw ? v : vur_fuzz_rec_get(VUR_FUZZ_CQ_PROD) - v % 4);
		break;
	case 4:
		vur_fuzz_rec_set(VUR_FUZZ_SRQ_LIMIT, raw ? v : v % 17);
		break;
	default:
		vur_fuzz_rec_set(VUR_FUZZ_SRQ_PROD,
				raw ? v : vur_fuzz_rec_get(VUR_FUZZ_SRQ_PROD) + v % 4);
		break;
	}
}

static void
cqe_buffers(struct input *in)
{
	uint8_t n, l[2];

	if (!take(in, &n, 1) || !take(in, l, 2))
		return;
	for (uint8_t i = 0; i < n % 16; i++)
		vur_fuzz_ring_offer(&dev.cq_ring, NULL,
				(uint32_t)(l[0] | l[1] << 8) % (VUR_FUZZ_WR_SZ + 1), !(n & 0x80));
}

/* A QP goes: frames and WRs no longer reach it. */
static void
destroy_qp(enum vur_fuzz_qp q)
{
	if (dev.qp[q] != NULL && vur_rdma_destroy_qp(&dev.rd, dev.qp[q]->obj.index) == 0)
		dev.qp[q] = NULL;
}

static void
destroy(struct input *in)
{
	uint8_t which;

	if (!take(in, &which, 1) || dev.n_qps != VUR_FUZZ_NALL)
		return;
	switch (which % 4) {
	case 0: /* ROCE-DEV-SRQ-7: busy while its QPs live; SRQ-8: its WRs back */
		if (dev.srq != NULL && vur_rdma_destroy_srq(&dev.rd, dev.srq->obj.index) == 0)
			dev.srq = NULL;
		break;
	case 1:
		if (dev.srq_rings != NULL &&
				vur_rdma_destroy_srq(&dev.rd, dev.srq_rings->obj.index) == 0)
			dev.srq_rings = NULL;
		break;
	case 2:
		destroy_qp(VUR_FUZZ_RC_SRQ);
		destroy_qp(VUR_FUZZ_UD_SRQ);
		break;
	default:
		destroy_qp(VUR_FUZZ_RC_RINGS);
		break;
	}
}

static void
event_buffers(struct input *in)
{
	uint8_t n;

	if (!take(in, &n, 1) || dev.td.n_rq == 0)
		return;
	for (uint8_t i = 0; i < n % 9; i++)
		vur_fuzz_eq_offer(&dev, (n >> 4) + 1u);
}

/*
 * A pass of the data path; what it sends comes back in, as between two
 * devices, but for the packets @loss drops (bit i % 8 for packet i), in the
 * reverse order with @reverse.
 */
static void
pass_over(uint8_t step, uint8_t loss, bool reverse)
{
	struct rte_mbuf *out[2 * PASS_PACKETS], *m;
	uint64_t deadline;
	uint16_t n, kept = 0;

	dev.now_ns += 1ULL << (step % 32);
	n = vur_tp_poll(&dev.td, 0, out, PASS_PACKETS, dev.now_ns, false, &deadline);
	/* the replies since the last pass, after its packets (those of this one wait) */
	memcpy(out + n, replies, n_replies * sizeof(out[0]));
	n += n_replies;
	n_replies = 0;
	for (uint16_t i = 0; i < n; i++) {
		if (loss & (1u << (i % 8)))
			rte_pktmbuf_free(out[i]);
		else
			out[kept++] = out[i];
	}
	for (uint16_t i = 0; reverse && i < kept / 2; i++) {
		m = out[i];
		out[i] = out[kept - 1 - i];
		out[kept - 1 - i] = m;
	}
	if (kept > 0)
		vur_tp_rx(&dev.td, out, kept, dev.now_ns);
}

static void
pass(struct input *in)
{
	uint8_t step;

	if (take(in, &step, 1))
		pass_over(step, 0, false);
}

static void
lossy_pass(struct input *in)
{
	uint8_t b[3];

	if (take(in, b, sizeof(b)))
		pass_over(b[0], b[1], b[2] & 1);
}

/*
 * A record of kind 0xf0 or above; false ends the input: the SRQs' QPs could
 * not be made (their CQ overran before: ROCE-DEV-QP-4).
 */
static bool
more(struct input *in, uint8_t kind)
{
	switch ((kind & 0xf) % 6) {
	case 0:
		if (dev.n_qps == VUR_FUZZ_NQPS && vur_fuzz_dev_srqs(&dev) != 0)
			return false;
		break;
	case 1:
		driver_write(in);
		break;
	case 2:
		cqe_buffers(in);
		break;
	case 3:
		destroy(in);
		break;
	case 4:
		event_buffers(in);
		break;
	default:
		lossy_pass(in);
		break;
	}
	return true;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (vur_fuzz_global_init() != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t kind;

	if (vur_fuzz_dev_init_rings(&dev) != 0 || vur_fuzz_dev_qps(&dev) != 0)
		abort();
	for (int r = 0; r < MAX_RECORDS && take(&in, &kind, 1); r++) {
		if (kind >= KIND_MORE) {
			if (!more(&in, kind))
				break;
			continue;
		}
		switch (kind % 4) {
		case 0:
			frame(&in);
			break;
		case 1:
		case 2:
			work_request(&in, kind % 4 == 1);
			break;
		default:
			pass(&in);
			break;
		}
	}
	rte_pktmbuf_free_bulk(replies, n_replies); /* never delivered */
	n_replies = 0;
	vur_fuzz_dev_fini(&dev);
	return 0;
}
