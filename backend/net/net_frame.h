/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the local switch needs to know of an Ethernet frame: its addresses,
 * its outer VLAN tag, whether it is RoCE v2 (UDP destination port 4791 over
 * IPv4 or IPv6, IBTA Annex A17), and a flow hash to spread flows over
 * uplinks. Pure functions over the frame's first bytes; nothing is trusted.
 */
#ifndef VUR_NET_FRAME_H
#define VUR_NET_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#define VUR_ROCE_V2_UDP_PORT 4791

/* Enough of a frame for every header parsed here: 2 VLAN tags, IPv6, UDP. */
#define VUR_FRAME_PARSE_LEN 128

struct vur_frame_info {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
	bool vlan_tagged;    /* an 802.1Q or 802.1ad outer tag */
	uint16_t vid;        /* its VLAN ID, when tagged */
	uint16_t ether_type; /* after the VLAN tags, host order */
	bool roce_v2;
	uint8_t dst_gid[16]; /* RoCE v2: the destination IP as a GID (IPv4-mapped for IPv4) */
	uint32_t flow_hash;  /* IP addresses and UDP/TCP ports, else the MACs */
	bool truncated;      /* the headers went on past the bytes parsed */
};

/*
 * Parse the @len bytes at @p (the frame, or its first VUR_FRAME_PARSE_LEN
 * bytes). Returns 0, or -EINVAL for less than an Ethernet header.
 * Truncated inner headers are not an error: the frame is then simply not
 * RoCE and is hashed by its MACs, and @fi->truncated says so, for a caller
 * that parsed part of what it has (a first segment) and can give more.
 */
int vur_frame_parse(const uint8_t *p, uint32_t len, struct vur_frame_info *fi);

#endif /* VUR_NET_FRAME_H */
