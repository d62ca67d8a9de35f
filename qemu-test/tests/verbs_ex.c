// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs_ex: the extended verbs and memory windows between two hosts (two
 * guests of scenario 12), through libibverbs and the device's provider.
 * Built against Debian unstable's libibverbs (rdma-core 65) for the guest
 * (qemu-test/build-sid-image.sh).
 *
 *   verbs_ex -d DEVICE -g GID_INDEX -p PORT		(the responder)
 *   verbs_ex -d DEVICE -g GID_INDEX -p PORT PEER	(the requester)
 *
 * The two exchange their GIDs, buffers, keys and QP numbers over TCP (as
 * rdma-core's pingpong examples do) and step together. Every QP is an RC
 * QP of ibv_create_qp_ex() posted to with the ibv_wr_* API, every CQ one
 * of ibv_create_cq_ex() read with ibv_start_poll()/ibv_next_poll() and
 * the ibv_wc_read_*() calls. Checked, with the data byte by byte:
 *  - ibv_create_cq_ex() refuses completion timestamps (EOPNOTSUPP);
 *    ibv_query_device_ex() reports max_mw and type 2B windows with
 *    IBV_DEVICE_MEM_WINDOW;
 *  - in one ibv_wr_start()..ibv_wr_complete() batch: SEND of an s/g list
 *    into a receive of two elements, SEND with immediate of an inline data
 *    list, RDMA WRITE, RDMA WRITE with immediate (inline), RDMA READ;
 *  - with the device's atomics: fetch and add, compare and swap (matching
 *    and not), the original values and the remote word;
 *  - with memory windows: a type 1 window bound with ibv_bind_mw(), RDMA
 *    WRITE and READ through its key; bound again (ibv_inc_rkey): the old
 *    key fails with a remote access error; outside the window: remote
 *    access error; unbound: its key fails;
 *  - with memory windows and invalidation: a type 2 window bound with
 *    ibv_wr_bind_mw(), WRITE and READ through it, a SEND with invalidate
 *    of its key (the receive reports IBV_WC_WITH_INV and the key), after
 *    which the key fails; bound again with IBV_WR_BIND_MW in
 *    ibv_post_send(), invalidated by ibv_wr_local_inv(): the key fails;
 *  - an MR with a window bound: ibv_dereg_mr() fails with EBUSY until the
 *    window is deallocated.
 * A remote access error moves both QPs to ERR: each side then makes a
 * new QP pair. Prints one line per check and "verbs_ex: ok N checks" or
 * "verbs_ex: N of M checks failed"; exits 0 only when all passed.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define BUF_LEN (256 * 1024)
#define WAIT_S 60 /* TCG is slow */

/* Offsets in each side's buffer */
#define OFF_RECV1 0x1000 /* 100 + 200 bytes, two s/g elements */
#define OFF_RECV2 0x2000
#define OFF_SEND 0x3000
#define OFF_WRITE 0x4000 /* RDMA WRITE target, 2048 bytes */
#define OFF_WIMM 0x4800 /* RDMA WRITE with immediate target, 32 bytes */
#define OFF_READ 0x8000 /* RDMA READ source, 4096 bytes */
#define OFF_LOCAL 0xa000 /* requester's READ destination */
#define OFF_ATOMIC 0x9000
#define OFF_WIN1 0x10000 /* type 1 window, 4 KiB */
#define OFF_WIN2 0x12000 /* type 2 window, 4 KiB */

struct side {
	bool requester;
	int fd; /* TCP to the peer */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *mr;
	unsigned char *buf;
	int gidx;
	union ibv_gid gid, peer_gid;
	enum ibv_mtu mtu;
	bool atomics, mem_mgt, mw; /* both sides have it */
	uint64_t peer_addr;
	uint32_t peer_rkey;
	uint32_t psn;
};

/* What the sides tell each other at the start. */
struct hello {
	uint8_t gid[16];
	uint64_t addr;
	uint32_t rkey;
	uint8_t atomics, mem_mgt, mw, pad;
};

static int checks, failures;

static void check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!ok)
		failures++;
	printf("%s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\nverbs_ex: stopped after %d checks, %d failed\n", checks,
	       failures + 1);
	exit(1);
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 8));
}

static bool has(const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(i * 7 + seed + (i >> 8)))
			return false;
	return true;
}

/* TCP */
static void xfer(int fd, void *p, size_t n, bool out)
{
	unsigned char *b = p;
	ssize_t r;

	while (n) {
		r = out ? write(fd, b, n) : read(fd, b, n);
		if (r <= 0)
			die("tcp %s: %s", out ? "write" : "read",
			    r ? strerror(errno) : "peer closed");
		b += r;
		n -= r;
	}
}

static void xchg(struct side *s, const void *out, void *in, size_t n)
{
	xfer(s->fd, (void *)out, n, true);
	xfer(s->fd, in, n, false);
}

static void barrier(struct side *s, uint32_t step)
{
	uint32_t peer;

	xchg(s, &step, &peer, sizeof(step));
	if (peer != step)
		die("out of step: %u here, %u there", step, peer);
}

static int tcp_connect(const char *peer, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	time_t end = time(NULL) + WAIT_S;
	int fd;

	if (getaddrinfo(peer, port, &hints, &res))
		die("getaddrinfo %s", peer);
	for (;;) {
		fd = socket(res->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, res->ai_addr, res->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		if (time(NULL) > end)
			die("connect %s:%s: %s", peer, port, strerror(errno));
		sleep(1);
	}
	freeaddrinfo(res);
	return fd;
}

static int tcp_accept(const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(atoi(port)) };
	int one = 1, lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1))
		die("listen %s: %s", port, strerror(errno));
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(lfd);
	return fd;
}

/* Completions, through the extended CQ */
struct cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num, imm_or_inv;
	unsigned int flags;
};

static void read_cqe(struct ibv_cq_ex *cq, struct cqe *c)
{
	c->wr_id = cq->wr_id;
	c->status = cq->status;
	c->opcode = ibv_wc_read_opcode(cq);
	c->byte_len = ibv_wc_read_byte_len(cq);
	c->qp_num = ibv_wc_read_qp_num(cq);
	c->flags = ibv_wc_read_wc_flags(cq);
	if (c->flags & IBV_WC_WITH_INV)
		c->imm_or_inv = ibv_wc_read_invalidated_rkey(cq);
	else
		c->imm_or_inv = be32toh(ibv_wc_read_imm_data(cq));
}

/* @n completions: start_poll, next_poll while there are more, end_poll. */
static void poll_n(struct side *s, struct cqe *c, int n, const char *what)
{
	struct ibv_poll_cq_attr attr = {};
	time_t end = time(NULL) + WAIT_S;
	int got = 0, ret;

	while (got < n) {
		ret = ibv_start_poll(s->cq, &attr);
		if (ret == ENOENT) {
			if (time(NULL) > end)
				die("%s: %d of %d completions", what, got, n);
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 },
				  NULL);
			continue;
		}
		if (ret)
			die("%s: start_poll %d", what, ret);
		do {
			read_cqe(s->cq, &c[got++]);
		} while (got < n && !(ret = ibv_next_poll(s->cq)));
		ibv_end_poll(s->cq);
		if (ret && ret != ENOENT)
			die("%s: next_poll %d", what, ret);
	}
}

static void expect(const struct cqe *c, uint64_t wr_id,
		   enum ibv_wc_status status, enum ibv_wc_opcode opcode,
		   const char *what)
{
	check(c->wr_id == wr_id && c->status == status &&
		      (status != IBV_WC_SUCCESS || c->opcode == opcode),
	      "%s: wr_id %" PRIu64 " %s opcode %d (want %" PRIu64
	      " %s opcode %d)",
	      what, c->wr_id, ibv_wc_status_str(c->status), c->opcode, wr_id,
	      ibv_wc_status_str(status), opcode);
}

static void expect_one(struct side *s, uint64_t wr_id,
		       enum ibv_wc_status status, enum ibv_wc_opcode opcode,
		       const char *what)
{
	struct cqe c;

	poll_n(s, &c, 1, what);
	expect(&c, wr_id, status, opcode, what);
}

/* QPs: a new RC pair with the peer each time (a remote access error
 * leaves both in ERR). */
static void qp_modify(struct side *s, uint32_t peer_qpn, uint32_t peer_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags =
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			(s->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
			(s->mw ? IBV_ACCESS_MW_BIND : 0),
	};

	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = peer_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = s->peer_gid;
	a.ah_attr.grh.sgid_index = s->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = s->psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

static void qp_new(struct side *s)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC,
		.send_cq = ibv_cq_ex_to_cq(s->cq),
		.recv_cq = ibv_cq_ex_to_cq(s->cq),
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ,
	};
	uint32_t mine[2], peer[2];
	struct cqe c;
	int n = 0;

	if (s->atomics)
		init.send_ops_flags |= IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	if (s->mem_mgt)
		init.send_ops_flags |= IBV_QP_EX_WITH_LOCAL_INV |
				       IBV_QP_EX_WITH_SEND_WITH_INV;
	if (s->mw)
		init.send_ops_flags |= IBV_QP_EX_WITH_BIND_MW;
	if (s->qp && ibv_destroy_qp(s->qp))
		die("destroy_qp");
	/* What the old pair left (flushed WRs): none expected. */
	while (ibv_start_poll(s->cq, &(struct ibv_poll_cq_attr){}) == 0) {
		do {
			read_cqe(s->cq, &c);
			n++;
		} while (!ibv_next_poll(s->cq));
		ibv_end_poll(s->cq);
	}
	if (n)
		printf("note: %d completions of the old QP\n", n);
	s->qp = ibv_create_qp_ex(s->ctx, &init);
	if (!s->qp)
		die("create_qp_ex: %s", strerror(errno));
	s->qpx = ibv_qp_to_qp_ex(s->qp);
	if (!s->qpx)
		die("ibv_qp_to_qp_ex: NULL");
	if (init.cap.max_inline_data < 64)
		die("create_qp_ex: max_inline_data %u",
		    init.cap.max_inline_data);
	s->psn = (s->psn + 1000) & 0xffffff;
	mine[0] = s->qp->qp_num;
	mine[1] = s->psn;
	xchg(s, mine, peer, sizeof(mine));
	qp_modify(s, peer[0], peer[1]);
	barrier(s, 1);
}

static void setup(struct side *s, const char *dev)
{
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 64,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP,
	};
	struct ibv_device_attr_ex attr;
	struct ibv_device **list;
	struct ibv_port_attr port;
	struct hello me = {}, peer;
	struct ibv_cq_ex *cq;
	int i, ret;

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i] && !s->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			s->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!s->ctx)
		die("%s: no such device or cannot open it", dev);

	ret = ibv_query_device_ex(s->ctx, NULL, &attr);
	if (ret)
		die("query_device_ex %d", ret);
	s->atomics = attr.orig_attr.atomic_cap != IBV_ATOMIC_NONE;
	s->mem_mgt = attr.orig_attr.device_cap_flags &
		     IBV_DEVICE_MEM_MGT_EXTENSIONS;
	s->mw = attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW;
	check(!s->mw || (attr.orig_attr.max_mw > 0 &&
			 (attr.orig_attr.device_cap_flags &
			  IBV_DEVICE_MEM_WINDOW_TYPE_2B)),
	      "query_device_ex: mem_window %d max_mw %d type_2b %d", s->mw,
	      attr.orig_attr.max_mw,
	      !!(attr.orig_attr.device_cap_flags &
		 IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	check(!attr.completion_timestamp_mask && !attr.hca_core_clock,
	      "query_device_ex: no completion timestamps (mask %" PRIu64
	      ", clock %" PRIu64 ")",
	      attr.completion_timestamp_mask, attr.hca_core_clock);
	if (ibv_query_port(s->ctx, 1, &port))
		die("query_port");
	s->mtu = port.active_mtu;
	if (ibv_query_gid(s->ctx, 1, s->gidx, &s->gid))
		die("query_gid %d", s->gidx);

	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		die("alloc_pd: %s", strerror(errno));
	cq_attr.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	cq = ibv_create_cq_ex(s->ctx, &cq_attr);
	check(!cq && errno == EOPNOTSUPP,
	      "create_cq_ex with completion timestamps: %s",
	      cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cq_attr.wc_flags &= ~(uint64_t)IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	s->cq = ibv_create_cq_ex(s->ctx, &cq_attr);
	if (!s->cq)
		die("create_cq_ex: %s", strerror(errno));

	s->buf = aligned_alloc(4096, BUF_LEN);
	if (!s->buf)
		die("no memory");
	memset(s->buf, 0, BUF_LEN);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   (s->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
				   (s->mw ? IBV_ACCESS_MW_BIND : 0));
	if (!s->mr)
		die("reg_mr: %s", strerror(errno));

	memcpy(me.gid, s->gid.raw, 16);
	me.addr = (uintptr_t)s->buf;
	me.rkey = s->mr->rkey;
	me.atomics = s->atomics;
	me.mem_mgt = s->mem_mgt;
	me.mw = s->mw;
	xchg(s, &me, &peer, sizeof(me));
	memcpy(s->peer_gid.raw, peer.gid, 16);
	s->peer_addr = peer.addr;
	s->peer_rkey = peer.rkey;
	s->atomics = s->atomics && peer.atomics;
	s->mem_mgt = s->mem_mgt && peer.mem_mgt;
	s->mw = s->mw && peer.mw;
	s->psn = s->requester ? 100 : 200;
	printf("note: atomics %d mem_mgt_extensions %d mem_window %d\n",
	       s->atomics, s->mem_mgt, s->mw);
}

static void post_recv(struct side *s, uint64_t wr_id, uint32_t off,
		      uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = len ? 1 : 0 },
			   *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		die("post_recv %" PRIu64, wr_id);
}

/* The requester's RDMA WRITE of @len bytes (seed @seed) to @addr, @rkey. */
static void write_to(struct side *s, uint64_t wr_id, uint64_t addr,
		     uint32_t rkey, uint32_t len, unsigned int seed)
{
	fill(s->buf + OFF_SEND, len, seed);
	ibv_wr_start(s->qpx);
	s->qpx->wr_id = wr_id;
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(s->qpx, rkey, addr);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)s->buf + OFF_SEND, len);
	if (ibv_wr_complete(s->qpx))
		die("wr_complete (write %" PRIu64 ")", wr_id);
}

static void read_from(struct side *s, uint64_t wr_id, uint64_t addr,
		      uint32_t rkey, uint32_t len)
{
	memset(s->buf + OFF_LOCAL, 0, len);
	ibv_wr_start(s->qpx);
	s->qpx->wr_id = wr_id;
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(s->qpx, rkey, addr);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)s->buf + OFF_LOCAL,
		       len);
	if (ibv_wr_complete(s->qpx))
		die("wr_complete (read %" PRIu64 ")", wr_id);
}

/* Every operation of the data path in one ibv_wr_* batch. */
static void data_path(struct side *s)
{
	static const char hi[] = "hello ", inl[] = "inline";
	struct cqe c[5];

	if (!s->requester) {
		fill(s->buf + OFF_READ, 4096, 3);
		memset(s->buf + OFF_RECV1, 0, OFF_READ - OFF_RECV1);
		{
			struct ibv_sge sge[2] = {
				{ (uintptr_t)s->buf + OFF_RECV1, 100,
				  s->mr->lkey },
				{ (uintptr_t)s->buf + OFF_RECV1 + 0x100, 200,
				  s->mr->lkey },
			};
			struct ibv_recv_wr wr = { .wr_id = 101,
						  .sg_list = sge,
						  .num_sge = 2 },
					   *bad;

			if (ibv_post_recv(s->qp, &wr, &bad))
				die("post_recv 101");
		}
		post_recv(s, 102, OFF_RECV2, 256);
		post_recv(s, 103, 0, 0);
		barrier(s, 10);
		barrier(s, 11);
		poll_n(s, c, 3, "receives");
		expect(&c[0], 101, IBV_WC_SUCCESS, IBV_WC_RECV,
		       "SEND of an s/g list into two s/g elements");
		check(c[0].byte_len == 300 &&
			      has(s->buf + OFF_RECV1, 100, 1) &&
			      c[0].qp_num == s->qp->qp_num,
		      "SEND: byte_len %u, qp_num %u, first element's data",
		      c[0].byte_len, c[0].qp_num);
		{
			unsigned char want[300];

			fill(want, 300, 1);
			check(!memcmp(s->buf + OFF_RECV1 + 0x100, want + 100,
				      200),
			      "SEND: second element's data");
		}
		expect(&c[1], 102, IBV_WC_SUCCESS, IBV_WC_RECV,
		       "SEND with immediate, inline data list");
		check(c[1].byte_len == 12 && (c[1].flags & IBV_WC_WITH_IMM) &&
			      c[1].imm_or_inv == 0x11223344 &&
			      !memcmp(s->buf + OFF_RECV2, "hello inline", 12),
		      "SEND with immediate: byte_len %u, imm 0x%x, data",
		      c[1].byte_len, c[1].imm_or_inv);
		expect(&c[2], 103, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
		       "RDMA WRITE with immediate");
		check(c[2].byte_len == 32 && (c[2].flags & IBV_WC_WITH_IMM) &&
			      c[2].imm_or_inv == 0x55667788,
		      "RDMA WRITE with immediate: byte_len %u, imm 0x%x",
		      c[2].byte_len, c[2].imm_or_inv);
		check(has(s->buf + OFF_WRITE, 2048, 2) &&
			      has(s->buf + OFF_WIMM, 32, 4),
		      "RDMA WRITE, WRITE with immediate (inline): data");
		return;
	}

	fill(s->buf + OFF_SEND, 300, 1);
	fill(s->buf + OFF_SEND + 0x400, 2048, 2);
	fill(s->buf + OFF_SEND + 0xc00, 32, 4);
	barrier(s, 10);
	ibv_wr_start(s->qpx);
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	s->qpx->wr_id = 1;
	ibv_wr_send(s->qpx);
	{
		struct ibv_sge sge[2] = {
			{ (uintptr_t)s->buf + OFF_SEND, 120, s->mr->lkey },
			{ (uintptr_t)s->buf + OFF_SEND + 120, 180,
			  s->mr->lkey },
		};
		struct ibv_data_buf bufs[2] = { { (void *)hi, 6 },
						{ (void *)inl, 6 } };

		ibv_wr_set_sge_list(s->qpx, 2, sge);
		s->qpx->wr_id = 2;
		ibv_wr_send_imm(s->qpx, htobe32(0x11223344));
		ibv_wr_set_inline_data_list(s->qpx, 2, bufs);
	}
	s->qpx->wr_id = 3;
	ibv_wr_rdma_write(s->qpx, s->peer_rkey, s->peer_addr + OFF_WRITE);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)s->buf + OFF_SEND + 0x400,
		       2048);
	s->qpx->wr_id = 4;
	ibv_wr_rdma_write_imm(s->qpx, s->peer_rkey, s->peer_addr + OFF_WIMM,
			      htobe32(0x55667788));
	ibv_wr_set_inline_data(s->qpx, s->buf + OFF_SEND + 0xc00, 32);
	s->qpx->wr_id = 5;
	ibv_wr_rdma_read(s->qpx, s->peer_rkey, s->peer_addr + OFF_READ);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)s->buf + OFF_LOCAL,
		       4096);
	check(!ibv_wr_complete(s->qpx), "wr_complete: 5 WRs");
	poll_n(s, c, 5, "requests");
	expect(&c[0], 1, IBV_WC_SUCCESS, IBV_WC_SEND, "SEND (s/g list)");
	expect(&c[1], 2, IBV_WC_SUCCESS, IBV_WC_SEND, "SEND with immediate");
	expect(&c[2], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "RDMA WRITE");
	expect(&c[3], 4, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
	       "RDMA WRITE with immediate");
	expect(&c[4], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, "RDMA READ");
	check(c[4].byte_len == 4096 && has(s->buf + OFF_LOCAL, 4096, 3),
	      "RDMA READ: byte_len %u, data", c[4].byte_len);
	barrier(s, 11);
}

static void atomics(struct side *s)
{
	uint64_t *word = (uint64_t *)(s->buf + OFF_ATOMIC);
	struct cqe c[3];

	if (!s->requester) {
		*word = 100;
		barrier(s, 20);
		barrier(s, 21);
		check(*word == 7, "atomics: remote word %" PRIu64 " (want 7)",
		      *word);
		return;
	}
	memset(word, 0xff, 24);
	barrier(s, 20);
	ibv_wr_start(s->qpx);
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	s->qpx->wr_id = 11;
	ibv_wr_atomic_fetch_add(s->qpx, s->peer_rkey, s->peer_addr + OFF_ATOMIC,
				5);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)&word[0], 8);
	s->qpx->wr_id = 12;
	ibv_wr_atomic_cmp_swp(s->qpx, s->peer_rkey, s->peer_addr + OFF_ATOMIC,
			      105, 7);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)&word[1], 8);
	s->qpx->wr_id = 13;
	ibv_wr_atomic_cmp_swp(s->qpx, s->peer_rkey, s->peer_addr + OFF_ATOMIC,
			      1, 9);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)&word[2], 8);
	check(!ibv_wr_complete(s->qpx), "wr_complete: 3 atomics");
	poll_n(s, c, 3, "atomics");
	expect(&c[0], 11, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, "fetch and add");
	expect(&c[1], 12, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP,
	       "compare and swap (matching)");
	expect(&c[2], 13, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP,
	       "compare and swap (not matching)");
	check(word[0] == 100 && word[1] == 105 && word[2] == 7,
	      "atomics: original values %" PRIu64 " %" PRIu64 " %" PRIu64,
	      word[0], word[1], word[2]);
	barrier(s, 21);
}

/*
 * The responder tells the requester a window's key; the requester's WRITE
 * (and READ) through it then succeed or fail as @want says.
 */
static void key_send(struct side *s, uint32_t rkey)
{
	uint32_t dummy;

	xchg(s, &rkey, &dummy, sizeof(rkey));
}

static uint32_t key_recv(struct side *s)
{
	uint32_t zero = 0, rkey;

	xchg(s, &zero, &rkey, sizeof(rkey));
	return rkey;
}

static void bind1(struct side *s, struct ibv_mw *mw, uint64_t wr_id,
		  uint64_t len, const char *what)
{
	struct ibv_mw_bind b = {
		.wr_id = wr_id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = len ? s->mr : NULL,
			.addr = len ? (uintptr_t)s->buf + OFF_WIN1 : 0,
			.length = len,
			.mw_access_flags = len ? IBV_ACCESS_REMOTE_WRITE |
							 IBV_ACCESS_REMOTE_READ :
						 0,
		},
	};
	uint32_t old = mw->rkey;
	int ret;

	ret = ibv_bind_mw(s->qp, mw, &b);
	check(!ret && (mw->rkey >> 8) == (old >> 8) && mw->rkey != old,
	      "%s: ibv_bind_mw %d, rkey 0x%x -> 0x%x", what, ret, old,
	      mw->rkey);
	expect_one(s, wr_id, IBV_WC_SUCCESS, IBV_WC_BIND_MW, what);
}

/*
 * The requester's WRITE through @rkey at window offset @off: of the
 * pattern of seed 6 when it should succeed, of seed 9 when it should fail
 * (the responder then finds its memory as it was).
 */
static void try_write(struct side *s, uint64_t wr_id, uint32_t rkey,
		      uint64_t win, uint32_t off, uint32_t len, bool ok,
		      const char *what)
{
	write_to(s, wr_id, win + off, rkey, len, ok ? 6 : 9);
	expect_one(s, wr_id, ok ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR,
		   IBV_WC_RDMA_WRITE, what);
}

static bool zero(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/*
 * The responder's own: an MR with a type 1 window bound cannot be
 * deregistered (EBUSY; its pages stay the device's) until the window is
 * gone.
 */
static void mr_busy(struct side *s)
{
	struct ibv_mw_bind b = {
		.wr_id = 29,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .addr = (uintptr_t)s->buf + OFF_WIN2, .length = 64,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	int ret;

	mr = ibv_reg_mr(s->pd, s->buf + OFF_WIN2, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_1);
	if (!mr || !mw)
		die("mr_busy: reg_mr or alloc_mw: %s", strerror(errno));
	b.bind_info.mr = mr;
	check(!ibv_bind_mw(s->qp, mw, &b), "type 1 bound to a second MR");
	expect_one(s, 29, IBV_WC_SUCCESS, IBV_WC_BIND_MW,
		   "type 1 bound to a second MR");
	ret = ibv_dereg_mr(mr);
	check(ret == EBUSY, "dereg_mr with a window bound: %d (want EBUSY)",
	      ret);
	if (!ret)
		mr = NULL;
	check(!ibv_dealloc_mw(mw), "dealloc_mw of the bound window");
	check(!mr || !ibv_dereg_mr(mr), "dereg_mr once the window is gone");
}

static void mw_type1(struct side *s)
{
	unsigned char *win = s->buf + OFF_WIN1;
	uint64_t peer_win = s->peer_addr + OFF_WIN1;
	uint32_t k1, k2;
	struct ibv_mw *mw = NULL;

	if (!s->requester) {
		mr_busy(s);
		mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_1);
		if (!mw)
			die("alloc_mw type 1: %s", strerror(errno));
		check((mw->rkey & 0xff) == 0, "type 1 MW: rkey 0x%x, key byte 0",
		      mw->rkey);
		memset(win, 0, 0x800);
		fill(win + 0x800, 0x800, 5);
		bind1(s, mw, 21, 0x1000, "type 1 bind");
		key_send(s, mw->rkey);
		barrier(s, 30);
		check(has(win, 0x800, 6), "type 1: WRITE through the window");
		k1 = mw->rkey;
		bind1(s, mw, 22, 0x1000, "type 1 bound again");
		key_send(s, k1);
		key_send(s, mw->rkey);
		barrier(s, 31);
		check(has(win, 0x800, 6), "type 1: the old key wrote nothing");
		qp_new(s);
		barrier(s, 32);
		check(has(win + 0x800, 0x800, 5) && zero(win + 0x1000, 0x200),
		      "type 1: the WRITE across the end wrote nothing");
		qp_new(s);
		barrier(s, 33);
		check(has(win + 0xe00, 0x200, 6),
		      "type 1: the new key's WRITE at the window's end");
		bind1(s, mw, 23, 0, "type 1 unbound");
		barrier(s, 34);
		barrier(s, 35);
		check(has(win, 0x800, 6), "type 1: the unbound key wrote nothing");
		qp_new(s);
		check(!ibv_dealloc_mw(mw), "dealloc_mw type 1");
		return;
	}
	k1 = key_recv(s);
	write_to(s, 21, peer_win, k1, 0x800, 6);
	expect_one(s, 21, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		   "type 1: RDMA WRITE through the window's key");
	read_from(s, 22, peer_win + 0x800, k1, 0x800);
	expect_one(s, 22, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
		   "type 1: RDMA READ through the window's key");
	check(has(s->buf + OFF_LOCAL, 0x800, 5), "type 1: READ data");
	barrier(s, 30);
	k1 = key_recv(s);
	k2 = key_recv(s);
	try_write(s, 23, k1, peer_win, 0, 64, false,
		  "type 1 bound again: the old key fails");
	barrier(s, 31);
	qp_new(s);
	try_write(s, 24, k2, peer_win, 0x1000 - 512, 1024, false,
		  "type 1: a WRITE across the window's end fails");
	barrier(s, 32);
	qp_new(s);
	try_write(s, 25, k2, peer_win, 0x1000 - 512, 512, true,
		  "type 1: the new key, inside the window");
	barrier(s, 33);
	/* the responder unbinds */
	barrier(s, 34);
	try_write(s, 26, k2, peer_win, 0, 64, false,
		  "type 1 unbound: its key fails");
	barrier(s, 35);
	qp_new(s);
}

static void mw_type2(struct side *s)
{
	unsigned char *win = s->buf + OFF_WIN2;
	uint64_t peer_win = s->peer_addr + OFF_WIN2;
	struct ibv_mw_bind_info info = {
		.mr = s->mr,
		.addr = (uintptr_t)win,
		.length = 0x1000,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_mw *mw;
	struct cqe c;
	uint32_t k;

	if (!s->requester) {
		mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
		if (!mw)
			die("alloc_mw type 2: %s", strerror(errno));
		memset(win, 0, 0x1000);
		fill(win + 0x800, 0x800, 8);
		k = ibv_inc_rkey(mw->rkey);
		ibv_wr_start(s->qpx);
		s->qpx->wr_id = 41;
		s->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(s->qpx, mw, k, &info);
		check(!ibv_wr_complete(s->qpx), "type 2: ibv_wr_bind_mw");
		expect_one(s, 41, IBV_WC_SUCCESS, IBV_WC_BIND_MW,
			   "type 2 bind (ibv_wr_bind_mw)");
		post_recv(s, 42, OFF_RECV2, 256);
		key_send(s, k);
		barrier(s, 40);
		check(has(win, 0x800, 6), "type 2: WRITE through the window");
		poll_n(s, &c, 1, "SEND with invalidate");
		expect(&c, 42, IBV_WC_SUCCESS, IBV_WC_RECV,
		       "type 2: the SEND with invalidate's receive");
		check((c.flags & IBV_WC_WITH_INV) && c.imm_or_inv == k,
		      "type 2: IBV_WC_WITH_INV %d, invalidated key 0x%x (want 0x%x)",
		      !!(c.flags & IBV_WC_WITH_INV), c.imm_or_inv, k);
		barrier(s, 41);
		barrier(s, 42);
		check(has(win, 0x800, 6),
		      "type 2: the invalidated key wrote nothing");
		qp_new(s);
		/* bound again with ibv_post_send() and invalidated locally */
		k = ibv_inc_rkey(k);
		{
			struct ibv_send_wr wr = {
				.wr_id = 43,
				.opcode = IBV_WR_BIND_MW,
				.send_flags = IBV_SEND_SIGNALED,
				.bind_mw = { mw, k, info },
			},
					   *bad;

			check(!ibv_post_send(s->qp, &wr, &bad),
			      "type 2: IBV_WR_BIND_MW in ibv_post_send");
		}
		expect_one(s, 43, IBV_WC_SUCCESS, IBV_WC_BIND_MW,
			   "type 2 bound again (post_send)");
		key_send(s, k);
		barrier(s, 43);
		ibv_wr_start(s->qpx);
		s->qpx->wr_id = 44;
		s->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_local_inv(s->qpx, k);
		check(!ibv_wr_complete(s->qpx), "type 2: ibv_wr_local_inv");
		expect_one(s, 44, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV,
			   "type 2: LOCAL_INV of the window's key");
		barrier(s, 44);
		barrier(s, 45);
		check(has(win, 0x800, 6),
		      "type 2: the locally invalidated key wrote nothing");
		qp_new(s);
		check(!ibv_dealloc_mw(mw), "dealloc_mw type 2");
		return;
	}
	k = key_recv(s);
	write_to(s, 41, peer_win, k, 0x800, 6);
	expect_one(s, 41, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		   "type 2: RDMA WRITE through the window's key");
	read_from(s, 42, peer_win + 0x800, k, 0x800);
	expect_one(s, 42, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
		   "type 2: RDMA READ through the window's key");
	check(has(s->buf + OFF_LOCAL, 0x800, 8), "type 2: READ data");
	ibv_wr_start(s->qpx);
	s->qpx->wr_id = 43;
	s->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(s->qpx, k);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)s->buf + OFF_SEND, 16);
	check(!ibv_wr_complete(s->qpx), "type 2: ibv_wr_send_inv");
	expect_one(s, 43, IBV_WC_SUCCESS, IBV_WC_SEND,
		   "type 2: SEND with invalidate of the window's key");
	barrier(s, 40);
	barrier(s, 41);
	try_write(s, 44, k, peer_win, 0, 64, false,
		  "type 2 after SEND with invalidate: the key fails");
	barrier(s, 42);
	qp_new(s);
	k = key_recv(s);
	try_write(s, 45, k, peer_win, 0, 64, true,
		  "type 2 bound again: its new key works");
	barrier(s, 43);
	barrier(s, 44);
	try_write(s, 46, k, peer_win, 0, 64, false,
		  "type 2 after LOCAL_INV: the key fails");
	barrier(s, 45);
	qp_new(s);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: verbs_ex -d DEVICE -g GID_INDEX -p PORT [PEER]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *port = NULL, *peer = NULL;
	struct side s = {};
	int opt;

	while ((opt = getopt(argc, argv, "d:g:p:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			s.gidx = atoi(optarg);
			break;
		case 'p':
			port = optarg;
			break;
		default:
			usage();
		}
	}
	if (!dev || !port || argc - optind > 1)
		usage();
	if (optind < argc)
		peer = argv[optind];
	s.requester = peer;
	s.fd = peer ? tcp_connect(peer, port) : tcp_accept(port);

	setup(&s, dev);
	qp_new(&s);
	data_path(&s);
	if (s.atomics)
		atomics(&s);
	else
		printf("note: no atomics: skipped\n");
	if (s.mw) {
		mw_type1(&s);
		if (s.mem_mgt)
			mw_type2(&s);
		else
			printf("note: no invalidation: type 2 skipped\n");
	} else {
		printf("note: no memory windows: skipped\n");
	}
	barrier(&s, 99);

	if (ibv_destroy_qp(s.qp) || ibv_dereg_mr(s.mr) ||
	    ibv_destroy_cq(ibv_cq_ex_to_cq(s.cq)) || ibv_dealloc_pd(s.pd))
		check(false, "teardown");
	ibv_close_device(s.ctx);
	free(s.buf);
	if (failures) {
		printf("verbs_ex: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("verbs_ex: ok %d checks\n", checks);
	return 0;
}
