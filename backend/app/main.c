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
#include "mgmt/dev_mgr.h"
#include "mgmt/telemetry.h"
#include "net/net_switch.h"
#include "port/port_mgr.h"
#include "options.h"
#include "vhost/vdev.h"
#include "vhost/vdev_config.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_app, app, INFO);

struct vur_app {
	struct vur_options opts;
	struct vur_event_loop ctrl_loop;
	struct vur_switch sw; /* the data path */
	bool sw_started;
	struct vur_dev_mgr dm; /* every device: -s at start, the admin RPC later */
	bool dm_started;
	struct vur_port_mgr pm;
	bool pm_started;
	struct vur_admin admin;
	struct vur_nominal_speed nominal[VUR_MAX_NOMINAL_OPTS];
};

/* What the command line gives every device (and the admin RPC's defaults). */
static void
default_spec(const struct vur_options *o, struct vur_dev_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->client = o->client;
	s->rfc2_numbering = o->rfc2_numbering;
	s->port_speed = o->port_speed;
	s->max_qps = o->max_qps;
	s->max_cqs = o->max_cqs;
	s->ring_queues = o->ring_queues;
	s->max_ring_qps = o->max_ring_qps;
	s->max_ring_cqs = o->max_ring_cqs;
	s->mtu = o->mtu;
}

/*
 * One device per -s. --mac gives the first device's MAC and the next +1,
 * +2, ...; without it each derives its own from this host and its socket
 * path (mgmt/dev_mgr.c).
 */
static int
start_devices(struct vur_app *app)
{
	const struct vur_options *o = &app->opts;
	struct vur_dev_spec s;
	char why[256];
	int ret;

	default_spec(o, &s);
	vur_dev_mgr_init(&app->dm, &app->ctrl_loop, app->sw_started ? &app->sw : NULL,
			o->loopback_mbps, &s);
	app->dm_started = true;
	for (unsigned int i = 0; i < o->n_sockets; i++) {
		snprintf(s.path, sizeof(s.path), "%s", o->sockets[i]);
		s.mac_given = o->mac_given;
		s.mac_source = "--mac";
		memcpy(s.mac, o->base_mac, sizeof(s.mac));
		s.mac[5] += i; /* i < VUR_MAX_SOCKETS: wraps within the last byte only */
		ret = vur_dev_mgr_create(&app->dm, &s, why, sizeof(why));
		if (ret != 0) {
			VUR_LOG(app, ERR, "%s: %s", o->sockets[i], why);
			return -1;
		}
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
	struct vur_dev *devs[VUR_DEV_MGR_MAX];
	unsigned int n_devs = vur_dev_mgr_list(&app->dm, devs, RTE_DIM(devs));

	ret = vur_port_mgr_start(&app->pm, &p, devs, n_devs);
	if (ret != 0) {
		VUR_LOG(app, ERR, "cannot start the uplinks: %s", strerror(-ret));
		return ret;
	}
	app->pm_started = true;
	vur_dev_mgr_set_ports(&app->dm, &app->pm);
	if (app->sw_started)
		vur_switch_set_uplinks(&app->sw, &app->pm.uplinks);
	app->admin.listen.fd = -1;
	if (o->admin_socket == NULL)
		return 0;
	ret = vur_admin_start(&app->admin, o->admin_socket, &app->ctrl_loop, &app->pm, &app->dm);
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
	vur_telemetry_unregister();
	if (app->dm_started)
		vur_dev_mgr_stop(&app->dm);
	vur_event_loop_stop(&app->ctrl_loop);
	/* The data path uses the uplinks: it stops before they do. */
	if (app->sw_started)
		vur_switch_stop(&app->sw);
	if (app->pm_started) {
		vur_admin_stop(&app->admin);
		vur_port_mgr_stop(&app->pm);
	}
	if (app->dm_started)
		vur_dev_mgr_fini(&app->dm);
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
	app.dm_started = false;
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
	VUR_LOG(app, INFO, "%u device(s) ready; SIGINT or SIGTERM stops", app.dm.n_devs);
	sig = wait_for_signal(&set);
	VUR_LOG(app, INFO, "%s: stopping", sig > 0 ? strsignal(sig) : "sigwait failed");

stop:
	stop_devices(&app);
	rte_eal_cleanup();
	return ret;
}
