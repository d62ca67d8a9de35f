/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rings in driver memory (issue 28): the queue source beside the split
 * virtqueue. CREATE checked the ring and record against their MR once (in
 * it, aligned, an entry never crossing a 4 KiB page); here each access
 * resolves the key again (vur_tp_mr_hva: the MR cannot go while the ring
 * holds it, but the memory table can change under a stopped engine) and
 * translates one entry at a time, and only indices are masked.
 *
 * Indices are free-running 32-bit counters. The driver's are loaded with
 * acquire (the entry it wrote before is then visible) and read once per
 * decision; ours are stored with release after the entries or CQEs they
 * publish (ROCE-DEV-RING-9, -11, -15). A driver index that claims
 * more than the ring holds lies: the ring is broken, and only its object
 * suffers (ROCE-DEV-RING-10).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>

#include "transport/tp.h"

#define REC_LEN 128u

void
vur_tp_drv_bind(struct vur_tp_ring *r, const struct vur_rdma_ring *ring,
		const struct vur_rdma_ring *rec, uint32_t prod_off, uint32_t cons_off)
{
	r->drv = true;
	memset(&r->dr, 0, sizeof(r->dr));
	r->dr.ring = *ring;
	r->dr.rec = *rec;
	r->dr.prod_off = prod_off;
	r->dr.cons_off = cons_off;
}

uint32_t *
vur_tp_drv_rec(struct vur_tp_dev *td, const struct vur_tp_drvring *d, uint32_t off)
{
	uint32_t len = REC_LEN;
	uint8_t *rec = vur_tp_mr_hva(td, d->rec.pdn, d->rec.lkey, VIRTIO_IB_ACCESS_LOCAL_WRITE,
			d->rec.addr, &len);

	/* 128-aligned in the MR: one page, so the whole record or nothing */
	if (rec == NULL || len != REC_LEN)
		return NULL;
	return (uint32_t *)(rec + off);
}

static bool
load_idx(struct vur_tp_dev *td, const struct vur_tp_drvring *d, uint32_t off, uint32_t *v)
{
	uint32_t *p = vur_tp_drv_rec(td, d, off);

	if (p == NULL)
		return false;
	*v = rte_le_to_cpu_32(__atomic_load_n(p, __ATOMIC_ACQUIRE));
	return true;
}

static bool
store_idx(struct vur_tp_dev *td, const struct vur_tp_drvring *d, uint32_t off, uint32_t v)
{
	uint32_t *p = vur_tp_drv_rec(td, d, off);

	if (p == NULL)
		return false;
	__atomic_store_n(p, rte_cpu_to_le_32(v), __ATOMIC_RELEASE);
	return true;
}

/* Host address of entry @i (one page: the stride divides the address). */
static void *
entry(struct vur_tp_dev *td, const struct vur_tp_drvring *d, uint32_t i, bool write)
{
	uint32_t stride = 1u << d->ring.log_stride, len = stride;
	uint64_t addr = d->ring.addr +
			((uint64_t)(i & ((1u << d->ring.log_size) - 1)) << d->ring.log_stride);
	void *p = vur_tp_mr_hva(td, d->ring.pdn, d->ring.lkey,
			write ? VIRTIO_IB_ACCESS_LOCAL_WRITE : 0, addr, &len);

	return p != NULL && len == stride ? p : NULL;
}

uint32_t
vur_tp_drv_avail(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	struct vur_tp_drvring *d = &r->dr;
	uint32_t prod, size = 1u << d->ring.log_size;

	if (!load_idx(td, d, d->prod_off, &prod))
		return 0;
	/* ROCE-DEV-RING-10: more than the ring holds beyond what we retired is a lie */
	if (prod - d->done > size || d->next - d->done > prod - d->done)
		return 0;
	return prod - d->next;
}

bool
vur_tp_drv_moved(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	uint32_t prod;

	return load_idx(td, &r->dr, r->dr.prod_off, &prod) && prod != r->dr.next;
}

enum vur_pop_result
vur_tp_drv_pop(struct vur_tp_dev *td, struct vur_tp_ring *r, struct vur_chain *c, const char **why)
{
	struct vur_tp_drvring *d = &r->dr;
	uint32_t prod, size = 1u << d->ring.log_size;
	void *p;

	if (!load_idx(td, d, d->prod_off, &prod)) {
		*why = "its record cannot be reached";
		return VUR_POP_BROKEN;
	}
	if (prod - d->done > size || d->next - d->done > prod - d->done) {
		*why = "the driver's index claims more than the ring holds";
		vur_tp_stats(td)->ring_broken++;
		return VUR_POP_BROKEN;
	}
	if (prod == d->next)
		return VUR_POP_EMPTY;
	p = entry(td, d, d->next, false);
	if (p == NULL) {
		*why = "an entry cannot be reached";
		return VUR_POP_BROKEN;
	}
	memset(c, 0, offsetof(struct vur_chain, iov));
	c->head = (uint16_t)(d->next & (size - 1));
	c->n_out = 1;
	c->out_len = 1u << d->ring.log_stride;
	c->iov[0].iov_base = p;
	c->iov[0].iov_len = c->out_len;
	d->next++;
	return VUR_POP_OK;
}

void
vur_tp_drv_retire(struct vur_tp_ring *r, uint16_t head)
{
	struct vur_tp_drvring *d = &r->dr;
	uint32_t mask = (1u << d->ring.log_size) - 1, i;

	if (d->srq_done == NULL) { /* a QP's own queue: in order (ROCE-DEV-WR-6) */
		d->done++;
		return;
	}
	/* an SRQ's WRs complete in any order: cons counts the ones before the first pending */
	d->srq_done[head / 64] |= 1ULL << (head % 64);
	for (i = d->done & mask; d->srq_done[i / 64] & (1ULL << (i % 64)); i = d->done & mask) {
		d->srq_done[i / 64] &= ~(1ULL << (i % 64));
		d->done++;
	}
}

bool
vur_tp_drv_cq_write(struct vur_tp_dev *td, struct vur_tp_ring *r,
		const struct virtio_rdma_cq_req *w, bool solicited)
{
	struct vur_tp_drvring *d = &r->dr;
	uint32_t cons, size = 1u << d->ring.log_size;
	void *p;

	/* ROCE-DEV-RING-15: room is prod - cons < size; cons beyond prod overruns too */
	if (!load_idx(td, d, d->prod_off, &cons) || d->next - cons >= size)
		return false;
	p = entry(td, d, d->next, true);
	if (p == NULL)
		return false;
	memcpy(p, w, sizeof(*w));
	d->next++;
	d->cq_any = true;
	d->cq_sol |= solicited;
	return true;
}

/*
 * ROCE-DEV-RING-23, -24, -25: CQEs before the switch stay where they are
 * (written, perhaps not yet published: the pass publishes them as any), the
 * next one goes to the new ring, and the room test uses its size from now
 * on, counting the CQEs the driver has still to read in the old one. A
 * cons beyond what we wrote claims more than written: refused as well.
 */
int
vur_tp_drv_cq_resize(struct vur_tp_dev *td, struct vur_tp_ring *r, const struct vur_rdma_ring *ring,
		uint32_t cqe, uint32_t *switch_prod)
{
	struct vur_tp_drvring *d = &r->dr;
	uint32_t cons;

	if (!load_idx(td, d, d->prod_off, &cons))
		return -EFAULT;
	if (d->next - cons > cqe) {
		VUR_TP_LOG(td, NOTICE, "RESIZE_CQ: %u CQEs not consumed, the new size is %u",
				d->next - cons, cqe);
		return -EINVAL;
	}
	d->ring = *ring;
	*switch_prod = d->next;
	return 0;
}

/*
 * ROCE-DEV-RING-16: prod published, a full barrier, then the armed
 * condition read once; a compare-and-swap to 0 from the value read makes
 * the one event per arm (the driver's re-arm meanwhile is left alone).
 */
static void
cq_notify(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	struct vur_tp_drvring *d = &r->dr;
	struct vur_tp_cq *tc = container_of(r, struct vur_tp_cq, ring);
	uint32_t *notify = vur_tp_drv_rec(td, d, offsetof(struct virtio_rdma_cq_rec, notify));
	uint32_t n, armed;

	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (notify == NULL)
		return;
	n = __atomic_load_n(notify, __ATOMIC_RELAXED);
	armed = rte_le_to_cpu_32(n);
	if (!((armed & VIRTIO_IB_NOTIFY_NEXT_COMPLETION) ||
			    ((armed & VIRTIO_IB_NOTIFY_SOLICITED) && d->cq_sol)))
		return;
	if (__atomic_compare_exchange_n(notify, &n, 0, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		vur_tp_event_post(td, tc->eq, &tc->ev_comp);
}

void
vur_tp_drv_publish(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	struct vur_tp_drvring *d = &r->dr;

	if (r->is_cq) {
		if (d->next != d->published && store_idx(td, d, d->cons_off, d->next))
			d->published = d->next;
		if (d->cq_any)
			cq_notify(td, r);
		d->cq_any = d->cq_sol = false;
		return;
	}
	if (d->done != d->published && store_idx(td, d, d->cons_off, d->done))
		d->published = d->done;
}

/*
 * ROCE-DEV-RING-22: the receive ring of a QP in ERR is not watched, so
 * the driver rings after a post while rq_notify is non-zero; set before
 * rq_prod is read (its fence pairs with the driver's after rq_prod).
 * Written on each flush: cheap, and a RESET cleared it (ROCE-DEV-RING-8).
 */
void
vur_tp_drv_rq_notify(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	uint32_t *p = vur_tp_drv_rec(td, &r->dr, offsetof(struct virtio_rdma_qp_rec, rq_notify));

	if (p != NULL)
		__atomic_store_n(p, rte_cpu_to_le_32(1), __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void
vur_tp_drv_reset(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	uint32_t *dev_half = vur_tp_drv_rec(td, &r->dr, REC_LEN / 2);

	r->dr.next = r->dr.done = r->dr.published = 0;
	if (r->dr.srq_done != NULL)
		memset(r->dr.srq_done, 0, ((1u << r->dr.ring.log_size) + 63) / 64 * 8);
	/* ROCE-DEV-RING-8: sq_cons, rq_cons, sq_event, rq_notify 0 (the driver zeroes its own) */
	for (unsigned int i = 0; dev_half != NULL && i < REC_LEN / 8; i++)
		__atomic_store_n(&dev_half[i], 0, __ATOMIC_RELEASE);
}
