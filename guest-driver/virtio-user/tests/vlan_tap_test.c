/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An access VLAN on a tap uplink, seen from the kernel side of the tap: a
 * device V on VLAN 10 and a device U on none. What V sends, Ethernet and
 * the engine's RoCE, leaves tagged with VLAN 10, priority 0 (a broadcast
 * that a device on VLAN 10 also gets is tagged for the wire only); from
 * the wire V receives only frames tagged 10, untagged, and RoCE packets
 * tagged 10 reach its engine (the tag popped before the engine parses
 * them), while untagged ones and those of VLAN 20 do not
 * (ROCE-DEV-POLICY-10). U is as before: it sends untagged and receives the
 * wire's untagged frames and those of VLAN 20 as they are, but not VLAN
 * 10's, V's VLAN here.
 *
 * The kernel moves a received frame's tag into the packet's metadata
 * (PACKET_AUXDATA) or leaves it in the bytes, depending on the path: both
 * are read.
 *
 * Usage: virtio_user_vlan_tap_test PATH/TO/vhost-user-rdma
 * Needs CAP_NET_ADMIN and /dev/net/tun; skipped without them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "clock.h"
#include "eth_util.h"
#include "rdma_e2e.h"

#define WAIT_MS  10000
#define QUIET_MS 300
#define MEM_SIZE (4 << 20)
#define BUF_LEN  (64 * 1024)
#define FRAME    120

static struct rdma_e2e t;
static struct rdma_ep v, u;
static char iface[IFNAMSIZ];
static int raw = -1;
static const uint8_t outside[6] = { 0x02, 0, 0, 0, 0, 0x99 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* A frame from the kernel side: its bytes untagged, and the VLAN tag it had (-1: none). */
struct wire_frame {
	uint8_t b[2048];
	size_t len;
	int tci;
};

static int
open_raw(const char *name)
{
	struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL)), one = 1;

	if (fd < 0)
		return -errno;
	sa.sll_ifindex = (int)if_nametoindex(name);
	if (sa.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
			setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* The next frame the tap transmits (what the backend sent), or false at the deadline. */
static bool
wire_recv(struct wire_frame *f, int64_t deadline)
{
	struct pollfd pfd = { .fd = raw, .events = POLLIN };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct iovec iov = { f->b, sizeof(f->b) };
	struct sockaddr_ll from;
	struct msghdr msg = { .msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &ctl,
		.msg_controllen = sizeof(ctl) };
	struct tpacket_auxdata aux;
	int64_t left = deadline - vuser_now_ms();
	struct cmsghdr *c;
	ssize_t n;

	if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
		return false;
	n = recvmsg(raw, &msg, 0);
	if (n < 14)
		return wire_recv(f, deadline);
	f->len = (size_t)n;
	f->tci = -1;
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (aux.tp_status & TP_STATUS_VLAN_VALID)
			f->tci = aux.tp_vlan_tci;
	}
	if (f->tci < 0 && f->len >= 18 && f->b[12] == 0x81 && f->b[13] == 0x00) {
		f->tci = f->b[14] << 8 | f->b[15];
		memmove(f->b + 12, f->b + 16, f->len - 16);
		f->len -= 4;
	}
	return true;
}

/* Write @len bytes at @p to the wire, with an 802.1Q tag of @vid (-1: none). */
static void
wire_send(const uint8_t *p, size_t len, int vid)
{
	uint8_t f[2048];
	uint16_t tag[2] = { htons(0x8100), htons((uint16_t)vid) };
	size_t n = len;

	memcpy(f, p, 12);
	if (vid >= 0) {
		memcpy(f + 12, tag, 4);
		memcpy(f + 16, p + 12, len - 12);
		n += 4;
	} else {
		memcpy(f + 12, p + 12, len - 12);
	}
	TAP_EQ(send(raw, f, n, 0), (ssize_t)n);
}

static int
set_vlan(struct rdma_ep *e, int vlan)
{
	char params[256], out[8192];

	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"vlan\": %d}", e->path, vlan);
	return admin_call(t.backend.admin, "set_device_vlan", params, out, sizeof(out));
}

static bool
ready(void)
{
	if (v.d != NULL && u.d != NULL && raw >= 0)
		return true;
	tap_skip("no devices or tap");
	return false;
}

static void
uplink_up(void)
{
	char vdev[64], path[128], params[256], out[8192];
	const char *eal[3] = { "--vdev", vdev, NULL };
	const char *app[] = { "--uplink", "net_tap0", NULL };
	const struct child_opts o = { .eal_args = eal, .app_args = app, .n_sockets = 1 };
	int ret;

	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		tap_skip("no /dev/net/tun");
		return;
	}
	snprintf(iface, sizeof(iface), "vurv%d", (int)getpid());
	snprintf(vdev, sizeof(vdev), "net_tap0,iface=%s", iface);
	ret = child_start(&t.backend, t.backend_bin, &o);
	if (ret == 0)
		ret = child_wait_socket(&t.backend, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0) {
		child_dump_log(&t.backend);
		return;
	}
	TAP_EQ(admin_iface_set(iface, true), 0);
	raw = open_raw(iface);
	TAP_CHECK(raw >= 0);
	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"vlan\": 10}", t.backend.sock);
	TAP_EQ(admin_call(t.backend.admin, "set_device_vlan", params, out, sizeof(out)), 0);
	snprintf(path, sizeof(path), "%s/untagged", t.backend.dir);
	snprintf(params, sizeof(params), "{\"device\": \"%s\"}", path);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), 0);
	TAP_EQ(rdma_ep_open(&v, t.backend.sock, 1, BUF_LEN, MEM_SIZE), 0);
	TAP_EQ(rdma_ep_open(&u, path, 2, BUF_LEN, MEM_SIZE), 0);
}

/* The frame marked @marker on the wire, or false. */
static bool
wire_recv_marked(uint32_t marker, struct wire_frame *f)
{
	int64_t deadline = vuser_now_ms() + WAIT_MS;

	while (wire_recv(f, deadline))
		if (eth_is_marked(f->b, f->len, marker))
			return true;
	return false;
}

/* ROCE-DEV-POLICY-10: V's frame leaves tagged 10, priority 0; U's untagged. */
static void
ethernet_out_tagged(void)
{
	uint8_t f[FRAME], got[2048];
	struct wire_frame w;
	size_t len = 0;

	if (!ready())
		return;
	eth_frame(f, FRAME, outside, v.mac, 0x5100);
	TAP_EQ(vur_user_net_send(v.d, f, FRAME), 0);
	TAP_CHECK(wire_recv_marked(0x5100, &w));
	TAP_EQ(w.tci, 10); /* VID 10, PCP 0, DEI 0 */
	TAP_EQ(w.len, FRAME);
	TAP_CHECK(memcmp(w.b, f, FRAME) == 0);
	eth_frame(f, FRAME, outside, u.mac, 0x5101);
	TAP_EQ(vur_user_net_send(u.d, f, FRAME), 0);
	TAP_CHECK(wire_recv_marked(0x5101, &w));
	TAP_EQ(w.tci, -1);
	TAP_CHECK(memcmp(w.b, f, FRAME) == 0);
	/*
	 * A broadcast of V with U on VLAN 10 too: one frame for U and the wire,
	 * tagged for the wire only (in a copy: U's stays as V sent it).
	 */
	TAP_EQ(set_vlan(&u, 10), 0);
	eth_frame(f, FRAME, bcast, v.mac, 0x5102);
	TAP_EQ(vur_user_net_send(v.d, f, FRAME), 0);
	TAP_CHECK(wire_recv_marked(0x5102, &w));
	TAP_EQ(w.tci, 10);
	TAP_CHECK(memcmp(w.b, f, FRAME) == 0);
	TAP_EQ(eth_recv_marked(u.d, 0x5102, got, sizeof(got), &len, WAIT_MS), 0);
	TAP_CHECK(len == FRAME && memcmp(got, f, FRAME) == 0);
	TAP_EQ(set_vlan(&u, 0), 0);
}

/* The first ETH_TEST_TYPE frame @e receives within @ms: its marker, or 0 for none. */
static uint32_t
first_marker(struct rdma_ep *e, int ms)
{
	int64_t deadline = vuser_now_ms() + ms;
	uint8_t got[2048];
	uint32_t m;
	int ret;

	while (vuser_now_ms() < deadline) {
		ret = vur_user_net_recv(e->d, got, sizeof(got), (int)(deadline - vuser_now_ms()));
		if (ret >= 18 && got[12] == (ETH_TEST_TYPE >> 8) &&
				got[13] == (ETH_TEST_TYPE & 0xff)) {
			memcpy(&m, got + 14, 4);
			return ntohl(m);
		}
	}
	return 0;
}

/*
 * ROCE-DEV-POLICY-10: from the wire, V gets VLAN 10's frame untagged, not
 * the untagged one nor VLAN 20's sent before it. U gets those two as they
 * are (V's address is unknown on the untagged segment: flooded), not 10's.
 */
static void
ethernet_in(void)
{
	uint8_t f1[FRAME], f2[FRAME], f3[FRAME], got[2048];
	uint32_t m;
	size_t len = 0;

	if (!ready())
		return;
	eth_frame(f1, FRAME, v.mac, outside, 0x5201);
	eth_frame(f2, FRAME, v.mac, outside, 0x5202);
	eth_frame(f3, FRAME, v.mac, outside, 0x5203);
	wire_send(f1, FRAME, -1);
	wire_send(f2, FRAME, 20);
	wire_send(f3, FRAME, 10);
	TAP_EQ(eth_recv_marked(v.d, 0x5203, got, sizeof(got), &len, WAIT_MS), 0);
	TAP_CHECK(len == FRAME && memcmp(got, f3, FRAME) == 0);
	TAP_EQ(first_marker(&u, WAIT_MS), 0x5201);
	/* VLAN 20, no device's VLAN here: to U with its tag, as before access VLANs */
	TAP_EQ(vur_user_net_recv(u.d, got, sizeof(got), WAIT_MS), FRAME + 4);
	memcpy(&m, got + 18, 4);
	TAP_CHECK(got[12] == 0x81 && got[13] == 0 && got[14] == 0 && got[15] == 20);
	TAP_EQ(ntohl(m), 0x5202);
	/* broadcast: VLAN 10's to V only, the untagged one to U only */
	eth_frame(f1, FRAME, bcast, outside, 0x5211);
	eth_frame(f3, FRAME, bcast, outside, 0x5213);
	wire_send(f3, FRAME, 10);
	wire_send(f1, FRAME, -1);
	TAP_EQ(first_marker(&u, WAIT_MS), 0x5211);
	TAP_EQ(first_marker(&v, WAIT_MS), 0x5213);
	TAP_EQ(first_marker(&v, QUIET_MS), 0);
	TAP_EQ(first_marker(&u, QUIET_MS), 0);
}

/*
 * The engine's packets: a UD SEND of V to an AH outside with V's own GID
 * leaves tagged 10 (the engine's wire form, ICRC and all, with a tag). Sent
 * back to V's MAC (the Ethernet header is outside the ICRC), tagged 10 it
 * reaches V's QP; untagged, or tagged 20, it does not (ROCE-DEV-POLICY-10).
 */
static void
roce_tagged_both_ways(void)
{
	struct vur_user_ah_attr av = { .grh.hop_limit = 64 };
	struct vur_user_sge s, r;
	struct vur_user_send_wr q;
	struct vur_user_wc wc;
	struct wire_frame w;
	int64_t deadline;
	uint32_t qp, ah;
	bool found = false;

	if (!ready())
		return;
	TAP_EQ(rdma_create_qp(&v, VUR_USER_QPT_UD, &qp), 0);
	TAP_EQ(rdma_connect_qp(&v, qp, VUR_USER_QPT_UD, &v, qp, 0, 0, 0), 0);
	memcpy(av.grh.dgid, v.gid, 16);
	memcpy(av.dmac, outside, 6);
	TAP_EQ(vur_user_create_ah(v.d, v.pdn, &av, &ah), 0);
	s = rdma_sge(&v, 0, 256);
	rdma_fill(v.buf, 256, 9);
	q = rdma_req(0x900, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &s, 1);
	q.ud.remote_qpn = qp;
	q.ud.remote_qkey = 0x11111111;
	q.ud.ah = ah;
	TAP_EQ(rdma_post_send(&v, qp, &q), 0);
	EXPECT_CQE_ON(&v, 0x900, 0, VUR_USER_WC_SEND, 256, qp);
	deadline = vuser_now_ms() + WAIT_MS;
	while (!found && wire_recv(&w, deadline))
		found = w.len > 14 + 20 + 8 && w.b[12] == 0x08 && w.b[13] == 0x00 &&
				w.b[14 + 9] == 17 && w.b[14 + 22] == 0x12 && w.b[14 + 23] == 0xb7;
	TAP_CHECK(found); /* IPv4, UDP to 4791 */
	if (!found)
		return;
	TAP_EQ(w.tci, 10);
	memcpy(w.b, v.mac, 6); /* back to V */
	r = rdma_sge(&v, 4096, 40 + 256);
	TAP_EQ(rdma_post_recv(&v, qp, 0x901, &r, 1), 0);
	wire_send(w.b, w.len, -1);
	wire_send(w.b, w.len, 20);
	TAP_CHECK(rdma_no_cqe(&v, QUIET_MS));
	wire_send(w.b, w.len, 10);
	TAP_EQ(rdma_next_cqe(&v, &wc), 1);
	TAP_EQ(wc.wr_id, 0x901);
	TAP_EQ(wc.byte_len, 40 + 256);
	TAP_CHECK(memcmp(v.buf + 4096 + 40, v.buf, 256) == 0);
	TAP_CHECK(rdma_no_cqe(&v, 50));
	TAP_EQ(vur_user_destroy_ah(v.d, v.pdn, ah), 0);
	TAP_EQ(vur_user_destroy_qp(v.d, qp), 0);
}

static void
backend_stops_cleanly(void)
{
	int status;

	if (t.backend.pid <= 0) {
		tap_skip("no backend");
		return;
	}
	if (v.d != NULL)
		TAP_EQ(vur_user_close(v.d), 0);
	if (u.d != NULL)
		TAP_EQ(vur_user_close(u.d), 0);
	if (raw >= 0)
		close(raw);
	status = child_stop(&t.backend, SIGTERM, WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&t.backend);
	child_cleanup(&t.backend);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_args(&t, argc, argv) < 0)
		return 2;
	TAP_RUN(uplink_up);
	TAP_RUN(ethernet_out_tagged);
	TAP_RUN(ethernet_in);
	TAP_RUN(roce_tagged_both_ways);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
