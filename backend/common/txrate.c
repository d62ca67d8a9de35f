/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <time.h>

#include <rte_cycles.h>

#include "common/txrate.h"

#define TXRATE_NS_PER_S 1000000000ULL

static uint64_t
to_cycles(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * rte_get_tsc_hz() / TXRATE_NS_PER_S);
}

static uint64_t
to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * TXRATE_NS_PER_S + rte_get_tsc_hz() - 1) /
			rte_get_tsc_hz());
}

uint64_t
vur_txrate_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TXRATE_NS_PER_S + (uint64_t)ts.tv_nsec;
}

bool
vur_txrate_valid(uint64_t bps, uint64_t pps)
{
	/* under 1 kb/s a bucket refills too slowly to be of use; 0 is none */
	return (bps == 0 || (bps >= 1000 && bps <= VUR_TXRATE_MAX_BPS)) &&
			pps <= VUR_TXRATE_MAX_PPS;
}

/* A bucket of @rate tokens a second, at least @min deep, full at @now_cyc. */
static int
bucket(struct rte_meter_srtcm_profile *p, struct rte_meter_srtcm *m, uint64_t rate, uint64_t min,
		uint64_t now_cyc)
{
	struct rte_meter_srtcm_params params = {
		.cir = rate,
		.cbs = RTE_MAX(min, rate * VUR_TXRATE_BURST_NS / TXRATE_NS_PER_S),
		.ebs = 0, /* no excess bucket: green or nothing */
	};

	if (rte_meter_srtcm_profile_config(p, &params) != 0)
		return -EINVAL;
	/*
	 * librte_meter truncates its refill period to whole TSC cycles (of at
	 * least 100): up to 1% faster than @rate, e.g. 0.8% at 200 Mbit/s on a
	 * 2.5961 GHz TSC. One cycle more makes it never faster than the limit.
	 */
	if ((unsigned __int128)p->cir_bytes_per_period * rte_get_tsc_hz() >
			(unsigned __int128)rate * p->cir_period)
		p->cir_period++;
	if (rte_meter_srtcm_config(m, p) != 0)
		return -EINVAL;
	m->time = now_cyc; /* the caller's clock, not the TSC read by _config() */
	return 0;
}

int
vur_txrate_set(struct vur_txrate *r, uint64_t bps, uint64_t pps, uint64_t now_ns)
{
	struct rte_meter_srtcm_profile bp = { 0 }, pp = { 0 };
	struct rte_meter_srtcm b = { 0 }, p = { 0 };
	uint64_t now = to_cycles(now_ns);

	if (!vur_txrate_valid(bps, pps))
		return -EINVAL;
	if ((bps != 0 && bucket(&bp, &b, bps / 8, VUR_TXRATE_MIN_BYTES, now) != 0) ||
			(pps != 0 && bucket(&pp, &p, pps, VUR_TXRATE_MIN_PKTS, now) != 0))
		return -EINVAL;
	rte_spinlock_lock(&r->lock);
	r->bps = bps;
	r->pps = pps;
	r->bytes_prof = bp;
	r->pkts_prof = pp;
	r->bytes = b;
	r->pkts = p;
	__atomic_store_n(&r->limited, bps != 0 || pps != 0, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&r->lock);
	return 0;
}

/*
 * Take @n tokens of one bucket at @now (cycles), or none and say when they
 * will be there. More than the bucket holds is taken as a full bucket, so
 * that nothing waits forever.
 */
static bool
take_one(struct rte_meter_srtcm *m, struct rte_meter_srtcm_profile *p, uint64_t n, uint64_t now,
		uint64_t *ready)
{
	uint64_t need, periods;

	n = RTE_MIN(n, p->cbs);
	/* threads' clocks are read apart: never let time go back (it is unsigned) */
	now = RTE_MAX(now, m->time);
	if (rte_meter_srtcm_color_blind_check(m, p, now, (uint32_t)n) == RTE_COLOR_GREEN)
		return true;
	/* the check brought m up to @now: whole periods from m->time refill it */
	need = n - m->tc;
	periods = (need + p->cir_bytes_per_period - 1) / p->cir_bytes_per_period;
	*ready = RTE_MAX(*ready, m->time + periods * p->cir_period);
	return false;
}

static bool
take_locked(struct vur_txrate *r, uint32_t bytes, uint32_t pkts, uint64_t now_ns,
		uint64_t *ready_ns)
{
	uint64_t now = to_cycles(now_ns), ready = 0;

	if (r->pps != 0 && !take_one(&r->pkts, &r->pkts_prof, pkts, now, &ready)) {
		*ready_ns = to_ns(ready);
		return false;
	}
	if (r->bps != 0 && !take_one(&r->bytes, &r->bytes_prof, bytes, now, &ready)) {
		if (r->pps != 0) /* all or nothing: the packets' tokens go back */
			r->pkts.tc = RTE_MIN(r->pkts.tc + RTE_MIN(pkts, r->pkts_prof.cbs),
					r->pkts_prof.cbs);
		*ready_ns = to_ns(ready);
		return false;
	}
	return true;
}

bool
vur_txrate_take(struct vur_txrate *r, uint32_t bytes, uint32_t pkts, uint64_t now_ns,
		uint64_t *ready_ns)
{
	uint64_t ready = 0;
	bool ok;

	if (!vur_txrate_limited(r))
		return true;
	rte_spinlock_lock(&r->lock);
	ok = take_locked(r, bytes, pkts, now_ns, &ready);
	/* a wait counts once, not each poll that finds it still waiting */
	if (!ok && (ready_ns == NULL || *ready_ns == 0))
		r->stats.deferred++;
	rte_spinlock_unlock(&r->lock);
	if (!ok && ready_ns != NULL)
		*ready_ns = ready;
	return ok;
}

bool
vur_txrate_police(struct vur_txrate *r, uint32_t bytes, uint64_t now_ns)
{
	uint64_t ready = 0;
	bool ok;

	if (!vur_txrate_limited(r))
		return true;
	rte_spinlock_lock(&r->lock);
	ok = take_locked(r, bytes, 1, now_ns, &ready);
	if (!ok) {
		r->stats.dropped++;
		r->stats.dropped_bytes += bytes;
	}
	rte_spinlock_unlock(&r->lock);
	return ok;
}

static void
drain(struct rte_meter_srtcm *m, struct rte_meter_srtcm_profile *p, uint64_t n, uint64_t now)
{
	now = RTE_MAX(now, m->time);
	if (rte_meter_srtcm_color_blind_check(m, p, now, (uint32_t)RTE_MIN(n, p->cbs)) !=
			RTE_COLOR_GREEN)
		m->tc = 0;
}

void
vur_txrate_charge(struct vur_txrate *r, uint32_t bytes, uint32_t pkts, uint64_t now_ns)
{
	uint64_t now;

	if (!vur_txrate_limited(r) || (bytes == 0 && pkts == 0))
		return;
	now = to_cycles(now_ns);
	rte_spinlock_lock(&r->lock);
	if (r->pps != 0)
		drain(&r->pkts, &r->pkts_prof, pkts, now);
	if (r->bps != 0)
		drain(&r->bytes, &r->bytes_prof, bytes, now);
	rte_spinlock_unlock(&r->lock);
}

void
vur_txrate_read(struct vur_txrate *r, uint64_t *bps, uint64_t *pps, struct vur_txrate_stats *stats)
{
	rte_spinlock_lock(&r->lock);
	*bps = r->bps;
	*pps = r->pps;
	*stats = r->stats;
	rte_spinlock_unlock(&r->lock);
}
