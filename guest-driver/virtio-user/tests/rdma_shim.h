/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's side of the RDMA virtqueues, as the engine tests need it:
 * send and receive WRs and CQE buffers made available as the spec says,
 * CQEs taken back raw. Requests are the wire structures, filled by the
 * test, so that a test can also post what a buggy or hostile driver would.
 */
#ifndef VUSER_TEST_RDMA_SHIM_H
#define VUSER_TEST_RDMA_SHIM_H

#include <stdint.h>

#include <linux/virtio_net_roce.h>

#include "vur_user.h"

/* Make @n CQE buffers of @len bytes available on CQ @cqn's completion virtqueue. */
int shim_cq_buffers(struct vur_user_dev *d, uint32_t cqn, uint32_t n, uint32_t len);

/* A send WR: @req then @num_sge elements (none when INLINE), one readable buffer. */
int shim_post_send(struct vur_user_dev *d, uint32_t qpn, const struct virtio_rdma_sq_req *req,
		const struct virtio_rdma_sge *sg, uint32_t num_sge);

/* Raw: @len bytes of @p as one buffer (@writable: device-writable), for malformed WRs. */
int shim_post_raw(struct vur_user_dev *d, uint32_t vq, const void *p, uint32_t len, int writable);

int shim_post_recv(struct vur_user_dev *d, uint32_t qpn, uint64_t wr_id,
		const struct virtio_rdma_sge *sg, uint32_t num_sge);

/*
 * Up to @max CQEs of CQ @cqn, each buffer made available again. The send
 * and receive WR buffers the device used come back meanwhile.
 */
int shim_poll_cq(struct vur_user_dev *d, uint32_t cqn, struct virtio_rdma_cq_req *wc, int max);

/* Used (completed or discarded) WR buffers of virtqueue @vq taken back so far. */
uint32_t shim_used(struct vur_user_dev *d, uint32_t vq);

/* Reset the driver side of the virtqueue of a destroyed object (ROCE-DRV-LIFE-2). */
void shim_ring_reinit(struct vur_user_dev *d, uint32_t vq);

uint32_t shim_sq_vq(struct vur_user_dev *d, uint32_t qpn);
uint32_t shim_rq_vq(struct vur_user_dev *d, uint32_t qpn);
uint32_t shim_cq_vq(uint32_t cqn);

#endif /* VUSER_TEST_RDMA_SHIM_H */
