/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

#include "net/net_vlan.h"

#define MACS_LEN (2 * RTE_ETHER_ADDR_LEN)

/*
 * Whether @m may be written in place: nobody else holds it, nor its buffer
 * (a clone attached to a direct mbuf holds a reference to it).
 */
static bool
exclusive(const struct rte_mbuf *m)
{
	return rte_mbuf_refcnt_read(m) == 1 && RTE_MBUF_DIRECT(m);
}

bool
vur_vlan_frame_tagged(const uint8_t *p, uint32_t len)
{
	uint16_t type;

	if (len < MACS_LEN + 2)
		return false;
	memcpy(&type, p + MACS_LEN, 2);
	type = rte_be_to_cpu_16(type);
	return type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ;
}

/* The tag at @m's offset 12, when 802.1Q and wholly in the first segment. */
static bool
read_tag(const struct rte_mbuf *m, struct rte_vlan_hdr *tag)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	rte_be16_t tpid;

	if (m->data_len < MACS_LEN + VUR_VLAN_TAG_LEN + 2)
		return false;
	memcpy(&tpid, p + MACS_LEN, 2);
	if (tpid != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		return false;
	tag->vlan_tci = 0;
	memcpy(&tag->vlan_tci, p + MACS_LEN + 2, 2);
	return true;
}

int
vur_vlan_outer_vid(const struct rte_mbuf *m)
{
	struct rte_vlan_hdr tag;

	return read_tag(m, &tag) ? rte_be_to_cpu_16(tag.vlan_tci) & 0xfff : -1;
}

int
vur_vlan_pop(struct rte_mbuf *m)
{
	struct rte_vlan_hdr tag;
	uint8_t *p;

	if (!exclusive(m) || !read_tag(m, &tag))
		return -EINVAL;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memmove(p + VUR_VLAN_TAG_LEN, p, MACS_LEN);
	rte_pktmbuf_adj(m, VUR_VLAN_TAG_LEN);
	return 0;
}

static void
write_tag(uint8_t *p, uint16_t vid)
{
	rte_be16_t v[2] = { RTE_BE16(RTE_ETHER_TYPE_VLAN), rte_cpu_to_be_16(vid & 0xfff) };

	memcpy(p, v, sizeof(v));
}

int
vur_vlan_push(struct rte_mbuf *m, uint16_t vid)
{
	uint8_t *p;

	if (!exclusive(m) || m->data_len < MACS_LEN || rte_pktmbuf_headroom(m) < VUR_VLAN_TAG_LEN)
		return -EINVAL;
	p = (uint8_t *)rte_pktmbuf_prepend(m, VUR_VLAN_TAG_LEN);
	memmove(p, p + VUR_VLAN_TAG_LEN, MACS_LEN);
	write_tag(p + MACS_LEN, vid);
	return 0;
}

/* Append @len bytes of @src from @off to the chain ending in @*last. */
static int
copy_in(struct rte_mbuf *head, struct rte_mbuf **last, const struct rte_mbuf *src, uint32_t off,
		uint32_t len, struct rte_mempool *mp)
{
	struct rte_mbuf *seg = *last;
	const void *p;
	uint32_t n;

	while (len > 0) {
		if (rte_pktmbuf_tailroom(seg) == 0) {
			seg = rte_pktmbuf_alloc(mp);
			if (seg == NULL)
				return -ENOMEM;
			(*last)->next = seg;
			head->nb_segs++;
			*last = seg;
		}
		n = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(seg));
		p = rte_pktmbuf_read(
				src, off, n, rte_pktmbuf_mtod_offset(seg, void *, seg->data_len));
		if (p != rte_pktmbuf_mtod_offset(seg, void *, seg->data_len))
			memcpy(rte_pktmbuf_mtod_offset(seg, void *, seg->data_len), p, n);
		seg->data_len += n;
		head->pkt_len += n;
		off += n;
		len -= n;
	}
	return 0;
}

struct rte_mbuf *
vur_vlan_push_copy(const struct rte_mbuf *m, uint16_t vid, struct rte_mempool *mp)
{
	uint8_t tag[VUR_VLAN_TAG_LEN];
	struct rte_mbuf *head, *last;

	if (m->pkt_len < MACS_LEN)
		return NULL;
	head = rte_pktmbuf_alloc(mp);
	if (head == NULL)
		return NULL;
	last = head;
	write_tag(tag, vid);
	if (copy_in(head, &last, m, 0, MACS_LEN, mp) != 0)
		goto fail;
	/* the tag: bytes of our own, appended as from a one-segment source */
	if (rte_pktmbuf_tailroom(last) < VUR_VLAN_TAG_LEN)
		goto fail; /* a data room under 16 bytes: no pool of ours */
	memcpy(rte_pktmbuf_mtod_offset(last, void *, last->data_len), tag, sizeof(tag));
	last->data_len += VUR_VLAN_TAG_LEN;
	head->pkt_len += VUR_VLAN_TAG_LEN;
	if (copy_in(head, &last, m, MACS_LEN, m->pkt_len - MACS_LEN, mp) != 0)
		goto fail;
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}
