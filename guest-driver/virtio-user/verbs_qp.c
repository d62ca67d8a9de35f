/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: CREATE_QP, MODIFY_QP, QUERY_QP and DESTROY_QP. The state
 * machine and its attribute rules are the device's (ROCE-DEV-QPS-*); the
 * driver only carries the values.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "device.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"

VUSER_SAME_VALUE(VUR_USER_QPT_SMI, VIRTIO_IB_QPT_SMI);
VUSER_SAME_VALUE(VUR_USER_QPT_GSI, VIRTIO_IB_QPT_GSI);
VUSER_SAME_VALUE(VUR_USER_QPT_RC, VIRTIO_IB_QPT_RC);
VUSER_SAME_VALUE(VUR_USER_QPT_UC, VIRTIO_IB_QPT_UC);
VUSER_SAME_VALUE(VUR_USER_QPT_UD, VIRTIO_IB_QPT_UD);
VUSER_SAME_VALUE(VUR_USER_QPS_RESET, VIRTIO_IB_QPS_RESET);
VUSER_SAME_VALUE(VUR_USER_QPS_INIT, VIRTIO_IB_QPS_INIT);
VUSER_SAME_VALUE(VUR_USER_QPS_RTR, VIRTIO_IB_QPS_RTR);
VUSER_SAME_VALUE(VUR_USER_QPS_RTS, VIRTIO_IB_QPS_RTS);
VUSER_SAME_VALUE(VUR_USER_QPS_SQD, VIRTIO_IB_QPS_SQD);
VUSER_SAME_VALUE(VUR_USER_QPS_SQE, VIRTIO_IB_QPS_SQE);
VUSER_SAME_VALUE(VUR_USER_QPS_ERR, VIRTIO_IB_QPS_ERR);
VUSER_SAME_VALUE(VUR_USER_QP_STATE, VIRTIO_IB_QP_STATE);
VUSER_SAME_VALUE(VUR_USER_QP_CUR_STATE, VIRTIO_IB_QP_CUR_STATE);
VUSER_SAME_VALUE(VUR_USER_QP_ACCESS_FLAGS, VIRTIO_IB_QP_ACCESS_FLAGS);
VUSER_SAME_VALUE(VUR_USER_QP_QKEY, VIRTIO_IB_QP_QKEY);
VUSER_SAME_VALUE(VUR_USER_QP_AV, VIRTIO_IB_QP_AV);
VUSER_SAME_VALUE(VUR_USER_QP_PATH_MTU, VIRTIO_IB_QP_PATH_MTU);
VUSER_SAME_VALUE(VUR_USER_QP_TIMEOUT, VIRTIO_IB_QP_TIMEOUT);
VUSER_SAME_VALUE(VUR_USER_QP_RETRY_CNT, VIRTIO_IB_QP_RETRY_CNT);
VUSER_SAME_VALUE(VUR_USER_QP_RNR_RETRY, VIRTIO_IB_QP_RNR_RETRY);
VUSER_SAME_VALUE(VUR_USER_QP_RQ_PSN, VIRTIO_IB_QP_RQ_PSN);
VUSER_SAME_VALUE(VUR_USER_QP_MAX_QP_RD_ATOMIC, VIRTIO_IB_QP_MAX_QP_RD_ATOMIC);
VUSER_SAME_VALUE(VUR_USER_QP_MIN_RNR_TIMER, VIRTIO_IB_QP_MIN_RNR_TIMER);
VUSER_SAME_VALUE(VUR_USER_QP_SQ_PSN, VIRTIO_IB_QP_SQ_PSN);
VUSER_SAME_VALUE(VUR_USER_QP_MAX_DEST_RD_ATOMIC, VIRTIO_IB_QP_MAX_DEST_RD_ATOMIC);
VUSER_SAME_VALUE(VUR_USER_QP_CAP, VIRTIO_IB_QP_CAP);
VUSER_SAME_VALUE(VUR_USER_QP_DEST_QPN, VIRTIO_IB_QP_DEST_QPN);
VUSER_SAME_VALUE(VUR_USER_QP_RATE_LIMIT, VIRTIO_IB_QP_RATE_LIMIT);

static void
cap_to_wire(const struct vur_user_qp_cap *c, struct virtio_rdma_qp_cap *w)
{
	memset(w, 0, sizeof(*w));
	w->max_send_wr = htole32(c->max_send_wr);
	w->max_recv_wr = htole32(c->max_recv_wr);
	w->max_send_sge = htole32(c->max_send_sge);
	w->max_recv_sge = htole32(c->max_recv_sge);
	w->max_inline_data = htole32(c->max_inline_data);
}

static void
cap_from_wire(const struct virtio_rdma_qp_cap *w, struct vur_user_qp_cap *c)
{
	c->max_send_wr = le32toh(w->max_send_wr);
	c->max_recv_wr = le32toh(w->max_recv_wr);
	c->max_send_sge = le32toh(w->max_send_sge);
	c->max_recv_sge = le32toh(w->max_recv_sge);
	c->max_inline_data = le32toh(w->max_inline_data);
}

int
vur_user_create_qp(struct vur_user_dev *d, const struct vur_user_qp_init_attr *attr, uint32_t *qpn)
{
	struct virtio_rdma_cmd_create_qp c;
	struct virtio_rdma_ack_create_qp a;
	int ret;

	if (d == NULL || attr == NULL || qpn == NULL)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.pdn = htole32(attr->pdn);
	c.qp_type = attr->qp_type;
	c.sq_sig_all = attr->sq_sig_all;
	c.send_cqn = htole32(attr->send_cqn);
	c.recv_cqn = htole32(attr->recv_cqn);
	cap_to_wire(&attr->cap, &c.cap);
	c.flags = attr->flags;
	c.srqn = htole32(attr->srqn);
	ret = vuser_rings_choose(d, attr->layout);
	if (ret < 0)
		return ret;
	if (ret == 1)
		return vuser_rqp_create(d, attr, &c, qpn);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_QP, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0)
		return ret;
	ret = vuser_qp_attach(d, le32toh(a.qpn), attr);
	if (ret == -ENOMEM)
		vur_user_destroy_qp(d, le32toh(a.qpn));
	else if (ret == 0)
		*qpn = le32toh(a.qpn);
	return ret;
}

/* Only the attributes of @mask: the others go as zero, whatever @a holds. */
static void
modify_to_wire(const struct vur_user_qp_attr *a, uint32_t mask, struct virtio_rdma_cmd_modify_qp *c)
{
	if (mask & VIRTIO_IB_QP_STATE)
		c->qp_state = a->qp_state;
	if (mask & VIRTIO_IB_QP_CUR_STATE)
		c->cur_qp_state = a->cur_qp_state;
	if (mask & VIRTIO_IB_QP_PATH_MTU)
		c->path_mtu = a->path_mtu;
	if (mask & VIRTIO_IB_QP_MAX_QP_RD_ATOMIC)
		c->max_rd_atomic = a->max_rd_atomic;
	if (mask & VIRTIO_IB_QP_MAX_DEST_RD_ATOMIC)
		c->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & VIRTIO_IB_QP_MIN_RNR_TIMER)
		c->min_rnr_timer = a->min_rnr_timer;
	if (mask & VIRTIO_IB_QP_TIMEOUT)
		c->timeout = a->timeout;
	if (mask & VIRTIO_IB_QP_RETRY_CNT)
		c->retry_cnt = a->retry_cnt;
	if (mask & VIRTIO_IB_QP_RNR_RETRY)
		c->rnr_retry = a->rnr_retry;
	if (mask & VIRTIO_IB_QP_QKEY)
		c->qkey = htole32(a->qkey);
	if (mask & VIRTIO_IB_QP_RQ_PSN)
		c->rq_psn = htole32(a->rq_psn);
	if (mask & VIRTIO_IB_QP_SQ_PSN)
		c->sq_psn = htole32(a->sq_psn);
	if (mask & VIRTIO_IB_QP_DEST_QPN)
		c->dest_qp_num = htole32(a->dest_qp_num);
	if (mask & VIRTIO_IB_QP_ACCESS_FLAGS)
		c->qp_access_flags = htole32(a->qp_access_flags);
	if (mask & VIRTIO_IB_QP_RATE_LIMIT)
		c->rate_limit = htole32(a->rate_limit);
	if (mask & VIRTIO_IB_QP_CAP)
		cap_to_wire(&a->cap, &c->cap);
	if (mask & VIRTIO_IB_QP_AV)
		vuser_ah_attr_to_wire(&a->ah_attr, &c->ah_attr);
}

int
vur_user_modify_qp(struct vur_user_dev *d, uint32_t qpn, const struct vur_user_qp_attr *attr,
		uint32_t attr_mask)
{
	struct virtio_rdma_cmd_modify_qp c;
	struct vuser_qp *qp;
	int ret;

	if (d == NULL || attr == NULL)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.qpn = htole32(qpn);
	c.attr_mask = htole32(attr_mask);
	modify_to_wire(attr, attr_mask, &c);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_MODIFY_QP, &c, sizeof(c), NULL, 0);
	qp = vuser_qp_get(d, qpn);
	/* ROCE-DRV-RING-5: after RESET the driver's indices start again at 0 */
	if (ret == 0 && qp != NULL && qp->r != NULL && (attr_mask & VIRTIO_IB_QP_STATE) &&
			attr->qp_state == VUR_USER_QPS_RESET)
		vuser_rqp_reset(&qp->sq, &qp->rq, qp->r);
	return ret;
}

int
vur_user_query_qp(struct vur_user_dev *d, uint32_t qpn, uint32_t attr_mask,
		struct vur_user_qp_attr *attr)
{
	struct virtio_rdma_cmd_query_qp c = { .qpn = htole32(qpn),
		.attr_mask = htole32(attr_mask) };
	struct virtio_rdma_ack_query_qp a;
	int ret;

	if (d == NULL || attr == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_QUERY_QP, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = a.qp_state;
	attr->cur_qp_state = a.qp_state;
	attr->path_mtu = a.path_mtu;
	attr->sq_draining = a.sq_draining;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	attr->qkey = le32toh(a.qkey);
	attr->rq_psn = le32toh(a.rq_psn);
	attr->sq_psn = le32toh(a.sq_psn);
	attr->dest_qp_num = le32toh(a.dest_qp_num);
	attr->qp_access_flags = le32toh(a.qp_access_flags);
	attr->rate_limit = le32toh(a.rate_limit);
	cap_from_wire(&a.cap, &attr->cap);
	vuser_ah_attr_from_wire(&a.ah_attr, &attr->ah_attr);
	return 0;
}

/* See vur_user_destroy_cq() for the virtqueues (ROCE-DRV-LIFE-2). */
int
vur_user_destroy_qp(struct vur_user_dev *d, uint32_t qpn)
{
	struct virtio_rdma_cmd_destroy_qp c = { .qpn = htole32(qpn) };
	int ret;

	if (d == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &c, sizeof(c), NULL, 0);
	if (ret == 0)
		vuser_qp_detach(d, qpn);
	return ret;
}
