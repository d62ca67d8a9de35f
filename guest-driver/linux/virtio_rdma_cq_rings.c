// SPDX-License-Identifier: GPL-2.0
/*
 * CQs on rings (spec "Completion Queues on Rings"): with the rings layout
 * on, every CQ of a kernel consumer, and that of a provider which asks for
 * it (virtio_rdma_ucq_rings.c), is a ring of CQEs and its record in zeroed
 * allocations of the driver's own, which the device reaches through the
 * driver's DMA MR (virtio_rdma_rings.c) at guest-physical addresses: the
 * record in a page of its own (128-byte aligned, the driver's half zero as
 * ROCE-DRV-RING-5 asks), the ring in physically contiguous pages of its
 * own (or, beyond one allocation, in an MR of its own:
 * virtio_rdma_ring_mr.c), 64-byte entries so that none crosses a page.
 * Pages of their own, so that a process may map them and see nothing
 * else. Its completion events come on the event queue it names
 * (virtio_rdma_eq.c), not from REQ_NOTIFY_CQ (ROCE-DEV-RING-19).
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/mm.h>

#include "virtio_rdma.h"

#define CQ_LOG_STRIDE	VIRTIO_RDMA_CQ_LOG_STRIDE

static struct virtio_rdma_cq_rec *cq_rec(struct virtio_rdma_cq_res *cq)
{
	return cq->rrec;
}

static struct virtio_rdma_cq_req *cq_entry(struct virtio_rdma_cq_res *cq,
					   u32 i)
{
	return cq->rmem.base + ((size_t)(i & (cq->rsize - 1)) << CQ_LOG_STRIDE);
}

/*
 * The largest cqe a CQ on rings takes: a power of two of entries. Up to
 * one contiguous allocation (4 MiB, 65536 entries, with 4 KiB pages) the
 * ring is reached through the driver's DMA MR; beyond, it is a ring of its
 * own MR (virtio_rdma_ring_mr.c), at most 32 MiB (2^19 entries).
 */
u32 virtio_rdma_cq_rings_max_cqe(struct virtio_rdma_dev *dev)
{
	return dev->rings.max_ring_cqe ?
	       min_t(u32, rounddown_pow_of_two(dev->rings.max_ring_cqe),
		     virtio_rdma_ring_mem_max() >> CQ_LOG_STRIDE) : 0;
}

void virtio_rdma_cq_rings_free(struct virtio_rdma_cq_res *cq)
{
	virtio_rdma_ring_mem_free(cq->dev, &cq->rmem);
	if (cq->rrec)
		free_page((unsigned long)cq->rrec);
	cq->rrec = NULL;
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
	cq->rrec = (void *)get_zeroed_page(GFP_KERNEL);
	if (!cq->rrec)
		return -ENOMEM;
	ret = virtio_rdma_ring_mem_alloc(dev, &cq->rmem,
					 (size_t)cq->rsize << CQ_LOG_STRIDE,
					 r->pdn, r->lkey);
	if (ret) {
		virtio_rdma_cq_rings_free(cq);
		return ret;
	}
	spin_lock_init(&cq->ring.k.lock);
	cq->rcons = 0;
	cmd.ring.addr = cpu_to_le64(cq->rmem.addr);
	cmd.ring.lkey = cpu_to_le32(cq->rmem.lkey);
	cmd.ring.log_size = ilog2(cq->rsize);
	cmd.ring.log_stride = CQ_LOG_STRIDE;
	cmd.rec.addr = cpu_to_le64(virt_to_phys(cq->rrec));
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
