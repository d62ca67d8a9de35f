/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bound RDMA virtqueues. A ring binds in its initial state (indices 0,
 * ROCE-DEV-LIFE-2); it is served while the engine runs and librte_vhost
 * reports it ready, and keeps its indices across stops (a paused VM, a
 * memory remap), handing them to librte_vhost for GET_VRING_BASE.
 */
#include <string.h>

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
	if (r->kick_watched)
		vur_switch_unwatch_rdma_kick(td->nd->sw, td->nd->slot, &r->kick_ev);
	r->kick_watched = false;
	r->active = false;
	rte_vhost_set_vring_base(td->vid, (uint16_t)r->vq, r->ring.last_avail, r->ring.used_idx);
	r->callfd = r->kickfd = -1;
}
