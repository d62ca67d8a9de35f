// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The provider's data path without a kernel or a device: the rings, slots
 * and doorbell page of rdma/virtio_rdma-abi.h are laid out in a memfd,
 * mapped through the provider's own code as the kernel's mmap offsets
 * would be, and this program plays the device: it reads the requests
 * post_send and post_recv wrote, the doorbells they rang, and writes CQEs
 * for poll_cq. build.sh runs it after every build. Prints TAP.
 */

#define _GNU_SOURCE /* memfd_create() */
#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "virtio_rdma.h"
#include "virtio_rdma_tap.h"

#define PAGE 4096
#define NUM 8
#define RING_OFF 0
#define BUF_OFF (1 * PAGE)
#define NOTIFY_OFF (4 * PAGE)
#define DOORBELL 0x24
#define SQ_MAX_SGE 2
#define SQ_STRIDE                                                              \
	(sizeof(struct virtio_rdma_sq_req) +                                   \
	 SQ_MAX_SGE * sizeof(struct virtio_rdma_sge))
#define NO_DOORBELL 0xffff

/* The device's view: one queue's memory, as the kernel would lay it out. */
struct dev_queue {
	int fd;
	uint8_t *mem;
	struct vring_avail *avail;
	struct vring_used *used;
	__le16 *avail_event;
	__le16 *doorbell;
	uint8_t *slots;
	struct virtio_rdma_uring uring;
};

static void dev_queue_init(struct dev_queue *d, uint32_t stride, bool event_idx)
{
	size_t len = 5 * PAGE;

	d->fd = memfd_create("virtio_rdma_test", 0);
	if (d->fd < 0 || ftruncate(d->fd, len)) {
		perror("memfd");
		exit(1);
	}
	d->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (d->mem == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memset(&d->uring, 0, sizeof(d->uring));
	d->uring.ring_mmap = RING_OFF;
	d->uring.ring_len = PAGE;
	d->uring.used_off = 64;
	d->uring.buf_mmap = BUF_OFF;
	d->uring.buf_len = 3 * PAGE;
	d->uring.notify_mmap = NOTIFY_OFF;
	d->uring.notify_off = DOORBELL;
	d->uring.stride = stride;
	d->uring.num = NUM;
	d->uring.vq_index = 0x1234;
	d->uring.flags = VIRTIO_RDMA_URING_DOORBELL |
			 (event_idx ? VIRTIO_RDMA_URING_EVENT_IDX : 0);
	d->avail = (struct vring_avail *)(d->mem + RING_OFF);
	d->used = (struct vring_used *)(d->mem + RING_OFF + 64);
	d->avail_event = (__le16 *)&d->used->ring[NUM];
	d->doorbell = (__le16 *)(d->mem + NOTIFY_OFF + DOORBELL);
	*d->doorbell = NO_DOORBELL;
	d->slots = d->mem + BUF_OFF;
}

static void dev_queue_fini(struct dev_queue *d)
{
	munmap(d->mem, 5 * PAGE);
	close(d->fd);
}

static uint16_t dev_avail_idx(struct dev_queue *d)
{
	return le16toh(d->avail->idx);
}

/* The device made @n more buffers used. */
static void dev_use(struct dev_queue *d, uint16_t n)
{
	d->used->idx = htole16(le16toh(d->used->idx) + n);
}

static bool dev_rang(struct dev_queue *d)
{
	bool rang = le16toh(*d->doorbell) == d->uring.vq_index;

	*d->doorbell = NO_DOORBELL;
	return rang;
}

static struct virtio_rdma_sq_req *dev_sq_req(struct dev_queue *d, int slot)
{
	return (struct virtio_rdma_sq_req *)(d->slots + slot * SQ_STRIDE);
}

struct test_qp {
	struct dev_queue sq, rq;
	struct virtio_rdma_qp qp;
};

static void test_qp_init(struct test_qp *t, enum ibv_qp_type type,
			 bool event_idx)
{
	memset(t, 0, sizeof(*t));
	dev_queue_init(&t->sq, SQ_STRIDE, event_idx);
	dev_queue_init(&t->rq,
		       sizeof(struct virtio_rdma_rq_req) +
			       2 * sizeof(struct virtio_rdma_sge),
		       event_idx);
	t->qp.ibv_qp.qp_type = type;
	if (virtio_rdma_vq_map(&t->qp.sq, t->sq.fd, &t->sq.uring, SQ_STRIDE,
			       true) ||
	    virtio_rdma_vq_map(&t->qp.rq, t->rq.fd, &t->rq.uring,
			       sizeof(struct virtio_rdma_rq_req) +
				       2 * sizeof(struct virtio_rdma_sge),
			       true)) {
		printf("Bail out! cannot map a test queue\n");
		exit(1);
	}
	t->qp.sq.max_wr = 4;
	t->qp.sq.max_sge = SQ_MAX_SGE;
	t->qp.rq.max_wr = 4;
	t->qp.rq.max_sge = 2;
	t->qp.has_rq = true;
	t->qp.max_inline_data = 64;
	t->qp.max_read_sge = 1;
}

static void test_qp_fini(struct test_qp *t)
{
	virtio_rdma_vq_unmap(&t->qp.sq);
	virtio_rdma_vq_unmap(&t->qp.rq);
	dev_queue_fini(&t->sq);
	dev_queue_fini(&t->rq);
}

static void test_rdma_write(void)
{
	struct ibv_sge sge[2] = { { 0x1000, 100, 0x11 },
				  { 0x2000, 200, 0x22 } };
	struct ibv_send_wr wr = {
		.wr_id = 0xabcdef,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		.wr.rdma = { 0x123456789a, 0x77 },
	}, *bad = NULL;
	struct virtio_rdma_sq_req *req;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_RC, true);
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 0);
	check(!ret && dev_avail_idx(&t.sq) == 1 && t.sq.avail->ring[0] == 0,
	      "post_send: slot 0 made available (ret %d, idx %u)", ret,
	      dev_avail_idx(&t.sq));
	check(le64toh(req->wr_id) == 0xabcdef &&
		      req->opcode == VIRTIO_IB_WR_RDMA_WRITE &&
		      req->send_flags == (VIRTIO_IB_SEND_SIGNALED |
					  VIRTIO_IB_SEND_FENCE) &&
		      le64toh(req->rdma.remote_addr) == 0x123456789a &&
		      le32toh(req->rdma.rkey) == 0x77 &&
		      le32toh(req->num_sge) == 2 &&
		      le64toh(req->sg_list[1].addr) == 0x2000 &&
		      le32toh(req->sg_list[1].length) == 200 &&
		      le32toh(req->sg_list[1].lkey) == 0x22 && !req->imm_data,
	      "post_send: RDMA WRITE request as the wire wants it");
	check(dev_rang(&t.sq), "EVENT_IDX: avail_event 0 passed: doorbell");
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(!ret && dev_avail_idx(&t.sq) == 2 && !dev_rang(&t.sq),
	      "EVENT_IDX: avail_event 0 not passed again: no doorbell");
	*t.sq.avail_event = htole16(2);
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(!ret && dev_rang(&t.sq),
	      "EVENT_IDX: avail_event 2 passed: doorbell");
	test_qp_fini(&t);
}

/* max_wr outstanding at most; ENOMEM with *bad_wr; room again once used. */
static void test_full(void)
{
	struct ibv_send_wr wr[3], *bad = NULL;
	struct test_qp t;
	int i, ret;

	test_qp_init(&t, IBV_QPT_RC, true);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, wr, &bad);
	check(!ret && dev_avail_idx(&t.sq) == 3, "three SENDs posted");
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, wr, &bad);
	check(ret == ENOMEM && bad == &wr[1] && dev_avail_idx(&t.sq) == 4,
	      "the fifth of max_wr 4: ENOMEM, *bad_wr the 2nd, one posted");
	dev_use(&t.sq, 2);
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr[1], &bad);
	check(!ret && dev_avail_idx(&t.sq) == 6,
	      "two used by the device: two more fit");
	test_qp_fini(&t);
}

static void test_einval(void)
{
	struct ibv_sge sge[3] = { { 0x1000, 40, 1 },
				  { 0x1000, 40, 1 },
				  { 0x1000, 40, 1 } };
	struct ibv_send_wr wr = { .sg_list = sge }, *bad;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_UC, true);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.num_sge = 1;
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr, "atomic: EINVAL, *bad_wr");
	wr.opcode = IBV_WR_RDMA_READ;
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr, "RDMA READ on UC: EINVAL");
	test_qp_fini(&t);

	test_qp_init(&t, IBV_QPT_RC, true);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.num_sge = 2;
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr,
	      "RDMA READ with 2 s/g elements, max_sge_rd 1: EINVAL");
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 3;
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr, "3 s/g elements of 2: EINVAL");
	wr.send_flags = IBV_SEND_INLINE;
	wr.sg_list = sge;
	sge[0].addr = sge[1].addr = sge[2].addr = (uintptr_t)sge;
	sge[2].length = 1;
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr, "81 bytes inline of 64: EINVAL");
	check(dev_avail_idx(&t.sq) == 0 && !dev_rang(&t.sq),
	      "nothing made available, no doorbell");
	test_qp_fini(&t);
}

/* Atomics and invalidation: only with the device's capabilities. */
static void test_atomic_inv(void)
{
	uint64_t orig;
	struct ibv_sge sge = { (uintptr_t)&orig, 8, 0x33 };
	struct ibv_send_wr wr = {
		.wr_id = 9,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { 0x10008, 5, 6, 0x44 },
	}, *bad;
	struct virtio_rdma_sq_req *req;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_RC, true);
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr,
	      "CMP_AND_SWP without the device's atomics: EINVAL");
	wr.opcode = IBV_WR_SEND_WITH_INV;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL,
	      "SEND_WITH_INV without MEM_MGT_EXTENSIONS: EINVAL");

	t.qp.atomics = t.qp.mem_mgt = true;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 0);
	check(!ret && req->opcode == VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP &&
		      le64toh(req->atomic.remote_addr) == 0x10008 &&
		      le64toh(req->atomic.compare_add) == 5 &&
		      le64toh(req->atomic.swap) == 6 &&
		      le32toh(req->atomic.rkey) == 0x44 &&
		      le32toh(req->num_sge) == 1 &&
		      le32toh(req->sg_list[0].length) == 8 &&
		      le32toh(req->sg_list[0].lkey) == 0x33,
	      "CMP_AND_SWP request as the wire wants it");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x10004;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "FETCH_AND_ADD at a misaligned address: EINVAL");
	wr.wr.atomic.remote_addr = 0x10010;
	sge.length = 4;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "FETCH_AND_ADD into 4 bytes: EINVAL");
	sge.length = 8;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 1);
	check(!ret && req->opcode == VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD &&
		      le64toh(req->atomic.compare_add) == 5 &&
		      !req->atomic.swap,
	      "FETCH_AND_ADD request: the add operand, swap zero");

	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x1234507;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 2);
	check(!ret && req->opcode == VIRTIO_IB_WR_SEND_WITH_INV &&
		      le32toh(req->inv.invalidate_rkey) == 0x1234507 &&
		      le32toh(req->num_sge) == 1 && !req->imm_data,
	      "SEND_WITH_INV request: the key, the message");
	wr.opcode = IBV_WR_LOCAL_INV;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 3);
	check(!ret && req->opcode == VIRTIO_IB_WR_LOCAL_INV &&
		      le32toh(req->inv.invalidate_rkey) == 0x1234507 &&
		      !req->num_sge,
	      "LOCAL_INV request: the key, no s/g element");
	test_qp_fini(&t);

	test_qp_init(&t, IBV_QPT_UC, true);
	t.qp.atomics = t.qp.mem_mgt = true;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "SEND_WITH_INV on UC: EINVAL");
	test_qp_fini(&t);
}

static void test_inline_imm(void)
{
	char a[] = "0123456789", b[] = "abcdefghijklmnopqrst";
	struct ibv_sge sge[2] = { { (uintptr_t)a, 10, 0 },
				  { (uintptr_t)b, 20, 0 } };
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED,
		.imm_data = htobe32(0xdeadbeef),
	}, *bad;
	struct virtio_rdma_sq_req *req;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_RC, true);
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 0);
	check(!ret && req->opcode == VIRTIO_IB_WR_SEND_WITH_IMM &&
		      req->send_flags == (VIRTIO_IB_SEND_INLINE |
					  VIRTIO_IB_SEND_SOLICITED) &&
		      le16toh(req->inline_len) == 30 &&
		      !memcmp(req->inline_data, a, 10) &&
		      !memcmp(req->inline_data + 10, b, 20) &&
		      req->imm_data == htobe32(0xdeadbeef),
	      "SEND with immediate, inline: 30 bytes copied, ImmDt as is");
	test_qp_fini(&t);
}

static void test_ud(void)
{
	struct virtio_rdma_ah ah = { .ahn = 7 };
	struct ibv_sge sge = { 0x1000, 64, 3 };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.wr.ud = { &ah.ibv_ah, 0x123456, 0x11111111 },
	}, *bad;
	struct virtio_rdma_sq_req *req;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_UD, true);
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 0);
	check(!ret && le32toh(req->ud.ah) == 7 &&
		      le32toh(req->ud.remote_qpn) == 0x123456 &&
		      le32toh(req->ud.remote_qkey) == 0x11111111,
	      "UD SEND: AH number, remote QPN and Q_Key");
	wr.opcode = IBV_WR_RDMA_WRITE;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "RDMA WRITE on UD: EINVAL");
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.remote_qpn = 1 << 24;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "UD remote QPN of 25 bits: EINVAL");
	test_qp_fini(&t);
}

/* Without EVENT_IDX: VRING_USED_F_NO_NOTIFY says no doorbell. */
static void test_no_notify(void)
{
	struct ibv_recv_wr wr = { .wr_id = 1 }, *bad;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_RC, false);
	t.rq.used->flags = htole16(VRING_USED_F_NO_NOTIFY);
	ret = virtio_rdma_post_recv(&t.qp.ibv_qp, &wr, &bad);
	check(!ret && dev_avail_idx(&t.rq) == 1 && !dev_rang(&t.rq),
	      "post_recv with no s/g element; NO_NOTIFY: no doorbell");
	t.rq.used->flags = 0;
	ret = virtio_rdma_post_recv(&t.qp.ibv_qp, &wr, &bad);
	check(!ret && dev_rang(&t.rq), "without NO_NOTIFY: doorbell");
	wr.num_sge = 3;
	ret = virtio_rdma_post_recv(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr && dev_avail_idx(&t.rq) == 2,
	      "post_recv with 3 s/g elements of 2: EINVAL");
	test_qp_fini(&t);
}

/* Past 2^16 WRs: slot n % num, indices modulo 2^16. */
static void test_wrap(void)
{
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct virtio_rdma_rq_req *req;
	struct test_qp t;
	bool ok = true;
	uint32_t n;

	test_qp_init(&t, IBV_QPT_RC, true);
	for (n = 0; n < 70000 && ok; n++) {
		wr.wr_id = n;
		ok = !virtio_rdma_post_recv(&t.qp.ibv_qp, &wr, &bad);
		req = (void *)(t.rq.slots + (n % NUM) * t.rq.uring.stride);
		ok = ok && le64toh(req->wr_id) == n &&
		     t.rq.avail->ring[n % NUM] == n % NUM &&
		     dev_avail_idx(&t.rq) == (uint16_t)(n + 1);
		dev_use(&t.rq, 1);
	}
	check(ok, "70000 receive WRs through 8 slots (stopped at %u)", n);
	test_qp_fini(&t);
}

static void dev_cqe(struct dev_queue *d, uint16_t used, uint32_t slot,
		    uint64_t wr_id, uint8_t status, uint8_t opcode,
		    uint32_t flags)
{
	struct virtio_rdma_cq_req *cqe = (void *)(d->slots + slot * 48);

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = htole64(wr_id);
	cqe->status = status;
	cqe->opcode = opcode;
	cqe->byte_len = htole32(1000 + slot);
	cqe->imm_data = htobe32(0x01020304);
	cqe->qp_num = htole32(17);
	cqe->src_qp = htole32(0xabcdef);
	cqe->wc_flags = htole32(flags);
	d->used->ring[used % NUM].id = htole32(slot);
	d->used->ring[used % NUM].len = htole32(48);
}

static void test_cq(void)
{
	struct virtio_rdma_cq cq = {};
	struct dev_queue d;
	struct ibv_wc wc[4];
	int i, n;

	dev_queue_init(&d, 48, true);
	for (i = 0; i < NUM; i++)
		d.avail->ring[i] = htole16(i);
	d.avail->idx = htole16(NUM);
	check(virtio_rdma_vq_map(&cq.vq, d.fd, &d.uring,
				 sizeof(struct virtio_rdma_cq_req), false) == 0,
	      "CQ mapped");
	check(virtio_rdma_poll_cq(&cq.ibv_cq, 4, wc) == 0, "empty CQ: 0");

	dev_cqe(&d, 0, 3, 100, VIRTIO_IB_WC_SUCCESS,
		VIRTIO_IB_WC_RECV_RDMA_WITH_IMM,
		VIRTIO_IB_WC_WITH_IMM | VIRTIO_IB_WC_GRH);
	dev_cqe(&d, 1, 5, 101, VIRTIO_IB_WC_REM_ACCESS_ERR,
		VIRTIO_IB_WC_RDMA_WRITE, 0);
	dev_use(&d, 2);
	n = virtio_rdma_poll_cq(&cq.ibv_cq, 1, wc);
	check(n == 1 && wc[0].wr_id == 100 && wc[0].status == IBV_WC_SUCCESS &&
		      wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		      wc[0].byte_len == 1003 &&
		      wc[0].imm_data == htobe32(0x01020304) &&
		      wc[0].qp_num == 17 && wc[0].src_qp == 0xabcdef &&
		      wc[0].wc_flags == (IBV_WC_WITH_IMM | IBV_WC_GRH),
	      "poll_cq: the CQE of slot 3 as an ibv_wc");
	check(dev_avail_idx(&d) == NUM + 1 && le16toh(d.avail->ring[0]) == 3,
	      "slot 3 made available again at avail->ring[num %% num]");
	n = virtio_rdma_poll_cq(&cq.ibv_cq, 4, wc);
	check(n == 1 && wc[0].wr_id == 101 &&
		      wc[0].status == IBV_WC_REM_ACCESS_ERR &&
		      dev_avail_idx(&d) == NUM + 2 &&
		      le16toh(d.avail->ring[1]) == 5,
	      "poll_cq: the error CQE of slot 5, status mapped");
	dev_cqe(&d, 2, NUM, 102, 0, 0, 0);
	dev_use(&d, 1);
	check(virtio_rdma_poll_cq(&cq.ibv_cq, 4, wc) == -1 &&
		      dev_avail_idx(&d) == NUM + 2,
	      "a used element naming no slot: -1, nothing reposted");
	d.used->idx = htole16(2 + NUM + 1);
	check(virtio_rdma_poll_cq(&cq.ibv_cq, 4, wc) == -1 &&
		      dev_avail_idx(&d) == NUM + 2,
	      "used->idx moved past the ring: -1, nothing reposted");
	virtio_rdma_vq_unmap(&cq.vq);
	dev_queue_fini(&d);
}

static void test_cq_ext(void)
{
	struct virtio_rdma_cq cq = {};
	struct virtio_rdma_cq_req *cqe;
	struct dev_queue d;
	struct ibv_wc wc[4];
	int i, n;

	dev_queue_init(&d, 48, true);
	for (i = 0; i < NUM; i++)
		d.avail->ring[i] = htole16(i);
	d.avail->idx = htole16(NUM);
	virtio_rdma_vq_map(&cq.vq, d.fd, &d.uring,
			   sizeof(struct virtio_rdma_cq_req), false);
	dev_cqe(&d, 0, 0, 1, VIRTIO_IB_WC_SUCCESS, VIRTIO_IB_WC_RECV,
		VIRTIO_IB_WC_WITH_INVALIDATE);
	cqe = (void *)d.slots;
	cqe->invalidate_rkey = htole32(0xabcd01);
	dev_cqe(&d, 1, 1, 2, VIRTIO_IB_WC_SUCCESS, VIRTIO_IB_WC_COMP_SWAP, 0);
	dev_cqe(&d, 2, 2, 3, VIRTIO_IB_WC_SUCCESS, VIRTIO_IB_WC_FETCH_ADD, 0);
	dev_cqe(&d, 3, 3, 4, VIRTIO_IB_WC_MW_BIND_ERR, VIRTIO_IB_WC_BIND_MW, 0);
	dev_use(&d, 4);
	n = virtio_rdma_poll_cq(&cq.ibv_cq, 4, wc);
	check(n == 4 && wc[0].opcode == IBV_WC_RECV &&
		      wc[0].wc_flags == IBV_WC_WITH_INV &&
		      wc[0].invalidated_rkey == 0xabcd01,
	      "poll_cq: a receive that invalidated a key, the key");
	check(wc[1].opcode == IBV_WC_COMP_SWAP &&
		      wc[2].opcode == IBV_WC_FETCH_ADD &&
		      wc[3].status == IBV_WC_MW_BIND_ERR,
	      "poll_cq: COMP_SWAP, FETCH_ADD, MW_BIND_ERR");
	virtio_rdma_vq_unmap(&cq.vq);
	dev_queue_fini(&d);
}

/* BIND_MW: only with MEM_WINDOW, on RC and UC, the MW's own key index. */
static void test_bind_mw(void)
{
	struct verbs_mr vmr = { .ibv_mr = { .lkey = 0x5501 } };
	struct ibv_mw mw = { .rkey = 0x123400, .type = IBV_MW_TYPE_1 };
	struct ibv_send_wr wr = {
		.wr_id = 11,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = {
			.mw = &mw,
			.rkey = 0x123401,
			.bind_info = {
				.mr = &vmr.ibv_mr,
				.addr = 0x7000,
				.length = 0x800,
				.mw_access_flags = IBV_ACCESS_REMOTE_READ |
						   IBV_ACCESS_REMOTE_WRITE,
			},
		},
	}, *bad;
	struct ibv_mw_bind bind = {
		.wr_id = 12,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = &vmr.ibv_mr,
			       .addr = 0x7100,
			       .length = 16,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct virtio_rdma_sq_req *req;
	struct test_qp t;
	int ret;

	test_qp_init(&t, IBV_QPT_RC, true);
	bad = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL && bad == &wr,
	      "BIND_MW without the device's MEM_WINDOW: EINVAL");
	t.qp.mw = true;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 0);
	check(!ret && req->opcode == VIRTIO_IB_WR_BIND_MW &&
		      req->send_flags == VIRTIO_IB_SEND_SIGNALED &&
		      le32toh(req->bind.rkey) == 0x123401 &&
		      le32toh(req->bind.mr_lkey) == 0x5501 &&
		      le64toh(req->bind.addr) == 0x7000 &&
		      le64toh(req->bind.length) == 0x800 &&
		      le32toh(req->bind.access) ==
			      (VIRTIO_IB_ACCESS_REMOTE_READ |
			       VIRTIO_IB_ACCESS_REMOTE_WRITE) &&
		      !req->num_sge,
	      "BIND_MW request: key, MR, range, rights, no s/g element");
	wr.bind_mw.rkey = 0x123501;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "BIND_MW with another MW's key index: EINVAL");
	wr.bind_mw.rkey = 0x123402;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_LOCAL_WRITE;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "BIND_MW with local rights: EINVAL");
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_ATOMIC;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "BIND_MW with atomic rights, no atomics: EINVAL");
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	wr.send_flags = IBV_SEND_INLINE;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "BIND_MW inline: EINVAL");
	wr.send_flags = 0;
	wr.bind_mw.bind_info.length = 0;
	wr.bind_mw.bind_info.mr = NULL;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	req = dev_sq_req(&t.sq, 1);
	check(!ret && req->opcode == VIRTIO_IB_WR_BIND_MW &&
		      le32toh(req->bind.rkey) == 0x123402 && !req->bind.addr &&
		      !req->bind.length && !req->bind.mr_lkey &&
		      !req->bind.access,
	      "BIND_MW of length 0 (type 1 unbind): address, MR, rights 0");

	ret = virtio_rdma_bind_mw(&t.qp.ibv_qp, &mw, &bind);
	req = dev_sq_req(&t.sq, 2);
	check(!ret && mw.rkey == 0x123401 &&
		      le32toh(req->bind.rkey) == 0x123401 &&
		      le64toh(req->wr_id) == 12 &&
		      le64toh(req->bind.addr) == 0x7100 &&
		      le32toh(req->bind.access) == VIRTIO_IB_ACCESS_REMOTE_READ,
	      "ibv_bind_mw: the next key byte, in the request and the MW");
	test_qp_fini(&t);

	test_qp_init(&t, IBV_QPT_UD, true);
	t.qp.mw = true;
	wr.bind_mw.rkey = 0x123402;
	ret = virtio_rdma_post_send(&t.qp.ibv_qp, &wr, &bad);
	check(ret == EINVAL, "BIND_MW on UD: EINVAL");
	test_qp_fini(&t);
}

static void test_qp_ex_init(struct test_qp *t, enum ibv_qp_type type)
{
	test_qp_init(t, type, true);
	t->qp.atomics = t->qp.mem_mgt = t->qp.mw = true;
	t->qp.sq.max_wr = NUM;
	if (virtio_rdma_qp_ex_init(&t->qp, true, ~0ULL)) {
		printf("Bail out! no memory\n");
		exit(1);
	}
}

static void test_qp_ex_fini(struct test_qp *t)
{
	free(t->qp.wr_ex.sge);
	test_qp_fini(t);
}

/*
 * The ibv_wr_* API posts exactly the requests that post_send posts for the
 * same WRs: each slot is compared byte by byte with post_send's.
 */
static void test_wr_ex(void)
{
	char a[] = "0123456789", b[] = "abcdefghijklmnopqrst";
	struct verbs_mr vmr = { .ibv_mr = { .lkey = 0x66 } };
	struct ibv_mw mw = { .rkey = 0x4400, .type = IBV_MW_TYPE_2 };
	struct ibv_mw_bind_info bind = {
		.mr = &vmr.ibv_mr,
		.addr = 0x9000,
		.length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_sge sge[2] = { { 0x1000, 100, 0x11 },
				  { 0x2000, 200, 0x22 } };
	struct ibv_sge inl[2] = { { (uintptr_t)a, 10, 0 },
				  { (uintptr_t)b, 20, 0 } };
	struct ibv_data_buf bufs[2] = { { a, 10 }, { b, 20 } };
	uint64_t orig;
	struct ibv_sge osge = { (uintptr_t)&orig, 8, 0x33 };
	struct ibv_send_wr wr[7] = {
		{ .wr_id = 1, .sg_list = sge, .num_sge = 2,
		  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		  .wr.rdma = { 0x123456789a, 0x77 } },
		{ .wr_id = 2, .sg_list = inl, .num_sge = 2,
		  .opcode = IBV_WR_SEND_WITH_IMM,
		  .send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED,
		  .imm_data = htobe32(0xdeadbeef) },
		{ .wr_id = 3, .sg_list = &osge, .num_sge = 1,
		  .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		  .wr.atomic = { 0x10008, 5, 6, 0x44 } },
		{ .wr_id = 4, .sg_list = &osge, .num_sge = 1,
		  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		  .wr.atomic = { 0x10010, 7, 0, 0x44 } },
		{ .wr_id = 5, .opcode = IBV_WR_BIND_MW,
		  .send_flags = IBV_SEND_SIGNALED,
		  .bind_mw = { &mw, 0x4401, bind } },
		{ .wr_id = 6, .opcode = IBV_WR_LOCAL_INV,
		  .invalidate_rkey = 0x4401 },
		{ .wr_id = 7, .sg_list = sge, .num_sge = 1,
		  .opcode = IBV_WR_SEND_WITH_INV, .invalidate_rkey = 0x4401 },
	}, *bad;
	struct ibv_qp_ex *qpx;
	struct test_qp t, ref;
	bool same = true;
	int i, ret;

	test_qp_ex_init(&ref, IBV_QPT_RC);
	for (i = 0; i < 7; i++)
		ret = virtio_rdma_post_send(&ref.qp.ibv_qp, &wr[i], &bad);
	check(dev_avail_idx(&ref.sq) == 7, "post_send: the 7 reference WRs");

	test_qp_ex_init(&t, IBV_QPT_RC);
	qpx = &t.qp.vqp.qp_ex;
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, 0x77, 0x123456789a);
	ibv_wr_set_sge_list(qpx, 2, sge);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SOLICITED;
	ibv_wr_send_imm(qpx, htobe32(0xdeadbeef));
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_atomic_cmp_swp(qpx, 0x44, 0x10008, 5, 6);
	ibv_wr_set_sge(qpx, 0x33, (uintptr_t)&orig, 8);
	qpx->wr_id = 4;
	qpx->wr_flags = 0;
	ibv_wr_atomic_fetch_add(qpx, 0x44, 0x10010, 7);
	ibv_wr_set_sge(qpx, 0x33, (uintptr_t)&orig, 8);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, &mw, 0x4401, &bind);
	qpx->wr_id = 6;
	qpx->wr_flags = 0;
	ibv_wr_local_inv(qpx, 0x4401);
	qpx->wr_id = 7;
	ibv_wr_send_inv(qpx, 0x4401);
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 100);
	check(dev_avail_idx(&t.sq) == 0 && !dev_rang(&t.sq),
	      "ibv_wr_*: nothing available before wr_complete");
	ret = ibv_wr_complete(qpx);
	check(!ret && dev_avail_idx(&t.sq) == 7 && dev_rang(&t.sq),
	      "wr_complete: 7 WRs made available, one doorbell");
	for (i = 0; i < 7; i++)
		same = same && !memcmp(dev_sq_req(&t.sq, i),
				       dev_sq_req(&ref.sq, i), SQ_STRIDE);
	check(same, "ibv_wr_*: each request the same as post_send's");

	/* A refused WR: none of the batch is posted, the error returned. */
	dev_use(&t.sq, 7);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 100);
	ibv_wr_rdma_read(qpx, 1, 0x1000);
	ibv_wr_set_sge_list(qpx, 2, sge); /* max_sge_rd 1 */
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	check(ret == EINVAL && dev_avail_idx(&t.sq) == 7 && !dev_rang(&t.sq),
	      "RDMA READ of 2 s/g elements: EINVAL, none of 3 posted");
	ibv_wr_start(qpx);
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 100);
	ibv_wr_send(qpx);
	check(ibv_wr_complete(qpx) == EINVAL && dev_avail_idx(&t.sq) == 7,
	      "wr_set_sge before any WR: EINVAL");
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, 3, inl);
	check(ibv_wr_complete(qpx) == EINVAL, "3 s/g elements of 2: EINVAL");
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, &t, 65);
	check(ibv_wr_complete(qpx) == EINVAL, "65 bytes inline of 64: EINVAL");

	/* wr_abort: nothing posted; the next batch takes the same slot. */
	ibv_wr_start(qpx);
	qpx->wr_id = 8;
	ibv_wr_send(qpx);
	ibv_wr_abort(qpx);
	check(dev_avail_idx(&t.sq) == 7 && !dev_rang(&t.sq),
	      "wr_abort: nothing made available");
	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	check(!ret && dev_avail_idx(&t.sq) == 8 &&
		      le64toh(dev_sq_req(&t.sq, 7)->wr_id) == 9 &&
		      !dev_sq_req(&t.sq, 7)->num_sge,
	      "after wr_abort: the next WR in the same slot, no s/g element");

	/* max_wr outstanding: ENOMEM for the batch. */
	ibv_wr_start(qpx);
	for (i = 0; i < NUM; i++)
		ibv_wr_send(qpx);
	check(ibv_wr_complete(qpx) == ENOMEM && dev_avail_idx(&t.sq) == 8,
	      "8 WRs with room for 7: ENOMEM, none posted");
	test_qp_ex_fini(&t);
	test_qp_ex_fini(&ref);

	test_qp_ex_init(&t, IBV_QPT_UD);
	qpx = &t.qp.vqp.qp_ex;
	{
		struct virtio_rdma_ah ah = { .ahn = 7 };
		struct virtio_rdma_sq_req *req;

		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_ud_addr(qpx, &ah.ibv_ah, 0x123456, 0x11111111);
		ibv_wr_set_sge(qpx, 3, 0x1000, 64);
		ibv_wr_send(qpx); /* no AH */
		ret = ibv_wr_complete(qpx);
		check(ret == EINVAL && dev_avail_idx(&t.sq) == 0,
		      "UD: a WR without wr_set_ud_addr: EINVAL");
		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_ud_addr(qpx, &ah.ibv_ah, 0x123456, 0x11111111);
		ibv_wr_set_sge(qpx, 3, 0x1000, 64);
		ret = ibv_wr_complete(qpx);
		req = dev_sq_req(&t.sq, 0);
		check(!ret && le32toh(req->ud.ah) == 7 &&
			      le32toh(req->ud.remote_qpn) == 0x123456 &&
			      le32toh(req->ud.remote_qkey) == 0x11111111 &&
			      le32toh(req->sg_list[0].length) == 64,
		      "UD: wr_set_ud_addr: AH number, remote QPN and Q_Key");
	}
	test_qp_ex_fini(&t);
}

/* The extended CQ: start_poll, next_poll, end_poll and the read_* calls. */
static void test_cq_ex(void)
{
	struct virtio_rdma_cq cq = {};
	struct ibv_poll_cq_attr pattr = {};
	struct virtio_rdma_cq_req *cqe;
	struct ibv_cq_ex *cqx = &cq.vcq.cq_ex;
	struct dev_queue d;
	int i, ret;

	dev_queue_init(&d, 48, true);
	for (i = 0; i < NUM; i++)
		d.avail->ring[i] = htole16(i);
	d.avail->idx = htole16(NUM);
	virtio_rdma_vq_map(&cq.vq, d.fd, &d.uring,
			   sizeof(struct virtio_rdma_cq_req), false);
	virtio_rdma_cq_ex_set_ops(cqx, IBV_WC_STANDARD_FLAGS);
	check(ibv_start_poll(cqx, &pattr) == ENOENT, "empty: ENOENT");
	check(ibv_start_poll(cqx, &pattr) == ENOENT,
	      "empty again: ENOENT (the lock was released)");

	dev_cqe(&d, 0, 6, 200, VIRTIO_IB_WC_SUCCESS,
		VIRTIO_IB_WC_RECV_RDMA_WITH_IMM,
		VIRTIO_IB_WC_WITH_IMM | VIRTIO_IB_WC_GRH);
	dev_cqe(&d, 1, 2, 201, VIRTIO_IB_WC_SUCCESS, VIRTIO_IB_WC_RECV,
		VIRTIO_IB_WC_WITH_INVALIDATE);
	cqe = (void *)(d.slots + 2 * 48);
	cqe->invalidate_rkey = htole32(0x4401);
	dev_cqe(&d, 2, 4, 202, VIRTIO_IB_WC_MW_BIND_ERR, VIRTIO_IB_WC_BIND_MW,
		0);
	dev_use(&d, 3);
	ret = ibv_start_poll(cqx, &pattr);
	check(!ret && cqx->wr_id == 200 && cqx->status == IBV_WC_SUCCESS &&
		      ibv_wc_read_opcode(cqx) == IBV_WC_RECV_RDMA_WITH_IMM &&
		      ibv_wc_read_byte_len(cqx) == 1006 &&
		      ibv_wc_read_imm_data(cqx) == htobe32(0x01020304) &&
		      ibv_wc_read_qp_num(cqx) == 17 &&
		      ibv_wc_read_src_qp(cqx) == 0xabcdef &&
		      ibv_wc_read_wc_flags(cqx) ==
			      (IBV_WC_WITH_IMM | IBV_WC_GRH) &&
		      !ibv_wc_read_slid(cqx) && !ibv_wc_read_sl(cqx),
	      "start_poll: the CQE of slot 6 through the read_* calls");
	ret = ibv_next_poll(cqx);
	check(!ret && cqx->wr_id == 201 &&
		      ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
		      ibv_wc_read_wc_flags(cqx) == IBV_WC_WITH_INV &&
		      ibv_wc_read_invalidated_rkey(cqx) == 0x4401,
	      "next_poll: a receive that invalidated a key, the key");
	check(dev_avail_idx(&d) == NUM, "slots not given back before end_poll");
	ret = ibv_next_poll(cqx);
	check(!ret && cqx->wr_id == 202 && cqx->status == IBV_WC_MW_BIND_ERR,
	      "next_poll: MW_BIND_ERR");
	check(ibv_next_poll(cqx) == ENOENT, "next_poll at the end: ENOENT");
	ibv_end_poll(cqx);
	check(dev_avail_idx(&d) == NUM + 3 && le16toh(d.avail->ring[0]) == 6 &&
		      le16toh(d.avail->ring[1]) == 2 &&
		      le16toh(d.avail->ring[2]) == 4,
	      "end_poll: the three slots made available again, in order");
	dev_cqe(&d, 3, NUM, 203, 0, 0, 0);
	dev_use(&d, 1);
	check(ibv_start_poll(cqx, &pattr) == EIO &&
		      dev_avail_idx(&d) == NUM + 3,
	      "a used element naming no slot: EIO, nothing reposted");
	check(ibv_start_poll(cqx, &pattr) == EIO,
	      "and again (the lock was released)");
	virtio_rdma_vq_unmap(&cq.vq);
	dev_queue_fini(&d);
}

/* What the kernel answers must describe usable rings. */
static void test_bad_uring(void)
{
	struct virtio_rdma_vq vq;
	struct dev_queue d;
	struct virtio_rdma_uring u;

	dev_queue_init(&d, SQ_STRIDE, true);
	u = d.uring;
	u.num = 6;
	check(virtio_rdma_vq_map(&vq, d.fd, &u, SQ_STRIDE, true) == EINVAL,
	      "num not a power of two: EINVAL");
	u = d.uring;
	check(virtio_rdma_vq_map(&vq, d.fd, &u, SQ_STRIDE + 16, true) == EINVAL,
	      "stride too small for max_send_sge: EINVAL");
	u.ring_len = 64 + 4 + 8 * NUM;
	check(virtio_rdma_vq_map(&vq, d.fd, &u, SQ_STRIDE, true) == EINVAL,
	      "ring mapping without avail_event: EINVAL");
	u = d.uring;
	u.used_off = 8;
	check(virtio_rdma_vq_map(&vq, d.fd, &u, SQ_STRIDE, true) == EINVAL,
	      "used ring over the avail ring: EINVAL");
	u = d.uring;
	u.flags &= ~VIRTIO_RDMA_URING_DOORBELL;
	check(virtio_rdma_vq_map(&vq, d.fd, &u, SQ_STRIDE, true) == EINVAL,
	      "send queue without a doorbell: EINVAL");
	dev_queue_fini(&d);
}

#define RQ_STRIDE                                                              \
	(sizeof(struct virtio_rdma_rq_req) + 2 * sizeof(struct virtio_rdma_sge))

struct test_srq {
	struct dev_queue q;
	struct virtio_rdma_srq srq;
};

static void test_srq_init(struct test_srq *t)
{
	memset(t, 0, sizeof(*t));
	dev_queue_init(&t->q, RQ_STRIDE, true);
	if (virtio_rdma_vq_map(&t->srq.vq, t->q.fd, &t->q.uring, RQ_STRIDE,
			       true)) {
		printf("Bail out! cannot map a test SRQ\n");
		exit(1);
	}
	t->srq.vq.max_wr = 6;
	t->srq.vq.max_sge = 2;
}

static void test_srq_fini(struct test_srq *t)
{
	virtio_rdma_vq_unmap(&t->srq.vq);
	dev_queue_fini(&t->q);
}

static struct virtio_rdma_rq_req *dev_rq_req(struct dev_queue *d, int slot)
{
	return (struct virtio_rdma_rq_req *)(d->slots + slot * RQ_STRIDE);
}

/* The device used slot @id (an SRQ's WRs complete in any order). */
static void dev_use_id(struct dev_queue *d, uint32_t id)
{
	uint16_t idx = le16toh(d->used->idx);

	d->used->ring[idx % NUM].id = htole32(id);
	d->used->ring[idx % NUM].len = 0;
	dev_use(d, 1);
}

static void recv_wrs(struct ibv_recv_wr *wr, struct ibv_sge *sge, int n,
		     uint64_t first_id)
{
	int i;

	memset(wr, 0, n * sizeof(*wr));
	for (i = 0; i < n; i++) {
		sge[i].addr = 0x10000 + i * 0x100;
		sge[i].length = 0x100;
		sge[i].lkey = 0x55;
		wr[i].wr_id = first_id + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
}

/*
 * An SRQ: slots never posted first, then the slots the used ring gives
 * back, in the order the device used them; max_wr outstanding at most.
 */
static void test_srq(void)
{
	struct ibv_recv_wr wr[8], *bad;
	struct ibv_sge sge[8];
	struct test_srq t;
	struct test_qp qt;
	int ret, i;
	bool ok;

	test_srq_init(&t);
	recv_wrs(wr, sge, 8, 100);
	bad = NULL;
	ret = virtio_rdma_post_srq_recv(&t.srq.ibv_srq, wr, &bad);
	ok = true;
	for (i = 0; i < 6; i++)
		ok = ok && le16toh(t.q.avail->ring[i]) == i &&
		     le64toh(dev_rq_req(&t.q, i)->wr_id) == 100 + (uint64_t)i &&
		     le32toh(dev_rq_req(&t.q, i)->num_sge) == 1 &&
		     le64toh(dev_rq_req(&t.q, i)->sg_list[0].addr) ==
			     0x10000 + (uint64_t)i * 0x100;
	check(ret == ENOMEM && bad == &wr[6] && dev_avail_idx(&t.q) == 6 && ok,
	      "SRQ: 6 of 8 WRs posted at max_wr 6 into slots 0-5, ENOMEM (ret "
	      "%d, idx %u)",
	      ret, dev_avail_idx(&t.q));
	check(dev_rang(&t.q), "SRQ: doorbell");

	dev_use_id(&t.q, 3);
	dev_use_id(&t.q, 1);
	recv_wrs(wr, sge, 3, 200);
	bad = NULL;
	ret = virtio_rdma_post_srq_recv(&t.srq.ibv_srq, wr, &bad);
	check(ret == ENOMEM && bad == &wr[2] && dev_avail_idx(&t.q) == 8 &&
		      le16toh(t.q.avail->ring[6]) == 6 &&
		      le16toh(t.q.avail->ring[7]) == 7,
	      "SRQ: 2 used out of order: 2 more fit, in the slots never "
	      "posted");

	dev_use_id(&t.q, 0);
	dev_use_id(&t.q, 6);
	recv_wrs(wr, sge, 2, 300);
	ret = virtio_rdma_post_srq_recv(&t.srq.ibv_srq, wr, &bad);
	check(!ret && dev_avail_idx(&t.q) == 10 &&
		      le16toh(t.q.avail->ring[0]) == 3 &&
		      le16toh(t.q.avail->ring[1]) == 1 &&
		      le64toh(dev_rq_req(&t.q, 3)->wr_id) == 300 &&
		      le64toh(dev_rq_req(&t.q, 1)->wr_id) == 301,
	      "SRQ: then the slots in the order the device used them (3, 1)");

	recv_wrs(wr, sge, 1, 400);
	wr[0].num_sge = 3;
	bad = NULL;
	ret = virtio_rdma_post_srq_recv(&t.srq.ibv_srq, wr, &bad);
	check(ret == EINVAL && bad == &wr[0] && dev_avail_idx(&t.q) == 10,
	      "SRQ: 3 s/g elements of max_sge 2: EINVAL, nothing posted");

	/* Used entries 2 and 3 name slots 0 and 6; then one names no slot. */
	dev_use_id(&t.q, 99);
	dev_use_id(&t.q, 2);
	dev_use_id(&t.q, 5);
	recv_wrs(wr, sge, 3, 500);
	bad = NULL;
	ret = virtio_rdma_post_srq_recv(&t.srq.ibv_srq, wr, &bad);
	check(ret == EIO && bad == &wr[2] && dev_avail_idx(&t.q) == 12 &&
		      le16toh(t.q.avail->ring[2]) == 0 &&
		      le16toh(t.q.avail->ring[3]) == 6,
	      "SRQ: a used element naming slot 99 of 8: EIO, the WRs before it "
	      "posted");
	test_srq_fini(&t);

	test_qp_init(&qt, IBV_QPT_RC, true);
	qt.qp.has_rq = false;
	recv_wrs(wr, sge, 1, 600);
	bad = NULL;
	ret = virtio_rdma_post_recv(&qt.qp.ibv_qp, wr, &bad);
	check(ret == EINVAL && bad == &wr[0] && dev_avail_idx(&qt.rq) == 0,
	      "a QP on an SRQ: post_recv EINVAL");
	test_qp_fini(&qt);
}

int main(void)
{
	test_rdma_write();
	test_full();
	test_einval();
	test_atomic_inv();
	test_inline_imm();
	test_ud();
	test_no_notify();
	test_wrap();
	test_cq();
	test_cq_ext();
	test_bind_mw();
	test_wr_ex();
	test_cq_ex();
	test_bad_uring();
	test_srq();
	return check_done();
}
