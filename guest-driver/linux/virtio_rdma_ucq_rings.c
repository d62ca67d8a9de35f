// SPDX-License-Identifier: GPL-2.0
/*
 * Processes' CQs on rings (<rdma/virtio_rdma-abi.h>, "Completion queue on
 * rings"): a provider that can drive a CQ ring asks for one in its
 * create_cq driver data; with the rings layout on, the CQ is then made as
 * a kernel one is (virtio_rdma_cq_rings.c: the driver allocates the ring
 * and the record and the device reaches them through the driver's own DMA
 * MR), and the process maps the two.
 *
 * Why the kernel allocates rather than pinning memory the process names:
 * the device then sees only pages the driver chose, through an MR no
 * process has a key of; a process can write its record and entries but
 * can never name other memory, nor another PD's MR, to the device. What it
 * writes there (cons, notify) only breaks its own CQ: the kernel never
 * reads a process's ring, and the device checks a ring's indices against
 * its size. A ring beyond one page allocation is an MR of the driver's
 * PD of its own (virtio_rdma_ring_mr.c), mapped from its vmalloc area.
 */
#include <rdma/uverbs_ioctl.h>

#include "virtio_rdma.h"

/*
 * The record's page and the ring's pages, each mapping holding the CQ
 * until it is gone, as a virtqueue CQ's do (virtio_rdma_uq_publish()).
 */
int virtio_rdma_ucq_rings_publish(struct virtio_rdma_cq_res *cq,
				  struct ib_ucontext *uctx,
				  void (*release)(struct kref *ref),
				  struct virtio_rdma_create_cq_resp *resp)
{
	struct virtio_rdma_cq_ring *r = &resp->ring;
	u64 off;
	int ret;

	ret = virtio_rdma_mmap_insert(uctx, &cq->ring.maps[VIRTIO_RDMA_MMAP_RING],
				      VIRTIO_RDMA_MMAP_RING,
				      virt_to_phys(cq->rrec), PAGE_SIZE,
				      &cq->ref, release, &off);
	if (ret)
		return ret;
	r->rec_mmap = off;
	/* A ring in an MR of its own is vmalloc'ed (virtio_rdma_ring_mr.c). */
	cq->ring.maps[VIRTIO_RDMA_MMAP_BUF].vaddr = cq->rmem.base;
	ret = virtio_rdma_mmap_insert(uctx, &cq->ring.maps[VIRTIO_RDMA_MMAP_BUF],
				      cq->rmem.big ? VIRTIO_RDMA_MMAP_VMALLOC :
						     VIRTIO_RDMA_MMAP_BUF,
				      cq->rmem.big ? 0 : cq->rmem.addr,
				      cq->rmem.len, &cq->ref, release, &off);
	if (ret)
		return ret;
	r->ring_mmap = off;
	r->rec_len = PAGE_SIZE;
	r->ring_len = cq->rmem.len;
	r->size = cq->rsize;
	r->stride = 1 << VIRTIO_RDMA_CQ_LOG_STRIDE;
	resp->flags |= VIRTIO_RDMA_CQ_RESP_RINGS;
	return 0;
}
