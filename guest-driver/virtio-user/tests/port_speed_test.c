/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Aggregated port speed end to end: the real backend with a LAG of two tap
 * members (an 802.3ad bond, 200G each, as ConnectX-7 VFs over a LAG), links
 * changed through the admin RPC and from the kernel side, and what the
 * driver sees: QUERY_PORT_SPEED and exactly one speed-change event per
 * change, port active/error events when the link flips.
 *
 * Usage: virtio_user_port_speed_test PATH/TO/vhost-user-rdma
 * Needs CAP_NET_ADMIN and /dev/net/tun; skipped without them, failed in CI.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "child.h"
#include "tap.h"
#include "telemetry.h"
#include "vur_verbs.h"

#define WAIT_MS      10000
#define EVENT_MS     3000 /* a link change reaches the driver well within this */
#define QUIET_MS     300  /* and nothing more follows */
#define MEMBER_100MB 2000 /* 200G in 100 Mb/s units */

static const char *backend_bin;
static char iface[2][IFNAMSIZ];

static bool
have_tun(void)
{
	return access("/dev/net/tun", R_OK | W_OK) == 0 && geteuid() == 0;
}

/* The bonding PMD's devargs key is "slave" before DPDK 23.11 (meson.build). */
#define LAG_MEMBERS VUR_BOND_MEMBER_KVARG "=net_tap0," VUR_BOND_MEMBER_KVARG "=net_tap1"

/* A backend with the two-member LAG; @no_speed: without the speed feature. */
static bool
start(struct child *c, bool no_speed)
{
	static int serial;
	char vdev[2][64];
	const char *eal[] = { "--vdev", vdev[0], "--vdev", vdev[1], "--vdev",
		"net_bonding0,mode=4," LAG_MEMBERS, NULL };
	const char *app[] = { "--member-speed", "net_tap0=200000", "--member-speed",
		"net_tap1=200000", no_speed ? "--no-port-speed" : NULL, NULL };
	const struct child_opts o = { .eal_args = eal, .app_args = app };
	int ret;

	for (int i = 0; i < 2; i++) {
		snprintf(iface[i], sizeof(iface[i]), "vps%d%c%d", (int)getpid() % 100000, 'a' + i,
				serial);
		snprintf(vdev[i], sizeof(vdev[i]), "net_tap%d,iface=%s", i, iface[i]);
	}
	serial++;
	ret = child_start(c, backend_bin, &o);
	if (ret == 0)
		ret = child_wait_socket(c, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0) {
		child_dump_log(c);
		child_cleanup(c);
	}
	return ret == 0;
}

static void
stop(struct child *c)
{
	int status = child_stop(c, SIGTERM, WAIT_MS);

	TAP_CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (tap_case_failed)
		child_dump_log(c);
	child_cleanup(c);
}

static struct vur_user_dev *
open_dev(const struct child *c)
{
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;

	vur_user_params_init(&p, c->sock);
	TAP_EQ(vur_user_open(&p, &d), 0);
	return d;
}

/* Skip without taps; else a backend and an open device, or a failed case. */
static bool
begin(struct child *c, bool no_speed, struct vur_user_dev **d)
{
	if (!have_tun()) {
		tap_skip("needs root and /dev/net/tun");
		return false;
	}
	if (!start(c, no_speed))
		return false;
	*d = open_dev(c);
	if (*d == NULL)
		stop(c);
	return *d != NULL;
}

static void
end(struct child *c, struct vur_user_dev *d)
{
	vur_user_close(d);
	stop(c);
}

/* The next event must be @type; -1: no event at all within QUIET_MS. */
static void
expect_event(struct vur_user_dev *d, int type)
{
	struct vur_user_async_event ev = { 0 };
	int ret = vur_user_get_async_event(d, &ev, type < 0 ? QUIET_MS : EVENT_MS);

	if (type < 0) {
		TAP_EQ(ret, 0);
		if (ret == 1)
			printf("# unexpected event %u\n", ev.event_type);
		return;
	}
	TAP_EQ(ret, 1);
	TAP_EQ((int)ev.event_type, type);
}

static void
expect_speed(struct vur_user_dev *d, uint64_t speed, uint32_t flags, uint16_t active)
{
	struct vur_user_port_speed ps = { 0 };

	TAP_EQ(vur_user_query_port_speed(d, &ps), 0);
	TAP_EQ(ps.speed, speed);
	TAP_EQ(ps.flags, flags);
	TAP_EQ(ps.active_members, active);
	TAP_EQ(ps.total_members, 2);
}

static uint64_t
config_changes(const struct child *c)
{
	char cmd[160], out[8192];
	uint64_t v = UINT64_MAX;

	snprintf(cmd, sizeof(cmd), "/vur/device,%s", c->sock);
	if (telemetry_query(c->prefix, cmd, out, sizeof(out)) >= 0)
		telemetry_field(out, "config_changes", &v);
	return v;
}

/*
 * What mlx5 reports for a VF in a LAG on ConnectX-7, event by event: the
 * members go down one by one, the device's link goes down and up, a
 * member's kernel link flaps.
 */
static void
lag_scenario(void)
{
	struct vur_user_port_attr port;
	struct vur_user_dev *d;
	struct child c;

	if (!begin(&c, false, &d))
		return;

	/* Both members up: the sum. */
	expect_speed(d, 2 * MEMBER_100MB, VUR_USER_PORT_SPEED_AGGREGATED, 2);
	TAP_EQ(vur_user_query_port(d, &port), 0);
	TAP_EQ(port.state, VUR_USER_PORT_ACTIVE);
	expect_event(d, -1);

	/* One member down: one event, the other's speed. */
	TAP_EQ(admin_member_link(c.admin, "net_tap1", false), 0);
	expect_event(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	expect_event(d, -1);
	expect_speed(d, MEMBER_100MB, 0, 1);
	TAP_EQ(config_changes(&c), 1);

	/* Every member down, the device up: loopback at the members' maximum. */
	TAP_EQ(admin_member_link(c.admin, "net_tap0", false), 0);
	expect_event(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	expect_event(d, -1);
	expect_speed(d, 2 * MEMBER_100MB, VUR_USER_PORT_SPEED_LOOPBACK, 0);

	/* The device's link down: port error and speed 0. */
	TAP_EQ(admin_device_link(c.admin, c.sock, false), 0);
	expect_event(d, VUR_USER_ASYNC_PORT_ERR);
	expect_event(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	expect_event(d, -1);
	expect_speed(d, 0, VUR_USER_PORT_SPEED_LINK_DOWN, 0);
	TAP_EQ(vur_user_query_port(d, &port), 0);
	TAP_EQ(port.state, VUR_USER_PORT_DOWN);

	/* Members recover while the device is down: nothing the guest sees. */
	TAP_EQ(admin_member_link(c.admin, "net_tap0", true), 0);
	TAP_EQ(admin_member_link(c.admin, "net_tap1", true), 0);
	expect_event(d, -1);

	/* Recovery: port active, the full sum. */
	TAP_EQ(admin_device_link(c.admin, c.sock, true), 0);
	expect_event(d, VUR_USER_ASYNC_PORT_ACTIVE);
	expect_event(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	expect_event(d, -1);
	expect_speed(d, 2 * MEMBER_100MB, VUR_USER_PORT_SPEED_AGGREGATED, 2);
	/* One notification per change: the link and speed of one change travel together. */
	TAP_EQ(config_changes(&c), 4);

	/* The kernel side takes a member's tap down and up: no admin involved. */
	TAP_EQ(admin_iface_set(iface[0], false), 0);
	expect_event(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	expect_speed(d, MEMBER_100MB, 0, 1);
	TAP_EQ(admin_iface_set(iface[0], true), 0);
	expect_event(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	expect_event(d, -1);
	expect_speed(d, 2 * MEMBER_100MB, VUR_USER_PORT_SPEED_AGGREGATED, 2);
	end(&c, d);
}

/* Without the feature: the command fails and no speed event comes, only link flips. */
static void
no_feature(void)
{
	struct vur_user_port_speed ps;
	struct vur_user_dev *d;
	struct child c;

	if (!begin(&c, true, &d))
		return;
	TAP_EQ(vur_user_query_port_speed(d, &ps), -EOPNOTSUPP);
	TAP_EQ(admin_member_link(c.admin, "net_tap1", false), 0);
	expect_event(d, -1);
	TAP_EQ(config_changes(&c), 0);
	TAP_EQ(admin_device_link(c.admin, c.sock, false), 0);
	expect_event(d, VUR_USER_ASYNC_PORT_ERR);
	expect_event(d, -1);
	TAP_EQ(admin_device_link(c.admin, c.sock, true), 0);
	expect_event(d, VUR_USER_ASYNC_PORT_ACTIVE);
	expect_event(d, -1);
	end(&c, d);
}

/* Drain events until quiet; how many speed changes came. */
static int
drain_speed_events(struct vur_user_dev *d)
{
	struct vur_user_async_event ev;
	int n = 0;

	while (vur_user_get_async_event(d, &ev, QUIET_MS) == 1)
		n += ev.event_type == VUR_USER_ASYNC_DEVICE_SPEED_CHANGE;
	return n;
}

/* Bursts of changes: the final state is right and at least one event arrives. */
static void
burst(void)
{
	struct vur_user_dev *d;
	struct child c;
	int n;

	if (!begin(&c, false, &d))
		return;
	/* 41 admin changes, ending with the member down. */
	for (int i = 0; i <= 40; i++)
		TAP_EQ(admin_member_link(c.admin, "net_tap1", i % 2 == 1), 0);
	n = drain_speed_events(d);
	printf("# admin burst: 41 changes, %d speed events\n", n);
	TAP_CHECK(n >= 1);
	expect_speed(d, MEMBER_100MB, 0, 1);

	/* 40 kernel-side flaps of the other member, ending up: polled and coalesced. */
	for (int i = 0; i < 40; i++)
		TAP_EQ(admin_iface_set(iface[0], i % 2 == 1), 0);
	n = drain_speed_events(d);
	printf("# kernel burst: 40 flaps, %d speed events\n", n);
	expect_speed(d, MEMBER_100MB, 0, 1);
	TAP_EQ(admin_member_link(c.admin, "net_tap1", true), 0);
	TAP_CHECK(drain_speed_events(d) >= 1);
	expect_speed(d, 2 * MEMBER_100MB, VUR_USER_PORT_SPEED_AGGREGATED, 2);
	end(&c, d);
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
	TAP_RUN(lag_scenario);
	TAP_RUN(no_feature);
	TAP_RUN(burst);
	return tap_done();
}
