/* SPDX-License-Identifier: BSD-3-Clause */
/* What every benchmark prints with: a clock, percentiles, and the scale. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vur_user.h"

#include "bench_util.h"

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void
report(const char *what, uint64_t *ns, unsigned int n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	printf("%-28s n=%u  p50 %7.1f us  p99 %7.1f us  max %7.1f us\n", what, n, ns[n / 2] / 1e3,
			ns[(n * 99) / 100] / 1e3, ns[n - 1] / 1e3);
}

/* GB/s copying 64 MiB a few times: the machine's scale for the figures above. */
double
memcpy_gbps(void)
{
	const size_t len = 64u << 20;
	char *a = malloc(len), *b = malloc(len);
	uint64_t t0, best = UINT64_MAX;
	int i;

	if (a == NULL || b == NULL)
		return 0;
	memset(a, 1, len);
	memset(b, 2, len);
	for (i = 0; i < 5; i++) {
		t0 = now_ns();
		memcpy(b, a, len);
		if (now_ns() - t0 < best)
			best = now_ns() - t0;
	}
	free(a);
	free(b);
	return (double)len / best;
}

double
memcpy_gbps_len(size_t len)
{
	char *a = malloc(len), *b = malloc(len);
	uint64_t t0, t, n = 0;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return 0;
	}
	memset(a, 1, len);
	memset(b, 2, len);
	t0 = now_ns();
	do {
		memcpy(b, a, len);
		__asm__ volatile("" : : "r"(b) : "memory"); /* every copy happens */
		n++;
		t = now_ns();
	} while (t - t0 < 50000000); /* 50 ms */
	free(a);
	free(b);
	return (double)len * n / (t - t0);
}

struct vur_user_dev *
bench_open(int argc, char **argv, unsigned int def, unsigned int *n, int *exit_code)
{
	struct vur_user_params params;
	struct vur_user_dev *d;
	int ret;

	*n = argc > 2 ? (unsigned int)atoi(argv[2]) : def;
	if (argc < 2 || *n < 100) {
		fprintf(stderr, "usage: %s SOCKET [ITERATIONS >= 100]\n", argv[0]);
		*exit_code = 2;
		return NULL;
	}
	vur_user_params_init(&params, argv[1]);
	ret = vur_user_open(&params, &d);
	if (ret < 0) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(-ret));
		*exit_code = 1;
		return NULL;
	}
	return d;
}
