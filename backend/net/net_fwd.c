/* SPDX-License-Identifier: BSD-3-Clause */
#include "net/net_fwd.h"

static void
flood(uint16_t in_port, uint64_t attached, struct vur_fwd *out)
{
	out->flood = true;
	out->devs = attached;
	if (in_port < VUR_SW_MAX_DEVS)
		out->devs &= ~(1ULL << in_port);
	out->uplink = in_port != VUR_SW_PORT_UPLINK;
}

void
vur_fwd_decide(struct vur_fdb *fdb, uint16_t in_port, uint16_t seg, const struct vur_frame_info *fi,
		uint64_t members, uint64_t now_ns, struct vur_fwd *out)
{
	uint16_t port;

	*out = (struct vur_fwd){ 0, false, false };
	vur_fdb_learn(fdb, seg, &fi->src, in_port, now_ns);
	if (!rte_is_unicast_ether_addr(&fi->dst)) {
		flood(in_port, members, out);
		return;
	}
	port = vur_fdb_lookup(fdb, seg, &fi->dst, now_ns);
	if (port == VUR_FDB_NONE || (port < VUR_SW_MAX_DEVS && !(members & (1ULL << port)))) {
		flood(in_port, members, out);
		return;
	}
	if (port == in_port)
		return; /* the destination is on the segment the frame came from */
	if (port == VUR_SW_PORT_UPLINK)
		out->uplink = true;
	else
		out->devs = 1ULL << port;
}
