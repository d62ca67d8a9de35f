/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local switch's forwarding rule, as a learning bridge (IEEE 802.1Q,
 * 8.7) with two kinds of port: the devices of this backend (0 to
 * VUR_SW_MAX_DEVS - 1) and the outside (VUR_SW_PORT_UPLINK, every uplink
 * together: which uplink carries a flow is the uplinks' business).
 *
 * A frame is never sent back where it came from, and a frame from the
 * outside never goes back outside: the backend is an end station with
 * several ports, not a bridge between planes or LAG members (which would
 * loop). Pure: the caller delivers.
 *
 * Each frame is on one segment: 0, the untagged one, or an access VLAN
 * (1..4094, net_vlan.h). The caller says which, and which device ports are
 * on it; a frame reaches no device port of another segment, flooded or
 * not, and the FDB learns and looks up per segment (net_fdb.h). The uplink
 * carries every segment (each tagged with its VLAN).
 */
#ifndef VUR_NET_FWD_H
#define VUR_NET_FWD_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net_fdb.h"
#include "net/net_frame.h"

#define VUR_SW_MAX_DEVS    64 /* device ports: bits of a uint64_t */
#define VUR_SW_PORT_UPLINK VUR_SW_MAX_DEVS

struct vur_fwd {
	uint64_t devs; /* device ports to deliver to */
	bool uplink;   /* and out through an uplink */
	bool flood;    /* broadcast, multicast or unknown unicast */
};

/*
 * Learn @fi's source on @in_port and segment @seg and decide where the
 * frame goes. @members has a bit per device port that exists and is on
 * @seg; entries pointing at a device port that is not (detached, or moved
 * to another VLAN since) are ignored.
 */
void vur_fwd_decide(struct vur_fdb *fdb, uint16_t in_port, uint16_t seg,
		const struct vur_frame_info *fi, uint64_t members, uint64_t now_ns,
		struct vur_fwd *out);

#endif /* VUR_NET_FWD_H */
