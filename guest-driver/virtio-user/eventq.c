/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event queues rdma_eventqK (ROCE-DRV-RING-6): device-writable buffers
 * of one struct virtio_rdma_event each, kept available; a thread of the
 * library takes the events as a guest's interrupt handler would and hands
 * them on: CQ_COMP to the CQ's completion event descriptor, SRQ_LIMIT to
 * the SRQ's limit descriptor, CQ_ERR as an asynchronous event
 * (VUR_USER_ASYNC_CQ_ERR). Each buffer is made available again once its
 * event is taken, unless the buffers are held (vur_user_eq_hold()).
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "device.h"
#include "log.h"
#include "rdma_q.h"
#include "rings.h"
#include "virtqueue.h"
#include "vur_rings.h"

#define DEFAULT_EQ_BUFFERS 64
#define STOP_TAG           UINT32_MAX

void vuser_async_push(struct vur_user_dev *d, uint32_t type, uint32_t element);

static void
signal_fd(struct vur_user_dev *d, int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		VUSER_LOG(ERR, d->name, "event eventfd: %s", strerror(errno));
}

/* One event, ev_lock held. Numbers that name nothing of ours are logged and dropped. */
static void
dispatch(struct vur_user_dev *d, const struct virtio_rdma_event *e)
{
	uint32_t type = le32toh(e->type), num = le32toh(e->number);
	struct vuser_srq *srq;
	struct vuser_cq *cq;

	switch (type) {
	case VIRTIO_RDMA_EV_CQ_COMP:
		cq = vuser_cq_get(d, num);
		if (cq == NULL || cq->r == NULL)
			break;
		cq->r->n_comp++;
		if (cq->r->ev_fd >= 0)
			signal_fd(d, cq->r->ev_fd);
		else
			cq->r->ev_pending = true;
		return;
	case VIRTIO_RDMA_EV_CQ_ERR:
		cq = vuser_cq_get(d, num);
		if (cq == NULL || cq->r == NULL)
			break;
		cq->r->n_err++;
		cq->r->error = true;
		vuser_async_push(d, VUR_USER_ASYNC_CQ_ERR, num);
		return;
	case VIRTIO_RDMA_EV_SRQ_LIMIT:
		srq = vuser_srq_get(d, num);
		if (srq == NULL || srq->r == NULL)
			break;
		srq->r->n_limit++;
		srq->r->limit_hit = true;
		signal_fd(d, srq->r->ev_fd);
		return;
	default:
		break;
	}
	VUSER_LOG(WARNING, d->name, "event type %u for %u: no such object on rings", type, num);
}

static void
give(struct vuser_eq *q, void *buf)
{
	struct vuser_sg sg = {
		.addr = q->bufs.gpa + (uint64_t)((uint8_t *)buf - (uint8_t *)q->bufs.hva),
		.len = sizeof(struct virtio_rdma_event),
	};

	vuser_vring_add(&q->vq->ring, &sg, 0, 1, buf);
}

static void
publish(struct vuser_eq *q)
{
	if (vuser_vring_publish(&q->vq->ring))
		vuser_vq_kick(q->vq);
}

/* Take every event of @q (ev_lock held). */
static void
drain(struct vur_user_dev *d, struct vuser_eq *q)
{
	struct vuser_vring *vr = &q->vq->ring;
	void *buf;
	uint32_t len;
	int ret;

	do {
		while ((ret = vuser_vring_get_used(vr, &buf, &len)) == 1) {
			if (len >= sizeof(struct virtio_rdma_event))
				dispatch(d, buf);
			else
				VUSER_LOG(ERR, d->name, "event queue: %u bytes written", len);
			if (d->rings.hold)
				q->held[q->n_held++] = buf;
			else
				give(q, buf);
		}
		if (ret < 0) {
			VUSER_LOG(ERR, d->name, "event queue vq %u broken", q->vq->index);
			return;
		}
		publish(q);
	} while (vuser_vring_enable_notify(vr));
}

static void *
eq_thread(void *arg)
{
	struct vur_user_dev *d = arg;
	struct vuser_rings *r = &d->rings;
	struct epoll_event evs[8];
	uint64_t count;
	int n;

	for (;;) {
		n = epoll_wait(r->epoll_fd, evs, 8, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			VUSER_LOG(ERR, d->name, "event queues: epoll_wait: %s", strerror(errno));
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;

			if (k == STOP_TAG)
				return NULL;
			if (read(r->eqs[k].vq->call_fd, &count, sizeof(count)) < 0 &&
					errno != EAGAIN)
				VUSER_LOG(ERR, d->name, "event queue: %s", strerror(errno));
			pthread_mutex_lock(&r->ev_lock);
			drain(d, &r->eqs[k]);
			pthread_mutex_unlock(&r->ev_lock);
		}
	}
}

static int
eq_init(struct vur_user_dev *d, struct vuser_eq *q, uint32_t vq)
{
	uint32_t n = d->params.eq_buffers ? d->params.eq_buffers : DEFAULT_EQ_BUFFERS;
	const size_t sz = sizeof(struct virtio_rdma_event);
	int ret;

	q->vq = &d->vqs[vq];
	if (n > q->vq->ring.num)
		n = q->vq->ring.num;
	q->n = n;
	q->held = calloc(n, sizeof(q->held[0]));
	if (q->held == NULL)
		return -ENOMEM;
	ret = vuser_mem_alloc(&d->mem, n * sz, VUSER_PAGE_SIZE, &q->bufs);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < n; i++)
		give(q, (uint8_t *)q->bufs.hva + i * sz);
	vuser_vring_enable_notify(&q->vq->ring);
	publish(q);
	return 0;
}

int
vuser_eq_start(struct vur_user_dev *d)
{
	struct vuser_rings *r = &d->rings;
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	r->eqs = calloc(r->k, sizeof(r->eqs[0]));
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	r->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->eqs == NULL)
		return -ENOMEM;
	if (r->epoll_fd < 0 || r->stop_fd < 0)
		return -errno;
	ev.data.u32 = STOP_TAG;
	if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->stop_fd, &ev) < 0)
		return -errno;
	for (uint32_t k = 0; k < r->k; k++) {
		ret = eq_init(d, &r->eqs[k], r->first_vq + 2 * k + 1);
		if (ret < 0)
			return ret;
		ev.data.u32 = k;
		if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->eqs[k].vq->call_fd, &ev) < 0)
			return -errno;
	}
	ret = pthread_create(&r->thread, NULL, eq_thread, d);
	if (ret != 0)
		return -ret;
	r->thread_on = true;
	return 0;
}

void
vuser_eq_stop(struct vur_user_dev *d)
{
	struct vuser_rings *r = &d->rings;

	if (r->thread_on) {
		signal_fd(d, r->stop_fd);
		pthread_join(r->thread, NULL);
		r->thread_on = false;
	}
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	if (r->stop_fd >= 0)
		close(r->stop_fd);
	r->epoll_fd = r->stop_fd = -1;
	for (uint32_t k = 0; r->eqs != NULL && k < r->k; k++) {
		free(r->eqs[k].held);
		if (r->eqs[k].bufs.hva != NULL)
			vuser_mem_free(&d->mem, &r->eqs[k].bufs);
	}
	free(r->eqs);
	r->eqs = NULL;
}

int
vur_user_eq_hold(struct vur_user_dev *d, bool hold)
{
	struct vuser_rings *r = d != NULL ? &d->rings : NULL;

	if (r == NULL || !r->available)
		return -EINVAL;
	pthread_mutex_lock(&r->ev_lock);
	r->hold = hold;
	if (!hold)
		for (uint32_t k = 0; k < r->k; k++) {
			struct vuser_eq *q = &r->eqs[k];

			while (q->n_held > 0)
				give(q, q->held[--q->n_held]);
			publish(q);
		}
	pthread_mutex_unlock(&r->ev_lock);
	return 0;
}
