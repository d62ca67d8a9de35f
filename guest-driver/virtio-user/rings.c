/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings layout's set-up: how many doorbell/event queue pairs to use,
 * the ring limits from QUERY_DEVICE, SETUP_RINGS with the doorbell area,
 * the library's MRs over driver memory, and the diagnostic API of
 * vur_rings.h.
 *
 * SETUP_RINGS and the MRs are made when the first object goes on rings,
 * not at open: a driver that never uses rings creates no object the
 * device counts. RESET_OBJECTS makes the device forget them all; the
 * library then forgets them too and sets them up again when needed.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_net_roce.h>

#include "device.h"
#include "log.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"
#include "vur_rings.h"

VUSER_SAME_VALUE(VUR_USER_DEVICE_RINGS, VIRTIO_IB_DEVICE_RINGS);
VUSER_SAME_VALUE(VUR_USER_DEVICE_RESIZE_CQ, VIRTIO_IB_DEVICE_RESIZE_CQ);

#define MAX_RING_QUEUES 8 /* one per vCPU, as a guest would; this process has few */

static uint8_t
layout(const struct vur_user_dev *d)
{
	const char *e;

	if (d->params.layout != VUR_USER_LAYOUT_AUTO)
		return d->params.layout;
	e = getenv("VUR_USER_LAYOUT");
	if (e != NULL && strcmp(e, "virtqueues") == 0)
		return VUR_USER_LAYOUT_VIRTQUEUES;
	if (e != NULL && strcmp(e, "rings") == 0)
		return VUR_USER_LAYOUT_RINGS;
	return VUR_USER_LAYOUT_AUTO;
}

uint16_t
vuser_rings_plan(const struct vur_user_dev *d, uint16_t k_offered)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint16_t k = k_offered;

	/* a driver on virtqueues only is an older driver: it sets none up */
	if (k == 0 || layout(d) == VUR_USER_LAYOUT_VIRTQUEUES)
		return 0;
	if (cpus > 0 && k > cpus)
		k = (uint16_t)cpus;
	if (k > MAX_RING_QUEUES)
		k = MAX_RING_QUEUES;
	return k;
}

int
vuser_rings_choose(const struct vur_user_dev *d, uint8_t layout)
{
	switch (layout) {
	case VUR_USER_LAYOUT_AUTO:
		return d->rings.available && d->rings.dflt;
	case VUR_USER_LAYOUT_VIRTQUEUES:
		return 0;
	case VUR_USER_LAYOUT_RINGS:
		return d->rings.available ? 1 : -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

int
vuser_rings_init(struct vur_user_dev *d)
{
	struct vuser_rings *r = &d->rings;
	struct vur_user_device_attr a;
	int ret;

	if (r->k == 0)
		return 0;
	ret = vur_user_query_device(d, &a);
	if (ret < 0)
		return ret;
	if (!(a.device_cap_flags & VUR_USER_DEVICE_RINGS) || a.max_ring_qp == 0 ||
			a.max_ring_cq == 0) {
		VUSER_LOG(WARNING, d->name,
				"rdma_ring_queues %u without the RINGS capability: no rings", r->k);
		return 0;
	}
	r->max_ring_qp = a.max_ring_qp;
	r->max_ring_cq = a.max_ring_cq;
	r->max_ring_wr = a.max_ring_wr;
	r->max_ring_cqe = a.max_ring_cqe;
	r->resize = a.device_cap_flags & VUR_USER_DEVICE_RESIZE_CQ;
	r->db_stride = virtio_rdma_doorbell_size(d->max_qps, a.max_ring_qp);
	ret = vuser_rdma_q_grow(d, a.max_ring_qp, a.max_ring_cq);
	if (ret == 0)
		ret = vuser_eq_start(d);
	if (ret < 0)
		return ret;
	r->available = true;
	/*
	 * Rings by default whenever the device offers them: deeper queues and
	 * a handful of queues and vectors. Virtqueues only when asked (params
	 * or VUR_USER_LAYOUT=virtqueues: then no ring queues are set up at all,
	 * vuser_rings_plan()), or per object.
	 */
	r->dflt = true;
	return 0;
}

void
vuser_rings_fini(struct vur_user_dev *d)
{
	struct vuser_rings *r = &d->rings;

	vuser_ringmem_fini(d);
	free(r->pd_mrs);
	r->pd_mrs = NULL;
	r->n_pd_mrs = r->cap_pd_mrs = 0;
	if (r->db.hva != NULL)
		vuser_mem_free(&d->mem, &r->db);
	memset(&r->db, 0, sizeof(r->db));
}

int
vuser_rings_ready(struct vur_user_dev *d)
{
	struct vuser_rings *r = &d->rings;
	struct virtio_rdma_cmd_setup_rings c;
	struct virtio_rdma_cmd_destroy_pd x;
	int ret;

	if (r->ready)
		return 0;
	ret = vur_user_create_pd(d, &r->lib_pdn);
	if (ret < 0)
		return ret;
	ret = vur_user_get_dma_mr(d, r->lib_pdn, VUR_USER_ACCESS_LOCAL_WRITE, &r->lib_mr);
	if (ret < 0)
		goto destroy_pd;
	/* the device's K summaries, whether or not the driver uses each doorbell queue */
	if (r->db.hva == NULL) {
		ret = vuser_mem_alloc(
				&d->mem, (size_t)r->k_dev * r->db_stride, VUSER_PAGE_SIZE, &r->db);
		if (ret < 0)
			goto dereg_mr;
	}
	memset(r->db.hva, 0, (size_t)r->k_dev * r->db_stride);
	memset(&c, 0, sizeof(c));
	c.addr = htole64(r->db.gpa);
	c.lkey = htole32(r->lib_mr.lkey);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_SETUP_RINGS, &c, sizeof(c), NULL, 0);
	if (ret < 0)
		goto dereg_mr;
	r->ready = true;
	return 0;

dereg_mr:
	vur_user_dereg_mr(d, r->lib_mr.mrn);
destroy_pd:
	x.pdn = htole32(r->lib_pdn); /* not vur_user_destroy_pd(): it takes rings->lock */
	vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &x, sizeof(x), NULL, 0);
	return ret;
}

int
vuser_rings_pd_lkey(struct vur_user_dev *d, uint32_t pdn, uint32_t *lkey)
{
	struct vuser_rings *r = &d->rings;
	struct vur_user_mr mr;
	struct vuser_pd_mr *n;
	int ret;

	for (uint32_t i = 0; i < r->n_pd_mrs; i++)
		if (r->pd_mrs[i].pdn == pdn) {
			*lkey = r->pd_mrs[i].lkey;
			return 0;
		}
	if (r->n_pd_mrs == r->cap_pd_mrs) {
		n = realloc(r->pd_mrs, (r->cap_pd_mrs ? 2 * r->cap_pd_mrs : 8) * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		r->pd_mrs = n;
		r->cap_pd_mrs = r->cap_pd_mrs ? 2 * r->cap_pd_mrs : 8;
	}
	ret = vur_user_get_dma_mr(d, pdn, VUR_USER_ACCESS_LOCAL_WRITE, &mr);
	if (ret < 0)
		return ret;
	r->pd_mrs[r->n_pd_mrs++] = (struct vuser_pd_mr){ pdn, mr.mrn, mr.lkey };
	*lkey = mr.lkey;
	return 0;
}

int
vuser_rings_pd_release(struct vur_user_dev *d, uint32_t pdn)
{
	struct vuser_rings *r = &d->rings;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	for (uint32_t i = 0; i < r->n_pd_mrs; i++)
		if (r->pd_mrs[i].pdn == pdn) {
			ret = vur_user_dereg_mr(d, r->pd_mrs[i].mrn);
			if (ret == 0)
				r->pd_mrs[i] = r->pd_mrs[--r->n_pd_mrs];
			break;
		}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void
vuser_rings_reset(struct vur_user_dev *d)
{
	struct vuser_rings *r = &d->rings;

	pthread_mutex_lock(&r->lock);
	r->ready = false;
	r->n_pd_mrs = 0;
	memset(&r->lib_mr, 0, sizeof(r->lib_mr));
	pthread_mutex_unlock(&r->lock);
}

uint16_t
vuser_rings_next_queue(struct vur_user_dev *d)
{
	return (uint16_t)(__atomic_fetch_add(&d->rings.next_q, 1, __ATOMIC_RELAXED) % d->rings.k);
}

uint16_t
vur_user_ring_queues(const struct vur_user_dev *d)
{
	return d != NULL && d->rings.available ? d->rings.k : 0;
}

static void
info_ring(struct vur_user_ring_info *info, int i, const struct vuser_ring *r)
{
	if (r->hva == NULL)
		return;
	info->ring[i] = r->hva;
	info->ring_addr[i] = r->gpa;
	info->size[i] = r->mask + 1;
	info->stride[i] = 1u << r->log_stride;
}

int
vur_user_qp_ring_info(struct vur_user_dev *d, uint32_t qpn, struct vur_user_ring_info *info)
{
	struct vuser_qp *qp = d != NULL ? vuser_qp_get(d, qpn) : NULL;

	if (qp == NULL || qp->r == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->rec = qp->r->rec;
	info->rec_addr = qp->r->rec_mem.gpa;
	info_ring(info, 0, &qp->r->sq);
	info_ring(info, 1, &qp->r->rq);
	info->lkey = qp->r->lkey;
	info->queue = qp->r->dbq;
	return 0;
}

int
vur_user_cq_ring_info(struct vur_user_dev *d, uint32_t cqn, struct vur_user_ring_info *info)
{
	struct vuser_cq *cq = d != NULL ? vuser_cq_get(d, cqn) : NULL;

	if (cq == NULL || cq->r == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->rec = cq->r->rec;
	info->rec_addr = cq->r->rec_mem.gpa;
	info_ring(info, 0, &cq->r->ring);
	info->lkey = cq->r->lkey;
	info->queue = cq->r->eq;
	pthread_mutex_lock(&d->rings.ev_lock);
	info->events = cq->r->n_comp;
	info->errors = cq->r->n_err;
	pthread_mutex_unlock(&d->rings.ev_lock);
	return 0;
}

int
vur_user_srq_ring_info(struct vur_user_dev *d, uint32_t srqn, struct vur_user_ring_info *info)
{
	struct vuser_srq *srq = d != NULL ? vuser_srq_get(d, srqn) : NULL;

	if (srq == NULL || srq->r == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->rec = srq->r->rec;
	info->rec_addr = srq->r->rec_mem.gpa;
	info_ring(info, 0, &srq->r->ring);
	info->lkey = srq->r->lkey;
	info->queue = srq->r->eq;
	pthread_mutex_lock(&d->rings.ev_lock);
	info->events = srq->r->n_limit;
	pthread_mutex_unlock(&d->rings.ev_lock);
	return 0;
}

int
vur_user_ring_doorbell(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn)
{
	if (d == NULL || !d->rings.available || !d->rings.ready || dbq >= d->rings.k ||
			qpn >= d->max_qps + d->rings.max_ring_qp)
		return -EINVAL;
	vuser_doorbell_ring(d, dbq, qpn);
	return 0;
}

int
vur_user_rings_lkey(struct vur_user_dev *d, uint32_t *lkey)
{
	if (d == NULL || lkey == NULL || !d->rings.available)
		return -EINVAL;
	pthread_mutex_lock(&d->rings.lock);
	*lkey = d->rings.ready ? d->rings.lib_mr.lkey : 0;
	pthread_mutex_unlock(&d->rings.lock);
	return 0;
}
