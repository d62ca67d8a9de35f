/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bound RDMA virtqueues. A ring binds in its initial state (indices 0,
 * ROCE-DEV-LIFE-2); it is served while the engine runs and librte_vhost
 * reports it ready, and keeps its indices across stops (a paused VM, a
 * memory remap), handing them to librte_vhost for GET_VRING_BASE.
 */
#include <string.h>
#include <sys/eventfd.h>

#include <rte_vhost.h>

#include "net/net_dev.h"
#include "net/net_switch.h"
#include "transport/tp.h"

void
vur_tp_ring_bind(struct vur_tp_ring *r, uint32_t vq, rte_ticketlock_t *lock)
{
	memset(r, 0, sizeof(*r)); /* a virtqueue; vur_tp_drv_bind() after it for a ring */
	r->vq = vq;
	r->callfd = r->kickfd = -1;
	r->lock = lock;
}

/*
 * The ring waits for the calling thread's vur_tp_publish(). Each thread
 * lists a ring once (its bit in r->dirty, under the ring's lock), and the
 * list holds every ring of a device, so it never fills before the publish.
 */
static void
mark_dirty(struct vur_tp_ring *r)
{
	struct vur_tp_self *self = vur_tp_self();
	uint32_t bit = 1u << self->shard;

	if (r->dirty & bit)
		return;
	RTE_VERIFY(self->n_dirty < VUR_TP_DIRTY_MAX);
	r->dirty |= bit;
	self->dirty[self->n_dirty++] = r;
}

void
vur_tp_ring_push(struct vur_tp_dev *td, struct vur_tp_ring *r, uint16_t head, uint32_t len)
{
	RTE_SET_USED(td);
	if (r->drv) /* the entry is free for the driver: its index goes out with the pass */
		vur_tp_drv_retire(r, head);
	else
		vur_split_ring_push_later(&r->ring, head, len);
	mark_dirty(r);
}

void
vur_tp_ring_notify_cq(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	RTE_SET_USED(td);
	r->notify_cq = true;
	mark_dirty(r);
}

/*
 * Another thread may have pushed to the ring too since: its entries are
 * complete (pushed under the lock), and go out with ours, which is early,
 * never late, for its ROCE-DEV-WR-5 order.
 */
static void
publish(struct vur_tp_dev *td, struct vur_tp_ring *r, uint32_t bit)
{
	vur_tp_lock(r->lock);
	r->dirty &= ~bit;
	if (r->drv) {
		if (r->active)
			vur_tp_drv_publish(td, r);
		vur_tp_unlock(r->lock);
		return;
	}
	vur_split_ring_publish(&r->ring);
	if (r->is_cq) {
		/* ROCE-DEV-NOTIFY-3, -4: one-shot, whatever the driver's suppression says */
		if (r->notify_cq && r->callfd >= 0)
			eventfd_write(r->callfd, 1);
		r->notify_cq = false;
	} else if (r->callfd >= 0 && vur_split_ring_need_notify(&r->ring)) {
		eventfd_write(r->callfd, 1);
	}
	vur_tp_unlock(r->lock);
}

void
vur_tp_publish(struct vur_tp_dev *td)
{
	struct vur_tp_self *self = vur_tp_self();
	uint32_t bit = 1u << self->shard;

	/*
	 * ROCE-DEV-WR-14: a send WR's slot is free before its CQE is seen, so
	 * that a driver that polls a CQE and posts at once finds the room
	 * (perftest's ib_atomic_lat did not, under TCG). Receive WRs go used
	 * after their CQEs (ROCE-DEV-SRQ-10). Another data-path thread that
	 * publishes the same CQ meanwhile may still show a CQE a moment early:
	 * hence a SHOULD, and drivers wait a little on a full queue.
	 */
	uint16_t n_sq = self->n_dirty; /* send queues listed later were pushed to since */

	for (uint16_t i = 0; i < n_sq; i++)
		if (self->dirty[i]->is_sq)
			publish(td, self->dirty[i], bit);
	vur_tp_cq_settle(td);
	for (uint16_t i = 0; i < self->n_dirty; i++)
		if (self->dirty[i]->is_cq)
			publish(td, self->dirty[i], bit);
	vur_tp_srq_settle(td); /* SRQ WRs whose CQEs went just now (tp_srq.c) */
	/* the rest, and send queues that QPs settled into ERR pushed to (listed again) */
	for (uint16_t i = 0; i < self->n_dirty; i++)
		if (!self->dirty[i]->is_cq && (!self->dirty[i]->is_sq || i >= n_sq))
			publish(td, self->dirty[i], bit);
	self->n_dirty = 0;
	if (self->wake != 0 && td->nd->sw != NULL)
		vur_switch_nudge(td->nd->sw, self->wake);
	self->wake = 0;
}

bool
vur_tp_ring_moved(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	if (r->drv)
		return vur_tp_drv_moved(td, r);
	return r->active && vur_split_ring_has_avail(&r->ring);
}

void
vur_tp_ring_activate(struct vur_tp_dev *td, struct vur_tp_ring *r, bool kick)
{
	struct vur_rdma_dev *rd = td->rd;
	struct rte_vhost_vring vr;
	uint16_t avail = 0, used = 0;
	uint64_t features = 0;

	if (r->drv) { /* nothing of librte_vhost's: served while the engine is */
		r->active = td->active && !r->broken;
		return;
	}
	if (r->active || r->broken || !td->active || rd->env.vq_size(rd->env.arg, r->vq) == 0)
		return;
	if (rte_vhost_get_vhost_vring(td->vid, (uint16_t)r->vq, &vr) != 0 || vr.desc == NULL ||
			vr.size == 0)
		return;
	if (r->started) {
		avail = r->ring.last_avail;
		used = r->ring.used_idx;
	}
	rte_vhost_get_negotiated_features(td->vid, &features);
	if (!vur_split_ring_in_mem(td->mem, vr.size, vr.desc, vr.avail, vr.used,
			    features & (1ULL << VIRTIO_RING_F_EVENT_IDX))) {
		VUR_TP_LOG(td, ERR, "vring %u: %u entries do not fit where it is: not served",
				r->vq, vr.size);
		return;
	}
	vur_split_ring_init(&r->ring, vr.size, vr.desc, vr.avail, vr.used, avail, used,
			features & (1ULL << VIRTIO_RING_F_EVENT_IDX));
	r->callfd = vr.callfd;
	r->kickfd = vr.kickfd;
	r->started = true;
	r->active = true;
	if (kick && td->nd->sw != NULL && r->kickfd >= 0)
		r->kick_watched = vur_switch_watch_rdma_kick(
						  td->nd->sw, r->dp, r->kickfd, &r->kick_ev) == 0;
}

void
vur_tp_ring_deactivate(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	if (!r->active)
		return;
	if (r->dirty) /* never between passes; the index handed over must count them */
		vur_tp_publish(td);
	if (r->drv) {
		r->active = false;
		return;
	}
	if (r->kick_watched)
		vur_switch_unwatch_rdma_kick(td->nd->sw, r->dp, &r->kick_ev);
	r->kick_watched = false;
	r->active = false;
	rte_vhost_set_vring_base(td->vid, (uint16_t)r->vq, r->ring.last_avail, r->ring.used_idx);
	r->callfd = r->kickfd = -1;
}
