/* SPDX-License-Identifier: BSD-3-Clause */
/* Completion queues: CREATE_CQ, DESTROY_CQ and REQ_NOTIFY_CQ. */
#include <endian.h>
#include <errno.h>

#include "device.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"

VUSER_SAME_VALUE(VUR_USER_NOTIFY_SOLICITED, VIRTIO_IB_NOTIFY_SOLICITED);
VUSER_SAME_VALUE(VUR_USER_NOTIFY_NEXT_COMPLETION, VIRTIO_IB_NOTIFY_NEXT_COMPLETION);

int
vur_user_create_cq(struct vur_user_dev *d, uint32_t cqe, uint32_t *cqn)
{
	return vur_user_create_cq_ex(d, cqe, VUR_USER_LAYOUT_AUTO, cqn);
}

int
vur_user_create_cq_ex(struct vur_user_dev *d, uint32_t cqe, uint8_t layout, uint32_t *cqn)
{
	struct virtio_rdma_cmd_create_cq c = { .cqe = htole32(cqe) };
	struct virtio_rdma_ack_create_cq a;
	int ret;

	if (d == NULL || cqn == NULL)
		return -EINVAL;
	ret = vuser_rings_choose(d, layout);
	if (ret < 0)
		return ret;
	if (ret == 1)
		return vuser_rcq_create(d, cqe, cqn);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0)
		return ret;
	ret = vuser_cq_attach(d, le32toh(a.cqn), cqe);
	if (ret == -ENOMEM)
		vur_user_destroy_cq(d, le32toh(a.cqn));
	else if (ret == 0)
		*cqn = le32toh(a.cqn);
	return ret;
}

/* The virtqueue back in its initial state before the next create (ROCE-DRV-LIFE-2). */
int
vur_user_destroy_cq(struct vur_user_dev *d, uint32_t cqn)
{
	struct virtio_rdma_cmd_destroy_cq c = { .cqn = htole32(cqn) };
	int ret;

	if (d == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &c, sizeof(c), NULL, 0);
	if (ret == 0)
		vuser_cq_detach(d, cqn);
	return ret;
}

/* ROCE-DRV-RING-8: RESIZE_CQ on rings only; a virtqueue CQ is the driver's alone. */
int
vur_user_resize_cq(struct vur_user_dev *d, uint32_t cqn, uint32_t cqe)
{
	struct vuser_cq *cq = d != NULL ? vuser_cq_get(d, cqn) : NULL;
	int ret;

	if (cq == NULL)
		return -EINVAL;
	pthread_mutex_lock(&cq->lock); /* no poll while the ring changes */
	if (cq->r != NULL)
		ret = vuser_rcq_resize(d, cqn, cq->r, cqe);
	else
		ret = vuser_cq_resize_vq(d, cq, cqe);
	if (ret == 0)
		cq->n = cqe;
	pthread_mutex_unlock(&cq->lock);
	return ret;
}

int
vur_user_req_notify_cq(struct vur_user_dev *d, uint32_t cqn, uint32_t flags)
{
	struct virtio_rdma_cmd_req_notify c = { .cqn = htole32(cqn), .flags = htole32(flags) };
	struct vuser_cq *cq;

	if (d == NULL)
		return -EINVAL;
	cq = vuser_cq_get(d, cqn);
	if (cq != NULL && cq->r != NULL)
		return vuser_rcq_arm(d, cq->r, flags); /* ROCE-DRV-RING-4: in the record */
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ, &c, sizeof(c), NULL, 0);
}
