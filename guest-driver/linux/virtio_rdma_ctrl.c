// SPDX-License-Identifier: GPL-2.0
/*
 * The control virtqueue, in the virtio-net control format (class,
 * command, data | ack, ack data). Each command waits for its answer, with
 * a bound.
 *
 * Two kinds of caller. Most verbs run in process context and sleep until
 * the answer. Some are called in atomic context by kernel consumers: the
 * CM creates and destroys address handles under its spinlock
 * (rdma_create_ah() without RDMA_CREATE_AH_SLEEPABLE, rdma_destroy_ah()
 * without RDMA_DESTROY_AH_SLEEPABLE), and ULPs arm their CQs from softirq
 * or from the completion handler (ib_req_notify_cq()). Those take the
 * atomic path: under the queue's spinlock, interrupts off, they add the
 * command, kick, and poll the used ring until the answer, for at most
 * ctrl_atomic_timeout_ms (virtio_net's control queue busy-waits the same
 * way, without a bound). The device answers a control command without
 * waiting for anything the guest does, so the wait is short: the backend's
 * time to run one command.
 *
 * Each kind has a buffer of its own, so an atomic command never waits for
 * a sleeping one: at most two commands are with the device, and whoever
 * takes a used buffer off the ring (the sleeper, the atomic caller or the
 * interrupt) records it in that buffer's state. Sleeping commands are
 * serialized by a mutex, atomic ones by the spinlock they hold throughout.
 *
 * A command the device has not answered in time stays with the device
 * (its buffer cannot be reused until the device gives it back); the next
 * command of that kind fails with -EBUSY while it is still out.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "virtio_rdma.h"

static unsigned int ctrl_timeout_ms = 10000;
module_param(ctrl_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ctrl_timeout_ms,
		 "How long a control command may take, in ms (default 10000)");

static unsigned int ctrl_atomic_timeout_ms = 1000;
module_param(ctrl_atomic_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ctrl_atomic_timeout_ms,
		 "How long a control command in atomic context may busy-wait, in ms (default 1000)");

int virtio_rdma_ctrl_init(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_ctrl *ctrl = &dev->ctrl;
	int i;

	spin_lock_init(&ctrl->lock);
	mutex_init(&ctrl->sleep_lock);
	init_completion(&ctrl->done);
	for (i = 0; i < VIRTIO_RDMA_CTRL_KINDS; i++) {
		ctrl->buf[i] = kzalloc(sizeof(*ctrl->buf[i]), GFP_KERNEL);
		if (!ctrl->buf[i]) {
			virtio_rdma_ctrl_free(dev);
			return -ENOMEM;
		}
	}
	return 0;
}

/* After the device is reset: take back the buffers it still held. */
void virtio_rdma_ctrl_detach(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_ctrl *ctrl = &dev->ctrl;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&ctrl->lock, flags);
	while (virtqueue_detach_unused_buf(dev->vqs[VIRTIO_RDMA_VQ_CTRL]))
		;
	for (i = 0; i < VIRTIO_RDMA_CTRL_KINDS; i++)
		ctrl->buf[i]->inflight = false;
	spin_unlock_irqrestore(&ctrl->lock, flags);
}

void virtio_rdma_ctrl_free(struct virtio_rdma_dev *dev)
{
	int i;

	for (i = 0; i < VIRTIO_RDMA_CTRL_KINDS; i++) {
		kfree(dev->ctrl.buf[i]);
		dev->ctrl.buf[i] = NULL;
	}
}

/* Under ctrl->lock: record every buffer the device has used. */
static void ctrl_reap(struct virtio_rdma_ctrl *ctrl, struct virtqueue *vq)
{
	struct virtio_rdma_ctrl_buf *buf;
	unsigned int len;

	while ((buf = virtqueue_get_buf(vq, &len))) {
		buf->used = len;
		buf->inflight = false;
		if (buf == ctrl->buf[VIRTIO_RDMA_CTRL_SLEEP])
			complete(&ctrl->done);
	}
}

void virtio_rdma_ctrl_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;
	unsigned long flags;

	spin_lock_irqsave(&dev->ctrl.lock, flags);
	ctrl_reap(&dev->ctrl, vq);
	spin_unlock_irqrestore(&dev->ctrl.lock, flags);
}

static const char *ctrl_status_str(int ret)
{
	switch (ret) {
	case -EREMOTEIO:
		return "VIRTIO_NET_ERR";
	case -ETIMEDOUT:
		return "no answer";
	case -EPROTO:
		return "short ack";
	default:
		return "failed";
	}
}

/* What a command to run: the control header, its data and ack. */
struct ctrl_cmd {
	u8 class;
	u8 cmd;
	const void *data;
	size_t len;
	struct scatterlist *extra;	/* more data after @data, or NULL */
	void *ack;
	size_t ack_len;
};

/*
 * Under ctrl->lock: put @c in @buf, add it and kick. The buffer must be
 * back from the device (-EBUSY otherwise) and the queue working (-EIO).
 */
static int ctrl_submit(struct virtio_rdma_dev *dev,
		       struct virtio_rdma_ctrl_buf *buf, const struct ctrl_cmd *c)
{
	struct virtqueue *vq = dev->vqs[VIRTIO_RDMA_VQ_CTRL];
	struct scatterlist hdr_sg, data_sg, status_sg, ack_sg;
	struct scatterlist *sgs[5];
	unsigned int out = 0, in = 0;
	int ret;

	ctrl_reap(&dev->ctrl, vq);
	if (buf->inflight)
		return -EBUSY;
	if (virtqueue_is_broken(vq))
		return -EIO;

	/* ROCE-DRV-CTRL-3: exactly 2 + len readable, 1 + ack_len writable. */
	buf->hdr.class = c->class;
	buf->hdr.cmd = c->cmd;
	if (c->len)
		memcpy(buf->data, c->data, c->len);
	buf->status = VIRTIO_NET_ERR;
	memset(buf->ack, 0, c->ack_len);
	buf->used = 0;

	sg_init_one(&hdr_sg, &buf->hdr, sizeof(buf->hdr));
	sgs[out++] = &hdr_sg;
	if (c->len) {
		sg_init_one(&data_sg, buf->data, c->len);
		sgs[out++] = &data_sg;
	}
	if (c->extra)
		sgs[out++] = c->extra;
	sg_init_one(&status_sg, &buf->status, sizeof(buf->status));
	sgs[out + in++] = &status_sg;
	if (c->ack_len) {
		sg_init_one(&ack_sg, buf->ack, c->ack_len);
		sgs[out + in++] = &ack_sg;
	}

	ret = virtqueue_add_sgs(vq, sgs, out, in, buf, GFP_ATOMIC);
	if (ret) {
		dev_warn_ratelimited(&dev->vdev->dev,
				     "control command %u.%u: add: %d\n",
				     c->class, c->cmd, ret);
		return ret;
	}
	buf->inflight = true;
	virtqueue_kick(vq);
	return 0;
}

/* The answer in @buf, which the device has given back. */
static int ctrl_answer(struct virtio_rdma_ctrl_buf *buf,
		       const struct ctrl_cmd *c)
{
	if (buf->status != VIRTIO_NET_OK)
		return -EREMOTEIO;
	if (buf->used < sizeof(buf->status) + c->ack_len)
		return -EPROTO;
	if (c->ack_len)
		memcpy(c->ack, buf->ack, c->ack_len);
	return 0;
}

static void ctrl_warn(struct virtio_rdma_dev *dev, const struct ctrl_cmd *c,
		      int ret)
{
	dev_warn_ratelimited(&dev->vdev->dev,
			     "control command %u.%u: %s (%d)\n", c->class,
			     c->cmd, ctrl_status_str(ret), ret);
}

/* Sleeps until the answer or ctrl_timeout_ms. */
static int ctrl_run_sleep(struct virtio_rdma_dev *dev,
			  const struct ctrl_cmd *c)
{
	struct virtio_rdma_ctrl *ctrl = &dev->ctrl;
	struct virtio_rdma_ctrl_buf *buf = ctrl->buf[VIRTIO_RDMA_CTRL_SLEEP];
	struct virtqueue *vq = dev->vqs[VIRTIO_RDMA_VQ_CTRL];
	unsigned long left = msecs_to_jiffies(ctrl_timeout_ms);
	bool inflight, broken;
	int ret;

	mutex_lock(&ctrl->sleep_lock);
	spin_lock_irq(&ctrl->lock);
	reinit_completion(&ctrl->done);
	ret = ctrl_submit(dev, buf, c);
	spin_unlock_irq(&ctrl->lock);
	if (ret)
		goto out_unlock;

	/* The callback completes; check the ring too, a completion may be stale. */
	for (;;) {
		spin_lock_irq(&ctrl->lock);
		ctrl_reap(ctrl, vq);
		inflight = buf->inflight;
		broken = virtqueue_is_broken(vq);
		spin_unlock_irq(&ctrl->lock);
		if (!inflight)
			break;
		if (broken) {
			ret = -EIO;
			goto out_fail;
		}
		if (!left) {
			ret = -ETIMEDOUT;
			goto out_fail;
		}
		left = wait_for_completion_timeout(&ctrl->done, left);
	}
	ret = ctrl_answer(buf, c);
	if (ret)
		goto out_fail;
	mutex_unlock(&ctrl->sleep_lock);
	return 0;

out_fail:
	ctrl_warn(dev, c, ret);
out_unlock:
	mutex_unlock(&ctrl->sleep_lock);
	return ret;
}

/* Busy-waits, interrupts off, until the answer or ctrl_atomic_timeout_ms. */
static int ctrl_run_atomic(struct virtio_rdma_dev *dev,
			   const struct ctrl_cmd *c)
{
	struct virtio_rdma_ctrl *ctrl = &dev->ctrl;
	struct virtio_rdma_ctrl_buf *buf = ctrl->buf[VIRTIO_RDMA_CTRL_ATOMIC];
	struct virtqueue *vq = dev->vqs[VIRTIO_RDMA_VQ_CTRL];
	unsigned long flags;
	ktime_t deadline;
	int ret;

	spin_lock_irqsave(&ctrl->lock, flags);
	ret = ctrl_submit(dev, buf, c);
	if (ret)
		goto out_unlock;
	deadline = ktime_add_ms(ktime_get(), ctrl_atomic_timeout_ms);
	for (;;) {
		ctrl_reap(ctrl, vq);
		if (!buf->inflight)
			break;
		if (virtqueue_is_broken(vq)) {
			ret = -EIO;
			goto out_fail;
		}
		if (ktime_after(ktime_get(), deadline)) {
			ret = -ETIMEDOUT;
			goto out_fail;
		}
		cpu_relax();
	}
	ret = ctrl_answer(buf, c);
	if (ret)
		goto out_fail;
	spin_unlock_irqrestore(&ctrl->lock, flags);
	return 0;

out_fail:
	ctrl_warn(dev, c, ret);
out_unlock:
	spin_unlock_irqrestore(&ctrl->lock, flags);
	return ret;
}

/**
 * virtio_rdma_ctrl_cmd_sg - run one control command and wait for its answer
 * @dev: the device
 * @class: VIRTIO_NET_CTRL_*
 * @cmd: the command of @class
 * @data: command-specific-data, @len bytes (may be NULL if @len is 0)
 * @extra: more command-specific-data after @data (a page list), or NULL
 * @ack: where the ack-specific-data goes, @ack_len bytes (may be NULL if 0)
 * @atomic: busy-wait (any context) instead of sleeping
 *
 * Returns 0 on VIRTIO_NET_OK; -EREMOTEIO on VIRTIO_NET_ERR (the ack data
 * is then not used, ROCE-DRV-CTRL-5); -EPROTO when the device wrote less
 * than the ack data (ROCE-DEV-CTRL-9); -ETIMEDOUT when it did not answer
 * in time; -EBUSY while an earlier command of the same kind that timed out
 * is still with the device; -EIO when the queue is broken.
 */
static int virtio_rdma_ctrl_cmd_sg(struct virtio_rdma_dev *dev, u8 class,
				   u8 cmd, const void *data, size_t len,
				   struct scatterlist *extra, void *ack,
				   size_t ack_len, bool atomic)
{
	const struct ctrl_cmd c = {
		.class = class, .cmd = cmd, .data = data, .len = len,
		.extra = extra, .ack = ack, .ack_len = ack_len,
	};

	if (WARN_ON(len > VIRTIO_RDMA_CTRL_DATA_MAX ||
		    ack_len > VIRTIO_RDMA_CTRL_ACK_MAX))
		return -EINVAL;
	return atomic ? ctrl_run_atomic(dev, &c) : ctrl_run_sleep(dev, &c);
}

int virtio_rdma_ctrl_cmd(struct virtio_rdma_dev *dev, u8 class, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len)
{
	return virtio_rdma_ctrl_cmd_sg(dev, class, cmd, data, len, NULL, ack,
				       ack_len, false);
}

/* A command of class VIRTIO_NET_CTRL_ROCE (ROCE-DRV-CTRL-1: only with RoCE). */
int virtio_rdma_roce_cmd_sg(struct virtio_rdma_dev *dev, u8 cmd,
			    const void *data, size_t len,
			    struct scatterlist *extra, void *ack,
			    size_t ack_len)
{
	if (!virtio_has_feature(dev->vdev, VIRTIO_NET_F_ROCE))
		return -EOPNOTSUPP;
	return virtio_rdma_ctrl_cmd_sg(dev, VIRTIO_NET_CTRL_ROCE, cmd, data,
				       len, extra, ack, ack_len, false);
}

int virtio_rdma_roce_cmd(struct virtio_rdma_dev *dev, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len)
{
	return virtio_rdma_roce_cmd_sg(dev, cmd, data, len, NULL, ack,
				       ack_len);
}

/* The same in any context: busy-waits instead of sleeping. */
int virtio_rdma_roce_cmd_atomic(struct virtio_rdma_dev *dev, u8 cmd,
				const void *data, size_t len, void *ack,
				size_t ack_len)
{
	if (!virtio_has_feature(dev->vdev, VIRTIO_NET_F_ROCE))
		return -EOPNOTSUPP;
	return virtio_rdma_ctrl_cmd_sg(dev, VIRTIO_NET_CTRL_ROCE, cmd, data,
				       len, NULL, ack, ack_len, true);
}
