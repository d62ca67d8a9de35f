/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: CREATE_SRQ on an eligible number of the QP
 * numbers (its receive virtqueue), DESTROY_SRQ once no QP uses it. The
 * transport takes their WRs (transport/tp_srq.c).
 */
#include <errno.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

#define SRQN_FIRST 2 /* 0 and 1 are never an SRQ's (ROCE-DEV-VQ-5) */

/*
 * ROCE-DEV-SRQ-4, VQ-5: the first number that no QP or SRQ has, whose
 * receive virtqueue is ready, unbound and of max_wr entries at least.
 */
static struct vur_rdma_srq *
bind_srq(struct vur_rdma_dev *rd, uint32_t max_wr)
{
	struct vur_rdma_srq *srq;
	uint32_t q, vq;
	uint16_t size;

	for (q = SRQN_FIRST; q < rd->limits.max_qps; q++) {
		if (vur_pool_get(&rd->qps, q) != NULL || vur_pool_get(&rd->srqs, q) != NULL)
			continue;
		vq = virtio_net_roce_rq_vq(rd->env.n_pairs, rd->limits.max_cqs, q);
		size = rd->env.vq_size(rd->env.arg, vq);
		if (size == 0 || size < max_wr)
			continue;
		srq = vur_pool_alloc_at(&rd->srqs, q);
		if (srq == NULL) /* no memory for its chunk */
			return NULL;
		srq->vq = vq;
		srq->vq_size = size;
		return srq;
	}
	return NULL;
}

int
vur_rdma_create_srq(
		struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_srq *c, uint32_t *srqn)
{
	uint32_t pdn = rte_le_to_cpu_32(c->pdn), max_wr = rte_le_to_cpu_32(c->max_wr);
	uint32_t max_sge = rte_le_to_cpu_32(c->max_sge);
	const struct vur_rdma_limits *l = &rd->limits;
	struct vur_rdma_srq *srq;
	struct vur_rdma_pd *pd;

	if (l->max_srq == 0) { /* ROCE-DEV-CTRL-16 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: the device has no SRQs");
		return -EOPNOTSUPP;
	}
	pd = vur_pool_get(&rd->pds, pdn);
	if (pd == NULL) { /* ROCE-DEV-SRQ-1 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: no PD %u", pdn);
		return -ENOENT;
	}
	if (rte_le_to_cpu_32(c->flags) != 0) { /* ROCE-DEV-RING-4: F_RINGS needs its length */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: flags 0x%x", rte_le_to_cpu_32(c->flags));
		return -EINVAL;
	}
	if (max_wr == 0 || max_wr > l->max_srq_wr || max_sge > l->max_srq_sge) { /* SRQ-2 */
		VUR_RDMA_LOG(rd, NOTICE,
				"CREATE_SRQ: max_wr %u (1 to %u), max_sge %u (up to %u) refused",
				max_wr, l->max_srq_wr, max_sge, l->max_srq_sge);
		return -EINVAL;
	}
	if (rd->srqs.count >= l->max_srq) { /* ROCE-DEV-SRQ-3 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: max_srq (%u) SRQs are live", l->max_srq);
		return -ENOSPC;
	}
	srq = bind_srq(rd, max_wr);
	if (srq == NULL) { /* ROCE-DEV-SRQ-3 */
		VUR_RDMA_LOG(rd, NOTICE,
				"CREATE_SRQ: no free number with a ready receive virtqueue of %u "
				"entries",
				max_wr);
		return -ENOSPC;
	}
	srq->pdn = pdn;
	srq->max_wr = max_wr;
	srq->max_sge = max_sge;
	if (rd->env.hooks != NULL && rd->env.hooks->srq_bind(rd->env.hooks_arg, srq) < 0) {
		VUR_RDMA_LOG(rd, ERR, "CREATE_SRQ: no memory for SRQ %u", srq->obj.index);
		vur_pool_free(&rd->srqs, srq->obj.index);
		return -ENOMEM;
	}
	vur_pool_ref(pd);
	*srqn = srq->obj.index;
	return 0;
}

int
vur_rdma_destroy_srq(struct vur_rdma_dev *rd, uint32_t srqn)
{
	struct vur_rdma_srq *srq = vur_pool_get(&rd->srqs, srqn);

	if (rd->limits.max_srq == 0) { /* ROCE-DEV-CTRL-16 */
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_SRQ: the device has no SRQs");
		return -EOPNOTSUPP;
	}
	if (srq == NULL) { /* ROCE-DEV-SRQ-7 */
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_SRQ: no SRQ %u", srqn);
		return -ENOENT;
	}
	if (srq->obj.refcnt != 0) { /* ROCE-DEV-SRQ-7: as Linux, busy while QPs use it */
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_SRQ %u: %u QPs were created on it", srqn,
				srq->obj.refcnt);
		return -EBUSY;
	}
	/* ROCE-DEV-SRQ-8, LIFE-5: its WRs go back used, then its virtqueue is let go. */
	if (rd->env.hooks != NULL)
		rd->env.hooks->srq_unbind(rd->env.hooks_arg, srq);
	vur_pool_unref(vur_pool_get(&rd->pds, srq->pdn));
	vur_rdma_rings_free(rd, srq->rings); /* ROCE-DEV-RING-20 */
	srq->rings = NULL;
	vur_pool_free(&rd->srqs, srqn);
	return 0;
}

struct vur_rdma_srq *
vur_rdma_srq_for_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp *c)
{
	uint32_t srqn = rte_le_to_cpu_32(c->srqn), pdn = rte_le_to_cpu_32(c->pdn);
	struct vur_rdma_srq *srq = vur_pool_get(&rd->srqs, srqn);

	/* ROCE-DEV-SRQ-5 */
	if (srq == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: no SRQ %u", srqn);
		return NULL;
	}
	if (srq->pdn != pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: SRQ %u is of PD %u, not %u", srqn, srq->pdn,
				pdn);
		return NULL;
	}
	if (c->qp_type != VIRTIO_IB_QPT_RC && c->qp_type != VIRTIO_IB_QPT_UC &&
			c->qp_type != VIRTIO_IB_QPT_UD) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: a QP of type %u cannot use an SRQ",
				c->qp_type);
		return NULL;
	}
	if (c->cap.max_recv_wr != 0 || c->cap.max_recv_sge != 0) {
		VUR_RDMA_LOG(rd, NOTICE,
				"CREATE_QP: on SRQ %u with max_recv_wr %u, max_recv_sge %u", srqn,
				rte_le_to_cpu_32(c->cap.max_recv_wr),
				rte_le_to_cpu_32(c->cap.max_recv_sge));
		return NULL;
	}
	return srq;
}
