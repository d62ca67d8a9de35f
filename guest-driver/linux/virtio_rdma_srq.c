// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues (sections "Shared Receive Queues" and "Shared
 * Receive Queue Operation"). CREATE_SRQ gives the SRQ a number s of the QP
 * numbers; its queue is the receive virtqueue of s, filled by a process
 * through its mappings or by the driver (virtio_rdma_post_srq_recv). QPs
 * created on it (VIRTIO_RDMA_QP_F_SRQ) take their receive WRs from it.
 *
 * The SRQ limit has no command and no device event: the WRs in the SRQ are
 * those made available and not yet used, so the driver arms the limit by
 * asking for a used buffer notification at the used index where fewer
 * than srq_limit remain (used_event with EVENT_IDX, every notification
 * without), counts again at each one and raises IB_EVENT_SRQ_LIMIT_REACHED
 * once per arming (ROCE-DRV-SRQ-4). The driver reads avail->idx from the
 * ring, a process's SRQ included: a process posting after the arming only
 * makes a notification come early, and the count then moves the event
 * index to where the limit now is.
 *
 * With layout=rings a kernel SRQ is on a ring instead
 * (virtio_rdma_qp_rings.c): its limit is armed in its record and reported
 * by the device through an event queue (virtio_rdma_eq.c).
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <rdma/uverbs_ioctl.h>

#include "virtio_rdma.h"

/* As a kernel CQ's (cq.c): a notification at used->idx 0 is lost. */
#define SRQ_WRAP_POLL_MS	10

static void srq_free(struct virtio_rdma_srq_res *srq)
{
	virtio_rdma_uq_free(&srq->rq);
	virtio_rdma_srq_rings_free(srq);
	virtio_rdma_usrq_rings_free(srq);
	virtio_rdma_pd_put(srq->pd);
	kfree(srq);
}

static void srq_zombie_free(struct virtio_rdma_zombie *z)
{
	srq_free(container_of(z, struct virtio_rdma_srq_res, zombie));
}

/*
 * The last reference (the verbs SRQ, its QPs, the mappings of its ring):
 * destroy at the device, which has marked every WR used (ROCE-DEV-SRQ-8),
 * then the queue back to its initial state (ROCE-DRV-LIFE-5).
 */
static void srq_release(struct kref *ref)
{
	struct virtio_rdma_srq_res *srq =
		container_of(ref, struct virtio_rdma_srq_res, ref);
	struct virtio_rdma_dev *dev = srq->dev;
	struct virtio_rdma_cmd_destroy_srq cmd = {
		.srqn = cpu_to_le32(srq->srqn),
	};
	int ret = 0;

	mutex_lock(&dev->res_lock);
	if (!dev->dead)
		ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ,
					   &cmd, sizeof(cmd), NULL, 0);
	/* ring_srqs counts live SRQs: a zombie is none, as for ring_cqs. */
	if (virtio_rdma_srq_rec(srq))
		WRITE_ONCE(dev->rings.live_srqs, dev->rings.live_srqs - 1);
	if (virtio_rdma_cmd_lost(ret)) {
		mutex_unlock(&dev->res_lock);
		dev_warn(&dev->vdev->dev, "SRQ %u: DESTROY_SRQ %d, kept until reset\n",
			 srq->srqn, ret);
		virtio_rdma_zombie_add(dev, &srq->zombie, srq_zombie_free);
		return;
	}
	if (ret)
		dev_warn(&dev->vdev->dev, "SRQ %u: DESTROY_SRQ %d\n", srq->srqn,
			 ret);
	/* On rings the device no longer reads it (ROCE-DEV-RING-20). */
	if (!virtio_rdma_srq_rec(srq))
		virtio_rdma_uq_reset(&srq->rq);
	mutex_unlock(&dev->res_lock);
	srq_free(srq);
}

void virtio_rdma_srq_put(struct virtio_rdma_srq_res *srq)
{
	kref_put(&srq->ref, srq_release);
}

/* Under limit_lock: no more used buffer notifications than needed. */
static void srq_quiet(struct virtio_rdma_srq_res *srq)
{
	struct virtio_device *vdev = srq->dev->vdev;
	const struct vring *vr = virtqueue_get_vring(srq->rq.vq);

	if (virtio_has_feature(vdev, VIRTIO_RING_F_EVENT_IDX))
		vring_used_event(vr) = cpu_to_virtio16(vdev, 0xffff);
	vr->avail->flags = cpu_to_virtio16(vdev, VRING_AVAIL_F_NO_INTERRUPT);
}

/*
 * Under limit_lock, with a limit armed: ask for the notification at the
 * used index where fewer than limit WRs remain, then count once more. True
 * if the limit is reached: it is disarmed, the caller raises the event.
 */
static bool srq_arm(struct virtio_rdma_srq_res *srq)
{
	struct virtio_device *vdev = srq->dev->vdev;
	const struct vring *vr = virtqueue_get_vring(srq->rq.vq);
	u16 avail, used;

	avail = virtio16_to_cpu(vdev, READ_ONCE(vr->avail->idx));
	if (virtio_has_feature(vdev, VIRTIO_RING_F_EVENT_IDX))
		vring_used_event(vr) = cpu_to_virtio16(vdev,
						       avail - srq->limit);
	else
		vr->avail->flags = 0;
	virtio_mb(true);
	used = virtio16_to_cpu(vdev, READ_ONCE(vr->used->idx));
	if ((u16)(avail - used) >= srq->limit) {
		/* vring_interrupt() ignores used->idx 0: watch the wrap. */
		if ((u16)(0 - used) <= srq->rq.num)
			schedule_delayed_work(&srq->wrap_work,
					      msecs_to_jiffies(SRQ_WRAP_POLL_MS));
		return false;
	}
	srq->limit = 0;
	srq_quiet(srq);
	return true;
}

/*
 * Count if armed; raise the limit event once (ROCE-DRV-SRQ-4). Under
 * qp_lock, so that the verbs SRQ is not destroyed meanwhile; the handlers
 * run in atomic context, as ib_core allows.
 */
static void srq_check_limit_locked(struct virtio_rdma_srq_res *srq)
{
	struct ib_event ev = {
		.device = &srq->dev->ib,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	bool reached;

	spin_lock(&srq->limit_lock);
	reached = srq->limit && srq_arm(srq);
	spin_unlock(&srq->limit_lock);
	if (reached && srq->ibsrq && srq->ibsrq->event_handler) {
		ev.element.srq = srq->ibsrq;
		srq->ibsrq->event_handler(&ev, srq->ibsrq->srq_context);
	}
}

void virtio_rdma_srq_check_limit(struct virtio_rdma_srq_res *srq)
{
	unsigned long flags;

	/* On rings: the device reports it (eq.c). */
	if (virtio_rdma_srq_rec(srq))
		return;
	spin_lock_irqsave(&srq->dev->qp_lock, flags);
	srq_check_limit_locked(srq);
	spin_unlock_irqrestore(&srq->dev->qp_lock, flags);
}

static void srq_wrap_work(struct work_struct *work)
{
	virtio_rdma_srq_check_limit(container_of(to_delayed_work(work),
						 struct virtio_rdma_srq_res,
						 wrap_work));
}

/*
 * A used buffer notification of a receive virtqueue: only an SRQ's asks
 * for them (the others complete through their CQ), when its limit is armed.
 */
void virtio_rdma_rq_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;
	u32 n = (vq->index - virtio_rdma_rq_vq(dev, 0)) / 2;
	struct virtio_rdma_srq_res *srq;
	unsigned long flags;

	spin_lock_irqsave(&dev->qp_lock, flags);
	srq = dev->srqs && n < dev->max_rdma_qps ? dev->srqs[n] : NULL;
	if (srq)
		srq_check_limit_locked(srq);
	spin_unlock_irqrestore(&dev->qp_lock, flags);
}

/* @max_wr: a ring's (a kernel or process SRQ on rings) or a virtqueue's. */
static int srq_check_init(struct virtio_rdma_dev *dev,
			  const struct ib_srq_init_attr *init, u32 max_wr)
{
	const struct virtio_rdma_ack_query_device *a = &dev->attr;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	/* ROCE-DRV-SRQ-2; a slot per outstanding WR. */
	if (!init->attr.max_wr || init->attr.max_wr > max_wr ||
	    init->attr.max_sge > le32_to_cpu(a->max_srq_sge))
		return -EINVAL;
	return 0;
}

static int srq_create(struct virtio_rdma_dev *dev,
		      struct virtio_rdma_srq_res *srq,
		      const struct ib_srq_attr *attr)
{
	struct virtio_rdma_cmd_create_srq cmd = {
		.pdn = cpu_to_le32(srq->pd->pdn),
		.max_wr = cpu_to_le32(attr->max_wr),
		.max_sge = cpu_to_le32(attr->max_sge),
	};
	struct virtio_rdma_cmd_destroy_srq dcmd;
	struct virtio_rdma_ack_create_srq ack;
	u32 stride;
	int ret;

	stride = roundup_pow_of_two(sizeof(struct virtio_rdma_rq_req) +
				    attr->max_sge *
				    sizeof(struct virtio_rdma_sge));
	mutex_lock(&dev->res_lock);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret)
		goto out_unlock;
	srq->srqn = le32_to_cpu(ack.srqn);
	/* ROCE-DEV-VQ-5: a QP number, 2 to L-1, that nothing live has. */
	if (srq->srqn < 2 || srq->srqn >= dev->max_rdma_qps ||
	    READ_ONCE(dev->qps[srq->srqn]) || READ_ONCE(dev->srqs[srq->srqn])) {
		dev_err_ratelimited(&dev->vdev->dev, "CREATE_SRQ: number %u not eligible\n",
				    srq->srqn);
		ret = -EPROTO;
		goto out_unlock;
	}
	ret = virtio_rdma_uq_init(dev, &srq->rq,
				  virtio_rdma_rq_vq(dev, srq->srqn), stride,
				  false);
	if (ret)
		goto err_destroy;
	mutex_unlock(&dev->res_lock);
	return 0;

err_destroy:
	dcmd.srqn = cpu_to_le32(srq->srqn);
	if (!virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &dcmd,
				  sizeof(dcmd), NULL, 0) && srq->rq.vq)
		virtio_rdma_uq_reset(&srq->rq);
	virtio_rdma_uq_free(&srq->rq);
out_unlock:
	mutex_unlock(&dev->res_lock);
	return ret == -EREMOTEIO ? -EINVAL : ret;
}

int virtio_rdma_create_srq(struct ib_srq *ibsrq,
			   struct ib_srq_init_attr *init,
			   struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibsrq->device);
	struct virtio_rdma_create_srq_resp resp = {};
	struct virtio_rdma_ucontext *uctx;
	struct virtio_rdma_srq_res *srq;
	/* With the rings layout on, every kernel SRQ goes on rings. */
	bool rings = !udata && dev->rings.on;
	/* A process's, if its provider asks (virtio_rdma_uqp_rings.c). */
	bool urings = false;
	struct virtqueue *vq0 = dev->vqs[virtio_rdma_rq_vq(dev, 0)];
	u32 max_wr;
	int ret;

	if (!dev->user_rings || !virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_SRQ))
		return -EOPNOTSUPP;
	if (udata) {
		ret = virtio_rdma_urings_wanted(dev, udata,
						VIRTIO_RDMA_CREATE_SRQ_RINGS);
		if (ret < 0)
			return ret;
		urings = ret;
	}
	if (udata && !urings && !dev->user_doorbells)
		return -EOPNOTSUPP;
	if (urings)
		max_wr = virtio_rdma_usrq_rings_max_wr(dev);
	else if (rings)
		max_wr = virtio_rdma_srq_rings_max_wr(dev);
	else
		max_wr = min(le32_to_cpu(dev->attr.max_srq_wr),
			     virtqueue_get_vring_size(vq0));
	ret = srq_check_init(dev, init, max_wr);
	if (ret)
		return ret;

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return -ENOMEM;
	kref_init(&srq->ref);
	srq->dev = dev;
	srq->pd = to_vpd(ibsrq->pd)->res;
	spin_lock_init(&srq->limit_lock);
	INIT_DELAYED_WORK(&srq->wrap_work, srq_wrap_work);
	srq->max_wr = init->attr.max_wr;
	srq->max_sge = init->attr.max_sge;
	/* Before the create: an SRQ whose create got no answer keeps it. */
	virtio_rdma_pd_get(srq->pd);
	if (rings)
		ret = virtio_rdma_srq_rings_create(dev, srq, &init->attr,
						   ibsrq->pd->local_dma_lkey);
	else if (urings)
		ret = virtio_rdma_usrq_rings_create(dev, srq, &init->attr);
	else
		ret = srq_create(dev, srq, &init->attr);
	if (ret) {
		if (!((rings || urings) &&
		      virtio_rdma_create_lost(dev, ret, "SRQ on rings",
					      &srq->zombie, srq_zombie_free)))
			srq_free(srq);
		return ret;
	}
	to_vsrq(ibsrq)->res = srq;
	if (!udata) {
		srq->kernel = true;
		if (!rings)
			virtio_rdma_kq_init(&srq->rq, init->attr.max_wr,
					    init->attr.max_sge, 0);
	}
	srq->ibsrq = ibsrq;
	spin_lock_irq(&dev->qp_lock);
	*virtio_rdma_srq_slot(dev, srq->srqn) = srq;
	spin_unlock_irq(&dev->qp_lock);
	if (!udata)
		return 0;

	uctx = rdma_udata_to_drv_context(udata, struct virtio_rdma_ucontext,
					 ibuc);
	if (urings)
		ret = virtio_rdma_usrq_rings_publish(srq, &uctx->ibuc,
						     srq_release, &resp);
	else
		ret = virtio_rdma_uq_publish(dev, &uctx->ibuc, &srq->rq, true,
					     &srq->ref, srq_release, &resp.rq);
	if (ret)
		goto err_destroy;
	resp.srqn = srq->srqn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	virtio_rdma_destroy_srq(ibsrq, udata);
	return ret;
}

/*
 * IB_SRQ_LIMIT arms (or, with 0, disarms) the limit; resizing
 * (IB_SRQ_MAX_WR) would need another virtqueue: not supported.
 */
int virtio_rdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct virtio_rdma_srq_res *srq = to_vsrq(ibsrq)->res;
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	unsigned long flags;

	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr)
		return -EINVAL;
	if (virtio_rdma_srq_rec(srq)) {
		/* Under qp_lock, as the event queue's report (eq.c). */
		spin_lock_irqsave(&srq->dev->qp_lock, flags);
		if (virtio_rdma_srq_rings_arm(srq, attr->srq_limit) &&
		    ibsrq->event_handler)
			ibsrq->event_handler(&ev, ibsrq->srq_context);
		spin_unlock_irqrestore(&srq->dev->qp_lock, flags);
		return 0;
	}
	spin_lock_irqsave(&srq->limit_lock, flags);
	srq->limit = attr->srq_limit;
	if (!srq->limit)
		srq_quiet(srq);
	spin_unlock_irqrestore(&srq->limit_lock, flags);
	/* Armed below the present count: the event comes at once. */
	virtio_rdma_srq_check_limit(srq);
	return 0;
}

int virtio_rdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct virtio_rdma_srq_res *srq = to_vsrq(ibsrq)->res;
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	spin_lock_irqsave(&srq->limit_lock, flags);
	attr->srq_limit = virtio_rdma_srq_rec(srq) ?
			  virtio_rdma_srq_rings_limit(srq) : srq->limit;
	spin_unlock_irqrestore(&srq->limit_lock, flags);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	return 0;
}

/*
 * The verbs SRQ goes: no more limit events. The device object stays while
 * a QP created on it (ROCE-DRV-SRQ-1) or a mapping of its ring holds it.
 */
int virtio_rdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct virtio_rdma_srq_res *srq = to_vsrq(ibsrq)->res;
	struct virtio_rdma_dev *dev = srq->dev;

	spin_lock_irq(&dev->qp_lock);
	*virtio_rdma_srq_slot(dev, srq->srqn) = NULL;
	srq->ibsrq = NULL;
	spin_unlock_irq(&dev->qp_lock);
	spin_lock_irq(&srq->limit_lock);
	srq->limit = 0;
	spin_unlock_irq(&srq->limit_lock);
	cancel_delayed_work_sync(&srq->wrap_work);
	virtio_rdma_uq_unpublish(&srq->rq);
	virtio_rdma_srq_put(srq);
	return 0;
}
