// SPDX-License-Identifier: GPL-2.0
/*
 * The Ethernet half: a netdev on receiveq1 and transmitq1.
 *
 * Deliberately plain: no offloads, no merged receive buffers, one queue
 * pair. Every frame travels behind a zeroed struct virtio_net_hdr_v1 (12
 * bytes with VIRTIO_F_VERSION_1). Each receive buffer is one skb large
 * enough for the header and a frame of the device's MTU; a transmitted skb
 * is linear (no NETIF_F_SG) and goes as one descriptor. One NAPI context
 * takes received frames and reclaims transmitted ones; both queues'
 * interrupts schedule it.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/scatterlist.h>

#include "virtio_rdma.h"

#define VIRTIO_RDMA_HDR_LEN	sizeof(struct virtio_net_hdr_v1)
#define VIRTIO_RDMA_NAPI_WEIGHT	64

struct virtio_rdma_netpriv {
	struct virtio_rdma_dev *dev;
	struct napi_struct napi;
	unsigned int rx_buf_len;
	struct delayed_work refill;	/* NAPI again after an allocation failure */
};

static struct virtqueue *rxq(struct virtio_rdma_netpriv *np)
{
	return np->dev->vqs[VIRTIO_RDMA_VQ_RX];
}

static struct virtqueue *txq(struct virtio_rdma_netpriv *np)
{
	return np->dev->vqs[VIRTIO_RDMA_VQ_TX];
}

/* Post receive buffers until the ring is full; false if one could not be. */
static bool rx_refill(struct net_device *ndev, gfp_t gfp)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);
	struct virtqueue *vq = rxq(np);
	struct scatterlist sg;
	struct sk_buff *skb;
	bool posted = false;
	int err;

	while (vq->num_free) {
		skb = __netdev_alloc_skb(ndev, np->rx_buf_len, gfp);
		if (!skb)
			break;
		sg_init_one(&sg, skb->data, np->rx_buf_len);
		err = virtqueue_add_inbuf(vq, &sg, 1, skb, gfp);
		if (err) {
			dev_kfree_skb_any(skb);
			break;
		}
		posted = true;
	}
	if (posted)
		virtqueue_kick(vq);
	return vq->num_free == 0;
}

/* Receive buffers could not be allocated in NAPI: let it try again. */
static void rx_refill_work(struct work_struct *work)
{
	struct virtio_rdma_netpriv *np =
		container_of(work, struct virtio_rdma_netpriv, refill.work);

	local_bh_disable();
	napi_schedule(&np->napi);
	local_bh_enable();
}

static void rx_one(struct net_device *ndev, struct sk_buff *skb,
		   unsigned int len)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);

	if (len < VIRTIO_RDMA_HDR_LEN + ETH_HLEN || len > np->rx_buf_len) {
		ndev->stats.rx_length_errors++;
		ndev->stats.rx_errors++;
		dev_kfree_skb_any(skb);
		return;
	}
	skb_put(skb, len);
	__skb_pull(skb, VIRTIO_RDMA_HDR_LEN);
	skb->protocol = eth_type_trans(skb, ndev);
	ndev->stats.rx_packets++;
	ndev->stats.rx_bytes += skb->len;
	napi_gro_receive(&np->napi, skb);
}

/* Free what the device has sent; under the transmit queue's lock. */
static void tx_reclaim(struct net_device *ndev)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);
	struct sk_buff *skb;
	unsigned int len;

	while ((skb = virtqueue_get_buf(txq(np), &len)))
		dev_consume_skb_any(skb);
}

static void tx_reclaim_locked(struct net_device *ndev)
{
	struct netdev_queue *q = netdev_get_tx_queue(ndev, 0);

	__netif_tx_lock(q, raw_smp_processor_id());
	tx_reclaim(ndev);
	if (netif_tx_queue_stopped(q) &&
	    txq(netdev_priv(ndev))->num_free)
		netif_tx_wake_queue(q);
	__netif_tx_unlock(q);
}

static int virtio_rdma_poll(struct napi_struct *napi, int budget)
{
	struct virtio_rdma_netpriv *np =
		container_of(napi, struct virtio_rdma_netpriv, napi);
	struct net_device *ndev = np->dev->netdev;
	struct virtqueue *vq = rxq(np);
	struct sk_buff *skb;
	unsigned int len;
	int done = 0;

	tx_reclaim_locked(ndev);

	while (done < budget && (skb = virtqueue_get_buf(vq, &len))) {
		rx_one(ndev, skb, len);
		done++;
	}
	/* An empty ring would never interrupt again: retry from a work. */
	if (!rx_refill(ndev, GFP_ATOMIC) &&
	    vq->num_free == virtqueue_get_vring_size(vq))
		schedule_delayed_work(&np->refill, HZ / 10);

	if (done < budget && napi_complete_done(napi, done)) {
		if (unlikely(!virtqueue_enable_cb(vq)) && napi_schedule_prep(napi)) {
			virtqueue_disable_cb(vq);
			__napi_schedule(napi);
		}
	}
	return done;
}

void virtio_rdma_rx_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;
	struct virtio_rdma_netpriv *np = netdev_priv(dev->netdev);

	if (napi_schedule_prep(&np->napi)) {
		virtqueue_disable_cb(vq);
		__napi_schedule(&np->napi);
	}
}

void virtio_rdma_tx_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;
	struct virtio_rdma_netpriv *np = netdev_priv(dev->netdev);

	napi_schedule(&np->napi);
}

static netdev_tx_t virtio_rdma_xmit(struct sk_buff *skb,
				    struct net_device *ndev)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);
	struct virtqueue *vq = txq(np);
	unsigned int frame_len = skb->len;
	struct scatterlist sg;
	int err;

	tx_reclaim(ndev);

	if (skb_cow_head(skb, VIRTIO_RDMA_HDR_LEN))
		goto drop;
	memset(skb_push(skb, VIRTIO_RDMA_HDR_LEN), 0, VIRTIO_RDMA_HDR_LEN);
	sg_init_one(&sg, skb->data, skb->len);
	err = virtqueue_add_outbuf(vq, &sg, 1, skb, GFP_ATOMIC);
	if (unlikely(err)) {
		netdev_warn_once(ndev, "transmit ring: %d\n", err);
		goto drop;
	}
	ndev->stats.tx_packets++;
	ndev->stats.tx_bytes += frame_len;

	if (!vq->num_free) {
		netif_stop_queue(ndev);
		tx_reclaim(ndev);
		if (vq->num_free)
			netif_start_queue(ndev);
	}
	if (!netdev_xmit_more() || netif_queue_stopped(ndev))
		virtqueue_kick(vq);
	return NETDEV_TX_OK;

drop:
	ndev->stats.tx_dropped++;
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static int virtio_rdma_open(struct net_device *ndev)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);

	rx_refill(ndev, GFP_KERNEL);
	napi_enable(&np->napi);
	/* Frames that came while closed: a poll now, in softirq context. */
	local_bh_disable();
	virtio_rdma_rx_done(rxq(np));
	local_bh_enable();
	netif_start_queue(ndev);
	return 0;
}

static int virtio_rdma_stop(struct net_device *ndev)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);

	netif_stop_queue(ndev);
	napi_disable(&np->napi);
	cancel_delayed_work_sync(&np->refill);
	return 0;
}

static const struct net_device_ops virtio_rdma_netdev_ops = {
	.ndo_open = virtio_rdma_open,
	.ndo_stop = virtio_rdma_stop,
	.ndo_start_xmit = virtio_rdma_xmit,
	.ndo_validate_addr = eth_validate_addr,
};

static int virtio_rdma_get_link_ksettings(struct net_device *ndev,
					  struct ethtool_link_ksettings *cmd)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);
	struct virtio_rdma_dev *dev = np->dev;
	u64 mbps = READ_ONCE(dev->port.speed) * VIRTIO_NET_ROCE_SPEED_UNIT_MBPS;

	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	if (!netif_carrier_ok(ndev) || !mbps) {
		cmd->base.speed = SPEED_UNKNOWN;
		cmd->base.duplex = DUPLEX_UNKNOWN;
		return 0;
	}
	cmd->base.speed = min_t(u64, mbps, INT_MAX);
	cmd->base.duplex = DUPLEX_FULL;
	return 0;
}

static void virtio_rdma_get_drvinfo(struct net_device *ndev,
				    struct ethtool_drvinfo *info)
{
	struct virtio_rdma_netpriv *np = netdev_priv(ndev);

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(&np->dev->vdev->dev),
		sizeof(info->bus_info));
}

static const struct ethtool_ops virtio_rdma_ethtool_ops = {
	.get_drvinfo = virtio_rdma_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = virtio_rdma_get_link_ksettings,
};

/*
 * The netdev of @dev, not registered yet: MAC and MTU from the
 * configuration space (VIRTIO_NET_F_MAC, VIRTIO_NET_F_MTU).
 */
struct net_device *virtio_rdma_netdev_alloc(struct virtio_rdma_dev *dev)
{
	struct virtio_device *vdev = dev->vdev;
	struct virtio_rdma_netpriv *np;
	struct net_device *ndev;
	u8 mac[ETH_ALEN];
	u16 mtu = ETH_DATA_LEN;

	ndev = alloc_etherdev(sizeof(*np));
	if (!ndev)
		return NULL;
	np = netdev_priv(ndev);
	np->dev = dev;
	SET_NETDEV_DEV(ndev, &vdev->dev);
	ndev->netdev_ops = &virtio_rdma_netdev_ops;
	ndev->ethtool_ops = &virtio_rdma_ethtool_ops;
	ndev->needed_headroom = VIRTIO_RDMA_HDR_LEN;

	if (virtio_has_feature(vdev, VIRTIO_NET_F_MAC)) {
		virtio_cread_bytes(vdev,
				   offsetof(struct virtio_net_roce_config, mac),
				   mac, ETH_ALEN);
		eth_hw_addr_set(ndev, mac);
	} else {
		eth_hw_addr_random(ndev);
		dev_warn(&vdev->dev, "no MAC offered: random %pM\n",
			 ndev->dev_addr);
	}
	if (virtio_has_feature(vdev, VIRTIO_NET_F_MTU))
		virtio_cread_le(vdev, struct virtio_net_roce_config, mtu, &mtu);
	if (mtu < ETH_MIN_MTU) {
		dev_warn(&vdev->dev, "MTU %u below %u: %u taken\n", mtu,
			 ETH_MIN_MTU, ETH_DATA_LEN);
		mtu = ETH_DATA_LEN;
	}
	/* virtio 5.1.4.1: the driver must not exceed the device's MTU. */
	ndev->mtu = mtu;
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = mtu;
	dev->port.link_mtu = mtu;
	np->rx_buf_len = VIRTIO_RDMA_HDR_LEN + VLAN_ETH_HLEN + mtu;

	netif_napi_add_weight(ndev, &np->napi, virtio_rdma_poll,
			      VIRTIO_RDMA_NAPI_WEIGHT);
	INIT_DELAYED_WORK(&np->refill, rx_refill_work);
	netif_carrier_off(ndev);
	return ndev;
}

int virtio_rdma_netdev_register(struct virtio_rdma_dev *dev)
{
	return register_netdev(dev->netdev);
}

void virtio_rdma_netdev_unregister(struct virtio_rdma_dev *dev)
{
	unregister_netdev(dev->netdev);
}

/* After the device is reset: the skbs still on the rings. */
void virtio_rdma_netdev_free_bufs(struct virtio_rdma_dev *dev)
{
	struct sk_buff *skb;
	int i;

	for (i = VIRTIO_RDMA_VQ_RX; i <= VIRTIO_RDMA_VQ_TX; i++)
		while ((skb = virtqueue_detach_unused_buf(dev->vqs[i])))
			dev_kfree_skb(skb);
}
