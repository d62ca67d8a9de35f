// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs_probe: libibverbs calls on an RDMA device, through its provider,
 * for the guest's test scripts. Built against Debian unstable's libibverbs
 * (rdma-core 65) for the guest (qemu-test/build-sid-image.sh).
 *
 *   verbs_probe speed DEVICE [PORT]
 *	ibv_query_port_speed() on PORT (default 1): prints "speed <value in
 *	100 Mb/s>", or "error <errno name> <errno>".
 *   verbs_probe pd DEVICE
 *	ibv_alloc_pd(), ibv_create_cq() and ibv_destroy_cq(),
 *	ibv_dealloc_pd(): prints "pd ok cq <created|errno name>", or
 *	"error <step> <errno name> <errno>".
 *   verbs_probe loop DEVICE GID_INDEX
 *	Two RC QPs of DEVICE connected to each other through the RoCE v2 GID
 *	at GID_INDEX, and every operation of the data path between them, each
 *	checked for its completions (opcode, status, byte_len, imm_data,
 *	wc_flags, qp_num) and its data (a pattern, byte by byte): SEND with
 *	two s/g elements, SEND with immediate and IBV_SEND_INLINE, RDMA
 *	WRITE, RDMA WRITE with immediate into a receive WR without s/g
 *	elements, RDMA READ, on a device with atomics (atomic_cap not NONE:
 *	MRs and QPs then have REMOTE_ATOMIC) fetch and add and compare and
 *	swap, matching and not, with the original values and the remote
 *	8 bytes checked ("no_atomics" without), and post_send's EINVAL with
 *	*bad_wr. Prints "loop ok <step>..." or "error <step> <detail>".
 *
 *   verbs_probe overrun DEVICE GID_INDEX
 *	The same two QPs on their one CQ, and more signaled RDMA WRITEs than
 *	the CQ holds without polling it: the CQ overruns. Once an arm
 *	(ibv_req_notify_cq) has met the CQ in error, the context's
 *	asynchronous events are IBV_EVENT_CQ_ERR for the CQ and
 *	IBV_EVENT_QP_FATAL for each QP, and both QPs are in ERR. Prints "overrun ok cq_err qp_fatal 2" or "error <step> <detail>".
 *
 *   verbs_probe srq DEVICE GID_INDEX
 *	The same two QPs, b's created on a shared receive queue (the SRQ
 *	the kernel driver and the provider create, issue 29): SENDs from a
 *	land in the SRQ's WRs in the order they were posted (completions on
 *	b, data checked); the SRQ limit, armed with ibv_modify_srq(), raises
 *	IBV_EVENT_SRQ_LIMIT_REACHED once, only when fewer WRs than the limit
 *	remain, and is disarmed after (ibv_query_srq); post_recv on b is
 *	EINVAL, resizing is refused. Prints "srq ok ..." or "error <step>
 *	<detail>".
 *
 *   verbs_probe deep_cq DEVICE GID_INDEX
 *   verbs_probe deep_cq_ex DEVICE GID_INDEX
 *	A CQ deeper than a virtqueue (issue 28: the kernel driver's rings
 *	layout puts a process's CQ on a ring): max_cqe at least 4096, one CQ
 *	of 4096 entries (ibv_create_cq), or of 131072 (ibv_create_cq_ex,
 *	read with ibv_start_poll/ibv_next_poll) on a completion channel, armed, the
 *	same two QPs on it sending DEEP_MSGS inline SENDs each way, every
 *	one signaled, none polled until all data has arrived: the completion
 *	event comes, then one poll takes more than 1024 CQEs at once (the
 *	CQ held them), and all 4 x DEEP_MSGS are there, in order per QP and
 *	kind, with their data checked. Prints "deep_cq ok first_poll <n>
 *	cqes <total>" or "error <step> <detail>".
 *
 *   verbs_probe resize_cq DEVICE GID_INDEX
 *   verbs_probe resize_cq_ex DEVICE GID_INDEX
 *	ibv_resize_cq() (issue 29) of a CQ of 256 (ibv_create_cq, or
 *	ibv_create_cq_ex read with ibv_start_poll) under the same two QPs,
 *	SENDs each way in three phases: 200 CQEs, 40 polled; grown to 1024
 *	with 160 pending; 600 more (760 pending: beyond the first ring),
 *	600 polled; a shrink to 100, below the 160 pending, refused (EINVAL)
 *	with the CQ as it was; a shrink to 200; 80 more; everything polled,
 *	in order per QP and kind, data checked. On rings (the driver's
 *	ports/1/ring_cqs counts the CQ) each resize moves the CQ to a ring
 *	of the new size, and one while the old ring still holds CQEs is
 *	EBUSY; a virtqueue CQ stays as deep as its virtqueue (cqe unchanged),
 *	and a size beyond it is EINVAL. Prints "resize_cq ok cqes 880
 *	<rings|virtqueue> ..." or "error <step> <detail>".
 *
 *   verbs_probe ring_qp DEVICE GID_INDEX
 *	A process's QPs on rings (issue 28: the kernel driver's rings layout
 *	and a provider that asks for them): the device's ring_qps counter
 *	(sysfs ports/1/ring_qps) grows by the four QPs of two pairs; a QP
 *	of RING_DEPTH send WRs (deeper than a virtqueue) takes RING_WRITES
 *	RDMA WRITEs in one ibv_post_send, only the last signaled, data
 *	checked; b sends two SENDs back. Then each QP of the first pair lies
 *	in its mapped record (found in /proc/self/maps by its indices) and
 *	asks for its doorbell with a POST_SEND of no WR: a's sq_prod beyond
 *	its ring, b's going backwards. Each must go to ERR alone
 *	(ROCE-DEV-RING-10): the second pair then still SENDs, data checked.
 *	Prints "ring_qp ok ring_qps +<n> ..." or "error <step> <detail>".
 *
 *   verbs_probe ring_rate DEVICE GID_INDEX
 *	Posting cost on a QP (on rings with the rings layout): RDMA WRITEs
 *	of 8 bytes from a to b, one WR per ibv_post_send, RATE_POSTS of
 *	them: "idle", each waited for before the next (the device stops
 *	watching the QP in between), and "busy", up to RATE_WINDOW
 *	outstanding. Prints "ring_rate ok idle <posts/s> <syscalls/post>
 *	busy <posts/s> <syscalls/post>": the system calls are the doorbell
 *	commands, which the kernel driver counts (sysfs
 *	ports/1/ring_user_doorbells; -1 without it).
 *
 * Exits 0 when every call went as printed, 1 on an error, 2 on bad usage.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

static const char *errno_name(int err)
{
	switch (err) {
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EPROTONOSUPPORT:
		return "EPROTONOSUPPORT";
	case EINVAL:
		return "EINVAL";
	case EIO:
		return "EIO";
	case EBUSY:
		return "EBUSY";
	case ENOMEM:
		return "ENOMEM";
	default:
		return "other";
	}
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i;

	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fprintf(stderr, "%s: no such device or cannot open it\n", name);
	return ctx;
}

static int speed(struct ibv_context *ctx, uint32_t port)
{
	uint64_t value;
	int ret;

	ret = ibv_query_port_speed(ctx, port, &value);
	if (ret) {
		printf("error %s %d\n", errno_name(ret), ret);
		return 1;
	}
	printf("speed %" PRIu64 "\n", value);
	return 0;
}

static int pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int cq_err, ret;

	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		printf("error alloc_pd %s %d\n", errno_name(errno), errno);
		return 1;
	}
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cq_err = cq ? 0 : errno;
	if (cq)
		ibv_destroy_cq(cq);
	ret = ibv_dealloc_pd(pd);
	if (ret) {
		printf("error dealloc_pd %s %d\n", errno_name(ret), ret);
		return 1;
	}
	printf("pd ok cq %s\n", cq ? "created" : errno_name(cq_err));
	return 0;
}

/* The loop test: two RC QPs (a, b) on one CQ, a buffer and an MR each. */
#define LOOP_BUF 16384
#define LOOP_IMM 0x12345678u

struct loop {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	unsigned char *buf[2];
	union ibv_gid gid;
	int gidx;
	enum ibv_mtu mtu;
	bool atomics; /* atomic_cap not IBV_ATOMIC_NONE */
	struct ibv_srq *srq; /* if set, b receives from it */
	int cqe; /* the CQ's size; 0: 32 */
	int depth; /* each QP's max_send_wr and max_recv_wr; 0: 8 */
	struct ibv_comp_channel *channel; /* the CQ's, or NULL */
	struct ibv_cq_ex *cqx; /* if set, l->cq is this extended CQ */
	char done[256];
};

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 8));
}

static int fail(const char *step, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(const char *step, const char *fmt, ...)
{
	va_list ap;

	printf("error %s ", step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 1;
}

static int loop_connect(struct loop *l, int i)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   (l->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0),
	};
	int ret;

	ret = ibv_modify_qp(l->qp[i], &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	if (ret)
		return fail("modify_init", "%s %d", errno_name(ret), ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = l->mtu;
	a.dest_qp_num = l->qp[!i]->qp_num;
	a.rq_psn = 100 + !i;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = l->gid;
	a.ah_attr.grh.sgid_index = l->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	ret = ibv_modify_qp(l->qp[i], &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return fail("modify_rtr", "%s %d", errno_name(ret), ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100 + i;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(l->qp[i], &a,
			    IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return fail("modify_rts", "%s %d", errno_name(ret), ret);
	return 0;
}

static int loop_setup(struct loop *l)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	int i, ret;

	ret = ibv_query_device(l->ctx, &dev);
	if (ret)
		return fail("query_device", "%d", ret);
	l->atomics = dev.atomic_cap != IBV_ATOMIC_NONE;
	if (!l->pd) /* the SRQ test's is there already */
		l->pd = ibv_alloc_pd(l->ctx);
	if (!l->pd)
		return fail("alloc_pd", "%s", errno_name(errno));
	if (l->depth)
		init.cap.max_send_wr = init.cap.max_recv_wr = l->depth;
	if (l->cqx)
		l->cq = ibv_cq_ex_to_cq(l->cqx);
	else
		l->cq = ibv_create_cq(l->ctx, l->cqe ? l->cqe : 32, NULL,
				      l->channel, 0);
	if (!l->cq)
		return fail("create_cq", "%s %d", errno_name(errno), errno);
	ret = ibv_query_port(l->ctx, 1, &port);
	if (ret)
		return fail("query_port", "%d", ret);
	l->mtu = port.active_mtu;
	if (ibv_query_gid(l->ctx, 1, l->gidx, &l->gid))
		return fail("query_gid", "%d", l->gidx);

	init.send_cq = l->cq;
	init.recv_cq = l->cq;
	for (i = 0; i < 2; i++) {
		l->buf[i] = calloc(1, LOOP_BUF);
		if (!l->buf[i])
			return fail("calloc", "%d", i);
		l->mr[i] = ibv_reg_mr(l->pd, l->buf[i], LOOP_BUF,
				      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ |
					      (l->atomics ?
						       IBV_ACCESS_REMOTE_ATOMIC :
						       0));
		if (!l->mr[i])
			return fail("reg_mr", "%s %d", errno_name(errno),
				    errno);
		if (i == 1 && l->srq) {
			init.srq = l->srq;
			init.cap.max_recv_wr = 0;
			init.cap.max_recv_sge = 0;
		}
		l->qp[i] = ibv_create_qp(l->pd, &init);
		if (!l->qp[i])
			return fail("create_qp", "%s %d", errno_name(errno),
				    errno);
	}
	if (init.cap.max_inline_data < 64)
		return fail("create_qp", "max_inline_data %u",
			    init.cap.max_inline_data);
	for (i = 0; i < 2; i++)
		if (loop_connect(l, i))
			return 1;
	return 0;
}

static void loop_teardown(struct loop *l)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (l->qp[i])
			ibv_destroy_qp(l->qp[i]);
		if (l->mr[i])
			ibv_dereg_mr(l->mr[i]);
		free(l->buf[i]);
	}
	if (l->srq)
		ibv_destroy_srq(l->srq);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	if (l->channel)
		ibv_destroy_comp_channel(l->channel);
	if (l->pd)
		ibv_dealloc_pd(l->pd);
}

/* loop_setup() on an extended CQ made with @attr, if not NULL. */
static int loop_setup_cq(struct loop *l, struct ibv_cq_init_attr_ex *attr)
{
	if (attr) {
		l->cqx = ibv_create_cq_ex(l->ctx, attr);
		if (!l->cqx)
			return fail("create_cq_ex", "%s %d", errno_name(errno),
				    errno);
	}
	return loop_setup(l);
}

/* Poll until @n completions arrived (at most 60 s, TCG is slow). */
static int loop_wait(struct loop *l, const char *step, struct ibv_wc *wc,
		     int n)
{
	time_t end = time(NULL) + 60;
	int got = 0, ret;

	while (got < n) {
		ret = ibv_poll_cq(l->cq, n - got, wc + got);
		if (ret < 0)
			return fail(step, "poll_cq %d", ret);
		got += ret;
		if (!ret && time(NULL) > end)
			return fail(step, "%d of %d completions", got, n);
	}
	for (ret = 0; ret < n; ret++)
		if (wc[ret].status != IBV_WC_SUCCESS)
			return fail(step, "wr_id %llu status %s vendor_err %u",
				    (unsigned long long)wc[ret].wr_id,
				    ibv_wc_status_str(wc[ret].status),
				    wc[ret].vendor_err);
	return 0;
}

/* The completion of @wr_id among @wc, checked field by field. */
static int loop_check_wc(const char *step, const struct ibv_wc *wc, int n,
			 uint64_t wr_id, enum ibv_wc_opcode opcode,
			 uint32_t byte_len, uint32_t qp_num, bool imm)
{
	int i;

	for (i = 0; i < n && wc[i].wr_id != wr_id; i++)
		;
	if (i == n)
		return fail(step, "no completion for wr_id %llu",
			    (unsigned long long)wr_id);
	wc += i;
	if (wc->opcode != opcode || wc->byte_len != byte_len ||
	    wc->qp_num != qp_num ||
	    !!(wc->wc_flags & IBV_WC_WITH_IMM) != imm ||
	    (imm && wc->imm_data != htonl(LOOP_IMM)))
		return fail(step,
			    "wr_id %llu opcode %d byte_len %u qp_num %u "
			    "wc_flags %#x imm_data %#x",
			    (unsigned long long)wr_id, wc->opcode,
			    wc->byte_len, wc->qp_num, wc->wc_flags,
			    ntohl(wc->imm_data));
	return 0;
}

static int loop_post_recv(struct loop *l, int i, uint64_t wr_id,
			  uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)l->buf[i] + off,
		.length = len,
		.lkey = l->mr[i]->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
	}, *bad;
	int ret;

	ret = ibv_post_recv(l->qp[i], &wr, &bad);
	if (ret)
		return fail("post_recv", "%s %d", errno_name(ret), ret);
	return 0;
}

static int loop_post_send(struct loop *l, const char *step,
			  struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	ret = ibv_post_send(l->qp[0], wr, &bad);
	if (ret)
		return fail(step, "post_send %s %d", errno_name(ret), ret);
	return 0;
}

static int loop_same(const char *step, const unsigned char *got,
		     const unsigned char *want, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (got[i] != want[i])
			return fail(step, "byte %zu is %#x, not %#x", i,
				    got[i], want[i]);
	return 0;
}

static void loop_done(struct loop *l, const char *step)
{
	strncat(l->done, " ", sizeof(l->done) - strlen(l->done) - 1);
	strncat(l->done, step, sizeof(l->done) - strlen(l->done) - 1);
}

/* SEND of 8 KiB from two s/g elements into one receive WR of b. */
static int loop_send(struct loop *l)
{
	unsigned char *a = l->buf[0], *b = l->buf[1];
	struct ibv_sge sge[2] = {
		{ (uintptr_t)a, 3000, l->mr[0]->lkey },
		{ (uintptr_t)a + 3000, 5192, l->mr[0]->lkey },
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc[2];

	fill(a, 8192, 1);
	memset(b, 0, LOOP_BUF);
	if (loop_post_recv(l, 1, 2, 0, LOOP_BUF) ||
	    loop_post_send(l, "send", &wr) || loop_wait(l, "send", wc, 2) ||
	    loop_check_wc("send", wc, 2, 1, IBV_WC_SEND, 8192,
			  l->qp[0]->qp_num, false) ||
	    loop_check_wc("send", wc, 2, 2, IBV_WC_RECV, 8192,
			  l->qp[1]->qp_num, false) ||
	    loop_same("send", b, a, 8192))
		return 1;
	loop_done(l, "send");
	return 0;
}

/* SEND with immediate, the message inline (copied at post time). */
static int loop_send_imm_inline(struct loop *l)
{
	unsigned char msg[64], *b = l->buf[1];
	struct ibv_sge sge = { (uintptr_t)msg, sizeof(msg), 0 };
	struct ibv_send_wr wr = {
		.wr_id = 3,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.imm_data = htonl(LOOP_IMM),
	};
	unsigned char want[64];
	struct ibv_wc wc[2];

	fill(msg, sizeof(msg), 2);
	memcpy(want, msg, sizeof(want));
	memset(b, 0, LOOP_BUF);
	if (loop_post_recv(l, 1, 4, 0, LOOP_BUF) ||
	    loop_post_send(l, "send_imm_inline", &wr))
		return 1;
	memset(msg, 0, sizeof(msg)); /* inline: already copied */
	if (loop_wait(l, "send_imm_inline", wc, 2) ||
	    loop_check_wc("send_imm_inline", wc, 2, 3, IBV_WC_SEND, 64,
			  l->qp[0]->qp_num, false) ||
	    loop_check_wc("send_imm_inline", wc, 2, 4, IBV_WC_RECV, 64,
			  l->qp[1]->qp_num, true) ||
	    loop_same("send_imm_inline", b, want, sizeof(want)))
		return 1;
	loop_done(l, "send_imm_inline");
	return 0;
}

/* RDMA WRITE of 4 KiB to b's buffer at 4096; an unsignaled one first. */
static int loop_write(struct loop *l)
{
	unsigned char *a = l->buf[0], *b = l->buf[1];
	struct ibv_sge sge = { (uintptr_t)a, 4096, l->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)b + 4096, l->mr[1]->rkey },
	};
	struct ibv_wc wc[1];

	fill(a, 4096, 3);
	memset(b, 0, LOOP_BUF);
	if (loop_post_send(l, "write", &wr) || loop_wait(l, "write", wc, 1) ||
	    loop_check_wc("write", wc, 1, 5, IBV_WC_RDMA_WRITE, 4096,
			  l->qp[0]->qp_num, false) ||
	    loop_same("write", b + 4096, a, 4096))
		return 1;
	loop_done(l, "write");
	return 0;
}

/* RDMA WRITE with immediate: consumes a receive WR without s/g elements. */
static int loop_write_imm(struct loop *l)
{
	unsigned char *a = l->buf[0], *b = l->buf[1];
	struct ibv_sge sge = { (uintptr_t)a, 100, l->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 6,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(LOOP_IMM),
		.wr.rdma = { (uintptr_t)b + 100, l->mr[1]->rkey },
	};
	struct ibv_wc wc[2];

	fill(a, 100, 4);
	memset(b, 0, LOOP_BUF);
	if (loop_post_recv(l, 1, 7, 0, 0) ||
	    loop_post_send(l, "write_imm", &wr) ||
	    loop_wait(l, "write_imm", wc, 2) ||
	    loop_check_wc("write_imm", wc, 2, 6, IBV_WC_RDMA_WRITE, 100,
			  l->qp[0]->qp_num, false) ||
	    loop_check_wc("write_imm", wc, 2, 7, IBV_WC_RECV_RDMA_WITH_IMM,
			  100, l->qp[1]->qp_num, true) ||
	    loop_same("write_imm", b + 100, a, 100))
		return 1;
	loop_done(l, "write_imm");
	return 0;
}

/* RDMA READ of 6000 bytes of b into a at 8192. */
static int loop_read(struct loop *l)
{
	unsigned char *a = l->buf[0], *b = l->buf[1];
	struct ibv_sge sge = { (uintptr_t)a + 8192, 6000, l->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 8,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)b + 10, l->mr[1]->rkey },
	};
	struct ibv_wc wc[1];

	memset(a, 0, LOOP_BUF);
	fill(b, LOOP_BUF, 5);
	if (loop_post_send(l, "read", &wr) || loop_wait(l, "read", wc, 1) ||
	    loop_check_wc("read", wc, 1, 8, IBV_WC_RDMA_READ, 6000,
			  l->qp[0]->qp_num, false) ||
	    loop_same("read", a + 8192, b + 10, 6000))
		return 1;
	loop_done(l, "read");
	return 0;
}

/* A bad WR after a good one: EINVAL, *bad_wr the bad one, the good one runs. */
static int loop_einval(struct loop *l)
{
	struct ibv_sge sge[3] = {
		{ (uintptr_t)l->buf[0], 8, l->mr[0]->lkey },
		{ (uintptr_t)l->buf[0], 8, l->mr[0]->lkey },
		{ (uintptr_t)l->buf[0], 8, l->mr[0]->lkey },
	};
	struct ibv_send_wr bad_sge = {
		.wr_id = 10,
		.sg_list = sge,
		.num_sge = 3, /* max_send_sge is 2 */
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { (uintptr_t)l->buf[1], l->mr[1]->rkey },
	};
	struct ibv_send_wr good = {
		.wr_id = 9,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)l->buf[1], l->mr[1]->rkey },
		.next = &bad_sge,
	};
	struct ibv_send_wr bad_op = {
		.wr_id = 11,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_TSO, /* not on RC */
	};
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc[1];
	int ret;

	ret = ibv_post_send(l->qp[0], &good, &bad);
	if (ret != EINVAL || bad != &bad_sge)
		return fail("einval", "too many sge: %d bad_wr %p", ret,
			    (void *)bad);
	if (loop_wait(l, "einval", wc, 1) ||
	    loop_check_wc("einval", wc, 1, 9, IBV_WC_RDMA_WRITE, 8,
			  l->qp[0]->qp_num, false))
		return 1;
	bad = NULL;
	ret = ibv_post_send(l->qp[0], &bad_op, &bad);
	if (ret != EINVAL || bad != &bad_op)
		return fail("einval", "TSO: %d bad_wr %p", ret, (void *)bad);
	/* without the device's atomics, an atomic is refused too */
	bad_op.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	bad_op.send_flags = IBV_SEND_SIGNALED;
	bad_op.wr.atomic.remote_addr = (uintptr_t)l->buf[1];
	bad_op.wr.atomic.rkey = l->mr[1]->rkey;
	bad = NULL;
	ret = ibv_post_send(l->qp[0], &bad_op, &bad);
	if (!l->atomics && (ret != EINVAL || bad != &bad_op))
		return fail("einval", "atomic without atomic_cap: %d bad_wr %p",
			    ret, (void *)bad);
	if (l->atomics &&
	    (ret || loop_wait(l, "einval", wc, 1) ||
	     loop_check_wc("einval", wc, 1, 11, IBV_WC_FETCH_ADD, 8,
			   l->qp[0]->qp_num, false)))
		return ret ? fail("einval", "atomic: %d", ret) : 1;
	loop_done(l, "einval");
	return 0;
}

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/*
 * RC atomics (with the device's atomics): on 8 bytes of b, little endian,
 * the original value into a. FETCH_AND_ADD 5 + 3, CMP_AND_SWP 8 -> 42 that
 * matches, 7 -> 99 that does not; a misaligned address and a 4-byte s/g
 * element are EINVAL.
 */
static int loop_atomic(struct loop *l)
{
	unsigned char *a = l->buf[0] + 4096, *b = l->buf[1] + 4096;
	struct ibv_sge sge = { (uintptr_t)a, 8, l->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = (uintptr_t)b,
			       .rkey = l->mr[1]->rkey },
	}, *bad;
	static const struct {
		enum ibv_wr_opcode op;
		uint64_t compare_add, swap, orig, after;
	} steps[] = {
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 3, 0, 5, 8 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 8, 42, 8, 42 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 7, 99, 42, 42 },
	};
	uint64_t v = htole64(5);
	struct ibv_wc wc[1];
	unsigned int i;
	int ret;

	if (!l->atomics) {
		loop_done(l, "no_atomics");
		return 0;
	}
	memcpy(b, &v, sizeof(v));
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		memset(a, 0xee, 8);
		wr.wr_id = 20 + i;
		wr.opcode = steps[i].op;
		wr.wr.atomic.compare_add = steps[i].compare_add;
		wr.wr.atomic.swap = steps[i].swap;
		if (loop_post_send(l, "atomic", &wr) ||
		    loop_wait(l, "atomic", wc, 1) ||
		    loop_check_wc("atomic", wc, 1, 20 + i,
				  steps[i].op == IBV_WR_ATOMIC_CMP_AND_SWP ?
					  IBV_WC_COMP_SWAP :
					  IBV_WC_FETCH_ADD,
				  8, l->qp[0]->qp_num, false))
			return 1;
		if (load64(a) != steps[i].orig || load64(b) != steps[i].after)
			return fail("atomic",
				    "step %u: original %#llx (want %#llx), "
				    "remote %#llx (want %#llx)",
				    i, (unsigned long long)load64(a),
				    (unsigned long long)steps[i].orig,
				    (unsigned long long)load64(b),
				    (unsigned long long)steps[i].after);
	}
	wr.wr.atomic.remote_addr = (uintptr_t)b + 4;
	bad = NULL;
	ret = ibv_post_send(l->qp[0], &wr, &bad);
	if (ret != EINVAL || bad != &wr)
		return fail("atomic", "misaligned: %d", ret);
	wr.wr.atomic.remote_addr = (uintptr_t)b;
	sge.length = 4;
	ret = ibv_post_send(l->qp[0], &wr, &bad);
	if (ret != EINVAL)
		return fail("atomic", "4-byte s/g element: %d", ret);
	loop_done(l, "atomic");
	return 0;
}

/* Post @wr again until the send queue has room (its used ring, not the CQ, frees it). */
static int overrun_post(struct loop *l, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	time_t end = time(NULL) + 60;
	int ret;

	for (;;) {
		ret = ibv_post_send(l->qp[0], wr, &bad);
		if (ret != ENOMEM)
			break;
		if (time(NULL) > end)
			return fail("overrun", "send queue stays full");
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	return ret ? fail("overrun", "post_send %s %d", errno_name(ret), ret) : 0;
}

/*
 * The next asynchronous event within 60 s. The driver finds the CQ in error
 * when an arm fails, and uverbs does not return that failure (it ignores
 * what the driver's req_notify_cq says): arm again while nothing comes.
 */
static int overrun_event(struct loop *l, struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = l->ctx->async_fd, .events = POLLIN };
	time_t end = time(NULL) + 60;

	while (poll(&p, 1, 100) != 1) {
		if (time(NULL) > end)
			return fail("overrun", "no asynchronous event");
		ibv_req_notify_cq(l->cq, 0);
	}
	if (ibv_get_async_event(l->ctx, ev))
		return fail("overrun", "get_async_event %d", errno);
	return 0;
}

static int overrun(struct ibv_context *ctx, int gidx)
{
	struct loop l = { .ctx = ctx, .gidx = gidx };
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_async_event ev;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ret = 1, cq_err = 0, qp_fatal[2] = { 0, 0 }, i, n;

	if (loop_setup(&l))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)l.buf[0], 8, l.mr[0]->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)l.buf[1];
	wr.wr.rdma.rkey = l.mr[1]->rkey;
	/* one CQE more than the CQ has buffers for, none polled */
	for (n = 0; n <= l.cq->cqe; n++)
		if (overrun_post(&l, &wr))
			goto out;
	while (!cq_err || !qp_fatal[0] || !qp_fatal[1]) {
		if (overrun_event(&l, &ev))
			goto out;
		if (ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == l.cq)
			cq_err++;
		else if (ev.event_type == IBV_EVENT_QP_FATAL &&
			 (ev.element.qp == l.qp[0] || ev.element.qp == l.qp[1]))
			qp_fatal[ev.element.qp == l.qp[1]]++;
		else
			printf("event %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	for (i = 0; i < 2; i++) {
		if (ibv_query_qp(l.qp[i], &attr, IBV_QP_STATE, &init) ||
		    attr.qp_state != IBV_QPS_ERR) {
			fail("overrun", "QP %d in state %d", i, attr.qp_state);
			goto out;
		}
	}
	ret = 0;
	printf("overrun ok cq_err %d qp_fatal %d\n", cq_err,
	       qp_fatal[0] + qp_fatal[1]);
out:
	loop_teardown(&l);
	return ret;
}

/* An asynchronous event within @ms milliseconds: 1, none: 0, error: -1. */
static int async_event(struct ibv_context *ctx, int ms,
		       struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int ret = poll(&p, 1, ms);

	if (ret != 1)
		return ret;
	return ibv_get_async_event(ctx, ev) ? -1 : 1;
}

/* @n SENDs of 1000 bytes from a, each into the next WR of the SRQ. */
static int srq_sends(struct loop *l, int first, int n)
{
	unsigned char *a = l->buf[0], *b = l->buf[1];
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc[16];
	int k;

	for (k = first; k < first + n; k++) {
		fill(a + k * 1024, 1000, k);
		sge = (struct ibv_sge){ (uintptr_t)a + k * 1024, 1000,
					l->mr[0]->lkey };
		wr.wr_id = k;
		if (loop_post_send(l, "srq_send", &wr) ||
		    loop_wait(l, "srq_send", wc, 2) ||
		    loop_check_wc("srq_send", wc, 2, k, IBV_WC_SEND, 1000,
				  l->qp[0]->qp_num, false) ||
		    loop_check_wc("srq_recv", wc, 2, 100 + k, IBV_WC_RECV,
				  1000, l->qp[1]->qp_num, false) ||
		    loop_same("srq_recv", b + k * 1024, a + k * 1024, 1000))
			return 1;
	}
	return 0;
}

static int srq(struct ibv_context *ctx, int gidx)
{
	struct loop l = { .ctx = ctx, .gidx = gidx };
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 16,
						     .max_sge = 1 } };
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_srq_attr sattr;
	struct ibv_async_event ev;
	int ret = 1, k, got;

	l.pd = ibv_alloc_pd(ctx);
	if (!l.pd)
		return fail("alloc_pd", "%s", errno_name(errno));
	sinit.srq_context = &l;
	l.srq = ibv_create_srq(l.pd, &sinit);
	if (!l.srq) {
		fail("create_srq", "%s %d", errno_name(errno), errno);
		goto out;
	}
	if (ibv_query_srq(l.srq, &sattr) || sattr.max_wr < 16 ||
	    sattr.srq_limit) {
		fail("query_srq", "max_wr %u srq_limit %u", sattr.max_wr,
		     sattr.srq_limit);
		goto out;
	}
	if (loop_setup(&l))
		goto out;
	ret = ibv_post_recv(l.qp[1], &rwr, &bad);
	if (ret != EINVAL) {
		fail("post_recv_on_srq_qp", "%s %d", errno_name(ret), ret);
		ret = 1;
		goto out;
	}
	/* 8 WRs, 1 KiB each; the limit at 4. */
	for (k = 0; k < 8; k++) {
		sge = (struct ibv_sge){ (uintptr_t)l.buf[1] + k * 1024, 1024,
					l.mr[1]->lkey };
		rwr.wr_id = 100 + k;
		ret = ibv_post_srq_recv(l.srq, &rwr, &bad);
		if (ret) {
			fail("post_srq_recv", "%s %d", errno_name(ret), ret);
			goto out;
		}
	}
	sattr = (struct ibv_srq_attr){ .max_wr = 32 };
	ret = ibv_modify_srq(l.srq, &sattr, IBV_SRQ_MAX_WR);
	if (!ret) {
		fail("resize_srq", "accepted");
		ret = 1;
		goto out;
	}
	sattr = (struct ibv_srq_attr){ .srq_limit = 4 };
	ret = ibv_modify_srq(l.srq, &sattr, IBV_SRQ_LIMIT);
	if (ret || ibv_query_srq(l.srq, &sattr) || sattr.srq_limit != 4) {
		fail("arm_srq_limit", "%s %d srq_limit %u", errno_name(ret),
		     ret, sattr.srq_limit);
		ret = 1;
		goto out;
	}
	loop_done(&l, "armed");
	ret = 1;
	/* 5 WRs left: no event; 3 left: the event, once. */
	if (srq_sends(&l, 0, 3))
		goto out;
	got = async_event(ctx, 300, &ev);
	if (got) {
		fail("srq_limit", "an event with 5 WRs left: %s",
		     got > 0 ? ibv_event_type_str(ev.event_type) : "error");
		goto out;
	}
	loop_done(&l, "recv_5_left_no_event");
	if (srq_sends(&l, 3, 2))
		goto out;
	got = async_event(ctx, 60000, &ev);
	if (got <= 0 || ev.event_type != IBV_EVENT_SRQ_LIMIT_REACHED ||
	    ev.element.srq != l.srq) {
		fail("srq_limit", "%s",
		     got > 0 ? ibv_event_type_str(ev.event_type) : "no event");
		goto out;
	}
	ibv_ack_async_event(&ev);
	if (ibv_query_srq(l.srq, &sattr) || sattr.srq_limit) {
		fail("srq_limit", "still armed: srq_limit %u", sattr.srq_limit);
		goto out;
	}
	loop_done(&l, "limit_event_3_left");
	if (srq_sends(&l, 5, 1))
		goto out;
	got = async_event(ctx, 300, &ev);
	if (got) {
		fail("srq_limit", "a second event: %s",
		     got > 0 ? ibv_event_type_str(ev.event_type) : "error");
		goto out;
	}
	loop_done(&l, "once");
	ret = 0;
	printf("srq ok%s\n", l.done);
out:
	loop_teardown(&l);
	return ret;
}

/*
 * The deep CQ test. Each QP receives DEEP_MSGS messages of DEEP_LEN bytes
 * into its buffer, message k at k * DEEP_LEN, and sends as many inline:
 * 4 x DEEP_MSGS CQEs on the one CQ, none polled until all data is there.
 */
#define DEEP_CQE 4096
/* Beyond one page allocation of the kernel's (65536 CQEs of 64 bytes) */
#define DEEP_CQE_EX 131072
#define DEEP_MSGS 1000
#define DEEP_LEN 16
#define DEEP_RECV 100000 /* + 10000 * QP + k: receive wr_ids */

static void deep_msg(unsigned char *p, int qp, int k)
{
	int i;

	for (i = 0; i < DEEP_LEN; i++)
		p[i] = (unsigned char)(qp * 131 + k * 7 + i + (k >> 8));
}

/* Up to @n completions of the extended CQ as ibv_wc (start/next_poll). */
static int deep_poll_ex(struct ibv_cq_ex *cqx, int n, struct ibv_wc *wc)
{
	struct ibv_poll_cq_attr attr = {};
	int got = 0, ret;

	ret = ibv_start_poll(cqx, &attr);
	if (ret == ENOENT)
		return 0;
	while (!ret) {
		wc[got].wr_id = cqx->wr_id;
		wc[got].status = cqx->status;
		wc[got].opcode = ibv_wc_read_opcode(cqx);
		wc[got].byte_len = ibv_wc_read_byte_len(cqx);
		wc[got].qp_num = ibv_wc_read_qp_num(cqx);
		if (++got == n)
			break;
		ret = ibv_next_poll(cqx);
	}
	ibv_end_poll(cqx);
	return ret && ret != ENOENT ? -ret : got;
}

static int deep_poll(struct loop *l, int n, struct ibv_wc *wc)
{
	return l->cqx ? deep_poll_ex(l->cqx, n, wc) :
			ibv_poll_cq(l->cq, n, wc);
}

/* Message @last - 1 of both QPs in its receive buffer, or 60 s gone. */
static int deep_arrived(struct loop *l, int last)
{
	unsigned char want[DEEP_LEN];
	time_t end = time(NULL) + 60;
	int i;

	for (i = 0; i < 2; i++) {
		deep_msg(want, !i, last - 1);
		while (memcmp(l->buf[i] + (last - 1) * DEEP_LEN, want,
			      DEEP_LEN)) {
			if (time(NULL) > end)
				return fail("deep_data", "QP %d: last message "
					    "not there in 60 s", i);
			sched_yield();
			/* The device writes it: read it anew. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		}
	}
	return 0;
}

/*
 * The CQEs in order per QP and kind (the n-th send or receive CQE of QP
 * i is its n-th WR's), receives with their data, @msgs of each.
 */
static int deep_check(struct loop *l, const struct ibv_wc *wc, int n,
		      int msgs)
{
	int next[2][2] = {}, i, k, qp, recv;
	unsigned char want[DEEP_LEN];

	for (i = 0; i < n; i++) {
		qp = wc[i].qp_num == l->qp[1]->qp_num;
		recv = wc[i].opcode == IBV_WC_RECV;
		k = next[qp][recv]++;
		if (wc[i].status != IBV_WC_SUCCESS ||
		    (!recv && wc[i].opcode != IBV_WC_SEND) ||
		    wc[i].wr_id != (uint64_t)(recv ? DEEP_RECV + 10000 * qp + k :
						     10000 * qp + k) ||
		    (recv && wc[i].byte_len != DEEP_LEN))
			return fail("deep_cqe",
				    "CQE %d: QP %d %s %d: wr_id %llu status %s "
				    "opcode %d byte_len %u",
				    i, qp, recv ? "recv" : "send", k,
				    (unsigned long long)wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status),
				    wc[i].opcode, wc[i].byte_len);
		if (!recv)
			continue;
		deep_msg(want, !qp, k);
		if (loop_same("deep_data", l->buf[qp] + k * DEEP_LEN, want,
			      DEEP_LEN))
			return 1;
	}
	for (i = 0; i < 4; i++)
		if (next[i / 2][i % 2] != msgs)
			return fail("deep_cqe", "QP %d %s: %d CQEs", i / 2,
				    i % 2 ? "recv" : "send",
				    next[i / 2][i % 2]);
	return 0;
}

/* Messages @from to @to - 1 each way, their receive WRs first. */
static int deep_post(struct loop *l, int from, int to)
{
	unsigned char msg[DEEP_LEN];
	struct ibv_sge sge = { .length = DEEP_LEN };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	}, *bad;
	int i, k, ret;

	for (i = 0; i < 2; i++)
		for (k = from; k < to; k++)
			if (loop_post_recv(l, i, DEEP_RECV + 10000 * i + k,
					   k * DEEP_LEN, DEEP_LEN))
				return 1;
	sge.addr = (uintptr_t)msg;
	for (k = from; k < to; k++)
		for (i = 0; i < 2; i++) {
			deep_msg(msg, i, k);
			wr.wr_id = 10000 * i + k;
			ret = ibv_post_send(l->qp[i], &wr, &bad);
			if (ret)
				return fail("deep_send", "QP %d WR %d: %s %d",
					    i, k, errno_name(ret), ret);
		}
	return 0;
}

static int deep_cq(struct ibv_context *ctx, int gidx, bool ex)
{
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = DEEP_CQE_EX,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
	};
	struct loop l = { .ctx = ctx, .gidx = gidx, .cqe = DEEP_CQE,
			  .depth = DEEP_MSGS };
	struct pollfd p = { .events = POLLIN };
	struct ibv_device_attr dev;
	struct ibv_wc *wc = NULL;
	int ret = 1, first, total, n;
	struct ibv_cq *evcq;
	void *evctx;
	time_t end;

	if (ibv_query_device(ctx, &dev))
		return fail("query_device", "%s", errno_name(errno));
	if (dev.max_cqe < (ex ? DEEP_CQE_EX : DEEP_CQE))
		return fail("max_cqe", "%d, less than %d", dev.max_cqe,
			    ex ? DEEP_CQE_EX : DEEP_CQE);
	wc = calloc(4 * DEEP_MSGS, sizeof(*wc));
	l.channel = ibv_create_comp_channel(ctx);
	if (!wc || !l.channel) {
		fail("setup", "%s", errno_name(errno));
		goto out;
	}
	cattr.channel = l.channel;
	if (loop_setup_cq(&l, ex ? &cattr : NULL))
		goto out;
	if (l.cq->cqe < (ex ? DEEP_CQE_EX : DEEP_CQE)) {
		fail("create_cq", "cqe %d", l.cq->cqe);
		goto out;
	}
	n = ibv_req_notify_cq(l.cq, 0);
	if (n) {
		fail("req_notify_cq", "%s %d", errno_name(n), n);
		goto out;
	}
	if (deep_post(&l, 0, DEEP_MSGS) || deep_arrived(&l, DEEP_MSGS))
		goto out;
	p.fd = l.channel->fd;
	if (poll(&p, 1, 60000) != 1 ||
	    ibv_get_cq_event(l.channel, &evcq, &evctx) || evcq != l.cq) {
		fail("cq_event", "none in 60 s");
		goto out;
	}
	ibv_ack_cq_events(l.cq, 1);
	loop_done(&l, "event");
	/* The send CQEs follow the peer's acknowledgements: 1 s more. */
	sleep(1);
	total = 0;
	first = -1;
	end = time(NULL) + 60;
	while (total < 4 * DEEP_MSGS) {
		n = deep_poll(&l, 4 * DEEP_MSGS - total, wc + total);
		if (n < 0) {
			fail("poll", "%d", n);
			goto out;
		}
		if (first < 0)
			first = n;
		total += n;
		if (!n && time(NULL) > end) {
			fail("poll", "%d of %d CQEs in 60 s", total,
			     4 * DEEP_MSGS);
			goto out;
		}
	}
	if (first <= 1024) {
		fail("first_poll", "%d CQEs, not more than a virtqueue's 1024",
		     first);
		goto out;
	}
	if (deep_check(&l, wc, total, DEEP_MSGS))
		goto out;
	printf("%s ok first_poll %d cqes %d%s\n", ex ? "deep_cq_ex" : "deep_cq",
	       first, total, l.done);
	ret = 0;
out:
	loop_teardown(&l);
	free(wc);
	return ret;
}

/*
 * The resize test (ibv_resize_cq). Messages go both ways as in the deep CQ
 * test, in three phases of RESIZE_P1, RESIZE_P2 and RESIZE_P3 each way
 * (4 CQEs per message pair: two sends, two receives), on a CQ of
 * RESIZE_CQE; a ring CQ moves to new rings, a virtqueue CQ stays as deep
 * as its virtqueue.
 */
#define RESIZE_CQE 256
#define RESIZE_P1 50 /* 200 CQEs, RESIZE_POLL1 polled: 160 pending */
#define RESIZE_POLL1 40
#define RESIZE_P2 150 /* 600 more: 760 pending, beyond the first ring */
#define RESIZE_POLL2 600 /* 160 pending again */
#define RESIZE_P3 20 /* 80 more: 240, within the shrunk ring of 256 */
#define RESIZE_GROW 1024
#define RESIZE_SHRINK 200
#define RESIZE_TOO_SMALL 100
#define RESIZE_MSGS (RESIZE_P1 + RESIZE_P2 + RESIZE_P3)

static long port_attr(const char *dev, const char *name);

/* @n more CQEs into @wc + *@total, within 60 s. */
static int resize_poll(struct loop *l, struct ibv_wc *wc, int *total, int n)
{
	time_t end = time(NULL) + 60;
	int want = *total + n, got;

	while (*total < want) {
		got = deep_poll(l, want - *total, wc + *total);
		if (got < 0)
			return fail("poll", "%d after %d CQEs", got, *total);
		*total += got;
		if (!got && time(NULL) > end)
			return fail("poll", "%d of %d CQEs in 60 s", *total,
				    want);
	}
	return 0;
}

/* Messages @from to @to - 1 each way, all there and (1 s) acknowledged. */
static int resize_phase(struct loop *l, int from, int to)
{
	if (deep_post(l, from, to) || deep_arrived(l, to))
		return 1;
	sleep(1);
	return 0;
}

/* ibv_resize_cq() to @cqe: @want (0 or an errno), then cq->cqe @depth. */
static int resize_to(struct loop *l, const char *step, int cqe, int want,
		     int depth)
{
	int ret = ibv_resize_cq(l->cq, cqe);

	if (ret != want || l->cq->cqe != depth)
		return fail(step, "resize to %d: %s %d, cqe %d (want %d, %d)",
			    cqe, errno_name(ret), ret, l->cq->cqe, want, depth);
	loop_done(l, step);
	return 0;
}

static int resize_cq(struct ibv_context *ctx, const char *name, int gidx,
		     bool ex)
{
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = RESIZE_CQE,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
	};
	struct loop l = { .ctx = ctx, .gidx = gidx, .cqe = RESIZE_CQE,
			  .depth = 2 * RESIZE_MSGS };
	long before = port_attr(name, "ring_cqs");
	struct ibv_wc *wc;
	int ret = 1, total = 0, num;
	bool rings;

	wc = calloc(4 * RESIZE_MSGS, sizeof(*wc));
	if (!wc)
		return fail("calloc", "%d", 4 * RESIZE_MSGS);
	if (loop_setup_cq(&l, ex ? &cattr : NULL))
		goto out;
	/* On rings the driver counts the CQ (sysfs ports/1/ring_cqs). */
	rings = before >= 0 && port_attr(name, "ring_cqs") > before;
	num = l.cq->cqe; /* a virtqueue CQ: its virtqueue's size */
	if (rings ? num != RESIZE_CQE : num < 4 * RESIZE_MSGS) {
		fail("create_cq", "%s CQ: cqe %d", rings ? "ring" : "virtqueue",
		     num);
		goto out;
	}
	loop_done(&l, rings ? "rings" : "virtqueue");
	if (resize_phase(&l, 0, RESIZE_P1) ||
	    resize_poll(&l, wc, &total, RESIZE_POLL1))
		goto out;
	/* grow with CQEs pending: on rings they stay in the old ring */
	if (resize_to(&l, "grow", RESIZE_GROW, 0, rings ? RESIZE_GROW : num))
		goto out;
	if (!rings && resize_to(&l, "beyond_vq", num + 1, EINVAL, num))
		goto out;
	if (resize_phase(&l, RESIZE_P1, RESIZE_P1 + RESIZE_P2) ||
	    resize_poll(&l, wc, &total, RESIZE_POLL2))
		goto out;
	/* below the CQEs it holds: refused, the CQ as it was */
	if (resize_to(&l, "shrink_below_pending", RESIZE_TOO_SMALL, EINVAL,
		      rings ? RESIZE_GROW : num))
		goto out;
	/* above them: a ring of 256 */
	if (resize_to(&l, "shrink", RESIZE_SHRINK, 0, rings ? RESIZE_CQE : num))
		goto out;
	/* a ring CQ's old ring still holds CQEs: a third ring is refused */
	if (rings && resize_to(&l, "busy", RESIZE_GROW, EBUSY, RESIZE_CQE))
		goto out;
	if (resize_phase(&l, RESIZE_P1 + RESIZE_P2, RESIZE_MSGS) ||
	    resize_poll(&l, wc, &total, 4 * RESIZE_MSGS - total))
		goto out;
	if (deep_check(&l, wc, total, RESIZE_MSGS))
		goto out;
	printf("%s ok cqes %d%s\n", ex ? "resize_cq_ex" : "resize_cq", total,
	       l.done);
	ret = 0;
out:
	loop_teardown(&l);
	free(wc);
	return ret;
}

/* The ring QP test (issue 28): a QP deeper than a virtqueue, lying rings. */
#define RING_DEPTH 8192
#define RING_WRITES 2000
#define RING_MSG 8

/* A counter of the device's port 1 in sysfs (the kernel driver's); -1: none. */
static long port_attr(const char *dev, const char *name)
{
	char path[256];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/%s",
		 dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/*
 * The record of the QP whose sq_prod and sq_cons (at 0 and 64, ABI
 * struct virtio_rdma_qp_rec) are both @idx: the last page of one of the
 * process's uverbs mappings longer than a page (a QP's area; a CQ's
 * record has a mapping of its own, a page long).
 */
static volatile uint32_t *ring_rec(uint32_t idx)
{
	volatile uint32_t *rec, *found = NULL;
	unsigned long lo, hi;
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi - lo <= 4096 ||
		    !strstr(line, "rw"))
			continue;
		rec = (volatile uint32_t *)(hi - 4096);
		if (le32toh(rec[0]) == idx && le32toh(rec[16]) == idx) {
			found = rec;
			n++;
		}
	}
	fclose(f);
	return n == 1 ? found : NULL;
}

/*
 * A POST_SEND of no WR, as the provider sends it when ROCE-DRV-RING-3
 * says to ring: the kernel rings the QP's doorbell.
 */
static int ring_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {};
	struct ib_uverbs_post_send_resp resp = {};

	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &c, sizeof(c)) != sizeof(c))
		return fail("doorbell", "write %s", errno_name(errno));
	return 0;
}

static int ring_wait_err(const char *step, struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	time_t end = time(NULL) + 30;

	do {
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
			return fail(step, "query_qp %s", errno_name(errno));
		if (a.qp_state == IBV_QPS_ERR)
			return 0;
		usleep(10000);
	} while (time(NULL) < end);
	return fail(step, "QP %u in state %d, not ERR, after 30 s",
		    qp->qp_num, a.qp_state);
}

/* RING_WRITES WRITEs of RING_MSG bytes from a to b, one post, one CQE. */
static int ring_writes(struct loop *l)
{
	struct ibv_send_wr *wr = calloc(RING_WRITES, sizeof(*wr));
	struct ibv_sge *sge = calloc(RING_WRITES, sizeof(*sge));
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	time_t end;
	int i, ret = 1;

	if (!wr || !sge) {
		fail("ring_writes", "calloc");
		goto out;
	}
	fill(l->buf[0], RING_WRITES * RING_MSG, 5);
	memset(l->buf[1], 0, LOOP_BUF);
	for (i = 0; i < RING_WRITES; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)l->buf[0] + i * RING_MSG,
					   RING_MSG, l->mr[0]->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = i,
			.next = i + 1 < RING_WRITES ? &wr[i + 1] : NULL,
			.sg_list = &sge[i],
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = i + 1 < RING_WRITES ? 0 :
							    IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)l->buf[1] + i * RING_MSG,
				     l->mr[1]->rkey },
		};
	}
	ret = ibv_post_send(l->qp[0], wr, &bad);
	if (ret) {
		fail("ring_writes", "post_send %s at WR %d", errno_name(ret),
		     (int)(bad - wr));
		ret = 1;
		goto out;
	}
	ret = 1;
	end = time(NULL) + 60;
	while (!(i = ibv_poll_cq(l->cq, 1, &wc)))
		if (time(NULL) > end) {
			fail("ring_writes", "no CQE in 60 s");
			goto out;
		}
	if (i < 0 || wc.status != IBV_WC_SUCCESS ||
	    wc.wr_id != RING_WRITES - 1) {
		fail("ring_writes", "poll %d status %s wr_id %llu", i,
		     ibv_wc_status_str(wc.status),
		     (unsigned long long)wc.wr_id);
		goto out;
	}
	ret = loop_same("ring_writes", l->buf[1], l->buf[0],
			RING_WRITES * RING_MSG);
out:
	free(wr);
	free(sge);
	return ret;
}

/* Two SENDs from b to a: b's sq_prod and sq_cons then 2. */
static int ring_sends_back(struct loop *l)
{
	struct ibv_sge sge = { (uintptr_t)l->buf[1], 64, l->mr[1]->lkey };
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 11, .next = &wr[1], .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
		{ .wr_id = 12, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
	}, *bad;
	struct ibv_wc wc[4];
	int ret;

	if (loop_post_recv(l, 0, 21, 0, 64) || loop_post_recv(l, 0, 22, 64, 64))
		return 1;
	ret = ibv_post_send(l->qp[1], wr, &bad);
	if (ret)
		return fail("sends_back", "post_send %s", errno_name(ret));
	return loop_wait(l, "sends_back", wc, 4) ||
	       loop_same("sends_back", l->buf[0], l->buf[1], 64) ||
	       loop_same("sends_back", l->buf[0] + 64, l->buf[1], 64);
}

/* QP @i of @l lies: its sq_prod set to @prod, then its doorbell. */
static int ring_lie(struct loop *l, int i, uint32_t idx, uint32_t prod,
		    const char *step)
{
	volatile uint32_t *rec = ring_rec(idx);

	if (!rec)
		return fail(step, "no single record with sq_prod = sq_cons = %u",
			    idx);
	rec[0] = htole32(prod);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ring_doorbell(l->qp[i]) || ring_wait_err(step, l->qp[i]))
		return 1;
	loop_done(l, step);
	return 0;
}

static int ring_qp(struct ibv_context *ctx, const char *dev, int gidx)
{
	struct loop l = { .ctx = ctx, .gidx = gidx, .depth = RING_DEPTH,
			  .cqe = 4096 };
	struct loop l2 = { .ctx = ctx, .gidx = gidx };
	long before = port_attr(dev, "ring_qps"), after;
	int ret = 1;

	if (before < 0)
		return fail("ring_qps", "no ports/1/ring_qps for %s", dev);
	if (loop_setup(&l) || loop_setup(&l2))
		goto out;
	after = port_attr(dev, "ring_qps");
	if (after < before + 4) {
		fail("ring_qps", "%ld before, %ld with 4 more QPs", before,
		     after);
		goto out;
	}
	if (ring_writes(&l) || ring_sends_back(&l))
		goto out;
	loop_done(&l, "deep");
	/* ROCE-DEV-RING-10: beyond the ring, then backwards. */
	if (ring_lie(&l, 0, RING_WRITES, RING_WRITES + 0x100000,
		     "beyond_err") ||
	    ring_lie(&l, 1, 2, 1, "backwards_err"))
		goto out;
	/* The other QPs unharmed. */
	if (loop_send(&l2))
		goto out;
	printf("ring_qp ok ring_qps +%ld%s others_ok\n", after - before,
	       l.done);
	ret = 0;
out:
	loop_teardown(&l2);
	loop_teardown(&l);
	return ret;
}

/* Posting cost (issue 28): idle and busy QPs, system calls per post. */
#define RATE_POSTS 4000
#define RATE_WINDOW 64

static double rate_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* RATE_POSTS WRITEs, at most @window outstanding; posts/s, syscalls/post. */
static int rate_run(struct loop *l, const char *dev, int window, double *rate,
		    double *calls)
{
	struct ibv_sge sge = { (uintptr_t)l->buf[0], 8, l->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)l->buf[1], l->mr[1]->rkey },
	}, *bad;
	struct ibv_wc wc[RATE_WINDOW];
	int posted = 0, done = 0, n, ret;
	long w0 = port_attr(dev, "ring_user_doorbells"), w1;
	double t0 = rate_now();
	time_t end = time(NULL) + 60;

	while (done < RATE_POSTS) {
		while (posted < RATE_POSTS && posted - done < window) {
			wr.wr_id = posted;
			ret = ibv_post_send(l->qp[0], &wr, &bad);
			if (ret)
				return fail("rate_post", "%s", errno_name(ret));
			posted++;
		}
		n = ibv_poll_cq(l->cq, RATE_WINDOW, wc);
		if (n < 0)
			return fail("rate_poll", "%d", n);
		for (ret = 0; ret < n; ret++)
			if (wc[ret].status != IBV_WC_SUCCESS)
				return fail("rate_poll", "status %s",
					    ibv_wc_status_str(wc[ret].status));
		done += n;
		if (time(NULL) > end)
			return fail("rate_poll", "%d of %d in 60 s", done,
				    RATE_POSTS);
	}
	w1 = port_attr(dev, "ring_user_doorbells");
	*rate = RATE_POSTS / (rate_now() - t0);
	*calls = w0 < 0 || w1 < 0 ? -1 : (double)(w1 - w0) / RATE_POSTS;
	return 0;
}

static int ring_rate(struct ibv_context *ctx, const char *dev, int gidx)
{
	struct loop l = { .ctx = ctx, .gidx = gidx, .depth = RATE_WINDOW,
			  .cqe = 2 * RATE_WINDOW };
	double idle, idle_calls, busy, busy_calls;
	int ret = 1;

	if (loop_setup(&l) || rate_run(&l, dev, 1, &idle, &idle_calls) ||
	    rate_run(&l, dev, RATE_WINDOW, &busy, &busy_calls))
		goto out;
	printf("ring_rate ok idle %.0f %.3f busy %.0f %.3f\n", idle,
	       idle_calls, busy, busy_calls);
	ret = 0;
out:
	loop_teardown(&l);
	return ret;
}

static int loop(struct ibv_context *ctx, int gidx)
{
	struct loop l = { .ctx = ctx, .gidx = gidx };
	int ret;

	ret = loop_setup(&l) || loop_send(&l) || loop_send_imm_inline(&l) ||
	      loop_write(&l) || loop_write_imm(&l) || loop_read(&l) ||
	      loop_atomic(&l) || loop_einval(&l);
	loop_teardown(&l);
	if (!ret)
		printf("loop ok%s\n", l.done);
	return ret;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	int ret;

	bool gid_mode = argc > 1 && (!strcmp(argv[1], "loop") ||
				     !strcmp(argv[1], "overrun") ||
				     !strcmp(argv[1], "srq") ||
				     !strcmp(argv[1], "deep_cq") ||
				     !strcmp(argv[1], "deep_cq_ex") ||
				     !strcmp(argv[1], "resize_cq") ||
				     !strcmp(argv[1], "resize_cq_ex") ||
				     !strcmp(argv[1], "ring_qp") ||
				     !strcmp(argv[1], "ring_rate"));

	if (argc < 3 || (strcmp(argv[1], "speed") && strcmp(argv[1], "pd") &&
			 !gid_mode) || (gid_mode && argc < 4)) {
		fprintf(stderr,
			"usage: %s speed DEVICE [PORT] | pd DEVICE | "
			"loop DEVICE GID_INDEX | overrun DEVICE GID_INDEX | "
			"srq DEVICE GID_INDEX | deep_cq DEVICE GID_INDEX | "
			"deep_cq_ex DEVICE GID_INDEX | "
			"resize_cq DEVICE GID_INDEX | "
			"resize_cq_ex DEVICE GID_INDEX | "
			"ring_qp DEVICE GID_INDEX | "
			"ring_rate DEVICE GID_INDEX\n",
			argv[0]);
		return 2;
	}
	ctx = open_device(argv[2]);
	if (!ctx)
		return 2;
	if (!strcmp(argv[1], "speed"))
		ret = speed(ctx, argc > 3 ? strtoul(argv[3], NULL, 0) : 1);
	else if (!strcmp(argv[1], "pd"))
		ret = pd(ctx);
	else if (!strcmp(argv[1], "overrun"))
		ret = overrun(ctx, atoi(argv[3]));
	else if (!strcmp(argv[1], "srq"))
		ret = srq(ctx, atoi(argv[3]));
	else if (!strcmp(argv[1], "deep_cq"))
		ret = deep_cq(ctx, atoi(argv[3]), false);
	else if (!strcmp(argv[1], "deep_cq_ex"))
		ret = deep_cq(ctx, atoi(argv[3]), true);
	else if (!strcmp(argv[1], "resize_cq"))
		ret = resize_cq(ctx, argv[2], atoi(argv[3]), false);
	else if (!strcmp(argv[1], "resize_cq_ex"))
		ret = resize_cq(ctx, argv[2], atoi(argv[3]), true);
	else if (!strcmp(argv[1], "ring_qp"))
		ret = ring_qp(ctx, argv[2], atoi(argv[3]));
	else if (!strcmp(argv[1], "ring_rate"))
		ret = ring_rate(ctx, argv[2], atoi(argv[3]));
	else
		ret = loop(ctx, atoi(argv[3]));
	ibv_close_device(ctx);
	return ret;
}
