/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <time.h>

#include <rte_log.h>

#include "common/ratelimit.h"

bool
vur_ratelimit_allow(struct vur_ratelimit *rl, uint64_t now_ns, uint32_t *dropped)
{
	bool allow;

	rte_spinlock_lock(&rl->lock);
	if (now_ns - rl->start_ns >= VUR_RATELIMIT_INTERVAL_NS) {
		rl->start_ns = now_ns;
		rl->printed = 0;
	}
	allow = rl->printed < VUR_RATELIMIT_BURST;
	if (allow) {
		rl->printed++;
		*dropped = rl->dropped;
		rl->dropped = 0;
	} else {
		rl->dropped++;
	}
	rte_spinlock_unlock(&rl->lock);
	return allow;
}

void
vur_log_limited(struct vur_ratelimit *rl, const char *who, uint32_t level, uint32_t logtype,
		const char *fmt, ...)
{
	struct timespec ts;
	uint32_t dropped;
	va_list ap;

	if (!rte_log_can_log(logtype, level))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!vur_ratelimit_allow(rl, (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec, &dropped))
		return;
	if (dropped != 0)
		rte_log(level, logtype, "%s: %u lines dropped by the rate limit\n", who, dropped);
	va_start(ap, fmt);
	rte_vlog(level, logtype, fmt, ap);
	va_end(ap);
}
