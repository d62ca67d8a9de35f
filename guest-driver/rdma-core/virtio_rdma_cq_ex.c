// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Extended CQs (ibv_create_cq_ex): the completion virtqueue of
 * virtio_rdma_cq.c read one CQE at a time. start_poll takes the queue's
 * lock and the first used CQE, next_poll gives its slot back and takes the
 * next, end_poll gives the last slot back, publishes avail->idx once and
 * unlocks; the read_* callbacks read the CQE in its slot in between. A CQ
 * on rings (virtio_rdma_cq_ring.c) is read the same way, its entries given
 * back with one cons store at end_poll. The
 * fields are those of poll_cq: no completion timestamps (the device has
 * no clock for them), no VLAN, flow tag or tag matching.
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "virtio_rdma.h"

#define VIRTIO_RDMA_WC_EX_FLAGS                                                \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |                        \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | \
	 IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS)

/*
 * The next used CQE becomes the current one. A device that names no slot
 * of ours, or moves used->idx past the ring, gets EIO and the CQ stays as
 * it was (poll_cq's -1).
 */
static int cq_take(struct virtio_rdma_cq *cq)
{
	struct virtio_rdma_vq *vq = &cq->vq;
	uint16_t used_idx;
	uint32_t id;
	int ret;

	if (cq->rings) {
		ret = virtio_rdma_cq_ring_take(cq);
		if (!ret) {
			cq->vcq.cq_ex.wr_id = le64toh(cq->cur->wr_id);
			cq->vcq.cq_ex.status =
				virtio_rdma_wc_status(cq->cur->status);
		}
		return ret;
	}
	used_idx = virtio_rdma_vq_used_idx(vq);
	if (vq->last_used == used_idx)
		return ENOENT;
	if ((uint16_t)(used_idx - vq->last_used) > vq->num)
		return EIO;
	id = le32toh(vq->used->ring[vq->last_used & (vq->num - 1)].id);
	if (id >= vq->num)
		return EIO;

	cq->cur = virtio_rdma_vq_slot(vq, id);
	cq->cur_id = id;
	vq->last_used++;
	cq->vcq.cq_ex.wr_id = le64toh(cq->cur->wr_id);
	cq->vcq.cq_ex.status = virtio_rdma_wc_status(cq->cur->status);
	return 0;
}

/*
 * The current CQE has been read: its slot goes back to the device (on
 * rings its entry goes back with cons at end_poll).
 */
static void cq_put(struct virtio_rdma_cq *cq)
{
	if (!cq->cur)
		return;
	if (!cq->rings)
		virtio_rdma_vq_repost(&cq->vq, cq->cur_id);
	cq->cur = NULL;
}

static int cq_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct virtio_rdma_cq *cq = to_vcq_ex(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;

	pthread_spin_lock(&cq->vq.lock);
	cq->cur = NULL;
	ret = cq_take(cq);
	if (ret)
		pthread_spin_unlock(&cq->vq.lock);
	return ret;
}

static int cq_next_poll(struct ibv_cq_ex *ibcq)
{
	struct virtio_rdma_cq *cq = to_vcq_ex(ibcq);

	cq_put(cq);
	return cq_take(cq);
}

static void cq_end_poll(struct ibv_cq_ex *ibcq)
{
	struct virtio_rdma_cq *cq = to_vcq_ex(ibcq);

	cq_put(cq);
	if (cq->rings)
		virtio_rdma_cq_ring_publish(cq);
	else
		virtio_rdma_vq_publish(&cq->vq);
	pthread_spin_unlock(&cq->vq.lock);
}

static enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *ibcq)
{
	return virtio_rdma_wc_opcode(to_vcq_ex(ibcq)->cur->opcode);
}

static uint32_t cq_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_vcq_ex(ibcq)->cur->vendor_err);
}

static uint32_t cq_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_vcq_ex(ibcq)->cur->byte_len);
}

/*
 * imm_data (network order, as the CQE keeps it), or with IBV_WC_WITH_INV
 * the invalidated key, which ibv_wc_read_invalidated_rkey() reads through
 * this callback and returns as is: in host order, as mlx5 gives it.
 */
static __be32 cq_read_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct virtio_rdma_cq_req *cqe = to_vcq_ex(ibcq)->cur;

	if (le32toh(cqe->wc_flags) & VIRTIO_IB_WC_WITH_INVALIDATE)
		return (__force __be32)le32toh(cqe->invalidate_rkey);
	return cqe->imm_data;
}

static uint32_t cq_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_vcq_ex(ibcq)->cur->qp_num);
}

static uint32_t cq_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_vcq_ex(ibcq)->cur->src_qp);
}

static unsigned int cq_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return virtio_rdma_wc_flags(le32toh(to_vcq_ex(ibcq)->cur->wc_flags));
}

/* RoCE has no LIDs and no service levels of IB: 0, as poll_cq says. */
static uint32_t cq_read_slid(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t cq_read_sl(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return 0;
}

void virtio_rdma_cq_ex_set_ops(struct ibv_cq_ex *cq, uint64_t wc_flags)
{
	cq->start_poll = cq_start_poll;
	cq->next_poll = cq_next_poll;
	cq->end_poll = cq_end_poll;
	cq->read_opcode = cq_read_opcode;
	cq->read_vendor_err = cq_read_vendor_err;
	cq->read_wc_flags = cq_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq->read_byte_len = cq_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cq->read_imm_data = cq_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq->read_qp_num = cq_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq->read_src_qp = cq_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cq->read_slid = cq_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cq->read_sl = cq_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cq->read_dlid_path_bits = cq_read_dlid_path_bits;
}

/*
 * The kernel's create_cq, as for ibv_create_cq(): the extensions are the
 * provider's own. A parent domain, completion timestamps (the device has
 * no clock), VLAN, flow tag and tag matching fields, and ignoring overruns
 * are not this device's: EOPNOTSUPP.
 */
struct ibv_cq_ex *virtio_rdma_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct virtio_rdma_create_cq_ucmd cmd = {
		.drv.flags = VIRTIO_RDMA_CREATE_CQ_RINGS,
	};
	struct virtio_rdma_create_cq_uresp resp = {};
	struct virtio_rdma_cq *cq;
	int ret;

	if ((attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    attr->wc_flags & ~(uint64_t)VIRTIO_RDMA_WC_EX_FLAGS ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(context, attr->cqe, attr->channel,
				attr->comp_vector, &cq->vcq.cq, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = virtio_rdma_cq_setup(cq, context, &resp.drv);
	if (ret)
		goto err_destroy;

	virtio_rdma_cq_ex_set_ops(&cq->vcq.cq_ex, attr->wc_flags);
	return &cq->vcq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}
