/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local switch's forwarding database: which port a unicast MAC address
 * sits behind. Learned entries come from source addresses and age out;
 * static entries (a device's own address, known without learning) stay
 * until removed and are never overwritten by learning, so a frame that
 * spoofs a device's address cannot steal its traffic.
 *
 * Entries are keyed by (VLAN, MAC), as 802.1Q's independent VLAN learning
 * (8.8.7): one address may sit behind different ports on different
 * segments (a router's one MAC on several VLANs, or two tenants given one
 * MAC), and a frame on one VLAN can neither move nor steal an entry of
 * another. VLAN 0 is the untagged segment (devices without an access VLAN).
 *
 * Set-associative: a hash picks a bucket of VUR_FDB_WAYS entries; a full
 * bucket evicts its oldest learned entry. Bounded memory and time whatever
 * the traffic. One thread (the data path) uses it; not thread-safe.
 */
#ifndef VUR_NET_FDB_H
#define VUR_NET_FDB_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#define VUR_FDB_BUCKETS 1024 /* a power of two */
#define VUR_FDB_WAYS    4
#define VUR_FDB_NONE    UINT16_MAX /* lookup: no (live) entry */

/* Default ageing time, as IEEE 802.1Q's recommended 300 s. */
#define VUR_FDB_AGE_NS (300ULL * 1000000000ULL)

struct vur_fdb_entry {
	uint64_t key; /* the MAC in bits 0-47, the VLAN in 48-59, bit 60 set: 0 is an empty slot */
	uint64_t seen_ns;
	uint16_t port;
	bool is_static;
};

struct vur_fdb_stats {
	uint64_t learned; /* new entries */
	uint64_t moved;   /* an address seen on another port */
	uint64_t evicted; /* live entries pushed out of a full bucket */
};

struct vur_fdb {
	uint64_t age_ns;
	struct vur_fdb_stats stats;
	struct vur_fdb_entry e[VUR_FDB_BUCKETS][VUR_FDB_WAYS];
};

void vur_fdb_init(struct vur_fdb *fdb, uint64_t age_ns);

/*
 * Record that @mac was seen as a source on @port, on VLAN @vlan (0 to 4095,
 * higher bits ignored), at @now_ns. Group and all-zero addresses are not
 * learned, nor is an address with a static entry on that VLAN.
 */
void vur_fdb_learn(struct vur_fdb *fdb, uint16_t vlan, const struct rte_ether_addr *mac,
		uint16_t port, uint64_t now_ns);

/* The port of @mac on @vlan, or VUR_FDB_NONE when unknown or aged out. */
uint16_t vur_fdb_lookup(const struct vur_fdb *fdb, uint16_t vlan, const struct rte_ether_addr *mac,
		uint64_t now_ns);

/*
 * Pin @mac on @vlan to @port (a static entry), replacing a learned one.
 * -EINVAL for a group or zero address, -ENOSPC when its bucket is all static.
 */
int vur_fdb_add_static(struct vur_fdb *fdb, uint16_t vlan, const struct rte_ether_addr *mac,
		uint16_t port, uint64_t now_ns);

/* Forget every entry, static or learned, that points at @port. */
void vur_fdb_flush_port(struct vur_fdb *fdb, uint16_t port);

/* Live entries (for telemetry). */
uint32_t vur_fdb_count(const struct vur_fdb *fdb, uint64_t now_ns);

#endif /* VUR_NET_FDB_H */
