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
#include <linux/slab.h>

#include "virtio_rdma.h"

#define CQ_LOG_STRIDE	VIRTIO_RDMA_CQ_LOG_STRIDE

static struct virtio_rdma_cq_rec *cq_rec(struct virtio_rdma_cq_res *cq)
{
	return cq->rrec;
}

/* ROCE-DRV-RING-9: CQE i is in the old ring while i is before switch_prod. */
static struct virtio_rdma_cq_req *cq_entry(struct virtio_rdma_cq_res *cq,
					   u32 i)
{
	if (cq->rold.base && (s32)(i - cq->switch_prod) < 0)
		return cq->rold.base +
		       ((size_t)(i & (cq->rold_size - 1)) << CQ_LOG_STRIDE);
	return cq->rmem.base + ((size_t)(i & (cq->rsize - 1)) << CQ_LOG_STRIDE);
}

/*
 * A kernel CQ's old ring once every CQE in it is polled: outside the CQ's
 * lock, as freeing a ring in an MR of its own is a command that sleeps.
 */
static void cq_rold_work(struct work_struct *work)
{
	struct virtio_rdma_cq_res *cq =
		container_of(work, struct virtio_rdma_cq_res, rold_work);
	struct virtio_rdma_ring_mem m = {};
	unsigned long flags;

	spin_lock_irqsave(&cq->ring.k.lock, flags);
	if (cq->rold.base && (s32)(cq->rcons - cq->switch_prod) >= 0) {
		m = cq->rold;
		cq->rold.base = NULL;
	}
	spin_unlock_irqrestore(&cq->ring.k.lock, flags);
	virtio_rdma_ring_mem_free(cq->dev, &m);
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

/*
 * After DESTROY_CQ (or a failed create): nothing writes the rings now. A
 * virtqueue CQ has no record (nor a work item).
 */
void virtio_rdma_cq_rings_free(struct virtio_rdma_cq_res *cq)
{
	if (!cq->rrec)
		return;
	cancel_work_sync(&cq->rold_work);
	virtio_rdma_ring_mem_free(cq->dev, &cq->rold);
	if (cq->ucur)
		virtio_rdma_cq_uring_put(cq->ucur);
	cq->ucur = NULL;
	virtio_rdma_ring_mem_free(cq->dev, &cq->rmem);
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

	INIT_WORK(&cq->rold_work, cq_rold_work);
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
		ret = virtio_rdma_ring_destroy_refused(dev,
						       VIRTIO_NET_CTRL_ROCE_DESTROY_CQ,
						       &dcmd, sizeof(dcmd));
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
	/* The device may use the ring: the caller keeps it until reset. */
	if (!virtio_rdma_cmd_lost(ret))
		virtio_rdma_cq_rings_free(cq);
	return ret;
}

/*
 * The device's prod is read once, then the entries it covers (acquire);
 * cons goes back once they are read, so that the device does not
 * overwrite an entry being read (ROCE-DRV-RING-2). While RESIZE_CQ is
 * outstanding the CQEs from rstop on may be in either ring: none is read
 * (ROCE-DRV-RING-9). The CQEs of an old ring count against the new one
 * (the spec's "Resizing a Completion Queue"), so prod - cons never
 * exceeds the current ring's size.
 */
int virtio_rdma_cq_rings_poll(struct virtio_rdma_cq_res *cq, int ne,
			      struct ib_wc *wc)
{
	struct virtio_rdma_cq_rec *rec = cq_rec(cq);
	unsigned long flags;
	u32 prod, cons;
	int n = 0;

	spin_lock_irqsave(&cq->ring.k.lock, flags);
	if (cq->resize_lost) {
		spin_unlock_irqrestore(&cq->ring.k.lock, flags);
		dev_err_ratelimited(&cq->dev->vdev->dev,
				    "CQ %u: out of use since RESIZE_CQ failed without an answer, until the device is reset\n",
				    cq->cqn);
		return -EIO;
	}
	cons = cq->rcons;
	prod = le32_to_cpu(READ_ONCE(rec->prod));
	virt_rmb();
	if (cq->resizing) {
		prod = cq->rstop;
	} else if (prod - cons > cq->rsize) {
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
		if (cq->rold.base && (s32)(cons - cq->switch_prod) >= 0)
			schedule_work(&cq->rold_work);
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

	if (READ_ONCE(cq->error_reported) || READ_ONCE(cq->resize_lost))
		return -EIO;
	WRITE_ONCE(cq_rec(cq)->notify, cpu_to_le32(how));
	virt_mb();
	if (virtio_rdma_cq_rings_pending(cq))
		return f & IB_CQ_REPORT_MISSED_EVENTS ? 1 : 0;
	return 0;
}

/*
 * ibv_resize_cq() of a CQ on rings (spec "Resizing a Completion Queue"):
 * the device moves the CQ to a new ring with RESIZE_CQ, which it must
 * report it can do (ROCE-DRV-RING-8); up to the rings' max_cqe. A resize
 * while an earlier one's old ring still holds CQEs would need a third
 * ring: -EBUSY until they are polled.
 */
int virtio_rdma_cq_rings_resize_check(struct virtio_rdma_cq_res *cq, u32 cqe)
{
	if (!virtio_rdma_has_cap(cq->dev, VIRTIO_IB_DEVICE_RESIZE_CQ))
		return -EOPNOTSUPP;
	if (!cqe || cqe > virtio_rdma_cq_rings_max_cqe(cq->dev))
		return -EINVAL;
	if (READ_ONCE(cq->resize_lost))
		return -EIO;
	return 0;
}

void virtio_rdma_cq_uring_release(struct kref *ref)
{
	struct virtio_rdma_cq_uring *u =
		container_of(ref, struct virtio_rdma_cq_uring, ref);

	virtio_rdma_ring_mem_free(u->dev, &u->mem);
	kfree(u);
}

void virtio_rdma_cq_uring_put(struct virtio_rdma_cq_uring *u)
{
	kref_put(&u->ref, virtio_rdma_cq_uring_release);
}

/* The new ring, zeroed, through the one allocator (virtio_rdma_ring_mr.c). */
struct virtio_rdma_cq_uring *virtio_rdma_cq_uring_alloc(struct virtio_rdma_dev *dev,
							u32 cqe)
{
	struct virtio_rdma_cq_uring *u = kzalloc(sizeof(*u), GFP_KERNEL);
	int ret;

	if (!u)
		return ERR_PTR(-ENOMEM);
	kref_init(&u->ref);
	u->dev = dev;
	u->size = roundup_pow_of_two(cqe);
	ret = virtio_rdma_ring_mem_alloc(dev, &u->mem,
					 (size_t)u->size << CQ_LOG_STRIDE,
					 dev->rings.pdn, dev->rings.lkey);
	if (ret) {
		kfree(u);
		return ERR_PTR(ret);
	}
	return u;
}

static void cq_uring_zombie_free(struct virtio_rdma_zombie *z)
{
	virtio_rdma_cq_uring_put(container_of(z, struct virtio_rdma_cq_uring,
					      zombie));
}

/*
 * RESIZE_CQ without an answer (or with one that cannot be): the device
 * may write to either ring, so neither is freed until it is reset, as
 * after a DESTROY without an answer; the new ring keeps @u's reference
 * in the zombie list, the old one goes with the CQ, which cq_release()
 * keeps too. The CQ is out of use: polls and arms fail.
 */
void virtio_rdma_cq_uring_lost(struct virtio_rdma_cq_res *cq,
			       struct virtio_rdma_cq_uring *u, int ret)
{
	dev_err(&cq->dev->vdev->dev,
		"CQ %u: RESIZE_CQ %d without a usable answer: CQ out of use, its rings kept until the device is reset\n",
		cq->cqn, ret);
	virtio_rdma_zombie_add(cq->dev, &u->zombie, cq_uring_zombie_free);
}

/*
 * The command, under dev->res_lock (one resize of a CQ at a time). The
 * caller wrote cons for every CQE it consumed (ROCE-DRV-RING-8): a kernel
 * CQ's poll writes it each time, a process's provider before it asks.
 */
int virtio_rdma_cq_rings_resize_cmd(struct virtio_rdma_cq_res *cq, u32 cqe,
				    struct virtio_rdma_cq_uring *u,
				    u32 *switch_prod)
{
	struct virtio_rdma_cmd_resize_cq cmd = {
		.cqn = cpu_to_le32(cq->cqn),
		.cqe = cpu_to_le32(cqe),
		.ring = {
			.addr = cpu_to_le64(u->mem.addr),
			.lkey = cpu_to_le32(u->mem.lkey),
			.log_size = ilog2(u->size),
			.log_stride = CQ_LOG_STRIDE,
		},
	};
	struct virtio_rdma_ack_resize_cq ack;
	int ret;

	lockdep_assert_held(&cq->dev->res_lock);
	ret = virtio_rdma_roce_cmd(cq->dev, VIRTIO_NET_CTRL_ROCE_RESIZE_CQ,
				   &cmd, sizeof(cmd), &ack, sizeof(ack));
	if (!ret)
		*switch_prod = le32_to_cpu(ack.switch_prod);
	return ret;
}

/*
 * A kernel CQ: prod read under the CQ's lock, polls held below it while
 * the command runs (the lock cannot be held across it); then the old ring
 * serves the CQEs before switch_prod (ROCE-DRV-RING-9) and goes once they
 * are polled. Refused: the new ring goes, the old one stays
 * (ROCE-DRV-RING-10). The IBTA's rule that a CQ does not shrink below the
 * CQEs it holds is checked here too, so that the usual refusal needs no
 * command.
 */
int virtio_rdma_cq_rings_resize(struct virtio_rdma_cq_res *cq, u32 cqe)
{
	struct virtio_rdma_dev *dev = cq->dev;
	struct virtio_rdma_cq_rec *rec = cq_rec(cq);
	struct virtio_rdma_cq_uring *u;
	u32 prod, sp = 0;
	bool drained;
	int ret;

	ret = virtio_rdma_cq_rings_resize_check(cq, cqe);
	if (ret)
		return ret;
	flush_work(&cq->rold_work);	/* an old ring already drained */
	u = virtio_rdma_cq_uring_alloc(dev, cqe);
	if (IS_ERR(u))
		return PTR_ERR(u);

	mutex_lock(&dev->res_lock);
	spin_lock_irq(&cq->ring.k.lock);
	prod = le32_to_cpu(READ_ONCE(rec->prod));
	if (cq->resize_lost)
		ret = -EIO;
	else if (prod - cq->rcons > cqe)
		ret = -EINVAL;
	else if (cq->rold.base)
		ret = -EBUSY;
	cq->rstop = prod;
	cq->resizing = !ret;
	spin_unlock_irq(&cq->ring.k.lock);
	if (ret)
		goto out_put;

	ret = virtio_rdma_cq_rings_resize_cmd(cq, cqe, u, &sp);

	spin_lock_irq(&cq->ring.k.lock);
	cq->resizing = false;
	/* The switch lies between the prod read and what the old ring holds. */
	if (!ret && ((s32)(sp - cq->rstop) < 0 || sp - cq->rcons > cq->rsize))
		ret = -EPROTO;
	if (!ret) {
		cq->rold = cq->rmem;
		cq->rold_size = cq->rsize;
		cq->switch_prod = sp;
		cq->rmem = u->mem;
		cq->rsize = u->size;
		u->mem.base = NULL;
	} else if (virtio_rdma_cmd_lost(ret) || ret == -EPROTO) {
		cq->resize_lost = true;
	}
	drained = cq->rold.base && cq->rcons == sp;
	spin_unlock_irq(&cq->ring.k.lock);
	if (drained)
		schedule_work(&cq->rold_work);
	if (virtio_rdma_cmd_lost(ret) || ret == -EPROTO) {
		virtio_rdma_cq_uring_lost(cq, u, ret);
		mutex_unlock(&dev->res_lock);
		return ret == -EPROTO ? ret : -EIO;
	}
out_put:
	mutex_unlock(&dev->res_lock);
	virtio_rdma_cq_uring_put(u);
	return ret;
}
