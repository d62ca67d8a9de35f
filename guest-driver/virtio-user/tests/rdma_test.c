/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA engine end to end: two devices of one real backend, each driven
 * through its vhost-user socket, exchanging SEND, WRITE and READ on RC, UC
 * and UD QPs; data checked byte for byte; the error completions the spec
 * names. Each case names the conformance statements it checks.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "child.h"
#include "rdma_shim.h"
#include "tap.h"
#include "telemetry.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define WAIT_MS  10000
#define BUF_LEN  (20u << 20) /* room for a 16 MiB message and a few more */
#define MEM_SIZE (48u << 20)
#define CQ_DEPTH 48

static const char *backend_bin;
static struct child backend;

/* One end of a connection: a device, its PD, CQ, a QP and a registered buffer. */
struct ep {
	struct vur_user_dev *d;
	char path[128];
	uint8_t mac[6];
	uint8_t gid[16];
	uint32_t pdn, cqn, qpn;
	struct vur_user_mr mr; /* a DMA MR of everything, all access */
	uint8_t *buf;
	uint64_t addr; /* the driver address of buf */
};

static struct ep a, b;

static void
log_hook(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level <= 4)
		printf("# log %d: %s\n", level, msg);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
ep_open(struct ep *e, unsigned int sock, uint8_t last_octet)
{
	struct vur_user_params p;
	struct vur_user_config cfg;
	int ret;

	memset(e, 0, sizeof(*e));
	child_sock(&backend, sock, e->path, sizeof(e->path));
	vur_user_params_init(&p, e->path);
	p.mem_size = MEM_SIZE;
	ret = vur_user_open(&p, &e->d);
	if (ret < 0)
		return ret;
	ret = vur_user_read_config(e->d, &cfg);
	if (ret < 0)
		return ret;
	memcpy(e->mac, cfg.mac, 6);
	e->gid[10] = e->gid[11] = 0xff;
	e->gid[12] = 10;
	e->gid[15] = last_octet;
	e->buf = vur_user_alloc_buf(e->d, BUF_LEN);
	if (e->buf == NULL)
		return -ENOMEM;
	e->addr = vur_user_driver_addr(e->d, e->buf);
	ret = vur_user_add_gid(e->d, 0, e->gid);
	if (ret == 0)
		ret = vur_user_create_pd(e->d, &e->pdn);
	if (ret == 0)
		ret = vur_user_get_dma_mr(e->d, e->pdn,
				VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
						VUR_USER_ACCESS_REMOTE_READ,
				&e->mr);
	if (ret == 0)
		ret = vur_user_create_cq(e->d, CQ_DEPTH, &e->cqn);
	if (ret == 0)
		ret = shim_cq_buffers(e->d, e->cqn, CQ_DEPTH, sizeof(struct virtio_rdma_cq_req));
	return ret;
}

static int
create_qp(struct ep *e, uint8_t type, uint32_t *qpn)
{
	struct vur_user_qp_init_attr ia = {
		.pdn = e->pdn,
		.qp_type = type,
		.send_cqn = e->cqn,
		.recv_cqn = e->cqn,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 16,
			.max_recv_sge = 16, .max_inline_data = 512 },
	};

	return vur_user_create_qp(e->d, &ia, qpn);
}

/* @qpn of @e to RTS towards @peer_qpn of @peer (for UD only its own states). */
static int
connect_qp(struct ep *e, uint32_t qpn, uint8_t type, const struct ep *peer, uint32_t peer_qpn,
		uint8_t rnr_retry, uint8_t timeout, uint8_t retry_cnt)
{
	struct vur_user_qp_attr at = {
		.qp_access_flags = VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
				VUR_USER_ACCESS_REMOTE_READ,
		.qkey = 0x11111111,
		.path_mtu = VUR_USER_MTU_1024,
		.dest_qp_num = peer_qpn,
		.rq_psn = 0x100 + peer_qpn,
		.sq_psn = 0x100 + qpn,
		.max_dest_rd_atomic = 16,
		.max_rd_atomic = 16,
		.min_rnr_timer = 1, /* 10 us */
		.timeout = timeout,
		.retry_cnt = retry_cnt,
		.rnr_retry = rnr_retry,
	};
	bool ud = type == VUR_USER_QPT_UD;
	int ret;

	memcpy(at.ah_attr.grh.dgid, peer->gid, 16);
	at.ah_attr.grh.hop_limit = 64;
	memcpy(at.ah_attr.dmac, peer->mac, 6);
	at.qp_state = VUR_USER_QPS_INIT;
	ret = vur_user_modify_qp(e->d, qpn, &at,
			VUR_USER_QP_STATE | (ud ? VUR_USER_QP_QKEY : VUR_USER_QP_ACCESS_FLAGS));
	if (ret < 0)
		return ret;
	at.qp_state = VUR_USER_QPS_RTR;
	ret = vur_user_modify_qp(e->d, qpn, &at,
			VUR_USER_QP_STATE |
					(ud ? 0
					    : VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU |
							      VUR_USER_QP_DEST_QPN |
							      VUR_USER_QP_RQ_PSN |
							      (type == VUR_USER_QPT_RC
									      ? VUR_USER_QP_MAX_DEST_RD_ATOMIC |
											      VUR_USER_QP_MIN_RNR_TIMER
									      : 0)));
	if (ret < 0)
		return ret;
	at.qp_state = VUR_USER_QPS_RTS;
	return vur_user_modify_qp(e->d, qpn, &at,
			VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN |
					(type == VUR_USER_QPT_RC
							? VUR_USER_QP_TIMEOUT | VUR_USER_QP_RETRY_CNT |
									VUR_USER_QP_RNR_RETRY |
									VUR_USER_QP_MAX_QP_RD_ATOMIC
							: 0));
}

static struct virtio_rdma_sge
sge(const struct ep *e, uint64_t off, uint32_t len)
{
	return (struct virtio_rdma_sge){ .addr = htole64(e->addr + off), .length = htole32(len),
		.lkey = htole32(e->mr.lkey) };
}

static struct virtio_rdma_sq_req
req(uint64_t wr_id, uint8_t opcode, uint8_t flags, uint32_t num_sge)
{
	struct virtio_rdma_sq_req r;

	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(wr_id);
	r.opcode = opcode;
	r.send_flags = flags;
	r.num_sge = htole32(num_sge);
	return r;
}

/* The next CQE of @e's CQ within WAIT_MS: 1, or 0 on timeout. */
static int
next_cqe(struct ep *e, struct virtio_rdma_cq_req *wc)
{
	uint64_t end = now_ms() + WAIT_MS;
	int n;

	do {
		n = shim_poll_cq(e->d, e->cqn, wc, 1);
		if (n != 0)
			return n;
		poll(NULL, 0, 1);
	} while (now_ms() < end);
	return 0;
}

/* Nothing more within @ms. */
static __attribute__((unused)) bool
no_cqe(struct ep *e, int ms)
{
	struct virtio_rdma_cq_req wc;

	poll(NULL, 0, ms);
	return shim_poll_cq(e->d, e->cqn, &wc, 1) == 0;
}

static void
fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 131 + seed) ^ (i >> 8));
}

static bool
expect_cqe(struct ep *e, uint64_t wr_id, uint8_t status, uint8_t opcode, uint32_t byte_len,
		uint32_t qpn, int line)
{
	struct virtio_rdma_cq_req wc;

	if (next_cqe(e, &wc) != 1) {
		printf("# line %d: no CQE for wr_id %#lx\n", line, (unsigned long)wr_id);
		tap_case_failed = 1;
		return false;
	}
	if (le64toh(wc.wr_id) != wr_id || wc.status != status ||
			(status == 0 && (wc.opcode != opcode || le32toh(wc.byte_len) != byte_len)) ||
			le32toh(wc.qp_num) != qpn) {
		printf("# line %d: CQE wr_id %#lx status %u opcode %u len %u qp %u, want %#lx %u "
		       "%u %u %u\n",
				line, (unsigned long)le64toh(wc.wr_id), wc.status, wc.opcode,
				le32toh(wc.byte_len), le32toh(wc.qp_num), (unsigned long)wr_id,
				status, opcode, byte_len, qpn);
		tap_case_failed = 1;
		return false;
	}
	return true;
}
#define EXPECT_CQE(e, id, st, op, len, qpn) expect_cqe(e, id, st, op, len, qpn, __LINE__)

static void
devices_open(void)
{
	const struct child_opts o = { .n_sockets = 2 };
	int ret = child_start(&backend, backend_bin, &o);

	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0)
		return;
	TAP_EQ(ep_open(&a, 0, 1), 0);
	TAP_EQ(ep_open(&b, 1, 2), 0);
	TAP_EQ(create_qp(&a, VUR_USER_QPT_RC, &a.qpn), 0);
	TAP_EQ(create_qp(&b, VUR_USER_QPT_RC, &b.qpn), 0);
	TAP_EQ(connect_qp(&a, a.qpn, VUR_USER_QPT_RC, &b, b.qpn, 7, 10, 7), 0);
	TAP_EQ(connect_qp(&b, b.qpn, VUR_USER_QPT_RC, &a, a.qpn, 7, 10, 7), 0);
}

static bool
ready(void)
{
	if (a.d == NULL || b.d == NULL) {
		tap_case_failed = 1;
		return false;
	}
	return true;
}

/* ROCE-DEV-SEND-4, WR-7, CQE-1..3: SEND at sizes around the MTU, one and many s/g elements. */
static void
rc_send(void)
{
	static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 4096, 65537 };
	struct virtio_rdma_sge s[3], r[2];
	struct virtio_rdma_sq_req q;

	if (!ready())
		return;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i], h = len / 2;

		fill(a.buf, len, (uint32_t)i);
		memset(b.buf, 0xee, len + 16);
		/* the receiver in two pieces, the sender in three */
		r[0] = sge(&b, 0, h);
		r[1] = sge(&b, h, len - h + 16);
		TAP_EQ(shim_post_recv(b.d, b.qpn, 0x100 + i, r, 2), 0);
		s[0] = sge(&a, 0, len / 3);
		s[1] = sge(&a, len / 3, 0); /* empty elements are fine */
		s[2] = sge(&a, len / 3, len - len / 3);
		q = req(0x200 + i, VIRTIO_IB_WR_SEND, VIRTIO_IB_SEND_SIGNALED, 3);
		TAP_EQ(shim_post_send(a.d, a.qpn, &q, s, 3), 0);
		EXPECT_CQE(&b, 0x100 + i, 0, VIRTIO_IB_WC_RECV, len, b.qpn);
		EXPECT_CQE(&a, 0x200 + i, 0, VIRTIO_IB_WC_SEND, len, a.qpn);
		TAP_CHECK(memcmp(a.buf, b.buf, len) == 0);
		TAP_CHECK(b.buf[len] == 0xee); /* nothing beyond the message */
	}
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		printf("Bail out! usage: %s BACKEND\n", argv[0]);
		return 1;
	}
	backend_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_INFO);
	TAP_RUN(devices_open);
	TAP_RUN(rc_send);
	if (a.d != NULL)
		vur_user_close(a.d);
	if (b.d != NULL)
		vur_user_close(b.d);
	{
		int status = child_stop(&backend, SIGTERM, WAIT_MS);

		if (tap_failed || status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			child_dump_log(&backend);
	}
	return tap_done();
}
