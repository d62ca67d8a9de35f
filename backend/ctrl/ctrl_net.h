/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The standard virtio-net control commands (virtio 1.3, 5.1.6.5): classes
 * RX, MAC, VLAN, ANNOUNCE and MQ (VQ_PAIRS_SET only; RSS is not offered).
 * The handlers' context is the device's struct vur_ctrl_target; they act
 * on its @net state.
 */
#ifndef VUR_CTRL_NET_H
#define VUR_CTRL_NET_H

#include <linux/virtio_net.h>

#include "ctrl/ctrl_dispatch.h"

#define VUR_CTRL_NET_MAX_CMDS 12

/* Every feature bit some command below needs; a device offering them serves them all. */
#define VUR_NET_CTRL_FEATURES                                                               \
	((1ULL << VIRTIO_NET_F_CTRL_RX) | (1ULL << VIRTIO_NET_F_CTRL_VLAN) |                \
			(1ULL << VIRTIO_NET_F_CTRL_RX_EXTRA) |                              \
			(1ULL << VIRTIO_NET_F_GUEST_ANNOUNCE) | (1ULL << VIRTIO_NET_F_MQ) | \
			(1ULL << VIRTIO_NET_F_CTRL_MAC_ADDR))

/* Fill @cmds (VUR_CTRL_NET_MAX_CMDS entries) with the commands; returns the count. */
unsigned int vur_ctrl_net_commands(struct vur_ctrl_cmd *cmds);

#endif /* VUR_CTRL_NET_H */
