/* SPDX-License-Identifier: BSD-3-Clause */
#include <sys/eventfd.h>

#include <linux/virtio_net.h>

#include <rte_ether.h>

#include "common/log.h"
#include "net/net_antispoof.h"
#include "net/net_state.h"
#include "net/net_txq.h"
#include "net/net_vlan.h"

/* Copy @len bytes of @c's readable part from @off into a chain of mbufs. */
static struct rte_mbuf *
copy_to_mbufs(const struct vur_chain *c, uint32_t off, uint32_t len, struct rte_mempool *mp)
{
	struct rte_mbuf *head = NULL, *last = NULL, *seg;
	uint32_t n;

	while (head == NULL || len > 0) {
		seg = rte_pktmbuf_alloc(mp);
		if (seg == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		n = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(seg));
		vur_chain_read(c, off, rte_pktmbuf_mtod(seg, void *), n);
		seg->data_len = n;
		if (head == NULL) {
			head = seg;
		} else {
			last->next = seg;
			head->nb_segs++;
		}
		head->pkt_len += n;
		last = seg;
		off += n;
		len -= n;
	}
	return head;
}

/* Whether the device's address policy drops the frame of @len bytes in @c (counted). */
static bool
spoofed(struct vur_net_dev *nd, const struct vur_chain *c, uint32_t len)
{
	uint8_t head[VUR_ANTISPOOF_LEN];
	enum vur_spoof why;

	len = RTE_MIN(len, (uint32_t)sizeof(head));
	vur_chain_read(c, nd->hdr_len, head, len);
	why = vur_antispoof_check(nd->policy, nd->filter->mac, head, len);
	if (why == VUR_SPOOF_NONE)
		return false;
	nd->stats.drops[why == VUR_SPOOF_MAC ? VUR_NET_DROP_TX_SPOOFED_MAC
					     : VUR_NET_DROP_TX_SPOOFED_IP]++;
	return true;
}

/* Whether the frame of @len bytes in @c carries a VLAN tag (dropped and counted then). */
static bool
tagged(struct vur_net_dev *nd, const struct vur_chain *c, uint32_t len)
{
	uint8_t head[RTE_ETHER_HDR_LEN];

	vur_chain_read(c, nd->hdr_len, head, sizeof(head)); /* len >= RTE_ETHER_HDR_LEN */
	if (!vur_vlan_frame_tagged(head, RTE_MIN(len, (uint32_t)sizeof(head))))
		return false;
	nd->stats.drops[VUR_NET_DROP_TX_TAGGED]++;
	return true;
}

/* Check one chain and copy its frame. NULL when dropped (and counted). */
static struct rte_mbuf *
take_frame(struct vur_net_dev *nd, const struct vur_chain *c, struct rte_mempool *mp)
{
	struct virtio_net_hdr hdr;
	struct rte_mbuf *m;
	uint32_t len;

	/* 5.1.6.2: the header, then the frame; we write nothing back. */
	if (c->out_len < (uint32_t)nd->hdr_len + RTE_ETHER_HDR_LEN ||
			c->out_len - nd->hdr_len > nd->max_frame) {
		nd->stats.drops[VUR_NET_DROP_TX_BAD_LEN]++;
		VUR_LOG_LIMITED(&nd->log_rl, nd->name, net, NOTICE,
				"tx: dropped a chain of %u bytes (header %u, frames up to %u)",
				c->out_len, nd->hdr_len, nd->max_frame);
		return NULL;
	}
	vur_chain_read(c, 0, &hdr, sizeof(hdr));
	/* No CSUM or GSO feature is offered: a driver must not ask for them (5.1.6.2.1). */
	if (hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE || (hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
		nd->stats.drops[VUR_NET_DROP_TX_BAD_HDR]++;
		VUR_LOG_LIMITED(&nd->log_rl, nd->name, net, NOTICE,
				"tx: offload requested without the feature (flags 0x%x, gso %u)",
				hdr.flags, hdr.gso_type);
		return NULL;
	}
	/* A NIC whose link is down sends nothing; the chain is consumed all the same. */
	if (nd->link_down) {
		nd->stats.drops[VUR_NET_DROP_LINK_DOWN]++;
		return NULL;
	}
	len = c->out_len - nd->hdr_len;
	/* ROCE-DEV-POLICY-10: on an access port the guest does not pick its VLAN */
	if (nd->vlan != VUR_VLAN_NONE && tagged(nd, c, len))
		return NULL;
	/* ROCE-DEV-POLICY-4/5: without a policy, this one test is all a frame costs */
	if (unlikely(vur_antispoof_active(nd->policy)) && spoofed(nd, c, len))
		return NULL;
	/* over the device's transmit limit: dropped, as a switch's policer does */
	if (vur_txrate_limited(nd->txrate) &&
			!vur_txrate_police(nd->txrate, len, vur_txrate_now_ns()))
		return NULL;
	m = copy_to_mbufs(c, nd->hdr_len, len, mp);
	if (m == NULL) {
		nd->stats.drops[VUR_NET_DROP_TX_NO_MBUF]++;
		return NULL;
	}
	nd->stats.tx_frames++;
	nd->stats.tx_bytes += len;
	return m;
}

uint16_t
vur_net_txq_burst(struct vur_net_dev *nd, struct rte_mempool *mp, struct rte_mbuf **pkts,
		uint16_t max)
{
	struct vur_net_vq *q = &nd->txq;
	struct vur_chain chain;
	uint16_t n = 0, used = 0;
	const char *why;
	bool more = true;

	while (more && n < max) {
		switch (vur_split_ring_pop(&q->ring, q->mem, &chain, &why)) {
		case VUR_POP_OK:
			pkts[n] = take_frame(nd, &chain, mp);
			n += pkts[n] != NULL;
			break;
		case VUR_POP_BAD_CHAIN:
			nd->stats.drops[VUR_NET_DROP_TX_BAD_CHAIN]++;
			VUR_LOG_LIMITED(&nd->log_rl, nd->name, net, NOTICE, "tx: %s", why);
			break;
		case VUR_POP_BROKEN:
			if (!q->broken_seen) {
				q->broken_seen = true;
				nd->stats.drops[VUR_NET_DROP_RING_BROKEN]++;
				VUR_LOG_LIMITED(&nd->log_rl, nd->name, net, ERR,
						"tx queue broken: %s", why);
			}
			/* fall through */
		case VUR_POP_EMPTY:
			more = false;
			continue;
		}
		/* Every chain goes back at once: its data is copied (5.1.6.2). */
		vur_split_ring_push(&q->ring, chain.head, 0);
		used++;
	}
	if (used > 0 && q->callfd >= 0 && vur_split_ring_need_notify(&q->ring))
		eventfd_write(q->callfd, 1);
	return n;
}
