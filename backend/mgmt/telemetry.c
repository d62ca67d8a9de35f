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

static int
show_device(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vur_dev_info info;

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
