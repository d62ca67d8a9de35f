/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues. A CQ's number is its completion virtqueue's: the
 * device picks an eligible one, a ready virtqueue not bound to a CQ and
 * large enough for @cqe entries (one buffer per CQE).
 */
#include <errno.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

int
vur_rdma_create_cq(struct vur_rdma_dev *rd, uint32_t cqe, uint32_t *cqn)
{
	struct vur_rdma_cq *cq;
	uint32_t c, vq;
	uint16_t size;

	if (cqe == 0 || cqe > rd->limits.max_cqe) { /* ROCE-DEV-CQ-1 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_CQ: cqe %u outside 1..%u", cqe,
				rd->limits.max_cqe);
		return -EINVAL;
	}
	if (vur_rdma_quota_take(rd, VUR_QUOTA_CQS, 1, "CREATE_CQ") < 0) /* ROCE-DEV-QUOTA-2 */
		return -EDQUOT;
	/* ROCE-DEV-CQ-2, -3 */
	for (c = 0; c < rd->limits.max_cqs; c++) {
		if (vur_pool_get(&rd->cqs, c) != NULL)
			continue;
		vq = virtio_net_roce_cq_vq(rd->env.n_pairs, c);
		size = rd->env.vq_size(rd->env.arg, vq);
		if (size < cqe)
			continue;
		cq = vur_pool_alloc_at(&rd->cqs, c);
		if (cq == NULL) {
			VUR_RDMA_LOG(rd, ERR, "CREATE_CQ: no memory for CQ %u", c);
			return -ENOMEM;
		}
		cq->cqe = cqe; /* ROCE-DEV-CQ-4: zeroed, so unarmed and not in error */
		cq->vq = vq;
		cq->vq_size = size;
		if (rd->env.hooks != NULL && rd->env.hooks->cq_bind(rd->env.hooks_arg, cq) < 0) {
			vur_pool_free(&rd->cqs, c);
			VUR_RDMA_LOG(rd, ERR, "CREATE_CQ: no memory for CQ %u", c);
			return -ENOMEM;
		}
		*cqn = c;
		return 0;
	}
	VUR_RDMA_LOG(rd, NOTICE, "CREATE_CQ: no free completion virtqueue of %u entries", cqe);
	return -ENOSPC;
}

int
vur_rdma_destroy_cq(struct vur_rdma_dev *rd, uint32_t cqn)
{
	struct vur_rdma_cq *cq = vur_pool_get(&rd->cqs, cqn);
	int ret;

	/* ROCE-DEV-LIFE-3: the transport lets go of its virtqueue first. */
	if (cq != NULL && cq->obj.refcnt == 0 && rd->env.hooks != NULL)
		rd->env.hooks->cq_unbind(rd->env.hooks_arg, cq);
	ret = vur_pool_free(&rd->cqs, cqn);
	if (ret == 0) { /* ROCE-DEV-RING-20: not touched again, its MRs free */
		vur_rdma_rings_free(rd, cq->rings);
		cq->rings = NULL;
	}

	/* ROCE-DEV-CQ-5, -6 */
	if (ret == -ENOENT)
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_CQ: no CQ %u", cqn);
	else if (ret == -EBUSY)
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_CQ: QPs still use CQ %u", cqn);
	return ret;
}

int
vur_rdma_req_notify_cq(struct vur_rdma_dev *rd, uint32_t cqn, uint32_t flags)
{
	struct vur_rdma_cq *cq = vur_pool_get(&rd->cqs, cqn);

	/* ROCE-DEV-CQ-7 */
	if (cq == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "REQ_NOTIFY_CQ: no CQ %u", cqn);
		return -ENOENT;
	}
	if (cq->rings != NULL) { /* ROCE-DEV-RING-16: armed through its record */
		VUR_RDMA_LOG(rd, NOTICE, "REQ_NOTIFY_CQ: CQ %u is on rings", cqn);
		return -EINVAL;
	}
	if (cq->error) {
		VUR_RDMA_LOG(rd, NOTICE, "REQ_NOTIFY_CQ: CQ %u is in error", cqn);
		return -EIO;
	}
	if (flags != VIRTIO_IB_NOTIFY_SOLICITED && flags != VIRTIO_IB_NOTIFY_NEXT_COMPLETION) {
		VUR_RDMA_LOG(rd, NOTICE, "REQ_NOTIFY_CQ: flags 0x%x are not exactly one condition",
				flags);
		return -EINVAL;
	}
	/* ROCE-DEV-NOTIFY-6: NEXT_COMPLETION wins when both are armed. */
	cq->armed |= flags;
	return 0;
}
