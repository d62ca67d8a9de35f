// SPDX-License-Identifier: GPL-2.0
/*
 * The control virtqueue: one synchronous command at a time, in the
 * virtio-net control format (class, command, data | ack, ack data).
 *
 * The wait is bounded. A command the device has not answered in time stays
 * with the device (its buffer cannot be reused until the device gives it
 * back); later commands first try to take it back and fail with -EBUSY
 * while it is still out.
 */
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "virtio_rdma.h"

static unsigned int ctrl_timeout_ms = 10000;
module_param(ctrl_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ctrl_timeout_ms,
		 "How long a control command may take, in ms (default 10000)");

int virtio_rdma_ctrl_init(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_ctrl *ctrl = &dev->ctrl;

	mutex_init(&ctrl->lock);
	init_completion(&ctrl->done);
	ctrl->buf = kzalloc(sizeof(*ctrl->buf), GFP_KERNEL);
	return ctrl->buf ? 0 : -ENOMEM;
}

/* After the device is reset: take back a buffer it still held. */
void virtio_rdma_ctrl_detach(struct virtio_rdma_dev *dev)
{
	while (virtqueue_detach_unused_buf(dev->vqs[VIRTIO_RDMA_VQ_CTRL]))
		;
	dev->ctrl.outstanding = false;
}

void virtio_rdma_ctrl_free(struct virtio_rdma_dev *dev)
{
	kfree(dev->ctrl.buf);
	dev->ctrl.buf = NULL;
}

void virtio_rdma_ctrl_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;

	complete(&dev->ctrl.done);
}

/* Take back the outstanding buffer if the device has used it. */
static bool ctrl_reclaim(struct virtio_rdma_ctrl *ctrl, struct virtqueue *vq,
			 unsigned int *len)
{
	if (!virtqueue_get_buf(vq, len))
		return false;
	ctrl->outstanding = false;
	return true;
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

/**
 * virtio_rdma_ctrl_cmd_sg - run one control command and wait for its answer
 * @dev: the device
 * @class: VIRTIO_NET_CTRL_*
 * @cmd: the command of @class
 * @data: command-specific-data, @len bytes (may be NULL if @len is 0)
 * @extra: more command-specific-data after @data (a page list), or NULL
 * @ack: where the ack-specific-data goes, @ack_len bytes (may be NULL if 0)
 *
 * Sleeps. Returns 0 on VIRTIO_NET_OK; -EREMOTEIO on VIRTIO_NET_ERR (the
 * ack data is then not used, ROCE-DRV-CTRL-5); -EPROTO when the device
 * wrote less than the ack data (ROCE-DEV-CTRL-9); -ETIMEDOUT when it did
 * not answer within ctrl_timeout_ms; -EBUSY while an earlier command that
 * timed out is still with the device; -EIO when the queue is broken.
 */
static int virtio_rdma_ctrl_cmd_sg(struct virtio_rdma_dev *dev, u8 class,
				   u8 cmd, const void *data, size_t len,
				   struct scatterlist *extra, void *ack,
				   size_t ack_len)
{
	struct virtio_rdma_ctrl *ctrl = &dev->ctrl;
	struct virtqueue *vq = dev->vqs[VIRTIO_RDMA_VQ_CTRL];
	struct virtio_rdma_ctrl_buf *buf = ctrl->buf;
	struct scatterlist hdr_sg, data_sg, status_sg, ack_sg;
	struct scatterlist *sgs[5];
	unsigned int out = 0, in = 0, used = 0;
	unsigned long left;
	int ret;

	if (WARN_ON(len > sizeof(buf->data) || ack_len > sizeof(buf->ack)))
		return -EINVAL;

	mutex_lock(&ctrl->lock);
	if (ctrl->outstanding && !ctrl_reclaim(ctrl, vq, &used)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	if (virtqueue_is_broken(vq)) {
		ret = -EIO;
		goto out_unlock;
	}

	/* ROCE-DRV-CTRL-3: exactly 2 + len readable, 1 + ack_len writable. */
	buf->hdr.class = class;
	buf->hdr.cmd = cmd;
	if (len)
		memcpy(buf->data, data, len);
	buf->status = VIRTIO_NET_ERR;
	memset(buf->ack, 0, ack_len);

	sg_init_one(&hdr_sg, &buf->hdr, sizeof(buf->hdr));
	sgs[out++] = &hdr_sg;
	if (len) {
		sg_init_one(&data_sg, buf->data, len);
		sgs[out++] = &data_sg;
	}
	if (extra)
		sgs[out++] = extra;
	sg_init_one(&status_sg, &buf->status, sizeof(buf->status));
	sgs[out + in++] = &status_sg;
	if (ack_len) {
		sg_init_one(&ack_sg, buf->ack, ack_len);
		sgs[out + in++] = &ack_sg;
	}

	reinit_completion(&ctrl->done);
	ret = virtqueue_add_sgs(vq, sgs, out, in, buf, GFP_KERNEL);
	if (ret) {
		dev_warn(&dev->vdev->dev, "control command %u.%u: add: %d\n",
			 class, cmd, ret);
		goto out_unlock;
	}
	ctrl->outstanding = true;
	virtqueue_kick(vq);

	/* The callback completes; check the ring too, a completion may be stale. */
	left = msecs_to_jiffies(ctrl_timeout_ms);
	while (!ctrl_reclaim(ctrl, vq, &used)) {
		if (virtqueue_is_broken(vq)) {
			ret = -EIO;
			goto out_fail;
		}
		if (!left) {
			ret = -ETIMEDOUT;
			goto out_fail;
		}
		left = wait_for_completion_timeout(&ctrl->done, left);
	}

	if (buf->status != VIRTIO_NET_OK) {
		ret = -EREMOTEIO;
		goto out_fail;
	}
	if (used < sizeof(buf->status) + ack_len) {
		ret = -EPROTO;
		goto out_fail;
	}
	if (ack_len)
		memcpy(ack, buf->ack, ack_len);
	mutex_unlock(&ctrl->lock);
	return 0;

out_fail:
	dev_warn_ratelimited(&dev->vdev->dev,
			     "control command %u.%u: %s (%d)\n", class, cmd,
			     ctrl_status_str(ret), ret);
out_unlock:
	mutex_unlock(&ctrl->lock);
	return ret;
}

int virtio_rdma_ctrl_cmd(struct virtio_rdma_dev *dev, u8 class, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len)
{
	return virtio_rdma_ctrl_cmd_sg(dev, class, cmd, data, len, NULL, ack,
				       ack_len);
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
				       len, extra, ack, ack_len);
}

int virtio_rdma_roce_cmd(struct virtio_rdma_dev *dev, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len)
{
	return virtio_rdma_roce_cmd_sg(dev, cmd, data, len, NULL, ack,
				       ack_len);
}
