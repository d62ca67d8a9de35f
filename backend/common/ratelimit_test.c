/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the log rate limit, with time given by the test. */
#include "common/ratelimit.h"
#include "tests/tap.h"

static void
burst_then_drop_then_resume(void)
{
	struct vur_ratelimit rl = { 0 };
	const uint64_t t0 = 5 * VUR_RATELIMIT_INTERVAL_NS;
	uint32_t dropped = 99;
	int i, allowed = 0;

	for (i = 0; i < 25; i++)
		allowed += vur_ratelimit_allow(&rl, t0 + i, &dropped);
	TAP_CHECK(allowed == VUR_RATELIMIT_BURST && dropped == 0 && rl.dropped == 15);
	/* still inside the interval: dropped */
	TAP_CHECK(!vur_ratelimit_allow(&rl, t0 + VUR_RATELIMIT_INTERVAL_NS - 1, &dropped));
	/* the next interval: allowed, told how many were dropped */
	TAP_CHECK(vur_ratelimit_allow(&rl, t0 + VUR_RATELIMIT_INTERVAL_NS, &dropped));
	TAP_CHECK(dropped == 16 && rl.dropped == 0);
	TAP_CHECK(vur_ratelimit_allow(&rl, t0 + VUR_RATELIMIT_INTERVAL_NS + 1, &dropped));
	TAP_CHECK(dropped == 0);
}

int
main(void)
{
	TAP_RUN(burst_then_drop_then_resume);
	return tap_done();
}
