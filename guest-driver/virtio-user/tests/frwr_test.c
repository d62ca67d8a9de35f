/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fast registration and invalidation end to end (IBTA's Base Memory
 * Management Extensions, what NVMe over Fabrics and NFS over RDMA use):
 * two devices of one real backend, each driven through its vhost-user
 * socket. Device b allocates an MR (ALLOC_MR), registers it with a REG_MR
 * work request over pages of its memory listed out of order, and a's RDMA
 * WRITE and READ go through the new rkey, every byte checked where the
 * page list puts it; a's SEND_WITH_INV invalidates it (b's receive says
 * so, with the key), and a WRITE with that key fails; it registers again
 * with a new key byte; LOCAL_INV. Then every refusal the engine has for
 * them, each on a fresh pair of RC QPs (an error moves a QP to ERR).
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
#define IOVA     0x7f5500000100ULL /* offset 0x100 in its first page */
#define ACC_ALL \
	(VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE | VUR_USER_ACCESS_REMOTE_READ)

static const char *backend_bin;
static const char *const *eal_args;
static struct child backend;
static struct rdma_ep a, b;
static uint64_t *page_list; /* b's: where REG_MR's page lists are written */
static uint64_t page_list_addr;

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

static uint32_t
key_with(const struct vur_user_mr *mr, uint8_t key_byte)
{
	return (mr->rkey & ~0xffu) | key_byte;
}

/* What a REG_MR asks. */
struct reg {
	uint32_t key;
	uint64_t iova, length;
	uint32_t access;
	uint8_t page_shift;
	const uint64_t *pages; /* driver addresses */
	uint32_t npages;
};

/* b posts REG_MR @r on its QP @qb, the page list written to page_list. */
static int
post_reg(uint32_t qb, const struct reg *r, uint64_t wr_id)
{
	struct vur_user_sge pl = { .addr = page_list_addr, .length = r->npages * 8, .lkey = 0 };
	struct vur_user_send_wr q = {
		.wr_id = wr_id,
		.opcode = VUR_USER_WR_REG_MR,
		.send_flags = VUR_USER_SEND_SIGNALED,
		.sg_list = &pl,
		.num_sge = 1,
	};

	for (uint32_t i = 0; i < r->npages; i++)
		page_list[i] = htole64(r->pages[i]);
	q.reg.iova = r->iova;
	q.reg.length = r->length;
	q.reg.key = r->key;
	q.reg.access = r->access;
	q.reg.page_shift = r->page_shift;
	return vur_user_post_send(b.d, qb, &q, 1, NULL);
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

/* Three pages of b's buffer, listed out of order, and a range over them from IOVA. */
static const uint64_t page_offs[3] = { 0x5000, 0x1000, 0x3000 };

static struct reg
reg_of(const struct vur_user_mr *mr, uint8_t key_byte, uint64_t *pages)
{
	for (int i = 0; i < 3; i++)
		pages[i] = b.addr + page_offs[i];
	return (struct reg){
		.key = key_with(mr, key_byte),
		.iova = IOVA,
		.length = 3 * 4096 - 0x100 - 0x10,
		.access = ACC_ALL,
		.page_shift = 12,
		.pages = pages,
		.npages = 3,
	};
}

/* Where byte @x of the MR of reg_of() is in b's buffer. */
static uint8_t *
mr_byte(uint64_t x)
{
	uint64_t pos = 0x100 + x;

	return b.buf + page_offs[pos / 4096] + pos % 4096;
}

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
	page_list = b.d != NULL ? vur_user_alloc_buf(b.d, 8192) : NULL;
	TAP_CHECK(page_list != NULL);
	page_list_addr = page_list != NULL ? vur_user_driver_addr(b.d, page_list) : 0;
}

static bool
ready(void)
{
	if (a.d == NULL || b.d == NULL || page_list == NULL) {
		tap_case_failed = 1;
		return false;
	}
	return true;
}

/* QUERY_DEVICE says the extensions are there, and how many pages a REG_MR binds. */
static void
device_caps(void)
{
	struct vur_user_device_attr at;

	if (!ready())
		return;
	TAP_EQ(vur_user_query_device(b.d, &at), 0);
	TAP_CHECK(at.device_cap_flags & VUR_USER_DEVICE_MEM_MGT_EXTENSIONS);
	TAP_EQ(at.max_fast_reg_page_list_len, 512);
}

/* ALLOC_MR's refusals: a PD that is not live, max_num_sg 0 or above 512. */
static void
alloc_mr_refusals(void)
{
	struct vur_user_mr mr;

	if (!ready())
		return;
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn + 100, 8, &mr), -EREMOTEIO);
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 0, &mr), -EREMOTEIO);
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 513, &mr), -EREMOTEIO);
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 512, &mr), 0);
	TAP_EQ(mr.lkey, mr.rkey);
	TAP_EQ(mr.rkey & 0xff, 0);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
}

/*
 * ALLOC_MR -> REG_MR -> a's WRITE and READ through the new rkey, the bytes
 * where the page list puts them -> a's SEND_WITH_INV invalidates it (b's
 * receive: WITH_INV and the key) -> a WRITE with that key: REM_ACCESS_ERR
 * -> REG_MR with a new key byte, a WRITE through it; LOCAL_INV, a READ
 * with that key: REM_ACCESS_ERR.
 */
static void
register_use_invalidate(void)
{
	const uint32_t len = 3 * 4096 - 0x100 - 0x10;
	struct vur_user_sge r = rdma_sge(&b, 0x20000, 64), s = rdma_sge(&a, 0x40000, 16);
	struct vur_user_mr mr;
	struct vur_user_wc wc;
	uint64_t pages[3];
	struct reg reg;
	uint32_t qa, qb, key;
	bool same = true;

	if (!ready() || !rc_pair(&qa, &qb))
		return;
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 8, &mr), 0);
	reg = reg_of(&mr, 0x11, pages);
	key = reg.key;
	memset(b.buf, 0, 0x8000);
	TAP_EQ(post_reg(qb, &reg, 1), 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_REG_MR);
	/* a WRITE of the whole MR, then a READ of it back */
	fill(a.buf, len, 7);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, len, IOVA, key, 2), 0);
	EXPECT_CQE(&a, 2, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	for (uint32_t x = 0; x < len; x++)
		same = same && *mr_byte(x) == a.buf[x];
	TAP_CHECK(same);
	TAP_CHECK(b.buf[0x5000 + 0xff] == 0 && b.buf[0x3000 + 4096 - 0x10] == 0); /* not around */
	memset(a.buf + 0x10000, 0, len);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_READ, 0x10000, len - 100, IOVA + 100, key, 3), 0);
	EXPECT_CQE(&a, 3, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_READ);
	TAP_CHECK(memcmp(a.buf + 0x10000, a.buf + 100, len - 100) == 0);
	/* a's SEND_WITH_INV: b's receive invalidates the MR */
	TAP_EQ(rdma_post_recv(&b, qb, 4, &r, 1), 0);
	fill(a.buf + 0x40000, 16, 9);
	TAP_EQ(post_inv(&a, qa, VUR_USER_WR_SEND_WITH_INV, key, 5, &s), 0);
	EXPECT_CQE(&a, 5, VUR_USER_WC_SUCCESS, VUR_USER_WC_SEND);
	if (EXPECT_CQE_WC(&b, 4, VUR_USER_WC_SUCCESS, VUR_USER_WC_RECV, &wc)) {
		TAP_EQ(wc.wc_flags, VUR_USER_WC_WITH_INV);
		TAP_EQ(wc.invalidate_rkey, key);
		TAP_EQ(wc.byte_len, 16);
		TAP_CHECK(memcmp(b.buf + 0x20000, a.buf + 0x40000, 16) == 0);
	}
	/* the old key is gone: the WRITE fails and both QPs go to ERR */
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 64, IOVA, key, 6), 0);
	EXPECT_CQE(&a, 6, VUR_USER_WC_REM_ACCESS_ERR, 0);
	TAP_EQ(qp_state(&a, qa), VUR_USER_QPS_ERR);
	TAP_CHECK(no_cqe(&a, 20) && no_cqe(&b, 0));
	pair_done(qa, qb);
	/* registered again, with a new key byte, on a new pair */
	if (!rc_pair(&qa, &qb))
		return;
	reg = reg_of(&mr, 0x12, pages);
	TAP_EQ(post_reg(qb, &reg, 7), 0);
	EXPECT_CQE(&b, 7, VUR_USER_WC_SUCCESS, VUR_USER_WC_REG_MR);
	fill(a.buf, 300, 11);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 300, IOVA + 4000, reg.key, 8), 0);
	EXPECT_CQE(&a, 8, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	same = true;
	for (uint32_t x = 0; x < 300; x++)
		same = same && *mr_byte(4000 + x) == a.buf[x];
	TAP_CHECK(same);
	/* LOCAL_INV on b's QP: a READ with that key then fails */
	TAP_EQ(post_inv(&b, qb, VUR_USER_WR_LOCAL_INV, reg.key, 9, NULL), 0);
	EXPECT_CQE(&b, 9, VUR_USER_WC_SUCCESS, VUR_USER_WC_LOCAL_INV);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_READ, 0, 64, IOVA, reg.key, 10), 0);
	EXPECT_CQE(&a, 10, VUR_USER_WC_REM_ACCESS_ERR, 0);
	TAP_CHECK(no_cqe(&a, 20) && no_cqe(&b, 0));
	pair_done(qa, qb);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
}

/* A 64 KiB-page registration (page_shift 16): a WRITE across its two pages. */
static void
large_pages(void)
{
	uint64_t pages[2] = { 0, 0 };
	struct vur_user_mr mr;
	struct reg reg;
	uint32_t qa, qb;
	uint64_t base;

	if (!ready() || !rc_pair(&qa, &qb))
		return;
	/* 64 KiB aligned pages inside b's buffer: the second before the first */
	base = (b.addr + 0xffff) & ~0xffffULL;
	pages[0] = base + 0x20000;
	pages[1] = base;
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 2, &mr), 0);
	reg = (struct reg){ .key = key_with(&mr, 3),
		.iova = 0x1230000 + 0xff00,
		.length = 0x200,
		.access = ACC_ALL,
		.page_shift = 16,
		.pages = pages,
		.npages = 2 };
	TAP_EQ(post_reg(qb, &reg, 1), 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_REG_MR);
	fill(a.buf, 0x200, 5);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 0x200, reg.iova, reg.key, 2), 0);
	EXPECT_CQE(&a, 2, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	TAP_CHECK(memcmp(b.buf + (pages[0] - b.addr) + 0xff00, a.buf, 0x100) == 0);
	TAP_CHECK(memcmp(b.buf + (pages[1] - b.addr), a.buf + 0x100, 0x100) == 0);
	pair_done(qa, qb);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
}

enum bad {
	BAD_REG_VALID,      /* REG_MR of an MR that is valid */
	BAD_REG_OTHER_PD,   /* of an MR of another PD */
	BAD_REG_TOO_MANY,   /* more pages than its max_num_sg */
	BAD_REG_MISALIGNED, /* a page not aligned to its size */
	BAD_REG_OUTSIDE,    /* a page outside driver memory */
	BAD_REG_USER_MR,    /* the key of a user MR */
	BAD_INV_KEY_BYTE,   /* LOCAL_INV with another key byte */
	BAD_COUNT
};

static const char *const bad_names[BAD_COUNT] = {
	"REG_MR of a valid MR",
	"REG_MR of another PD's MR",
	"REG_MR of more pages than max_num_sg",
	"REG_MR of a misaligned page",
	"REG_MR of a page outside driver memory",
	"REG_MR of a user MR",
	"LOCAL_INV with another key byte",
};

/* Each refusal of a local op: LOC_QP_OP_ERR, the QP to ERR, the WR after it flushed. */
static void
local_op_refusals(void)
{
	for (int c = 0; c < BAD_COUNT; c++) {
		struct vur_user_mr mr, other, user;
		uint64_t pages[4];
		uint32_t qa, qb, pd2;
		struct reg reg;
		int ret;

		if (!ready() || !rc_pair(&qa, &qb))
			return;
		printf("# %s\n", bad_names[c]);
		TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 3, &mr), 0);
		TAP_EQ(vur_user_create_pd(b.d, &pd2), 0);
		TAP_EQ(vur_user_alloc_mr(b.d, pd2, 3, &other), 0);
		TAP_EQ(vur_user_reg_mr(b.d, b.pdn, ACC_ALL, b.buf, 4096, 0x10000, &user), 0);
		reg = reg_of(&mr, 0x21, pages);
		if (c == BAD_REG_VALID || c == BAD_INV_KEY_BYTE) {
			TAP_EQ(post_reg(qb, &reg, 1), 0);
			EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_REG_MR);
		}
		switch (c) {
		case BAD_REG_OTHER_PD:
			reg.key = key_with(&other, 0x21);
			break;
		case BAD_REG_TOO_MANY:
			pages[3] = b.addr + 0x7000;
			reg.npages = 4;
			break;
		case BAD_REG_MISALIGNED:
			pages[1] += 0x800;
			break;
		case BAD_REG_OUTSIDE:
			pages[2] = 0xdead00000000ULL;
			break;
		case BAD_REG_USER_MR:
			reg.key = user.rkey;
			break;
		}
		if (c == BAD_INV_KEY_BYTE)
			ret = post_inv(&b, qb, VUR_USER_WR_LOCAL_INV, key_with(&mr, 0x22), 2, NULL);
		else
			ret = post_reg(qb, &reg, 2);
		TAP_EQ(ret, 0);
		TAP_EQ(post_inv(&b, qb, VUR_USER_WR_LOCAL_INV, key_with(&mr, 0x21), 3, NULL), 0);
		EXPECT_CQE(&b, 2, VUR_USER_WC_LOC_QP_OP_ERR, 0);
		EXPECT_CQE(&b, 3, VUR_USER_WC_WR_FLUSH_ERR, 0);
		TAP_EQ(qp_state(&b, qb), VUR_USER_QPS_ERR);
		TAP_CHECK(no_cqe(&b, 10) && no_cqe(&a, 0));
		pair_done(qa, qb);
		TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
		TAP_EQ(vur_user_dereg_mr(b.d, other.mrn), 0);
		TAP_EQ(vur_user_dereg_mr(b.d, user.mrn), 0);
		TAP_EQ(vur_user_destroy_pd(b.d, pd2), 0);
	}
}

/*
 * a's SEND_WITH_INV naming a user MR of b: b's receive fails
 * REM_INV_REQ_ERR, a's SEND REM_INV_REQ_ERR (NAK invalid request), both
 * QPs in ERR; b's MR still serves. SEND_WITH_INV on a UC QP: refused.
 */
static void
send_with_inv_refused(void)
{
	struct vur_user_sge r = rdma_sge(&b, 0x20000, 64), s = rdma_sge(&a, 0, 16);
	struct vur_user_mr user;
	uint32_t qa, qb, ua;

	if (!ready() || !rc_pair(&qa, &qb))
		return;
	TAP_EQ(vur_user_reg_mr(b.d, b.pdn, ACC_ALL, b.buf, 4096, 0x10000, &user), 0);
	TAP_EQ(rdma_post_recv(&b, qb, 1, &r, 1), 0);
	TAP_EQ(post_inv(&a, qa, VUR_USER_WR_SEND_WITH_INV, user.rkey, 2, &s), 0);
	EXPECT_CQE(&a, 2, VUR_USER_WC_REM_INV_REQ_ERR, 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_REM_INV_REQ_ERR, 0);
	TAP_EQ(qp_state(&a, qa), VUR_USER_QPS_ERR);
	TAP_EQ(qp_state(&b, qb), VUR_USER_QPS_ERR);
	pair_done(qa, qb);
	/* the user MR still works */
	if (!rc_pair(&qa, &qb))
		return;
	fill(a.buf, 64, 3);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 64, 0x10000, user.rkey, 3), 0);
	EXPECT_CQE(&a, 3, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
	TAP_CHECK(memcmp(b.buf, a.buf, 64) == 0);
	pair_done(qa, qb);
	TAP_EQ(vur_user_dereg_mr(b.d, user.mrn), 0);
	/* UC has no SEND with Invalidate (IBTA 9.2) */
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_UC, &ua), 0);
	TAP_EQ(rdma_connect_qp(&a, ua, VUR_USER_QPT_UC, &b, 2, 0, 0, 0), 0);
	TAP_EQ(post_inv(&a, ua, VUR_USER_WR_SEND_WITH_INV, 0x100, 4, &s), 0);
	EXPECT_CQE(&a, 4, VUR_USER_WC_LOC_QP_OP_ERR, 0);
	TAP_EQ(vur_user_destroy_qp(a.d, ua), 0);
}

/* DEREG_MR of a valid fast MR, and the ALLOC_MRs of a PD hold it. */
static void
dereg_valid(void)
{
	struct vur_user_mr mr;
	uint64_t pages[3];
	struct reg reg;
	uint32_t qa, qb, pd2;

	if (!ready() || !rc_pair(&qa, &qb))
		return;
	TAP_EQ(vur_user_alloc_mr(b.d, b.pdn, 3, &mr), 0);
	reg = reg_of(&mr, 0x44, pages);
	TAP_EQ(post_reg(qb, &reg, 1), 0);
	EXPECT_CQE(&b, 1, VUR_USER_WC_SUCCESS, VUR_USER_WC_REG_MR);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
	TAP_EQ(post_rdma(qa, VUR_USER_WR_RDMA_WRITE, 0, 64, IOVA, reg.key, 2), 0);
	EXPECT_CQE(&a, 2, VUR_USER_WC_REM_ACCESS_ERR, 0);
	pair_done(qa, qb);
	TAP_EQ(vur_user_create_pd(b.d, &pd2), 0);
	TAP_EQ(vur_user_alloc_mr(b.d, pd2, 1, &mr), 0);
	TAP_EQ(vur_user_destroy_pd(b.d, pd2), -EREMOTEIO);
	TAP_EQ(vur_user_dereg_mr(b.d, mr.mrn), 0);
	TAP_EQ(vur_user_destroy_pd(b.d, pd2), 0);
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
	TAP_RUN(alloc_mr_refusals);
	TAP_RUN(register_use_invalidate);
	TAP_RUN(large_pages);
	TAP_RUN(local_op_refusals);
	TAP_RUN(send_with_inv_refused);
	TAP_RUN(dereg_valid);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
