/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>

#include <rte_telemetry.h>

#include "mgmt/telemetry.h"
#include "vhost/vdev.h"

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
	rte_tel_data_add_dict_u64(d, "features_offered", info.offered);
	rte_tel_data_add_dict_u64(d, "features_negotiated", info.negotiated);
	rte_tel_data_add_dict_int(d, "link_up", info.link_up);
	rte_tel_data_add_dict_u64(d, "port_speed_100mbps", info.speed);
	rte_tel_data_add_dict_u64(d, "pds", info.rdma.pds);
	rte_tel_data_add_dict_u64(d, "mrs", info.rdma.mrs);
	rte_tel_data_add_dict_u64(d, "cqs", info.rdma.cqs);
	rte_tel_data_add_dict_u64(d, "qps", info.rdma.qps);
	rte_tel_data_add_dict_u64(d, "ahs", info.rdma.ahs);
	rte_tel_data_add_dict_u64(d, "gids", info.rdma.gids);
	rte_tel_data_add_dict_u64(d, "ctrl_requests", info.ctrl.requests);
	rte_tel_data_add_dict_u64(d, "ctrl_errors", info.ctrl.errors);
	rte_tel_data_add_dict_u64(d, "ctrl_bad_chains", info.ctrl.bad_chains);
	rte_tel_data_add_dict_u64(d, "ctrl_ring_broken", info.ctrl.broken);
	for (r = VUR_CTRL_REJ_NONE + 1; r < VUR_CTRL_REJ_COUNT; r++)
		rte_tel_data_add_dict_u64(d, reject_keys[r], info.ctrl.rejects[r]);
	return 0;
}

int
vur_telemetry_register(void)
{
	if (rte_telemetry_register_cmd("/vur/devices", list_devices,
			    "Socket paths of the devices. No parameters") != 0 ||
			rte_telemetry_register_cmd("/vur/device", show_device,
					"One device's state and counters. Parameter: socket "
					"path") != 0)
		return -EINVAL;
	return 0;
}
