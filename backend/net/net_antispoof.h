/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Anti-spoofing of a guest's frames (issue 25), in the manner of a host
 * admin's spoof checking on a ConnectX virtual function. Under an address
 * policy (rdma/addr_policy.h: allowed IPs, or a pinned MAC), a frame the
 * driver transmits is dropped when its source MAC is not the device's
 * (ROCE-DEV-POLICY-4), and, with allowed IPs, when it is IPv4, IPv6 or ARP
 * from a source address outside the set or an IPv6 neighbour advertisement
 * for a target outside it (ROCE-DEV-POLICY-5). The unspecified source of
 * DHCP (0.0.0.0, UDP 68 to 67), of an ARP probe and of IPv6 duplicate
 * address detection (::, ICMPv6) passes, so a guest can get an address
 * (ROCE-DEV-POLICY-6). Without a policy nothing is looked at.
 */
#ifndef VUR_NET_ANTISPOOF_H
#define VUR_NET_ANTISPOOF_H

#include <stdbool.h>
#include <stdint.h>

#include "rdma/addr_policy.h"

/* The bytes of a frame the check reads: two VLAN tags, IPv6, an ICMPv6 NA. */
#define VUR_ANTISPOOF_LEN 128

enum vur_spoof {
	VUR_SPOOF_NONE, /* the frame passes */
	VUR_SPOOF_MAC,  /* a source MAC (Ethernet, ARP sender) not the device's */
	VUR_SPOOF_IP,   /* a source IP (or NA target) outside the allowed set, or unreadable */
};

/* Whether @p asks for any check: the one branch a frame costs without a policy. */
static inline bool
vur_antispoof_active(const struct vur_addr_policy *p)
{
	return p != NULL && (p->n > 0 || p->mac_pinned);
}

/*
 * Check the first @len bytes at @frame (the whole frame, or its first
 * VUR_ANTISPOOF_LEN bytes when longer) against @p, where @cur_mac is the MAC the driver set (the
 * pinned one counts when
 * @p pins it). Any input is safe; headers cut short count as spoofed.
 */
enum vur_spoof vur_antispoof_check(const struct vur_addr_policy *p, const uint8_t cur_mac[6],
		const uint8_t *frame, uint32_t len);

#endif /* VUR_NET_ANTISPOOF_H */
