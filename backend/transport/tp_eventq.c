/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queues (issue 28): CQ_COMP, SRQ_LIMIT and CQ_ERR of objects on
 * rings, one struct virtio_rdma_event per device-writable buffer of
 * rdma_eventq(k+1), used with length 16 and notified as any used buffer
 * (ROCE-DEV-RING-18). With no buffer the event waits, in order, in the
 * queue's pending list and goes when the driver gives buffers: the
 * queue's kick wakes its thread, which drains it (ROCE-DEV-RING-18). Each
 * object owns its events and one is queued at most once, so the list is
 * bounded by the objects and no event is lost (a second CQ_COMP while the
 * first waits says nothing new). Any thread posts, under the queue's lock
 * (a leaf: taken with a CQ's or an SRQ's held).
 */
#include <string.h>

#include "transport/tp.h"

/* Into the next buffer; false when there is none (lock held). */
static bool
write_one(struct vur_tp_dev *td, struct vur_tp_rq *q, const struct vur_tp_event *ev)
{
	struct virtio_rdma_event e = {
		.type = rte_cpu_to_le_32(ev->type),
		.number = rte_cpu_to_le_32(ev->number),
	};
	struct vur_chain chain;
	const char *why;

	if (!q->eq.active || q->eq.broken)
		return false;
	for (;;) {
		switch (vur_split_ring_pop(&q->eq.ring, td->mem, &chain, &why)) {
		case VUR_POP_EMPTY:
			return false;
		case VUR_POP_BROKEN:
			q->eq.broken = true;
			VUR_TP_LOG(td, ERR, "event queue: broken: %s", why);
			return false;
		case VUR_POP_BAD_CHAIN:
			vur_tp_ring_push(td, &q->eq, chain.head, 0);
			continue;
		case VUR_POP_OK:
			break;
		}
		if (chain.n_out != 0 ||
				chain.in_len < sizeof(e)) { /* not for events: used, empty */
			vur_tp_ring_push(td, &q->eq, chain.head, 0);
			continue;
		}
		vur_chain_write(&chain, 0, &e, sizeof(e));
		vur_tp_ring_push(td, &q->eq, chain.head, sizeof(e));
		vur_tp_stats(td)->ring_events++;
		return true;
	}
}

void
vur_tp_event_post(struct vur_tp_dev *td, uint16_t eq, struct vur_tp_event *ev)
{
	struct vur_tp_rq *q;

	if (eq >= td->n_rq)
		return;
	q = &td->rq[eq];
	vur_tp_lock(&q->lock);
	if (!ev->queued && (!TAILQ_EMPTY(&q->pending) || !write_one(td, q, ev))) {
		ev->queued = true;
		TAILQ_INSERT_TAIL(&q->pending, ev, next);
		__atomic_store_n(&q->n_pending, q->n_pending + 1, __ATOMIC_RELEASE);
		vur_tp_stats(td)->ring_events_waited++;
	}
	vur_tp_unlock(&q->lock);
}

void
vur_tp_events_drain(struct vur_tp_dev *td, unsigned int dp)
{
	struct vur_tp_event *ev;

	for (uint32_t k = 0; k < td->n_rq; k++) {
		struct vur_tp_rq *q = &td->rq[k];

		if (q->dp != dp || __atomic_load_n(&q->n_pending, __ATOMIC_ACQUIRE) == 0)
			continue;
		vur_tp_lock(&q->lock);
		while ((ev = TAILQ_FIRST(&q->pending)) != NULL && write_one(td, q, ev)) {
			TAILQ_REMOVE(&q->pending, ev, next);
			ev->queued = false;
			__atomic_store_n(&q->n_pending, q->n_pending - 1, __ATOMIC_RELEASE);
		}
		vur_tp_unlock(&q->lock);
	}
}

void
vur_tp_event_cancel(struct vur_tp_dev *td, uint16_t eq, struct vur_tp_event *ev)
{
	if (!ev->queued || eq >= td->n_rq)
		return;
	TAILQ_REMOVE(&td->rq[eq].pending, ev, next);
	td->rq[eq].n_pending--;
	ev->queued = false;
}

uint32_t
vur_tp_events_pending(const struct vur_tp_dev *td)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < td->n_rq; k++)
		n += __atomic_load_n(&td->rq[k].n_pending, __ATOMIC_RELAXED);
	return n;
}
