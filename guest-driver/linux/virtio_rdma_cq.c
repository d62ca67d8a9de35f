// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues. A CQ is a completion virtqueue that the process polls
 * through its mapping; the kernel creates it (CREATE_CQ), fills its
 * descriptors, makes every slot available, arms it (REQ_NOTIFY_CQ) and
 * turns its interrupt into the CQ's completion event. A kernel CQ is the
 * same virtqueue, polled by the driver (virtio_rdma_kverbs.c).
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <rdma/uverbs_ioctl.h>

#include "virtio_rdma.h"

static void cq_zombie_free(struct virtio_rdma_zombie *z)
{
	struct virtio_rdma_cq_res *cq =
		container_of(z, struct virtio_rdma_cq_res, zombie);

	virtio_rdma_uq_free(&cq->ring);
	virtio_rdma_cq_rings_free(cq);
	kfree(cq);
}

/* The last reference: destroy at the device, re-initialise the queue. */
static void cq_release(struct kref *ref)
{
	struct virtio_rdma_cq_res *cq =
		container_of(ref, struct virtio_rdma_cq_res, ref);
	struct virtio_rdma_dev *dev = cq->dev;
	struct virtio_rdma_cmd_destroy_cq cmd = {
		.cqn = cpu_to_le32(cq->cqn),
	};
	int ret = 0;

	mutex_lock(&dev->res_lock);
	spin_lock_irq(&dev->cq_lock);
	if (cq->rmem.base) {
		if (dev->rings.cqs)
			dev->rings.cqs[cq->cqn - dev->max_rdma_cqs] = NULL;
		WRITE_ONCE(dev->rings.live_cqs, dev->rings.live_cqs - 1);
	} else {
		dev->cqs[cq->cqn] = NULL;
	}
	spin_unlock_irq(&dev->cq_lock);
	if (!dev->dead)
		ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_CQ,
					   &cmd, sizeof(cmd), NULL, 0);
	/*
	 * The device may still write CQEs, or (a resize without an answer)
	 * into either ring: keep the memory.
	 */
	if (virtio_rdma_cmd_lost(ret) || cq->resize_lost) {
		mutex_unlock(&dev->res_lock);
		dev_warn(&dev->vdev->dev, "CQ %u: DESTROY_CQ %d, kept until reset\n",
			 cq->cqn, ret);
		virtio_rdma_zombie_add(dev, &cq->zombie, cq_zombie_free);
		return;
	}
	if (ret)	/* not live at the device: nothing uses the queue */
		dev_warn(&dev->vdev->dev, "CQ %u: DESTROY_CQ %d\n", cq->cqn, ret);
	/* ROCE-DRV-LIFE-2: initial state before the next create command. */
	if (!cq->rmem.base)
		virtio_rdma_uq_reset(&cq->ring);
	mutex_unlock(&dev->res_lock);
	/* On rings: the device no longer reads them (ROCE-DEV-RING-20). */
	cq_zombie_free(&cq->zombie);
}

void virtio_rdma_cq_put(struct virtio_rdma_cq_res *cq)
{
	kref_put(&cq->ref, cq_release);
}

static int cq_create(struct virtio_rdma_dev *dev, struct virtio_rdma_cq_res *cq,
		     u32 cqe)
{
	struct virtio_rdma_cmd_create_cq cmd = { .cqe = cpu_to_le32(cqe) };
	struct virtio_rdma_cmd_destroy_cq dcmd;
	struct virtio_rdma_ack_create_cq ack;
	int ret;

	mutex_lock(&dev->res_lock);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret)
		goto out_unlock;
	cq->cqn = le32_to_cpu(ack.cqn);
	if (cq->cqn >= dev->max_rdma_cqs) {	/* ROCE-DEV-CQ-3 */
		dev_err_ratelimited(&dev->vdev->dev, "CREATE_CQ: CQN %u out of range\n",
				    cq->cqn);
		ret = -EPROTO;
		goto out_unlock;
	}
	/* ROCE-DRV-OVR-1: every slot available before any WR can complete. */
	ret = virtio_rdma_uq_init(dev, &cq->ring, virtio_rdma_cq_vq(dev, cq->cqn),
				  roundup_pow_of_two(sizeof(struct virtio_rdma_cq_req)),
				  true);
	if (ret)
		goto err_destroy;
	spin_lock_irq(&dev->cq_lock);
	dev->cqs[cq->cqn] = cq;
	spin_unlock_irq(&dev->cq_lock);
	mutex_unlock(&dev->res_lock);
	return 0;

err_destroy:
	dcmd.cqn = cpu_to_le32(cq->cqn);
	if (!virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &dcmd,
				  sizeof(dcmd), NULL, 0))
		virtio_rdma_uq_reset(&cq->ring);
	virtio_rdma_uq_free(&cq->ring);
out_unlock:
	mutex_unlock(&dev->res_lock);
	return ret;
}

/*
 * vring_interrupt() drops a completion interrupt that finds used->idx at
 * 0 modulo 2^16 (virtio_ring's own last_used_idx stays 0 for these
 * queues: vq.c). A process polls its own ring; a kernel consumer that
 * armed its CQ would wait for that event forever. So while a kernel CQ is
 * armed within a ring's length of the wrap, this work looks at the ring
 * every CQ_WRAP_POLL_MS and raises the event itself once a CQE is there.
 */
#define CQ_WRAP_POLL_MS	10

static void cq_wrap_work(struct work_struct *work)
{
	struct virtio_rdma_cq_res *cq =
		container_of(to_delayed_work(work), struct virtio_rdma_cq_res,
			     wrap_work);
	struct virtio_rdma_dev *dev = cq->dev;
	unsigned long flags;

	if (!virtio_rdma_kcq_pending(cq)) {
		schedule_delayed_work(&cq->wrap_work,
				      msecs_to_jiffies(CQ_WRAP_POLL_MS));
		return;
	}
	spin_lock_irqsave(&dev->cq_lock, flags);
	if (cq->ibcq && cq->ibcq->comp_handler)
		cq->ibcq->comp_handler(cq->ibcq, cq->ibcq->cq_context);
	spin_unlock_irqrestore(&dev->cq_lock, flags);
}

/* Armed with used->idx at most a ring's length before 0 (mod 2^16). */
static void cq_watch_wrap(struct virtio_rdma_cq_res *cq)
{
	u16 to_wrap = 0 - cq->ring.k.last_used;

	if (to_wrap && to_wrap <= cq->ring.num)
		schedule_delayed_work(&cq->wrap_work,
				      msecs_to_jiffies(CQ_WRAP_POLL_MS));
}

/* A CQ on rings: a kernel consumer's, or (@udata) a process's. */
static int create_cq_rings(struct virtio_rdma_dev *dev, struct ib_cq *ibcq,
			   u32 cqe, struct ib_udata *udata)
{
	struct virtio_rdma_create_cq_resp resp = {};
	struct virtio_rdma_ucontext *uctx;
	struct virtio_rdma_cq_res *cq;
	int ret;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	kref_init(&cq->ref);
	cq->dev = dev;
	cq->ibcq = ibcq;
	cq->kernel = !udata;
	ret = virtio_rdma_cq_rings_create(dev, cq, cqe);
	if (ret) {
		/* cq_zombie_free: it holds nothing but its memory. */
		if (!virtio_rdma_create_lost(dev, ret, "CQ on rings", &cq->zombie,
					     cq_zombie_free))
			kfree(cq);
		return ret;
	}
	to_vcq(ibcq)->res = cq;
	ibcq->cqe = cq->rsize;
	if (!udata)
		return 0;

	uctx = rdma_udata_to_drv_context(udata, struct virtio_rdma_ucontext,
					 ibuc);
	resp.cqn = cq->cqn;
	ret = virtio_rdma_ucq_rings_publish(cq, &uctx->ibuc, cq_release, &resp);
	if (!ret)
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
	if (ret)
		virtio_rdma_destroy_cq(ibcq, udata);
	return ret;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
int virtio_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
#else
int virtio_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
#endif
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibcq->device);
	struct virtio_rdma_create_cq_resp resp = {};
	struct virtio_rdma_ucontext *uctx;
	struct virtio_rdma_cq_res *cq;
	unsigned int num;
	int ret;

	/* The slot scheme needs the ring layout user_rings checked. */
	if (!dev->user_rings)
		return -EOPNOTSUPP;
	if (attr->flags || !attr->cqe)
		return attr->flags ? -EOPNOTSUPP : -EINVAL;
	/*
	 * With the rings layout on, every kernel CQ goes on rings, and a
	 * process's when its provider asks (virtio_rdma_ucq_rings.c).
	 */
	ret = udata ? virtio_rdma_urings_wanted(dev, udata,
						VIRTIO_RDMA_CREATE_CQ_RINGS) :
		      dev->rings.on;
	if (ret < 0)
		return ret;
	if (ret)
		return create_cq_rings(dev, ibcq, attr->cqe, udata);
	num = virtqueue_get_vring_size(dev->vqs[virtio_rdma_cq_vq(dev, 0)]);
	if (attr->cqe > num)
		return -EINVAL;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	kref_init(&cq->ref);
	cq->dev = dev;
	cq->ibcq = ibcq;
	ret = cq_create(dev, cq, attr->cqe);
	if (ret) {
		kfree(cq);
		return ret;
	}
	to_vcq(ibcq)->res = cq;
	ibcq->cqe = cq->ring.num;
	if (!udata) {
		cq->kernel = true;
		virtio_rdma_kq_init(&cq->ring, 0, 0, 0);
		INIT_DELAYED_WORK(&cq->wrap_work, cq_wrap_work);
		return 0;
	}

	uctx = rdma_udata_to_drv_context(udata, struct virtio_rdma_ucontext,
					 ibuc);
	ret = virtio_rdma_uq_publish(dev, &uctx->ibuc, &cq->ring, false,
				     &cq->ref, cq_release, &resp.cq);
	if (ret)
		goto err_put;
	resp.cqn = cq->cqn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_put;
	return 0;

err_put:
	virtio_rdma_destroy_cq(ibcq, udata);
	return ret;
}

/*
 * The verbs CQ goes; its completion events stop now. The device object
 * stays while a QP or a mapping still holds it.
 */
int virtio_rdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct virtio_rdma_cq_res *cq = to_vcq(ibcq)->res;
	struct virtio_rdma_dev *dev = cq->dev;

	spin_lock_irq(&dev->cq_lock);
	cq->ibcq = NULL;
	spin_unlock_irq(&dev->cq_lock);
	if (cq->kernel && !cq->rmem.base)
		cancel_delayed_work_sync(&cq->wrap_work);
	virtio_rdma_uq_unpublish(&cq->ring);
	virtio_rdma_ucq_rings_unpublish(cq);
	virtio_rdma_cq_put(cq);
	return 0;
}

/*
 * The CQEs a virtqueue CQ holds: used, their slots not yet available
 * again (every slot was available at create, so avail->idx - num have
 * been given back). A process writes avail->idx of its own CQ: a lie
 * there only decides its own resize.
 */
static u32 vq_cq_pending(struct virtio_rdma_cq_res *cq)
{
	const struct vring *vr = virtqueue_get_vring(cq->ring.vq);
	struct virtio_device *vdev = cq->dev->vdev;
	u16 used = virtio16_to_cpu(vdev, READ_ONCE(vr->used->idx));
	u16 avail = virtio16_to_cpu(vdev, READ_ONCE(vr->avail->idx));

	return (u16)(used - (u16)(avail - cq->ring.num));
}

/*
 * ibv_resize_cq(), ib_resize_cq(). A virtqueue CQ keeps every slot of its
 * virtqueue available (ROCE-DRV-OVR-1), so it is as deep as the virtqueue
 * whatever cqe says (ibcq->cqe, as at create): a new cqe within that size
 * changes nothing, one beyond would need another virtqueue, which the
 * CQ's QPs cannot follow (the spec's "Resizing a Completion Queue"):
 * -EINVAL, as is a cqe below the CQEs the CQ holds (the IBTA's rule). A
 * CQ on rings moves to a new ring (virtio_rdma_cq_rings.c,
 * virtio_rdma_ucq_rings.c). The device's refusal (a CQ holding more CQEs
 * than cqe, or in error) is -EINVAL, as ib_core's drivers answer.
 */
static int cq_resize(struct ib_cq *ibcq, u32 cqe, struct ib_udata *udata)
{
	struct virtio_rdma_cq_res *cq = to_vcq(ibcq)->res;
	struct virtio_rdma_resize_cq_resp resp = {};
	int ret;

	if (!cqe || cqe > INT_MAX)
		return -EINVAL;
	if (cq->rmem.base) {
		ret = cq->kernel ? virtio_rdma_cq_rings_resize(cq, cqe) :
				   virtio_rdma_ucq_rings_resize(cq, cqe, udata);
		if (!ret && cq->kernel)
			ibcq->cqe = cq->rsize;
		else if (!ret)
			ibcq->cqe = cq->ucur->size;
		return ret == -EREMOTEIO ? -EINVAL : ret;
	}
	/* Driver data, if any, as a ring CQ's resize takes it: checked. */
	if (udata) {
		ret = virtio_rdma_urings_wanted(cq->dev, udata,
						VIRTIO_RDMA_RESIZE_CQ_RINGS);
		if (ret < 0)
			return ret;
	}
	if (cqe > cq->ring.num || vq_cq_pending(cq) > cqe)
		return -EINVAL;
	if (udata && udata->outlen)
		return ib_copy_to_udata(udata, &resp,
					min(udata->outlen, sizeof(resp)));
	return 0;
}

/*
 * 7.2's ib_core resizes only processes' CQs (resize_user_cq; its kernel
 * consumers have no ib_resize_cq() any more): the same code serves both.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
int virtio_rdma_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
			  struct ib_udata *udata)
{
	return cq_resize(ibcq, cqe, udata);
}
#else
int virtio_rdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	return cqe > 0 ? cq_resize(ibcq, cqe, udata) : -EINVAL;
}
#endif

static void qp_fatal(struct virtio_rdma_qp_res *qp,
		     struct virtio_rdma_cq_res *cq, struct ib_event *ev)
{
	if (!qp || qp->fatal_reported || (qp->scq != cq && qp->rcq != cq))
		return;
	qp->fatal_reported = true;
	if (qp->ibqp->event_handler) {
		ev->element.qp = qp->ibqp;
		qp->ibqp->event_handler(ev, qp->ibqp->qp_context);
	}
}

/*
 * The QPs of a CQ that overran are in ERR at the device (ROCE-DEV-OVR-2),
 * which says so only for the CQ (REQ_NOTIFY_CQ fails; on rings, CQ_ERR):
 * their consumers hear it from here, IB_EVENT_QP_FATAL once per QP, as
 * from a NIC's work queue catastrophic error (ROCE-DRV-OVR-3), QPs on
 * rings included. Under qp_lock, so that no QP is destroyed meanwhile; the
 * handlers run in atomic context, as ib_core allows.
 *
 * Lock order: dev->cq_lock (the event queue's CQ_ERR report holds it
 * while it calls this), then cq->ring.k.lock (poll_cq, also from a
 * completion handler under cq_lock), then dev->qp_lock, then a QP's
 * sq.k.lock or rq.k.lock. Nothing takes cq_lock under qp_lock.
 */
void virtio_rdma_cq_qps_fatal(struct virtio_rdma_cq_res *cq)
{
	struct virtio_rdma_dev *dev = cq->dev;
	struct virtio_rdma_rings *r = &dev->rings;
	struct ib_event ev = { .device = &dev->ib, .event = IB_EVENT_QP_FATAL };
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&dev->qp_lock, flags);
	for (i = 0; i < dev->max_rdma_qps; i++)
		qp_fatal(dev->qps[i], cq, &ev);
	for (i = 0; r->qps && i < r->max_ring_qp; i++)
		qp_fatal(r->qps[i], cq, &ev);
	spin_unlock_irqrestore(&dev->qp_lock, flags);
}

/*
 * ibv_req_notify_cq() through the kernel (ibv_cmd_req_notify_cq), or
 * ib_req_notify_cq() of a kernel consumer, which may call it in softirq or
 * from its completion handler: then the command busy-waits
 * (virtio_rdma_ctrl.c). The arm fails on a CQ in error (an overrun,
 * ROCE-DEV-CQ-7): that is the only way the device tells it, so the CQ's
 * consumer gets IB_EVENT_CQ_ERR, once (ROCE-DRV-OVR-2), and its QPs'
 * consumers IB_EVENT_QP_FATAL (ROCE-DRV-OVR-3). A kernel CQ
 * reports missed events (CQEs that arrived before the arm) with 1; a user
 * CQ cannot: it is the process's own ring.
 */
int virtio_rdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags f)
{
	struct virtio_rdma_cq_res *cq = to_vcq(ibcq)->res;
	struct virtio_rdma_cmd_req_notify cmd = {
		.cqn = cpu_to_le32(cq->cqn),
	};
	struct ib_event ev = {
		.device = ibcq->device,
		.element.cq = ibcq,
		.event = IB_EVENT_CQ_ERR,
	};
	int ret;

	if (cq->rmem.base)
		return virtio_rdma_cq_rings_arm(cq, f);
	cmd.flags = cpu_to_le32((f & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
				VIRTIO_IB_NOTIFY_SOLICITED :
				VIRTIO_IB_NOTIFY_NEXT_COMPLETION);
	if (cq->kernel)
		ret = virtio_rdma_roce_cmd_atomic(cq->dev,
						  VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ,
						  &cmd, sizeof(cmd), NULL, 0);
	else
		ret = virtio_rdma_roce_cmd(cq->dev,
					   VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ,
					   &cmd, sizeof(cmd), NULL, 0);
	if (!ret && cq->kernel) {
		if (virtio_rdma_kcq_pending(cq))
			return f & IB_CQ_REPORT_MISSED_EVENTS ? 1 : 0;
		cq_watch_wrap(cq);
		return 0;
	}
	if (ret != -EREMOTEIO)
		return ret;
	if (!cq->error_reported) {
		cq->error_reported = true;
		if (ibcq->event_handler)
			ibcq->event_handler(&ev, ibcq->cq_context);
		virtio_rdma_cq_qps_fatal(cq);
	}
	return -EIO;
}
