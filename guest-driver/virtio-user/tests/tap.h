/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal TAP producer: one "ok"/"not ok" line per test case, "# SKIP"
 * and the reason for cases whose precondition is missing, the plan at the
 * end. In CI (CI=true) every case must run: a case that would skip fails.
 */
#ifndef VUSER_TAP_H
#define VUSER_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int tap_n;
static int tap_failed;
static int tap_case_failed;
static const char *tap_skip_reason;

#define TAP_CHECK(cond)                                                                   \
	do {                                                                              \
		if (!(cond)) {                                                            \
			printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			fflush(stdout);                                                   \
			tap_case_failed = 1;                                              \
		}                                                                         \
	} while (0)

/* Compare two integers and show both on failure. */
#define TAP_EQ(a, b)                                                                               \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_) {                                                                    \
			printf("# %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, \
					#b, a_, b_);                                               \
			fflush(stdout);                                                            \
			tap_case_failed = 1;                                                       \
		}                                                                                  \
	} while (0)

/* True in CI (CI set, and not to "0", "false" or "no"): nothing may skip there. */
static inline int
tap_in_ci(void)
{
	const char *ci = getenv("CI");

	return ci != NULL && *ci != '\0' && strcmp(ci, "0") != 0 && strcasecmp(ci, "false") != 0 &&
			strcasecmp(ci, "no") != 0;
}

/*
 * Call inside a case whose precondition is missing: the case is reported as
 * skipped with @reason, or, in CI, fails with it.
 */
static inline void
tap_skip(const char *reason)
{
	if (tap_in_ci()) {
		printf("# cannot run: %s (CI is set: a case that cannot run fails)\n", reason);
		fflush(stdout);
		tap_case_failed = 1;
		return;
	}
	tap_skip_reason = reason;
}

static inline void
tap_run(void (*fn)(void), const char *name)
{
	tap_case_failed = 0;
	tap_skip_reason = NULL;
	fn();
	tap_n++;
	if (tap_skip_reason != NULL && !tap_case_failed)
		printf("ok %d - %s # SKIP %s\n", tap_n, name, tap_skip_reason);
	else
		printf("%s %d - %s\n", tap_case_failed ? "not ok" : "ok", tap_n, name);
	fflush(stdout);
	tap_failed += tap_case_failed;
}

#define TAP_RUN(fn) tap_run(fn, #fn)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* VUSER_TAP_H */
