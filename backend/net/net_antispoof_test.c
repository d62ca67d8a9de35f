/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of anti-spoofing (ROCE-DEV-POLICY-4..6) over crafted frames. */
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "net/net_antispoof.h"
#include "tests/tap.h"

static const uint8_t own[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t other[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };
static struct vur_addr_policy pol;
static uint8_t buf[256];

/* A policy of @n addresses (10.0.0.7, fd00::7), the MAC @own, pinned or not. */
static void
policy(unsigned int n, bool pinned)
{
	static const char *const ips[] = { "10.0.0.7", "fd00::7" };
	char why[128];

	memset(&pol, 0, sizeof(pol));
	memcpy(pol.mac, own, 6);
	pol.mac_pinned = pinned;
	TAP_CHECK(vur_addr_policy_set(&pol, ips, n, why, sizeof(why)) == 0);
}

/* Check @len bytes of buf from a heap copy of exactly that size, so ASan sees any over-read. */
static enum vur_spoof
check_len(const uint8_t *cur, uint32_t len)
{
	uint8_t *f = malloc(len ? len : 1);
	enum vur_spoof r;

	memcpy(f, buf, len);
	r = vur_antispoof_check(&pol, cur, f, len);
	free(f);
	return r;
}

/* Ethernet header from @src with @n_tags VLAN tags; returns its length. */
static uint32_t
put_eth(const uint8_t *src, uint16_t type, int n_tags)
{
	uint32_t off = 12;
	uint16_t v;

	memset(buf, 0, sizeof(buf));
	memset(buf, 0xff, 6);
	memcpy(buf + 6, src, 6);
	for (int i = 0; i < n_tags; i++) {
		v = rte_cpu_to_be_16(
				i == 0 && n_tags > 1 ? RTE_ETHER_TYPE_QINQ : RTE_ETHER_TYPE_VLAN);
		memcpy(buf + off, &v, 2);
		v = rte_cpu_to_be_16(100 + i);
		memcpy(buf + off + 2, &v, 2);
		off += 4;
	}
	v = rte_cpu_to_be_16(type);
	memcpy(buf + off, &v, 2);
	return off + 2;
}

/* An IPv4/UDP frame from @src_ip (host order) to port @dport; returns its length. */
static uint32_t
put_ipv4(const uint8_t *src, int n_tags, uint32_t src_ip, uint8_t proto, uint16_t sport,
		uint16_t dport)
{
	uint32_t off = put_eth(src, RTE_ETHER_TYPE_IPV4, n_tags);
	struct rte_ipv4_hdr ip = { .version_ihl = RTE_IPV4_VHL_DEF,
		.next_proto_id = proto,
		.src_addr = rte_cpu_to_be_32(src_ip),
		.dst_addr = RTE_BE32(0xffffffff) };
	struct rte_udp_hdr udp = { .src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport) };

	memcpy(buf + off, &ip, sizeof(ip));
	memcpy(buf + off + sizeof(ip), &udp, sizeof(udp));
	return off + sizeof(ip) + sizeof(udp);
}

/* An IPv6 frame from @src_ip, next header @nh, then @icmp_type (an ICMPv6 NA: target @target). */
static uint32_t
put_ipv6(const char *src_ip, uint8_t nh, uint8_t icmp_type, const char *target)
{
	uint32_t off = put_eth(own, RTE_ETHER_TYPE_IPV6, 0);
	struct rte_ipv6_hdr ip = { .vtc_flow = RTE_BE32(6u << 28), .proto = nh, .hop_limits = 255 };
	uint8_t gid[16];

	TAP_CHECK(vur_addr_parse_gid(src_ip, gid) == 0);
	memcpy(&ip.src_addr, gid, 16);
	memcpy(buf + off, &ip, sizeof(ip));
	off += sizeof(ip);
	buf[off] = icmp_type;
	if (target != NULL) {
		TAP_CHECK(vur_addr_parse_gid(target, gid) == 0);
		memcpy(buf + off + 8, gid, 16);
	}
	return off + 24;
}

static uint32_t
put_arp(const uint8_t *sha, uint32_t sip)
{
	uint32_t off = put_eth(own, RTE_ETHER_TYPE_ARP, 0);
	struct rte_arp_hdr arp = { .arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER),
		.arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4),
		.arp_hlen = 6,
		.arp_plen = 4,
		.arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST) };

	memcpy(&arp.arp_data.arp_sha, sha, 6);
	arp.arp_data.arp_sip = rte_cpu_to_be_32(sip);
	memcpy(buf + off, &arp, sizeof(arp));
	return off + sizeof(arp);
}

#define IP_OK  0x0a000007 /* 10.0.0.7 */
#define IP_BAD 0x0a000008

static void
no_policy_no_check(void)
{
	TAP_CHECK(!vur_antispoof_active(NULL));
	policy(0, false);
	TAP_CHECK(!vur_antispoof_active(&pol));
	policy(0, true);
	TAP_CHECK(vur_antispoof_active(&pol));
	policy(1, false);
	TAP_CHECK(vur_antispoof_active(&pol));
}

/* ROCE-DEV-POLICY-4: the source MAC is the device's (the pinned one when pinned). */
static void
roce_dev_policy_4_source_mac(void)
{
	uint32_t len;

	policy(0, true);
	len = put_ipv4(own, 0, IP_BAD, IPPROTO_UDP, 1, 2);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE); /* no IPs: any source IP */
	len = put_ipv4(other, 0, IP_OK, IPPROTO_UDP, 1, 2);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_MAC);
	/* the driver's MAC_ADDR_SET does not move a pinned MAC */
	TAP_CHECK(check_len(other, len) == VUR_SPOOF_MAC);
	/* unpinned: the MAC the driver set is the device's */
	policy(2, false);
	TAP_CHECK(check_len(other, len) == VUR_SPOOF_NONE);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_MAC);
	/* an ARP sender address is a source MAC too */
	len = put_arp(other, IP_OK);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_MAC);
	TAP_CHECK(check_len(own, 13) == VUR_SPOOF_MAC);
}

/* ROCE-DEV-POLICY-5: IPv4, IPv6, ARP and NA sources in the allowed set, tagged or not. */
static void
roce_dev_policy_5_source_ip(void)
{
	uint32_t len;

	policy(2, false);
	for (int tags = 0; tags <= 2; tags++) {
		len = put_ipv4(own, tags, IP_OK, IPPROTO_UDP, 1, 4791);
		TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
		len = put_ipv4(own, tags, IP_BAD, IPPROTO_UDP, 1, 4791);
		TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	}
	/* three tags hide what the switch does not parse */
	len = put_ipv4(own, 3, IP_OK, IPPROTO_UDP, 1, 4791);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	len = put_ipv6("fd00::7", IPPROTO_UDP, 0, NULL);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_ipv6("fd00::8", IPPROTO_UDP, 0, NULL);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	/* its own link-local, of the MAC it uses */
	len = put_ipv6("fe80::5054:ff:fe12:3456", IPPROTO_UDP, 0, NULL);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_ipv6("fe80::5054:ff:feaa:bbcc", IPPROTO_UDP, 0, NULL);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	/* a neighbour advertisement for someone else's address */
	len = put_ipv6("fd00::7", 58, 136, "fd00::8");
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	len = put_ipv6("fd00::7", 58, 136, "fd00::7");
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	TAP_CHECK(check_len(own, len - 1) == VUR_SPOOF_IP);
	len = put_arp(own, IP_OK);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_arp(own, IP_BAD);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	/* no IP source: not this check's business */
	len = put_eth(own, RTE_ETHER_TYPE_LLDP, 0);
	TAP_CHECK(check_len(own, len + 20) == VUR_SPOOF_NONE);
	/* malformed: not version 4, a header length under 20 */
	len = put_ipv4(own, 0, IP_OK, IPPROTO_UDP, 1, 2);
	buf[14] = 0x65;
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	buf[14] = 0x44;
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
}

/* ROCE-DEV-POLICY-6: DHCP from 0.0.0.0, an ARP probe and IPv6 DAD from :: pass. */
static void
roce_dev_policy_6_unspecified_source(void)
{
	uint32_t len;

	policy(2, true);
	len = put_ipv4(own, 0, 0, IPPROTO_UDP, 68, 67);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_ipv4(own, 1, 0, IPPROTO_UDP, 68, 67);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	/* anything else from 0.0.0.0 does not */
	len = put_ipv4(own, 0, 0, IPPROTO_UDP, 68, 53);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	len = put_ipv4(own, 0, 0, IPPROTO_TCP, 68, 67);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
	TAP_CHECK(check_len(own, len - 7) == VUR_SPOOF_IP); /* ports cut short */
	/* DHCP from a foreign MAC is still a foreign MAC */
	len = put_ipv4(other, 0, 0, IPPROTO_UDP, 68, 67);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_MAC);
	len = put_arp(own, 0);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_ipv6("::", 58, 135, NULL); /* a neighbour solicitation */
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_ipv6("::", 0, 0, NULL); /* an MLD report behind hop-by-hop options */
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_NONE);
	len = put_ipv6("::", IPPROTO_UDP, 0, NULL);
	TAP_CHECK(check_len(own, len) == VUR_SPOOF_IP);
}

/* Bad input never crashes: every prefix of every frame, then random bytes. */
static void
truncated_and_random(void)
{
	/* the bytes each frame needs for a verdict: its headers up to the field that decides */
	static const uint32_t need[5] = { 14 + 8 + 20, 14 + 4 + 20 + 4, 14 + 40 + 24, 14 + 28,
		14 + 40 + 1 };
	uint32_t seed = 12345, len;

	policy(2, false);
	for (int f = 0; f < 5; f++) {
		len = f == 0             ? put_ipv4(own, 2, IP_OK, IPPROTO_UDP, 1, 2)
				: f == 1 ? put_ipv4(own, 1, 0, IPPROTO_UDP, 68, 67)
				: f == 2 ? put_ipv6("fd00::7", 58, 136, "fd00::7")
				: f == 3 ? put_arp(own, IP_OK)
					 : put_ipv6("::", 58, 135, NULL);
		/* cut short of what decides: dropped; past it: passes */
		for (uint32_t l = 0; l <= len; l++)
			TAP_CHECK((check_len(own, l) == VUR_SPOOF_NONE) == (l >= need[f]));
	}
	for (int i = 0; i < 20000; i++) {
		for (uint32_t j = 0; j < sizeof(buf); j++) {
			seed = seed * 1103515245 + 12345;
			buf[j] = seed >> 16;
		}
		/* the parser's paths: own MAC, then an IPv4, IPv6, ARP or VLAN type */
		memcpy(buf + 6, own, 6);
		if (i & 1) {
			static const uint8_t types[4][2] = { { 0x08, 0x00 }, { 0x86, 0xdd },
				{ 0x08, 0x06 }, { 0x81, 0x00 } };

			memcpy(buf + 12, types[(i >> 1) & 3], 2);
		}
		len = (seed >> 8) % (VUR_ANTISPOOF_LEN + 1);
		(void)check_len(own, len);
	}
}

int
main(void)
{
	TAP_RUN(no_policy_no_check);
	TAP_RUN(roce_dev_policy_4_source_mac);
	TAP_RUN(roce_dev_policy_5_source_ip);
	TAP_RUN(roce_dev_policy_6_unspecified_source);
	TAP_RUN(truncated_and_random);
	return tap_done();
}
