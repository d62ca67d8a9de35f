/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "common/dpdk_compat.h"
#include "mgmt/telemetry.h"
#include "port/port_mgr.h"
#include "vhost/vdev.h"

/*
 * DPDK 22.11 telemetry cannot unregister a command: the port manager is
 * read under this lock, and forgotten under it before it stops.
 */
static pthread_mutex_t pm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vur_port_mgr *port_mgr;

static int
list_devices(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vur_dev_info info;
	unsigned int n;

	(void)cmd;
	(void)params;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (n = 0; vur_dev_info(NULL, n, &info) == 0; n++)
		rte_tel_data_add_array_string(d, info.path);
	return 0;
}

/* Telemetry keys of the control queue's refusal reasons. */
static const char *const reject_keys[VUR_CTRL_REJ_COUNT] = {
	[VUR_CTRL_REJ_NO_ACK] = "ctrl_rej_no_ack",
	[VUR_CTRL_REJ_SHORT_HDR] = "ctrl_rej_short_header",
	[VUR_CTRL_REJ_UNKNOWN] = "ctrl_rej_unknown_command",
	[VUR_CTRL_REJ_FEATURE] = "ctrl_rej_feature",
	[VUR_CTRL_REJ_CMD_LEN] = "ctrl_rej_command_length",
	[VUR_CTRL_REJ_ACK_LEN] = "ctrl_rej_ack_length",
	[VUR_CTRL_REJ_HANDLER] = "ctrl_rej_refused",
};

static void
add_admin_link(struct rte_tel_data *d, const char *path)
{
	struct vur_speed_result sp;
	bool admin_up;

	pthread_mutex_lock(&pm_lock);
	if (port_mgr != NULL && vur_port_mgr_dev_state(port_mgr, path, &admin_up, &sp) == 0)
		rte_tel_data_add_dict_int(d, "admin_link_up", admin_up);
	pthread_mutex_unlock(&pm_lock);
}

static int
show_device(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vur_dev_info info;
	unsigned int r;

	(void)cmd;
	if (params == NULL || vur_dev_info(params, 0, &info) != 0)
		return -EINVAL; /* telemetry answers null: no such device */
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "path", info.path);
	rte_tel_data_add_dict_int(d, "vid", info.vid);
	rte_tel_data_add_dict_int(d, "started", info.started);
	rte_tel_data_add_dict_uint(d, "features_offered", info.offered);
	rte_tel_data_add_dict_uint(d, "features_negotiated", info.negotiated);
	rte_tel_data_add_dict_int(d, "link_up", info.link_up);
	rte_tel_data_add_dict_uint(d, "port_speed_100mbps", info.speed);
	rte_tel_data_add_dict_uint(d, "port_speed_flags", info.speed_flags);
	rte_tel_data_add_dict_int(d, "active_members", info.active_members);
	rte_tel_data_add_dict_int(d, "total_members", info.total_members);
	rte_tel_data_add_dict_uint(d, "config_changes", info.config_changes);
	rte_tel_data_add_dict_int(d, "data_path", info.data_path);
	add_admin_link(d, info.path);
	rte_tel_data_add_dict_uint(d, "pds", info.rdma.pds);
	rte_tel_data_add_dict_uint(d, "mrs", info.rdma.mrs);
	rte_tel_data_add_dict_uint(d, "mws", info.rdma.mws);
	rte_tel_data_add_dict_uint(d, "cqs", info.rdma.cqs);
	rte_tel_data_add_dict_uint(d, "qps", info.rdma.qps);
	rte_tel_data_add_dict_uint(d, "ahs", info.rdma.ahs);
	rte_tel_data_add_dict_uint(d, "srqs", info.rdma.srqs);
	rte_tel_data_add_dict_uint(d, "gids", info.rdma.gids);
	rte_tel_data_add_dict_uint(d, "mcast_groups", info.rdma.mcast_grps);
	rte_tel_data_add_dict_uint(d, "mcast_attached", info.rdma.mcast_attached);
	rte_tel_data_add_dict_uint(d, "ctrl_requests", info.ctrl.requests);
	rte_tel_data_add_dict_uint(d, "ctrl_errors", info.ctrl.errors);
	rte_tel_data_add_dict_uint(d, "ctrl_bad_chains", info.ctrl.bad_chains);
	rte_tel_data_add_dict_uint(d, "ctrl_ring_broken", info.ctrl.broken);
	for (r = VUR_CTRL_REJ_NONE + 1; r < VUR_CTRL_REJ_COUNT; r++)
		rte_tel_data_add_dict_uint(d, reject_keys[r], info.ctrl.rejects[r]);
	vur_telemetry_add_eth(d, &info.eth);
	vur_telemetry_add_rx_filter(d, &info.rx_filter);
	vur_telemetry_add_rdma(d, &info.rdma_tp);
	rte_tel_data_add_dict_uint(d, "rdma_paced_qps", info.rdma_rates.paced_qps);
	rte_tel_data_add_dict_uint(d, "rdma_paced_mbps", info.rdma_rates.paced_mbps);
	/* rings (issue 28): events waiting for an event queue buffer now */
	rte_tel_data_add_dict_uint(d, "rdma_ring_events_pending", info.ring_events_pending);
	rte_tel_data_add_dict_uint(d, "rdma_ring_queues", info.ring_queues);
	/* allowed addresses (issue 25): ADD_GIDs of others refused */
	rte_tel_data_add_dict_uint(d, "refused_gids", info.policy.refused_gids);
	/* anti-spoofing (issue 25); its drops are eth_drop_tx_spoofed_mac and _ip */
	rte_tel_data_add_dict_uint(d, "mac_pinned", info.policy.mac_pinned);
	rte_tel_data_add_dict_uint(d, "refused_macs", info.policy.refused_macs);
	/* access VLAN (issue 25): 0 none; tagged frames dropped: eth_drop_tx_tagged */
	rte_tel_data_add_dict_uint(d, "vlan", info.vlan);
	/* quotas (issue 25): quota_KIND (0: none), quota_KIND_used, quota_KIND_refused */
	for (int k = 0; k < VUR_QUOTA_N; k++) {
		char key[48];

		snprintf(key, sizeof(key), "quota_%s", vur_rdma_quota_name(k));
		rte_tel_data_add_dict_uint(d, key, info.quota.max[k]);
		snprintf(key, sizeof(key), "quota_%s_used", vur_rdma_quota_name(k));
		rte_tel_data_add_dict_uint(d, key, info.quota_used[k]);
		snprintf(key, sizeof(key), "quota_%s_refused", vur_rdma_quota_name(k));
		rte_tel_data_add_dict_uint(d, key, info.quota.refused[k]);
	}
	/* transmit limits (issue 25): 0 unlimited; RDMA waits, Ethernet frames are dropped */
	rte_tel_data_add_dict_uint(d, "rate_bps", info.rate_bps);
	rte_tel_data_add_dict_uint(d, "rate_pps", info.rate_pps);
	rte_tel_data_add_dict_uint(d, "rate_deferred", info.rate.deferred);
	rte_tel_data_add_dict_uint(d, "rate_dropped", info.rate.dropped);
	rte_tel_data_add_dict_uint(d, "rate_dropped_bytes", info.rate.dropped_bytes);
	return 0;
}

/* One dict per member: "uplink/member" -> link state and speeds. */
static int
show_uplinks(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static struct vur_uplinks u; /* large; telemetry calls one at a time */
	struct rte_tel_data *m;
	char key[RTE_TEL_MAX_STRING_LEN];
	uint64_t kernel_events = 0, link_events = 0;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&pm_lock);
	if (port_mgr != NULL) {
		vur_port_mgr_uplinks(port_mgr, &u);
		/* counted on the control thread; a torn read cannot happen on 64-bit */
		link_events = __atomic_load_n(&port_mgr->link_events, __ATOMIC_RELAXED);
		kernel_events = __atomic_load_n(&port_mgr->kernel_link_events, __ATOMIC_RELAXED);
	} else {
		u.n_members = 0;
	}
	pthread_mutex_unlock(&pm_lock);
	rte_tel_data_add_dict_uint(d, "link_events", link_events);
	rte_tel_data_add_dict_uint(d, "kernel_link_events", kernel_events);
	for (uint16_t i = 0; i < u.n_members; i++) {
		const struct vur_member *mb = &u.members[i];

		m = rte_tel_data_alloc();
		if (m == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(m);
		rte_tel_data_add_dict_string(m, "uplink", u.uplinks[mb->uplink].name);
		rte_tel_data_add_dict_int(m, "link_up", mb->link.link_status == RTE_ETH_LINK_UP);
		rte_tel_data_add_dict_uint(m, "reported_mbps", mb->link.link_speed);
		rte_tel_data_add_dict_uint(m, "nominal_mbps", mb->nominal_mbps);
		rte_tel_data_add_dict_int(m, "lsc", mb->lsc);
		rte_tel_data_add_dict_uint(m, "if_index", mb->if_index);
		snprintf(key, sizeof(key), "%s", mb->name);
		rte_tel_data_add_dict_container(d, key, m, 0);
	}
	return 0;
}

void
vur_telemetry_unregister(void)
{
	pthread_mutex_lock(&pm_lock);
	port_mgr = NULL;
	pthread_mutex_unlock(&pm_lock);
	vur_telemetry_unregister_switch();
}

int
vur_telemetry_register(struct vur_port_mgr *pm)
{
	pthread_mutex_lock(&pm_lock);
	port_mgr = pm;
	pthread_mutex_unlock(&pm_lock);
	if (rte_telemetry_register_cmd("/vur/uplinks", show_uplinks,
			    "Uplink members: link state and speeds; link event counts. No "
			    "parameters") != 0 ||
			rte_telemetry_register_cmd("/vur/devices", list_devices,
					"Socket paths of the devices. No parameters") != 0 ||
			rte_telemetry_register_cmd("/vur/device", show_device,
					"One device's state and counters. Parameter: socket "
					"path") != 0 ||
			rte_telemetry_register_cmd("/vur/qps", vur_telemetry_show_qps,
					"One device's QPs: state, PSNs, window and counters. "
					"Parameters: socket path[,QPN]") != 0)
		return -EINVAL;
	return 0;
}
