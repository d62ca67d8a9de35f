/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_mbuf_dyn.h>
#include <rte_udp.h>

#include "transport/icrc.h"
#include "transport/pkt.h"
#include "transport/roce_hdr.h"

#define IPV4_LEN 20
#define IPV6_LEN 40
#define UDP_LEN  8

static uint64_t local_flag; /* the mbuf flag of local packets */

static const char *const err_names[VUR_PKT_ERR_COUNT] = {
	[VUR_PKT_OK] = "ok",
	[VUR_PKT_ERR_SHORT] = "bad_length",
	[VUR_PKT_ERR_L3] = "bad_l3",
	[VUR_PKT_ERR_OPCODE] = "bad_opcode",
	[VUR_PKT_ERR_BTH] = "bad_bth",
	[VUR_PKT_ERR_ICRC] = "bad_icrc",
};

const char *
vur_pkt_err_name(enum vur_pkt_err e)
{
	return e < VUR_PKT_ERR_COUNT ? err_names[e] : "?";
}

int
vur_pkt_init(void)
{
	static const struct rte_mbuf_dynflag desc = { .name = "vur_roce_local" };
	int bit = rte_mbuf_dynflag_register(&desc);

	if (bit < 0)
		return -rte_errno;
	local_flag = 1ULL << bit;
	return 0;
}

bool
vur_pkt_is_local(const struct rte_mbuf *m)
{
	return local_flag != 0 && (m->ol_flags & local_flag);
}

uint16_t
vur_pkt_sport(uint32_t src_qpn, uint32_t dst_qpn, uint32_t flow_label)
{
	/* ROCE-DEV-WIRE-6: the flow label when there is one, else the QP pair. */
	uint32_t h = flow_label != 0 ? flow_label : rte_jhash_2words(src_qpn, dst_qpn, 0);

	return (uint16_t)(0xc000 | ((h ^ (h >> 16)) & 0x3fff));
}

static uint32_t
ip_len(bool ipv6)
{
	return ipv6 ? IPV6_LEN : IPV4_LEN;
}

static uint32_t
pad_of(uint32_t pay_len)
{
	return (4 - (pay_len & 3)) & 3;
}

static void
put_ip(uint8_t *p, const struct vur_pkt_addr *a, uint32_t l4_len)
{
	uint8_t hop = a->hop_limit != 0 ? a->hop_limit : 64;
	uint8_t tc = a->ect ? (uint8_t)((a->traffic_class & ~VUR_ECN_MASK) | VUR_ECN_ECT0)
			    : a->traffic_class;

	if (a->ipv6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;

		ip->vtc_flow = rte_cpu_to_be_32(
				6u << 28 | (uint32_t)tc << 20 | (a->flow_label & 0xfffff));
		ip->payload_len = rte_cpu_to_be_16((uint16_t)l4_len);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = hop;
		/* uint8_t[16] before DPDK 24.11, struct rte_ipv6_addr since. */
		memcpy(&ip->src_addr, a->sgid, 16);
		memcpy(&ip->dst_addr, a->dgid, 16);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = 0x45;
		ip->type_of_service = tc;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(IPV4_LEN + l4_len));
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = hop;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, &a->sgid[12], 4);
		memcpy(&ip->dst_addr, &a->dgid[12], 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
}

/* The BTH and the extended headers of @mask at @p; returns the bytes written. */
static uint32_t
put_transport(uint8_t *p, const struct vur_pkt_hdrs *h, uint32_t mask, uint32_t pad)
{
	struct vur_bth bth = {
		.opcode = h->opcode,
		.flags = (uint8_t)((h->se ? VUR_BTH_SE : 0) | pad << 4),
		.pkey = RTE_BE16(VUR_PKEY_DEFAULT),
		.qpn = rte_cpu_to_be_32(h->dest_qpn & VUR_PSN_MASK),
		.apsn = rte_cpu_to_be_32(
				(h->psn & VUR_PSN_MASK) | (h->ack_req ? VUR_BTH_ACK_REQ : 0)),
	};
	uint32_t off = VUR_BTH_LEN;

	memcpy(p, &bth, sizeof(bth));
	if (mask & VUR_OPM_DETH) {
		struct vur_deth d = {
			.qkey = rte_cpu_to_be_32(h->qkey),
			.sqp = rte_cpu_to_be_32(h->src_qp & VUR_PSN_MASK),
		};

		memcpy(p + off, &d, sizeof(d));
		off += VUR_DETH_LEN;
	}
	if (mask & VUR_OPM_RETH) {
		struct vur_reth r = {
			.rkey = rte_cpu_to_be_32(h->rkey),
			.len = rte_cpu_to_be_32(h->dma_len),
		};
		uint64_t va = rte_cpu_to_be_64(h->va);

		memcpy(r.va, &va, sizeof(va));
		memcpy(p + off, &r, sizeof(r));
		off += VUR_RETH_LEN;
	}
	if (mask & VUR_OPM_ATOMIC) {
		struct vur_atomic_eth a = { .rkey = rte_cpu_to_be_32(h->rkey) };
		uint64_t v = rte_cpu_to_be_64(h->va);

		memcpy(a.va, &v, sizeof(v));
		v = rte_cpu_to_be_64(h->swap_add);
		memcpy(a.swap_add, &v, sizeof(v));
		v = rte_cpu_to_be_64(h->compare);
		memcpy(a.compare, &v, sizeof(v));
		memcpy(p + off, &a, sizeof(a));
		off += VUR_ATOMIC_ETH_LEN;
	}
	if (mask & VUR_OPM_AETH) {
		rte_be32_t a = rte_cpu_to_be_32(
				(uint32_t)h->syndrome << 24 | (h->msn & VUR_PSN_MASK));

		memcpy(p + off, &a, sizeof(a));
		off += VUR_AETH_LEN;
	}
	if (mask & VUR_OPM_ATOMIC_ACK) {
		uint64_t v = rte_cpu_to_be_64(h->orig);

		memcpy(p + off, &v, sizeof(v));
		off += VUR_ATOMIC_ACK_ETH_LEN;
	}
	if (mask & VUR_OPM_IMM) {
		memcpy(p + off, &h->imm, VUR_IMM_LEN);
		off += VUR_IMM_LEN;
	}
	if (mask & VUR_OPM_IETH) {
		rte_be32_t k = rte_cpu_to_be_32(h->ieth);

		memcpy(p + off, &k, sizeof(k));
		off += VUR_IETH_LEN;
	}
	return off;
}

struct rte_mbuf *
vur_pkt_build(struct rte_mempool *pool, const struct vur_pkt_addr *a, const struct vur_pkt_hdrs *h,
		uint32_t pay_len)
{
	const struct vur_opcode_info *oi = vur_opcode_info(h->opcode);
	uint32_t mask, ext, pad = pad_of(pay_len), roce_len, l3 = RTE_ETHER_HDR_LEN;
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	struct rte_mbuf *m;
	uint8_t *p;

	if (oi == NULL)
		return NULL;
	mask = oi->mask | (VUR_TRANSPORT(h->opcode) == VUR_TRANSPORT_UD ? VUR_OPM_DETH : 0);
	ext = VUR_BTH_LEN + vur_opcode_ext_len(mask);
	roce_len = ext + pay_len + pad + VUR_ICRC_LEN;
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(l3 + ip_len(a->ipv6) + UDP_LEN + ext));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eth = (struct rte_ether_hdr *)p;
	rte_ether_addr_copy(&a->dmac, &eth->dst_addr);
	rte_ether_addr_copy(&a->smac, &eth->src_addr);
	eth->ether_type = a->ipv6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : RTE_BE16(RTE_ETHER_TYPE_IPV4);
	put_ip(p + l3, a, UDP_LEN + roce_len);
	udp = (struct rte_udp_hdr *)(p + l3 + ip_len(a->ipv6));
	udp->src_port = rte_cpu_to_be_16(a->sport);
	udp->dst_port = RTE_BE16(VUR_ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(UDP_LEN + roce_len));
	udp->dgram_cksum = 0; /* RoCE v2 leaves it zero (Annex A17.4.3.1) */
	put_transport((uint8_t *)(udp + 1), h, mask, pad);
	m->ol_flags |= local_flag;
	return m;
}

/* The IPv4 total length (16 bits) with every header a message's packet may have and the pad. */
#define MAX_SEG_PAYLOAD                                                                   \
	(UINT16_MAX - IPV4_LEN - UDP_LEN - VUR_BTH_LEN - VUR_RETH_LEN - VUR_IMM_LEN - 3 - \
			VUR_ICRC_LEN)

uint32_t
vur_pkt_max_segs(uint32_t pmtu)
{
	return RTE_MAX(1u, RTE_MIN((uint32_t)VUR_PKT_MAX_SEGS, MAX_SEG_PAYLOAD / pmtu));
}

void
vur_pkt_set_seg_size(struct rte_mbuf *m, uint32_t seg_size)
{
	/* never handed to a PMD as it is: vur_pkt_to_wire() cuts it first */
	m->tso_segsz = (uint16_t)seg_size;
}

bool
vur_pkt_skip(struct vur_pkt *p, uint32_t n)
{
	uint8_t op;

	if (n == 0)
		return true;
	if (n >= p->npkts)
		return false;
	op = vur_op_segment(p->h.opcode, false, p->mask & VUR_OPM_LAST);
	p->h.opcode = op;
	p->mask = vur_opcode_info(op)->mask; /* of the same kind: known, never UD */
	p->h.psn = vur_psn_add(p->h.psn, n);
	p->pay_off += n * p->seg_size;
	p->pay_len -= n * p->seg_size;
	p->npkts -= n;
	return true;
}

int
vur_pkt_append_copy(struct rte_mbuf *m, const void *p, uint32_t len)
{
	void *dst;

	if (len == 0)
		return 0;
	dst = rte_pktmbuf_append(m, (uint16_t)len);
	if (dst == NULL || len > UINT16_MAX)
		return -ENOSPC;
	memcpy(dst, p, len);
	return 0;
}

/* Guest memory is not ours to free: the segments only borrow it. */
static void
borrowed_free(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

static struct rte_mbuf_ext_shared_info borrowed = {
	.free_cb = borrowed_free, .refcnt = 1, /* never reaches 0: every attach adds one */
};

int
vur_pkt_append_ref(struct rte_mbuf *m, struct rte_mempool *ext_pool, void *p, uint32_t len)
{
	struct rte_mbuf *seg;

	if (len == 0)
		return 0;
	if (len > UINT16_MAX)
		return -EINVAL;
	seg = rte_pktmbuf_alloc(ext_pool);
	if (seg == NULL)
		return -ENOMEM;
	rte_mbuf_ext_refcnt_update(&borrowed, 1);
	rte_pktmbuf_attach_extbuf(seg, p, RTE_BAD_IOVA, (uint16_t)len, &borrowed);
	seg->data_len = (uint16_t)len;
	seg->pkt_len = len;
	if (rte_pktmbuf_chain(m, seg) != 0) {
		rte_pktmbuf_free(seg);
		return -ENOSPC;
	}
	return 0;
}

/* The IP header at @p (@avail bytes): addresses, and the L4 length it declares. */
const uint8_t vur_pkt_v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

static enum vur_pkt_err
parse_ip(const uint8_t *p, uint32_t avail, struct vur_pkt *pk, uint32_t *l4_len)
{
	if (pk->ipv6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;

		if (avail < IPV6_LEN)
			return VUR_PKT_ERR_SHORT;
		if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6 || ip->proto != IPPROTO_UDP)
			return VUR_PKT_ERR_L3; /* extension headers are not RoCE v2 */
		memcpy(pk->sgid, &ip->src_addr, 16);
		memcpy(pk->dgid, &ip->dst_addr, 16);
		memcpy(pk->grh, p, IPV6_LEN);
		*l4_len = rte_be_to_cpu_16(ip->payload_len);
		pk->ce = ((rte_be_to_cpu_32(ip->vtc_flow) >> 20) & VUR_ECN_MASK) == VUR_ECN_CE;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;
		uint16_t frag;

		if (avail < IPV4_LEN)
			return VUR_PKT_ERR_SHORT;
		frag = rte_be_to_cpu_16(ip->fragment_offset);
		if (ip->version_ihl != 0x45 || ip->next_proto_id != IPPROTO_UDP ||
				(frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
			return VUR_PKT_ERR_L3; /* options or a fragment */
		if (rte_be_to_cpu_16(ip->total_length) < IPV4_LEN)
			return VUR_PKT_ERR_SHORT;
		/* each from the constant: reading back the bytes just stored stalls forwarding */
		memcpy(pk->sgid, vur_pkt_v4_mapped, 12);
		memcpy(pk->dgid, vur_pkt_v4_mapped, 12);
		memcpy(&pk->sgid[12], &ip->src_addr, 4);
		memcpy(&pk->dgid[12], &ip->dst_addr, 4);
		memset(pk->grh, 0, 20); /* as Linux RDMA stacks lay out an IPv4 "GRH" */
		memcpy(pk->grh + 20, p, IPV4_LEN);
		*l4_len = rte_be_to_cpu_16(ip->total_length) - IPV4_LEN;
		pk->ce = (ip->type_of_service & VUR_ECN_MASK) == VUR_ECN_CE;
	}
	return VUR_PKT_OK;
}

static void
get_transport(const uint8_t *p, struct vur_pkt *pk)
{
	struct vur_pkt_hdrs *h = &pk->h;
	struct vur_bth bth;
	uint32_t off = VUR_BTH_LEN, v;

	memcpy(&bth, p, sizeof(bth));
	h->opcode = bth.opcode;
	h->se = bth.flags & VUR_BTH_SE;
	h->dest_qpn = rte_be_to_cpu_32(bth.qpn) & VUR_PSN_MASK;
	v = rte_be_to_cpu_32(bth.apsn);
	h->psn = v & VUR_PSN_MASK;
	h->ack_req = v & VUR_BTH_ACK_REQ;
	if (pk->mask & VUR_OPM_DETH) {
		struct vur_deth d;

		memcpy(&d, p + off, sizeof(d));
		h->qkey = rte_be_to_cpu_32(d.qkey);
		h->src_qp = rte_be_to_cpu_32(d.sqp) & VUR_PSN_MASK;
		off += VUR_DETH_LEN;
	}
	if (pk->mask & VUR_OPM_RETH) {
		struct vur_reth r;
		uint64_t va;

		memcpy(&r, p + off, sizeof(r));
		memcpy(&va, r.va, sizeof(va));
		h->va = rte_be_to_cpu_64(va);
		h->rkey = rte_be_to_cpu_32(r.rkey);
		h->dma_len = rte_be_to_cpu_32(r.len);
		off += VUR_RETH_LEN;
	}
	if (pk->mask & VUR_OPM_ATOMIC) {
		struct vur_atomic_eth a;
		uint64_t w;

		memcpy(&a, p + off, sizeof(a));
		memcpy(&w, a.va, sizeof(w));
		h->va = rte_be_to_cpu_64(w);
		h->rkey = rte_be_to_cpu_32(a.rkey);
		memcpy(&w, a.swap_add, sizeof(w));
		h->swap_add = rte_be_to_cpu_64(w);
		memcpy(&w, a.compare, sizeof(w));
		h->compare = rte_be_to_cpu_64(w);
		off += VUR_ATOMIC_ETH_LEN;
	}
	if (pk->mask & VUR_OPM_AETH) {
		rte_be32_t a;

		memcpy(&a, p + off, sizeof(a));
		v = rte_be_to_cpu_32(a);
		h->syndrome = (uint8_t)(v >> 24);
		h->msn = v & VUR_PSN_MASK;
		off += VUR_AETH_LEN;
	}
	if (pk->mask & VUR_OPM_ATOMIC_ACK) {
		uint64_t w;

		memcpy(&w, p + off, sizeof(w));
		h->orig = rte_be_to_cpu_64(w);
		off += VUR_ATOMIC_ACK_ETH_LEN;
	}
	if (pk->mask & VUR_OPM_IMM) {
		memcpy(&h->imm, p + off, VUR_IMM_LEN);
		off += VUR_IMM_LEN;
	}
	if (pk->mask & VUR_OPM_IETH) {
		rte_be32_t k;

		memcpy(&k, p + off, sizeof(k));
		h->ieth = rte_be_to_cpu_32(k);
	}
}

/* A local packet that holds several: only a message's payload is cut, never UD's. */
static enum vur_pkt_err
parse_segments(struct vur_pkt *pk, uint32_t seg)
{
	if (!(pk->mask & VUR_OPM_PAYLOAD) || (pk->mask & VUR_OPM_DETH))
		return VUR_PKT_ERR_OPCODE;
	pk->seg_size = seg;
	pk->npkts = RTE_MAX(1u, (pk->pay_len + seg - 1) / seg);
	if (pk->npkts > VUR_PKT_MAX_SEGS || (!(pk->mask & VUR_OPM_LAST) && pk->pay_len % seg != 0))
		return VUR_PKT_ERR_SHORT;
	return VUR_PKT_OK;
}

/*
 * A parse's start: every field but the addresses, which a parse sets before
 * it succeeds. Field by field: a memset of this size is a rep stos, whose
 * start-up cost was 3% of a 64 B message.
 */
static void
clear(struct vur_pkt *pk, struct rte_mbuf *m)
{
	_Static_assert(offsetof(struct vur_pkt, sgid) == offsetof(struct vur_pkt, ipv6) + 1,
			"the fields before the addresses are those cleared here");
	pk->m = m;
	pk->mask = 0;
	pk->h = (struct vur_pkt_hdrs){ 0 };
	pk->pay_off = pk->pay_len = pk->seg_size = pk->npkts = 0;
	pk->ce = pk->ipv6 = false;
}

/* Parse @m whose first @avail bytes are at @p (only its headers are read there). */
static enum vur_pkt_err
parse(struct rte_mbuf *m, const uint8_t *p, uint32_t avail, uint8_t *buf, struct vur_pkt *pk)
{
	uint32_t l4_len, l4, bth_off;
	uint32_t roce_len, hdr_len, pad, frame_len, icrc_off;
	rte_le32_t icrc;
	const struct vur_opcode_info *oi;
	const struct rte_ether_hdr *eth;
	const struct rte_udp_hdr *udp;
	enum vur_pkt_err e;
	uint16_t type;

	clear(pk, m);
	if (avail < RTE_ETHER_HDR_LEN)
		return VUR_PKT_ERR_SHORT;
	eth = (const struct rte_ether_hdr *)p;
	rte_ether_addr_copy(&eth->src_addr, &pk->smac);
	type = rte_be_to_cpu_16(eth->ether_type);
	if (type != RTE_ETHER_TYPE_IPV4 && type != RTE_ETHER_TYPE_IPV6)
		return VUR_PKT_ERR_L3; /* RoCE v2 travels untagged in this version */
	pk->ipv6 = type == RTE_ETHER_TYPE_IPV6;
	e = parse_ip(p + RTE_ETHER_HDR_LEN, avail - RTE_ETHER_HDR_LEN, pk, &l4_len);
	if (e != VUR_PKT_OK)
		return e;
	l4 = RTE_ETHER_HDR_LEN + ip_len(pk->ipv6);
	bth_off = l4 + UDP_LEN;
	if (avail < bth_off + VUR_BTH_LEN)
		return VUR_PKT_ERR_SHORT;
	udp = (const struct rte_udp_hdr *)(p + l4);
	if (udp->dst_port != RTE_BE16(VUR_ROCE_UDP_PORT))
		return VUR_PKT_ERR_L3;
	if (rte_be_to_cpu_16(udp->dgram_len) != l4_len)
		return VUR_PKT_ERR_SHORT;
	oi = vur_opcode_info(p[bth_off]);
	if (oi == NULL)
		return VUR_PKT_ERR_OPCODE;
	pk->mask = oi->mask | (VUR_TRANSPORT(p[bth_off]) == VUR_TRANSPORT_UD ? VUR_OPM_DETH : 0);
	hdr_len = VUR_BTH_LEN + vur_opcode_ext_len(pk->mask);
	if (avail < bth_off + hdr_len)
		return VUR_PKT_ERR_SHORT;
	/* TVer 0; the P_Key matches 0xFFFF if its low 15 bits are all ones (IBTA 10.9.3). */
	if ((p[bth_off + 1] & 0x0f) != 0 || (p[bth_off + 3] != 0xff) ||
			((p[bth_off + 2] & 0x7f) != 0x7f))
		return VUR_PKT_ERR_BTH;
	get_transport(p + bth_off, pk);
	pad = VUR_BTH_PAD(p[bth_off + 1]);
	roce_len = l4_len - UDP_LEN; /* BTH to ICRC */
	if (l4_len < UDP_LEN || roce_len < hdr_len + pad + VUR_ICRC_LEN)
		return VUR_PKT_ERR_SHORT;
	pk->pay_off = bth_off + hdr_len;
	pk->pay_len = roce_len - hdr_len - pad - VUR_ICRC_LEN;
	if (!(pk->mask & VUR_OPM_PAYLOAD) && pk->pay_len != 0)
		return VUR_PKT_ERR_SHORT;
	frame_len = bth_off + roce_len;
	icrc_off = frame_len - VUR_ICRC_LEN;
	pk->npkts = 1;
	if (vur_pkt_is_local(m)) {
		/* pad and ICRC elided; the payload must be all there */
		if (m->pkt_len != pk->pay_off + pk->pay_len)
			return VUR_PKT_ERR_SHORT;
		return m->tso_segsz != 0 ? parse_segments(pk, m->tso_segsz) : VUR_PKT_OK;
	}
	if (m->pkt_len < frame_len) /* more is Ethernet padding */
		return VUR_PKT_ERR_SHORT;
	p = rte_pktmbuf_read(m, icrc_off, sizeof(icrc), buf); /* the headers are read */
	if (p == NULL)
		return VUR_PKT_ERR_SHORT;
	memcpy(&icrc, p, sizeof(icrc));
	if (rte_le_to_cpu_32(icrc) != vur_icrc_compute(m, RTE_ETHER_HDR_LEN, icrc_off, pk->ipv6))
		return VUR_PKT_ERR_ICRC; /* ROCE-DEV-WIRE-2 */
	return VUR_PKT_OK;
}

enum vur_pkt_err
vur_pkt_parse(struct rte_mbuf *m, struct vur_pkt *pk)
{
	uint8_t buf[VUR_PKT_MAX_HDR + 8];
	uint32_t avail = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
	const uint8_t *p;
	enum vur_pkt_err e;

	/*
	 * An engine's packet has its headers in the first segment and its
	 * payload (the sender's guest memory) after: parse the headers where
	 * they are, without copying them or touching the payload. Bytes past
	 * the first segment are needed only if the headers go on beyond it.
	 */
	if (rte_pktmbuf_data_len(m) < avail) {
		e = parse(m, rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), buf,
				pk);
		if (e != VUR_PKT_ERR_SHORT)
			return e;
	}
	p = rte_pktmbuf_read(m, 0, avail, buf);
	if (p == NULL) {
		clear(pk, m);
		return VUR_PKT_ERR_SHORT;
	}
	return parse(m, p, avail, buf, pk);
}

uint32_t
vur_pkt_copy_payload(const struct vur_pkt *p, uint32_t off, void *dst, uint32_t len)
{
	const struct rte_mbuf *m = p->m;
	uint32_t pos = p->pay_off + off, done = 0, n;

	if (off > p->pay_len)
		return 0;
	len = RTE_MIN(len, p->pay_len - off);
	while (m != NULL && pos >= m->data_len) {
		pos -= m->data_len;
		m = m->next;
	}
	for (; m != NULL && done < len; m = m->next, pos = 0) {
		n = RTE_MIN(len - done, (uint32_t)m->data_len - pos);
		/*
		 * A local packet borrows its sender's guest memory, which may be the
		 * destination's too (a READ or WRITE between two QPs of one guest
		 * over ranges that overlap): memmove, whose result the guest asked
		 * for, not memcpy's undefined behaviour.
		 */
		memmove((uint8_t *)dst + done, rte_pktmbuf_mtod_offset(m, const uint8_t *, pos), n);
		done += n;
	}
	return done;
}

/* Append @len bytes to the chain @w, from @src or zeros when NULL; false when @pool runs dry. */
static bool
chain_append(struct rte_mbuf *w, struct rte_mempool *pool, const struct vur_pkt *src,
		uint32_t src_off, uint32_t len)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(w), *seg;
	uint32_t n;
	uint8_t *dst;

	while (len > 0) {
		if (rte_pktmbuf_tailroom(last) == 0) {
			seg = rte_pktmbuf_alloc(pool);
			if (seg == NULL || rte_pktmbuf_chain(w, seg) != 0) {
				rte_pktmbuf_free(seg);
				return false;
			}
			last = seg;
		}
		n = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(last));
		dst = rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len);
		if (src != NULL) {
			vur_pkt_copy_payload(src, src_off, dst, n);
			src_off += n;
		} else {
			memset(dst, 0, n);
		}
		last->data_len = (uint16_t)(last->data_len + n);
		w->pkt_len += n;
		len -= n;
	}
	return true;
}

/* Set the IP and UDP lengths of the headers at @p for @roce_len bytes from the BTH on. */
static void
put_lengths(uint8_t *p, bool ipv6, uint32_t roce_len)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(p + ip_len(ipv6));

	if (ipv6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;

		ip->payload_len = rte_cpu_to_be_16((uint16_t)(UDP_LEN + roce_len));
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

		ip->total_length = rte_cpu_to_be_16((uint16_t)(IPV4_LEN + UDP_LEN + roce_len));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(UDP_LEN + roce_len));
}

/* Packet @i of the @pk->npkts that @pk holds, whole, from @pool. */
static struct rte_mbuf *
wire_packet(const struct vur_pkt *pk, const uint8_t *hdr, uint32_t bth_off, uint32_t i,
		struct rte_mempool *pool)
{
	bool first = (pk->mask & VUR_OPM_FIRST) && i == 0;
	bool last = (pk->mask & VUR_OPM_LAST) && i + 1 == pk->npkts;
	struct vur_pkt_hdrs h = pk->h;
	uint32_t off = i * pk->seg_size, len, pad, mask, ext;
	struct rte_mbuf *w;
	rte_le32_t icrc;
	uint8_t *p;

	if (pk->npkts > 1) {
		h.opcode = vur_op_segment(pk->h.opcode, first, last);
		h.psn = vur_psn_add(pk->h.psn, i);
		h.se = last && pk->h.se;
		h.ack_req = i + 1 == pk->npkts && pk->h.ack_req;
	}
	len = pk->npkts > 1 ? RTE_MIN(pk->seg_size, pk->pay_len - off) : pk->pay_len;
	pad = pad_of(len);
	mask = vur_opcode_info(h.opcode)->mask | (pk->mask & VUR_OPM_DETH);
	ext = VUR_BTH_LEN + vur_opcode_ext_len(mask);
	w = rte_pktmbuf_alloc(pool);
	if (w == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(w, (uint16_t)(bth_off + ext));
	if (p == NULL) {
		rte_pktmbuf_free(w);
		return NULL;
	}
	memcpy(p, hdr, bth_off); /* Ethernet, IP, UDP: the same but for the lengths */
	put_lengths(p + RTE_ETHER_HDR_LEN, pk->ipv6, ext + len + pad + VUR_ICRC_LEN);
	put_transport(p + bth_off, &h, mask, pad);
	if (!chain_append(w, pool, pk, off, len) || !chain_append(w, pool, NULL, 0, pad)) {
		rte_pktmbuf_free(w);
		return NULL;
	}
	icrc = rte_cpu_to_le_32(vur_icrc_compute(w, RTE_ETHER_HDR_LEN, w->pkt_len, pk->ipv6));
	p = (uint8_t *)rte_pktmbuf_append(w, sizeof(icrc));
	if (p == NULL) {
		/* the last segment is full: the ICRC starts one of its own */
		if (!chain_append(w, pool, NULL, 0, sizeof(icrc))) {
			rte_pktmbuf_free(w);
			return NULL;
		}
		p = rte_pktmbuf_mtod_offset(rte_pktmbuf_lastseg(w), uint8_t *,
				rte_pktmbuf_lastseg(w)->data_len - sizeof(icrc));
	}
	memcpy(p, &icrc, sizeof(icrc));
	return w;
}

uint16_t
vur_pkt_to_wire(const struct rte_mbuf *m, struct rte_mempool *pool, struct rte_mbuf **out,
		uint16_t max)
{
	uint8_t buf[VUR_PKT_MAX_HDR + 8];
	const uint8_t *hdr;
	uint32_t bth_off;
	struct vur_pkt pk;
	uint16_t i;

	if (vur_pkt_parse((struct rte_mbuf *)(uintptr_t)m, &pk) != VUR_PKT_OK || pk.npkts > max)
		return 0;
	bth_off = RTE_ETHER_HDR_LEN + ip_len(pk.ipv6) + UDP_LEN;
	hdr = rte_pktmbuf_read(m, 0, bth_off, buf);
	if (hdr == NULL)
		return 0;
	for (i = 0; i < pk.npkts; i++) {
		out[i] = wire_packet(&pk, hdr, bth_off, i, pool);
		if (out[i] == NULL) {
			rte_pktmbuf_free_bulk(out, i);
			return 0;
		}
	}
	return i;
}
