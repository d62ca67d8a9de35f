/* SPDX-License-Identifier: BSD-3-Clause */
/* Anti-spoofing of a guest's frames (see net_antispoof.h). */
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "net/net_antispoof.h"

#define MAX_VLAN_TAGS    2 /* as net_frame.c parses: 802.1ad outer, 802.1Q inner */
#define DHCP_CLIENT_PORT 68
#define DHCP_SERVER_PORT 67
#define ICMPV6_NEIGH_ADV 136
#define IPV6_NH_HOPOPTS  0 /* MLD reports of duplicate address detection */
#define IPV6_NH_ICMPV6   58
#define NA_TARGET_OFFSET 8 /* type, code, checksum, flags */
#define IPV4_FRAG_MASK   (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)

static const uint8_t zero_gid[16];

static bool
is_vlan_type(uint16_t type)
{
	return type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ;
}

/* An address the device may use: in the set, or the link-local of its own MAC. */
static bool
allowed(const struct vur_addr_policy *p, const uint8_t own[6], const uint8_t gid[16])
{
	uint8_t ll[16];

	if (vur_addr_policy_allows_gid(p, gid))
		return true;
	vur_addr_link_local_gid(own, ll);
	return memcmp(ll, gid, 16) == 0;
}

static bool
allowed_v4(const struct vur_addr_policy *p, const uint8_t own[6], const void *addr)
{
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };

	memcpy(gid + 12, addr, 4);
	return allowed(p, own, gid);
}

/* A DHCP client's message before it has an address: UDP 68 to 67, not a fragment. */
static bool
is_dhcp_client(const struct rte_ipv4_hdr *ip, const uint8_t *l4, uint32_t l4_len)
{
	uint16_t ports[2];

	if (ip->next_proto_id != IPPROTO_UDP ||
			(rte_be_to_cpu_16(ip->fragment_offset) & IPV4_FRAG_MASK) != 0 ||
			l4_len < sizeof(ports))
		return false;
	memcpy(ports, l4, sizeof(ports));
	return ports[0] == RTE_BE16(DHCP_CLIENT_PORT) && ports[1] == RTE_BE16(DHCP_SERVER_PORT);
}

static enum vur_spoof
check_ipv4(const struct vur_addr_policy *p, const uint8_t own[6], const uint8_t *l3, uint32_t len)
{
	struct rte_ipv4_hdr ip;
	uint32_t ihl;

	if (len < sizeof(ip))
		return VUR_SPOOF_IP;
	memcpy(&ip, l3, sizeof(ip));
	ihl = (ip.version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	if ((ip.version_ihl >> 4) != 4 || ihl < sizeof(ip))
		return VUR_SPOOF_IP;
	if (allowed_v4(p, own, &ip.src_addr))
		return VUR_SPOOF_NONE;
	if (ip.src_addr == 0 && len >= ihl && is_dhcp_client(&ip, l3 + ihl, len - ihl))
		return VUR_SPOOF_NONE;
	return VUR_SPOOF_IP;
}

static enum vur_spoof
check_ipv6(const struct vur_addr_policy *p, const uint8_t own[6], const uint8_t *l3, uint32_t len)
{
	struct rte_ipv6_hdr ip;
	uint8_t src[16], target[16];
	const uint8_t *icmp = l3 + sizeof(ip);

	if (len < sizeof(ip))
		return VUR_SPOOF_IP;
	memcpy(&ip, l3, sizeof(ip));
	/* uint8_t[16] before DPDK 24.11, struct rte_ipv6_addr since: same bytes. */
	memcpy(src, &ip.src_addr, 16);
	if ((rte_be_to_cpu_32(ip.vtc_flow) >> 28) != 6)
		return VUR_SPOOF_IP;
	if (memcmp(src, zero_gid, 16) == 0) {
		/* duplicate address detection: a solicitation, or an MLD report */
		if (ip.proto != IPV6_NH_ICMPV6 && ip.proto != IPV6_NH_HOPOPTS)
			return VUR_SPOOF_IP;
	} else if (!allowed(p, own, src)) {
		return VUR_SPOOF_IP;
	}
	if (ip.proto != IPV6_NH_ICMPV6)
		return VUR_SPOOF_NONE;
	/* ICMPv6 of no type (cut short) says nothing that can be checked */
	if (len == sizeof(ip))
		return VUR_SPOOF_IP;
	/* A neighbour advertisement claims its target: the same rule as a source. */
	if (icmp[0] == ICMPV6_NEIGH_ADV) {
		if (len - sizeof(ip) < NA_TARGET_OFFSET + sizeof(target))
			return VUR_SPOOF_IP;
		memcpy(target, icmp + NA_TARGET_OFFSET, sizeof(target));
		if (!allowed(p, own, target))
			return VUR_SPOOF_IP;
	}
	return VUR_SPOOF_NONE;
}

static enum vur_spoof
check_arp(const struct vur_addr_policy *p, const uint8_t own[6], const uint8_t *l3, uint32_t len)
{
	struct rte_arp_hdr arp;

	if (len < sizeof(arp))
		return VUR_SPOOF_IP;
	memcpy(&arp, l3, sizeof(arp));
	if (arp.arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
			arp.arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
			arp.arp_hlen != RTE_ETHER_ADDR_LEN || arp.arp_plen != 4)
		return VUR_SPOOF_IP;
	if (memcmp(&arp.arp_data.arp_sha, own, RTE_ETHER_ADDR_LEN) != 0)
		return VUR_SPOOF_MAC;
	/* 0.0.0.0: an ARP probe (RFC 5227) before the address is used */
	if (arp.arp_data.arp_sip == 0 || allowed_v4(p, own, &arp.arp_data.arp_sip))
		return VUR_SPOOF_NONE;
	return VUR_SPOOF_IP;
}

enum vur_spoof
vur_antispoof_check(const struct vur_addr_policy *p, const uint8_t cur_mac[6], const uint8_t *frame,
		uint32_t len)
{
	const uint8_t *own = p->mac_pinned ? p->mac : cur_mac;
	struct rte_ether_hdr eth;
	struct rte_vlan_hdr vlan;
	uint32_t off = sizeof(eth);
	uint16_t type;

	if (len < sizeof(eth))
		return VUR_SPOOF_MAC;
	memcpy(&eth, frame, sizeof(eth));
	if (memcmp(&eth.src_addr, own, RTE_ETHER_ADDR_LEN) != 0)
		return VUR_SPOOF_MAC;
	if (p->n == 0)
		return VUR_SPOOF_NONE;
	type = rte_be_to_cpu_16(eth.ether_type);
	for (int i = 0; is_vlan_type(type); i++) {
		/* deeper than the switch parses, or cut short: what it hides is unchecked */
		if (i == MAX_VLAN_TAGS || len - off < sizeof(vlan))
			return VUR_SPOOF_IP;
		memcpy(&vlan, frame + off, sizeof(vlan));
		type = rte_be_to_cpu_16(vlan.eth_proto);
		off += sizeof(vlan);
	}
	switch (type) {
	case RTE_ETHER_TYPE_IPV4:
		return check_ipv4(p, own, frame + off, len - off);
	case RTE_ETHER_TYPE_IPV6:
		return check_ipv6(p, own, frame + off, len - off);
	case RTE_ETHER_TYPE_ARP:
		return check_arp(p, own, frame + off, len - off);
	default:
		return VUR_SPOOF_NONE; /* no IP source to check (LLDP, ...) */
	}
}
