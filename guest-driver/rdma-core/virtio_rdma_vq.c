// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The virtqueues a process drives itself (rdma/virtio_rdma-abi.h): the
 * kernel built the descriptor table (descriptor i is slot i) and maps the
 * avail and used rings, the slots and the doorbell page; the provider only
 * chooses which slot the device takes next, and rings the doorbell.
 *
 * The device is a vhost-user backend on other CPUs sharing this memory, so
 * the ordering is virtio's: slots and ring entries before avail->idx (a
 * store barrier), avail->idx before reading the device's event index or
 * flags (a full fence), used->idx before the used element and its slot (a
 * load barrier).
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "virtio_rdma.h"

static uint16_t vq_load16(const __le16 *p)
{
	return le16toh(atomic_load_explicit((_Atomic(uint16_t) *)p,
					    memory_order_relaxed));
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * What the kernel answered must describe a ring the provider can use: a
 * power-of-two size (split virtqueue), slots large enough for a request,
 * and mappings that hold what the indices reach. Checked once, here.
 */
static int vq_check(const struct virtio_rdma_uring *uring, size_t min_stride,
		    bool doorbell, long page_size)
{
	uint64_t avail_end = 4 + 2 * (uint64_t)uring->num + 2;
	uint64_t used_end =
		(uint64_t)uring->used_off + 4 + 8 * (uint64_t)uring->num;

	if (!is_pow2(uring->num) || uring->stride < min_stride)
		return EINVAL;
	if ((uint64_t)uring->buf_len < (uint64_t)uring->num * uring->stride)
		return EINVAL;
	if (uring->used_off % 4 || uring->used_off < avail_end)
		return EINVAL;
	if (uring->flags & VIRTIO_RDMA_URING_EVENT_IDX)
		used_end += 2;
	if (uring->ring_len < used_end)
		return EINVAL;
	if (doorbell && (!(uring->flags & VIRTIO_RDMA_URING_DOORBELL) ||
			 uring->notify_off % 2 ||
			 uring->notify_off + 2 > (uint64_t)page_size))
		return EINVAL;
	return 0;
}

static void *vq_mmap(int cmd_fd, size_t len, uint64_t offset, int prot)
{
	return mmap(NULL, len, prot, MAP_SHARED, cmd_fd, offset);
}

int virtio_rdma_vq_map(struct virtio_rdma_vq *vq, int cmd_fd,
		       const struct virtio_rdma_uring *uring, size_t min_stride,
		       bool doorbell)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int ret;

	ret = vq_check(uring, min_stride, doorbell, page_size);
	if (ret)
		return ret;

	vq->ring_len = uring->ring_len;
	vq->ring = vq_mmap(cmd_fd, vq->ring_len, uring->ring_mmap,
			   PROT_READ | PROT_WRITE);
	if (vq->ring == MAP_FAILED)
		return errno;

	vq->buf_len = uring->buf_len;
	vq->buf = vq_mmap(cmd_fd, vq->buf_len, uring->buf_mmap,
			  PROT_READ | PROT_WRITE);
	if (vq->buf == MAP_FAILED) {
		ret = errno;
		goto err_unmap_ring;
	}

	vq->notify_page = NULL;
	vq->notify_len = 0;
	vq->doorbell = NULL;
	if (doorbell) {
		vq->notify_len = page_size;
		vq->notify_page = vq_mmap(cmd_fd, vq->notify_len,
					  uring->notify_mmap, PROT_WRITE);
		if (vq->notify_page == MAP_FAILED) {
			ret = errno;
			goto err_unmap_buf;
		}
		vq->doorbell = (__le16 *)((uint8_t *)vq->notify_page +
					  uring->notify_off);
	}

	vq->avail = vq->ring;
	vq->used = (struct vring_used *)((uint8_t *)vq->ring + uring->used_off);
	vq->avail_event = (__le16 *)&vq->used->ring[uring->num];
	vq->stride = uring->stride;
	vq->num = uring->num;
	vq->vq_index = uring->vq_index;
	vq->event_idx = uring->flags & VIRTIO_RDMA_URING_EVENT_IDX;
	vq->avail_idx = vq_load16(&vq->avail->idx);
	vq->last_used = vq_load16(&vq->used->idx);
	pthread_spin_init(&vq->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;

err_unmap_buf:
	munmap(vq->buf, vq->buf_len);
err_unmap_ring:
	munmap(vq->ring, vq->ring_len);
	return ret;
}

void virtio_rdma_vq_unmap(struct virtio_rdma_vq *vq)
{
	if (vq->notify_page)
		munmap(vq->notify_page, vq->notify_len);
	munmap(vq->buf, vq->buf_len);
	munmap(vq->ring, vq->ring_len);
	pthread_spin_destroy(&vq->lock);
}

/* Slot @id; the caller checked id < num. */
void *virtio_rdma_vq_slot(struct virtio_rdma_vq *vq, uint32_t id)
{
	return vq->buf + (size_t)id * vq->stride;
}

/* used->idx, and what the device wrote before it. */
uint16_t virtio_rdma_vq_used_idx(struct virtio_rdma_vq *vq)
{
	uint16_t idx = vq_load16(&vq->used->idx);

	udma_from_device_barrier();
	return idx;
}

static bool vq_full_now(struct virtio_rdma_vq *vq)
{
	if (vq->rings)
		return virtio_rdma_wq_ring_full_now(vq);
	if ((uint16_t)(vq->avail_idx - vq->last_used) < vq->max_wr)
		return false;
	vq->last_used = virtio_rdma_vq_used_idx(vq);
	return (uint16_t)(vq->avail_idx - vq->last_used) >= vq->max_wr;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * A send or receive queue is full when max_wr WRs are outstanding: made
 * available (or about to be) and not yet used.
 *
 * The device makes a WR's CQE used before the WR's own buffer
 * (ROCE-DEV-WR-5), so a consumer that polled the completion of a WR and
 * posts at once into the room it made (ib_atomic_lat and ib_read_lat with
 * one WR outstanding) can find that buffer not used yet. A full queue is
 * read again for up to VIRTIO_RDMA_FULL_WAIT_NS before the post fails.
 */
#define VIRTIO_RDMA_FULL_WAIT_NS 1000000

bool virtio_rdma_vq_full(struct virtio_rdma_vq *vq)
{
	uint64_t start;
	unsigned int i;

	if (!vq_full_now(vq))
		return false;
	start = now_ns();
	for (i = 1;; i++) {
		if (!vq_full_now(vq))
			return false;
		if (!(i % 64) && now_ns() - start > VIRTIO_RDMA_FULL_WAIT_NS)
			return true;
	}
}

/* The slot of the next WR: the n-th WR uses slot n % num. */
void *virtio_rdma_vq_next_slot(struct virtio_rdma_vq *vq)
{
	return virtio_rdma_vq_slot(vq, vq->avail_idx & (vq->num - 1));
}

/* Make the slot of virtio_rdma_vq_next_slot() the next available entry. */
void virtio_rdma_vq_push(struct virtio_rdma_vq *vq)
{
	uint16_t i = vq->avail_idx & (vq->num - 1);

	if (!vq->rings) /* a ring's entries are taken in order */
		vq->avail->ring[i] = htole16(i);
	vq->avail_idx++;
}

/* Completion queue: give slot @id back to the device. */
void virtio_rdma_vq_repost(struct virtio_rdma_vq *vq, uint16_t id)
{
	vq->avail->ring[vq->avail_idx & (vq->num - 1)] = htole16(id);
	vq->avail_idx++;
}

/*
 * avail->idx after the slots and ring entries it publishes. A release
 * store: it also orders the reads of CQE slots before the device may
 * write them again.
 */
void virtio_rdma_vq_publish(struct virtio_rdma_vq *vq)
{
	if (vq->rings) {
		virtio_rdma_wq_ring_publish(vq);
		return;
	}
	udma_to_device_barrier();
	atomic_store_explicit((_Atomic(uint16_t) *)&vq->avail->idx,
			      htole16((uint16_t)vq->avail_idx),
			      memory_order_release);
}

/*
 * The available buffer notification, as virtio says: with EVENT_IDX when
 * the device's avail_event lies in [old_idx, avail_idx), without it unless
 * the device set VRING_USED_F_NO_NOTIFY.
 */
void virtio_rdma_vq_notify(struct virtio_rdma_vq *vq, uint32_t old_idx)
{
	bool kick;

	if (vq->rings) {
		virtio_rdma_wq_ring_notify(vq, old_idx);
		return;
	}
	/* avail->idx must be visible before the device's hint is read. */
	atomic_thread_fence(memory_order_seq_cst);
	if (vq->event_idx)
		kick = vring_need_event(vq_load16(vq->avail_event),
					(uint16_t)vq->avail_idx,
					(uint16_t)old_idx);
	else
		kick = !(vq_load16(&vq->used->flags) & VRING_USED_F_NO_NOTIFY);
	if (kick)
		mmio_write16_le(vq->doorbell, htole16(vq->vq_index));
}
