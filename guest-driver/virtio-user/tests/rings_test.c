/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings layout (issue 28) end to end: two devices of one real backend
 * (its defaults: 4 doorbell/event queue pairs, 16384 ring QPs and CQs, the
 * adaptive data path that sleeps when idle), driven through virtio-user,
 * which puts new QPs, CQs and SRQs on rings by default. Each case names
 * the conformance requirements it covers (ROCE-DEV-RING-n, ROCE-DRV-RING-n,
 * numbered in the order of the design note's rules):
 *
 *   discovery_and_numbering  DEV-RING-1, -6; DRV-RING-1
 *   deep_queues              DEV-RING-11; DRV-RING-3, -2
 *   create_refused           DEV-RING-4
 *   mr_busy                  DEV-RING-7
 *   lying_producer           DEV-RING-10
 *   cq_cons_beyond_prod      DEV-RING-15; DRV-RING-6
 *   doorbell_bits_ignored    DEV-RING-14
 *   cq_events                DEV-RING-16; DRV-RING-4
 *   srq_limit_once           DEV-RING-17; DEV-RING-17
 *   events_wait_for_buffers  DEV-RING-18; DRV-RING-6
 *   doorbell_wakes_sleeper   DEV-RING-13; DRV-RING-3
 *   err_flushes_posts        DEV-RING-22, -12, -8; DRV-RING-7
 *   reset_forgets_setup      DEV-RING-20, -8; DEV-RING-5; DRV-RING-5
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "rdma_e2e.h"
#include "rdma_pair.h"
#include "tap.h"
#include "vur_rings.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define BUF_LEN  (4u << 20)
#define MEM_SIZE (32u << 20)

static struct rdma_e2e e2e;
static struct rdma_ep a, b;
static struct vur_user_device_attr attr;
static uint16_t ring_queues; /* the device's K */

static void
devices_open(void)
{
	struct vur_user_config cfg;

	if (!rdma_e2e_start(&e2e, &a, &b, BUF_LEN, MEM_SIZE) || !rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_query_device(a.d, &attr), 0);
	TAP_EQ(vur_user_read_config(a.d, &cfg), 0);
	ring_queues = cfg.rdma_ring_queues;
}

/* A QP of @type on @e's PD with its CQs, @wr WRs each way, in @layout. */
static int
qp_new(struct rdma_ep *e, uint8_t type, uint32_t scq, uint32_t rcq, uint32_t wr, uint8_t layout,
		uint32_t *qpn)
{
	struct vur_user_qp_init_attr ia = {
		.pdn = e->pdn,
		.qp_type = type,
		.send_cqn = scq,
		.recv_cqn = rcq,
		.cap = { .max_send_wr = wr,
				.max_recv_wr = wr,
				.max_send_sge = 2,
				.max_recv_sge = 2 },
		.layout = layout,
	};

	return vur_user_create_qp(e->d, &ia, qpn);
}

/* RC QPs @qa on a and @qb on b, connected. */
static bool
rc_connect(uint32_t qa, uint32_t qb)
{
	int ret = rdma_connect_qp(&a, qa, VUR_USER_QPT_RC, &b, qb, 7, 14, 7);

	if (ret == 0)
		ret = rdma_connect_qp(&b, qb, VUR_USER_QPT_RC, &a, qa, 7, 14, 7);
	TAP_EQ(ret, 0);
	return ret == 0;
}

/* The next CQE of @cqn on @e within the test's wait: 1, or 0. */
static int
next_cqe(struct rdma_ep *e, uint32_t cqn, struct vur_user_wc *wc)
{
	uint64_t end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
	int n;

	do {
		n = vur_user_poll_cq(e->d, cqn, wc, 1);
		if (n != 0)
			return n;
		poll(NULL, 0, 1);
	} while (rdma_now_ms() < end);
	return 0;
}

static bool
expect_on(struct rdma_ep *e, uint32_t cqn, uint64_t wr_id, uint8_t status, int line)
{
	struct vur_user_wc wc;

	if (next_cqe(e, cqn, &wc) != 1) {
		printf("# line %d: no CQE for %#" PRIx64 " on CQ %u\n", line, wr_id, cqn);
		tap_case_failed = 1;
		return false;
	}
	if (wc.wr_id != wr_id || wc.status != status) {
		printf("# line %d: CQE %#" PRIx64 " status %u (%s), want %#" PRIx64 " %u\n", line,
				wc.wr_id, wc.status, vur_user_wc_status_str(wc.status), wr_id,
				status);
		tap_case_failed = 1;
		return false;
	}
	return true;
}
#define EXPECT_ON(e, cqn, id, st) expect_on(e, cqn, id, st, __LINE__)

/* A signaled WRITE of @len bytes from a's buffer at @off to b's at @off, checked. */
static bool
write_checked(uint32_t qa, uint32_t cqa, uint64_t off, uint32_t len, uint32_t seed)
{
	rdma_fill(a.buf + off, len, seed);
	memset(b.buf + off, 0, len);
	TAP_EQ(rdma_post_rdma(&a, qa, VUR_USER_WR_RDMA_WRITE, off, len, b.addr + off, b.mr.rkey,
			       seed),
			0);
	if (!EXPECT_ON(&a, cqa, seed, VUR_USER_WC_SUCCESS))
		return false;
	TAP_CHECK(memcmp(a.buf + off, b.buf + off, len) == 0);
	return memcmp(a.buf + off, b.buf + off, len) == 0;
}

static uint64_t
count(const struct rdma_ep *e, const char *name)
{
	return rdma_e2e_counter(&e2e, e, name);
}

/* DEV-RING-1, -6; DRV-RING-1: discovery, numbering, both layouts on one device. */
static void
discovery_and_numbering(void)
{
	uint32_t qa, qb, gsi, vq_qp, vq_cq, cq2, qa2, qb2;
	struct vur_user_ring_info info;
	struct vur_user_sge s;
	struct vur_user_send_wr w;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_CHECK(ring_queues > 0);
	TAP_CHECK(attr.device_cap_flags & VUR_USER_DEVICE_RINGS);
	TAP_EQ(attr.max_ring_qp, 16384);
	TAP_EQ(attr.max_ring_cq, 16384);
	TAP_EQ(attr.max_ring_wr, 32768);
	TAP_EQ(attr.max_ring_cqe, 1u << 22);
	TAP_CHECK(vur_user_ring_queues(a.d) > 0 && vur_user_ring_queues(a.d) <= ring_queues);
	/* the harness's CQ is on rings, numbered from max_cq */
	TAP_CHECK(a.cqn >= attr.max_cq && a.cqn < attr.max_cq + attr.max_ring_cq);
	TAP_EQ(vur_user_cq_ring_info(a.d, a.cqn, &info), 0);
	TAP_EQ(info.size[0], 64); /* 48 CQEs asked */
	TAP_EQ(info.stride[0], 64);
	TAP_EQ(vur_user_num_queues(a.d),
			3 + attr.max_cq + 2 * attr.max_qp + 2u * vur_user_ring_queues(a.d));
	/* ring QPs from max_qp; the GSI QP on rings is QP 1 */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 8, VUR_USER_LAYOUT_AUTO, &qa), 0);
	TAP_CHECK(qa >= attr.max_qp && qa < attr.max_qp + attr.max_ring_qp);
	TAP_EQ(vur_user_qp_ring_info(a.d, qa, &info), 0);
	TAP_EQ(info.size[0], 8);
	TAP_EQ(info.stride[0], 1024); /* 576 + 2 x 16 */
	TAP_EQ(info.stride[1], 64);   /* 24 + 2 x 16 */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_GSI, a.cqn, a.cqn, 8, VUR_USER_LAYOUT_RINGS, &gsi), 0);
	TAP_EQ(gsi, 1);
	TAP_EQ(vur_user_destroy_qp(a.d, gsi), 0);
	/* a virtqueue CQ and QP beside them */
	TAP_EQ(vur_user_create_cq_ex(a.d, 16, VUR_USER_LAYOUT_VIRTQUEUES, &vq_cq), 0);
	TAP_CHECK(vq_cq < attr.max_cq);
	TAP_EQ(vur_user_cq_ring_info(a.d, vq_cq, &info), -EINVAL);
	/* a ring QP on a virtqueue CQ (b side), and a virtqueue QP on a ring CQ (a side) */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 8, VUR_USER_LAYOUT_VIRTQUEUES, &vq_qp), 0);
	TAP_CHECK(vq_qp >= 2 && vq_qp < attr.max_qp);
	TAP_EQ(vur_user_create_cq_ex(b.d, 16, VUR_USER_LAYOUT_VIRTQUEUES, &cq2), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, cq2, cq2, 8, VUR_USER_LAYOUT_RINGS, &qb), 0);
	TAP_CHECK(qb >= attr.max_qp);
	if (!rc_connect(vq_qp, qb))
		return;
	TAP_CHECK(write_checked(vq_qp, a.cqn, 0, 4096, 0x101));
	/* SEND from the ring QP on b to the virtqueue QP on a, and a READ back */
	s = rdma_sge(&a, 8192, 1000);
	TAP_EQ(rdma_post_recv(&a, vq_qp, 0x201, &s, 1), 0);
	rdma_fill(b.buf + 8192, 1000, 0x202);
	s = rdma_sge(&b, 8192, 1000);
	w = rdma_req(0x202, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	TAP_EQ(rdma_post_send(&b, qb, &w), 0);
	EXPECT_ON(&b, cq2, 0x202, VUR_USER_WC_SUCCESS);
	EXPECT_ON(&a, a.cqn, 0x201, VUR_USER_WC_SUCCESS);
	TAP_CHECK(memcmp(a.buf + 8192, b.buf + 8192, 1000) == 0);
	memset(a.buf + 16384, 0, 4096);
	TAP_EQ(rdma_post_rdma(&a, vq_qp, VUR_USER_WR_RDMA_READ, 16384, 4096, b.addr, b.mr.rkey,
			       0x203),
			0);
	EXPECT_ON(&a, a.cqn, 0x203, VUR_USER_WC_SUCCESS);
	TAP_CHECK(memcmp(a.buf + 16384, b.buf, 4096) == 0);
	/* and ring to ring */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 8, VUR_USER_LAYOUT_RINGS, &qa2), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 8, VUR_USER_LAYOUT_RINGS, &qb2), 0);
	if (rc_connect(qa2, qb2))
		TAP_CHECK(write_checked(qa2, a.cqn, 32768, 65536, 0x204));
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, qa2), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb2), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, vq_qp), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, vq_cq), 0);
	TAP_EQ(vur_user_destroy_cq(b.d, cq2), 0);
}

/* DEV-RING-11; DRV-RING-3, -2: a QP of 4096 WRs and a CQ of 8192, full and drained. */
static void
deep_queues(void)
{
	enum { N = 4096, LEN = 512 };
	struct vur_user_send_wr *w = calloc(N, sizeof(*w));
	struct vur_user_sge *s = calloc(N, sizeof(*s));
	struct vur_user_wc *wc = calloc(256, sizeof(*wc));
	uint32_t cqa, cqb, qa, qb, got = 0;
	uint64_t end;
	int n;

	if (!rdma_e2e_ready(&a, &b) || w == NULL || s == NULL || wc == NULL)
		goto out;
	TAP_EQ(vur_user_create_cq(a.d, 2 * N, &cqa), 0);
	TAP_EQ(vur_user_create_cq(b.d, 16, &cqb), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, cqa, cqa, N, VUR_USER_LAYOUT_AUTO, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, cqb, cqb, 16, VUR_USER_LAYOUT_AUTO, &qb), 0);
	if (!rc_connect(qa, qb))
		goto out;
	rdma_fill(a.buf, (size_t)N * LEN, 0x301);
	memset(b.buf, 0, (size_t)N * LEN);
	for (uint32_t i = 0; i < N; i++) {
		s[i] = rdma_sge(&a, (uint64_t)i * LEN, LEN);
		w[i] = rdma_req(i, VUR_USER_WR_RDMA_WRITE, VUR_USER_SEND_SIGNALED, &s[i], 1);
		w[i].rdma.remote_addr = b.addr + (uint64_t)i * LEN;
		w[i].rdma.rkey = b.mr.rkey;
	}
	TAP_EQ(vur_user_post_send(a.d, qa, w, N, NULL), 0);
	end = rdma_now_ms() + 3 * RDMA_E2E_WAIT_MS;
	while (got < N && rdma_now_ms() < end) {
		n = vur_user_poll_cq(a.d, cqa, wc, 256);
		TAP_CHECK(n >= 0);
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id != got || wc[i].status != VUR_USER_WC_SUCCESS) {
				printf("# CQE %u: wr_id %" PRIu64 " status %u\n", got, wc[i].wr_id,
						wc[i].status);
				tap_case_failed = 1;
			}
			got++;
		}
		if (n == 0)
			poll(NULL, 0, 1);
	}
	TAP_EQ(got, N);
	TAP_CHECK(memcmp(a.buf, b.buf, (size_t)N * LEN) == 0);
	/* room again: sq_cons moved with the completions */
	TAP_EQ(vur_user_post_send(a.d, qa, w, N, NULL), 0);
	for (got = 0, end = rdma_now_ms() + 3 * RDMA_E2E_WAIT_MS; got < N && rdma_now_ms() < end;) {
		n = vur_user_poll_cq(a.d, cqa, wc, 256);
		got += n > 0 ? (uint32_t)n : 0;
		if (n <= 0)
			poll(NULL, 0, 1);
	}
	TAP_EQ(got, N);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cqa), 0);
	TAP_EQ(vur_user_destroy_cq(b.d, cqb), 0);
out:
	free(w);
	free(s);
	free(wc);
}

/* The rings of a raw CREATE_QP in a user MR at iova 0x200000 of a's buffer. */
struct raw_qp {
	struct vur_user_mr mr;
	uint8_t *base; /* a.buf + 1 MiB: 64 KiB for rings */
	uint64_t iova;
	struct virtio_rdma_cmd_create_qp_rings c;
};

static bool
raw_qp_init(struct raw_qp *r, uint32_t access)
{
	r->base = a.buf + (1u << 20);
	r->iova = 0x200000;
	memset(r->base, 0, 65536);
	if (vur_user_reg_mr(a.d, a.pdn, access, r->base, 65536, r->iova, &r->mr) != 0)
		return false;
	memset(&r->c, 0, sizeof(r->c));
	r->c.qp.pdn = htole32(a.pdn);
	r->c.qp.qp_type = VIRTIO_IB_QPT_RC;
	r->c.qp.flags = VIRTIO_RDMA_QP_F_RINGS;
	r->c.qp.send_cqn = htole32(a.cqn);
	r->c.qp.recv_cqn = htole32(a.cqn);
	r->c.qp.cap.max_send_wr = htole32(4);
	r->c.qp.cap.max_recv_wr = htole32(4);
	r->c.qp.cap.max_send_sge = htole32(1);
	r->c.qp.cap.max_recv_sge = htole32(1);
	r->c.sq.addr = htole64(r->iova);
	r->c.sq.lkey = htole32(r->mr.lkey);
	r->c.sq.log_size = 2;
	r->c.sq.log_stride = 10;
	r->c.rq.addr = htole64(r->iova + 8192);
	r->c.rq.lkey = htole32(r->mr.lkey);
	r->c.rq.log_size = 2;
	r->c.rq.log_stride = 6;
	r->c.rec.addr = htole64(r->iova + 12288);
	r->c.rec.lkey = htole32(r->mr.lkey);
	r->c.dbq = 0;
	return true;
}

/* CREATE_QP of @c: the status; a created QP is destroyed again. */
static int
raw_create_qp(const struct virtio_rdma_cmd_create_qp_rings *c, uint32_t len)
{
	struct virtio_rdma_ack_create_qp ack;
	struct virtio_rdma_cmd_destroy_qp x;
	int st = rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_QP, c, len, &ack, sizeof(ack));

	if (st == VIRTIO_NET_OK) {
		x.qpn = ack.qpn;
		rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &x, sizeof(x), NULL, 0);
	}
	return st;
}

#define REFUSED_QP(field_change)                                        \
	do {                                                            \
		struct virtio_rdma_cmd_create_qp_rings c_ = r.c;        \
		uint64_t qps_ = count(&a, "qps");                       \
		field_change;                                           \
		TAP_EQ(raw_create_qp(&c_, sizeof(c_)), VIRTIO_NET_ERR); \
		TAP_EQ(count(&a, "qps"), qps_);                         \
	} while (0)

/* DEV-RING-4: every CREATE check refuses and creates nothing. */
static void
create_refused(void)
{
	struct virtio_rdma_cmd_create_cq_rings cc;
	struct virtio_rdma_ack_create_cq cack;
	struct vur_user_mr other_mr, ro_mr, fast;
	uint32_t other_pd, lkey;
	struct raw_qp r;
	uint8_t log_wr = 0;

	if (!rdma_e2e_ready(&a, &b) || !raw_qp_init(&r, VUR_USER_ACCESS_LOCAL_WRITE))
		return;
	while ((1u << log_wr) < attr.max_ring_wr)
		log_wr++;
	/* the command as it should be works */
	TAP_EQ(raw_create_qp(&r.c, sizeof(r.c)), VIRTIO_NET_OK);
	{
		struct virtio_rdma_cmd_create_qp_rings c_ = r.c;

		TAP_EQ(raw_create_qp(&c_, sizeof(c_) - 1), VIRTIO_NET_ERR); /* length */
		TAP_EQ(raw_create_qp(&c_, sizeof(c_.qp)), VIRTIO_NET_ERR);
	}
	REFUSED_QP(c_.sq.addr = htole64(r.iova + 65536));        /* outside the MR */
	REFUSED_QP(c_.sq.addr = htole64(r.iova + 65536 - 2048)); /* half outside */
	REFUSED_QP(c_.sq.addr = htole64(r.iova + 64));           /* misaligned */
	REFUSED_QP(c_.rq.addr = htole64(r.iova + 8192 + 32));    /* misaligned */
	REFUSED_QP(c_.rec.addr = htole64(r.iova + 12288 + 64));  /* record */
	REFUSED_QP(c_.rec.addr = htole64(r.iova + 65536));       /* record outside */
	REFUSED_QP(c_.sq.log_stride = 9);                        /* 512 < 592 */
	REFUSED_QP(c_.rq.log_stride = 5);                        /* below 6 */
	REFUSED_QP(c_.sq.log_stride = 13);                       /* above 12 */
	REFUSED_QP(c_.sq.log_size = (uint8_t)(log_wr + 1));      /* > max_ring_wr */
	REFUSED_QP(c_.qp.cap.max_send_wr = htole32(5));          /* > 4 entries */
	REFUSED_QP(c_.qp.cap.max_recv_wr = htole32(5));
	REFUSED_QP(c_.dbq = htole16(ring_queues)); /* dbq >= K */
	REFUSED_QP(c_.reserved[0] = htole16(1));   /* reserved */
	REFUSED_QP(c_.sq.reserved = htole16(1));
	REFUSED_QP(c_.sq.lkey = htole32(r.mr.lkey ^ 0x100));                      /* no such key */
	REFUSED_QP(c_.qp.flags |= VIRTIO_RDMA_QP_F_SRQ; c_.qp.srqn = htole32(2)); /* rq with SRQ */
	/* the record in an MR without LOCAL_WRITE */
	TAP_EQ(vur_user_reg_mr(a.d, a.pdn, 0, r.base + 16384, 4096, r.iova + 0x100000, &ro_mr), 0);
	REFUSED_QP(c_.rec.addr = htole64(r.iova + 0x100000); c_.rec.lkey = htole32(ro_mr.lkey));
	/* an MR of another PD */
	TAP_EQ(vur_user_create_pd(a.d, &other_pd), 0);
	TAP_EQ(vur_user_reg_mr(a.d, other_pd, VUR_USER_ACCESS_LOCAL_WRITE, r.base + 20480, 8192,
			       r.iova + 0x200000, &other_mr),
			0);
	REFUSED_QP(c_.sq.addr = htole64(r.iova + 0x200000); c_.sq.lkey = htole32(other_mr.lkey));
	/* an ALLOC_MR MR */
	if (attr.device_cap_flags & VUR_USER_DEVICE_MEM_MGT_EXTENSIONS) {
		TAP_EQ(vur_user_alloc_mr(a.d, a.pdn, 4, &fast), 0);
		REFUSED_QP(c_.sq.lkey = htole32(fast.lkey));
		TAP_EQ(vur_user_dereg_mr(a.d, fast.mrn), 0);
	}
	/* CQs: eq >= K, cqe beyond the ring, too many entries, a stride below a CQE */
	TAP_EQ(vur_user_rings_lkey(a.d, &lkey), 0);
	memset(&cc, 0, sizeof(cc));
	cc.cqe = htole32(4);
	cc.flags = htole32(VIRTIO_RDMA_CQ_F_RINGS);
	cc.ring.addr = htole64(r.iova + 16384 + 4096 * 2);
	cc.ring.lkey = htole32(r.mr.lkey);
	cc.ring.log_size = 2;
	cc.ring.log_stride = 6;
	cc.rec.addr = htole64(r.iova + 12288 + 128);
	cc.rec.lkey = htole32(r.mr.lkey);
	{
		struct virtio_rdma_cmd_create_cq_rings x = cc;
		struct virtio_rdma_cmd_destroy_cq d;
		uint64_t cqs = count(&a, "cqs");
		uint8_t log_cqe = 0;

		while ((1u << log_cqe) < attr.max_ring_cqe)
			log_cqe++;
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_OK);
		d.cqn = cack.cqn;
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &d, sizeof(d), NULL, 0),
				VIRTIO_NET_OK);
		x.eq = htole16(ring_queues);
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_ERR);
		x = cc;
		x.cqe = htole32(5);
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_ERR);
		x = cc;
		x.ring.log_size = (uint8_t)(log_cqe + 1);
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_ERR);
		x = cc;
		x.ring.log_stride = 5;
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_ERR);
		x = cc;
		x.rec.lkey = htole32(ro_mr.lkey);
		x.rec.addr = htole64(r.iova + 0x100000);
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_ERR);
		x = cc;
		x.flags = 0;
		TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &x, sizeof(x), &cack,
				       sizeof(cack)),
				VIRTIO_NET_ERR);
		TAP_EQ(count(&a, "cqs"), cqs);
	}
	TAP_EQ(vur_user_dereg_mr(a.d, other_mr.mrn), 0);
	TAP_EQ(vur_user_dereg_mr(a.d, ro_mr.mrn), 0);
	TAP_EQ(vur_user_dereg_mr(a.d, r.mr.mrn), 0);
	TAP_EQ(vur_user_destroy_pd(a.d, other_pd), 0);
}

/* DEV-RING-7: an MR holding a live ring is busy; after the destroy it is not. */
static void
mr_busy(void)
{
	struct virtio_rdma_ack_create_qp ack;
	struct virtio_rdma_cmd_destroy_qp x;
	struct raw_qp r;
	uint32_t qpn, pd2;

	if (!rdma_e2e_ready(&a, &b) || !raw_qp_init(&r, VUR_USER_ACCESS_LOCAL_WRITE))
		return;
	TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_CREATE_QP, &r.c, sizeof(r.c), &ack, sizeof(ack)),
			VIRTIO_NET_OK);
	TAP_EQ(vur_user_dereg_mr(a.d, r.mr.mrn), -EREMOTEIO);
	x.qpn = ack.qpn;
	TAP_EQ(rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &x, sizeof(x), NULL, 0),
			VIRTIO_NET_OK);
	TAP_EQ(vur_user_dereg_mr(a.d, r.mr.mrn), 0);
	/* the library's MR of a PD with ring QPs: DESTROY_PD refused while they live */
	TAP_EQ(vur_user_create_pd(a.d, &pd2), 0);
	{
		struct vur_user_qp_init_attr ia = {
			.pdn = pd2,
			.qp_type = VUR_USER_QPT_RC,
			.send_cqn = a.cqn,
			.recv_cqn = a.cqn,
			.cap = { .max_send_wr = 2,
					.max_recv_wr = 2,
					.max_send_sge = 1,
					.max_recv_sge = 1 },
			.layout = VUR_USER_LAYOUT_RINGS,
		};

		TAP_EQ(vur_user_create_qp(a.d, &ia, &qpn), 0);
	}
	TAP_EQ(vur_user_destroy_pd(a.d, pd2), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_qp(a.d, qpn), 0);
	TAP_EQ(vur_user_destroy_pd(a.d, pd2), 0);
}

/* DEV-RING-10: a producer index beyond the ring breaks only its own QP. */
static void
lying_producer(void)
{
	struct vur_user_ring_info info;
	struct virtio_rdma_qp_rec *rec;
	uint32_t qa, qb, qa2, qb2;
	struct vur_user_sge s;
	struct vur_user_send_wr w;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa2), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb2), 0);
	if (!rc_connect(qa, qb) || !rc_connect(qa2, qb2))
		return;
	TAP_CHECK(write_checked(qa, a.cqn, 0, 100, 0x401));
	/* sq_prod = sq_cons + size + 1, and the doorbell */
	TAP_EQ(vur_user_qp_ring_info(a.d, qa, &info), 0);
	rec = info.rec;
	__atomic_store_n(&rec->sq_prod, htole32(le32toh(rec->sq_cons) + info.size[0] + 1),
			__ATOMIC_RELEASE);
	TAP_EQ(vur_user_ring_doorbell(a.d, info.queue, qa), 0);
	for (int i = 0; i < 1000 && rdma_qp_state(&a, qa) != VUR_USER_QPS_ERR; i++)
		poll(NULL, 0, 2);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
	/* the other QP of the device works on */
	TAP_CHECK(write_checked(qa2, a.cqn, 4096, 4096, 0x402));
	TAP_EQ(rdma_qp_state(&a, qa2), VUR_USER_QPS_RTS);
	/* rq_prod beyond the ring: the QP meets it when a SEND arrives */
	TAP_EQ(vur_user_qp_ring_info(b.d, qb2, &info), 0);
	rec = info.rec;
	__atomic_store_n(&rec->rq_prod, htole32(le32toh(rec->rq_cons) + info.size[1] + 7),
			__ATOMIC_RELEASE);
	s = rdma_sge(&a, 0, 64);
	w = rdma_req(0x403, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	TAP_EQ(rdma_post_send(&a, qa2, &w), 0);
	for (int i = 0; i < 1000 && rdma_qp_state(&b, qb2) != VUR_USER_QPS_ERR; i++)
		poll(NULL, 0, 2);
	TAP_EQ(rdma_qp_state(&b, qb2), VUR_USER_QPS_ERR);
	/* drain what the sender got (an error or a flush), then the CQs are clean */
	for (struct vur_user_wc wc; next_cqe(&a, a.cqn, &wc) == 1 && wc.wr_id != 0x403;)
		;
	for (struct vur_user_wc wc; vur_user_poll_cq(b.d, b.cqn, &wc, 1) == 1;)
		;
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, qa2), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb2), 0);
	/* the device still serves new QPs */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	if (rc_connect(qa, qb))
		TAP_CHECK(write_checked(qa, a.cqn, 0, 4096, 0x404));
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/* The next asynchronous event CQ_ERR of @cqn within the wait: whether it came. */
static bool
cq_err_event(struct rdma_ep *e, uint32_t cqn)
{
	struct vur_user_async_event ev;
	uint64_t end = rdma_now_ms() + RDMA_E2E_WAIT_MS;

	while (rdma_now_ms() < end)
		if (vur_user_get_async_event(e->d, &ev, 100) == 1 &&
				ev.event_type == VUR_USER_ASYNC_CQ_ERR && ev.element == cqn)
			return true;
	return false;
}

/* DEV-RING-15; DRV-RING-6: cons beyond prod is an overrun of that CQ only. */
static void
cq_cons_beyond_prod(void)
{
	struct vur_user_ring_info info;
	struct virtio_rdma_cq_rec *rec;
	uint32_t cq1, cq2, qa, qb, qa2, qb2;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_create_cq(a.d, 16, &cq1), 0);
	TAP_EQ(vur_user_create_cq(a.d, 16, &cq2), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, cq1, cq1, 4, VUR_USER_LAYOUT_AUTO, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_AUTO, &qb), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, cq2, cq2, 4, VUR_USER_LAYOUT_AUTO, &qa2), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_AUTO, &qb2), 0);
	if (!rc_connect(qa, qb) || !rc_connect(qa2, qb2))
		return;
	TAP_CHECK(write_checked(qa, cq1, 0, 64, 0x501));
	TAP_EQ(vur_user_cq_ring_info(a.d, cq1, &info), 0);
	rec = info.rec;
	__atomic_store_n(&rec->cons, htole32(le32toh(rec->prod) + 3), __ATOMIC_RELEASE);
	TAP_EQ(rdma_post_rdma(&a, qa, VUR_USER_WR_RDMA_WRITE, 0, 64, b.addr, b.mr.rkey, 0x502), 0);
	TAP_CHECK(cq_err_event(&a, cq1));
	for (int i = 0; i < 1000 && rdma_qp_state(&a, qa) != VUR_USER_QPS_ERR; i++)
		poll(NULL, 0, 2);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_ERR);
	TAP_EQ(vur_user_cq_ring_info(a.d, cq1, &info), 0);
	TAP_EQ(info.errors, 1);
	TAP_EQ(vur_user_req_notify_cq(a.d, cq1, VUR_USER_NOTIFY_NEXT_COMPLETION), -EREMOTEIO);
	TAP_CHECK(count(&a, "rdma_cq_overrun") >= 1);
	/* the other CQ of the device, and its QP, work on */
	TAP_CHECK(write_checked(qa2, cq2, 4096, 4096, 0x503));
	TAP_EQ(vur_user_cq_ring_info(a.d, cq2, &info), 0);
	TAP_EQ(info.errors, 0);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, qa2), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb2), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cq1), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cq2), 0);
}

/* DEV-RING-14: bits for a destroyed QP, a virtqueue QP or a number out of range are ignored. */
static void
doorbell_bits_ignored(void)
{
	struct vur_user_ring_info info;
	uint32_t qa, qb, gone, vq_qp;
	uint16_t k = vur_user_ring_queues(a.d);

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &gone), 0);
	TAP_EQ(vur_user_qp_ring_info(a.d, gone, &info), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, gone), 0);
	TAP_EQ(vur_user_ring_doorbell(a.d, info.queue, gone), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_VIRTQUEUES, &vq_qp), 0);
	for (uint16_t q = 0; q < k; q++) {
		TAP_EQ(vur_user_ring_doorbell(a.d, q, vq_qp), 0);
		TAP_EQ(vur_user_ring_doorbell(a.d, q, 0), 0);
		TAP_EQ(vur_user_ring_doorbell(a.d, q, attr.max_qp + attr.max_ring_qp - 1), 0);
	}
	/* a live ring QP's bit on a doorbell queue that is not its own */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(vur_user_qp_ring_info(a.d, qa, &info), 0);
	if (k > 1)
		TAP_EQ(vur_user_ring_doorbell(a.d, (uint16_t)((info.queue + 1) % k), qa), 0);
	poll(NULL, 0, 50);
	TAP_EQ(rdma_qp_state(&a, vq_qp), VUR_USER_QPS_RESET);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_RESET);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	if (rc_connect(qa, qb))
		TAP_CHECK(write_checked(qa, a.cqn, 0, 4096, 0x601));
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, vq_qp), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/* Events of @cqn so far, as the library counted them. */
static uint64_t
events_of(struct rdma_ep *e, uint32_t cqn)
{
	struct vur_user_ring_info info;

	return vur_user_cq_ring_info(e->d, cqn, &info) == 0 ? info.events : UINT64_MAX;
}

/* DEV-RING-16; DRV-RING-4: one CQ_COMP per arm; SOLICITED; no arm, no event. */
static void
cq_events(void)
{
	uint32_t cqa, cqb, qa, qb;
	struct vur_user_sge s;
	struct vur_user_send_wr w;
	struct vur_user_wc wc;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_create_cq(a.d, 16, &cqa), 0);
	TAP_EQ(vur_user_create_cq(b.d, 16, &cqb), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, cqa, cqa, 8, VUR_USER_LAYOUT_AUTO, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, cqb, cqb, 8, VUR_USER_LAYOUT_AUTO, &qb), 0);
	if (!rc_connect(qa, qb))
		return;
	TAP_CHECK(vur_user_cq_event_fd(a.d, cqa) >= 0);
	/* not armed: CQEs, no event */
	TAP_CHECK(write_checked(qa, cqa, 0, 64, 0x701));
	TAP_EQ(vur_user_get_cq_event(a.d, cqa, 30), 0);
	/* armed (twice: still one arm): three CQEs, one event */
	TAP_EQ(vur_user_req_notify_cq(a.d, cqa, VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	TAP_EQ(vur_user_req_notify_cq(a.d, cqa, VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	TAP_EQ(vur_user_poll_cq(a.d, cqa, &wc, 1), 0);
	for (int i = 0; i < 3; i++)
		TAP_EQ(rdma_post_rdma(&a, qa, VUR_USER_WR_RDMA_WRITE, 0, 64, b.addr, b.mr.rkey,
				       0x702 + i),
				0);
	TAP_EQ(vur_user_get_cq_event(a.d, cqa, RDMA_E2E_WAIT_MS), 1);
	for (int i = 0; i < 3; i++)
		EXPECT_ON(&a, cqa, 0x702 + i, VUR_USER_WC_SUCCESS);
	poll(NULL, 0, 30);
	TAP_EQ(events_of(&a, cqa), 1);
	TAP_EQ(vur_user_get_cq_event(a.d, cqa, 30), 0);
	/* armed again: the next CQE notifies again, once */
	TAP_EQ(vur_user_req_notify_cq(a.d, cqa, VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	TAP_CHECK(write_checked(qa, cqa, 0, 64, 0x705));
	TAP_EQ(vur_user_get_cq_event(a.d, cqa, RDMA_E2E_WAIT_MS), 1);
	TAP_EQ(events_of(&a, cqa), 2);
	/* SOLICITED on b's CQ: an unsolicited SEND completes without an event */
	TAP_CHECK(vur_user_cq_event_fd(b.d, cqb) >= 0);
	TAP_EQ(vur_user_req_notify_cq(b.d, cqb, VUR_USER_NOTIFY_SOLICITED), 0);
	s = rdma_sge(&b, 0, 128);
	TAP_EQ(rdma_post_recv(&b, qb, 0x710, &s, 1), 0);
	TAP_EQ(rdma_post_recv(&b, qb, 0x711, &s, 1), 0);
	s = rdma_sge(&a, 0, 16);
	w = rdma_req(0x712, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	TAP_EQ(rdma_post_send(&a, qa, &w), 0);
	EXPECT_ON(&a, cqa, 0x712, VUR_USER_WC_SUCCESS);
	EXPECT_ON(&b, cqb, 0x710, VUR_USER_WC_SUCCESS);
	TAP_EQ(vur_user_get_cq_event(b.d, cqb, 50), 0);
	/* a solicited one does notify */
	w = rdma_req(0x713, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED | VUR_USER_SEND_SOLICITED, &s,
			1);
	TAP_EQ(rdma_post_send(&a, qa, &w), 0);
	TAP_EQ(vur_user_get_cq_event(b.d, cqb, RDMA_E2E_WAIT_MS), 1);
	EXPECT_ON(&b, cqb, 0x711, VUR_USER_WC_SUCCESS);
	EXPECT_ON(&a, cqa, 0x713, VUR_USER_WC_SUCCESS);
	TAP_EQ(events_of(&b, cqb), 1);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cqa), 0);
	TAP_EQ(vur_user_destroy_cq(b.d, cqb), 0);
}

/* DEV-RING-17; DEV-RING-17: the SRQ limit event, once per arm. */
static void
srq_limit_once(void)
{
	struct vur_user_srq_attr sa = { .max_wr = 16, .max_sge = 1 };
	struct vur_user_ring_info info;
	struct vur_user_qp_init_attr ia;
	struct vur_user_recv_wr rw[8];
	struct vur_user_sge rs[8], s;
	struct vur_user_send_wr w;
	uint32_t srqn, qa, qb, wrs = 0;

	if (!rdma_e2e_ready(&a, &b))
		return;
	if (!(attr.device_cap_flags & VUR_USER_DEVICE_SRQ)) {
		tap_skip("no SRQs");
		return;
	}
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), 0);
	TAP_EQ(vur_user_srq_ring_info(b.d, srqn, &info), 0);
	TAP_CHECK(srqn >= attr.max_qp);
	ia = (struct vur_user_qp_init_attr){
		.pdn = b.pdn,
		.qp_type = VUR_USER_QPT_RC,
		.send_cqn = b.cqn,
		.recv_cqn = b.cqn,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.flags = VUR_USER_QP_F_SRQ,
		.srqn = srqn,
	};
	TAP_EQ(vur_user_create_qp(b.d, &ia, &qb), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 8, VUR_USER_LAYOUT_AUTO, &qa), 0);
	if (!rc_connect(qa, qb))
		return;
	for (int i = 0; i < 8; i++) {
		rs[i] = rdma_sge(&b, (uint64_t)i * 256, 256);
		rw[i] = (struct vur_user_recv_wr){
			.wr_id = 0x800 + i, .sg_list = &rs[i], .num_sge = 1
		};
	}
	TAP_EQ(vur_user_post_srq_recv(b.d, srqn, rw, 8, NULL), 0);
	TAP_CHECK(vur_user_srq_event_fd(b.d, srqn) >= 0);
	TAP_EQ(vur_user_arm_srq(b.d, srqn, 4), 0);
	s = rdma_sge(&a, 0, 32);
	for (int i = 0; i < 6; i++) {
		w = rdma_req(0x810 + i, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
		TAP_EQ(rdma_post_send(&a, qa, &w), 0);
		EXPECT_ON(&a, a.cqn, 0x810 + i, VUR_USER_WC_SUCCESS);
		EXPECT_ON(&b, b.cqn, 0x800 + i, VUR_USER_WC_SUCCESS);
		poll(NULL, 0, 20);
		/* 8 - (i + 1) left: the event when fewer than 4 are, i.e. after the 5th */
		TAP_EQ(vur_user_srq_limit_reached(b.d, srqn), i == 4 ? 1 : 0);
	}
	TAP_EQ(vur_user_srq_ring_info(b.d, srqn, &info), 0);
	TAP_EQ(info.events, 1);
	TAP_EQ(vur_user_query_srq(b.d, srqn, &sa, &wrs), 0);
	TAP_EQ(wrs, 2);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), 0);
}

/* DEV-RING-18; DRV-RING-6: with no event buffer the events wait, and none is lost. */
static void
events_wait_for_buffers(void)
{
	enum { NCQ = 8 };
	struct vur_user_params p;
	struct rdma_ep c;
	uint32_t cq[NCQ], qc[NCQ], qb[NCQ];
	uint64_t got = 0, end;

	if (!rdma_e2e_ready(&a, &b))
		return;
	/* a's device again, with two event buffers per event queue */
	TAP_EQ(vur_user_close(a.d), 0);
	a.d = NULL;
	vur_user_params_init(&p, a.path);
	p.mem_size = MEM_SIZE;
	p.eq_buffers = 2;
	/* the backend may still be tearing the last connection down: try again a while */
	for (int i = 0; i < 100 && rdma_ep_open_params(&c, &p, 1, BUF_LEN) != 0; i++) {
		vur_user_close(c.d);
		c.d = NULL;
		poll(NULL, 0, 20);
	}
	TAP_CHECK(c.d != NULL);
	a = c;
	if (a.d == NULL)
		return;
	TAP_EQ(vur_user_eq_hold(a.d, true), 0);
	for (int i = 0; i < NCQ; i++) {
		TAP_EQ(vur_user_create_cq(a.d, 4, &cq[i]), 0);
		TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, cq[i], cq[i], 2, VUR_USER_LAYOUT_AUTO, &qc[i]),
				0);
		TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 2, VUR_USER_LAYOUT_AUTO, &qb[i]),
				0);
		if (!rc_connect(qc[i], qb[i]))
			return;
		TAP_EQ(vur_user_req_notify_cq(a.d, cq[i], VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
		TAP_EQ(rdma_post_rdma(&a, qc[i], VUR_USER_WR_RDMA_WRITE, 0, 8, b.addr, b.mr.rkey,
				       0x900 + i),
				0);
		EXPECT_ON(&a, cq[i], 0x900 + i, VUR_USER_WC_SUCCESS);
	}
	/* 2 buffers per event queue: at most 2 x K events came */
	poll(NULL, 0, 100);
	for (int i = 0; i < NCQ; i++)
		got += events_of(&a, cq[i]);
	TAP_CHECK(got <= 2u * vur_user_ring_queues(a.d));
	TAP_CHECK(got < NCQ);
	/* buffers again: every event comes, once */
	TAP_EQ(vur_user_eq_hold(a.d, false), 0);
	end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
	do {
		poll(NULL, 0, 5);
		got = 0;
		for (int i = 0; i < NCQ; i++)
			got += events_of(&a, cq[i]);
	} while (got < NCQ && rdma_now_ms() < end);
	for (int i = 0; i < NCQ; i++) {
		TAP_EQ(events_of(&a, cq[i]), 1);
		TAP_EQ(vur_user_get_cq_event(a.d, cq[i], 0), 1);
		TAP_EQ(vur_user_destroy_qp(a.d, qc[i]), 0);
		TAP_EQ(vur_user_destroy_qp(b.d, qb[i]), 0);
		TAP_EQ(vur_user_destroy_cq(a.d, cq[i]), 0);
	}
}

/* DEV-RING-13; DRV-RING-3: a post wakes the sleeping data path through the doorbell queue. */
static void
doorbell_wakes_sleeper(void)
{
	uint32_t qa, qb;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	if (!rc_connect(qa, qb))
		return;
	for (int i = 0; i < 5; i++) {
		poll(NULL, 0, 150); /* idle: the data path goes to sleep */
		TAP_CHECK(write_checked(qa, a.cqn, 0, 256, 0xa00 + i));
	}
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/*
 * DEV-RING-22, -12; DRV-RING-7: a QP in ERR flushes what is posted after,
 * receives (rq_notify and the doorbell) as sends (sq_event), the device
 * asleep or busy; RESET zeroes rq_notify (DEV-RING-8).
 */
static void
err_flushes_posts(void)
{
	struct vur_user_qp_attr at = { .qp_state = VUR_USER_QPS_ERR };
	struct vur_user_sge s = rdma_sge(&a, 0, 64);
	struct vur_user_send_wr w;
	struct vur_user_ring_info info;
	struct virtio_rdma_qp_rec *rec;
	struct vur_user_wc wc;
	unsigned int recvs = 0, sends = 0;
	uint32_t qa, qb;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 64, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	if (!rc_connect(qa, qb))
		return;
	TAP_CHECK(write_checked(qa, a.cqn, 0, 64, 0xc00));
	TAP_EQ(vur_user_qp_ring_info(a.d, qa, &info), 0);
	rec = info.rec;
	TAP_EQ(le32toh(rec->rq_notify), 0);
	TAP_EQ(vur_user_modify_qp(a.d, qa, &at, VUR_USER_QP_STATE), 0);
	TAP_CHECK(le32toh(rec->rq_notify) != 0);
	poll(NULL, 0, 150); /* idle: the data path goes to sleep */
	TAP_EQ(rdma_post_recv(&a, qa, 0xc01, &s, 1), 0);
	EXPECT_ON(&a, a.cqn, 0xc01, VUR_USER_WC_WR_FLUSH_ERR);
	poll(NULL, 0, 150);
	w = rdma_req(0xc02, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	TAP_EQ(rdma_post_send(&a, qa, &w), 0);
	EXPECT_ON(&a, a.cqn, 0xc02, VUR_USER_WC_WR_FLUSH_ERR);
	/* posted while the device flushes: none left behind (at most two pairs out) */
	for (unsigned int i = 0; i < 200; i++) {
		w.wr_id = 0xd000 + i;
		TAP_EQ(rdma_post_send(&a, qa, &w), 0);
		TAP_EQ(rdma_post_recv(&a, qa, 0xe000 + i, &s, 1), 0);
		while (recvs + sends < 2 * i && next_cqe(&a, a.cqn, &wc) == 1) {
			TAP_EQ(wc.status, VUR_USER_WC_WR_FLUSH_ERR);
			wc.wr_id >= 0xe000 ? recvs++ : sends++;
		}
	}
	while ((recvs < 200 || sends < 200) && next_cqe(&a, a.cqn, &wc) == 1) {
		TAP_EQ(wc.status, VUR_USER_WC_WR_FLUSH_ERR);
		wc.wr_id >= 0xe000 ? recvs++ : sends++;
	}
	TAP_EQ(recvs, 200);
	TAP_EQ(sends, 200);
	at.qp_state = VUR_USER_QPS_RESET;
	TAP_EQ(vur_user_modify_qp(a.d, qa, &at, VUR_USER_QP_STATE), 0);
	TAP_EQ(le32toh(rec->rq_notify), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/* DEV-RING-20, -8; DEV-RING-5; DRV-RING-5: RESET_OBJECTS forgets SETUP_RINGS; RESET zeroes indices.
 */
static void
reset_forgets_setup(void)
{
	struct vur_user_qp_attr at = { .qp_state = VUR_USER_QPS_RESET };
	struct vur_user_ring_info info;
	struct virtio_rdma_qp_rec *rec;
	struct raw_qp r;
	uint32_t qa, qb;

	if (!rdma_e2e_ready(&a, &b))
		return;
	/* a QP through RESET: the device's indices are 0 again, and so are the driver's */
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	if (!rc_connect(qa, qb))
		return;
	TAP_CHECK(write_checked(qa, a.cqn, 0, 64, 0xb01));
	TAP_CHECK(write_checked(qa, a.cqn, 0, 64, 0xb02));
	TAP_EQ(vur_user_qp_ring_info(a.d, qa, &info), 0);
	rec = info.rec;
	TAP_EQ(le32toh(rec->sq_cons), 2);
	TAP_EQ(vur_user_modify_qp(a.d, qa, &at, VUR_USER_QP_STATE), 0);
	TAP_EQ(le32toh(rec->sq_cons), 0);
	TAP_EQ(le32toh(rec->sq_event), 0);
	TAP_EQ(le32toh(rec->sq_prod), 0);
	TAP_EQ(vur_user_modify_qp(b.d, qb, &at, VUR_USER_QP_STATE), 0);
	if (rc_connect(qa, qb))
		TAP_CHECK(write_checked(qa, a.cqn, 0, 64, 0xb03));
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	/* RESET_OBJECTS: the doorbell area is forgotten, a raw ring QP is refused */
	TAP_EQ(vur_user_reset_objects(a.d), 0);
	TAP_EQ(vur_user_add_gid(a.d, 0, a.gid), 0);
	TAP_EQ(vur_user_create_pd(a.d, &a.pdn), 0);
	if (!raw_qp_init(&r, VUR_USER_ACCESS_LOCAL_WRITE))
		return;
	r.c.qp.send_cqn = r.c.qp.recv_cqn = 0; /* no CQ yet either: refused all the same */
	TAP_EQ(raw_create_qp(&r.c, sizeof(r.c)), VIRTIO_NET_ERR);
	TAP_EQ(vur_user_dereg_mr(a.d, r.mr.mrn), 0);
	TAP_EQ(vur_user_destroy_pd(a.d, a.pdn), 0);
	TAP_EQ(vur_user_del_gid(a.d, 0), 0);
	/* the library sets it up again for its next object */
	TAP_EQ(rdma_ep_objects(&a), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, a.cqn, a.cqn, 4, VUR_USER_LAYOUT_RINGS, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, b.cqn, b.cqn, 4, VUR_USER_LAYOUT_RINGS, &qb), 0);
	if (rc_connect(qa, qb))
		TAP_CHECK(write_checked(qa, a.cqn, 0, 4096, 0xb04));
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
}

/* An RC pair on rings, a's CQ armed @n times: a WRITE and a completion event each time. */
static void
events(uint32_t seed, int n)
{
	uint32_t cqa, cqb, qa, qb;

	TAP_EQ(vur_user_create_cq(a.d, 16, &cqa), 0);
	TAP_EQ(vur_user_create_cq(b.d, 16, &cqb), 0);
	TAP_EQ(qp_new(&a, VUR_USER_QPT_RC, cqa, cqa, 8, VUR_USER_LAYOUT_AUTO, &qa), 0);
	TAP_EQ(qp_new(&b, VUR_USER_QPT_RC, cqb, cqb, 8, VUR_USER_LAYOUT_AUTO, &qb), 0);
	if (rc_connect(qa, qb) && vur_user_cq_event_fd(a.d, cqa) >= 0)
		for (int i = 0; i < n && !tap_case_failed; i++) {
			TAP_EQ(vur_user_req_notify_cq(a.d, cqa, VUR_USER_NOTIFY_NEXT_COMPLETION),
					0);
			TAP_CHECK(write_checked(qa, cqa, 0, 64, seed + (uint32_t)i));
			TAP_EQ(vur_user_get_cq_event(a.d, cqa, RDMA_E2E_WAIT_MS), 1);
		}
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cqa), 0);
	TAP_EQ(vur_user_destroy_cq(b.d, cqb), 0);
}

/*
 * DEV-RING-18: a device's next frontend gets events too. Its event queues
 * start from the base it sets, not from where the previous frontend's
 * stopped: past its 64 buffers, the old index made the new queue look
 * broken (UD vur-pingpong -e hung).
 */
static void
events_next_frontend(void)
{
	if (!rdma_e2e_ready(&a, &b))
		return;
	events(0x800, 80);
	vur_user_close(a.d);
	a.d = NULL;
	/* the backend refuses a new frontend until it has seen the old one go */
	for (uint64_t end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
			rdma_e2e_open_ep(&e2e, &a, 0, 1, BUF_LEN, MEM_SIZE) < 0 &&
			rdma_now_ms() < end;)
		poll(NULL, 0, 10);
	if (!rdma_e2e_ready(&a, &b))
		return;
	events(0x900, 2);
}

static void
devices_close(void)
{
	rdma_e2e_stop(&e2e, &a, &b);
}

/* RINGS_CASE=name runs that case alone (between the opening and the closing). */
#define RUN(fn)                                             \
	do {                                                \
		if (only == NULL || strcmp(only, #fn) == 0) \
			TAP_RUN(fn);                        \
	} while (0)

int
main(int argc, char **argv)
{
	const char *only = getenv("RINGS_CASE");

	if (rdma_e2e_args(&e2e, argc, argv) < 0)
		return 1;
	setenv("VUR_USER_LAYOUT", "rings", 1); /* this test is about rings: new objects on them */
	TAP_RUN(devices_open);
	RUN(discovery_and_numbering);
	RUN(deep_queues);
	RUN(create_refused);
	RUN(mr_busy);
	RUN(lying_producer);
	RUN(cq_cons_beyond_prod);
	RUN(doorbell_bits_ignored);
	RUN(cq_events);
	RUN(srq_limit_once);
	RUN(doorbell_wakes_sleeper);
	RUN(err_flushes_posts);
	RUN(reset_forgets_setup);
	RUN(events_wait_for_buffers);
	RUN(events_next_frontend);
	TAP_RUN(devices_close);
	child_cleanup(&e2e.backend);
	return tap_done();
}
