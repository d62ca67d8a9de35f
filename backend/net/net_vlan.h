/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's access VLAN (issue 25), as an access port of a virtual switch
 * or a ConnectX VF's `ip link set PF vf N vlan V`: the guest sends and
 * receives untagged frames; the uplink carries them tagged with the VLAN
 * (802.1Q, PCP 0); inside the backend the device is on the VLAN's segment
 * of the local switch (net_fwd.h). Here: the tag's push and pop on a frame.
 *
 * Frames travel through the switch untagged, with their segment beside
 * them, so the devices' receive queues and RDMA engines never see a tag of
 * an access VLAN: it is pushed on the way out to an uplink, and popped on
 * the way in, before anything parses the frame for a device.
 */
#ifndef VUR_NET_VLAN_H
#define VUR_NET_VLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define VUR_VLAN_NONE    0    /* no access VLAN: the untagged segment */
#define VUR_VLAN_MAX     4094 /* 4095 is reserved (802.1Q table 9-2) */
#define VUR_VLAN_TAG_LEN 4

/* Whether @vid can be an access VLAN: 1..4094. */
static inline bool
vur_vlan_valid(int64_t vid)
{
	return vid >= 1 && vid <= VUR_VLAN_MAX;
}

/* Whether the frame at @p (@len bytes) carries a VLAN tag (802.1Q or 802.1ad) outermost. */
bool vur_vlan_frame_tagged(const uint8_t *p, uint32_t len);

/*
 * The VID of @m's outer 802.1Q tag (TPID 0x8100), or -1 when it has none
 * (untagged, 802.1ad, or too short for a tag and an EtherType).
 */
int vur_vlan_outer_vid(const struct rte_mbuf *m);

/*
 * Remove @m's outer 802.1Q tag in place. @m must be the caller's alone
 * (refcount 1, direct), with the tag in its first segment. Returns 0, or
 * -EINVAL (no such tag, or @m shared).
 */
int vur_vlan_pop(struct rte_mbuf *m);

/*
 * Insert a tag of VLAN @vid (PCP 0) after the MACs of @m, in place: @m must
 * be the caller's alone with headroom for it. Returns 0, or -EINVAL (@m
 * shared, shorter than two MACs, or without headroom).
 */
int vur_vlan_push(struct rte_mbuf *m, uint16_t vid);

/*
 * A copy of @m (which may be shared, chained) with a tag of VLAN @vid after
 * its MACs, from @mp; NULL when @m is shorter than two MACs or @mp is empty.
 */
struct rte_mbuf *vur_vlan_push_copy(const struct rte_mbuf *m, uint16_t vid, struct rte_mempool *mp);

#endif /* VUR_NET_VLAN_H */
