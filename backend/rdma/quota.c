/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-device quotas (see quota.h). */
#include <errno.h>
#include <inttypes.h>

#include "common/log.h"
#include "rdma/quota.h"
#include "rdma/rdma_dev.h"

static const char *const names[VUR_QUOTA_N] = {
	[VUR_QUOTA_QPS] = "qps",
	[VUR_QUOTA_CQS] = "cqs",
	[VUR_QUOTA_MRS] = "mrs",
	[VUR_QUOTA_PINNED_BYTES] = "pinned_bytes",
	[VUR_QUOTA_WRS] = "wrs",
};

const char *
vur_rdma_quota_name(enum vur_rdma_quota_kind k)
{
	return k < VUR_QUOTA_N ? names[k] : "?";
}

uint64_t
vur_rdma_quota_used(const struct vur_rdma_dev *rd, enum vur_rdma_quota_kind k)
{
	switch (k) {
	case VUR_QUOTA_QPS:
		return rd->qps.count;
	case VUR_QUOTA_CQS:
		return rd->cqs.count;
	case VUR_QUOTA_MRS:
		return rd->mrs.count;
	case VUR_QUOTA_PINNED_BYTES:
		return rd->pinned_bytes;
	case VUR_QUOTA_WRS:
		return rd->qp_wrs;
	default:
		return 0;
	}
}

int
vur_rdma_quota_take(struct vur_rdma_dev *rd, enum vur_rdma_quota_kind k, uint64_t amount,
		const char *cmd)
{
	struct vur_rdma_quota *q = rd->quota;
	uint64_t used;

	if (q == NULL || k >= VUR_QUOTA_N || q->max[k] == 0)
		return 0;
	used = vur_rdma_quota_used(rd, k);
	/* ROCE-DEV-QUOTA-1..5: written so that no sum can wrap */
	if (used <= q->max[k] && amount <= q->max[k] - used)
		return 0;
	q->refused[k]++;
	VUR_RDMA_LOG(rd, NOTICE,
			"%s: quota %s reached (%" PRIu64 " held, %" PRIu64
			" more asked, quota %" PRIu64 ")",
			cmd, names[k], used, amount, q->max[k]);
	return -EDQUOT;
}
