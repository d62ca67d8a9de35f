/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VUR_BENCH_UTIL_H
#define VUR_BENCH_UTIL_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_ns(void);

/* Sort @ns and print its p50, p99 and maximum in microseconds. */
void report(const char *what, uint64_t *ns, unsigned int n);

/* GB/s copying 64 MiB, best of a few runs: the scale for the figures. */
double memcpy_gbps(void);

/* GB/s copying @len bytes again and again between the same two buffers (cache-hot). */
double memcpy_gbps_len(size_t len);

struct vur_user_dev;

/*
 * Parse "SOCKET [ITERATIONS]" (at least 100, @def by default) and open the
 * device with the default parameters. NULL, with the reason printed, when
 * it cannot; *@exit_code is then what main() should return.
 */
struct vur_user_dev *bench_open(
		int argc, char **argv, unsigned int def, unsigned int *n, int *exit_code);

#endif /* VUR_BENCH_UTIL_H */
