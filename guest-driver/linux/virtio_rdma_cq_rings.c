// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel CQs on rings (spec "Completion Queues on Rings"): with the rings
 * layout on, every CQ of a kernel consumer is a ring of CQEs and its record
 * in one zeroed allocation of the driver's own, which the device reaches
 * through the driver's DMA MR (virtio_rdma_rings.c) at guest-physical
 * addresses: the record first (128-byte aligned, the driver's half zero as
 * ROCE-DRV-RING-5 asks), the ring after it, 64-byte entries so that none
 * crosses a page. Its completion events come on the event queue it names
 * (virtio_rdma_eq.c), not from REQ_NOTIFY_CQ (ROCE-DEV-RING-19).
 *
 * Processes' CQs stay on virtqueues: their provider maps a virtqueue.
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/log2.h>

#include "virtio_rdma.h"

#define CQ_REC_BYTES	128
#define CQ_LOG_STRIDE	6	/* struct virtio_rdma_cq_req, 48 bytes */

static struct virtio_rdma_cq_rec *cq_rec(struct virtio_rdma_cq_res *cq)
{
	return cq->rmem;
}

static struct virtio_rdma_cq_req *cq_entry(struct virtio_rdma_cq_res *cq,
					   u32 i)
{
	return cq->rmem + CQ_REC_BYTES +
	       ((size_t)(i & (cq->rsize - 1)) << CQ_LOG_STRIDE);
}

/* One allocation of contiguous pages: at most the largest order. */
#ifdef MAX_PAGE_ORDER
#define CQ_MAX_BYTES	(PAGE_SIZE << MAX_PAGE_ORDER)
#else
#define CQ_MAX_BYTES	(PAGE_SIZE << (MAX_ORDER - 1))
#endif

/*
 * The largest cqe a kernel CQ on rings takes: a power of two of entries
 * that fits with its record in one allocation.
 */
u32 virtio_rdma_cq_rings_max_cqe(struct virtio_rdma_dev *dev)
{
	u32 fit = (CQ_MAX_BYTES - CQ_REC_BYTES) >> CQ_LOG_STRIDE;

	return dev->rings.max_ring_cqe ?
	       rounddown_pow_of_two(min(dev->rings.max_ring_cqe, fit)) : 0;
}

void virtio_rdma_cq_rings_free(struct virtio_rdma_cq_res *cq)
{
	if (cq->rmem)
		free_pages_exact(cq->rmem, cq->rmem_len);
	cq->rmem = NULL;
}

/* CREATE_CQ with VIRTIO_RDMA_CQ_F_RINGS; the CQ in dev->rings.cqs[]. */
int virtio_rdma_cq_rings_create(struct virtio_rdma_dev *dev,
				struct virtio_rdma_cq_res *cq, u32 cqe)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_cmd_create_cq_rings cmd = {
		.cqe = cpu_to_le32(cqe),
		.flags = cpu_to_le32(VIRTIO_RDMA_CQ_F_RINGS),
	};
	struct virtio_rdma_cmd_destroy_cq dcmd;
	struct virtio_rdma_ack_create_cq ack;
	int ret;

	if (!cqe || cqe > virtio_rdma_cq_rings_max_cqe(dev))
		return -EINVAL;
	cq->rsize = roundup_pow_of_two(cqe);
	cq->rmem_len = PAGE_ALIGN(CQ_REC_BYTES +
				  ((size_t)cq->rsize << CQ_LOG_STRIDE));
	cq->rmem = alloc_pages_exact(cq->rmem_len,
				     GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!cq->rmem)
		return -ENOMEM;
	spin_lock_init(&cq->ring.k.lock);
	cq->rcons = 0;
	cmd.ring.addr = cpu_to_le64(virt_to_phys(cq->rmem + CQ_REC_BYTES));
	cmd.ring.lkey = cpu_to_le32(r->lkey);
	cmd.ring.log_size = ilog2(cq->rsize);
	cmd.ring.log_stride = CQ_LOG_STRIDE;
	cmd.rec.addr = cpu_to_le64(virt_to_phys(cq->rmem));
	cmd.rec.lkey = cpu_to_le32(r->lkey);

	mutex_lock(&dev->res_lock);
	/* Spread the CQs' events over the event queues (their interrupts). */
	cmd.eq = cpu_to_le16(r->next_eq++ % r->k);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret)
		goto err_unlock;
	cq->cqn = le32_to_cpu(ack.cqn);
	/* ROCE-DEV-RING-6 */
	if (cq->cqn < dev->max_rdma_cqs ||
	    cq->cqn - dev->max_rdma_cqs >= r->max_ring_cq) {
		dev_err_ratelimited(&dev->vdev->dev,
				    "CREATE_CQ on rings: CQN %u out of range\n",
				    cq->cqn);
		dcmd.cqn = ack.cqn;
		virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &dcmd,
				     sizeof(dcmd), NULL, 0);
		ret = -EPROTO;
		goto err_unlock;
	}
	spin_lock_irq(&dev->cq_lock);
	r->cqs[cq->cqn - dev->max_rdma_cqs] = cq;
	spin_unlock_irq(&dev->cq_lock);
	WRITE_ONCE(r->live_cqs, r->live_cqs + 1);
	mutex_unlock(&dev->res_lock);
	return 0;

err_unlock:
	mutex_unlock(&dev->res_lock);
	virtio_rdma_cq_rings_free(cq);
	return ret;
}

/*
 * The device's prod is read once, then the entries it covers (acquire);
 * cons goes back once they are read, so that the device does not
 * overwrite an entry being read (ROCE-DRV-RING-2).
 */
int virtio_rdma_cq_rings_poll(struct virtio_rdma_cq_res *cq, int ne,
			      struct ib_wc *wc)
{
	struct virtio_rdma_cq_rec *rec = cq_rec(cq);
	unsigned long flags;
	u32 prod, cons;
	int n = 0;

	spin_lock_irqsave(&cq->ring.k.lock, flags);
	cons = cq->rcons;
	prod = le32_to_cpu(READ_ONCE(rec->prod));
	virt_rmb();
	if (prod - cons > cq->rsize) {
		spin_unlock_irqrestore(&cq->ring.k.lock, flags);
		dev_err_ratelimited(&cq->dev->vdev->dev,
				    "CQ %u: prod %u, %u consumed: broken ring\n",
				    cq->cqn, prod, cons);
		return -EIO;
	}
	while (n < ne && cons != prod) {
		if (virtio_rdma_cqe_to_wc(cq->dev, cq_entry(cq, cons), &wc[n]))
			n++;
		cons++;
	}
	if (cons != cq->rcons) {
		cq->rcons = cons;
		virt_mb();
		WRITE_ONCE(rec->cons, cpu_to_le32(cons));
	}
	spin_unlock_irqrestore(&cq->ring.k.lock, flags);
	return n;
}

bool virtio_rdma_cq_rings_pending(struct virtio_rdma_cq_res *cq)
{
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&cq->ring.k.lock, flags);
	pending = le32_to_cpu(READ_ONCE(cq_rec(cq)->prod)) != cq->rcons;
	spin_unlock_irqrestore(&cq->ring.k.lock, flags);
	return pending;
}

/*
 * ROCE-DRV-RING-4: the arm, a full barrier (pairs with the device's
 * between prod and its read of notify), prod again: CQEs found then may
 * have come before the device saw the arm, so they count as missed. A CQ
 * that overran (CQ_ERR event, reported once by virtio_rdma_eq.c) takes
 * no arm.
 */
int virtio_rdma_cq_rings_arm(struct virtio_rdma_cq_res *cq,
			     enum ib_cq_notify_flags f)
{
	u32 how = (f & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		  VIRTIO_IB_NOTIFY_SOLICITED : VIRTIO_IB_NOTIFY_NEXT_COMPLETION;

	if (READ_ONCE(cq->error_reported))
		return -EIO;
	WRITE_ONCE(cq_rec(cq)->notify, cpu_to_le32(how));
	virt_mb();
	if (virtio_rdma_cq_rings_pending(cq))
		return f & IB_CQ_REPORT_MISSED_EVENTS ? 1 : 0;
	return 0;
}
