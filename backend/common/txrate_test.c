/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the transmit rate limits, with time given by the test. */
#include <errno.h>
#include <stdio.h>

#include <rte_eal.h>

#include "common/txrate.h"
#include "tests/tap.h"

#define MS 1000000ULL
#define T0 (1000 * MS)

/* Send as a shaper would for @ns from @t0: what went, in bytes. */
static uint64_t
shape(struct vur_txrate *r, uint64_t t0, uint64_t ns, uint32_t len, uint32_t *pkts)
{
	uint64_t t = t0, ready, sent = 0;

	*pkts = 0;
	while (t < t0 + ns) {
		ready = 0;
		if (vur_txrate_take(r, len, 1, t, &ready)) {
			sent += len;
			(*pkts)++;
			continue;
		}
		TAP_CHECK(ready > t); /* never "now" when refused: no spinning */
		t = ready;
	}
	return sent;
}

static void
unlimited_takes_everything(void)
{
	struct vur_txrate r = { 0 };
	uint64_t ready = 7;

	TAP_CHECK(vur_txrate_take(&r, 1 << 20, 64, T0, &ready) && ready == 7);
	TAP_CHECK(vur_txrate_set(&r, 0, 0, T0) == 0 && !vur_txrate_limited(&r));
	TAP_CHECK(vur_txrate_police(&r, 9000, T0) && r.stats.dropped == 0);
	TAP_CHECK(vur_txrate_take(NULL, 1, 1, T0, NULL));
}

static void
bandwidth_converges(void)
{
	struct vur_txrate r = { 0 };
	uint64_t bytes, bps = 200000000;
	uint32_t pkts;

	TAP_CHECK(vur_txrate_set(&r, bps, 0, T0) == 0 && vur_txrate_limited(&r));
	/* 2 s of 4 KiB packets: the rate plus one bucket (the first burst) */
	bytes = shape(&r, T0, 2000 * MS, 4096, &pkts);
	TAP_CHECK(bytes >= bps / 8 * 2 / 1000 * 999 &&
			bytes <= bps / 8 * 2 + VUR_TXRATE_MIN_BYTES + 4096);
	TAP_CHECK(r.stats.deferred > 0);
}

static void
packet_rate_converges(void)
{
	struct vur_txrate r = { 0 };
	uint32_t pkts;

	TAP_CHECK(vur_txrate_set(&r, 0, 10000, T0) == 0);
	shape(&r, T0, 1000 * MS, 64, &pkts);
	TAP_CHECK(pkts >= 10000 && pkts <= 10000 + VUR_TXRATE_MIN_PKTS + 1);
}

/* Both limits: the tighter one holds, and a refusal by one takes nothing from the other. */
static void
both_all_or_nothing(void)
{
	struct vur_txrate r = { 0 };
	uint64_t ready = 0;
	uint32_t pkts;

	TAP_CHECK(vur_txrate_set(&r, 8000000, 1000000, T0) == 0);
	shape(&r, T0, 1000 * MS, 1000, &pkts); /* 1 MB/s of 1000 B: 1000 pps */
	TAP_CHECK(pkts >= 1000 && pkts <= 1000 + VUR_TXRATE_MIN_BYTES / 1000 + 1);
	/* the byte bucket is empty: the packet bucket keeps what it had */
	uint64_t tc = r.pkts.tc;
	TAP_CHECK(!vur_txrate_take(&r, 1000, 1, T0 + 1000 * MS, &ready));
	TAP_CHECK(r.pkts.tc >= tc);
}

static void
police_drops_and_counts(void)
{
	struct vur_txrate r = { 0 };
	int ok = 0;

	TAP_CHECK(vur_txrate_set(&r, 8000000, 0, T0) == 0); /* 1 MB/s, 288 KiB bucket */
	for (int i = 0; i < 400; i++)
		ok += vur_txrate_police(&r, 1000, T0);
	TAP_CHECK(ok == VUR_TXRATE_MIN_BYTES / 1000);
	TAP_CHECK(r.stats.dropped == (uint64_t)(400 - ok) && r.stats.deferred == 0);
	TAP_CHECK(r.stats.dropped_bytes == r.stats.dropped * 1000);
	/* 10 ms later: 10 kB more */
	ok = 0;
	for (int i = 0; i < 20; i++)
		ok += vur_txrate_police(&r, 1000, T0 + 10 * MS);
	TAP_CHECK(ok >= 10 && ok <= 11);
}

/* A packet bigger than the bucket waits for a full bucket, not forever. */
static void
oversized_packet_goes(void)
{
	struct vur_txrate r = { 0 };
	uint64_t ready = 0;

	TAP_CHECK(vur_txrate_set(&r, 8000000, 0, T0) == 0);
	TAP_CHECK(vur_txrate_take(&r, 1 << 30, 1, T0, &ready));
	TAP_CHECK(!vur_txrate_take(&r, 1 << 30, 1, T0, &ready));
	TAP_CHECK(ready > T0 && ready < T0 + 400 * MS);
	TAP_CHECK(vur_txrate_take(&r, 1 << 30, 1, ready, &ready));
}

/* ACKs and READ responses drain the bucket: requests wait for it. */
static void
charge_drains(void)
{
	struct vur_txrate r = { 0 };
	uint64_t ready = 0;

	TAP_CHECK(vur_txrate_set(&r, 8000000, 0, T0) == 0);
	vur_txrate_charge(&r, 1 << 30, 1, T0);
	TAP_CHECK(!vur_txrate_take(&r, 1000, 1, T0, &ready) && ready > T0);
	/* a clock read earlier on another thread does not go back in time */
	TAP_CHECK(!vur_txrate_take(&r, 1000, 1, T0 - 5 * MS, &ready));
	TAP_CHECK(vur_txrate_take(&r, 1000, 1, T0 + 2 * MS, &ready));
}

/* A wait is one deferral, however often it is polled while the caller keeps *ready. */
static void
deferral_counts_once(void)
{
	struct vur_txrate r = { 0 };
	uint64_t ready = 0;

	TAP_CHECK(vur_txrate_set(&r, 8000000, 0, T0) == 0);
	vur_txrate_charge(&r, 1 << 30, 1, T0);
	for (int i = 0; i < 10; i++)
		TAP_CHECK(!vur_txrate_take(&r, 1000, 1, T0 + (uint64_t)i * 1000, &ready));
	TAP_CHECK(r.stats.deferred == 1);
	ready = 0; /* taken meanwhile: the next wait counts again */
	TAP_CHECK(!vur_txrate_take(&r, 1000, 1, T0 + 20000, &ready) && r.stats.deferred == 2);
}

static void
bad_limits(void)
{
	struct vur_txrate r = { 0 };

	TAP_CHECK(vur_txrate_set(&r, 999, 0, T0) == -EINVAL);
	TAP_CHECK(vur_txrate_set(&r, VUR_TXRATE_MAX_BPS + 1, 0, T0) == -EINVAL);
	TAP_CHECK(vur_txrate_set(&r, 0, VUR_TXRATE_MAX_PPS + 1, T0) == -EINVAL);
	TAP_CHECK(vur_txrate_set(&r, VUR_TXRATE_MAX_BPS, VUR_TXRATE_MAX_PPS, T0) == 0);
	TAP_CHECK(vur_txrate_set(&r, 1000, 1, T0) == 0);
	TAP_CHECK(!vur_txrate_valid(UINT64_MAX, 0) && vur_txrate_valid(0, 0));
}

int
main(void)
{
	char *args[] = { "txrate_test", "--no-huge", "-m", "16", "--no-pci",
		"--file-prefix=vur_txrate_test", "--no-telemetry", "--log-level=*:warning", NULL };

	/* librte_meter counts in TSC cycles: the EAL measures their frequency */
	if (rte_eal_init((int)RTE_DIM(args) - 1, args) < 0) {
		printf("Bail out! EAL\n");
		return 1;
	}
	TAP_RUN(unlimited_takes_everything);
	TAP_RUN(bandwidth_converges);
	TAP_RUN(packet_rate_converges);
	TAP_RUN(both_all_or_nothing);
	TAP_RUN(police_drops_and_counts);
	TAP_RUN(oversized_packet_goes);
	TAP_RUN(charge_drains);
	TAP_RUN(deferral_counts_once);
	TAP_RUN(bad_limits);
	rte_eal_cleanup();
	return tap_done();
}
