/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin socket's methods acting on live objects: two devices serving
 * their vhost-user sockets (vhost/vdev.c, no frontend connected) and a port
 * manager over two uplinks (net_null ethdevs with nominal speeds), so that
 * get_devices, set_device_link, get_qps, get_uplinks, set_member_link and
 * set_member_speed reach the speed policy, the devices' speed and config
 * space and the ethdevs, not only the parameter checks fuzz_admin reaches.
 *
 * An input is what fuzz_admin takes (u8 chunk size, then the bytes a client
 * sends), with "%0" and "%1" standing for the two devices' socket paths
 * (they live in a temporary folder of the process). Every input starts with
 * both devices administratively up and both members up at 25 and 50 Gb/s.
 * The control thread's loop is not run: its timers and link events would
 * race with the input; the methods apply their changes at once.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "common/event_loop.h"
#include "common/log.h"
#include "mgmt/admin_rpc.h"
#include "port/port_mgr.h"
#include "vhost/vdev.h"

#define N_DEVS    2
#define INPUT_MAX 8192

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

RTE_LOG_REGISTER_SUFFIX(vur_logtype_app, app, INFO);

static const char *const members[] = { "net_null0", "net_null1" };
static const uint32_t member_mbps[] = { 25000, 50000 };
static char dir[64], paths[N_DEVS][96];
static struct vur_event_loop loop;
static struct vur_dev *devs[N_DEVS];
static struct vur_port_mgr pm;
static struct vur_admin admin;
static int fds[2];

static void
cleanup(void)
{
	for (int i = 0; i < N_DEVS; i++)
		unlink(paths[i]);
	rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *args[] = { "fuzz", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=*:emergency", "--vdev=net_null0", "--vdev=net_null1",
		NULL };
	struct vur_nominal_speed nominal[RTE_DIM(members)];
	struct vur_port_mgr_params p = {
		.uplinks = members,
		.n_uplinks = RTE_DIM(members),
		.nominal = nominal,
		.n_nominal = RTE_DIM(members),
		.poll_ms = 0,
		.loopback_mbps = 10000,
		.loop = &loop,
	};

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	snprintf(dir, sizeof(dir), "/tmp/vur-fuzz-admin-XXXXXX");
	if (mkdtemp(dir) == NULL || rte_eal_init((int)RTE_DIM(args) - 1, args) < 0)
		abort();
	atexit(cleanup);
	rte_log_set_global_level(RTE_LOG_EMERG);
	/* a loop nobody runs: what the port manager watches stays put */
	loop.epfd = epoll_create1(EPOLL_CLOEXEC);
	loop.stop_fd = -1;
	loop.name = "fuzz";
	for (int i = 0; i < N_DEVS; i++) {
		struct vur_dev_params dp = {
			.path = paths[i],
			.port_speed = true,
			.max_qps = 8,
			.max_cqs = 8,
			.mtu = 1500,
			.mac = { 0x52, 0x54, 0, 0, 0, (uint8_t)(i + 1) },
			.loopback_mbps = 10000,
			.loop = &loop,
		};

		snprintf(paths[i], sizeof(paths[i]), "%s/d%d", dir, i);
		devs[i] = vur_dev_create(&dp);
		if (devs[i] == NULL)
			abort();
	}
	for (size_t i = 0; i < RTE_DIM(members); i++)
		nominal[i] = (struct vur_nominal_speed){ members[i], member_mbps[i] };
	if (loop.epfd < 0 || vur_port_mgr_start(&pm, &p, devs, N_DEVS) != 0 ||
			socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0)
		abort();
	return 0;
}

static void
drain(void)
{
	char buf[4096];

	while (recv(fds[1], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* @data with "%0" and "%1" replaced by the devices' paths; its length. */
static size_t
expand(const uint8_t *data, size_t size, uint8_t *out)
{
	size_t n = 0, l;

	for (size_t i = 0; i < size && n < INPUT_MAX; i++) {
		if (data[i] == '%' && i + 1 < size && (data[i + 1] == '0' || data[i + 1] == '1')) {
			l = strlen(paths[data[i + 1] - '0']);
			if (n + l > INPUT_MAX)
				break;
			memcpy(out + n, paths[data[i + 1] - '0'], l);
			n += l;
			i++;
		} else {
			out[n++] = data[i];
		}
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t in[INPUT_MAX];
	struct vur_admin_conn *c = &admin.conns[0];
	const uint8_t *p = in;
	size_t chunk, n, left;

	if (size < 1)
		return 0;
	for (int i = 0; i < N_DEVS; i++)
		vur_port_mgr_set_dev_link(&pm, paths[i], true);
	for (size_t i = 0; i < RTE_DIM(members); i++) {
		vur_port_mgr_set_member_speed(&pm, members[i], member_mbps[i]);
		vur_port_mgr_set_member_link(&pm, members[i], true);
	}
	chunk = (size_t)data[0] + 1;
	left = expand(data + 1, size - 1, in);
	memset(&admin, 0, sizeof(admin));
	admin.pm = &pm;
	c->admin = &admin;
	c->watch.fd = fds[0];
	while (left > 0) {
		n = RTE_MIN(RTE_MIN(chunk, left), sizeof(c->buf) - c->len);
		if (n == 0)
			abort(); /* a full buffer the backend neither served nor refused */
		memcpy(c->buf + c->len, p, n);
		c->len += n;
		p += n;
		left -= n;
		if (vur_admin_serve_buffer(c) != 0)
			break;
		drain();
	}
	drain();
	return 0;
}
