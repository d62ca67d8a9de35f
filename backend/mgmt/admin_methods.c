/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin RPC's methods. Parameters are checked strictly (unknown keys,
 * wrong types and out-of-range numbers are refused with INVALID_PARAMS);
 * unknown devices and members get -ENODEV, links a PMD cannot set -ENOTSUP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_eth_bond.h>

#include "mgmt/admin_methods.h"
#include "mgmt/admin_rate.h"
#include "mgmt/admin_vlan.h"
#include "mgmt/admin_rpc.h"
#include "mgmt/dev_mgr.h"
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

/* What the device was created with: enough to create it again. */
static void
settings_json(json_t *d, const struct vur_dev_info *info)
{
	char mac[18];

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", info->mac[0], info->mac[1],
			info->mac[2], info->mac[3], info->mac[4], info->mac[5]);
	json_object_set_new(d, "client", json_boolean(info->client));
	json_object_set_new(d, "mac", json_string(mac));
	json_object_set_new(d, "mtu", json_integer(info->mtu));
	json_object_set_new(d, "max_qps", json_integer(info->max_qps));
	json_object_set_new(d, "max_cqs", json_integer(info->max_cqs));
	json_object_set_new(d, "roce",
			json_boolean(info->offered &
					((1ULL << VIRTIO_NET_F_ROCE) |
							(1ULL << VIRTIO_NET_F_ROCE_RFC2))));
	json_object_set_new(d, "rfc2_numbering",
			json_boolean(info->offered & (1ULL << VIRTIO_NET_F_ROCE_RFC2)));
	json_object_set_new(d, "port_speed_feature",
			json_boolean(info->offered & (1ULL << VIRTIO_NET_F_ROCE_PORT_SPEED)));
}

/* {"qps": {"max": N, "used": N, "refused": N}, ...}; max 0: no quota. */
static json_t *
quota_json(const struct vur_dev_info *info)
{
	json_t *o = json_object();

	for (int k = 0; k < VUR_QUOTA_N; k++)
		json_object_set_new(o, vur_rdma_quota_name(k),
				json_pack("{s:I, s:I, s:I}", "max", (json_int_t)info->quota.max[k],
						"used", (json_int_t)info->quota_used[k], "refused",
						(json_int_t)info->quota.refused[k]));
	return o;
}

/*
 * @q: {"qps"?: N, "cqs"?: N, "mrs"?: N, "pinned_bytes"?: N, "wrs"?: N}
 * over @max (what is left out stays). Returns 0 or -EINVAL with @why.
 */
static int
parse_quota(json_t *q, uint64_t max[VUR_QUOTA_N], char *why, size_t len)
{
	const char *key;
	json_t *v;
	int k;

	if (!json_is_object(q)) {
		snprintf(why, len, "quota: an object");
		return -EINVAL;
	}
	json_object_foreach(q, key, v)
	{
		for (k = 0; k < VUR_QUOTA_N; k++)
			if (strcmp(key, vur_rdma_quota_name(k)) == 0)
				break;
		if (k == VUR_QUOTA_N) {
			snprintf(why, len,
					"quota: no quota \"%s\" (qps, cqs, mrs, pinned_bytes, wrs)",
					key);
			return -EINVAL;
		}
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(why, len, "quota %s: a number >= 0 (0: none)", key);
			return -EINVAL;
		}
		max[k] = (uint64_t)json_integer_value(v);
	}
	return 0;
}

/* ["10.0.0.7", "fd00::1"]: the allowed addresses, [] when any is. */
static json_t *
addresses_json(const struct vur_addr_policy *p)
{
	char text[VUR_ADDR_TEXT_LEN];
	json_t *a = json_array();

	for (uint32_t i = 0; i < p->n; i++) {
		vur_addr_format_gid(p->gids[i], text, sizeof(text));
		json_array_append_new(a, json_string(text));
	}
	return a;
}

/* @list: an array of IPv4/IPv6 address strings, into @p. Returns 0 or -EINVAL with @why. */
static int
parse_addresses(json_t *list, struct vur_addr_policy *p, char *why, size_t len)
{
	const char *texts[VUR_ADDR_POLICY_MAX + 1];
	size_t i, n = json_is_array(list) ? json_array_size(list) : 0;

	if (!json_is_array(list) || n > VUR_ADDR_POLICY_MAX) {
		snprintf(why, len, "allowed_ips: an array of at most %d IPv4/IPv6 addresses",
				VUR_ADDR_POLICY_MAX);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		texts[i] = json_string_value(json_array_get(list, i));
		if (texts[i] == NULL) {
			snprintf(why, len, "allowed_ips: strings only");
			return -EINVAL;
		}
	}
	return vur_addr_policy_set(p, texts, n, why, len);
}

/* Anti-spoofing (net/net_antispoof.h): the pinned MAC and what the policy refused. */
static void
antispoof_json(json_t *d, const struct vur_dev_info *info)
{
	json_object_set_new(d, "mac_pinned", json_boolean(info->policy.mac_pinned));
	json_object_set_new(d, "refused_macs", json_integer((json_int_t)info->policy.refused_macs));
	json_object_set_new(d, "spoofed_mac_drops",
			json_integer((json_int_t)info->eth.drops[VUR_NET_DROP_TX_SPOOFED_MAC]));
	json_object_set_new(d, "spoofed_ip_drops",
			json_integer((json_int_t)info->eth.drops[VUR_NET_DROP_TX_SPOOFED_IP]));
}

static json_t *
device_json(struct vur_port_mgr *pm, const struct vur_dev_info *info)
{
	struct vur_speed_result sp;
	bool admin_up = true;
	json_t *d;

	if (pm == NULL || vur_port_mgr_dev_state(pm, info->path, &admin_up, &sp) != 0)
		admin_up = true; /* a device the port manager does not know: never set */
	d = json_pack("{s:s, s:b, s:b, s:s, s:s, s:I, s:I, s:o, s:i, s:i, s:b, s:I}", "device",
			info->path, "connected", info->vid >= 0, "started", info->started,
			"admin_link", admin_up ? "up" : "down", "link",
			info->link_up ? "up" : "down", "speed_mbps",
			(json_int_t)(info->speed * VIRTIO_NET_ROCE_SPEED_UNIT_MBPS), "port_speed",
			(json_int_t)info->speed, "flags", speed_flags(info->speed_flags),
			"active_members", info->active_members, "total_members",
			info->total_members, "port_speed_negotiated",
			(int)((info->negotiated >> VIRTIO_NET_F_ROCE_PORT_SPEED) & 1),
			"config_changes", (json_int_t)info->config_changes);
	if (d != NULL) {
		settings_json(d, info);
		json_object_set_new(d, "quota", quota_json(info));
		json_object_set_new(d, "rate", vur_admin_rate_json(info));
		json_object_set_new(d, "allowed_ips", addresses_json(&info->policy));
		json_object_set_new(d, "refused_gids",
				json_integer((json_int_t)info->policy.refused_gids));
		antispoof_json(d, info);
		vur_admin_vlan_json(d, info);
	}
	return d;
}

static json_t *
member_json(const struct vur_member *m)
{
	bool up = m->link.link_status == RTE_ETH_LINK_UP;

	/* how its changes arrive: a kernel interface's from rtnetlink (kernel_link.h) */
	const char *events = m->if_index ? "rtnetlink+poll" : m->lsc ? "lsc+poll" : "poll";

	return json_pack("{s:s, s:i, s:s, s:I, s:I, s:s, s:I}", "name", m->name, "port_id",
			m->port_id, "link", up ? "up" : "down", "reported_mbps",
			(json_int_t)m->link.link_speed, "nominal_mbps", (json_int_t)m->nominal_mbps,
			"link_events", events, "if_index", (json_int_t)m->if_index);
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
get_devices(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
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
		*result = json_pack("[o]", device_json(a->pm, &info));
		return 0;
	}
	list = json_array();
	for (unsigned int n = 0; vur_dev_info(NULL, n, &info) == 0; n++)
		json_array_append_new(list, device_json(a->pm, &info));
	*result = list;
	return 0;
}

static int
get_uplinks(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	static struct vur_uplinks u; /* large; the control thread is the only caller */
	json_t *list;

	if (params != NULL && json_object_size(params) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "get_uplinks takes no parameters");
		return VUR_RPC_INVALID_PARAMS;
	}
	vur_port_mgr_uplinks(a->pm, &u);
	list = json_array();
	for (uint16_t i = 0; i < u.n_uplinks; i++)
		json_array_append_new(list, uplink_json(&u, &u.uplinks[i]));
	*result = list;
	return 0;
}

/* {"device": PATH, "up": BOOL} -> the device as get_devices shows it. */
static int
set_device_link(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
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
	if (vur_port_mgr_set_dev_link(a->pm, path, up) != 0 || vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = device_json(a->pm, &info);
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
set_member_link(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
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
	ret = vur_port_mgr_set_member_link(a->pm, name, up);
	if (ret == -ENODEV) {
		*error = vur_admin_error(ret, "no uplink member %s", name);
		return ret;
	}
	if (ret != 0) {
		*error = vur_admin_error(ret, "%s: the driver cannot set its link %s: %s", name,
				up ? "up" : "down", strerror(-ret));
		return ret;
	}
	return member_result(a->pm, name, result);
}

/* {"member": NAME, "speed_mbps": N}: N = 0 returns to the link's reported speed. */
static int
set_member_speed(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
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
	if (vur_port_mgr_set_member_speed(a->pm, name, mbps) != 0) {
		*error = vur_admin_error(-ENODEV, "no uplink member %s", name);
		return -ENODEV;
	}
	return member_result(a->pm, name, result);
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
get_qps(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	/* the control thread is the only caller */
	static struct vur_tp_qp_info qps[VUR_DEV_MAX_QPS];
	const char *path;
	json_error_t err;
	json_t *list;
	int n;

	(void)a;
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

static int
parse_mac(const char *text, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (strlen(text) != 17 ||
			sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
					&b[5], &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = b[i];
	return 0;
}

#define CREATE_USAGE                                                                           \
	"expected {\"device\": ABSOLUTE_PATH, \"client\"?: BOOL, \"mac\"?: "                   \
	"\"XX:XX:XX:XX:XX:XX\", \"mtu\"?: N, \"max_qps\"?: N, \"max_cqs\"?: N, \"roce\"?: "    \
	"BOOL, \"port_speed_feature\"?: BOOL, \"rfc2_numbering\"?: BOOL, \"up\"?: BOOL, "      \
	"\"quota\"?: {\"qps\"|\"cqs\"|\"mrs\"|\"pinned_bytes\"|\"wrs\": N}, "                  \
	"\"allowed_ips\"?: [IP, ...], \"mac_pinned\"?: BOOL, \"rate\"?: " VUR_ADMIN_RATE_USAGE \
	", \"vlan\"?: " VUR_ADMIN_VLAN_USAGE "}"

/*
 * {"device": PATH, and optionally "client", "mac", "mtu", "max_qps",
 * "max_cqs", "roce", "port_speed_feature", "rfc2_numbering", "up", "quota",
 * "allowed_ips", "mac_pinned", "rate", "vlan"} -> the new
 * device as get_devices shows it. What is left out is the command line's.
 */
static int
create_device(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	/* left out: no JSON number a client sends is taken as INT64_MIN here */
	const json_int_t not_given = INT64_MIN;
	json_int_t mtu = not_given, qps = not_given, cqs = not_given;
	int client = -1, roce = -1, speed = -1, rfc2 = -1, up = 1, pinned = 0;
	struct vur_dev_info info;
	const char *path, *mac = NULL;
	json_t *quota = NULL, *ips = NULL, *rate = NULL, *vlan = NULL;
	struct vur_dev_spec s;
	json_error_t err;
	char why[256];
	int ret;

	if (a->dm == NULL) {
		*error = vur_admin_error(-ENOTSUP, "this backend creates no device at runtime");
		return -ENOTSUP;
	}
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT,
					"{s:s, s?b, s?s, s?I, s?I, s?I, s?b, s?b, s?b, s?b, s?o, "
					"s?o, s?b, s?o, s?o}",
					"device", &path, "client", &client, "mac", &mac, "mtu",
					&mtu, "max_qps", &qps, "max_cqs", &cqs, "roce", &roce,
					"port_speed_feature", &speed, "rfc2_numbering", &rfc2, "up",
					&up, "quota", &quota, "allowed_ips", &ips, "mac_pinned",
					&pinned, "rate", &rate, "vlan", &vlan) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s: " CREATE_USAGE,
				params == NULL ? "no params" : err.text);
		return VUR_RPC_INVALID_PARAMS;
	}
	s = a->dm->defaults;
	if (path[0] != '/' || strlen(path) >= sizeof(s.path)) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"device: an absolute socket path, not \"%s\"", path);
		return VUR_RPC_INVALID_PARAMS;
	}
	strcpy(s.path, path);
	if (client >= 0)
		s.client = client;
	if (rfc2 >= 0)
		s.rfc2_numbering = rfc2;
	if (roce >= 0)
		s.no_roce = !roce;
	if (speed >= 0)
		s.port_speed = speed;
	s.admin_down = !up;
	why[0] = '\0';
	if (mac != NULL && parse_mac(mac, s.mac) != 0)
		snprintf(why, sizeof(why), "mac \"%s\": expected XX:XX:XX:XX:XX:XX", mac);
	else if (mtu != not_given && (mtu < VUR_DEV_MTU_MIN || mtu > VUR_DEV_MTU_MAX))
		snprintf(why, sizeof(why), "mtu %lld: expected %d..%d", (long long)mtu,
				VUR_DEV_MTU_MIN, VUR_DEV_MTU_MAX);
	else if ((qps != not_given && (qps < 0 || qps > UINT32_MAX)) ||
			(cqs != not_given && (cqs < 0 || cqs > UINT32_MAX)))
		snprintf(why, sizeof(why), "max_qps and max_cqs are positive numbers");
	else if (quota != NULL)
		parse_quota(quota, s.quota, why, sizeof(why));
	if (why[0] == '\0' && ips != NULL)
		parse_addresses(ips, &s.policy, why, sizeof(why));
	if (why[0] == '\0' && rate != NULL)
		vur_admin_parse_rate(rate, &s.rate_bps, &s.rate_pps, why, sizeof(why));
	if (why[0] == '\0' && vlan != NULL)
		vur_admin_parse_vlan(vlan, &s.vlan, why, sizeof(why));
	if (why[0] != '\0') {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s", why);
		return VUR_RPC_INVALID_PARAMS;
	}
	s.mac_given = mac != NULL;
	s.mac_source = "admin RPC";
	s.policy.mac_pinned = pinned; /* the MAC it gets, given or derived */
	if (mtu != not_given)
		s.mtu = mtu;
	if (qps != not_given)
		s.max_qps = qps;
	if (cqs != not_given)
		s.max_cqs = cqs;
	ret = vur_dev_mgr_create(a->dm, &s, why, sizeof(why));
	if (ret == -EINVAL)
		ret = VUR_RPC_INVALID_PARAMS;
	if (ret != 0) {
		*error = vur_admin_error(ret, "%s", why);
		return ret;
	}
	if (vur_dev_info(path, 0, &info) != 0) { /* never: this thread deletes devices */
		*result = json_true();
		return 0;
	}
	*result = device_json(a->pm, &info);
	return 0;
}

/* {"device": PATH} -> true, once its frontend is gone and everything it had is freed. */
static int
delete_device(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	const char *path;
	json_error_t err;

	if (a->dm == NULL) {
		*error = vur_admin_error(-ENOTSUP, "this backend deletes no device at runtime");
		return -ENOTSUP;
	}
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s}", "device", &path) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "expected {\"device\": PATH}");
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_mgr_delete(a->dm, path) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = json_true();
	return 0;
}

/*
 * {"device": PATH, "quota": {"qps"?: N, "cqs"?: N, "mrs"?: N,
 * "pinned_bytes"?: N, "wrs"?: N}} -> the device as get_devices shows it.
 * What is left out stays; 0 removes a quota; live objects stay.
 */
static int
set_device_quota(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	struct vur_dev_info info;
	const char *path;
	json_error_t err;
	json_t *quota;
	char why[256];

	if (a->dm == NULL) {
		*error = vur_admin_error(-ENOTSUP, "this backend manages no device at runtime");
		return -ENOTSUP;
	}
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s:o}", "device", &path,
					"quota", &quota) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"expected {\"device\": PATH, \"quota\": {\"qps\"|\"cqs\"|\"mrs\"|"
				"\"pinned_bytes\"|\"wrs\": N}}");
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	if (parse_quota(quota, info.quota.max, why, sizeof(why)) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s", why);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_mgr_set_quota(a->dm, path, info.quota.max) != 0 ||
			vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = device_json(a->pm, &info);
	return 0;
}

#define ADDRESSES_USAGE                                                                    \
	"expected {\"device\": PATH, \"allowed_ips\"?: [IP, ...], \"mac_pinned\"?: BOOL} " \
	"(one of them at least)"

/*
 * {"device": PATH, "allowed_ips"?: [IP, ...], "mac_pinned"?: BOOL} -> the
 * device as get_devices shows it. [] allows every address; the GIDs the
 * guest stored stay; what is left out stays.
 */
static int
set_device_addresses(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	struct vur_dev_info info;
	const char *path;
	json_error_t err;
	json_t *ips = NULL;
	int pinned = -1;
	char why[256];

	if (a->dm == NULL) {
		*error = vur_admin_error(-ENOTSUP, "this backend manages no device at runtime");
		return -ENOTSUP;
	}
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s?o, s?b}", "device",
					&path, "allowed_ips", &ips, "mac_pinned", &pinned) != 0 ||
			(ips == NULL && pinned < 0)) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, ADDRESSES_USAGE);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	if (ips != NULL && parse_addresses(ips, &info.policy, why, sizeof(why)) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s", why);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (pinned >= 0)
		info.policy.mac_pinned = pinned;
	if (vur_dev_mgr_set_addresses(a->dm, path, &info.policy) != 0 ||
			vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = device_json(a->pm, &info);
	return 0;
}

/*
 * {"device": PATH, "rate": {"bps"?: N, "pps"?: N}} -> the device as
 * get_devices shows it. What is left out stays; 0 is unlimited; the buckets
 * start full, the counters are kept.
 */
static int
set_device_rate(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	struct vur_dev_info info;
	const char *path;
	json_error_t err;
	json_t *rate;
	char why[256];

	if (a->dm == NULL) {
		*error = vur_admin_error(-ENOTSUP, "this backend manages no device at runtime");
		return -ENOTSUP;
	}
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s:o}", "device", &path,
					"rate", &rate) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"expected {\"device\": PATH, \"rate\": " VUR_ADMIN_RATE_USAGE "}");
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	if (vur_admin_parse_rate(rate, &info.rate_bps, &info.rate_pps, why, sizeof(why)) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s", why);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_mgr_set_rate(a->dm, path, info.rate_bps, info.rate_pps) != 0 ||
			vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = device_json(a->pm, &info);
	return 0;
}

/*
 * {"device": PATH, "vlan": N} -> the device as get_devices shows it: on
 * access VLAN N (1..4094) from now on, or on none (0).
 */
static int
set_device_vlan(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	struct vur_dev_info info;
	const char *path;
	json_error_t err;
	json_t *vlan;
	char why[256];

	if (a->dm == NULL) {
		*error = vur_admin_error(-ENOTSUP, "this backend manages no device at runtime");
		return -ENOTSUP;
	}
	if (params == NULL ||
			json_unpack_ex(params, &err, JSON_STRICT, "{s:s, s:o}", "device", &path,
					"vlan", &vlan) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS,
				"expected {\"device\": PATH, \"vlan\": " VUR_ADMIN_VLAN_USAGE "}");
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_admin_parse_vlan(vlan, &info.vlan, why, sizeof(why)) != 0) {
		*error = vur_admin_error(VUR_RPC_INVALID_PARAMS, "%s", why);
		return VUR_RPC_INVALID_PARAMS;
	}
	if (vur_dev_mgr_set_vlan(a->dm, path, info.vlan) != 0 ||
			vur_dev_info(path, 0, &info) != 0) {
		*error = vur_admin_error(-ENODEV, "no device %s", path);
		return -ENODEV;
	}
	*result = device_json(a->pm, &info);
	return 0;
}

static int rpc_get_methods(struct vur_admin *a, json_t *params, json_t **result, json_t **error);

static const struct {
	const char *name;
	int (*fn)(struct vur_admin *a, json_t *params, json_t **result, json_t **error);
} methods[] = {
	{ "rpc_get_methods", rpc_get_methods },
	{ "get_devices", get_devices },
	{ "get_uplinks", get_uplinks },
	{ "get_qps", get_qps },
	{ "create_device", create_device },
	{ "delete_device", delete_device },
	{ "set_device_addresses", set_device_addresses },
	{ "set_device_link", set_device_link },
	{ "set_device_quota", set_device_quota },
	{ "set_device_rate", set_device_rate },
	{ "set_device_vlan", set_device_vlan },
	{ "set_member_link", set_member_link },
	{ "set_member_speed", set_member_speed },
};

static int
rpc_get_methods(struct vur_admin *a, json_t *params, json_t **result, json_t **error)
{
	(void)a;
	(void)params;
	(void)error;
	*result = json_array();
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		json_array_append_new(*result, json_string(methods[i].name));
	return 0;
}

int
vur_admin_call(struct vur_admin *a, const char *method, json_t *params, json_t **result,
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
			return methods[i].fn(a, params, result, error);
	*error = vur_admin_error(VUR_RPC_METHOD_NOT_FOUND, "no method %s", method);
	return VUR_RPC_METHOD_NOT_FOUND;
}
