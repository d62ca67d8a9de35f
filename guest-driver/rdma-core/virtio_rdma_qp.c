// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs (RC, UC, UD): the control path through the kernel, the data
 * path through the QP's send and receive virtqueues. A WR is written into
 * the next slot as the device's request (struct virtio_rdma_sq_req or
 * virtio_rdma_rq_req with its s/g list), made available, and the doorbell
 * is rung once per post call when the device wants it.
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ccan/minmax.h>

#include "virtio_rdma.h"

#define VIRTIO_RDMA_SEND_FLAGS                                                 \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |             \
	 IBV_SEND_INLINE)

static size_t sq_stride(uint32_t max_sge)
{
	return sizeof(struct virtio_rdma_sq_req) +
	       (size_t)max_sge * sizeof(struct virtio_rdma_sge);
}

size_t virtio_rdma_rq_stride(uint32_t max_sge)
{
	return sizeof(struct virtio_rdma_rq_req) +
	       (size_t)max_sge * sizeof(struct virtio_rdma_sge);
}

/*
 * The kernel's capacities bound what the provider posts: never more WRs
 * outstanding than the QP's max_*_wr (ROCE-DRV-WR-2), which the ring's num
 * must hold, nor more s/g elements than the slot has room for.
 */
static int qp_map_queues(struct virtio_rdma_qp *qp, int cmd_fd,
			 const struct ibv_qp_cap *cap, uint32_t max_sge_rd,
			 const struct virtio_rdma_create_qp_resp *drv)
{
	int ret;

	if (drv->flags & VIRTIO_RDMA_QP_RESP_RINGS) {
		if (cap->max_inline_data > VIRTIO_NET_ROCE_MAX_INLINE)
			return EINVAL;
		ret = virtio_rdma_qp_ring_map(
			qp, cmd_fd, cap, drv, sq_stride(cap->max_send_sge),
			virtio_rdma_rq_stride(cap->max_recv_sge));
		if (ret)
			return ret;
		goto limits;
	}
	if (cap->max_send_wr > drv->sq.num ||
	    (qp->has_rq && cap->max_recv_wr > drv->rq.num) ||
	    cap->max_inline_data > VIRTIO_NET_ROCE_MAX_INLINE)
		return EINVAL;

	ret = virtio_rdma_vq_map(&qp->sq, cmd_fd, &drv->sq,
				 sq_stride(cap->max_send_sge), true);
	if (ret)
		return ret;
	/* On an SRQ the QP has no receive queue (its rq is all zero). */
	if (qp->has_rq) {
		ret = virtio_rdma_vq_map(
			&qp->rq, cmd_fd, &drv->rq,
			virtio_rdma_rq_stride(cap->max_recv_sge), true);
		if (ret) {
			virtio_rdma_vq_unmap(&qp->sq);
			return ret;
		}
	}

limits:
	qp->sq.max_wr = cap->max_send_wr;
	qp->sq.max_sge = cap->max_send_sge;
	qp->rq.max_wr = cap->max_recv_wr;
	qp->rq.max_sge = cap->max_recv_sge;
	qp->max_inline_data = cap->max_inline_data;
	qp->max_read_sge = min(cap->max_send_sge, max_sge_rd);
	return 0;
}

void virtio_rdma_qp_unmap(struct virtio_rdma_qp *qp)
{
	if (qp->rings) {
		virtio_rdma_qp_ring_unmap(qp);
		return;
	}
	if (qp->has_rq)
		virtio_rdma_vq_unmap(&qp->rq);
	virtio_rdma_vq_unmap(&qp->sq);
}

/* What every QP needs after the kernel created it, for create_qp(_ex). */
int virtio_rdma_qp_setup(struct virtio_rdma_qp *qp, struct ibv_context *context,
			 const struct ibv_qp_cap *cap,
			 const struct virtio_rdma_create_qp_resp *drv)
{
	struct virtio_rdma_context *ctx = to_vctx(context);
	int ret;

	ret = qp_map_queues(qp, context->cmd_fd, cap, ctx->max_sge_rd, drv);
	if (ret)
		return ret;
	qp->atomics = ctx->atomics;
	qp->mem_mgt = ctx->mem_mgt;
	qp->mw = ctx->mw;
	return 0;
}

struct ibv_qp *virtio_rdma_create_qp(struct ibv_pd *ibpd,
				     struct ibv_qp_init_attr *attr)
{
	struct virtio_rdma_create_qp_uresp resp = {};
	/* An older kernel reads none of it and answers with virtqueues. */
	struct virtio_rdma_create_qp_ucmd cmd = {
		.drv.flags = VIRTIO_RDMA_CREATE_QP_RINGS,
	};
	struct virtio_rdma_qp *qp;
	int ret;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	default:
		errno = EOPNOTSUPP;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->has_rq = !attr->srq;

	ret = ibv_cmd_create_qp(ibpd, &qp->ibv_qp, attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	/* attr->cap now holds what the kernel granted. */
	ret = virtio_rdma_qp_setup(qp, ibpd->context, &attr->cap, &resp.drv);
	if (ret)
		goto err_destroy;

	return &qp->ibv_qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->ibv_qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

int virtio_rdma_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			  int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (!ret && to_vqp(ibqp)->rings && (attr_mask & IBV_QP_STATE) &&
	    attr->qp_state == IBV_QPS_RESET)
		virtio_rdma_qp_ring_reset(to_vqp(ibqp));
	return ret;
}

int virtio_rdma_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/*
 * The command first, then the mappings: a QP destroyed while still mapped
 * is moved to RESET by the kernel and freed with its last mapping.
 */
int virtio_rdma_destroy_qp(struct ibv_qp *ibqp)
{
	struct virtio_rdma_qp *qp = to_vqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	virtio_rdma_qp_unmap(qp);
	free(qp->wr_ex.sge);
	free(qp);
	return 0;
}

/*
 * ibv_wr_opcode -> enum virtio_ib_wr_opcode, by what the device has
 * (ROCE-DRV-ATTR-4) and the QP type allows. Atomics and SEND with
 * invalidate are RC only; LOCAL_INV works on every type (the device
 * checks that the key is of the QP's PD), BIND_MW on RC and UC (the
 * services with RDMA operations). REG_MR has no ibv_send_wr opcode (fast
 * registration MRs are the kernel's).
 */
static int wr_opcode(const struct virtio_rdma_qp *qp, enum ibv_wr_opcode opcode,
		     uint8_t *op)
{
	enum ibv_qp_type qp_type = qp->ibv_qp.qp_type;

	switch (opcode) {
	case IBV_WR_SEND:
		*op = VIRTIO_IB_WR_SEND;
		return 0;
	case IBV_WR_SEND_WITH_IMM:
		*op = VIRTIO_IB_WR_SEND_WITH_IMM;
		return 0;
	case IBV_WR_RDMA_WRITE:
		*op = VIRTIO_IB_WR_RDMA_WRITE;
		return qp_type == IBV_QPT_UD ? EINVAL : 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*op = VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM;
		return qp_type == IBV_QPT_UD ? EINVAL : 0;
	case IBV_WR_RDMA_READ:
		*op = VIRTIO_IB_WR_RDMA_READ;
		return qp_type == IBV_QPT_RC ? 0 : EINVAL;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		*op = VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP;
		return qp->atomics && qp_type == IBV_QPT_RC ? 0 : EINVAL;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*op = VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD;
		return qp->atomics && qp_type == IBV_QPT_RC ? 0 : EINVAL;
	case IBV_WR_LOCAL_INV:
		*op = VIRTIO_IB_WR_LOCAL_INV;
		return qp->mem_mgt ? 0 : EINVAL;
	case IBV_WR_SEND_WITH_INV:
		*op = VIRTIO_IB_WR_SEND_WITH_INV;
		return qp->mem_mgt && qp_type == IBV_QPT_RC ? 0 : EINVAL;
	case IBV_WR_BIND_MW:
		*op = VIRTIO_IB_WR_BIND_MW;
		return qp->mw && qp_type != IBV_QPT_UD ? 0 : EINVAL;
	default:
		return EINVAL;
	}
}

static bool wr_is_atomic(uint8_t op)
{
	return op == VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Whether the WR sends a message, which IBV_SEND_INLINE can carry. */
static bool wr_has_message(uint8_t op)
{
	switch (op) {
	case VIRTIO_IB_WR_SEND:
	case VIRTIO_IB_WR_SEND_WITH_IMM:
	case VIRTIO_IB_WR_SEND_WITH_INV:
	case VIRTIO_IB_WR_RDMA_WRITE:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return false;
	}
}

static uint8_t wr_send_flags(unsigned int flags)
{
	uint8_t f = 0;

	if (flags & IBV_SEND_FENCE)
		f |= VIRTIO_IB_SEND_FENCE;
	if (flags & IBV_SEND_SIGNALED)
		f |= VIRTIO_IB_SEND_SIGNALED;
	if (flags & IBV_SEND_SOLICITED)
		f |= VIRTIO_IB_SEND_SOLICITED;
	if (flags & IBV_SEND_INLINE)
		f |= VIRTIO_IB_SEND_INLINE;
	return f;
}

/* IBV_SEND_INLINE: the message is copied into the request now. */
static int wr_inline(struct virtio_rdma_qp *qp, const struct ibv_send_wr *wr,
		     struct virtio_rdma_sq_req *req)
{
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > qp->max_inline_data - len)
			return EINVAL;
		memcpy(req->inline_data + len,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	req->inline_len = htole16(len);
	return 0;
}

/*
 * BIND_MW: the window's key index with its new key byte, over a range of
 * an MR with remote rights only (no zero-based windows). Length 0 unbinds
 * a type 1 MW: address and MR are then ignored, and sent as 0.
 */
static int wr_bind_mw(const struct virtio_rdma_qp *qp,
		      const struct ibv_send_wr *wr,
		      struct virtio_rdma_sq_req *req)
{
	const struct ibv_mw_bind_info *bind = &wr->bind_mw.bind_info;
	const struct ibv_mw *mw = wr->bind_mw.mw;
	unsigned int acc = bind->mw_access_flags;
	uint32_t access = 0;

	/* The key index is the MW's: another would bind another MW. */
	if (!mw || (wr->bind_mw.rkey >> 8) != (mw->rkey >> 8))
		return EINVAL;
	if (acc & ~(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_ATOMIC))
		return EINVAL;
	if ((acc & IBV_ACCESS_REMOTE_ATOMIC) && !qp->atomics)
		return EINVAL;
	if (acc & IBV_ACCESS_REMOTE_READ)
		access |= VIRTIO_IB_ACCESS_REMOTE_READ;
	if (acc & IBV_ACCESS_REMOTE_WRITE)
		access |= VIRTIO_IB_ACCESS_REMOTE_WRITE;
	if (acc & IBV_ACCESS_REMOTE_ATOMIC)
		access |= VIRTIO_IB_ACCESS_REMOTE_ATOMIC;

	req->bind.rkey = htole32(wr->bind_mw.rkey);
	if (!bind->length)
		return 0;
	if (!bind->mr)
		return EINVAL;
	req->bind.addr = htole64(bind->addr);
	req->bind.length = htole64(bind->length);
	req->bind.mr_lkey = htole32(bind->mr->lkey);
	req->bind.access = htole32(access);
	return 0;
}

static void wr_sg_list(struct virtio_rdma_sge *dst, const struct ibv_sge *src,
		       int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(src[i].addr);
		dst[i].length = htole32(src[i].length);
		dst[i].lkey = htole32(src[i].lkey);
	}
}

/*
 * One send WR into its slot. Everything the verbs caller can get wrong is
 * refused here with EINVAL; the rest is the device's to check.
 */
int virtio_rdma_build_send_req(struct virtio_rdma_qp *qp,
			       const struct ibv_send_wr *wr,
			       struct virtio_rdma_sq_req *req)
{
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	uint8_t op;
	int ret;

	ret = wr_opcode(qp, wr->opcode, &op);
	if (ret)
		return ret;
	if (wr->send_flags & ~VIRTIO_RDMA_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (inl && !wr_has_message(op)) ||
	    (!inl && (uint32_t)wr->num_sge > qp->sq.max_sge))
		return EINVAL;
	/* ROCE-DRV-ATOMIC-1: the original value into one 8-byte element. */
	if (wr_is_atomic(op) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
	     wr->wr.atomic.remote_addr % 8))
		return EINVAL;
	/* ROCE-DEV-WR-2: READ's s/g list is bounded by max_sge_rd too. */
	if (op == VIRTIO_IB_WR_RDMA_READ &&
	    (uint32_t)wr->num_sge > qp->max_read_sge)
		return EINVAL;
	if (qp->ibv_qp.qp_type == IBV_QPT_UD &&
	    (!wr->wr.ud.ah || wr->wr.ud.remote_qpn >> 24))
		return EINVAL;

	/* ROCE-DRV-WR-4: what the operation does not use is zero. */
	memset(req, 0, sizeof(*req));
	req->wr_id = htole64(wr->wr_id);
	req->opcode = op;
	req->send_flags = wr_send_flags(wr->send_flags);

	switch (op) {
	case VIRTIO_IB_WR_SEND_WITH_IMM:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
		req->imm_data = wr->imm_data; /* network order, both */
		break;
	case VIRTIO_IB_WR_SEND_WITH_INV:
	case VIRTIO_IB_WR_LOCAL_INV:
		req->inv.invalidate_rkey = htole32(wr->invalidate_rkey);
		break;
	}

	switch (op) {
	case VIRTIO_IB_WR_SEND:
	case VIRTIO_IB_WR_SEND_WITH_IMM:
		if (qp->ibv_qp.qp_type == IBV_QPT_UD) {
			req->ud.remote_qpn = htole32(wr->wr.ud.remote_qpn);
			req->ud.remote_qkey = htole32(wr->wr.ud.remote_qkey);
			req->ud.ah = htole32(to_vah(wr->wr.ud.ah)->ahn);
		}
		break;
	case VIRTIO_IB_WR_RDMA_WRITE:
	case VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM:
	case VIRTIO_IB_WR_RDMA_READ:
		req->rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		req->rdma.rkey = htole32(wr->wr.rdma.rkey);
		break;
	case VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP:
	case VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD:
		req->atomic.remote_addr = htole64(wr->wr.atomic.remote_addr);
		req->atomic.rkey = htole32(wr->wr.atomic.rkey);
		req->atomic.compare_add = htole64(wr->wr.atomic.compare_add);
		/* ROCE-DRV-WR-4: unused for FETCH_AND_ADD, so zero. */
		if (op == VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP)
			req->atomic.swap = htole64(wr->wr.atomic.swap);
		break;
	case VIRTIO_IB_WR_LOCAL_INV:
		return 0; /* no message: num_sge 0 */
	case VIRTIO_IB_WR_BIND_MW:
		return wr_bind_mw(qp, wr, req); /* num_sge 0 */
	}

	if (inl)
		return wr_inline(qp, wr, req);

	req->num_sge = htole32(wr->num_sge);
	wr_sg_list(req->sg_list, wr->sg_list, wr->num_sge);
	return 0;
}

int virtio_rdma_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	struct virtio_rdma_qp *qp = to_vqp(ibqp);
	struct virtio_rdma_vq *vq = &qp->sq;
	uint32_t old;
	int ret = 0;

	pthread_spin_lock(&vq->lock);
	old = vq->avail_idx;
	for (; wr; wr = wr->next) {
		if (virtio_rdma_vq_full(vq)) {
			ret = ENOMEM;
			break;
		}
		ret = virtio_rdma_build_send_req(qp, wr,
						 virtio_rdma_vq_next_slot(vq));
		if (ret)
			break;
		virtio_rdma_vq_push(vq);
	}
	if (ret)
		*bad_wr = wr;
	if (vq->avail_idx != old) {
		virtio_rdma_vq_publish(vq);
		virtio_rdma_vq_notify(vq, old);
	}
	pthread_spin_unlock(&vq->lock);
	return ret;
}

/* A receive WR as the device's request; unused fields zero (ROCE-DRV-WR-4). */
void virtio_rdma_rq_req(struct virtio_rdma_rq_req *req,
			const struct ibv_recv_wr *wr)
{
	memset(req, 0, sizeof(*req));
	req->wr_id = htole64(wr->wr_id);
	req->num_sge = htole32(wr->num_sge);
	wr_sg_list(req->sg_list, wr->sg_list, wr->num_sge);
}

int virtio_rdma_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	struct virtio_rdma_vq *vq = &to_vqp(ibqp)->rq;
	uint32_t old;
	int ret = 0;

	/* ROCE-DRV-SRQ-3: a QP on an SRQ receives from the SRQ only. */
	if (!to_vqp(ibqp)->has_rq) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&vq->lock);
	old = vq->avail_idx;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > vq->max_sge) {
			ret = EINVAL;
			break;
		}
		if (virtio_rdma_vq_full(vq)) {
			ret = ENOMEM;
			break;
		}
		virtio_rdma_rq_req(virtio_rdma_vq_next_slot(vq), wr);
		virtio_rdma_vq_push(vq);
	}
	if (ret)
		*bad_wr = wr;
	if (vq->avail_idx != old) {
		virtio_rdma_vq_publish(vq);
		virtio_rdma_vq_notify(vq, old);
	}
	pthread_spin_unlock(&vq->lock);
	return ret;
}

/*
 * ibv_bind_mw(), type 1 (libibverbs checked the type and the MR's PD): a
 * BIND_MW WR with the next key byte; the MW has the new key once posted,
 * as the verbs want (a failed bind's completion leaves the consumer to
 * restore it).
 */
int virtio_rdma_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
			struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	};
	struct ibv_send_wr *bad_wr;
	int ret;

	ret = virtio_rdma_post_send(ibqp, &wr, &bad_wr);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
