/* SPDX-License-Identifier: BSD-3-Clause */
/* Protection domains: the unit of isolation between MRs, QPs and AHs. */
#include <errno.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

int
vur_rdma_create_pd(struct vur_rdma_dev *rd, uint32_t *pdn)
{
	struct vur_rdma_pd *pd = vur_pool_alloc(&rd->pds);

	if (pd == NULL) { /* ROCE-DEV-PD-1 */
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_PD: max_pd (%u) PDs live", rd->limits.max_pd);
		return -ENOSPC;
	}
	*pdn = pd->obj.index;
	return 0;
}

int
vur_rdma_destroy_pd(struct vur_rdma_dev *rd, uint32_t pdn)
{
	int ret = vur_pool_free(&rd->pds, pdn);

	/* ROCE-DEV-PD-2 (not live) and ROCE-DEV-PD-3 (MRs, SRQs, QPs or AHs hold it) */
	if (ret == -ENOENT)
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_PD: no PD %u", pdn);
	else if (ret == -EBUSY)
		VUR_RDMA_LOG(rd, NOTICE, "DESTROY_PD: PD %u still has MRs, QPs or AHs", pdn);
	return ret;
}
