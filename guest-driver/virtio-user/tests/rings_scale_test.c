/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings layout at scale (issue 28), against the real backend with its
 * default ring limits (--max-ring-qps 16384 --max-ring-cqs 16384, given
 * explicitly) and 1 GiB of EAL memory (-m 1024):
 *
 *   qps_16k_cqs_16k  16384 ring CQs and 16384 ring QPs on one device
 *                    (DEV-RING-1, -6), each QP on its own CQ; RC traffic
 *                    on a random sample of them towards QPs of the other
 *                    device, WRITE and SEND with every byte checked; the
 *                    creation and destruction times printed (not judged).
 *   cq_1m            a CQ of 1M CQEs filled by 1M signaled 8-byte WRITEs
 *                    without a poll, then drained: every CQE in order,
 *                    SUCCESS (DEV-RING-11, -15: room is prod - cons < size;
 *                    DRV-RING-4).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net_roce.h>

#include "rdma_e2e.h"
#include "rdma_pair.h"
#include "tap.h"
#include "vur_rings.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define N_OBJ   16384
#define SAMPLE  24
#define BUF_LEN (1u << 20)
#define MEM_A   (192u << 20) /* 16k QPs and CQs (~45 MiB), the 1M CQ ring (64 MiB) */
#define MEM_B   (16u << 20)
#define CQ_BIG  (1u << 20)

static struct rdma_e2e e2e;
static struct rdma_ep a, b;
static struct vur_user_device_attr attr;

static void
devices_open(void)
{
	static const char *const eal[] = { "-m", "1024", NULL };
	static const char *const app[] = { "--max-ring-qps", "16384", "--max-ring-cqs", "16384",
		NULL };
	const struct child_opts o = { .eal_args = eal, .app_args = app, .n_sockets = 2 };
	int ret = child_start(&e2e.backend, e2e.backend_bin, &o);

	if (ret == 0)
		ret = child_wait_socket(&e2e.backend, RDMA_E2E_WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0)
		return;
	TAP_EQ(rdma_e2e_open_ep(&e2e, &a, 0, 1, BUF_LEN, MEM_A), 0);
	TAP_EQ(rdma_e2e_open_ep(&e2e, &b, 1, 2, BUF_LEN, MEM_B), 0);
	if (rdma_e2e_ready(&a, &b))
		TAP_EQ(vur_user_query_device(a.d, &attr), 0);
}

static double
secs(uint64_t t0)
{
	return (double)(rdma_now_ms() - t0) / 1000.0;
}

static bool
connect_pair(uint32_t qa, uint32_t qb)
{
	int ret = rdma_connect_qp(&a, qa, VUR_USER_QPT_RC, &b, qb, 7, 14, 7);

	if (ret == 0)
		ret = rdma_connect_qp(&b, qb, VUR_USER_QPT_RC, &a, qa, 7, 14, 7);
	TAP_EQ(ret, 0);
	return ret == 0;
}

static bool
cqe_on(struct rdma_ep *e, uint32_t cqn, uint64_t wr_id)
{
	uint64_t end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
	struct vur_user_wc wc;
	int n;

	do {
		n = vur_user_poll_cq(e->d, cqn, &wc, 1);
		if (n == 1) {
			if (wc.wr_id != wr_id || wc.status != VUR_USER_WC_SUCCESS)
				printf("# CQ %u: wr_id %#" PRIx64 " status %u, want %#" PRIx64 "\n",
						cqn, wc.wr_id, wc.status, wr_id);
			return wc.wr_id == wr_id && wc.status == VUR_USER_WC_SUCCESS;
		}
		poll(NULL, 0, 1);
	} while (rdma_now_ms() < end);
	printf("# CQ %u: no CQE for %#" PRIx64 "\n", cqn, wr_id);
	return false;
}

/* WRITE a -> b and SEND b -> a on the pair, each byte checked. */
static void
traffic(uint32_t i, uint32_t qa, uint32_t cqa, uint32_t qb)
{
	uint64_t off = (uint64_t)(i % 64) * 8192;
	struct vur_user_sge s;
	struct vur_user_send_wr w;

	rdma_fill(a.buf + off, 4096, i);
	memset(b.buf + off, 0, 4096);
	TAP_EQ(rdma_post_rdma(&a, qa, VUR_USER_WR_RDMA_WRITE, off, 4096, b.addr + off, b.mr.rkey,
			       0x1000 + i),
			0);
	TAP_CHECK(cqe_on(&a, cqa, 0x1000 + i));
	TAP_CHECK(memcmp(a.buf + off, b.buf + off, 4096) == 0);
	s = rdma_sge(&a, off + 4096, 1024);
	memset(a.buf + off + 4096, 0, 1024);
	TAP_EQ(rdma_post_recv(&a, qa, 0x2000 + i, &s, 1), 0);
	rdma_fill(b.buf + off + 4096, 1024, i + 7);
	s = rdma_sge(&b, off + 4096, 1024);
	w = rdma_req(0x3000 + i, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	TAP_EQ(rdma_post_send(&b, qb, &w), 0);
	TAP_CHECK(cqe_on(&b, b.cqn, 0x3000 + i));
	TAP_CHECK(cqe_on(&a, cqa, 0x2000 + i));
	TAP_CHECK(memcmp(a.buf + off + 4096, b.buf + off + 4096, 1024) == 0);
}

static void
qps_16k_cqs_16k(void)
{
	uint32_t *cq = calloc(N_OBJ, sizeof(*cq)), *qp = calloc(N_OBJ, sizeof(*qp));
	struct vur_user_qp_init_attr ia = {
		.pdn = a.pdn,
		.qp_type = VUR_USER_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 },
		.layout = VUR_USER_LAYOUT_RINGS,
	};
	uint32_t n_cq = 0, n_qp = 0, qb;
	uint64_t t0;
	int ret = 0;

	if (!rdma_e2e_ready(&a, &b) || cq == NULL || qp == NULL)
		goto out;
	/* the harness's CQ is one of the 16384: make room by destroying it */
	TAP_EQ(vur_user_destroy_cq(a.d, a.cqn), 0);
	t0 = rdma_now_ms();
	for (; n_cq < N_OBJ && ret == 0; n_cq++)
		ret = vur_user_create_cq_ex(a.d, 2, VUR_USER_LAYOUT_RINGS, &cq[n_cq]);
	if (ret != 0)
		n_cq--;
	TAP_EQ(ret, 0);
	TAP_EQ(n_cq, N_OBJ);
	printf("# %u ring CQs created in %.2f s\n", n_cq, secs(t0));
	t0 = rdma_now_ms();
	for (; n_qp < n_cq && ret == 0; n_qp++) {
		ia.send_cqn = ia.recv_cqn = cq[n_qp];
		ret = vur_user_create_qp(a.d, &ia, &qp[n_qp]);
	}
	if (ret != 0)
		n_qp--;
	TAP_EQ(ret, 0);
	TAP_EQ(n_qp, N_OBJ);
	printf("# %u ring QPs created in %.2f s\n", n_qp, secs(t0));
	TAP_CHECK(rdma_e2e_counter(&e2e, &a, "qps") >= N_OBJ);
	/* one more of each is refused */
	if (n_qp == N_OBJ) {
		ia.send_cqn = ia.recv_cqn = cq[0];
		TAP_EQ(vur_user_create_qp(a.d, &ia, &qb), -EREMOTEIO);
		TAP_EQ(vur_user_create_cq_ex(a.d, 2, VUR_USER_LAYOUT_RINGS, &qb), -EREMOTEIO);
	}
	srand(28);
	for (uint32_t k = 0; k < SAMPLE && n_qp > 0; k++) {
		uint32_t i = (uint32_t)rand() % n_qp;
		struct vur_user_qp_init_attr ib = ia;

		ib.pdn = b.pdn;
		ib.send_cqn = ib.recv_cqn = b.cqn;
		TAP_EQ(vur_user_create_qp(b.d, &ib, &qb), 0);
		if (connect_pair(qp[i], qb))
			traffic(i, qp[i], cq[i], qb);
		TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	}
	t0 = rdma_now_ms();
	for (uint32_t i = 0; i < n_qp; i++)
		if (vur_user_destroy_qp(a.d, qp[i]) != 0)
			TAP_CHECK(0);
	printf("# %u ring QPs destroyed in %.2f s\n", n_qp, secs(t0));
	for (uint32_t i = 0; i < n_cq; i++)
		if (vur_user_destroy_cq(a.d, cq[i]) != 0)
			TAP_CHECK(0);
	TAP_EQ(rdma_e2e_counter(&e2e, &a, "qps"), 0);
	TAP_EQ(vur_user_create_cq(a.d, RDMA_EP_CQ_DEPTH, &a.cqn), 0);
out:
	free(cq);
	free(qp);
}

static void
cq_1m(void)
{
	enum { DEPTH = 4096, BATCH = 256 };
	struct vur_user_qp_init_attr ia = {
		.pdn = a.pdn,
		.qp_type = VUR_USER_QPT_RC,
		.cap = { .max_send_wr = DEPTH,
				.max_recv_wr = 1,
				.max_send_sge = 1,
				.max_recv_sge = 1 },
		.layout = VUR_USER_LAYOUT_RINGS,
	};
	struct vur_user_send_wr w[BATCH];
	struct vur_user_ring_info info;
	struct vur_user_wc *wc = calloc(1024, sizeof(*wc));
	struct vur_user_sge s;
	uint32_t cqn, qa, qb, posted = 0, got = 0, bad_at = UINT32_MAX;
	uint64_t t0, end;
	int n;

	if (!rdma_e2e_ready(&a, &b) || wc == NULL)
		goto out;
	TAP_EQ(vur_user_create_cq_ex(a.d, CQ_BIG, VUR_USER_LAYOUT_RINGS, &cqn), 0);
	TAP_EQ(vur_user_cq_ring_info(a.d, cqn, &info), 0);
	TAP_EQ(info.size[0], CQ_BIG);
	ia.send_cqn = ia.recv_cqn = cqn;
	TAP_EQ(vur_user_create_qp(a.d, &ia, &qa), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_RC, &qb), 0);
	if (!connect_pair(qa, qb))
		goto out;
	s = rdma_sge(&a, 0, 8);
	t0 = rdma_now_ms();
	end = t0 + 12 * RDMA_E2E_WAIT_MS;
	while (posted < CQ_BIG && rdma_now_ms() < end) {
		unsigned int k = CQ_BIG - posted < BATCH ? CQ_BIG - posted : BATCH, done = 0;

		for (unsigned int i = 0; i < k; i++) {
			w[i] = rdma_req(posted + i, VUR_USER_WR_RDMA_WRITE, VUR_USER_SEND_SIGNALED,
					&s, 1);
			w[i].rdma.remote_addr = b.addr + ((posted + i) % 1024) * 8;
			w[i].rdma.rkey = b.mr.rkey;
		}
		n = vur_user_post_send(a.d, qa, w, k, &done);
		posted += n == 0 ? k : done;
		if (n == -ENOMEM)
			poll(NULL, 0, 1); /* the send queue is full: its WRs complete meanwhile */
		else if (n != 0)
			break;
	}
	TAP_EQ(posted, CQ_BIG);
	/* every CQE written without a poll: the CQ is exactly full */
	while (le32toh(__atomic_load_n(&((struct virtio_rdma_cq_rec *)info.rec)->prod,
			       __ATOMIC_ACQUIRE)) != CQ_BIG &&
			rdma_now_ms() < end)
		poll(NULL, 0, 5);
	TAP_EQ(le32toh(((struct virtio_rdma_cq_rec *)info.rec)->prod), CQ_BIG);
	printf("# a CQ of %u CQEs filled in %.2f s\n", CQ_BIG, secs(t0));
	t0 = rdma_now_ms();
	while (got < CQ_BIG) {
		n = vur_user_poll_cq(a.d, cqn, wc, 1024);
		if (n <= 0)
			break;
		for (int i = 0; i < n; i++, got++)
			if (bad_at == UINT32_MAX &&
					(wc[i].wr_id != got ||
							wc[i].status != VUR_USER_WC_SUCCESS ||
							wc[i].qp_num != qa ||
							wc[i].opcode != VUR_USER_WC_RDMA_WRITE))
				bad_at = got;
	}
	printf("# drained in %.2f s\n", secs(t0));
	TAP_EQ(got, CQ_BIG);
	TAP_EQ(bad_at, UINT32_MAX);
	TAP_EQ(vur_user_poll_cq(a.d, cqn, wc, 1), 0);
	TAP_EQ(vur_user_cq_ring_info(a.d, cqn, &info), 0);
	TAP_EQ(info.errors, 0);
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_RTS);
	TAP_EQ(vur_user_destroy_qp(a.d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb), 0);
	TAP_EQ(vur_user_destroy_cq(a.d, cqn), 0);
out:
	free(wc);
}

static void
devices_close(void)
{
	rdma_e2e_stop(&e2e, &a, &b);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_args(&e2e, argc, argv) < 0)
		return 1;
	setenv("VUR_USER_LAYOUT", "rings", 1);
	TAP_RUN(devices_open);
	TAP_RUN(qps_16k_cqs_16k);
	TAP_RUN(cq_1m);
	TAP_RUN(devices_close);
	child_cleanup(&e2e.backend);
	return tap_done();
}
