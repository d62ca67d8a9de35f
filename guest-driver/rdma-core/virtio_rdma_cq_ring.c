// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CQs on rings (rdma/virtio_rdma-abi.h, "Completion queue on rings"; the
 * spec's "Completion Queues on Rings"): the kernel allocated a ring of
 * CQEs and its record, which the device writes through the kernel
 * driver's own MR, and the provider maps both. CQE n is entry n % size,
 * there once the record's prod has passed n; the provider gives entries
 * back by writing cons, and arms the CQ itself in the record
 * (ROCE-DRV-RING-4). The ring is as deep as max_cqe says, far beyond a
 * virtqueue's 1024 slots.
 *
 * Ordering, against the device on other CPUs: prod before the entries it
 * covers (a load barrier); the reads of the entries before cons (a
 * release fence), so that the device does not overwrite an entry being
 * read; notify before prod is read again (a full fence, paired with the
 * device's between prod and its read of notify).
 *
 * ibv_resize_cq() moves the CQ to a new ring (the device's RESIZE_CQ):
 * CQEs before the switch the kernel reports are read from the old ring,
 * the later ones from the new; prod and cons count on across it.
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include <util/udma_barrier.h>

#include "virtio_rdma.h"

static uint32_t ring_load32(const __le32 *p)
{
	return le32toh(atomic_load_explicit((_Atomic(uint32_t) *)p,
					    memory_order_relaxed));
}

static void ring_store32(__le32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, htole32(v),
			      memory_order_relaxed);
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * What the kernel answered must describe a ring the provider can use: a
 * power-of-two size and stride, entries that hold a CQE, mappings that
 * hold what the indices reach. Checked once, here.
 */
static int ring_check(const struct virtio_rdma_cq_ring *r)
{
	if (!is_pow2(r->size) || !is_pow2(r->stride) ||
	    r->stride < sizeof(struct virtio_rdma_cq_req))
		return EINVAL;
	if ((uint64_t)r->ring_len < (uint64_t)r->size * r->stride)
		return EINVAL;
	if (r->rec_len < sizeof(struct virtio_rdma_cq_rec))
		return EINVAL;
	return 0;
}

int virtio_rdma_cq_ring_map(struct virtio_rdma_cq *cq, int cmd_fd,
			    const struct virtio_rdma_cq_ring *r)
{
	int ret;

	ret = ring_check(r);
	if (ret)
		return ret;
	cq->rec_len = r->rec_len;
	cq->rec = mmap(NULL, cq->rec_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       cmd_fd, r->rec_mmap);
	if (cq->rec == MAP_FAILED)
		return errno;
	cq->ents_len = r->ring_len;
	cq->ents = mmap(NULL, cq->ents_len, PROT_READ, MAP_SHARED, cmd_fd,
			r->ring_mmap);
	if (cq->ents == MAP_FAILED) {
		ret = errno;
		munmap(cq->rec, cq->rec_len);
		cq->rec = NULL;
		return ret;
	}
	cq->size = r->size;
	cq->stride = r->stride;
	/* A fresh CQ's record is zero; a CQ is never mapped twice. */
	cq->cons = ring_load32(&cq->rec->cons);
	cq->rings = true;
	pthread_spin_init(&cq->vq.lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

void virtio_rdma_cq_ring_unmap(struct virtio_rdma_cq *cq)
{
	if (cq->old_ents)
		munmap(cq->old_ents, cq->old_ents_len);
	munmap(cq->ents, cq->ents_len);
	munmap(cq->rec, cq->rec_len);
	pthread_spin_destroy(&cq->vq.lock);
}

/*
 * prod, then what the device wrote before it. More CQEs than the ring has
 * entries: the device broke its ring (EIO).
 */
static int ring_avail(struct virtio_rdma_cq *cq, uint32_t *prod)
{
	*prod = ring_load32(&cq->rec->prod);
	udma_from_device_barrier();
	return *prod - cq->cons > cq->size ? EIO : 0;
}

/* ROCE-DRV-RING-9: CQE n is in the old ring while n is before switch_prod. */
static const struct virtio_rdma_cq_req *ring_entry(struct virtio_rdma_cq *cq,
						   uint32_t n)
{
	if (cq->old_ents && (int32_t)(n - cq->switch_prod) < 0)
		return (const void *)(cq->old_ents +
				      (size_t)(n & (cq->old_size - 1)) *
					      cq->old_stride);
	return (const void *)(cq->ents +
			      (size_t)(n & (cq->size - 1)) * cq->stride);
}

static void old_ring_unmap(struct virtio_rdma_cq *cq)
{
	if (!cq->old_ents)
		return;
	munmap(cq->old_ents, cq->old_ents_len);
	cq->old_ents = NULL;
}

/*
 * The entries read so far go back to the device; an old ring goes once
 * every CQE in it is read (both poll paths end here, after their last
 * read of an entry).
 */
void virtio_rdma_cq_ring_publish(struct virtio_rdma_cq *cq)
{
	atomic_thread_fence(memory_order_release);
	ring_store32(&cq->rec->cons, cq->cons);
	if (cq->old_ents && (int32_t)(cq->cons - cq->switch_prod) >= 0)
		old_ring_unmap(cq);
}

/*
 * After the kernel's RESIZE_CQ succeeded (the CQ's lock held since before
 * the command: nothing was read meanwhile, ROCE-DRV-RING-9): the new ring
 * is mapped and the CQEs from switch_prod on are read there. The switch
 * lies between cons and the old ring's end; a kernel that says otherwise,
 * or describes a ring this provider cannot read, leaves the CQ unusable
 * (EIO), as a broken ring does.
 */
int virtio_rdma_cq_ring_switch(struct virtio_rdma_cq *cq, int cmd_fd,
			       const struct virtio_rdma_resize_cq_resp *r)
{
	struct virtio_rdma_cq_ring desc = r->ring;
	uint8_t *ents;

	desc.rec_len = sizeof(struct virtio_rdma_cq_rec);
	if (!(r->flags & VIRTIO_RDMA_RESIZE_CQ_RESP_RINGS) ||
	    ring_check(&desc) || (int32_t)(r->switch_prod - cq->cons) < 0 ||
	    r->switch_prod - cq->cons > cq->size || cq->old_ents)
		return EIO;
	ents = mmap(NULL, desc.ring_len, PROT_READ, MAP_SHARED, cmd_fd,
		    desc.ring_mmap);
	if (ents == MAP_FAILED)
		return errno;
	cq->old_ents = cq->ents;
	cq->old_ents_len = cq->ents_len;
	cq->old_size = cq->size;
	cq->old_stride = cq->stride;
	cq->switch_prod = r->switch_prod;
	cq->ents = ents;
	cq->ents_len = desc.ring_len;
	cq->size = desc.size;
	cq->stride = desc.stride;
	if (cq->cons == cq->switch_prod)
		old_ring_unmap(cq);
	return 0;
}

int virtio_rdma_cq_ring_poll(struct virtio_rdma_cq *cq, int ne,
			     struct ibv_wc *wc)
{
	uint32_t prod;
	int n = 0;

	pthread_spin_lock(&cq->vq.lock);
	if (ring_avail(cq, &prod)) {
		pthread_spin_unlock(&cq->vq.lock);
		return -1;
	}
	while (n < ne && cq->cons != prod) {
		virtio_rdma_cqe_to_wc(ring_entry(cq, cq->cons), &wc[n]);
		cq->cons++;
		n++;
	}
	if (n)
		virtio_rdma_cq_ring_publish(cq);
	pthread_spin_unlock(&cq->vq.lock);
	return n;
}

/* The next CQE becomes cq->cur (the extended CQ's start/next_poll). */
int virtio_rdma_cq_ring_take(struct virtio_rdma_cq *cq)
{
	uint32_t prod;

	if (ring_avail(cq, &prod))
		return EIO;
	if (prod == cq->cons)
		return ENOENT;
	cq->cur = ring_entry(cq, cq->cons);
	cq->cons++;
	return 0;
}

/*
 * ROCE-DRV-RING-4: the arm, a full fence, prod read again. The device
 * clears notify as it raises the event, which comes on the completion
 * channel through the kernel's event queue. CQEs that came before the
 * device saw the arm raise none: as with any verbs CQ, the consumer polls
 * after arming.
 */
int virtio_rdma_cq_ring_arm(struct virtio_rdma_cq *cq, int solicited_only)
{
	uint32_t prod;
	int ret;

	ring_store32(&cq->rec->notify,
		     solicited_only ? VIRTIO_IB_NOTIFY_SOLICITED
				    : VIRTIO_IB_NOTIFY_NEXT_COMPLETION);
	atomic_thread_fence(memory_order_seq_cst);
	pthread_spin_lock(&cq->vq.lock);
	ret = ring_avail(cq, &prod);
	pthread_spin_unlock(&cq->vq.lock);
	return ret;
}
