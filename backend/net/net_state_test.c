/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the receive filter (virtio 1.3, 5.1.6.5.1-3). */
#include <errno.h>
#include <string.h>

#include <linux/virtio_net.h>

#include <rte_common.h>

#include "net/net_state.h"
#include "tests/tap.h"

static const uint8_t own[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t other[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };
static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
static const uint8_t mcast2[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static struct vur_net_state ns;

#define ACCEPTS(mac) vur_net_state_accepts(&ns, mac, false, 0)

static void
init_is_reset_state(void)
{
	static const uint64_t no_vlans[VUR_NET_VLAN_IDS / 64];

	memset(&ns, 0x5a, sizeof(ns));
	vur_net_state_init(&ns, own, 1);
	TAP_CHECK(memcmp(ns.mac, own, 6) == 0 && ns.max_pairs == 1 && ns.active_pairs == 1);
	TAP_CHECK(ns.promisc && !ns.allmulti && !ns.alluni && !ns.nomulti && !ns.nouni &&
			!ns.nobcast && !ns.vlan_filter && !ns.announce_pending);
	TAP_CHECK(ns.uc.n == 0 && !ns.uc.overflow && ns.mc.n == 0 && !ns.mc.overflow);
	TAP_CHECK(memcmp(ns.vlans, no_vlans, sizeof(no_vlans)) == 0);
	/* compatibility mode: a driver without CTRL_RX receives everything */
	TAP_CHECK(ACCEPTS(other) && ACCEPTS(mcast) && ACCEPTS(bcast));
	vur_net_state_init(&ns, own, 0);
	TAP_CHECK(ns.max_pairs == 1);
	vur_net_state_init(&ns, own, UINT16_MAX);
	TAP_CHECK(ns.max_pairs == VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX);
}

static void
unicast_and_broadcast(void)
{
	vur_net_state_init(&ns, own, 1);
	ns.promisc = false;
	TAP_CHECK(ACCEPTS(own) && !ACCEPTS(other) && ACCEPTS(bcast) && !ACCEPTS(mcast));
	ns.alluni = true;
	TAP_CHECK(ACCEPTS(other) && !ACCEPTS(mcast));
	/* NOUNI wins over ALLUNI and over the device's own address */
	ns.nouni = true;
	TAP_CHECK(!ACCEPTS(other) && !ACCEPTS(own) && ACCEPTS(bcast));
	ns.nouni = ns.alluni = false;
	ns.nobcast = true;
	TAP_CHECK(!ACCEPTS(bcast) && ACCEPTS(own));
	/* PROMISC wins over every other mode */
	ns.promisc = true;
	ns.nouni = true;
	TAP_CHECK(ACCEPTS(bcast) && ACCEPTS(other) && ACCEPTS(own));
}

static void
multicast(void)
{
	vur_net_state_init(&ns, own, 1);
	ns.promisc = false;
	TAP_CHECK(!ACCEPTS(mcast));
	ns.allmulti = true;
	TAP_CHECK(ACCEPTS(mcast) && ACCEPTS(mcast2) && !ACCEPTS(other));
	/* NOMULTI wins over ALLMULTI but spares broadcast; NOBCAST wins over ALLMULTI */
	ns.nomulti = true;
	TAP_CHECK(!ACCEPTS(mcast) && ACCEPTS(bcast));
	ns.nomulti = false;
	ns.nobcast = true;
	TAP_CHECK(ACCEPTS(mcast) && !ACCEPTS(bcast));
}

static void
mac_tables(void)
{
	uint8_t many[VUR_NET_MAC_TABLE_LEN + 1][6];
	struct vur_net_state before;
	unsigned int i;

	vur_net_state_init(&ns, own, 1);
	ns.promisc = false;
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, other, 1, mcast, 1) == 0);
	TAP_CHECK(ACCEPTS(other) && ACCEPTS(own) && ACCEPTS(mcast) && !ACCEPTS(mcast2));
	ns.nomulti = true;
	ns.nouni = true;
	TAP_CHECK(!ACCEPTS(mcast) && !ACCEPTS(other));
	ns.nomulti = ns.nouni = false;
	/* an entry of the wrong kind: refused, nothing changed */
	memcpy(&before, &ns, sizeof(ns));
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, mcast, 1, NULL, 0) == -EINVAL);
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, NULL, 0, other, 1) == -EINVAL);
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, other, 1, own, 1) == -EINVAL);
	TAP_CHECK(memcmp(&before, &ns, sizeof(ns)) == 0);
	/* empty tables: back to the own address only */
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, NULL, 0, NULL, 0) == 0);
	TAP_CHECK(!ACCEPTS(other) && ACCEPTS(own) && !ACCEPTS(mcast));

	/* one more than fits: every address of that kind, the other kind unaffected */
	for (i = 0; i < RTE_DIM(many); i++) {
		memcpy(many[i], other, 6);
		many[i][5] = i;
	}
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, many[0], RTE_DIM(many), mcast, 1) == 0);
	TAP_CHECK(ns.uc.overflow && ns.uc.n == 0 && !ns.mc.overflow && ns.mc.n == 1);
	TAP_CHECK(ACCEPTS(own) && ACCEPTS(other) && ACCEPTS(mcast) && !ACCEPTS(mcast2));
	ns.nouni = true;
	TAP_CHECK(!ACCEPTS(other));
	ns.nouni = false;
	/* exactly as many as fit: a table, no fallback */
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, many[1], VUR_NET_MAC_TABLE_LEN, NULL, 0) == 0);
	TAP_CHECK(!ns.uc.overflow && ns.uc.n == VUR_NET_MAC_TABLE_LEN);
	TAP_CHECK(ACCEPTS(many[VUR_NET_MAC_TABLE_LEN]) && !ACCEPTS(many[0]) && !ACCEPTS(mcast));
	for (i = 0; i < RTE_DIM(many); i++) {
		memcpy(many[i], mcast, 6);
		many[i][5] = i;
	}
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, NULL, 0, many[0], RTE_DIM(many)) == 0);
	TAP_CHECK(ns.mc.overflow && !ns.uc.overflow && ACCEPTS(mcast2) && !ACCEPTS(other));
}

/*
 * The table a stock Linux guest sends (issue 22, captured from Linux 6.1 and
 * 7.2 guests): the all-hosts and all-nodes groups, the solicited-node groups
 * of its IPv6 addresses, the groups its sockets joined, and rxe's mapping of
 * an IPv4-mapped multicast GID (33:33:ef:..) beside rdma_cm's IGMP join. Each
 * passes, tagged too without CTRL_VLAN; the IGMPv3 and MLDv2 report groups
 * (224.0.0.22, ff02::16) and all-routers (ff02::2), which a host does not
 * join, are filtered: what eth_drop_rx_filtered counts between two guests.
 */
static void
linux_guest_groups(void)
{
	static const uint8_t joined[][6] = {
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, /* ff02::1 */
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, /* 224.0.0.1 */
		{ 0x33, 0x33, 0xff, 0x5e, 0x00, 0x02 }, /* ff02::1:ff5e:2, link-local */
		{ 0x33, 0x33, 0xff, 0x00, 0x00, 0x02 }, /* ff02::1:ff00:2, fd00::2 */
		{ 0x01, 0x00, 0x5e, 0x01, 0x1e, 0x01 }, /* 239.1.30.1 */
		{ 0x33, 0x33, 0x00, 0x00, 0x1e, 0x01 }, /* ff1e::1e01 */
		{ 0x33, 0x33, 0xef, 0x01, 0x1e, 0x01 }, /* rxe: ::ffff:239.1.30.1 */
	};
	static const uint8_t not_joined[][6] = {
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x16 }, /* 224.0.0.22, IGMPv3 reports */
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x16 }, /* ff02::16, MLDv2 reports */
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x02 }, /* ff02::2, router solicitations */
		{ 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 }, /* the peer's solicited-node group */
		{ 0x01, 0x00, 0x5e, 0x01, 0x1e, 0x02 }, /* 239.1.30.2, no socket joined */
	};
	unsigned int i;

	vur_net_state_init(&ns, own, 1);
	/* VIRTIO_NET_CTRL_RX_PROMISC 0, _ALLMULTI 0, then MAC_TABLE_SET */
	ns.promisc = false;
	ns.allmulti = false;
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, NULL, 0, joined[0], RTE_DIM(joined)) == 0);
	TAP_CHECK(ns.mc.n == RTE_DIM(joined) && !ns.mc.overflow);
	for (i = 0; i < RTE_DIM(joined); i++)
		TAP_CHECK(ACCEPTS(joined[i]) && vur_net_state_accepts(&ns, joined[i], true, 7));
	for (i = 0; i < RTE_DIM(not_joined); i++)
		TAP_CHECK(!ACCEPTS(not_joined[i]));
	TAP_CHECK(ACCEPTS(own) && ACCEPTS(bcast) && !ACCEPTS(other));
	/* the table replaced when a socket leaves its group */
	TAP_CHECK(vur_net_state_set_mac_tables(&ns, NULL, 0, joined[0], 4) == 0);
	TAP_CHECK(ACCEPTS(joined[3]) && !ACCEPTS(joined[4]) && !ACCEPTS(joined[6]));
	/* ALLMULTI (a multicast router, a bridge) takes them all */
	ns.allmulti = true;
	for (i = 0; i < RTE_DIM(not_joined); i++)
		TAP_CHECK(ACCEPTS(not_joined[i]));
}

static void
vlan_filter(void)
{
	vur_net_state_init(&ns, own, 1);
	ns.promisc = false;
	/* without CTRL_VLAN every tagged frame passes */
	TAP_CHECK(vur_net_state_accepts(&ns, own, true, 100));
	vur_net_state_set_features(&ns, 1ULL << VIRTIO_NET_F_CTRL_VLAN);
	TAP_CHECK(ns.vlan_filter);
	TAP_CHECK(!vur_net_state_accepts(&ns, own, true, 100));
	TAP_CHECK(vur_net_state_accepts(&ns, own, false, 100)); /* untagged: no VLAN filter */
	TAP_CHECK(vur_net_state_set_vlan(&ns, 100, true) == 0);
	TAP_CHECK(vur_net_state_set_vlan(&ns, 0, true) == 0);
	TAP_CHECK(vur_net_state_set_vlan(&ns, 4095, true) == 0);
	TAP_CHECK(vur_net_state_accepts(&ns, own, true, 100) &&
			vur_net_state_accepts(&ns, own, true, 0) &&
			vur_net_state_accepts(&ns, bcast, true, 4095));
	TAP_CHECK(!vur_net_state_accepts(&ns, own, true, 101) &&
			!vur_net_state_accepts(&ns, own, true, 4096 + 100));
	/* the VLAN passes, the address still has to */
	TAP_CHECK(!vur_net_state_accepts(&ns, other, true, 100));
	TAP_CHECK(vur_net_state_set_vlan(&ns, 4096, true) == -EINVAL);
	TAP_CHECK(vur_net_state_set_vlan(&ns, UINT16_MAX, false) == -EINVAL);
	TAP_CHECK(vur_net_state_set_vlan(&ns, 100, false) == 0);
	TAP_CHECK(vur_net_state_set_vlan(&ns, 100, false) == 0);
	TAP_CHECK(!vur_net_state_accepts(&ns, own, true, 100));
	/* PROMISC receives every VLAN */
	ns.promisc = true;
	TAP_CHECK(vur_net_state_accepts(&ns, other, true, 101));
	vur_net_state_set_features(&ns, 0);
	ns.promisc = false;
	TAP_CHECK(vur_net_state_accepts(&ns, own, true, 101));
}

int
main(void)
{
	TAP_RUN(init_is_reset_state);
	TAP_RUN(unicast_and_broadcast);
	TAP_RUN(multicast);
	TAP_RUN(mac_tables);
	TAP_RUN(linux_guest_groups);
	TAP_RUN(vlan_filter);
	return tap_done();
}
