/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_udp.h>

#include "net/net_frame.h"

#define MAX_VLAN_TAGS  2 /* 802.1ad outer, 802.1Q inner */
#define IPV4_FRAG_MASK (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)

struct l4_ports {
	rte_be16_t src;
	rte_be16_t dst;
};

/* The UDP or TCP ports at @off, or false when they are not all there. */
static bool
read_ports(const uint8_t *p, uint32_t len, uint32_t off, struct l4_ports *ports,
		struct vur_frame_info *fi)
{
	if (off > len || len - off < sizeof(*ports)) {
		fi->truncated = true;
		return false;
	}
	memcpy(ports, p + off, sizeof(*ports));
	return true;
}

/* The IPv4 header at @off; false when there is none (the frame is hashed by its MACs). */
static bool
parse_ipv4(const uint8_t *p, uint32_t len, uint32_t off, struct vur_frame_info *fi)
{
	struct rte_ipv4_hdr ip;
	struct l4_ports ports = { 0, 0 };
	uint32_t ihl, words[3];

	if (len - off < sizeof(ip)) {
		fi->truncated = true;
		return false;
	}
	memcpy(&ip, p + off, sizeof(ip));
	ihl = (ip.version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	if ((ip.version_ihl >> 4) != 4 || ihl < sizeof(ip))
		return false;
	/* A fragment has no UDP header of its own: never RoCE, hashed by addresses. */
	if ((rte_be_to_cpu_16(ip.fragment_offset) & IPV4_FRAG_MASK) == 0 &&
			(ip.next_proto_id == IPPROTO_UDP || ip.next_proto_id == IPPROTO_TCP))
		read_ports(p, len, off + ihl, &ports, fi);
	fi->roce_v2 = ip.next_proto_id == IPPROTO_UDP &&
			ports.dst == RTE_BE16(VUR_ROCE_V2_UDP_PORT);
	if (fi->roce_v2) {
		memset(fi->dst_gid, 0, 10);
		fi->dst_gid[10] = fi->dst_gid[11] = 0xff;
		memcpy(&fi->dst_gid[12], &ip.dst_addr, 4);
	}
	words[0] = ip.src_addr;
	words[1] = ip.dst_addr;
	words[2] = ((uint32_t)ports.src << 16 | ports.dst) ^ ip.next_proto_id;
	fi->flow_hash = rte_jhash_32b(words, RTE_DIM(words), 0);
	return true;
}

/* RoCE v2 puts UDP right after the fixed IPv6 header (no extension headers). */
static bool
parse_ipv6(const uint8_t *p, uint32_t len, uint32_t off, struct vur_frame_info *fi)
{
	struct rte_ipv6_hdr ip;
	struct l4_ports ports = { 0, 0 };
	uint32_t words[9];

	if (len - off < sizeof(ip)) {
		fi->truncated = true;
		return false;
	}
	memcpy(&ip, p + off, sizeof(ip));
	if ((rte_be_to_cpu_32(ip.vtc_flow) >> 28) != 6)
		return false;
	if (ip.proto == IPPROTO_UDP || ip.proto == IPPROTO_TCP)
		read_ports(p, len, off + sizeof(ip), &ports, fi);
	fi->roce_v2 = ip.proto == IPPROTO_UDP && ports.dst == RTE_BE16(VUR_ROCE_V2_UDP_PORT);
	/* uint8_t[16] before DPDK 24.11, struct rte_ipv6_addr since: same bytes. */
	if (fi->roce_v2)
		memcpy(fi->dst_gid, &ip.dst_addr, 16);
	memcpy(words, &ip.src_addr, 16);
	memcpy(words + 4, &ip.dst_addr, 16);
	words[8] = ((uint32_t)ports.src << 16 | ports.dst) ^ ip.proto;
	fi->flow_hash = rte_jhash_32b(words, RTE_DIM(words), 0);
	return true;
}

static bool
is_vlan_type(uint16_t type)
{
	return type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ;
}

int
vur_frame_parse(const uint8_t *p, uint32_t len, struct vur_frame_info *fi)
{
	struct rte_ether_hdr eth;
	struct rte_vlan_hdr vlan;
	uint32_t off = sizeof(eth);
	uint32_t macs[3];

	if (len < sizeof(eth))
		return -EINVAL;
	memset(fi, 0, sizeof(*fi));
	memcpy(&eth, p, sizeof(eth));
	fi->dst = eth.dst_addr;
	fi->src = eth.src_addr;
	fi->ether_type = rte_be_to_cpu_16(eth.ether_type);
	/* The VLAN filter (virtio 5.1.6.5.3) looks at the outer tag. */
	for (int i = 0; i < MAX_VLAN_TAGS && is_vlan_type(fi->ether_type); i++) {
		if (len - off < sizeof(vlan)) {
			fi->truncated = true;
			break;
		}
		memcpy(&vlan, p + off, sizeof(vlan));
		if (i == 0) {
			fi->vlan_tagged = true;
			fi->vid = rte_be_to_cpu_16(vlan.vlan_tci) & 0xfff;
		}
		fi->ether_type = rte_be_to_cpu_16(vlan.eth_proto);
		off += sizeof(vlan);
	}
	if (fi->ether_type == RTE_ETHER_TYPE_IPV4 && parse_ipv4(p, len, off, fi))
		return 0;
	if (fi->ether_type == RTE_ETHER_TYPE_IPV6 && parse_ipv6(p, len, off, fi))
		return 0;
	memcpy(macs, &eth, 12);
	fi->flow_hash = rte_jhash_32b(macs, RTE_DIM(macs), 0);
	return 0;
}
