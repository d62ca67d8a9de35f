/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands (virtio-net 5.1.6.5): one request at a time on the
 * control virtqueue, answered through its used ring and call eventfd.
 *
 * Each command gets its own buffer in driver memory:
 *   [class, command][command-specific-data] [ack][ack-specific-data]
 * as up to four descriptors, device-readable then device-writable. A
 * command that times out stays with the device (its buffer may still be
 * written), so the buffer is freed only when the device returns it, or when
 * the device is closed.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "device.h"
#include "log.h"
#include "virtqueue.h"
#include "clock.h"

#define CTRL_HDR_LEN 2
#define CTRL_ACK_LEN 1

struct ctrl_req {
	struct vuser_buf buf;
	uint8_t *ack; /* the ack byte, in driver memory */
	uint32_t ack_len;
};

static void
release_req(struct vur_user_dev *d, struct ctrl_req *req)
{
	vuser_mem_free(&d->mem, &req->buf);
	free(req);
}

void
vuser_ctrl_release_all(struct vur_user_dev *d)
{
	struct vuser_vq *vq = vuser_dev_ctrl_vq(d);
	struct ctrl_req *req;
	uint16_t pos = 0;

	if (vq == NULL || vq->ring.slots == NULL)
		return;
	while ((req = vuser_vring_next_in_flight(&vq->ring, &pos)) != NULL)
		release_req(d, req);
}

/* ROCE-DRV-CTRL-1, -2: what the driver must not send. */
static int
check_allowed(struct vur_user_dev *d, uint8_t cls, uint8_t cmd)
{
	if (cls != vur_user_roce_class(d))
		return 0;
	if (!d->roce) {
		VUSER_LOG(ERR, d->name, "RoCE command %u: VIRTIO_NET_F_ROCE not negotiated", cmd);
		return -EOPNOTSUPP;
	}
	if (cmd == VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED && !d->port_speed) {
		VUSER_LOG(ERR, d->name,
				"QUERY_PORT_SPEED: VIRTIO_NET_F_ROCE_PORT_SPEED not negotiated");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int
post(struct vur_user_dev *d, struct vuser_vq *vq, uint8_t cls, uint8_t cmd, const void *data,
		uint32_t len, uint32_t ack_len, struct ctrl_req **reqp)
{
	size_t total = (size_t)CTRL_HDR_LEN + len + CTRL_ACK_LEN + ack_len;
	struct vuser_sg sg[4];
	unsigned int n_out = 0, n_in = 0;
	struct ctrl_req *req;
	uint8_t *p;
	int ret;

	req = calloc(1, sizeof(*req));
	if (req == NULL)
		return -ENOMEM;
	ret = vuser_mem_alloc(&d->mem, total, VUSER_PAGE_SIZE, &req->buf);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "control command %u/%u: no driver memory for %zu bytes",
				cls, cmd, total);
		free(req);
		return ret;
	}
	p = req->buf.hva;
	p[0] = cls;
	p[1] = cmd;
	if (len > 0)
		memcpy(p + CTRL_HDR_LEN, data, len);
	req->ack = p + CTRL_HDR_LEN + len;
	req->ack_len = ack_len;

	sg[n_out++] = (struct vuser_sg){ req->buf.gpa, CTRL_HDR_LEN };
	if (len > 0)
		sg[n_out++] = (struct vuser_sg){ req->buf.gpa + CTRL_HDR_LEN, len };
	sg[n_out + n_in++] = (struct vuser_sg){ req->buf.gpa + CTRL_HDR_LEN + len, CTRL_ACK_LEN };
	if (ack_len > 0)
		sg[n_out + n_in++] =
				(struct vuser_sg){ req->buf.gpa + CTRL_HDR_LEN + len + 1, ack_len };

	ret = vuser_vring_add(&vq->ring, sg, n_out, n_in, req);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "control command %u/%u: %s", cls, cmd,
				ret == -EIO ? vq->ring.broken_reason : strerror(-ret));
		release_req(d, req);
		return ret;
	}
	if (vuser_vring_publish(&vq->ring)) {
		ret = vuser_vq_kick(vq);
		if (ret < 0)
			VUSER_LOG(ERR, d->name, "control queue kick: %s", strerror(-ret));
	}
	*reqp = req;
	return 0;
}

/* Wait for @req to be used, reclaiming earlier commands that come back first. */
static int
wait_used(struct vur_user_dev *d, struct vuser_vq *vq, struct ctrl_req *req, uint32_t *len)
{
	int64_t deadline = vuser_now_ms() + d->params.timeout_ms, left;
	struct pollfd pfd = { .fd = vq->call_fd, .events = POLLIN };
	bool slept_through = false;
	uint64_t count;
	void *cookie;
	int ret;

	for (;;) {
		ret = vuser_vring_get_used(&vq->ring, &cookie, len);
		if (ret < 0) {
			VUSER_LOG(ERR, d->name, "control queue broken: %s", vq->ring.broken_reason);
			return ret;
		}
		if (ret == 1 && cookie != req) {
			release_req(d, cookie); /* an answer that came too late */
			continue;
		}
		if (ret == 1) {
			if (slept_through)
				VUSER_LOG(WARNING, d->name,
						"control answer without a notification");
			return 0;
		}
		if (vuser_vring_enable_notify(&vq->ring))
			continue;
		left = deadline - vuser_now_ms();
		if (left <= 0 || slept_through)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, (int)left);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret > 0 && read(vq->call_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			return -errno;
		/* A full timeout without a notification: look once more, then give up. */
		slept_through = ret == 0;
	}
}

/* Copy the answer out; ROCE-DRV-CTRL-5: no ack data from a failed command. */
static int
take_answer(struct vur_user_dev *d, struct ctrl_req *req, uint32_t used_len, void *ack,
		uint8_t *status)
{
	uint32_t n;

	if (used_len < CTRL_ACK_LEN) {
		VUSER_LOG(ERR, d->name, "control command answered without an ack byte");
		return -EPROTO;
	}
	n = used_len - CTRL_ACK_LEN;
	*status = *req->ack;
	if (*status != VIRTIO_NET_OK)
		return 0;
	if (n > 0)
		memcpy(ack, req->ack + CTRL_ACK_LEN, n);
	return (int)n;
}

int
vur_user_ctrl(struct vur_user_dev *d, uint8_t cls, uint8_t cmd, const void *data, uint32_t len,
		void *ack, uint32_t ack_len, uint8_t *status)
{
	struct ctrl_req *req = NULL;
	struct vuser_vq *vq;
	uint32_t used_len = 0;
	int ret;

	if (d == NULL || status == NULL || (len > 0 && data == NULL) ||
			(ack_len > 0 && ack == NULL) || len > d->mem.size || ack_len > d->mem.size)
		return -EINVAL;
	/* Whatever happens, the caller never reads stale or uninitialised answers. */
	*status = VIRTIO_NET_ERR;
	if (ack_len > 0)
		memset(ack, 0, ack_len);
	vq = vuser_dev_ctrl_vq(d);
	if (vq == NULL) {
		VUSER_LOG(ERR, d->name, "no control queue: VIRTIO_NET_F_CTRL_VQ not negotiated");
		return -EOPNOTSUPP;
	}
	ret = check_allowed(d, cls, cmd);
	if (ret < 0)
		return ret;

	pthread_mutex_lock(&d->ctrl_lock);
	ret = post(d, vq, cls, cmd, data, len, ack_len, &req);
	if (ret == 0)
		ret = wait_used(d, vq, req, &used_len);
	if (ret == -ETIMEDOUT)
		VUSER_LOG(ERR, d->name, "control command %u/%u: no answer within %u ms", cls, cmd,
				d->params.timeout_ms);
	if (ret == 0) {
		ret = take_answer(d, req, used_len, ack, status);
		release_req(d, req);
	}
	pthread_mutex_unlock(&d->ctrl_lock);
	return ret;
}
