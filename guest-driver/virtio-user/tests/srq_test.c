/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues end to end: two devices of one real backend. Device
 * b has an SRQ and two RC QPs and a UD QP on it; a's QPs send to them, and
 * each message takes the SRQ's next WR, in the order they were posted,
 * whichever QP it is for, its CQE on that QP's receive CQ with its qp_num;
 * the SRQ limit is computed from the virtqueue; a QP moved to ERR leaves
 * the SRQ's WRs to the others; DESTROY_SRQ is refused while QPs are on it,
 * and afterwards hands back what is left used. With two data-path threads
 * too (the QPs of one SRQ served on both).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_e2e.h"
#include "rdma_pair.h"
#include "tap.h"
#include "vur_rings.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define BUF_LEN  (1u << 20)
#define MEM_SIZE (8u << 20)
#define SLOT     2048 /* each SRQ WR's room in b's buffer */
#define MSG_LEN  1000

static struct rdma_e2e e2e;
static struct rdma_ep a, b;

static void
devices_open(void)
{
	rdma_e2e_start(&e2e, &a, &b, BUF_LEN, MEM_SIZE);
}

/* ROCE-DEV-ATTR-14: SRQs are there, with their limits. */
static void
device_caps(void)
{
	struct vur_user_device_attr at;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_query_device(b.d, &at), 0);
	TAP_CHECK(at.device_cap_flags & VUR_USER_DEVICE_SRQ);
	TAP_CHECK(at.max_srq >= 1 && at.max_srq <= at.max_qp - 2);
	TAP_EQ(at.max_srq_wr, 1024);
	TAP_EQ(at.max_srq_sge, 16);
}

static struct vur_user_qp_init_attr
on_srq(const struct rdma_ep *e, uint8_t type, uint32_t srqn)
{
	return (struct vur_user_qp_init_attr){
		.pdn = e->pdn,
		.qp_type = type,
		.send_cqn = e->cqn,
		.recv_cqn = e->cqn,
		.cap = { .max_send_wr = 8, .max_send_sge = 2 },
		.flags = VUR_USER_QP_F_SRQ,
		.srqn = srqn,
	};
}

/* Every refusal of CREATE_SRQ, CREATE_QP on an SRQ and DESTROY_SRQ. */
static void
refusals(void)
{
	struct vur_user_srq_attr sa = { .max_wr = 8, .max_sge = 1 };
	struct vur_user_device_attr at;
	struct vur_user_qp_init_attr ia;
	uint32_t srqn, other_pd, qpn;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_create_srq(b.d, b.pdn + 7, &sa, &srqn), -EREMOTEIO); /* SRQ-1 */
	sa.max_wr = 0;
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), -EREMOTEIO); /* SRQ-2 */
	/* beyond max_srq_wr on a virtqueue; beyond max_ring_wr on rings */
	TAP_EQ(vur_user_query_device(b.d, &at), 0);
	sa.max_wr = vur_user_ring_queues(b.d) > 0 ? at.max_ring_wr + 1 : 1025;
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), -EREMOTEIO);
	sa.max_wr = 8;
	sa.max_sge = 17;
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), -EREMOTEIO);
	sa.max_sge = 1;
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), 0);
	TAP_EQ(vur_user_create_pd(b.d, &other_pd), 0);
	/* SRQ-5: no such SRQ, another PD, receive capacities, the GSI QP */
	ia = on_srq(&b, VUR_USER_QPT_RC, srqn + 1);
	TAP_EQ(vur_user_create_qp(b.d, &ia, &qpn), -EREMOTEIO);
	ia = on_srq(&b, VUR_USER_QPT_RC, srqn);
	ia.pdn = other_pd;
	TAP_EQ(vur_user_create_qp(b.d, &ia, &qpn), -EREMOTEIO);
	ia = on_srq(&b, VUR_USER_QPT_RC, srqn);
	ia.cap.max_recv_wr = 1;
	TAP_EQ(vur_user_create_qp(b.d, &ia, &qpn), -EREMOTEIO);
	ia = on_srq(&b, VUR_USER_QPT_GSI, srqn);
	TAP_EQ(vur_user_create_qp(b.d, &ia, &qpn), -EREMOTEIO);
	ia = on_srq(&b, VUR_USER_QPT_RC, srqn);
	ia.flags = 0x80; /* QP-19 */
	TAP_EQ(vur_user_create_qp(b.d, &ia, &qpn), -EREMOTEIO);
	/* PD-3, SRQ-7 */
	TAP_EQ(vur_user_destroy_pd(b.d, b.pdn), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn + 1), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), 0);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_pd(b.d, other_pd), 0);
}

static int
post_srq(uint32_t srqn, uint64_t wr_id, uint32_t slot)
{
	struct vur_user_sge s = rdma_sge(&b, (uint64_t)slot * SLOT, SLOT);
	struct vur_user_recv_wr r = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 };

	return vur_user_post_srq_recv(b.d, srqn, &r, 1, NULL);
}

/* a sends message @m (MSG_LEN bytes at its slot @m) on @qa; @ud: to b's UD QP @qb by @ah. */
static bool
send_msg(uint32_t qa, uint32_t m, bool ud, uint32_t qb, uint32_t ah)
{
	struct vur_user_sge s = rdma_sge(&a, (uint64_t)m * SLOT, MSG_LEN);
	struct vur_user_send_wr q =
			rdma_req(0x900 + m, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	struct vur_user_wc wc;

	rdma_fill(a.buf + (size_t)m * SLOT, MSG_LEN, m);
	if (ud) {
		q.ud.remote_qpn = qb;
		q.ud.remote_qkey = 0x11111111;
		q.ud.ah = ah;
	}
	TAP_EQ(vur_user_post_send(a.d, qa, &q, 1, NULL), 0);
	TAP_EQ(rdma_next_cqe(&a, &wc), 1);
	TAP_EQ(wc.status, VUR_USER_WC_SUCCESS);
	return wc.wr_id == 0x900 + m;
}

/*
 * b's next receive is the SRQ's WR @slot (ROCE-DEV-SRQ-9), on QP @qb
 * (SRQ-10), holding message @m.
 */
static void
expect_recv(uint32_t slot, uint32_t qb, uint32_t m, bool ud, int line)
{
	const uint8_t *p = b.buf + (size_t)slot * SLOT + (ud ? 40 : 0);
	struct vur_user_wc wc;

	if (rdma_next_cqe(&b, &wc) != 1) {
		printf("# line %d: no receive CQE\n", line);
		tap_case_failed = 1;
		return;
	}
	if (wc.status != VUR_USER_WC_SUCCESS || wc.wr_id != 0x100 + slot || wc.qp_num != qb ||
			wc.byte_len != MSG_LEN + (ud ? 40u : 0u) ||
			memcmp(p, a.buf + (size_t)m * SLOT, MSG_LEN) != 0) {
		printf("# line %d: CQE wr_id %#" PRIx64 " status %s qp %u len %u; want %#x on %u\n",
				line, wc.wr_id, vur_user_wc_status_str(wc.status), wc.qp_num,
				wc.byte_len, 0x100 + slot, qb);
		tap_case_failed = 1;
	}
}
#define EXPECT_RECV(slot, qb, m, ud) expect_recv(slot, qb, m, ud, __LINE__)

static uint32_t
srq_wrs(uint32_t srqn)
{
	struct vur_user_srq_attr at;
	uint32_t n = 0;

	TAP_EQ(vur_user_query_srq(b.d, srqn, &at, &n), 0);
	return n;
}

static void
shared_receive(void)
{
	struct vur_user_srq_attr sa = { .max_wr = 16, .max_sge = 2 };
	struct vur_user_ah_attr av = { .grh.hop_limit = 64 };
	uint32_t srqn, rc1a, rc2a, uda, rc1b, rc2b, udb, ah;
	struct vur_user_qp_init_attr ia;
	struct pollfd pfd;
	struct vur_user_wc wc;
	uint32_t m = 0;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), 0);
	ia = on_srq(&b, VUR_USER_QPT_RC, srqn);
	TAP_EQ(vur_user_create_qp(b.d, &ia, &rc1b), 0);
	TAP_CHECK(rc1b != srqn); /* VQ-5 */
	TAP_EQ(vur_user_create_qp(b.d, &ia, &rc2b), 0);
	ia = on_srq(&b, VUR_USER_QPT_UD, srqn);
	TAP_EQ(vur_user_create_qp(b.d, &ia, &udb), 0);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &rc1a), 0);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_RC, &rc2a), 0);
	TAP_EQ(rdma_create_qp(&a, VUR_USER_QPT_UD, &uda), 0);
	TAP_EQ(rdma_connect_qp(&a, rc1a, VUR_USER_QPT_RC, &b, rc1b, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&b, rc1b, VUR_USER_QPT_RC, &a, rc1a, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&a, rc2a, VUR_USER_QPT_RC, &b, rc2b, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&b, rc2b, VUR_USER_QPT_RC, &a, rc2a, 7, 14, 7), 0);
	TAP_EQ(rdma_connect_qp(&a, uda, VUR_USER_QPT_UD, &b, udb, 0, 0, 0), 0);
	TAP_EQ(rdma_connect_qp(&b, udb, VUR_USER_QPT_UD, &a, uda, 0, 0, 0), 0);
	memcpy(av.grh.dgid, b.gid, 16);
	memcpy(av.dmac, b.mac, 6);
	TAP_EQ(vur_user_create_ah(a.d, a.pdn, &av, &ah), 0);

	/* 8 WRs; the limit armed at 3 */
	for (uint32_t i = 0; i < 8; i++)
		TAP_EQ(post_srq(srqn, 0x100 + i, i), 0);
	TAP_EQ(srq_wrs(srqn), 8);
	TAP_EQ(vur_user_arm_srq(b.d, srqn, 3), 0);
	TAP_EQ(vur_user_srq_limit_reached(b.d, srqn), 0);

	/* SRQ-9, -10: the WRs in posted order, whichever QP a message is for */
	TAP_CHECK(send_msg(rc1a, m, false, 0, 0));
	EXPECT_RECV(0, rc1b, m, false);
	m++;
	TAP_CHECK(send_msg(uda, m, true, udb, ah));
	EXPECT_RECV(1, udb, m, true);
	m++;
	TAP_CHECK(send_msg(rc2a, m, false, 0, 0));
	EXPECT_RECV(2, rc2b, m, false);
	m++;
	TAP_CHECK(send_msg(rc1a, m, false, 0, 0));
	EXPECT_RECV(3, rc1b, m, false);
	m++;
	TAP_CHECK(send_msg(rc2a, m, false, 0, 0));
	EXPECT_RECV(4, rc2b, m, false);
	m++;
	/* 3 left: not fewer than the limit yet */
	TAP_EQ(srq_wrs(srqn), 3);
	TAP_EQ(vur_user_srq_limit_reached(b.d, srqn), 0);
	TAP_CHECK(send_msg(uda, m, true, udb, ah));
	EXPECT_RECV(5, udb, m, true);
	m++;
	/* SRQ-15 and the driver's limit: a notification, the event once, disarmed */
	pfd = (struct pollfd){ .fd = vur_user_srq_event_fd(b.d, srqn), .events = POLLIN };
	TAP_EQ(poll(&pfd, 1, RDMA_E2E_WAIT_MS), 1);
	TAP_EQ(vur_user_srq_limit_reached(b.d, srqn), 1);
	TAP_EQ(vur_user_srq_limit_reached(b.d, srqn), 0);

	/* SRQ-13: rc2b to ERR flushes nothing of the SRQ's; the others go on */
	{
		struct vur_user_qp_attr at = { .qp_state = VUR_USER_QPS_ERR };

		TAP_EQ(vur_user_modify_qp(b.d, rc2b, &at, VUR_USER_QP_STATE), 0);
	}
	poll(NULL, 0, 50);
	TAP_EQ(vur_user_poll_cq(b.d, b.cqn, &wc, 1), 0);
	TAP_EQ(srq_wrs(srqn), 2);
	TAP_CHECK(send_msg(rc1a, m, false, 0, 0));
	EXPECT_RECV(6, rc1b, m, false);
	m++;
	TAP_EQ(srq_wrs(srqn), 1);

	/* SRQ-7: refused while QPs are on it; then SRQ-8: WR 7 handed back, no CQE */
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_qp(b.d, rc1b), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, rc2b), 0);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_qp(b.d, udb), 0);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), 0);
	TAP_EQ(vur_user_poll_cq(b.d, b.cqn, &wc, 1), 0);
	TAP_EQ(vur_user_destroy_ah(a.d, a.pdn, ah), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, rc1a), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, rc2a), 0);
	TAP_EQ(vur_user_destroy_qp(a.d, uda), 0);
	/* the number is free again, for an SRQ or a QP */
	TAP_EQ(vur_user_create_srq(b.d, b.pdn, &sa, &srqn), 0);
	TAP_EQ(vur_user_destroy_srq(b.d, srqn), 0);
}

static void
backend_stops_cleanly(void)
{
	rdma_e2e_stop(&e2e, &a, &b);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_args(&e2e, argc, argv) < 0)
		return 1;
	TAP_RUN(devices_open);
	TAP_RUN(device_caps);
	TAP_RUN(refusals);
	TAP_RUN(shared_receive);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
