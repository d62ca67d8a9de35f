/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/txrate.h"
#include "mgmt/admin_rate.h"

json_t *
vur_admin_rate_json(const struct vur_dev_info *info)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "bps", (json_int_t)info->rate_bps, "pps",
			(json_int_t)info->rate_pps, "deferred", (json_int_t)info->rate.deferred,
			"dropped", (json_int_t)info->rate.dropped, "dropped_bytes",
			(json_int_t)info->rate.dropped_bytes);
}

int
vur_admin_parse_rate(json_t *r, uint64_t *bps, uint64_t *pps, char *why, size_t len)
{
	uint64_t b = *bps, p = *pps;
	const char *key;
	json_t *v;

	if (!json_is_object(r)) {
		snprintf(why, len, "rate: an object " VUR_ADMIN_RATE_USAGE);
		return -EINVAL;
	}
	json_object_foreach(r, key, v)
	{
		if (strcmp(key, "bps") != 0 && strcmp(key, "pps") != 0) {
			snprintf(why, len, "rate: no limit \"%s\" (bps, pps)", key);
			return -EINVAL;
		}
		/* an integer: 2e8 is a real in JSON, and a rate is counted */
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(why, len, "rate %s: an integer >= 0 (0: unlimited)", key);
			return -EINVAL;
		}
		*(key[0] == 'b' ? &b : &p) = (uint64_t)json_integer_value(v);
	}
	if (b != 0 && (b < 1000 || b > VUR_TXRATE_MAX_BPS)) {
		snprintf(why, len, "rate bps %" PRIu64 ": 0 (unlimited) or 1000..%llu", b,
				VUR_TXRATE_MAX_BPS);
		return -EINVAL;
	}
	if (p > VUR_TXRATE_MAX_PPS) {
		snprintf(why, len, "rate pps %" PRIu64 ": 0 (unlimited) or 1..%llu", p,
				VUR_TXRATE_MAX_PPS);
		return -EINVAL;
	}
	*bps = b;
	*pps = p;
	return 0;
}
