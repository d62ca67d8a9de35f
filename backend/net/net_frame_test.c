/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of frame parsing: addresses, VLAN tags, RoCE v2 detection, flow hash. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "net/net_frame.h"
#include "tests/tap.h"

static uint8_t buf[256];

/* Ethernet header with @n_tags VLAN tags (outer VID 100, inner 200); returns its length. */
static uint32_t
put_eth(uint16_t type, int n_tags)
{
	static const uint8_t dst[6] = { 0x52, 0x54, 0, 0, 0, 2 },
			     src[6] = { 0x52, 0x54, 0, 0, 0, 1 };
	static const uint16_t tpid[2] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	uint32_t off = 12;
	uint16_t v;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	for (int i = 0; i < n_tags; i++) {
		v = rte_cpu_to_be_16(n_tags == 1 ? RTE_ETHER_TYPE_VLAN : tpid[i]);
		memcpy(buf + off, &v, 2);
		v = rte_cpu_to_be_16((i == 0 ? 100 : 200) | 0x2000); /* PCP 1 */
		memcpy(buf + off + 2, &v, 2);
		off += 4;
	}
	v = rte_cpu_to_be_16(type);
	memcpy(buf + off, &v, 2);
	return off + 2;
}

static uint32_t
put_udp(uint32_t off, uint16_t sport, uint16_t dport)
{
	struct rte_udp_hdr udp = { .src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport) };

	memcpy(buf + off, &udp, sizeof(udp));
	return off + sizeof(udp);
}

static uint32_t
put_ipv4(uint32_t off, uint8_t proto, uint16_t frag, uint16_t dport)
{
	struct rte_ipv4_hdr ip = { .version_ihl = RTE_IPV4_VHL_DEF,
		.next_proto_id = proto,
		.fragment_offset = rte_cpu_to_be_16(frag),
		.src_addr = RTE_BE32(0x0a000001),
		.dst_addr = RTE_BE32(0x0a000002) };

	memcpy(buf + off, &ip, sizeof(ip));
	return put_udp(off + sizeof(ip), 49152, dport);
}

static uint32_t
put_ipv6(uint32_t off, uint8_t proto, uint16_t dport)
{
	static const uint8_t src[16] = { [15] = 1 }, dst[16] = { [15] = 2 };
	struct rte_ipv6_hdr ip = { .vtc_flow = RTE_BE32(6u << 28), .proto = proto };

	/* uint8_t[16] before DPDK 24.11, struct rte_ipv6_addr since. */
	memcpy(&ip.src_addr, src, sizeof(src));
	memcpy(&ip.dst_addr, dst, sizeof(dst));
	memcpy(buf + off, &ip, sizeof(ip));
	return put_udp(off + sizeof(ip), 49152, dport);
}

static void
short_frames_refused(void)
{
	struct vur_frame_info fi;

	TAP_CHECK(vur_frame_parse(buf, 13, &fi) < 0);
	TAP_CHECK(vur_frame_parse(buf, 14, &fi) == 0);
}

static void
addresses_and_type(void)
{
	struct vur_frame_info fi;
	uint32_t len = put_eth(0x88b5, 0);

	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0);
	TAP_CHECK(fi.dst.addr_bytes[5] == 2 && fi.src.addr_bytes[5] == 1);
	TAP_CHECK(fi.ether_type == 0x88b5 && !fi.vlan_tagged && !fi.roce_v2);
}

static void
roce_over_ipv4(void)
{
	struct vur_frame_info fi;
	uint32_t len;

	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, 0, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && fi.roce_v2);
	/* another port, TCP, a fragment, a truncated UDP header: not RoCE */
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, 0, 4790);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_TCP, 0, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, RTE_IPV4_HDR_MF_FLAG, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, 0, 4791);
	TAP_CHECK(vur_frame_parse(buf, len - 5, &fi) == 0 && !fi.roce_v2);
	/* a bad IHL */
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, 0, 4791);
	buf[14] = 0x44;
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
}

static void
roce_over_ipv6(void)
{
	struct vur_frame_info fi;
	uint32_t len;

	len = put_ipv6(put_eth(RTE_ETHER_TYPE_IPV6, 0), IPPROTO_UDP, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && fi.roce_v2);
	len = put_ipv6(put_eth(RTE_ETHER_TYPE_IPV6, 0), IPPROTO_TCP, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
	/* an extension header first: RoCE v2 never has one */
	len = put_ipv6(put_eth(RTE_ETHER_TYPE_IPV6, 0), 0 /* hop-by-hop */, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
	/* IPv6's ether type with an IPv4 header inside */
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV6, 0), IPPROTO_UDP, 0, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.roce_v2);
}

static void
vlan_tagged(void)
{
	struct vur_frame_info fi;
	uint32_t len;

	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 1), IPPROTO_UDP, 0, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0);
	TAP_CHECK(fi.vlan_tagged && fi.vid == 100 && fi.ether_type == RTE_ETHER_TYPE_IPV4);
	TAP_CHECK(fi.roce_v2);
	/* 802.1ad + 802.1Q: the outer VID filters, the inner type is IPv6 */
	len = put_ipv6(put_eth(RTE_ETHER_TYPE_IPV6, 2), IPPROTO_UDP, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0);
	TAP_CHECK(fi.vlan_tagged && fi.vid == 100 && fi.ether_type == RTE_ETHER_TYPE_IPV6);
	TAP_CHECK(fi.roce_v2);
	/* a tag cut short */
	len = put_eth(RTE_ETHER_TYPE_IPV4, 1);
	TAP_CHECK(vur_frame_parse(buf, 16, &fi) == 0 && fi.ether_type == RTE_ETHER_TYPE_VLAN);
	(void)len;
}

static void
flow_hash_follows_the_flow(void)
{
	struct vur_frame_info a, b;
	uint32_t len;

	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, 0, 4791);
	vur_frame_parse(buf, len, &a);
	vur_frame_parse(buf, len, &b);
	TAP_CHECK(a.flow_hash == b.flow_hash);
	put_udp(34, 49153, 4791); /* another source port: another flow */
	vur_frame_parse(buf, len, &b);
	TAP_CHECK(a.flow_hash != b.flow_hash);
}

/* Headers cut by the end of what was parsed are told apart from frames that have none. */
static void
truncated_headers(void)
{
	struct vur_frame_info fi;
	uint32_t len;

	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_UDP, 0, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.truncated && fi.roce_v2);
	TAP_CHECK(vur_frame_parse(buf, len - 5, &fi) == 0 && fi.truncated && !fi.roce_v2);
	TAP_CHECK(vur_frame_parse(buf, 30, &fi) == 0 && fi.truncated && !fi.roce_v2);
	len = put_ipv6(put_eth(RTE_ETHER_TYPE_IPV6, 2), IPPROTO_UDP, 4791);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.truncated && fi.roce_v2);
	TAP_CHECK(vur_frame_parse(buf, len - 10, &fi) == 0 && fi.truncated);
	TAP_CHECK(vur_frame_parse(buf, 20, &fi) == 0 && fi.truncated); /* within the tags */
	/* no IP at all, or TCP: nothing to cut */
	TAP_CHECK(vur_frame_parse(buf, put_eth(0x88b5, 0), &fi) == 0 && !fi.truncated);
	len = put_ipv4(put_eth(RTE_ETHER_TYPE_IPV4, 0), IPPROTO_TCP, 0, 80);
	TAP_CHECK(vur_frame_parse(buf, len, &fi) == 0 && !fi.truncated);
}

int
main(void)
{
	TAP_RUN(short_frames_refused);
	TAP_RUN(addresses_and_type);
	TAP_RUN(roce_over_ipv4);
	TAP_RUN(roce_over_ipv6);
	TAP_RUN(vlan_tagged);
	TAP_RUN(flow_hash_follows_the_flow);
	TAP_RUN(truncated_headers);
	return tap_done();
}
