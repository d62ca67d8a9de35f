/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP lifecycle rate through the virtio-user driver: CREATE_QP, MODIFY_QP
 * RESET->INIT->RTR->RTS and DESTROY_QP of an RC QP, five control commands
 * per cycle, as a connection manager does for each connection. Prints
 * cycles per second, the per-cycle p50/p99, and for scale the round trip of
 * a QUERY_DEVICE in the same run (a cycle's floor is five of them) and the
 * memcpy bandwidth of this machine. It never fails on a timing.
 *
 * When the device offers rings (issue 28) it takes the cycle rate of QPs
 * on rings and of QPs on virtqueues in the same run, and, with
 * VUR_BENCH_BACKEND_PID set to the backend's process, the backend's memory
 * per idle ring QP: its resident set before and after creating
 * IDLE_QPS QPs (taken to RTS), and after destroying them.
 *
 * Usage: qp_bench SOCKET [CYCLES]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vur_rings.h"
#include "vur_user.h"
#include "vur_verbs.h"

#include "bench_util.h"

#define IDLE_QPS 4096

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

/* The cycles of @init's layout: rate, p50/p99 of each; 0 or the first error. */
static int
cycles(struct vur_user_dev *d, const struct vur_user_qp_init_attr *init, unsigned int n,
		const char *what)
{
	uint64_t *ns = calloc(n, sizeof(*ns)), t0, start = now_ns();
	unsigned int i;
	int ret = ns == NULL ? -1 : 0;

	for (i = 0; i < n && ret == 0; i++) {
		t0 = now_ns();
		ret = cycle(d, init);
		ns[i] = now_ns() - t0;
	}
	if (ret < 0) {
		fprintf(stderr, "QP cycle (%s) failed: %s\n", what, strerror(-ret));
	} else {
		printf("RC QP create + INIT/RTR/RTS + destroy, %s: %.0f cycles/s (5 commands "
		       "each)\n",
				what, n / ((now_ns() - start) / 1e9));
		report("QP cycle", ns, n);
	}
	free(ns);
	return ret;
}

/* The floor of a cycle: QUERY_DEVICE round trips (the command the backend does least for). */
static int
reference(struct vur_user_dev *d, unsigned int n)
{
	uint64_t *ns = calloc(n, sizeof(*ns)), t0;
	struct vur_user_device_attr attr;
	unsigned int i;
	int ret = ns == NULL ? -1 : 0;

	for (i = 0; i < n && ret == 0; i++) {
		t0 = now_ns();
		ret = vur_user_query_device(d, &attr);
		ns[i] = now_ns() - t0;
	}
	if (ret < 0) {
		fprintf(stderr, "QUERY_DEVICE failed: %s\n", strerror(-ret));
	} else {
		report("reference: QUERY_DEVICE", ns, n); /* sorts */
		printf("reference: five QUERY_DEVICE round trips at p50: %.0f cycles/s\n",
				1e9 / (5.0 * (double)ns[n / 2]));
	}
	free(ns);
	return ret;
}

/* The resident set of process @pid in KiB, or -1. */
static long
rss_kib(const char *pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* The backend's bytes per idle ring QP: RSS over IDLE_QPS QPs in RTS. */
static int
idle_memory(struct vur_user_dev *d, const struct vur_user_qp_init_attr *ring)
{
	const char *pid = getenv("VUR_BENCH_BACKEND_PID");
	struct vur_user_qp_init_attr init = *ring;
	uint32_t *qpn = calloc(IDLE_QPS, sizeof(*qpn)), n = 0;
	long before, after, freed;
	int ret = 0;

	if (pid == NULL || qpn == NULL) {
		free(qpn);
		return 0;
	}
	init.cap.max_send_wr = init.cap.max_recv_wr = 4; /* 4096 QPs fit 64 MiB of driver memory */
	before = rss_kib(pid);
	for (; n < IDLE_QPS && ret == 0; n++) {
		ret = vur_user_create_qp(d, &init, &qpn[n]);
		if (ret == 0)
			ret = to_rts(d, qpn[n]);
		else
			break;
	}
	after = rss_kib(pid);
	for (uint32_t i = 0; i < n; i++)
		vur_user_destroy_qp(d, qpn[i]);
	freed = rss_kib(pid);
	free(qpn);
	if (ret < 0) {
		fprintf(stderr, "idle QPs: %u made, then %s\n", n, strerror(-ret));
		return ret;
	}
	if (before < 0 || after < 0) {
		printf("backend memory: no /proc/%s/status\n", pid);
		return 0;
	}
	printf("backend memory per idle ring QP (RC, RTS, 4 WRs each way): %.0f bytes "
	       "(RSS %ld -> %ld KiB over %u QPs; %ld KiB after destroying them)\n",
			(after - before) * 1024.0 / n, before, after, n, freed);
	return 0;
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
	bool rings;
	unsigned int n;
	int ret;

	d = bench_open(argc, argv, 2000, &n, &ret);
	if (d == NULL)
		return ret;
	rings = vur_user_ring_queues(d) > 0;
	ret = vur_user_add_gid(d, 0, local_gid);
	if (ret == 0)
		ret = vur_user_create_pd(d, &init.pdn);
	if (ret == 0)
		ret = vur_user_create_cq(d, 16, &init.send_cqn);
	init.recv_cqn = init.send_cqn;
	if (ret == 0)
		ret = reference(d, n);
	if (ret == 0 && rings) {
		init.layout = VUR_USER_LAYOUT_RINGS;
		ret = cycles(d, &init, n, "on rings");
	}
	if (ret == 0) {
		init.layout = VUR_USER_LAYOUT_VIRTQUEUES;
		ret = cycles(d, &init, n, rings ? "on virtqueues" : "on virtqueues (no rings)");
	}
	if (ret == 0 && rings) {
		init.layout = VUR_USER_LAYOUT_RINGS;
		ret = idle_memory(d, &init);
	}
	if (ret == 0)
		printf("reference: memcpy %.1f GB/s (64 MiB, best of 5)\n", memcpy_gbps());
	vur_user_close(d);
	return ret < 0;
}
