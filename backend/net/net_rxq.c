/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
#include <string.h>
#include <sys/eventfd.h>

#include <linux/virtio_net.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "net/net_rxq.h"

/* Where the next byte of a frame comes from. */
struct src {
	const struct rte_mbuf *seg;
	uint32_t off;
};

/* Copy @len bytes from @s into @c's writable part at @off. */
static void
copy_out(const struct vur_chain *c, uint32_t off, struct src *s, uint32_t len)
{
	uint32_t n;

	while (len > 0 && s->seg != NULL) {
		n = RTE_MIN(len, (uint32_t)s->seg->data_len - s->off);
		vur_chain_write(c, off, rte_pktmbuf_mtod_offset(s->seg, void *, s->off), n);
		off += n;
		len -= n;
		s->off += n;
		if (s->off == s->seg->data_len) {
			s->seg = s->seg->next;
			s->off = 0;
		}
	}
}

static void
drop(struct vur_net_dev *nd, enum vur_net_drop why, const char *what)
{
	nd->stats.drops[why]++;
	if (what != NULL)
		VUR_LOG_LIMITED(&nd->log_rl, nd->name, net, NOTICE, "rx: %s", what);
}

/* Most receive buffers one frame may take: a 64 KiB frame in 256-byte buffers. */
#define MAX_MERGE 256

/* The chains a frame is being written into: filled, not yet published. */
struct merge {
	uint16_t k;
	uint16_t heads[MAX_MERGE];
	struct vur_chain first; /* where the header goes, written last */
	struct vur_chain cur;
};

/* After a bad chain: every chain taken goes back used, with nothing written. */
static void
return_empty(struct vur_split_ring *r, const struct merge *mg)
{
	for (uint16_t i = 0; i < mg->k; i++)
		vur_split_ring_fill(r, i, mg->heads[i], 0);
	vur_split_ring_flush(r, mg->k);
}

/* Write one frame. Returns true when delivered; false when dropped (counted). */
static bool
write_frame(struct vur_net_dev *nd, const struct rte_mbuf *m, bool *pushed)
{
	struct vur_split_ring *r = &nd->rxq.ring;
	struct virtio_net_hdr_mrg_rxbuf hdr;
	uint32_t left = m->pkt_len, off, n;
	struct src s = { m, 0 };
	struct merge mg;
	const char *why;

	mg.k = 0;
	do {
		if (mg.k == RTE_MIN(r->size, MAX_MERGE)) {
			vur_split_ring_unpop(r, mg.k);
			drop(nd, VUR_NET_DROP_RX_NO_BUFFER, NULL);
			return false;
		}
		switch (vur_split_ring_pop(r, nd->rxq.mem, &mg.cur, &why)) {
		case VUR_POP_EMPTY:
			vur_split_ring_unpop(r, mg.k);
			drop(nd, VUR_NET_DROP_RX_NO_BUFFER, NULL);
			return false;
		case VUR_POP_BROKEN:
			vur_split_ring_unpop(r, mg.k);
			if (!nd->rxq.broken_seen) {
				nd->rxq.broken_seen = true;
				drop(nd, VUR_NET_DROP_RING_BROKEN, why);
			}
			return false;
		case VUR_POP_BAD_CHAIN:
			mg.heads[mg.k++] = mg.cur.head;
			return_empty(r, &mg);
			*pushed = true;
			drop(nd, VUR_NET_DROP_RX_BAD_CHAIN, why);
			return false;
		case VUR_POP_OK:
			break;
		}
		/* 5.1.6.3.1: every buffer holds at least the header when merging. */
		if (nd->mrg_rxbuf && mg.cur.in_len < (mg.k == 0 ? nd->hdr_len : 1u)) {
			mg.heads[mg.k++] = mg.cur.head;
			return_empty(r, &mg);
			*pushed = true;
			drop(nd, VUR_NET_DROP_RX_BAD_CHAIN,
					"receive buffer smaller than the header");
			return false;
		}
		/* Without merging the one chain takes all; a frame too big is dropped. */
		if (!nd->mrg_rxbuf && mg.cur.in_len < nd->hdr_len + left) {
			vur_split_ring_unpop(r, 1);
			drop(nd, VUR_NET_DROP_RX_NO_BUFFER, NULL);
			return false;
		}
		off = 0;
		if (mg.k == 0) {
			off = nd->hdr_len;
			mg.first = mg.cur;
		}
		n = RTE_MIN(left, mg.cur.in_len - off);
		copy_out(&mg.cur, off, &s, n);
		left -= n;
		vur_split_ring_fill(r, mg.k, mg.cur.head, off + n);
		mg.heads[mg.k++] = mg.cur.head;
	} while (left > 0);

	/* No offloads: flags 0, GSO_NONE; num_buffers is 1 without MRG_RXBUF (5.1.6.4). */
	memset(&hdr, 0, sizeof(hdr));
	hdr.num_buffers = rte_cpu_to_le_16(mg.k);
	vur_chain_write(&mg.first, 0, &hdr, nd->hdr_len);
	vur_split_ring_flush(r, mg.k);
	*pushed = true;
	nd->stats.rx_frames++;
	nd->stats.rx_bytes += m->pkt_len;
	nd->stats.rx_buffers += mg.k;
	return true;
}

uint16_t
vur_net_rxq_enqueue(struct vur_net_dev *nd, struct rte_mbuf **pkts, uint16_t n)
{
	bool pushed = false;
	uint16_t done = 0;

	for (uint16_t i = 0; i < n; i++)
		done += write_frame(nd, pkts[i], &pushed);
	if (pushed && nd->rxq.callfd >= 0 && vur_split_ring_need_notify(&nd->rxq.ring))
		eventfd_write(nd->rxq.callfd, 1);
	return done;
}
