/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fast-registration MRs: IBTA's Base Memory Management Extensions (Vol 1 10.6 and 11.4),
 * what NVMe over Fabrics, NFS over RDMA, iSER and RDS
 * register their I/O buffers with.
 *
 * ALLOC_MR takes an MR slot and room for max_num_sg pages; the MR is
 * invalid ("free") with key byte 0. A REG_MR work request, executed by the
 * requester in send queue order (transport/local_ops.c), makes it valid
 * over the pages it lists with a new key byte; LOCAL_INV and a
 * SEND_WITH_INV's IETH make it invalid again; DEREG_MR frees it in any
 * state. The data path calls the functions below with the MR's lock held;
 * they change nothing when they refuse.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

#define MIN_PAGE_SHIFT 12
#define MAX_PAGE_SHIFT 30

int
vur_rdma_alloc_mr(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_alloc_mr *c,
		struct vur_rdma_mr **mrp)
{
	uint32_t pdn = rte_le_to_cpu_32(c->pdn);
	uint32_t max_num_sg = rte_le_to_cpu_32(c->max_num_sg);
	struct vur_rdma_mr *mr;
	uint64_t *pages;

	if (vur_pool_get(&rd->pds, pdn) == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "ALLOC_MR: no PD %u", pdn);
		return -ENOENT;
	}
	if (max_num_sg == 0 || max_num_sg > rd->limits.max_fast_reg_page_list_len) {
		VUR_RDMA_LOG(rd, NOTICE, "ALLOC_MR: max_num_sg %u not in 1..%u", max_num_sg,
				rd->limits.max_fast_reg_page_list_len);
		return -EINVAL;
	}
	if (vur_rdma_quota_take(rd, VUR_QUOTA_MRS, 1, "ALLOC_MR") < 0) /* ROCE-DEV-QUOTA-3 */
		return -EDQUOT;
	pages = calloc(max_num_sg, sizeof(*pages));
	if (pages == NULL)
		return -ENOMEM;
	mr = vur_rdma_mr_new(rd, "ALLOC_MR", pdn, 0, true);
	if (mr == NULL) {
		free(pages);
		return -ENOSPC;
	}
	mr->pages = pages;
	mr->max_pages = max_num_sg;
	*mrp = mr;
	return 0;
}

/* The range, its pages and their size (IBTA 10.6, fast registration). */
static int
check_pages(struct vur_rdma_dev *rd, const struct vur_rdma_mr *mr,
		const struct vur_rdma_fast_reg *r)
{
	uint64_t page_size, offset;

	if (r->page_shift < MIN_PAGE_SHIFT || r->page_shift > MAX_PAGE_SHIFT) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: page_shift %u not in %u..%u", r->page_shift,
				MIN_PAGE_SHIFT, MAX_PAGE_SHIFT);
		return -EINVAL;
	}
	if (r->npages == 0 || r->npages > mr->max_pages) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: %u pages for MR %u of max_num_sg %u", r->npages,
				mr->obj.index, mr->max_pages);
		return -EINVAL;
	}
	if (r->length == 0 || r->length > rd->limits.max_mr_size ||
			r->iova + r->length - 1 < r->iova) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: bad range 0x%" PRIx64 "+0x%" PRIx64, r->iova,
				r->length);
		return -EINVAL;
	}
	/* the first page holds the iova's offset in a page; the pages cover the rest */
	page_size = 1ULL << r->page_shift;
	offset = r->iova & (page_size - 1);
	if (offset + r->length > (uint64_t)r->npages << r->page_shift) {
		VUR_RDMA_LOG(rd, NOTICE,
				"REG_MR: %u pages of %" PRIu64 " bytes for %" PRIu64
				" bytes at offset %" PRIu64,
				r->npages, page_size, r->length, offset);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < r->npages; i++)
		if (r->pages[i] & (page_size - 1)) {
			VUR_RDMA_LOG(rd, NOTICE,
					"REG_MR: page %u (0x%" PRIx64 ") not aligned to %" PRIu64,
					i, r->pages[i], page_size);
			return -EINVAL;
		}
	return 0;
}

int
vur_rdma_mr_fast_reg(
		struct vur_rdma_dev *rd, struct vur_rdma_mr *mr, const struct vur_rdma_fast_reg *r)
{
	int ret;

	if (!mr->fast) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: MR %u is not one of ALLOC_MR", mr->obj.index);
		return -EINVAL;
	}
	/* IBTA 10.6: only a free MR registers; a valid one is invalidated first */
	if (mr->valid) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: MR %u is valid", mr->obj.index);
		return -EBUSY;
	}
	if (mr->pdn != r->pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: MR %u of PD %u, the QP's is %u", mr->obj.index,
				mr->pdn, r->pdn);
		return -EACCES;
	}
	/* the consumer chooses the key byte only: tag and index are the MR's */
	if ((r->key | VUR_MR_KEY_BYTE_MASK) != (mr->rkey | VUR_MR_KEY_BYTE_MASK)) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_MR: key 0x%x is not MR %u's", r->key, mr->obj.index);
		return -EINVAL;
	}
	ret = vur_rdma_mr_access_ok(rd, "REG_MR", r->access);
	if (ret == 0)
		ret = check_pages(rd, mr, r);
	if (ret < 0)
		return ret;
	memcpy(mr->pages, r->pages, (size_t)r->npages * sizeof(*mr->pages));
	mr->npages = r->npages;
	mr->page_shift = r->page_shift;
	mr->iova = r->iova;
	mr->length = r->length;
	mr->access = r->access;
	mr->lkey = mr->rkey = r->key;
	mr->valid = true;
	return 0;
}

int
vur_rdma_mr_invalidate(struct vur_rdma_dev *rd, struct vur_rdma_mr *mr, uint32_t pdn, uint32_t key,
		const char *what)
{
	/* IBTA 10.6: "invalidate" applies to MRs of the extensions only */
	if (!mr->fast) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MR %u is not one of ALLOC_MR", what, mr->obj.index);
		return -EINVAL;
	}
	/* the whole key, key byte too: a stale key invalidates nothing */
	if (mr->rkey != key) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: key 0x%x, MR %u has 0x%x", what, key, mr->obj.index,
				mr->rkey);
		return -EINVAL;
	}
	if (mr->pdn != pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MR %u of PD %u, the QP's is %u", what, mr->obj.index,
				mr->pdn, pdn);
		return -EACCES;
	}
	if (mr->mw_bound != 0) { /* ROCE-DEV-MW-11 */
		VUR_RDMA_LOG(rd, NOTICE, "%s: MR %u has %u MWs bound", what, mr->obj.index,
				mr->mw_bound);
		return -EBUSY;
	}
	mr->valid = false; /* invalid already: so it stays, and that is success */
	return 0;
}
