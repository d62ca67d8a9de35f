/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "rdma/rdma_dev.h"

/* Queue sizes bound WR and CQE counts: QEMU's VIRTQUEUE_MAX_SIZE is 1024. */
#define VUR_MAX_QUEUE_SIZE 1024

void
vur_rdma_limits_default(struct vur_rdma_limits *l, uint32_t max_qps, uint32_t max_cqs)
{
	memset(l, 0, sizeof(*l));
	l->max_qps = max_qps;
	l->max_cqs = max_cqs;
	l->max_pd = 1024;
	l->max_mr = 4096;
	l->max_ah = 4096;
	l->max_qp_wr = VUR_MAX_QUEUE_SIZE;
	l->max_cqe = VUR_MAX_QUEUE_SIZE;
	l->max_sge = 16;
	l->max_qp_rd_atom = 16;
	l->gid_tbl_len = 16;
	l->max_msg_sz = 1u << 31;
}

int
vur_rdma_dev_init(struct vur_rdma_dev *rd, const char *name, const struct vur_rdma_limits *limits)
{
	int ret;

	memset(rd, 0, sizeof(*rd));
	rd->name = name;
	rd->limits = *limits;
	ret = vur_pool_init(&rd->pds, "pd", 1, limits->max_pd, sizeof(struct vur_rdma_pd));
	if (ret < 0)
		return ret;
	return 0;
}

void
vur_rdma_dev_fini(struct vur_rdma_dev *rd)
{
	vur_pool_fini(&rd->pds);
}
