/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: CREATE_SRQ, DESTROY_SRQ, posting to them, and the
 * SRQ limit, which the device leaves to the driver: the WRs on an SRQ are
 * those made available on its virtqueue and not yet used, so a used-buffer
 * notification at the right used index is the limit event (the spec's
 * "Shared Receive Queue Operation"; ROCE-DRV-SRQ-4).
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "device.h"
#include "log.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"
#include "virtqueue.h"

VUSER_SAME_VALUE(VUR_USER_DEVICE_SRQ, VIRTIO_IB_DEVICE_SRQ);
VUSER_SAME_VALUE(VUR_USER_QP_F_SRQ, VIRTIO_RDMA_QP_F_SRQ);

int
vur_user_create_srq(struct vur_user_dev *d, uint32_t pdn, const struct vur_user_srq_attr *attr,
		uint32_t *srqn)
{
	return vur_user_create_srq_ex(d, pdn, attr, VUR_USER_LAYOUT_AUTO, srqn);
}

int
vur_user_create_srq_ex(struct vur_user_dev *d, uint32_t pdn, const struct vur_user_srq_attr *attr,
		uint8_t layout, uint32_t *srqn)
{
	struct virtio_rdma_cmd_create_srq c;
	struct virtio_rdma_ack_create_srq a;
	struct virtio_rdma_cmd_destroy_srq x;
	int ret;

	if (d == NULL || attr == NULL || srqn == NULL)
		return -EINVAL;
	ret = vuser_rings_choose(d, layout);
	if (ret < 0)
		return ret;
	if (ret == 1)
		return vuser_rsrq_create(d, pdn, attr, srqn);
	memset(&c, 0, sizeof(c));
	c.pdn = htole32(pdn);
	c.max_wr = htole32(attr->max_wr);
	c.max_sge = htole32(attr->max_sge);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), &a, sizeof(a));
	if (ret < 0)
		return ret;
	ret = vuser_srq_attach(d, le32toh(a.srqn), attr->max_wr, attr->max_sge);
	if (ret == -ENOMEM) {
		x.srqn = a.srqn;
		vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &x, sizeof(x), NULL, 0);
	} else if (ret == 0) {
		*srqn = le32toh(a.srqn);
	}
	return ret;
}

int
vur_user_destroy_srq(struct vur_user_dev *d, uint32_t srqn)
{
	struct virtio_rdma_cmd_destroy_srq c = { .srqn = htole32(srqn) };
	struct vuser_srq *srq;
	int ret;

	if (d == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &c, sizeof(c), NULL, 0);
	srq = vuser_srq_get(d, srqn);
	if (ret == 0 && srq != NULL && srq->r != NULL) {
		vuser_srq_detach(d, srqn);
	} else if (ret == 0 && srq != NULL) {
		/* ROCE-DEV-SRQ-8: every WR used by the time the command completes */
		if (vuser_vring_outstanding(&srq->rq.vq->ring) != 0) {
			VUSER_LOG(ERR, d->name, "DESTROY_SRQ %u left %u WRs unused", srqn,
					vuser_vring_outstanding(&srq->rq.vq->ring));
			ret = -EPROTO;
		}
		vuser_srq_detach(d, srqn);
	}
	return ret;
}

int
vur_user_post_srq_recv(struct vur_user_dev *d, uint32_t srqn, const struct vur_user_recv_wr *wr,
		unsigned int n, unsigned int *bad)
{
	struct vuser_srq *srq = d != NULL ? vuser_srq_get(d, srqn) : NULL;

	if (srq == NULL) {
		if (bad != NULL)
			*bad = 0;
		return -EINVAL;
	}
	if (srq->r != NULL)
		return vuser_rsrq_post_recv(d, &srq->rq, srq->r, wr, n, bad);
	return vuser_post_recv_wq(d, &srq->rq, wr, n, bad, srq);
}

void
vuser_srq_rearm(struct vuser_srq *srq)
{
	struct vuser_vring *vr = &srq->rq.vq->ring;

	/*
	 * Fewer than limit WRs remain once the used index passes the avail
	 * index minus limit; without EVENT_IDX every used chain notifies.
	 */
	if (srq->limit != 0)
		vuser_vring_notify_at(vr, (uint16_t)(vr->avail_idx - srq->limit));
}

static uint32_t
count(struct vuser_srq *srq)
{
	struct vuser_vring *vr;

	if (srq->r != NULL)
		return srq->r->prod -
				le32toh(__atomic_load_n(&srq->r->rec->cons, __ATOMIC_ACQUIRE));
	vr = &srq->rq.vq->ring;

	return (uint16_t)(vr->avail_idx -
			le16toh(__atomic_load_n(&vr->used->idx, __ATOMIC_ACQUIRE)));
}

int
vur_user_arm_srq(struct vur_user_dev *d, uint32_t srqn, uint32_t srq_limit)
{
	struct vuser_srq *srq = d != NULL ? vuser_srq_get(d, srqn) : NULL;

	if (srq == NULL || srq_limit > srq->rq.max_wr)
		return -EINVAL;
	pthread_mutex_lock(&srq->rq.lock);
	srq->limit = srq_limit;
	if (srq->r != NULL) {
		/* ROCE-DEV-RING-17: armed in the record; the device clears it as it reports */
		pthread_mutex_lock(&d->rings.ev_lock);
		srq->r->limit_hit = false;
		pthread_mutex_unlock(&d->rings.ev_lock);
		__atomic_store_n(&srq->r->rec->limit, htole32(srq_limit), __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} else if (srq_limit != 0)
		vuser_srq_rearm(srq);
	else
		vuser_vring_disable_notify(&srq->rq.vq->ring);
	pthread_mutex_unlock(&srq->rq.lock);
	return 0;
}

/* The event thread saw SRQ_LIMIT: once per arming. */
static int
rsrq_limit_reached(struct vur_user_dev *d, struct vuser_srq *srq)
{
	uint64_t n;
	int ret;

	pthread_mutex_lock(&srq->rq.lock);
	pthread_mutex_lock(&d->rings.ev_lock);
	if (srq->r->ev_fd >= 0 && read(srq->r->ev_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		VUSER_LOG(ERR, d->name, "SRQ eventfd: %s", strerror(errno));
	ret = srq->r->limit_hit ? 1 : 0;
	srq->r->limit_hit = false;
	pthread_mutex_unlock(&d->rings.ev_lock);
	if (ret == 1)
		srq->limit = 0;
	pthread_mutex_unlock(&srq->rq.lock);
	return ret;
}

int
vur_user_srq_limit_reached(struct vur_user_dev *d, uint32_t srqn)
{
	struct vuser_srq *srq = d != NULL ? vuser_srq_get(d, srqn) : NULL;
	uint64_t n;
	int ret = 0;

	if (srq == NULL)
		return -EINVAL;
	if (srq->r != NULL)
		return rsrq_limit_reached(d, srq);
	pthread_mutex_lock(&srq->rq.lock);
	if (read(srq->rq.vq->call_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		ret = -errno;
	/* counted after the arming and after each notification */
	if (ret == 0 && srq->limit != 0 && count(srq) < srq->limit) {
		srq->limit = 0;
		vuser_vring_disable_notify(&srq->rq.vq->ring);
		ret = 1;
	}
	pthread_mutex_unlock(&srq->rq.lock);
	return ret;
}

int
vur_user_srq_event_fd(const struct vur_user_dev *d, uint32_t srqn)
{
	struct vuser_srq *srq = d != NULL ? vuser_srq_get(d, srqn) : NULL;
	struct vur_user_dev *dd = (struct vur_user_dev *)(uintptr_t)d;
	int fd;

	if (srq != NULL && srq->r != NULL) {
		pthread_mutex_lock(&dd->rings.ev_lock);
		if (srq->r->ev_fd < 0)
			srq->r->ev_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (srq->r->ev_fd >= 0 && srq->r->limit_hit)
			eventfd_write(srq->r->ev_fd, 1);
		fd = srq->r->ev_fd >= 0 ? srq->r->ev_fd : -errno;
		pthread_mutex_unlock(&dd->rings.ev_lock);
		return fd;
	}
	return srq != NULL ? srq->rq.vq->call_fd : -EINVAL;
}

int
vur_user_query_srq(struct vur_user_dev *d, uint32_t srqn, struct vur_user_srq_attr *attr,
		uint32_t *wrs)
{
	struct vuser_srq *srq = d != NULL ? vuser_srq_get(d, srqn) : NULL;

	if (srq == NULL || attr == NULL)
		return -EINVAL;
	pthread_mutex_lock(&srq->rq.lock);
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	if (wrs != NULL)
		*wrs = count(srq);
	pthread_mutex_unlock(&srq->rq.lock);
	return 0;
}
