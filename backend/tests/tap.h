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

/*
 * A case that shows a known bug: "not ok ... # TODO @why", an expected
 * failure; once the bug is fixed it passes, "ok ... # TODO", which meson
 * counts as an unexpected pass (a failure) until the mark goes.
 */
static inline void
tap_run_todo(void (*fn)(void), const char *name, const char *why)
{
	tap_case_failed = 0;
	fn();
	tap_n++;
	printf("%s %d - %s # TODO %s\n", tap_case_failed ? "not ok" : "ok", tap_n, name, why);
}

#define TAP_RUN_TODO(fn, why) tap_run_todo(fn, #fn, why)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* VUR_TAP_H */
