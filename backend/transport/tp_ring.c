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
vur_tp_ring_bind(struct vur_tp_ring *r, uint32_t vq)
{
	memset(r, 0, sizeof(*r));
	r->vq = vq;
	r->callfd = r->kickfd = -1;
}

static void
mark_dirty(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	if (r->dirty)
		return;
	if (td->n_dirty == VUR_TP_DIRTY_MAX)
		vur_tp_publish(td);
	r->dirty = true;
	td->dirty[td->n_dirty++] = r;
}

void
vur_tp_ring_push(struct vur_tp_dev *td, struct vur_tp_ring *r, uint16_t head, uint32_t len)
{
	vur_split_ring_push_later(&r->ring, head, len);
	mark_dirty(td, r);
}

void
vur_tp_ring_notify_cq(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	r->notify_cq = true;
	mark_dirty(td, r);
}

static void
publish(struct vur_tp_ring *r)
{
	r->dirty = false;
	vur_split_ring_publish(&r->ring);
	if (r->is_cq) {
		/* ROCE-DEV-NOTIFY-3, -4: one-shot, whatever the driver's suppression says */
		if (r->notify_cq && r->callfd >= 0)
			eventfd_write(r->callfd, 1);
		r->notify_cq = false;
	} else if (r->callfd >= 0 && vur_split_ring_need_notify(&r->ring)) {
		eventfd_write(r->callfd, 1);
	}
}

void
vur_tp_publish(struct vur_tp_dev *td)
{
	for (uint16_t i = 0; i < td->n_dirty; i++)
		if (td->dirty[i]->is_cq)
			publish(td->dirty[i]);
	for (uint16_t i = 0; i < td->n_dirty; i++)
		if (td->dirty[i]->dirty)
			publish(td->dirty[i]);
	td->n_dirty = 0;
}

void
vur_tp_ring_activate(struct vur_tp_dev *td, struct vur_tp_ring *r, bool kick)
{
	struct vur_rdma_dev *rd = td->rd;
	struct rte_vhost_vring vr;
	uint16_t avail = 0, used = 0;
	uint64_t features = 0;

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
	vur_split_ring_init(&r->ring, vr.size, vr.desc, vr.avail, vr.used, avail, used,
			features & (1ULL << VIRTIO_RING_F_EVENT_IDX));
	r->callfd = vr.callfd;
	r->kickfd = vr.kickfd;
	r->started = true;
	r->active = true;
	if (kick && td->nd->sw != NULL && r->kickfd >= 0)
		r->kick_watched = vur_switch_watch_rdma_kick(td->nd->sw, td->nd->slot, r->kickfd,
						  &r->kick_ev) == 0;
}

void
vur_tp_ring_deactivate(struct vur_tp_dev *td, struct vur_tp_ring *r)
{
	if (!r->active)
		return;
	if (r->dirty) /* never between passes; the index handed over must count them */
		vur_tp_publish(td);
	if (r->kick_watched)
		vur_switch_unwatch_rdma_kick(td->nd->sw, td->nd->slot, &r->kick_ev);
	r->kick_watched = false;
	r->active = false;
	rte_vhost_set_vring_base(td->vid, (uint16_t)r->vq, r->ring.last_avail, r->ring.used_idx);
	r->callfd = r->kickfd = -1;
}
