/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_net_roce.h>

#include "negotiate.h"
#include "tap.h"
#include "vhost_user_msg.h"
#include "vur_user.h"

#define B(x)     VUSER_BIT(x)
#define PROTO    B(VHOST_USER_F_PROTOCOL_FEATURES)
#define BASE_NET (B(VIRTIO_F_VERSION_1) | B(VIRTIO_NET_F_CTRL_VQ) | PROTO)

static uint64_t acked;
static const char *why;

static void
takes_roce_and_port_speed(void)
{
	/* What the backend offers by default (vur_dev_offered_features). */
	uint64_t offered = BASE_NET | B(VIRTIO_RING_F_EVENT_IDX) | B(VIRTIO_RING_F_INDIRECT_DESC) |
			B(VIRTIO_NET_F_MTU) | B(VIRTIO_NET_F_MAC) | B(VIRTIO_NET_F_MRG_RXBUF) |
			B(VIRTIO_NET_F_STATUS) | B(VIRTIO_NET_F_SPEED_DUPLEX) |
			B(VIRTIO_NET_F_ROCE) | B(VIRTIO_NET_F_ROCE_PORT_SPEED);

	TAP_EQ(vuser_features_negotiate(
			       offered, vur_user_supported_features(false), false, &acked, &why),
			0);
	TAP_EQ(acked, offered);
}

/*
 * ROCE-DRV-FEAT-1 and -2, and virtio 5.1.3.1 for the control-queue
 * features: the dependencies drop what cannot stand alone.
 */
static void
dependencies(void)
{
	uint64_t all = vur_user_supported_features(false) | PROTO;
	uint64_t ctrl_vq_features = B(VIRTIO_NET_F_CTRL_RX) | B(VIRTIO_NET_F_CTRL_VLAN) |
			B(VIRTIO_NET_F_CTRL_RX_EXTRA) | B(VIRTIO_NET_F_GUEST_ANNOUNCE) |
			B(VIRTIO_NET_F_CTRL_MAC_ADDR);

	TAP_EQ(vuser_features_negotiate(all & ~B(VIRTIO_NET_F_CTRL_VQ), all, false, &acked, &why),
			0);
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_ROCE)));
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_ROCE_PORT_SPEED)));
	TAP_EQ(acked & ctrl_vq_features, 0);

	TAP_EQ(vuser_features_negotiate(all, all, false, &acked, &why), 0);
	TAP_EQ(acked & ctrl_vq_features, ctrl_vq_features);
	/* One queue pair: MQ is not taken even when offered. */
	TAP_EQ(vuser_features_negotiate(all | B(VIRTIO_NET_F_MQ), ~0ULL, false, &acked, &why), 0);
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_MQ)));

	TAP_EQ(vuser_features_negotiate(all & ~B(VIRTIO_NET_F_ROCE), all, false, &acked, &why), 0);
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_ROCE_PORT_SPEED)));

	TAP_EQ(vuser_features_negotiate(
			       all, all & ~B(VIRTIO_NET_F_ROCE_PORT_SPEED), false, &acked, &why),
			0);
	TAP_CHECK(acked & B(VIRTIO_NET_F_ROCE));
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_ROCE_PORT_SPEED)));
}

/* ROCE-DRV-RFC2-1: bit 55 means RoCE only in the RFC v2 numbering. */
static void
numbering(void)
{
	uint64_t rfc2 = BASE_NET | B(VIRTIO_NET_F_ROCE_RFC2) | B(VIRTIO_NET_F_ROCE_PORT_SPEED);

	TAP_EQ(vuser_features_negotiate(rfc2, ~0ULL, false, &acked, &why), 0);
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_ROCE_RFC2)));
	TAP_CHECK(!(acked & B(VIRTIO_NET_F_ROCE_PORT_SPEED)));
	TAP_EQ(vuser_features_negotiate(rfc2, ~0ULL, true, &acked, &why), 0);
	TAP_CHECK(acked & B(VIRTIO_NET_F_ROCE_RFC2));
	TAP_CHECK(acked & B(VIRTIO_NET_F_ROCE_PORT_SPEED));
	TAP_EQ(vuser_roce_bit(true), 55);
	TAP_EQ(vuser_roce_bit(false), 58);
}

static void
required(void)
{
	TAP_EQ(vuser_features_negotiate(
			       BASE_NET & ~B(VIRTIO_F_VERSION_1), ~0ULL, false, &acked, &why),
			-ENOTSUP);
	TAP_EQ(vuser_features_negotiate(BASE_NET & ~PROTO, ~0ULL, false, &acked, &why), -ENOTSUP);
	/* VERSION_1 is taken even if the caller forgot it. */
	TAP_EQ(vuser_features_negotiate(BASE_NET, 0, false, &acked, &why), 0);
	TAP_EQ(acked, B(VIRTIO_F_VERSION_1) | PROTO);
}

static void
protocol(void)
{
	uint64_t offered = B(VHOST_USER_PROTOCOL_F_MQ) | B(VHOST_USER_PROTOCOL_F_REPLY_ACK) |
			B(VHOST_USER_PROTOCOL_F_BACKEND_REQ) | B(VHOST_USER_PROTOCOL_F_CONFIG);

	TAP_EQ(vuser_protocol_negotiate(offered | B(1) | B(11), &acked, &why), 0);
	TAP_EQ(acked, offered);
	TAP_EQ(vuser_protocol_negotiate(offered & ~B(VHOST_USER_PROTOCOL_F_CONFIG), &acked, &why),
			-ENOTSUP);
}

int
main(void)
{
	TAP_RUN(takes_roce_and_port_speed);
	TAP_RUN(dependencies);
	TAP_RUN(numbering);
	TAP_RUN(required);
	TAP_RUN(protocol);
	return tap_done();
}
