/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device manager: the devices a backend serves, created from the
 * command line (-s) at start and by the admin RPC (create_device,
 * delete_device) while others carry traffic, in the manner of SPDK's
 * vhost_create_*_controller and vhost_delete_controller.
 *
 * Threads: create and delete run on the control thread (the admin RPC's),
 * or on the main thread before the admin RPC starts and after it stops; a
 * mutex serialises them. A deleted device leaves, in this order, the port
 * manager (no speed is given to it any more), librte_vhost (its frontend
 * is disconnected and its socket file removed: every RDMA object freed, its
 * queues stopped, its packets drained from the data path), the registry
 * that telemetry reads, and the local switch (detach waits until no
 * data-path thread holds it); its memory is freed after the control
 * thread's current batch of events, which may still name its control
 * queue (vur_event_loop_defer).
 */
#ifndef VUR_DEV_MGR_H
#define VUR_DEV_MGR_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdma/addr_policy.h"
#include "rdma/quota.h"

struct vur_dev;
struct vur_event_loop;
struct vur_port_mgr;
struct vur_switch;

/* The most devices one backend serves: the local switch's device ports. */
#define VUR_DEV_MGR_MAX 64

/* Ranges of a device's settings (the command line's and the admin RPC's). */
#define VUR_DEV_MTU_MIN  68
#define VUR_DEV_MTU_MAX  65535
#define VUR_DEV_SUN_PATH 108 /* sizeof(sockaddr_un.sun_path): the path and its NUL */

/* One device's settings, as given; what is not given comes from the defaults. */
struct vur_dev_spec {
	char path[PATH_MAX];
	bool client;         /* connect to the path and reconnect (else listen) */
	bool rfc2_numbering; /* RFC v2's feature bit, class and config layout */
	bool no_roce;        /* a plain virtio-net device: no RoCE, no port speed */
	bool port_speed;     /* offer VIRTIO_NET_F_ROCE_PORT_SPEED */
	uint32_t max_qps;
	uint32_t max_cqs;
	uint32_t ring_queues; /* K doorbell/event pairs, lowered to what the queues leave room for
			       */
	uint32_t max_ring_qps;
	uint32_t max_ring_cqs;
	uint16_t mtu;
	bool mac_given; /* else derived from the host and the path (app/default_mac.c) */
	uint8_t mac[6];
	const char *mac_source;        /* for the log when given: "--mac", "admin RPC" */
	bool admin_down;               /* created with its link administratively down */
	uint64_t quota[VUR_QUOTA_N];   /* 0: none */
	struct vur_addr_policy policy; /* the allowed addresses (n = 0: any) */
	uint64_t rate_bps, rate_pps;   /* transmit limits (common/txrate.h); 0: none */
	uint16_t vlan;                 /* the access VLAN (net/net_vlan.h); 0: none */
};

struct vur_dev_mgr {
	pthread_mutex_t lock;
	struct vur_dev *devs[VUR_DEV_MGR_MAX]; /* in creation order */
	unsigned int n_devs;
	bool stopping; /* no create after vur_dev_mgr_stop() */
	struct vur_event_loop *loop;
	struct vur_switch *sw;   /* may be NULL (no data path) */
	struct vur_port_mgr *pm; /* NULL until the ports started */
	uint64_t loopback_mbps;
	struct vur_dev_spec defaults; /* the command line's, for the admin RPC */
	char host[256];               /* this host's identity, for derived MACs */
	const char *host_source;
	struct vur_dev *graveyard[VUR_DEV_MGR_MAX]; /* deleted, not yet freed */
	unsigned int n_graveyard;
	uint64_t created;
	uint64_t deleted;
};

/* A manager of no device yet; @defaults are what an admin RPC leaves out. */
void vur_dev_mgr_init(struct vur_dev_mgr *dm, struct vur_event_loop *loop, struct vur_switch *sw,
		uint64_t loopback_mbps, const struct vur_dev_spec *defaults);

/*
 * Whether @s is a device this backend can serve (ranges, the virtqueue
 * layout, the MAC); returns 0, or -EINVAL with the reason in @why.
 */
int vur_dev_spec_check(const struct vur_dev_spec *s, char *why, size_t len);

/*
 * Create and serve the device @s. Returns 0, or a negative errno with the
 * reason in @why: -EEXIST (the path or the MAC is another device's, or a
 * file that is not a socket), -EADDRINUSE (another process serves the
 * socket), -ENOENT (no such directory), -ENAMETOOLONG, -ENOSPC (every
 * device port taken), -EINVAL (a setting out of range), -ESHUTDOWN.
 */
int vur_dev_mgr_create(struct vur_dev_mgr *dm, const struct vur_dev_spec *s, char *why, size_t len);

/*
 * Delete the device serving @path: its frontend disconnected, everything it
 * owned freed, its socket file removed. On the control thread (the memory
 * is freed after its current batch of events). Returns 0 or -ENODEV.
 */
int vur_dev_mgr_delete(struct vur_dev_mgr *dm, const char *path);

/*
 * Set the quotas (rdma/quota.h, 0: none) of the device serving @path while
 * it runs. Returns 0 or -ENODEV.
 */
int vur_dev_mgr_set_quota(struct vur_dev_mgr *dm, const char *path, const uint64_t *max);

/*
 * Set the allowed addresses (rdma/addr_policy.h) of the device serving
 * @path while it runs. Returns 0 or -ENODEV.
 */
int vur_dev_mgr_set_addresses(
		struct vur_dev_mgr *dm, const char *path, const struct vur_addr_policy *next);

/*
 * Set the transmit limits (common/txrate.h, 0: none) of the device serving
 * @path while it runs. Returns 0, -ENODEV or -EINVAL.
 */
int vur_dev_mgr_set_rate(struct vur_dev_mgr *dm, const char *path, uint64_t bps, uint64_t pps);

/*
 * Put the device serving @path on access VLAN @vlan (net/net_vlan.h; 0:
 * none) while it runs. Returns 0, -ENODEV or -EINVAL (@vlan out of range).
 */
int vur_dev_mgr_set_vlan(struct vur_dev_mgr *dm, const char *path, uint16_t vlan);

/* The ports started: devices created from now on get their speed from @pm. */
void vur_dev_mgr_set_ports(struct vur_dev_mgr *dm, struct vur_port_mgr *pm);

/* The devices as they are now: up to @max into @out; returns how many. */
unsigned int vur_dev_mgr_list(struct vur_dev_mgr *dm, struct vur_dev **out, unsigned int max);

/* Stop every device (its socket closed); no create after this. */
void vur_dev_mgr_stop(struct vur_dev_mgr *dm);

/* Free every device, once the control thread stopped. */
void vur_dev_mgr_fini(struct vur_dev_mgr *dm);

#endif /* VUR_DEV_MGR_H */
