/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_net_roce.h>

#include "negotiate.h"
#include "vhost_user_msg.h"
#include "vur_user.h"

/* Standard virtio-net features that only add control commands. */
#define VUSER_CTRL_VQ_FEATURES                                                 \
	(VUSER_BIT(VIRTIO_NET_F_CTRL_RX) | VUSER_BIT(VIRTIO_NET_F_CTRL_VLAN) | \
			VUSER_BIT(VIRTIO_NET_F_CTRL_RX_EXTRA) |                \
			VUSER_BIT(VIRTIO_NET_F_GUEST_ANNOUNCE) |               \
			VUSER_BIT(VIRTIO_NET_F_CTRL_MAC_ADDR))

unsigned int
vuser_roce_bit(bool rfc2_numbering)
{
	return rfc2_numbering ? VIRTIO_NET_F_ROCE_RFC2 : VIRTIO_NET_F_ROCE;
}

uint64_t
vur_user_supported_features(bool rfc2_numbering)
{
	/*
	 * No MQ (one receive/transmit pair is enough for RDMA and keeps the
	 * queue layout fixed), no checksum or segmentation offloads: frames go
	 * as they are (vur_net.h). MRG_RXBUF is taken: receive buffers stay
	 * small whatever the MTU. INDIRECT_DESC is accepted;
	 * the rings here do not use it yet. The control-queue features only
	 * let the caller send their commands with vur_user_ctrl(); the
	 * announcement requests of GUEST_ANNOUNCE are acknowledged by the
	 * async event path (async.c).
	 */
	return VUSER_BIT(VIRTIO_F_VERSION_1) | VUSER_BIT(VIRTIO_RING_F_EVENT_IDX) |
			VUSER_BIT(VIRTIO_RING_F_INDIRECT_DESC) | VUSER_BIT(VIRTIO_NET_F_CTRL_VQ) |
			VUSER_BIT(VIRTIO_NET_F_MAC) | VUSER_BIT(VIRTIO_NET_F_STATUS) |
			VUSER_BIT(VIRTIO_NET_F_MRG_RXBUF) | VUSER_BIT(VIRTIO_NET_F_MTU) |
			VUSER_BIT(VIRTIO_NET_F_SPEED_DUPLEX) | VUSER_CTRL_VQ_FEATURES |
			VUSER_BIT(vuser_roce_bit(rfc2_numbering)) |
			VUSER_BIT(VIRTIO_NET_F_ROCE_PORT_SPEED);
}

int
vuser_features_negotiate(uint64_t offered, uint64_t wanted, bool rfc2_numbering, uint64_t *acked,
		const char **why)
{
	uint64_t roce = VUSER_BIT(vuser_roce_bit(rfc2_numbering));
	uint64_t f = offered & wanted & vur_user_supported_features(rfc2_numbering);

	/* Legacy devices have another ring layout and byte order. */
	if (!(offered & VUSER_BIT(VIRTIO_F_VERSION_1))) {
		*why = "the device does not offer VIRTIO_F_VERSION_1";
		return -ENOTSUP;
	}
	/* Configuration, REPLY_ACK and the backend channel all need it. */
	if (!(offered & VUSER_BIT(VHOST_USER_F_PROTOCOL_FEATURES))) {
		*why = "the backend does not offer VHOST_USER_F_PROTOCOL_FEATURES";
		return -ENOTSUP;
	}
	f |= VUSER_BIT(VIRTIO_F_VERSION_1) | VUSER_BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	/*
	 * virtio 5.1.3.1: the control-queue features require CTRL_VQ (and
	 * CTRL_RX_EXTRA SHOULD NOT go without it); ROCE-DRV-FEAT-1 likewise.
	 */
	if (!(f & VUSER_BIT(VIRTIO_NET_F_CTRL_VQ)))
		f &= ~(VUSER_CTRL_VQ_FEATURES | roce);
	/* ROCE-DRV-FEAT-2: no port speed without RoCE. */
	if (!(f & roce))
		f &= ~VUSER_BIT(VIRTIO_NET_F_ROCE_PORT_SPEED);
	*acked = f;
	return 0;
}

int
vuser_protocol_negotiate(uint64_t offered, uint64_t *acked, const char **why)
{
	uint64_t wanted = VUSER_BIT(VHOST_USER_PROTOCOL_F_MQ) |
			VUSER_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) |
			VUSER_BIT(VHOST_USER_PROTOCOL_F_BACKEND_REQ) |
			VUSER_BIT(VHOST_USER_PROTOCOL_F_CONFIG);

	/* The configuration space is the only source of the RDMA queue counts. */
	if (!(offered & VUSER_BIT(VHOST_USER_PROTOCOL_F_CONFIG))) {
		*why = "the backend does not offer VHOST_USER_PROTOCOL_F_CONFIG";
		return -ENOTSUP;
	}
	*acked = offered & wanted;
	return 0;
}
