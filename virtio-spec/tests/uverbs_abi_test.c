/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uverbs ABI of the guest driver and its provider: the sizes and offsets
 * both sides rely on, written here independently of the header, so that a
 * field added in the wrong place (or a 32-bit hole) fails the build's tests.
 */
#include <stddef.h>
#include <stdio.h>

#include <rdma/virtio_rdma-abi.h>

static int failures;

static void
expect(const char *what, size_t got, size_t want)
{
	if (got != want) {
		fprintf(stderr, "%s: %zu, want %zu\n", what, got, want);
		failures++;
	}
}

#define SIZE(type, n)   expect("sizeof(struct " #type ")", sizeof(struct type), n)
#define OFF(type, f, n) expect(#type "." #f, offsetof(struct type, f), n)

int
main(void)
{
	SIZE(virtio_rdma_uring, 56);
	OFF(virtio_rdma_uring, ring_len, 24);
	OFF(virtio_rdma_uring, stride, 40);
	OFF(virtio_rdma_uring, num, 44);
	OFF(virtio_rdma_uring, vq_index, 46);
	OFF(virtio_rdma_uring, flags, 48);
	SIZE(virtio_rdma_alloc_pd_resp, 8);
	SIZE(virtio_rdma_create_cq_cmd, 8);
	SIZE(virtio_rdma_cq_ring, 32);
	OFF(virtio_rdma_cq_ring, ring_mmap, 8);
	OFF(virtio_rdma_cq_ring, rec_len, 16);
	OFF(virtio_rdma_cq_ring, size, 24);
	OFF(virtio_rdma_cq_ring, stride, 28);
	/* ring appended: an older provider reads the first 64 bytes as before */
	SIZE(virtio_rdma_create_cq_resp, 96);
	OFF(virtio_rdma_create_cq_resp, flags, 4);
	OFF(virtio_rdma_create_cq_resp, cq, 8);
	OFF(virtio_rdma_create_cq_resp, ring, 64);
	SIZE(virtio_rdma_resize_cq_cmd, 8);
	SIZE(virtio_rdma_resize_cq_resp, 40);
	OFF(virtio_rdma_resize_cq_resp, switch_prod, 4);
	OFF(virtio_rdma_resize_cq_resp, ring, 8);
	SIZE(virtio_rdma_create_qp_cmd, 8);
	SIZE(virtio_rdma_wq_ring, 24);
	OFF(virtio_rdma_wq_ring, len, 8);
	OFF(virtio_rdma_wq_ring, off, 12);
	OFF(virtio_rdma_wq_ring, size, 16);
	OFF(virtio_rdma_wq_ring, stride, 20);
	/* rsq, rrq, rec appended: an older provider reads 120 bytes as before */
	SIZE(virtio_rdma_create_qp_resp, 192);
	OFF(virtio_rdma_create_qp_resp, flags, 4);
	OFF(virtio_rdma_create_qp_resp, sq, 8);
	OFF(virtio_rdma_create_qp_resp, rq, 64);
	OFF(virtio_rdma_create_qp_resp, rsq, 120);
	OFF(virtio_rdma_create_qp_resp, rrq, 144);
	OFF(virtio_rdma_create_qp_resp, rec, 168);
	SIZE(virtio_rdma_create_srq_cmd, 8);
	/* ring, rec appended to the 64 bytes an older provider reads */
	SIZE(virtio_rdma_create_srq_resp, 112);
	OFF(virtio_rdma_create_srq_resp, flags, 4);
	OFF(virtio_rdma_create_srq_resp, rq, 8);
	OFF(virtio_rdma_create_srq_resp, ring, 64);
	OFF(virtio_rdma_create_srq_resp, rec, 88);
	SIZE(virtio_rdma_create_ah_resp, 8);
	return failures != 0;
}
