/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_jhash.h>

#include "net/net_fdb.h"

#define KEY_VALID      (1ULL << 60)
#define KEY_VLAN_SHIFT 48

void
vur_fdb_init(struct vur_fdb *fdb, uint64_t age_ns)
{
	memset(fdb, 0, sizeof(*fdb));
	fdb->age_ns = age_ns;
}

static uint64_t
mac_key(uint16_t vlan, const struct rte_ether_addr *mac)
{
	uint64_t k = 0;

	memcpy(&k, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	return k | (uint64_t)(vlan & 0xfff) << KEY_VLAN_SHIFT | KEY_VALID;
}

static struct vur_fdb_entry *
bucket(const struct vur_fdb *fdb, uint64_t key)
{
	uint32_t h = rte_jhash_2words((uint32_t)key, (uint32_t)(key >> 32), 0);

	return (struct vur_fdb_entry *)fdb->e[h & (VUR_FDB_BUCKETS - 1)];
}

static bool
live(const struct vur_fdb *fdb, const struct vur_fdb_entry *e, uint64_t now_ns)
{
	return e->key != 0 && (e->is_static || now_ns - e->seen_ns < fdb->age_ns);
}

static struct vur_fdb_entry *
find(const struct vur_fdb *fdb, uint64_t key)
{
	struct vur_fdb_entry *b = bucket(fdb, key);

	for (int i = 0; i < VUR_FDB_WAYS; i++)
		if (b[i].key == key)
			return &b[i];
	return NULL;
}

/* A slot for @key in its bucket: an empty or aged one, else the oldest learned one. */
static struct vur_fdb_entry *
victim(struct vur_fdb *fdb, uint64_t key, uint64_t now_ns)
{
	struct vur_fdb_entry *b = bucket(fdb, key), *old = NULL;

	for (int i = 0; i < VUR_FDB_WAYS; i++) {
		if (!live(fdb, &b[i], now_ns))
			return &b[i];
		if (!b[i].is_static && (old == NULL || b[i].seen_ns < old->seen_ns))
			old = &b[i];
	}
	if (old != NULL)
		fdb->stats.evicted++;
	return old;
}

void
vur_fdb_learn(struct vur_fdb *fdb, uint16_t vlan, const struct rte_ether_addr *mac, uint16_t port,
		uint64_t now_ns)
{
	uint64_t key = mac_key(vlan, mac);
	struct vur_fdb_entry *e;

	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac))
		return;
	e = find(fdb, key);
	if (e != NULL && e->is_static)
		return;
	if (e != NULL && live(fdb, e, now_ns)) {
		if (e->port != port)
			fdb->stats.moved++;
	} else {
		if (e == NULL)
			e = victim(fdb, key, now_ns);
		if (e == NULL)
			return; /* a bucket of static entries only */
		fdb->stats.learned++;
	}
	*e = (struct vur_fdb_entry){ .key = key, .seen_ns = now_ns, .port = port };
}

uint16_t
vur_fdb_lookup(const struct vur_fdb *fdb, uint16_t vlan, const struct rte_ether_addr *mac,
		uint64_t now_ns)
{
	const struct vur_fdb_entry *e = find(fdb, mac_key(vlan, mac));

	return e != NULL && live(fdb, e, now_ns) ? e->port : VUR_FDB_NONE;
}

int
vur_fdb_add_static(struct vur_fdb *fdb, uint16_t vlan, const struct rte_ether_addr *mac,
		uint16_t port, uint64_t now_ns)
{
	uint64_t key = mac_key(vlan, mac);
	struct vur_fdb_entry *e;

	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac))
		return -EINVAL;
	e = find(fdb, key);
	if (e == NULL)
		e = victim(fdb, key, now_ns);
	if (e == NULL)
		return -ENOSPC;
	*e = (struct vur_fdb_entry){ .key = key, .port = port, .is_static = true };
	return 0;
}

void
vur_fdb_flush_port(struct vur_fdb *fdb, uint16_t port)
{
	for (int b = 0; b < VUR_FDB_BUCKETS; b++)
		for (int i = 0; i < VUR_FDB_WAYS; i++)
			if (fdb->e[b][i].key != 0 && fdb->e[b][i].port == port)
				fdb->e[b][i].key = 0;
}

uint32_t
vur_fdb_count(const struct vur_fdb *fdb, uint64_t now_ns)
{
	uint32_t n = 0;

	for (int b = 0; b < VUR_FDB_BUCKETS; b++)
		for (int i = 0; i < VUR_FDB_WAYS; i++)
			n += live(fdb, &fdb->e[b][i], now_ns);
	return n;
}
