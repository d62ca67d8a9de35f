/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command line of vhost-user-rdma.
 *
 * EAL consumes its own arguments first; what follows "--" is parsed here.
 * Every number is range-checked so that a device never starts with a
 * virtqueue layout librte_vhost or QEMU cannot hold.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net_roce.h>

#include "options.h"

/* librte_vhost 22.11 handles at most VHOST_MAX_VRING (256) virtqueues. */
#define VUR_MAX_VRINGS            256

#define VUR_DEFAULT_QPS           64
#define VUR_DEFAULT_CQS           64
#define VUR_DEFAULT_MTU           1500
#define VUR_DEFAULT_LOOPBACK_MBPS 100000ULL
#define VUR_DEFAULT_LINK_POLL_MS  20
/*
 * Rings in driver memory (issue 28): 4 doorbell/event queue pairs fit
 * beside 64 QPs and 64 CQs (195 + 8 virtqueues of the 256).
 */
#define VUR_DEFAULT_RING_QUEUES 4
#define VUR_MAX_RING_OBJS       16384

enum {
	OPT_MAX_QPS = 256,
	OPT_MAX_CQS,
	OPT_MTU,
	OPT_MAC,
	OPT_LOOPBACK_SPEED,
	OPT_RFC2,
	OPT_NO_PORT_SPEED,
	OPT_UPLINK,
	OPT_MEMBER_SPEED,
	OPT_LINK_POLL_MS,
	OPT_ADMIN_SOCKET,
	OPT_NO_ADMIN,
	OPT_RING_QUEUES,
	OPT_MAX_RING_QPS,
	OPT_MAX_RING_CQS,
};

static const struct option long_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "client", no_argument, NULL, 'c' },
	{ "max-qps", required_argument, NULL, OPT_MAX_QPS },
	{ "max-cqs", required_argument, NULL, OPT_MAX_CQS },
	{ "ring-queues", required_argument, NULL, OPT_RING_QUEUES },
	{ "max-ring-qps", required_argument, NULL, OPT_MAX_RING_QPS },
	{ "max-ring-cqs", required_argument, NULL, OPT_MAX_RING_CQS },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "mac", required_argument, NULL, OPT_MAC },
	{ "loopback-speed", required_argument, NULL, OPT_LOOPBACK_SPEED },
	{ "rfc2-numbering", no_argument, NULL, OPT_RFC2 },
	{ "no-port-speed", no_argument, NULL, OPT_NO_PORT_SPEED },
	{ "uplink", required_argument, NULL, OPT_UPLINK },
	{ "member-speed", required_argument, NULL, OPT_MEMBER_SPEED },
	{ "link-poll-ms", required_argument, NULL, OPT_LINK_POLL_MS },
	{ "admin-socket", required_argument, NULL, OPT_ADMIN_SOCKET },
	{ "no-admin", no_argument, NULL, OPT_NO_ADMIN },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void
vur_options_usage(FILE *out, const char *prog)
{
	fprintf(out,
			"Usage: %s [EAL options] -- [-s PATH ...] [options]\n"
			"\n"
			"Serve one virtio-net RoCE device per vhost-user socket. Devices are "
			"given\n"
			"with -s at start, or created and deleted at runtime through the admin "
			"RPC\n"
			"(vhost-user-rdma-ctl create-device PATH, delete-device PATH); without "
			"-s\n"
			"the backend starts with none.\n"
			"\n"
			"Data path: one thread per EAL worker lcore (-l 0-2: the main lcore 0 and "
			"two\n"
			"data-path threads), or one control thread when EAL gives no worker "
			"(-l 0).\n"
			"Each device's Ethernet queues are served by one of them; its RDMA QPs "
			"are\n"
			"spread over all of them, QP by QP.\n"
			"\n"
			"Options:\n"
			"  -s, --socket PATH       vhost-user socket of one device; repeat for "
			"more\n"
			"                          devices (at most %d, the admin RPC's "
			"included);\n"
			"                          the options below are its settings and the "
			"defaults\n"
			"                          of create_device\n"
			"  -c, --client            connect to PATH as a vhost-user client and "
			"reconnect\n"
			"                          when the frontend goes away (default: listen)\n"
			"      --max-qps N         RDMA queue pairs per device, QPN 0..N-1 "
			"(default %d)\n"
			"      --max-cqs N         RDMA completion queues per device (default %d)\n"
			"                          3 + max-cqs + 2 * max-qps + 2 * ring-queues "
			"must not\n"
			"                          exceed %d virtqueues\n"
			"      --ring-queues K     doorbell/event queue pairs for QPs, CQs and "
			"SRQs "
			"on rings\n"
			"                          in driver memory (0: no rings; off with\n"
			"                          --rfc2-numbering) (default %d)\n"
			"      --max-ring-qps N    QPs and SRQs on rings, numbered from max-qps, "
			"1..%d\n"
			"                          (default %d)\n"
			"      --max-ring-cqs N    CQs on rings, numbered from max-cqs, 1..%d "
			"(default %d)\n"
			"      --mtu N             virtio-net MTU, 68..65535 (default %d)\n"
			"      --mac XX:XX:XX:XX:XX:XX\n"
			"                          MAC of the first device; the next get +1, +2, "
			"...\n"
			"                          (default: each device its own, a hash\n"
			"                          (rte_jhash) of the host's /etc/machine-id\n"
			"                          (its host name when that file is absent or\n"
			"                          empty) and the device's absolute socket path:\n"
			"                          locally administered unicast, the same on\n"
			"                          every start; the log shows it)\n"
			"      --loopback-speed MBPS\n"
			"                          port speed when no uplink is up (default %llu)\n"
			"      --rfc2-numbering    offer RFC v2's numbering (feature bit %d, "
			"control\n"
			"                          class %d, config fields at offset 24) instead "
			"of\n"
			"                          bit %d, class %d, offset 28\n"
			"      --no-port-speed     do not offer the aggregated port-speed feature\n"
			"\n"
			"Uplinks (the device's port speed is the sum of the members that are up):\n"
			"      --uplink NAME       an ethdev EAL created (--vdev net_tap0, "
			"net_bonding0,\n"
			"                          a PCI address); repeat for several planes "
			"(at most %d).\n"
			"                          A bond's members are its ports. Default: every "
			"port\n"
			"                          that is not a bond's member\n"
			"      --member-speed NAME=MBPS\n"
			"                          declare a member's speed (virtual links report "
			"a\n"
			"                          meaningless one); repeatable\n"
			"      --link-poll-ms N    poll member links every N ms, 1..10000 (LSC "
			"events and,\n"
			"                          for kernel interfaces, rtnetlink are taken "
			"too)\n"
			"                          (default %d)\n"
			"\n"
			"Management:\n"
			"      --admin-socket PATH admin RPC socket (JSON-RPC 2.0; see "
			"vhost-user-rdma-ctl)\n"
			"                          (default %s)\n"
			"      --no-admin          no admin RPC socket (then -s is needed)\n"
			"  -h, --help              show this text\n"
			"\n"
			"\n"
			"Examples:\n"
			"  %s --vdev 'net_tap0' --lcore '1-3' -- -s '/tmp/vhost-rdma0'\n"
			"      the RFC v2 demo line: one tap uplink, two data-path threads\n"
			"  %s --vdev net_tap0 --vdev net_tap1 \\\n"
			"      --vdev 'net_bonding0,mode=4," VUR_BOND_MEMBER_KVARG
			"=net_tap0," VUR_BOND_MEMBER_KVARG "=net_tap1' -- \\\n"
			"      -s /tmp/vhost-rdma0 --member-speed net_tap0=200000 "
			"--member-speed net_tap1=200000\n"
			"      an 802.3ad LAG of two 200G members: 400G, 200G when one is down\n",
			prog, VUR_MAX_SOCKETS, VUR_DEFAULT_QPS, VUR_DEFAULT_CQS, VUR_MAX_VRINGS,
			VUR_DEFAULT_RING_QUEUES, VUR_MAX_RING_OBJS, VUR_MAX_RING_OBJS,
			VUR_MAX_RING_OBJS, VUR_MAX_RING_OBJS, VUR_DEFAULT_MTU,
			VUR_DEFAULT_LOOPBACK_MBPS, VIRTIO_NET_F_ROCE_RFC2,
			VIRTIO_NET_CTRL_ROCE_RFC2, VIRTIO_NET_F_ROCE, VIRTIO_NET_CTRL_ROCE,
			VUR_MAX_UPLINK_OPTS, VUR_DEFAULT_LINK_POLL_MS, VUR_DEFAULT_ADMIN_SOCKET,
			prog, prog);
}

static int
parse_u64(const char *arg, uint64_t min, uint64_t max, uint64_t *val, const char *what, FILE *err)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < min || v > max) {
		fprintf(err, "invalid %s '%s': expected %" PRIu64 "..%" PRIu64 "\n", what, arg, min,
				max);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

static int
parse_mac(const char *arg, uint8_t mac[6], FILE *err)
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(arg, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
			    &tail) != 6 ||
			strlen(arg) != 17) {
		fprintf(err, "invalid MAC '%s': expected XX:XX:XX:XX:XX:XX\n", arg);
		return -EINVAL;
	}
	if (b[0] & 1) {
		fprintf(err, "invalid MAC '%s': multicast bit set\n", arg);
		return -EINVAL;
	}
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
	return 0;
}

/* NAME=MBPS, NAME an ethdev name. */
static int
parse_member_speed(struct vur_options *opts, const char *arg, FILE *err)
{
	struct vur_member_speed_opt *m;
	const char *eq = strrchr(arg, '=');
	uint64_t v;

	if (opts->n_member_speeds == VUR_MAX_NOMINAL_OPTS) {
		fprintf(err, "too many --member-speed: at most %d\n", VUR_MAX_NOMINAL_OPTS);
		return -EINVAL;
	}
	m = &opts->member_speeds[opts->n_member_speeds];
	if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof(m->name)) {
		fprintf(err, "invalid --member-speed '%s': expected NAME=MBPS\n", arg);
		return -EINVAL;
	}
	if (parse_u64(eq + 1, 1, UINT32_MAX, &v, "--member-speed speed", err) < 0)
		return -EINVAL;
	memcpy(m->name, arg, eq - arg);
	m->name[eq - arg] = '\0';
	m->mbps = v;
	opts->n_member_speeds++;
	return 0;
}

/* The default MAC is made per device (app/default_mac.c), not here. */
static void
set_defaults(struct vur_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->port_speed = true;
	opts->max_qps = VUR_DEFAULT_QPS;
	opts->max_cqs = VUR_DEFAULT_CQS;
	opts->ring_queues = VUR_DEFAULT_RING_QUEUES;
	opts->max_ring_qps = VUR_MAX_RING_OBJS;
	opts->max_ring_cqs = VUR_MAX_RING_OBJS;
	opts->mtu = VUR_DEFAULT_MTU;
	opts->loopback_mbps = VUR_DEFAULT_LOOPBACK_MBPS;
	opts->link_poll_ms = VUR_DEFAULT_LINK_POLL_MS;
	opts->admin_socket = VUR_DEFAULT_ADMIN_SOCKET;
}

static int
check_layout(struct vur_options *opts, FILE *err)
{
	uint32_t k = opts->rfc2_numbering ? 0 : opts->ring_queues;
	uint32_t vqs = virtio_net_roce_num_vqs_rings(1, opts->max_cqs, opts->max_qps, k);
	uint32_t base = virtio_net_roce_num_vqs(1, opts->max_cqs, opts->max_qps);

	/* a layout that worked before rings still does: the default K takes what is left */
	if (!opts->ring_queues_given && vqs > VUR_MAX_VRINGS && base <= VUR_MAX_VRINGS) {
		opts->ring_queues = (VUR_MAX_VRINGS - base) / 2;
		return 0;
	}
	if (vqs > VUR_MAX_VRINGS) {
		fprintf(err,
				"--max-qps %u, --max-cqs %u and --ring-queues %u need %u "
				"virtqueues; "
				"at most %d fit\n",
				opts->max_qps, opts->max_cqs, k, vqs, VUR_MAX_VRINGS);
		return -EINVAL;
	}
	return 0;
}

static int
parse_one(struct vur_options *opts, int c, const char *arg, FILE *err)
{
	uint64_t v;
	int ret = 0;

	switch (c) {
	case 's':
		if (opts->n_sockets == VUR_MAX_SOCKETS) {
			fprintf(err, "too many sockets: at most %d\n", VUR_MAX_SOCKETS);
			return -EINVAL;
		}
		if (arg[0] == '\0') {
			fprintf(err, "empty socket path\n");
			return -EINVAL;
		}
		opts->sockets[opts->n_sockets++] = arg;
		break;
	case 'c':
		opts->client = true;
		break;
	case OPT_MAX_QPS:
		ret = parse_u64(arg, VIRTIO_NET_ROCE_MIN_QPS, VIRTIO_NET_ROCE_MAX_QPS, &v,
				"--max-qps", err);
		if (ret == 0)
			opts->max_qps = v;
		break;
	case OPT_MAX_CQS:
		ret = parse_u64(arg, 1, VIRTIO_NET_ROCE_MAX_CQS, &v, "--max-cqs", err);
		if (ret == 0)
			opts->max_cqs = v;
		break;
	case OPT_RING_QUEUES:
		ret = parse_u64(arg, 0, VUR_MAX_VRINGS / 2, &v, "--ring-queues", err);
		if (ret == 0)
			opts->ring_queues = v;
		opts->ring_queues_given = ret == 0;
		break;
	case OPT_MAX_RING_QPS:
		ret = parse_u64(arg, 1, VUR_MAX_RING_OBJS, &v, "--max-ring-qps", err);
		if (ret == 0)
			opts->max_ring_qps = v;
		break;
	case OPT_MAX_RING_CQS:
		ret = parse_u64(arg, 1, VUR_MAX_RING_OBJS, &v, "--max-ring-cqs", err);
		if (ret == 0)
			opts->max_ring_cqs = v;
		break;
	case OPT_MTU:
		ret = parse_u64(arg, 68, 65535, &v, "--mtu", err);
		if (ret == 0)
			opts->mtu = v;
		break;
	case OPT_MAC:
		ret = parse_mac(arg, opts->base_mac, err);
		opts->mac_given = ret == 0;
		break;
	case OPT_LOOPBACK_SPEED:
		/* 100 Mb/s is the unit of the RoCE speed field; 0 would read as link down. */
		ret = parse_u64(arg, 100, UINT32_MAX, &v, "--loopback-speed", err);
		if (ret == 0)
			opts->loopback_mbps = v;
		break;
	case OPT_RFC2:
		opts->rfc2_numbering = true;
		break;
	case OPT_NO_PORT_SPEED:
		opts->port_speed = false;
		break;
	case OPT_UPLINK:
		if (opts->n_uplinks == VUR_MAX_UPLINK_OPTS || arg[0] == '\0') {
			fprintf(err, "invalid --uplink '%s': a name, at most %d uplinks\n", arg,
					VUR_MAX_UPLINK_OPTS);
			return -EINVAL;
		}
		opts->uplinks[opts->n_uplinks++] = arg;
		break;
	case OPT_MEMBER_SPEED:
		ret = parse_member_speed(opts, arg, err);
		break;
	case OPT_LINK_POLL_MS:
		ret = parse_u64(arg, 1, 10000, &v, "--link-poll-ms", err);
		if (ret == 0)
			opts->link_poll_ms = v;
		break;
	case OPT_ADMIN_SOCKET:
		if (arg[0] == '\0') {
			fprintf(err, "empty --admin-socket path\n");
			return -EINVAL;
		}
		opts->admin_socket = arg;
		break;
	case OPT_NO_ADMIN:
		opts->admin_socket = NULL;
		break;
	case 'h':
		opts->help = true;
		break;
	default:
		/* getopt_long already printed what it did not recognise */
		return -EINVAL;
	}
	return ret;
}

int
vur_options_parse(struct vur_options *opts, int argc, char **argv, FILE *err)
{
	int c, ret;

	set_defaults(opts);
	optind = 1;
	opterr = err != NULL;
	while ((c = getopt_long(argc, argv, "s:ch", long_opts, NULL)) != -1) {
		ret = parse_one(opts, c, optarg, err);
		if (ret < 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(err, "unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (opts->help)
		return 0;
	/* Without -s the admin RPC creates every device (create_device): a host daemon. */
	if (opts->n_sockets == 0 && opts->admin_socket == NULL) {
		fprintf(err, "no device and no admin RPC: give -s PATH, or leave out --no-admin\n");
		return -EINVAL;
	}
	return check_layout(opts, err);
}
