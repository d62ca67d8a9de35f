/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port manager: owns the uplink members' link state and every device's
 * administrative link state, computes each device's effective speed with
 * the speed policy and hands changes to the devices, which notify their
 * guests. It runs on the control thread: LSC events, link polling and the
 * admin RPC all reach it there, so its decisions are serialised; a mutex
 * guards what management threads (telemetry) read.
 */
#ifndef VUR_PORT_MGR_H
#define VUR_PORT_MGR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/event_loop.h"
#include "port/speed_policy.h"
#include "port/uplink.h"

struct vur_dev;

/*
 * A burst of link events is applied once, this long after its first event:
 * a bond's members or an rtnetlink burst arrive within microseconds, and a
 * guest should hear of a link change within a couple of milliseconds.
 */
#define VUR_PORT_COALESCE_US 250

struct vur_port_mgr_params {
	const char *const *uplinks; /* ethdev names; none: every top-level port */
	unsigned int n_uplinks;
	const struct vur_nominal_speed *nominal;
	unsigned int n_nominal;
	uint32_t poll_ms; /* link polling period */
	uint64_t loopback_mbps;
	struct vur_event_loop *loop;
};

struct vur_port_dev {
	struct vur_dev *dev;
	bool admin_up;
	struct vur_speed_result speed; /* as last applied */
};

/* The most devices a backend serves (the local switch's device ports). */
#define VUR_PORT_MAX_DEVS 64

struct vur_port_mgr {
	pthread_mutex_t lock;
	struct vur_uplinks uplinks;
	struct vur_port_member state[VUR_MAX_MEMBERS]; /* as last read */
	struct vur_port_dev devs[VUR_PORT_MAX_DEVS];
	unsigned int n_devs;
	uint64_t loopback_mbps;
	uint64_t link_events; /* LSC events, kernel link events and polled changes */
	uint64_t recomputes;  /* coalesced applications */
	struct vur_event_loop *loop;
	struct vur_event_watch lsc_watch;   /* eventfd written by the LSC callback */
	struct vur_event_watch apply_watch; /* timerfd: the coalescing delay */
	struct vur_event_watch poll_watch;  /* timerfd: polling; fd -1 without members */
	struct vur_event_watch nl_watch;    /* rtnetlink: members' kernel links; fd -1 if none */
	uint64_t kernel_link_events;        /* rtnetlink messages about a member */
	bool apply_armed;
	bool watching; /* the LSC eventfd is on the loop */
};

/*
 * Start the uplinks and the link watchers, and give each of the @n_devs
 * devices its speed (administratively up). Returns 0 or a negative errno.
 */
int vur_port_mgr_start(struct vur_port_mgr *pm, const struct vur_port_mgr_params *p,
		struct vur_dev *const *devs, unsigned int n_devs);

/* Stop the uplinks and close the watchers; call once the control thread stopped. */
void vur_port_mgr_stop(struct vur_port_mgr *pm);

/*
 * A device created at runtime (admin RPC): it gets its speed at once, link
 * administratively @admin_up. Returns 0 or -ENOSPC.
 */
int vur_port_mgr_add_dev(struct vur_port_mgr *pm, struct vur_dev *dev, bool admin_up);

/* A device about to be deleted: no speed is given to it after this returns. */
void vur_port_mgr_del_dev(struct vur_port_mgr *pm, struct vur_dev *dev);

/*
 * Runtime actions (admin RPC), on the control thread. Each applies at once
 * and returns 0, -ENODEV for an unknown device or member, or what the PMD
 * said (-ENOTSUP when it cannot set its link).
 */
int vur_port_mgr_set_dev_link(struct vur_port_mgr *pm, const char *path, bool up);
int vur_port_mgr_set_member_link(struct vur_port_mgr *pm, const char *member, bool up);
int vur_port_mgr_set_member_speed(struct vur_port_mgr *pm, const char *member, uint32_t mbps);

/* A device's port view, for management. Returns 0 or -ENODEV. */
int vur_port_mgr_dev_state(struct vur_port_mgr *pm, const char *path, bool *admin_up,
		struct vur_speed_result *speed);

/* Copy of the uplinks as last read, for management (under the lock). */
void vur_port_mgr_uplinks(struct vur_port_mgr *pm, struct vur_uplinks *out);

#endif /* VUR_PORT_MGR_H */
