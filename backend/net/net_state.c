/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive filter of virtio 1.3, 5.1.6.5.1-3, in the precedence QEMU's
 * receive_filter() also uses: promiscuous before everything, the VLAN
 * table before the address, broadcast apart from multicast.
 */
#include <errno.h>
#include <string.h>

#include <linux/virtio_net.h>

#include <rte_common.h>

#include "common/log.h"
#include "net/net_state.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_net, net, INFO);

static const uint8_t bcast[VUR_NET_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static bool
is_group(const uint8_t *mac)
{
	return mac[0] & 1;
}

void
vur_net_state_init(struct vur_net_state *ns, const uint8_t mac[VUR_NET_ALEN], uint16_t max_pairs)
{
	memset(ns, 0, sizeof(*ns));
	memcpy(ns->mac, mac, VUR_NET_ALEN);
	ns->promisc = true;
	ns->max_pairs = RTE_MIN(RTE_MAX(max_pairs, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN),
			VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX);
	ns->active_pairs = 1; /* multiqueue is off until VQ_PAIRS_SET */
}

void
vur_net_state_set_features(struct vur_net_state *ns, uint64_t negotiated)
{
	/* Without CTRL_VLAN the device MUST accept all VLAN tagged packets. */
	ns->vlan_filter = negotiated & (1ULL << VIRTIO_NET_F_CTRL_VLAN);
}

static bool
all_group(const uint8_t *macs, uint32_t n, bool group)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (is_group(macs + (size_t)i * VUR_NET_ALEN) != group)
			return false;
	return true;
}

static void
table_set(struct vur_net_mac_table *t, const uint8_t *macs, uint32_t n)
{
	t->overflow = n > VUR_NET_MAC_TABLE_LEN;
	t->n = t->overflow ? 0 : n;
	if (t->n > 0)
		memcpy(t->macs, macs, (size_t)t->n * VUR_NET_ALEN);
}

int
vur_net_state_set_mac_tables(struct vur_net_state *ns, const uint8_t *uc, uint32_t n_uc,
		const uint8_t *mc, uint32_t n_mc)
{
	/*
	 * The driver MUST send non-multicast addresses first, then multicast
	 * ones; an entry of the wrong kind could never match, so it is refused
	 * rather than silently ignored.
	 */
	if (!all_group(uc, n_uc, false) || !all_group(mc, n_mc, true))
		return -EINVAL;
	table_set(&ns->uc, uc, n_uc);
	table_set(&ns->mc, mc, n_mc);
	return 0;
}

int
vur_net_state_set_vlan(struct vur_net_state *ns, uint16_t vid, bool member)
{
	uint64_t bit = 1ULL << (vid % 64);

	if (vid >= VUR_NET_VLAN_IDS)
		return -EINVAL;
	if (member)
		ns->vlans[vid / 64] |= bit;
	else
		ns->vlans[vid / 64] &= ~bit;
	return 0;
}

static bool
table_has(const struct vur_net_mac_table *t, const uint8_t *mac)
{
	uint32_t i;

	if (t->overflow)
		return true;
	for (i = 0; i < t->n; i++)
		if (memcmp(t->macs[i], mac, VUR_NET_ALEN) == 0)
			return true;
	return false;
}

bool
vur_net_state_accepts(const struct vur_net_state *ns, const uint8_t dmac[VUR_NET_ALEN],
		bool vlan_tagged, uint16_t vid)
{
	/* PROMISC SHOULD take effect even if one of the other modes is on. */
	if (ns->promisc)
		return true;
	if (vlan_tagged && ns->vlan_filter &&
			(vid >= VUR_NET_VLAN_IDS || !(ns->vlans[vid / 64] & (1ULL << (vid % 64)))))
		return false;
	/* NOBCAST wins over ALLMULTI; NOMULTI does not apply to broadcast. */
	if (memcmp(dmac, bcast, VUR_NET_ALEN) == 0)
		return !ns->nobcast;
	if (is_group(dmac))
		return !ns->nomulti && (ns->allmulti || table_has(&ns->mc, dmac));
	return !ns->nouni &&
			(ns->alluni || memcmp(dmac, ns->mac, VUR_NET_ALEN) == 0 ||
					table_has(&ns->uc, dmac));
}
