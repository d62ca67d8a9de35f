/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device with a tap uplink: a frame the device sends comes out of the tap
 * on the kernel side (an AF_PACKET socket bound to it sees it), and a frame
 * the kernel side writes reaches the device.
 *
 * Usage: virtio_user_eth_tap_test PATH/TO/vhost-user-rdma
 * Needs CAP_NET_ADMIN and /dev/net/tun; skipped without them, failed in CI.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "child.h"
#include "clock.h"
#include "eth_util.h"
#include "tap.h"
#include "vur_net.h"

#define WAIT_MS 10000

static const char *backend_bin;
static struct child backend;
static struct vur_user_dev *dev;
static uint8_t mac[6];
static char iface[IFNAMSIZ];
static int raw = -1;

static int
open_raw(const char *name)
{
	struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0)
		return -errno;
	sa.sll_ifindex = (int)if_nametoindex(name);
	if (sa.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void
uplink_up(void)
{
	const char *eal[3] = { "--vdev", NULL, NULL };
	const char *app[] = { "--uplink", "net_tap0", NULL };
	const struct child_opts o = { .eal_args = eal, .app_args = app, .n_sockets = 1 };
	char vdev[64];
	struct vur_user_params p;
	struct vur_user_config cfg;
	int ret;

	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		tap_skip("no /dev/net/tun");
		return;
	}
	snprintf(iface, sizeof(iface), "vurt%d", (int)getpid());
	snprintf(vdev, sizeof(vdev), "net_tap0,iface=%s", iface);
	eal[1] = vdev;
	ret = child_start(&backend, backend_bin, &o);
	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0) {
		child_dump_log(&backend);
		return;
	}
	TAP_EQ(admin_iface_set(iface, true), 0);
	raw = open_raw(iface);
	TAP_CHECK(raw >= 0);
	vur_user_params_init(&p, backend.sock);
	TAP_EQ(vur_user_open(&p, &dev), 0);
	if (dev != NULL && vur_user_read_config(dev, &cfg) == 0)
		memcpy(mac, cfg.mac, 6);
}

/* Read the raw socket until the frame with @marker, or the deadline. */
static int
raw_recv_marked(uint32_t marker, size_t *len)
{
	int64_t deadline = vuser_now_ms() + WAIT_MS, left;
	struct pollfd pfd = { .fd = raw, .events = POLLIN };
	uint8_t buf[2048];
	ssize_t n;

	for (;;) {
		left = deadline - vuser_now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		n = recv(raw, buf, sizeof(buf), 0);
		if (n > 0 && eth_is_marked(buf, (size_t)n, marker)) {
			*len = (size_t)n;
			return 0;
		}
	}
}

static void
device_to_kernel(void)
{
	static const uint8_t outside[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	uint8_t frame[300];
	size_t len = 0;

	if (dev == NULL || raw < 0) {
		tap_skip("no device or tap");
		return;
	}
	eth_frame(frame, sizeof(frame), outside, mac, 0xdead0001);
	TAP_EQ(vur_user_net_send(dev, frame, sizeof(frame)), 0);
	TAP_EQ(raw_recv_marked(0xdead0001, &len), 0);
	TAP_EQ(len, sizeof(frame));
}

static void
kernel_to_device(void)
{
	static const uint8_t outside[6] = { 0x02, 0, 0, 0, 0, 0x42 };
	uint8_t frame[200], got[2048];
	size_t len = 0;

	if (dev == NULL || raw < 0) {
		tap_skip("no device or tap");
		return;
	}
	eth_frame(frame, sizeof(frame), mac, outside, 0xdead0002);
	TAP_EQ(send(raw, frame, sizeof(frame), 0), (ssize_t)sizeof(frame));
	TAP_EQ(eth_recv_marked(dev, 0xdead0002, got, sizeof(got), &len, WAIT_MS), 0);
	TAP_EQ(len, sizeof(frame));
	TAP_CHECK(memcmp(got, frame, sizeof(frame)) == 0);
}

static void
backend_stops_cleanly(void)
{
	int status;

	if (backend.pid <= 0) {
		tap_skip("no backend");
		return;
	}
	TAP_EQ(vur_user_close(dev), 0);
	if (raw >= 0)
		close(raw);
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
	TAP_RUN(uplink_up);
	TAP_RUN(device_to_kernel);
	TAP_RUN(kernel_to_device);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
