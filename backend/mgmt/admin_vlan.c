/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>

#include "mgmt/admin_vlan.h"
#include "net/net_vlan.h"

void
vur_admin_vlan_json(json_t *d, const struct vur_dev_info *info)
{
	json_object_set_new(d, "vlan", json_integer(info->vlan));
	json_object_set_new(d, "tagged_drops",
			json_integer((json_int_t)info->eth.drops[VUR_NET_DROP_TX_TAGGED]));
}

int
vur_admin_parse_vlan(const json_t *v, uint16_t *vlan, char *why, size_t len)
{
	json_int_t n;

	/* a number only: "10" or true are mistakes, not VLANs */
	if (!json_is_integer(v)) {
		snprintf(why, len, "vlan: expected %s", VUR_ADMIN_VLAN_USAGE);
		return -EINVAL;
	}
	n = json_integer_value(v);
	if (n != VUR_VLAN_NONE && !vur_vlan_valid(n)) {
		snprintf(why, len, "vlan %lld: expected %s", (long long)n, VUR_ADMIN_VLAN_USAGE);
		return -EINVAL;
	}
	*vlan = (uint16_t)n;
	return 0;
}
