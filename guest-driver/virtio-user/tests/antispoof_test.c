/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Anti-spoofing per device (issue 25) through the real vhost-user protocol:
 * device A, created over the admin RPC with one allowed address (10.0.0.7)
 * and its MAC pinned, device B with no policy, a virtio-user frontend on
 * each, frames between them on the backend's local switch. From A, a frame
 * of a foreign source MAC is dropped and counted (ROCE-DEV-POLICY-4), an
 * IPv4 packet from a foreign address, tagged or not, likewise
 * (ROCE-DEV-POLICY-5), a DHCP discover from 0.0.0.0 passes
 * (ROCE-DEV-POLICY-6), and MAC_ADDR_SET to another MAC is refused with
 * VIRTIO_NET_ERR and counted (ROCE-DEV-POLICY-7). From B, with no policy,
 * the same frames all pass and nothing is counted.
 *
 * A dropped frame is proved dropped by order: the transmit queue keeps it,
 * so an allowed frame sent after it arrives with nothing before it.
 *
 * Usage: virtio_user_antispoof_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/virtio_net.h>

#include "admin.h"
#include "clock.h"
#include "eth_util.h"
#include "rdma_e2e.h"

#define MEM_SIZE (4 << 20)
#define BUF_LEN  (64 * 1024)
#define FRAME    128
#define WAIT_MS  5000

static struct rdma_e2e t;
static struct rdma_ep a, b;
static char path_a[128], path_b[128];
static const uint8_t foreign[6] = { 0x02, 0xde, 0xad, 0xbe, 0xef, 0x01 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* An IPv4/UDP frame @src_ip:@sport -> @dport, 802.1Q tag @vid when not 0, marked @marker. */
static size_t
udp4(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], uint16_t vid, const char *src_ip,
		uint16_t sport, uint16_t dport, uint32_t marker)
{
	uint16_t v;
	size_t off = 12;
	uint32_t m = htonl(marker);

	memset(f, 0, FRAME);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	if (vid != 0) {
		v = htons(0x8100);
		memcpy(f + off, &v, 2);
		v = htons(vid);
		memcpy(f + off + 2, &v, 2);
		off += 4;
	}
	v = htons(0x0800);
	memcpy(f + off, &v, 2);
	off += 2;
	f[off] = 0x45;
	v = htons(FRAME - off);
	memcpy(f + off + 2, &v, 2);
	f[off + 8] = 64;
	f[off + 9] = 17; /* UDP */
	TAP_CHECK(inet_pton(AF_INET, src_ip, f + off + 12) == 1);
	memset(f + off + 16, 0xff, 4);
	off += 20;
	v = htons(sport);
	memcpy(f + off, &v, 2);
	v = htons(dport);
	memcpy(f + off + 2, &v, 2);
	v = htons(FRAME - off);
	memcpy(f + off + 4, &v, 2);
	memcpy(f + off + 8, &m, 4);
	return FRAME;
}

/*
 * Receive on @to until @want arrives (1), or @bad first (0, the case
 * fails), or nothing for WAIT_MS (-1, likewise). Other frames are skipped.
 */
static int
recv_first(struct rdma_ep *to, const uint8_t *want, const uint8_t *bad)
{
	int64_t deadline = vuser_now_ms() + WAIT_MS;
	uint8_t got[2048];
	int ret;

	while (vuser_now_ms() < deadline) {
		ret = vur_user_net_recv(to->d, got, sizeof(got), (int)(deadline - vuser_now_ms()));
		if (ret == FRAME && memcmp(got, want, FRAME) == 0)
			return 1;
		if (ret == FRAME && bad != NULL && memcmp(got, bad, FRAME) == 0) {
			printf("# a frame that should have been dropped arrived\n");
			tap_case_failed = 1;
			return 0;
		}
	}
	printf("# the frame expected did not arrive\n");
	tap_case_failed = 1;
	return -1;
}

/* Send @bad then @good from @from: @good arrives at @to with @bad before it iff @passes. */
static void
send_pair(struct rdma_ep *from, struct rdma_ep *to, const uint8_t *bad, const uint8_t *good,
		bool passes)
{
	TAP_EQ(vur_user_net_send(from->d, bad, FRAME), 0);
	TAP_EQ(vur_user_net_send(from->d, good, FRAME), 0);
	if (passes)
		TAP_EQ(recv_first(to, bad, NULL), 1);
	TAP_EQ(recv_first(to, good, passes ? NULL : bad), 1);
}

static uint64_t
counter(const char *path, const char *name, uint64_t want)
{
	return eth_wait_counter(t.backend.prefix, path, name, want, WAIT_MS);
}

static bool
ready(void)
{
	if (a.d != NULL && b.d != NULL)
		return true;
	tap_case_failed = 1;
	return false;
}

static void
create_devices(void)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params),
			"{\"device\": \"%s\", \"allowed_ips\": [\"10.0.0.7\"], \"mac_pinned\": "
			"true}",
			path_a);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), 0);
	snprintf(params, sizeof(params), "{\"device\": \"%s\"}", path_b);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), 0);
	TAP_EQ(rdma_ep_open(&a, path_a, 7, BUF_LEN, MEM_SIZE), 0);
	TAP_EQ(rdma_ep_open(&b, path_b, 8, BUF_LEN, MEM_SIZE), 0);
}

/* ROCE-DEV-POLICY-4: from A, a foreign source MAC is dropped; its own passes. */
static void
roce_dev_policy_4_foreign_mac(void)
{
	uint8_t bad[FRAME], good[FRAME];

	if (!ready())
		return;
	udp4(bad, b.mac, foreign, 0, "10.0.0.7", 5000, 5001, 1);
	udp4(good, b.mac, a.mac, 0, "10.0.0.7", 5000, 5001, 2);
	send_pair(&a, &b, bad, good, false);
	TAP_EQ(counter(a.path, "eth_drop_tx_spoofed_mac", 1), 1);
	/* a non-IP frame of its own MAC: no source address to check */
	eth_frame(good, FRAME, b.mac, a.mac, 3);
	eth_frame(bad, FRAME, b.mac, foreign, 4);
	send_pair(&a, &b, bad, good, false);
	TAP_EQ(counter(a.path, "eth_drop_tx_spoofed_mac", 2), 2);
}

/* ROCE-DEV-POLICY-5: from A, a source IP outside the set is dropped, tagged or not. */
static void
roce_dev_policy_5_foreign_ip(void)
{
	uint8_t bad[FRAME], good[FRAME];

	if (!ready())
		return;
	udp4(bad, b.mac, a.mac, 0, "10.0.0.9", 5000, 5001, 11);
	udp4(good, b.mac, a.mac, 0, "10.0.0.7", 5000, 5001, 12);
	send_pair(&a, &b, bad, good, false);
	TAP_EQ(counter(a.path, "eth_drop_tx_spoofed_ip", 1), 1);
	udp4(bad, b.mac, a.mac, 100, "10.0.0.9", 5000, 5001, 13);
	udp4(good, b.mac, a.mac, 0, "10.0.0.7", 5000, 5001, 14);
	send_pair(&a, &b, bad, good, false);
	TAP_EQ(counter(a.path, "eth_drop_tx_spoofed_ip", 2), 2);
}

/* ROCE-DEV-POLICY-6: from A, a DHCP discover from 0.0.0.0 passes; 0.0.0.0 otherwise not. */
static void
roce_dev_policy_6_dhcp(void)
{
	uint8_t bad[FRAME], good[FRAME];

	if (!ready())
		return;
	udp4(bad, bcast, a.mac, 0, "0.0.0.0", 68, 53, 21);
	udp4(good, bcast, a.mac, 0, "0.0.0.0", 68, 67, 22);
	send_pair(&a, &b, bad, good, false);
	TAP_EQ(counter(a.path, "eth_drop_tx_spoofed_ip", 3), 3);
}

/* ROCE-DEV-POLICY-7: A's pinned MAC: MAC_ADDR_SET to another refused and counted. */
static void
roce_dev_policy_7_pinned_mac(void)
{
	uint8_t status = VIRTIO_NET_OK;

	if (!ready())
		return;
	TAP_EQ(vur_user_ctrl(a.d, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, foreign, 6,
			       NULL, 0, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_ERR);
	TAP_EQ(rdma_e2e_counter(&t, &a, "refused_macs"), 1);
	/* its own MAC again: accepted */
	TAP_EQ(vur_user_ctrl(a.d, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, a.mac, 6, NULL,
			       0, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_OK);
	/* B has no policy: it sets what it likes, and back */
	TAP_EQ(vur_user_ctrl(b.d, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, foreign, 6,
			       NULL, 0, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_EQ(vur_user_ctrl(b.d, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, b.mac, 6, NULL,
			       0, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_EQ(rdma_e2e_counter(&t, &b, "refused_macs"), 0);
}

/* No policy on B: a foreign MAC and a foreign IP pass, nothing counted. */
static void
no_policy_no_drops(void)
{
	uint8_t bad[FRAME], good[FRAME];

	if (!ready())
		return;
	udp4(bad, a.mac, foreign, 0, "192.0.2.1", 5000, 5001, 31);
	udp4(good, a.mac, b.mac, 0, "10.0.0.9", 5000, 5001, 32);
	send_pair(&b, &a, bad, good, true);
	TAP_EQ(rdma_e2e_counter(&t, &b, "eth_drop_tx_spoofed_mac"), 0);
	TAP_EQ(rdma_e2e_counter(&t, &b, "eth_drop_tx_spoofed_ip"), 0);
	/* A's counters did not move meanwhile */
	TAP_EQ(rdma_e2e_counter(&t, &a, "eth_drop_tx_spoofed_mac"), 2);
	TAP_EQ(rdma_e2e_counter(&t, &a, "eth_drop_tx_spoofed_ip"), 3);
}

/* Policy lifted live: A sends from anywhere again; its counters stay. */
static void
policy_lifted(void)
{
	char params[512], out[8192];
	uint8_t bad[FRAME], good[FRAME];

	if (!ready())
		return;
	snprintf(params, sizeof(params),
			"{\"device\": \"%s\", \"allowed_ips\": [], \"mac_pinned\": false}", path_a);
	TAP_EQ(admin_call(t.backend.admin, "set_device_addresses", params, out, sizeof(out)), 0);
	TAP_CHECK(strstr(out, "\"spoofed_ip_drops\": 3") != NULL ||
			strstr(out, "\"spoofed_ip_drops\":3") != NULL);
	udp4(bad, b.mac, foreign, 0, "10.0.0.9", 5000, 5001, 41);
	udp4(good, b.mac, a.mac, 0, "192.0.2.9", 5000, 5001, 42);
	send_pair(&a, &b, bad, good, true);
	TAP_EQ(rdma_e2e_counter(&t, &a, "eth_drop_tx_spoofed_mac"), 2);
	TAP_EQ(rdma_e2e_counter(&t, &a, "eth_drop_tx_spoofed_ip"), 3);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_start_admin(&t, argc, argv) < 0)
		return 1;
	snprintf(path_a, sizeof(path_a), "%s/spoof0", t.backend.dir);
	snprintf(path_b, sizeof(path_b), "%s/spoof1", t.backend.dir);
	TAP_RUN(create_devices);
	TAP_RUN(roce_dev_policy_4_foreign_mac);
	TAP_RUN(roce_dev_policy_5_foreign_ip);
	TAP_RUN(roce_dev_policy_6_dhcp);
	TAP_RUN(roce_dev_policy_7_pinned_mac);
	TAP_RUN(no_policy_no_drops);
	TAP_RUN(policy_lifted);
	if (a.d != NULL)
		vur_user_close(a.d);
	if (b.d != NULL)
		vur_user_close(b.d);
	return rdma_e2e_end_admin(&t);
}
