/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the command line parser. */
#include <errno.h>
#include <string.h>

#include "options.h"
#include "tests/tap.h"

static FILE *sink;

static int
parse(struct vur_options *o, int argc, const char **argv)
{
	return vur_options_parse(o, argc, (char **)argv, sink);
}

#define ARGV(...)     ((const char *[]){ "vhost-user-rdma", __VA_ARGS__ })
#define PARSE(o, ...) parse(o, (int)(sizeof(ARGV(__VA_ARGS__)) / sizeof(char *)), ARGV(__VA_ARGS__))

static void
rfc_demo_line(void)
{
	struct vur_options o;

	TAP_CHECK(PARSE(&o, "-s", "/tmp/vhost-rdma0") == 0);
	TAP_CHECK(o.n_sockets == 1 && strcmp(o.sockets[0], "/tmp/vhost-rdma0") == 0);
	TAP_CHECK(!o.client && !o.rfc2_numbering && o.port_speed);
	TAP_CHECK(o.max_qps == 64 && o.max_cqs == 64 && o.mtu == 1500);
	TAP_CHECK(o.loopback_mbps == 100000);
	TAP_CHECK(!o.mac_given); /* each device's own, derived (app/default_mac.c) */
}

static void
repeated_sockets_and_options(void)
{
	struct vur_options o;

	TAP_CHECK(PARSE(&o, "-s", "/a", "--socket", "/b", "-c", "--max-qps", "32", "--max-cqs",
				  "0x10", "--mtu", "9000", "--mac", "02:00:00:00:00:10",
				  "--rfc2-numbering", "--no-port-speed", "--loopback-speed",
				  "25000") == 0);
	TAP_CHECK(o.n_sockets == 2 && strcmp(o.sockets[1], "/b") == 0);
	TAP_CHECK(o.client && o.rfc2_numbering && !o.port_speed);
	TAP_CHECK(o.max_qps == 32 && o.max_cqs == 16 && o.mtu == 9000);
	TAP_CHECK(o.mac_given && o.base_mac[0] == 2 && o.base_mac[5] == 0x10);
	TAP_CHECK(o.loopback_mbps == 25000);
}

static void
bad_numbers(void)
{
	struct vur_options o;

	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "-1") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "2") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "12x") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-cqs", "0") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-cqs", "99999999999999999999999") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--mtu", "67") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--mtu", "65536") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--loopback-speed", "99") == -EINVAL);
}

static void
layout_must_fit_vhost(void)
{
	struct vur_options o;

	/* 3 + 1 + 2 * 126 = 256 fits; one more CQ does not. */
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "126", "--max-cqs", "1") == 0);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "126", "--max-cqs", "2") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "16384") == -EINVAL);
	/* the default ring queue pairs (4) fit beside 64 QPs and 64 CQs: 195 + 8 */
	TAP_CHECK(PARSE(&o, "-s", "/a") == 0 && o.ring_queues == 4);
	/* where they do not, the default gives way; asked for, they must fit */
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "126", "--max-cqs", "1") == 0 &&
			o.ring_queues == 0);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "124", "--max-cqs", "1") == 0 &&
			o.ring_queues == 2);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-qps", "124", "--max-cqs", "1", "--ring-queues",
				  "3") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--ring-queues", "0") == 0 && o.ring_queues == 0);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--ring-queues", "30") == 0);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--ring-queues", "31") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-ring-qps", "0") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-ring-cqs", "16385") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--max-ring-qps", "16", "--max-ring-cqs", "8") == 0 &&
			o.max_ring_qps == 16 && o.max_ring_cqs == 8);
}

static void
bad_mac(void)
{
	struct vur_options o;

	TAP_CHECK(PARSE(&o, "-s", "/a", "--mac", "02:00:00:00:00") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--mac", "01:00:00:00:00:01") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--mac", "02:00:00:00:00:0g") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--mac", "02:00:00:00:00:011") == -EINVAL);
}

static void
missing_or_extra(void)
{
	struct vur_options o;

	/* no device is an error only without the admin RPC, which could create one */
	TAP_CHECK(PARSE(&o, "--client", "--no-admin") == -EINVAL);
	TAP_CHECK(PARSE(&o, "--client") == 0 && o.n_sockets == 0 && o.client);
	TAP_CHECK(PARSE(&o, "-s", "") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "stray") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--no-such-option") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s") == -EINVAL);
	TAP_CHECK(PARSE(&o, "--help") == 0 && o.help);
}

static void
too_many_sockets(void)
{
	const char *argv[2 * VUR_MAX_SOCKETS + 3];
	struct vur_options o;
	int i, n = 0;

	argv[n++] = "vhost-user-rdma";
	for (i = 0; i <= VUR_MAX_SOCKETS; i++) {
		argv[n++] = "-s";
		argv[n++] = "/x";
	}
	TAP_CHECK(parse(&o, n, argv) == -EINVAL);
	TAP_CHECK(parse(&o, n - 2, argv) == 0 && o.n_sockets == VUR_MAX_SOCKETS);
}

static void
uplinks_and_admin(void)
{
	struct vur_options o;

	/* no -s: a daemon whose devices the admin RPC creates; not without the RPC */
	TAP_CHECK(PARSE(&o, "--admin-socket", "/tmp/adm") == 0 && o.n_sockets == 0);
	TAP_CHECK(PARSE(&o, "--no-admin") == -EINVAL);

	TAP_CHECK(PARSE(&o, "-s", "/a") == 0);
	TAP_CHECK(o.n_uplinks == 0 && o.n_member_speeds == 0 && o.link_poll_ms == 20);
	TAP_CHECK(o.admin_socket != NULL &&
			strcmp(o.admin_socket, "/var/tmp/vhost-user-rdma.sock") == 0);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--uplink", "net_bonding0", "--uplink", "net_tap2",
				  "--member-speed", "net_tap0=200000", "--member-speed",
				  "0000:3b:00.0=400000", "--link-poll-ms", "5", "--admin-socket",
				  "/run/x.sock") == 0);
	TAP_CHECK(o.n_uplinks == 2 && strcmp(o.uplinks[1], "net_tap2") == 0);
	TAP_CHECK(o.n_member_speeds == 2 && o.member_speeds[0].mbps == 200000);
	TAP_CHECK(strcmp(o.member_speeds[1].name, "0000:3b:00.0") == 0);
	TAP_CHECK(o.link_poll_ms == 5 && strcmp(o.admin_socket, "/run/x.sock") == 0);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--no-admin") == 0 && o.admin_socket == NULL);

	TAP_CHECK(PARSE(&o, "-s", "/a", "--member-speed", "net_tap0") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--member-speed", "=100") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--member-speed", "net_tap0=0") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--member-speed", "net_tap0=4294967296") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--member-speed", "net_tap0=1e3") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--link-poll-ms", "0") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--link-poll-ms", "10001") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--uplink", "") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--admin-socket", "") == -EINVAL);
	TAP_CHECK(PARSE(&o, "-s", "/a", "--uplink", "1", "--uplink", "2", "--uplink", "3",
				  "--uplink", "4", "--uplink", "5", "--uplink", "6", "--uplink",
				  "7", "--uplink", "8", "--uplink", "9") == -EINVAL);
}

int
main(void)
{
	sink = fopen("/dev/null", "w");
	TAP_RUN(rfc_demo_line);
	TAP_RUN(repeated_sockets_and_options);
	TAP_RUN(bad_numbers);
	TAP_RUN(layout_must_fit_vhost);
	TAP_RUN(bad_mac);
	TAP_RUN(missing_or_extra);
	TAP_RUN(too_many_sockets);
	TAP_RUN(uplinks_and_admin);
	fclose(sink);
	return tap_done();
}
