/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder and completer of live QPs fed malformed RoCE v2 packets,
 * as a hostile guest on the same backend can: device A sends raw Ethernet
 * frames, addressed to device B's MAC and GID, whose RoCE part is made
 * from a seeded random generator: every opcode, atomics included (and some
 * that do not exist) towards B's RC, UC and UD QPs or QPs that do not exist, headers
 * that disagree with the opcode, PSNs anywhere, lengths that disagree with
 * the headers, R_Keys and addresses in and around B's MR (its own key, the
 * keys of a type 1 and a type 2 window bound over it, or anything; IETHs
 * naming its MRs, its windows or anything), frames to a multicast group
 * B's UD QP is attached to (QPN 0xffffff or not), truncations and
 * flipped bytes, each with a valid ICRC (computed here, independently of
 * the backend) so that it gets past the checksum to the transport.
 *
 * What must hold (the backend runs under ASan/UBSan): the backend does not
 * crash and still answers; nothing lands in B's memory outside the MR the
 * packets may name; the malformed ones are counted; and afterwards a fresh
 * QP pair between A and B works.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "rdma_pair.h"
#include "tap.h"
#include "telemetry.h"
#include "vur_net.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define WAIT_MS  10000
#define BUF_LEN  (1u << 20)
#define MEM_SIZE (8u << 20)
#define FRAMES   20000
#define SEED     0x5eed1234u

/* B's user MR: [MR_OFF, MR_OFF + MR_LEN) of b.buf; the pages either side are the guard. */
#define MR_OFF  4096u
#define MR_LEN  8192u
#define MR_IOVA 0x7000000ull
#define FILL    0xc3

static const char *backend_bin;
static const char *const *eal_args; /* more EAL arguments for the backend, or NULL */
static struct child backend;
static struct rdma_ep a, b;
static struct vur_user_mr umr;
static struct vur_user_mr fmr; /* B's fast-registration MR (free): what an IETH may name */
static uint32_t mw_keys[2];    /* B's windows over its MR: type 1, type 2 (bound to b_rc) */
static uint32_t b_rc, b_uc, b_ud, a_rc, a_uc; /* the QPs packets aim at, and their peers */
/* the group B's UD QP is attached to: ::ffff:239.1.2.3, MAC 01:00:5e:01:02:03 */
static const uint8_t group[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
static const uint8_t group_mac[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
static uint32_t rng = SEED;

static uint32_t
rnd(void)
{
	/* xorshift32: the same frames on every run */
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint32_t
pick(uint32_t n)
{
	return rnd() % n;
}

/* CRC-32 (IEEE, reflected), bit by bit: an oracle written apart from the backend's ISA-L. */
static uint32_t
crc32_update(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* The RoCE v2 ICRC of the IPv4 packet at @ip (@len bytes up to the ICRC), IBTA A17.4. */
static uint32_t
icrc(const uint8_t *ip, size_t len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[20 + 8 + 12];
	uint32_t crc;

	memcpy(h, ip, sizeof(h));
	h[1] = 0xff;                  /* TOS */
	h[8] = 0xff;                  /* TTL */
	h[10] = h[11] = 0xff;         /* header checksum */
	h[20 + 6] = h[20 + 7] = 0xff; /* UDP checksum */
	h[20 + 8 + 4] = 0xff;         /* BTH FECN, BECN, reserved */
	crc = crc32_update(0, ones, sizeof(ones));
	crc = crc32_update(crc, h, sizeof(h));
	return crc32_update(crc, ip + sizeof(h), len - sizeof(h));
}

static uint16_t
ip_checksum(const uint8_t *p)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* Extension headers an opcode carries: RETH, AETH, DETH, ImmDt, IETH, AtomicETH, AtomicAckETH. */
enum { RETH = 1, AETH = 2, DETH = 4, IMM = 8, IETH = 16, ATOMIC = 32, ATOMIC_ACK = 64 };

static unsigned int
ext_of(uint8_t op)
{
	uint8_t t = op & 0xe0, o = op & 0x1f;
	unsigned int e = t == 0x60 ? DETH : 0;

	if (o == 0x03 || o == 0x05 || o == 0x09 || o == 0x0b)
		e |= IMM;
	if (o == 0x06 || o == 0x0a || o == 0x0b || o == 0x0c)
		e |= RETH;
	if (o == 0x0d || o == 0x0f || o == 0x10 || o == 0x11 || o == 0x12)
		e |= AETH;
	if (o == 0x16 || o == 0x17) /* SEND LAST/ONLY with Invalidate */
		e |= IETH;
	if (o == 0x12)
		e |= ATOMIC_ACK;
	if (o == 0x13 || o == 0x14)
		e |= ATOMIC;
	return e;
}

/*
 * The IPv4 frame @f of @len bytes up to its ICRC gets its IP and UDP
 * lengths, IP checksum and ICRC (least significant byte first, xored with
 * @icrc_xor; a random one when the headers are cut): its length with it.
 */
static size_t
seal_frame(uint8_t *f, size_t len, uint32_t icrc_xor)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t c;

	put32(ip, 0x45000000 | (uint32_t)(len - 14 + 4));
	ip[6] = 0x40;
	put32(udp + 4, (uint32_t)(len - 14 - 20 + 4) << 16);
	put32(ip + 8, 64u << 24 | 17u << 16);
	ip[10] = (uint8_t)(ip_checksum(ip) >> 8);
	ip[11] = (uint8_t)ip_checksum(ip);
	c = len - 14 >= 20 + 8 + 12 ? icrc(ip, len - 14) ^ icrc_xor : rnd();
	f[len] = (uint8_t)c;
	f[len + 1] = (uint8_t)(c >> 8);
	f[len + 2] = (uint8_t)(c >> 16);
	f[len + 3] = (uint8_t)(c >> 24);
	return len + 4;
}

/* One random frame from A to B into @f: its length. */
static size_t
make_frame(uint8_t *f)
{
	static const uint8_t ops[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
		0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x1f,
		0x20, 0x24, 0x26, 0x2a, 0x2b, 0x36, 0x37, 0x64, 0x65, 0x66, 0x80, 0xff };
	uint32_t qps[] = { b_rc, b_uc, b_ud, 0, 1, pick(1u << 24), 0xffffff };
	uint8_t *ip = f + 14, *udp = ip + 20, *bth = udp + 8, *p = bth + 12;
	uint8_t op = pick(8) ? ops[pick(sizeof(ops))] : (uint8_t)rnd();
	unsigned int ext = pick(5) ? ext_of(op) : pick(128);
	uint32_t dqp = qps[pick(7)], psn, pay = pick(4) ? pick(1100) : pick(1400);
	bool mcast = !pick(8); /* to the group, mostly to its QPN */
	size_t len, cut;

	/* the PSN B expects of A's QP, give or take, or anything */
	psn = dqp == b_rc ? 0x100 + a_rc : 0x100 + a_uc;
	psn = pick(3) ? psn + pick(7) - 3 : rnd();
	if (mcast && pick(4))
		dqp = 0xffffff;
	memcpy(f, mcast ? group_mac : b.mac, 6);
	memcpy(f + 6, a.mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &a.gid[12], 4);
	memcpy(ip + 16, mcast ? &group[12] : &b.gid[12], 4);
	put32(udp, (uint32_t)(0xc000 + pick(0x3fff)) << 16 | 4791);
	bth[0] = op;
	bth[1] = (uint8_t)(pick(4) << 4 | (pick(10) ? 0 : pick(16)) | (pick(2) << 7));
	bth[2] = bth[3] = 0xff;
	if (!pick(20))
		bth[3] = (uint8_t)rnd(); /* a P_Key that is not ours */
	put32(bth + 4, dqp & 0xffffff);
	put32(bth + 8, (psn & 0xffffff) | (pick(2) << 31));
	if (ext & DETH) {
		put32(p, pick(4) ? 0x11111111 : rnd());
		put32(p + 4, pick(2) ? a_rc : rnd() & 0xffffff);
		p += 8;
	}
	if (ext & RETH) {
		/* in, across the edges of, or outside B's MR; its R_Key, or another */
		uint64_t va = MR_IOVA + pick(MR_LEN + 8192) - 4096;

		put64(p, pick(8) ? va : ((uint64_t)rnd() << 32 | rnd()));
		put32(p + 8, pick(6) ? (pick(3) ? umr.rkey : mw_keys[pick(2)]) : rnd());
		put32(p + 12, pick(4) ? pay : (pick(2) ? pick(MR_LEN * 2) : rnd()));
		p += 16;
	}
	if (ext & ATOMIC) {
		/* mostly aligned, in, across the edges of, or outside B's MR */
		uint64_t va = MR_IOVA + pick(MR_LEN + 8192) - 4096;

		put64(p, pick(8) ? (pick(4) ? va & ~7ull : va) : ((uint64_t)rnd() << 32 | rnd()));
		put32(p + 8, pick(6) ? umr.rkey : rnd());
		put64(p + 12, (uint64_t)rnd() << 32 | rnd());
		put64(p + 20, pick(2) ? (uint64_t)FILL * 0x0101010101010101ull : rnd());
		p += 28;
		if (pick(4))
			pay = 0; /* mostly as long as an atomic is */
	}
	if (ext & AETH) {
		put32(p, rnd());
		p += 4;
	}
	if (ext & ATOMIC_ACK) {
		put64(p, (uint64_t)rnd() << 32 | rnd());
		p += 8;
		if (pick(4))
			pay = 0;
	}
	if (ext & IMM) {
		put32(p, rnd());
		p += 4;
	}
	if (ext & IETH) {
		/* B's fast MR (free: invalidated again), its user MR (refused), or anything */
		uint32_t keys[5] = { fmr.rkey, umr.rkey, mw_keys[0], mw_keys[1], rnd() };

		put32(p, keys[pick(5)]);
		p += 4;
	}
	for (uint32_t i = 0; i < pay; i++)
		p[i] = (uint8_t)rnd();
	p += pay;
	len = (size_t)(p - f);
	/* a flipped byte anywhere from the BTH on */
	if (!pick(5))
		bth[pick((uint32_t)(p - bth))] ^= (uint8_t)(1 + pick(255));
	/* truncated: the IP and UDP lengths follow, the headers may be cut */
	if (!pick(10) && len > 14 + 20 + 8) {
		cut = 14 + 20 + 8 + pick((uint32_t)(len - 14 - 20 - 8));
		len = cut;
	}
	if (len > 1514 - 4)
		len = 1514 - 4;
	/* the ICRC; now and then a wrong one */
	return seal_frame(f, len, pick(50) ? 0 : 1);
}

static uint64_t
counter(struct rdma_ep *e, const char *name)
{
	char cmd[200], json[16384];
	uint64_t v = 0;

	snprintf(cmd, sizeof(cmd), "/vur/device,%s", e->path);
	if (telemetry_query(backend.prefix, cmd, json, sizeof(json)) < 0 ||
			telemetry_field(json, name, &v) < 0)
		return UINT64_MAX;
	return v;
}

/* @qpn of B back to RTS if a packet took it to ERR, as a driver recovers a QP. */
static void
revive(uint32_t qpn, uint8_t type, uint32_t peer)
{
	struct vur_user_qp_attr at = { .qp_state = VUR_USER_QPS_RESET };

	if (vur_user_query_qp(b.d, qpn, 0, &at) < 0 || at.qp_state == VUR_USER_QPS_RTS)
		return;
	at.qp_state = VUR_USER_QPS_RESET;
	if (vur_user_modify_qp(b.d, qpn, &at, VUR_USER_QP_STATE) == 0)
		rdma_connect_qp(&b, qpn, type, &a, peer, 7, 14, 7);
}

/*
 * B's CQ drained, its QPs alive, a few receives into its MR on each (no
 * more than its CQ holds when they are all flushed at once), so that the
 * packets keep reaching live QPs.
 */
static void
feed_b(void)
{
	const uint32_t qps[] = { b_rc, b_uc, b_ud };
	struct vur_user_sge s = { MR_IOVA, MR_LEN, umr.lkey };
	struct vur_user_recv_wr wr[8];
	struct vur_user_wc wc[16];

	for (int i = 0; i < 8; i++)
		wr[i] = (struct vur_user_recv_wr){ .wr_id = 1, .sg_list = &s, .num_sge = 1 };
	while (vur_user_poll_cq(b.d, b.cqn, wc, 16) > 0)
		;
	while (vur_user_poll_cq(a.d, a.cqn, wc, 16) > 0)
		;
	revive(b_rc, VUR_USER_QPT_RC, a_rc);
	revive(b_uc, VUR_USER_QPT_UC, a_uc);
	revive(b_ud, VUR_USER_QPT_UD, 0);
	/* max_recv_wr is 8: the post tops the queue up, -ENOMEM for the rest */
	for (int i = 0; i < 3; i++)
		vur_user_post_recv(b.d, qps[i], wr, 8, NULL);
}

/* A QP of B whose receives, all flushed at once, fit B's CQ (3 x 8 < 48). */
static int
create_b_qp(uint8_t type, uint32_t *qpn)
{
	struct vur_user_qp_init_attr ia = {
		.pdn = b.pdn,
		.qp_type = type,
		.send_cqn = b.cqn,
		.recv_cqn = b.cqn,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return vur_user_create_qp(b.d, &ia, qpn);
}

/* A type 1 window over the middle of B's MR, a type 2 one over all of it on b_rc. */
static void
bind_windows(void)
{
	struct vur_user_send_wr q = {
		.opcode = VUR_USER_WR_BIND_MW,
		.send_flags = VUR_USER_SEND_SIGNALED,
	};
	struct vur_user_wc wc;
	struct vur_user_mw w;
	int got = 0;

	for (int i = 0; i < 2; i++) {
		TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_1 + i, &w), 0);
		mw_keys[i] = (w.rkey & ~0xffu) | (uint8_t)(0x41 + i);
		q.wr_id = 0x1000 + i;
		q.bind.addr = MR_IOVA + (i == 0 ? 1024 : 0);
		q.bind.length = MR_LEN - (i == 0 ? 2048 : 0);
		q.bind.mr_lkey = umr.lkey;
		q.bind.rkey = mw_keys[i];
		q.bind.access = VUR_USER_ACCESS_REMOTE_READ | VUR_USER_ACCESS_REMOTE_WRITE;
		TAP_EQ(vur_user_post_send(b.d, b_rc, &q, 1, NULL), 0);
	}
	for (int n = 0; n < 1000 && got < 2; n++) {
		if (vur_user_poll_cq(b.d, b.cqn, &wc, 1) == 1) {
			TAP_EQ(wc.status, VUR_USER_WC_SUCCESS);
			TAP_EQ(wc.opcode, VUR_USER_WC_BIND_MW);
			got++;
		} else {
			poll(NULL, 0, 1);
		}
	}
	TAP_EQ(got, 2);
}

static void
set_up(void)
{
	const struct child_opts o = { .eal_args = eal_args, .n_sockets = 2 };
	char path[128];
	int ret = child_start(&backend, backend_bin, &o);

	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	child_sock(&backend, 0, path, sizeof(path));
	TAP_EQ(rdma_ep_open(&a, path, 1, BUF_LEN, MEM_SIZE), 0);
	child_sock(&backend, 1, path, sizeof(path));
	TAP_EQ(rdma_ep_open(&b, path, 2, BUF_LEN, MEM_SIZE), 0);
	if (a.d == NULL || b.d == NULL)
		return;
	memset(b.buf, FILL, MR_OFF + MR_LEN + 4096);
	TAP_EQ(vur_user_reg_mr(b.d, b.pdn,
			       VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
					       VUR_USER_ACCESS_REMOTE_READ |
					       VUR_USER_ACCESS_REMOTE_ATOMIC |
					       VUR_USER_ACCESS_MW_BIND,
			       b.buf + MR_OFF, MR_LEN, MR_IOVA, &umr),
			0);
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 4, &fmr), 0);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &a_rc), 0);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_UC, &a_uc), 0);
	TAP_EQ(create_b_qp(VUR_USER_QPT_RC, &b_rc), 0);
	TAP_EQ(create_b_qp(VUR_USER_QPT_UC, &b_uc), 0);
	TAP_EQ(create_b_qp(VUR_USER_QPT_UD, &b_ud), 0);
	TAP_EQ(rdma_connect_qp(&b, b_rc, VUR_USER_QPT_RC, &a, a_rc, 7, 14, 7), 0);
	{
		/* B's RC QP takes atomics too, into the same MR */
		const struct vur_user_qp_attr at = {
			.qp_state = VUR_USER_QPS_RTS,
			.qp_access_flags = VUR_USER_ACCESS_LOCAL_WRITE |
					VUR_USER_ACCESS_REMOTE_WRITE | VUR_USER_ACCESS_REMOTE_READ |
					VUR_USER_ACCESS_REMOTE_ATOMIC,
		};

		TAP_EQ(vur_user_modify_qp(b.d, b_rc, &at,
				       VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS),
				0);
	}
	TAP_EQ(rdma_connect_qp(&b, b_uc, VUR_USER_QPT_UC, &a, a_uc, 0, 0, 0), 0);
	TAP_EQ(rdma_connect_qp(&b, b_ud, VUR_USER_QPT_UD, &a, 0, 0, 0, 0), 0);
	TAP_EQ(vur_user_attach_mcast(b.d, b_ud, group), 0);
	bind_windows();
	/* A's QPs stay in RESET: B's answers to them are dropped, as a real peer's would be */
	feed_b();
}

/*
 * A well-formed SEND_ONLY from A's RC QP (RC) or a UD DETH (UD, Q_Key
 * 0x11111111) to QP @dqp at the IPv4 address @dip and MAC @dmac, with 16
 * bytes of payload: its length.
 */
static size_t
send_frame(uint8_t *f, bool ud, uint32_t dqp, const uint8_t *dip, const uint8_t *dmac)
{
	uint8_t *ip = f + 14, *udp = ip + 20, *bth = udp + 8, *p = bth + 12;

	memcpy(f, dmac, 6);
	memcpy(f + 6, a.mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[9] = 17;
	memcpy(ip + 12, &a.gid[12], 4);
	memcpy(ip + 16, dip, 4);
	put32(udp, 0xc000u << 16 | 4791);
	bth[0] = ud ? 0x64 : 0x04; /* UD / RC SEND_ONLY */
	bth[1] = 0;
	bth[2] = bth[3] = 0xff;
	put32(bth + 4, dqp);
	put32(bth + 8, ud ? 0 : 0x100 + a_rc);
	if (ud) {
		put32(p, 0x11111111);
		put32(p + 4, a_rc);
		p += 8;
	}
	memset(p, 0x5a, 16);
	p += 16;
	return seal_frame(f, (size_t)(p - f), 0);
}

/* Send the @len bytes of @frame from A. */
static void
send_raw(uint8_t *frame, size_t len)
{
	TAP_CHECK(vur_user_net_send(a.d, frame, len) >= 0);
}

/*
 * ROCE-DEV-MCAST-9, deterministically: of four packets to QP 0xffffff only
 * the UD SEND to the group B's UD QP joined is delivered; an RC SEND to the
 * group, a UD SEND to B's unicast address and one to a group nobody joined
 * are dropped, and no QP sees them.
 */
static void
mcast_qpn_takes_only_ud_sends_to_groups(void)
{
	static const uint8_t other[4] = { 239, 9, 9, 9 };
	static const uint8_t other_mac[6] = { 0x01, 0x00, 0x5e, 0x09, 0x09, 0x09 };
	uint64_t mc0, nq0;
	struct vur_user_wc wc[16];
	uint8_t frame[256];
	int got = 0, n;

	if (a.d == NULL || b.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	feed_b();
	mc0 = counter(&b, "rdma_mcast_rx");
	nq0 = counter(&b, "rdma_rx_drop_no_qp");
	send_raw(frame, send_frame(frame, false, 0xffffff, &group[12], group_mac));
	send_raw(frame, send_frame(frame, true, 0xffffff, &b.gid[12], b.mac));
	send_raw(frame, send_frame(frame, true, 0xffffff, other, other_mac));
	send_raw(frame, send_frame(frame, true, 0xffffff, &group[12], group_mac));
	/*
	 * The delivered one completes on B's UD QP: 40 bytes of GRH and the
	 * payload. (An RC SEND_ONLY to the group used to reach the group's QPs:
	 * the engine looked at the opcode's mask, which lists RC, UC and UD.)
	 */
	for (int i = 0; i < 2000; i++) {
		n = vur_user_poll_cq(b.d, b.cqn, wc, 16);
		for (int k = 0; k < n; k++) {
			TAP_EQ(wc[k].qp_num, b_ud);
			TAP_EQ(wc[k].status, VUR_USER_WC_SUCCESS);
			TAP_EQ(wc[k].byte_len, 40 + 16);
			got++;
		}
		if (got > 0 && i > 200)
			break;
		poll(NULL, 0, 1);
	}
	TAP_EQ(got, 1);
	TAP_EQ(counter(&b, "rdma_mcast_rx"), mc0 + 1);
	/* the RC SEND to the group and the UD SEND to B's own address reached B's engine */
	TAP_EQ(counter(&b, "rdma_rx_drop_no_qp"), nq0 + 2);
}

/* ROCE-DEV-WIRE-4 and the bad-input rules: FRAMES malformed packets, no crash, no stray write. */
static void
fuzz(void)
{
	uint8_t frame[1600];
	uint64_t rx0 = counter(&b, "rdma_rx_pkts"), bad0, bad1;
	const char *const bad[] = { "rdma_rx_bad_length", "rdma_rx_bad_l3", "rdma_rx_bad_opcode",
		"rdma_rx_bad_bth", "rdma_rx_bad_icrc", "rdma_rx_drop_malformed",
		"rdma_rx_drop_no_qp" };
	int sent = 0, ret;

	if (a.d == NULL || b.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	bad0 = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad0 += counter(&b, bad[i]);
	for (int i = 0; i < FRAMES; i++) {
		ret = vur_user_net_send(a.d, frame, make_frame(frame));
		if (ret < 0) {
			printf("# frame %d: %s\n", i, strerror(-ret));
			break;
		}
		sent++;
		if (i % 64 == 63)
			feed_b();
	}
	TAP_EQ(sent, FRAMES);
	poll(NULL, 0, 200);
	feed_b();
	/* the backend is alive and saw them; many were refused, and counted */
	TAP_CHECK(counter(&b, "rdma_rx_pkts") != UINT64_MAX);
	TAP_CHECK(counter(&b, "rdma_rx_pkts") > rx0);
	bad1 = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad1 += counter(&b, bad[i]);
	printf("# %llu of %d frames refused as malformed or for no QP\n",
			(unsigned long long)(bad1 - bad0), FRAMES);
	/* how deep they went: for whoever reads the log */
	{
		const char *const deep[] = { "rdma_rx_pkts", "rdma_nak_seq", "rdma_nak_inv",
			"rdma_nak_access", "rdma_rnr_nak_sent", "rdma_rx_drop_psn",
			"rdma_rx_drop_qp_state", "rdma_rx_drop_transport", "rdma_rx_drop_qkey",
			"rdma_rx_drop_uc_error", "rdma_cqes", "rdma_tx_pkts", "rdma_atomics",
			"rdma_atomic_replays", "rdma_mcast_rx" };

		for (size_t i = 0; i < sizeof(deep) / sizeof(deep[0]); i++)
			printf("# %s %llu\n", deep[i], (unsigned long long)counter(&b, deep[i]));
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			printf("# %s %llu\n", bad[i], (unsigned long long)counter(&b, bad[i]));
	}
	TAP_CHECK(bad1 - bad0 > FRAMES / 10);
	/* the group's frames reached the engine, its UD QP's among them */
	TAP_CHECK(counter(&b, "rdma_mcast_rx") > FRAMES / 400);
	/* nothing outside the MR the packets could name */
	for (uint32_t i = 0, n = 0; i < 4096; i++) {
		if (b.buf[i] != FILL || b.buf[MR_OFF + MR_LEN + i] != FILL) {
			if (n++ < 8)
				printf("# guard byte %u changed: %02x %02x\n", i, b.buf[i],
						b.buf[MR_OFF + MR_LEN + i]);
			tap_case_failed = 1;
		}
	}
}

/* Afterwards a fresh RC pair works: SEND of 3000 bytes, byte for byte. */
static void
still_works(void)
{
	uint32_t qa, qb;
	struct vur_user_sge s = rdma_sge(&a, 65536, 3000), r = rdma_sge(&b, 65536, 3000);
	struct vur_user_send_wr q = rdma_req(0x77, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	struct vur_user_wc wc;
	int got = 0;

	if (a.d == NULL || b.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	feed_b();
	for (uint32_t i = 0; i < 3000; i++)
		a.buf[65536 + i] = (uint8_t)(i * 7);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &qa), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_RC, &qb), 0);
	TAP_EQ(rdma_connect_qp(&a, qa, VUR_USER_QPT_RC, &b, qb, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&b, qb, VUR_USER_QPT_RC, &a, qa, 7, 14, 7), 0);
	TAP_EQ(rdma_post_recv(&b, qb, 0x78, &r, 1), 0);
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	for (int i = 0; i < WAIT_MS && got == 0; i++) {
		got = vur_user_poll_cq(b.d, b.cqn, &wc, 1);
		if (got == 1 && wc.wr_id != 0x78)
			got = 0; /* a completion of the fuzzed QPs */
		if (got == 0)
			poll(NULL, 0, 1);
	}
	TAP_EQ(got, 1);
	TAP_EQ(wc.status, VUR_USER_WC_SUCCESS);
	TAP_EQ(wc.byte_len, 3000);
	TAP_EQ(memcmp(a.buf + 65536, b.buf + 65536, 3000), 0);
}

static void
backend_stops_cleanly(void)
{
	int status;

	if (a.d != NULL)
		vur_user_close(a.d);
	if (b.d != NULL)
		vur_user_close(b.d);
	status = child_stop(&backend, SIGTERM, WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&backend);
	child_cleanup(&backend);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		printf("Bail out! usage: %s BACKEND\n", argv[0]);
		return 1;
	}
	backend_bin = argv[1];
	if (argc > 2)
		eal_args = (const char *const *)argv + 2; /* NULL-terminated, as argv is */
	signal(SIGPIPE, SIG_IGN);
	TAP_RUN(set_up);
	TAP_RUN(mcast_qpn_takes_only_ud_sends_to_groups);
	TAP_RUN(fuzz);
	TAP_RUN(still_works);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
