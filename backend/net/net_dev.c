/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include <rte_ether.h>
#include <rte_vhost.h>

#include "common/log.h"
#include "net/net_dev.h"
#include "net/net_switch.h"

#define BIT(b) (1ULL << (b))

static const char *const drop_names[VUR_NET_DROP_COUNT] = {
	[VUR_NET_DROP_TX_BAD_CHAIN] = "drop_tx_bad_chain",
	[VUR_NET_DROP_TX_BAD_LEN] = "drop_tx_bad_length",
	[VUR_NET_DROP_TX_BAD_HDR] = "drop_tx_bad_header",
	[VUR_NET_DROP_TX_NO_MBUF] = "drop_tx_no_mbuf",
	[VUR_NET_DROP_RX_NOT_READY] = "drop_rx_not_ready",
	[VUR_NET_DROP_LINK_DOWN] = "drop_link_down",
	[VUR_NET_DROP_RX_NO_MBUF] = "drop_rx_no_mbuf",
	[VUR_NET_DROP_RX_FILTERED] = "drop_rx_filtered",
	[VUR_NET_DROP_RX_NO_BUFFER] = "drop_rx_no_buffer",
	[VUR_NET_DROP_RX_BAD_CHAIN] = "drop_rx_bad_chain",
	[VUR_NET_DROP_RING_BROKEN] = "drop_ring_broken",
	[VUR_NET_DROP_TX_SPOOFED_MAC] = "drop_tx_spoofed_mac",
	[VUR_NET_DROP_TX_SPOOFED_IP] = "drop_tx_spoofed_ip",
	[VUR_NET_DROP_TX_TAGGED] = "drop_tx_tagged",
};

const char *
vur_net_drop_name(enum vur_net_drop why)
{
	return why < VUR_NET_DROP_COUNT ? drop_names[why] : "?";
}

static void
vq_init(struct vur_net_vq *q, uint16_t qid)
{
	memset(q, 0, sizeof(*q));
	q->qid = qid;
	q->callfd = q->kickfd = -1;
}

void
vur_net_dev_init(struct vur_net_dev *nd, pthread_rwlock_t *lock, const char *name,
		const struct vur_net_state *filter, struct vur_rdma_dev *rdma)
{
	memset(nd, 0, sizeof(*nd));
	nd->lock = lock;
	nd->name = name;
	nd->filter = filter;
	nd->rdma = rdma;
	nd->slot = -1;
	nd->vid = -1;
	vq_init(&nd->rxq, VUR_NET_RX_VQ);
	vq_init(&nd->txq, VUR_NET_TX_VQ);
}

int
vur_net_dev_attach(struct vur_net_dev *nd, struct vur_switch *sw)
{
	int slot = vur_switch_attach(sw, nd);

	if (slot < 0)
		return slot;
	nd->sw = sw;
	nd->slot = slot;
	return 0;
}

void
vur_net_dev_set_vlan(struct vur_net_dev *nd, uint16_t vlan)
{
	nd->vlan = vlan;
	if (nd->sw != NULL)
		vur_switch_set_vlan(nd->sw, nd->slot, vlan);
}

void
vur_net_dev_detach(struct vur_net_dev *nd)
{
	if (nd->sw == NULL)
		return;
	vur_switch_detach(nd->sw, nd->slot);
	nd->sw = NULL;
	nd->slot = -1;
}

static int
vq_start(struct vur_net_dev *nd, struct vur_net_vq *q, uint64_t negotiated)
{
	struct rte_vhost_vring vr;
	uint16_t last_avail, last_used;

	if (rte_vhost_get_vhost_vring(nd->vid, q->qid, &vr) != 0 || vr.desc == NULL ||
			vr.size == 0 ||
			rte_vhost_get_vring_base(nd->vid, q->qid, &last_avail, &last_used) != 0)
		return -EINVAL;
	if (rte_vhost_get_mem_table(nd->vid, &q->mem) != 0)
		return -ENOMEM;
	if (!vur_split_ring_in_mem(q->mem, vr.size, vr.desc, vr.avail, vr.used,
			    negotiated & BIT(VIRTIO_RING_F_EVENT_IDX))) {
		VUR_LOG_LIMITED(&nd->log_rl, nd->name, net, ERR,
				"vring %u: %u entries do not fit where it is: not served", q->qid,
				vr.size);
		free(q->mem);
		q->mem = NULL;
		return -EINVAL;
	}
	q->callfd = vr.callfd;
	q->kickfd = vr.kickfd;
	q->broken_seen = false;
	vur_split_ring_init(&q->ring, vr.size, vr.desc, vr.avail, vr.used, last_avail, last_used,
			negotiated & BIT(VIRTIO_RING_F_EVENT_IDX));
	q->active = true;
	return 0;
}

static void
vq_stop(struct vur_net_dev *nd, struct vur_net_vq *q)
{
	if (!q->active)
		return;
	q->active = false;
	/* librte_vhost answers GET_VRING_BASE from these. */
	rte_vhost_set_vring_base(nd->vid, q->qid, q->ring.last_avail, q->ring.used_idx);
	free(q->mem);
	q->mem = NULL;
	q->callfd = q->kickfd = -1;
}

void
vur_net_dev_start(struct vur_net_dev *nd, int vid, uint64_t negotiated, uint16_t mtu, bool rx_ready,
		bool tx_ready)
{
	int ret;

	if (nd->sw == NULL)
		return;
	nd->vid = vid;
	nd->mrg_rxbuf = negotiated & BIT(VIRTIO_NET_F_MRG_RXBUF);
	/* 5.1.6.1: the header has num_buffers with VERSION_1 or MRG_RXBUF. */
	nd->hdr_len = nd->mrg_rxbuf || (negotiated & BIT(VIRTIO_F_VERSION_1))
			? sizeof(struct virtio_net_hdr_mrg_rxbuf)
			: sizeof(struct virtio_net_hdr);
	nd->max_frame = (uint32_t)mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN;
	if (rx_ready && !nd->rxq.active) {
		ret = vq_start(nd, &nd->rxq, negotiated);
		if (ret < 0)
			VUR_LOG(net, ERR, "%s: cannot serve the receive queue: %s", nd->name,
					strerror(-ret));
	}
	if (tx_ready && !nd->txq.active) {
		ret = vq_start(nd, &nd->txq, negotiated);
		if (ret == 0) {
			ret = vur_switch_watch_kick(nd->sw, nd->slot, nd->txq.kickfd);
			if (ret < 0)
				vq_stop(nd, &nd->txq);
		}
		if (ret < 0)
			VUR_LOG(net, ERR, "%s: cannot serve the transmit queue: %s", nd->name,
					strerror(-ret));
		else /* frames queued before the kick was watched would wait for the next */
			eventfd_write(nd->txq.kickfd, 1);
	}
}

void
vur_net_dev_stop(struct vur_net_dev *nd, int qid)
{
	if (qid < 0 || qid == VUR_NET_RX_VQ)
		vq_stop(nd, &nd->rxq);
	if ((qid < 0 || qid == VUR_NET_TX_VQ) && nd->txq.active) {
		vur_switch_unwatch_kick(nd->sw, nd->slot);
		vq_stop(nd, &nd->txq);
	}
}
