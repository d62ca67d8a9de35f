/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast on UD QPs end to end: two devices of one real backend. Device
 * b attaches two UD QPs to an IPv4 group and a third to nothing; device a
 * attaches one of its own. A UD SEND from a to an AH of the group reaches
 * each attached QP with a receive WR of its own (its Q_Key checked per QP),
 * a's own attached QP too (loopback), and no other QP; detaching and
 * destroying stop it; the refusals of ATTACH_MCAST and DETACH_MCAST; the
 * device's group counters in telemetry. With two data-path threads too.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_e2e.h"
#include "rdma_pair.h"
#include "tap.h"
#include "telemetry.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define BUF_LEN  (1u << 20)
#define MEM_SIZE (8u << 20)
#define SLOT     2048 /* each receive WR's room */
#define MSG_LEN  700
#define QKEY     0x11111111u /* rdma_connect_qp's */

/* ::ffff:239.1.30.1, as rdma_cm forms an IPv4 group's GID for RoCE v2 */
static const uint8_t group4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 30, 1 };
static const uint8_t group6[16] = { 0xff, 0x1e, [14] = 0x1e, [15] = 0x01 };

static struct rdma_e2e e2e;
static struct rdma_ep a, b;
static uint32_t qa, qa_own, qb[3];

static void
devices_open(void)
{
	rdma_e2e_start(&e2e, &a, &b, BUF_LEN, MEM_SIZE);
}

/* ROCE-DEV-ATTR-17: multicast is there, with IBTA's three limits. */
static void
device_caps(void)
{
	struct vur_user_device_attr at;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_query_device(b.d, &at), 0);
	TAP_CHECK(at.device_cap_flags & VUR_USER_DEVICE_MULTICAST);
	TAP_EQ(at.max_mcast_grp, 64);
	TAP_EQ(at.max_mcast_qp_attach, at.max_qp < 256 ? at.max_qp : 256);
	TAP_EQ(at.max_total_mcast_qp_attach, 1024);
}

static int
ud_qp(struct rdma_ep *e, uint32_t *qpn)
{
	int ret = rdma_create_qp(e, VUR_USER_QPT_UD, qpn);

	return ret < 0 ? ret : rdma_connect_qp(e, *qpn, VUR_USER_QPT_UD, e, *qpn, 0, 0, 0);
}

/* ROCE-DEV-MCAST-1 to -4, CTRL-15: what ATTACH_MCAST and DETACH_MCAST refuse. */
static void
refusals(void)
{
	static const uint8_t unicast4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	uint8_t g[16];
	uint32_t rc;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(ud_qp(&b, &qb[0]), 0);
	TAP_EQ(rdma_create_qp(&b, VUR_USER_QPT_RC, &rc), 0);
	TAP_EQ(vur_user_attach_mcast(b.d, rc, group4), -EREMOTEIO);      /* not UD */
	TAP_EQ(vur_user_attach_mcast(b.d, 0x3fff, group4), -EREMOTEIO);  /* no QP */
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], unicast4), -EREMOTEIO); /* not a group */
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], b.gid), -EREMOTEIO);    /* the device's own GID */
	TAP_EQ(vur_user_detach_mcast(b.d, qb[0], group4), -EREMOTEIO);   /* not attached */
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], group4), 0);
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], group4), 0); /* again: no change */
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_attached"), 1);
	TAP_EQ(vur_user_detach_mcast(b.d, qb[0], group6), -EREMOTEIO); /* another group */
	TAP_EQ(vur_user_detach_mcast(b.d, qb[0], group4), 0);
	TAP_EQ(vur_user_detach_mcast(b.d, qb[0], group4), -EREMOTEIO); /* detached already */
	/* max_mcast_grp: 64 groups, the 65th refused until one goes */
	memcpy(g, group6, sizeof(g));
	for (unsigned int i = 0; i < 64; i++) {
		g[15] = (uint8_t)i;
		if (vur_user_attach_mcast(b.d, qb[0], g) != 0)
			break;
	}
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_groups"), 64);
	g[15] = 64;
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], g), -EREMOTEIO);
	g[15] = 3;
	TAP_EQ(vur_user_detach_mcast(b.d, qb[0], g), 0);
	g[15] = 64;
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], g), 0);
	/* ROCE-DEV-MCAST-5: DESTROY_QP detaches it from all 64 */
	TAP_EQ(vur_user_destroy_qp(b.d, qb[0]), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_groups"), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_attached"), 0);
	TAP_EQ(vur_user_destroy_qp(b.d, rc), 0);
}

/* An AH of @e to multicast GID @gid (its dmac wrong on purpose: the device maps the group). */
static int
group_ah(struct rdma_ep *e, const uint8_t *gid, uint32_t *ah)
{
	struct vur_user_ah_attr av = { .grh.hop_limit = 1, .dmac = { 2, 0, 0, 0, 0, 9 } };

	memcpy(av.grh.dgid, gid, 16);
	return vur_user_create_ah(e->d, e->pdn, &av, ah);
}

/* A receive WR for slot @slot of @e's buffer on QP @qpn. */
static void
post_slot(struct rdma_ep *e, uint32_t qpn, unsigned int slot)
{
	struct vur_user_sge r = rdma_sge(e, (uint64_t)slot * SLOT, SLOT);

	memset(e->buf + (size_t)slot * SLOT, 0, SLOT);
	TAP_EQ(rdma_post_recv(e, qpn, 0x900 + slot, &r, 1), 0);
}

/* CQE @wc: a receive of the message into slot @slot on QP @qpn, data and GRH checked. */
static void
check_slot(const struct rdma_ep *e, const struct vur_user_wc *wc, uint32_t qpn, unsigned int slot)
{
	const uint8_t *p = e->buf + (size_t)slot * SLOT;

	TAP_EQ(wc->wr_id, 0x900 + slot);
	TAP_EQ(wc->status, VUR_USER_WC_SUCCESS);
	TAP_EQ(wc->qp_num, qpn);
	TAP_EQ(wc->src_qp, qa);
	TAP_EQ(wc->byte_len, 40 + MSG_LEN);
	TAP_CHECK(memcmp(p + 40, a.buf + 64 * SLOT, MSG_LEN) == 0);
	/* the GRH: 20 zero bytes, then the IPv4 header, to the group, TTL 1 */
	TAP_EQ(p[20], 0x45);
	TAP_EQ(p[20 + 8], 1);
	TAP_CHECK(memcmp(p + 20 + 16, &group4[12], 4) == 0);
}

/* @e's next CQE: a receive into slot @slot on QP @qpn. */
static void
expect_slot(struct rdma_ep *e, uint32_t qpn, unsigned int slot)
{
	struct vur_user_wc wc = { 0 };

	TAP_EQ(rdma_next_cqe(e, &wc), 1);
	check_slot(e, &wc, qpn, slot);
}

/*
 * A signaled UD SEND of MSG_LEN bytes from a's QP qa to the group's AH
 * @ah, Q_Key @qkey; with @own_slot (not 0) a's own QP qa_own receives it
 * there too, its CQE and the send's in either order (one CQ).
 */
static void
send_group(uint32_t ah, uint32_t qkey, uint64_t id, unsigned int own_slot)
{
	struct vur_user_sge s = rdma_sge(&a, 64 * SLOT, MSG_LEN);
	struct vur_user_send_wr q = rdma_req(id, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	struct vur_user_wc wc[2] = { 0 };

	q.ud.ah = ah;
	q.ud.remote_qpn = 0x123; /* not the group's 0xffffff: the device puts that (MCAST-7) */
	q.ud.remote_qkey = qkey;
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	if (own_slot == 0) {
		EXPECT_CQE_ON(&a, id, 0, VUR_USER_WC_SEND, MSG_LEN, qa);
		return;
	}
	TAP_EQ(rdma_next_cqe(&a, &wc[0]), 1);
	TAP_EQ(rdma_next_cqe(&a, &wc[1]), 1);
	if (wc[0].wr_id != id) { /* the receive first */
		struct vur_user_wc t = wc[0];

		wc[0] = wc[1];
		wc[1] = t;
	}
	TAP_EQ(wc[0].wr_id, id);
	TAP_EQ(wc[0].status, VUR_USER_WC_SUCCESS);
	TAP_EQ(wc[0].opcode, VUR_USER_WC_SEND);
	check_slot(&a, &wc[1], qa_own, own_slot);
}

/* ROCE-DEV-MCAST-6 to -10, AH: sends to the group and who gets them. */
static void
group_traffic(void)
{
	uint64_t rx;
	uint32_t ah;

	if (!rdma_e2e_ready(&a, &b))
		return;
	for (int i = 0; i < 3; i++)
		TAP_EQ(ud_qp(&b, &qb[i]), 0);
	TAP_EQ(ud_qp(&a, &qa), 0);
	TAP_EQ(ud_qp(&a, &qa_own), 0);
	TAP_EQ(vur_user_attach_mcast(b.d, qb[0], group4), 0);
	TAP_EQ(vur_user_attach_mcast(b.d, qb[1], group4), 0);
	TAP_EQ(vur_user_attach_mcast(a.d, qa_own, group4), 0);
	TAP_EQ(group_ah(&a, group4, &ah), 0);
	rdma_fill(a.buf + 64 * SLOT, MSG_LEN, 5);
	for (int i = 0; i < 3; i++)
		post_slot(&b, qb[i], (unsigned int)i);
	post_slot(&a, qa_own, 3);
	rx = rdma_e2e_counter(&e2e, &b, "rdma_mcast_rx");
	send_group(ah, QKEY, 0x901, 3);
	/* each attached QP its own copy, the sender's device's too; qb[2] nothing */
	expect_slot(&b, qb[0], 0);
	expect_slot(&b, qb[1], 1);
	TAP_CHECK(rdma_no_cqe(&b, 50));
	TAP_CHECK(rdma_no_cqe(&a, 0));
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "rdma_mcast_rx") - rx, 1);
	/* ROCE-DEV-MCAST-8: a QP whose Q_Key differs drops it, the others take it */
	TAP_EQ(vur_user_modify_qp(b.d, qb[1],
			       &(struct vur_user_qp_attr){
					       .qp_state = VUR_USER_QPS_RTS, .qkey = 0x22222222 },
			       VUR_USER_QP_QKEY),
			0);
	post_slot(&b, qb[0], 4);
	post_slot(&b, qb[1], 5);
	post_slot(&a, qa_own, 6);
	send_group(ah, QKEY, 0x902, 6);
	expect_slot(&b, qb[0], 4);
	TAP_CHECK(rdma_no_cqe(&b, 50));
	/* MCAST-6: attached through ERR and RESET; back to RTS, it takes them again */
	TAP_EQ(vur_user_modify_qp(b.d, qb[0],
			       &(struct vur_user_qp_attr){ .qp_state = VUR_USER_QPS_RESET },
			       VUR_USER_QP_STATE),
			0);
	TAP_EQ(rdma_connect_qp(&b, qb[0], VUR_USER_QPT_UD, &b, qb[0], 0, 0, 0), 0);
	post_slot(&b, qb[0], 7);
	/* detached: qa_own gets nothing more */
	TAP_EQ(vur_user_detach_mcast(a.d, qa_own, group4), 0);
	send_group(ah, QKEY, 0x903, 0);
	expect_slot(&b, qb[0], 7);
	TAP_CHECK(rdma_no_cqe(&a, 50));
	/* qb[1]'s Q_Key again: both of b's take one; destroyed, qb[0] is no more a member */
	TAP_EQ(vur_user_modify_qp(b.d, qb[1],
			       &(struct vur_user_qp_attr){
					       .qp_state = VUR_USER_QPS_RTS, .qkey = QKEY },
			       VUR_USER_QP_QKEY),
			0);
	TAP_EQ(vur_user_destroy_qp(b.d, qb[0]), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_attached"), 1);
	send_group(ah, QKEY, 0x904, 0);
	expect_slot(&b, qb[1], 5);
	TAP_CHECK(rdma_no_cqe(&b, 50));
	TAP_EQ(vur_user_destroy_qp(b.d, qb[1]), 0);
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "mcast_groups"), 0);
	/* nobody attached: the frame is ordinary Ethernet for b's receive filter */
	rx = rdma_e2e_counter(&e2e, &b, "rdma_mcast_rx");
	send_group(ah, QKEY, 0x905, 0);
	TAP_CHECK(rdma_no_cqe(&b, 50));
	TAP_EQ(rdma_e2e_counter(&e2e, &b, "rdma_mcast_rx"), rx);
	TAP_EQ(vur_user_destroy_ah(a.d, a.pdn, ah), 0);
}

/* ROCE-DEV-AH-1: a group is a valid destination for an AH only of the source's family. */
static void
group_ah_family(void)
{
	uint32_t ah;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(group_ah(&a, group6, &ah), -EREMOTEIO); /* a's GID is IPv4 */
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
	TAP_RUN(group_traffic);
	TAP_RUN(group_ah_family);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
