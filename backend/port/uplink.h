/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplinks: the DPDK ethdev ports that connect this backend's devices to the
 * outside. Three shapes: one port; a LAG through the bonding PMD (its
 * members are the bond's member ports); several planes (several uplinks,
 * traffic spread across them). A member is a port whose link counts towards
 * the port speed: the uplink itself, or each member of a bonded uplink.
 */
#ifndef VUR_UPLINK_H
#define VUR_UPLINK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "port/speed_policy.h"

#define VUR_MAX_UPLINKS     8
#define VUR_MAX_MEMBERS     32
#define VUR_UPLINK_NAME_LEN RTE_ETH_NAME_MAX_LEN

/* One member port: what the port manager reads, and what the operator declared. */
struct vur_member {
	uint16_t port_id;
	char name[VUR_UPLINK_NAME_LEN];
	uint16_t uplink;          /* index of its uplink */
	bool lsc;                 /* link changes arrive as LSC events; else polled */
	uint32_t nominal_mbps;    /* declared speed; 0: the link's reported speed */
	uint32_t max_seen_mbps;   /* highest speed the link reported while up */
	uint32_t if_index;        /* its kernel interface (net_tap, net_af_packet), or 0 */
	struct rte_eth_link link; /* as last read */
};

/* One uplink: a port the backend sends and receives on. */
struct vur_uplink {
	uint16_t port_id;
	char name[VUR_UPLINK_NAME_LEN];
	bool bond;     /* a net_bonding port: its members are the bond's ports */
	int bond_mode; /* BONDING_MODE_* when @bond */
	bool rx_intr;  /* its receive queue can wake a sleeping thread (else: polled) */
	uint16_t first_member;
	uint16_t n_members;
};

struct vur_uplinks {
	struct vur_uplink uplinks[VUR_MAX_UPLINKS];
	uint16_t n_uplinks;
	struct vur_member members[VUR_MAX_MEMBERS];
	uint16_t n_members;
	struct rte_mempool *pool; /* packet buffers for every uplink queue */
	int ifreq_sock;           /* for the kernel's view of a member (kernel_link.h) */
	bool ifreq_open;          /* ifreq_sock is open: a member has a kernel interface */
};

/* A declared member speed: "NAME=MBPS" on the command line. */
struct vur_nominal_speed {
	const char *name;
	uint32_t mbps;
};

/*
 * Called from the EAL interrupt thread when a member's link changes; it
 * must only hand the news to another thread.
 */
typedef void (*vur_link_event_cb_t)(void *arg);

/*
 * Configure and start the uplinks named in @names (ethdev names, as EAL
 * created them), or every port EAL created that is not a bond's member when
 * @n_names is 0. One receive and one transmit queue each, promiscuous.
 * Bonded uplinks must aggregate (round-robin, balance, 802.3ad, TLB, ALB).
 * Returns 0, or a negative errno after logging why.
 */
int vur_uplinks_start(struct vur_uplinks *u, const char *const *names, unsigned int n_names,
		const struct vur_nominal_speed *nominal, unsigned int n_nominal,
		vur_link_event_cb_t cb, void *cb_arg);

/* Stop and close every uplink; free the packet buffers. */
void vur_uplinks_stop(struct vur_uplinks *u);

/* The member named @name (an ethdev name), or NULL. */
struct vur_member *vur_uplinks_member(struct vur_uplinks *u, const char *name);

/*
 * Read every member's link now (without waiting) and fill @out (n_members
 * entries) for the speed policy. Returns true when any link changed since
 * the last read.
 */
bool vur_uplinks_read(struct vur_uplinks *u, struct vur_port_member *out);

#endif /* VUR_UPLINK_H */
