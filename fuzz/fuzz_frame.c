/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the switch reads of a frame a guest or an uplink sends
 * (net_frame.c), then its forwarding decision (net_fwd.c: the MAC table
 * learning, ageing and looking up) and a device's receive filter
 * (net_state.c) for the frame's destination; a device's frame also goes
 * through anti-spoofing (net_antispoof.c) under a policy of two addresses,
 * the MAC pinned when the port is odd. Device ports are on access VLANs
 * (none, 10, 20, none), the uplink's frames on their tag's: a decision
 * never reaches a port of another VLAN.
 *
 * An input is a list of frames, each: u8 port (a device's, or the uplink),
 * u8 clock step (2^(step % 48) ns), le16 length, the frame. Each frame is
 * a heap copy of exactly its length, so a read past it is caught.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "net/net_antispoof.h"
#include "net/net_fdb.h"
#include "net/net_frame.h"
#include "net/net_fwd.h"
#include "net/net_state.h"
#include "net/net_vlan.h"

#define MAX_FRAMES 64
#define MAX_LEN    2048
#define N_DEVS     4 /* ports 0-3 attached, with static entries for their MACs */

/* Device ports' access VLANs: none, 10, 20, none, ... */
#define SEG(d) ((uint16_t)((d) % 3 * 10))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vur_fdb fdb;
static struct vur_net_state filter;
static struct vur_addr_policy policy;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t own[VUR_NET_ALEN] = { 0x52, 0x54, 0, 0, 0, 1 };
	struct rte_ether_addr mac = { { 0x52, 0x54, 0, 0, 0, 0 } };
	uint64_t now = 1000000000ULL;
	struct vur_frame_info fi;
	struct vur_fwd out;

	vur_fdb_init(&fdb, VUR_FDB_AGE_NS);
	for (uint16_t d = 0; d < N_DEVS; d++) {
		mac.addr_bytes[5] = (uint8_t)(d + 1);
		if (vur_fdb_add_static(&fdb, SEG(d), &mac, d, now) != 0)
			abort();
	}
	vur_net_state_init(&filter, own, 1);
	vur_net_state_set_features(&filter, UINT64_MAX);
	if (policy.n == 0) {
		static const char *const ips[] = { "10.0.0.7", "fd00::7" };
		char why[64];

		memcpy(policy.mac, own, sizeof(policy.mac));
		if (vur_addr_policy_set(&policy, ips, 2, why, sizeof(why)) != 0)
			abort();
	}
	for (int i = 0; i < MAX_FRAMES && size >= 4; i++) {
		uint16_t port = data[0] % (VUR_SW_MAX_DEVS + 1);
		uint32_t len = RTE_MIN((uint32_t)(data[2] | data[3] << 8) % (MAX_LEN + 1),
				(uint32_t)(size - 4));
		uint8_t *f = malloc(len + 1); /* malloc(0) may be NULL */

		if (f == NULL)
			abort();
		now += 1ULL << (data[1] % 48);
		memcpy(f, data + 4, len);
		data += 4 + len;
		size -= 4 + len;
		memset(&fi, 0, sizeof(fi));
		if (port < VUR_SW_MAX_DEVS) {
			policy.mac_pinned = port & 1;
			vur_antispoof_check(
					&policy, own, f, RTE_MIN(len, (uint32_t)VUR_ANTISPOOF_LEN));
		}
		if (vur_frame_parse(f, len, &fi) == 0) {
			uint16_t seg = port < VUR_SW_MAX_DEVS ? SEG(port)
					: fi.vlan_tagged      ? fi.vid
							      : 0;
			uint64_t members = 0;

			for (uint16_t d = 0; d < N_DEVS; d++)
				members |= (uint64_t)(SEG(d) == seg) << d;
			vur_vlan_frame_tagged(f, len);
			vur_fwd_decide(&fdb, port, seg, &fi, members, now, &out);
			if (out.devs & ~members)
				abort(); /* delivered to a port not attached, or of another VLAN */
			vur_net_state_accepts(&filter, fi.dst.addr_bytes, fi.vlan_tagged, fi.vid);
		}
		free(f);
	}
	vur_fdb_count(&fdb, now);
	return 0;
}
