/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal TAP producer for unit tests: meson counts each "ok"/"not ok".
 */
#ifndef VUR_TAP_H
#define VUR_TAP_H

#include <stdio.h>

static int tap_n;
static int tap_failed;
static int tap_case_failed;

#define TAP_CHECK(cond)                                                                   \
	do {                                                                              \
		if (!(cond)) {                                                            \
			printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			tap_case_failed = 1;                                              \
		}                                                                         \
	} while (0)

static inline void
tap_run(void (*fn)(void), const char *name)
{
	tap_case_failed = 0;
	fn();
	tap_n++;
	printf("%s %d - %s\n", tap_case_failed ? "not ok" : "ok", tap_n, name);
	tap_failed += tap_case_failed;
}

#define TAP_RUN(fn) tap_run(fn, #fn)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* VUR_TAP_H */
