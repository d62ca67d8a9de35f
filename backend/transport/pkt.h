/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCE v2 packets: Ethernet, IPv4 or IPv6 (by the GID type), UDP 4791, the
 * BTH and its extended headers (DETH, RETH, AETH, ImmDt, IETH), payload,
 * pad, ICRC.
 *
 * A packet the engine builds for a device of this backend ("local") holds
 * its headers in one mbuf and its payload as external-buffer segments that
 * point into the sender's guest memory: the receiver copies the payload
 * once, from the sender's memory into its own. A local packet stops after
 * the payload: its pad and ICRC, which only a link needs, are elided (the
 * IP and UDP lengths still count them, as on the wire), and an mbuf flag
 * says so. vur_pkt_to_wire() makes such a packet whole (payload copied,
 * pad, ICRC) when it leaves through an uplink.
 *
 * A local packet may hold several packets of one message, as a TSO frame
 * holds TCP segments (ROCE-DEV-WIRE-7): between two engines of this
 * backend a message then costs one packet of up to 64 KiB instead of one
 * per path MTU. Its segment size (mbuf tso_segsz) is the path MTU; it
 * stands for the packets that follow each other from its PSN, with the
 * headers of the first (RETH, AETH, the opcode's FIRST), the ImmDt, SE and
 * LAST of the last, and their payloads concatenated, every one but a last
 * packet of the message exactly the segment size. Its IP and UDP lengths
 * are those of the whole, which is why it stays below 64 KiB.
 * vur_pkt_to_wire() cuts it into the packets it stands for, with the
 * AckReq on the last of them. DPDK's librte_gso cuts TCP and UDP by IP
 * fragments; RoCE needs the BTH of each packet rewritten, hence our own.
 *
 * Why references into guest memory are safe: a local packet lives only
 * within one pass of the data-path thread (built, switched and consumed, or
 * dropped, before the thread reports a quiescent state), and a device stops
 * its queues and then waits for that state (rte_rcu_qsbr) before
 * librte_vhost may unmap the memory. An MR deregistered meanwhile leaves
 * the memory mapped; the receiver reads bytes the driver gave up, as a NIC
 * would.
 */
#ifndef VUR_PKT_H
#define VUR_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "transport/opcode.h"

/*
 * Ethernet 14 + IPv6 40 + UDP 8 + BTH 12 + DETH 8 + RETH 16 + ImmDt 4 (AETH
 * excludes RETH); an atomic request's AtomicETH (28) makes as much.
 */
#define VUR_PKT_MAX_HDR 102

/* The most packets one local packet holds (see above). */
#define VUR_PKT_MAX_SEGS 64

/* Where a packet goes: an address vector resolved for the wire. */
struct vur_pkt_addr {
	struct rte_ether_addr smac;
	struct rte_ether_addr dmac;
	uint8_t sgid[16];
	uint8_t dgid[16];
	bool ipv6; /* else both GIDs are IPv4-mapped */
	uint8_t traffic_class;
	bool ect; /* ECN-capable: ECT(0) in the traffic class's low bits (tp_cc.h) */
	uint8_t hop_limit;
	uint32_t flow_label;
	uint16_t sport; /* UDP source port */
};

/* The transport headers of one packet, in host order. */
struct vur_pkt_hdrs {
	uint8_t opcode;
	bool se;
	bool ack_req;
	uint32_t dest_qpn;
	uint32_t psn;
	uint32_t qkey, src_qp;  /* DETH (UD) */
	uint64_t va;            /* RETH */
	uint32_t rkey, dma_len; /* RETH; va and rkey also AtomicETH's */
	uint64_t swap_add;      /* AtomicETH: swap (CmpSwap) or add (FetchAdd) data */
	uint64_t compare;       /* AtomicETH: compare data (CmpSwap) */
	uint64_t orig;          /* AtomicAckETH: the data before the operation */
	uint8_t syndrome;       /* AETH */
	uint32_t msn;           /* AETH */
	rte_be32_t imm;         /* ImmDt, as it travels */
	uint32_t ieth;          /* IETH: the R_Key to invalidate */
};

/* A parsed packet. Payload bytes stay in the mbuf (vur_pkt_copy_payload). */
struct vur_pkt {
	struct rte_mbuf *m;
	uint32_t mask; /* enum vur_op_mask of the opcode, DETH added for UD */
	struct vur_pkt_hdrs h;
	uint32_t pay_off; /* payload offset in the frame */
	uint32_t pay_len;
	uint32_t seg_size; /* a local packet holding several: their size, else 0 */
	uint32_t npkts;    /* the packets it stands for: 1 unless it holds several */
	bool ce;           /* ECN congestion experienced on the way */
	bool ipv6;
	/* from here on set by a parse that succeeds (and only read then) */
	uint8_t sgid[16];
	uint8_t dgid[16];
	struct rte_ether_addr smac;
	uint8_t grh[40]; /* what a UD receive gets: the IPv6 header, or 20 zeros + IPv4 */
};

enum vur_pkt_err {
	VUR_PKT_OK = 0,
	VUR_PKT_ERR_SHORT,  /* truncated headers or lengths that disagree */
	VUR_PKT_ERR_L3,     /* not plain IPv4/IPv6 UDP 4791 (options, fragments...) */
	VUR_PKT_ERR_OPCODE, /* not an opcode of RC, UC or UD that this device has */
	VUR_PKT_ERR_BTH,    /* transport version or P_Key */
	VUR_PKT_ERR_ICRC,
	VUR_PKT_ERR_COUNT
};

const char *vur_pkt_err_name(enum vur_pkt_err e);

/* Register the mbuf flag of local packets (once, before any packet). */
int vur_pkt_init(void);

bool vur_pkt_is_local(const struct rte_mbuf *m);

/*
 * A packet's headers in a new mbuf from @pool, for a payload of @pay_len
 * bytes that the caller appends (vur_pkt_append_*). The packet is local.
 * NULL when the pool is empty.
 */
struct rte_mbuf *vur_pkt_build(struct rte_mempool *pool, const struct vur_pkt_addr *a,
		const struct vur_pkt_hdrs *h, uint32_t pay_len);

/* The most packets of path MTU @pmtu that one local packet holds. */
uint32_t vur_pkt_max_segs(uint32_t pmtu);

/* Make @m, built for payload that several packets of @seg_size bytes carry, hold them. */
void vur_pkt_set_seg_size(struct rte_mbuf *m, uint32_t seg_size);

/*
 * Forget the first @n packets that the parsed local packet @p holds (a
 * retransmission that overlaps what the receiver already took): it then
 * holds the rest, with their headers. False if it does not hold more.
 */
bool vur_pkt_skip(struct vur_pkt *p, uint32_t n);

/* Append @len bytes at @p: copied into the header mbuf (small payloads). */
int vur_pkt_append_copy(struct rte_mbuf *m, const void *p, uint32_t len);

/* Append @len bytes at @p by reference, a segment from @ext_pool. */
int vur_pkt_append_ref(struct rte_mbuf *m, struct rte_mempool *ext_pool, void *p, uint32_t len);

/* Parse and check the RoCE v2 frame @m (its ICRC unless it is local). */
enum vur_pkt_err vur_pkt_parse(struct rte_mbuf *m, struct vur_pkt *p);

/* Copy @len payload bytes from payload offset @off to @dst. Returns bytes copied. */
uint32_t vur_pkt_copy_payload(const struct vur_pkt *p, uint32_t off, void *dst, uint32_t len);

/*
 * The wire packets of local packet @m, each whole (payload copied, pad,
 * ICRC) in mbufs from @pool, chained as the length needs: one, or as many
 * as it holds. @m is left as it is. Returns how many are in @out (at most
 * @max, VUR_PKT_MAX_SEGS is always enough), 0 when @m is malformed, does
 * not fit, or @pool is empty.
 */
uint16_t vur_pkt_to_wire(const struct rte_mbuf *m, struct rte_mempool *pool, struct rte_mbuf **out,
		uint16_t max);

/* A 16-bit flow hash of a QP pair, as the UDP source port (49152 and up). */
uint16_t vur_pkt_sport(uint32_t src_qpn, uint32_t dst_qpn, uint32_t flow_label);

/* The first 12 bytes of an IPv4-mapped address (::ffff:0:0/96): an IPv4 address's GID. */
extern const uint8_t vur_pkt_v4_mapped[12];

/* Whether GID @gid is an IPv6 address, not an IPv4-mapped one (RoCE v2 over IPv6). */
static inline bool
vur_pkt_gid_is_ipv6(const uint8_t *gid)
{
	return memcmp(gid, vur_pkt_v4_mapped, sizeof(vur_pkt_v4_mapped)) != 0;
}

#endif /* VUR_PKT_H */
