/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The effective port speed of a device (the spec's "Effective Port Speed",
 * virtio-spec/virtio-net-roce.md): a pure function of its uplink members'
 * link states and speeds and of the device's administrative state, so that
 * every rule is unit-tested apart from link events and vhost-user.
 */
#ifndef VUR_SPEED_POLICY_H
#define VUR_SPEED_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/* One uplink member as the port manager sees it. */
struct vur_port_member {
	bool up;
	uint32_t speed_mbps; /* current: reported, or the declared nominal speed */
	uint32_t max_mbps;   /* what the member can do: its loopback share */
};

struct vur_speed_result {
	uint64_t speed;  /* 100 Mb/s units (roce_port_speed, ibv_query_port_speed) */
	uint32_t flags;  /* VIRTIO_RDMA_PORT_SPEED_F_* */
	bool link_up;    /* virtio-net status: VIRTIO_NET_S_LINK_UP */
	uint16_t active; /* members up */
	uint16_t total;  /* members */
};

/*
 * Compute the device's speed:
 *  - administratively down: 0, LINK_DOWN, link down;
 *  - no member at all: @loopback_mbps, LOOPBACK;
 *  - some member up: the sum of the members that are up (AGGREGATED when
 *    more than one);
 *  - every member down: the sum of the members' maximum speeds, LOOPBACK,
 *    since devices of this backend still reach each other.
 * A non-zero speed below 100 Mb/s reports 1 unit, never 0 (0 means down).
 */
void vur_speed_compute(const struct vur_port_member *members, uint16_t n, bool admin_up,
		uint64_t loopback_mbps, struct vur_speed_result *r);

/* Whether the guest must be told: speed, flags or link state differ. */
bool vur_speed_changed(const struct vur_speed_result *a, const struct vur_speed_result *b);

#endif /* VUR_SPEED_POLICY_H */
