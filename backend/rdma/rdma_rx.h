/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the local switch hands RoCE v2 frames (UDP port 4791) addressed to a
 * device: the RDMA engine's receive entry point. The responder and completer
 * come later; until then every frame is dropped here (the switch counts
 * them as the device's roce_rx).
 */
#ifndef VUR_RDMA_RX_H
#define VUR_RDMA_RX_H

#include <stdint.h>

#include <rte_mbuf.h>

struct vur_rdma_dev;

/* Take @n frames for @rd (called on the data path with the device lock held); consumes them. */
void vur_rdma_rx(struct vur_rdma_dev *rd, struct rte_mbuf **pkts, uint16_t n);

#endif /* VUR_RDMA_RX_H */
