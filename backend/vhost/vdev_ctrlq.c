/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_vhost.h>

#include "common/log.h"
#include "vhost/vdev_ctrlq.h"

#define EVENT_IDX_BIT 29 /* VIRTIO_RING_F_EVENT_IDX */

void
vur_ctrlq_init(struct vur_ctrlq *q, pthread_rwlock_t *lock, const char *name,
		struct vur_event_loop *loop)
{
	memset(q, 0, sizeof(*q));
	q->lock = lock;
	q->name = name;
	q->loop = loop;
	q->watch.fd = -1;
}

static void
answer(struct vur_ctrlq *q, const struct vur_chain *chain)
{
	struct vur_ctrl_result res;

	vur_ctrl_dispatch(q->table, q->ctx, q->negotiated, chain, &res);
	q->stats.requests++;
	if (res.ack != VIRTIO_NET_OK) {
		q->stats.errors++;
		q->stats.rejects[res.reject]++;
	}
	/* A refusing handler has logged its reason already. */
	if (res.ack != VIRTIO_NET_OK && res.reject != VUR_CTRL_REJ_HANDLER) {
		VUR_LOG_LIMITED(&q->log_rl, q->name, vhost, NOTICE, "ctrl %s: %s",
				res.cmd != NULL ? res.cmd->name : "?",
				vur_ctrl_reject_name(res.reject));
	}
	vur_split_ring_push(&q->ring, chain->head, res.written);
}

/* Drain the ring. Called on the control thread with the device lock held. */
static void
process(struct vur_ctrlq *q)
{
	struct vur_chain chain;
	const char *why;
	bool pushed = false;

	for (;;) {
		switch (vur_split_ring_pop(&q->ring, q->mem, &chain, &why)) {
		case VUR_POP_EMPTY:
			goto notify;
		case VUR_POP_OK:
			answer(q, &chain);
			pushed = true;
			break;
		case VUR_POP_BAD_CHAIN:
			q->stats.bad_chains++;
			VUR_LOG_LIMITED(&q->log_rl, q->name, vhost, NOTICE, "ctrl: %s", why);
			vur_split_ring_push(&q->ring, chain.head, 0);
			pushed = true;
			break;
		case VUR_POP_BROKEN:
			q->stats.broken++;
			VUR_LOG_LIMITED(&q->log_rl, q->name, vhost, ERR, "control queue broken: %s",
					why);
			goto notify;
		}
	}
notify:
	if (pushed && q->callfd >= 0 && vur_split_ring_need_notify(&q->ring))
		eventfd_write(q->callfd, 1);
}

static void
on_kick(int fd, void *arg)
{
	struct vur_ctrlq *q = arg;
	eventfd_t n;

	/* Clear the kick first: a kick after this read wakes us again. */
	if (eventfd_read(fd, &n) < 0 && errno != EAGAIN)
		return;
	pthread_rwlock_wrlock(q->lock);
	if (q->active)
		process(q);
	pthread_rwlock_unlock(q->lock);
	if (q->after != NULL)
		q->after(q->after_arg);
}

int
vur_ctrlq_start(struct vur_ctrlq *q, int vid, uint16_t qid, uint64_t negotiated,
		const struct vur_ctrl_table *table, void *ctx)
{
	struct rte_vhost_vring vr;
	uint16_t last_avail, last_used;
	int ret;

	if (rte_vhost_get_vhost_vring(vid, qid, &vr) != 0 || vr.desc == NULL || vr.size == 0 ||
			rte_vhost_get_vring_base(vid, qid, &last_avail, &last_used) != 0)
		return -EINVAL;
	if (rte_vhost_get_mem_table(vid, &q->mem) != 0)
		return -ENOMEM;
	if (!vur_split_ring_in_mem(q->mem, vr.size, vr.desc, vr.avail, vr.used,
			    negotiated & (1ULL << EVENT_IDX_BIT))) {
		free(q->mem);
		q->mem = NULL;
		return -EINVAL;
	}
	q->vid = vid;
	q->qid = qid;
	q->callfd = vr.callfd;
	q->table = table;
	q->ctx = ctx;
	q->negotiated = negotiated;
	vur_split_ring_init(&q->ring, vr.size, vr.desc, vr.avail, vr.used, last_avail, last_used,
			negotiated & (1ULL << EVENT_IDX_BIT));
	q->watch = (struct vur_event_watch){ .fd = vr.kickfd, .cb = on_kick, .arg = q };
	ret = vur_event_loop_watch(q->loop, &q->watch);
	if (ret < 0) {
		free(q->mem);
		q->mem = NULL;
		return ret;
	}
	q->active = true;
	/* Requests made before we watched the kick fd would wait for the next kick. */
	eventfd_write(vr.kickfd, 1);
	return 0;
}

void
vur_ctrlq_stop(struct vur_ctrlq *q)
{
	if (!q->active)
		return;
	q->active = false;
	vur_event_loop_unwatch(q->loop, &q->watch);
	rte_vhost_set_vring_base(q->vid, q->qid, q->ring.last_avail, q->ring.used_idx);
	free(q->mem);
	q->mem = NULL;
}
