/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API against the real backend, part two: queue pairs (creation,
 * limits, the state machine with its required and refused attributes,
 * attribute ranges), address handles and the GID table, from
 * virtio-spec/virtio-net-roce.md (IDs from conformance.md). See
 * verbs_test.c for the setting.
 *
 * Usage: virtio_user_verbs_qp_test PATH/TO/vhost-user-rdma
 */
#include "verbs_test.h"

/* What RC needs for INIT -> RTR and RTR -> RTS, one by one. */
static const uint32_t rc_rtr_required[] = { VUR_USER_QP_AV, VUR_USER_QP_PATH_MTU,
	VUR_USER_QP_DEST_QPN, VUR_USER_QP_RQ_PSN, VUR_USER_QP_MAX_DEST_RD_ATOMIC,
	VUR_USER_QP_MIN_RNR_TIMER };
static const uint32_t rc_rts_required[] = { VUR_USER_QP_SQ_PSN, VUR_USER_QP_TIMEOUT,
	VUR_USER_QP_RETRY_CNT, VUR_USER_QP_RNR_RETRY, VUR_USER_QP_MAX_QP_RD_ATOMIC };

/* ---- Queue pairs ---- */

/* ROCE-DEV-QP-7, -15, ROCE-DEV-VQ-2, -3: RESET, cap as created, zero elsewhere. */
static void
qp_create_and_query(void)
{
	struct vur_user_qp_init_attr ia;
	struct vur_user_qp_attr a;
	uint32_t pdn, cqn, qpn, gsi;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	cqn = new_cq(64);
	ia = qp_init(VUR_USER_QPT_RC, pdn, cqn);
	ia.cap = (struct vur_user_qp_cap){ 64, 32, 2, 3, 128 };
	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	TAP_CHECK(qpn >= 2 && qpn < lim.max_qp);
	memset(&a, 0x5a, sizeof(a));
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &a), 0);
	TAP_EQ(a.qp_state, VUR_USER_QPS_RESET);
	TAP_EQ(a.cap.max_send_wr, 64);
	TAP_EQ(a.cap.max_recv_wr, 32);
	TAP_EQ(a.cap.max_send_sge, 2);
	TAP_EQ(a.cap.max_recv_sge, 3);
	TAP_EQ(a.cap.max_inline_data, 128);
	TAP_EQ(a.path_mtu, 0);
	TAP_EQ(a.qkey, 0);
	TAP_EQ(a.dest_qp_num, 0);
	TAP_EQ(a.sq_draining, 0);
	TAP_EQ(a.ah_attr.grh.hop_limit, 0);
	/* QUERY_QP answers everything, whatever the mask asks (QP-15). */
	TAP_EQ(vur_user_query_qp(dev, qpn, VUR_USER_QP_STATE, &a), 0);
	TAP_EQ(a.cap.max_recv_sge, 3);
	REFUSED(vur_user_query_qp(dev, qpn, 1u << 17, &a)); /* QP-9 */

	gsi = new_qp(VUR_USER_QPT_GSI, pdn, cqn);
	TAP_EQ(gsi, 1);
	TAP_EQ(new_qp(VUR_USER_QPT_UD, pdn, cqn) > 1, 1);
	TAP_EQ(new_qp(VUR_USER_QPT_UC, pdn, cqn) > 1, 1);
	end();
}

/* ROCE-DEV-QP-1 to -6. */
static void
qp_create_refusals(void)
{
	struct vur_user_qp_init_attr ia, good;
	uint32_t pdn, cqn, dead_pd, dead_cq, qpn;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	cqn = new_cq(64);
	dead_pd = new_pd();
	dead_cq = new_cq(4);
	TAP_EQ(vur_user_destroy_pd(dev, dead_pd), 0);
	TAP_EQ(vur_user_destroy_cq(dev, dead_cq), 0);
	good = qp_init(VUR_USER_QPT_RC, pdn, cqn);

	ia = good;
	ia.pdn = dead_pd; /* QP-1 */
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia.pdn = 0xdeadbeef;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.qp_type = VUR_USER_QPT_SMI; /* QP-2 */
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia.qp_type = 5;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia.qp_type = 255;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.sq_sig_all = 2; /* QP-3 */
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.send_cqn = dead_cq; /* QP-4 */
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.recv_cqn = dead_cq;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia.recv_cqn = 0xdeadbeef;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	/* QP-5: caps above the device's limits. */
	ia = good;
	ia.cap.max_send_wr = lim.max_qp_wr + 1;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.cap.max_recv_wr = lim.max_qp_wr + 1;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.cap.max_send_sge = lim.max_send_sge + 1;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.cap.max_recv_sge = lim.max_recv_sge + 1;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	ia = good;
	ia.cap.max_inline_data = VIRTIO_NET_ROCE_MAX_INLINE + 1;
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	/* QP-6: no virtqueue of 64 entries holds 65 WRs. */
	if (lim.max_qp_wr > VUR_USER_DEFAULT_RDMA_QUEUE_SIZE) {
		ia = good;
		ia.cap.max_send_wr = VUR_USER_DEFAULT_RDMA_QUEUE_SIZE + 1;
		REFUSED(vur_user_create_qp(dev, &ia, &qpn));
		ia = good;
		ia.cap.max_recv_wr = VUR_USER_DEFAULT_RDMA_QUEUE_SIZE + 1;
		REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	}
	/* The limits themselves are fine. */
	ia = good;
	ia.cap = (struct vur_user_qp_cap){ VUR_USER_DEFAULT_RDMA_QUEUE_SIZE,
		VUR_USER_DEFAULT_RDMA_QUEUE_SIZE, lim.max_send_sge, lim.max_recv_sge,
		VIRTIO_NET_ROCE_MAX_INLINE };
	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	/* QP-6: one GSI QP. */
	ia = good;
	ia.qp_type = VUR_USER_QPT_GSI;
	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	TAP_EQ(qpn, 1);
	REFUSED(vur_user_create_qp(dev, &ia, &qpn));
	TAP_EQ(vur_user_destroy_qp(dev, 1), 0);
	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	TAP_EQ(qpn, 1);
	end();
}

/* ROCE-DEV-QP-6: QP numbers 2 to L-1 for everything but the GSI QP. */
static void
qp_limit(void)
{
	uint32_t pdn, cqn, qpn, n = 0;
	uint64_t seen = 0;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	cqn = new_cq(64);
	for (;;) {
		struct vur_user_qp_init_attr ia = qp_init(VUR_USER_QPT_UD, pdn, cqn);

		if (n > lim.max_qp || vur_user_create_qp(dev, &ia, &qpn) != 0)
			break;
		TAP_CHECK(qpn >= 2 && qpn < lim.max_qp && qpn < 64 && !(seen & (1ULL << qpn)));
		if (qpn < 64)
			seen |= 1ULL << qpn;
		n++;
	}
	TAP_EQ(n, lim.max_qp - 2);
	{
		struct vur_user_qp_init_attr ia = qp_init(VUR_USER_QPT_RC, pdn, cqn);

		REFUSED(vur_user_create_qp(dev, &ia, &qpn));
		/* The GSI QP has its own number. */
		ia.qp_type = VUR_USER_QPT_GSI;
		TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
		TAP_EQ(qpn, 1);
	}
	end();
}

/* ROCE-DEV-QP-8: destroyed and unknown QPs. */
static void
qp_destroyed(void)
{
	struct vur_user_qp_attr a = { .qp_state = VUR_USER_QPS_ERR };
	uint32_t pdn, cqn, qpn;

	if (!begin())
		return;
	pdn = new_pd();
	cqn = new_cq(4);
	qpn = new_qp(VUR_USER_QPT_RC, pdn, cqn);
	TAP_EQ(vur_user_destroy_qp(dev, qpn), 0);
	REFUSED(vur_user_destroy_qp(dev, qpn));
	REFUSED(vur_user_query_qp(dev, qpn, 0, &a));
	REFUSED(vur_user_modify_qp(dev, qpn, &a, VUR_USER_QP_STATE));
	REFUSED(vur_user_destroy_qp(dev, 0)); /* never assigned (ROCE-DEV-VQ-2) */
	REFUSED(vur_user_query_qp(dev, 1, 0, &a));
	REFUSED(vur_user_destroy_qp(dev, 0xdeadbeef));
	end();
}

/* RESET -> INIT -> RTR -> RTS -> SQD -> RTS -> ERR -> RESET, values read back (QP-15). */
static void
rc_qp_to_rts(void)
{
	struct vur_user_qp_attr a = rc_attr(), q;
	uint32_t qpn;

	if (!begin())
		return;
	qpn = qp_setup(VUR_USER_QPT_RC);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.qp_state, VUR_USER_QPS_INIT);
	TAP_EQ(q.qp_access_flags, a.qp_access_flags);
	/* INIT -> INIT changes the access flags. */
	a.qp_access_flags = VUR_USER_ACCESS_REMOTE_READ;
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(vur_user_modify_qp(dev, qpn, &a, VUR_USER_QP_ACCESS_FLAGS), 0);

	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTR, RC_RTR_MASK), 0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.qp_state, VUR_USER_QPS_RTR);
	TAP_EQ(q.path_mtu, VUR_USER_MTU_1024);
	TAP_EQ(q.dest_qp_num, 0xabcde);
	TAP_EQ(q.rq_psn, 0x123456);
	TAP_EQ(q.max_dest_rd_atomic, 1);
	TAP_EQ(q.min_rnr_timer, 12);
	TAP_EQ(q.qp_access_flags, VUR_USER_ACCESS_REMOTE_READ);
	TAP_CHECK(memcmp(q.ah_attr.grh.dgid, gid_peer, 16) == 0);
	TAP_CHECK(memcmp(q.ah_attr.dmac, a.ah_attr.dmac, 6) == 0);
	TAP_EQ(q.ah_attr.grh.hop_limit, 64);

	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK), 0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.qp_state, VUR_USER_QPS_RTS);
	TAP_EQ(q.sq_psn, 0x654321); /* no traffic yet */
	TAP_EQ(q.timeout, 14);
	TAP_EQ(q.retry_cnt, 7);
	TAP_EQ(q.rnr_retry, 7);
	TAP_EQ(q.max_rd_atomic, 1);
	TAP_EQ(q.rq_psn, 0x123456);
	TAP_EQ(q.cap.max_send_wr, 16);
	/* RTS -> RTS: the optional attributes, with CUR_STATE. */
	a.cur_qp_state = VUR_USER_QPS_RTS;
	a.min_rnr_timer = 3;
	a.rate_limit = 100000;
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTS,
			       VUR_USER_QP_STATE | VUR_USER_QP_CUR_STATE |
					       VUR_USER_QP_MIN_RNR_TIMER | VUR_USER_QP_RATE_LIMIT),
			0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.min_rnr_timer, 3);
	TAP_EQ(q.rate_limit, 100000);

	TAP_EQ(modify(qpn, a, VUR_USER_QPS_SQD, VUR_USER_QP_STATE), 0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.qp_state, VUR_USER_QPS_SQD);
	TAP_EQ(q.sq_draining, 0); /* nothing was sent (ROCE-DEV-QPS-9) */
	/* SQD -> SQD may change the path attributes. */
	a.timeout = 20;
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_SQD, VUR_USER_QP_STATE | VUR_USER_QP_TIMEOUT), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE), 0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.timeout, 20);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_ERR, VUR_USER_QP_STATE), 0);
	TAP_EQ(query_state(qpn), VUR_USER_QPS_ERR);
	/* ERR -> RESET -> INIT -> RTR -> RTS again. */
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RESET, VUR_USER_QP_STATE), 0);
	a = rc_attr();
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTR, RC_RTR_MASK), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK), 0);
	TAP_EQ(query_state(qpn), VUR_USER_QPS_RTS);
	end();
}

/*
 * Section "Queue Pair State Transitions": to RESET the QP forgets its
 * attributes other than cap, which become zero (as at CREATE_QP, QP-7).
 */
static void
to_reset_forgets_attributes(void)
{
	struct vur_user_qp_attr a = rc_attr(), q;
	uint32_t qpn;

	if (!begin())
		return;
	qpn = qp_setup(VUR_USER_QPT_RC);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTR, RC_RTR_MASK), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RESET, VUR_USER_QP_STATE), 0);
	TAP_EQ(vur_user_query_qp(dev, qpn, 0, &q), 0);
	TAP_EQ(q.qp_state, VUR_USER_QPS_RESET);
	TAP_EQ(q.qp_access_flags, 0);
	TAP_EQ(q.path_mtu, 0);
	TAP_EQ(q.dest_qp_num, 0);
	TAP_EQ(q.rq_psn, 0);
	TAP_EQ(q.sq_psn, 0);
	TAP_EQ(q.max_dest_rd_atomic, 0);
	TAP_EQ(q.min_rnr_timer, 0);
	TAP_EQ(q.timeout, 0);
	TAP_EQ(q.retry_cnt, 0);
	TAP_EQ(q.rnr_retry, 0);
	TAP_EQ(q.max_rd_atomic, 0);
	TAP_CHECK(all_zero(q.ah_attr.grh.dgid, 16));
	TAP_EQ(q.ah_attr.grh.hop_limit, 0);
	TAP_CHECK(all_zero(q.ah_attr.dmac, 6));
	TAP_EQ(q.cap.max_send_wr, 16);
	TAP_EQ(q.cap.max_recv_sge, 1);
	end();
}

/* UD and GSI: QKEY at INIT, nothing at RTR, SQ_PSN at RTS; UC: no RDMA READ attributes. */
static void
ud_uc_gsi_to_rts(void)
{
	struct vur_user_qp_attr a = rc_attr(), q;
	struct vur_user_qp_init_attr ia;
	uint32_t ud, uc = 0, gsi = 0, pdn, cqn;

	if (!begin())
		return;
	ud = qp_setup(VUR_USER_QPT_UD);
	a.qkey = 0x11111111;
	TAP_EQ(modify(ud, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_QKEY), 0);
	TAP_EQ(modify(ud, a, VUR_USER_QPS_RTR, VUR_USER_QP_STATE), 0);
	TAP_EQ(modify(ud, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN), 0);
	TAP_EQ(vur_user_query_qp(dev, ud, 0, &q), 0);
	TAP_EQ(q.qp_state, VUR_USER_QPS_RTS);
	TAP_EQ(q.qkey, 0x11111111);
	TAP_EQ(q.sq_psn, 0x654321);
	TAP_EQ(q.dest_qp_num, 0); /* without meaning for UD */
	a.qkey = 0x22222222;
	TAP_EQ(vur_user_modify_qp(dev, ud, &a, VUR_USER_QP_QKEY), 0); /* RTS -> RTS */
	TAP_EQ(vur_user_query_qp(dev, ud, 0, &q), 0);
	TAP_EQ(q.qkey, 0x22222222);

	pdn = new_pd();
	cqn = new_cq(8);
	ia = qp_init(VUR_USER_QPT_GSI, pdn, cqn);
	TAP_EQ(vur_user_create_qp(dev, &ia, &gsi), 0);
	ia.qp_type = VUR_USER_QPT_UC;
	TAP_EQ(vur_user_create_qp(dev, &ia, &uc), 0);
	a.qkey = VIRTIO_NET_ROCE_GSI_QKEY; /* ROCE-DRV-QP-2 */
	TAP_EQ(modify(gsi, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_QKEY), 0);
	TAP_EQ(modify(gsi, a, VUR_USER_QPS_RTR, VUR_USER_QP_STATE), 0);
	TAP_EQ(modify(gsi, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN), 0);
	TAP_EQ(query_state(gsi), VUR_USER_QPS_RTS);

	TAP_EQ(modify(uc, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(modify(uc, a, VUR_USER_QPS_RTR,
			       VUR_USER_QP_STATE | VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU |
					       VUR_USER_QP_DEST_QPN | VUR_USER_QP_RQ_PSN),
			0);
	TAP_EQ(modify(uc, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN), 0);
	TAP_EQ(query_state(uc), VUR_USER_QPS_RTS);
	/* SQE -> RTS exists for UC and UD only; reaching SQE takes traffic. */
	end();
}

/* ROCE-DEV-QPS-1: transitions the table does not have. */
static void
illegal_transitions(void)
{
	struct vur_user_qp_attr a = rc_attr();
	uint32_t qpn;

	if (!begin())
		return;
	qpn = qp_setup(VUR_USER_QPT_RC);
	/* From RESET only INIT, RESET and ERR. */
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK));
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTR, RC_RTR_MASK));
	REFUSED(modify(qpn, a, VUR_USER_QPS_SQD, VUR_USER_QP_STATE));
	REFUSED(modify(qpn, a, VUR_USER_QPS_SQE, VUR_USER_QP_STATE));
	TAP_EQ(query_state(qpn), VUR_USER_QPS_RESET);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK));
	REFUSED(modify(qpn, a, VUR_USER_QPS_SQD, VUR_USER_QP_STATE));
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTR, RC_RTR_MASK), 0);
	REFUSED(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS));
	REFUSED(modify(qpn, a, VUR_USER_QPS_SQD, VUR_USER_QP_STATE));
	/* An RTR -> RTR modification is not in the table either. */
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTR, VUR_USER_QP_STATE | VUR_USER_QP_RQ_PSN));
	/* SQE -> RTS is UC and UD only; an RC QP is never in SQE, and RTR -> SQE is no row. */
	REFUSED(modify(qpn, a, VUR_USER_QPS_SQE, VUR_USER_QP_STATE));
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_ERR, VUR_USER_QP_STATE), 0);
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE));
	REFUSED(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS));
	/* QP-12: no state above ERR. */
	REFUSED(modify(qpn, a, VUR_USER_QPS_ERR + 1, VUR_USER_QP_STATE));
	REFUSED(modify(qpn, a, 255, VUR_USER_QP_STATE));
	TAP_EQ(query_state(qpn), VUR_USER_QPS_ERR);
	end();
}

/* ROCE-DEV-QPS-2: every required attribute, and no other one. */
static void
missing_and_extra_attributes(void)
{
	struct vur_user_qp_attr a = rc_attr();
	uint32_t rc, ud;
	size_t i;

	if (!begin())
		return;
	rc = qp_setup(VUR_USER_QPT_RC);
	ud = new_qp(VUR_USER_QPT_UD, new_pd(), new_cq(4));
	/* RESET -> INIT: RC needs ACCESS_FLAGS, UD needs QKEY; neither takes the other's. */
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE));
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_QKEY));
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT,
			VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS | VUR_USER_QP_QKEY));
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT,
			VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS | VUR_USER_QP_PATH_MTU));
	REFUSED(modify(ud, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE));
	REFUSED(modify(ud, a, VUR_USER_QPS_INIT,
			VUR_USER_QP_STATE | VUR_USER_QP_QKEY | VUR_USER_QP_ACCESS_FLAGS));
	/* CAP is never accepted; undefined bits never (QP-9). */
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT,
			VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS | VUR_USER_QP_CAP));
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT,
			VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS | (1u << 17)));
	REFUSED(modify(rc, a, VUR_USER_QPS_INIT,
			VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS | (1u << 31)));
	/* Without STATE in RESET: no RESET -> RESET modification with attributes. */
	REFUSED(modify(rc, a, 0, VUR_USER_QP_ACCESS_FLAGS));
	TAP_EQ(query_state(rc), VUR_USER_QPS_RESET);

	TAP_EQ(modify(rc, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(modify(ud, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_QKEY), 0);
	/* INIT -> RTR of RC: each required attribute left out in turn. */
	for (i = 0; i < sizeof(rc_rtr_required) / sizeof(rc_rtr_required[0]); i++)
		REFUSED(modify(rc, a, VUR_USER_QPS_RTR, RC_RTR_MASK & ~rc_rtr_required[i]));
	/* ... and with attributes it does not take. */
	REFUSED(modify(rc, a, VUR_USER_QPS_RTR, RC_RTR_MASK | VUR_USER_QP_SQ_PSN));
	REFUSED(modify(rc, a, VUR_USER_QPS_RTR, RC_RTR_MASK | VUR_USER_QP_QKEY));
	REFUSED(modify(rc, a, VUR_USER_QPS_RTR, RC_RTR_MASK | VUR_USER_QP_TIMEOUT));
	REFUSED(modify(rc, a, VUR_USER_QPS_RTR, RC_RTR_MASK | VUR_USER_QP_CUR_STATE));
	REFUSED(modify(ud, a, VUR_USER_QPS_RTR, VUR_USER_QP_STATE | VUR_USER_QP_AV));
	REFUSED(modify(ud, a, VUR_USER_QPS_RTR, VUR_USER_QP_STATE | VUR_USER_QP_DEST_QPN));
	TAP_EQ(query_state(rc), VUR_USER_QPS_INIT);
	TAP_EQ(modify(rc, a, VUR_USER_QPS_RTR, RC_RTR_MASK | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(modify(ud, a, VUR_USER_QPS_RTR, VUR_USER_QP_STATE | VUR_USER_QP_QKEY), 0);
	/* RTR -> RTS of RC: each required attribute left out in turn. */
	for (i = 0; i < sizeof(rc_rts_required) / sizeof(rc_rts_required[0]); i++)
		REFUSED(modify(rc, a, VUR_USER_QPS_RTS, RC_RTS_MASK & ~rc_rts_required[i]));
	REFUSED(modify(rc, a, VUR_USER_QPS_RTS, RC_RTS_MASK | VUR_USER_QP_AV));
	REFUSED(modify(rc, a, VUR_USER_QPS_RTS, RC_RTS_MASK | VUR_USER_QP_PATH_MTU));
	REFUSED(modify(rc, a, VUR_USER_QPS_RTS, RC_RTS_MASK | VUR_USER_QP_QKEY));
	REFUSED(modify(ud, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE));
	REFUSED(modify(ud, a, VUR_USER_QPS_RTS,
			VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN | VUR_USER_QP_TIMEOUT));
	TAP_EQ(query_state(rc), VUR_USER_QPS_RTR);
	TAP_EQ(modify(rc, a, VUR_USER_QPS_RTS, RC_RTS_MASK), 0);
	/* RTS -> SQD takes nothing. */
	REFUSED(modify(rc, a, VUR_USER_QPS_SQD, VUR_USER_QP_STATE | VUR_USER_QP_TIMEOUT));
	TAP_EQ(query_state(rc), VUR_USER_QPS_RTS);
	end();
}

/* ROCE-DEV-QP-11: CUR_STATE must be the QP's state. */
static void
cur_state_mismatch(void)
{
	struct vur_user_qp_attr a = rc_attr();
	uint32_t qpn;

	if (!begin())
		return;
	qpn = qp_setup(VUR_USER_QPT_RC);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTR, RC_RTR_MASK), 0);
	a.cur_qp_state = VUR_USER_QPS_INIT;
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK | VUR_USER_QP_CUR_STATE));
	a.cur_qp_state = VUR_USER_QPS_ERR + 1; /* QP-12 */
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK | VUR_USER_QP_CUR_STATE));
	a.cur_qp_state = VUR_USER_QPS_RTR;
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_RTS, RC_RTS_MASK | VUR_USER_QP_CUR_STATE), 0);
	a.cur_qp_state = VUR_USER_QPS_SQE;
	REFUSED(modify(qpn, a, VUR_USER_QPS_RTS, VUR_USER_QP_STATE | VUR_USER_QP_CUR_STATE));
	TAP_EQ(query_state(qpn), VUR_USER_QPS_RTS);
	end();
}

/* ROCE-DEV-QP-12, -13: out-of-range values, above the port MTU, invalid AVs. */
static void
attribute_ranges(void)
{
	struct vur_user_qp_attr a = rc_attr(), b;
	uint32_t qpn;

	if (!have_limits() || !begin())
		return;
	qpn = qp_setup(VUR_USER_QPT_RC);
	a.qp_access_flags = 1u << 5; /* no such access flag */
	REFUSED(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS));
	a = rc_attr();
	TAP_EQ(modify(qpn, a, VUR_USER_QPS_INIT, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS), 0);

#define RTR_WITH(field, value)                                          \
	do {                                                            \
		b = rc_attr();                                          \
		b.field = value;                                        \
		REFUSED(modify(qpn, b, VUR_USER_QPS_RTR, RC_RTR_MASK)); \
	} while (0)
	RTR_WITH(path_mtu, 0);
	RTR_WITH(path_mtu, VUR_USER_MTU_4096 + 1);
	/* The port MTU is 1024 with the default Ethernet MTU of 1500. */
	RTR_WITH(path_mtu, port.active_mtu + 1);
	RTR_WITH(path_mtu, VUR_USER_MTU_4096);
	RTR_WITH(max_dest_rd_atomic, lim.max_qp_rd_atom + 1);
	RTR_WITH(min_rnr_timer, 32);
	RTR_WITH(rq_psn, 0x1000000);
	RTR_WITH(dest_qp_num, 0x1000000);
	/* QP-13: the address vector as CREATE_AH validates it. */
	RTR_WITH(ah_attr.grh.sgid_index, 1); /* an empty entry */
	RTR_WITH(ah_attr.grh.sgid_index, port.gid_tbl_len);
	RTR_WITH(ah_attr.grh.sgid_index, 255);
	RTR_WITH(ah_attr.grh.flow_label, 0x100000);
	b = rc_attr();
	memcpy(b.ah_attr.grh.dgid, gid_zero, 16);
	REFUSED(modify(qpn, b, VUR_USER_QPS_RTR, RC_RTR_MASK));
	memcpy(b.ah_attr.grh.dgid, gid_mcast, 16);
	REFUSED(modify(qpn, b, VUR_USER_QPS_RTR, RC_RTR_MASK));
	memcpy(b.ah_attr.grh.dgid, gid_v6, 16); /* IPv6 to an IPv4-mapped source */
	REFUSED(modify(qpn, b, VUR_USER_QPS_RTR, RC_RTR_MASK));
	TAP_EQ(query_state(qpn), VUR_USER_QPS_INIT);
	b = rc_attr();
	b.path_mtu = port.active_mtu;
	b.max_dest_rd_atomic = lim.max_qp_rd_atom;
	b.min_rnr_timer = 31;
	b.rq_psn = 0xffffff;
	b.dest_qp_num = 0xffffff;
	b.ah_attr.grh.flow_label = 0xfffff;
	TAP_EQ(modify(qpn, b, VUR_USER_QPS_RTR, RC_RTR_MASK), 0);

#define RTS_WITH(field, value)                                          \
	do {                                                            \
		b = rc_attr();                                          \
		b.field = value;                                        \
		REFUSED(modify(qpn, b, VUR_USER_QPS_RTS, RC_RTS_MASK)); \
	} while (0)
	RTS_WITH(timeout, 32);
	RTS_WITH(retry_cnt, 8);
	RTS_WITH(rnr_retry, 8);
	RTS_WITH(max_rd_atomic, lim.max_qp_init_rd_atom + 1);
	RTS_WITH(sq_psn, 0x1000000);
	TAP_EQ(query_state(qpn), VUR_USER_QPS_RTR);
	b = rc_attr();
	b.timeout = 31;
	b.max_rd_atomic = lim.max_qp_init_rd_atom;
	b.sq_psn = 0xffffff;
	TAP_EQ(modify(qpn, b, VUR_USER_QPS_RTS, RC_RTS_MASK), 0);
	end();
}

/* ---- Address handles and the GID table ---- */

/* ROCE-DEV-AH-1, -2, ROCE-DEV-GID-3. */
static void
ah_create_destroy(void)
{
	struct vur_user_ah_attr av = valid_av();
	uint32_t pdn, other, dead, ah, ah6;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	other = new_pd();
	dead = new_pd();
	TAP_EQ(vur_user_destroy_pd(dev, dead), 0);
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah)); /* no GID at index 0 yet */
	TAP_EQ(vur_user_add_gid(dev, 0, gid_local), 0);
	TAP_EQ(vur_user_create_ah(dev, pdn, &av, &ah), 0);
	REFUSED(vur_user_create_ah(dev, dead, &av, &ah6));
	REFUSED(vur_user_create_ah(dev, 0xdeadbeef, &av, &ah6));
	/* An IPv6 pair works too. */
	TAP_EQ(vur_user_add_gid(dev, 3, gid_v6), 0);
	av.grh.sgid_index = 3;
	memcpy(av.grh.dgid, (uint8_t[16]){ 0xfd, [15] = 0x09 }, 16);
	TAP_EQ(vur_user_create_ah(dev, pdn, &av, &ah6), 0);
	TAP_CHECK(ah != ah6);
	/* Invalid address vectors. */
	av = valid_av();
	av.grh.sgid_index = 1;
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah6));
	av.grh.sgid_index = port.gid_tbl_len;
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah6));
	av = valid_av();
	av.grh.flow_label = 0x100000;
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah6));
	av = valid_av();
	memcpy(av.grh.dgid, gid_zero, 16);
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah6));
	memcpy(av.grh.dgid, gid_mcast, 16);
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah6));
	memcpy(av.grh.dgid, gid_v6, 16);
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah6));
	/* ROCE-DEV-AH-2: the AH of another PD, a dead one. */
	REFUSED(vur_user_destroy_ah(dev, other, ah));
	REFUSED(vur_user_destroy_ah(dev, 0xdeadbeef, ah));
	REFUSED(vur_user_destroy_ah(dev, pdn, 0xdeadbeef));
	/* ROCE-DEV-GID-3: deleting the GID an AH uses is allowed, and the AH stays. */
	TAP_EQ(vur_user_del_gid(dev, 0), 0);
	TAP_EQ(vur_user_destroy_ah(dev, pdn, ah), 0);
	REFUSED(vur_user_destroy_ah(dev, pdn, ah));
	TAP_EQ(vur_user_destroy_pd(dev, other), 0);
	end();
}

/* ROCE-DEV-AH-1: max_ah AHs. */
static void
ah_limit(void)
{
	struct vur_user_ah_attr av = valid_av();
	uint32_t pdn, ah, n = 0;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	TAP_EQ(vur_user_add_gid(dev, 0, gid_local), 0);
	while (n <= lim.max_ah && vur_user_create_ah(dev, pdn, &av, &ah) == 0)
		n++;
	TAP_EQ(n, lim.max_ah);
	REFUSED(vur_user_create_ah(dev, pdn, &av, &ah));
	end();
}

/* ROCE-DEV-GID-1, -2. */
static void
gid_table(void)
{
	uint16_t last;

	if (!have_limits() || !begin())
		return;
	last = (uint16_t)(port.gid_tbl_len - 1);
	TAP_EQ(vur_user_add_gid(dev, 0, gid_local), 0);
	REFUSED(vur_user_add_gid(dev, 0, gid_local)); /* used */
	REFUSED(vur_user_add_gid(dev, 0, gid_v6));
	TAP_EQ(vur_user_add_gid(dev, last, gid_v6), 0);
	REFUSED(vur_user_add_gid(dev, (uint16_t)port.gid_tbl_len, gid_peer)); /* out of range */
	REFUSED(vur_user_add_gid(dev, UINT16_MAX, gid_peer));
	REFUSED(vur_user_add_gid(dev, 1, gid_zero));
	REFUSED(vur_user_add_gid(dev, 1, gid_mcast));
	REFUSED(vur_user_add_gid(dev, 1, (uint8_t[16]){ 0xff, 0x0e, [15] = 1 }));
	TAP_EQ(vur_user_del_gid(dev, 0), 0);
	REFUSED(vur_user_del_gid(dev, 0)); /* empty */
	REFUSED(vur_user_del_gid(dev, 1));
	REFUSED(vur_user_del_gid(dev, (uint16_t)port.gid_tbl_len));
	TAP_EQ(vur_user_add_gid(dev, 0, gid_peer), 0); /* free again */
	TAP_EQ(vur_user_del_gid(dev, last), 0);
	end();
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/vhost-user-rdma\n", argv[0]);
		return 2;
	}
	backend_bin = argv[1];
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_WARNING);
	TAP_RUN(start);
	TAP_RUN(qp_create_and_query);
	TAP_RUN(qp_create_refusals);
	TAP_RUN(qp_limit);
	TAP_RUN(qp_destroyed);
	TAP_RUN(rc_qp_to_rts);
	TAP_RUN(to_reset_forgets_attributes);
	TAP_RUN(ud_uc_gsi_to_rts);
	TAP_RUN(illegal_transitions);
	TAP_RUN(missing_and_extra_attributes);
	TAP_RUN(cur_state_mismatch);
	TAP_RUN(attribute_ranges);
	TAP_RUN(ah_create_destroy);
	TAP_RUN(ah_limit);
	TAP_RUN(gid_table);
	TAP_RUN(stop);
	child_cleanup(&backend);
	return tap_done();
}
