/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Monotonic milliseconds, for the bounded waits of the driver and its tests.
 */
#ifndef VUSER_CLOCK_H
#define VUSER_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
vuser_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif /* VUSER_CLOCK_H */
