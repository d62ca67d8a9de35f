/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows end to end (IBTA 10.6.7, types 1 and 2B): two devices of
 * one real backend, each driven through its vhost-user socket. Device b
 * registers an MR with MW_BIND (and no remote rights of its own), binds a
 * type 1 and a type 2 window over ranges of it with BIND_MW work
 * requests, and a's RDMA WRITE and READ go through the windows' rkeys,
 * every byte checked; outside a window: REM_ACCESS_ERR. A type 1 window
 * bound again and unbound; a type 2 one refused to another QP, unbound by
 * a's SEND_WITH_INV and by LOCAL_INV; DEREG_MR refused while a window is
 * bound. Then every refusal of a bind (MW_BIND_ERR, ROCE-DEV-MW-7) and of
 * its form (ROCE-DEV-MW-6), each on a fresh pair of QPs.
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
#include <time.h>

#include "child.h"
#include "rdma_pair.h"
#include "tap.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define WAIT_MS  10000
#define BUF_LEN  (1u << 20)
#define MEM_SIZE (8u << 20)
#define IOVA     0x7f6600000000ULL /* b's MR: 64 KiB of its buffer from MR_OFF */
#define MR_OFF   0x10000
#define MR_LEN   0x10000
#define ACC_ALL \
	(VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE | VUR_USER_ACCESS_REMOTE_READ)

static const char *backend_bin;
static const char *const *eal_args;
static struct child backend;
static struct rdma_ep a, b;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
next_cqe(struct rdma_ep *e, struct vur_user_wc *wc)
{
	uint64_t end = now_ms() + WAIT_MS;
	int n;

	do {
		n = vur_user_poll_cq(e->d, e->cqn, wc, 1);
		if (n != 0)
			return n;
		poll(NULL, 0, 1);
	} while (now_ms() < end);
	return 0;
}

/* The next CQE of @e is @wr_id's with @status (and @opcode when it succeeds); it in @out. */
static bool
expect_cqe(struct rdma_ep *e, uint64_t wr_id, uint8_t status, uint8_t opcode,
		struct vur_user_wc *out, int line)
{
	struct vur_user_wc wc;

	if (next_cqe(e, &wc) != 1) {
		printf("# line %d: no CQE for wr_id %#" PRIx64 "\n", line, wr_id);
		tap_case_failed = 1;
		return false;
	}
	if (wc.wr_id != wr_id || wc.status != status || (status == 0 && wc.opcode != opcode)) {
		printf("# line %d: CQE wr_id %#" PRIx64 " status %u (%s) opcode %u, want %#" PRIx64
		       " %u %u\n",
				line, wc.wr_id, wc.status, vur_user_wc_status_str(wc.status),
				wc.opcode, wr_id, status, opcode);
		tap_case_failed = 1;
		return false;
	}
	if (out != NULL)
		*out = wc;
	return true;
}
#define EXPECT_CQE(e, id, st, op)        expect_cqe(e, id, st, op, NULL, __LINE__)
#define EXPECT_CQE_WC(e, id, st, op, wc) expect_cqe(e, id, st, op, wc, __LINE__)

static bool
no_cqe(struct rdma_ep *e, int ms)
{
	struct vur_user_wc wc;

	poll(NULL, 0, ms);
	return vur_user_poll_cq(e->d, e->cqn, &wc, 1) == 0;
}

static void
fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 151 + seed) ^ (i >> 9));
}

/* A fresh pair of connected RC QPs, a's @qa to b's @qb. */
static bool
rc_pair(uint32_t *qa, uint32_t *qb)
{
	int ret = rdma_create_qp(&a, VUR_USER_QPT_RC, qa);

	if (ret == 0)
		ret = rdma_create_qp(&b, VUR_USER_QPT_RC, qb);
	if (ret == 0)
		ret = rdma_connect_qp(&a, *qa, VUR_USER_QPT_RC, &b, *qb, 7, 14, 7);
	if (ret == 0)
		ret = rdma_connect_qp(&b, *qb, VUR_USER_QPT_RC, &a, *qa, 7, 14, 7);
	TAP_EQ(ret, 0);
	return ret == 0;
}

static void
pair_done(uint32_t qa, uint32_t qb)
{
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

static int
qp_state(struct rdma_ep *e, uint32_t qpn)
{
	struct vur_user_qp_attr at;

	return vur_user_query_qp(e->d, qpn, 0, &at) == 0 ? at.qp_state : -1;
}

/* The key of @rkey's window or MR with key byte @b. */
static uint32_t
kb(uint32_t rkey, uint8_t b)
{
	return (rkey & ~0xffu) | b;
}

/* BIND_MW on @e's QP @qpn of the window of @rkey, key byte @b. */
static int
post_bind(struct rdma_ep *e, uint32_t qpn, uint32_t rkey, uint8_t b, uint32_t mr_lkey,
		uint64_t addr, uint64_t len, uint32_t access, uint64_t wr_id)
{
	struct vur_user_send_wr q = {
		.wr_id = wr_id,
		.opcode = VUR_USER_WR_BIND_MW,
		.send_flags = VUR_USER_SEND_SIGNALED,
	};

	q.bind.addr = addr;
	q.bind.length = len;
	q.bind.mr_lkey = mr_lkey;
	q.bind.rkey = kb(rkey, b);
	q.bind.access = access;
	return vur_user_post_send(e->d, qpn, &q, 1, NULL);
}

static int
post_inv(struct rdma_ep *e, uint32_t qpn, uint8_t opcode, uint32_t key, uint64_t wr_id,
		const struct vur_user_sge *s)
{
	struct vur_user_send_wr q = {
		.wr_id = wr_id,
		.opcode = opcode,
		.send_flags = VUR_USER_SEND_SIGNALED,
		.sg_list = s,
		.num_sge = s != NULL ? 1 : 0,
	};

	q.inv.invalidate_rkey = key;
	return vur_user_post_send(e->d, qpn, &q, 1, NULL);
}

/* a's RDMA WRITE or READ of @len bytes at @off of its buffer, to @va of @rkey. */
static int
post_rdma(uint32_t qa, uint8_t opcode, uint64_t off, uint32_t len, uint64_t va, uint32_t rkey,
		uint64_t wr_id)
{
	struct vur_user_sge s = rdma_sge(&a, off, len);
	struct vur_user_send_wr q = rdma_req(wr_id, opcode, VUR_USER_SEND_SIGNALED, &s, 1);

	q.rdma.remote_addr = va;
	q.rdma.rkey = rkey;
	return rdma_post_send(&a, qa, &q);
}

/* b's MR over MR_LEN bytes of its buffer at MR_OFF, from IOVA, with @access. */
static int
b_mr(uint32_t pdn, uint32_t access, struct vur_user_mr *mr)
{
	return vur_user_reg_mr(b.d, pdn, access, b.buf + MR_OFF, MR_LEN, IOVA, mr);
}

#define MR_ACC (VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_MW_BIND)
#define RW     (VUR_USER_ACCESS_REMOTE_READ | VUR_USER_ACCESS_REMOTE_WRITE)

static void
devices_open(void)
{
	const struct child_opts o = { .eal_args = eal_args, .n_sockets = 2 };
	char path[128];
	int ret = child_start(&backend, backend_bin, &o);

	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0)
		return;
	child_sock(&backend, 0, path, sizeof(path));
	TAP_EQ(rdma_ep_open(&a, path, 1, BUF_LEN, MEM_SIZE), 0);
	child_sock(&backend, 1, path, sizeof(path));
	TAP_EQ(rdma_ep_open(&b, path, 2, BUF_LEN, MEM_SIZE), 0);
}

static bool
ready(void)
{
	if (a.d == NULL || b.d == NULL) {
		tap_case_failed = 1;
		return false;
	}
	return true;
}

/* QUERY_DEVICE: MEM_WINDOW and max_mw (ROCE-DEV-ATTR-15). */
static void
device_caps(void)
{
	struct vur_user_device_attr at;

	if (!ready())
		return;
	TAP_EQ(vur_user_query_device(b.d, &at), 0);
	TAP_CHECK(at.device_cap_flags & VUR_USER_DEVICE_MEM_WINDOW);
	TAP_EQ(at.max_mw, 4096);
}

/* ROCE-DEV-MW-1 to -3: ALLOC_MW's and DEALLOC_MW's refusals; MW_BIND on MRs (MR-15). */
static void
alloc_mw_refusals(void)
{
	struct vur_user_mw w1, w2;
	struct vur_user_mr mr;

	if (!ready())
		return;
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn + 100, VUR_USER_MW_TYPE_1, &w1), -EREMOTEIO);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, 0, &w1), -EREMOTEIO);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, 3, &w1), -EREMOTEIO);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_1, &w1), 0);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_2, &w2), 0);
	TAP_CHECK(w1.mwn != w2.mwn && (w1.rkey & ~0xffu) != (w2.rkey & ~0xffu));
	TAP_EQ(w1.rkey & 0xff, 0);
	TAP_EQ(w2.rkey & 0xff, 0);
	TAP_CHECK((w1.rkey & ~0xffu) != (b.mr.rkey & ~0xffu));
	TAP_EQ(vur_user_dealloc_mw(b.d, w2.mwn + 1000), -EREMOTEIO);
	TAP_EQ(vur_user_dealloc_mw(b.d, w1.mwn), 0);
	TAP_EQ(vur_user_dealloc_mw(b.d, w1.mwn), -EREMOTEIO);
	TAP_EQ(vur_user_dealloc_mw(b.d, w2.mwn), 0);
	TAP_EQ(b_mr(b.pdn, MR_ACC, &mr), 0);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
	TAP_EQ(vur_user_get_dma_mr(b.d, b.pdn, VUR_USER_ACCESS_MW_BIND, &mr), 0);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
}

/* Whether b's MR bytes [@off, @off + @len) are a's buffer from @aoff. */
static bool
b_has(uint64_t off, uint64_t aoff, uint32_t len)
{
	return memcmp(b.buf + MR_OFF + off, a.buf + aoff, len) == 0;
}

/*
 * ROCE-DEV-MW-8, -9: a type 1 and a type 2 window over b's MR; a's WRITE
 * and READ through them, every byte checked; the type 1 window bound again
 * (the old key then misses) and unbound; DEREG_MR refused while bound
 * (MW-5); outside a window: REM_ACCESS_ERR.
 */
static void
bind_and_access(void)
{
	struct vur_user_mw w1, w2;
	struct vur_user_mr mr;
	uint32_t qa, qb, k1, k2;

	if (!ready() || !rc_pair(&qa, &qb))
		return;
	TAP_EQ(b_mr(b.pdn, MR_ACC, &mr), 0);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_1, &w1), 0);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_2, &w2), 0);
	memset(b.buf + MR_OFF, 0, MR_LEN);
	k1 = kb(w1.rkey, 0x11);
	k2 = kb(w2.rkey, 0x22);
	TAP_EQ(post_bind(&b, qb, w1.rkey, 0x11, mr.lkey, IOVA + 0x1000, 0x2000, RW, 1), 0);
	TAP_EQ(post_bind(&b, qb, w2.rkey, 0x22, mr.lkey, IOVA + 0x4000, 0x1000, RW, 2), 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	EXPECT_CQE(&b, 2, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	/* WRITE the whole type 1 window, READ it back through the type 2 one after a copy */
	fill(a.buf, 0x2000, 7);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 0x2000, IOVA + 0x1000, k1, 3), 0);
	EXPECT_CQE(&a, 3, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	TAP_CHECK(b_has(0x1000, 0, 0x2000));
	TAP_CHECK(b.buf[MR_OFF + 0xfff] == 0 && b.buf[MR_OFF + 0x3000] == 0);
	fill(a.buf + 0x4000, 0x1000, 9);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0x4000, 0x1000, IOVA + 0x4000, k2, 4), 0);
	EXPECT_CQE(&a, 4, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	memset(a.buf + 0x8000, 0, 0x1000);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_READ, 0x8000, 0xf00, IOVA + 0x4100, k2, 5), 0);
	EXPECT_CQE(&a, 5, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_READ);
	TAP_CHECK(memcmp(a.buf + 0x8000, a.buf + 0x4100, 0xf00) == 0);
	/* type 1 bound again with a new key byte, over another range */
	TAP_EQ(post_bind(&b, qb, w1.rkey, 0x12, mr.lkey, IOVA + 0x8000, 0x100,
			       VUR_USER_ACCESS_REMOTE_WRITE, 6),
			0);
	EXPECT_CQE(&b, 6, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	fill(a.buf, 0x100, 3);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 0x100, IOVA + 0x8000, kb(k1, 0x12), 7), 0);
	EXPECT_CQE(&a, 7, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	TAP_CHECK(b_has(0x8000, 0, 0x100));
	/* ROCE-DEV-MW-5: DEREG_MR refused while windows are bound */
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), -EREMOTEIO);
	/* unbind the type 1 window: addr 0, length 0 */
	TAP_EQ(post_bind(&b, qb, w1.rkey, 0x13, 0, 0, 0, 0, 8), 0);
	EXPECT_CQE(&b, 8, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	/* outside the type 2 window by one byte */
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 0x100, IOVA + 0x4f01, k2, 9), 0);
	EXPECT_CQE(&a, 9, VUR_USER_WC_REM_ACCESS_ERR, 0);
	TAP_CHECK(no_cqe(&a, 20) && no_cqe(&b, 0));
	pair_done(qa, qb);
	/* the old key of the rebound type 1 window, then the unbound one: on fresh pairs */
	for (int i = 0; i < 2; i++) {
		if (!rc_pair(&qa, &qb))
			return;
		TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 8,
				       i == 0 ? IOVA + 0x1000 : IOVA + 0x8000,
				       i == 0 ? k1 : kb(k1, 0x12), 10),
				0);
		EXPECT_CQE(&a, 10, VUR_USER_WC_REM_ACCESS_ERR, 0);
		pair_done(qa, qb);
	}
	/* DEALLOC_MW of the bound type 2 window frees the MR (ROCE-DEV-MW-3) */
	TAP_EQ(vur_user_dealloc_mw(b.d, w2.mwn), 0);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
	TAP_EQ(vur_user_dealloc_mw(b.d, w1.mwn), 0);
}

/*
 * A type 2 window: only the QP that bound it accepts accesses (MW-9), no
 * second bind while bound; a's SEND_WITH_INV of its key on that QP unbinds
 * it (MW-12: b's receive says so); bound again, LOCAL_INV on another QP
 * of the PD (MW-10); LOCAL_INV of a type 1 window's key and of an MR with
 * a window bound: LOC_QP_OP_ERR (MW-11).
 */
static void
type2_and_invalidation(void)
{
	struct vur_user_sge r = rdma_sge(&b, 0x20000, 64), s = rdma_sge(&a, 0x40000, 16);
	uint32_t qa, qb, qa2, qb2, k2;
	struct vur_user_mw w1, w2;
	struct vur_user_mr mr;
	struct vur_user_wc wc;

	if (!ready() || !rc_pair(&qa, &qb) || !rc_pair(&qa2, &qb2))
		return;
	TAP_EQ(b_mr(b.pdn, MR_ACC, &mr), 0);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_2, &w2), 0);
	k2 = kb(w2.rkey, 1);
	TAP_EQ(post_bind(&b, qb, w2.rkey, 1, mr.lkey, IOVA, 0x1000, RW, 1), 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 64, IOVA, k2, 2), 0);
	EXPECT_CQE(&a, 2, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	/* through the other pair: refused */
	TAP_EQ(post_rdma(qa2, VUR_USER_WR_RDMA_READ, 0, 64, IOVA, k2, 3), 0);
	EXPECT_CQE(&a, 3, VUR_USER_WC_REM_ACCESS_ERR, 0);
	pair_done(qa2, qb2);
	/* SEND_WITH_INV of its key on its QP */
	TAP_EQ(rdma_post_recv(&b, qb, 4, &r, 1), 0);
	fill(a.buf + 0x40000, 16, 5);
	TAP_EQ(post_inv(&a, qa, VUR_USER_WR_SEND_WITH_INV, k2, 5, &s), 0);
	EXPECT_CQE(&a, 5, VUR_USER_WC_SUCCESS, VUR_USER_WC_SEND);
	if (EXPECT_CQE_WC(&b, 4, VUR_USER_WC_SUCCESS, VUR_USER_WC_RECV, &wc)) {
		TAP_EQ(wc.wc_flags, VUR_USER_WC_WITH_INV);
		TAP_EQ(wc.invalidate_rkey, k2);
	}
	/* unbound now: DEREG_MR works, the key misses */
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 64, IOVA, k2, 6), 0);
	EXPECT_CQE(&a, 6, VUR_USER_WC_REM_ACCESS_ERR, 0);
	pair_done(qa, qb);
	/* bound again (a new key byte), invalidated by LOCAL_INV on another QP */
	if (!rc_pair(&qa, &qb) || !rc_pair(&qa2, &qb2))
		return;
	k2 = kb(w2.rkey, 2);
	TAP_EQ(post_bind(&b, qb, w2.rkey, 2, mr.lkey, IOVA, 0x1000, RW, 7), 0);
	EXPECT_CQE(&b, 7, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), -EREMOTEIO);
	TAP_EQ(post_inv(&b, qb2, VUR_USER_WR_LOCAL_INV, k2, 8, NULL), 0);
	EXPECT_CQE(&b, 8, VUR_USER_WC_SUCCESS, VUR_USER_WC_LOCAL_INV);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 64, IOVA, k2, 9), 0);
	EXPECT_CQE(&a, 9, VUR_USER_WC_REM_ACCESS_ERR, 0);
	/* unbound already, the same key: success */
	TAP_EQ(post_inv(&b, qb2, VUR_USER_WR_LOCAL_INV, k2, 10, NULL), 0);
	EXPECT_CQE(&b, 10, VUR_USER_WC_SUCCESS, VUR_USER_WC_LOCAL_INV);
	/* a type 1 window's key: LOC_QP_OP_ERR */
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_1, &w1), 0);
	TAP_EQ(post_bind(&b, qb2, w1.rkey, 3, mr.lkey, IOVA, 8, RW, 11), 0);
	EXPECT_CQE(&b, 11, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	TAP_EQ(post_inv(&b, qb2, VUR_USER_WR_LOCAL_INV, kb(w1.rkey, 3), 12, NULL), 0);
	EXPECT_CQE(&b, 12, VUR_USER_WC_LOC_QP_OP_ERR, 0);
	pair_done(qa, qb);
	pair_done(qa2, qb2);
	TAP_EQ(vur_user_dealloc_mw(b.d, w1.mwn), 0);
	TAP_EQ(vur_user_dealloc_mw(b.d, w2.mwn), 0);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
}

/* LOCAL_INV of a fast MR with a window bound: LOC_QP_OP_ERR (ROCE-DEV-MW-11). */
static void
invalidate_mr_with_window(void)
{
	struct vur_user_sge pl;
	struct vur_user_send_wr q = {
		.wr_id = 1,
		.opcode = VUR_USER_WR_REG_MR,
		.send_flags = VUR_USER_SEND_SIGNALED,
		.sg_list = &pl,
		.num_sge = 1,
	};
	struct vur_user_mr fmr;
	struct vur_user_mw w1;
	uint64_t *list;
	uint32_t qa, qb;

	if (!ready() || !rc_pair(&qa, &qb))
		return;
	list = vur_user_alloc_buf(b.d, 4096);
	TAP_CHECK(list != NULL);
	if (list == NULL)
		return;
	list[0] = htole64(b.addr + 0x30000);
	pl = (struct vur_user_sge){ .addr = vur_user_driver_addr(b.d, list), .length = 8 };
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 1, &fmr), 0);
	q.reg.iova = 0x9000;
	q.reg.length = 4096;
	q.reg.key = kb(fmr.rkey, 4);
	q.reg.access = MR_ACC;
	q.reg.page_shift = 12;
	TAP_EQ(vur_user_post_send(b.d, qb, &q, 1, NULL), 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_REG_MR);
	TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_1, &w1), 0);
	TAP_EQ(post_bind(&b, qb, w1.rkey, 1, kb(fmr.rkey, 4), 0x9100, 0x100, RW, 2), 0);
	EXPECT_CQE(&b, 2, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
	fill(a.buf, 0x100, 1);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 0x100, 0x9100, kb(w1.rkey, 1), 3), 0);
	EXPECT_CQE(&a, 3, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	TAP_CHECK(memcmp(b.buf + 0x30100, a.buf, 0x100) == 0);
	TAP_EQ(post_inv(&b, qb, VUR_USER_WR_LOCAL_INV, kb(fmr.rkey, 4), 4, NULL), 0);
	EXPECT_CQE(&b, 4, VUR_USER_WC_LOC_QP_OP_ERR, 0);
	TAP_EQ(vur_user_dereg_mr(b.d, fmr.mrn), -EREMOTEIO);
	pair_done(qa, qb);
	TAP_EQ(vur_user_dealloc_mw(b.d, w1.mwn), 0);
	TAP_EQ(vur_user_dereg_mr(b.d, fmr.mrn), 0);
	vur_user_free_buf(b.d, list);
}

enum bad {
	BAD_NO_MW,       /* a key no MW has */
	BAD_MW_PD,       /* an MW of another PD */
	BAD_T2_BOUND,    /* a type 2 MW bound already */
	BAD_T2_ZERO,     /* a type 2 MW, length 0 */
	BAD_MR_NO_BIND,  /* an MR without MW_BIND */
	BAD_MR_PD,       /* an MR of another PD */
	BAD_MR_INVALID,  /* a fast MR not registered */
	BAD_RANGE,       /* past the end of the MR */
	BAD_ACCESS,      /* LOCAL_WRITE in the window's rights */
	BAD_NO_LOCAL_WR, /* REMOTE_WRITE over an MR without LOCAL_WRITE */
	BAD_UC,          /* BIND_MW_ERR on a UC QP: SQE, not ERR */
	BAD_SGE,         /* num_sge 1 (ROCE-DEV-MW-6) */
	BAD_INLINE,      /* SEND_INLINE (ROCE-DEV-MW-6) */
	BAD_UD,          /* on a UD QP (ROCE-DEV-MW-6) */
	BAD_COUNT
};

static const char *const bad_names[BAD_COUNT] = {
	"BIND_MW of no MW",
	"BIND_MW of another PD's MW",
	"BIND_MW of a bound type 2 MW",
	"BIND_MW of a type 2 MW, length 0",
	"BIND_MW over an MR without MW_BIND",
	"BIND_MW over another PD's MR",
	"BIND_MW over a free fast MR",
	"BIND_MW past the MR's end",
	"BIND_MW with LOCAL_WRITE",
	"BIND_MW with REMOTE_WRITE over an MR without LOCAL_WRITE",
	"BIND_MW refused on UC",
	"BIND_MW with an s/g element",
	"BIND_MW inline",
	"BIND_MW on UD",
};

/* Each refusal: MW_BIND_ERR (LOC_QP_OP_ERR for MW-6), the QP to ERR or SQE, the next WR flushed. */
static void
bind_refusals(void)
{
	for (int c = 0; c < BAD_COUNT; c++) {
		struct vur_user_mr mr, ro, nobind, omr, fmr;
		struct vur_user_mw w1, w2, ow;
		struct vur_user_sge sge = rdma_sge(&b, 0, 8);
		struct vur_user_send_wr q = {
			.wr_id = 2,
			.opcode = VUR_USER_WR_BIND_MW,
			.send_flags = VUR_USER_SEND_SIGNALED,
		};
		uint8_t type = VUR_USER_QPT_RC, want = VUR_USER_WC_MW_BIND_ERR;
		uint32_t qa = 0, qb, pd2;

		if (!ready())
			return;
		printf("# %s\n", bad_names[c]);
		if (c == BAD_UC)
			type = VUR_USER_QPT_UC;
		if (c == BAD_UD)
			type = VUR_USER_QPT_UD;
		if (type == VUR_USER_QPT_RC) {
			if (!rc_pair(&qa, &qb))
				return;
		} else {
			TAP_EQ(rdma_create_qp(&b, type, &qb), 0);
			TAP_EQ(rdma_connect_qp(&b, qb, type, &a, a.qpn, 0, 0, 0), 0);
		}
		TAP_EQ(vur_user_create_pd(b.d, &pd2), 0);
		TAP_EQ(b_mr(b.pdn, MR_ACC, &mr), 0);
		TAP_EQ(b_mr(b.pdn, VUR_USER_ACCESS_MW_BIND, &ro), 0);
		TAP_EQ(b_mr(b.pdn, VUR_USER_ACCESS_LOCAL_WRITE, &nobind), 0);
		TAP_EQ(b_mr(pd2, MR_ACC, &omr), 0);
		TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 1, &fmr), 0);
		TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_1, &w1), 0);
		TAP_EQ(vur_user_alloc_mw(b.d, b.pdn, VUR_USER_MW_TYPE_2, &w2), 0);
		TAP_EQ(vur_user_alloc_mw(b.d, pd2, VUR_USER_MW_TYPE_1, &ow), 0);
		if (c == BAD_T2_BOUND) {
			TAP_EQ(post_bind(&b, qb, w2.rkey, 1, mr.lkey, IOVA, 8, RW, 1), 0);
			EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_BIND_MW);
		}
		q.bind.addr = IOVA;
		q.bind.length = 0x100;
		q.bind.mr_lkey = mr.lkey;
		q.bind.rkey = kb(c == BAD_T2_BOUND || c == BAD_T2_ZERO ? w2.rkey : w1.rkey, 9);
		q.bind.access = RW;
		switch (c) {
		case BAD_NO_MW:
			q.bind.rkey = 9;
			break;
		case BAD_MW_PD:
			q.bind.rkey = kb(ow.rkey, 9);
			q.bind.mr_lkey = omr.lkey;
			break;
		case BAD_T2_ZERO:
			q.bind.addr = q.bind.length = 0;
			break;
		case BAD_MR_NO_BIND:
			q.bind.mr_lkey = nobind.lkey;
			break;
		case BAD_MR_PD:
			q.bind.mr_lkey = omr.lkey;
			break;
		case BAD_MR_INVALID:
			q.bind.mr_lkey = fmr.lkey;
			break;
		case BAD_RANGE:
			q.bind.addr = IOVA + MR_LEN - 0xff;
			break;
		case BAD_ACCESS:
			q.bind.access |= VUR_USER_ACCESS_LOCAL_WRITE;
			break;
		case BAD_NO_LOCAL_WR:
			q.bind.mr_lkey = ro.lkey;
			break;
		case BAD_UC:
			q.bind.mr_lkey = nobind.lkey;
			break;
		case BAD_SGE:
			q.sg_list = &sge;
			q.num_sge = 1;
			want = VUR_USER_WC_LOC_QP_OP_ERR;
			break;
		case BAD_INLINE:
			q.send_flags |= VUR_USER_SEND_INLINE;
			want = VUR_USER_WC_LOC_QP_OP_ERR;
			break;
		case BAD_UD:
			want = VUR_USER_WC_LOC_QP_OP_ERR;
			break;
		}
		TAP_EQ(vur_user_post_send(b.d, qb, &q, 1, NULL), 0);
		q.wr_id = 3; /* after it: flushed */
		q.send_flags = VUR_USER_SEND_SIGNALED;
		q.sg_list = NULL;
		q.num_sge = 0;
		TAP_EQ(vur_user_post_send(b.d, qb, &q, 1, NULL), 0);
		EXPECT_CQE(&b, 2, want, 0);
		EXPECT_CQE(&b, 3, VUR_USER_WC_WR_FLUSH_ERR, 0);
		TAP_EQ(qp_state(&b, qb),
				type == VUR_USER_QPT_RC ? VUR_USER_QPS_ERR : VUR_USER_QPS_SQE);
		TAP_CHECK(no_cqe(&b, 10) && no_cqe(&a, 0));
		/* the windows as they were: no MR holds one (but the bound type 2) */
		TAP_EQ(vur_user_dereg_mr(b.d, ro.mrn), 0);
		TAP_EQ(vur_user_dereg_mr(b.d, nobind.mrn), 0);
		TAP_EQ(vur_user_dereg_mr(b.d, omr.mrn), 0);
		TAP_EQ(vur_user_dereg_mr(b.d, fmr.mrn), 0);
		TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), c == BAD_T2_BOUND ? -EREMOTEIO : 0);
		TAP_EQ(vur_user_dealloc_mw(b.d, w1.mwn), 0);
		TAP_EQ(vur_user_dealloc_mw(b.d, w2.mwn), 0);
		TAP_EQ(vur_user_dealloc_mw(b.d, ow.mwn), 0);
		if (c == BAD_T2_BOUND)
			TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
		TAP_EQ(vur_user_destroy_pd(b.d, pd2), 0);
		if (type == VUR_USER_QPT_RC)
			pair_done(qa, qb);
		else
			TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	}
}

static void
backend_stops_cleanly(void)
{
	int status;

	if (a.d != NULL)
		vur_user_close(a.d);
	if (b.d != NULL)
		vur_user_close(b.d);
	a.d = b.d = NULL;
	status = child_stop(&backend, SIGTERM, WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&backend);
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
		eal_args = (const char *const *)argv + 2;
	signal(SIGPIPE, SIG_IGN);
	TAP_RUN(devices_open);
	TAP_RUN(device_caps);
	TAP_RUN(alloc_mw_refusals);
	TAP_RUN(bind_and_access);
	TAP_RUN(type2_and_invalidation);
	TAP_RUN(invalidate_mr_with_window);
	TAP_RUN(bind_refusals);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
