/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's receive virtqueue (backend to guest, virtio 5.1.6.3-4): each
 * frame is written behind a struct virtio_net_hdr_mrg_rxbuf, in one chain,
 * or with VIRTIO_NET_F_MRG_RXBUF across as many chains as it needs
 * (num_buffers says how many), all published together.
 */
#ifndef VUR_NET_RXQ_H
#define VUR_NET_RXQ_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "net/net_dev.h"

/*
 * Write @n frames into @nd's receive queue and notify the driver. Returns
 * the frames delivered; the others are counted as dropped. The mbufs stay
 * the caller's. Called with the device lock held and the queue active.
 */
uint16_t vur_net_rxq_enqueue(struct vur_net_dev *nd, struct rte_mbuf **pkts, uint16_t n);

#endif /* VUR_NET_RXQ_H */
