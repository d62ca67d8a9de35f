/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP lifecycle rate through the virtio-user driver: CREATE_QP, MODIFY_QP
 * RESET->INIT->RTR->RTS and DESTROY_QP of an RC QP, five control commands
 * per cycle, as a connection manager does for each connection. Prints
 * cycles per second, the per-cycle p50/p99, and the memcpy bandwidth of
 * this machine for scale. It never fails on a timing.
 *
 * Usage: qp_bench SOCKET [CYCLES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vur_user.h"
#include "vur_verbs.h"

#include "bench_util.h"

static const uint8_t local_gid[16] = { 0xfe, 0x80, [15] = 1 };

/* The three transitions to RTS and the attributes IBTA requires for each. */
static int
to_rts(struct vur_user_dev *d, uint32_t qpn)
{
	struct vur_user_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = VUR_USER_QPS_INIT;
	a.qp_access_flags = VUR_USER_ACCESS_REMOTE_READ;
	ret = vur_user_modify_qp(d, qpn, &a, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS);
	if (ret < 0)
		return ret;
	a.qp_state = VUR_USER_QPS_RTR;
	a.path_mtu = VUR_USER_MTU_1024;
	a.dest_qp_num = 0x22;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	memcpy(a.ah_attr.grh.dgid, local_gid, sizeof(local_gid));
	a.ah_attr.grh.dgid[15] = 2;
	ret = vur_user_modify_qp(d, qpn, &a,
			VUR_USER_QP_STATE | VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU |
					VUR_USER_QP_DEST_QPN | VUR_USER_QP_RQ_PSN |
					VUR_USER_QP_MAX_DEST_RD_ATOMIC | VUR_USER_QP_MIN_RNR_TIMER);
	if (ret < 0)
		return ret;
	a.qp_state = VUR_USER_QPS_RTS;
	a.sq_psn = 0x200;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return vur_user_modify_qp(d, qpn, &a,
			VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN | VUR_USER_QP_TIMEOUT |
					VUR_USER_QP_RETRY_CNT | VUR_USER_QP_RNR_RETRY |
					VUR_USER_QP_MAX_QP_RD_ATOMIC);
}

static int
cycle(struct vur_user_dev *d, const struct vur_user_qp_init_attr *init)
{
	uint32_t qpn;
	int ret;

	ret = vur_user_create_qp(d, init, &qpn);
	if (ret < 0)
		return ret;
	ret = to_rts(d, qpn);
	if (ret < 0) {
		vur_user_destroy_qp(d, qpn);
		return ret;
	}
	return vur_user_destroy_qp(d, qpn);
}

int
main(int argc, char **argv)
{
	struct vur_user_qp_init_attr init = {
		.qp_type = VUR_USER_QPT_RC,
		.cap = { .max_send_wr = 16,
				.max_recv_wr = 16,
				.max_send_sge = 1,
				.max_recv_sge = 1 },
	};
	struct vur_user_dev *d;
	unsigned int i, n;
	uint64_t *ns, t0, start;
	int ret;

	d = bench_open(argc, argv, 2000, &n, &ret);
	if (d == NULL)
		return ret;
	ns = calloc(n, sizeof(*ns));
	ret = ns == NULL ? -1 : vur_user_add_gid(d, 0, local_gid);
	if (ret == 0)
		ret = vur_user_create_pd(d, &init.pdn);
	if (ret == 0)
		ret = vur_user_create_cq(d, 16, &init.send_cqn);
	init.recv_cqn = init.send_cqn;
	start = now_ns();
	for (i = 0; i < n && ret == 0; i++) {
		t0 = now_ns();
		ret = cycle(d, &init);
		ns[i] = now_ns() - t0;
	}
	if (ret < 0) {
		fprintf(stderr, "QP cycle failed: %s\n", strerror(-ret));
	} else {
		printf("RC QP create + INIT/RTR/RTS + destroy: %.0f cycles/s (5 commands each)\n",
				n / ((now_ns() - start) / 1e9));
		report("QP cycle", ns, n);
		printf("reference: memcpy %.1f GB/s (64 MiB, best of 5)\n", memcpy_gbps());
	}
	free(ns);
	vur_user_close(d);
	return ret < 0;
}
