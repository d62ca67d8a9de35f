/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA side of one device: its limits and its resource pools. Owned by
 * the device, touched only by the control thread while the device runs.
 */
#ifndef VUR_RDMA_DEV_H
#define VUR_RDMA_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net_roce.h>

#include "rdma/pool.h"

/* What QUERY_DEVICE and QUERY_PORT report, fixed for the device's lifetime. */
struct vur_rdma_limits {
	uint32_t max_qps;
	uint32_t max_cqs;
	uint32_t max_pd;
	uint32_t max_mr;
	uint32_t max_ah;
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint32_t max_sge;
	uint32_t max_qp_rd_atom;
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
};

struct vur_rdma_pd {
	struct vur_pool_obj obj; /* refcnt: the MRs, QPs and AHs of this PD */
};

/* Port speed as the port manager last computed it. */
struct vur_port_speed {
	uint64_t speed; /* 100 Mb/s units */
	uint32_t flags; /* VIRTIO_RDMA_PORT_SPEED_F_* */
	uint16_t active_members;
	uint16_t total_members;
};

struct vur_rdma_dev {
	const char *name; /* for logs: the device's socket path */
	struct vur_rdma_limits limits;
	struct vur_pool pds;
	struct vur_port_speed port; /* written by the device under its lock */
};

void vur_rdma_limits_default(struct vur_rdma_limits *l, uint32_t max_qps, uint32_t max_cqs);

int vur_rdma_dev_init(
		struct vur_rdma_dev *rd, const char *name, const struct vur_rdma_limits *limits);

/* Free every resource: a frontend went away or the device is destroyed. */
void vur_rdma_dev_fini(struct vur_rdma_dev *rd);

#endif /* VUR_RDMA_DEV_H */
