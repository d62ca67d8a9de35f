// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: a completion virtqueue whose slots the device writes
 * CQEs into (struct virtio_rdma_cq_req). The kernel made every slot
 * available; the provider takes CQEs from the used ring and gives each slot
 * back once it has read it. Interrupts (completion events) are asked for
 * with ibv_req_notify_cq(), a system call, and arrive on the completion
 * channel, which libibverbs handles. With the kernel's rings layout a CQ
 * is a ring instead (virtio_rdma_cq_ring.c), as deep as max_cqe says.
 */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <stdlib.h>

#include <ccan/array_size.h>

#include "virtio_rdma.h"

/* enum virtio_ib_wc_status -> enum ibv_wc_status (IBTA names, both) */
static const enum ibv_wc_status wc_status[] = {
	[VIRTIO_IB_WC_SUCCESS] = IBV_WC_SUCCESS,
	[VIRTIO_IB_WC_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
	[VIRTIO_IB_WC_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
	[VIRTIO_IB_WC_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
	[VIRTIO_IB_WC_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
	[VIRTIO_IB_WC_BAD_RESP_ERR] = IBV_WC_BAD_RESP_ERR,
	[VIRTIO_IB_WC_LOC_ACCESS_ERR] = IBV_WC_LOC_ACCESS_ERR,
	[VIRTIO_IB_WC_REM_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
	[VIRTIO_IB_WC_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
	[VIRTIO_IB_WC_REM_OP_ERR] = IBV_WC_REM_OP_ERR,
	[VIRTIO_IB_WC_RETRY_EXC_ERR] = IBV_WC_RETRY_EXC_ERR,
	[VIRTIO_IB_WC_RNR_RETRY_EXC_ERR] = IBV_WC_RNR_RETRY_EXC_ERR,
	[VIRTIO_IB_WC_REM_ABORT_ERR] = IBV_WC_REM_ABORT_ERR,
	[VIRTIO_IB_WC_FATAL_ERR] = IBV_WC_FATAL_ERR,
	[VIRTIO_IB_WC_RESP_TIMEOUT_ERR] = IBV_WC_RESP_TIMEOUT_ERR,
	[VIRTIO_IB_WC_GENERAL_ERR] = IBV_WC_GENERAL_ERR,
	[VIRTIO_IB_WC_MW_BIND_ERR] = IBV_WC_MW_BIND_ERR,
};

/* enum virtio_ib_wc_opcode -> enum ibv_wc_opcode */
static const enum ibv_wc_opcode wc_opcode[] = {
	[VIRTIO_IB_WC_SEND] = IBV_WC_SEND,
	[VIRTIO_IB_WC_RDMA_WRITE] = IBV_WC_RDMA_WRITE,
	[VIRTIO_IB_WC_RDMA_READ] = IBV_WC_RDMA_READ,
	[VIRTIO_IB_WC_RECV] = IBV_WC_RECV,
	[VIRTIO_IB_WC_RECV_RDMA_WITH_IMM] = IBV_WC_RECV_RDMA_WITH_IMM,
	[VIRTIO_IB_WC_COMP_SWAP] = IBV_WC_COMP_SWAP,
	[VIRTIO_IB_WC_FETCH_ADD] = IBV_WC_FETCH_ADD,
	[VIRTIO_IB_WC_LOCAL_INV] = IBV_WC_LOCAL_INV,
	[VIRTIO_IB_WC_BIND_MW] = IBV_WC_BIND_MW,
	/* VIRTIO_IB_WC_REG_MR: no user WR registers (no ibv_wc opcode) */
};

enum ibv_wc_status virtio_rdma_wc_status(uint8_t status)
{
	return status < ARRAY_SIZE(wc_status) ? wc_status[status]
					      : IBV_WC_GENERAL_ERR;
}

/* The opcode of an error CQE is undefined in verbs. */
enum ibv_wc_opcode virtio_rdma_wc_opcode(uint8_t opcode)
{
	return opcode < ARRAY_SIZE(wc_opcode) ? wc_opcode[opcode] : IBV_WC_SEND;
}

/* VIRTIO_IB_WC_* -> IBV_WC_* (the same bits for ibv_wc and ibv_cq_ex) */
unsigned int virtio_rdma_wc_flags(uint32_t wc_flags)
{
	unsigned int flags = 0;

	if (wc_flags & VIRTIO_IB_WC_GRH)
		flags |= IBV_WC_GRH;
	/* A CQE never has both (ROCE-DEV-CQE-7): INV wins, as it is read. */
	if (wc_flags & VIRTIO_IB_WC_WITH_INVALIDATE)
		flags |= IBV_WC_WITH_INV;
	else if (wc_flags & VIRTIO_IB_WC_WITH_IMM)
		flags |= IBV_WC_WITH_IMM;
	return flags;
}

/*
 * What the kernel made, for create_cq(_ex): a CQ on rings if it says so
 * (a kernel with the rings layout, asked by VIRTIO_RDMA_CREATE_CQ_RINGS),
 * else the completion virtqueue (an older kernel ignores the ask).
 */
int virtio_rdma_cq_setup(struct virtio_rdma_cq *cq, struct ibv_context *context,
			 const struct virtio_rdma_create_cq_resp *drv)
{
	cq->cqn = drv->cqn;
	if (drv->flags & VIRTIO_RDMA_CQ_RESP_RINGS)
		return virtio_rdma_cq_ring_map(cq, context->cmd_fd, &drv->ring);
	return virtio_rdma_vq_map(&cq->vq, context->cmd_fd, &drv->cq,
				  sizeof(struct virtio_rdma_cq_req), false);
}

void virtio_rdma_cq_unmap(struct virtio_rdma_cq *cq)
{
	if (cq->rings)
		virtio_rdma_cq_ring_unmap(cq);
	else
		virtio_rdma_vq_unmap(&cq->vq);
}

struct ibv_cq *virtio_rdma_create_cq(struct ibv_context *context, int cqe,
				     struct ibv_comp_channel *channel,
				     int comp_vector)
{
	struct virtio_rdma_create_cq_ucmd cmd = {
		.drv.flags = VIRTIO_RDMA_CREATE_CQ_RINGS,
	};
	struct virtio_rdma_create_cq_uresp resp = {};
	struct virtio_rdma_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector, &cq->ibv_cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;

	ret = virtio_rdma_cq_setup(cq, context, &resp.drv);
	if (ret)
		goto err_destroy;

	return &cq->ibv_cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->ibv_cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

/*
 * The command first: it fails with EBUSY while a QP uses the CQ, which
 * must then stay usable. The kernel keeps the device's CQ until the
 * mappings are gone too (virtio_rdma-abi.h, lifetime).
 */
int virtio_rdma_destroy_cq(struct ibv_cq *ibcq)
{
	struct virtio_rdma_cq *cq = to_vcq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	virtio_rdma_cq_unmap(cq);
	free(cq);
	return 0;
}

void virtio_rdma_cqe_to_wc(const struct virtio_rdma_cq_req *cqe,
			   struct ibv_wc *wc)
{
	uint32_t flags = le32toh(cqe->wc_flags);

	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = virtio_rdma_wc_status(cqe->status);
	wc->opcode = virtio_rdma_wc_opcode(cqe->opcode);
	wc->vendor_err = le32toh(cqe->vendor_err);
	wc->byte_len = le32toh(cqe->byte_len);
	wc->qp_num = le32toh(cqe->qp_num);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->wc_flags = virtio_rdma_wc_flags(flags);
	/*
	 * imm_data and invalidated_rkey share four bytes in the CQE and in
	 * ibv_wc; a CQE never has both flags (ROCE-DEV-CQE-7).
	 */
	if (flags & VIRTIO_IB_WC_WITH_INVALIDATE)
		wc->invalidated_rkey = le32toh(cqe->invalidate_rkey);
	else
		wc->imm_data = cqe->imm_data; /* network order, as ibv_wc */
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
}

/*
 * The next used element names the slot of the CQE; once read, the slot is
 * made available again. One avail->idx update for the whole poll. A device
 * that names no slot of ours, or moves used->idx past the ring, gets -1,
 * and the CQ stays as it was.
 */
int virtio_rdma_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct virtio_rdma_vq *vq = &to_vcq(ibcq)->vq;
	struct virtio_rdma_cq_req *cqe;
	uint16_t used_idx;
	uint32_t id;
	int n = 0;

	if (to_vcq(ibcq)->rings)
		return virtio_rdma_cq_ring_poll(to_vcq(ibcq), ne, wc);
	pthread_spin_lock(&vq->lock);
	used_idx = virtio_rdma_vq_used_idx(vq);
	/* More used than the ring has slots: the device broke its ring. */
	if ((uint16_t)(used_idx - vq->last_used) > vq->num) {
		pthread_spin_unlock(&vq->lock);
		return -1;
	}
	while (n < ne && vq->last_used != used_idx) {
		id = le32toh(vq->used->ring[vq->last_used & (vq->num - 1)].id);
		if (id >= vq->num) {
			/* A device that names no slot of ours: stop here. */
			if (!n)
				n = -1;
			break;
		}
		cqe = virtio_rdma_vq_slot(vq, id);
		virtio_rdma_cqe_to_wc(cqe, &wc[n]);
		vq->last_used++;
		virtio_rdma_vq_repost(vq, id);
		n++;
	}
	if (n > 0)
		virtio_rdma_vq_publish(vq);
	pthread_spin_unlock(&vq->lock);
	return n;
}

/* A CQ on rings is armed in its record, without a system call. */
int virtio_rdma_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	if (to_vcq(ibcq)->rings)
		return virtio_rdma_cq_ring_arm(to_vcq(ibcq), solicited_only);
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * ibv_resize_cq(). A virtqueue CQ keeps every slot of its virtqueue
 * available, so it is as deep as the virtqueue whatever cqe says: the
 * kernel checks cqe against that size and changes nothing. A CQ on rings
 * moves to a new ring (virtio_rdma_cq_ring_switch()). The CQ's lock is
 * held across the command: the device reads cons, which every poll has
 * written (ROCE-DRV-RING-8), and no CQE is read until the switch is known
 * (ROCE-DRV-RING-9). A second resize while the old ring of the first
 * still holds CQEs would need a third ring: EBUSY until they are polled.
 */
int virtio_rdma_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct virtio_rdma_cq *cq = to_vcq(ibcq);
	struct virtio_rdma_resize_cq_ucmd cmd = {
		.drv.flags = VIRTIO_RDMA_RESIZE_CQ_RINGS,
	};
	struct virtio_rdma_resize_cq_uresp resp = {};
	int ret;

	pthread_spin_lock(&cq->vq.lock);
	if (cq->rings && cq->old_ents) {
		ret = EBUSY;
		goto out;
	}
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!ret && cq->rings)
		ret = virtio_rdma_cq_ring_switch(cq, ibcq->context->cmd_fd,
						 &resp.drv);
out:
	pthread_spin_unlock(&cq->vq.lock);
	return ret;
}
