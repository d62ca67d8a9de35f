/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TAP output of the provider's unit tests (virtio_rdma_test.c,
 * virtio_rdma_cq_ring_test.c, virtio_rdma_qp_ring_test.c): one line per
 * check, the plan and a summary at the end. Each test is one program, so
 * the counters live here.
 */
#ifndef __VIRTIO_RDMA_TAP_H__
#define __VIRTIO_RDMA_TAP_H__

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tests, failed;

static void check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The plan and the summary; the program's exit status. */
static int check_done(void)
{
	printf("1..%d\n", tests);
	printf("%d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}

#endif /* __VIRTIO_RDMA_TAP_H__ */
