/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet side of the device: send and receive frames on transmitq1
 * and receiveq1 (virtio 5.1.6.2-4). Frames go as they are: the header the
 * driver prepends is all zeros (no checksum or segmentation offload), and
 * the one the device writes is checked and stripped.
 *
 * Receive buffers are posted at open (one per entry of receiveq1) and
 * reposted as frames are taken, so frames sent to the device before the
 * first vur_user_net_recv() wait in the ring. Transmit slots (one per
 * entry of transmitq1) are allocated at the first send. When driver memory
 * cannot hold them the device still opens, and these calls return -ENOMEM. With
 * VIRTIO_NET_F_MRG_RXBUF a frame may span several buffers; the library
 * joins them (num_buffers).
 *
 * One thread at a time may send and one receive, on the same device.
 */
#ifndef VUR_NET_H
#define VUR_NET_H

#include <stddef.h>
#include <stdint.h>

#include "vur_user.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the driver counted (host order). */
struct vur_user_net_stats {
	uint64_t tx_frames;  /**< frames posted */
	uint64_t rx_frames;  /**< frames returned to the caller */
	uint64_t rx_buffers; /**< receive buffers they took (> rx_frames when merged) */
	uint64_t rx_errors;  /**< malformed receive buffers dropped */
};

/**
 * Send one Ethernet frame: a zeroed virtio_net_hdr (12 bytes with
 * VIRTIO_F_VERSION_1) then @p frame, in one descriptor on transmitq1. Waits
 * for a free slot, at most the open timeout, when the ring is full.
 *
 * @param dev   an open device
 * @param frame destination MAC first, no FCS
 * @param len   14 bytes up to the device's MTU plus 22 (header, two tags)
 * @return 0, or -EINVAL, -EMSGSIZE, -ENOMEM, -ETIMEDOUT, -EIO (the queue broke)
 */
int vur_user_net_send(struct vur_user_dev *dev, const void *frame, size_t len);

/**
 * Receive one frame, waiting up to @p timeout_ms.
 *
 * @param dev        an open device
 * @param buf        receives the frame (without the virtio-net header)
 * @param cap        room in @p buf
 * @param timeout_ms 0 to check without waiting
 * @return the frame's length, or -ETIMEDOUT, -EMSGSIZE (longer than
 *         @p cap: dropped), -EPROTO (the device broke the header or the
 *         buffer rules), -EIO (the queue broke earlier), -ENOMEM, -EINVAL
 */
int vur_user_net_recv(struct vur_user_dev *dev, void *buf, size_t cap, int timeout_ms);

/**
 * @param dev an open device
 * @param st  receives the counters
 */
void vur_user_net_stats(struct vur_user_dev *dev, struct vur_user_net_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* VUR_NET_H */
