/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the standard virtio-net control commands (virtio 1.3, 5.1.6.5) set
 * and a local switch consults: the receive filter, the MAC address, the MAC
 * and VLAN filter tables, the announce state and the active queue pairs.
 * One per device, reset with vur_net_state_init() on every device reset.
 */
#ifndef VUR_NET_STATE_H
#define VUR_NET_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/ratelimit.h"

#define VUR_NET_ALEN          6
#define VUR_NET_MAC_TABLE_LEN 64
#define VUR_NET_VLAN_IDS      4096

/*
 * Addresses of one kind (unicast or multicast) set by MAC_TABLE_SET. A
 * driver may set more than fit; the table then overflows and accepts every
 * address of its kind, as the spec's footnote allows and QEMU does: Linux
 * expects the command to succeed whatever the count.
 */
struct vur_net_mac_table {
	uint32_t n;
	bool overflow;
	uint8_t macs[VUR_NET_MAC_TABLE_LEN][VUR_NET_ALEN];
};

struct vur_net_state {
	uint8_t mac[VUR_NET_ALEN]; /* the device's configured MAC until MAC_ADDR_SET */
	bool promisc;
	bool allmulti;
	bool alluni;
	bool nomulti;
	bool nouni;
	bool nobcast;
	bool vlan_filter;      /* VIRTIO_NET_F_CTRL_VLAN negotiated */
	bool announce_pending; /* VIRTIO_NET_S_ANNOUNCE, set by the device owner */
	uint16_t max_pairs;
	uint16_t active_pairs;
	struct vur_net_mac_table uc;
	struct vur_net_mac_table mc;
	uint64_t vlans[VUR_NET_VLAN_IDS / 64];
	struct vur_ratelimit log_rl; /* the guest decides how often we log */
};

/*
 * The state after a device reset: promiscuous (QEMU's compatibility mode, so
 * a driver without VIRTIO_NET_F_CTRL_RX receives everything), empty tables,
 * one active queue pair. @max_pairs is clamped to 1..0x8000.
 */
void vur_net_state_init(
		struct vur_net_state *ns, const uint8_t mac[VUR_NET_ALEN], uint16_t max_pairs);

/* Apply the negotiated features: the VLAN filter applies only with CTRL_VLAN. */
void vur_net_state_set_features(struct vur_net_state *ns, uint64_t negotiated);

/*
 * Replace both MAC filter tables. -EINVAL, and nothing changed, when a
 * unicast entry has the group bit set or a multicast entry has not.
 */
int vur_net_state_set_mac_tables(struct vur_net_state *ns, const uint8_t *uc, uint32_t n_uc,
		const uint8_t *mc, uint32_t n_mc);

/* Add (@member) or remove VLAN @vid; -EINVAL for a vid above 4095. */
int vur_net_state_set_vlan(struct vur_net_state *ns, uint16_t vid, bool member);

/*
 * Whether a frame for @dmac passes the receive filter. @vid is the 12-bit
 * VLAN ID of a tagged frame (ignored when !@vlan_tagged).
 */
bool vur_net_state_accepts(const struct vur_net_state *ns, const uint8_t dmac[VUR_NET_ALEN],
		bool vlan_tagged, uint16_t vid);

#endif /* VUR_NET_STATE_H */
