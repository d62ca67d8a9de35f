/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What control commands act on: the context every handler of a device's
 * command table receives. The RoCE handlers use @rdma, the standard
 * virtio-net handlers (RX mode, MAC, VLAN, ANNOUNCE, MQ) use @net.
 */
#ifndef VUR_CTRL_TARGET_H
#define VUR_CTRL_TARGET_H

struct vur_rdma_dev;
struct vur_net_state;

struct vur_ctrl_target {
	struct vur_rdma_dev *rdma;
	struct vur_net_state *net;
};

#endif /* VUR_CTRL_TARGET_H */
