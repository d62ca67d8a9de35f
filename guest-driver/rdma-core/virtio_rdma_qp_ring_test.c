// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * QPs on rings (virtio_rdma_qp_ring.c) without a kernel or a device: the
 * rings and the record lie in a memfd, mapped through the provider's own
 * code as the kernel's mmap offsets would be, and this program plays the
 * device (it reads the entries and sq_prod, writes sq_cons, sq_event and
 * rq_notify). Its own virtio_rdma_wq_ring_doorbell() counts the doorbell
 * commands, the system calls a post costs. build.sh runs it after every
 * build. Prints TAP.
 */

#define _GNU_SOURCE /* memfd_create() */
#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "virtio_rdma.h"
#include "virtio_rdma_tap.h"

#define PAGE 4096
#define SIZE 4
#define SQ_STRIDE 1024
#define RQ_STRIDE 64
#define RQ_OFF PAGE
#define REC_OFF (2 * PAGE)
#define AREA (3 * PAGE)

/* The device's view, and the provider's QP on it. */
struct dev_qp {
	int fd;
	uint8_t *mem;
	struct virtio_rdma_qp_rec *rec;
	struct virtio_rdma_create_qp_resp drv;
	struct virtio_rdma_context ctx;
	struct virtio_rdma_qp *qp;
};

static void dev_desc(struct virtio_rdma_create_qp_resp *drv)
{
	memset(drv, 0, sizeof(*drv));
	drv->flags = VIRTIO_RDMA_QP_RESP_RINGS;
	drv->rsq = (struct virtio_rdma_wq_ring){ .len = AREA,
						 .size = SIZE,
						 .stride = SQ_STRIDE };
	drv->rrq = (struct virtio_rdma_wq_ring){
		.len = AREA, .off = RQ_OFF, .size = SIZE, .stride = RQ_STRIDE
	};
	drv->rec = (struct virtio_rdma_wq_ring){ .len = AREA, .off = REC_OFF };
}

static const struct ibv_qp_cap cap = {
	.max_send_wr = SIZE,
	.max_recv_wr = SIZE,
	.max_send_sge = 1,
	.max_recv_sge = 1,
};

static int dev_qp_init(struct dev_qp *d)
{
	d->fd = memfd_create("virtio_rdma_qp_ring_test", 0);
	if (d->fd < 0 || ftruncate(d->fd, AREA)) {
		perror("memfd");
		exit(1);
	}
	d->mem = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (d->mem == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	d->rec = (struct virtio_rdma_qp_rec *)(d->mem + REC_OFF);
	dev_desc(&d->drv);
	memset(&d->ctx, 0, sizeof(d->ctx));
	d->qp = calloc(1, sizeof(*d->qp));
	if (!d->qp)
		exit(1);
	d->qp->has_rq = true;
	d->qp->ibv_qp.context = &d->ctx.ibv_ctx.context;
	/* The provider maps the memfd as it would the uverbs file. */
	d->ctx.ibv_ctx.context.cmd_fd = d->fd;
	return virtio_rdma_qp_setup(d->qp, &d->ctx.ibv_ctx.context, &cap,
				    &d->drv);
}

static void dev_qp_fini(struct dev_qp *d)
{
	virtio_rdma_qp_unmap(d->qp);
	free(d->qp);
	munmap(d->mem, AREA);
	close(d->fd);
}

static int rung;

/* In place of virtio_rdma_qp_ring_db.c's uverbs command. */
void virtio_rdma_wq_ring_doorbell(struct virtio_rdma_vq *vq)
{
	rung++;
}

/* Doorbell commands since the last call. */
static int doorbells(struct dev_qp *d)
{
	int n = rung;

	rung = 0;
	return n;
}

static int post(struct dev_qp *d, uint64_t wr_id, int n)
{
	static char data[8];
	struct ibv_sge sge = { .addr = (uintptr_t)data,
			       .length = 8,
			       .lkey = 1 };
	struct ibv_send_wr wr[SIZE + 1], *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr[i] = (struct ibv_send_wr){ .wr_id = wr_id + i,
					      .opcode = IBV_WR_SEND,
					      .sg_list = &sge,
					      .num_sge = 1,
					      .next = i + 1 < n ? &wr[i + 1]
								: NULL };
	}
	return virtio_rdma_post_send(&d->qp->ibv_qp, wr, &bad);
}

static void test_rule(void)
{
	check(virtio_rdma_wq_ring_rule(1, 0, 0, true),
	      "ROCE-DRV-RING-3: sq_event 0, 0 -> 1 rings");
	check(!virtio_rdma_wq_ring_rule(3, 2, 10, true),
	      "ROCE-DRV-RING-3: sq_event ahead (device busy): no doorbell");
	check(virtio_rdma_wq_ring_rule(1, 0xfffffffe, 0xffffffff, true),
	      "ROCE-DRV-RING-3: across 2^32");
	check(!virtio_rdma_wq_ring_rule(5, 4, 0, false) &&
		      virtio_rdma_wq_ring_rule(5, 4, 1, false),
	      "ROCE-DRV-RING-7: rq_notify decides");
}

static void test_bad_desc(void)
{
	struct virtio_rdma_create_qp_resp drv;
	struct virtio_rdma_qp qp = { .has_rq = true };

	dev_desc(&drv);
	drv.rsq.stride = 512; /* smaller than a send request */
	check(virtio_rdma_qp_ring_map(&qp, -1, &cap, &drv, 592, 40) == EINVAL,
	      "a send stride below the request is refused");
	dev_desc(&drv);
	drv.rrq.size = 2; /* fewer entries than max_recv_wr */
	check(virtio_rdma_qp_ring_map(&qp, -1, &cap, &drv, 592, 40) == EINVAL,
	      "a receive ring smaller than max_recv_wr is refused");
	dev_desc(&drv);
	drv.rec.off = AREA - 64;
	check(virtio_rdma_qp_ring_map(&qp, -1, &cap, &drv, 592, 40) == EINVAL,
	      "a record beyond its area is refused");
}

static void test_post(void)
{
	const struct virtio_rdma_sq_req *req;
	struct ibv_recv_wr rwr = { .wr_id = 77 }, *rbad;
	struct dev_qp d;
	int ret;

	check(dev_qp_init(&d) == 0, "QP on rings mapped");
	check(post(&d, 100, 2) == 0 && le32toh(d.rec->sq_prod) == 2,
	      "two sends: sq_prod 2");
	req = (const void *)d.mem;
	check(le64toh(req->wr_id) == 100 &&
		      le64toh(((const struct virtio_rdma_sq_req *)(d.mem +
								   SQ_STRIDE))
				      ->wr_id) == 101,
	      "entries 0 and 1 hold the requests");
	check(doorbells(&d) == 1, "an idle QP: one doorbell command");
	/* The device serves the QP and watches up to index 10. */
	d.rec->sq_event = htole32(10);
	check(post(&d, 102, 1) == 0 && doorbells(&d) == 0,
	      "a busy QP (sq_event not passed): no system call");
	check(post(&d, 103, 1) == 0 && post(&d, 104, 1) == ENOMEM,
	      "at most max_send_wr outstanding");
	d.rec->sq_cons = htole32(2);
	check(post(&d, 104, 1) == 0 &&
		      le64toh(((const struct virtio_rdma_sq_req *)d.mem)
				      ->wr_id) == 104,
	      "entry 0 again once sq_cons passed it");
	/* The device stopped watching at 5: the next post rings. */
	d.rec->sq_event = htole32(5);
	d.rec->sq_cons = htole32(5);
	check(post(&d, 105, 1) == 0 && doorbells(&d) == 1,
	      "sq_event reached: the doorbell again");

	ret = virtio_rdma_post_recv(&d.qp->ibv_qp, &rwr, &rbad);
	check(ret == 0 && le32toh(d.rec->rq_prod) == 1 && doorbells(&d) == 0,
	      "a receive with rq_notify 0: no doorbell");
	d.rec->rq_notify = htole32(1);
	ret = virtio_rdma_post_recv(&d.qp->ibv_qp, &rwr, &rbad);
	check(ret == 0 && doorbells(&d) == 1,
	      "ROCE-DRV-RING-7: a receive in ERR (rq_notify) rings");

	virtio_rdma_qp_ring_reset(d.qp);
	check(d.rec->sq_prod == 0 && d.rec->rq_prod == 0 &&
		      d.qp->sq.avail_idx == 0,
	      "ROCE-DRV-RING-5: RESET zeroes the producer indices");
	dev_qp_fini(&d);
}

/* An SRQ on rings: entries in order, prod, no doorbell, cons frees them. */
static void test_srq(void)
{
	struct virtio_rdma_create_srq_resp drv = {
		.flags = VIRTIO_RDMA_SRQ_RESP_RINGS,
		.ring = { .len = 2 * PAGE, .size = SIZE, .stride = RQ_STRIDE },
		.rec = { .len = 2 * PAGE, .off = PAGE },
	};
	struct ibv_recv_wr wr = { .wr_id = 40 }, *bad;
	struct virtio_rdma_srq_rec *rec;
	struct virtio_rdma_srq srq = {};
	uint8_t *mem;
	int fd, i, ret = 0;

	fd = memfd_create("virtio_rdma_srq_ring_test", 0);
	if (fd < 0 || ftruncate(fd, 2 * PAGE))
		exit(1);
	mem = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		exit(1);
	rec = (struct virtio_rdma_srq_rec *)(mem + PAGE);
	check(virtio_rdma_srq_ring_map(&srq, fd, SIZE, 40, &drv) == 0,
	      "SRQ on rings mapped");
	srq.vq.max_wr = SIZE;
	srq.vq.max_sge = 1;
	for (i = 0; i < SIZE && !ret; i++, wr.wr_id++)
		ret = virtio_rdma_post_srq_recv(&srq.ibv_srq, &wr, &bad);
	check(ret == 0 && le32toh(rec->prod) == SIZE && rung == 0,
	      "SRQ: WRs in order, prod %u, no doorbell", le32toh(rec->prod));
	check(le64toh(((struct virtio_rdma_rq_req *)(mem + 2 * RQ_STRIDE))
			      ->wr_id) == 42,
	      "SRQ: WR 2 in entry 2");
	check(virtio_rdma_post_srq_recv(&srq.ibv_srq, &wr, &bad) == ENOMEM,
	      "SRQ: at most max_wr outstanding");
	rec->cons = htole32(1);
	check(virtio_rdma_post_srq_recv(&srq.ibv_srq, &wr, &bad) == 0 &&
		      le64toh(((struct virtio_rdma_rq_req *)mem)->wr_id) == 44,
	      "SRQ: entry 0 again once cons passed it");
	munmap(srq.area, srq.area_len);
	munmap(mem, 2 * PAGE);
	close(fd);
}

int main(void)
{
	test_rule();
	test_bad_desc();
	test_post();
	test_srq();
	return check_done();
}
