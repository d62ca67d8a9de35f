/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of RoCE v2 packets: the ICRC against a vector made outside
 * this code (the IBTA A17 masking done by hand over a hand-built packet,
 * CRC-32 by Python's zlib) and against frames Linux rxe sent, build and
 * parse both ways for IPv4 and IPv6,
 * local packets with borrowed payload segments, local packets that hold
 * several and their cutting into wire packets, SEND with Invalidate and its
 * IETH and the atomics' headers against hand-built frames, the opcode
 * table, and a
 * parser that takes truncated and mutated frames without a crash.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "tests/tap.h"
#include "transport/icrc.h"
#include "transport/opcode.h"
#include "transport/pkt.h"
#include "transport/roce_hdr.h"

static struct rte_mempool *pool, *ext_pool;

/* IPv4 | UDP (sport 0xc123) | BTH (SEND_ONLY, QP 0x11, AckReq, PSN 7) | "hello, roce!" */
static const char vector_hex[] = "4500003800004000401126b30a0000010a000002"
				 "c12312b700240000"
				 "0400ffff0000001180000007"
				 "68656c6c6f2c20726f636521";
static const uint32_t vector_icrc = 0x2ddb4a34;

static size_t
unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; s[0] != '\0' && s[1] != '\0'; s += 2) {
		char b[3] = { s[0], s[1], 0 };

		out[n++] = (uint8_t)strtoul(b, NULL, 16);
	}
	return n;
}

static void
icrc_vector(void)
{
	uint8_t p[128];
	size_t n = unhex(vector_hex, p);

	TAP_CHECK(vur_icrc_flat(p, (uint32_t)n, 0) == vector_icrc);
	p[n - 1] ^= 1; /* the payload counts */
	TAP_CHECK(vur_icrc_flat(p, (uint32_t)n, 0) != vector_icrc);
	p[n - 1] ^= 1;
	p[8] = 1; /* TTL is masked: a router may change it */
	TAP_CHECK(vur_icrc_flat(p, (uint32_t)n, 0) == vector_icrc);
}

/*
 * Frames Linux soft-RoCE (rdma_rxe, Debian 12's Linux 6.1) sent from a TCG
 * guest over this device, captured whole on the backend's tap uplink: the
 * first SEND_ONLY of "ibv_rc_pingpong -s 64" (payload 64 x 0x7b, AckReq),
 * over IPv6 with link-local GIDs and over IPv4 with IPv4-mapped GIDs, and a
 * retransmission of the IPv4 one (another IP identification, so another
 * ICRC). Each ends with the ICRC rxe computed, least significant byte first.
 */
static const char *const rxe_frames[] = {
	"02000000099902000000090186dd6000000000581140fe80000000000000000000fffe000901"
	"fe80000000000000000000fffe000902c02212b7005800000400ffff0000000280ea82be"
	"7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b"
	"7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b1e204a18",
	"02000000099902000000090108004500006cfea84000401101d60a0013010a001302c02212b7"
	"005800000400ffff0000000280c1ff18"
	"7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b"
	"7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b1e66ba04",
	"02000000099902000000090108004500006cfeb54000401101c90a0013010a001302c02212b7"
	"005800000400ffff0000000280c1ff18"
	"7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b"
	"7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b2b53ec02",
};

/* ROCE-DEV-WIRE-2 against another implementation: our ICRC is rxe's, and the parser takes its
 * frames. */
static void
linux_rxe_vectors(void)
{
	for (size_t i = 0; i < RTE_DIM(rxe_frames); i++) {
		uint8_t f[256];
		size_t n = unhex(rxe_frames[i], f);
		int ipv6 = f[12] == 0x86;
		uint32_t want = (uint32_t)f[n - 4] | (uint32_t)f[n - 3] << 8 |
				(uint32_t)f[n - 2] << 16 | (uint32_t)f[n - 1] << 24;
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		struct vur_pkt p;

		TAP_CHECK(vur_icrc_flat(f + 14, (uint32_t)(n - 14 - 4), ipv6) == want);
		if (m == NULL) {
			tap_case_failed = 1;
			continue;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f, n);
		TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_OK);
		TAP_CHECK(p.ipv6 == ipv6 && p.h.opcode == 0x04 && p.pay_len == 64);
		TAP_CHECK(p.h.dest_qpn == 2);
		/* one payload bit flipped: refused */
		*rte_pktmbuf_mtod_offset(m, uint8_t *, n - 10) ^= 0x01;
		TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_ERR_ICRC);
		rte_pktmbuf_free(m);
	}
}

/*
 * The atomics as rxe lays them out (rxe_opcode.c, rxe_hdr.h), built by hand
 * over the same IPv4 and UDP headers as the vector above, ICRC by the same
 * masking and Python's zlib: a COMPARE_SWAP (QP 0x11, AckReq, PSN 7, VA
 * 0x1000, R_Key 0x12345678, swap 0x0123456789abcdef, compare
 * 0xfedcba9876543210) and its ATOMIC_ACKNOWLEDGE (ACK, credits invalid,
 * MSN 3, original data 0x0123456789abcdef).
 */
static const char cmp_swap_hex[] = "4500004800004000401126a30a0000010a000002"
				   "c12312b700340000"
				   "1300ffff0000001180000007"
				   "0000000000001000"
				   "12345678"
				   "0123456789abcdef"
				   "fedcba9876543210";
static const uint32_t cmp_swap_icrc = 0x458f3b8f;
static const char atomic_ack_hex[] = "4500003800004000401126b30a0000010a000002"
				     "c12312b700240000"
				     "1200ffff0000001100000007"
				     "1f000003"
				     "0123456789abcdef";
static const uint32_t atomic_ack_icrc = 0x329a3616;

static struct vur_pkt_addr
addr4(void)
{
	struct vur_pkt_addr a = {
		.smac = { { 0x52, 0x54, 0, 0, 0, 1 } },
		.dmac = { { 0x52, 0x54, 0, 0, 0, 2 } },
		.sgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 },
		.dgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
		.hop_limit = 64,
		.sport = 0xc123,
	};

	return a;
}

/* The builder and to_wire make exactly the hand-built packet, ICRC included. */
static void
build_matches_vector(void)
{
	struct vur_pkt_addr a = addr4();
	struct vur_pkt_hdrs h = {
		.opcode = VUR_OP_SEND_ONLY, .dest_qpn = 0x11, .psn = 7, .ack_req = true
	};
	uint8_t want[128];
	size_t n = unhex(vector_hex, want);
	struct rte_mbuf *m = vur_pkt_build(pool, &a, &h, 12), *w;
	uint32_t icrc = rte_cpu_to_le_32(vector_icrc);

	TAP_CHECK(m != NULL && vur_pkt_append_copy(m, "hello, roce!", 12) == 0);
	if (m == NULL)
		return;
	TAP_CHECK(vur_pkt_is_local(m));
	TAP_CHECK(vur_pkt_to_wire(m, pool, &w, 1) == 1 && !vur_pkt_is_local(w));
	if (w != NULL) {
		TAP_CHECK(w->pkt_len == RTE_ETHER_HDR_LEN + n + 4);
		TAP_CHECK(memcmp(rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN), want,
					  n) == 0);
		TAP_CHECK(memcmp(rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN + n),
					  &icrc, 4) == 0);
		rte_pktmbuf_free(w);
	}
	rte_pktmbuf_free(m);
}

/*
 * SEND with Invalidate (IBTA 9.2 table 38, 9.3.7): SEND_ONLY (0x17) and
 * SEND_LAST (0x16, 5 bytes and a 3-byte pad) WITH_INVALIDATE, the 4-byte
 * IETH (R_Key 0x0002a35c, big-endian as Linux rxe writes it) after the BTH,
 * hand-built as rxe would send them (IPv4 10.0.0.1 to 10.0.0.2, QP 0x11,
 * AckReq), the ICRC computed outside this code as for vector_hex.
 */
static const struct {
	uint8_t opcode;
	uint32_t psn;
	const char *payload;
	const char *hex;
	uint32_t icrc;
} ieth_vectors[] = {
	{ VUR_OP_SEND_ONLY_INV, 7, "hello, roce!",
			"4500003c00004000401126af0a0000010a000002c12312b700280000"
			"1700ffff0000001180000007"
			"0002a35c"
			"68656c6c6f2c20726f636521",
			0xa7209334 },
	{ VUR_OP_SEND_LAST_INV, 8, "hello",
			"4500003800004000401126b30a0000010a000002c12312b700240000"
			"1630ffff0000001180000008"
			"0002a35c"
			"68656c6c6f000000",
			0x3d368ad6 },
};

static void
ieth_vectors_match(void)
{
	for (size_t i = 0; i < RTE_DIM(ieth_vectors); i++) {
		struct vur_pkt_addr a = addr4();
		struct vur_pkt_hdrs h = { .opcode = ieth_vectors[i].opcode,
			.dest_qpn = 0x11,
			.psn = ieth_vectors[i].psn,
			.ack_req = true,
			.ieth = 0x0002a35c };
		uint32_t len = (uint32_t)strlen(ieth_vectors[i].payload);
		uint32_t icrc = rte_cpu_to_le_32(ieth_vectors[i].icrc);
		struct rte_mbuf *m = vur_pkt_build(pool, &a, &h, len), *w = NULL;
		uint8_t want[128];
		size_t n = unhex(ieth_vectors[i].hex, want);
		struct vur_pkt p;

		TAP_CHECK(vur_icrc_flat(want, (uint32_t)n, 0) == ieth_vectors[i].icrc);
		TAP_CHECK(m != NULL && vur_pkt_append_copy(m, ieth_vectors[i].payload, len) == 0);
		if (m == NULL)
			continue;
		TAP_CHECK(vur_pkt_to_wire(m, pool, &w, 1) == 1);
		rte_pktmbuf_free(m);
		if (w == NULL)
			continue;
		TAP_CHECK(w->pkt_len == RTE_ETHER_HDR_LEN + n + 4);
		TAP_CHECK(memcmp(rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN), want,
					  n) == 0);
		TAP_CHECK(memcmp(rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN + n),
					  &icrc, 4) == 0);
		/* the frame as rxe would send it: parsed, the IETH read, the ICRC checked */
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_OK);
		TAP_CHECK(p.h.opcode == ieth_vectors[i].opcode && (p.mask & VUR_OPM_IETH) &&
				(p.mask & VUR_OPM_SEND) && (p.mask & VUR_OPM_LAST));
		TAP_CHECK(p.h.ieth == 0x0002a35c && p.pay_len == len && p.h.ack_req);
		TAP_CHECK(p.pay_off == RTE_ETHER_HDR_LEN + 20 + 8 + VUR_BTH_LEN + VUR_IETH_LEN);
		*rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN + 20 + 8 + 12 + 3) ^= 1;
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_ERR_ICRC); /* the IETH is covered */
		rte_pktmbuf_free(w);
	}
}

/* A local SEND_ONLY_WITH_INVALIDATE holding 3 packets: cut, the IETH on the last only. */
static void
ieth_segments(void)
{
	static uint8_t payload[600];
	struct vur_pkt_addr a = addr4();
	struct vur_pkt_hdrs h = { .opcode = VUR_OP_SEND_ONLY_INV,
		.dest_qpn = 0x11,
		.psn = 0xfffffe,
		.ack_req = true,
		.ieth = 0xabcdef01 };
	static const uint8_t ops[3] = { VUR_OP_SEND_FIRST, VUR_OP_SEND_MIDDLE,
		VUR_OP_SEND_LAST_INV };
	struct rte_mbuf *m = vur_pkt_build(pool, &a, &h, sizeof(payload)), *w[4];
	struct vur_pkt p;

	TAP_CHECK(m != NULL && vur_pkt_append_copy(m, payload, sizeof(payload)) == 0);
	if (m == NULL)
		return;
	vur_pkt_set_seg_size(m, 256);
	TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_OK && p.npkts == 3 && p.h.ieth == 0xabcdef01);
	TAP_CHECK(vur_pkt_skip(&p, 2) && p.h.opcode == VUR_OP_SEND_LAST_INV && p.pay_len == 88);
	TAP_CHECK(vur_pkt_to_wire(m, pool, w, 4) == 3);
	for (int i = 0; i < 3; i++) {
		TAP_CHECK(vur_pkt_parse(w[i], &p) == VUR_PKT_OK && p.h.opcode == ops[i]);
		TAP_CHECK(!!(p.mask & VUR_OPM_IETH) == (i == 2));
		TAP_CHECK(i < 2 || (p.h.ieth == 0xabcdef01 && p.pay_len == 88 && p.h.ack_req));
		rte_pktmbuf_free(w[i]);
	}
	rte_pktmbuf_free(m);
}

/* Built by us, @h gives the bytes of @hex and ICRC @icrc; parsed back, the same @h. */
static void
atomic_vector(const struct vur_pkt_hdrs *h, const char *hex, uint32_t icrc)
{
	struct vur_pkt_addr a = addr4();
	uint8_t want[128];
	size_t n = unhex(hex, want);
	uint32_t le = rte_cpu_to_le_32(icrc);
	struct rte_mbuf *m = vur_pkt_build(pool, &a, h, 0), *w = NULL;
	struct vur_pkt p;

	TAP_CHECK(m != NULL);
	if (m == NULL)
		return;
	TAP_CHECK(vur_icrc_flat(want, (uint32_t)n, 0) == icrc);
	TAP_CHECK(vur_pkt_to_wire(m, pool, &w, 1) == 1);
	if (w != NULL) {
		TAP_CHECK(w->pkt_len == RTE_ETHER_HDR_LEN + n + 4);
		TAP_CHECK(memcmp(rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN), want,
					  n) == 0);
		TAP_CHECK(memcmp(rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN + n), &le,
					  4) == 0);
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_OK);
		TAP_CHECK(p.h.opcode == h->opcode && p.h.psn == h->psn && p.pay_len == 0);
		TAP_CHECK(p.h.ack_req == h->ack_req && p.h.dest_qpn == h->dest_qpn);
		TAP_CHECK(p.h.va == h->va && p.h.rkey == h->rkey);
		TAP_CHECK(p.h.swap_add == h->swap_add && p.h.compare == h->compare);
		TAP_CHECK(p.h.syndrome == h->syndrome && p.h.msn == h->msn && p.h.orig == h->orig);
		rte_pktmbuf_free(w);
	}
	rte_pktmbuf_free(m);
}

static void
atomic_vectors(void)
{
	struct vur_pkt_hdrs req = {
		.opcode = VUR_TRANSPORT_RC | VUR_OP_CMP_SWAP,
		.dest_qpn = 0x11,
		.psn = 7,
		.ack_req = true,
		.va = 0x1000,
		.rkey = 0x12345678,
		.swap_add = 0x0123456789abcdefULL,
		.compare = 0xfedcba9876543210ULL,
	};
	struct vur_pkt_hdrs ack = {
		.opcode = VUR_TRANSPORT_RC | VUR_OP_ATOMIC_ACK,
		.dest_qpn = 0x11,
		.psn = 7,
		.syndrome = VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID,
		.msn = 3,
		.orig = 0x0123456789abcdefULL,
	};

	atomic_vector(&req, cmp_swap_hex, cmp_swap_icrc);
	atomic_vector(&ack, atomic_ack_hex, atomic_ack_icrc);
}

static void
parse_round_trip(bool ipv6, uint8_t opcode, uint32_t pay_len, bool wire)
{
	static uint8_t payload[4096];
	struct vur_pkt_addr a = addr4();
	struct vur_pkt_hdrs h = { .opcode = opcode,
		.dest_qpn = 0xabcdef,
		.psn = 0xfffffe,
		.se = true,
		.qkey = 0x80010000,
		.src_qp = 0x123456,
		.va = 0x1122334455667788ULL,
		.rkey = 0xdeadbeef,
		.dma_len = 65536,
		.syndrome = 0x1f,
		.msn = 77,
		.imm = RTE_BE32(0xcafef00d),
		.swap_add = 0x8000000000000001ULL,
		.compare = 0x0102030405060708ULL,
		.orig = 0xfffffffffffffffeULL };
	struct rte_mbuf *m, *w;
	struct vur_pkt p;
	uint8_t back[4096];

	for (uint32_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	if (ipv6) {
		static const uint8_t s6[16] = { 0xfd, 0, [15] = 1 }, d6[16] = { 0xfd, 0, [15] = 2 };

		a.ipv6 = true;
		memcpy(a.sgid, s6, 16);
		memcpy(a.dgid, d6, 16);
		a.flow_label = 0xabcde;
		a.traffic_class = 0x68;
	}
	m = vur_pkt_build(pool, &a, &h, pay_len);
	TAP_CHECK(m != NULL);
	if (m == NULL)
		return;
	/* payload by reference in two pieces, as from two s/g elements */
	TAP_CHECK(vur_pkt_append_ref(m, ext_pool, payload, pay_len / 2) == 0);
	TAP_CHECK(vur_pkt_append_ref(m, ext_pool, payload + pay_len / 2, pay_len - pay_len / 2) ==
			0);
	w = m;
	if (wire && vur_pkt_to_wire(m, pool, &w, 1) != 1)
		w = NULL;
	TAP_CHECK(w != NULL);
	if (w == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_OK);
	TAP_CHECK(p.h.opcode == opcode && p.h.dest_qpn == 0xabcdef && p.h.psn == 0xfffffe);
	TAP_CHECK(p.ipv6 == ipv6 && p.pay_len == pay_len);
	TAP_CHECK(memcmp(p.dgid, a.dgid, 16) == 0 && memcmp(p.sgid, a.sgid, 16) == 0);
	if (p.mask & VUR_OPM_RETH)
		TAP_CHECK(p.h.va == h.va && p.h.rkey == h.rkey && p.h.dma_len == h.dma_len);
	if (p.mask & VUR_OPM_DETH)
		TAP_CHECK(p.h.qkey == h.qkey && p.h.src_qp == h.src_qp);
	if (p.mask & VUR_OPM_ATOMIC)
		TAP_CHECK(p.h.va == h.va && p.h.rkey == h.rkey && p.h.swap_add == h.swap_add &&
				p.h.compare == h.compare);
	if (p.mask & VUR_OPM_ATOMIC_ACK)
		TAP_CHECK(p.h.orig == h.orig);
	if (p.mask & VUR_OPM_AETH)
		TAP_CHECK(p.h.syndrome == h.syndrome && p.h.msn == h.msn);
	if (p.mask & VUR_OPM_IMM)
		TAP_CHECK(p.h.imm == h.imm);
	TAP_CHECK(vur_pkt_copy_payload(&p, 0, back, pay_len) == pay_len);
	TAP_CHECK(memcmp(back, payload, pay_len) == 0);
	TAP_CHECK(vur_pkt_copy_payload(&p, pay_len / 3, back, 5) ==
			RTE_MIN(5u, pay_len - pay_len / 3));
	if (wire && pay_len > 0) {
		/* one payload bit flipped in flight: ROCE-DEV-WIRE-2 */
		*rte_pktmbuf_mtod_offset(w, uint8_t *, p.pay_off) ^= 0x10;
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_ERR_ICRC);
	}
	if (w != m)
		rte_pktmbuf_free(w);
	rte_pktmbuf_free(m);
}

static void
round_trips(void)
{
	static const uint8_t ops[] = { VUR_OP_SEND_ONLY, VUR_OP_SEND_ONLY_IMM, VUR_OP_WRITE_FIRST,
		VUR_OP_WRITE_ONLY_IMM, VUR_OP_READ_RESP_FIRST, VUR_OP_READ_RESP_MIDDLE,
		VUR_OP_SEND_LAST_IMM };
	static const uint32_t lens[] = { 1, 3, 256, 1021, 4096 };

	for (int v6 = 0; v6 < 2; v6++)
		for (size_t o = 0; o < RTE_DIM(ops); o++)
			for (size_t l = 0; l < RTE_DIM(lens); l++)
				for (int wire = 0; wire < 2; wire++)
					parse_round_trip(v6, ops[o], lens[l], wire);
	parse_round_trip(false, VUR_TRANSPORT_UD | VUR_OP_SEND_ONLY_IMM, 100, true);
	parse_round_trip(true, VUR_TRANSPORT_UC | VUR_OP_WRITE_ONLY, 0, true);
	parse_round_trip(false, VUR_OP_ACK, 0, true);
	parse_round_trip(false, VUR_OP_READ_REQ, 0, false);
	for (int v6 = 0; v6 < 2; v6++)
		for (int wire = 0; wire < 2; wire++) {
			parse_round_trip(v6, VUR_OP_CMP_SWAP, 0, wire);
			parse_round_trip(v6, VUR_OP_FETCH_ADD, 0, wire);
			parse_round_trip(v6, VUR_OP_ATOMIC_ACK, 0, wire);
		}
}

/* A packet's bytes, flat; its length. */
static uint32_t
flat(const struct rte_mbuf *m, uint8_t *buf, uint32_t room)
{
	const void *p;

	if (m->pkt_len > room)
		return 0;
	p = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
	if (p != buf)
		memcpy(buf, p, m->pkt_len);
	return m->pkt_len;
}

/* Wire packet @i of those @op (@len bytes in @seg-byte packets from PSN 0xfffffe) stands for. */
static struct rte_mbuf *
one_of(const struct vur_pkt_addr *a, struct vur_pkt_hdrs h, const uint8_t *payload, uint32_t len,
		uint32_t seg, uint32_t i, uint32_t n)
{
	const uint32_t mask = vur_opcode_info(h.opcode)->mask;
	bool last = (mask & VUR_OPM_LAST) && i + 1 == n;
	uint32_t plen = RTE_MIN(seg, len - i * seg);
	struct rte_mbuf *m, *w = NULL;

	h.opcode = vur_op_segment(h.opcode, (mask & VUR_OPM_FIRST) && i == 0, last);
	h.psn = vur_psn_add(h.psn, i);
	h.se = h.se && last;
	h.ack_req = h.ack_req && i + 1 == n;
	m = vur_pkt_build(pool, a, &h, plen);
	if (m != NULL && vur_pkt_append_copy(m, payload + i * seg, plen) == 0)
		vur_pkt_to_wire(m, pool, &w, 1);
	rte_pktmbuf_free(m);
	return w;
}

/*
 * ROCE-DEV-WIRE-7: a local packet that holds several, cut by to_wire (into
 * chained 2 KiB mbufs), gives byte for byte the packets built one by one:
 * opcodes, PSNs across the wrap, RETH first, ImmDt/SE last, pad, ICRC.
 */
static void
segments_cut_as_built(void)
{
	static const struct {
		uint8_t op;
		uint32_t len, seg;
		bool ipv6;
	} cases[] = {
		{ VUR_OP_SEND_ONLY_IMM, 3 * 1024 + 501, 1024, false },
		{ VUR_OP_WRITE_ONLY, 4 * 1024, 1024, true },
		{ VUR_OP_WRITE_FIRST, 2 * 1024, 1024, false },
		{ VUR_TRANSPORT_UC | VUR_OP_SEND_LAST, 1024 + 3, 1024, true },
		{ VUR_OP_READ_RESP_ONLY, 2 * 4096 + 1, 4096, false },
		{ VUR_OP_READ_RESP_MIDDLE, 3 * 256, 256, true },
	};
	static uint8_t payload[3 * 4096], got[5000], want[5000];
	struct rte_mempool *small = rte_pktmbuf_pool_create(
			"s", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rte_mbuf *w[VUR_PKT_MAX_SEGS], *m, *one;
	struct vur_pkt p;
	uint32_t n, glen, wlen;

	TAP_CHECK(small != NULL);
	for (uint32_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13 + 1);
	for (size_t c = 0; small != NULL && c < RTE_DIM(cases); c++) {
		struct vur_pkt_addr a = addr4();
		struct vur_pkt_hdrs h = { .opcode = cases[c].op,
			.dest_qpn = 0x123,
			.psn = 0xfffffe,
			.se = true,
			.ack_req = true,
			.va = 0x1000,
			.rkey = 0x77,
			.dma_len = cases[c].len,
			.syndrome = 0x1f,
			.msn = 5,
			.imm = RTE_BE32(0x12345678) };

		if (cases[c].ipv6) {
			a.ipv6 = true;
			a.sgid[0] = a.dgid[0] = 0xfd;
			a.flow_label = 0x12345;
		}
		m = vur_pkt_build(pool, &a, &h, cases[c].len);
		TAP_CHECK(m != NULL);
		if (m == NULL)
			continue;
		TAP_CHECK(vur_pkt_append_ref(m, ext_pool, payload, 700) == 0);
		TAP_CHECK(vur_pkt_append_ref(m, ext_pool, payload + 700, cases[c].len - 700) == 0);
		vur_pkt_set_seg_size(m, cases[c].seg);
		TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_OK);
		n = (cases[c].len + cases[c].seg - 1) / cases[c].seg;
		TAP_CHECK(p.npkts == n && p.seg_size == cases[c].seg);
		TAP_CHECK(vur_pkt_to_wire(m, small, w, (uint16_t)(n - 1)) == 0); /* no room */
		TAP_CHECK(vur_pkt_to_wire(m, small, w, RTE_DIM(w)) == n);
		for (uint32_t i = 0; i < n && i < RTE_DIM(w); i++) {
			one = one_of(&a, h, payload, cases[c].len, cases[c].seg, i, n);
			TAP_CHECK(one != NULL && !vur_pkt_is_local(w[i]));
			glen = flat(w[i], got, sizeof(got));
			wlen = one != NULL ? flat(one, want, sizeof(want)) : 0;
			TAP_CHECK(glen != 0 && glen == wlen && memcmp(got, want, glen) == 0);
			TAP_CHECK(vur_pkt_parse(w[i], &p) == VUR_PKT_OK && p.npkts == 1);
			rte_pktmbuf_free(one);
			rte_pktmbuf_free(w[i]);
		}
		rte_pktmbuf_free(m);
	}
	TAP_CHECK(small == NULL || rte_mempool_full(small));
	rte_mempool_free(small);
}

/* What a local packet that holds several may be, and skipping what a receiver took. */
static void
segments_parse_and_skip(void)
{
	static uint8_t payload[8192];
	struct vur_pkt_addr a = addr4();
	struct vur_pkt_hdrs h = {
		.opcode = VUR_OP_WRITE_ONLY_IMM, .psn = 0xffffff, .dma_len = 2600
	};
	struct rte_mbuf *m = vur_pkt_build(pool, &a, &h, 2600);
	struct vur_pkt p;

	TAP_CHECK(m != NULL && vur_pkt_append_ref(m, ext_pool, payload, 2600) == 0);
	if (m == NULL)
		return;
	vur_pkt_set_seg_size(m, 1024);
	TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_OK && p.npkts == 3);
	TAP_CHECK(!vur_pkt_skip(&p, 3) && vur_pkt_skip(&p, 0) && p.npkts == 3);
	TAP_CHECK(vur_pkt_skip(&p, 2));
	TAP_CHECK(p.h.opcode == VUR_OP_WRITE_LAST_IMM && !(p.mask & VUR_OPM_RETH));
	TAP_CHECK(p.h.psn == 1 && p.npkts == 1 && p.pay_len == 2600 - 2048);
	vur_pkt_set_seg_size(m, 1000); /* a last packet may end short: 1000 + 1000 + 600 */
	TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_OK && p.npkts == 3);
	rte_pktmbuf_free(m);

	h.opcode = VUR_OP_SEND_FIRST; /* not a last packet: whole packets only */
	m = vur_pkt_build(pool, &a, &h, 2600);
	TAP_CHECK(m != NULL && vur_pkt_append_ref(m, ext_pool, payload, 2600) == 0);
	vur_pkt_set_seg_size(m, 1024);
	TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_ERR_SHORT);
	rte_pktmbuf_free(m);

	h.opcode = VUR_TRANSPORT_UD | VUR_OP_SEND_ONLY; /* UD messages are one packet */
	m = vur_pkt_build(pool, &a, &h, 2048);
	TAP_CHECK(m != NULL && vur_pkt_append_ref(m, ext_pool, payload, 2048) == 0);
	vur_pkt_set_seg_size(m, 1024);
	TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_ERR_OPCODE);
	rte_pktmbuf_free(m);

	h.opcode = VUR_OP_SEND_ONLY; /* more than VUR_PKT_MAX_SEGS */
	m = vur_pkt_build(pool, &a, &h, 65 * 64);
	TAP_CHECK(m != NULL && vur_pkt_append_ref(m, ext_pool, payload, 65 * 64) == 0);
	vur_pkt_set_seg_size(m, 64);
	TAP_CHECK(vur_pkt_parse(m, &p) == VUR_PKT_ERR_SHORT);
	rte_pktmbuf_free(m);

	/* within the IPv4 total length whatever the path MTU */
	for (uint32_t pmtu = 256; pmtu <= 4096; pmtu *= 2)
		TAP_CHECK(vur_pkt_max_segs(pmtu) * pmtu + 120 <= UINT16_MAX &&
				vur_pkt_max_segs(pmtu) <= VUR_PKT_MAX_SEGS);
	TAP_CHECK(vur_pkt_max_segs(1024) == 63 && vur_pkt_max_segs(256) == VUR_PKT_MAX_SEGS);
	TAP_CHECK(vur_op_segment(VUR_OP_ACK, true, true) == 0xff);
	TAP_CHECK(vur_op_segment(VUR_TRANSPORT_UC | VUR_OP_SEND_ONLY_IMM, false, false) ==
			(VUR_TRANSPORT_UC | VUR_OP_SEND_MIDDLE));
}

static void
opcode_table(void)
{
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UD | VUR_OP_SEND_ONLY) != NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UD | VUR_OP_SEND_FIRST) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UD | VUR_OP_WRITE_ONLY) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UC | VUR_OP_READ_REQ) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UC | VUR_OP_ACK) == NULL);
	TAP_CHECK(vur_opcode_info(0x40 | VUR_OP_SEND_ONLY) == NULL); /* RD */
	/* atomics: RC only, one packet each */
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UC | VUR_OP_CMP_SWAP) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UD | VUR_OP_FETCH_ADD) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UC | VUR_OP_ATOMIC_ACK) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_OP_CMP_SWAP)->mask ==
			(VUR_OPM_ATOMIC | VUR_OPM_REQ | VUR_OPM_FIRST | VUR_OPM_LAST | VUR_OPM_RC));
	TAP_CHECK(vur_opcode_info(VUR_OP_FETCH_ADD)->mask ==
			vur_opcode_info(VUR_OP_CMP_SWAP)->mask);
	TAP_CHECK(vur_opcode_ext_len(vur_opcode_info(VUR_OP_FETCH_ADD)->mask) == 28);
	TAP_CHECK(vur_opcode_ext_len(vur_opcode_info(VUR_OP_ATOMIC_ACK)->mask) == VUR_AETH_LEN + 8);
	TAP_CHECK(vur_op_segment(VUR_OP_CMP_SWAP, true, true) == 0xff);
	TAP_CHECK(vur_opcode_info(0x15) == NULL); /* reserved on RC */
	TAP_CHECK(vur_opcode_info(VUR_OPCODE_CNP)->mask == (VUR_OPM_CNP | VUR_OPM_PAYLOAD));
	TAP_CHECK(vur_opcode_info(0x80) == NULL && vur_opcode_info(0x82) == NULL);
	TAP_CHECK(vur_opcode_ext_len(vur_opcode_info(VUR_OP_WRITE_ONLY_IMM)->mask) ==
			VUR_RETH_LEN + VUR_IMM_LEN);
	TAP_CHECK(vur_opcode_ext_len(vur_opcode_info(VUR_OP_READ_RESP_FIRST)->mask) ==
			VUR_AETH_LEN);
	/* SEND with Invalidate: RC only, an IETH, its segments */
	TAP_CHECK(vur_opcode_ext_len(vur_opcode_info(VUR_OP_SEND_ONLY_INV)->mask) == VUR_IETH_LEN);
	TAP_CHECK(vur_opcode_ext_len(vur_opcode_info(VUR_OP_SEND_LAST_INV)->mask) == VUR_IETH_LEN);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UC | VUR_OP_SEND_ONLY_INV) == NULL);
	TAP_CHECK(vur_opcode_info(VUR_TRANSPORT_UD | VUR_OP_SEND_ONLY_INV) == NULL);
	TAP_CHECK(vur_opcode_info(0x15) == NULL); /* reserved between them and the atomics */
	TAP_CHECK(vur_op_segment(VUR_OP_SEND_ONLY_INV, true, true) == VUR_OP_SEND_ONLY_INV);
	TAP_CHECK(vur_op_segment(VUR_OP_SEND_ONLY_INV, false, true) == VUR_OP_SEND_LAST_INV);
	TAP_CHECK(vur_op_segment(VUR_OP_SEND_ONLY_INV, true, false) == VUR_OP_SEND_FIRST);
	TAP_CHECK(vur_op_segment(VUR_OP_SEND_LAST_INV, false, false) == VUR_OP_SEND_MIDDLE);
}

/* A valid wire packet of @pay_len into @buf; returns its length. */
static uint32_t
wire_frame(uint8_t *buf, uint8_t opcode, uint32_t pay_len)
{
	struct vur_pkt_addr a = addr4();
	struct vur_pkt_hdrs h = { .opcode = opcode, .dest_qpn = 5, .psn = 1 };
	static uint8_t payload[256];
	struct rte_mbuf *m, *w;
	uint32_t len;

	if (!(vur_opcode_info(opcode)->mask & VUR_OPM_PAYLOAD))
		pay_len = 0;
	m = vur_pkt_build(pool, &a, &h, pay_len);

	vur_pkt_append_copy(m, payload, pay_len);
	if (vur_pkt_to_wire(m, pool, &w, 1) != 1)
		return 0;
	len = w->pkt_len;
	memcpy(buf, rte_pktmbuf_mtod(w, uint8_t *), len);
	rte_pktmbuf_free(w);
	rte_pktmbuf_free(m);
	return len;
}

/*
 * ROCE-DEV-ECN-1, -2: RC/UC packets go ECT(0) over IPv4 and IPv6, the
 * traffic class's DSCP kept; a switch's CE mark leaves the ICRC valid (the
 * ICRC masks the traffic class) and the parse reports it; a CNP (16
 * reserved bytes) builds and parses.
 */
static void
ecn_and_cnp(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct vur_pkt_addr a = addr4();
		struct vur_pkt_hdrs h = { .opcode = VUR_OP_SEND_ONLY, .dest_qpn = 5, .psn = 1 };
		static const uint8_t rsvd[VUR_CNP_RSVD_LEN];
		struct rte_mbuf *m, *w;
		struct vur_pkt p;
		uint8_t *ip;

		a.ipv6 = v6;
		a.ect = true;
		a.traffic_class = 0xb8 | VUR_ECN_CE; /* DSCP 46; the ECN bits are the engine's */
		m = vur_pkt_build(pool, &a, &h, 4);
		TAP_CHECK(m != NULL && vur_pkt_append_copy(m, "abcd", 4) == 0);
		TAP_CHECK(vur_pkt_to_wire(m, pool, &w, 1) == 1);
		rte_pktmbuf_free(m);
		ip = rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN);
		if (v6) /* traffic class: the low nibble of byte 0, the high one of byte 1 */
			TAP_CHECK(((ip[0] & 0xf) << 4 | ip[1] >> 4) == (0xb8 | VUR_ECN_ECT0));
		else
			TAP_CHECK(ip[1] == (0xb8 | VUR_ECN_ECT0));
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_OK);
		TAP_CHECK(!p.ce);
		/* a switch marks it CE (IPv4: its header checksum follows) */
		if (v6) {
			ip[1] |= VUR_ECN_CE << 4;
		} else {
			ip[1] |= VUR_ECN_CE;
			((struct rte_ipv4_hdr *)ip)->hdr_checksum = 0;
			((struct rte_ipv4_hdr *)ip)->hdr_checksum =
					rte_ipv4_cksum((struct rte_ipv4_hdr *)ip);
		}
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_OK);
		TAP_CHECK(p.ce && p.pay_len == 4);
		rte_pktmbuf_free(w);

		h = (struct vur_pkt_hdrs){ .opcode = VUR_OPCODE_CNP, .dest_qpn = 7 };
		m = vur_pkt_build(pool, &a, &h, VUR_CNP_RSVD_LEN);
		TAP_CHECK(m != NULL && vur_pkt_append_copy(m, rsvd, sizeof(rsvd)) == 0);
		TAP_CHECK(vur_pkt_to_wire(m, pool, &w, 1) == 1);
		rte_pktmbuf_free(m);
		TAP_CHECK(vur_pkt_parse(w, &p) == VUR_PKT_OK);
		TAP_CHECK((p.mask & VUR_OPM_CNP) && p.h.dest_qpn == 7 &&
				p.pay_len == VUR_CNP_RSVD_LEN);
		rte_pktmbuf_free(w);
	}
}

static enum vur_pkt_err
parse_bytes(const uint8_t *b, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct vur_pkt p;
	enum vur_pkt_err e;

	memcpy(rte_pktmbuf_append(m, (uint16_t)len), b, len);
	e = vur_pkt_parse(m, &p);
	if (e == VUR_PKT_OK) /* whatever it says must lie within the frame */
		e = p.pay_off + p.pay_len <= len ? VUR_PKT_OK : VUR_PKT_ERR_COUNT;
	rte_pktmbuf_free(m);
	return e;
}

static void
rejects(void)
{
	uint8_t b[512], c[512];
	uint32_t len = wire_frame(b, VUR_OP_WRITE_ONLY, 64);

	TAP_CHECK(parse_bytes(b, len) == VUR_PKT_OK);
	for (uint32_t l = 0; l < len; l++) /* every truncation */
		TAP_CHECK(parse_bytes(b, l) != VUR_PKT_OK);
	memcpy(c, b, len);
	c[14 + 20 + 2] ^= 1; /* UDP destination port */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_L3);
	memcpy(c, b, len);
	c[14] = 0x46; /* IPv4 options */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_L3);
	memcpy(c, b, len);
	c[14 + 6] |= 0x20; /* more fragments */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_L3);
	memcpy(c, b, len);
	c[14 + 28] = VUR_TRANSPORT_UC | VUR_OP_CMP_SWAP; /* an atomic on UC */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_OPCODE);
	memcpy(c, b, len);
	c[14 + 28] = VUR_OP_FETCH_ADD; /* an atomic has no payload: these bytes are too many */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_SHORT);
	len = wire_frame(c, VUR_OP_CMP_SWAP, 0);
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_OK);
	for (uint32_t l = 0; l < len; l++) /* every truncation of an AtomicETH */
		TAP_CHECK(parse_bytes(c, l) != VUR_PKT_OK);
	len = wire_frame(c, VUR_OP_ATOMIC_ACK, 0);
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_OK);
	for (uint32_t l = 0; l < len; l++) /* and of an AtomicAckETH */
		TAP_CHECK(parse_bytes(c, l) != VUR_PKT_OK);
	len = wire_frame(b, VUR_OP_WRITE_ONLY, 64);
	memcpy(c, b, len);
	c[14 + 28 + 2] = 0x00; /* P_Key 0x00ff */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_BTH);
	memcpy(c, b, len);
	c[14 + 28 + 1] |= 0x01; /* transport version 1 */
	TAP_CHECK(parse_bytes(c, len) == VUR_PKT_ERR_BTH);
	memcpy(c, b, len);
	c[14 + 28 + 1] |=
			0x30; /* a pad count the length cannot hold: still consistent or refused */
	TAP_CHECK(parse_bytes(c, len) != VUR_PKT_ERR_COUNT);
	b[len] = 0; /* Ethernet padding after the ICRC is fine */
	TAP_CHECK(parse_bytes(b, len + 1) == VUR_PKT_OK);
}

/* Mutated frames: the parser may refuse anything, and must never read past the frame. */
static void
fuzz(void)
{
	static const uint8_t ops[] = { VUR_OP_SEND_ONLY, VUR_OP_WRITE_FIRST, VUR_OP_READ_REQ,
		VUR_OP_ACK, VUR_OP_READ_RESP_LAST, VUR_TRANSPORT_UD | VUR_OP_SEND_ONLY_IMM,
		VUR_OP_CMP_SWAP, VUR_OP_ATOMIC_ACK };
	uint8_t b[512], c[512];
	uint32_t len, l, bad = 0;

	srand(7);
	for (int i = 0; i < 20000; i++) {
		len = wire_frame(b, ops[i % RTE_DIM(ops)], (uint32_t)(i % 200));
		memcpy(c, b, len);
		for (int k = 0; k < 1 + i % 4; k++)
			c[(uint32_t)rand() % len] ^= (uint8_t)(1 + rand() % 255);
		l = (uint32_t)rand() % 4 == 0 ? (uint32_t)rand() % (len + 1) : len;
		bad += parse_bytes(c, l) == VUR_PKT_ERR_COUNT;
	}
	TAP_CHECK(bad == 0);
}

int
main(void)
{
	char *args[] = { "pkt_test", "--no-huge", "-m", "64", "--no-pci",
		"--file-prefix=vur_pkt_test", "--no-telemetry", NULL };

	if (rte_eal_init((int)RTE_DIM(args) - 1, args) < 0 || vur_pkt_init() < 0) {
		printf("Bail out! EAL\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("t", 1023, 0, 0, 8192 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	ext_pool = rte_pktmbuf_pool_create("x", 1023, 0, 0, 0, SOCKET_ID_ANY);
	if (pool == NULL || ext_pool == NULL) {
		printf("Bail out! pools\n");
		return 1;
	}
	TAP_RUN(icrc_vector);
	TAP_RUN(linux_rxe_vectors);
	TAP_RUN(build_matches_vector);
	TAP_RUN(ieth_vectors_match);
	TAP_RUN(ieth_segments);
	TAP_RUN(atomic_vectors);
	TAP_RUN(round_trips);
	TAP_RUN(opcode_table);
	TAP_RUN(ecn_and_cnp);
	TAP_RUN(segments_cut_as_built);
	TAP_RUN(segments_parse_and_skip);
	TAP_RUN(rejects);
	TAP_RUN(fuzz);
	rte_mempool_free(pool);
	rte_mempool_free(ext_pool);
	rte_eal_cleanup();
	return tap_done();
}
