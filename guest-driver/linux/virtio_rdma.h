/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_rdma: a driver for the virtio-net RoCE device (virtio-net with
 * VIRTIO_NET_F_ROCE). One virtio device gives one netdev (receiveq1,
 * transmitq1) and one ib_device (RoCE v2, port 1) bound to that netdev.
 *
 * The wire ABI is <linux/virtio_net_roce.h> from virtio-spec/include; the
 * normative text is virtio-spec/virtio-net-roce.md. Requirement IDs
 * (ROCE-DRV-*) in comments refer to it.
 */
#ifndef VIRTIO_RDMA_H
#define VIRTIO_RDMA_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/virtio.h>
#include <linux/virtio_net.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include <linux/virtio_net_roce.h>

/*
 * The virtqueues this driver sets up: receiveq1, transmitq1 and the control
 * queue (N = 1: no VIRTIO_NET_F_MQ). The RDMA queues after them come with
 * the CQ and QP verbs.
 */
enum virtio_rdma_vq {
	VIRTIO_RDMA_VQ_RX,
	VIRTIO_RDMA_VQ_TX,
	VIRTIO_RDMA_VQ_CTRL,
	VIRTIO_RDMA_NR_VQS,
};

/* Largest command and ack data the control buffer carries. */
#define VIRTIO_RDMA_CTRL_DATA_MAX	128
#define VIRTIO_RDMA_CTRL_ACK_MAX	128

/*
 * One control command in flight: the buffer the device reads and writes.
 * Allocated on its own (never on the stack) so that it can be mapped.
 */
struct virtio_rdma_ctrl_buf {
	struct virtio_net_ctrl_hdr hdr;
	u8 data[VIRTIO_RDMA_CTRL_DATA_MAX];
	virtio_net_ctrl_ack status;
	u8 ack[VIRTIO_RDMA_CTRL_ACK_MAX];
};

struct virtio_rdma_ctrl {
	struct mutex lock;		/* one command at a time */
	struct completion done;		/* the control queue's callback */
	struct virtio_rdma_ctrl_buf *buf;
	bool outstanding;		/* a timed-out command the device still holds */
};

/* The port as the configuration space and QUERY_PORT_SPEED describe it. */
struct virtio_rdma_port {
	struct mutex lock;		/* serializes updates (config work, probe) */
	bool link_up;
	u64 speed;			/* 100 Mb/s, last reported to consumers */
	u32 flags;			/* VIRTIO_RDMA_PORT_SPEED_F_* */
	u64 speed_events;		/* IB speed change events dispatched */
	u64 port_events;		/* PORT_ACTIVE and PORT_ERR dispatched */
	/* From QUERY_PORT at probe: fixed for the device's life (ROCE-DEV-ATTR-1). */
	u32 gid_tbl_len;
	u32 max_msg_sz;
	u16 link_mtu;			/* Ethernet MTU of the configuration space */
};

struct virtio_rdma_dev {
	struct ib_device ib;		/* first: ib_alloc_device() */
	struct virtio_device *vdev;
	struct net_device *netdev;
	struct virtqueue *vqs[VIRTIO_RDMA_NR_VQS];
	struct virtio_rdma_ctrl ctrl;
	struct virtio_rdma_port port;
	bool has_port_speed;		/* VIRTIO_NET_F_ROCE_PORT_SPEED negotiated */
	u32 max_rdma_qps;
	u32 max_rdma_cqs;

	spinlock_t ready_lock;		/* guards ready */
	bool ready;			/* config changes go to config_work */
	bool ib_registered;		/* events may be dispatched */
	struct work_struct config_work;
};

static inline struct virtio_rdma_dev *to_vdev_rdma(struct ib_device *ibdev)
{
	return container_of(ibdev, struct virtio_rdma_dev, ib);
}

/* virtio_rdma_ctrl.c */
int virtio_rdma_ctrl_init(struct virtio_rdma_dev *dev);
void virtio_rdma_ctrl_detach(struct virtio_rdma_dev *dev);
void virtio_rdma_ctrl_free(struct virtio_rdma_dev *dev);
void virtio_rdma_ctrl_done(struct virtqueue *vq);
int virtio_rdma_ctrl_cmd(struct virtio_rdma_dev *dev, u8 class, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len);
int virtio_rdma_roce_cmd(struct virtio_rdma_dev *dev, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len);

/* virtio_rdma_netdev.c */
struct net_device *virtio_rdma_netdev_alloc(struct virtio_rdma_dev *dev);
int virtio_rdma_netdev_register(struct virtio_rdma_dev *dev);
void virtio_rdma_netdev_unregister(struct virtio_rdma_dev *dev);
void virtio_rdma_netdev_free_bufs(struct virtio_rdma_dev *dev);
void virtio_rdma_rx_done(struct virtqueue *vq);
void virtio_rdma_tx_done(struct virtqueue *vq);

/* virtio_rdma_ib.c */
int virtio_rdma_ib_register(struct virtio_rdma_dev *dev);
void virtio_rdma_ib_unregister(struct virtio_rdma_dev *dev);

/* virtio_rdma_port.c */
extern const struct attribute_group *virtio_rdma_port_groups[];
int virtio_rdma_port_init(struct virtio_rdma_dev *dev);
void virtio_rdma_config_work(struct work_struct *work);
bool virtio_rdma_link_up(struct virtio_rdma_dev *dev);
u64 virtio_rdma_port_speed(struct virtio_rdma_dev *dev);
void virtio_rdma_ib_speed(u64 speed, u16 *ib_speed, u8 *ib_width);
enum ib_mtu virtio_rdma_port_mtu(u16 link_mtu);

#endif /* VIRTIO_RDMA_H */
