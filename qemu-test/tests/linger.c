// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A preload library for the guest's rdma-core examples in scenario 15:
 * ibv_destroy_qp() waits VUR_LINGER_MS milliseconds before it destroys the
 * QP, so that rxe still answers a peer that resends its last request
 * because rxe's ACK of it was lost on the lossy wire (the examples close
 * as soon as their last completion comes). Says so on stderr once.
 *
 *   LD_PRELOAD=/test/linger.so VUR_LINGER_MS=1000 ibv_rc_pingpong ...
 *
 * Built as a shared object against the host's (bookworm's) glibc, which
 * is the image's. No symbol version of its own: it takes the place of
 * libibverbs' default ibv_destroy_qp@@IBVERBS_1.1 and calls it after.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct ibv_qp;

int ibv_destroy_qp(struct ibv_qp *qp);

int
ibv_destroy_qp(struct ibv_qp *qp)
{
	static int (*real)(struct ibv_qp *);
	const char *ms = getenv("VUR_LINGER_MS");

	if (real == NULL)
		real = (int (*)(struct ibv_qp *))dlsym(RTLD_NEXT, "ibv_destroy_qp");
	if (real == NULL)
		return ENOSYS;
	if (ms != NULL && atoi(ms) > 0) {
		fprintf(stderr, "linger: %d ms before ibv_destroy_qp\n", atoi(ms));
		usleep((useconds_t)atoi(ms) * 1000);
	}
	return real(qp);
}
