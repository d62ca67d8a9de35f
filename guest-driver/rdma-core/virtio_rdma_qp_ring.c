// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * QPs on rings (rdma/virtio_rdma-abi.h, "Queue pair on rings"; the spec's
 * "Queue Pairs on Rings"): the kernel allocated the send and receive rings
 * and the record, in memory the device reaches through an MR of the QP's
 * PD that no process has a key of, and the provider maps them. A WR is
 * written into entry n % size as the same request a virtqueue slot holds
 * (struct virtio_rdma_sq_req or virtio_rdma_rq_req with its s/g list), so
 * post_send, post_recv and the ibv_wr_* API are the virtqueue ones; only
 * the indices differ (virtio_rdma_vq.c calls in here for a queue on rings).
 *
 * The doorbell: the provider writes the entries, then sq_prod or rq_prod
 * (ROCE-DRV-RING-2), then applies ROCE-DRV-RING-3 or -7's rule itself.
 * Only when the rule says to ring does it ask the kernel, with a uverbs
 * POST_SEND or POST_RECV command of no WR, and the kernel sets the QP's
 * bit in the doorbell summary and notifies. The summary is never mapped
 * into a process: one word holds 64 QPs' bits, and a plain store would
 * erase other processes' and the kernel's. While the device serves a busy
 * QP (sq_event not passed), posting costs no system call.
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <util/udma_barrier.h>

#include "virtio_rdma.h"

static uint32_t ring_load32(const __le32 *p)
{
	return le32toh(atomic_load_explicit((_Atomic(uint32_t) *)p,
					    memory_order_relaxed));
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * ROCE-DRV-RING-3 (send: the device's sq_event, as virtio's used_event)
 * and -7 (receive: rq_notify non-zero while the QP is in ERR): whether
 * the producer index moving from @old_idx to @new_idx wants a doorbell.
 */
bool virtio_rdma_wq_ring_rule(uint32_t new_idx, uint32_t old_idx,
			      uint32_t event, bool send)
{
	if (!send)
		return event != 0;
	return new_idx - event - 1 < new_idx - old_idx;
}

/*
 * The device's consumer index, read again when the cached one says full.
 * An index beyond prod (a device that lies) leaves the queue full.
 */
bool virtio_rdma_wq_ring_full_now(struct virtio_rdma_vq *vq)
{
	/*
	 * A send ring: max_send_wr (sq_cons moves before the WR's CQE). A
	 * receive ring: its size, which the kernel made up to twice
	 * max_recv_wr, since rq_cons and an SRQ's cons move only after the
	 * CQE (ROCE-DEV-RING-11): a consumer that reposts as it polls would
	 * otherwise find its entries not given back yet.
	 */
	uint32_t lim = vq->send ? vq->max_wr : vq->num;

	if (vq->avail_idx - vq->ring_cons < lim)
		return false;
	vq->ring_cons = ring_load32(vq->cons);
	/* The device has finished reading the entries it passed. */
	udma_from_device_barrier();
	return vq->avail_idx - vq->ring_cons >= lim;
}

/* The entries before the index that covers them (ROCE-DRV-RING-2). */
void virtio_rdma_wq_ring_publish(struct virtio_rdma_vq *vq)
{
	udma_to_device_barrier();
	atomic_store_explicit((_Atomic(uint32_t) *)vq->prod,
			      htole32(vq->avail_idx), memory_order_release);
}

void virtio_rdma_wq_ring_notify(struct virtio_rdma_vq *vq, uint32_t old)
{
	/* The index before the device's word (pairs with its full barrier). */
	atomic_thread_fence(memory_order_seq_cst);
	if (!virtio_rdma_wq_ring_rule(vq->avail_idx, old,
				      ring_load32(vq->event), vq->send))
		return;
	virtio_rdma_wq_ring_doorbell(vq);
}

/* The area at mmap offset @w->mmap, mapped once however many name it. */
static uint8_t *qp_area(struct virtio_rdma_qp *qp, int cmd_fd,
			const struct virtio_rdma_wq_ring *w)
{
	unsigned int i;
	void *p;

	for (i = 0; i < qp->nareas; i++)
		if (qp->area[i].mmap == w->mmap)
			return qp->area[i].len == w->len ? qp->area[i].addr
							 : NULL;
	if (qp->nareas == 3)
		return NULL;
	p = mmap(NULL, w->len, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		 w->mmap);
	if (p == MAP_FAILED)
		return NULL;
	qp->area[qp->nareas].addr = p;
	qp->area[qp->nareas].len = w->len;
	qp->area[qp->nareas].mmap = w->mmap;
	qp->nareas++;
	return p;
}

/*
 * What the kernel answered must describe rings the provider can use:
 * power-of-two sizes and strides, entries that hold a request of the QP's
 * s/g lists, rings and the record inside their areas. Checked once, here.
 */
static int ring_check(const struct virtio_rdma_wq_ring *w, uint32_t max_wr,
		      size_t entry, bool none)
{
	if (none)
		return w->size ? EINVAL : 0;
	if (!is_pow2(w->size) || !is_pow2(w->stride) || w->stride < entry ||
	    w->size < max_wr || w->off % w->stride)
		return EINVAL;
	if ((uint64_t)w->off + (uint64_t)w->size * w->stride > w->len)
		return EINVAL;
	return 0;
}

static void wq_init(struct virtio_rdma_vq *vq, struct virtio_rdma_qp *qp,
		    uint8_t *area, const struct virtio_rdma_wq_ring *w,
		    bool send)
{
	struct virtio_rdma_qp_rec *rec = qp->rec;

	vq->rings = true;
	vq->send = send;
	vq->buf = area + w->off;
	vq->stride = w->stride;
	vq->num = w->size;
	vq->prod = send ? &rec->sq_prod : &rec->rq_prod;
	vq->cons = send ? &rec->sq_cons : &rec->rq_cons;
	vq->event = send ? &rec->sq_event : &rec->rq_notify;
	vq->db_qp = &qp->ibv_qp;
	/* A fresh QP's record is zero (ROCE-DRV-RING-5, ROCE-DEV-RING-8). */
	vq->avail_idx = 0;
	vq->ring_cons = 0;
	pthread_spin_init(&vq->lock, PTHREAD_PROCESS_PRIVATE);
}

/* @sq_entry, @rq_entry: the bytes of a request with the QP's s/g lists. */
int virtio_rdma_qp_ring_map(struct virtio_rdma_qp *qp, int cmd_fd,
			    const struct ibv_qp_cap *cap,
			    const struct virtio_rdma_create_qp_resp *drv,
			    size_t sq_entry, size_t rq_entry)
{
	uint8_t *sa, *ra, *rec;
	int ret;

	/* A ring of at most 32768 entries: num is 16 bits. */
	if (drv->rsq.size > UINT16_MAX || drv->rrq.size > UINT16_MAX)
		return EINVAL;
	ret = ring_check(&drv->rsq, cap->max_send_wr, sq_entry, false);
	if (!ret)
		ret = ring_check(&drv->rrq, cap->max_recv_wr, rq_entry,
				 !qp->has_rq);
	if (ret)
		return ret;
	if (drv->rec.off % 128 ||
	    (uint64_t)drv->rec.off + sizeof(struct virtio_rdma_qp_rec) >
		    drv->rec.len)
		return EINVAL;

	qp->rings = true;
	sa = qp_area(qp, cmd_fd, &drv->rsq);
	ra = qp->has_rq ? qp_area(qp, cmd_fd, &drv->rrq) : sa;
	rec = qp_area(qp, cmd_fd, &drv->rec);
	if (!sa || !ra || !rec) {
		ret = errno ? errno : EINVAL;
		virtio_rdma_qp_ring_unmap(qp);
		return ret;
	}
	qp->rec = (struct virtio_rdma_qp_rec *)(rec + drv->rec.off);
	wq_init(&qp->sq, qp, sa, &drv->rsq, true);
	if (qp->has_rq)
		wq_init(&qp->rq, qp, ra, &drv->rrq, false);
	return 0;
}

/*
 * An SRQ on rings: entries and record in one area. WR n is entry n %
 * size; prod after the entries; cons, which the device moves after each
 * WR's CQE, frees entries. No doorbell: the device takes an SRQ's WRs as
 * messages come. The limit is the kernel's (ibv_modify_srq).
 */
int virtio_rdma_srq_ring_map(struct virtio_rdma_srq *srq, int cmd_fd,
			     uint32_t max_wr, size_t entry,
			     const struct virtio_rdma_create_srq_resp *drv)
{
	struct virtio_rdma_vq *vq = &srq->vq;
	struct virtio_rdma_srq_rec *rec;
	int ret;

	if (drv->ring.size > UINT16_MAX || drv->rec.mmap != drv->ring.mmap ||
	    drv->rec.len != drv->ring.len || drv->rec.off % 128 ||
	    (uint64_t)drv->rec.off + sizeof(*rec) > drv->rec.len)
		return EINVAL;
	ret = ring_check(&drv->ring, max_wr, entry, false);
	if (ret)
		return ret;
	srq->area = mmap(NULL, drv->ring.len, PROT_READ | PROT_WRITE,
			 MAP_SHARED, cmd_fd, drv->ring.mmap);
	if (srq->area == MAP_FAILED) {
		srq->area = NULL;
		return errno;
	}
	srq->area_len = drv->ring.len;
	rec = (struct virtio_rdma_srq_rec *)((uint8_t *)srq->area +
					     drv->rec.off);
	vq->rings = true;
	vq->buf = (uint8_t *)srq->area + drv->ring.off;
	vq->stride = drv->ring.stride;
	vq->num = drv->ring.size;
	vq->prod = &rec->prod;
	vq->cons = &rec->cons;
	/* A fresh SRQ's record is zero (ROCE-DRV-RING-5, ROCE-DEV-RING-8). */
	vq->avail_idx = 0;
	vq->ring_cons = 0;
	pthread_spin_init(&vq->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

void virtio_rdma_qp_ring_unmap(struct virtio_rdma_qp *qp)
{
	unsigned int i;

	for (i = 0; i < qp->nareas; i++)
		munmap(qp->area[i].addr, qp->area[i].len);
	qp->nareas = 0;
	qp->rec = NULL;
}

/*
 * After a modify to RESET: the device dropped every WR and zeroed its
 * half of the record (ROCE-DEV-RING-8); the provider starts from 0 too
 * and writes its producer indices 0 (ROCE-DRV-RING-5).
 */
void virtio_rdma_qp_ring_reset(struct virtio_rdma_qp *qp)
{
	struct virtio_rdma_vq *q[2] = { &qp->sq, &qp->rq };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!q[i]->rings)
			continue;
		pthread_spin_lock(&q[i]->lock);
		q[i]->avail_idx = 0;
		q[i]->ring_cons = 0;
		atomic_store_explicit((_Atomic(uint32_t) *)q[i]->prod, 0,
				      memory_order_release);
		pthread_spin_unlock(&q[i]->lock);
	}
}
