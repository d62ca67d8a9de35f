/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log rate limiting for lines a guest can cause: a misbehaving guest gets a
 * few lines a second and a count of what was dropped, never a log flood
 * that hides other devices' lines or fills a disk.
 */
#ifndef VUR_RATELIMIT_H
#define VUR_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#define VUR_RATELIMIT_BURST       10 /* lines per interval */
#define VUR_RATELIMIT_INTERVAL_NS 1000000000ULL

struct vur_ratelimit {
	rte_spinlock_t lock; /* several data-path threads log for one device */
	uint64_t start_ns;   /* start of the current interval */
	uint32_t printed;    /* lines in the current interval */
	uint32_t dropped;    /* lines dropped since the last printed one */
};

/*
 * Whether a line may be printed at @now_ns. When it may, *@dropped gets
 * the number of lines dropped before it (to say so), and is reset.
 */
bool vur_ratelimit_allow(struct vur_ratelimit *rl, uint64_t now_ns, uint32_t *dropped);

/*
 * rte_log() through @rl (CLOCK_MONOTONIC), preceded when lines were dropped
 * by one that says how many, about @who (the device's name).
 */
void vur_log_limited(struct vur_ratelimit *rl, const char *who, uint32_t level, uint32_t logtype,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif /* VUR_RATELIMIT_H */
