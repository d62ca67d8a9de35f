/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-device quotas (issue 25): limits the administrator sets on what one
 * guest may hold, below the limits QUERY_DEVICE reports, changeable while
 * the device runs (the admin RPC). A command that would go above one fails
 * with VIRTIO_NET_ERR as any other refusal (ROCE-DEV-QUOTA-1..5); objects
 * already live stay when a quota is lowered below what they hold
 * (ROCE-DEV-QUOTA-6). The device owns the quota, so it outlives the
 * driver's connections; the RDMA layer reads it under the device lock.
 */
#ifndef VUR_RDMA_QUOTA_H
#define VUR_RDMA_QUOTA_H

#include <stdint.h>

enum vur_rdma_quota_kind {
	VUR_QUOTA_QPS,          /* live QPs (QP 1 included) */
	VUR_QUOTA_CQS,          /* live CQs */
	VUR_QUOTA_MRS,          /* live MRs of every kind (DMA, user, fast) */
	VUR_QUOTA_PINNED_BYTES, /* pages of user MRs, in bytes */
	VUR_QUOTA_WRS,          /* max_send_wr + max_recv_wr of live QPs */
	VUR_QUOTA_N,
};

struct vur_rdma_quota {
	uint64_t max[VUR_QUOTA_N];     /* 0: no quota of that kind */
	uint64_t refused[VUR_QUOTA_N]; /* commands refused by each */
};

/* Its name in the admin RPC and telemetry: "qps", "cqs", ... */
const char *vur_rdma_quota_name(enum vur_rdma_quota_kind k);

struct vur_rdma_dev;

/*
 * Whether @rd may take @amount more of @k: 0, or -EDQUOT (counted and
 * logged, rate-limited) when it would go above the quota.
 */
int vur_rdma_quota_take(struct vur_rdma_dev *rd, enum vur_rdma_quota_kind k, uint64_t amount,
		const char *cmd);

/* What @rd holds of @k now. */
uint64_t vur_rdma_quota_used(const struct vur_rdma_dev *rd, enum vur_rdma_quota_kind k);

#endif /* VUR_RDMA_QUOTA_H */
