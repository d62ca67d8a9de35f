/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Posting to rings (ROCE-DRV-RING-3, -2): each WR written whole into its
 * entry as the spec's request (the same bytes as in a virtqueue slot),
 * then, after a release barrier, the producer index in the record; a send
 * queue then rings its doorbell if the device asked, a receive queue if
 * the QP is in ERR (ROCE-DRV-RING-7; doorbell.c). A queue
 * holds at most its cap WRs outstanding, counted from the device's
 * consumer index; an index that says more is refused as a full queue.
 */
#include <endian.h>
#include <errno.h>

#include "device.h"
#include "rdma_q.h"
#include "rings.h"

static uint32_t
load_le32(const __le32 *p)
{
	return le32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static void
store_le32(__le32 *p, uint32_t v)
{
	__atomic_store_n(p, htole32(v), __ATOMIC_RELEASE);
}

static bool
room(uint32_t prod, const __le32 *cons_p, uint32_t *cons, uint32_t max_wr)
{
	if ((uint32_t)(prod - *cons) < max_wr)
		return true;
	*cons = load_le32(cons_p);
	return (uint32_t)(prod - *cons) < max_wr;
}

int
vuser_rqp_post_send(struct vur_user_dev *d, struct vuser_wq *q, struct vuser_rqp *r,
		uint8_t qp_type, const struct vur_user_send_wr *wr, unsigned int n,
		unsigned int *bad)
{
	uint32_t old, prod, cons;
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&q->lock);
	old = prod = r->sq_prod;
	cons = load_le32(&r->rec->sq_cons);
	for (i = 0; i < n; i++) {
		ret = vuser_check_send(q, &wr[i]);
		if (ret < 0)
			break;
		if (!room(prod, &r->rec->sq_cons, &cons, q->max_wr)) {
			ret = -ENOMEM; /* ROCE-DRV-WR-2 */
			break;
		}
		vuser_send_to_wire(qp_type, &wr[i], vuser_ring_entry(&r->sq, prod));
		prod++;
	}
	if (prod != old) {
		store_le32(&r->rec->sq_prod, prod);
		r->sq_prod = prod;
		vuser_doorbell_post(d, r->dbq, r->qpn, old, prod, r->rec);
	}
	pthread_mutex_unlock(&q->lock);
	if (ret < 0 && bad != NULL)
		*bad = i;
	return ret;
}

/* @r: the QP whose receive ring this is (its doorbell, ROCE-DRV-RING-7); NULL for an SRQ */
static int
post_recv(struct vur_user_dev *d, struct vuser_rqp *r, struct vuser_wq *q, struct vuser_ring *ring,
		uint32_t *prod_p, __le32 *prod_rec, const __le32 *cons_rec,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad)
{
	uint32_t prod, cons;
	unsigned int i;
	int ret = 0;

	if (wr == NULL && n > 0) {
		if (bad != NULL)
			*bad = 0;
		return -EINVAL;
	}
	pthread_mutex_lock(&q->lock);
	prod = *prod_p;
	cons = load_le32(cons_rec);
	for (i = 0; i < n; i++) {
		if (wr[i].num_sge > q->max_sge || (wr[i].num_sge > 0 && wr[i].sg_list == NULL)) {
			ret = -EINVAL;
			break;
		}
		if (!room(prod, cons_rec, &cons, q->max_wr)) {
			ret = -ENOMEM;
			break;
		}
		vuser_recv_to_wire(&wr[i], vuser_ring_entry(ring, prod));
		prod++;
	}
	if (prod != *prod_p) {
		/* no doorbell unless the QP is in ERR: the device reads it as packets come */
		store_le32(prod_rec, prod);
		*prod_p = prod;
		if (r != NULL)
			vuser_doorbell_post_recv(d, r->dbq, r->qpn, r->rec);
	}
	pthread_mutex_unlock(&q->lock);
	if (ret < 0 && bad != NULL)
		*bad = i;
	return ret;
}

int
vuser_rqp_post_recv(struct vur_user_dev *d, struct vuser_wq *q, struct vuser_rqp *r,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad)
{
	if (r->rq.hva == NULL) { /* a QP on an SRQ */
		if (bad != NULL)
			*bad = 0;
		return n > 0 ? -EINVAL : 0;
	}
	return post_recv(d, r, q, &r->rq, &r->rq_prod, &r->rec->rq_prod, &r->rec->rq_cons, wr, n,
			bad);
}

int
vuser_rsrq_post_recv(struct vur_user_dev *d, struct vuser_wq *q, struct vuser_rsrq *r,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad)
{
	return post_recv(d, NULL, q, &r->ring, &r->prod, &r->rec->prod, &r->rec->cons, wr, n, bad);
}

/* The QP went to RESET: the device zeroed its half, the driver starts again from 0. */
void
vuser_rqp_reset(struct vuser_wq *sq, struct vuser_wq *rq, struct vuser_rqp *r)
{
	pthread_mutex_lock(&sq->lock);
	pthread_mutex_lock(&rq->lock);
	r->sq_prod = r->rq_prod = 0;
	store_le32(&r->rec->sq_prod, 0);
	store_le32(&r->rec->rq_prod, 0);
	pthread_mutex_unlock(&rq->lock);
	pthread_mutex_unlock(&sq->lock);
}
