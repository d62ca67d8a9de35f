/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <linux/virtio_net_roce.h>

#include "port/speed_policy.h"

static uint64_t
to_units(uint64_t mbps)
{
	uint64_t units = mbps / VIRTIO_NET_ROCE_SPEED_UNIT_MBPS;

	return mbps != 0 && units == 0 ? 1 : units;
}

void
vur_speed_compute(const struct vur_port_member *m, uint16_t n, bool admin_up,
		uint64_t loopback_mbps, struct vur_speed_result *r)
{
	uint64_t up_mbps = 0, max_mbps = 0;
	uint16_t i;

	memset(r, 0, sizeof(*r));
	r->total = n;
	for (i = 0; i < n; i++) {
		max_mbps += m[i].max_mbps;
		if (m[i].up) {
			r->active++;
			up_mbps += m[i].speed_mbps;
		}
	}
	if (!admin_up) {
		r->flags = VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN;
		return;
	}
	r->link_up = true;
	if (n == 0) {
		r->speed = to_units(loopback_mbps);
		r->flags = VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK;
	} else if (r->active == 0) {
		r->speed = to_units(max_mbps);
		r->flags = VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK;
	} else {
		r->speed = to_units(up_mbps);
		r->flags = r->active > 1 ? VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED : 0;
	}
}

bool
vur_speed_changed(const struct vur_speed_result *a, const struct vur_speed_result *b)
{
	return a->speed != b->speed || a->flags != b->flags || a->link_up != b->link_up;
}
