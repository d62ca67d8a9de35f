/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Access VLANs per device (issue 25) through the real vhost-user protocol:
 * devices A and B created over the admin RPC on VLAN 10, C on VLAN 20, U on
 * none, a virtio-user frontend on each, on the backend's local switch. A
 * and B exchange Ethernet frames (broadcast and unicast, delivered as sent,
 * untagged) and RDMA (an RC SEND); C and U see none of it, and an RC QP of C
 * aimed at A gets no answer (ROCE-DEV-POLICY-10/11). A frame A sends with a
 * tag of its own (802.1Q or 802.1ad) is dropped and counted, the frame after
 * it passes (ROCE-DEV-POLICY-9); U, on no VLAN, may tag. C moved to VLAN 10
 * live receives A's broadcast from then on, and nothing of before
 * (ROCE-DEV-POLICY-12).
 *
 * "Sees nothing" is a receive queue that stays empty while the frames that
 * would reach it are delivered to B; the move of C shows the same frames do
 * reach it when the VLANs agree.
 *
 * Usage: virtio_user_vlan_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "admin.h"
#include "clock.h"
#include "eth_util.h"
#include "rdma_e2e.h"

#define MEM_SIZE (4 << 20)
#define BUF_LEN  (64 * 1024)
#define FRAME    96
#define WAIT_MS  5000
#define QUIET_MS 300 /* a receive queue that should stay empty is watched this long */

static struct rdma_e2e t;
static struct rdma_ep a, b, c, u;
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static bool
ready(void)
{
	if (a.d != NULL && b.d != NULL && c.d != NULL && u.d != NULL)
		return true;
	tap_case_failed = 1;
	return false;
}

static int
create(struct rdma_ep *e, const char *name, int vlan, uint8_t octet)
{
	char path[128], params[512], out[8192];

	snprintf(path, sizeof(path), "%s/%s", t.backend.dir, name);
	if (vlan >= 0)
		snprintf(params, sizeof(params), "{\"device\": \"%s\", \"vlan\": %d}", path, vlan);
	else
		snprintf(params, sizeof(params), "{\"device\": \"%s\"}", path);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), 0);
	return rdma_ep_open(e, path, octet, BUF_LEN, MEM_SIZE);
}

static int
set_vlan(struct rdma_ep *e, int vlan)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"vlan\": %d}", e->path, vlan);
	return admin_call(t.backend.admin, "set_device_vlan", params, out, sizeof(out));
}

/* Frames that arrive on @e within @ms (each one a leak, printed). */
static int
frames_within(struct rdma_ep *e, int ms)
{
	int64_t deadline = vuser_now_ms() + ms;
	uint8_t got[2048];
	int n = 0, ret;

	while (vuser_now_ms() < deadline) {
		ret = vur_user_net_recv(e->d, got, sizeof(got), (int)(deadline - vuser_now_ms()));
		if (ret > 0) {
			printf("# %s got a frame of %d bytes, type %02x%02x\n", e->path, ret,
					got[12], got[13]);
			n++;
		}
	}
	return n;
}

/* @e receives frame @f (of FRAME bytes) as sent: untagged, byte for byte. */
static void
expect_frame(struct rdma_ep *e, const uint8_t *f, uint32_t marker)
{
	uint8_t got[2048];
	size_t len = 0;

	TAP_EQ(eth_recv_marked(e->d, marker, got, sizeof(got), &len, WAIT_MS), 0);
	TAP_EQ(len, FRAME);
	TAP_CHECK(memcmp(got, f, FRAME) == 0);
}

/* A frame of @len bytes with outer tag @tpid VID @vid after the MACs, marked @marker after. */
static void
tagged_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], uint16_t tpid, uint16_t vid,
		uint32_t marker)
{
	uint16_t v[2] = { htons(tpid), htons(vid) };

	eth_frame(f, FRAME, dst, src, marker);
	memmove(f + 16, f + 12, FRAME - 16);
	memcpy(f + 12, v, 4);
}

static void
create_devices(void)
{
	TAP_EQ(create(&a, "vlan-a", 10, 1), 0);
	TAP_EQ(create(&b, "vlan-b", 10, 2), 0);
	TAP_EQ(create(&c, "vlan-c", 20, 3), 0);
	TAP_EQ(create(&u, "vlan-u", -1, 4), 0);
	if (ready())
		TAP_EQ(rdma_e2e_counter(&t, &c, "vlan"), 20);
}

/* ROCE-DEV-POLICY-11: A's broadcast and unicast reach B, untagged; C and U see nothing. */
static void
roce_dev_policy_11_ethernet(void)
{
	uint8_t f1[FRAME], f2[FRAME], f3[FRAME], f4[FRAME];

	if (!ready())
		return;
	eth_frame(f1, FRAME, bcast, a.mac, 101);
	eth_frame(f2, FRAME, b.mac, a.mac, 102);
	eth_frame(f3, FRAME, c.mac, a.mac, 103); /* C's address from VLAN 10: not C */
	eth_frame(f4, FRAME, u.mac, a.mac, 104);
	TAP_EQ(vur_user_net_send(a.d, f1, FRAME), 0);
	TAP_EQ(vur_user_net_send(a.d, f2, FRAME), 0);
	TAP_EQ(vur_user_net_send(a.d, f3, FRAME), 0);
	TAP_EQ(vur_user_net_send(a.d, f4, FRAME), 0);
	expect_frame(&b, f1, 101);
	expect_frame(&b, f2, 102);
	/* B is on VLAN 10: the frames for C's and U's addresses flood there, to B only */
	expect_frame(&b, f3, 103);
	expect_frame(&b, f4, 104);
	/* C's and U's broadcasts do not reach A or B either */
	eth_frame(f1, FRAME, bcast, c.mac, 105);
	eth_frame(f2, FRAME, bcast, u.mac, 106);
	TAP_EQ(vur_user_net_send(c.d, f1, FRAME), 0);
	TAP_EQ(vur_user_net_send(u.d, f2, FRAME), 0);
	TAP_EQ(frames_within(&c, QUIET_MS), 0);
	TAP_EQ(frames_within(&u, QUIET_MS), 0);
	TAP_EQ(frames_within(&a, QUIET_MS), 0);
	TAP_EQ(frames_within(&b, 0), 0);
}

/* ROCE-DEV-POLICY-11: RDMA between A and B; C's RC QP aimed at A gets no answer. */
static void
roce_dev_policy_11_rdma(void)
{
	uint32_t qa, qb, qc, qa2, len = 4096;
	struct vur_user_sge s, r;
	struct vur_user_send_wr q;

	if (!ready())
		return;
	if (!rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	s = rdma_sge(&a, 0, len);
	r = rdma_sge(&b, 0, len);
	q = rdma_req(1, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	rdma_fill(a.buf, len, 7);
	memset(b.buf, 0, len);
	TAP_EQ(rdma_post_recv(&b, qb, 2, &r, 1), 0);
	TAP_EQ(rdma_post_send(&a, qa, &q), 0);
	EXPECT_CQE_ON(&a, 1, 0, VUR_USER_WC_SEND, len, qa);
	EXPECT_CQE_ON(&b, 2, 0, VUR_USER_WC_RECV, len, qb);
	TAP_CHECK(memcmp(a.buf, b.buf, len) == 0);
	rdma_pair_done(&a, &b, qa, qb);
	/* C to A across VLANs: retries (timeout 10, about 4 ms, 2 of them), then an error */
	if (!rdma_rc_pair_retry(&c, &a, &qc, &qa2, 0, 10, 2))
		return;
	s = rdma_sge(&c, 0, 64);
	r = rdma_sge(&a, 0, 64);
	q = rdma_req(3, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	TAP_EQ(rdma_post_recv(&a, qa2, 4, &r, 1), 0);
	TAP_EQ(rdma_post_send(&c, qc, &q), 0);
	EXPECT_CQE(&c, 3, VUR_USER_WC_RETRY_EXC_ERR, VUR_USER_WC_SEND);
	TAP_CHECK(rdma_no_cqe(&a, 100));
	/* nor did C's packets land in A's or U's receive queue as Ethernet */
	TAP_EQ(frames_within(&a, 0), 0);
	TAP_EQ(frames_within(&u, 0), 0);
	rdma_pair_done(&c, &a, qc, qa2);
}

/* ROCE-DEV-POLICY-9: A's tagged frames (802.1Q, 802.1ad) dropped and counted; U's not. */
static void
roce_dev_policy_9_guest_tagged(void)
{
	uint8_t bad[FRAME], good[FRAME], got[2048];
	size_t len;

	if (!ready())
		return;
	tagged_frame(bad, b.mac, a.mac, 0x8100, 10, 201); /* its own VLAN's tag too */
	eth_frame(good, FRAME, b.mac, a.mac, 202);
	TAP_EQ(vur_user_net_send(a.d, bad, FRAME), 0);
	TAP_EQ(vur_user_net_send(a.d, good, FRAME), 0);
	expect_frame(&b, good, 202);
	TAP_EQ(eth_wait_counter(t.backend.prefix, a.path, "eth_drop_tx_tagged", 1, WAIT_MS), 1);
	tagged_frame(bad, bcast, a.mac, 0x88a8, 20, 203);
	eth_frame(good, FRAME, b.mac, a.mac, 204);
	TAP_EQ(vur_user_net_send(a.d, bad, FRAME), 0);
	TAP_EQ(vur_user_net_send(a.d, good, FRAME), 0);
	expect_frame(&b, good, 204);
	TAP_EQ(eth_wait_counter(t.backend.prefix, a.path, "eth_drop_tx_tagged", 2, WAIT_MS), 2);
	/* nothing of them anywhere (a tagged frame is not marked where eth_frame marks) */
	TAP_EQ(frames_within(&b, QUIET_MS), 0);
	TAP_EQ(frames_within(&c, 0), 0);
	/* U, on no VLAN, sends what it likes: its tagged frame goes out (nobody local hears) */
	tagged_frame(bad, bcast, u.mac, 0x8100, 10, 205);
	TAP_EQ(vur_user_net_send(u.d, bad, FRAME), 0);
	TAP_EQ(eth_wait_counter(t.backend.prefix, u.path, "eth_tx_frames", 2, WAIT_MS), 2);
	TAP_EQ(rdma_e2e_counter(&t, &u, "eth_drop_tx_tagged"), 0);
	TAP_EQ(frames_within(&a, QUIET_MS), 0);
	(void)got;
	(void)len;
}

/* ROCE-DEV-POLICY-12: C moved to VLAN 10 hears A's broadcast from then on, then back. */
static void
roce_dev_policy_12_live_change(void)
{
	uint8_t f[FRAME];

	if (!ready())
		return;
	TAP_EQ(set_vlan(&c, 10), 0);
	eth_frame(f, FRAME, bcast, a.mac, 301);
	TAP_EQ(vur_user_net_send(a.d, f, FRAME), 0);
	expect_frame(&c, f, 301); /* and nothing of before came first (frames_within above) */
	expect_frame(&b, f, 301);
	/* C's broadcast reaches A now */
	eth_frame(f, FRAME, bcast, c.mac, 302);
	TAP_EQ(vur_user_net_send(c.d, f, FRAME), 0);
	expect_frame(&a, f, 302);
	expect_frame(&b, f, 302);
	/* back to VLAN 20: A's next broadcast reaches B only */
	TAP_EQ(set_vlan(&c, 20), 0);
	eth_frame(f, FRAME, bcast, a.mac, 303);
	TAP_EQ(vur_user_net_send(a.d, f, FRAME), 0);
	expect_frame(&b, f, 303);
	TAP_EQ(frames_within(&c, QUIET_MS), 0);
	/* and U, given VLAN 20, joins C */
	TAP_EQ(set_vlan(&u, 20), 0);
	eth_frame(f, FRAME, bcast, c.mac, 304);
	TAP_EQ(vur_user_net_send(c.d, f, FRAME), 0);
	expect_frame(&u, f, 304);
	TAP_EQ(frames_within(&a, QUIET_MS), 0);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_start_admin(&t, argc, argv) < 0)
		return 1;
	TAP_RUN(create_devices);
	TAP_RUN(roce_dev_policy_11_ethernet);
	TAP_RUN(roce_dev_policy_11_rdma);
	TAP_RUN(roce_dev_policy_9_guest_tagged);
	TAP_RUN(roce_dev_policy_12_live_change);
	if (a.d != NULL)
		vur_user_close(a.d);
	if (b.d != NULL)
		vur_user_close(b.d);
	if (c.d != NULL)
		vur_user_close(c.d);
	if (u.d != NULL)
		vur_user_close(u.d);
	return rdma_e2e_end_admin(&t);
}
