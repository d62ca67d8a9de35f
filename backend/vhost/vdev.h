/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A virtio-net RoCE device: one per vhost-user socket. It outlives its
 * frontend connections; each new connection starts from a fresh state.
 */
#ifndef VUR_VDEV_H
#define VUR_VDEV_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/event_loop.h"
#include "ctrl/ctrl_net.h"
#include "ctrl/ctrl_roce.h"
#include "ctrl/ctrl_target.h"
#include "net/net_dev.h"
#include "net/net_state.h"
#include "port/speed_policy.h"
#include "rdma/rdma_dev.h"
#include "transport/transport.h"
#include "vdev_config.h"
#include "vdev_ctrlq.h"

/* librte_vhost's VHOST_MAX_VRING: the most virtqueues a device can have. */
#define VUR_MAX_VRINGS 256

struct vur_dev_params {
	const char *path;
	bool client;
	bool rfc2_numbering;
	bool no_roce; /* offer no RoCE (nor port speed): a plain virtio-net device */
	bool port_speed;
	uint32_t max_qps;
	uint32_t max_cqs;
	uint32_t ring_queues; /* 0: no rings */
	uint32_t max_ring_qps;
	uint32_t max_ring_cqs;
	uint16_t mtu;
	uint8_t mac[6];
	uint64_t loopback_mbps;
	struct vur_event_loop *loop;   /* the control thread */
	struct vur_switch *sw;         /* the local switch (the data path); may be NULL */
	uint64_t quota[VUR_QUOTA_N];   /* rdma/quota.h; 0: none */
	struct vur_addr_policy policy; /* rdma/addr_policy.h: the allowed addresses */
	uint64_t rate_bps, rate_pps;   /* common/txrate.h: transmit limits; 0: none */
	uint16_t vlan;                 /* net/net_vlan.h: the access VLAN; 0: none */
};

struct vur_dev {
	char path[PATH_MAX];
	bool client;
	uint64_t features; /* offered to the frontend */
	uint64_t protocol_features;

	pthread_rwlock_t lock; /* guards everything below (common/dev_lock.h) */
	int vid;               /* -1 while no frontend is connected */
	bool started;          /* between new_device and destroy_device */
	uint64_t negotiated;
	struct vur_config_state cfg_state;
	struct vur_speed_result speed; /* as the speed policy last computed it */
	uint64_t config_changes;       /* notifications sent to the frontend */

	struct vur_rdma_limits limits;
	struct vur_rdma_dev rdma;      /* fresh for every connection */
	struct vur_rdma_quota quota;   /* the administrator's: kept across connections */
	struct vur_addr_policy policy; /* likewise: the addresses it may use */
	struct vur_txrate txrate;      /* likewise: its transmit rate limits */
	bool rdma_ready;
	/*
	 * librte_vhost holds a memory table: SET_MEM_TABLE succeeded and no
	 * RESET_OWNER or failed SET_MEM_TABLE freed it since. Nothing starts
	 * without one: rte_vhost_get_mem_table() of 22.11 reads a NULL table.
	 */
	bool mem_table;
	uint64_t vq_ready[VUR_MAX_VRINGS / 64]; /* as vring_state_changed last said */
	struct vur_net_state net;               /* fresh for every connection */
	struct vur_ctrl_target target;          /* what control commands act on */
	struct vur_ctrl_cmd cmds[VUR_CTRL_ROCE_MAX_CMDS + VUR_CTRL_NET_MAX_CMDS];
	struct vur_ctrl_table ctrl_table;
	struct vur_ctrlq ctrlq;
	struct vur_net_dev eth; /* receiveq1 and transmitq1 on the local switch */
	struct vur_tp_dev tp;   /* the RDMA engine: send, receive and completion queues */
};

/* Virtio feature bits this device offers, for the chosen numbering. */
uint64_t vur_dev_offered_features(bool rfc2_numbering, bool port_speed);

/* Allocate a device and serve its socket. Returns NULL with rte_errno set. */
struct vur_dev *vur_dev_create(const struct vur_dev_params *params);

/* Stop serving the socket: the frontend is disconnected and the socket removed. */
void vur_dev_stop(struct vur_dev *dev);

/* Free a stopped device, once the control thread no longer runs. */
void vur_dev_free(struct vur_dev *dev);

/* What management (telemetry, admin RPC) may read of a device. */
struct vur_dev_info {
	char path[PATH_MAX];
	int vid;
	bool started;
	bool client;    /* it connects to its socket (else it listens) */
	uint8_t mac[6]; /* the device's own (the configuration space's at creation) */
	uint16_t mtu;   /* offered with VIRTIO_NET_F_MTU */
	uint32_t max_qps;
	uint32_t max_cqs;
	uint64_t offered;
	uint64_t negotiated;
	struct vur_rdma_counts rdma;
	uint64_t speed; /* 100 Mb/s units */
	uint32_t speed_flags;
	uint16_t active_members;
	uint16_t total_members;
	bool link_up;
	uint64_t config_changes;
	int data_path; /* the data-path thread that serves it, -1: not attached */
	struct vur_ctrlq_stats ctrl;
	struct vur_net_dev_stats eth;
	struct vur_tp_stats rdma_tp;
	struct vur_tp_rates rdma_rates;
	uint32_t ring_events_pending;   /* events of objects on rings waiting for a buffer */
	uint32_t ring_queues;           /* rdma_ring_queues */
	struct vur_net_state rx_filter; /* what the driver set (RX mode, tables) */
	struct vur_rdma_quota quota;    /* its quotas and the commands they refused */
	uint64_t quota_used[VUR_QUOTA_N];
	struct vur_addr_policy policy; /* its allowed addresses and the ADD_GIDs refused */
	uint64_t rate_bps, rate_pps;   /* its transmit limits (0: none) */
	struct vur_txrate_stats rate;  /* what they deferred and dropped */
	uint16_t vlan;                 /* its access VLAN (net/net_vlan.h), 0: none */
};

/*
 * Fill @info for the device serving @path, or (when @path is NULL) for the
 * @n-th device. Returns 0, or -ENOENT when there is no such device.
 */
int vur_dev_info(const char *path, unsigned int n, struct vur_dev_info *info);

/* At most this many QPs per device (two virtqueues each). */
#define VUR_DEV_MAX_QPS (VUR_MAX_VRINGS / 2)

/*
 * A snapshot of the bound QPs of the device serving @path: up to @max in
 * @out. Returns how many it has (0 without a frontend), or -ENOENT when
 * there is no such device.
 */
int vur_dev_qps(const char *path, struct vur_tp_qp_info *out, unsigned int max);

/* The socket path that names @dev. */
const char *vur_dev_path(const struct vur_dev *dev);

/*
 * Give @dev a new effective speed (the port manager, on the control thread).
 * When what the guest sees changed, the configuration space follows and the
 * frontend gets one configuration change notification: for the link status
 * bit when VIRTIO_NET_F_STATUS was negotiated, for the speed when
 * VIRTIO_NET_F_ROCE_PORT_SPEED was. Returns 1 when it notified, else 0.
 */
int vur_dev_set_speed(struct vur_dev *dev, const struct vur_speed_result *r);

/*
 * Set @dev's quotas (0: none) while it runs; objects live stay
 * (ROCE-DEV-QUOTA-6). The refusal counters are kept.
 */
void vur_dev_set_quota(struct vur_dev *dev, const uint64_t max[VUR_QUOTA_N]);

/*
 * Replace @dev's allowed addresses and MAC pinning by those of @next while it
 * runs; the GIDs stored stay (ROCE-DEV-POLICY-3). Its MAC and refusal
 * counters are kept.
 */
void vur_dev_set_addresses(struct vur_dev *dev, const struct vur_addr_policy *next);

/*
 * Set @dev's transmit limits (common/txrate.h, 0: none) while it runs, with
 * full buckets; the counters are kept. Returns 0 or -EINVAL.
 */
int vur_dev_set_rate(struct vur_dev *dev, uint64_t bps, uint64_t pps);

/* Put @dev on access VLAN @vlan (net/net_vlan.h; 0: none) while it runs. */
void vur_dev_set_vlan(struct vur_dev *dev, uint16_t vlan);

/* Copy of the encoded configuration space, taken under the device lock. */
size_t vur_dev_config_snapshot(struct vur_dev *dev, uint8_t *buf);

#endif /* VUR_VDEV_H */
