/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's Ethernet port on the local switch: its receive and transmit
 * virtqueues (receiveq1 = vring 0, transmitq1 = vring 1) and their counters.
 *
 * Locking: everything here is under the device's lock. The device (the
 * vhost thread) starts and stops queues with it held; the data path takes
 * it for each burst and finds a stopped queue inactive, so after a stop
 * returns the data path touches neither the ring nor guest memory.
 */
#ifndef VUR_NET_DEV_H
#define VUR_NET_DEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/ratelimit.h"
#include "common/txrate.h"
#include "vring/split_ring.h"

#define VUR_NET_RX_VQ 0 /* receiveq1 */
#define VUR_NET_TX_VQ 1 /* transmitq1 */

struct rte_vhost_memory;
struct vur_addr_policy;
struct vur_net_state;
struct vur_rdma_dev;
struct vur_switch;
struct vur_tp_dev;

/* Why a frame to or from a device was dropped. */
enum vur_net_drop {
	VUR_NET_DROP_TX_BAD_CHAIN, /* unusable descriptors (split_ring said why) */
	VUR_NET_DROP_TX_BAD_LEN,   /* shorter than header + Ethernet header, or over the MTU */
	VUR_NET_DROP_TX_BAD_HDR,   /* GSO or checksum offload never negotiated */
	VUR_NET_DROP_TX_NO_MBUF,   /* packet buffers exhausted */
	VUR_NET_DROP_RX_NOT_READY, /* the receive queue is not ready */
	VUR_NET_DROP_RX_FILTERED,  /* the receive filter (RX mode, MAC, VLAN) refused it */
	VUR_NET_DROP_RX_NO_BUFFER, /* no receive buffers, or not enough for the frame */
	VUR_NET_DROP_RX_BAD_CHAIN, /* unusable receive descriptors */
	VUR_NET_DROP_RING_BROKEN,  /* a ring the driver corrupted */
	VUR_NET_DROP_LINK_DOWN,    /* the device's link is down: nothing in, nothing out */
	VUR_NET_DROP_RX_NO_MBUF,   /* no packet buffer to make an engine's packet whole */
	/* a source MAC not the device's (net_antispoof.h) */
	VUR_NET_DROP_TX_SPOOFED_MAC,
	/* a source IP outside the allowed set (likewise) */
	VUR_NET_DROP_TX_SPOOFED_IP,
	/* a tagged frame from a device on an access VLAN (net_vlan.h) */
	VUR_NET_DROP_TX_TAGGED,
	VUR_NET_DROP_COUNT
};

struct vur_net_dev_stats {
	uint64_t tx_frames; /* from the driver, accepted */
	uint64_t tx_bytes;
	uint64_t rx_frames; /* to the driver */
	uint64_t rx_bytes;
	uint64_t rx_buffers; /* receive buffers used (more than frames when merged) */
	uint64_t roce_rx;    /* RoCE v2 frames the RDMA engine took (ROCE-DEV-WIRE-3) */
	uint64_t drops[VUR_NET_DROP_COUNT];
};

/* One virtqueue the data path serves. */
struct vur_net_vq {
	bool active;
	bool broken_seen; /* the ring was found corrupt (counted once) */
	uint16_t qid;
	int callfd;
	int kickfd;
	struct rte_vhost_memory *mem; /* this queue's copy of the memory table */
	struct vur_split_ring ring;
};

struct vur_net_dev {
	pthread_rwlock_t *lock; /* the device's (common/dev_lock.h) */
	const char *name;       /* its socket path, for logs */
	const struct vur_net_state *filter;
	struct vur_rdma_dev *rdma;
	struct vur_tp_dev *tp; /* the RDMA engine, for RoCE v2 frames it owns */
	/* the device's address policy: what its frames may carry (net_antispoof.h) */
	const struct vur_addr_policy *policy;
	/* its access VLAN (net_vlan.h), 0 for none; the switch keeps a copy per port */
	uint16_t vlan;
	bool roce;             /* the driver negotiated VIRTIO_NET_F_ROCE */
	struct vur_switch *sw; /* NULL when not attached */
	int slot;              /* device port on the switch */
	int vid;
	uint16_t hdr_len;   /* struct virtio_net_hdr(_mrg_rxbuf): 10 or 12 */
	bool mrg_rxbuf;     /* VIRTIO_NET_F_MRG_RXBUF negotiated */
	uint32_t max_frame; /* the MTU plus an Ethernet header and two VLAN tags */
	bool link_down;     /* the port manager's verdict (device admin down) */
	struct vur_net_vq rxq;
	struct vur_net_vq txq;
	struct vur_net_dev_stats stats;
	struct vur_ratelimit log_rl;
	struct vur_txrate *txrate; /* the device's transmit limits, shared with the engine */
};

/* Telemetry key of each drop reason. */
const char *vur_net_drop_name(enum vur_net_drop why);

void vur_net_dev_init(struct vur_net_dev *nd, pthread_rwlock_t *lock, const char *name,
		const struct vur_net_state *filter, struct vur_rdma_dev *rdma);

/* Become a port of @sw. Returns 0 or -ENOSPC. Without the device lock. */
int vur_net_dev_attach(struct vur_net_dev *nd, struct vur_switch *sw);

/* Leave the switch; when this returns the data path no longer sees @nd. Without the lock. */
void vur_net_dev_detach(struct vur_net_dev *nd);

/*
 * Serve each of the two queues that is ready and not yet served, for
 * frontend @vid with @negotiated features and Ethernet @mtu. Lock held.
 */
void vur_net_dev_start(struct vur_net_dev *nd, int vid, uint64_t negotiated, uint16_t mtu,
		bool rx_ready, bool tx_ready);

/*
 * Put the device on access VLAN @vlan (net_vlan.h; 0: none) from now on.
 * Frames the data path holds meanwhile finish on the old one. Lock held.
 */
void vur_net_dev_set_vlan(struct vur_net_dev *nd, uint16_t vlan);

/* Stop serving vring @qid if it is one of ours (any when @qid < 0). Lock held. */
void vur_net_dev_stop(struct vur_net_dev *nd, int qid);

#endif /* VUR_NET_DEV_H */
