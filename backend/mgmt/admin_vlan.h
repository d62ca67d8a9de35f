/* SPDX-License-Identifier: BSD-3-Clause */
/* The admin RPC's view of a device's access VLAN (net/net_vlan.h). */
#ifndef VUR_ADMIN_VLAN_H
#define VUR_ADMIN_VLAN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "vhost/vdev.h"

#define VUR_ADMIN_VLAN_USAGE "N (1..4094; 0: none)"

/* Add "vlan" (0: none) and "tagged_drops" (the guest's tagged frames dropped) to @d. */
void vur_admin_vlan_json(json_t *d, const struct vur_dev_info *info);

/* @v, a JSON integer 0..4094, into *@vlan. Returns 0 or -EINVAL with @why. */
int vur_admin_parse_vlan(const json_t *v, uint16_t *vlan, char *why, size_t len);

#endif /* VUR_ADMIN_VLAN_H */
