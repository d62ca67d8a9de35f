/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues on the data path. The QPs created on an SRQ take
 * its WRs one per message, in the order the driver made them available
 * (ROCE-DEV-SRQ-9), under the SRQ's lock: their packets are delivered by
 * whichever data-path thread receives them, so binding the QPs of an SRQ
 * to one thread would not keep the others out. The lock is a ticket lock
 * taken through vur_tp_lock(), left out with one data-path thread, as for
 * QPs and CQs.
 *
 * A WR's buffer goes used after its CQE (ROCE-DEV-SRQ-10). The QPs of an
 * SRQ complete on several threads, and a thread publishes every entry of
 * a ring filled so far: a WR pushed at once could be published by another
 * thread before its CQE is. So the push waits in the calling thread's
 * list until it has published its CQEs (vur_tp_srq_settle). WRs go used in
 * the order they complete (ROCE-DEV-WR-6 is for QPs' own queues);
 * VIRTIO_F_IN_ORDER, which would forbid that (ROCE-DEV-SRQ-11), is never
 * offered by this device.
 */
#include <errno.h>
#include <stdlib.h>

#include "rdma/rdma_ops.h"
#include "transport/tp.h"

/*
 * ROCE-DEV-RING-17: an SRQ on rings whose driver armed a limit, now with
 * fewer WRs available than it: the limit is cleared (compare-and-swap from
 * the value read, so a re-arm meanwhile stands) and SRQ_LIMIT posted.
 */
static void
limit_check(struct vur_tp_dev *td, struct vur_tp_srq *s)
{
	uint32_t *limit = vur_tp_drv_rec(
			td, &s->ring.dr, offsetof(struct virtio_rdma_srq_rec, limit));
	uint32_t v, armed;

	if (limit == NULL)
		return;
	v = __atomic_load_n(limit, __ATOMIC_ACQUIRE);
	armed = rte_le_to_cpu_32(v);
	if (armed == 0 || vur_tp_drv_avail(td, &s->ring) >= armed)
		return;
	if (__atomic_compare_exchange_n(limit, &v, 0, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		vur_tp_event_post(td, s->srq->rings->q, &s->ev_limit);
}

enum vur_pop_result
vur_tp_srq_pop(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_chain *chain,
		const char **why)
{
	struct vur_tp_srq *s = t->srq;
	enum vur_pop_result res = VUR_POP_BROKEN;

	*why = "it is broken";
	vur_tp_lock(&s->lock);
	if (!s->ring.active) {
		res = VUR_POP_EMPTY;
	} else if (!s->ring.broken) {
		res = vur_tp_ring_pop(td, &s->ring, chain, why);
		if (res == VUR_POP_OK && s->ring.drv)
			limit_check(td, s);
		if (res == VUR_POP_BROKEN) {
			s->ring.broken = true;
			VUR_TP_LOG(td, ERR, "SRQ %u: virtqueue broken: %s", s->srq->obj.index,
					*why);
		}
	}
	vur_tp_unlock(&s->lock);
	return res;
}

static void
push_now(struct vur_tp_dev *td, struct vur_tp_srq *s, uint16_t head)
{
	vur_tp_lock(&s->lock);
	if (s->ring.active)
		vur_tp_ring_push(td, &s->ring, head, 0);
	vur_tp_unlock(&s->lock);
}

void
vur_tp_srq_push(struct vur_tp_dev *td, struct vur_tp_srq *s, uint16_t head)
{
	struct vur_tp_self *self = vur_tp_self();

	/*
	 * More than a burst of completions before the thread publishes: the
	 * ones that wait go onto their rings now, which another thread may
	 * publish before these CQEs, as with the receive queue of a QP.
	 */
	if (self->n_srq_used == VUR_TP_SRQ_USED)
		vur_tp_srq_settle(td);
	self->srq_used[self->n_srq_used++] = (struct vur_tp_srq_used){ .s = s, .head = head };
}

void
vur_tp_srq_settle(struct vur_tp_dev *td)
{
	struct vur_tp_self *self = vur_tp_self();

	for (uint16_t i = 0; i < self->n_srq_used; i++)
		push_now(td, self->srq_used[i].s, self->srq_used[i].head);
	self->n_srq_used = 0;
}

int
vur_tp_srq_bind(void *arg, struct vur_rdma_srq *srq)
{
	struct vur_tp_srq *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	rte_ticketlock_init(&s->lock);
	s->srq = srq;
	vur_tp_ring_bind(&s->ring, srq->vq, &s->lock);
	if (srq->rings != NULL) {
		vur_tp_drv_bind(&s->ring, &srq->rings->ring[0], &srq->rings->rec,
				offsetof(struct virtio_rdma_srq_rec, prod),
				offsetof(struct virtio_rdma_srq_rec, cons));
		s->ring.dr.srq_done = calloc(((1u << srq->rings->ring[0].log_size) + 63) / 64, 8);
		if (s->ring.dr.srq_done == NULL) {
			free(s);
			return -ENOMEM;
		}
		s->ev_limit.type = VIRTIO_RDMA_EV_SRQ_LIMIT;
		s->ev_limit.number = srq->obj.index;
	}
	srq->tp = s;
	/* no kick watched: its WRs are taken when messages come, not when posted */
	vur_tp_ring_activate(arg, &s->ring, false);
	return 0;
}

void
vur_tp_srq_unbind(void *arg, struct vur_rdma_srq *srq)
{
	struct vur_tp_dev *td = arg;
	struct vur_tp_srq *s = srq->tp;
	struct vur_chain chain;
	enum vur_pop_result res;
	const char *why;

	if (s == NULL)
		return;
	/*
	 * ROCE-DEV-SRQ-8: no QP is on it, so no WR is taken; what is still
	 * available goes back used, length 0, no CQE, before the command ends.
	 */
	vur_tp_srq_settle(td);
	while (s->ring.active && !s->ring.broken) {
		if (s->ring.drv) /* ROCE-DEV-RING-20: nothing written back, never touched again */
			break;
		res = vur_split_ring_pop(&s->ring.ring, td->mem, &chain, &why);
		if (res != VUR_POP_OK && res != VUR_POP_BAD_CHAIN)
			break;
		vur_tp_ring_push(td, &s->ring, chain.head, 0);
	}
	vur_tp_publish(td);
	/* ROCE-DEV-LIFE-5: not touched again */
	vur_tp_ring_deactivate(td, &s->ring);
	if (s->ring.drv)
		vur_tp_event_cancel(td, srq->rings->q, &s->ev_limit);
	free(s->ring.dr.srq_done);
	free(s);
	srq->tp = NULL;
}

static void
start_one(void *obj, void *arg)
{
	struct vur_rdma_srq *srq = obj;

	if (srq->tp != NULL)
		vur_tp_ring_activate(arg, &srq->tp->ring, false);
}

static void
stop_one(void *obj, void *arg)
{
	struct vur_rdma_srq *srq = obj;

	if (srq->tp != NULL)
		vur_tp_ring_deactivate(arg, &srq->tp->ring);
}

void
vur_tp_srq_start(struct vur_tp_dev *td)
{
	if (td->rd->srqs.objs != NULL)
		vur_pool_foreach(&td->rd->srqs, start_one, td);
}

void
vur_tp_srq_stop(struct vur_tp_dev *td)
{
	if (td->rd->srqs.objs != NULL)
		vur_pool_foreach(&td->rd->srqs, stop_one, td);
}
