/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * virtio_rdma: the libibverbs provider of the virtio-net RoCE device
 * (guest kernel driver virtio_rdma.ko).
 */

#ifndef __VIRTIO_RDMA_H__
#define __VIRTIO_RDMA_H__

#include <infiniband/driver.h>

/* The kernel driver's uverbs_abi_ver. */
#define VIRTIO_RDMA_ABI_VERSION 1

struct virtio_rdma_device {
	struct verbs_device ibv_dev;
};

struct virtio_rdma_context {
	struct verbs_context ibv_ctx;
};

static inline struct virtio_rdma_context *to_vctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct virtio_rdma_context, ibv_ctx.context);
}

static inline struct virtio_rdma_device *to_vdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct virtio_rdma_device, ibv_dev.device);
}

#endif /* __VIRTIO_RDMA_H__ */
