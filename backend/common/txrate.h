/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's transmit rate limits (issue 25): bits per second and packets
 * per second over everything it sends, 0 for none. Each is a token bucket
 * of librte_meter (an srTCM with no excess bucket: RFC 2697's committed
 * bucket alone), the library DPDK applications police with.
 *
 * Two ways to use it, as a NIC does:
 * - shaping (the RDMA requester): vur_txrate_take() says whether a packet
 *   may go now and, when not, when it may; the caller keeps it and comes
 *   back then (a RoCE packet is never dropped for the rate, which would
 *   only cost the peer a retransmission);
 * - policing (the guest's Ethernet frames): what does not fit is dropped.
 *
 * Time is the data path's CLOCK_MONOTONIC ns, turned into the TSC cycles
 * librte_meter counts in, so that tests can give it.
 */
#ifndef VUR_TXRATE_H
#define VUR_TXRATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_meter.h>
#include <rte_spinlock.h>

#define VUR_TXRATE_MAX_BPS 400000000000ULL /* 400 Gb/s: more is a typo */
#define VUR_TXRATE_MAX_PPS 1000000000ULL   /* likewise */
/*
 * Bucket depth: 10 ms at the rate, and at least what one packet of the
 * engine can carry (64 segments of up to 4 KiB: pkt.h), else it never fits.
 */
#define VUR_TXRATE_BURST_NS  10000000ULL
#define VUR_TXRATE_MIN_BYTES (288u * 1024)
#define VUR_TXRATE_MIN_PKTS  128u

struct vur_txrate_stats {
	uint64_t deferred; /* waits for tokens (RDMA): one per wait, however often polled */
	uint64_t dropped;  /* frames dropped over the limit (Ethernet) */
	uint64_t dropped_bytes;
};

struct vur_txrate {
	rte_spinlock_t lock; /* data-path threads of one device share its buckets */
	uint64_t bps, pps;   /* the limits; 0: none */
	bool limited;        /* either is set: read without the lock on the fast path */
	struct rte_meter_srtcm_profile bytes_prof, pkts_prof;
	struct rte_meter_srtcm bytes, pkts;
	struct vur_txrate_stats stats;
};

/* Whether @bps and @pps are limits this accepts (0: none). */
bool vur_txrate_valid(uint64_t bps, uint64_t pps);

/* Set the limits at @now_ns; full buckets. Returns 0 or -EINVAL. */
int vur_txrate_set(struct vur_txrate *r, uint64_t bps, uint64_t pps, uint64_t now_ns);

/*
 * Shaping: take tokens for @pkts packets of @bytes in all at @now_ns, or
 * none; when none, *@ready_ns (when not NULL) is when they will be there.
 * A refusal counts a deferral when *@ready_ns was 0 on entry: the caller
 * keeps it while it waits and clears it when tokens were taken, so that
 * polls during one wait count once.
 */
bool vur_txrate_take(struct vur_txrate *r, uint32_t bytes, uint32_t pkts, uint64_t now_ns,
		uint64_t *ready_ns);

/* Policing: as vur_txrate_take(), but what does not fit is counted dropped. */
bool vur_txrate_police(struct vur_txrate *r, uint32_t bytes, uint64_t now_ns);

/*
 * What went without asking (ACKs, READ responses): its tokens are taken,
 * down to an empty bucket, so that requests wait for them.
 */
void vur_txrate_charge(struct vur_txrate *r, uint32_t bytes, uint32_t pkts, uint64_t now_ns);

static inline bool
vur_txrate_limited(const struct vur_txrate *r)
{
	return r != NULL && __atomic_load_n(&r->limited, __ATOMIC_RELAXED);
}

void vur_txrate_read(
		struct vur_txrate *r, uint64_t *bps, uint64_t *pps, struct vur_txrate_stats *stats);

/* CLOCK_MONOTONIC in ns, the data path's clock. */
uint64_t vur_txrate_now_ns(void);

#endif /* VUR_TXRATE_H */
