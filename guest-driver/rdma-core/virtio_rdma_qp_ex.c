// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Extended QPs (ibv_create_qp_ex with send_ops_flags) and the ibv_wr_*
 * post API. Each ibv_wr_<opcode>() starts a struct ibv_send_wr, the
 * setters (wr_set_sge, wr_set_inline_data, wr_set_ud_addr...) complete
 * it, and the next ibv_wr_<opcode>() or ibv_wr_complete() turns it into
 * the device's request with post_send's own code
 * (virtio_rdma_build_send_req), so both APIs post the same requests.
 * wr_start takes the send queue's lock and wr_complete makes the WRs
 * available at once and rings the doorbell, or posts none of them if one
 * was refused (its error is wr_complete's); wr_abort drops them.
 */

#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_rdma.h"

#define VIRTIO_RDMA_QP_EX_COMP_MASK                                            \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |                 \
	 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* The opcodes of each QP type, as post_send takes them (wr_opcode). */
#define VIRTIO_RDMA_UD_SEND_OPS                                                \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_LOCAL_INV)
#define VIRTIO_RDMA_UC_SEND_OPS                                                \
	(VIRTIO_RDMA_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE |                 \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_BIND_MW)
#define VIRTIO_RDMA_RC_SEND_OPS                                                \
	(VIRTIO_RDMA_UC_SEND_OPS | IBV_QP_EX_WITH_RDMA_READ |                  \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |                                   \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV)

static struct virtio_rdma_wr_ex *to_wr_ex(struct ibv_qp_ex *ibqp)
{
	return &to_vqp_ex(ibqp)->wr_ex;
}

/* The WR being built becomes a request in the next slot. */
static void wr_finish(struct virtio_rdma_qp *qp)
{
	struct virtio_rdma_wr_ex *x = &qp->wr_ex;
	int ret;

	if (!x->open)
		return;
	x->open = false;
	if (x->err)
		return;
	if (virtio_rdma_vq_full(&qp->sq)) {
		x->err = ENOMEM;
		return;
	}
	ret = virtio_rdma_build_send_req(qp, &x->wr,
					 virtio_rdma_vq_next_slot(&qp->sq));
	if (ret) {
		x->err = ret;
		return;
	}
	virtio_rdma_vq_push(&qp->sq);
}

/*
 * A new WR of @opcode with the QP's wr_id and wr_flags; IBV_SEND_INLINE
 * comes from wr_set_inline_data(_list) only.
 */
static struct ibv_send_wr *wr_begin(struct ibv_qp_ex *ibqp,
				    enum ibv_wr_opcode opcode)
{
	struct virtio_rdma_qp *qp = to_vqp_ex(ibqp);
	struct virtio_rdma_wr_ex *x = &qp->wr_ex;

	wr_finish(qp);
	memset(&x->wr, 0, sizeof(x->wr));
	x->wr.wr_id = ibqp->wr_id;
	x->wr.opcode = opcode;
	x->wr.send_flags = ibqp->wr_flags & ~IBV_SEND_INLINE;
	x->wr.sg_list = x->sge;
	x->open = true;
	return &x->wr;
}

static void wr_send(struct ibv_qp_ex *ibqp)
{
	wr_begin(ibqp, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	wr_begin(ibqp, IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	wr_begin(ibqp, IBV_WR_SEND_WITH_INV)->invalidate_rkey = invalidate_rkey;
}

static void wr_rdma(struct ibv_qp_ex *ibqp, enum ibv_wr_opcode opcode,
		    uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = wr_begin(ibqp, opcode);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			  uint64_t remote_addr)
{
	wr_rdma(ibqp, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	wr_rdma(ibqp, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm_data);
}

static void wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			 uint64_t remote_addr)
{
	wr_rdma(ibqp, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void wr_atomic(struct ibv_qp_ex *ibqp, enum ibv_wr_opcode opcode,
		      uint32_t rkey, uint64_t remote_addr, uint64_t compare_add,
		      uint64_t swap)
{
	struct ibv_send_wr *wr = wr_begin(ibqp, opcode);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	wr_atomic(ibqp, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare,
		  swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	wr_atomic(ibqp, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

static void wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = wr_begin(ibqp, IBV_WR_BIND_MW);

	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

static void wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	wr_begin(ibqp, IBV_WR_LOCAL_INV)->invalidate_rkey = invalidate_rkey;
}

/* A setter without a WR to set, or with more than the WR can hold. */
static bool wr_set_bad(struct virtio_rdma_wr_ex *x, bool bad)
{
	if (!x->open || bad) {
		if (!x->err)
			x->err = EINVAL;
		return true;
	}
	return false;
}

static void wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct virtio_rdma_wr_ex *x = to_wr_ex(ibqp);

	if (wr_set_bad(x, false))
		return;
	x->wr.wr.ud.ah = ah;
	x->wr.wr.ud.remote_qpn = remote_qpn;
	x->wr.wr.ud.remote_qkey = remote_qkey;
}

static void wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct virtio_rdma_qp *qp = to_vqp_ex(ibqp);
	struct virtio_rdma_wr_ex *x = &qp->wr_ex;

	if (wr_set_bad(x, num_sge > qp->sq.max_sge))
		return;
	if (num_sge)
		memcpy(x->sge, sg_list, num_sge * sizeof(*sg_list));
	x->wr.num_sge = num_sge;
	x->wr.send_flags &= ~IBV_SEND_INLINE;
}

static void wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	const struct ibv_sge sge = {
		.addr = addr,
		.length = length,
		.lkey = lkey,
	};

	wr_set_sge_list(ibqp, 1, &sge);
}

/*
 * The data is the caller's only until the call returns: it is copied now,
 * and the request takes it from the copy as post_send takes an inline
 * s/g list (one element naming the copy).
 */
static void wr_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct virtio_rdma_qp *qp = to_vqp_ex(ibqp);
	struct virtio_rdma_wr_ex *x = &qp->wr_ex;
	/* max_inline_data <= sizeof(inline_buf): qp_map_queues checked. */
	size_t room = qp->max_inline_data, len = 0, i;

	for (i = 0; i < num_buf; i++) {
		if (wr_set_bad(x, buf_list[i].length > room - len))
			return;
		memcpy(x->inline_buf + len, buf_list[i].addr,
		       buf_list[i].length);
		len += buf_list[i].length;
	}
	if (wr_set_bad(x, false))
		return;
	x->sge[0].addr = (uintptr_t)x->inline_buf;
	x->sge[0].length = len;
	x->sge[0].lkey = 0;
	x->wr.num_sge = 1;
	x->wr.send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
			       size_t length)
{
	const struct ibv_data_buf buf = {
		.addr = addr,
		.length = length,
	};

	wr_set_inline_data_list(ibqp, 1, &buf);
}

static void wr_start(struct ibv_qp_ex *ibqp)
{
	struct virtio_rdma_qp *qp = to_vqp_ex(ibqp);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_ex.start_idx = qp->sq.avail_idx;
	qp->wr_ex.open = false;
	qp->wr_ex.err = 0;
}

static int wr_complete(struct ibv_qp_ex *ibqp)
{
	struct virtio_rdma_qp *qp = to_vqp_ex(ibqp);
	struct virtio_rdma_wr_ex *x = &qp->wr_ex;
	struct virtio_rdma_vq *vq = &qp->sq;
	int ret;

	wr_finish(qp);
	ret = x->err;
	if (ret) {
		/* None of them: slots and ring entries were never published. */
		vq->avail_idx = x->start_idx;
	} else if (vq->avail_idx != x->start_idx) {
		virtio_rdma_vq_publish(vq);
		virtio_rdma_vq_notify(vq, x->start_idx);
	}
	pthread_spin_unlock(&vq->lock);
	return ret;
}

static void wr_abort(struct ibv_qp_ex *ibqp)
{
	struct virtio_rdma_qp *qp = to_vqp_ex(ibqp);

	qp->wr_ex.open = false;
	qp->sq.avail_idx = qp->wr_ex.start_idx;
	pthread_spin_unlock(&qp->sq.lock);
}

/*
 * The opcodes a QP of @qp_type can post (wr_opcode in virtio_rdma_qp.c),
 * less those of capabilities the device does not report
 * (ROCE-DRV-ATTR-4).
 */
static uint64_t qp_send_ops(const struct virtio_rdma_context *ctx,
			    enum ibv_qp_type qp_type)
{
	uint64_t ops;

	switch (qp_type) {
	case IBV_QPT_RC:
		ops = VIRTIO_RDMA_RC_SEND_OPS;
		break;
	case IBV_QPT_UC:
		ops = VIRTIO_RDMA_UC_SEND_OPS;
		break;
	case IBV_QPT_UD:
		ops = VIRTIO_RDMA_UD_SEND_OPS;
		break;
	default:
		return 0;
	}
	if (!ctx->atomics)
		ops &= ~(uint64_t)(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	if (!ctx->mem_mgt)
		ops &= ~(uint64_t)(IBV_QP_EX_WITH_LOCAL_INV |
				   IBV_QP_EX_WITH_SEND_WITH_INV);
	if (!ctx->mw)
		ops &= ~(uint64_t)IBV_QP_EX_WITH_BIND_MW;
	return ops;
}

static void qp_set_send_ops(struct ibv_qp_ex *qpx, uint64_t ops)
{
	if (ops & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = wr_local_inv;
	qpx->wr_set_ud_addr = wr_set_ud_addr;
	qpx->wr_set_sge = wr_set_sge;
	qpx->wr_set_sge_list = wr_set_sge_list;
	qpx->wr_set_inline_data = wr_set_inline_data;
	qpx->wr_set_inline_data_list = wr_set_inline_data_list;
	qpx->wr_start = wr_start;
	qpx->wr_complete = wr_complete;
	qpx->wr_abort = wr_abort;
}

/*
 * The WR builder of a QP whose queues are mapped (max_send_sge known),
 * and, with @ops, its ibv_qp_ex.
 */
int virtio_rdma_qp_ex_init(struct virtio_rdma_qp *qp, bool with_ops,
			   uint64_t ops)
{
	qp->wr_ex.sge = calloc(qp->sq.max_sge + 1, sizeof(*qp->wr_ex.sge));
	if (!qp->wr_ex.sge)
		return ENOMEM;
	if (with_ops) {
		qp_set_send_ops(&qp->vqp.qp_ex, ops);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return 0;
}

/*
 * ibv_create_qp_ex() with more than a PD (libibverbs sends a PD alone to
 * create_qp): RC, UC and UD, with the opcodes of send_ops_flags that the
 * QP type and the device have; anything else is EOPNOTSUPP.
 */
struct ibv_qp *virtio_rdma_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr)
{
	struct virtio_rdma_context *ctx = to_vctx(context);
	struct virtio_rdma_create_qp_uresp resp = {};
	struct ibv_qp_init_attr_ex kattr;
	struct virtio_rdma_create_qp_ucmd cmd = {
		.drv.flags = VIRTIO_RDMA_CREATE_QP_RINGS,
	};
	struct virtio_rdma_qp *qp;
	int ret;

	if ((attr->comp_mask & ~(uint64_t)VIRTIO_RDMA_QP_EX_COMP_MASK) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags) ||
	    !qp_send_ops(ctx, attr->qp_type) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	     (attr->send_ops_flags & ~qp_send_ops(ctx, attr->qp_type)))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->has_rq = !attr->srq;

	/* No create flags for the kernel: it takes none. */
	kattr = *attr;
	kattr.comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ret = ibv_cmd_create_qp_ex(context, &qp->vqp, &kattr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	/* attr->cap now holds what the kernel granted. */
	attr->cap = kattr.cap;
	ret = virtio_rdma_qp_setup(qp, context, &attr->cap, &resp.drv);
	if (ret)
		goto err_destroy;
	ret = virtio_rdma_qp_ex_init(
		qp, attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		attr->send_ops_flags);
	if (ret)
		goto err_unmap;
	return &qp->ibv_qp;

err_unmap:
	virtio_rdma_qp_unmap(qp);
err_destroy:
	ibv_cmd_destroy_qp(&qp->ibv_qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}
