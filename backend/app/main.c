/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user-rdma: a DPDK vhost-user backend serving virtio-net RoCE devices.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "common/log.h"
#include "mgmt/admin_rpc.h"
#include "mgmt/telemetry.h"
#include "net/net_switch.h"
#include "port/port_mgr.h"
#include "default_mac.h"
#include "options.h"
#include "vhost/vdev.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_app, app, INFO);

struct vur_app {
	struct vur_options opts;
	struct vur_event_loop ctrl_loop;
	struct vur_switch sw; /* the data path */
	bool sw_started;
	struct vur_dev *devs[VUR_MAX_SOCKETS];
	uint8_t macs[VUR_MAX_SOCKETS][6];
	unsigned int n_devs;
	struct vur_port_mgr pm;
	bool pm_started;
	struct vur_admin admin;
	struct vur_nominal_speed nominal[VUR_MAX_NOMINAL_OPTS];
};

static void
params_for(struct vur_app *app, unsigned int i, struct vur_dev_params *p)
{
	const struct vur_options *o = &app->opts;

	memset(p, 0, sizeof(*p));
	p->path = o->sockets[i];
	p->client = o->client;
	p->rfc2_numbering = o->rfc2_numbering;
	p->port_speed = o->port_speed;
	p->max_qps = o->max_qps;
	p->max_cqs = o->max_cqs;
	p->ring_queues = o->rfc2_numbering ? 0 : o->ring_queues; /* no config field there */
	p->max_ring_qps = o->max_ring_qps;
	p->max_ring_cqs = o->max_ring_cqs;
	p->mtu = o->mtu;
	p->loopback_mbps = o->loopback_mbps;
	p->loop = &app->ctrl_loop;
	p->sw = app->sw_started ? &app->sw : NULL;
	memcpy(p->mac, app->macs[i], sizeof(p->mac));
}

#define MAC_FMT      "%02x:%02x:%02x:%02x:%02x:%02x"
#define MAC_BYTES(m) (m)[0], (m)[1], (m)[2], (m)[3], (m)[4], (m)[5]

/* @path as an absolute path (the MAC must not depend on where we were started). */
static void
absolute_path(const char *path, char *buf, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, path);
}

static bool
mac_taken(const struct vur_app *app, unsigned int n, const uint8_t mac[6])
{
	for (unsigned int i = 0; i < n; i++)
		if (memcmp(app->macs[i], mac, 6) == 0)
			return true;
	return false;
}

/*
 * Each device's MAC: --mac for the first and +1, +2, ... for the next, or
 * by default one of its own derived from this host and its socket path
 * (app/default_mac.c); should two devices of this backend meet on one, the
 * later takes the next derivation.
 */
static void
assign_macs(struct vur_app *app)
{
	const struct vur_options *o = &app->opts;
	char host[256], path[PATH_MAX + 1];
	const char *source = NULL;
	uint8_t *mac;

	if (!o->mac_given)
		source = vur_host_identity(VUR_MACHINE_ID_FILE, host, sizeof(host));
	for (unsigned int i = 0; i < o->n_sockets; i++) {
		mac = app->macs[i];
		if (o->mac_given) {
			memcpy(mac, o->base_mac, 6);
			mac[5] += i; /* i < VUR_MAX_SOCKETS: wraps within the last byte only */
			VUR_LOG(app, INFO, "%s: MAC " MAC_FMT " (--mac)", o->sockets[i],
					MAC_BYTES(mac));
			continue;
		}
		absolute_path(o->sockets[i], path, sizeof(path));
		for (uint32_t attempt = 0;; attempt++) {
			vur_default_mac(host, path, attempt, mac);
			if (!mac_taken(app, i, mac))
				break;
		}
		VUR_LOG(app, INFO,
				"%s: MAC " MAC_FMT
				" (derived from the socket path and the host's %s)",
				o->sockets[i], MAC_BYTES(mac), source);
	}
}

static int
start_devices(struct vur_app *app)
{
	struct vur_dev_params p;
	unsigned int i;

	assign_macs(app);
	for (i = 0; i < app->opts.n_sockets; i++) {
		params_for(app, i, &p);
		app->devs[i] = vur_dev_create(&p);
		if (app->devs[i] == NULL) {
			VUR_LOG(app, ERR, "%s: %s", p.path, rte_strerror(rte_errno));
			return -1;
		}
		app->n_devs++;
	}
	return 0;
}

/* Uplinks, the port manager that watches them, and the admin RPC that drives it. */
static int
start_ports(struct vur_app *app)
{
	const struct vur_options *o = &app->opts;
	struct vur_port_mgr_params p = {
		.uplinks = o->uplinks,
		.n_uplinks = o->n_uplinks,
		.nominal = app->nominal,
		.n_nominal = o->n_member_speeds,
		.poll_ms = o->link_poll_ms,
		.loopback_mbps = o->loopback_mbps,
		.loop = &app->ctrl_loop,
	};
	int ret;

	for (unsigned int i = 0; i < o->n_member_speeds; i++)
		app->nominal[i] = (struct vur_nominal_speed){ .name = o->member_speeds[i].name,
			.mbps = o->member_speeds[i].mbps };
	ret = vur_port_mgr_start(&app->pm, &p, app->devs, app->n_devs);
	if (ret != 0) {
		VUR_LOG(app, ERR, "cannot start the uplinks: %s", strerror(-ret));
		return ret;
	}
	app->pm_started = true;
	if (app->sw_started)
		vur_switch_set_uplinks(&app->sw, &app->pm.uplinks);
	app->admin.listen.fd = -1;
	if (o->admin_socket == NULL)
		return 0;
	ret = vur_admin_start(&app->admin, o->admin_socket, &app->ctrl_loop, &app->pm);
	if (ret == -EADDRINUSE)
		VUR_LOG(app, WARNING,
				"admin RPC: %s is in use by another backend; none here "
				"(give --admin-socket PATH)",
				o->admin_socket);
	else if (ret != 0)
		VUR_LOG(app, WARNING, "admin RPC: %s: %s; none here", o->admin_socket,
				strerror(-ret));
	return 0;
}

/* Sockets first, then the control thread, then the memory it may still read. */
static void
stop_devices(struct vur_app *app)
{
	unsigned int i;

	vur_telemetry_unregister();
	for (i = 0; i < app->n_devs; i++)
		vur_dev_stop(app->devs[i]);
	vur_event_loop_stop(&app->ctrl_loop);
	/* The data path uses the uplinks: it stops before they do. */
	if (app->sw_started)
		vur_switch_stop(&app->sw);
	if (app->pm_started) {
		vur_admin_stop(&app->admin);
		vur_port_mgr_stop(&app->pm);
	}
	while (app->n_devs > 0)
		vur_dev_free(app->devs[--app->n_devs]);
}

/* SIGINT and SIGTERM are blocked in every thread and taken here. */
static int
wait_for_signal(const sigset_t *set)
{
	int sig = 0;

	if (sigwait(set, &sig) != 0)
		return -1;
	return sig;
}

int
main(int argc, char **argv)
{
	struct vur_app app;
	sigset_t set;
	int ret, sig;

	/* Block before EAL creates threads, so that they inherit the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	/* --help must work without EAL (no hugepages, no root). */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			vur_options_usage(stdout, argv[0]);
			return EXIT_SUCCESS;
		}
	}

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "%s: EAL initialisation failed: %s\n", argv[0],
				rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	if (vur_options_parse(&app.opts, argc - ret, argv + ret, stderr) < 0) {
		fprintf(stderr, "Try '%s --help'.\n", argv[0]);
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	app.n_devs = 0;
	app.pm_started = false;
	if (vur_event_loop_start(&app.ctrl_loop, "vur-ctrl") < 0) {
		fprintf(stderr, "%s: cannot start the control thread\n", argv[0]);
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}

	ret = EXIT_SUCCESS;
	/* The data path first: devices attach to its switch as they are created. */
	app.sw_started = vur_switch_start(&app.sw) == 0;
	if (!app.sw_started)
		VUR_LOG(app, ERR, "cannot start the Ethernet data path");
	if (!app.sw_started || start_devices(&app) < 0 || start_ports(&app) < 0) {
		ret = EXIT_FAILURE;
		goto stop;
	}
	if (vur_telemetry_register(&app.pm) < 0 || vur_telemetry_register_switch(&app.sw) < 0)
		VUR_LOG(app, WARNING, "telemetry endpoints not registered");
	VUR_LOG(app, INFO, "%u device(s) ready; SIGINT or SIGTERM stops", app.n_devs);
	sig = wait_for_signal(&set);
	VUR_LOG(app, INFO, "%s: stopping", sig > 0 ? strsignal(sig) : "sigwait failed");

stop:
	stop_devices(&app);
	rte_eal_cleanup();
	return ret;
}
