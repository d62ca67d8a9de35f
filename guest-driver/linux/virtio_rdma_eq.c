// SPDX-License-Identifier: GPL-2.0
/*
 * The event queues rdma_eventqK of the rings layout (ROCE-DRV-RING-6):
 * device-writable buffers of one struct virtio_rdma_event each, kept
 * available; the interrupt hands each event on as the virtqueue layout's
 * interrupts do: CQ_COMP to the ib_cq's comp_handler, CQ_ERR as
 * IB_EVENT_CQ_ERR and IB_EVENT_QP_FATAL for each QP of the CQ (as a
 * failed REQ_NOTIFY_CQ does), SRQ_LIMIT as IB_EVENT_SRQ_LIMIT_REACHED. Objects on
 * rings are found in dev->rings.cqs[] and .srqs[] (number minus the first
 * ring number); a number naming nothing is logged and dropped, since a
 * device may report an object the driver destroyed meanwhile.
 */
#include <linux/slab.h>
#include <linux/virtio_config.h>

#include "virtio_rdma.h"

#define VIRTIO_RDMA_EQ_BUFS	64

static void eq_give(struct virtqueue *vq, struct virtio_rdma_event *e)
{
	struct scatterlist sg;

	sg_init_one(&sg, e, sizeof(*e));
	/* Cannot fail: never more buffers than the queue has entries. */
	WARN_ON_ONCE(virtqueue_add_inbuf(vq, &sg, 1, e, GFP_ATOMIC));
}

static void eq_cq_event(struct virtio_rdma_dev *dev, u32 num, bool err)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_cq_res *cq = NULL;
	struct ib_event ev = { .device = &dev->ib, .event = IB_EVENT_CQ_ERR };
	struct ib_cq *ibcq;
	unsigned long flags;

	spin_lock_irqsave(&dev->cq_lock, flags);
	if (num >= dev->max_rdma_cqs && num - dev->max_rdma_cqs < r->max_ring_cq)
		cq = r->cqs[num - dev->max_rdma_cqs];
	ibcq = cq ? cq->ibcq : NULL;
	if (ibcq && !err && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	if (ibcq && err && !cq->error_reported) {
		cq->error_reported = true;
		ev.element.cq = ibcq;
		if (ibcq->event_handler)
			ibcq->event_handler(&ev, ibcq->cq_context);
		/* Its QPs are in ERR (ROCE-DRV-OVR-3); cq_lock before qp_lock. */
		virtio_rdma_cq_qps_fatal(cq);
	}
	spin_unlock_irqrestore(&dev->cq_lock, flags);
	if (!cq)
		dev_warn_ratelimited(&dev->vdev->dev,
				     "event for CQ %u: no such CQ on rings\n",
				     num);
}

static void eq_srq_event(struct virtio_rdma_dev *dev, u32 num)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_srq_res *srq = NULL;
	struct ib_event ev = {
		.device = &dev->ib,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	unsigned long flags;

	spin_lock_irqsave(&dev->qp_lock, flags);
	if (num >= dev->max_rdma_qps && num - dev->max_rdma_qps < r->max_ring_qp)
		srq = r->srqs[num - dev->max_rdma_qps];
	if (srq && srq->ibsrq && srq->ibsrq->event_handler) {
		ev.element.srq = srq->ibsrq;
		srq->ibsrq->event_handler(&ev, srq->ibsrq->srq_context);
	}
	spin_unlock_irqrestore(&dev->qp_lock, flags);
	if (!srq)
		dev_warn_ratelimited(&dev->vdev->dev,
				     "limit event for SRQ %u: no such SRQ on rings\n",
				     num);
}

static void eq_dispatch(struct virtio_rdma_dev *dev,
			const struct virtio_rdma_event *e)
{
	u32 type = le32_to_cpu(e->type), num = le32_to_cpu(e->number);

	switch (type) {
	case VIRTIO_RDMA_EV_CQ_COMP:
		eq_cq_event(dev, num, false);
		break;
	case VIRTIO_RDMA_EV_CQ_ERR:
		eq_cq_event(dev, num, true);
		break;
	case VIRTIO_RDMA_EV_SRQ_LIMIT:
		eq_srq_event(dev, num);
		break;
	default:
		dev_warn_ratelimited(&dev->vdev->dev,
				     "event type %u for %u: unknown\n", type, num);
	}
}

/* The event queue's interrupt: every event, each buffer given back. */
void virtio_rdma_eq_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;
	struct virtio_rdma_event *e;
	unsigned int len;

	do {
		virtqueue_disable_cb(vq);
		while ((e = virtqueue_get_buf(vq, &len))) {
			if (len >= sizeof(*e))
				eq_dispatch(dev, e);
			else
				dev_warn_ratelimited(&dev->vdev->dev,
						     "event queue: %u bytes written\n",
						     len);
			eq_give(vq, e);
		}
		virtqueue_kick(vq);
	} while (!virtqueue_enable_cb(vq));
}

int virtio_rdma_eqs_init(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_rings *r = &dev->rings;
	u32 k, i, n;

	r->cqs = kcalloc(r->max_ring_cq, sizeof(*r->cqs), GFP_KERNEL);
	r->srqs = kcalloc(r->max_ring_qp, sizeof(*r->srqs), GFP_KERNEL);
	r->qps = kcalloc(r->max_ring_qp, sizeof(*r->qps), GFP_KERNEL);
	r->ev = kcalloc(r->k, sizeof(*r->ev), GFP_KERNEL);
	if (!r->cqs || !r->srqs || !r->qps || !r->ev)
		return -ENOMEM;
	for (k = 0; k < r->k; k++) {
		struct virtqueue *vq = dev->vqs[r->first_vq + 2 * k + 1];

		n = min_t(u32, VIRTIO_RDMA_EQ_BUFS, virtqueue_get_vring_size(vq));
		r->ev[k] = kcalloc(n, sizeof(*r->ev[k]), GFP_KERNEL);
		if (!r->ev[k])
			return -ENOMEM;
		for (i = 0; i < n; i++)
			eq_give(vq, &r->ev[k][i]);
		virtqueue_kick(vq);
	}
	return 0;
}

/* After a device reset (or before the buffers were ever given). */
void virtio_rdma_eqs_free(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_rings *r = &dev->rings;
	u32 k;

	for (k = 0; r->ev && k < r->k; k++) {
		struct virtqueue *vq = dev->vqs[r->first_vq + 2 * k + 1];

		while (virtqueue_detach_unused_buf(vq))
			;
		kfree(r->ev[k]);
	}
	kfree(r->ev);
	kfree(r->qps);
	kfree(r->srqs);
	kfree(r->cqs);
	r->ev = NULL;
	r->qps = NULL;
	r->srqs = NULL;
	r->cqs = NULL;
}
