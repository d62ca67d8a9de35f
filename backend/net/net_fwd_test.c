/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the forwarding database and the switch's forwarding rule. */
#include <errno.h>
#include <string.h>

#include "net/net_fwd.h"
#include "tests/tap.h"

#define SEC 1000000000ULL

static struct vur_fdb fdb;

static struct rte_ether_addr
mac(uint8_t last)
{
	return (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, last } };
}

static struct vur_frame_info
frame(struct rte_ether_addr dst, struct rte_ether_addr src)
{
	struct vur_frame_info fi;

	memset(&fi, 0, sizeof(fi));
	fi.dst = dst;
	fi.src = src;
	return fi;
}

static void
learning_and_ageing(void)
{
	struct rte_ether_addr a = mac(1), bc, mc = { { 0x01, 0, 0x5e, 0, 0, 1 } }, zero;

	memset(&bc, 0xff, sizeof(bc));
	memset(&zero, 0, sizeof(zero));
	vur_fdb_init(&fdb, 10 * SEC);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 0) == VUR_FDB_NONE);
	vur_fdb_learn(&fdb, 0, &a, 3, 1 * SEC);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 2 * SEC) == 3);
	TAP_CHECK(fdb.stats.learned == 1);
	/* seen again elsewhere: it moved */
	vur_fdb_learn(&fdb, 0, &a, 4, 5 * SEC);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 5 * SEC) == 4 && fdb.stats.moved == 1);
	/* ageing counts from the last time it was seen */
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 14 * SEC) == 4);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 15 * SEC) == VUR_FDB_NONE);
	TAP_CHECK(vur_fdb_count(&fdb, 15 * SEC) == 0);
	/* group and zero sources are never learned */
	vur_fdb_learn(&fdb, 0, &bc, 1, 20 * SEC);
	vur_fdb_learn(&fdb, 0, &mc, 1, 20 * SEC);
	vur_fdb_learn(&fdb, 0, &zero, 1, 20 * SEC);
	TAP_CHECK(vur_fdb_count(&fdb, 20 * SEC) == 0);
}

static void
static_entries(void)
{
	struct rte_ether_addr a = mac(1), mc = { { 0x01, 0, 0x5e, 0, 0, 1 } };

	vur_fdb_init(&fdb, 10 * SEC);
	vur_fdb_learn(&fdb, 0, &a, 7, 0);
	TAP_CHECK(vur_fdb_add_static(&fdb, 0, &a, 2, 0) == 0);
	TAP_CHECK(vur_fdb_add_static(&fdb, 0, &mc, 2, 0) == -EINVAL);
	/* learning does not move a static entry, and it never ages */
	vur_fdb_learn(&fdb, 0, &a, 9, 1 * SEC);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 1000 * SEC) == 2);
	vur_fdb_flush_port(&fdb, 2);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &a, 1000 * SEC) == VUR_FDB_NONE);
}

/* More addresses than the table holds: bounded, and the newest are found. */
static void
full_buckets_evict_the_oldest(void)
{
	struct rte_ether_addr a;
	uint32_t n = VUR_FDB_BUCKETS * VUR_FDB_WAYS * 2, found = 0;

	vur_fdb_init(&fdb, 1000 * SEC);
	for (uint32_t i = 0; i < n; i++) {
		a = mac(0);
		memcpy(&a.addr_bytes[2], &i, 4);
		vur_fdb_learn(&fdb, 0, &a, 1, i + 1);
	}
	TAP_CHECK(fdb.stats.evicted > 0);
	TAP_CHECK(vur_fdb_count(&fdb, n) <= VUR_FDB_BUCKETS * VUR_FDB_WAYS);
	/* the last address learned is always there */
	a = mac(0);
	memcpy(&a.addr_bytes[2], &(uint32_t){ n - 1 }, 4);
	found = vur_fdb_lookup(&fdb, 0, &a, n) == 1;
	TAP_CHECK(found);
}

static void
forward_known_unicast(void)
{
	struct vur_fwd f;
	struct vur_frame_info fi;
	uint64_t attached = 0x7; /* devices 0, 1, 2 */

	vur_fdb_init(&fdb, 10 * SEC);
	vur_fdb_add_static(&fdb, 0, &(struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, 1 } }, 1, 0);
	/* device 0 to device 1's own address: only there */
	fi = frame(mac(1), mac(0x10));
	vur_fwd_decide(&fdb, 0, 0, &fi, attached, 0, &f);
	TAP_CHECK(f.devs == 0x2 && !f.uplink && !f.flood);
	/* the source was learned: a reply from the outside goes to device 0 only */
	fi = frame(mac(0x10), mac(0x99));
	vur_fwd_decide(&fdb, VUR_SW_PORT_UPLINK, 0, &fi, attached, 1, &f);
	TAP_CHECK(f.devs == 0x1 && !f.uplink && !f.flood);
	/* and device 0 to the outside's address: out through the uplinks only */
	fi = frame(mac(0x99), mac(0x10));
	vur_fwd_decide(&fdb, 0, 0, &fi, attached, 2, &f);
	TAP_CHECK(f.devs == 0 && f.uplink && !f.flood);
	/* to a port's own segment: nowhere */
	fi = frame(mac(0x99), mac(0x98));
	vur_fwd_decide(&fdb, VUR_SW_PORT_UPLINK, 0, &fi, attached, 3, &f);
	TAP_CHECK(f.devs == 0 && !f.uplink);
	fi = frame(mac(1), mac(0x11));
	vur_fwd_decide(&fdb, 1, 0, &fi, attached, 3, &f);
	TAP_CHECK(f.devs == 0 && !f.uplink);
}

static void
flooding(void)
{
	struct vur_fwd f;
	struct vur_frame_info fi;
	struct rte_ether_addr bc;

	memset(&bc, 0xff, sizeof(bc));
	vur_fdb_init(&fdb, 10 * SEC);
	/* broadcast from a device: every other device and the outside */
	fi = frame(bc, mac(0x10));
	vur_fwd_decide(&fdb, 0, 0, &fi, 0x7, 0, &f);
	TAP_CHECK(f.devs == 0x6 && f.uplink && f.flood);
	/* multicast from the outside: every device, never back outside */
	fi = frame((struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }, mac(0x99));
	vur_fwd_decide(&fdb, VUR_SW_PORT_UPLINK, 0, &fi, 0x7, 0, &f);
	TAP_CHECK(f.devs == 0x7 && !f.uplink && f.flood);
	/* unknown unicast floods */
	fi = frame(mac(0x55), mac(0x10));
	vur_fwd_decide(&fdb, 2, 0, &fi, 0x7, 0, &f);
	TAP_CHECK(f.devs == 0x3 && f.uplink && f.flood);
	/* an aged address floods again */
	fi = frame(mac(0x10), mac(0x11));
	vur_fwd_decide(&fdb, 1, 0, &fi, 0x7, 20 * SEC, &f);
	TAP_CHECK(f.devs == 0x5 && f.uplink && f.flood);
	/* an address learned on a device port that went away floods */
	fi = frame(mac(0x11), mac(0x12));
	vur_fwd_decide(&fdb, 0, 0, &fi, 0x5, 20 * SEC, &f);
	TAP_CHECK(f.devs == 0x4 && f.uplink && f.flood);
}

/*
 * Access VLANs: devices 0 and 1 on VLAN 10, 2 on VLAN 20, 3 on none. The
 * caller gives each frame's segment and the ports on it.
 */
#define ON_10   0x3ULL
#define ON_20   0x4ULL
#define ON_NONE 0x8ULL

static void
vlans_never_meet(void)
{
	struct vur_fwd f;
	struct vur_frame_info fi;
	struct rte_ether_addr bc;

	memset(&bc, 0xff, sizeof(bc));
	vur_fdb_init(&fdb, 10 * SEC);
	for (uint16_t d = 0; d < 4; d++)
		vur_fdb_add_static(&fdb,
				d < 2                    ? 10
						: d == 2 ? 20
							 : 0,
				&(struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, (uint8_t)d } }, d,
				0);
	/* broadcast, multicast, unknown unicast from device 0: device 1 and out, never 2 or 3 */
	fi = frame(bc, mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, ON_10, 0, &f);
	TAP_CHECK(f.devs == 0x2 && f.uplink && f.flood);
	fi = frame((struct rte_ether_addr){ { 0x01, 0, 0x5e, 0, 0, 1 } }, mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, ON_10, 0, &f);
	TAP_CHECK(f.devs == 0x2 && f.uplink);
	fi = frame(mac(0x55), mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, ON_10, 0, &f);
	TAP_CHECK(f.devs == 0x2 && f.uplink && f.flood);
	/* unicast to device 2's address from VLAN 10: not there (it is on 20): floods on 10 */
	fi = frame(mac(2), mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, ON_10, 0, &f);
	TAP_CHECK(!(f.devs & 0x4) && f.flood);
	/* nor to device 3's (no VLAN) from device 2 */
	fi = frame(mac(3), mac(2));
	vur_fwd_decide(&fdb, 2, 20, &fi, ON_20, 0, &f);
	TAP_CHECK(f.devs == 0 && f.uplink && f.flood);
	/* and device 3 broadcasts to the untagged segment only */
	fi = frame(bc, mac(3));
	vur_fwd_decide(&fdb, 3, 0, &fi, ON_NONE, 0, &f);
	TAP_CHECK(f.devs == 0 && f.uplink);
	/* within VLAN 10, unicast as ever */
	fi = frame(mac(1), mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, ON_10, 0, &f);
	TAP_CHECK(f.devs == 0x2 && !f.uplink && !f.flood);
	/* from the outside on VLAN 20 (tag popped by the caller): device 2 only */
	fi = frame(mac(2), mac(0x99));
	vur_fwd_decide(&fdb, VUR_SW_PORT_UPLINK, 20, &fi, ON_20, 0, &f);
	TAP_CHECK(f.devs == 0x4 && !f.uplink && !f.flood);
	fi = frame(bc, mac(0x99));
	vur_fwd_decide(&fdb, VUR_SW_PORT_UPLINK, 20, &fi, ON_20, 0, &f);
	TAP_CHECK(f.devs == 0x4 && !f.uplink);
}

/* (VLAN, MAC) keys: one address on two VLANs is two entries that never move each other. */
static void
learning_per_vlan(void)
{
	struct vur_fwd f;
	struct vur_frame_info fi;
	struct rte_ether_addr r = mac(0x77);

	vur_fdb_init(&fdb, 10 * SEC);
	/* a router's one MAC, outside on VLAN 10; a guest on VLAN 20 claims it */
	fi = frame(mac(0), r);
	vur_fwd_decide(&fdb, VUR_SW_PORT_UPLINK, 10, &fi, ON_10, 0, &f);
	fi = frame(mac(0x55), r);
	vur_fwd_decide(&fdb, 2, 20, &fi, ON_20, 1, &f);
	TAP_CHECK(fdb.stats.moved == 0 && fdb.stats.learned == 2);
	TAP_CHECK(vur_fdb_lookup(&fdb, 10, &r, 2) == VUR_SW_PORT_UPLINK);
	TAP_CHECK(vur_fdb_lookup(&fdb, 20, &r, 2) == 2);
	TAP_CHECK(vur_fdb_lookup(&fdb, 0, &r, 2) == VUR_FDB_NONE);
	/* VLAN 10's traffic to the router still leaves by the uplink */
	fi = frame(r, mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, ON_10, 2, &f);
	TAP_CHECK(f.devs == 0 && f.uplink && !f.flood);
	/* a static entry per VLAN too: the same MAC pinned on two VLANs to two ports */
	TAP_CHECK(vur_fdb_add_static(&fdb, 10, &r, 1, 3) == 0);
	TAP_CHECK(vur_fdb_add_static(&fdb, 20, &r, 2, 3) == 0);
	TAP_CHECK(vur_fdb_lookup(&fdb, 10, &r, 3) == 1 && vur_fdb_lookup(&fdb, 20, &r, 3) == 2);
	/* a device that moved to another VLAN: its old entry points at a port not on the segment */
	fi = frame(r, mac(0));
	vur_fwd_decide(&fdb, 0, 10, &fi, 0x1 /* device 1 left VLAN 10 */, 4, &f);
	TAP_CHECK(f.devs == 0 && f.uplink && f.flood);
	/* bits above the 12 of a VID are not a VLAN of their own */
	TAP_CHECK(vur_fdb_lookup(&fdb, 10 | 0x1000, &r, 3) == 1);
}

int
main(void)
{
	TAP_RUN(learning_and_ageing);
	TAP_RUN(static_entries);
	TAP_RUN(full_buckets_evict_the_oldest);
	TAP_RUN(forward_known_unicast);
	TAP_RUN(flooding);
	TAP_RUN(vlans_never_meet);
	TAP_RUN(learning_per_vlan);
	return tap_done();
}
