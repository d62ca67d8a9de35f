/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness of the engine tests end to end: one real backend as a child
 * process serving two devices, end points a and b on them (rdma_pair.h),
 * started from the test's command line and stopped with SIGTERM; waiting
 * for and checking their CQEs; connected RC pairs; the data patterns.
 * Header only, as tap.h is: its checks count in the test that includes it.
 */
#ifndef VUSER_TEST_RDMA_E2E_H
#define VUSER_TEST_RDMA_E2E_H

#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "child.h"
#include "rdma_pair.h"
#include "tap.h"
#include "telemetry.h"
#include "vur_user.h"

/* How long a test waits for the backend, a socket or a CQE. */
#define RDMA_E2E_WAIT_MS 10000

/* The backend a test drives and what it was started with. */
struct rdma_e2e {
	const char *backend_bin;
	const char *const *eal_args; /* more EAL arguments for the backend, or NULL */
	struct child backend;
};

/*
 * Take "BACKEND [EAL arguments...]" from the command line into @t and
 * ignore SIGPIPE: 0, or -1 after a "Bail out!" line.
 */
static inline int
rdma_e2e_args(struct rdma_e2e *t, int argc, char **argv)
{
	if (argc < 2) {
		printf("Bail out! usage: %s BACKEND\n", argv[0]);
		return -1;
	}
	t->backend_bin = argv[1];
	if (argc > 2)
		t->eal_args = (const char *const *)argv + 2; /* NULL-terminated, as argv is */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Open @e on the backend's socket @sock. */
static inline int
rdma_e2e_open_ep(struct rdma_e2e *t, struct rdma_ep *e, unsigned int sock, uint8_t last_octet,
		size_t buf_len, size_t mem_size)
{
	char path[128];

	child_sock(&t->backend, sock, path, sizeof(path));
	return rdma_ep_open(e, path, last_octet, buf_len, mem_size);
}

/*
 * Start the backend with two sockets and wait for them, then open @a on
 * the first and @b on the second (GIDs ending in 1 and 2), each with
 * @buf_len of buffer in @mem_size of driver memory; every step a TAP
 * check. Whether the backend came up (an end point may still have failed).
 */
static inline bool
rdma_e2e_start(struct rdma_e2e *t, struct rdma_ep *a, struct rdma_ep *b, size_t buf_len,
		size_t mem_size)
{
	const struct child_opts o = { .eal_args = t->eal_args, .n_sockets = 2 };
	int ret = child_start(&t->backend, t->backend_bin, &o);

	if (ret == 0)
		ret = child_wait_socket(&t->backend, RDMA_E2E_WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0)
		return false;
	TAP_EQ(rdma_e2e_open_ep(t, a, 0, 1, buf_len, mem_size), 0);
	TAP_EQ(rdma_e2e_open_ep(t, b, 1, 2, buf_len, mem_size), 0);
	return true;
}

/*
 * Counter @name of @e's device in the backend's telemetry, or UINT64_MAX
 * (tests that call it link telemetry.c).
 */
static inline uint64_t
rdma_e2e_counter(const struct rdma_e2e *t, const struct rdma_ep *e, const char *name)
{
	char cmd[200], json[16384];
	uint64_t v = 0;

	snprintf(cmd, sizeof(cmd), "/vur/device,%s", e->path);
	if (telemetry_query(t->backend.prefix, cmd, json, sizeof(json)) < 0 ||
			telemetry_field(json, name, &v) < 0)
		return UINT64_MAX;
	return v;
}

/* A RoCE command of @d as a driver could send it: the ack status byte, or -1. */
static inline int
rdma_raw(struct vur_user_dev *d, uint8_t cmd, const void *data, uint32_t len, void *ack,
		uint32_t ack_len)
{
	uint8_t status = 0xff; /* written by every answered command */
	int ret = vur_user_ctrl(d, vur_user_roce_class(d), cmd, data, len, ack, ack_len, &status);

	return ret < 0 ? -1 : status;
}

/* Whether both devices are open; if not, the case fails. */
static inline bool
rdma_e2e_ready(const struct rdma_ep *a, const struct rdma_ep *b)
{
	if (a->d == NULL || b->d == NULL) {
		tap_case_failed = 1;
		return false;
	}
	return true;
}

/*
 * Close both devices and stop the backend with SIGTERM: it exits with
 * status 0 (no crash, no leak under LeakSanitizer). Its log on any failure.
 */
static inline void
rdma_e2e_stop(struct rdma_e2e *t, struct rdma_ep *a, struct rdma_ep *b)
{
	int status;

	if (a->d != NULL)
		vur_user_close(a->d);
	if (b->d != NULL)
		vur_user_close(b->d);
	a->d = b->d = NULL;
	status = child_stop(&t->backend, SIGTERM, RDMA_E2E_WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&t->backend);
}

/*
 * For tests whose devices come from the admin RPC: take the command line,
 * start the backend with its one default socket and wait for it. 0, or -1
 * after a "Bail out!" line and the backend's log.
 */
static inline int
rdma_e2e_start_admin(struct rdma_e2e *t, int argc, char **argv)
{
	struct child_opts o = { .eal_args = NULL, .n_sockets = 1 };

	if (rdma_e2e_args(t, argc, argv) < 0)
		return -1;
	o.eal_args = t->eal_args;
	if (child_start(&t->backend, t->backend_bin, &o) != 0 ||
			child_wait_socket(&t->backend, RDMA_E2E_WAIT_MS) != 0) {
		printf("Bail out! the backend did not start\n");
		child_dump_log(&t->backend);
		child_cleanup(&t->backend);
		return -1;
	}
	return 0;
}

/*
 * After the cases of such a test (its devices closed): stop the backend
 * with SIGTERM, one more case that it exits with status 0 (its log on any
 * failure), clean up. The test's exit status.
 */
static inline int
rdma_e2e_end_admin(struct rdma_e2e *t)
{
	int status = child_stop(&t->backend, SIGTERM, RDMA_E2E_WAIT_MS);

	tap_case_failed = 0;
	TAP_CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&t->backend);
	tap_failed += tap_case_failed;
	child_cleanup(&t->backend);
	return tap_done();
}

/* @text as the GID RoCE v2 uses for it: IPv4-mapped, or the IPv6 address. */
static inline void
rdma_e2e_gid_of(const char *text, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (inet_pton(AF_INET, text, gid + 12) == 1)
		gid[10] = gid[11] = 0xff;
	else
		TAP_CHECK(inet_pton(AF_INET6, text, gid) == 1);
}

/* Milliseconds of CLOCK_MONOTONIC. */
static inline uint64_t
rdma_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next CQE of @e's CQ within RDMA_E2E_WAIT_MS: 1, or 0 on timeout. */
static inline int
rdma_next_cqe(struct rdma_ep *e, struct vur_user_wc *wc)
{
	uint64_t end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
	int n;

	do {
		n = vur_user_poll_cq(e->d, e->cqn, wc, 1);
		if (n != 0)
			return n;
		poll(NULL, 0, 1);
	} while (rdma_now_ms() < end);
	return 0;
}

/* Whether @e's CQ has nothing more after @ms. */
static inline bool
rdma_no_cqe(struct rdma_ep *e, int ms)
{
	struct vur_user_wc wc;

	poll(NULL, 0, ms);
	return vur_user_poll_cq(e->d, e->cqn, &wc, 1) == 0;
}

/* A byte_len or qpn that rdma_expect_cqe() does not check. */
#define RDMA_CQE_ANY UINT32_MAX

/*
 * The next CQE of @e is @wr_id's with @status, and when it succeeds
 * @opcode and (unless RDMA_CQE_ANY) @byte_len; on QP @qpn (unless
 * RDMA_CQE_ANY). If not, the case fails, naming @line. The CQE in @out
 * (may be NULL) when it matches.
 */
static inline bool
rdma_expect_cqe(struct rdma_ep *e, uint64_t wr_id, uint8_t status, uint8_t opcode,
		uint32_t byte_len, uint32_t qpn, struct vur_user_wc *out, int line)
{
	struct vur_user_wc wc;

	if (rdma_next_cqe(e, &wc) != 1) {
		printf("# line %d: no CQE for wr_id %#" PRIx64 "\n", line, wr_id);
		tap_case_failed = 1;
		return false;
	}
	if (wc.wr_id != wr_id || wc.status != status ||
			(status == 0 &&
					(wc.opcode != opcode ||
							(byte_len != RDMA_CQE_ANY &&
									wc.byte_len != byte_len))) ||
			(qpn != RDMA_CQE_ANY && wc.qp_num != qpn)) {
		printf("# line %d: CQE wr_id %#" PRIx64 " status %u (%s) opcode %u len %u qp %u, "
		       "want %#" PRIx64 " %u %u %" PRId64 " %" PRId64 "\n",
				line, wc.wr_id, wc.status, vur_user_wc_status_str(wc.status),
				wc.opcode, wc.byte_len, wc.qp_num, wr_id, status, opcode,
				byte_len == RDMA_CQE_ANY ? -1 : (int64_t)byte_len,
				qpn == RDMA_CQE_ANY ? -1 : (int64_t)qpn);
		tap_case_failed = 1;
		return false;
	}
	if (out != NULL)
		*out = wc;
	return true;
}
#define EXPECT_CQE(e, id, st, op) \
	rdma_expect_cqe(e, id, st, op, RDMA_CQE_ANY, RDMA_CQE_ANY, NULL, __LINE__)
#define EXPECT_CQE_WC(e, id, st, op, wc) \
	rdma_expect_cqe(e, id, st, op, RDMA_CQE_ANY, RDMA_CQE_ANY, wc, __LINE__)
#define EXPECT_CQE_ON(e, id, st, op, len, qpn) \
	rdma_expect_cqe(e, id, st, op, len, qpn, NULL, __LINE__)

/*
 * A fresh pair of connected RC QPs, @a's @qa to @b's @qb, with the retry
 * settings of rdma_connect_qp(); a TAP check. Whether it worked.
 */
static inline bool
rdma_rc_pair_retry(struct rdma_ep *a, struct rdma_ep *b, uint32_t *qa, uint32_t *qb,
		uint8_t rnr_retry, uint8_t timeout, uint8_t retry_cnt)
{
	int ret = rdma_create_qp(a, VUR_USER_QPT_RC, qa);

	if (ret == 0)
		ret = rdma_create_qp(b, VUR_USER_QPT_RC, qb);
	if (ret == 0)
		ret = rdma_connect_qp(
				a, *qa, VUR_USER_QPT_RC, b, *qb, rnr_retry, timeout, retry_cnt);
	if (ret == 0)
		ret = rdma_connect_qp(
				b, *qb, VUR_USER_QPT_RC, a, *qa, rnr_retry, timeout, retry_cnt);
	TAP_EQ(ret, 0);
	return ret == 0;
}

/* The same with RNR retries without end, timeout 14 (about 67 ms) and 7 retries. */
static inline bool
rdma_rc_pair(struct rdma_ep *a, struct rdma_ep *b, uint32_t *qa, uint32_t *qb)
{
	return rdma_rc_pair_retry(a, b, qa, qb, 7, 14, 7);
}

/* Destroy @a's @qa and @b's @qb, each a TAP check. */
static inline void
rdma_pair_done(struct rdma_ep *a, struct rdma_ep *b, uint32_t qa, uint32_t qb)
{
	TAP_EQ(vur_user_destroy_qp(a->d, qa), 0);
	TAP_EQ(vur_user_destroy_qp(b->d, qb), 0);
}

/*
 * @len bytes of a pattern at @p: byte i is (i * @mul + @seed) ^ (i >> @shift).
 * Each test keeps the constants its checks were written with.
 */
static inline void
rdma_fill_pattern(uint8_t *p, size_t len, uint32_t seed, uint32_t mul, unsigned int shift)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)((i * mul + seed) ^ (i >> shift));
}

/* The pattern of the fast registration, memory window and SRQ tests. */
static inline void
rdma_fill(uint8_t *p, size_t len, uint32_t seed)
{
	rdma_fill_pattern(p, len, seed, 151, 9);
}

#endif /* VUSER_TEST_RDMA_E2E_H */
