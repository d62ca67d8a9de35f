/* SPDX-License-Identifier: BSD-3-Clause */
/* The admin RPC's view of a device's transmit rate limits (common/txrate.h). */
#ifndef VUR_ADMIN_RATE_H
#define VUR_ADMIN_RATE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "vhost/vdev.h"

#define VUR_ADMIN_RATE_USAGE "{\"bps\"?: N, \"pps\"?: N} (0: unlimited)"

/* {"bps": N, "pps": N, "deferred": N, "dropped": N, "dropped_bytes": N} */
json_t *vur_admin_rate_json(const struct vur_dev_info *info);

/*
 * @r: {"bps"?: N, "pps"?: N} over *@bps and *@pps (what is left out stays).
 * Returns 0 or -EINVAL with @why.
 */
int vur_admin_parse_rate(json_t *r, uint64_t *bps, uint64_t *pps, char *why, size_t len);

#endif /* VUR_ADMIN_RATE_H */
