/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vur-wire: RC traffic between two devices of two backends joined by a
 * wire, every byte checked. One process per side, each the driver of its
 * own device; they talk over TCP (the address text of pp_exch.c, plus the
 * MAC, rkey and address of the target buffer) and then run RDMA WRITE,
 * RDMA READ or SEND from the client (the requester) to the server (the
 * target), with a number of WRs in flight.
 *
 * Every message has its own pattern (a function of the run's seed, the
 * message's index and the offset). WRITE: the server checks its buffer
 * after the client's last completion; READ: the client checks each message
 * on its completion; SEND: the server checks each receive on its
 * completion. Each case has a deadline: a WR that never completes is a
 * failure, not a hang. The exit status is 0 only if every case gave what it
 * expected: every WR SUCCESS and every byte right, or with --expect the
 * first WR failing with the status the case provokes (a bad rkey:
 * REM_ACCESS_ERR; a SEND longer than the receive: REM_INV_REQ_ERR) and the
 * rest flushed.
 *
 * The control exchange, one text line each way, on one TCP connection:
 *   client: CASE <op> <size> <count> <depth> <expect> <mtu> <timeout>
 *           <retry_cnt> <rnr_retry> <seed> <deadline_s> <endpoint>
 *   server: READY <endpoint>                (or REFUSED <reason>)
 *   client: END <WRs completed with SUCCESS, a prefix>
 *   server: RESULT <checked> <bad> <first bad message> <its offset>
 *           <receives> <receive statuses>
 *   client: BYE
 * where <endpoint> is "<pp_exch address> <MAC> <rkey> <addr>".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pp_exch.h"
#include "telemetry.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define DEFAULT_PORT   "18516"
#define LINE_LEN       512
#define MAX_SIZES      16
#define MAX_SIZE       (1u << 30)
#define MAX_DEPTH      1024
#define N_STATUS       (VUR_USER_WC_GENERAL_ERR + 1)
#define EXCH_MS        30000       /* a reply of the peer's control exchange */
#define CONNECT_MS     10000       /* a server that is not listening yet */
#define SEND_GRACE_MS  5000        /* receives still to come after the last ACK */
#define MIN_RNR_TIMER  12          /* 0.64 ms, as ibv_rc_pingpong */
#define BAD_RKEY_BIT   0x80000000u /* in the key's tag: same index, wrong key */
#define PAGE           4096u
#define SERVER_MEM_MIB 320
#define SEND_RQ_BYTES  (256u << 20)

enum op {
	OP_WRITE,
	OP_READ,
	OP_SEND,
	N_OPS,
};
static const char *const op_names[N_OPS] = { "write", "read", "send" };

enum expect {
	EXPECT_NONE,
	EXPECT_REM_ACCESS,  /* the server hands out a bad rkey (WRITE, READ) */
	EXPECT_REM_INV_REQ, /* the server posts receives of half the size (SEND) */
	N_EXPECTS,
};
static const char *const expect_names[N_EXPECTS] = { "none", "rem-access", "rem-inv-req" };
/* IBTA's names of the statuses (enum ibv_wc_status without IBV_WC_), one word each. */
static const char *const status_names[N_STATUS] = {
	[VUR_USER_WC_SUCCESS] = "SUCCESS",
	[VUR_USER_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
	[VUR_USER_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
	[VUR_USER_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
	[VUR_USER_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
	[VUR_USER_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
	[VUR_USER_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
	[VUR_USER_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
	[VUR_USER_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
	[VUR_USER_WC_REM_OP_ERR] = "REM_OP_ERR",
	[VUR_USER_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
	[VUR_USER_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
	[VUR_USER_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
	[VUR_USER_WC_FATAL_ERR] = "FATAL_ERR",
	[VUR_USER_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
	[VUR_USER_WC_GENERAL_ERR] = "GENERAL_ERR",
};
static const uint8_t expect_status[N_EXPECTS] = { VUR_USER_WC_SUCCESS, VUR_USER_WC_REM_ACCESS_ERR,
	VUR_USER_WC_REM_INV_REQ_ERR };

struct opts {
	const char *socket;
	const char *host; /* NULL: the server */
	const char *port;
	const char *telemetry; /* the backend's EAL file prefix, or NULL */
	uint8_t ops[N_OPS];
	unsigned int n_ops;
	uint32_t sizes[MAX_SIZES];
	unsigned int n_sizes;
	uint32_t count;
	uint32_t depth;
	uint8_t mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t expect;
	unsigned int deadline_s;
	size_t mem;
};

/* One case as the client asks it. */
struct wire_case {
	uint8_t op;
	uint32_t size;
	uint32_t count;
	uint32_t depth;
	uint8_t expect;
	uint8_t mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint32_t seed;
	unsigned int deadline_s;
};

/* What one side tells the other about its QP and buffer. */
struct endpoint {
	struct pp_dest pp;
	uint8_t mac[6];
	uint32_t rkey;
	uint64_t addr;
};

/* The device, open for the whole run. */
struct dev {
	struct vur_user_dev *d;
	const char *path;
	const char *telemetry;
	uint8_t mac[6];
	uint8_t gid[16];
	uint32_t pdn;
	struct vur_user_mr mr; /* DMA MR of all driver memory, every access */
	uint8_t max_rd_atomic;
};

/* A case's objects on one side. */
struct qp {
	uint32_t cqn;
	uint32_t qpn;
	uint32_t psn;
	bool has_cq, has_qp;
	uint8_t *buf;
	size_t buf_len;
};

/* The TCP control connection: buffered lines. */
struct conn {
	int fd;
	char buf[LINE_LEN];
	size_t len;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
ms_left(uint64_t end_ns)
{
	uint64_t now = now_ns();

	if (now >= end_ns)
		return 0;
	return (int)((end_ns - now + 999999) / 1000000);
}

static int
fail(const char *what, int ret)
{
	fprintf(stderr, "vur-wire: %s: %s\n", what, strerror(ret < 0 ? -ret : ret));
	return ret < 0 ? ret : -ret;
}

/* ---- the pattern: one 64-bit word per 8 bytes, unique per message and offset ---- */

static inline uint64_t
pattern_word(uint32_t seed, uint64_t msg, uint64_t word)
{
	/* splitmix64's finalizer: a bijection, so every (msg, word) differs */
	uint64_t x = ((msg << 32) | word) + (uint64_t)seed * 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void
pattern_fill(uint8_t *p, uint32_t len, uint32_t seed, uint64_t msg)
{
	uint32_t i;
	uint64_t w;

	for (i = 0; i + 8 <= len; i += 8) {
		w = pattern_word(seed, msg, i / 8);
		memcpy(p + i, &w, 8);
	}
	if (i < len) {
		w = pattern_word(seed, msg, i / 8);
		memcpy(p + i, &w, len - i);
	}
}

/* The offset of the first byte of @p that differs from message @msg's pattern, or -1. */
static int64_t
pattern_check(const uint8_t *p, uint32_t len, uint32_t seed, uint64_t msg)
{
	uint32_t i, j;
	uint64_t w;

	for (i = 0; i < len; i += 8) {
		uint32_t n = len - i < 8 ? len - i : 8;

		w = pattern_word(seed, msg, i / 8);
		if (memcmp(p + i, &w, n) == 0)
			continue;
		for (j = 0; j < n; j++)
			if (p[i + j] != ((const uint8_t *)&w)[j])
				return (int64_t)i + j;
	}
	return -1;
}

/* ---- the control connection ---- */

static int
conn_send(struct conn *c, const char *line)
{
	size_t len = strlen(line), done = 0;
	ssize_t n;

	while (done < len) {
		n = send(c->fd, line + done, len - done, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

/* A whole line already received: 1 with it in @line (without the newline), else 0. */
static int
conn_take(struct conn *c, char *line, size_t size)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t n;

	if (nl == NULL)
		return 0;
	n = (size_t)(nl - c->buf);
	if (n >= size)
		n = size - 1;
	memcpy(line, c->buf, n);
	line[n] = '\0';
	c->len -= (size_t)(nl - c->buf) + 1;
	memmove(c->buf, nl + 1, c->len);
	return 1;
}

/* Read what the socket has (it is readable): 0, or -EPROTO at EOF or for a line too long. */
static int
conn_fill(struct conn *c)
{
	ssize_t n;

	if (c->len == sizeof(c->buf))
		return -EPROTO;
	do
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPROTO;
	c->len += (size_t)n;
	return 0;
}

/* The next line within @timeout_ms (-1: no limit): 1, 0 on timeout, or -errno. */
static int
conn_line(struct conn *c, char *line, size_t size, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int ret;

	for (;;) {
		if (conn_take(c, line, size) == 1)
			return 1;
		ret = poll(&pfd, 1, timeout_ms < 0 ? -1 : ms_left(end));
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (ret == 0)
			return 0;
		ret = conn_fill(c);
		if (ret < 0)
			return ret;
	}
}

static void
endpoint_format(const struct endpoint *e, char *s, size_t size)
{
	char pp[PP_MSG_SIZE];

	pp_format(&e->pp, pp);
	snprintf(s, size, "%s %02x%02x%02x%02x%02x%02x %08" PRIx32 " %016" PRIx64, pp, e->mac[0],
			e->mac[1], e->mac[2], e->mac[3], e->mac[4], e->mac[5], e->rkey, e->addr);
}

/* @s: "<pp address> <mac> <rkey> <addr>": 0, or -EINVAL. */
static int
endpoint_parse(const char *s, struct endpoint *e)
{
	char pp[PP_MSG_SIZE + 1], mac[13];
	unsigned int m[6];

	if (sscanf(s, "%52s %12s %" SCNx32 " %" SCNx64, pp, mac, &e->rkey, &e->addr) != 4 ||
			strlen(pp) != PP_MSG_SIZE - 1 || strlen(mac) != 12 ||
			sscanf(mac, "%2x%2x%2x%2x%2x%2x", &m[0], &m[1], &m[2], &m[3], &m[4],
					&m[5]) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		e->mac[i] = (uint8_t)m[i];
	return pp_parse(pp, &e->pp);
}

/* ---- the device and a case's QP ---- */

static int
dev_open(struct dev *v, const struct opts *o)
{
	struct vur_user_params p;
	struct vur_user_config cfg;
	struct vur_user_device_attr attr;
	uint16_t queue = 64;
	int ret;

	/* room for the CQEs of 2 * depth receives and WRs in every RDMA virtqueue */
	while (queue < 4 * o->depth + 2)
		queue *= 2;
	vur_user_params_init(&p, o->socket);
	p.rdma_queue_size = queue;
	p.mem_size = o->mem;
	v->path = o->socket;
	v->telemetry = o->telemetry;
	ret = vur_user_open(&p, &v->d);
	if (ret < 0)
		return fail(o->socket, ret);
	ret = vur_user_read_config(v->d, &cfg);
	if (ret == 0)
		ret = vur_user_query_device(v->d, &attr);
	if (ret < 0)
		return fail("reading the device", ret);
	memcpy(v->mac, cfg.mac, 6);
	v->max_rd_atomic = attr.max_qp_rd_atom > 255 ? 255 : (uint8_t)attr.max_qp_rd_atom;
	pp_link_local_gid(v->mac, v->gid);
	ret = vur_user_add_gid(v->d, 0, v->gid);
	if (ret == 0)
		ret = vur_user_create_pd(v->d, &v->pdn);
	if (ret == 0)
		ret = vur_user_get_dma_mr(v->d, v->pdn,
				VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
						VUR_USER_ACCESS_REMOTE_READ,
				&v->mr);
	return ret < 0 ? fail("GID, PD or MR", ret) : 0;
}

/* A CQ of @cqe entries, an RC QP in INIT with @send_wr and @recv_wr slots, and @len bytes. */
static int
qp_create(struct dev *v, struct qp *q, uint32_t cqe, uint32_t send_wr, uint32_t recv_wr, size_t len)
{
	struct vur_user_qp_init_attr ia = { .pdn = v->pdn, .qp_type = VUR_USER_QPT_RC };
	struct vur_user_qp_attr at = {
		.qp_state = VUR_USER_QPS_INIT,
		.qp_access_flags = VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
				VUR_USER_ACCESS_REMOTE_READ,
	};
	int ret;

	memset(q, 0, sizeof(*q));
	q->buf_len = len;
	q->buf = vur_user_alloc_buf(v->d, len);
	if (q->buf == NULL)
		return fail("allocating the buffer (see --mem)", -errno);
	ret = vur_user_create_cq(v->d, cqe, &q->cqn);
	if (ret < 0)
		return fail("creating the CQ", ret);
	q->has_cq = true;
	ia.send_cqn = ia.recv_cqn = q->cqn;
	ia.cap = (struct vur_user_qp_cap){
		.max_send_wr = send_wr, .max_recv_wr = recv_wr, .max_send_sge = 1, .max_recv_sge = 1
	};
	ret = vur_user_create_qp(v->d, &ia, &q->qpn);
	if (ret < 0)
		return fail("creating the QP", ret);
	q->has_qp = true;
	q->psn = (uint32_t)lrand48() & 0xffffff;
	ret = vur_user_modify_qp(v->d, q->qpn, &at, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS);
	return ret < 0 ? fail("QP to INIT", ret) : 0;
}

/* RTR and RTS towards @peer with the case's attributes, as rdma-core's tools set them. */
static int
qp_connect(struct dev *v, struct qp *q, const struct wire_case *k, const struct endpoint *peer)
{
	struct vur_user_qp_attr at = {
		.qp_state = VUR_USER_QPS_RTR,
		.path_mtu = k->mtu,
		.dest_qp_num = peer->pp.qpn,
		.rq_psn = peer->pp.psn,
		.max_dest_rd_atomic = v->max_rd_atomic,
		.min_rnr_timer = MIN_RNR_TIMER,
		.timeout = k->timeout,
		.retry_cnt = k->retry_cnt,
		.rnr_retry = k->rnr_retry,
		.sq_psn = q->psn,
		.max_rd_atomic = (uint8_t)(k->depth < v->max_rd_atomic ? k->depth
								       : v->max_rd_atomic),
	};
	int ret;

	memcpy(at.ah_attr.grh.dgid, peer->pp.gid, 16);
	at.ah_attr.grh.hop_limit = 64;
	memcpy(at.ah_attr.dmac, peer->mac, 6);
	ret = vur_user_modify_qp(v->d, q->qpn, &at,
			VUR_USER_QP_STATE | VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU |
					VUR_USER_QP_DEST_QPN | VUR_USER_QP_RQ_PSN |
					VUR_USER_QP_MAX_DEST_RD_ATOMIC | VUR_USER_QP_MIN_RNR_TIMER);
	if (ret < 0)
		return fail("QP to RTR", ret);
	at.qp_state = VUR_USER_QPS_RTS;
	ret = vur_user_modify_qp(v->d, q->qpn, &at,
			VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN | VUR_USER_QP_TIMEOUT |
					VUR_USER_QP_RETRY_CNT | VUR_USER_QP_RNR_RETRY |
					VUR_USER_QP_MAX_QP_RD_ATOMIC);
	return ret < 0 ? fail("QP to RTS", ret) : 0;
}

/* The QP's counters from the backend's telemetry (--telemetry), as one comment line. */
static void
qp_print_counters(const struct dev *v, const struct qp *q, const char *side)
{
	/* those a backend lacks are left out (retx_bytes and after came with issue 27) */
	static const char *const fields[] = { "tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes",
		"retransmits", "retx_bytes", "timeouts", "nak_seq", "nak_inv", "nak_access",
		"rnr_waits", "flushed", "wr_errors", "drops", "probes", "ooo_held", "ecn_ce_rx",
		"cnp_sent", "cnp_rx", "window", "rate_mbps", "srtt_us" };
	static char json[65536];
	char cmd[256], key[32], line[LINE_LEN];
	const char *at;
	uint64_t val;
	int n = 0;

	if (v->telemetry == NULL || !q->has_qp)
		return;
	snprintf(cmd, sizeof(cmd), "/vur/qps,%s", v->path);
	if (telemetry_query(v->telemetry, cmd, json, sizeof(json)) < 0) {
		printf("qp side=%s qpn=%u counters=unavailable\n", side, q->qpn);
		return;
	}
	snprintf(key, sizeof(key), "\"%u\":", q->qpn);
	at = strstr(json, key);
	if (at == NULL) {
		printf("qp side=%s qpn=%u counters=absent\n", side, q->qpn);
		return;
	}
	n += snprintf(line + n, sizeof(line) - n, "qp side=%s qpn=%u", side, q->qpn);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (telemetry_field(at, fields[i], &val) == 0 && n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s=%" PRIu64, fields[i], val);
	printf("%s\n", line);
}

static void
qp_destroy(struct dev *v, struct qp *q)
{
	if (q->has_qp && vur_user_destroy_qp(v->d, q->qpn) < 0)
		fprintf(stderr, "vur-wire: destroying QP %u failed\n", q->qpn);
	if (q->has_cq && vur_user_destroy_cq(v->d, q->cqn) < 0)
		fprintf(stderr, "vur-wire: destroying CQ %u failed\n", q->cqn);
	if (q->buf != NULL)
		vur_user_free_buf(v->d, q->buf);
	memset(q, 0, sizeof(*q));
}

/*
 * Completions of @q's CQ: those waiting, else wait (armed, on the CQ's event
 * fd, and on @also if it is not -1) until one comes, @also is readable or
 * @end_ns passes. Returns the number taken, 0, or -errno.
 */
static int
qp_wait_cq(struct dev *v, struct qp *q, struct vur_user_wc *wc, int n, int also, uint64_t end_ns)
{
	struct pollfd pfd[2] = { { .fd = vur_user_cq_event_fd(v->d, q->cqn), .events = POLLIN },
		{ .fd = also, .events = POLLIN } };
	int ret;

	ret = vur_user_poll_cq(v->d, q->cqn, wc, n);
	if (ret != 0)
		return ret;
	ret = vur_user_req_notify_cq(v->d, q->cqn, VUR_USER_NOTIFY_NEXT_COMPLETION);
	if (ret < 0)
		return ret;
	ret = vur_user_poll_cq(v->d, q->cqn, wc, n);
	if (ret != 0)
		return ret;
	ret = poll(pfd, also >= 0 ? 2 : 1, ms_left(end_ns));
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[0].revents & POLLIN)
		vur_user_get_cq_event(v->d, q->cqn, 0);
	return vur_user_poll_cq(v->d, q->cqn, wc, n);
}

static void
status_summary(const uint32_t *n, char *s, size_t size)
{
	int len = 0;

	s[0] = '\0';
	for (int i = 0; i < N_STATUS; i++)
		if (n[i] != 0 && len < (int)size)
			len += snprintf(s + len, size - len, "%s%s=%u", len > 0 ? "," : "",
					status_names[i], n[i]);
	if (len == 0)
		snprintf(s, size, "none");
}

/* ---- the server: the target of every case ---- */

struct server_case {
	struct wire_case k;
	struct qp q;
	uint32_t rq_depth;
	uint32_t recv_len;
	uint32_t recvs;    /* receive completions */
	uint32_t recvs_ok; /* SUCCESS, checked */
	uint32_t checked;  /* messages checked */
	uint32_t bad;      /* messages with a wrong byte or length */
	int64_t first_bad; /* its index, or -1 */
	int64_t bad_off;   /* the offset of its first wrong byte (-2: wrong length) */
	uint32_t status[N_STATUS];
	uint32_t held[2 * MAX_DEPTH]; /* receive slots to post again */
	uint32_t n_held;
};

static int
case_parse(const char *s, struct wire_case *k, struct endpoint *e)
{
	char op[16], expect[16];
	unsigned int mtu, timeout, retry, rnr;
	int n = 0, i;

	if (sscanf(s,
			    "CASE %15s %" SCNu32 " %" SCNu32 " %" SCNu32
			    " %15s %u %u %u %u %" SCNu32 " %u %n",
			    op, &k->size, &k->count, &k->depth, expect, &mtu, &timeout, &retry,
			    &rnr, &k->seed, &k->deadline_s, &n) != 11 ||
			n == 0)
		return -EINVAL;
	for (i = 0; i < N_OPS && strcmp(op, op_names[i]) != 0; i++)
		;
	k->op = (uint8_t)i;
	for (i = 0; i < N_EXPECTS && strcmp(expect, expect_names[i]) != 0; i++)
		;
	k->expect = (uint8_t)i;
	if (k->op == N_OPS || k->expect == N_EXPECTS || k->size == 0 || k->size > MAX_SIZE ||
			k->count == 0 || k->depth == 0 || k->depth > MAX_DEPTH || mtu < 1 ||
			mtu > 5 || timeout > 31 || retry > 7 || rnr > 7 || k->deadline_s == 0)
		return -EINVAL;
	k->mtu = (uint8_t)mtu;
	k->timeout = (uint8_t)timeout;
	k->retry_cnt = (uint8_t)retry;
	k->rnr_retry = (uint8_t)rnr;
	return endpoint_parse(s + n, e);
}

static int
server_post_recv(struct dev *v, struct server_case *c, uint32_t slot)
{
	struct vur_user_sge sge = {
		.addr = vur_user_driver_addr(v->d, c->q.buf + (size_t)slot * c->k.size),
		.length = c->recv_len,
		.lkey = v->mr.lkey,
	};
	struct vur_user_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };

	/* a receive that did not land is seen */
	memset(c->q.buf + (size_t)slot * c->k.size, 0xee, c->k.size);
	return vur_user_post_recv(v->d, c->q.qpn, &wr, 1, NULL);
}

static void
server_note_bad(struct server_case *c, uint64_t msg, int64_t off)
{
	if (c->bad++ == 0) {
		c->first_bad = (int64_t)msg;
		c->bad_off = off;
	}
}

/*
 * Receives taken and checked go back to the receive queue; a slot the device
 * has not handed back yet (-ENOMEM) waits for the next try.
 */
static int
server_repost(struct dev *v, struct server_case *c)
{
	int ret;

	while (c->n_held > 0) {
		ret = server_post_recv(v, c, c->held[c->n_held - 1]);
		if (ret == -ENOMEM)
			return 0;
		if (ret < 0)
			return fail("reposting a receive", ret);
		c->n_held--;
	}
	return 0;
}

/* SEND: receive completions checked in order (message i is the i-th receive) and reposted. */
static int
server_take_recvs(struct dev *v, struct server_case *c, const struct vur_user_wc *wc, int n)
{
	for (int i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)wc[i].wr_id;
		uint64_t msg = c->recvs++;
		int64_t off;

		c->status[wc[i].status < N_STATUS ? wc[i].status : VUR_USER_WC_GENERAL_ERR]++;
		if (wc[i].status != VUR_USER_WC_SUCCESS || slot >= c->rq_depth)
			continue;
		c->checked++;
		if (wc[i].byte_len != c->k.size || wc[i].opcode != VUR_USER_WC_RECV) {
			server_note_bad(c, msg, -2);
		} else {
			off = pattern_check(c->q.buf + (size_t)slot * c->k.size, c->k.size,
					c->k.seed, msg);
			if (off >= 0)
				server_note_bad(c, msg, off);
			else
				c->recvs_ok++;
		}
		c->held[c->n_held++] = slot;
	}
	return server_repost(v, c);
}

/* One case: set up, answer READY, take receives until END, check, answer RESULT. */
static int
server_case(struct dev *v, struct conn *cn, const char *line)
{
	struct server_case c = { .first_bad = -1, .bad_off = -1 };
	struct endpoint peer, mine = { 0 };
	struct vur_user_wc wc[32];
	char out[LINE_LEN], st[160], ep[160];
	uint64_t msgs, n_ok = 0, end;
	size_t len;
	int ret, got;

	if (case_parse(line, &c.k, &peer) < 0) {
		conn_send(cn, "REFUSED malformed CASE\n");
		return fail("a malformed CASE line", -EPROTO);
	}
	/* SEND: twice the client's depth of receives, within SEND_RQ_BYTES (RNR NAKs beyond) */
	c.rq_depth = 1;
	if (c.k.op == OP_SEND)
		for (c.rq_depth = 2 * c.k.depth;
				c.rq_depth > 1 && (uint64_t)c.rq_depth * c.k.size > SEND_RQ_BYTES;
				c.rq_depth--)
			;
	c.recv_len = c.k.expect == EXPECT_REM_INV_REQ ? c.k.size / 2 : c.k.size;
	msgs = c.k.op == OP_SEND ? c.rq_depth : c.k.count;
	len = ((size_t)msgs * c.k.size + PAGE - 1) & ~(size_t)(PAGE - 1);
	ret = qp_create(v, &c.q, 2 * c.rq_depth + 2, 1, 2 * c.rq_depth, len);
	if (ret == 0 && c.k.op == OP_READ)
		for (uint64_t i = 0; i < msgs; i++)
			pattern_fill(c.q.buf + i * c.k.size, c.k.size, c.k.seed, i);
	else if (ret == 0 && c.k.op == OP_WRITE)
		memset(c.q.buf, 0xee, len);
	if (ret == 0)
		ret = qp_connect(v, &c.q, &c.k, &peer);
	for (uint32_t i = 0; ret == 0 && c.k.op == OP_SEND && i < c.rq_depth; i++)
		ret = server_post_recv(v, &c, i);
	if (ret < 0) {
		snprintf(out, sizeof(out), "REFUSED %s\n", strerror(-ret));
		conn_send(cn, out);
		qp_destroy(v, &c.q);
		return 0; /* the client reports the case; the next may fit */
	}
	mine.pp.qpn = c.q.qpn;
	mine.pp.psn = c.q.psn;
	memcpy(mine.pp.gid, v->gid, 16);
	memcpy(mine.mac, v->mac, 6);
	mine.rkey = v->mr.rkey ^ (c.k.expect == EXPECT_REM_ACCESS ? BAD_RKEY_BIT : 0);
	mine.addr = vur_user_driver_addr(v->d, c.q.buf);
	endpoint_format(&mine, ep, sizeof(ep));
	snprintf(out, sizeof(out), "READY %s\n", ep);
	ret = conn_send(cn, out);
	/* receives until END; the client has the deadline, a lost client ends it too */
	end = now_ns() + ((uint64_t)c.k.deadline_s * 1000 + EXCH_MS) * 1000000u;
	while (ret == 0) {
		got = conn_take(cn, out, sizeof(out));
		if (got == 1) {
			if (sscanf(out, "END %" SCNu64, &n_ok) != 1 || n_ok > c.k.count)
				ret = fail("a malformed END line", -EPROTO);
			break;
		}
		if (now_ns() >= end) {
			ret = fail("no END from the client", -ETIMEDOUT);
			break;
		}
		got = qp_wait_cq(v, &c.q, wc, 32, cn->fd, c.n_held > 0 ? now_ns() + 1000000u : end);
		if (got < 0)
			ret = fail("polling the CQ", got);
		else if (got > 0)
			ret = server_take_recvs(v, &c, wc, got);
		else
			ret = server_repost(v, &c);
		if (ret == 0 && poll(&(struct pollfd){ .fd = cn->fd, .events = POLLIN }, 1, 0) == 1)
			ret = conn_fill(cn);
	}
	if (ret == 0 && c.k.op == OP_SEND && c.k.expect == EXPECT_NONE) {
		/* every SEND the client saw acknowledged has a receive, maybe not taken yet */
		end = now_ns() + (uint64_t)SEND_GRACE_MS * 1000000u;
		while (ret == 0 && c.recvs < n_ok && now_ns() < end) {
			got = qp_wait_cq(v, &c.q, wc, 32, -1, end);
			if (got < 0)
				ret = fail("polling the CQ", got);
			else
				ret = server_take_recvs(v, &c, wc, got);
		}
	}
	if (ret == 0 && c.k.op == OP_SEND && c.k.expect != EXPECT_NONE) {
		/* the receives the error flushed: for the record */
		while ((got = vur_user_poll_cq(v->d, c.q.cqn, wc, 32)) > 0)
			server_take_recvs(v, &c, wc, got);
	}
	if (ret == 0 && c.k.op == OP_WRITE) {
		for (uint64_t i = 0; i < n_ok; i++) {
			int64_t off = pattern_check(c.q.buf + i * c.k.size, c.k.size, c.k.seed, i);

			c.checked++;
			if (off >= 0)
				server_note_bad(&c, i, off);
		}
	}
	status_summary(c.status, st, sizeof(st));
	printf("server case op=%s size=%" PRIu32 " count=%" PRIu32 " expect=%s: receives=%u [%s] "
	       "checked=%u bad=%u\n",
			op_names[c.k.op], c.k.size, c.k.count, expect_names[c.k.expect], c.recvs,
			st, c.checked, c.bad);
	qp_print_counters(v, &c.q, "target");
	fflush(stdout);
	if (ret == 0) {
		snprintf(out, sizeof(out), "RESULT %u %u %" PRId64 " %" PRId64 " %u %s\n",
				c.checked, c.bad, c.first_bad, c.bad_off, c.recvs, st);
		ret = conn_send(cn, out);
	}
	qp_destroy(v, &c.q);
	return ret;
}

static int
server(struct dev *v, const struct opts *o)
{
	struct conn cn = { .fd = -1 };
	char line[LINE_LEN];
	int lfd, ret;

	lfd = pp_server_listen(o->port);
	if (lfd < 0)
		return fail("listening", lfd);
	/* a script may start the client once this is printed */
	printf("listening on port %s, device %s\n", o->port, o->socket);
	fflush(stdout);
	do
		cn.fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (cn.fd < 0 && errno == EINTR);
	ret = cn.fd < 0 ? -errno : 0;
	close(lfd);
	if (ret < 0)
		return fail("accepting the client", ret);
	for (;;) {
		ret = conn_line(&cn, line, sizeof(line), -1);
		if (ret < 0) {
			fail("the client went away", ret);
			break;
		}
		if (strcmp(line, "BYE") == 0)
			break;
		ret = server_case(v, &cn, line);
		if (ret < 0)
			break;
	}
	close(cn.fd);
	return ret < 0 ? ret : 0;
}

/* ---- the client: the requester ---- */

struct client_case {
	struct wire_case k;
	struct qp q;
	uint32_t slots;
	uint64_t posted, completed, ok; /* ok: SUCCESS, a prefix */
	uint64_t read_bad;
	int64_t read_first_bad, read_bad_off;
	uint32_t status[N_STATUS];
	bool error_seen;
	uint64_t first_error_wr;
	uint8_t first_error_status;
	uint64_t out_of_order;
};

static int
client_post(struct dev *v, struct client_case *c, const struct endpoint *peer)
{
	uint64_t i = c->posted;
	uint32_t slot = (uint32_t)(i % c->slots);
	uint8_t *p = c->q.buf + (size_t)slot * c->k.size;
	static const uint8_t opcode[N_OPS] = { VUR_USER_WR_RDMA_WRITE, VUR_USER_WR_RDMA_READ,
		VUR_USER_WR_SEND };
	struct vur_user_sge sge = {
		.addr = vur_user_driver_addr(v->d, p), .length = c->k.size, .lkey = v->mr.lkey
	};
	struct vur_user_send_wr wr = {
		.wr_id = i,
		.opcode = opcode[c->k.op],
		.send_flags = VUR_USER_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	if (c->k.op == OP_READ)
		memset(p, 0xee, c->k.size); /* a READ that did not land is seen */
	else
		pattern_fill(p, c->k.size, c->k.seed, i);
	if (c->k.op != OP_SEND) {
		wr.rdma.remote_addr = peer->addr + i * c->k.size;
		wr.rdma.rkey = peer->rkey;
	}
	ret = vur_user_post_send(v->d, c->q.qpn, &wr, 1, NULL);
	if (ret == 0)
		c->posted++;
	return ret;
}

static void
client_take(struct dev *v, struct client_case *c, const struct vur_user_wc *wc)
{
	uint8_t status = wc->status < N_STATUS ? wc->status : VUR_USER_WC_GENERAL_ERR;
	uint64_t i = wc->wr_id;

	(void)v;
	c->status[status]++;
	if (i != c->completed)
		c->out_of_order++; /* RC completes in order: C10-... (IBTA 10.8.3) */
	c->completed++;
	if (status != VUR_USER_WC_SUCCESS) {
		if (!c->error_seen) {
			c->error_seen = true;
			c->first_error_wr = i;
			c->first_error_status = status;
		}
		return;
	}
	if (!c->error_seen)
		c->ok++;
	if (c->k.op == OP_READ && i < c->posted) {
		uint8_t *p = c->q.buf + (size_t)(i % c->slots) * c->k.size;
		int64_t off = pattern_check(p, c->k.size, c->k.seed, i);

		if (off >= 0 && c->read_bad++ == 0) {
			c->read_first_bad = (int64_t)i;
			c->read_bad_off = off;
		}
	}
}

static const char *
mtu_name(uint8_t mtu)
{
	static const char *const names[] = { "?", "256", "512", "1024", "2048", "4096" };

	return names[mtu <= 5 ? mtu : 0];
}

/* One case on a fresh CQ and QP: 0 if it gave what it expects, 1 if not, -errno if the run must
 * stop. */
static int
client_case(struct dev *v, struct conn *cn, struct client_case *c)
{
	const struct wire_case *k = &c->k;
	struct endpoint mine = { 0 }, peer;
	struct vur_user_wc wc[32];
	char line[LINE_LEN], ep[160], st[160], why[LINE_LEN] = "";
	uint64_t t0, t1, end, wait_end, n_ok_prefix;
	unsigned int checked = 0, bad = 0, recvs = 0;
	int64_t first_bad = -1, bad_off = -1;
	char rst[160] = "none";
	bool timed_out = false, ok;
	double secs;
	int ret, n;

	c->slots = k->count < k->depth ? k->count : k->depth;
	c->read_first_bad = c->read_bad_off = -1;
	ret = qp_create(v, &c->q, 2 * k->depth + 2, 2 * k->depth, 1, (size_t)c->slots * k->size);
	if (ret < 0)
		goto out;
	mine.pp.qpn = c->q.qpn;
	mine.pp.psn = c->q.psn;
	memcpy(mine.pp.gid, v->gid, 16);
	memcpy(mine.mac, v->mac, 6);
	endpoint_format(&mine, ep, sizeof(ep));
	snprintf(line, sizeof(line),
			"CASE %s %" PRIu32 " %" PRIu32 " %" PRIu32 " %s %u %u %u %u %" PRIu32
			" %u %s\n",
			op_names[k->op], k->size, k->count, k->depth, expect_names[k->expect],
			k->mtu, k->timeout, k->retry_cnt, k->rnr_retry, k->seed, k->deadline_s, ep);
	ret = conn_send(cn, line);
	if (ret == 0) {
		ret = conn_line(cn, line, sizeof(line), EXCH_MS);
		if (ret == 0)
			ret = -ETIMEDOUT;
	}
	if (ret < 0) {
		fail("the server's answer to CASE", ret);
		goto out;
	}
	if (strncmp(line, "READY ", 6) != 0 || endpoint_parse(line + 6, &peer) < 0) {
		fprintf(stderr, "vur-wire: the server answered '%s'\n", line);
		ret = strncmp(line, "REFUSED ", 8) == 0 ? 1 : -EPROTO;
		goto out;
	}
	ret = qp_connect(v, &c->q, k, &peer);
	if (ret < 0)
		goto out;
	/* a script may time a fault from this line */
	printf("start op=%s size=%" PRIu32 " count=%" PRIu32 "\n", op_names[k->op], k->size,
			k->count);
	fflush(stdout);
	t0 = now_ns();
	end = t0 + (uint64_t)k->deadline_s * 1000000000u;
	while (c->completed < c->posted || (!c->error_seen && c->posted < k->count)) {
		wait_end = end;
		while (!c->error_seen && c->posted < k->count &&
				c->posted - c->completed < k->depth) {
			ret = client_post(v, c, &peer);
			if (ret == -ENOMEM) {
				/* slots of completed WRs the device has not handed back yet */
				wait_end = now_ns() + 1000000u < end ? now_ns() + 1000000u : end;
				break;
			}
			if (ret < 0) {
				fail("posting a WR", ret);
				goto out;
			}
		}
		if (now_ns() >= end) {
			timed_out = true;
			break;
		}
		n = qp_wait_cq(v, &c->q, wc, 32, -1, wait_end);
		if (n < 0) {
			ret = fail("polling the CQ", n);
			goto out;
		}
		for (int i = 0; i < n; i++)
			client_take(v, c, &wc[i]);
	}
	t1 = now_ns();
	/* the target's view: WRITE checked there, SEND receives */
	n_ok_prefix = c->ok;
	snprintf(line, sizeof(line), "END %" PRIu64 "\n", n_ok_prefix);
	ret = conn_send(cn, line);
	if (ret == 0) {
		ret = conn_line(cn, line, sizeof(line), EXCH_MS + SEND_GRACE_MS);
		if (ret == 0)
			ret = -ETIMEDOUT;
	}
	if (ret < 0 ||
			sscanf(line, "RESULT %u %u %" SCNd64 " %" SCNd64 " %u %159s", &checked,
					&bad, &first_bad, &bad_off, &recvs, rst) != 6) {
		fail("the server's RESULT", ret < 0 ? ret : -EPROTO);
		ret = ret < 0 ? ret : -EPROTO;
		goto out;
	}
	if (k->op == OP_READ) {
		checked = (unsigned int)c->ok;
		bad = (unsigned int)c->read_bad;
		first_bad = c->read_first_bad;
		bad_off = c->read_bad_off;
	}
	/* the verdict */
	if (timed_out)
		snprintf(why, sizeof(why),
				"deadline of %u s passed: %" PRIu64 " of %" PRIu64
				" posted WRs completed",
				k->deadline_s, c->completed, c->posted);
	else if (c->out_of_order != 0)
		snprintf(why, sizeof(why), "%" PRIu64 " completions out of order", c->out_of_order);
	else if (bad != 0)
		snprintf(why, sizeof(why),
				"%u messages with wrong data, the first message %" PRId64
				" at offset %" PRId64 " (-2: wrong length)",
				bad, first_bad, bad_off);
	else if (k->expect == EXPECT_NONE && c->error_seen)
		snprintf(why, sizeof(why), "WR %" PRIu64 " completed with %s", c->first_error_wr,
				status_names[c->first_error_status]);
	else if (k->expect == EXPECT_NONE && checked != k->count)
		snprintf(why, sizeof(why),
				"%u of %" PRIu32 " messages checked at the %s, %" PRIu64
				" completed SUCCESS at the requester%s",
				checked, k->count, k->op == OP_READ ? "requester" : "target", c->ok,
				c->ok > checked ? ": completions without delivery" : "");
	else if (k->expect != EXPECT_NONE && !c->error_seen)
		snprintf(why, sizeof(why), "no WR failed, %s expected",
				status_names[expect_status[k->expect]]);
	else if (k->expect != EXPECT_NONE &&
			(c->first_error_wr != 0 ||
					c->first_error_status != expect_status[k->expect]))
		snprintf(why, sizeof(why),
				"WR %" PRIu64 " completed with %s, WR 0 with %s expected",
				c->first_error_wr, status_names[c->first_error_status],
				status_names[expect_status[k->expect]]);
	else if (k->expect != EXPECT_NONE &&
			c->status[VUR_USER_WC_WR_FLUSH_ERR] + 1 != c->completed)
		snprintf(why, sizeof(why), "after the error: %" PRIu64 " flushed of %" PRIu64,
				(uint64_t)c->status[VUR_USER_WC_WR_FLUSH_ERR], c->completed - 1);
	ok = why[0] == '\0';
	secs = (double)(t1 - t0) / 1e9;
	status_summary(c->status, st, sizeof(st));
	printf("case op=%s size=%" PRIu32 " count=%" PRIu32 " depth=%" PRIu32 " mtu=%s timeout=%u "
	       "retry=%u rnr=%u expect=%s: posted=%" PRIu64 " completed=%" PRIu64 " [%s] "
	       "checked=%u bad=%u target_receives=%u [%s] elapsed=%.3fs goodput=%.1fMB/s "
	       "result=%s\n",
			op_names[k->op], k->size, k->count, k->depth, mtu_name(k->mtu), k->timeout,
			k->retry_cnt, k->rnr_retry, expect_names[k->expect], c->posted,
			c->completed, st, checked, bad, recvs, rst, secs,
			secs > 0 ? (double)c->ok * k->size / secs / 1e6 : 0.0, ok ? "ok" : "FAIL");
	if (!ok)
		printf("# why: %s\n", why);
	qp_print_counters(v, &c->q, "requester");
	fflush(stdout);
	ret = ok ? 0 : 1;
out:
	qp_destroy(v, &c->q);
	return ret;
}

static int
client(struct dev *v, const struct opts *o)
{
	struct conn cn = { .fd = -1 };
	uint64_t end = now_ns() + (uint64_t)CONNECT_MS * 1000000u;
	unsigned int cases = 0, failed = 0;
	uint32_t seed = (uint32_t)lrand48();
	int ret = 0;

	do {
		cn.fd = pp_client_connect(o->host, o->port);
		if (cn.fd == -ECONNREFUSED)
			poll(NULL, 0, 100);
	} while (cn.fd == -ECONNREFUSED && now_ns() < end);
	if (cn.fd < 0)
		return fail("connecting to the server", cn.fd);
	printf("seed %" PRIu32 "\n", seed);
	for (unsigned int i = 0; i < o->n_ops && ret >= 0; i++) {
		for (unsigned int j = 0; j < o->n_sizes && ret >= 0; j++) {
			struct client_case c = { .k = {
								 .op = o->ops[i],
								 .size = o->sizes[j],
								 .count = o->count,
								 .depth = o->depth,
								 .expect = o->expect,
								 .mtu = o->mtu,
								 .timeout = o->timeout,
								 .retry_cnt = o->retry_cnt,
								 .rnr_retry = o->rnr_retry,
								 .seed = seed + cases,
								 .deadline_s = o->deadline_s,
						 } };

			ret = client_case(v, &cn, &c);
			cases++;
			if (ret != 0)
				failed++;
		}
	}
	if (ret >= 0)
		conn_send(&cn, "BYE\n");
	close(cn.fd);
	printf("%u cases, %u failed%s\n", cases, failed, ret < 0 ? ", run stopped" : "");
	return failed != 0 ? 1 : 0;
}

/* ---- options ---- */

static void
usage(const char *argv0)
{
	printf("Usage:\n"
	       "  %s -d SOCKET [options]          the server: the target of every case\n"
	       "  %s -d SOCKET [options] HOST     the client: the requester, runs the cases\n"
	       "\n"
	       "RC traffic between two devices (two backends joined by a wire), every byte\n"
	       "checked. One case per operation and size: a fresh CQ and QP each side.\n"
	       "\n"
	       "Options:\n"
	       "  -d, --ib-dev=SOCKET      the backend's vhost-user socket of the device "
	       "(required)\n"
	       "  -p, --port=PORT          TCP port of the exchange (default %s)\n"
	       "  -o, --op=OP[,OP...]      write, read, send (default write)\n"
	       "  -s, --size=SIZE[,...]    message sizes, with K or M (default 4K,64K,1M)\n"
	       "  -n, --count=N            messages per case (default 100)\n"
	       "  -q, --depth=N            WRs in flight (default 16)\n"
	       "  -m, --mtu=SIZE           path MTU (default 1024)\n"
	       "  -t, --timeout=N          the QP's local ACK timeout, 4.096 us << N; 0 for\n"
	       "                           none (default 14, as rdma-core's tools)\n"
	       "  -r, --retry-cnt=N        transport retries (default 7)\n"
	       "  -R, --rnr-retry=N        RNR retries, 7 for no limit (default 7)\n"
	       "  -x, --expect=WHAT        none (default); rem-access: the server hands out a\n"
	       "                           bad rkey, WR 0 must end REM_ACCESS_ERR and the rest\n"
	       "                           flushed; rem-inv-req: the server's receives are half\n"
	       "                           the size, a SEND must end REM_INV_REQ_ERR\n"
	       "  -D, --deadline=SEC       each case ends by then (default 60): a WR not\n"
	       "                           completed is a failure\n"
	       "  -M, --mem=MIB            driver memory (default: the client's slots + 64 MiB;\n"
	       "                           the server %u MiB: WRITE and READ need size x count)\n"
	       "  -T, --telemetry=PREFIX   the backend's EAL file prefix: print the QP's\n"
	       "                           counters (/vur/qps) after each case\n"
	       "  -h, --help               this text\n"
	       "\n"
	       "The client prints one line per case (\"case ... result=ok|FAIL\") and exits 0\n"
	       "only if every case gave what it expects, 1 if not, 2 on a usage error.\n",
			argv0, argv0, DEFAULT_PORT, SERVER_MEM_MIB);
}

/* A whole number within [@min, @max] with an optional K, M or G suffix, or -1. */
static long long
number(const char *s, long long min, long long max, bool suffix)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	if (suffix && (*end == 'K' || *end == 'k'))
		v <<= 10, end++;
	else if (suffix && (*end == 'M' || *end == 'm'))
		v <<= 20, end++;
	else if (suffix && (*end == 'G' || *end == 'g'))
		v <<= 30, end++;
	if (*end != '\0' || v < min || v > max)
		return -1;
	return v;
}

static int
parse_list(char *arg, int (*one)(const char *, struct opts *), struct opts *o)
{
	char *save = NULL;

	for (char *t = strtok_r(arg, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save))
		if (one(t, o) < 0)
			return -1;
	return 0;
}

static int
one_op(const char *s, struct opts *o)
{
	for (uint8_t i = 0; i < N_OPS; i++)
		if (strcmp(s, op_names[i]) == 0 && o->n_ops < N_OPS) {
			o->ops[o->n_ops++] = i;
			return 0;
		}
	return -1;
}

static int
one_size(const char *s, struct opts *o)
{
	long long v = number(s, 1, MAX_SIZE, true);

	if (v < 0 || o->n_sizes == MAX_SIZES)
		return -1;
	o->sizes[o->n_sizes++] = (uint32_t)v;
	return 0;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "op", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "depth", required_argument, NULL, 'q' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retry-cnt", required_argument, NULL, 'r' },
		{ "rnr-retry", required_argument, NULL, 'R' },
		{ "expect", required_argument, NULL, 'x' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "mem", required_argument, NULL, 'M' },
		{ "telemetry", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t max_size = 0;
	long long v, mem_mib = 0;
	int c;

	*o = (struct opts){ .port = DEFAULT_PORT,
		.count = 100,
		.depth = 16,
		.mtu = VUR_USER_MTU_1024,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.deadline_s = 60 };
	while ((c = getopt_long(argc, argv, "d:p:o:s:n:q:m:t:r:R:x:D:M:T:h", longopts, NULL)) !=
			-1) {
		v = 0;
		switch (c) {
		case 'd':
			o->socket = optarg;
			break;
		case 'p':
			o->port = optarg;
			v = number(optarg, 1, 65535, false);
			break;
		case 'o':
			v = parse_list(optarg, one_op, o);
			break;
		case 's':
			v = parse_list(optarg, one_size, o);
			break;
		case 'n':
			v = number(optarg, 1, 1 << 24, false);
			o->count = (uint32_t)v;
			break;
		case 'q':
			v = number(optarg, 1, MAX_DEPTH, false);
			o->depth = (uint32_t)v;
			break;
		case 'm':
			v = number(optarg, 256, 4096, false);
			for (o->mtu = 1; v > 0 && (128 << o->mtu) < v; o->mtu++)
				;
			if (v > 0 && (128 << o->mtu) != v)
				v = -1;
			break;
		case 't':
			v = number(optarg, 0, 31, false);
			o->timeout = (uint8_t)v;
			break;
		case 'r':
			v = number(optarg, 0, 7, false);
			o->retry_cnt = (uint8_t)v;
			break;
		case 'R':
			v = number(optarg, 0, 7, false);
			o->rnr_retry = (uint8_t)v;
			break;
		case 'x':
			v = -1;
			for (uint8_t i = 0; i < N_EXPECTS; i++)
				if (strcmp(optarg, expect_names[i]) == 0) {
					o->expect = i;
					v = 0;
				}
			break;
		case 'D':
			v = number(optarg, 1, 3600, false);
			o->deadline_s = (unsigned int)v;
			break;
		case 'M':
			v = mem_mib = number(optarg, 16, 16384, false);
			break;
		case 'T':
			o->telemetry = optarg;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			return -1;
		}
		if (v < 0) {
			fprintf(stderr, "vur-wire: invalid value '%s' for -%c\n", optarg, c);
			return -1;
		}
	}
	if (optind == argc - 1)
		o->host = argv[optind];
	else if (optind < argc)
		return -1;
	if (o->socket == NULL) {
		fprintf(stderr, "vur-wire: -d SOCKET is required\n");
		return -1;
	}
	if (o->n_ops == 0)
		o->ops[o->n_ops++] = OP_WRITE;
	if (o->n_sizes == 0) {
		o->sizes[o->n_sizes++] = 4 << 10;
		o->sizes[o->n_sizes++] = 64 << 10;
		o->sizes[o->n_sizes++] = 1 << 20;
	}
	for (unsigned int i = 0; i < o->n_sizes; i++)
		if (o->sizes[i] > max_size)
			max_size = o->sizes[i];
	if (o->expect == EXPECT_REM_INV_REQ && max_size < 2) {
		fprintf(stderr,
				"vur-wire: --expect rem-inv-req needs messages of 2 bytes or "
				"more\n");
		return -1;
	}
	if (mem_mib != 0)
		o->mem = (size_t)mem_mib << 20;
	else if (o->host == NULL)
		o->mem = (size_t)SERVER_MEM_MIB << 20;
	else
		o->mem = ((size_t)(o->count < o->depth ? o->count : o->depth) * max_size + PAGE -
					 1) / PAGE *
						PAGE +
				(64u << 20);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct dev v = { 0 };
	int ret;

	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr, "Try '%s --help'.\n", argv[0]);
		return 2;
	}
	srand48((long)getpid() ^ (long)now_ns());
	if (dev_open(&v, &o) < 0) {
		vur_user_close(v.d);
		return 1;
	}
	ret = o.host == NULL ? server(&v, &o) : client(&v, &o);
	if (vur_user_close(v.d) < 0 && ret == 0)
		ret = 1;
	return ret < 0 ? 1 : ret;
}
