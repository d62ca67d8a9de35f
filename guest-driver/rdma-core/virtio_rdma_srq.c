// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: the control path through the kernel, the data
 * path through the SRQ's virtqueue (the receive virtqueue of its number).
 * A receive WR is written into a free slot as the device's request
 * (struct virtio_rdma_rq_req with its s/g list) and made available. The
 * device uses an SRQ's WRs in the order their messages complete, so a
 * slot is free again once the used ring names it (virtio_rdma-abi.h).
 *
 * With the kernel's rings layout the SRQ is a ring instead
 * (virtio_rdma_qp_ring.c): WRs in order, no doorbell.
 *
 * The SRQ limit is the kernel's: ibv_modify_srq() arms it there, the
 * kernel watches the SRQ's used ring and raises IBV_EVENT_SRQ_LIMIT_REACHED
 * on the context's async event file, which libibverbs reads.
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "virtio_rdma.h"

struct ibv_srq *virtio_rdma_create_srq(struct ibv_pd *ibpd,
				       struct ibv_srq_init_attr *attr)
{
	struct virtio_rdma_create_srq_uresp resp = {};
	/* An older kernel reads none of it and answers with a virtqueue. */
	struct virtio_rdma_create_srq_ucmd cmd = {
		.drv.flags = VIRTIO_RDMA_CREATE_SRQ_RINGS,
	};
	struct virtio_rdma_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;

	ret = ibv_cmd_create_srq(ibpd, &srq->ibv_srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	/* attr->attr now holds what the kernel granted. */
	if (resp.drv.flags & VIRTIO_RDMA_SRQ_RESP_RINGS) {
		ret = virtio_rdma_srq_ring_map(
			srq, ibpd->context->cmd_fd, attr->attr.max_wr,
			virtio_rdma_rq_stride(attr->attr.max_sge), &resp.drv);
		if (ret)
			goto err_destroy;
		goto limits;
	}
	if (attr->attr.max_wr > resp.drv.rq.num) {
		ret = EINVAL;
		goto err_destroy;
	}
	ret = virtio_rdma_vq_map(&srq->vq, ibpd->context->cmd_fd, &resp.drv.rq,
				 virtio_rdma_rq_stride(attr->attr.max_sge),
				 true);
	if (ret)
		goto err_destroy;
limits:
	srq->vq.max_wr = attr->attr.max_wr;
	srq->vq.max_sge = attr->attr.max_sge;
	srq->srqn = resp.drv.srqn;
	srq->fresh = 0;
	srq->reclaimed = srq->vq.last_used;
	return &srq->ibv_srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->ibv_srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

int virtio_rdma_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			   int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int virtio_rdma_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

/* The command first, then the mappings, as for a QP. */
int virtio_rdma_destroy_srq(struct ibv_srq *ibsrq)
{
	struct virtio_rdma_srq *srq = to_vsrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	if (srq->vq.rings)
		munmap(srq->area, srq->area_len);
	else
		virtio_rdma_vq_unmap(&srq->vq);
	free(srq);
	return 0;
}

/*
 * A free slot: one never posted, else the one the next used element
 * gives back. EIO for a used element that names no slot (a broken ring:
 * nothing is posted).
 */
static int srq_take_slot(struct virtio_rdma_srq *srq, uint16_t *slot)
{
	struct virtio_rdma_vq *vq = &srq->vq;
	uint32_t id;

	if (srq->fresh < vq->num) {
		*slot = srq->fresh++;
		return 0;
	}
	if (srq->reclaimed == vq->last_used)
		vq->last_used = virtio_rdma_vq_used_idx(vq);
	if (srq->reclaimed == vq->last_used)
		return ENOMEM;
	id = le32toh(vq->used->ring[srq->reclaimed & (vq->num - 1)].id);
	if (id >= vq->num)
		return EIO;
	srq->reclaimed++;
	*slot = id;
	return 0;
}

int virtio_rdma_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct virtio_rdma_srq *srq = to_vsrq(ibsrq);
	struct virtio_rdma_vq *vq = &srq->vq;
	uint32_t old;
	uint16_t slot;
	int ret = 0;

	pthread_spin_lock(&vq->lock);
	old = vq->avail_idx;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > vq->max_sge) {
			ret = EINVAL;
			break;
		}
		/* At most max_wr outstanding (ROCE-DRV-SRQ-3). */
		if (virtio_rdma_vq_full(vq)) {
			ret = ENOMEM;
			break;
		}
		if (vq->rings) { /* in order: entry n % size */
			virtio_rdma_rq_req(virtio_rdma_vq_next_slot(vq), wr);
			virtio_rdma_vq_push(vq);
			continue;
		}
		ret = srq_take_slot(srq, &slot);
		if (ret)
			break;
		virtio_rdma_rq_req(virtio_rdma_vq_slot(vq, slot), wr);
		virtio_rdma_vq_repost(vq, slot);
	}
	if (ret)
		*bad_wr = wr;
	if (vq->avail_idx != old) {
		virtio_rdma_vq_publish(vq);
		/* On rings no doorbell: the device takes WRs as they come. */
		if (!vq->rings)
			virtio_rdma_vq_notify(vq, old);
	}
	pthread_spin_unlock(&vq->lock);
	return ret;
}
