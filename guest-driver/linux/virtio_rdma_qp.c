// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs and address handles. A QP is a send and a receive virtqueue
 * that the process fills through its mappings and rings through its own
 * doorbell pages; the kernel creates it (CREATE_QP), fills the descriptors,
 * and translates modify and query (MODIFY_QP, QUERY_QP) between ib_core's
 * attributes and the wire's. A kernel QP (ib_mad's GSI QP, a ULP's) is the
 * same pair of virtqueues, posted by the driver (virtio_rdma_kverbs.c) and
 * entered in the QPN table that poll_cq reads for ib_wc.qp; with
 * layout=rings it is on rings instead (virtio_rdma_qp_rings.c), numbered
 * from max_rdma_qps (its table dev->rings.qps) or 1 for the GSI QP.
 */
#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "virtio_rdma.h"

/* ib_qp_attr_mask bits and their wire counterparts, one to one. */
static const struct {
	int ib;
	u32 wire;
} qp_mask_map[] = {
	{ IB_QP_STATE, VIRTIO_IB_QP_STATE },
	{ IB_QP_CUR_STATE, VIRTIO_IB_QP_CUR_STATE },
	{ IB_QP_ACCESS_FLAGS, VIRTIO_IB_QP_ACCESS_FLAGS },
	{ IB_QP_QKEY, VIRTIO_IB_QP_QKEY },
	{ IB_QP_AV, VIRTIO_IB_QP_AV },
	{ IB_QP_PATH_MTU, VIRTIO_IB_QP_PATH_MTU },
	{ IB_QP_TIMEOUT, VIRTIO_IB_QP_TIMEOUT },
	{ IB_QP_RETRY_CNT, VIRTIO_IB_QP_RETRY_CNT },
	{ IB_QP_RNR_RETRY, VIRTIO_IB_QP_RNR_RETRY },
	{ IB_QP_RQ_PSN, VIRTIO_IB_QP_RQ_PSN },
	{ IB_QP_MAX_QP_RD_ATOMIC, VIRTIO_IB_QP_MAX_QP_RD_ATOMIC },
	{ IB_QP_MIN_RNR_TIMER, VIRTIO_IB_QP_MIN_RNR_TIMER },
	{ IB_QP_SQ_PSN, VIRTIO_IB_QP_SQ_PSN },
	{ IB_QP_MAX_DEST_RD_ATOMIC, VIRTIO_IB_QP_MAX_DEST_RD_ATOMIC },
	{ IB_QP_CAP, VIRTIO_IB_QP_CAP },
	{ IB_QP_DEST_QPN, VIRTIO_IB_QP_DEST_QPN },
	{ IB_QP_RATE_LIMIT, VIRTIO_IB_QP_RATE_LIMIT },
};

/*
 * The port and the P_Key index are implied (section "Queue Pair State
 * Transitions"): accepted when they name port 1 and index 0, not sent.
 */
#define QP_IMPLIED_MASK	(IB_QP_PKEY_INDEX | IB_QP_PORT)

static int qp_type_to_wire(enum ib_qp_type type, u8 *wire)
{
	switch (type) {
	case IB_QPT_RC:
		*wire = VIRTIO_IB_QPT_RC;
		return 0;
	case IB_QPT_UC:
		*wire = VIRTIO_IB_QPT_UC;
		return 0;
	case IB_QPT_UD:
		*wire = VIRTIO_IB_QPT_UD;
		return 0;
	case IB_QPT_GSI:
		*wire = VIRTIO_IB_QPT_GSI;
		return 0;
	default:	/* SMI: RoCE has none (ROCE-DEV-QP-2); XRC, raw: none */
		return -EOPNOTSUPP;
	}
}

static enum ib_qp_type qp_type_from_wire(u8 wire)
{
	switch (wire) {
	case VIRTIO_IB_QPT_GSI:
		return IB_QPT_GSI;
	case VIRTIO_IB_QPT_UC:
		return IB_QPT_UC;
	case VIRTIO_IB_QPT_UD:
		return IB_QPT_UD;
	default:
		return IB_QPT_RC;
	}
}

/* An address vector: RoCE v2, always with a GRH; ib_core resolved dmac. */
static int av_to_wire(const struct rdma_ah_attr *ah,
		      struct virtio_rdma_ah_attr *w)
{
	const struct ib_global_route *grh;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	memcpy(w->grh.dgid, grh->dgid.raw, sizeof(w->grh.dgid));
	w->grh.flow_label = cpu_to_le32(grh->flow_label);
	w->grh.sgid_index = grh->sgid_index;
	w->grh.hop_limit = grh->hop_limit;
	w->grh.traffic_class = grh->traffic_class;
	ether_addr_copy(w->dmac, ah->roce.dmac);
	return 0;
}

static void av_from_wire(const struct virtio_rdma_ah_attr *w,
			 struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, VIRTIO_NET_ROCE_PORT_NUM);
	memcpy(dgid.raw, w->grh.dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah, &dgid, le32_to_cpu(w->grh.flow_label),
			w->grh.sgid_index, w->grh.hop_limit,
			w->grh.traffic_class);
	ether_addr_copy(ah->roce.dmac, w->dmac);
}

static void cap_to_wire(const struct ib_qp_cap *cap,
			struct virtio_rdma_qp_cap *w)
{
	w->max_send_wr = cpu_to_le32(cap->max_send_wr);
	w->max_recv_wr = cpu_to_le32(cap->max_recv_wr);
	w->max_send_sge = cpu_to_le32(cap->max_send_sge);
	w->max_recv_sge = cpu_to_le32(cap->max_recv_sge);
	w->max_inline_data = cpu_to_le32(cap->max_inline_data);
}

static void cap_from_wire(const struct virtio_rdma_qp_cap *w,
			  struct ib_qp_cap *cap)
{
	cap->max_send_wr = le32_to_cpu(w->max_send_wr);
	cap->max_recv_wr = le32_to_cpu(w->max_recv_wr);
	cap->max_send_sge = le32_to_cpu(w->max_send_sge);
	cap->max_recv_sge = le32_to_cpu(w->max_recv_sge);
	cap->max_inline_data = le32_to_cpu(w->max_inline_data);
}

static int qp_modify_cmd(struct virtio_rdma_dev *dev,
			 struct virtio_rdma_cmd_modify_qp *cmd)
{
	int ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_MODIFY_QP, cmd,
				       sizeof(*cmd), NULL, 0);

	/* VIRTIO_NET_ERR: an illegal transition or attribute (QP-10..13). */
	return ret == -EREMOTEIO ? -EINVAL : ret;
}

static void qp_free(struct virtio_rdma_qp_res *qp)
{
	virtio_rdma_uq_free(&qp->sq);
	virtio_rdma_uq_free(&qp->rq);
	virtio_rdma_qp_rings_free(qp);
	virtio_rdma_uqp_rings_free(qp);
	virtio_rdma_cq_put(qp->scq);
	virtio_rdma_cq_put(qp->rcq);
	if (qp->srq)
		virtio_rdma_srq_put(qp->srq);
	virtio_rdma_pd_put(qp->pd);
	kfree(qp);
}

static void qp_zombie_free(struct virtio_rdma_zombie *z)
{
	qp_free(container_of(z, struct virtio_rdma_qp_res, zombie));
}

/*
 * The last reference: destroy at the device, then its queues back to their
 * initial state before any other create command (ROCE-DRV-LIFE-2); then
 * the PD and CQs it held.
 */
static void qp_release(struct kref *ref)
{
	struct virtio_rdma_qp_res *qp =
		container_of(ref, struct virtio_rdma_qp_res, ref);
	struct virtio_rdma_dev *dev = qp->dev;
	struct virtio_rdma_cmd_destroy_qp cmd = {
		.qpn = cpu_to_le32(qp->qpn),
	};
	int ret = 0;

	mutex_lock(&dev->res_lock);
	if (!dev->dead)
		ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_QP,
					   &cmd, sizeof(cmd), NULL, 0);
	/* ring_qps counts live QPs: a zombie is none, as for ring_cqs. */
	if (qp->rec || qp->urec)
		WRITE_ONCE(dev->rings.live_qps, dev->rings.live_qps - 1);
	if (virtio_rdma_cmd_lost(ret)) {
		mutex_unlock(&dev->res_lock);
		dev_warn(&dev->vdev->dev, "QP %u: DESTROY_QP %d, kept until reset\n",
			 qp->qpn, ret);
		virtio_rdma_zombie_add(dev, &qp->zombie, qp_zombie_free);
		return;
	}
	if (ret)
		dev_warn(&dev->vdev->dev, "QP %u: DESTROY_QP %d\n", qp->qpn, ret);
	/* On rings the device no longer reads them (ROCE-DEV-RING-20). */
	if (!qp->rec && !qp->urec) {
		virtio_rdma_uq_reset(&qp->sq);
		if (qp->rq.vq)		/* not on an SRQ */
			virtio_rdma_uq_reset(&qp->rq);
	}
	mutex_unlock(&dev->res_lock);
	qp_free(qp);
}

static bool qpn_ok(struct virtio_rdma_dev *dev, u8 type, u32 qpn)
{
	/* ROCE-DEV-VQ-2, -3: 1 is the GSI QP, the others 2 to L-1. */
	if (type == VIRTIO_IB_QPT_GSI)
		return qpn == 1;
	return qpn >= 2 && qpn < dev->max_rdma_qps;
}

static int qp_create(struct virtio_rdma_dev *dev, struct virtio_rdma_qp_res *qp,
		     const struct virtio_rdma_cmd_create_qp *cmd,
		     const struct ib_qp_cap *cap)
{
	struct virtio_rdma_cmd_destroy_qp dcmd;
	struct virtio_rdma_ack_create_qp ack;
	u32 sq_stride, rq_stride;
	int ret;

	sq_stride = roundup_pow_of_two(sizeof(struct virtio_rdma_sq_req) +
				       cap->max_send_sge *
				       sizeof(struct virtio_rdma_sge));
	rq_stride = roundup_pow_of_two(sizeof(struct virtio_rdma_rq_req) +
				       cap->max_recv_sge *
				       sizeof(struct virtio_rdma_sge));

	mutex_lock(&dev->res_lock);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_QP, cmd,
				   sizeof(*cmd), &ack, sizeof(ack));
	if (ret)
		goto out_unlock;
	qp->qpn = le32_to_cpu(ack.qpn);
	if (!qpn_ok(dev, qp->qp_type, qp->qpn)) {
		dev_err_ratelimited(&dev->vdev->dev, "CREATE_QP: QPN %u not eligible\n",
				    qp->qpn);
		ret = -EPROTO;
		goto out_unlock;
	}
	ret = virtio_rdma_uq_init(dev, &qp->sq, virtio_rdma_sq_vq(dev, qp->qpn),
				  sq_stride, false);
	if (ret)
		goto err_destroy;
	/* ROCE-DRV-SRQ-3: the receive queue of a QP on an SRQ is not used. */
	if (!qp->srq)
		ret = virtio_rdma_uq_init(dev, &qp->rq,
					  virtio_rdma_rq_vq(dev, qp->qpn),
					  rq_stride, false);
	if (ret)
		goto err_destroy;
	mutex_unlock(&dev->res_lock);
	return 0;

err_destroy:
	dcmd.qpn = cpu_to_le32(qp->qpn);
	if (!virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &dcmd,
				  sizeof(dcmd), NULL, 0)) {
		if (qp->sq.vq)
			virtio_rdma_uq_reset(&qp->sq);
		if (qp->rq.vq)
			virtio_rdma_uq_reset(&qp->rq);
	}
	virtio_rdma_uq_free(&qp->sq);
	virtio_rdma_uq_free(&qp->rq);
out_unlock:
	mutex_unlock(&dev->res_lock);
	return ret;
}

/* A kernel QP: the driver's indices. */
static void qp_kernel_init(struct virtio_rdma_qp_res *qp,
			   const struct ib_qp_cap *cap)
{
	qp->kernel = true;
	virtio_rdma_kq_init(&qp->sq, cap->max_send_wr, cap->max_send_sge,
			    cap->max_inline_data);
	if (qp->srq)
		spin_lock_init(&qp->rq.k.lock);	/* empty: poll_cq, RESET */
	else
		virtio_rdma_kq_init(&qp->rq, cap->max_recv_wr,
				    cap->max_recv_sge, 0);
}

/* @num: the most WRs of a queue (a kernel QP's or a process's on rings). */
static int qp_check_init(struct virtio_rdma_dev *dev, struct ib_pd *pd,
			 struct ib_qp_init_attr *init, u8 *type, u32 num)
{
	const struct ib_qp_cap *cap = &init->cap;
	int ret;

	ret = qp_type_to_wire(init->qp_type, type);
	if (ret)
		return ret;
	if (init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (init->srq) {
		/* ROCE-DEV-SRQ-5: RC, UC, UD, in the SRQ's PD. */
		if (*type == VIRTIO_IB_QPT_GSI)
			return -EOPNOTSUPP;
		if (init->srq->pd != pd)
			return -EINVAL;
		/* Its receive WRs are the SRQ's. */
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	}
	/* ROCE-DRV-QP-1; a slot per outstanding WR. */
	if (cap->max_send_wr > num || cap->max_recv_wr > num ||
	    cap->max_inline_data > VIRTIO_NET_ROCE_MAX_INLINE ||
	    cap->max_send_sge > 1024 || cap->max_recv_sge > 1024)
		return -EINVAL;
	return 0;
}

int virtio_rdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			  struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibqp->device);
	struct virtio_rdma_create_qp_resp resp = {};
	struct virtio_rdma_cmd_create_qp cmd = {};
	struct virtio_rdma_ucontext *uctx;
	struct virtio_rdma_qp_res *qp;
	/* With the rings layout on, every kernel QP goes on rings. */
	bool rings = !udata && dev->rings.on;
	/* A process's, if its provider asks (virtio_rdma_uqp_rings.c). */
	bool urings = false;
	u32 num;
	u8 type;
	int ret;

	/* The slot scheme needs the ring layout user_rings checked. */
	if (!dev->user_rings)
		return -EOPNOTSUPP;
	if (udata) {
		ret = virtio_rdma_urings_wanted(dev, udata,
						VIRTIO_RDMA_CREATE_QP_RINGS);
		if (ret < 0)
			return ret;
		/* On an SRQ, as that SRQ (a virtqueue one: older provider). */
		urings = ret && (!init->srq || to_vsrq(init->srq)->res->urec);
	}
	/* A kernel QP rings through virtio_ring's notify: no page needed. */
	if (udata && !urings && !dev->user_doorbells) {
		dev_info_once(&dev->vdev->dev,
			      "user QP refused: no doorbell page per virtqueue (page-per-vq)\n");
		return -EOPNOTSUPP;
	}
	if (urings)
		num = virtio_rdma_uqp_rings_max_wr(dev);
	else if (rings)
		num = virtio_rdma_qp_rings_max_wr(dev);
	else
		num = virtqueue_get_vring_size(dev->vqs[virtio_rdma_sq_vq(dev, 0)]);
	ret = qp_check_init(dev, ibqp->pd, init, &type, num);
	if (ret)
		return ret;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return -ENOMEM;
	kref_init(&qp->ref);
	qp->dev = dev;
	qp->qp_type = type;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->pd = to_vpd(ibqp->pd)->res;
	qp->scq = to_vcq(init->send_cq)->res;
	qp->rcq = to_vcq(init->recv_cq)->res;
	if (init->srq) {
		qp->srq = to_vsrq(init->srq)->res;
		cmd.flags = VIRTIO_RDMA_QP_F_SRQ;
		cmd.srqn = cpu_to_le32(qp->srq->srqn);
	}

	cmd.pdn = cpu_to_le32(qp->pd->pdn);
	cmd.qp_type = type;
	cmd.sq_sig_all = qp->sq_sig_all;
	cmd.send_cqn = cpu_to_le32(qp->scq->cqn);
	cmd.recv_cqn = cpu_to_le32(qp->rcq->cqn);
	cap_to_wire(&init->cap, &cmd.cap);
	/*
	 * The device object holds what the device says it uses; taken before
	 * the create, so that a QP whose create got no answer (which the
	 * device may have made, on these CQs) keeps them until the reset.
	 */
	virtio_rdma_pd_get(qp->pd);
	kref_get(&qp->scq->ref);
	kref_get(&qp->rcq->ref);
	if (qp->srq)
		kref_get(&qp->srq->ref);
	if (rings)
		ret = virtio_rdma_qp_rings_create(dev, qp, &cmd, &init->cap,
						  ibqp->pd->local_dma_lkey);
	else if (urings)
		ret = virtio_rdma_uqp_rings_create(dev, qp, &cmd, &init->cap);
	else
		ret = qp_create(dev, qp, &cmd, &init->cap);
	if (ret) {
		if (!((rings || urings) &&
		      virtio_rdma_create_lost(dev, ret, "QP on rings", &qp->zombie,
					      qp_zombie_free)))
			qp_free(qp);
		return ret;
	}
	to_vqp(ibqp)->res = qp;
	ibqp->qp_num = qp->qpn;
	if (rings) {
		qp->kernel = true;
		virtio_rdma_qp_rings_kernel_init(qp, &init->cap);
	} else if (!udata) {
		qp_kernel_init(qp, &init->cap);
	}
	/* In the QPN table: what poll_cq names, whom a CQ error concerns. */
	qp->ibqp = ibqp;
	spin_lock_irq(&dev->qp_lock);
	*virtio_rdma_qp_slot(dev, qp->qpn) = qp;
	spin_unlock_irq(&dev->qp_lock);
	if (!udata)
		return 0;

	uctx = rdma_udata_to_drv_context(udata, struct virtio_rdma_ucontext,
					 ibuc);
	if (urings) {
		ret = virtio_rdma_uqp_rings_publish(qp, &uctx->ibuc, &init->cap,
						    qp_release, &resp);
		goto out_resp;
	}
	ret = virtio_rdma_uq_publish(dev, &uctx->ibuc, &qp->sq, true, &qp->ref,
				     qp_release, &resp.sq);
	if (ret)
		goto err_destroy;
	/* On an SRQ: resp.rq stays zero; the process posts to the SRQ. */
	if (!qp->srq)
		ret = virtio_rdma_uq_publish(dev, &uctx->ibuc, &qp->rq, true,
					     &qp->ref, qp_release, &resp.rq);
out_resp:
	if (ret)
		goto err_destroy;
	resp.qpn = qp->qpn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	virtio_rdma_destroy_qp(ibqp, udata);
	return ret;
}

static int qp_attr_to_wire(struct virtio_rdma_dev *dev,
			   const struct ib_qp_attr *attr, int mask,
			   struct virtio_rdma_cmd_modify_qp *cmd)
{
	int access = attr->qp_access_flags;
	u32 wire = 0;
	int left = mask & ~QP_IMPLIED_MASK;
	size_t i;
	int ret;

	if ((mask & IB_QP_PORT) && attr->port_num != VIRTIO_NET_ROCE_PORT_NUM)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(qp_mask_map); i++) {
		if (!(mask & qp_mask_map[i].ib))
			continue;
		wire |= qp_mask_map[i].wire;
		left &= ~qp_mask_map[i].ib;
	}
	/* Alternate paths, path migration, SQD events: not in this device. */
	if (left)
		return -EOPNOTSUPP;

	cmd->attr_mask = cpu_to_le32(wire);
	cmd->qp_state = attr->qp_state;
	cmd->cur_qp_state = attr->cur_qp_state;
	cmd->path_mtu = attr->path_mtu;
	cmd->max_rd_atomic = attr->max_rd_atomic;
	cmd->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	cmd->min_rnr_timer = attr->min_rnr_timer;
	cmd->timeout = attr->timeout;
	cmd->retry_cnt = attr->retry_cnt;
	cmd->rnr_retry = attr->rnr_retry;
	cmd->qkey = cpu_to_le32(attr->qkey);
	cmd->rq_psn = cpu_to_le32(attr->rq_psn);
	cmd->sq_psn = cpu_to_le32(attr->sq_psn);
	cmd->dest_qp_num = cpu_to_le32(attr->dest_qp_num);
	/*
	 * ROCE-DRV-ATTR-4: REMOTE_ATOMIC only with the capability. Consumers
	 * that never issue atomics ask for it anyway; without the capability
	 * it is left out, as before the device had atomics: the QP then
	 * answers atomic requests with a NAK, which is what it can do.
	 */
	if (!virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_ATOMIC))
		access &= ~IB_ACCESS_REMOTE_ATOMIC;
	/* ROCE-DEV-QP-18: MW_BIND has no effect on a QP; without MWs, none. */
	if (!virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_WINDOW))
		access &= ~IB_ACCESS_MW_BIND;
	cmd->qp_access_flags = cpu_to_le32(virtio_rdma_access_flags(access));
	cmd->rate_limit = cpu_to_le32(attr->rate_limit);
	if (mask & IB_QP_CAP)
		cap_to_wire(&attr->cap, &cmd->cap);
	if (mask & IB_QP_AV) {
		ret = av_to_wire(&attr->ah_attr, &cmd->ah_attr);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * IBTA's Last WQE Reached for a QP on an SRQ that went to ERR: the device
 * takes no more of the SRQ's WRs for it once MODIFY_QP has completed, and
 * has no event of its own to say so. ib_drain_qp() of a QP on an SRQ
 * (7.2 here, not 6.1) waits up to 60 s for it; its consumer then polls
 * the completions that remain. Only for a kernel consumer's transition:
 * an ERR the device enters by itself is not seen here.
 */
static void qp_last_wqe_reached(struct ib_qp *ibqp)
{
	struct ib_event ev = {
		.device = ibqp->device,
		.element.qp = ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (ibqp->event_handler)
		ibqp->event_handler(&ev, ibqp->qp_context);
}

int virtio_rdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct virtio_rdma_qp_res *qp = to_vqp(ibqp)->res;
	struct virtio_rdma_cmd_modify_qp cmd = {
		.qpn = cpu_to_le32(qp->qpn),
	};
	int ret;

	/* Only the enum values that exist, so the wire's are the same. */
	BUILD_BUG_ON((int)IB_QPS_ERR != (int)VIRTIO_IB_QPS_ERR);
	BUILD_BUG_ON((int)IB_MTU_4096 != (int)VIRTIO_IB_MTU_4096);
	ret = qp_attr_to_wire(qp->dev, attr, mask, &cmd);
	if (ret)
		return ret;
	ret = qp_modify_cmd(qp->dev, &cmd);
	if (!ret && qp->kernel && (mask & IB_QP_STATE) &&
	    attr->qp_state == IB_QPS_RESET)
		virtio_rdma_kqp_reset(qp);
	if (!ret && qp->kernel && qp->srq && (mask & IB_QP_STATE) &&
	    attr->qp_state == IB_QPS_ERR)
		qp_last_wqe_reached(ibqp);
	return ret;
}

int virtio_rdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init)
{
	struct virtio_rdma_qp_res *qp = to_vqp(ibqp)->res;
	struct virtio_rdma_cmd_query_qp cmd = {
		.qpn = cpu_to_le32(qp->qpn),
		.attr_mask = cpu_to_le32(VIRTIO_IB_QP_ATTR_ALL),
	};
	struct virtio_rdma_ack_query_qp ack;
	int ret;

	ret = virtio_rdma_roce_cmd(qp->dev, VIRTIO_NET_CTRL_ROCE_QUERY_QP, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret)
		return ret;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = ack.qp_state;
	attr->cur_qp_state = ack.qp_state;
	attr->path_mtu = ack.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(ack.qkey);
	attr->rq_psn = le32_to_cpu(ack.rq_psn);
	attr->sq_psn = le32_to_cpu(ack.sq_psn);
	attr->dest_qp_num = le32_to_cpu(ack.dest_qp_num);
	attr->qp_access_flags =
		virtio_rdma_ib_access_flags(le32_to_cpu(ack.qp_access_flags));
	cap_from_wire(&ack.cap, &attr->cap);
	if (qp->qp_type == VIRTIO_IB_QPT_RC || qp->qp_type == VIRTIO_IB_QPT_UC)
		av_from_wire(&ack.ah_attr, &attr->ah_attr);
	attr->pkey_index = 0;
	attr->port_num = VIRTIO_NET_ROCE_PORT_NUM;
	attr->sq_draining = ack.sq_draining;
	attr->max_rd_atomic = ack.max_rd_atomic;
	attr->max_dest_rd_atomic = ack.max_dest_rd_atomic;
	attr->min_rnr_timer = ack.min_rnr_timer;
	attr->timeout = ack.timeout;
	attr->retry_cnt = ack.retry_cnt;
	attr->rnr_retry = ack.rnr_retry;
	attr->rate_limit = le32_to_cpu(ack.rate_limit);

	memset(init, 0, sizeof(*init));
	init->qp_type = qp_type_from_wire(qp->qp_type);
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}

/*
 * The verbs QP goes. If a process still maps its rings, the device object
 * stays, moved to RESET (the device then neither processes its queues nor
 * delivers to it), and is destroyed with its last mapping: its queues
 * cannot be handed to another object while someone can still write them.
 */
int virtio_rdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct virtio_rdma_qp_res *qp = to_vqp(ibqp)->res;
	struct virtio_rdma_cmd_modify_qp cmd = {
		.qpn = cpu_to_le32(qp->qpn),
		.attr_mask = cpu_to_le32(VIRTIO_IB_QP_STATE),
		.qp_state = VIRTIO_IB_QPS_RESET,
	};
	int ret;

	/* poll_cq drops what is left of it on its CQs; no event names it. */
	spin_lock_irq(&qp->dev->qp_lock);
	*virtio_rdma_qp_slot(qp->dev, qp->qpn) = NULL;
	spin_unlock_irq(&qp->dev->qp_lock);
	virtio_rdma_uq_unpublish(&qp->sq);
	virtio_rdma_uq_unpublish(&qp->rq);
	if (kref_read(&qp->ref) > 1 && !qp->dev->dead) {
		ret = qp_modify_cmd(qp->dev, &cmd);
		if (ret)
			dev_warn_ratelimited(&qp->dev->vdev->dev,
					     "QP %u: to RESET while mapped: %d\n",
					     qp->qpn, ret);
	}
	kref_put(&qp->ref, qp_release);
	return 0;
}

int virtio_rdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			  struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibah->device);
	struct virtio_rdma_create_ah_resp resp = {};
	struct virtio_rdma_cmd_create_ah cmd = {
		.pdn = cpu_to_le32(to_vpd(ibah->pd)->res->pdn),
	};
	struct virtio_rdma_ack_create_ah ack;
	int ret;

	ret = av_to_wire(init->ah_attr, &cmd.ah_attr);
	if (ret)
		return ret;
	/* The CM creates AHs under its spinlock: then the command busy-waits. */
	if (init->flags & RDMA_CREATE_AH_SLEEPABLE)
		ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_AH,
					   &cmd, sizeof(cmd), &ack, sizeof(ack));
	else
		ret = virtio_rdma_roce_cmd_atomic(dev,
						  VIRTIO_NET_CTRL_ROCE_CREATE_AH,
						  &cmd, sizeof(cmd), &ack,
						  sizeof(ack));
	if (ret)
		return ret == -EREMOTEIO ? -EINVAL : ret;
	to_vah(ibah)->ahn = le32_to_cpu(ack.ah);
	if (!udata)
		return 0;
	resp.ahn = to_vah(ibah)->ahn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		virtio_rdma_destroy_ah(ibah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

int virtio_rdma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibah->device);
	struct virtio_rdma_cmd_destroy_ah cmd = {
		.pdn = cpu_to_le32(to_vpd(ibah->pd)->res->pdn),
		.ah = cpu_to_le32(to_vah(ibah)->ahn),
	};

	int ret;

	if (dev->dead)
		return 0;
	if (flags & RDMA_DESTROY_AH_SLEEPABLE)
		ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_AH,
					   &cmd, sizeof(cmd), NULL, 0);
	else
		ret = virtio_rdma_roce_cmd_atomic(dev,
						  VIRTIO_NET_CTRL_ROCE_DESTROY_AH,
						  &cmd, sizeof(cmd), NULL, 0);
	/* The AH holds no memory: ib_core forgets it whatever the device said. */
	if (ret)
		dev_warn_ratelimited(&dev->vdev->dev, "AH %u: DESTROY_AH %d\n",
				     to_vah(ibah)->ahn, ret);
	return 0;
}

/*
 * Section "Multicast Groups". ib_core has checked that the QP is UD and the
 * GID a multicast one (rdma_is_multicast_addr(), as ROCE-DEV-MCAST-1 asks);
 * the LID means nothing on RoCE. The device also checks and refuses.
 */
static int virtio_rdma_mcast(struct ib_qp *ibqp, union ib_gid *gid, u8 cmd)
{
	struct virtio_rdma_qp_res *qp = to_vqp(ibqp)->res;
	struct virtio_rdma_cmd_mcast c = { .qpn = cpu_to_le32(qp->qpn) };

	if (!virtio_rdma_has_cap(qp->dev, VIRTIO_IB_DEVICE_MULTICAST))
		return -EOPNOTSUPP;
	if (qp->dev->dead) /* DESTROY_QP would have detached it */
		return cmd == VIRTIO_NET_CTRL_ROCE_DETACH_MCAST ? 0 : -EIO;
	memcpy(c.gid, gid->raw, sizeof(c.gid));
	return virtio_rdma_roce_cmd(qp->dev, cmd, &c, sizeof(c), NULL, 0);
}

int virtio_rdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return virtio_rdma_mcast(ibqp, gid, VIRTIO_NET_CTRL_ROCE_ATTACH_MCAST);
}

int virtio_rdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return virtio_rdma_mcast(ibqp, gid, VIRTIO_NET_CTRL_ROCE_DETACH_MCAST);
}
