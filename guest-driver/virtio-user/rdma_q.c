/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net_roce.h>

#include "device.h"
#include "log.h"
#include "rdma_q.h"
#include "rings.h"
#include "virtqueue.h"

int
vuser_rdma_q_init(struct vur_user_dev *d)
{
	d->n_qp_slots = d->max_qps;
	d->n_cq_slots = d->max_cqs;
	d->qps = calloc(d->max_qps, sizeof(d->qps[0]));
	d->cqs = calloc(d->max_cqs, sizeof(d->cqs[0]));
	d->srqs = calloc(d->max_qps, sizeof(d->srqs[0]));
	if (d->qps == NULL || d->cqs == NULL || d->srqs == NULL)
		return -ENOMEM;
	return 0;
}

/* Room for the ring objects' numbers, after the virtqueue ones. */
int
vuser_rdma_q_grow(struct vur_user_dev *d, uint32_t ring_qps, uint32_t ring_cqs)
{
	uint32_t nq = d->max_qps + ring_qps, nc = d->max_cqs + ring_cqs;
	struct vuser_qp **qps = calloc(nq, sizeof(qps[0]));
	struct vuser_cq **cqs = calloc(nc, sizeof(cqs[0]));
	struct vuser_srq **srqs = calloc(nq, sizeof(srqs[0]));

	if (qps == NULL || cqs == NULL || srqs == NULL) {
		free(qps);
		free(cqs);
		free(srqs);
		return -ENOMEM;
	}
	memcpy(qps, d->qps, d->n_qp_slots * sizeof(qps[0]));
	memcpy(srqs, d->srqs, d->n_qp_slots * sizeof(srqs[0]));
	memcpy(cqs, d->cqs, d->n_cq_slots * sizeof(cqs[0]));
	free(d->qps);
	free(d->cqs);
	free(d->srqs);
	d->qps = qps;
	d->cqs = cqs;
	d->srqs = srqs;
	d->n_qp_slots = nq;
	d->n_cq_slots = nc;
	return 0;
}

static void
wq_free(struct vur_user_dev *d, struct vuser_wq *q)
{
	if (q->slots.hva != NULL)
		vuser_mem_free(&d->mem, &q->slots);
	free(q->free);
	pthread_mutex_destroy(&q->lock);
}

static void
qp_free(struct vur_user_dev *d, struct vuser_qp *qp)
{
	if (qp->r != NULL)
		vuser_rqp_free(d, qp->r);
	wq_free(d, &qp->sq);
	wq_free(d, &qp->rq);
	free(qp);
}

static void
cq_free(struct vur_user_dev *d, struct vuser_cq *cq)
{
	if (cq->cqes.hva != NULL)
		vuser_mem_free(&d->mem, &cq->cqes);
	vuser_cq_resize_free(d, cq);
	if (cq->r != NULL)
		vuser_rcq_free(d, cq->r);
	pthread_mutex_destroy(&cq->lock);
	free(cq);
}

static void
srq_free(struct vur_user_dev *d, struct vuser_srq *srq)
{
	if (srq->r != NULL)
		vuser_rsrq_free(d, srq->r);
	wq_free(d, &srq->rq);
	free(srq);
}

void
vuser_rdma_q_fini(struct vur_user_dev *d)
{
	for (uint32_t i = 0; d->qps != NULL && i < d->n_qp_slots; i++)
		if (d->qps[i] != NULL)
			qp_free(d, d->qps[i]);
	for (uint32_t i = 0; d->cqs != NULL && i < d->n_cq_slots; i++)
		if (d->cqs[i] != NULL)
			cq_free(d, d->cqs[i]);
	for (uint32_t i = 0; d->srqs != NULL && i < d->n_qp_slots; i++)
		if (d->srqs[i] != NULL)
			srq_free(d, d->srqs[i]);
	free(d->qps);
	free(d->cqs);
	free(d->srqs);
	d->qps = NULL;
	d->cqs = NULL;
	d->srqs = NULL;
}

struct vuser_qp *
vuser_qp_get(const struct vur_user_dev *d, uint32_t qpn)
{
	return d->qps != NULL && qpn < d->n_qp_slots ? d->qps[qpn] : NULL;
}

struct vuser_cq *
vuser_cq_get(const struct vur_user_dev *d, uint32_t cqn)
{
	return d->cqs != NULL && cqn < d->n_cq_slots ? d->cqs[cqn] : NULL;
}

int
vuser_cq_attach(struct vur_user_dev *d, uint32_t cqn, uint32_t cqe)
{
	const size_t sz = sizeof(struct virtio_rdma_cq_req);
	struct vuser_cq *cq;
	struct vuser_sg sg;
	int ret;

	if (d->cqs == NULL || cqn >= d->max_cqs || d->cqs[cqn] != NULL) {
		VUSER_LOG(ERR, d->name, "CREATE_CQ answered CQ %u: no such free CQ", cqn);
		return -EPROTO;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return -ENOMEM;
	pthread_mutex_init(&cq->lock, NULL);
	cq->vq = &d->vqs[virtio_net_roce_cq_vq(1, cqn)];
	cq->n = cqe < cq->vq->ring.num ? cqe : cq->vq->ring.num;
	ret = vuser_mem_alloc(&d->mem, (size_t)cq->n * sz, VUSER_PAGE_SIZE, &cq->cqes);
	if (ret < 0) {
		cq_free(d, cq);
		return ret;
	}
	for (uint32_t i = 0; i < cq->n; i++) {
		sg.addr = cq->cqes.gpa + i * sz;
		sg.len = sz;
		vuser_vring_add(&cq->vq->ring, &sg, 0, 1, (uint8_t *)cq->cqes.hva + i * sz);
	}
	vuser_vring_publish(&cq->vq->ring);
	cq->out = cq->n;
	d->cqs[cqn] = cq;
	return 0;
}

void
vuser_cq_detach(struct vur_user_dev *d, uint32_t cqn)
{
	struct vuser_cq *cq = vuser_cq_get(d, cqn);

	if (cq == NULL)
		return;
	if (cq->r != NULL) {
		/* the event thread finds CQs in the table */
		pthread_mutex_lock(&d->rings.ev_lock);
		d->cqs[cqn] = NULL;
		pthread_mutex_unlock(&d->rings.ev_lock);
		cq_free(d, cq);
		return;
	}
	d->cqs[cqn] = NULL;
	vuser_vq_reinit(d, cq->vq);
	cq_free(d, cq);
}

static int
wq_init(struct vur_user_dev *d, struct vuser_wq *q, uint32_t vq, uint32_t max_wr, uint32_t max_sge,
		size_t hdr)
{
	int ret;

	pthread_mutex_init(&q->lock, NULL);
	q->vq = &d->vqs[vq];
	q->max_wr = max_wr;
	q->max_sge = max_sge;
	/* 64-byte slots: a request never shares a cache line with another */
	q->slot_size = (uint32_t)((hdr + max_sge * sizeof(struct virtio_rdma_sge) + 63) & ~63ul);
	q->free = calloc(max_wr ? max_wr : 1, sizeof(q->free[0]));
	if (q->free == NULL)
		return -ENOMEM;
	if (max_wr > 0) {
		ret = vuser_mem_alloc(
				&d->mem, (size_t)max_wr * q->slot_size, VUSER_PAGE_SIZE, &q->slots);
		if (ret < 0)
			return ret;
	}
	for (uint32_t i = 0; i < max_wr; i++)
		q->free[i] = max_wr - 1 - i;
	q->n_free = max_wr;
	/* the driver learns of completions from the CQ (ROCE-DRV-WR-5) */
	vuser_vring_disable_notify(&q->vq->ring);
	return 0;
}

int
vuser_qp_attach(struct vur_user_dev *d, uint32_t qpn, const struct vur_user_qp_init_attr *attr)
{
	struct vuser_qp *qp;
	int ret;

	if (d->qps == NULL || qpn >= d->max_qps || d->qps[qpn] != NULL) {
		VUSER_LOG(ERR, d->name, "CREATE_QP answered QP %u: no such free QP", qpn);
		return -EPROTO;
	}
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return -ENOMEM;
	qp->type = attr->qp_type;
	ret = wq_init(d, &qp->sq, virtio_net_roce_sq_vq(1, d->max_cqs, qpn), attr->cap.max_send_wr,
			attr->cap.max_send_sge, sizeof(struct virtio_rdma_sq_req));
	if (ret == 0)
		ret = wq_init(d, &qp->rq, virtio_net_roce_rq_vq(1, d->max_cqs, qpn),
				attr->cap.max_recv_wr, attr->cap.max_recv_sge,
				sizeof(struct virtio_rdma_rq_req));
	if (ret < 0) {
		qp_free(d, qp);
		return ret;
	}
	d->qps[qpn] = qp;
	return 0;
}

void
vuser_qp_detach(struct vur_user_dev *d, uint32_t qpn)
{
	struct vuser_qp *qp = vuser_qp_get(d, qpn);

	if (qp == NULL)
		return;
	d->qps[qpn] = NULL;
	if (qp->r == NULL) {
		vuser_vq_reinit(d, qp->sq.vq);
		vuser_vq_reinit(d, qp->rq.vq);
	}
	qp_free(d, qp);
}

struct vuser_srq *
vuser_srq_get(const struct vur_user_dev *d, uint32_t srqn)
{
	return d->srqs != NULL && srqn < d->n_qp_slots ? d->srqs[srqn] : NULL;
}

int
vuser_srq_attach(struct vur_user_dev *d, uint32_t srqn, uint32_t max_wr, uint32_t max_sge)
{
	struct vuser_srq *srq;
	int ret;

	if (d->srqs == NULL || srqn < 2 || srqn >= d->max_qps || d->srqs[srqn] != NULL ||
			d->qps[srqn] != NULL) {
		VUSER_LOG(ERR, d->name, "CREATE_SRQ answered SRQ %u: no such free number", srqn);
		return -EPROTO;
	}
	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return -ENOMEM;
	ret = wq_init(d, &srq->rq, virtio_net_roce_rq_vq(1, d->max_cqs, srqn), max_wr, max_sge,
			sizeof(struct virtio_rdma_rq_req));
	if (ret < 0) {
		wq_free(d, &srq->rq);
		free(srq);
		return ret;
	}
	d->srqs[srqn] = srq;
	return 0;
}

void
vuser_srq_detach(struct vur_user_dev *d, uint32_t srqn)
{
	struct vuser_srq *srq = vuser_srq_get(d, srqn);

	if (srq == NULL)
		return;
	if (srq->r != NULL) {
		pthread_mutex_lock(&d->rings.ev_lock);
		d->srqs[srqn] = NULL;
		pthread_mutex_unlock(&d->rings.ev_lock);
		srq_free(d, srq);
		return;
	}
	d->srqs[srqn] = NULL;
	vuser_vq_reinit(d, srq->rq.vq); /* ROCE-DRV-LIFE-5 */
	srq_free(d, srq);
}

void
vuser_detach_all(struct vur_user_dev *d)
{
	for (uint32_t n = 0; d->qps != NULL && n < d->n_qp_slots; n++) {
		vuser_qp_detach(d, n);
		vuser_srq_detach(d, n);
	}
	for (uint32_t n = 0; d->cqs != NULL && n < d->n_cq_slots; n++)
		vuser_cq_detach(d, n);
}

void *
vuser_wq_slot(struct vur_user_dev *d, struct vuser_wq *q)
{
	uint8_t *base = q->slots.hva;
	void *cookie;
	uint32_t len;

	(void)d;
	while (vuser_vring_get_used(&q->vq->ring, &cookie, &len) == 1)
		q->free[q->n_free++] = (uint32_t)(((uint8_t *)cookie - base) / q->slot_size);
	if (q->n_free == 0)
		return NULL;
	return base + (size_t)q->free[--q->n_free] * q->slot_size;
}
