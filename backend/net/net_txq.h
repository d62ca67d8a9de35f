/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's transmit virtqueue (guest to backend, virtio 5.1.6.2): each
 * chain is a virtio_net_hdr and one frame, copied into packet buffers.
 */
#ifndef VUR_NET_TXQ_H
#define VUR_NET_TXQ_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "net/net_dev.h"

/*
 * Take up to @max frames from @nd's transmit queue into @pkts (buffers from
 * @mp), return their chains used and notify the driver. A chain that is
 * malformed is returned and counted, never forwarded. Returns the frames
 * taken. Called with the device lock held and the queue active.
 */
uint16_t vur_net_txq_burst(struct vur_net_dev *nd, struct rte_mempool *mp, struct rte_mbuf **pkts,
		uint16_t max);

#endif /* VUR_NET_TXQ_H */
