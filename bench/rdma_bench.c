/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA engine between two devices of one backend: RC WRITE, READ and
 * SEND bandwidth from 64 B to 1 MiB, round-trip latency (p50, p99) of 8 B
 * and 4 KiB SENDs, the 64 B SEND message rate to a QP's own receive queue
 * and through a shared receive queue, and the rate and round trip of RC
 * FETCH_AND_ADD, beside the single-core memcpy bandwidth of the same run.
 * It prints figures; it never fails on a timing.
 *
 *   rdma_bench SOCKET0 SOCKET1 [SECONDS_PER_FIGURE [all|bw|rate|rtt|srq|atomic|layout]]
 *
 * The QPs and CQs are on rings in driver memory when the device offers
 * them (issue 28), as virtio-user puts them by default; "layout" compares
 * the 64 B SEND message rate and RC WRITE bandwidth of a pair on rings and
 * of a pair on the RFC v2 virtqueues, taken in turn in the same run.
 *
 * With VUR_BENCH_PREFIX set to the backend's EAL file prefix, the message
 * rate comes with the data path's busy time (telemetry's /vur/switch
 * busy_ns): the share of the run its threads spent in passes that found
 * work, and the rate per busy second, what one data-path core sustains when
 * the client is not the limit.
 *
 * The client drives the devices through libvirtio_rdma_user's data verbs
 * (vur_user_post_send/post_recv/poll_cq) and busy-polls its CQs (it owns
 * its core, as a benchmark may); the backend's data path runs on its own
 * thread.
 *
 * A figure is printed only for a run whose every WR completed with
 * success. The first WR that fails (its status by name, the QPs' states),
 * a post the library refuses, or no completion for STALL_S seconds ends
 * the benchmark with status 1 and no figure for that run or after it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "rdma_pair.h"
#include "telemetry.h"
#include "vur_rings.h"

#define BUF_LEN   (4u << 20)
#define MEM_SIZE  (16u << 20)
#define DEPTH     16 /* WRs in flight per QP */
#define LAT_N     2000
#define STALL_S   10.0 /* no completion for this long: the run failed */
#define DIM(a)    (sizeof(a) / sizeof((a)[0]))
#define WORD_IOVA 0x10000 /* where b's MR with REMOTE_ATOMIC starts */

static struct rdma_ep a, b;
static uint32_t qa, qb;
static uint32_t srqn;   /* b's SRQ, when receives go there (rate through an SRQ) */
static bool use_srq;    /* post() posts b's receives to srqn, not to qb */
static uint64_t a_word; /* a's driver address of the 8 bytes an atomic's result lands in */
static struct vur_user_mr b_word; /* b's MR with REMOTE_ATOMIC over the word atomics add to */
static char figure[64];           /* what is being measured, for a failure's report */
static bool line_open;            /* stdout has a line of figures without its end */

static const char *const qp_state_names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

static const char *
qp_state(struct rdma_ep *e, uint32_t qpn)
{
	struct vur_user_qp_attr at;

	if (vur_user_query_qp(e->d, qpn, 0, &at) < 0)
		return "unknown";
	return at.qp_state < DIM(qp_state_names) ? qp_state_names[at.qp_state] : "unknown";
}

/* The run failed: say what and why, with both QPs' states, and end with status 1. */
static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	if (line_open)
		printf("\n");
	fflush(stdout);
	fprintf(stderr, "rdma_bench: %s: ", figure);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (QP %u on the first device %s, QP %u on the second %s); no figure\n", qa,
			qp_state(&a, qa), qb, qp_state(&b, qb));
	exit(1);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Up to @max CQEs of @e's CQ without waiting: how many; a failed one ends the run. */
static int
reap(struct rdma_ep *e, int max)
{
	struct vur_user_wc wc[DEPTH];
	int got = vur_user_poll_cq(e->d, e->cqn, wc, max < DEPTH ? max : DEPTH);

	if (got < 0)
		fail("polling the CQ of %s: %s", e->path, strerror(-got));
	for (int i = 0; i < got; i++)
		if (wc[i].status != VUR_USER_WC_SUCCESS)
			fail("WR %llu on QP %u of %s failed: status %s (%u)",
					(unsigned long long)wc[i].wr_id, wc[i].qp_num, e->path,
					vur_user_wc_status_str(wc[i].status), wc[i].status);
	return got;
}

/* Wait for @n successful CQEs of @e's CQ (a stall ends the run). */
static void
cqes(struct rdma_ep *e, int n)
{
	double last = now_s();
	int got;

	for (; n > 0; n -= got) {
		got = reap(e, n);
		if (got > 0)
			last = now_s();
		else if (now_s() - last > STALL_S)
			fail("no completion on %s for %.0f s", e->path, STALL_S);
	}
}

/* A post the library refused ends the run. */
static void
posted(int ret, const char *what)
{
	if (ret < 0)
		fail("posting %s: %s", what, strerror(-ret));
}

/* @n WRs of @opcode and @len from a, (SEND) with their receives on b: one call each. */
static void
post(uint8_t opcode, uint32_t len, unsigned int n)
{
	struct vur_user_sge s = rdma_sge(&a, 0, len), r = rdma_sge(&b, 0, len);

	/* an atomic's result: 8 bytes of a's buffer past what the others use */
	if (opcode == VUR_USER_WR_ATOMIC_FETCH_AND_ADD)
		s = rdma_sge(&a, a_word - a.addr, 8);
	struct vur_user_send_wr q[DEPTH];
	struct vur_user_recv_wr rq[DEPTH];

	for (unsigned int i = 0; i < n; i++) {
		q[i] = rdma_req(i, opcode, VUR_USER_SEND_SIGNALED, &s, 1);
		q[i].rdma.remote_addr = b.addr;
		q[i].rdma.rkey = b.mr.rkey;
		rq[i] = (struct vur_user_recv_wr){ .wr_id = i, .sg_list = &r, .num_sge = 1 };
	}
	if (opcode == VUR_USER_WR_SEND && use_srq)
		posted(vur_user_post_srq_recv(b.d, srqn, rq, n, NULL), "receives to the SRQ");
	else if (opcode == VUR_USER_WR_SEND)
		posted(vur_user_post_recv(b.d, qb, rq, n, NULL), "receives");
	if (opcode == VUR_USER_WR_ATOMIC_FETCH_AND_ADD)
		for (unsigned int i = 0; i < n; i++) {
			q[i].atomic.remote_addr = WORD_IOVA;
			q[i].atomic.rkey = b_word.rkey;
			q[i].atomic.compare_add = 1;
			q[i].atomic.swap = 0;
		}
	posted(vur_user_post_send(a.d, qa, q, n, NULL), "sends");
}

/*
 * Messages of @len per second for @secs, keeping DEPTH WRs in flight: the
 * free room refilled with one post per side, the CQs reaped without waiting.
 */
static double
rate(uint8_t opcode, uint32_t len, double secs)
{
	uint64_t posted = 0, sent = 0, received = 0;
	double t0 = now_s(), t = t0, last = t0;
	bool send = opcode == VUR_USER_WR_SEND;
	int got;

	while (t - t0 < secs || sent < posted || (send && received < posted)) {
		uint64_t busy = posted - (send && received < sent ? received : sent);

		if (t - t0 < secs && busy < DEPTH) {
			post(opcode, len, DEPTH - (unsigned int)busy);
			posted += DEPTH - busy;
		}
		got = reap(&a, DEPTH);
		sent += got;
		if (send) {
			int r = reap(&b, DEPTH);

			received += r;
			got += r;
		}
		t = now_s();
		if (got > 0)
			last = t;
		else if (t - last > STALL_S)
			fail("no completion for %.0f s (%llu of %llu WRs done)", STALL_S,
					(unsigned long long)sent, (unsigned long long)posted);
	}
	return sent / (t - t0);
}

static void
post_recv(struct rdma_ep *e, uint32_t qpn, uint32_t len)
{
	struct vur_user_sge r = rdma_sge(e, 0, len);

	posted(rdma_post_recv(e, qpn, 0, &r, 1), "a receive");
}

static int
cmp_double(const void *x, const void *y)
{
	double d = *(const double *)x - *(const double *)y;

	return (d > 0) - (d < 0);
}

/* SEND ping-pong a -> b -> a: round trips of @len, p50 and p99 in microseconds. */
static void
latency(uint32_t len, double *p50, double *p99)
{
	static double rtt[LAT_N];
	struct vur_user_send_wr q;
	struct vur_user_sge s;

	for (int i = 0; i < LAT_N; i++) {
		double t0 = now_s();

		post_recv(&b, qb, len);
		post_recv(&a, qa, len);
		s = rdma_sge(&a, 0, len);
		q = rdma_req(1, VUR_USER_WR_SEND, 0, &s, 1);
		posted(rdma_post_send(&a, qa, &q), "a send");
		cqes(&b, 1);
		s = rdma_sge(&b, 0, len);
		posted(rdma_post_send(&b, qb, &q), "a send");
		cqes(&a, 1);
		rtt[i] = (now_s() - t0) * 1e6;
	}
	qsort(rtt, LAT_N, sizeof(rtt[0]), cmp_double);
	*p50 = rtt[LAT_N / 2];
	*p99 = rtt[LAT_N * 99 / 100];
}

/* RC WRITE, READ and SEND bandwidth by message size, beside memcpy of each size. */
static void
bandwidth(double secs)
{
	static const uint32_t sizes[] = { 64, 1024, 4096, 65536, 1u << 20 };
	static const struct {
		const char *name;
		uint8_t op;
	} ops[] = { { "WRITE", VUR_USER_WR_RDMA_WRITE }, { "READ", VUR_USER_WR_RDMA_READ },
		{ "SEND", VUR_USER_WR_SEND } };
	double memcpy_gb[DIM(sizes)], r;

	printf("reference: memcpy %.2f GB/s (one core, 64 MiB: memory-bound)\n", memcpy_gbps());
	/*
	 * The engine copies each message between the same two buffers again
	 * and again, as the loop below does: the scale for each size.
	 */
	printf("  memcpy");
	for (size_t i = 0; i < DIM(sizes); i++) {
		memcpy_gb[i] = memcpy_gbps_len(sizes[i]);
		printf(" %7u B: %6.3f        ", sizes[i], memcpy_gb[i]);
	}
	printf("\nRC bandwidth, %d WRs in flight, path MTU 1024 (GB/s, and x memcpy of that "
	       "size):\n",
			DEPTH);
	for (size_t o = 0; o < DIM(ops); o++) {
		printf("  %-6s", ops[o].name);
		line_open = true;
		for (size_t i = 0; i < DIM(sizes); i++) {
			snprintf(figure, sizeof(figure), "RC %s bandwidth, %u B", ops[o].name,
					sizes[i]);
			fflush(stdout);
			r = rate(ops[o].op, sizes[i], secs);
			printf(" %7u B: %6.3f (%.2fx)", sizes[i], r * sizes[i] / 1e9,
					r * sizes[i] / 1e9 / memcpy_gb[i]);
		}
		printf("\n");
		line_open = false;
	}
}

/* The data-path threads' busy time, summed (/vur/switch busy_ns); false when unknown. */
static bool
busy_ns(uint64_t *sum)
{
	const char *prefix = getenv("VUR_BENCH_PREFIX");
	char json[8192], key[16];
	uint64_t v;

	*sum = 0;
	if (prefix == NULL || telemetry_query(prefix, "/vur/switch", json, sizeof(json)) < 0)
		return false;
	for (unsigned int i = 0;; i++) {
		snprintf(key, sizeof(key), "dp%u", i);
		if (telemetry_field(json, key, &v) < 0)
			return i > 0;
		*sum += v;
	}
}

static void
message_rate(double secs)
{
	uint64_t busy0, busy;
	bool known;
	double t0, r, t;

	snprintf(figure, sizeof(figure), "64 B SEND message rate");
	known = busy_ns(&busy0);
	t0 = now_s();
	r = rate(VUR_USER_WR_SEND, 64, secs);
	t = now_s() - t0;

	printf("64 B SEND message rate: %.0f messages/s (one data-path thread)\n", r);
	if (!known || !busy_ns(&busy) || busy <= busy0)
		return;
	busy -= busy0;
	/* the sender's engine, the switch and the receiver's all run on the data path */
	printf("  data path busy %.0f%% of the run: %.0f messages per busy second\n",
			100.0 * busy / 1e9 / t, r * t / (busy / 1e9));
}

static void
round_trips(void)
{
	double p50, p99;

	for (uint32_t len = 8; len <= 4096; len *= 512) {
		snprintf(figure, sizeof(figure), "SEND round trip, %u B", len);
		latency(len, &p50, &p99);
		printf("SEND round trip %4u B: p50 %.1f us, p99 %.1f us (%d round trips)\n", len,
				p50, p99, LAT_N);
	}
}

/*
 * The 64 B SEND message rate of a second pair of QPs whose receiver takes
 * its receives from an SRQ, beside the first pair's own receive queue in
 * the same run: what sharing one receive ring costs.
 */
static void
srq_rate(double secs)
{
	struct vur_user_srq_attr sa = { .max_wr = 4 * DEPTH, .max_sge = 1 };
	struct vur_user_qp_init_attr ia = {
		.pdn = b.pdn,
		.qp_type = VUR_USER_QPT_RC,
		.send_cqn = b.cqn,
		.recv_cqn = b.cqn,
		.cap = { .max_send_wr = 32, .max_send_sge = 1 },
		.flags = VUR_USER_QP_F_SRQ,
	};
	uint32_t qa1 = qa, qb1 = qb, qa2, qb2;
	double own, shared;

	snprintf(figure, sizeof(figure), "64 B SEND message rate, own receive queue");
	own = rate(VUR_USER_WR_SEND, 64, secs);
	snprintf(figure, sizeof(figure), "setting up an SRQ");
	if (vur_user_create_srq(b.d, b.pdn, &sa, &srqn) < 0)
		fail("the device made no SRQ");
	ia.srqn = srqn;
	if (rdma_create_qp(&a, VUR_USER_QPT_RC, &qa2) < 0 ||
			vur_user_create_qp(b.d, &ia, &qb2) < 0 ||
			rdma_connect_qp(&a, qa2, VUR_USER_QPT_RC, &b, qb2, 7, 14, 7) < 0 ||
			rdma_connect_qp(&b, qb2, VUR_USER_QPT_RC, &a, qa2, 7, 14, 7) < 0)
		fail("no QP pair on the SRQ");
	qa = qa2;
	qb = qb2;
	use_srq = true;
	snprintf(figure, sizeof(figure), "64 B SEND message rate, through an SRQ");
	shared = rate(VUR_USER_WR_SEND, 64, secs);
	use_srq = false;
	qa = qa1;
	qb = qb1;
	printf("64 B SEND message rate: own receive queue %.0f/s, through an SRQ %.0f/s (%.2fx)\n",
			own, shared, shared / own);
}

/*
 * RC FETCH_AND_ADD on one 8-byte word of b's: the rate with DEPTH in
 * flight (each a round trip the responder answers from its atomic
 * resources) and the round trip of one at a time, beside the 8 B SEND's.
 */
static void
atomics(double secs)
{
	struct vur_user_qp_attr at = {
		.qp_state = VUR_USER_QPS_RTS,
		.qp_access_flags = VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
				VUR_USER_ACCESS_REMOTE_READ | VUR_USER_ACCESS_REMOTE_ATOMIC,
	};
	struct vur_user_sge s;
	struct vur_user_send_wr q;
	static double rtt[LAT_N];
	double r;

	snprintf(figure, sizeof(figure), "RC FETCH_AND_ADD");
	if (vur_user_modify_qp(b.d, qb, &at, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS) < 0)
		fail("b's QP takes no REMOTE_ATOMIC");
	/* the last 4 KiB page of b's buffer, 8-byte aligned */
	memset(b.buf + BUF_LEN - 4096, 0, 4096);
	if (vur_user_reg_mr(b.d, b.pdn, VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_ATOMIC,
			    b.buf + BUF_LEN - 4096, 4096, WORD_IOVA, &b_word) < 0)
		fail("no MR with REMOTE_ATOMIC");
	r = rate(VUR_USER_WR_ATOMIC_FETCH_AND_ADD, 8, secs);
	for (int i = 0; i < LAT_N; i++) {
		double t0 = now_s();

		s = rdma_sge(&a, a_word - a.addr, 8);
		q = rdma_req(1, VUR_USER_WR_ATOMIC_FETCH_AND_ADD, VUR_USER_SEND_SIGNALED, &s, 1);
		q.atomic.remote_addr = WORD_IOVA;
		q.atomic.rkey = b_word.rkey;
		q.atomic.compare_add = 1;
		posted(rdma_post_send(&a, qa, &q), "an atomic");
		cqes(&a, 1);
		rtt[i] = (now_s() - t0) * 1e6;
	}
	qsort(rtt, LAT_N, sizeof(rtt[0]), cmp_double);
	printf("RC FETCH_AND_ADD: %.0f/s with %d in flight; round trip p50 %.1f us, p99 %.1f us\n",
			r, DEPTH, rtt[LAT_N / 2], rtt[LAT_N * 99 / 100]);
}

/* The QPs and CQs the figures use: a pair and a CQ per side. */
struct pair {
	uint32_t qa, qb, cqa, cqb;
};

static void
use(const struct pair *p)
{
	qa = p->qa;
	qb = p->qb;
	a.cqn = p->cqa;
	b.cqn = p->cqb;
}

/* A pair of RC QPs with their CQs, in @layout (enum vur_user_layout). */
static void
pair_new(uint8_t layout, struct pair *p)
{
	struct vur_user_qp_init_attr ia = {
		.qp_type = VUR_USER_QPT_RC,
		.cap = { .max_send_wr = 32,
				.max_recv_wr = 32,
				.max_send_sge = 1,
				.max_recv_sge = 1 },
		.layout = layout,
	};

	if (vur_user_create_cq_ex(a.d, 4 * DEPTH, layout, &p->cqa) < 0 ||
			vur_user_create_cq_ex(b.d, 4 * DEPTH, layout, &p->cqb) < 0)
		fail("no CQs in layout %u", layout);
	ia.pdn = a.pdn;
	ia.send_cqn = ia.recv_cqn = p->cqa;
	if (vur_user_create_qp(a.d, &ia, &p->qa) < 0)
		fail("no QP in layout %u", layout);
	ia.pdn = b.pdn;
	ia.send_cqn = ia.recv_cqn = p->cqb;
	if (vur_user_create_qp(b.d, &ia, &p->qb) < 0 ||
			rdma_connect_qp(&a, p->qa, VUR_USER_QPT_RC, &b, p->qb, 7, 14, 7) < 0 ||
			rdma_connect_qp(&b, p->qb, VUR_USER_QPT_RC, &a, p->qa, 7, 14, 7) < 0)
		fail("no connected pair in layout %u", layout);
}

/*
 * Rings against virtqueues in the same run: each figure taken on a pair of
 * each layout in turn, twice (ABAB), so that a drift of the machine shows.
 */
static void
layouts(double secs)
{
	static const char *const names[] = { "rings", "virtqueues" };
	struct pair saved = { qa, qb, a.cqn, b.cqn }, p[2];
	double r;

	if (vur_user_ring_queues(a.d) == 0 || vur_user_ring_queues(b.d) == 0) {
		printf("layout: the device offers no rings; nothing to compare\n");
		return;
	}
	snprintf(figure, sizeof(figure), "setting up the two layouts");
	pair_new(VUR_USER_LAYOUT_RINGS, &p[0]);
	pair_new(VUR_USER_LAYOUT_VIRTQUEUES, &p[1]);
	printf("rings vs virtqueues (%d WRs in flight, taken in turn, twice):\n", DEPTH);
	for (int round = 0; round < 2; round++)
		for (int l = 0; l < 2; l++) {
			use(&p[l]);
			snprintf(figure, sizeof(figure), "64 B SEND message rate on %s", names[l]);
			r = rate(VUR_USER_WR_SEND, 64, secs);
			printf("  %-10s 64 B SEND %9.0f messages/s", names[l], r);
			line_open = true;
			for (uint32_t len = 65536; len <= (1u << 20); len *= 16) {
				snprintf(figure, sizeof(figure), "RC WRITE %u B on %s", len,
						names[l]);
				fflush(stdout);
				r = rate(VUR_USER_WR_RDMA_WRITE, len, secs);
				printf("  WRITE %7u B %6.2f GB/s", len, r * len / 1e9);
			}
			printf("\n");
			line_open = false;
		}
	use(&saved);
}

int
main(int argc, char **argv)
{
	double secs = argc > 3 ? atof(argv[3]) : 1.0;
	const char *what = argc > 4 ? argv[4] : "all";
	bool all = strcmp(what, "all") == 0;

	if (argc < 3 ||
			(!all && strcmp(what, "bw") != 0 && strcmp(what, "rate") != 0 &&
					strcmp(what, "rtt") != 0 && strcmp(what, "srq") != 0 &&
					strcmp(what, "atomic") != 0 &&
					strcmp(what, "layout") != 0)) {
		fprintf(stderr,
				"usage: %s SOCKET0 SOCKET1 [SECONDS_PER_FIGURE "
				"[all|bw|rate|rtt|srq|atomic|layout]]\n",
				argv[0]);
		return 2;
	}
	if (rdma_ep_open(&a, argv[1], 1, BUF_LEN, MEM_SIZE) < 0 ||
			rdma_ep_open(&b, argv[2], 2, BUF_LEN, MEM_SIZE) < 0 ||
			rdma_create_qp(&a, VUR_USER_QPT_RC, &qa) < 0 ||
			rdma_create_qp(&b, VUR_USER_QPT_RC, &qb) < 0 ||
			rdma_connect_qp(&a, qa, VUR_USER_QPT_RC, &b, qb, 7, 14, 7) < 0 ||
			rdma_connect_qp(&b, qb, VUR_USER_QPT_RC, &a, qa, 7, 14, 7) < 0) {
		fprintf(stderr, "rdma_bench: cannot set the two devices up\n");
		return 1;
	}
	a_word = a.addr + BUF_LEN - 8;
	if (all || strcmp(what, "bw") == 0)
		bandwidth(secs);
	if (all || strcmp(what, "rate") == 0)
		message_rate(secs);
	if (all || strcmp(what, "rtt") == 0)
		round_trips();
	if (all || strcmp(what, "srq") == 0)
		srq_rate(secs);
	if (all || strcmp(what, "atomic") == 0)
		atomics(secs);
	if (all || strcmp(what, "layout") == 0)
		layouts(secs);
	vur_user_close(a.d);
	vur_user_close(b.d);
	return 0;
}
