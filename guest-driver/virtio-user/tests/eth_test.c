/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet path against the real backend: frames between three devices
 * of one backend through its local switch, the receive filter, RoCE v2
 * frames taken by the RDMA engine, a malformed transmit chain, and
 * mergeable receive buffers.
 *
 * Usage: virtio_user_eth_test PATH/TO/vhost-user-rdma
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "admin.h"
#include "child.h"
#include "device.h"
#include "eth_util.h"
#include "net.h"
#include "tap.h"
#include "vur_net.h"
#include "vur_verbs.h"

#define N_DEVS   3
#define WAIT_MS  5000
#define QUIET_MS 200 /* how long "nothing arrives" is watched */

static const char *backend_bin;
static struct child backend;
static char paths[N_DEVS][96];
static struct vur_user_dev *devs[N_DEVS];
static uint8_t macs[N_DEVS][6];
static uint32_t next_marker = 1;

static int
open_dev(int i, const struct vur_user_params *p)
{
	struct vur_user_config cfg;
	int ret;

	ret = vur_user_open(p, &devs[i]);
	if (ret == 0)
		ret = vur_user_read_config(devs[i], &cfg);
	if (ret == 0)
		memcpy(macs[i], cfg.mac, 6);
	return ret;
}

static bool
ready(void)
{
	for (int i = 0; i < N_DEVS; i++)
		if (devs[i] == NULL) {
			tap_skip("no devices");
			return false;
		}
	return true;
}

/* Send a marked frame of @len bytes from device @from to @dst; returns the marker. */
static uint32_t
send_marked(int from, const uint8_t dst[6], size_t len)
{
	uint8_t buf[2048];
	uint32_t marker = next_marker++;

	eth_frame(buf, len, dst, macs[from], marker);
	TAP_EQ(vur_user_net_send(devs[from], buf, len), 0);
	return marker;
}

static void
expect_frame(int to, uint32_t marker, size_t want_len)
{
	uint8_t buf[4096];
	size_t len = 0;

	TAP_EQ(eth_recv_marked(devs[to], marker, buf, sizeof(buf), &len, WAIT_MS), 0);
	TAP_EQ(len, want_len);
}

static void
expect_nothing(int to)
{
	uint8_t buf[4096];

	TAP_EQ(vur_user_net_recv(devs[to], buf, sizeof(buf), QUIET_MS), -ETIMEDOUT);
}

static uint64_t
counter(int dev, const char *field, uint64_t want)
{
	return eth_wait_counter(backend.prefix, paths[dev], field, want, WAIT_MS);
}

/* Open device @i again with @p, once the backend has let the last frontend go. */
static int
reopen(int i, const struct vur_user_params *p)
{
	static int closed[N_DEVS];
	char needle[128];

	vur_user_close(devs[i]);
	devs[i] = NULL;
	snprintf(needle, sizeof(needle), "%s: frontend disconnected", paths[i]);
	TAP_EQ(child_wait_log(&backend, needle, ++closed[i], WAIT_MS), 0);
	return open_dev(i, p);
}

static void
devices_open(void)
{
	const struct child_opts o = { .n_sockets = N_DEVS };
	struct vur_user_params p;
	int ret;

	ret = child_start(&backend, backend_bin, &o);
	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0)
		return;
	for (int i = 0; i < N_DEVS; i++) {
		child_sock(&backend, i, paths[i], sizeof(paths[i]));
		vur_user_params_init(&p, paths[i]);
		TAP_EQ(open_dev(i, &p), 0);
	}
	TAP_CHECK(vur_user_features(devs[0]) & (1ULL << VIRTIO_NET_F_MRG_RXBUF));
}

static void
unicast_reaches_only_its_device(void)
{
	uint32_t m;

	if (!ready())
		return;
	m = send_marked(0, macs[1], 100);
	expect_frame(1, m, 100);
	expect_nothing(2);
	expect_nothing(0);
	/* and back: device 0's address is known without learning too */
	m = send_marked(1, macs[0], 1514);
	expect_frame(0, m, 1514);
	expect_nothing(2);
}

static void
broadcast_floods_to_the_others(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t m;

	if (!ready())
		return;
	m = send_marked(2, bcast, 60);
	expect_frame(0, m, 60);
	expect_frame(1, m, 60);
	expect_nothing(2);
}

/* virtio 5.1.6.5.1-2: promiscuous off, then the MAC table decides. */
static void
receive_filter_applies(void)
{
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	uint8_t off = 0, ok = VIRTIO_NET_ERR, table[4 + 6 + 4];
	uint32_t one = htole32(1), zero = 0, m;
	uint64_t filtered;

	if (!ready())
		return;
	TAP_EQ(vur_user_ctrl(devs[1], VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &off, 1, NULL,
			       0, &ok),
			0);
	TAP_EQ(ok, VIRTIO_NET_OK);
	/* unknown unicast floods: device 2 (promiscuous) takes it, device 1 filters it */
	filtered = counter(1, "eth_drop_rx_filtered", 0);
	m = send_marked(0, other, 80);
	expect_frame(2, m, 80);
	TAP_EQ(counter(1, "eth_drop_rx_filtered", filtered + 1), filtered + 1);
	expect_nothing(1);
	/* its own address still passes */
	m = send_marked(0, macs[1], 80);
	expect_frame(1, m, 80);
	/* with the address in its unicast table, device 1 takes it */
	memcpy(table, &one, 4);
	memcpy(table + 4, other, 6);
	memcpy(table + 10, &zero, 4);
	TAP_EQ(vur_user_ctrl(devs[1], VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, table,
			       sizeof(table), NULL, 0, &ok),
			0);
	TAP_EQ(ok, VIRTIO_NET_OK);
	m = send_marked(0, other, 80);
	expect_frame(1, m, 80);
	off = 1;
	vur_user_ctrl(devs[1], VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &off, 1, NULL, 0,
			&ok);
}

/* Take what earlier cases left in device @i's receive queue. */
static void
drain(int i)
{
	uint8_t buf[4096];

	while (vur_user_net_recv(devs[i], buf, sizeof(buf), 50) >= 0)
		;
}

/* RX_PROMISC of device @i, on or off. */
static void
set_promisc(int i, uint8_t on)
{
	uint8_t ok = VIRTIO_NET_ERR;

	TAP_EQ(vur_user_ctrl(devs[i], VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &on, 1, NULL,
			       0, &ok),
			0);
	TAP_EQ(ok, VIRTIO_NET_OK);
}

/*
 * A multicast frame floods to every other device and passes the receive
 * filter of those whose multicast table holds its group, as a Linux guest
 * sets it (issue 22: an IPv4 group, rxe's 33:33:ef mapping of it).
 */
static void
multicast_reaches_subscribed_devices(void)
{
	static const uint8_t group[6] = { 0x01, 0x00, 0x5e, 0x01, 0x1e, 0x01 };
	static const uint8_t rxe_group[6] = { 0x33, 0x33, 0xef, 0x01, 0x1e, 0x01 };
	static const uint8_t report[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x16 };
	uint8_t ok = VIRTIO_NET_ERR, table[4 + 4 + 2 * 6];
	uint32_t two = htole32(2), zero = 0, m;
	uint64_t f1, f2;

	if (!ready())
		return;
	for (int i = 0; i < N_DEVS; i++)
		drain(i);
	set_promisc(1, 0);
	set_promisc(2, 0);
	memcpy(table, &zero, 4);
	memcpy(table + 4, &two, 4);
	memcpy(table + 8, group, 6);
	memcpy(table + 14, rxe_group, 6);
	TAP_EQ(vur_user_ctrl(devs[1], VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, table,
			       sizeof(table), NULL, 0, &ok),
			0);
	TAP_EQ(ok, VIRTIO_NET_OK);
	/* telemetry shows the filter as the driver set it */
	TAP_EQ(counter(1, "rx_mac_table_mc", 2), 2);
	TAP_EQ(counter(1, "rx_promisc", 0), 0);
	TAP_EQ(counter(0, "rx_promisc", 1), 1);
	f1 = counter(1, "eth_drop_rx_filtered", 0);
	f2 = counter(2, "eth_drop_rx_filtered", 0);
	/* device 1 joined, device 2 did not, the sender never gets its own */
	m = send_marked(0, group, 120);
	expect_frame(1, m, 120);
	TAP_EQ(counter(2, "eth_drop_rx_filtered", f2 + 1), f2 + 1);
	expect_nothing(2);
	expect_nothing(0);
	/* device 0 is promiscuous: it takes every group */
	m = send_marked(2, rxe_group, 90);
	expect_frame(1, m, 90);
	expect_frame(0, m, 90);
	/* a group nobody joined (the IGMPv3 report address): filtered by both */
	send_marked(0, report, 60);
	TAP_EQ(counter(1, "eth_drop_rx_filtered", f1 + 1), f1 + 1);
	TAP_EQ(counter(2, "eth_drop_rx_filtered", f2 + 2), f2 + 2);
	expect_nothing(1);
	expect_nothing(2);
	set_promisc(1, 1);
	set_promisc(2, 1);
}

/* Ethernet, IPv4 and UDP to @dport, to device @to's address. */
static size_t
udp_frame(uint8_t *buf, int from, int to, uint16_t dport)
{
	static const uint8_t ip[20] = { 0x45, 0, 0, 48, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1,
		10, 0, 0, 2 };
	uint16_t type = htons(0x0800), sport = htons(49152), dp = htons(dport), ulen = htons(28);

	memset(buf, 0, 62);
	memcpy(buf, macs[to], 6);
	memcpy(buf + 6, macs[from], 6);
	memcpy(buf + 12, &type, 2);
	memcpy(buf + 14, ip, sizeof(ip));
	memcpy(buf + 34, &sport, 2);
	memcpy(buf + 36, &dp, 2);
	memcpy(buf + 38, &ulen, 2);
	return 62;
}

/*
 * ROCE-DEV-WIRE-3: a UDP 4791 frame is the RDMA engine's only when it is for
 * one of the device's GIDs (and the driver negotiated RoCE); any other is
 * Ethernet, as for a guest running its own RoCE stack over the device.
 */
static void
roce_goes_to_the_rdma_engine(void)
{
	static const uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	uint8_t buf[128], got[2048];
	uint64_t roce, rx;
	size_t len;

	if (!ready())
		return;
	len = udp_frame(buf, 0, 1, 4791);
	/* no GID for 10.0.0.2: the receive queue gets it */
	TAP_EQ(vur_user_net_send(devs[0], buf, len), 0);
	TAP_EQ(vur_user_net_recv(devs[1], got, sizeof(got), WAIT_MS), (int)len);
	TAP_CHECK(memcmp(got, buf, len) == 0);
	/* with it, the engine takes it (and drops it: no such QP) */
	TAP_EQ(vur_user_add_gid(devs[1], 0, gid), 0);
	roce = counter(1, "eth_roce_rx", 0);
	rx = counter(1, "eth_rx_frames", 0);
	TAP_EQ(vur_user_net_send(devs[0], buf, len), 0);
	TAP_EQ(counter(1, "eth_roce_rx", roce + 1), roce + 1);
	TAP_EQ(counter(1, "eth_rx_frames", 0), rx);
	expect_nothing(1);
	/* another UDP port is the netdev's */
	len = udp_frame(buf, 0, 1, 4790);
	TAP_EQ(vur_user_net_send(devs[0], buf, len), 0);
	TAP_EQ(vur_user_net_recv(devs[1], got, sizeof(got), WAIT_MS), (int)len);
	TAP_CHECK(memcmp(got, buf, len) == 0);
	TAP_EQ(vur_user_del_gid(devs[1], 0), 0);
}

/*
 * ROCE-DEV-WIRE-8: a driver that did not negotiate RoCE (a stock virtio_net
 * with Linux rxe on top) gets every UDP 4791 frame in its receive queue,
 * whatever it is addressed to; the engine sees none of them.
 */
static void
roce_frames_are_ethernet_without_roce(void)
{
	struct vur_user_params p;
	uint8_t buf[128], got[2048];
	uint64_t roce;
	size_t len;

	if (!ready())
		return;
	vur_user_params_init(&p, paths[1]);
	p.features &= ~(1ULL << VIRTIO_NET_F_ROCE);
	TAP_EQ(reopen(1, &p), 0);
	if (devs[1] == NULL)
		return;
	TAP_CHECK(!(vur_user_features(devs[1]) & (1ULL << VIRTIO_NET_F_ROCE)));
	roce = counter(1, "eth_roce_rx", 0);
	len = udp_frame(buf, 0, 1, 4791);
	for (int i = 0; i < 3; i++) {
		TAP_EQ(vur_user_net_send(devs[0], buf, len), 0);
		TAP_EQ(vur_user_net_recv(devs[1], got, sizeof(got), WAIT_MS), (int)len);
		TAP_CHECK(memcmp(got, buf, len) == 0);
	}
	TAP_EQ(counter(1, "eth_roce_rx", 0), roce);
}

/* A chain shorter than the virtio-net header: dropped, counted, nothing else. */
static void
malformed_tx_is_dropped(void)
{
	static const uint8_t shorty[4] = { 1, 2, 3, 4 };
	uint8_t hdr_only[12] = { 0 };
	uint64_t bad;
	uint32_t m;

	if (!ready())
		return;
	bad = counter(0, "eth_drop_tx_bad_length", 0);
	TAP_EQ(vuser_net_send_raw(devs[0], shorty, sizeof(shorty)), 0);
	TAP_EQ(vuser_net_send_raw(devs[0], hdr_only, sizeof(hdr_only)), 0);
	TAP_EQ(counter(0, "eth_drop_tx_bad_length", bad + 2), bad + 2);
	expect_nothing(1);
	/* the device keeps working */
	m = send_marked(0, macs[1], 64);
	expect_frame(1, m, 64);
}

/* 5.1.6.4: a frame larger than one buffer spans num_buffers of them. */
static void
mergeable_receive_buffers(void)
{
	struct vur_user_net_stats before, after;
	struct vur_user_params p;
	uint64_t buffers;
	uint32_t m;

	if (!ready())
		return;
	vur_user_params_init(&p, paths[2]);
	p.net_rx_buf_size = 256;
	TAP_EQ(reopen(2, &p), 0);
	if (devs[2] == NULL)
		return;
	vur_user_net_stats(devs[2], &before);
	buffers = counter(2, "eth_rx_buffers", 0);
	m = send_marked(0, macs[2], 1000);
	expect_frame(2, m, 1000);
	vur_user_net_stats(devs[2], &after);
	/* 12 header bytes + 1000 in 256-byte buffers */
	TAP_EQ(after.rx_buffers - before.rx_buffers, 4);
	TAP_EQ(after.rx_frames - before.rx_frames, 1);
	TAP_EQ(counter(2, "eth_rx_buffers", buffers + 4), buffers + 4);
	/* a small one fits one buffer */
	m = send_marked(0, macs[2], 200);
	expect_frame(2, m, 200);
	vur_user_net_stats(devs[2], &after);
	TAP_EQ(after.rx_buffers - before.rx_buffers, 5);
}

/* Without MRG_RXBUF every frame takes one whole buffer. */
static void
unmerged_receive_buffers(void)
{
	struct vur_user_net_stats st;
	struct vur_user_params p;
	uint32_t m;

	if (!ready())
		return;
	vur_user_params_init(&p, paths[2]);
	p.features &= ~(1ULL << VIRTIO_NET_F_MRG_RXBUF);
	TAP_EQ(reopen(2, &p), 0);
	if (devs[2] == NULL)
		return;
	TAP_CHECK(!(vur_user_features(devs[2]) & (1ULL << VIRTIO_NET_F_MRG_RXBUF)));
	m = send_marked(0, macs[2], 1514);
	expect_frame(2, m, 1514);
	vur_user_net_stats(devs[2], &st);
	TAP_EQ(st.rx_buffers, 1);
	TAP_EQ(st.rx_frames, 1);
}

/* A device whose link the operator took down neither receives nor sends. */
static void
link_down_carries_nothing(void)
{
	uint64_t base_rx, base_tx;
	uint32_t m;

	if (!ready())
		return;
	base_rx = counter(1, "eth_drop_link_down", 0);
	TAP_EQ(admin_device_link(backend.admin, paths[1], false), 0);
	send_marked(0, macs[1], 100);
	expect_nothing(1);
	TAP_EQ(counter(1, "eth_drop_link_down", base_rx + 1), base_rx + 1);
	base_tx = base_rx + 1;
	send_marked(1, macs[0], 100);
	expect_nothing(0);
	TAP_EQ(counter(1, "eth_drop_link_down", base_tx + 1), base_tx + 1);
	TAP_EQ(admin_device_link(backend.admin, paths[1], true), 0);
	m = send_marked(0, macs[1], 100);
	expect_frame(1, m, 100);
	m = send_marked(1, macs[0], 100);
	expect_frame(0, m, 100);
}

static void
backend_stops_cleanly(void)
{
	int status;

	for (int i = 0; i < N_DEVS; i++)
		TAP_EQ(vur_user_close(devs[i]), 0);
	status = child_stop(&backend, SIGTERM, WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&backend);
	child_cleanup(&backend);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/vhost-user-rdma\n", argv[0]);
		return 2;
	}
	backend_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	TAP_RUN(devices_open);
	TAP_RUN(unicast_reaches_only_its_device);
	TAP_RUN(broadcast_floods_to_the_others);
	TAP_RUN(receive_filter_applies);
	TAP_RUN(multicast_reaches_subscribed_devices);
	TAP_RUN(roce_goes_to_the_rdma_engine);
	TAP_RUN(roce_frames_are_ethernet_without_roce);
	TAP_RUN(malformed_tx_is_dropped);
	TAP_RUN(mergeable_receive_buffers);
	TAP_RUN(unmerged_receive_buffers);
	TAP_RUN(link_down_carries_nothing);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
