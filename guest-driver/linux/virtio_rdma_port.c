// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE port: link state and effective speed, the configuration change
 * work that follows them, the IB events it raises, and the port's sysfs
 * attributes.
 *
 * The device sends one configuration change notification for any change
 * of the speed, its flags or the link bit, and may fold several changes
 * into one (ROCE-DEV-SPEED-10, -11). Each notification is therefore a
 * prompt to compare with what was last reported: one event per value that
 * differs, none for a notification that changed nothing (ROCE-DRV-SPEED-2,
 * -3).
 */
#include <linux/kernel.h>
#include <linux/version.h>
#include <rdma/ib_sysfs.h>

#include "virtio_rdma.h"

/*
 * The speed change event: IB_EVENT_DEVICE_SPEED_CHANGE (20) in Linux 7.0
 * and later and IBV_EVENT_DEVICE_SPEED_CHANGE in rdma-core 62 and later.
 * Linux 6.1's enum ib_event_type ends at IB_EVENT_WQ_FATAL (19); its
 * ib_dispatch_event() and uverbs pass 20 through unchanged, so userspace
 * sees the upstream value there too.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
#define VIRTIO_RDMA_EVENT_SPEED_CHANGE	IB_EVENT_DEVICE_SPEED_CHANGE
#else
#define VIRTIO_RDMA_EVENT_SPEED_CHANGE \
	((enum ib_event_type)(IB_EVENT_WQ_FATAL + 1))
#endif

/* The largest RoCE v2 header overhead: IPv6 40, UDP 8, BTH 12, ETHs 32, ICRC 4. */
#define VIRTIO_RDMA_ROCE_OVERHEAD	96

/* virtio 5.1.4.2: without VIRTIO_NET_F_STATUS the link is assumed up. */
bool virtio_rdma_link_up(struct virtio_rdma_dev *dev)
{
	u16 status;

	if (!virtio_has_feature(dev->vdev, VIRTIO_NET_F_STATUS))
		return true;
	virtio_cread_le(dev->vdev, struct virtio_net_roce_config, status,
			&status);
	return status & VIRTIO_NET_S_LINK_UP;
}

/*
 * The effective port speed in 100 Mb/s. With the speed feature from
 * QUERY_PORT_SPEED (ROCE-DRV-SPEED-1), or from roce_port_speed if the
 * command fails (ROCE-DEV-SPEED-8 makes them equal); *flags gets the
 * command's flags. Without it, from virtio-net's speed field (Mb/s), or 0.
 */
static u64 port_read_speed(struct virtio_rdma_dev *dev, u32 *flags)
{
	struct virtio_rdma_ack_query_port_speed ack;
	struct virtio_device *vdev = dev->vdev;
	u64 speed;
	u32 mbps;
	int ret;

	*flags = 0;
	if (dev->has_port_speed) {
		ret = virtio_rdma_roce_cmd(dev,
					   VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED,
					   NULL, 0, &ack, sizeof(ack));
		if (!ret) {
			/* ROCE-DRV-SPEED-6: unknown flags are ignored. */
			*flags = le32_to_cpu(ack.flags) &
				 (VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED |
				  VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK |
				  VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN);
			return le64_to_cpu(ack.speed);
		}
		/* ROCE-DRV-CFG-3: virtio_cread_le() reads within a generation check. */
		virtio_cread_le(vdev, struct virtio_net_roce_config,
				roce_port_speed, &speed);
		dev_warn_ratelimited(&vdev->dev,
				     "QUERY_PORT_SPEED: %d; roce_port_speed %llu taken\n",
				     ret, speed);
		return speed;
	}
	if (!virtio_has_feature(vdev, VIRTIO_NET_F_SPEED_DUPLEX))
		return 0;
	virtio_cread_le(vdev, struct virtio_net_roce_config, speed, &mbps);
	if (mbps == SPEED_UNKNOWN)
		return 0;
	return mbps / VIRTIO_NET_ROCE_SPEED_UNIT_MBPS;
}

u64 virtio_rdma_port_speed(struct virtio_rdma_dev *dev)
{
	return READ_ONCE(dev->port.speed);
}

/* The largest IB MTU that a RoCE v2 packet fits in with @link_mtu. */
enum ib_mtu virtio_rdma_port_mtu(u16 link_mtu)
{
	int mtu;

	for (mtu = IB_MTU_4096; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + VIRTIO_RDMA_ROCE_OVERHEAD <= link_mtu)
			break;
	return mtu;
}

/*
 * IB lane speeds in 100 Mb/s, fastest first, and the lane counts that
 * Ethernet ports use (1, 2, 4, 8). The port has no lanes of its own: the
 * pair whose product comes closest to the effective speed from below
 * stands for it, fewer lanes first; anything above NDR 8X reports NDR 8X.
 * The exact value is the effective speed (sysfs, query_port_speed).
 */
static const struct {
	u16 ib_speed;
	u16 rate;
} virtio_rdma_lanes[] = {
	{ IB_SPEED_NDR, 1000 },
	{ IB_SPEED_HDR, 500 },
	{ IB_SPEED_EDR, 250 },
	{ IB_SPEED_FDR, 140 },
	{ IB_SPEED_QDR, 100 },
	{ IB_SPEED_DDR, 50 },
	{ IB_SPEED_SDR, 25 },
};

static const struct {
	u8 ib_width;
	u8 lanes;
} virtio_rdma_widths[] = {
	{ IB_WIDTH_1X, 1 },
	{ IB_WIDTH_2X, 2 },
	{ IB_WIDTH_4X, 4 },
	{ IB_WIDTH_8X, 8 },
};

void virtio_rdma_ib_speed(u64 speed, u16 *ib_speed, u8 *ib_width)
{
	u64 best = 0, rate;
	int s, w;

	*ib_speed = IB_SPEED_SDR;
	*ib_width = IB_WIDTH_1X;
	for (w = 0; w < ARRAY_SIZE(virtio_rdma_widths); w++) {
		for (s = 0; s < ARRAY_SIZE(virtio_rdma_lanes); s++) {
			rate = (u64)virtio_rdma_lanes[s].rate *
			       virtio_rdma_widths[w].lanes;
			if (rate > speed || rate <= best)
				continue;
			best = rate;
			*ib_speed = virtio_rdma_lanes[s].ib_speed;
			*ib_width = virtio_rdma_widths[w].ib_width;
		}
	}
}

static void port_event(struct virtio_rdma_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ib,
		.element.port_num = VIRTIO_NET_ROCE_PORT_NUM,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/*
 * Read the link and the speed again; raise PORT_ACTIVE or PORT_ERR when the
 * link flipped and one speed change event when the speed differs from the
 * last one reported. Events only once the ib_device is registered.
 */
static void port_update(struct virtio_rdma_dev *dev, bool events)
{
	struct virtio_rdma_port *port = &dev->port;
	struct net_device *ndev = dev->netdev;
	bool up, link_changed, speed_changed;
	u64 speed, old_speed;
	u32 flags;

	mutex_lock(&port->lock);
	up = virtio_rdma_link_up(dev);
	speed = port_read_speed(dev, &flags);

	link_changed = up != port->link_up;
	port->link_up = up;
	old_speed = port->speed;
	/* ROCE-DRV-SPEED-5: no speed events without the feature. */
	speed_changed = dev->has_port_speed && speed != old_speed;
	WRITE_ONCE(port->speed, speed);
	port->flags = flags;

	/*
	 * Carrier only on a registered netdev: register_netdev() derives the
	 * operational state from a carrier that is off, and a carrier turned
	 * on before it would leave the state "unknown" for good.
	 */
	if (ndev->reg_state == NETREG_REGISTERED) {
		if (up)
			netif_carrier_on(ndev);
		else
			netif_carrier_off(ndev);
	}

	if (events && link_changed) {
		WRITE_ONCE(port->port_events, port->port_events + 1);
		port_event(dev, up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		dev_info_ratelimited(&dev->ib.dev, "port 1: link %s\n",
				     up ? "up" : "down");
	}
	if (events && speed_changed) {
		WRITE_ONCE(port->speed_events, port->speed_events + 1);
		/* ROCE-DRV-SPEED-2: exactly one per notification that changed it. */
		port_event(dev, VIRTIO_RDMA_EVENT_SPEED_CHANGE);
		dev_info_ratelimited(&dev->ib.dev,
				     "port 1: effective speed %llu -> %llu (100 Mb/s)%s%s%s\n",
				     old_speed, speed,
				     flags & VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED ?
				     " aggregated" : "",
				     flags & VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK ?
				     " loopback" : "",
				     flags & VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN ?
				     " link-down" : "");
	}
	mutex_unlock(&port->lock);
}

/*
 * The configuration change notification, in process context. A device
 * that needs a reset is re-probed (virtio_rdma_needs_reset()): its link
 * and speed no longer matter.
 */
void virtio_rdma_config_work(struct work_struct *work)
{
	struct virtio_rdma_dev *dev =
		container_of(work, struct virtio_rdma_dev, config_work);

	if (virtio_rdma_needs_reset(dev))
		return;
	port_update(dev, READ_ONCE(dev->ib_registered));
}

/*
 * The port at probe, after DRIVER_OK and before anything is registered:
 * the fixed attributes from QUERY_PORT, the first link state and speed.
 */
int virtio_rdma_port_init(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_ack_query_port ack;
	struct virtio_rdma_port *port = &dev->port;
	int ret;

	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL,
				   0, &ack, sizeof(ack));
	if (ret)
		return ret;
	port->gid_tbl_len = le32_to_cpu(ack.gid_tbl_len);
	port->max_msg_sz = le32_to_cpu(ack.max_msg_sz);
	/* ROCE-DEV-ATTR-8, -9 */
	if (!port->gid_tbl_len || port->gid_tbl_len > 256 || !port->max_msg_sz) {
		dev_err(&dev->vdev->dev,
			"QUERY_PORT: gid_tbl_len %u, max_msg_sz %u: out of range\n",
			port->gid_tbl_len, port->max_msg_sz);
		return -EPROTO;
	}
	/* The first state is not a change: the reference for later events. */
	port->link_up = !virtio_rdma_link_up(dev);
	port_update(dev, false);
	return 0;
}

/*
 * Port sysfs attributes (ports/1/ of the ib_device). Linux 6.1 has no
 * query_port_speed verb: effective_speed is how consumers there read the
 * 64-bit speed (100 Mb/s units); without the speed feature reading it
 * fails with EOPNOTSUPP (ROCE-DRV-SPEED-5). speed_change_events and
 * port_state_events count the events dispatched: speed changes, and
 * PORT_ACTIVE plus PORT_ERR.
 */
static ssize_t effective_speed_show(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_attribute *attr, char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	if (!dev->has_port_speed)
		return -EOPNOTSUPP;
	return sysfs_emit(buf, "%llu\n", virtio_rdma_port_speed(dev));
}

static ssize_t speed_change_events_show(struct ib_device *ibdev,
					u32 port_num,
					struct ib_port_attribute *attr,
					char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%llu\n", READ_ONCE(dev->port.speed_events));
}

static ssize_t port_state_events_show(struct ib_device *ibdev, u32 port_num,
				      struct ib_port_attribute *attr,
				      char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%llu\n", READ_ONCE(dev->port.port_events));
}

static ssize_t speed_flags_show(struct ib_device *ibdev, u32 port_num,
				struct ib_port_attribute *attr, char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	if (!dev->has_port_speed)
		return -EOPNOTSUPP;
	return sysfs_emit(buf, "0x%x\n", READ_ONCE(dev->port.flags));
}

/*
 * The layout the driver chose at probe: with layout=auto (the default) it
 * depends on what the device offers, which tests and users read here.
 */
static ssize_t layout_show(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_attribute *attr, char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%s\n",
			  dev->rings.on ? "rings" : "virtqueues");
}

/* Live CQs on rings (kernel and process): the rings really are used. */
static ssize_t ring_cqs_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr, char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(dev->rings.live_cqs));
}

/* Live QPs (ib_mad's GSI QP included) and SRQs on rings. */
static ssize_t ring_qps_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr, char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(dev->rings.live_qps));
}

static ssize_t ring_srqs_show(struct ib_device *ibdev, u32 port_num,
			      struct ib_port_attribute *attr, char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(dev->rings.live_srqs));
}

/*
 * Doorbell commands of processes' QPs on rings (POST_SEND or POST_RECV of
 * no WR): one system call each, what posting to an idle QP costs.
 */
static ssize_t ring_user_doorbells_show(struct ib_device *ibdev,
					u32 port_num,
					struct ib_port_attribute *attr,
					char *buf)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	return sysfs_emit(buf, "%llu\n",
			  (u64)atomic64_read(&dev->rings.user_doorbells));
}

static IB_PORT_ATTR_RO(effective_speed);
static IB_PORT_ATTR_RO(speed_change_events);
static IB_PORT_ATTR_RO(speed_flags);
static IB_PORT_ATTR_RO(port_state_events);
static IB_PORT_ATTR_RO(layout);
static IB_PORT_ATTR_RO(ring_cqs);
static IB_PORT_ATTR_RO(ring_qps);
static IB_PORT_ATTR_RO(ring_srqs);
static IB_PORT_ATTR_RO(ring_user_doorbells);

static struct attribute *virtio_rdma_port_attrs[] = {
	&ib_port_attr_effective_speed.attr,
	&ib_port_attr_speed_change_events.attr,
	&ib_port_attr_speed_flags.attr,
	&ib_port_attr_port_state_events.attr,
	&ib_port_attr_layout.attr,
	&ib_port_attr_ring_cqs.attr,
	&ib_port_attr_ring_qps.attr,
	&ib_port_attr_ring_srqs.attr,
	&ib_port_attr_ring_user_doorbells.attr,
	NULL,
};

static const struct attribute_group virtio_rdma_port_group = {
	.attrs = virtio_rdma_port_attrs,
};

const struct attribute_group *virtio_rdma_port_groups[] = {
	&virtio_rdma_port_group,
	NULL,
};
