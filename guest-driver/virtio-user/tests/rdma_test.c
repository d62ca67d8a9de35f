/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA engine end to end: two devices of one real backend, each driven
 * through its vhost-user socket, exchanging SEND, WRITE, READ and atomics
 * on RC, UC and UD QPs; data checked byte for byte; the error completions
 * the spec names. Each case names the conformance statements it checks.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "device.h"
#include "rdma_e2e.h"
#include "rdma_pair.h"
#include "tap.h"
#include "telemetry.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define BUF_LEN  (34u << 20) /* two halves, each room for a 16 MiB message */
#define MEM_SIZE (40u << 20)

static struct rdma_e2e e2e;

static struct rdma_ep a, b;

static void
log_hook(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level <= 4)
		printf("# log %d: %s\n", level, msg);
}

/* Post @q with @n elements at @s. */
static int
post(struct rdma_ep *e, uint32_t qpn, struct vur_user_send_wr *q, const struct vur_user_sge *s,
		uint32_t n)
{
	q->sg_list = s;
	q->num_sge = n;
	return rdma_post_send(e, qpn, q);
}

/* This test's data pattern, the one its checks were written with. */
static void
fill(uint8_t *p, size_t len, uint32_t seed)
{
	rdma_fill_pattern(p, len, seed, 131, 8);
}

static uint64_t qp_counter(struct rdma_ep *e, uint32_t qpn, const char *name);

/*
 * A signaled @len-byte SEND (WR @id) from a's QP @qa into a receive (WR
 * @id + 1) of b's QP @qb, both CQEs checked and the bytes compared.
 */
static void
send_checked(uint32_t qa, uint32_t qb, uint32_t len, uint64_t id, uint32_t seed)
{
	struct vur_user_sge s = rdma_sge(&a, 0, len), r = rdma_sge(&b, 0, len);
	struct vur_user_send_wr q = rdma_req(id, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);

	fill(a.buf, len, seed);
	memset(b.buf, 0, len);
	TAP_EQ(rdma_post_recv(&b, qb, id + 1, &r, 1), 0);
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	EXPECT_CQE_ON(&a, id, 0, VUR_USER_WC_SEND, len, qa);
	EXPECT_CQE_ON(&b, id + 1, 0, VUR_USER_WC_RECV, len, qb);
	TAP_CHECK(memcmp(a.buf, b.buf, len) == 0);
}

static void
devices_open(void)
{
	if (!rdma_e2e_start(&e2e, &a, &b, BUF_LEN, MEM_SIZE))
		return;
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &a.qpn), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_RC, &b.qpn), 0);
	TAP_EQ(rdma_connect_qp(&a, a.qpn, VUR_USER_QPT_RC, &b, b.qpn, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&b, b.qpn, VUR_USER_QPT_RC, &a, a.qpn, 7, 14, 7), 0);
}

/* ROCE-DEV-SEND-4, WR-7, CQE-1..3: SEND at sizes around the MTU, one and many s/g elements. */
static void
rc_send(void)
{
	static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 4096, 65537 };
	struct vur_user_sge s[3], r[2];
	struct vur_user_send_wr q;

	if (!rdma_e2e_ready(&a, &b))
		return;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i], h = len / 2;

		fill(a.buf, len, (uint32_t)i);
		memset(b.buf, 0xee, len + 16);
		/* the receiver in two pieces, the sender in three */
		r[0] = rdma_sge(&b, 0, h);
		r[1] = rdma_sge(&b, h, len - h + 16);
		TAP_EQ(rdma_post_recv(&b, b.qpn, 0x100 + i, r, 2), 0);
		s[0] = rdma_sge(&a, 0, len / 3);
		s[1] = rdma_sge(&a, len / 3, 0); /* empty elements are fine */
		s[2] = rdma_sge(&a, len / 3, len - len / 3);
		q = rdma_req(0x200 + i, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);
		TAP_EQ(post(&a, a.qpn, &q, s, 3), 0);
		EXPECT_CQE_ON(&b, 0x100 + i, 0, VUR_USER_WC_RECV, len, b.qpn);
		EXPECT_CQE_ON(&a, 0x200 + i, 0, VUR_USER_WC_SEND, len, a.qpn);
		TAP_CHECK(memcmp(a.buf, b.buf, len) == 0);
		TAP_CHECK(b.buf[len] == 0xee); /* nothing beyond the message */
	}
}

/* ROCE-DEV-WRITE-2, -5, READ-5: WRITE, WRITE with immediate and READ up to 16 MiB. */
static void
rc_write_read(void)
{
	static const uint32_t sizes[] = { 0, 1, 4095, 4096, 4097, 65536, 1u << 20, 16u << 20 };
	const uint64_t far = BUF_LEN / 2; /* where the data lands on the remote side */
	struct vur_user_sge s[2];
	struct vur_user_send_wr q;

	if (!rdma_e2e_ready(&a, &b))
		return;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];

		/* WRITE a -> b */
		fill(a.buf, len, (uint32_t)i + 7);
		memset(b.buf + far, 0, len);
		s[0] = rdma_sge(&a, 0, len / 2);
		s[1] = rdma_sge(&a, len / 2, len - len / 2);
		q = rdma_req(0x300 + i, VUR_USER_WR_RDMA_WRITE, VUR_USER_SEND_SIGNALED, NULL, 0);
		q.rdma.remote_addr = b.addr + far;
		q.rdma.rkey = b.mr.rkey;
		TAP_EQ(post(&a, a.qpn, &q, s, 2), 0);
		EXPECT_CQE_ON(&a, 0x300 + i, 0, VUR_USER_WC_RDMA_WRITE, len, a.qpn);
		TAP_CHECK(memcmp(a.buf, b.buf + far, len) == 0);
		/* READ it back b -> a, into another place of a */
		memset(a.buf + far, 0, len);
		s[0] = rdma_sge(&a, far, len - len / 3);
		s[1] = rdma_sge(&a, far + len - len / 3, len / 3);
		q = rdma_req(0x400 + i, VUR_USER_WR_RDMA_READ, VUR_USER_SEND_SIGNALED, NULL, 0);
		q.rdma.remote_addr = b.addr + far;
		q.rdma.rkey = b.mr.rkey;
		TAP_EQ(post(&a, a.qpn, &q, s, 2), 0);
		EXPECT_CQE_ON(&a, 0x400 + i, 0, VUR_USER_WC_RDMA_READ, len, a.qpn);
		TAP_CHECK(memcmp(a.buf, a.buf + far, len) == 0);
	}
	/* WRITE with immediate: a receive WR completes with the immediate, no s/g used */
	fill(a.buf, 5000, 99);
	TAP_EQ(rdma_post_recv(&b, b.qpn, 0x500, NULL, 0), 0);
	s[0] = rdma_sge(&a, 0, 5000);
	q = rdma_req(0x501, VUR_USER_WR_RDMA_WRITE_WITH_IMM, VUR_USER_SEND_SIGNALED, NULL, 0);
	q.imm_data = htobe32(0xfeedbeef);
	q.rdma.remote_addr = b.addr + far;
	q.rdma.rkey = b.mr.rkey;
	TAP_EQ(post(&a, a.qpn, &q, s, 1), 0);
	{
		struct vur_user_wc wc;

		TAP_EQ(rdma_next_cqe(&b, &wc), 1);
		TAP_EQ(wc.wr_id, 0x500);
		TAP_EQ(wc.opcode, VUR_USER_WC_RECV_RDMA_WITH_IMM);
		TAP_EQ(wc.byte_len, 5000);
		TAP_EQ(be32toh(wc.imm_data), 0xfeedbeef);
		TAP_EQ(wc.wc_flags, VUR_USER_WC_WITH_IMM);
	}
	EXPECT_CQE_ON(&a, 0x501, 0, VUR_USER_WC_RDMA_WRITE, 5000, a.qpn);
	TAP_CHECK(memcmp(a.buf, b.buf + far, 5000) == 0);
}

/* ROCE-DEV-SEND-1, -2, WR-8: inline data, SEND with immediate and solicited, unsignaled WRs. */
static void
rc_inline_imm_unsignaled(void)
{
	struct vur_user_send_wr q;
	struct vur_user_sge r = rdma_sge(&b, 0, 600);
	struct vur_user_wc wc;
	uint8_t data[512];

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(rdma_post_recv(&b, b.qpn, 0x600, &r, 1), 0);
	q = rdma_req(0x601, VUR_USER_WR_SEND_WITH_IMM,
			VUR_USER_SEND_INLINE | VUR_USER_SEND_SOLICITED | VUR_USER_SEND_SIGNALED,
			NULL, 0);
	fill(data, sizeof(data), 5);
	q.inline_data = data;
	q.inline_len = sizeof(data);
	q.imm_data = htobe32(0x01020304);
	TAP_EQ(post(&a, a.qpn, &q, NULL, 0), 0);
	TAP_EQ(rdma_next_cqe(&b, &wc), 1);
	TAP_EQ(wc.byte_len, 512);
	TAP_EQ(be32toh(wc.imm_data), 0x01020304);
	TAP_CHECK(memcmp(b.buf, data, 512) == 0);
	EXPECT_CQE_ON(&a, 0x601, 0, VUR_USER_WC_SEND, 512, a.qpn);
	/* unsignaled: no CQE, the buffer still comes back used */
	TAP_EQ(rdma_post_recv(&b, b.qpn, 0x602, &r, 1), 0);
	q = rdma_req(0x603, VUR_USER_WR_SEND, 0, NULL, 0);
	TAP_EQ(post(&a, a.qpn, &q, NULL, 0), 0);
	EXPECT_CQE_ON(&b, 0x602, 0, VUR_USER_WC_RECV, 0, b.qpn);
	TAP_CHECK(rdma_no_cqe(&a, 50));
}

/* UD (and the GRH before the message), ROCE-DEV-UD-3, -4, -5. */
static void
ud_send(void)
{
	uint32_t qa, qb, ah;
	struct vur_user_ah_attr av = { .grh.hop_limit = 64 };
	struct vur_user_sge r = rdma_sge(&b, 0, 40 + 1024), s = rdma_sge(&a, 0, 1024);
	struct vur_user_send_wr q;
	struct vur_user_wc wc;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_UD, &qa), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_UD, &qb), 0);
	TAP_EQ(rdma_connect_qp(&a, qa, VUR_USER_QPT_UD, &b, qb, 0, 0, 0), 0);
	TAP_EQ(rdma_connect_qp(&b, qb, VUR_USER_QPT_UD, &a, qa, 0, 0, 0), 0);
	memcpy(av.grh.dgid, b.gid, 16);
	memcpy(av.dmac, b.mac, 6);
	TAP_EQ(vur_user_create_ah(a.d, a.pdn, &av, &ah), 0);
	fill(a.buf, 1024, 77);
	TAP_EQ(rdma_post_recv(&b, qb, 0x700, &r, 1), 0);
	q = rdma_req(0x701, VUR_USER_WR_SEND_WITH_IMM, VUR_USER_SEND_SIGNALED, NULL, 0);
	q.ud.remote_qpn = qb;
	q.ud.remote_qkey = 0x11111111;
	q.ud.ah = ah;
	q.imm_data = htobe32(42);
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x701, 0, VUR_USER_WC_SEND, 1024, qa);
	TAP_EQ(rdma_next_cqe(&b, &wc), 1);
	TAP_EQ(wc.wr_id, 0x700);
	TAP_EQ(wc.byte_len, 40 + 1024);
	TAP_EQ(wc.src_qp, qa);
	TAP_EQ(wc.wc_flags, VUR_USER_WC_GRH | VUR_USER_WC_WITH_IMM);
	TAP_CHECK(memcmp(b.buf + 40, a.buf, 1024) == 0);
	/* IPv4: 20 zero bytes, then the IPv4 header with a's address as source */
	TAP_EQ(b.buf[20], 0x45);
	TAP_CHECK(memcmp(b.buf + 20 + 12, &a.gid[12], 4) == 0);
	/* a wrong Q_Key is dropped (UD-4); a controlled one takes the QP's own (UD-3) */
	TAP_EQ(rdma_post_recv(&b, qb, 0x702, &r, 1), 0);
	q.wr_id = 0x703;
	q.ud.remote_qkey = 0x22222222;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x703, 0, VUR_USER_WC_SEND, 1024, qa);
	TAP_CHECK(rdma_no_cqe(&b, 50));
	q.wr_id = 0x704;
	q.ud.remote_qkey = 0x80000000;
	TAP_EQ(vur_user_modify_qp(a.d, qa,
			       &(struct vur_user_qp_attr){
					       .qp_state = VUR_USER_QPS_RTS, .qkey = 0x11111111 },
			       VUR_USER_QP_QKEY),
			0);
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x704, 0, VUR_USER_WC_SEND, 1024, qa);
	EXPECT_CQE_ON(&b, 0x702, 0, VUR_USER_WC_RECV, 40 + 1024, qb);
	/* longer than the port MTU: LOC_LEN_ERR (UD-2), the QP to SQE (QPS-8) */
	s = rdma_sge(&a, 0, 1025);
	q.wr_id = 0x705;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x705, VUR_USER_WC_LOC_LEN_ERR, VUR_USER_WC_SEND, 0, qa);
}

/* UC: SEND and WRITE, no ACKs; the WR completes once sent. */
/*
 * ROCE-DEV-WIRE-7 on UC, which has no ACKs: once a has heard from b (b's
 * SEND), a's 3000-byte SEND reaches b as one frame counted as its three
 * packets.
 */
static void
uc_whole_messages(uint32_t qa, uint32_t qb)
{
	struct vur_user_sge ra = rdma_sge(&a, 16384, 64), sb = rdma_sge(&b, 16384, 64);
	struct vur_user_send_wr q =
			rdma_req(0x805, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &sb, 1);
	uint64_t frames, pkts;

	TAP_EQ(rdma_post_recv(&a, qa, 0x804, &ra, 1), 0);
	TAP_EQ(rdma_post_send(&b, qb, &q), 0);
	EXPECT_CQE_ON(&b, 0x805, 0, VUR_USER_WC_SEND, 64, qb);
	EXPECT_CQE_ON(&a, 0x804, 0, VUR_USER_WC_RECV, 64, qa);
	frames = rdma_e2e_counter(&e2e, &b, "eth_roce_rx");
	pkts = qp_counter(&b, qb, "rx_pkts");
	send_checked(qa, qb, 3000, 0x806, 4);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "eth_roce_rx") - frames, 1);
	TAP_EQ(qp_counter(&b, qb, "rx_pkts") - pkts, 3);
}

static void
uc_send_write(void)
{
	uint32_t qa, qb;
	struct vur_user_sge s = rdma_sge(&a, 0, 3000);
	struct vur_user_send_wr q;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_UC, &qa), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_UC, &qb), 0);
	TAP_EQ(rdma_connect_qp(&a, qa, VUR_USER_QPT_UC, &b, qb, 0, 0, 0), 0);
	TAP_EQ(rdma_connect_qp(&b, qb, VUR_USER_QPT_UC, &a, qa, 0, 0, 0), 0);
	send_checked(qa, qb, 3000, 0x800, 3);
	memset(b.buf + 8192, 0, 3000);
	q = rdma_req(0x802, VUR_USER_WR_RDMA_WRITE, VUR_USER_SEND_SIGNALED, NULL, 0);
	q.rdma.remote_addr = b.addr + 8192;
	q.rdma.rkey = b.mr.rkey;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x802, 0, VUR_USER_WC_RDMA_WRITE, 3000, qa);
	/* no ACK says when it landed: wait for the bytes */
	for (int i = 0; i < 1000 && memcmp(a.buf, b.buf + 8192, 3000) != 0; i++)
		poll(NULL, 0, 1);
	TAP_CHECK(memcmp(a.buf, b.buf + 8192, 3000) == 0);
	uc_whole_messages(qa, qb);
	/* READ is not a UC operation (READ-1) */
	q = rdma_req(0x803, VUR_USER_WR_RDMA_READ, VUR_USER_SEND_SIGNALED, NULL, 0);
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x803, VUR_USER_WC_LOC_QP_OP_ERR, VUR_USER_WC_RDMA_READ, 0, qa);
}

/* Two QPs of one device: the packets never leave it. */
static void
rc_loopback(void)
{
	uint32_t q1, q2;
	struct vur_user_sge r = rdma_sge(&a, 8192, 2000), s = rdma_sge(&a, 0, 2000);
	struct vur_user_send_wr q;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &q1), 0);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &q2), 0);
	TAP_EQ(rdma_connect_qp(&a, q1, VUR_USER_QPT_RC, &a, q2, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&a, q2, VUR_USER_QPT_RC, &a, q1, 7, 14, 7), 0);
	fill(a.buf, 2000, 11);
	TAP_EQ(rdma_post_recv(&a, q2, 0x900, &r, 1), 0);
	q = rdma_req(0x901, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);
	TAP_EQ(post(&a, q1, &q, &s, 1), 0);
	{
		struct vur_user_wc wc[2];
		int got = 0;

		for (int i = 0; i < 2; i++)
			got += rdma_next_cqe(&a, &wc[i]);
		TAP_EQ(got, 2);
		TAP_EQ(wc[0].status + wc[1].status, 0);
	}
	TAP_CHECK(memcmp(a.buf, a.buf + 8192, 2000) == 0);
}

/* Where QP @qpn's entry starts in a /vur/qps answer, or NULL. */
static const char *
qp_entry(const char *json, uint32_t qpn)
{
	char key[24];
	const char *p;

	snprintf(key, sizeof(key), "\"%u\":", qpn);
	for (p = strstr(json, key); p != NULL; p = strstr(p + 1, key)) {
		const char *v = p + strlen(key);

		while (*v == ' ')
			v++;
		if (*v == '{')
			return v;
	}
	return NULL;
}

/* Counter @name of @e's QP @qpn in /vur/qps,PATH; UINT64_MAX when absent. */
static uint64_t
qp_counter(struct rdma_ep *e, uint32_t qpn, const char *name)
{
	char cmd[200], json[65536];
	const char *q;
	uint64_t v = 0;

	snprintf(cmd, sizeof(cmd), "/vur/qps,%s,%u", e->path, qpn);
	if (telemetry_query(e2e.backend.prefix, cmd, json, sizeof(json)) < 0)
		return UINT64_MAX;
	q = qp_entry(json, qpn);
	if (q == NULL || telemetry_field(q, name, &v) < 0)
		return UINT64_MAX;
	return v;
}

/*
 * ROCE-DEV-WIRE-7: once QP @qa has heard from its peer @qb, an engine of
 * this backend, a 5000-byte SEND reaches b as one frame that holds its five
 * packets (b's engine took one frame and counts five packets, placed once).
 */
static void
whole_messages(uint32_t qa, uint32_t qb)
{
	uint64_t frames = rdma_e2e_counter(&e2e, &b, "eth_roce_rx"),
		 pkts = qp_counter(&b, qb, "rx_pkts");
	uint64_t bytes = qp_counter(&b, qb, "rx_bytes");

	send_checked(qa, qb, 5000, 0xc02, 0x5a);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "eth_roce_rx") - frames, 1);
	TAP_EQ(qp_counter(&b, qb, "rx_pkts") - pkts, 5);
	TAP_EQ(qp_counter(&b, qb, "rx_bytes") - bytes, 5000);
}

/*
 * Eight SENDs posted at once reach b in one burst, and b acknowledges them
 * with fewer ACKs than requests (ACKs are cumulative, IBTA 9.7.5.1.1); a
 * completes all eight.
 */
static void
coalesced_acks(uint32_t qa, uint32_t qb)
{
	struct vur_user_sge s = rdma_sge(&a, 0, 64), r = rdma_sge(&b, 0, 64);
	struct vur_user_send_wr q[8];
	struct vur_user_recv_wr rq[8];
	uint64_t acks = qp_counter(&b, qb, "tx_pkts"), got = qp_counter(&a, qa, "rx_pkts");

	for (int i = 0; i < 8; i++) {
		q[i] = rdma_req(0xd00 + i, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
		rq[i] = (struct vur_user_recv_wr){
			.wr_id = 0xe00 + i, .sg_list = &r, .num_sge = 1
		};
	}
	TAP_EQ(vur_user_post_recv(b.d, qb, rq, 8, NULL), 0);
	TAP_EQ(vur_user_post_send(a.d, qa, q, 8, NULL), 0);
	for (int i = 0; i < 8; i++)
		EXPECT_CQE_ON(&b, 0xe00 + i, 0, VUR_USER_WC_RECV, 64, qb);
	for (int i = 0; i < 8; i++)
		EXPECT_CQE_ON(&a, 0xd00 + i, 0, VUR_USER_WC_SEND, 64, qa);
	acks = qp_counter(&b, qb, "tx_pkts") - acks;
	TAP_CHECK(acks >= 1 && acks < 8);
	TAP_EQ(qp_counter(&a, qa, "rx_pkts") - got, acks);
}

/*
 * Per-QP counters in telemetry (/vur/qps) and the admin RPC (get_qps): a
 * 5000-byte SEND on a fresh RC pair is five packets at path MTU 1024, each
 * counted on the QPs that sent and took it as well as on the devices.
 */
static void
qp_counters(void)
{
	struct vur_user_sge s = rdma_sge(&a, 0, 5000), r = rdma_sge(&b, 0, 5000);
	struct vur_user_send_wr q =
			rdma_req(0xc01, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	char params[160], reply[65536], want[64];
	uint64_t dev_tx;
	uint32_t qa, qb;

	if (!rdma_e2e_ready(&a, &b) || !rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	TAP_EQ(qp_counter(&a, qa, "tx_pkts"), 0);
	TAP_EQ(qp_counter(&b, qb, "rx_pkts"), 0);
	TAP_EQ(rdma_post_recv(&b, qb, 0xc00, &r, 1), 0);
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	EXPECT_CQE_ON(&b, 0xc00, 0, VUR_USER_WC_RECV, 5000, qb);
	EXPECT_CQE_ON(&a, 0xc01, 0, VUR_USER_WC_SEND, 5000, qa);
	/* the requester's packets (a retransmission would add to both) */
	TAP_CHECK(qp_counter(&a, qa, "tx_pkts") >= 5);
	TAP_CHECK(qp_counter(&a, qa, "tx_bytes") >= 5000);
	TAP_EQ(qp_counter(&a, qa, "tx_pkts") - qp_counter(&a, qa, "retransmits") >= 5, 1);
	/* the responder placed each byte once, and acknowledged */
	TAP_EQ(qp_counter(&b, qb, "rx_bytes"), 5000);
	TAP_CHECK(qp_counter(&b, qb, "rx_pkts") >= 5);
	TAP_CHECK(qp_counter(&b, qb, "tx_pkts") >= 1);
	TAP_CHECK(qp_counter(&a, qa, "rx_pkts") >= 1);
	TAP_CHECK(qp_counter(&b, qb, "rq_psn") != UINT64_MAX);
	TAP_EQ(qp_counter(&a, qa, "outstanding"), 0);
	/* an RC requester's window and first unacknowledged PSN (tp_window.h) */
	TAP_CHECK(qp_counter(&a, qa, "window") >= 4 && qp_counter(&a, qa, "window") <= 1024);
	TAP_EQ(qp_counter(&a, qa, "una"), qp_counter(&a, qa, "sq_psn"));
	TAP_EQ(qp_counter(&a, qa, "retx_bytes"), 0);
	/* the whole device's list too (one QP: /vur/qps,PATH,QPN) */
	snprintf(params, sizeof(params), "/vur/qps,%s", b.path);
	TAP_CHECK(telemetry_query(e2e.backend.prefix, params, reply, sizeof(reply)) > 0);
	snprintf(want, sizeof(want), "\"%u\":{", qb);
	TAP_CHECK(strstr(reply, want) != NULL);
	/* the device counts at least what its QPs do */
	dev_tx = rdma_e2e_counter(&e2e, &a, "rdma_tx_pkts");
	TAP_CHECK(dev_tx != UINT64_MAX && dev_tx >= qp_counter(&a, qa, "tx_pkts"));
	/* the same through the admin RPC, with type and state */
	snprintf(params, sizeof(params), "{\"device\": \"%s\"}", b.path);
	TAP_EQ(admin_call(e2e.backend.admin, "get_qps", params, reply, sizeof(reply)), 0);
	/* (the reply is compact JSON) */
	snprintf(want, sizeof(want), "\"qpn\":%u", qb);
	TAP_CHECK(strstr(reply, want) != NULL);
	TAP_CHECK(strstr(reply, "\"type\":\"RC\"") != NULL);
	TAP_CHECK(strstr(reply, "\"state\":\"RTS\"") != NULL);
	TAP_CHECK(strstr(reply, "\"rx_bytes\":5000") != NULL);
	/* unknown device: telemetry answers null, the RPC -ENODEV */
	TAP_CHECK(telemetry_query(e2e.backend.prefix, "/vur/qps,/nonexistent", reply,
				  sizeof(reply)) > 0);
	TAP_CHECK(strstr(reply, "null") != NULL);
	TAP_CHECK(telemetry_query(e2e.backend.prefix, "/vur/qps", reply, sizeof(reply)) > 0);
	TAP_CHECK(strstr(reply, "null") != NULL);
	TAP_EQ(admin_call(e2e.backend.admin, "get_qps", "{\"device\": \"/nonexistent\"}", reply,
			       sizeof(reply)),
			-EREMOTEIO);
	TAP_CHECK(strstr(reply, "-19") != NULL);
	whole_messages(qa, qb);
	coalesced_acks(qa, qb);
	/* a destroyed QP leaves the list */
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(qp_counter(&a, qa, "tx_pkts"), UINT64_MAX);
}

/* ROCE-DEV-SEND-6, -8: a SEND before its receive WR is retried after RNR NAKs, then lands. */
static void
rnr_then_success(void)
{
	uint32_t qa, qb;
	struct vur_user_sge r = rdma_sge(&b, 0, 100), s = rdma_sge(&a, 0, 100);
	struct vur_user_send_wr q =
			rdma_req(0xa01, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);
	uint64_t waits;

	if (!rdma_e2e_ready(&a, &b) || !rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	waits = rdma_e2e_counter(&e2e, &a, "rdma_rnr_waits");
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	poll(NULL, 0, 20);
	TAP_CHECK(rdma_e2e_counter(&e2e, &a, "rdma_rnr_waits") > waits);
	TAP_CHECK(rdma_e2e_counter(&e2e, &b, "rdma_rnr_nak_sent") > 0);
	TAP_EQ(rdma_post_recv(&b, qb, 0xa00, &r, 1), 0);
	EXPECT_CQE_ON(&b, 0xa00, 0, VUR_USER_WC_RECV, 100, qb);
	EXPECT_CQE_ON(&a, 0xa01, 0, VUR_USER_WC_SEND, 100, qa);
}

/* ROCE-DEV-SEND-8, QPS-7: rnr_retry exhausted completes with RNR_RETRY_EXC_ERR, QP to ERR. */
static void
rnr_retry_exhausted(void)
{
	uint32_t qa, qb;
	struct vur_user_sge s = rdma_sge(&a, 0, 100);
	struct vur_user_send_wr q =
			rdma_req(0xb01, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);

	if (!rdma_e2e_ready(&a, &b) || !rdma_rc_pair_retry(&a, &b, &qa, &qb, 2, 14, 7))
		return;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	q.wr_id = 0xb02;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0xb01, VUR_USER_WC_RNR_RETRY_EXC_ERR, VUR_USER_WC_SEND, 0, qa);
	/* ROCE-DEV-QPS-6: what is behind it is flushed */
	EXPECT_CQE_ON(&a, 0xb02, VUR_USER_WC_WR_FLUSH_ERR, VUR_USER_WC_SEND, 0, qa);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
	TAP_CHECK(rdma_no_cqe(&a, 30) && rdma_no_cqe(&b, 0));
}

/* One WR on a fresh RC pair, and the status it must complete with. */
struct one_wr {
	const char *what;
	uint8_t opcode;
	uint64_t addr; /* the local s/g element */
	uint32_t len;
	uint32_t lkey;
	uint64_t raddr; /* WRITE, READ */
	uint32_t rkey;
	uint8_t status;
};

static void
run_one_wr(const struct one_wr *c, uint64_t wr_id)
{
	struct vur_user_sge s = { c->addr, c->len, c->lkey };
	struct vur_user_send_wr q = rdma_req(wr_id, c->opcode, VUR_USER_SEND_SIGNALED, NULL, 0);
	uint64_t naks = rdma_e2e_counter(&e2e, &b, "rdma_nak_access");
	uint8_t op = c->opcode == VUR_USER_WR_RDMA_READ       ? VUR_USER_WC_RDMA_READ
			: c->opcode == VUR_USER_WR_RDMA_WRITE ? VUR_USER_WC_RDMA_WRITE
							      : VUR_USER_WC_SEND;
	uint32_t qa, qb;

	printf("# %s\n", c->what);
	if (!rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	q.rdma.remote_addr = c->raddr;
	q.rdma.rkey = c->rkey;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, wr_id, c->status, op, c->len, qa);
	if (c->status == VUR_USER_WC_SUCCESS)
		return;
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
	if (c->status == VUR_USER_WC_REM_ACCESS_ERR) { /* a class B error at the responder */
		TAP_EQ(rdma_e2e_counter(&e2e, &b, "rdma_nak_access"), naks + 1);
		TAP_EQ(rdma_qp_state(&b, qb), VUR_USER_QPS_ERR);
	}
}

/* ROCE-DEV-WR-3 (LOC_PROT_ERR), WRITE-2..4 and READ-3 (REM_ACCESS_ERR). */
static void
bad_keys_and_bounds(void)
{
	struct vur_user_mr small, ro, other, nolw, gone;
	uint32_t pd2;

	if (!rdma_e2e_ready(&a, &b))
		return;
	/* b: one page at iova 0x10000, readable remotely, not writable */
	TAP_EQ(vur_user_reg_mr(b.d, b.pdn, VUR_USER_ACCESS_REMOTE_READ, b.buf, 4096, 0x10000, &ro),
			0);
	/* a: one page; one without LOCAL_WRITE; one of another PD; one deregistered */
	TAP_EQ(vur_user_reg_mr(a.d, a.pdn, VUR_USER_ACCESS_LOCAL_WRITE, a.buf, 4096, 0x20000,
			       &small),
			0);
	TAP_EQ(vur_user_reg_mr(a.d, a.pdn, 0, a.buf, 4096, 0x40000, &nolw), 0);
	TAP_EQ(vur_user_create_pd(a.d, &pd2), 0);
	TAP_EQ(vur_user_reg_mr(a.d, pd2, VUR_USER_ACCESS_LOCAL_WRITE, a.buf, 4096, 0x30000, &other),
			0);
	TAP_EQ(vur_user_reg_mr(a.d, a.pdn, VUR_USER_ACCESS_LOCAL_WRITE, a.buf, 4096, 0x50000,
			       &gone),
			0);
	TAP_EQ(vur_user_dereg_mr(a.d, gone.mrn), 0);
	{
		const uint8_t send = VUR_USER_WR_SEND, wr = VUR_USER_WR_RDMA_WRITE,
			      rd = VUR_USER_WR_RDMA_READ, prot = VUR_USER_WC_LOC_PROT_ERR,
			      rem = VUR_USER_WC_REM_ACCESS_ERR;
		const struct one_wr cases[] = {
			{ "a bad lkey", send, a.addr, 10, a.mr.lkey ^ 0x100, 0, 0, prot },
			{ "past the end of a user MR", send, 0x20000 + 4000, 100, small.lkey, 0, 0,
					prot },
			{ "another PD's MR", send, 0x30000, 100, other.lkey, 0, 0, prot },
			{ "a deregistered MR", send, 0x50000, 100, gone.lkey, 0, 0, prot },
			{ "READ into an MR without LOCAL_WRITE", rd, 0x40000, 100, nolw.lkey,
					b.addr, b.mr.rkey, prot },
			{ "a bad rkey", wr, a.addr, 100, a.mr.lkey, b.addr, b.mr.rkey + 1, rem },
			{ "WRITE to an MR without REMOTE_WRITE", wr, a.addr, 100, a.mr.lkey,
					0x10000, ro.rkey, rem },
			{ "READ beyond the remote MR's end", rd, a.addr, 100, a.mr.lkey,
					0x10000 + 4000, ro.rkey, rem },
			{ "READ up to the remote MR's end", rd, a.addr, 96, a.mr.lkey,
					0x10000 + 4000, ro.rkey, VUR_USER_WC_SUCCESS },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			run_one_wr(&cases[i], 0xc00 + i);
	}
	TAP_CHECK(memcmp(a.buf, b.buf + 4000, 96) == 0);
	TAP_CHECK(rdma_no_cqe(&a, 20) && rdma_no_cqe(&b, 0));
}

/* Atomics: b's 8 bytes at ATOMIC_IOVA of an MR with REMOTE_ATOMIC; results into a.buf. */
#define ATOMIC_OFF  (4u << 20) /* of b.buf: the atomic MR's page */
#define ATOMIC_IOVA 0x60000ULL
#define ATOMIC_AT   64 /* the target's offset in that page */

static uint64_t
le64_of(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* An atomic WR with one s/g element of @len bytes at a.buf + @off. */
static struct vur_user_send_wr
atomic_req(uint64_t wr_id, uint8_t opcode, uint64_t raddr, uint32_t rkey, uint64_t compare_add,
		uint64_t swap)
{
	struct vur_user_send_wr q = rdma_req(wr_id, opcode, VUR_USER_SEND_SIGNALED, NULL, 0);

	q.atomic.remote_addr = raddr;
	q.atomic.rkey = rkey;
	q.atomic.compare_add = compare_add;
	q.atomic.swap = swap;
	return q;
}

/* b's QP @qb (in RTS) allows REMOTE_ATOMIC (or not) besides the rest. */
static void
allow_atomics(uint32_t qb, bool on)
{
	struct vur_user_qp_attr at = {
		.qp_state = VUR_USER_QPS_RTS,
		.qp_access_flags = VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
				VUR_USER_ACCESS_REMOTE_READ |
				(on ? VUR_USER_ACCESS_REMOTE_ATOMIC : 0),
	};

	TAP_EQ(vur_user_modify_qp(b.d, qb, &at, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
}

/*
 * CMP_AND_SWP and FETCH_AND_ADD between two devices (atomic.c): QUERY_DEVICE
 * says ATOMIC and GLOB; FetchAdds from many WRs, with the CPU's own atomic
 * adds on the same memory between them, sum exactly, each WR getting the
 * value before its add; CmpSwap swaps when equal and not otherwise; the
 * responder counts them.
 */
static void
rc_atomics(void)
{
	struct vur_user_device_attr attr;
	struct vur_user_send_wr q;
	struct vur_user_sge s;
	struct vur_user_mr amr;
	uint64_t *target, expect, atomics;
	uint32_t qa, qb;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_query_device(a.d, &attr), 0);
	TAP_CHECK(attr.device_cap_flags & VUR_USER_DEVICE_ATOMIC);
	TAP_EQ(attr.atomic_cap, VUR_USER_ATOMIC_GLOB);
	/* REMOTE_ATOMIC without LOCAL_WRITE is refused (IBTA 10.6.3.1) */
	TAP_CHECK(vur_user_reg_mr(b.d, b.pdn, VUR_USER_ACCESS_REMOTE_ATOMIC, b.buf + ATOMIC_OFF,
				  4096, ATOMIC_IOVA, &amr) < 0);
	TAP_EQ(vur_user_reg_mr(b.d, b.pdn,
			       VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_ATOMIC,
			       b.buf + ATOMIC_OFF, 4096, ATOMIC_IOVA, &amr),
			0);
	if (!rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	allow_atomics(qb, true);
	atomics = rdma_e2e_counter(&e2e, &b, "rdma_atomics");
	target = (uint64_t *)(void *)(b.buf + ATOMIC_OFF + ATOMIC_AT);
	*target = htole64(1000);
	expect = 1000;
	memset(a.buf, 0xee, 8 * 24);
	/* 24 FetchAdds, 8 of them posted at a time; the CPU adds 1 << 32 between rounds */
	for (uint32_t round = 0; round < 3; round++) {
		for (uint32_t i = round * 8; i < round * 8 + 8; i++) {
			s = rdma_sge(&a, 8 * i, 8);
			q = atomic_req(0x1300 + i, VUR_USER_WR_ATOMIC_FETCH_AND_ADD,
					ATOMIC_IOVA + ATOMIC_AT, amr.rkey, i + 1, 0);
			TAP_EQ(post(&a, qa, &q, &s, 1), 0);
		}
		for (uint32_t i = round * 8; i < round * 8 + 8; i++) {
			EXPECT_CQE_ON(&a, 0x1300 + i, 0, VUR_USER_WC_FETCH_ADD, 8, qa);
			/* in order on one QP: each saw what the earlier ones left */
			TAP_EQ(le64_of(a.buf + 8 * i), expect);
			expect += i + 1;
		}
		__atomic_fetch_add(target, htole64(1ULL << 32), __ATOMIC_SEQ_CST);
		expect += 1ULL << 32;
	}
	TAP_EQ(le64toh(*target), expect);
	TAP_EQ(expect, 1000 + 300 + (3ULL << 32));
	/* CmpSwap: equal, swapped; not equal, left */
	s = rdma_sge(&a, 256, 8);
	q = atomic_req(0x1320, VUR_USER_WR_ATOMIC_CMP_AND_SWP, ATOMIC_IOVA + ATOMIC_AT, amr.rkey,
			expect, 0x0123456789abcdefULL);
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x1320, 0, VUR_USER_WC_COMP_SWAP, 8, qa);
	TAP_EQ(le64_of(a.buf + 256), expect);
	TAP_EQ(le64toh(*target), 0x0123456789abcdefULL);
	q = atomic_req(0x1321, VUR_USER_WR_ATOMIC_CMP_AND_SWP, ATOMIC_IOVA + ATOMIC_AT, amr.rkey,
			expect, 7);
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x1321, 0, VUR_USER_WC_COMP_SWAP, 8, qa);
	TAP_EQ(le64_of(a.buf + 256), 0x0123456789abcdefULL);
	TAP_EQ(le64toh(*target), 0x0123456789abcdefULL);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "rdma_atomics"), atomics + 26);
	TAP_EQ(qp_counter(&b, qb, "atomics"), 26);
	TAP_EQ(qp_counter(&b, qb, "atomic_replays"), 0);
	/*
	 * A READ, then a fenced atomic on the same bytes: the READ sees them
	 * before the add. Without the fence the responder may do the atomic
	 * before it reads for the READ's response, as IBTA's ordering allows.
	 */
	q = rdma_req(0x1322, VUR_USER_WR_RDMA_READ, VUR_USER_SEND_SIGNALED, NULL, 0);
	q.rdma.remote_addr = b.addr + ATOMIC_OFF + ATOMIC_AT;
	q.rdma.rkey = b.mr.rkey;
	s = rdma_sge(&a, 512, 8);
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	s = rdma_sge(&a, 520, 8);
	q = atomic_req(0x1323, VUR_USER_WR_ATOMIC_FETCH_AND_ADD, ATOMIC_IOVA + ATOMIC_AT, amr.rkey,
			1, 0);
	q.send_flags |= VUR_USER_SEND_FENCE;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x1322, 0, VUR_USER_WC_RDMA_READ, 8, qa);
	EXPECT_CQE_ON(&a, 0x1323, 0, VUR_USER_WC_FETCH_ADD, 8, qa);
	TAP_EQ(le64_of(a.buf + 512), 0x0123456789abcdefULL);
	TAP_EQ(le64_of(a.buf + 520), 0x0123456789abcdefULL);
	TAP_EQ(le64toh(*target), 0x0123456789abcdf0ULL);
	TAP_CHECK(rdma_no_cqe(&a, 0) && rdma_no_cqe(&b, 0));
	TAP_EQ(vur_user_dereg_mr(b.d, amr.mrn), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/* One atomic WR on a fresh pair that must fail with @status. */
struct one_atomic {
	const char *what;
	uint8_t qp_type;
	bool qp_denies;   /* b's QP does not allow REMOTE_ATOMIC */
	uint64_t raddr;   /* 0: the atomic MR's target */
	bool other_rkey;  /* b's DMA MR, without REMOTE_ATOMIC */
	uint32_t num_sge; /* elements of @len bytes at a.buf */
	bool inl;         /* inline data instead */
	uint32_t len;
	bool no_local_write; /* the element in an MR without LOCAL_WRITE */
	uint8_t status;
	const char *b_counter; /* the NAK b sends, or NULL */
};

static void
run_one_atomic(const struct one_atomic *c, const struct vur_user_mr *amr,
		const struct vur_user_mr *nolw, uint64_t wr_id)
{
	uint64_t *target = (uint64_t *)(void *)(b.buf + ATOMIC_OFF + ATOMIC_AT);
	struct vur_user_sge s[2] = { rdma_sge(&a, 0, c->len), rdma_sge(&a, 8, c->len) };
	struct vur_user_send_wr q = atomic_req(wr_id, VUR_USER_WR_ATOMIC_CMP_AND_SWP,
			c->raddr != 0 ? c->raddr : ATOMIC_IOVA + ATOMIC_AT,
			c->other_rkey ? b.mr.rkey : amr->rkey, 42, 43);
	uint64_t naks = c->b_counter != NULL ? rdma_e2e_counter(&e2e, &b, c->b_counter) : 0;
	uint32_t qa, qb;

	printf("# %s\n", c->what);
	*target = htole64(42);
	if (c->no_local_write)
		s[0] = (struct vur_user_sge){ 0x70000, c->len, nolw->lkey };
	if (c->qp_type == VUR_USER_QPT_UC) {
		TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_UC, &qa), 0);
		TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_UC, &qb), 0);
		TAP_EQ(rdma_connect_qp(&a, qa, VUR_USER_QPT_UC, &b, qb, 0, 0, 0), 0);
		TAP_EQ(rdma_connect_qp(&b, qb, VUR_USER_QPT_UC, &a, qa, 0, 0, 0), 0);
	} else {
		if (!rdma_rc_pair(&a, &b, &qa, &qb))
			return;
		allow_atomics(qb, !c->qp_denies);
	}
	if (c->num_sge == 0) {
		q.send_flags |= VUR_USER_SEND_INLINE;
		q.inline_data = a.buf;
		q.inline_len = 8;
		TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	} else {
		TAP_EQ(post(&a, qa, &q, s, c->num_sge), 0);
	}
	EXPECT_CQE_ON(&a, wr_id, c->status, VUR_USER_WC_COMP_SWAP, 0, qa);
	TAP_EQ(le64toh(*target), 42); /* nothing was done */
	if (c->qp_type == VUR_USER_QPT_RC)
		TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
	if (c->b_counter != NULL) { /* a class B error at the responder */
		TAP_EQ(rdma_e2e_counter(&e2e, &b, c->b_counter), naks + 1);
		TAP_EQ(rdma_qp_state(&b, qb), VUR_USER_QPS_ERR);
	}
	/* the QP numbers the later cases need */
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/* Every atomic that must not be done, at the requester and at the responder. */
static void
atomic_errors(void)
{
	const uint8_t lqp = VUR_USER_WC_LOC_QP_OP_ERR, llen = VUR_USER_WC_LOC_LEN_ERR,
		      lprot = VUR_USER_WC_LOC_PROT_ERR, inv = VUR_USER_WC_REM_INV_REQ_ERR,
		      acc = VUR_USER_WC_REM_ACCESS_ERR, rc = VUR_USER_QPT_RC;
	struct vur_user_mr amr, nolw;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_reg_mr(b.d, b.pdn,
			       VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_ATOMIC,
			       b.buf + ATOMIC_OFF, 4096, ATOMIC_IOVA, &amr),
			0);
	TAP_EQ(vur_user_reg_mr(a.d, a.pdn, VUR_USER_ACCESS_REMOTE_READ, a.buf, 4096, 0x70000,
			       &nolw),
			0);
	{
		const struct one_atomic cases[] = {
			{ .what = "misaligned remote address",
					.qp_type = rc,
					.raddr = ATOMIC_IOVA + ATOMIC_AT + 4,
					.num_sge = 1,
					.len = 8,
					.status = inv,
					.b_counter = "rdma_nak_inv" },
			{ .what = "an MR without REMOTE_ATOMIC",
					.qp_type = rc,
					.raddr = b.addr + ATOMIC_OFF + ATOMIC_AT,
					.other_rkey = true,
					.num_sge = 1,
					.len = 8,
					.status = acc,
					.b_counter = "rdma_nak_access" },
			{ .what = "a QP without REMOTE_ATOMIC",
					.qp_type = rc,
					.qp_denies = true,
					.num_sge = 1,
					.len = 8,
					.status = acc,
					.b_counter = "rdma_nak_access" },
			{ .what = "8 bytes past the MR's end",
					.qp_type = rc,
					.raddr = ATOMIC_IOVA + 4096,
					.num_sge = 1,
					.len = 8,
					.status = acc,
					.b_counter = "rdma_nak_access" },
			{ .what = "two s/g elements",
					.qp_type = rc,
					.num_sge = 2,
					.len = 4,
					.status = lqp },
			{ .what = "no s/g element", .qp_type = rc, .len = 8, .status = lqp },
			{ .what = "inline data",
					.qp_type = rc,
					.inl = true,
					.len = 8,
					.status = lqp },
			{ .what = "an element of 4 bytes",
					.qp_type = rc,
					.num_sge = 1,
					.len = 4,
					.status = llen },
			{ .what = "an element of 16 bytes",
					.qp_type = rc,
					.num_sge = 1,
					.len = 16,
					.status = llen },
			{ .what = "an element without LOCAL_WRITE",
					.qp_type = rc,
					.num_sge = 1,
					.len = 8,
					.no_local_write = true,
					.status = lprot },
			{ .what = "a UC QP",
					.qp_type = VUR_USER_QPT_UC,
					.num_sge = 1,
					.len = 8,
					.status = lqp },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			run_one_atomic(&cases[i], &amr, &nolw, 0x1400 + i);
	}
	TAP_EQ(vur_user_dereg_mr(b.d, amr.mrn), 0);
	TAP_EQ(vur_user_dereg_mr(a.d, nolw.mrn), 0);
	TAP_CHECK(rdma_no_cqe(&a, 20) && rdma_no_cqe(&b, 0));
}

/* ROCE-DEV-QPS-6: to ERR, every outstanding WR and every later one is flushed, once. */
static void
flush_on_error(void)
{
	uint32_t qa, qb, qa2, qb2;
	struct vur_user_sge r = rdma_sge(&b, 0, 64), s = rdma_sge(&a, 0, 64);
	struct vur_user_qp_attr err = { .qp_state = VUR_USER_QPS_ERR };
	struct vur_user_send_wr q;

	if (!rdma_e2e_ready(&a, &b) || !rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	for (int i = 0; i < 5; i++)
		TAP_EQ(rdma_post_recv(&b, qb, 0xd00 + i, &r, 1), 0);
	TAP_EQ(vur_user_modify_qp(b.d, qb, &err, VUR_USER_QP_STATE), 0);
	for (int i = 0; i < 5; i++)
		EXPECT_CQE_ON(&b, 0xd00 + i, VUR_USER_WC_WR_FLUSH_ERR, VUR_USER_WC_RECV, 0, qb);
	TAP_EQ(rdma_post_recv(&b, qb, 0xd05, &r, 1), 0); /* posted in ERR */
	EXPECT_CQE_ON(&b, 0xd05, VUR_USER_WC_WR_FLUSH_ERR, VUR_USER_WC_RECV, 0, qb);
	TAP_CHECK(rdma_no_cqe(&b, 30));
	/*
	 * ROCE-DRV-WR-2: 32 receive slots and no more while the WRs wait (a QP
	 * in RTS with no traffic keeps them; in ERR each would be flushed, and
	 * its slot freed, as soon as the engine saw it); after the flush every
	 * slot is back.
	 */
	if (!rdma_rc_pair(&a, &b, &qa2, &qb2))
		return;
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 32; i++)
			TAP_EQ(rdma_post_recv(&b, qb2, 0xd40 + i, &r, 1), 0);
		if (round == 0) {
			TAP_EQ(rdma_post_recv(&b, qb2, 0xd60, &r, 1), -ENOMEM);
			TAP_EQ(vur_user_modify_qp(b.d, qb2, &err, VUR_USER_QP_STATE), 0);
		}
		for (int i = 0; i < 32; i++)
			EXPECT_CQE_ON(&b, 0xd40 + i, VUR_USER_WC_WR_FLUSH_ERR, VUR_USER_WC_RECV, 0,
					qb2);
	}
	TAP_EQ(vur_user_destroy_qp(a.d, qa2), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb2), 0);
	/* the requester side too */
	TAP_EQ(vur_user_modify_qp(a.d, qa, &err, VUR_USER_QP_STATE), 0);
	for (int i = 0; i < 3; i++) {
		q = rdma_req(0xd10 + i, VUR_USER_WR_SEND, 0, NULL,
				0); /* flushes have CQEs, signaled or not */
		TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	}
	for (int i = 0; i < 3; i++)
		EXPECT_CQE_ON(&a, 0xd10 + i, VUR_USER_WC_WR_FLUSH_ERR, VUR_USER_WC_SEND, 0, qa);
	TAP_CHECK(rdma_no_cqe(&a, 30));
}

/* ROCE-DEV-OVR-1..5, NOTIFY-1, -3: arming, and a CQ without buffers. */
static void
cq_notify_and_overrun(void)
{
	uint32_t cqn, qa, qb;
	struct vur_user_qp_init_attr ia = {
		.pdn = a.pdn,
		.qp_type = VUR_USER_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 }
	};
	struct vur_user_sge s = rdma_sge(&a, 0, 8);
	struct vur_user_send_wr q, more[8];
	struct vur_user_wc wc;
	uint64_t end;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_create_cq(a.d, 2, &cqn), 0); /* room for two CQEs only */
	ia.send_cqn = ia.recv_cqn = cqn;
	TAP_EQ(vur_user_create_qp(a.d, &ia, &qa), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_RC, &qb), 0);
	TAP_EQ(rdma_connect_qp(&a, qa, VUR_USER_QPT_RC, &b, qb, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&b, qb, VUR_USER_QPT_RC, &a, qa, 7, 14, 7), 0);
	TAP_CHECK(vur_user_cq_event_fd(a.d, cqn) >= 0);
	/* unarmed: a CQE, no notification */
	q = rdma_req(0xe01, VUR_USER_WR_RDMA_WRITE, VUR_USER_SEND_SIGNALED, &s, 1);
	q.rdma.remote_addr = b.addr;
	q.rdma.rkey = b.mr.rkey;
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
	while (vur_user_poll_cq(a.d, cqn, &wc, 1) == 0 && rdma_now_ms() < end)
		poll(NULL, 0, 1);
	TAP_EQ(wc.wr_id, 0xe01);
	TAP_EQ(vur_user_get_cq_event(a.d, cqn, 20), 0);
	/* armed: the next one notifies, once (ROCE-DRV-NOTIFY-2: poll after arming) */
	TAP_EQ(vur_user_req_notify_cq(a.d, cqn, VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	TAP_EQ(vur_user_poll_cq(a.d, cqn, &wc, 1), 0);
	q.wr_id = 0xe02;
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	TAP_EQ(vur_user_get_cq_event(a.d, cqn, RDMA_E2E_WAIT_MS), 1);
	/* the CQE of 0xe02 and of 0xe03 fill both buffers; 0xe04 overruns the CQ (OVR-1, -2) */
	q.wr_id = 0xe03;
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	q.wr_id = 0xe04;
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	for (int i = 0; i < 1000 && rdma_qp_state(&a, qa) != VUR_USER_QPS_ERR; i++)
		poll(NULL, 0, 1);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
	TAP_EQ(vur_user_req_notify_cq(a.d, cqn, VUR_USER_NOTIFY_NEXT_COMPLETION), -EREMOTEIO);
	TAP_CHECK(rdma_e2e_counter(&e2e, &a, "rdma_cq_overrun") >= 1);
	TAP_EQ(vur_user_get_cq_event(a.d, cqn, 20), 0); /* it was not armed */
	/* the two CQEs that fit are there; nothing else was written (OVR-3) */
	TAP_EQ(vur_user_poll_cq(a.d, cqn, &wc, 1), 1);
	TAP_EQ(wc.wr_id, 0xe02);
	TAP_EQ(vur_user_poll_cq(a.d, cqn, &wc, 1), 1);
	TAP_EQ(wc.wr_id, 0xe03);
	poll(NULL, 0, 20);
	TAP_EQ(vur_user_poll_cq(a.d, cqn, &wc, 1), 0);
	/* the send WRs came back anyway: all 8 slots are free (they flush, CQEs lost) */
	for (int i = 0; i < 8; i++)
		more[i] = q;
	TAP_EQ(vur_user_post_send(a.d, qa, more, 8, NULL), 0);
	/* destroy returns the rings to their initial state (ROCE-DRV-LIFE-2): used again below */
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cqn), 0);
	TAP_EQ(vur_user_poll_cq(a.d, cqn, &wc, 1), -EINVAL);
	TAP_EQ(vur_user_post_send(a.d, qa, &q, 1, NULL), -EINVAL);
}

/* ROCE-DEV-READ-6, QPS-9: SQD drains, and a READ that max_rd_atomic 0 forbids fails. */
static void
read_needs_rd_atomic(void)
{
	struct vur_user_qp_attr at = { .qp_state = VUR_USER_QPS_SQD };
	struct vur_user_sge s = rdma_sge(&a, 0, 64);
	struct vur_user_send_wr q;
	uint32_t qa, qb;

	if (!rdma_e2e_ready(&a, &b) || !rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	TAP_EQ(vur_user_modify_qp(a.d, qa, &at, VUR_USER_QP_STATE), 0);
	TAP_EQ(vur_user_query_qp(a.d, qa, 0, &at), 0);
	TAP_EQ(at.qp_state, VUR_USER_QPS_SQD);
	TAP_EQ(at.sq_draining, 0); /* nothing was in flight */
	at.qp_state = VUR_USER_QPS_SQD;
	at.max_rd_atomic = 0;
	TAP_EQ(vur_user_modify_qp(a.d, qa, &at, VUR_USER_QP_STATE | VUR_USER_QP_MAX_QP_RD_ATOMIC),
			0);
	/* posted in SQD: not started until RTS */
	q = rdma_req(0x1101, VUR_USER_WR_RDMA_READ, VUR_USER_SEND_SIGNALED, NULL, 0);
	q.rdma.remote_addr = b.addr;
	q.rdma.rkey = b.mr.rkey;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	TAP_CHECK(rdma_no_cqe(&a, 20));
	at.qp_state = VUR_USER_QPS_RTS;
	TAP_EQ(vur_user_modify_qp(a.d, qa, &at, VUR_USER_QP_STATE), 0);
	EXPECT_CQE_ON(&a, 0x1101, VUR_USER_WC_LOC_QP_OP_ERR, VUR_USER_WC_RDMA_READ, 0, qa);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
}

/*
 * Which data-path thread serves each of a device's QPs: with two, both
 * serve some (QPs are spread one by one, not by device), while the QPs
 * share the device's one CQ.
 */
static void
qps_spread(struct rdma_ep *e, const uint32_t *qpn, int n)
{
	uint64_t dp;
	int on[2] = { 0, 0 }, other = 0;

	for (int i = 0; i < n; i++) {
		dp = qp_counter(e, qpn[i], "data_path");
		if (dp < 2)
			on[dp]++;
		else
			other++;
	}
	printf("# %s: %d QPs on data path 0, %d on 1\n", e->path, on[0], on[1]);
	TAP_EQ(other, 0);
	if (e2e.eal_args == NULL) {
		TAP_EQ(on[0], n);
		return;
	}
	TAP_CHECK(on[0] >= n / 4 && on[1] >= n / 4);
}

/* Each data-path thread counted time in passes that did work (/vur/switch busy_ns). */
static void
data_paths_busy(void)
{
	char json[4096];
	uint64_t dp0 = 0, dp1 = 0;

	TAP_CHECK(telemetry_query(e2e.backend.prefix, "/vur/switch", json, sizeof(json)) > 0);
	TAP_EQ(telemetry_field(json, "dp0", &dp0), 0);
	printf("# busy: data path 0 %" PRIu64 " ns", dp0);
	if (e2e.eal_args != NULL) { /* two data paths, both served QPs */
		TAP_EQ(telemetry_field(json, "dp1", &dp1), 0);
		printf(", 1 %" PRIu64 " ns", dp1);
	}
	printf("\n");
	TAP_CHECK(dp0 > 0 && (e2e.eal_args == NULL || dp1 > 0));
}

/*
 * Rounds of traffic on every pair at once: an unsignaled WRITE and a SEND,
 * or a READ, of 8 KiB each, every byte checked; a QP created, destroyed and
 * another queried while they run. With two data paths both threads work on
 * each device's QPs and CQ at the same time.
 */
static void
pairs_at_once(const uint32_t *qa, const uint32_t *qb, int n)
{
	enum { ROUNDS = 24, LEN = 8192, SLOT = 2 * LEN };
	const uint64_t src = BUF_LEN / 2;
	struct vur_user_send_wr q;
	struct vur_user_sge s, r;
	struct vur_user_wc wc;
	int bad = 0, cqes = 0, want = 0;
	uint32_t extra;

	for (int round = 0; round < ROUNDS && bad == 0; round++) {
		bool read = round % 3 == 2;

		for (int i = 0; i < n; i++) {
			uint64_t off = (uint64_t)i * SLOT;

			if (read) { /* a reads what b holds */
				fill(b.buf + off, LEN, (uint32_t)(round * 64 + i));
				s = rdma_sge(&a, src + off, LEN);
				q = rdma_req(i, VUR_USER_WR_RDMA_READ, VUR_USER_SEND_SIGNALED, NULL,
						0);
				q.rdma.remote_addr = b.addr + off;
				q.rdma.rkey = b.mr.rkey;
				bad += post(&a, qa[i], &q, &s, 1) != 0;
				want++;
				continue;
			}
			fill(a.buf + src + off, SLOT, (uint32_t)(round * 64 + i));
			r = rdma_sge(&b, off + LEN, LEN);
			bad += rdma_post_recv(&b, qb[i], i, &r, 1) != 0;
			s = rdma_sge(&a, src + off, LEN);
			q = rdma_req(i, VUR_USER_WR_RDMA_WRITE, 0, NULL, 0);
			q.rdma.remote_addr = b.addr + off;
			q.rdma.rkey = b.mr.rkey;
			bad += post(&a, qa[i], &q, &s, 1) != 0;
			s = rdma_sge(&a, src + off + LEN, LEN);
			q = rdma_req(i, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);
			bad += post(&a, qa[i], &q, &s, 1) != 0;
			want += 2; /* the SEND's on a, the receive's on b */
		}
		/* control commands meanwhile: the device lock, to write, while both threads work */
		bad += rdma_create_qp(&a, VUR_USER_QPT_RC, &extra) != 0 ||
				vur_user_destroy_qp(a.d, extra) != 0 ||
				rdma_qp_state(&a, qa[round % n]) != VUR_USER_QPS_RTS;
		for (int got = 0; got < (read ? n : 2 * n);) {
			int ga = rdma_next_cqe(&a, &wc);

			bad += ga == 1 && wc.status != VUR_USER_WC_SUCCESS;
			got += ga;
			if (!read && rdma_next_cqe(&b, &wc) == 1) {
				bad += wc.status != VUR_USER_WC_SUCCESS || wc.byte_len != LEN;
				got++;
			} else if (ga == 0) {
				break;
			}
		}
		for (int i = 0; i < n; i++) {
			uint64_t off = (uint64_t)i * SLOT;

			if (read)
				bad += memcmp(a.buf + src + off, b.buf + off, LEN) != 0;
			else
				bad += memcmp(b.buf + off, a.buf + src + off, SLOT) != 0;
		}
		cqes = want;
	}
	printf("# %d rounds on %d pairs: %d CQEs\n", ROUNDS, n, cqes);
	TAP_EQ(bad, 0);
	TAP_CHECK(rdma_no_cqe(&a, 10) && rdma_no_cqe(&b, 10));
	data_paths_busy();
}

/*
 * 64 QPs at once, 32 on each side, a message each way on every pair, then
 * rounds of traffic on all of them; with two data paths each device's QPs
 * are on both, completing into one CQ.
 */
static void
many_qps(void)
{
	enum { PAIRS = 32 };
	uint32_t qa[PAIRS], qb[PAIRS];
	struct vur_user_send_wr q;
	struct vur_user_sge s, r;
	struct vur_user_wc wc;
	int n, ok = 0, got_a = 0, got_b = 0;

	if (!rdma_e2e_ready(&a, &b))
		return;
	for (n = 0; n < PAIRS; n++)
		if (!rdma_rc_pair(&a, &b, &qa[n], &qb[n]))
			break;
	TAP_EQ(n, PAIRS);
	for (int i = 0; i < n; i++) {
		r = rdma_sge(&b, (uint64_t)i * 4096, 4096);
		TAP_EQ(rdma_post_recv(&b, qb[i], 0xf000 + i, &r, 1), 0);
		fill(a.buf + (uint64_t)i * 4096 + (BUF_LEN / 2), 4096, (uint32_t)i);
	}
	for (int i = 0; i < n; i++) {
		s = rdma_sge(&a, (uint64_t)i * 4096 + (BUF_LEN / 2), 4096);
		q = rdma_req(0xf100 + i, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);
		TAP_EQ(post(&a, qa[i], &q, &s, 1), 0);
	}
	for (int i = 0; i < 2 * n; i++) {
		if (got_a < n && rdma_next_cqe(&a, &wc) == 1 && wc.status == 0)
			got_a++;
		if (got_b < n && rdma_next_cqe(&b, &wc) == 1 && wc.status == 0)
			got_b++;
	}
	TAP_EQ(got_a, n);
	TAP_EQ(got_b, n);
	for (int i = 0; i < n; i++)
		ok += memcmp(b.buf + (uint64_t)i * 4096, a.buf + (uint64_t)i * 4096 + (BUF_LEN / 2),
				      4096) == 0;
	TAP_EQ(ok, n);
	qps_spread(&a, qa, n);
	qps_spread(&b, qb, n);
	pairs_at_once(qa, qb, n);
}

/* ROCE-DEV-SEND-9: the peer's frontend is gone; retransmissions run out. */
static void
retry_exhausted(void)
{
	uint32_t qa, qb;
	struct vur_user_sge s = rdma_sge(&a, 0, 100);
	struct vur_user_send_wr q =
			rdma_req(0x1001, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, NULL, 0);
	uint64_t timeouts;

	if (!rdma_e2e_ready(&a, &b) ||
			!rdma_rc_pair_retry(&a, &b, &qa, &qb, 7, 8, 2)) /* timeout 8: about 1 ms */
		return;
	timeouts = rdma_e2e_counter(&e2e, &a, "rdma_timeouts");
	vur_user_close(b.d);
	b.d = NULL;
	TAP_EQ(post(&a, qa, &q, &s, 1), 0);
	EXPECT_CQE_ON(&a, 0x1001, VUR_USER_WC_RETRY_EXC_ERR, VUR_USER_WC_SEND, 0, qa);
	TAP_EQ(rdma_e2e_counter(&e2e, &a, "rdma_timeouts"), timeouts + 3);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
}

/* SIGTERM stops it with status 0: no crash, no leak under LeakSanitizer, nothing left. */
static void
backend_stops_cleanly(void)
{
	rdma_e2e_stop(&e2e, &a, &b);
}

/*
 * Which data-path threads serve the devices: with the EAL arguments this
 * test was given (two worker lcores), two, and the devices, in port slots
 * 0 and 1, on different threads, so that every test here also runs with
 * its two QPs' engines on two threads.
 */
static void
data_paths(void)
{
	char json[4096];
	uint64_t n = 0;

	TAP_CHECK(telemetry_query(e2e.backend.prefix, "/vur/switch", json, sizeof(json)) > 0 &&
			telemetry_field(json, "data_paths", &n) == 0);
	printf("# data paths: %" PRIu64 "; device a on %" PRIu64 ", b on %" PRIu64 "\n", n,
			rdma_e2e_counter(&e2e, &a, "data_path"),
			rdma_e2e_counter(&e2e, &b, "data_path"));
	if (e2e.eal_args == NULL) {
		TAP_CHECK(n >= 1);
		return;
	}
	TAP_EQ(n, 2);
	TAP_CHECK(rdma_e2e_counter(&e2e, &a, "data_path") !=
			rdma_e2e_counter(&e2e, &b, "data_path"));
	TAP_CHECK(rdma_e2e_counter(&e2e, &a, "data_path") < 2 &&
			rdma_e2e_counter(&e2e, &b, "data_path") < 2);
}

/*
 * ROCE-DEV-INIT-4, -5 and DRV-INIT-4: RESET_OBJECTS frees everything of b
 * (as an earlier driver's), leaves b's network device and a alone, and b's
 * new objects on the same numbers and virtqueues move data again.
 */
static void
reset_objects(void)
{
	uint32_t qa, qb, ud;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_CHECK(rdma_rc_pair(&a, &b, &qa, &qb));
	send_checked(qa, qb, 4096, 0xe00, 11);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_UD, &ud), 0);
	TAP_EQ(vur_user_attach_mcast(b.d, ud,
			       (const uint8_t[16]){ [10] = 0xff, [11] = 0xff, 239, 0, 0, 9 }),
			0);
	TAP_EQ(vur_user_reset_objects(b.d), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "qps"), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "cqs"), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "pds"), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mrs"), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "gids"), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_attached"), 0);
	TAP_CHECK(rdma_e2e_counter(&e2e, &a, "qps") >= 1); /* the peer keeps its own */
	TAP_EQ(rdma_ep_objects(&b), 0);
	TAP_CHECK(rdma_rc_pair(&a, &b, &qa, &qb));
	send_checked(qa, qb, 65536, 0xe10, 12);
	rdma_pair_done(&a, &b, qa, qb);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_args(&e2e, argc, argv) < 0)
		return 1;
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_INFO);
	TAP_RUN(devices_open);
	TAP_RUN(data_paths);
	TAP_RUN(rc_send);
	TAP_RUN(rc_write_read);
	TAP_RUN(rc_inline_imm_unsignaled);
	TAP_RUN(ud_send);
	TAP_RUN(uc_send_write);
	TAP_RUN(rc_loopback);
	TAP_RUN(qp_counters);
	TAP_RUN(rnr_then_success);
	TAP_RUN(rnr_retry_exhausted);
	TAP_RUN(bad_keys_and_bounds);
	TAP_RUN(flush_on_error);
	TAP_RUN(cq_notify_and_overrun);
	TAP_RUN(read_needs_rd_atomic);
	TAP_RUN(rc_atomics);
	TAP_RUN(atomic_errors);
	TAP_RUN(many_qps);
	TAP_RUN(reset_objects);
	TAP_RUN(retry_exhausted); /* closes b */
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
