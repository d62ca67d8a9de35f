// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel QPs and SRQs on rings (spec "Queue Pairs on Rings", "Shared
 * Receive Queues on Rings"): with the rings layout on, every QP and SRQ of
 * a kernel consumer (ib_mad's GSI QP included) keeps its WRs in rings of
 * zeroed memory of the driver's (virtio_rdma_ring_mr.c): physically
 * contiguous pages read by the device through the consumer PD's DMA MR
 * (ib_alloc_pd()'s, pd->local_dma_lkey: a ring's MR must be of its
 * object's PD) at guest-physical addresses, or beyond one such allocation
 * (4 MiB: 4096 send WRs at 16 s/g elements) an MR of that PD of its own,
 * up to 32 MiB (32768 such WRs). Its 128-byte record is a kmalloc() block
 * of its own (a power of two: naturally aligned), in the DMA MR. An entry
 * is the request of the virtqueue layout and its s/g list, at a
 * power-of-two stride so that none crosses a page.
 *
 * Posting (ROCE-DRV-RING-2, -3, -7): the entries, a write barrier, the
 * producer index; then a full barrier and the device's sq_event (send) or
 * rq_notify (receive, a QP in ERR) say whether to ring the doorbell
 * (virtio_rdma_doorbell_ring). An entry is reused only once the device's
 * consumer index has passed it; a receive entry, also once its completion
 * is polled (poll_cq reads its first s/g element for the GRH's type).
 *
 * Processes' QPs and SRQs stay on virtqueues: their provider maps them.
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "virtio_rdma.h"

#define REC_BYTES	128

/*
 * A consumer that polled a completion and posts at once into the room it
 * made can find the device's consumer index not advanced yet (a receive
 * entry's index moves after its CQE, ROCE-DEV-RING-11): as for a full send
 * virtqueue (virtio_rdma_kverbs.c), read again for up to this long.
 */
#define RING_FULL_WAIT_US	1000

static_assert(sizeof(struct virtio_rdma_qp_rec) == REC_BYTES);
static_assert(sizeof(struct virtio_rdma_srq_rec) == REC_BYTES);

/* The most WRs a kernel ring of @entry bytes per WR holds; 0 if none. */
u32 virtio_rdma_rings_max_wr(struct virtio_rdma_dev *dev, u32 entry)
{
	u8 log_stride = virtio_rdma_ring_log_stride(entry);

	if (!dev->rings.on || log_stride > VIRTIO_RDMA_RING_MAX_LOG_STRIDE)
		return 0;
	return min_t(u32, rounddown_pow_of_two(dev->rings.max_ring_wr),
		     virtio_rdma_ring_mem_max() >> log_stride);
}

/* max_qp_wr of kernel QPs: both rings at the device's s/g limits. */
u32 virtio_rdma_qp_rings_max_wr(struct virtio_rdma_dev *dev)
{
	const struct virtio_rdma_ack_query_device *a = &dev->attr;

	return min(virtio_rdma_rings_max_wr(dev,
					    VIRTIO_RDMA_SQ_ENTRY(le32_to_cpu(a->max_send_sge))),
		   virtio_rdma_rings_max_wr(dev,
					    VIRTIO_RDMA_RQ_ENTRY(le32_to_cpu(a->max_recv_sge))));
}

u32 virtio_rdma_srq_rings_max_wr(struct virtio_rdma_dev *dev)
{
	return virtio_rdma_rings_max_wr(dev,
					VIRTIO_RDMA_RQ_ENTRY(le32_to_cpu(dev->attr.max_srq_sge)));
}

/* A ring of @wr entries of @entry bytes in PD @pd (DMA MR @lkey). */
static int kring_alloc(struct virtio_rdma_dev *dev, struct virtio_rdma_kring *r,
		       u32 wr, size_t entry, struct virtio_rdma_pd_res *pd,
		       u32 lkey)
{
	memset(r, 0, sizeof(*r));
	r->size = roundup_pow_of_two(max(wr, 1u));
	r->log_stride = virtio_rdma_ring_log_stride(entry);
	if (r->log_stride > VIRTIO_RDMA_RING_MAX_LOG_STRIDE ||
	    ((size_t)r->size << r->log_stride) > virtio_rdma_ring_mem_max())
		return -EINVAL;
	return virtio_rdma_ring_mem_alloc(dev, &r->mem,
					  (size_t)r->size << r->log_stride,
					  pd->pdn, lkey);
}

static void kring_to_wire(const struct virtio_rdma_kring *r,
			  struct virtio_rdma_ring *w)
{
	w->addr = cpu_to_le64(r->mem.addr);
	w->lkey = cpu_to_le32(r->mem.lkey);
	w->log_size = ilog2(r->size);
	w->log_stride = r->log_stride;
}

static void rec_to_wire(void *rec, u32 lkey,
			struct virtio_rdma_rec_ref *w)
{
	w->addr = cpu_to_le64(virt_to_phys(rec));
	w->lkey = cpu_to_le32(lkey);
}

static void *kring_entry(const struct virtio_rdma_kring *r, u32 i)
{
	return r->mem.base + ((size_t)(i & (r->size - 1)) << r->log_stride);
}

/*
 * Whether entry @r->prod is free for a queue of @max_wr: the device's
 * consumer index read again when the cached one says full. It is read
 * with acquire: the device has finished reading an entry it passed. An
 * index beyond prod (a broken device) leaves the queue full.
 */
static bool kring_room_now(struct virtio_rdma_kring *r, const __le32 *cons,
			   u32 max_wr)
{
	if (r->prod - r->cons < max_wr)
		return true;
	r->cons = le32_to_cpu(virt_load_acquire(cons));
	return r->prod - r->cons < max_wr;
}

static bool kring_room(struct virtio_rdma_kring *r, const __le32 *cons,
		       u32 max_wr)
{
	unsigned int us;

	for (us = 0; us < RING_FULL_WAIT_US; us++) {
		if (kring_room_now(r, cons, max_wr))
			return true;
		udelay(1);
	}
	return kring_room_now(r, cons, max_wr);
}

/* The entries before the index that covers them (ROCE-DRV-RING-2). */
static void kring_publish(struct virtio_rdma_kring *r, __le32 *prod)
{
	virt_wmb();
	WRITE_ONCE(*prod, cpu_to_le32(r->prod));
}

static void recv_to_wire(const struct ib_recv_wr *wr,
			 struct virtio_rdma_rq_req *req)
{
	memset(req, 0, sizeof(*req));
	req->wr_id = cpu_to_le64(wr->wr_id);
	req->num_sge = cpu_to_le32(wr->num_sge);
	virtio_rdma_sg_list(req->sg_list, wr->sg_list, wr->num_sge);
}

/* The table entry of QP or SRQ number @n, or NULL for no such number. */
struct virtio_rdma_qp_res **virtio_rdma_qp_slot(struct virtio_rdma_dev *dev,
					       u32 qpn)
{
	struct virtio_rdma_rings *r = &dev->rings;

	if (qpn < dev->max_rdma_qps)
		return &dev->qps[qpn];
	if (r->qps && qpn - dev->max_rdma_qps < r->max_ring_qp)
		return &r->qps[qpn - dev->max_rdma_qps];
	return NULL;
}

struct virtio_rdma_srq_res **virtio_rdma_srq_slot(struct virtio_rdma_dev *dev,
						 u32 srqn)
{
	struct virtio_rdma_rings *r = &dev->rings;

	if (srqn < dev->max_rdma_qps)
		return &dev->srqs[srqn];
	if (r->srqs && srqn - dev->max_rdma_qps < r->max_ring_qp)
		return &r->srqs[srqn - dev->max_rdma_qps];
	return NULL;
}

/*
 * ROCE-DEV-RING-6: a ring number (GSI: 1) that no live QP or SRQ of the
 * driver's has. Under dev->res_lock, which every create and the release
 * of the table entries hold.
 */
bool virtio_rdma_ring_number_ok(struct virtio_rdma_dev *dev, u32 n, bool gsi)
{
	struct virtio_rdma_qp_res **q;
	struct virtio_rdma_srq_res **s;

	if (gsi ? n != 1 : n < dev->max_rdma_qps)
		return false;
	q = virtio_rdma_qp_slot(dev, n);
	s = virtio_rdma_srq_slot(dev, n);
	return q && s && !READ_ONCE(*q) && !READ_ONCE(*s);
}

/*
 * The destroy of an object on rings whose number the driver refused
 * (ROCE-DEV-RING-6): -EPROTO, or the destroy's error when it got no
 * answer, since the device may then keep using the object's rings.
 */
int virtio_rdma_ring_destroy_refused(struct virtio_rdma_dev *dev, u8 destroy,
				     const void *cmd, size_t len)
{
	int ret = virtio_rdma_roce_cmd(dev, destroy, cmd, len, NULL, 0);

	return virtio_rdma_cmd_lost(ret) ? ret : -EPROTO;
}

void virtio_rdma_qp_rings_free(struct virtio_rdma_qp_res *qp)
{
	virtio_rdma_ring_mem_free(qp->dev, &qp->rsq.mem);
	virtio_rdma_ring_mem_free(qp->dev, &qp->rrq.mem);
	kfree(qp->rec);
	qp->rec = NULL;
}

/*
 * CREATE_QP with VIRTIO_RDMA_QP_F_RINGS, the rings in @lkey (the QP's PD's
 * DMA MR). The caller enters the QP in the table.
 */
int virtio_rdma_qp_rings_create(struct virtio_rdma_dev *dev,
				struct virtio_rdma_qp_res *qp,
				const struct virtio_rdma_cmd_create_qp *cmd,
				const struct ib_qp_cap *cap, u32 lkey)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_cmd_create_qp_rings c = { .qp = *cmd };
	struct virtio_rdma_cmd_destroy_qp dcmd;
	struct virtio_rdma_ack_create_qp ack;
	int ret;

	c.qp.flags |= VIRTIO_RDMA_QP_F_RINGS;
	ret = kring_alloc(dev, &qp->rsq, cap->max_send_wr,
			  VIRTIO_RDMA_SQ_ENTRY(cap->max_send_sge), qp->pd, lkey);
	if (!ret && !qp->srq)	/* on an SRQ: a receive ring of zeroes */
		ret = kring_alloc(dev, &qp->rrq, cap->max_recv_wr,
				  VIRTIO_RDMA_RQ_ENTRY(cap->max_recv_sge), qp->pd, lkey);
	if (ret)
		goto err_free;
	/* ROCE-DRV-RING-5: the driver's half zero before the create. */
	qp->rec = kzalloc(REC_BYTES, GFP_KERNEL);
	if (!qp->rec) {
		ret = -ENOMEM;
		goto err_free;
	}
	kring_to_wire(&qp->rsq, &c.sq);
	if (qp->rrq.mem.base)
		kring_to_wire(&qp->rrq, &c.rq);
	rec_to_wire(qp->rec, lkey, &c.rec);

	mutex_lock(&dev->res_lock);
	qp->dbq = r->next_eq++ % r->k;
	c.dbq = cpu_to_le16(qp->dbq);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_QP, &c,
				   sizeof(c), &ack, sizeof(ack));
	if (ret)
		goto err_unlock;
	qp->qpn = le32_to_cpu(ack.qpn);
	if (!virtio_rdma_ring_number_ok(dev, qp->qpn, qp->qp_type == VIRTIO_IB_QPT_GSI)) {
		dev_err_ratelimited(&dev->vdev->dev,
				    "CREATE_QP on rings: QPN %u not eligible\n",
				    qp->qpn);
		dcmd.qpn = ack.qpn;
		ret = virtio_rdma_ring_destroy_refused(dev,
						       VIRTIO_NET_CTRL_ROCE_DESTROY_QP,
						       &dcmd, sizeof(dcmd));
		goto err_unlock;
	}
	WRITE_ONCE(r->live_qps, r->live_qps + 1);
	mutex_unlock(&dev->res_lock);
	return 0;

err_unlock:
	mutex_unlock(&dev->res_lock);
	/* The device may use the rings: the caller keeps them until reset. */
	if (virtio_rdma_cmd_lost(ret))
		return ret;
err_free:
	virtio_rdma_qp_rings_free(qp);
	return ret;
}

/* The limits post_send and post_recv check, as for a virtqueue QP. */
void virtio_rdma_qp_rings_kernel_init(struct virtio_rdma_qp_res *qp,
				      const struct ib_qp_cap *cap)
{
	spin_lock_init(&qp->sq.k.lock);
	qp->sq.k.max_wr = cap->max_send_wr;
	qp->sq.k.max_sge = cap->max_send_sge;
	qp->sq.k.max_inline = cap->max_inline_data;
	spin_lock_init(&qp->rq.k.lock);
	qp->rq.k.max_wr = cap->max_recv_wr;
	qp->rq.k.max_sge = cap->max_recv_sge;
}

/*
 * ROCE-DRV-RING-3 and -7: after the producer index, a full barrier (pairs
 * with the device's between sq_event or rq_notify and its read of the
 * index), then the device's word decides the doorbell.
 */
static void qp_doorbell(struct virtio_rdma_qp_res *qp, bool send, u32 old)
{
	u32 prod = qp->rsq.prod, ev;

	virt_mb();
	if (send) {
		ev = le32_to_cpu(READ_ONCE(qp->rec->sq_event));
		if (prod - ev - 1 >= prod - old)
			return;
	} else if (!READ_ONCE(qp->rec->rq_notify)) {
		return;
	}
	virtio_rdma_doorbell_ring(qp->dev, qp->dbq, qp->qpn);
}

int virtio_rdma_qp_rings_post_send(struct virtio_rdma_qp_res *qp,
				   const struct ib_send_wr *wr,
				   const struct ib_send_wr **bad_wr)
{
	struct virtio_rdma_kring *r = &qp->rsq;
	unsigned long flags;
	int ret = 0;
	u32 old;

	spin_lock_irqsave(&qp->sq.k.lock, flags);
	old = r->prod;
	for (; wr; wr = wr->next) {
		/* sq_cons moves before the WR's CQE: no wait is needed. */
		if (!kring_room_now(r, &qp->rec->sq_cons, qp->sq.k.max_wr)) {
			ret = -ENOMEM;
			break;
		}
		ret = virtio_rdma_build_send_req(qp, wr, kring_entry(r, r->prod));
		if (ret)
			break;
		r->prod++;
	}
	if (ret)
		*bad_wr = wr;
	if (r->prod != old) {
		kring_publish(r, &qp->rec->sq_prod);
		qp_doorbell(qp, true, old);
	}
	spin_unlock_irqrestore(&qp->sq.k.lock, flags);
	return ret;
}

int virtio_rdma_qp_rings_post_recv(struct virtio_rdma_qp_res *qp,
				   const struct ib_recv_wr *wr,
				   const struct ib_recv_wr **bad_wr)
{
	struct virtio_rdma_kring *r = &qp->rrq;
	unsigned long flags;
	int ret = 0;
	u32 old;

	spin_lock_irqsave(&qp->rq.k.lock, flags);
	old = r->prod;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > qp->rq.k.max_sge) {
			ret = -EINVAL;
			break;
		}
		if (r->prod - r->polled >= qp->rq.k.max_wr ||
		    !kring_room(r, &qp->rec->rq_cons, qp->rq.k.max_wr)) {
			ret = -ENOMEM;
			break;
		}
		recv_to_wire(wr, kring_entry(r, r->prod));
		r->prod++;
	}
	if (ret)
		*bad_wr = wr;
	if (r->prod != old) {
		kring_publish(r, &qp->rec->rq_prod);
		qp_doorbell(qp, false, old);
	}
	spin_unlock_irqrestore(&qp->rq.k.lock, flags);
	return ret;
}

/*
 * Under qp->rq.k.lock, for a receive completion of the QP: the entry of
 * its WR (receives complete in the order posted), or NULL if none is
 * outstanding (discarded by RESET, or a QP on an SRQ).
 */
const struct virtio_rdma_rq_req *
virtio_rdma_qp_rings_recv_polled(struct virtio_rdma_qp_res *qp)
{
	struct virtio_rdma_kring *r = &qp->rrq;

	if (!r->mem.base || r->polled == r->prod)
		return NULL;
	return kring_entry(r, r->polled++);
}

/*
 * After MODIFY_QP to RESET: the device dropped every WR and zeroed its
 * half of the record (ROCE-DEV-RING-8); the driver starts from 0 too
 * (ROCE-DRV-RING-5).
 */
void virtio_rdma_qp_rings_reset(struct virtio_rdma_qp_res *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.k.lock, flags);
	qp->rsq.prod = qp->rsq.cons = 0;
	WRITE_ONCE(qp->rec->sq_prod, 0);
	spin_unlock_irqrestore(&qp->sq.k.lock, flags);
	spin_lock_irqsave(&qp->rq.k.lock, flags);
	qp->rrq.prod = qp->rrq.cons = qp->rrq.polled = 0;
	WRITE_ONCE(qp->rec->rq_prod, 0);
	spin_unlock_irqrestore(&qp->rq.k.lock, flags);
}

void virtio_rdma_srq_rings_free(struct virtio_rdma_srq_res *srq)
{
	virtio_rdma_ring_mem_free(srq->dev, &srq->ring.mem);
	kfree(srq->rec);
	srq->rec = NULL;
}

/*
 * The CREATE_SRQ command of an SRQ on rings, a kernel consumer's or a
 * process's: its PD and limits; the caller adds ring, record and queue.
 */
void virtio_rdma_srq_rings_cmd(const struct virtio_rdma_srq_res *srq,
			       const struct ib_srq_attr *attr,
			       struct virtio_rdma_cmd_create_srq_rings *c)
{
	memset(c, 0, sizeof(*c));
	c->srq.pdn = cpu_to_le32(srq->pd->pdn);
	c->srq.max_wr = cpu_to_le32(attr->max_wr);
	c->srq.max_sge = cpu_to_le32(attr->max_sge);
	c->srq.flags = cpu_to_le32(VIRTIO_RDMA_SRQ_F_RINGS);
}

/* CREATE_SRQ with VIRTIO_RDMA_SRQ_F_RINGS; the caller enters it in the table. */
int virtio_rdma_srq_rings_create(struct virtio_rdma_dev *dev,
				 struct virtio_rdma_srq_res *srq,
				 const struct ib_srq_attr *attr, u32 lkey)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_cmd_create_srq_rings c;
	struct virtio_rdma_cmd_destroy_srq dcmd;
	struct virtio_rdma_ack_create_srq ack;
	int ret;

	virtio_rdma_srq_rings_cmd(srq, attr, &c);
	ret = kring_alloc(dev, &srq->ring, attr->max_wr,
			  VIRTIO_RDMA_RQ_ENTRY(attr->max_sge), srq->pd, lkey);
	if (ret)
		goto err_free;
	srq->rec = kzalloc(REC_BYTES, GFP_KERNEL);
	if (!srq->rec) {
		ret = -ENOMEM;
		goto err_free;
	}
	kring_to_wire(&srq->ring, &c.ring);
	rec_to_wire(srq->rec, lkey, &c.rec);

	mutex_lock(&dev->res_lock);
	c.eq = cpu_to_le16(r->next_eq++ % r->k);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c,
				   sizeof(c), &ack, sizeof(ack));
	if (ret)
		goto err_unlock;
	srq->srqn = le32_to_cpu(ack.srqn);
	if (!virtio_rdma_ring_number_ok(dev, srq->srqn, false)) {
		dev_err_ratelimited(&dev->vdev->dev,
				    "CREATE_SRQ on rings: number %u not eligible\n",
				    srq->srqn);
		dcmd.srqn = ack.srqn;
		ret = virtio_rdma_ring_destroy_refused(dev,
						       VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ,
						       &dcmd, sizeof(dcmd));
		goto err_unlock;
	}
	WRITE_ONCE(r->live_srqs, r->live_srqs + 1);
	mutex_unlock(&dev->res_lock);
	spin_lock_init(&srq->rq.k.lock);
	srq->rq.k.max_wr = attr->max_wr;
	srq->rq.k.max_sge = attr->max_sge;
	return 0;

err_unlock:
	mutex_unlock(&dev->res_lock);
	/* The device may use the ring: the caller keeps it until reset. */
	if (virtio_rdma_cmd_lost(ret))
		return ret;
err_free:
	virtio_rdma_srq_rings_free(srq);
	return ret == -EREMOTEIO ? -EINVAL : ret;
}

/*
 * The device takes an SRQ's WRs as messages come: no doorbell. Its cons
 * moves after each WR's CQE (ROCE-DEV-RING-11).
 */
int virtio_rdma_srq_rings_post_recv(struct virtio_rdma_srq_res *srq,
				    const struct ib_recv_wr *wr,
				    const struct ib_recv_wr **bad_wr)
{
	struct virtio_rdma_kring *r = &srq->ring;
	unsigned long flags;
	int ret = 0;
	u32 old;

	spin_lock_irqsave(&srq->rq.k.lock, flags);
	old = r->prod;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > srq->rq.k.max_sge) {
			ret = -EINVAL;
			break;
		}
		if (!kring_room(r, &srq->rec->cons, srq->rq.k.max_wr)) {
			ret = -ENOMEM;
			break;
		}
		recv_to_wire(wr, kring_entry(r, r->prod));
		r->prod++;
	}
	if (ret)
		*bad_wr = wr;
	if (r->prod != old)
		kring_publish(r, &srq->rec->prod);
	spin_unlock_irqrestore(&srq->rq.k.lock, flags);
	return ret;
}

/*
 * Arm (or with 0 disarm) the limit: the device reports it through the
 * SRQ's event queue (ROCE-DEV-RING-17) when it takes a WR. Armed below the
 * present count, no WR may come to trigger it: the driver then takes the
 * arm back with the same compare and swap the device uses, and true tells
 * the caller to raise the event, once either way.
 */
bool virtio_rdma_srq_rings_arm(struct virtio_rdma_srq_res *srq, u32 limit)
{
	struct virtio_rdma_srq_rec *rec = virtio_rdma_srq_rec(srq);
	u32 prod, cons;

	WRITE_ONCE(rec->limit, cpu_to_le32(limit));
	if (!limit)
		return false;
	virt_mb();
	/* A process's SRQ: its own prod (a lie only misplaces its event). */
	prod = srq->rec ? READ_ONCE(srq->ring.prod) :
			  le32_to_cpu(READ_ONCE(rec->prod));
	cons = le32_to_cpu(READ_ONCE(rec->cons));
	if (prod - cons >= limit)
		return false;
	return cmpxchg(&rec->limit, cpu_to_le32(limit), 0) ==
	       cpu_to_le32(limit);
}

/* The armed limit; 0 once reported (the device cleared it). */
u32 virtio_rdma_srq_rings_limit(struct virtio_rdma_srq_res *srq)
{
	return le32_to_cpu(READ_ONCE(virtio_rdma_srq_rec(srq)->limit));
}
