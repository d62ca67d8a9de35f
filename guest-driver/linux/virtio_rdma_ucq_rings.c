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
 *
 * A resize gives the CQ a new ring, mapped as the first one; the process
 * follows it (VIRTIO_RDMA_RESIZE_CQ_RINGS) and reads the CQEs before
 * switch_prod from the old ring, which the kernel never reads. The first
 * ring stays with the CQ (its mapping holds the CQ, as the record's does);
 * a later one lives while the CQ is on it or a process maps it (struct
 * virtio_rdma_cq_uring), so repeated resizes keep at most two rings.
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

/* The mapping of a resized ring, which holds it (not the CQ). */
static int ucq_uring_publish(struct ib_ucontext *uctx,
			     struct virtio_rdma_cq_uring *u,
			     struct virtio_rdma_cq_ring *r)
{
	u64 off;
	int ret;

	u->map.vaddr = u->mem.base;
	ret = virtio_rdma_mmap_insert(uctx, &u->map,
				      u->mem.big ? VIRTIO_RDMA_MMAP_VMALLOC :
						   VIRTIO_RDMA_MMAP_BUF,
				      u->mem.big ? 0 : u->mem.addr,
				      u->mem.len, &u->ref,
				      virtio_rdma_cq_uring_release, &off);
	if (ret)
		return ret;
	r->ring_mmap = off;
	r->ring_len = u->mem.len;
	r->size = u->size;
	r->stride = 1 << VIRTIO_RDMA_CQ_LOG_STRIDE;
	return 0;
}

static void ucq_uring_unpublish(struct virtio_rdma_cq_uring *u)
{
	if (!u->map.inserted)
		return;
	u->map.inserted = false;
	rdma_user_mmap_entry_remove(&u->map.rdma);
}

/* The verbs CQ is gone: no new mapping of its current ring. */
void virtio_rdma_ucq_rings_unpublish(struct virtio_rdma_cq_res *cq)
{
	if (cq->ucur)
		ucq_uring_unpublish(cq->ucur);
}

/*
 * A process's CQ: its provider follows (VIRTIO_RDMA_RESIZE_CQ_RINGS) and
 * keeps ROCE-DRV-RING-8 and -9 itself (cons written, no poll while it
 * waits for this call). The new ring is offered for mapping before the
 * command, so that a switch always reaches the process, and withdrawn if
 * the device refuses. The old ring, no longer written, goes with its last
 * mapping (the first ring: with the CQ).
 */
int virtio_rdma_ucq_rings_resize(struct virtio_rdma_cq_res *cq, u32 cqe,
				 struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = cq->dev;
	struct virtio_rdma_resize_cq_resp resp = {};
	struct virtio_rdma_cq_uring *u, *old = NULL;
	struct virtio_rdma_ucontext *uctx;
	bool lost = false;
	u32 sp = 0;
	int ret;

	ret = virtio_rdma_urings_wanted(dev, udata, VIRTIO_RDMA_RESIZE_CQ_RINGS);
	if (ret <= 0)	/* a provider that cannot follow a new ring */
		return ret ? ret : -EOPNOTSUPP;
	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	ret = virtio_rdma_cq_rings_resize_check(cq, cqe);
	if (ret)
		return ret;
	u = virtio_rdma_cq_uring_alloc(dev, cqe);
	if (IS_ERR(u))
		return PTR_ERR(u);
	uctx = rdma_udata_to_drv_context(udata, struct virtio_rdma_ucontext,
					 ibuc);
	ret = ucq_uring_publish(&uctx->ibuc, u, &resp.ring);
	if (ret) {
		ucq_uring_unpublish(u);
		virtio_rdma_cq_uring_put(u);
		return ret;
	}

	mutex_lock(&dev->res_lock);
	if (cq->resize_lost) {
		ret = -EIO;
	} else {
		ret = virtio_rdma_cq_rings_resize_cmd(cq, cqe, u, &sp);
		lost = virtio_rdma_cmd_lost(ret);
	}
	if (!ret) {
		old = cq->ucur;
		cq->ucur = u;
	} else if (lost) {
		WRITE_ONCE(cq->resize_lost, true);
	}
	mutex_unlock(&dev->res_lock);
	if (ret) {
		ucq_uring_unpublish(u);
		if (lost) {
			virtio_rdma_cq_uring_lost(cq, u, ret);
			return -EIO;
		}
		virtio_rdma_cq_uring_put(u);
		return ret;
	}
	if (old) {
		ucq_uring_unpublish(old);
		virtio_rdma_cq_uring_put(old);
	}
	resp.flags = VIRTIO_RDMA_RESIZE_CQ_RESP_RINGS;
	resp.switch_prod = sp;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}
