// SPDX-License-Identifier: GPL-2.0
/*
 * The data path of kernel consumers (ib_mad's GSI QP, the CM, ULPs): the
 * driver drives a kernel CQ's and QP's virtqueues itself, in the same slot
 * scheme a process uses (<rdma/virtio_rdma-abi.h>): descriptor i is slot
 * i, the n-th WR goes in slot n % num, a CQE is the slot the next used
 * element names and is made available again once read.
 *
 * The addresses in the s/g lists are ib_core's: DMA addresses with the
 * kernel PD's DMA MR key (pd->local_dma_lkey) or the keys of registered
 * MRs; without VIRTIO_F_ACCESS_PLATFORM a DMA address is guest-physical,
 * what the device translates through the DMA MR.
 *
 * The ordering is virtio's (weak barriers: the device is a vhost-user
 * backend on other CPUs): slots and ring entries before avail->idx,
 * avail->idx before the event index, used->idx before the used element.
 *
 * With layout=rings the kernel's objects are on rings instead: the verbs
 * here hand those to virtio_rdma_qp_rings.c and virtio_rdma_cq_rings.c,
 * and share the WR and CQE translations with them.
 */
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/virtio_ring.h>
#include <rdma/ib_verbs.h>

#include "virtio_rdma.h"

void virtio_rdma_kq_init(struct virtio_rdma_uq *u, u32 max_wr, u32 max_sge,
			 u32 max_inline)
{
	const struct vring *vr = virtqueue_get_vring(u->vq);

	spin_lock_init(&u->k.lock);
	u->k.avail_idx = virtio16_to_cpu(u->vq->vdev, vr->avail->idx);
	u->k.last_used = 0;
	u->k.polled = 0;
	u->k.max_wr = max_wr;
	u->k.max_sge = max_sge;
	u->k.max_inline = max_inline;
}

static const struct vring *kq_vring(struct virtio_rdma_uq *u)
{
	return virtqueue_get_vring(u->vq);
}

static u16 kq_used_idx(struct virtio_rdma_uq *u)
{
	u16 idx = virtio16_to_cpu(u->vq->vdev,
				  READ_ONCE(kq_vring(u)->used->idx));

	virtio_rmb(true);
	return idx;
}

static void *kq_slot(struct virtio_rdma_uq *u, u16 i)
{
	return u->slots + (size_t)(i & (u->num - 1)) * u->stride;
}

/* The n-th WR takes slot n % num. */
static void kq_push(struct virtio_rdma_uq *u)
{
	const struct vring *vr = kq_vring(u);
	u16 i = u->k.avail_idx & (u->num - 1);

	vr->avail->ring[i] = cpu_to_virtio16(u->vq->vdev, i);
	u->k.avail_idx++;
}

/* avail->idx, then the doorbell if the device wants one (virtio 2.7.10). */
static void kq_publish(struct virtio_rdma_uq *u, u16 old)
{
	struct virtio_device *vdev = u->vq->vdev;
	const struct vring *vr = kq_vring(u);
	bool kick;

	virtio_wmb(true);
	WRITE_ONCE(vr->avail->idx, cpu_to_virtio16(vdev, u->k.avail_idx));
	virtio_mb(true);
	if (virtio_has_feature(vdev, VIRTIO_RING_F_EVENT_IDX)) {
		u16 event = virtio16_to_cpu(vdev,
					    READ_ONCE(vring_avail_event(vr)));

		kick = vring_need_event(event, u->k.avail_idx, old);
	} else {
		kick = !(virtio16_to_cpu(vdev, READ_ONCE(vr->used->flags)) &
			 VRING_USED_F_NO_NOTIFY);
	}
	if (kick)
		virtqueue_notify(u->vq);
}

void virtio_rdma_sg_list(struct virtio_rdma_sge *dst, const struct ib_sge *src,
			 int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = cpu_to_le64(src[i].addr);
		dst[i].length = cpu_to_le32(src[i].length);
		dst[i].lkey = cpu_to_le32(src[i].lkey);
	}
}

static bool qp_is_ud(const struct virtio_rdma_qp_res *qp)
{
	return qp->qp_type == VIRTIO_IB_QPT_UD ||
	       qp->qp_type == VIRTIO_IB_QPT_GSI;
}

static const char *wr_opcode_name(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return "ATOMIC_CMP_AND_SWP";
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return "ATOMIC_FETCH_AND_ADD";
	case IB_WR_LOCAL_INV:
		return "LOCAL_INV";
	case IB_WR_SEND_WITH_INV:
		return "SEND_WITH_INV";
	case IB_WR_REG_MR:
		return "REG_MR";
	case IB_WR_BIND_MW:
		return "BIND_MW";
	case IB_WR_RDMA_READ_WITH_INV:
		return "RDMA_READ_WITH_INV";
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
		return "MASKED_ATOMIC_CMP_AND_SWP";
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
		return "MASKED_ATOMIC_FETCH_AND_ADD";
	case IB_WR_LSO:
		return "LSO";
	case IB_WR_REG_MR_INTEGRITY:
		return "REG_MR_INTEGRITY";
	default:
		return "unknown";
	}
}

/*
 * An opcode this device or driver does not have: -EINVAL, and its name in
 * the log once per device (a ULP that needs it shows why it fails).
 */
static int wr_unsupported(struct virtio_rdma_dev *dev,
			  enum ib_wr_opcode opcode, const char *why)
{
	if (!test_and_set_bit(min_t(u32, opcode, 63), dev->warned_ops))
		dev_warn(&dev->vdev->dev,
			 "work request opcode %s (%u) refused: %s\n",
			 wr_opcode_name(opcode), opcode, why);
	return -EINVAL;
}

/*
 * ib_wr_opcode -> enum virtio_ib_wr_opcode, by what the device reports
 * (ROCE-DRV-ATTR-4) and the QP type allows: a caller's mistake (RDMA on
 * UD, atomics on UC) is -EINVAL without a log line.
 */
static int wr_opcode(const struct virtio_rdma_qp_res *qp,
		     enum ib_wr_opcode opcode, u8 *op)
{
	struct virtio_rdma_dev *dev = qp->dev;
	bool rc = qp->qp_type == VIRTIO_IB_QPT_RC;

	switch (opcode) {
	case IB_WR_SEND:
		*op = VIRTIO_IB_WR_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*op = VIRTIO_IB_WR_SEND_WITH_IMM;
		return 0;
	case IB_WR_RDMA_WRITE:
		*op = VIRTIO_IB_WR_RDMA_WRITE;
		return qp_is_ud(qp) ? -EINVAL : 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*op = VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM;
		return qp_is_ud(qp) ? -EINVAL : 0;
	case IB_WR_RDMA_READ:
		*op = VIRTIO_IB_WR_RDMA_READ;
		return rc ? 0 : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_ATOMIC))
			return wr_unsupported(dev, opcode,
					      "the device has no atomics");
		*op = opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
		      VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP :
		      VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD;
		return rc ? 0 : -EINVAL;	/* ROCE-DEV-ATOMIC-1 */
	case IB_WR_LOCAL_INV:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_REG_MR:
		if (!virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS))
			return wr_unsupported(dev, opcode,
					      "the device has no fast registration");
		if (opcode == IB_WR_LOCAL_INV) {
			*op = VIRTIO_IB_WR_LOCAL_INV;
			return 0;
		}
		if (opcode == IB_WR_REG_MR) {
			*op = VIRTIO_IB_WR_REG_MR;
			return 0;
		}
		*op = VIRTIO_IB_WR_SEND_WITH_INV;
		return rc ? 0 : -EINVAL;	/* ROCE-DEV-INV-3 */
	default:
		return wr_unsupported(dev, opcode, "not implemented");
	}
}

#define KQ_SEND_FLAGS (IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED | \
		       IB_SEND_INLINE)

static u8 wr_send_flags(int flags)
{
	u8 f = 0;

	if (flags & IB_SEND_FENCE)
		f |= VIRTIO_IB_SEND_FENCE;
	if (flags & IB_SEND_SIGNALED)
		f |= VIRTIO_IB_SEND_SIGNALED;
	if (flags & IB_SEND_SOLICITED)
		f |= VIRTIO_IB_SEND_SOLICITED;
	if (flags & IB_SEND_INLINE)
		f |= VIRTIO_IB_SEND_INLINE;
	return f;
}

/* IB_SEND_INLINE: kernel consumers give kernel virtual addresses. */
static int wr_inline(const struct virtio_rdma_uq *sq,
		     const struct ib_send_wr *wr, struct virtio_rdma_sq_req *req)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > sq->k.max_inline - len)
			return -EINVAL;
		memcpy(req->inline_data + len,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	req->inline_len = cpu_to_le16(len);
	return 0;
}

/*
 * IB_WR_REG_MR: the MR's page list (map_mr_sg) as the one s/g element, lkey
 * 0 (ROCE-DRV-FRMR-2); the key byte the ULP chose (ib_update_fast_reg_key())
 * in reg_wr->key.
 */
static int wr_reg_mr(const struct virtio_rdma_qp_res *qp,
		     const struct ib_reg_wr *wr, struct virtio_rdma_sq_req *req)
{
	struct virtio_rdma_mr *mr = to_vmr(wr->mr);
	u32 access;
	int ret;

	if (!mr->pages || !mr->npages ||
	    (wr->key >> 8) != (mr->ibmr.lkey >> 8))
		return -EINVAL;
	ret = virtio_rdma_wire_access(qp->dev, wr->access, &access);
	if (ret)
		return -EINVAL;
	req->reg.iova = cpu_to_le64(mr->ibmr.iova);
	req->reg.length = cpu_to_le64(mr->ibmr.length);
	req->reg.key = cpu_to_le32(wr->key);
	req->reg.access = cpu_to_le32(access);
	req->reg.page_shift = ilog2(mr->ibmr.page_size);
	req->num_sge = cpu_to_le32(1);
	req->sg_list[0].addr = cpu_to_le64(mr->pages_pa);
	req->sg_list[0].length = cpu_to_le32(mr->npages * sizeof(*mr->pages));
	req->sg_list[0].lkey = 0;
	return 0;
}

/* ROCE-DRV-ATOMIC-1: 8 aligned bytes, one 8-byte s/g element for the result. */
static int wr_atomic(const struct ib_atomic_wr *wr,
		     struct virtio_rdma_sq_req *req)
{
	if (wr->wr.num_sge != 1 || wr->wr.sg_list[0].length != 8 ||
	    !IS_ALIGNED(wr->remote_addr, 8))
		return -EINVAL;
	req->atomic.remote_addr = cpu_to_le64(wr->remote_addr);
	req->atomic.rkey = cpu_to_le32(wr->rkey);
	req->atomic.compare_add = cpu_to_le64(wr->compare_add);
	/* ROCE-DRV-WR-4: unused for FETCH_AND_ADD, so zero. */
	if (wr->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP)
		req->atomic.swap = cpu_to_le64(wr->swap);
	return 0;
}

/* One send WR into @req, a virtqueue slot or a ring entry. */
int virtio_rdma_build_send_req(const struct virtio_rdma_qp_res *qp,
			       const struct ib_send_wr *wr,
			       struct virtio_rdma_sq_req *req)
{
	bool inl = wr->send_flags & IB_SEND_INLINE;
	u8 op;
	int ret;

	ret = wr_opcode(qp, wr->opcode, &op);
	if (ret)
		return ret;
	if (wr->send_flags & ~KQ_SEND_FLAGS)
		return -EINVAL;
	if (wr->num_sge < 0 || (!inl && wr->num_sge > qp->sq.k.max_sge))
		return -EINVAL;
	/* Inline data is a message to send: not what these read or register. */
	if (inl && op != VIRTIO_IB_WR_SEND && op != VIRTIO_IB_WR_SEND_WITH_IMM &&
	    op != VIRTIO_IB_WR_SEND_WITH_INV && op != VIRTIO_IB_WR_RDMA_WRITE &&
	    op != VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM)
		return -EINVAL;
	if (qp_is_ud(qp) && (!ud_wr(wr)->ah || ud_wr(wr)->remote_qpn >> 24))
		return -EINVAL;

	/* ROCE-DRV-WR-4: what the operation does not use is zero. */
	memset(req, 0, sizeof(*req));
	req->wr_id = cpu_to_le64(wr->wr_id);	/* or wr_cqe: a union */
	req->opcode = op;
	req->send_flags = wr_send_flags(wr->send_flags);

	switch (op) {
	case VIRTIO_IB_WR_SEND_WITH_IMM:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
		req->imm_data = wr->ex.imm_data;	/* network order, both */
		break;
	case VIRTIO_IB_WR_SEND_WITH_INV:
	case VIRTIO_IB_WR_LOCAL_INV:
		req->inv.invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	}

	switch (op) {
	case VIRTIO_IB_WR_SEND:
	case VIRTIO_IB_WR_SEND_WITH_IMM:
		if (qp_is_ud(qp)) {
			req->ud.remote_qpn = cpu_to_le32(ud_wr(wr)->remote_qpn);
			req->ud.remote_qkey =
				cpu_to_le32(ud_wr(wr)->remote_qkey);
			req->ud.ah = cpu_to_le32(to_vah(ud_wr(wr)->ah)->ahn);
		}
		break;
	case VIRTIO_IB_WR_RDMA_WRITE:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
	case VIRTIO_IB_WR_RDMA_READ:
		req->rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		req->rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	case VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP:
	case VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD:
		ret = wr_atomic(atomic_wr(wr), req);
		if (ret)
			return ret;
		break;
	case VIRTIO_IB_WR_REG_MR:
		return wr_reg_mr(qp, reg_wr(wr), req);
	case VIRTIO_IB_WR_LOCAL_INV:
		return 0;	/* no message: num_sge 0 */
	}
	if (inl)
		return wr_inline(&qp->sq, wr, req);
	req->num_sge = cpu_to_le32(wr->num_sge);
	virtio_rdma_sg_list(req->sg_list, wr->sg_list, wr->num_sge);
	return 0;
}

/*
 * A device reset after DEVICE_NEEDS_RESET (ROCE-DRV-INIT-2) completes no
 * WR any more: a post fails at once with -EIO, as on a device in internal
 * error, instead of waiting for a completion that never comes (nvme-rdma's
 * shutdown command in its teardown would wait its 60 s admin timeout).
 */
static bool kq_dead(struct virtio_rdma_dev *dev)
{
	return READ_ONCE(dev->dead);
}

static bool sq_full_now(struct virtio_rdma_uq *sq)
{
	if ((u16)(sq->k.avail_idx - sq->k.last_used) < sq->k.max_wr)
		return false;
	sq->k.last_used = kq_used_idx(sq);
	return (u16)(sq->k.avail_idx - sq->k.last_used) >= sq->k.max_wr;
}

/*
 * A send slot is free once the device has used it (in order). The device
 * makes a WR's CQE used before the WR's buffer (ROCE-DEV-WR-5): a consumer
 * that polled a completion and posts at once into the room it made can
 * find the buffer not used yet. A full queue is read again for up to
 * KQ_FULL_WAIT_US before the post fails with -ENOMEM.
 */
#define KQ_FULL_WAIT_US	1000

static bool sq_full(struct virtio_rdma_uq *sq)
{
	unsigned int us;

	for (us = 0; us < KQ_FULL_WAIT_US; us++) {
		if (!sq_full_now(sq))
			return false;
		udelay(1);
	}
	return sq_full_now(sq);
}

int virtio_rdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	struct virtio_rdma_qp_res *qp = to_vqp(ibqp)->res;
	struct virtio_rdma_uq *sq = &qp->sq;
	unsigned long flags;
	int ret = 0;
	u16 old;

	if (kq_dead(qp->dev)) {
		*bad_wr = wr;
		return -EIO;
	}
	if (qp->urec || !qp->kernel) {
		*bad_wr = wr;
		return virtio_rdma_uqp_rings_doorbell(qp, wr);
	}
	if (qp->rec)
		return virtio_rdma_qp_rings_post_send(qp, wr, bad_wr);
	spin_lock_irqsave(&sq->k.lock, flags);
	old = sq->k.avail_idx;
	for (; wr; wr = wr->next) {
		if (sq_full(sq)) {
			ret = -ENOMEM;
			break;
		}
		ret = virtio_rdma_build_send_req(qp, wr,
						 kq_slot(sq, sq->k.avail_idx));
		if (ret)
			break;
		kq_push(sq);
	}
	if (ret)
		*bad_wr = wr;
	if (sq->k.avail_idx != old)
		kq_publish(sq, old);
	spin_unlock_irqrestore(&sq->k.lock, flags);
	return ret;
}

/*
 * A receive slot is free once its completion is polled, not when the
 * device uses it: poll_cq reads the slot of each receive completion (its
 * first s/g element holds the GRH), which works because the WRs of one
 * receive queue complete in the order they were posted (the receive
 * completion k of a QP is its k-th posted receive).
 */
int virtio_rdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct virtio_rdma_qp_res *qp = to_vqp(ibqp)->res;
	struct virtio_rdma_uq *rq = &qp->rq;
	struct virtio_rdma_rq_req *req;
	unsigned long flags;
	int ret = 0;
	u16 old;

	/* ROCE-DRV-SRQ-3: a QP on an SRQ has no receive queue to post to. */
	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (kq_dead(qp->dev)) {
		*bad_wr = wr;
		return -EIO;
	}
	if (qp->urec || !qp->kernel) {
		*bad_wr = wr;
		return virtio_rdma_uqp_rings_doorbell(qp, wr);
	}
	if (qp->rec)
		return virtio_rdma_qp_rings_post_recv(qp, wr, bad_wr);
	spin_lock_irqsave(&rq->k.lock, flags);
	old = rq->k.avail_idx;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > rq->k.max_sge) {
			ret = -EINVAL;
			break;
		}
		if ((u16)(rq->k.avail_idx - rq->k.polled) >= rq->k.max_wr) {
			ret = -ENOMEM;
			break;
		}
		req = kq_slot(rq, rq->k.avail_idx);
		memset(req, 0, sizeof(*req));
		req->wr_id = cpu_to_le64(wr->wr_id);
		req->num_sge = cpu_to_le32(wr->num_sge);
		virtio_rdma_sg_list(req->sg_list, wr->sg_list, wr->num_sge);
		kq_push(rq);
	}
	if (ret)
		*bad_wr = wr;
	if (rq->k.avail_idx != old)
		kq_publish(rq, old);
	spin_unlock_irqrestore(&rq->k.lock, flags);
	return ret;
}

/*
 * A free slot of a kernel SRQ, under its lock: one never posted, else the
 * one the next used element gives back (the device uses an SRQ's WRs in
 * the order their messages complete). -EIO for a used element that names
 * no slot.
 */
static int srq_take_slot(struct virtio_rdma_srq_res *srq, u16 used, u16 *slot)
{
	struct virtio_rdma_uq *u = &srq->rq;
	u32 id;

	if (srq->fresh < u->num) {
		*slot = srq->fresh++;
		return 0;
	}
	if (srq->reclaimed == used)
		return -ENOMEM;
	id = virtio32_to_cpu(u->vq->vdev,
			     READ_ONCE(kq_vring(u)->used->ring[srq->reclaimed &
							      (u->num - 1)].id));
	if (id >= u->num) {
		dev_err_ratelimited(&srq->dev->vdev->dev,
				    "SRQ %u: used element names slot %u of %u\n",
				    srq->srqn, id, u->num);
		return -EIO;
	}
	srq->reclaimed++;
	*slot = id;
	return 0;
}

/*
 * The WR goes into a free slot, which the next available entry names; a
 * WR is outstanding until the device marks it used (ROCE-DRV-SRQ-3).
 */
int virtio_rdma_post_srq_recv(struct ib_srq *ibsrq,
			      const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	struct virtio_rdma_srq_res *srq = to_vsrq(ibsrq)->res;
	struct virtio_rdma_uq *u = &srq->rq;
	const struct vring *vr;
	struct virtio_rdma_rq_req *req;
	unsigned long flags;
	u16 old, used, slot;
	bool posted;
	int ret = 0;

	if (srq->rec)
		return virtio_rdma_srq_rings_post_recv(srq, wr, bad_wr);
	/* A process's SRQ on rings: its WRs belong in its ring. */
	if (srq->urec) {
		*bad_wr = wr;
		return -EINVAL;
	}
	vr = kq_vring(u);
	spin_lock_irqsave(&u->k.lock, flags);
	old = u->k.avail_idx;
	used = kq_used_idx(u);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > u->k.max_sge) {
			ret = -EINVAL;
			break;
		}
		if ((u16)(u->k.avail_idx - used) >= u->k.max_wr) {
			ret = -ENOMEM;
			break;
		}
		ret = srq_take_slot(srq, used, &slot);
		if (ret)
			break;
		req = u->slots + (size_t)slot * u->stride;
		memset(req, 0, sizeof(*req));
		req->wr_id = cpu_to_le64(wr->wr_id);
		req->num_sge = cpu_to_le32(wr->num_sge);
		virtio_rdma_sg_list(req->sg_list, wr->sg_list, wr->num_sge);
		vr->avail->ring[u->k.avail_idx & (u->num - 1)] =
			cpu_to_virtio16(u->vq->vdev, slot);
		u->k.avail_idx++;
	}
	if (ret)
		*bad_wr = wr;
	posted = u->k.avail_idx != old;
	if (posted)
		kq_publish(u, old);
	spin_unlock_irqrestore(&u->k.lock, flags);
	/* An armed limit: its event index follows the new WRs. */
	if (posted)
		virtio_rdma_srq_check_limit(srq);
	return ret;
}

/*
 * After MODIFY_QP to RESET: the device made every outstanding WR used
 * without a completion (ROCE-DEV-QPS-5), so no receive is outstanding.
 */
void virtio_rdma_kqp_reset(struct virtio_rdma_qp_res *qp)
{
	unsigned long flags;

	if (qp->rec) {
		virtio_rdma_qp_rings_reset(qp);
		return;
	}
	spin_lock_irqsave(&qp->rq.k.lock, flags);
	qp->rq.k.polled = qp->rq.k.avail_idx;
	spin_unlock_irqrestore(&qp->rq.k.lock, flags);
}

/* enum virtio_ib_wc_status -> enum ib_wc_status (IBTA names, both) */
static const enum ib_wc_status wc_status[] = {
	[VIRTIO_IB_WC_SUCCESS] = IB_WC_SUCCESS,
	[VIRTIO_IB_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[VIRTIO_IB_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[VIRTIO_IB_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[VIRTIO_IB_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[VIRTIO_IB_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[VIRTIO_IB_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[VIRTIO_IB_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[VIRTIO_IB_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[VIRTIO_IB_WC_REM_OP_ERR] = IB_WC_REM_OP_ERR,
	[VIRTIO_IB_WC_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
	[VIRTIO_IB_WC_RNR_RETRY_EXC_ERR] = IB_WC_RNR_RETRY_EXC_ERR,
	[VIRTIO_IB_WC_REM_ABORT_ERR] = IB_WC_REM_ABORT_ERR,
	[VIRTIO_IB_WC_FATAL_ERR] = IB_WC_FATAL_ERR,
	[VIRTIO_IB_WC_RESP_TIMEOUT_ERR] = IB_WC_RESP_TIMEOUT_ERR,
	[VIRTIO_IB_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
	[VIRTIO_IB_WC_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
};

/* enum virtio_ib_wc_opcode -> enum ib_wc_opcode */
static const enum ib_wc_opcode wc_opcode[] = {
	[VIRTIO_IB_WC_SEND] = IB_WC_SEND,
	[VIRTIO_IB_WC_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[VIRTIO_IB_WC_RDMA_READ] = IB_WC_RDMA_READ,
	[VIRTIO_IB_WC_RECV] = IB_WC_RECV,
	[VIRTIO_IB_WC_RECV_RDMA_WITH_IMM] = IB_WC_RECV_RDMA_WITH_IMM,
	[VIRTIO_IB_WC_COMP_SWAP] = IB_WC_COMP_SWAP,
	[VIRTIO_IB_WC_FETCH_ADD] = IB_WC_FETCH_ADD,
	[VIRTIO_IB_WC_LOCAL_INV] = IB_WC_LOCAL_INV,
	[VIRTIO_IB_WC_REG_MR] = IB_WC_REG_MR,
	[VIRTIO_IB_WC_BIND_MW] = IB_WC_BIND_MW,
};

static bool wc_is_recv(u8 opcode)
{
	return opcode == VIRTIO_IB_WC_RECV ||
	       opcode == VIRTIO_IB_WC_RECV_RDMA_WITH_IMM;
}

/*
 * RoCE v2 puts an IPv4 or an IPv6 header in the 40-byte GRH area of a UD
 * receive (an IPv4 header in its last 20 bytes); ib_core builds the reply
 * AH from it with wc->network_hdr_type. The area is the start of the
 * receive's first s/g element, a DMA address, guest-physical here.
 */
static void wc_network_type(const struct virtio_rdma_rq_req *req,
			    struct ib_wc *wc)
{
	u64 addr;

	if (!le32_to_cpu(req->num_sge) ||
	    le32_to_cpu(req->sg_list[0].length) < sizeof(struct ib_grh))
		return;
	addr = le64_to_cpu(req->sg_list[0].addr);
	if (!pfn_valid(PHYS_PFN(addr)) ||
	    PHYS_PFN(addr) != PHYS_PFN(addr + sizeof(struct ib_grh) - 1))
		return;
	wc->network_hdr_type =
		ib_get_rdma_header_version(phys_to_virt(addr)) == 4 ?
		RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
}

/*
 * One CQE into @wc. False if its QP is gone (a CQE left from a destroyed
 * QP): the caller drops it.
 */
bool virtio_rdma_cqe_to_wc(struct virtio_rdma_dev *dev,
			   const struct virtio_rdma_cq_req *cqe,
			   struct ib_wc *wc)
{
	u32 qpn = le32_to_cpu(cqe->qp_num);
	u32 flags = le32_to_cpu(cqe->wc_flags);
	const struct virtio_rdma_rq_req *req;
	struct virtio_rdma_qp_res *qp, **slot;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->status = cqe->status < ARRAY_SIZE(wc_status) ?
		     wc_status[cqe->status] : IB_WC_GENERAL_ERR;
	wc->opcode = cqe->opcode < ARRAY_SIZE(wc_opcode) ?
		     wc_opcode[cqe->opcode] : IB_WC_SEND;
	wc->vendor_err = le32_to_cpu(cqe->vendor_err);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->src_qp = le32_to_cpu(cqe->src_qp);
	if (flags & VIRTIO_IB_WC_GRH)
		wc->wc_flags |= IB_WC_GRH;
	/* The two share four bytes; a CQE never has both (ROCE-DEV-CQE-7). */
	if (flags & VIRTIO_IB_WC_WITH_INVALIDATE) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->invalidate_rkey);
	} else if (flags & VIRTIO_IB_WC_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm_data;
	}
	wc->port_num = VIRTIO_NET_ROCE_PORT_NUM;

	spin_lock(&dev->qp_lock);
	slot = virtio_rdma_qp_slot(dev, qpn);
	qp = slot ? *slot : NULL;
	if (!qp || !qp->kernel) {	/* a process's QP on a kernel CQ: never */
		spin_unlock(&dev->qp_lock);
		return false;
	}
	wc->qp = qp->ibqp;
	/* A receive the QP still counts (not discarded by RESET since). */
	spin_lock(&qp->rq.k.lock);
	if (!wc_is_recv(cqe->opcode))
		req = NULL;
	else if (qp->rec)
		req = virtio_rdma_qp_rings_recv_polled(qp);
	else if (qp->rq.k.polled != qp->rq.k.avail_idx)
		req = kq_slot(&qp->rq, qp->rq.k.polled++);
	else
		req = NULL;
	if (req && wc->status == IB_WC_SUCCESS && (wc->wc_flags & IB_WC_GRH))
		wc_network_type(req, wc);
	spin_unlock(&qp->rq.k.lock);
	spin_unlock(&dev->qp_lock);
	return true;
}

/* Under the CQ's lock: the slot named by the next used element, or NULL. */
static struct virtio_rdma_cq_req *cq_next(struct virtio_rdma_uq *u,
					  u16 used_idx, u32 *id)
{
	const struct vring *vr = kq_vring(u);

	if (u->k.last_used == used_idx)
		return NULL;
	*id = virtio32_to_cpu(u->vq->vdev,
			      READ_ONCE(vr->used->ring[u->k.last_used &
						       (u->num - 1)].id));
	if (*id >= u->num)
		return NULL;	/* names no slot of ours: the CQ stops */
	return u->slots + (size_t)*id * u->stride;
}

int virtio_rdma_poll_cq(struct ib_cq *ibcq, int ne, struct ib_wc *wc)
{
	struct virtio_rdma_cq_res *cq = to_vcq(ibcq)->res;
	struct virtio_rdma_uq *u = &cq->ring;
	struct virtio_rdma_cq_req *cqe;
	const struct vring *vr;
	unsigned long flags;
	u16 used_idx;
	int n = 0;
	u32 id;

	if (cq->rmem.base)
		return virtio_rdma_cq_rings_poll(cq, ne, wc);
	vr = kq_vring(u);
	spin_lock_irqsave(&u->k.lock, flags);
	used_idx = kq_used_idx(u);
	if ((u16)(used_idx - u->k.last_used) > u->num) {
		dev_err_ratelimited(&cq->dev->vdev->dev,
				    "CQ %u: used index %u, %u consumed: broken ring\n",
				    cq->cqn, used_idx, u->k.last_used);
		spin_unlock_irqrestore(&u->k.lock, flags);
		return -EIO;
	}
	while (n < ne && (cqe = cq_next(u, used_idx, &id))) {
		if (virtio_rdma_cqe_to_wc(cq->dev, cqe, &wc[n]))
			n++;
		u->k.last_used++;
		/* The slot back to the device (ROCE-DRV-OVR-1). */
		vr->avail->ring[u->k.avail_idx & (u->num - 1)] =
			cpu_to_virtio16(u->vq->vdev, id);
		u->k.avail_idx++;
	}
	virtio_wmb(true);
	WRITE_ONCE(vr->avail->idx, cpu_to_virtio16(u->vq->vdev, u->k.avail_idx));
	spin_unlock_irqrestore(&u->k.lock, flags);
	return n;
}

/* Whether CQEs wait to be polled (IB_CQ_REPORT_MISSED_EVENTS). */
bool virtio_rdma_kcq_pending(struct virtio_rdma_cq_res *cq)
{
	struct virtio_rdma_uq *u = &cq->ring;
	unsigned long flags;
	bool pending;

	if (cq->rmem.base)
		return virtio_rdma_cq_rings_pending(cq);
	spin_lock_irqsave(&u->k.lock, flags);
	pending = kq_used_idx(u) != u->k.last_used;
	spin_unlock_irqrestore(&u->k.lock, flags);
	return pending;
}

/*
 * ib_drain_sq() and ib_drain_rq() as ib_core's own (the QP to ERR, one
 * marker WR, wait for its flush completion, polling an IB_POLL_DIRECT CQ
 * itself), but nothing on a dead device: it completes no WR any more and
 * takes no MODIFY_QP, so the marker would never complete. The ULPs drain
 * in their teardown, which the re-probe after a reset runs (their
 * ib_client's remove): ib_core's drain warned "failed to drain" there.
 * WRs that were outstanding when the device died get no completion.
 */
struct kq_drain {
	struct ib_cqe cqe;
	struct completion done;
};

static void kq_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	complete(&container_of(wc->wr_cqe, struct kq_drain, cqe)->done);
}

static bool kq_drain_start(struct ib_qp *ibqp, struct kq_drain *d)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	if (kq_dead(to_vqp(ibqp)->res->dev))
		return false;
	ret = ib_modify_qp(ibqp, &attr, IB_QP_STATE);
	if (ret) {
		WARN_ONCE(ret, "failed to drain QP %u: %d\n", ibqp->qp_num, ret);
		return false;
	}
	d->cqe.done = kq_drain_done;
	init_completion(&d->done);
	return true;
}

static void kq_drain_wait(struct ib_cq *cq, struct kq_drain *d)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&d->done);
		return;
	}
	while (wait_for_completion_timeout(&d->done, HZ / 10) <= 0)
		ib_process_cq_direct(cq, -1);
}

void virtio_rdma_drain_sq(struct ib_qp *ibqp)
{
	struct kq_drain d;
	struct ib_rdma_wr swr = {
		.wr = {
			.wr_cqe = &d.cqe,
			.opcode = IB_WR_RDMA_WRITE,
		},
	};
	const struct ib_send_wr *bad;
	int ret;

	if (!kq_drain_start(ibqp, &d))
		return;
	ret = virtio_rdma_post_send(ibqp, &swr.wr, &bad);
	if (ret) {
		WARN_ONCE(ret, "failed to drain the send queue of QP %u: %d\n",
			  ibqp->qp_num, ret);
		return;
	}
	kq_drain_wait(ibqp->send_cq, &d);
}

void virtio_rdma_drain_rq(struct ib_qp *ibqp)
{
	struct kq_drain d;
	struct ib_recv_wr rwr = { .wr_cqe = &d.cqe };
	const struct ib_recv_wr *bad;
	int ret;

	if (!kq_drain_start(ibqp, &d))
		return;
	ret = virtio_rdma_post_recv(ibqp, &rwr, &bad);
	if (ret) {
		WARN_ONCE(ret, "failed to drain the receive queue of QP %u: %d\n",
			  ibqp->qp_num, ret);
		return;
	}
	kq_drain_wait(ibqp->recv_cq, &d);
}
