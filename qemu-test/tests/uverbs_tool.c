// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A guest tool for scenario 10: verbs on a uverbs device through the
 * kernel's write() interface of <rdma/ib_user_verbs.h>, without libibverbs
 * (there is no rdma-core provider for the device yet).
 *
 *   uverbs_tool pd DEV       GET_CONTEXT and ALLOC_PD; prints
 *                            "VUR-WAIT pd_allocated" and waits for a line
 *                            on stdin (the host counts the backend's PDs),
 *                            then DEALLOC_PD. Results as VUR-RESULT lines.
 *   uverbs_tool events DEV   GET_CONTEXT, then prints each asynchronous
 *                            event of the context as "EVENT <type> <element>"
 *                            until killed: what ibv_get_async_event() would
 *                            return (type 20 is the speed change).
 *   uverbs_tool rdma DEV     the data path of virtio_rdma's uverbs ABI
 *                            (<rdma/virtio_rdma-abi.h>) by hand: a PD, an
 *                            MR, a CQ on a completion channel, two RC QPs
 *                            connected to each other on the device (the
 *                            port's first GID), an AH; maps their rings,
 *                            posts a receive and a SEND, reads both CQEs
 *                            in the mapped CQ and the channel's event;
 *                            "VUR-WAIT rdma_live" (the host counts the
 *                            backend's objects); destroys the QPs while
 *                            still mapped, "VUR-WAIT rdma_qps_mapped",
 *                            unmaps, frees the rest, "VUR-WAIT rdma_freed".
 *   uverbs_tool ud DEV       the same with two UD QPs (results named ud_*)
 *                            and an AH: a SEND through the AH and its
 *                            receive (GRH, source QP) in the mapped CQ; on
 *                            the queues the rdma command left, so also
 *                            their re-initialisation; then frees all.
 *   uverbs_tool noqp DEV     on a device without a doorbell page per
 *                            queue: a CQ is created, a QP is refused with
 *                            EOPNOTSUPP (results named noqp_*).
 *   uverbs_tool hold DEV     the same objects and mappings (results named
 *                            hold_*), then "HOLDING" and sleeps until
 *                            killed: for a device removed under them.
 *
 * Built statically on the host (the guest has no libc):
 *   gcc -static -O2 -o uverbs_tool uverbs_tool.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/virtio_ring.h>
#include <rdma/ib_user_verbs.h>

#include "../../virtio-spec/include/linux/virtio_net_roce.h"
#include "../../virtio-spec/include/rdma/virtio_rdma-abi.h"

/* One legacy write() command: header, command, response through a pointer. */
static int uverbs_cmd(int fd, uint32_t command, void *cmd, size_t cmd_len,
		      size_t resp_len)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		char cmd[256];
	} buf;
	size_t len = sizeof(buf.hdr) + cmd_len;
	ssize_t n;

	if (cmd_len > sizeof(buf.cmd) || len % 4 || resp_len % 4)
		return EINVAL;
	buf.hdr.command = command;
	buf.hdr.in_words = len / 4;
	buf.hdr.out_words = resp_len / 4;
	memcpy(buf.cmd, cmd, cmd_len);
	n = write(fd, &buf, len);
	if (n < 0)
		return errno;
	return n == (ssize_t)len ? 0 : EIO;
}

/* Before each result's name: "hold_" for the hold command. */
static const char *result_prefix = "";

static void result(const char *name, int err, const char *detail)
{
	printf("VUR-RESULT %s%s %s %s%s%s\n", result_prefix, name,
	       err ? "fail" : "ok", detail,
	       err ? ": " : "", err ? strerror(err) : "");
	fflush(stdout);
}

/* Open @path and get a user context; the fd, or -1 after a failed result. */
static int open_context(const char *path, const char *tag,
			struct ib_uverbs_get_context_resp *resp)
{
	struct ib_uverbs_get_context ctx = { 0 };
	char name[64], detail[64];
	int fd, err;

	fd = open(path, O_RDWR | O_CLOEXEC);
	snprintf(name, sizeof(name), "%s_uverbs_open", tag);
	result(name, fd < 0 ? errno : 0, path);
	if (fd < 0)
		return -1;
	ctx.response = (uintptr_t)resp;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &ctx, sizeof(ctx),
			 sizeof(*resp));
	snprintf(name, sizeof(name), "%s_uverbs_get_context", tag);
	snprintf(detail, sizeof(detail), "%u completion vectors",
		 resp->num_comp_vectors);
	result(name, err, detail);
	if (err) {
		close(fd);
		return -1;
	}
	return fd;
}

static int pd(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct ib_uverbs_alloc_pd_resp pd_resp = { 0 };
	struct ib_uverbs_alloc_pd pd = { 0 };
	struct ib_uverbs_dealloc_pd dpd = { 0 };
	char line[64], detail[64];
	int fd, err;

	fd = open_context(path, "pd", &ctx_resp);
	if (fd < 0)
		return 1;
	pd.response = (uintptr_t)&pd_resp;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pd, sizeof(pd),
			 sizeof(pd_resp));
	snprintf(detail, sizeof(detail), "handle %u", pd_resp.pd_handle);
	result("uverbs_alloc_pd", err, detail);
	if (err)
		return 1;

	printf("VUR-WAIT pd_allocated\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || strncmp(line, "go", 2))
		result("step_pd_allocated", EINTR, "no go");

	dpd.pd_handle = pd_resp.pd_handle;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd), 0);
	result("uverbs_dealloc_pd", err, "");
	close(fd);
	return err ? 1 : 0;
}

static int events(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct ib_uverbs_async_event_desc ev;
	ssize_t n;
	int fd;

	fd = open_context(path, "events", &ctx_resp);
	if (fd < 0)
		return 1;
	for (;;) {
		n = read(ctx_resp.async_fd, &ev, sizeof(ev));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(ev)) {
			printf("EVENT-ERROR %zd %s\n", n, strerror(errno));
			return 1;
		}
		printf("EVENT %u %llu\n", ev.event_type,
		       (unsigned long long)ev.element);
		fflush(stdout);
	}
}

/*
 * The uverbs ABI values of ib_verbs.h that no uapi header carries (what
 * libibverbs' verbs.h defines with IBV_ names and the same numbers).
 */
enum {
	ACCESS_LOCAL_WRITE = 1,
	ACCESS_REMOTE_WRITE = 2,
	ACCESS_REMOTE_READ = 4,
	QPT_RC = 2,
	QPT_UD = 4,
	QPS_INIT = 1,
	QPS_RTR = 2,
	QPS_RTS = 3,
	MTU_1024 = 3,
	QP_STATE = 1 << 0,
	QP_ACCESS_FLAGS = 1 << 3,
	QP_PKEY_INDEX = 1 << 4,
	QP_PORT = 1 << 5,
	QP_QKEY = 1 << 6,
	QP_AV = 1 << 7,
	QP_PATH_MTU = 1 << 8,
	QP_TIMEOUT = 1 << 9,
	QP_RETRY_CNT = 1 << 10,
	QP_RNR_RETRY = 1 << 11,
	QP_RQ_PSN = 1 << 12,
	QP_MAX_QP_RD_ATOMIC = 1 << 13,
	QP_MIN_RNR_TIMER = 1 << 15,
	QP_SQ_PSN = 1 << 16,
	QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	QP_DEST_QPN = 1 << 20,
};

/* One mapped virtqueue: what the provider keeps of a struct virtio_rdma_uring. */
struct uq {
	struct virtio_rdma_uring u;
	uint8_t *ring, *buf, *notify;
	struct vring_avail *avail;
	struct vring_used *used;
};

static void *map(int fd, uint64_t off, size_t len, int *err)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);

	if (p == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
	return p;
}

static int uq_map(int fd, struct uq *q, const struct virtio_rdma_uring *u)
{
	int err = 0;

	q->u = *u;
	q->ring = map(fd, u->ring_mmap, u->ring_len, &err);
	q->buf = map(fd, u->buf_mmap, u->buf_len, &err);
	if (u->notify_mmap)
		q->notify = map(fd, u->notify_mmap, 4096, &err);
	if (err)
		return err;
	q->avail = (struct vring_avail *)q->ring;
	q->used = (struct vring_used *)(q->ring + u->used_off);
	return 0;
}

static void uq_unmap(struct uq *q)
{
	if (q->ring)
		munmap(q->ring, q->u.ring_len);
	if (q->buf)
		munmap(q->buf, q->u.buf_len);
	if (q->notify)
		munmap(q->notify, 4096);
	q->ring = q->buf = q->notify = NULL;
}

/* Post slot n % num (the ABI's rule) and ring the doorbell. */
static void uq_post(struct uq *q, uint16_t n)
{
	q->avail->ring[n % q->u.num] = n % q->u.num;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint16_t *)&q->avail->idx = n + 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*(volatile uint16_t *)(q->notify + q->u.notify_off) = q->u.vq_index;
}

static void *uq_slot(struct uq *q, uint32_t i)
{
	return q->buf + (size_t)(i % q->u.num) * q->u.stride;
}

static int wait_go(const char *step)
{
	char line[64];

	printf("VUR-WAIT %s\n", step);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || strncmp(line, "go", 2)) {
		result(step, EINTR, "no go");
		return EINTR;
	}
	return 0;
}

/*
 * A GID of port 1 from sysfs, as ib_core filled it: an IPv4-mapped one if
 * any (ib_core resolves the destination MAC of the device's own IPv4
 * address through the local route), else the first; its index in *index.
 */
static int port_gid(const char *path, uint8_t gid[16], int *index)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	char file[160], text[64], *p, *q;
	const char *dev = strrchr(path, '/');
	uint8_t g[16];
	FILE *f;
	int i;

	snprintf(file, sizeof(file), "/sys/class/infiniband_verbs/%s/ibdev",
		 dev ? dev + 1 : path);
	f = fopen(file, "r");
	if (!f || !fgets(text, sizeof(text), f))
		return ENOENT;
	fclose(f);
	text[strcspn(text, "\n")] = 0;
	*index = -1;
	for (i = 0; i < 16; i++) {
		snprintf(file, sizeof(file),
			 "/sys/class/infiniband/%s/ports/1/gids/%d", text, i);
		f = fopen(file, "r");
		if (!f)
			break;
		p = fgets(file, sizeof(file), f);
		fclose(f);
		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		for (q = p; *q == '0' || *q == ':'; q++)
			;
		if (!*q || inet_pton(AF_INET6, p, g) != 1)
			continue;
		if (*index < 0 || !memcmp(g, v4mapped, sizeof(v4mapped))) {
			memcpy(gid, g, 16);
			*index = i;
		}
		if (!memcmp(g, v4mapped, sizeof(v4mapped)))
			return 0;
	}
	return *index < 0 ? ENOENT : 0;
}

struct rdma_ctx {
	int fd, comp_fd;
	uint32_t pd, mr, cq, qp[2], qpn[2], ah, lkey;
	struct uq cq_q, sq[2], rq[2];
	uint8_t *buf;
	uint8_t gid[16];
	int gid_index;
	uint8_t qp_type;
};

/* PD, MR, completion channel, CQ, the CQ mapped. */
static int rdma_create_cq(struct rdma_ctx *c)
{
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		struct virtio_rdma_alloc_pd_resp drv;
	} pd_resp = { 0 };
	struct ib_uverbs_alloc_pd pd = { .response = (uintptr_t)&pd_resp };
	struct ib_uverbs_reg_mr_resp mr_resp = { 0 };
	struct ib_uverbs_reg_mr mr = { .response = (uintptr_t)&mr_resp };
	struct ib_uverbs_create_comp_channel_resp ch_resp = { 0 };
	struct ib_uverbs_create_comp_channel ch = {
		.response = (uintptr_t)&ch_resp,
	};
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct virtio_rdma_create_cq_resp drv;
	} cq_resp = { 0 };
	struct ib_uverbs_create_cq cq = { .response = (uintptr_t)&cq_resp };
	char detail[128];
	int err;

	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_ALLOC_PD, &pd, sizeof(pd),
			 sizeof(pd_resp));
	snprintf(detail, sizeof(detail), "pdn %u", pd_resp.drv.pdn);
	result("rdma_alloc_pd", err, detail);
	if (err)
		return err;
	c->pd = pd_resp.core.pd_handle;

	c->buf = aligned_alloc(4096, 8192);
	memset(c->buf, 0, 8192);
	mr.start = mr.hca_va = (uintptr_t)c->buf;
	mr.length = 8192;
	mr.pd_handle = c->pd;
	mr.access_flags = ACCESS_LOCAL_WRITE |
			  ACCESS_REMOTE_WRITE |
			  ACCESS_REMOTE_READ;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_REG_MR, &mr, sizeof(mr),
			 sizeof(mr_resp));
	snprintf(detail, sizeof(detail), "lkey 0x%x", mr_resp.lkey);
	result("rdma_reg_mr", err, detail);
	if (err)
		return err;
	c->mr = mr_resp.mr_handle;
	c->lkey = mr_resp.lkey;

	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &ch,
			 sizeof(ch), sizeof(ch_resp));
	result("rdma_comp_channel", err, "");
	if (err)
		return err;
	c->comp_fd = ch_resp.fd;

	cq.cqe = 64;
	cq.comp_channel = c->comp_fd;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_CREATE_CQ, &cq, sizeof(cq),
			 sizeof(cq_resp));
	snprintf(detail, sizeof(detail), "cqn %u vq %u num %u stride %u",
		 cq_resp.drv.cqn, cq_resp.drv.cq.vq_index, cq_resp.drv.cq.num,
		 cq_resp.drv.cq.stride);
	result("rdma_create_cq", err, detail);
	if (err)
		return err;
	c->cq = cq_resp.core.cq_handle;
	err = uq_map(c->fd, &c->cq_q, &cq_resp.drv.cq);
	/* The kernel made every slot available (avail->idx = num). */
	if (!err && c->cq_q.avail->idx != c->cq_q.u.num)
		err = EPROTO;
	result("rdma_cq_mapped", err, "");
	return err;
}

static int rdma_create(struct rdma_ctx *c)
{
	char detail[128];
	int err, i;

	err = rdma_create_cq(c);
	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		struct {
			struct ib_uverbs_create_qp_resp core;
			struct virtio_rdma_create_qp_resp drv;
		} qp_resp = { 0 };
		struct ib_uverbs_create_qp qp = {
			.response = (uintptr_t)&qp_resp,
			.pd_handle = c->pd,
			.send_cq_handle = c->cq,
			.recv_cq_handle = c->cq,
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.qp_type = c->qp_type,
		};

		err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_CREATE_QP, &qp,
				 sizeof(qp), sizeof(qp_resp));
		snprintf(detail, sizeof(detail),
			 "qpn %u sq vq %u stride %u, rq vq %u stride %u",
			 qp_resp.drv.qpn, qp_resp.drv.sq.vq_index,
			 qp_resp.drv.sq.stride, qp_resp.drv.rq.vq_index,
			 qp_resp.drv.rq.stride);
		result(i ? "rdma_create_qp_b" : "rdma_create_qp_a", err,
		       detail);
		if (err)
			return err;
		c->qp[i] = qp_resp.core.qp_handle;
		c->qpn[i] = qp_resp.core.qpn;
		err = uq_map(c->fd, &c->sq[i], &qp_resp.drv.sq);
		if (!err)
			err = uq_map(c->fd, &c->rq[i], &qp_resp.drv.rq);
		if (err) {
			result("rdma_qp_mapped", err, "");
			return err;
		}
	}
	result("rdma_qp_mapped", 0, "");
	return 0;
}

static int rdma_modify(struct rdma_ctx *c, int i)
{
	struct ib_uverbs_modify_qp m = { .qp_handle = c->qp[i] };
	int err;

	m.attr_mask = QP_STATE | QP_PKEY_INDEX | QP_PORT |
		      QP_ACCESS_FLAGS;
	m.qp_state = QPS_INIT;
	m.port_num = 1;
	m.qp_access_flags = ACCESS_REMOTE_WRITE |
			    ACCESS_REMOTE_READ |
			    ACCESS_LOCAL_WRITE;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
	if (err)
		return err;

	memset(&m, 0, sizeof(m));
	m.qp_handle = c->qp[i];
	m.attr_mask = QP_STATE | QP_AV | QP_PATH_MTU |
		      QP_DEST_QPN | QP_RQ_PSN |
		      QP_MAX_DEST_RD_ATOMIC | QP_MIN_RNR_TIMER;
	m.qp_state = QPS_RTR;
	m.path_mtu = MTU_1024;
	m.dest_qp_num = c->qpn[!i];
	m.rq_psn = 0;
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 12;
	memcpy(m.dest.dgid, c->gid, 16);
	m.dest.is_global = 1;
	m.dest.hop_limit = 64;
	m.dest.sgid_index = c->gid_index;
	m.dest.port_num = 1;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
	if (err)
		return err;

	memset(&m, 0, sizeof(m));
	m.qp_handle = c->qp[i];
	m.attr_mask = QP_STATE | QP_SQ_PSN | QP_TIMEOUT |
		      QP_RETRY_CNT | QP_RNR_RETRY |
		      QP_MAX_QP_RD_ATOMIC;
	m.qp_state = QPS_RTS;
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	return uverbs_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
}

static int rdma_query_state(struct rdma_ctx *c, int i, uint8_t *state)
{
	struct ib_uverbs_query_qp_resp resp = { 0 };
	struct ib_uverbs_query_qp q = {
		.response = (uintptr_t)&resp,
		.qp_handle = c->qp[i],
		.attr_mask = QP_STATE,
	};
	int err;

	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_QUERY_QP, &q, sizeof(q),
			 sizeof(resp));
	*state = resp.qp_state;
	return err;
}

/* Wait until the CQ's used ring has @n entries, at most 20 s. */
static int cq_wait(struct uq *q, uint16_t n)
{
	int ms;

	for (ms = 0; ms < 20000; ms++) {
		if ((uint16_t)(*(volatile uint16_t *)&q->used->idx) >= n)
			return 0;
		usleep(1000);
	}
	return ETIMEDOUT;
}

static int rdma_traffic(struct rdma_ctx *c)
{
	struct ib_uverbs_req_notify_cq arm = { .cq_handle = c->cq };
	struct ib_uverbs_comp_event_desc ev;
	struct virtio_rdma_rq_req *rq;
	struct virtio_rdma_sq_req *sq;
	struct pollfd pfd = { .fd = c->comp_fd, .events = POLLIN };
	char detail[160];
	int err, i, seen = 0;

	/* B's receive: 64 bytes at buf + 4096. */
	rq = uq_slot(&c->rq[1], 0);
	memset(rq, 0, c->rq[1].u.stride);
	rq->wr_id = 0xb0;
	rq->num_sge = 1;
	rq->sg_list[0].addr = (uintptr_t)c->buf + 4096;
	rq->sg_list[0].length = 64;
	rq->sg_list[0].lkey = c->lkey;
	uq_post(&c->rq[1], 0);

	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &arm,
			 sizeof(arm), 0);
	result("rdma_req_notify_cq", err, "");

	/* A's signaled SEND of buf[0..64). */
	for (i = 0; i < 64; i++)
		c->buf[i] = 0x40 + i;
	sq = uq_slot(&c->sq[0], 0);
	memset(sq, 0, c->sq[0].u.stride);
	sq->wr_id = 0xa0;
	sq->opcode = VIRTIO_IB_WR_SEND;
	sq->send_flags = VIRTIO_IB_SEND_SIGNALED;
	sq->num_sge = 1;
	sq->sg_list[0].addr = (uintptr_t)c->buf;
	sq->sg_list[0].length = 64;
	sq->sg_list[0].lkey = c->lkey;
	uq_post(&c->sq[0], 0);

	err = cq_wait(&c->cq_q, 2);
	snprintf(detail, sizeof(detail), "used idx %u",
		 *(volatile uint16_t *)&c->cq_q.used->idx);
	result("rdma_two_cqes", err, detail);
	if (err)
		return err;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; i < 2; i++) {
		uint32_t id = c->cq_q.used->ring[i].id;
		struct virtio_rdma_cq_req *cqe = uq_slot(&c->cq_q, id);

		snprintf(detail, sizeof(detail),
			 "slot %u wr_id 0x%llx status %u opcode %u len %u qp %u",
			 id, (unsigned long long)cqe->wr_id, cqe->status,
			 cqe->opcode, cqe->byte_len, cqe->qp_num);
		if (cqe->status || (cqe->wr_id != 0xa0 && cqe->wr_id != 0xb0))
			err = EIO;
		else if (cqe->wr_id == 0xb0 &&
			 (cqe->opcode != VIRTIO_IB_WC_RECV ||
			  cqe->byte_len != 64 || cqe->qp_num != c->qpn[1]))
			err = EIO;
		else if (cqe->wr_id == 0xa0 &&
			 (cqe->opcode != VIRTIO_IB_WC_SEND ||
			  cqe->qp_num != c->qpn[0]))
			err = EIO;
		else
			seen |= cqe->wr_id == 0xa0 ? 1 : 2;
		result(i ? "rdma_cqe_2" : "rdma_cqe_1", err, detail);
		/* Give the slot back, as the provider does. */
		c->cq_q.avail->ring[c->cq_q.avail->idx % c->cq_q.u.num] = id;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		c->cq_q.avail->idx++;
	}
	result("rdma_send_and_recv_cqes", seen == 3 ? 0 : EIO, "");
	result("rdma_payload", memcmp(c->buf, c->buf + 4096, 64) ? EIO : 0,
	       "");

	err = poll(&pfd, 1, 10000) == 1 ? 0 : ETIMEDOUT;
	if (!err && read(c->comp_fd, &ev, sizeof(ev)) != sizeof(ev))
		err = errno;
	snprintf(detail, sizeof(detail), "cq_handle %llu",
		 (unsigned long long)ev.cq_handle);
	result("rdma_completion_event", err, err ? "" : detail);
	return err;
}

static int rdma_destroy(struct rdma_ctx *c)
{
	struct ib_uverbs_destroy_qp_resp qp_resp;
	struct ib_uverbs_destroy_cq_resp cq_resp;
	struct ib_uverbs_destroy_qp dqp = { .response = (uintptr_t)&qp_resp };
	struct ib_uverbs_destroy_cq dcq = { .response = (uintptr_t)&cq_resp };
	struct ib_uverbs_destroy_ah dah = { .ah_handle = c->ah };
	struct ib_uverbs_dereg_mr dmr = { .mr_handle = c->mr };
	struct ib_uverbs_dealloc_pd dpd = { .pd_handle = c->pd };
	int err = 0, i;

	/* The verbs QPs go while their rings stay mapped. */
	for (i = 0; i < 2; i++) {
		dqp.qp_handle = c->qp[i];
		err |= uverbs_cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_QP, &dqp,
				  sizeof(dqp), sizeof(qp_resp));
	}
	result("rdma_destroy_qps_mapped", err, "");
	/* The mapping still works: the process only harms itself. */
	c->sq[0].avail->flags = 0;
	if (wait_go("rdma_qps_mapped"))
		return EINTR;
	for (i = 0; i < 2; i++) {
		uq_unmap(&c->sq[i]);
		uq_unmap(&c->rq[i]);
	}
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_AH, &dah,
			 sizeof(dah), 0);
	result("rdma_destroy_ah", err, "");
	dcq.cq_handle = c->cq;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dcq,
			 sizeof(dcq), sizeof(cq_resp));
	result("rdma_destroy_cq", err, "");
	uq_unmap(&c->cq_q);
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_DEREG_MR, &dmr, sizeof(dmr),
			 0);
	result("rdma_dereg_mr", err, "");
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd,
			 sizeof(dpd), 0);
	result("rdma_dealloc_pd", err, "");
	return wait_go("rdma_freed");
}

static int rdma(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct {
		struct ib_uverbs_create_ah_resp core;
		struct virtio_rdma_create_ah_resp drv;
	} ah_resp = { 0 };
	struct ib_uverbs_create_ah ah = { .response = (uintptr_t)&ah_resp };
	struct rdma_ctx c = { 0 };
	char detail[64];
	uint8_t state = 0;
	int err, i;

	c.qp_type = QPT_RC;
	c.fd = open_context(path, "rdma", &ctx_resp);
	if (c.fd < 0)
		return 1;
	err = port_gid(path, c.gid, &c.gid_index);
	snprintf(detail, sizeof(detail), "gids/%d", c.gid_index);
	result("rdma_gid", err, detail);
	if (err || rdma_create(&c))
		return 1;
	for (i = 0; i < 2; i++) {
		err = rdma_modify(&c, i);
		if (!err)
			err = rdma_query_state(&c, i, &state);
		if (!err && state != QPS_RTS)
			err = EPROTO;
		snprintf(detail, sizeof(detail), "state %u", state);
		result(i ? "rdma_qp_b_rts" : "rdma_qp_a_rts", err, detail);
		if (err)
			return 1;
	}

	ah.pd_handle = c.pd;
	memcpy(ah.attr.grh.dgid, c.gid, 16);
	ah.attr.grh.hop_limit = 64;
	ah.attr.grh.sgid_index = c.gid_index;
	ah.attr.is_global = 1;
	ah.attr.port_num = 1;
	err = uverbs_cmd(c.fd, IB_USER_VERBS_CMD_CREATE_AH, &ah, sizeof(ah),
			 sizeof(ah_resp));
	snprintf(detail, sizeof(detail), "ahn %u", ah_resp.drv.ahn);
	result("rdma_create_ah", err, detail);
	if (err)
		return 1;
	c.ah = ah_resp.core.ah_handle;

	rdma_traffic(&c);
	if (wait_go("rdma_live") || rdma_destroy(&c))
		return 1;
	close(c.comp_fd);
	close(c.fd);
	return 0;
}

/* UD: RESET -> INIT (Q_Key) -> RTR -> RTS. */
static int ud_modify(struct rdma_ctx *c, int i)
{
	struct ib_uverbs_modify_qp m = { .qp_handle = c->qp[i] };
	int err;

	m.attr_mask = QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_QKEY;
	m.qp_state = QPS_INIT;
	m.port_num = 1;
	m.qkey = 0x11111111;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
	if (err)
		return err;
	memset(&m, 0, sizeof(m));
	m.qp_handle = c->qp[i];
	m.attr_mask = QP_STATE;
	m.qp_state = QPS_RTR;
	err = uverbs_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
	if (err)
		return err;
	memset(&m, 0, sizeof(m));
	m.qp_handle = c->qp[i];
	m.attr_mask = QP_STATE | QP_SQ_PSN;
	m.qp_state = QPS_RTS;
	m.sq_psn = 0;
	return uverbs_cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
}

static int ud(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct {
		struct ib_uverbs_create_ah_resp core;
		struct virtio_rdma_create_ah_resp drv;
	} ah_resp = { 0 };
	struct ib_uverbs_create_ah ah = { .response = (uintptr_t)&ah_resp };
	struct ib_uverbs_destroy_qp_resp qp_resp;
	struct ib_uverbs_destroy_cq_resp cq_resp;
	struct ib_uverbs_destroy_qp dqp = { .response = (uintptr_t)&qp_resp };
	struct ib_uverbs_destroy_cq dcq = { .response = (uintptr_t)&cq_resp };
	struct virtio_rdma_cq_req *cqe;
	struct virtio_rdma_rq_req *rq;
	struct virtio_rdma_sq_req *sq;
	struct rdma_ctx c = { 0 };
	char detail[160];
	int err, i, match, ok = 0;

	result_prefix = "ud_";
	c.qp_type = QPT_UD;
	c.fd = open_context(path, "rdma", &ctx_resp);
	if (c.fd < 0)
		return 1;
	err = port_gid(path, c.gid, &c.gid_index);
	result("rdma_gid", err, "");
	if (err || rdma_create(&c))
		return 1;
	for (i = 0; i < 2; i++) {
		err = ud_modify(&c, i);
		result(i ? "qp_b_rts" : "qp_a_rts", err, "");
		if (err)
			return 1;
	}
	ah.pd_handle = c.pd;
	memcpy(ah.attr.grh.dgid, c.gid, 16);
	ah.attr.grh.hop_limit = 64;
	ah.attr.grh.sgid_index = c.gid_index;
	ah.attr.is_global = 1;
	ah.attr.port_num = 1;
	err = uverbs_cmd(c.fd, IB_USER_VERBS_CMD_CREATE_AH, &ah, sizeof(ah),
			 sizeof(ah_resp));
	snprintf(detail, sizeof(detail), "ahn %u", ah_resp.drv.ahn);
	result("create_ah", err, detail);
	if (err)
		return 1;

	/* B receives 40 bytes of GRH and 64 of payload at buf + 4096. */
	rq = uq_slot(&c.rq[1], 0);
	memset(rq, 0, c.rq[1].u.stride);
	rq->wr_id = 0xb1;
	rq->num_sge = 1;
	rq->sg_list[0].addr = (uintptr_t)c.buf + 4096;
	rq->sg_list[0].length = 40 + 64;
	rq->sg_list[0].lkey = c.lkey;
	uq_post(&c.rq[1], 0);

	for (i = 0; i < 64; i++)
		c.buf[i] = 0x80 + i;
	sq = uq_slot(&c.sq[0], 0);
	memset(sq, 0, c.sq[0].u.stride);
	sq->wr_id = 0xa1;
	sq->opcode = VIRTIO_IB_WR_SEND;
	sq->send_flags = VIRTIO_IB_SEND_SIGNALED;
	sq->ud.remote_qpn = c.qpn[1];
	sq->ud.remote_qkey = 0x11111111;
	sq->ud.ah = ah_resp.drv.ahn;
	sq->num_sge = 1;
	sq->sg_list[0].addr = (uintptr_t)c.buf;
	sq->sg_list[0].length = 64;
	sq->sg_list[0].lkey = c.lkey;
	uq_post(&c.sq[0], 0);

	err = cq_wait(&c.cq_q, 2);
	result("two_cqes", err, "");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; !err && i < 2; i++) {
		cqe = uq_slot(&c.cq_q, c.cq_q.used->ring[i].id);
		snprintf(detail, sizeof(detail),
			 "wr_id 0x%llx status %u opcode %u len %u qp %u src_qp %u flags %u",
			 (unsigned long long)cqe->wr_id, cqe->status,
			 cqe->opcode, cqe->byte_len, cqe->qp_num, cqe->src_qp,
			 cqe->wc_flags);
		if (!cqe->status && cqe->wr_id == 0xa1 &&
		    cqe->opcode == VIRTIO_IB_WC_SEND)
			match = 1;
		else if (!cqe->status && cqe->wr_id == 0xb1 &&
			 cqe->opcode == VIRTIO_IB_WC_RECV &&
			 cqe->byte_len == 40 + 64 &&
			 cqe->src_qp == c.qpn[0] &&
			 (cqe->wc_flags & VIRTIO_IB_WC_GRH))
			match = 2;
		else
			match = 0;
		ok |= match;
		result(i ? "cqe_2" : "cqe_1", match ? 0 : EIO, detail);
	}
	result("send_and_recv_cqes", ok == 3 ? 0 : EIO, "");
	result("payload", memcmp(c.buf, c.buf + 4096 + 40, 64) ? EIO : 0, "");

	/* Everything goes, mappings first this time. */
	for (i = 0; i < 2; i++) {
		uq_unmap(&c.sq[i]);
		uq_unmap(&c.rq[i]);
		dqp.qp_handle = c.qp[i];
		err |= uverbs_cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_QP, &dqp,
				  sizeof(dqp), sizeof(qp_resp));
	}
	uq_unmap(&c.cq_q);
	{
		struct ib_uverbs_destroy_ah dah = {
			.ah_handle = ah_resp.core.ah_handle,
		};
		struct ib_uverbs_dereg_mr dmr = { .mr_handle = c.mr };
		struct ib_uverbs_dealloc_pd dpd = { .pd_handle = c.pd };

		err |= uverbs_cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_AH, &dah,
				  sizeof(dah), 0);
		dcq.cq_handle = c.cq;
		err |= uverbs_cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_CQ, &dcq,
				  sizeof(dcq), sizeof(cq_resp));
		err |= uverbs_cmd(c.fd, IB_USER_VERBS_CMD_DEREG_MR, &dmr,
				  sizeof(dmr), 0);
		err |= uverbs_cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd,
				  sizeof(dpd), 0);
	}
	result("destroy_all", err ? EIO : 0, "");
	close(c.comp_fd);
	close(c.fd);
	return err ? 1 : 0;
}

static int noqp(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct {
		struct ib_uverbs_create_qp_resp core;
		struct virtio_rdma_create_qp_resp drv;
	} qp_resp = { 0 };
	struct ib_uverbs_create_qp qp = { .response = (uintptr_t)&qp_resp };
	struct rdma_ctx c = { 0 };
	int err;

	result_prefix = "noqp_";
	c.qp_type = QPT_RC;
	c.fd = open_context(path, "rdma", &ctx_resp);
	if (c.fd < 0 || rdma_create_cq(&c))
		return 1;
	qp.pd_handle = c.pd;
	qp.send_cq_handle = c.cq;
	qp.recv_cq_handle = c.cq;
	qp.max_send_wr = 1;
	qp.max_recv_wr = 1;
	qp.max_send_sge = 1;
	qp.max_recv_sge = 1;
	qp.qp_type = QPT_RC;
	err = uverbs_cmd(c.fd, IB_USER_VERBS_CMD_CREATE_QP, &qp, sizeof(qp),
			 sizeof(qp_resp));
	result("create_qp_refused", err == EOPNOTSUPP ? 0 : EPROTO,
	       strerror(err));
	/* Closing the context destroys the CQ, the MR and the PD. */
	uq_unmap(&c.cq_q);
	close(c.fd);
	return err == EOPNOTSUPP ? 0 : 1;
}

static int hold(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct rdma_ctx c = { 0 };

	result_prefix = "hold_";
	c.qp_type = QPT_RC;
	c.fd = open_context(path, "rdma", &ctx_resp);
	if (c.fd < 0 || rdma_create(&c))
		return 1;
	printf("HOLDING\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pd"))
		return pd(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "events"))
		return events(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rdma"))
		return rdma(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "noqp"))
		return noqp(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "ud"))
		return ud(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	fprintf(stderr, "usage: %s pd|events|rdma|ud|noqp|hold /dev/infiniband/uverbsN\n",
		argv[0]);
	return 2;
}
