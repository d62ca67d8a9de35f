/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QPs, CQs and SRQs on rings: their rings and records set aside in driver
 * memory, the CREATE command with the rings struct (ROCE-DRV-RING-5),
 * and their release after the destroy. The record starts zeroed: the
 * driver half is the driver's, the device writes its half before it
 * acknowledges the create.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "log.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"

#define REC_SIZE      128
#define SQ_ENTRY(sge) (sizeof(struct virtio_rdma_sq_req) + (sge) * sizeof(struct virtio_rdma_sge))
#define RQ_ENTRY(sge) (sizeof(struct virtio_rdma_rq_req) + (sge) * sizeof(struct virtio_rdma_sge))

_Static_assert(sizeof(struct virtio_rdma_qp_rec) == REC_SIZE, "record");

bool
vuser_rings_qpn_ok(const struct vur_user_dev *d, uint32_t qpn, bool gsi)
{
	if (gsi)
		return qpn == 1;
	return qpn >= d->max_qps && qpn < d->max_qps + d->rings.max_ring_qp;
}

static void
rec_ref(const struct vuser_buf *b, uint32_t lkey, struct virtio_rdma_rec_ref *w)
{
	memset(w, 0, sizeof(*w));
	w->addr = htole64(b->gpa);
	w->lkey = htole32(lkey);
}

static void
wq_plain(struct vuser_wq *q, uint32_t max_wr, uint32_t max_sge)
{
	pthread_mutex_init(&q->lock, NULL);
	q->max_wr = max_wr;
	q->max_sge = max_sge;
}

#define LIB_PD UINT32_MAX /* obj_alloc(): the rings go in the library's MR */

/*
 * An object's first ring and its record from ringmem, after SETUP_RINGS
 * and the MR of @pdn's rings (@lkey). The object is counted whatever
 * fails: obj_release() counts it down.
 */
static int
obj_alloc(struct vur_user_dev *d, uint32_t pdn, uint32_t *lkey, struct vuser_ring *ring,
		uint32_t entries, uint32_t entry, struct vuser_buf *rec)
{
	int ret;

	pthread_mutex_lock(&d->rings.lock);
	d->rings.n_objects++;
	ret = vuser_rings_ready(d);
	if (ret == 0 && pdn != LIB_PD)
		ret = vuser_rings_pd_lkey(d, pdn, lkey);
	else if (ret == 0)
		*lkey = d->rings.lib_mr.lkey;
	if (ret == 0)
		ret = vuser_ring_alloc(d, ring, entries ? entries : 1, entry);
	if (ret == 0)
		ret = vuser_ringmem_alloc(d, REC_SIZE, rec);
	pthread_mutex_unlock(&d->rings.lock);
	return ret;
}

/* An object's rings (@r1 may be unused) and record back to ringmem, its event fd closed. */
static void
obj_release(struct vur_user_dev *d, struct vuser_ring *r0, struct vuser_ring *r1,
		struct vuser_buf *rec, int ev_fd)
{
	pthread_mutex_lock(&d->rings.lock);
	vuser_ring_free(d, r0);
	if (r1 != NULL)
		vuser_ring_free(d, r1);
	vuser_ringmem_free(d, rec);
	d->rings.n_objects--;
	pthread_mutex_unlock(&d->rings.lock);
	if (ev_fd >= 0)
		close(ev_fd);
}

_Static_assert(sizeof(struct virtio_rdma_cmd_destroy_qp) == sizeof(__le32), "destroy QP");
_Static_assert(sizeof(struct virtio_rdma_cmd_destroy_cq) == sizeof(__le32), "destroy CQ");
_Static_assert(sizeof(struct virtio_rdma_cmd_destroy_srq) == sizeof(__le32), "destroy SRQ");

/*
 * The number the device answered to a CREATE: 0 if @ok (a free number of
 * the ring range) and the driver's object could be made (@obj), else the
 * object destroyed on the device if it had one, and the error.
 */
static int
obj_answered(struct vur_user_dev *d, const char *what, uint8_t destroy, uint32_t n, bool ok,
		const void *obj)
{
	__le32 x = htole32(n); /* every DESTROY command is the number alone */

	if (!ok) {
		VUSER_LOG(ERR, d->name, "CREATE_%s on rings answered %u: not a free ring number",
				what, n);
		return -EPROTO;
	}
	if (obj != NULL)
		return 0;
	vuser_roce_cmd(d, destroy, &x, sizeof(x), NULL, 0);
	return -ENOMEM;
}

void
vuser_rqp_free(struct vur_user_dev *d, struct vuser_rqp *r)
{
	obj_release(d, &r->sq, &r->rq, &r->rec_mem, -1);
	free(r);
}

/* The rings, record and MR of a new QP. */
static int
rqp_alloc(struct vur_user_dev *d, const struct vur_user_qp_init_attr *attr, struct vuser_rqp *r)
{
	const struct vur_user_qp_cap *c = &attr->cap;
	int ret;

	ret = obj_alloc(d, attr->pdn, &r->lkey, &r->sq, c->max_send_wr, SQ_ENTRY(c->max_send_sge),
			&r->rec_mem);
	if (ret == 0 && !(attr->flags & VUR_USER_QP_F_SRQ)) {
		pthread_mutex_lock(&d->rings.lock);
		ret = vuser_ring_alloc(d, &r->rq, c->max_recv_wr ? c->max_recv_wr : 1,
				RQ_ENTRY(c->max_recv_sge));
		pthread_mutex_unlock(&d->rings.lock);
	}
	if (ret < 0)
		return ret;
	r->rec = r->rec_mem.hva;
	r->dbq = vuser_rings_next_queue(d);
	r->max_send_wr = c->max_send_wr;
	r->max_recv_wr = c->max_recv_wr;
	return 0;
}

static int
rqp_cmd(struct vur_user_dev *d, const struct virtio_rdma_cmd_create_qp *base, struct vuser_rqp *r,
		uint32_t *qpn)
{
	struct virtio_rdma_cmd_create_qp_rings c;
	struct virtio_rdma_ack_create_qp a;
	int ret;

	memset(&c, 0, sizeof(c));
	c.qp = *base;
	c.qp.flags = base->flags | VIRTIO_RDMA_QP_F_RINGS;
	vuser_ring_to_wire(&r->sq, r->lkey, &c.sq);
	vuser_ring_to_wire(&r->rq, r->lkey, &c.rq);
	rec_ref(&r->rec_mem, r->lkey, &c.rec);
	c.dbq = htole16(r->dbq);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_QP, &c, sizeof(c), &a, sizeof(a));
	if (ret == 0)
		*qpn = le32toh(a.qpn);
	return ret;
}

int
vuser_rqp_create(struct vur_user_dev *d, const struct vur_user_qp_init_attr *attr,
		const struct virtio_rdma_cmd_create_qp *base, uint32_t *qpn)
{
	struct vuser_rqp *r = calloc(1, sizeof(*r));
	struct vuser_qp *qp = NULL;
	uint32_t n = 0;
	int ret;

	if (r == NULL)
		return -ENOMEM;
	ret = rqp_alloc(d, attr, r);
	if (ret == 0)
		ret = rqp_cmd(d, base, r, &n);
	if (ret == 0) {
		bool ok = vuser_rings_qpn_ok(d, n, attr->qp_type == VUR_USER_QPT_GSI) &&
				d->qps[n] == NULL && d->srqs[n] == NULL;

		qp = ok ? calloc(1, sizeof(*qp)) : NULL;
		ret = obj_answered(d, "QP", VIRTIO_NET_CTRL_ROCE_DESTROY_QP, n, ok, qp);
	}
	if (ret < 0) {
		vuser_rqp_free(d, r);
		return ret;
	}
	qp->type = attr->qp_type;
	qp->r = r;
	r->qpn = n;
	wq_plain(&qp->sq, attr->cap.max_send_wr, attr->cap.max_send_sge);
	wq_plain(&qp->rq, attr->cap.max_recv_wr, attr->cap.max_recv_sge);
	d->qps[n] = qp;
	*qpn = n;
	return 0;
}

void
vuser_rcq_free(struct vur_user_dev *d, struct vuser_rcq *r)
{
	obj_release(d, &r->ring, r->old.mem.hva != NULL ? &r->old : NULL, &r->rec_mem, r->ev_fd);
	free(r);
}

int
vuser_rcq_create(struct vur_user_dev *d, uint32_t cqe, uint32_t *cqn)
{
	struct vuser_rcq *r = calloc(1, sizeof(*r));
	struct virtio_rdma_cmd_create_cq_rings c;
	struct virtio_rdma_ack_create_cq a;
	struct vuser_cq *cq = NULL;
	uint32_t n;
	bool ok;
	int ret;

	if (r == NULL)
		return -ENOMEM;
	r->ev_fd = -1;
	ret = obj_alloc(d, LIB_PD, &r->lkey, &r->ring, cqe, sizeof(struct virtio_rdma_cq_req),
			&r->rec_mem);
	if (ret < 0)
		goto free_r;
	r->rec = r->rec_mem.hva;
	r->eq = vuser_rings_next_queue(d);
	memset(&c, 0, sizeof(c));
	c.cqe = htole32(cqe);
	c.flags = htole32(VIRTIO_RDMA_CQ_F_RINGS);
	c.eq = htole16(r->eq);
	vuser_ring_to_wire(&r->ring, r->lkey, &c.ring);
	rec_ref(&r->rec_mem, r->lkey, &c.rec);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0)
		goto free_r;
	n = le32toh(a.cqn);
	ok = n >= d->max_cqs && n < d->n_cq_slots && d->cqs[n] == NULL;
	cq = ok ? calloc(1, sizeof(*cq)) : NULL;
	ret = obj_answered(d, "CQ", VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, n, ok, cq);
	if (ret < 0)
		goto free_r;
	pthread_mutex_init(&cq->lock, NULL);
	cq->n = cqe;
	cq->r = r;
	pthread_mutex_lock(&d->rings.ev_lock);
	d->cqs[n] = cq;
	pthread_mutex_unlock(&d->rings.ev_lock);
	*cqn = n;
	return 0;

free_r:
	vuser_rcq_free(d, r);
	return ret;
}

/*
 * ROCE-DRV-RING-8, -10: every CQE polled so far is in cons (the poll
 * stores it, and the caller holds the CQ's lock, so no poll runs
 * meanwhile); the new ring is the CQ's only once the device took it.
 */
int
vuser_rcq_resize(struct vur_user_dev *d, uint32_t cqn, struct vuser_rcq *r, uint32_t cqe)
{
	struct virtio_rdma_cmd_resize_cq c = { .cqn = htole32(cqn), .cqe = htole32(cqe) };
	uint32_t prod = le32toh(__atomic_load_n(&r->rec->prod, __ATOMIC_ACQUIRE));
	struct virtio_rdma_ack_resize_cq a;
	struct vuser_ring nr;
	int ret;

	if (!d->rings.resize)
		return -EOPNOTSUPP;
	if (cqe == 0 || cqe > d->rings.max_ring_cqe || prod - r->cons > cqe)
		return -EINVAL;
	if (r->old.mem.hva != NULL)
		return -EBUSY;
	pthread_mutex_lock(&d->rings.lock);
	ret = vuser_ring_alloc(d, &nr, cqe, sizeof(struct virtio_rdma_cq_req));
	pthread_mutex_unlock(&d->rings.lock);
	if (ret < 0)
		return ret;
	vuser_ring_to_wire(&nr, r->lkey, &c.ring);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_RESIZE_CQ, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0) {
		pthread_mutex_lock(&d->rings.lock);
		vuser_ring_free(d, &nr);
		pthread_mutex_unlock(&d->rings.lock);
		return ret;
	}
	r->old = r->ring;
	r->ring = nr;
	r->switch_prod = le32toh(a.switch_prod);
	if (r->cons == r->switch_prod) { /* nothing left in the old ring */
		pthread_mutex_lock(&d->rings.lock);
		vuser_ring_free(d, &r->old);
		pthread_mutex_unlock(&d->rings.lock);
	}
	return 0;
}

void
vuser_rsrq_free(struct vur_user_dev *d, struct vuser_rsrq *r)
{
	obj_release(d, &r->ring, NULL, &r->rec_mem, r->ev_fd);
	free(r);
}

int
vuser_rsrq_create(struct vur_user_dev *d, uint32_t pdn, const struct vur_user_srq_attr *attr,
		uint32_t *srqn)
{
	struct vuser_rsrq *r = calloc(1, sizeof(*r));
	struct virtio_rdma_cmd_create_srq_rings c;
	struct virtio_rdma_ack_create_srq a;
	struct vuser_srq *srq = NULL;
	uint32_t n;
	bool ok;
	int ret;

	if (r == NULL)
		return -ENOMEM;
	r->ev_fd = -1;
	ret = obj_alloc(d, pdn, &r->lkey, &r->ring, attr->max_wr, RQ_ENTRY(attr->max_sge),
			&r->rec_mem);
	if (ret < 0)
		goto free_r;
	r->rec = r->rec_mem.hva;
	r->eq = vuser_rings_next_queue(d);
	memset(&c, 0, sizeof(c));
	c.srq.pdn = htole32(pdn);
	c.srq.max_wr = htole32(attr->max_wr);
	c.srq.max_sge = htole32(attr->max_sge);
	c.srq.flags = htole32(VIRTIO_RDMA_SRQ_F_RINGS);
	vuser_ring_to_wire(&r->ring, r->lkey, &c.ring);
	rec_ref(&r->rec_mem, r->lkey, &c.rec);
	c.eq = htole16(r->eq);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0)
		goto free_r;
	n = le32toh(a.srqn);
	ok = vuser_rings_qpn_ok(d, n, false) && d->qps[n] == NULL && d->srqs[n] == NULL;
	srq = ok ? calloc(1, sizeof(*srq)) : NULL;
	ret = obj_answered(d, "SRQ", VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, n, ok, srq);
	if (ret < 0)
		goto free_r;
	wq_plain(&srq->rq, attr->max_wr, attr->max_sge);
	srq->r = r;
	pthread_mutex_lock(&d->rings.ev_lock);
	d->srqs[n] = srq;
	pthread_mutex_unlock(&d->rings.ev_lock);
	*srqn = n;
	return 0;

free_r:
	vuser_rsrq_free(d, r);
	return ret;
}
