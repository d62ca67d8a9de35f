// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CQs on rings (virtio_rdma_cq_ring.c) without a kernel or a device: the
 * record and the entries lie in a memfd, mapped through the provider's own
 * code as the kernel's mmap offsets would be, and this program plays the
 * device: it writes CQEs and prod, and reads cons and notify. build.sh runs
 * it after every build. Prints TAP.
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
#define SIZE 8
#define STRIDE 64
#define REC_OFF 0
#define ENTS_OFF PAGE

/* The device's view of one CQ ring, as the kernel lays it out. */
struct dev_ring {
	int fd;
	uint8_t *mem;
	struct virtio_rdma_cq_rec *rec;
	uint8_t *ents;
	struct virtio_rdma_cq_ring desc;
};

/* A record, the first ring and (resize) two more, a page each. */
#define MEM_LEN (4 * PAGE)

static void dev_ring_init(struct dev_ring *d, uint32_t start)
{
	size_t len = MEM_LEN;

	d->fd = memfd_create("virtio_rdma_cq_ring_test", 0);
	if (d->fd < 0 || ftruncate(d->fd, len)) {
		perror("memfd");
		exit(1);
	}
	d->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (d->mem == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	d->rec = (struct virtio_rdma_cq_rec *)(d->mem + REC_OFF);
	d->ents = d->mem + ENTS_OFF;
	d->rec->cons = htole32(start);
	d->rec->prod = htole32(start);
	memset(&d->desc, 0, sizeof(d->desc));
	d->desc.rec_mmap = REC_OFF;
	d->desc.ring_mmap = ENTS_OFF;
	d->desc.rec_len = PAGE;
	d->desc.ring_len = PAGE;
	d->desc.size = SIZE;
	d->desc.stride = STRIDE;
}

static void dev_ring_fini(struct dev_ring *d)
{
	munmap(d->mem, MEM_LEN);
	close(d->fd);
}

/* CQE number @n (wr_id 1000 + n) into its entry; prod = n + 1. */
static void dev_cqe(struct dev_ring *d, uint32_t n, uint8_t status)
{
	struct virtio_rdma_cq_req *cqe =
		(void *)(d->ents + (n % d->desc.size) * STRIDE);

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = htole64(1000 + (uint64_t)n);
	cqe->status = status;
	cqe->opcode = VIRTIO_IB_WC_RECV;
	cqe->byte_len = htole32(n * 3);
	cqe->qp_num = htole32(17);
	d->rec->prod = htole32(n + 1);
}

static void test_bad_desc(void)
{
	struct virtio_rdma_cq cq = {};
	struct dev_ring d;

	dev_ring_init(&d, 0);
	d.desc.size = 6;
	check(virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc) == EINVAL &&
		      !cq.rings,
	      "size 6 (not a power of two): EINVAL");
	d.desc.size = SIZE;
	d.desc.stride = 32;
	check(virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc) == EINVAL,
	      "stride 32 (less than a CQE): EINVAL");
	d.desc.stride = STRIDE;
	d.desc.size = 128;
	check(virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc) == EINVAL,
	      "128 entries of 64 bytes in a 4096-byte mapping: EINVAL");
	d.desc.size = SIZE;
	d.desc.rec_len = 64;
	check(virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc) == EINVAL,
	      "a record mapping of 64 bytes: EINVAL");
	dev_ring_fini(&d);
}

/* Many times the ring's size through poll_cq, across cons's 2^32 wrap. */
static void test_poll(void)
{
	struct virtio_rdma_cq cq = {};
	const uint32_t start = 0xfffffff0;
	struct ibv_wc wc[SIZE];
	uint32_t n = start, got = start;
	bool data_ok = true;
	struct dev_ring d;
	int i, k;

	dev_ring_init(&d, start);
	check(virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc) == 0 && cq.rings &&
		      cq.cons == start,
	      "map: cons from the record");
	check(virtio_rdma_poll_cq(&cq.ibv_cq, SIZE, wc) == 0, "empty: 0");
	for (i = 0; i < 64; i++) {
		/* 1 to SIZE CQEs at a time, polled in two calls. */
		for (k = 0; k < i % SIZE + 1; k++)
			dev_cqe(&d, n++, VIRTIO_IB_WC_SUCCESS);
		while (got != n) {
			int m = virtio_rdma_poll_cq(&cq.ibv_cq, 3, wc);

			if (m <= 0) {
				data_ok = false;
				break;
			}
			for (k = 0; k < m; k++, got++)
				if (wc[k].wr_id != 1000 + (uint64_t)got ||
				    wc[k].byte_len != got * 3 ||
				    wc[k].qp_num != 17 ||
				    wc[k].opcode != IBV_WC_RECV ||
				    wc[k].status != IBV_WC_SUCCESS)
					data_ok = false;
			if (le32toh(d.rec->cons) != got)
				data_ok = false;
		}
	}
	check(data_ok && got - start > 256 && got < start,
	      "%u CQEs through 8 entries, in order, data as written, cons "
	      "written after each poll, across 2^32",
	      got - start);

	dev_cqe(&d, n++, VIRTIO_IB_WC_REM_ACCESS_ERR);
	check(virtio_rdma_poll_cq(&cq.ibv_cq, 1, wc) == 1 &&
		      wc[0].status == IBV_WC_REM_ACCESS_ERR,
	      "an error CQE: its status");
	d.rec->prod = htole32(n + SIZE + 1);
	check(virtio_rdma_poll_cq(&cq.ibv_cq, SIZE, wc) == -1 &&
		      le32toh(d.rec->cons) == n && cq.cons == n,
	      "prod more than the ring's size ahead: -1, the CQ as it was");
	d.rec->prod = htole32(n);
	check(virtio_rdma_req_notify_cq(&cq.ibv_cq, 0) == 0 &&
		      le32toh(d.rec->notify) ==
			      VIRTIO_IB_NOTIFY_NEXT_COMPLETION,
	      "req_notify_cq: NEXT_COMPLETION in the record");
	d.rec->notify = 0;
	check(virtio_rdma_req_notify_cq(&cq.ibv_cq, 1) == 0 &&
		      le32toh(d.rec->notify) == VIRTIO_IB_NOTIFY_SOLICITED,
	      "req_notify_cq(solicited_only): SOLICITED in the record");
	d.rec->prod = htole32(n + SIZE + 1);
	check(virtio_rdma_req_notify_cq(&cq.ibv_cq, 0) == EIO,
	      "req_notify_cq on a broken ring: EIO");
	virtio_rdma_cq_ring_unmap(&cq);
	dev_ring_fini(&d);
}

/* start/next/end_poll: cons goes back once, at end_poll. */
static void test_poll_ex(void)
{
	struct virtio_rdma_cq cq = {};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cqx = &cq.vcq.cq_ex;
	bool ok = true;
	struct dev_ring d;
	uint32_t i;
	int ret;

	dev_ring_init(&d, 5);
	virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc);
	virtio_rdma_cq_ex_set_ops(cqx, IBV_WC_STANDARD_FLAGS);
	check(ibv_start_poll(cqx, &pattr) == ENOENT, "empty: ENOENT");
	for (i = 5; i < 5 + SIZE; i++)
		dev_cqe(&d, i, VIRTIO_IB_WC_SUCCESS);
	ret = ibv_start_poll(cqx, &pattr);
	for (i = 5; !ret; i++) {
		if (cqx->wr_id != 1000 + i ||
		    ibv_wc_read_byte_len(cqx) != i * 3 ||
		    ibv_wc_read_qp_num(cqx) != 17 ||
		    ibv_wc_read_opcode(cqx) != IBV_WC_RECV)
			ok = false;
		if (le32toh(d.rec->cons) != 5)
			ok = false;
		ret = ibv_next_poll(cqx);
	}
	ibv_end_poll(cqx);
	check(ok && ret == ENOENT && i == 5 + SIZE &&
		      le32toh(d.rec->cons) == 5 + SIZE,
	      "start/next_poll: a full ring in order; cons written at "
	      "end_poll");
	d.rec->prod = htole32(5 + 3 * SIZE);
	check(ibv_start_poll(cqx, &pattr) == EIO,
	      "start_poll on a broken ring: EIO");
	virtio_rdma_cq_ring_unmap(&cq);
	dev_ring_fini(&d);
}

/*
 * The device side of RESIZE_CQ: the CQ moves to @size entries in page
 * @page of the memfd after CQE @sp - 1 (ROCE-DEV-RING-24); the answer the
 * kernel passes on.
 */
static struct virtio_rdma_resize_cq_resp
dev_resize(struct dev_ring *d, uint32_t sp, uint32_t size, int page)
{
	struct virtio_rdma_resize_cq_resp r = {
		.flags = VIRTIO_RDMA_RESIZE_CQ_RESP_RINGS,
		.switch_prod = sp,
		.ring = {
			.ring_mmap = (uint64_t)page * PAGE,
			.ring_len = PAGE,
			.size = size,
			.stride = STRIDE,
		},
	};

	d->ents = d->mem + (size_t)page * PAGE;
	d->desc.size = size;
	return r;
}

/* Polls @want CQEs from @from with poll_cq (3 at a time) or start_poll. */
static bool poll_in_order(struct virtio_rdma_cq *cq, bool ex, uint32_t from,
			  uint32_t want, struct dev_ring *d)
{
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	uint32_t got = from;
	struct ibv_wc wc[3];
	bool ok = true;
	int m, k, ret;

	if (ex) {
		ret = ibv_start_poll(cqx, &pattr);
		if (ret) /* nothing to end */
			return ret == ENOENT && !want;
		for (; !ret; got++) {
			if (cqx->wr_id != 1000 + (uint64_t)got ||
			    ibv_wc_read_byte_len(cqx) != got * 3 ||
			    ibv_wc_read_qp_num(cqx) != 17)
				ok = false;
			ret = ibv_next_poll(cqx);
		}
		ibv_end_poll(cqx);
		return ok && ret == ENOENT && got == from + want &&
		       le32toh(d->rec->cons) == got;
	}
	while ((m = virtio_rdma_poll_cq(&cq->ibv_cq, 3, wc)) > 0)
		for (k = 0; k < m; k++, got++)
			if (wc[k].wr_id != 1000 + (uint64_t)got ||
			    wc[k].byte_len != got * 3 || wc[k].qp_num != 17)
				return false;
	return m == 0 && got == from + want && le32toh(d->rec->cons) == got;
}

/*
 * ibv_resize_cq()'s ring switch, both poll paths: CQEs before switch_prod
 * from the old ring, the later ones from the new, in order across the
 * ring ends; the old ring goes once cons reaches switch_prod.
 */
static void test_resize(bool ex)
{
	struct virtio_rdma_cq cq = {};
	struct virtio_rdma_resize_cq_resp r;
	struct dev_ring d;
	const char *how = ex ? "start_poll" : "poll_cq";
	uint32_t n = 0, i;

	dev_ring_init(&d, 0);
	virtio_rdma_cq_ring_map(&cq, d.fd, &d.desc);
	virtio_rdma_cq_ex_set_ops(&cq.vcq.cq_ex, IBV_WC_STANDARD_FLAGS);
	/* 8 entries: 0..5 written and polled, 6..10 pending at the switch */
	for (; n < 6; n++)
		dev_cqe(&d, n, VIRTIO_IB_WC_SUCCESS);
	check(poll_in_order(&cq, ex, 0, 6, &d), "%s: 6 CQEs before", how);
	for (; n < 11; n++)
		dev_cqe(&d, n, VIRTIO_IB_WC_SUCCESS);
	r = dev_resize(&d, n, 16, 2);
	/* 11..21 into the new ring of 16 (its entries 11..15, 0..5): 16 out */
	for (; n < 22; n++)
		dev_cqe(&d, n, VIRTIO_IB_WC_SUCCESS);
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == 0 && cq.old_ents &&
		      cq.size == 16 && cq.switch_prod == 11,
	      "%s: the switch at 11 with 5 CQEs in the old ring", how);
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == EIO,
	      "%s: a second switch while the old ring holds CQEs: EIO", how);
	check(poll_in_order(&cq, ex, 6, 16, &d) && !cq.old_ents,
	      "%s: 6..21 in order across the switch, the old ring unmapped",
	      how);

	/* Shrink to 8 with nothing pending: the old ring goes at once. */
	r = dev_resize(&d, n, 8, 3);
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == 0 && !cq.old_ents &&
		      cq.size == 8,
	      "%s: a switch with nothing pending unmaps the old ring at once",
	      how);
	for (i = 0; i < 8; i++, n++)
		dev_cqe(&d, n, VIRTIO_IB_WC_SUCCESS);
	check(poll_in_order(&cq, ex, 22, 8, &d),
	      "%s: 8 more through the third ring", how);

	r = dev_resize(&d, n - 1, 8, 2);
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == EIO,
	      "%s: switch_prod before cons: EIO", how);
	r.switch_prod = n + 9;
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == EIO,
	      "%s: switch_prod beyond the old ring: EIO", how);
	r.switch_prod = n;
	r.flags = 0;
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == EIO,
	      "%s: an answer without RINGS: EIO", how);
	r.flags = VIRTIO_RDMA_RESIZE_CQ_RESP_RINGS;
	r.ring.size = 128;
	check(virtio_rdma_cq_ring_switch(&cq, d.fd, &r) == EIO &&
		      cq.size == 8 && !cq.old_ents,
	      "%s: a new ring larger than its mapping: EIO, the CQ as it was",
	      how);
	virtio_rdma_cq_ring_unmap(&cq);
	dev_ring_fini(&d);
}

int main(void)
{
	test_bad_desc();
	test_poll();
	test_poll_ex();
	test_resize(false);
	test_resize(true);
	return check_done();
}
