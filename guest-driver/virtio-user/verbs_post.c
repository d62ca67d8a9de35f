/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Posting work requests: each WR written as the spec's request into a slot
 * of its queue (ROCE-DRV-WR-1, one device-readable buffer; WR-4, unused
 * fields zero), made available in order, one notification per call.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "device.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"
#include "virtqueue.h"

VUSER_SAME_VALUE(VUR_USER_WR_RDMA_WRITE, VIRTIO_IB_WR_RDMA_WRITE);
VUSER_SAME_VALUE(VUR_USER_WR_RDMA_WRITE_WITH_IMM, VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM);
VUSER_SAME_VALUE(VUR_USER_WR_SEND, VIRTIO_IB_WR_SEND);
VUSER_SAME_VALUE(VUR_USER_WR_SEND_WITH_IMM, VIRTIO_IB_WR_SEND_WITH_IMM);
VUSER_SAME_VALUE(VUR_USER_WR_RDMA_READ, VIRTIO_IB_WR_RDMA_READ);
VUSER_SAME_VALUE(VUR_USER_WR_ATOMIC_CMP_AND_SWP, VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP);
VUSER_SAME_VALUE(VUR_USER_WR_ATOMIC_FETCH_AND_ADD, VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD);
VUSER_SAME_VALUE(VUR_USER_WR_LOCAL_INV, VIRTIO_IB_WR_LOCAL_INV);
VUSER_SAME_VALUE(VUR_USER_WR_SEND_WITH_INV, VIRTIO_IB_WR_SEND_WITH_INV);
VUSER_SAME_VALUE(VUR_USER_WR_REG_MR, VIRTIO_IB_WR_REG_MR);
VUSER_SAME_VALUE(VUR_USER_WR_BIND_MW, VIRTIO_IB_WR_BIND_MW);
VUSER_SAME_VALUE(VUR_USER_SEND_FENCE, VIRTIO_IB_SEND_FENCE);
VUSER_SAME_VALUE(VUR_USER_SEND_SIGNALED, VIRTIO_IB_SEND_SIGNALED);
VUSER_SAME_VALUE(VUR_USER_SEND_SOLICITED, VIRTIO_IB_SEND_SOLICITED);
VUSER_SAME_VALUE(VUR_USER_SEND_INLINE, VIRTIO_IB_SEND_INLINE);

static void
sge_to_wire(const struct vur_user_sge *s, uint32_t n, struct virtio_rdma_sge *w)
{
	for (uint32_t i = 0; i < n; i++) {
		w[i].addr = htole64(s[i].addr);
		w[i].length = htole32(s[i].length);
		w[i].lkey = htole32(s[i].lkey);
	}
}

static bool
is_rdma(uint8_t opcode)
{
	return opcode == VIRTIO_IB_WR_RDMA_WRITE || opcode == VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM ||
			opcode == VIRTIO_IB_WR_RDMA_READ;
}

static bool
is_atomic(uint8_t opcode)
{
	return opcode == VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP ||
			opcode == VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD;
}

static bool
has_imm(uint8_t opcode)
{
	return opcode == VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM || opcode == VIRTIO_IB_WR_SEND_WITH_IMM;
}

/* What the library cannot express; the rest is the device's to judge. */
int
vuser_check_send(const struct vuser_wq *q, const struct vur_user_send_wr *wr)
{
	if (wr->send_flags & VUR_USER_SEND_INLINE)
		return wr->inline_len > VIRTIO_NET_ROCE_MAX_INLINE ||
						(wr->inline_len > 0 && wr->inline_data == NULL)
				? -EINVAL
				: 0;
	return wr->num_sge > q->max_sge || (wr->num_sge > 0 && wr->sg_list == NULL) ? -EINVAL : 0;
}

/* The request in @slot; returns its length. */
uint32_t
vuser_send_to_wire(uint8_t qp_type, const struct vur_user_send_wr *wr, void *slot)
{
	struct virtio_rdma_sq_req *r = slot;
	bool ud = qp_type == VUR_USER_QPT_UD || qp_type == VUR_USER_QPT_GSI;

	memset(r, 0, sizeof(*r));
	r->wr_id = htole64(wr->wr_id);
	r->opcode = wr->opcode;
	r->send_flags = wr->send_flags;
	if (has_imm(wr->opcode))
		r->imm_data = wr->imm_data;
	if (is_rdma(wr->opcode)) {
		r->rdma.remote_addr = htole64(wr->rdma.remote_addr);
		r->rdma.rkey = htole32(wr->rdma.rkey);
	} else if (wr->opcode == VIRTIO_IB_WR_LOCAL_INV ||
			wr->opcode == VIRTIO_IB_WR_SEND_WITH_INV) {
		r->inv.invalidate_rkey = htole32(wr->inv.invalidate_rkey);
	} else if (wr->opcode == VIRTIO_IB_WR_REG_MR) {
		r->reg.iova = htole64(wr->reg.iova);
		r->reg.length = htole64(wr->reg.length);
		r->reg.key = htole32(wr->reg.key);
		r->reg.access = htole32(wr->reg.access);
		r->reg.page_shift = wr->reg.page_shift;
	} else if (is_atomic(wr->opcode)) {
		/* sent as given: the device judges the s/g list and the address */
		r->atomic.remote_addr = htole64(wr->atomic.remote_addr);
		r->atomic.rkey = htole32(wr->atomic.rkey);
		r->atomic.compare_add = htole64(wr->atomic.compare_add);
		r->atomic.swap = htole64(wr->atomic.swap);
	} else if (wr->opcode == VIRTIO_IB_WR_BIND_MW) {
		r->bind.addr = htole64(wr->bind.addr);
		r->bind.length = htole64(wr->bind.length);
		r->bind.mr_lkey = htole32(wr->bind.mr_lkey);
		r->bind.rkey = htole32(wr->bind.rkey);
		r->bind.access = htole32(wr->bind.access);
	} else if (ud) {
		r->ud.remote_qpn = htole32(wr->ud.remote_qpn);
		r->ud.remote_qkey = htole32(wr->ud.remote_qkey);
		r->ud.ah = htole32(wr->ud.ah);
	}
	if (wr->send_flags & VUR_USER_SEND_INLINE) {
		if (wr->inline_len > 0)
			memcpy(r->inline_data, wr->inline_data, wr->inline_len);
		r->inline_len = htole16((uint16_t)wr->inline_len);
		return sizeof(*r);
	}
	r->num_sge = htole32(wr->num_sge);
	sge_to_wire(wr->sg_list, wr->num_sge, r->sg_list);
	return sizeof(*r) + wr->num_sge * sizeof(struct virtio_rdma_sge);
}

uint32_t
vuser_recv_to_wire(const struct vur_user_recv_wr *wr, void *slot)
{
	struct virtio_rdma_rq_req *r = slot;

	memset(r, 0, sizeof(*r));
	r->wr_id = htole64(wr->wr_id);
	r->num_sge = htole32(wr->num_sge);
	sge_to_wire(wr->sg_list, wr->num_sge, r->sg_list);
	return sizeof(*r) + wr->num_sge * sizeof(struct virtio_rdma_sge);
}

/* Make the request in @slot available; the ring has room, as slots <= entries. */
static void
add(struct vuser_wq *q, void *slot, uint32_t len)
{
	struct vuser_sg sg = {
		.addr = q->slots.gpa + (uint64_t)((uint8_t *)slot - (uint8_t *)q->slots.hva),
		.len = len,
	};

	vuser_vring_add(&q->vq->ring, &sg, 1, 0, slot);
}

static void
notify(struct vuser_wq *q, unsigned int posted)
{
	if (posted > 0 && vuser_vring_publish(&q->vq->ring))
		vuser_vq_kick(q->vq);
}

int
vur_user_post_send(struct vur_user_dev *d, uint32_t qpn, const struct vur_user_send_wr *wr,
		unsigned int n, unsigned int *bad)
{
	struct vuser_qp *qp = d != NULL ? vuser_qp_get(d, qpn) : NULL;
	unsigned int i;
	void *slot;
	int ret = 0;

	if (qp == NULL || (wr == NULL && n > 0)) {
		if (bad != NULL)
			*bad = 0;
		return -EINVAL;
	}
	if (qp->r != NULL)
		return vuser_rqp_post_send(d, &qp->sq, qp->r, qp->type, wr, n, bad);
	pthread_mutex_lock(&qp->sq.lock);
	for (i = 0; i < n; i++) {
		ret = vuser_check_send(&qp->sq, &wr[i]);
		if (ret < 0)
			break;
		slot = vuser_wq_slot(d, &qp->sq);
		if (slot == NULL) {
			ret = -ENOMEM;
			break;
		}
		add(&qp->sq, slot, vuser_send_to_wire(qp->type, &wr[i], slot));
	}
	notify(&qp->sq, i);
	pthread_mutex_unlock(&qp->sq.lock);
	if (ret < 0 && bad != NULL)
		*bad = i;
	return ret;
}

int
vuser_post_recv_wq(struct vur_user_dev *d, struct vuser_wq *q, const struct vur_user_recv_wr *wr,
		unsigned int n, unsigned int *bad, struct vuser_srq *srq)
{
	unsigned int i;
	void *slot;
	int ret = 0;

	if (wr == NULL && n > 0) {
		if (bad != NULL)
			*bad = 0;
		return -EINVAL;
	}
	pthread_mutex_lock(&q->lock);
	for (i = 0; i < n; i++) {
		if (wr[i].num_sge > q->max_sge || (wr[i].num_sge > 0 && wr[i].sg_list == NULL)) {
			ret = -EINVAL;
			break;
		}
		slot = vuser_wq_slot(d, q);
		if (slot == NULL) {
			ret = -ENOMEM;
			break;
		}
		add(q, slot, vuser_recv_to_wire(&wr[i], slot));
	}
	if (srq != NULL && i > 0)
		vuser_srq_rearm(srq); /* before the kick: the device may use them at once */
	notify(q, i);
	pthread_mutex_unlock(&q->lock);
	if (ret < 0 && bad != NULL)
		*bad = i;
	return ret;
}

int
vur_user_post_recv(struct vur_user_dev *d, uint32_t qpn, const struct vur_user_recv_wr *wr,
		unsigned int n, unsigned int *bad)
{
	struct vuser_qp *qp = d != NULL ? vuser_qp_get(d, qpn) : NULL;

	if (qp == NULL) {
		if (bad != NULL)
			*bad = 0;
		return -EINVAL;
	}
	if (qp->r != NULL)
		return vuser_rqp_post_recv(d, &qp->rq, qp->r, wr, n, bad);
	return vuser_post_recv_wq(d, &qp->rq, wr, n, bad, NULL);
}
