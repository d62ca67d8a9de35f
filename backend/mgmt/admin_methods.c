/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin RPC's methods. Parameters are checked strictly (unknown keys,
 * wrong types and out-of-range numbers are refused with INVALID_PARAMS);
 * unknown devices and members get -ENODEV, links a PMD cannot set -ENOTSUP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_eth_bond.h>

#include "mgmt/admin_methods.h"
#include "port/port_mgr.h"
#include "rdma/qp_state.h"
#include "vhost/vdev.h"

json_t *
vur_admin_error(int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return json_pack("{s:i, s:s}", "code", code, "message", msg);
}

static json_t *
speed_flags(uint32_t flags)
{
	json_t *a = json_array();

	if (flags & VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED)
		json_array_append_new(a, json_string("aggregated"));
	if (flags & VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK)
		json_array_append_new(a, json_string("loopback"));
	if (flags & VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN)
		json_array_append_new(a, json_string("link_down"));
	return a;
}

static json_t *
device_json(struct vur_port_mgr *pm, const struct vur_dev_info *info)
{
	struct vur_speed_result sp;
	bool admin_up = true;

	if (vur_port_mgr_dev_state(pm, info->path, &admin_up, &sp) != 0)
		admin_up = true; /* a device the port manager does not know: never set */
	return json_pack("{s:s, s:b, s:b, s:s, s:s, s:I, s:I, s:o, s:i, s:i, s:b, s:I}", "device",
			info->path, "connected", info->vid >= 0, "started", info->started,
			"admin_link", admin_up ? "up" : "down", "link",
			info->link_up ? "up" : "down", "speed_mbps",
			(json_int_t)(info->speed * VIRTIO_NET_ROCE_SPEED_UNIT_MBPS), "port_speed",
			(json_int_t)info->speed, "flags", speed_flags(info->speed_flags),
			"active_members", info->active_members, "total_members",
			info->total_members, "port_speed_negotiated",
			(int)((info->negotiated >> VIRTIO_NET_F_ROCE_PORT_SPEED) & 1),
			"config_changes", (json_int_t)info->config_changes);
}

static json_t *
member_json(const struct vur_member *m)
{
	bool up = m->link.link_status == RTE_ETH_LINK_UP;

	return json_pack("{s:s, s:i, s:s, s:I, s:I, s:s}", "name", m->name, "port_id", m->port_id,
			"link", up ? "up" : "down", "reported_mbps", (json_int_t)m->link.link_speed,
			"nominal_mbps", (json_int_t)m->nominal_mbps, "link_events",
			m->lsc ? "lsc+poll" : "poll");
}

static json_t *
uplink_json(const struct vur_uplinks *u, const struct vur_uplink *up)
{
	json_t *members = json_array();

	for (uint16_t i = 0; i < up->n_members; i++)
		json_array_append_new(members, member_json(&u->members[up->first_member + i]));
	return json_pack("{s:s, s:i, s:s, s:i, s:s, s:o}", "name", up->name, "port_id", up->port_id,
			"type", up->bond ? "bond" : "port", "bond_mode",
			up->bond ? up->bond_mode : -1, "receive",
			up->rx_intr ? "interrupts" : "polled", "members", members);
}

static int
get_devices(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	struct vur_dev_info info;
	const char *only = NULL;
	json_error_t err;
	json_t *list;

	if (params != NULL &&
			json_unpack_ex(params, &err, JSON_STRICT, "{s?s}", "device", &only) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s", err.text);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (only != NULL) {
		if (vur_dev_info(only, 0, &info) != 0) {
			*error = vur_admin_error(-ENODEV, "no device %s", only);
			return -ENODEV;
		}
		*result = json_pack("[o]", device_json(pm, &info));
		return 0;
	}
	list = json_array();
	for (unsigned int n = 0; vur_dev_info(NULL, n, &info) == 0; n++)
		json_array_append_new(list, device_json(pm, &info));
	*result = list;
	return 0;
}

static int
get_uplinks(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	static struct vur_uplinks u; /* large; the control thread is the only caller */
	json_t *list;

	if (params != NULL && json_object_size(params) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "get_uplinks takes no parameters");
		return VUR_RPC_INVALID_PARAMS;
	}
	vur_port_mgr_uplinks(pm, &u);
	list = json_array();
	for (uint16_t i = 0; i < u.n_uplinks; i++)
		json_array_append_new(list, uplink_json(&u, &u.uplinks[i]));
	*result = list;
	return 0;
}

/* {"device": PATH, "up": BOOL} -> the device as get_devices shows it. */
static int
set_device_link(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	struct vur_dev_info info;
	const char *path;
	json_error_t err;
	int up;

	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s:b}", "device", &path,
					"up", &up) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"expected {\"device\": PATH, "
				"\"up\": BOOL}");
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_port_mgr_set_dev_link(pm, path, up) != 0 || vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = device_json(pm, &info);
	return 0;
}

static int
member_result(struct vur_port_mgr *pm, const char *name, json_t **result)
{
	static struct vur_uplinks u;
	struct vur_member *m;

	vur_port_mgr_uplinks(pm, &u);
	m = vur_uplinks_member(&u, name);
	*result = m != NULL ? member_json(m) : json_null();
	return 0;
}

/* {"member": NAME, "up": BOOL}: through rte_eth_dev_set_link_up/down. */
static int
set_member_link(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	const char *name;
	json_error_t err;
	int up, ret;

	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s:b}", "member", &name,
					"up", &up) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"expected {\"member\": NAME, "
				"\"up\": BOOL}");
		return VUR_RPC_INVALID_PARAMS;
	}
	ret = vur_port_mgr_set_member_link(pm, name, up);
	if (ret == -ENODEV) {
		*error = vur_admin_error(ret, "no uplink member %s", name);
		return ret;
	}
	if (ret != 0) {
		*error = vur_admin_error(ret, "%s: the driver cannot set its link %s: %s", name,
				up ? "up" : "down", strerror(-ret));
		return ret;
	}
	return member_result(pm, name, result);
}

/* {"member": NAME, "speed_mbps": N}: N = 0 returns to the link's reported speed. */
static int
set_member_speed(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	const char *name;
	json_int_t mbps;
	json_error_t err;

	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s:I}", "member", &name,
					"speed_mbps", &mbps) != 0 ||
			mbps < 0 || mbps > UINT32_MAX) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"expected {\"member\": NAME, \"speed_mbps\": 0..%u}", UINT32_MAX);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_port_mgr_set_member_speed(pm, name, mbps) != 0) {
		*error = vur_admin_error(-ENODEV, "no uplink member %s", name);
		return -ENODEV;
	}
	return member_result(pm, name, result);
}

static json_t *
qp_json(const struct vur_tp_qp_info *q)
{
	json_t *counters = json_object(), *o;

	for (unsigned int i = 0; i < vur_tp_qp_stat_nfields; i++)
		json_object_set_new(counters, vur_tp_qp_stat_fields[i].name,
				json_integer((json_int_t)vur_tp_qp_stat(&q->stats, i)));
	o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			"qpn", (json_int_t)q->qpn, "type", vur_tp_qp_type_name(q->type), "state",
			vur_qp_state_name(q->state), "dest_qpn", (json_int_t)q->dest_qpn,
			"data_path", (json_int_t)q->data_path, "sq_psn", (json_int_t)q->sq_psn,
			"rq_psn", (json_int_t)q->rq_psn, "outstanding", (json_int_t)q->outstanding,
			"reads_out", (json_int_t)q->reads_out, "una", (json_int_t)q->una, "window",
			(json_int_t)q->window, "rate_mbps", (json_int_t)q->rate_mbps, "srtt_us",
			(json_int_t)q->srtt_us, "counters", counters);
	/* its layout (issue 28): rings in driver memory or virtqueues */
	json_object_set_new(o, "layout", json_string(q->rings ? "rings" : "virtqueues"));
	json_object_set_new(o, "sq_entries", json_integer(q->sq_entries));
	if (q->rings) {
		json_object_set_new(o, "dbq", json_integer(q->dbq));
		json_object_set_new(o, "active", json_boolean(q->active));
	}
	return o;
}

/* {"device": PATH} -> the device's bound QPs, lowest number first. */
static int
get_qps(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	/* the control thread is the only caller */
	static struct vur_tp_qp_info qps[VUR_DEV_MAX_QPS];
	const char *path;
	json_error_t err;
	json_t *list;
	int n;

	(void)pm;
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s}", "device", &path) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "expected {\"device\": PATH}");
		return VUR_RPC_INVALID_PARAMS;
	}
	n = vur_dev_qps(path, qps, VUR_DEV_MAX_QPS);
	if (n < 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	list = json_array();
	for (int i = 0; i < n && i < VUR_DEV_MAX_QPS; i++)
		json_array_append_new(list, qp_json(&qps[i]));
	*result = list;
	return 0;
}

static int rpc_get_methods(
		struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error);

static const struct {
	const char *name;
	int (*fn)(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error);
} methods[] = {
	{ "rpc_get_methods", rpc_get_methods },
	{ "get_devices", get_devices },
	{ "get_uplinks", get_uplinks },
	{ "get_qps", get_qps },
	{ "set_device_link", set_device_link },
	{ "set_member_link", set_member_link },
	{ "set_member_speed", set_member_speed },
};

static int
rpc_get_methods(struct vur_port_mgr *pm, json_t *params, json_t **result, json_t **error)
{
	(void)pm;
	(void)params;
	(void)error;
	*result = json_array();
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		json_array_append_new(*result, json_string(methods[i].name));
	return 0;
}

int
vur_admin_call(struct vur_port_mgr *pm, const char *method, json_t *params, json_t **result,
		json_t **error)
{
	*result = NULL;
	*error = NULL;
	if (params != NULL && !json_is_object(params)) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "params must be an object");
		return VUR_RPC_INVALID_PARAMS;
	}
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, method) == 0)
			return methods[i].fn(pm, params, result, error);
	*error = vur_admin_error(VUR_RPC_METHOD_NOT_FOUND, "no method %s", method);
	return VUR_RPC_METHOD_NOT_FOUND;
}
