/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions and their keys.
 *
 * A key is, from its high bits to its low ones, a random tag, the MR's
 * index and a key byte (IBTA 10.6: the low 8 bits are the "key" part a
 * consumer chooses when it registers an MR again by a work request; every
 * verbs API, ib_inc_rkey() and ibv_inc_rkey(), takes them so). The tag is
 * drawn from the kernel's CSPRNG for each registration, separately for
 * lkey and rkey, and so is the key byte of a DMA or user MR; a
 * fast-registration MR starts with key byte 0 (ALLOC_MR) and takes the one
 * each REG_MR gives (mr_fast.c). The index makes lookup O(1); the tag makes
 * a key that a guest (or a remote peer) did not receive unguessable, so a
 * stale or forged key misses rather than reaching another MR. The data path
 * checks the MR's PD against the QP's as well, so even a guessed key cannot
 * cross PDs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/*
 * Fuzzing (fuzz/): keys from a sequence each input restarts, so that an
 * input replays the same keys and a finding reproduces.
 */
uint32_t vur_rdma_fuzz_key_state;

static uint32_t
random_u32(void)
{
	vur_rdma_fuzz_key_state = vur_rdma_fuzz_key_state * 1103515245u + 12345u;
	return vur_rdma_fuzz_key_state;
}
#else
static uint32_t
random_u32(void)
{
	uint32_t v = 0;

	/* Never blocks once the kernel's pool is initialized, long before us. */
	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)rand(); /* unreachable in practice; a key is still unique */
	return v;
}
#endif

/* The index bits of a key, below its tag, above its key byte. */
static uint32_t
index_mask(const struct vur_rdma_dev *rd)
{
	return (1u << rd->mr_index_bits) - 1; /* at most 24 bits (vur_rdma_dev_init) */
}

/*
 * A new key for MR @index, never @avoid: a fast MR's (key byte 0) never
 * with @avoid's tag and index either, since its consumer picks the key
 * byte and could otherwise make a stale key good again (ROCE-DEV-MR-9).
 * An MW's key is made as a fast MR's (mw.c).
 */
uint32_t
vur_rdma_make_key(const struct vur_rdma_dev *rd, uint32_t index, uint32_t avoid, bool fast)
{
	uint32_t shift = rd->mr_index_bits + VUR_MR_KEY_BYTE_BITS, key;
	bool again;

	do {
		key = index << VUR_MR_KEY_BYTE_BITS;
		if (!fast)
			key |= random_u32() & VUR_MR_KEY_BYTE_MASK;
		if (shift < 32)
			key |= random_u32() << shift;
		again = fast ? (key | VUR_MR_KEY_BYTE_MASK) == (avoid | VUR_MR_KEY_BYTE_MASK)
			     : key == avoid;
	} while (again && (shift < 32 || !fast));
	return key;
}

struct vur_rdma_mr *
vur_rdma_mr_at_key(struct vur_rdma_dev *rd, uint32_t key)
{
	return vur_pool_get(&rd->mrs, (key >> VUR_MR_KEY_BYTE_BITS) & index_mask(rd));
}

static struct vur_rdma_mr *
by_key(struct vur_rdma_dev *rd, uint32_t key, bool remote)
{
	struct vur_rdma_mr *mr = vur_rdma_mr_at_key(rd, key);

	if (mr == NULL || !mr->valid || (remote ? mr->rkey : mr->lkey) != key)
		return NULL;
	return mr;
}

struct vur_rdma_mr *
vur_rdma_mr_by_lkey(struct vur_rdma_dev *rd, uint32_t key)
{
	return by_key(rd, key, false);
}

struct vur_rdma_mr *
vur_rdma_mr_by_rkey(struct vur_rdma_dev *rd, uint32_t key)
{
	return by_key(rd, key, true);
}

int
vur_rdma_mr_access_ok(struct vur_rdma_dev *rd, const char *what, uint32_t access)
{
	uint32_t known = VUR_RDMA_ACCESS_FLAGS;

	if (rd->limits.max_mw != 0) /* ROCE-DEV-MR-15: with VIRTIO_IB_DEVICE_MEM_WINDOW */
		known |= VIRTIO_IB_ACCESS_MW_BIND;
	if (access & ~known) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: unknown access flags 0x%x", what, access);
		return -EINVAL;
	}
	/* IBTA 10.6.3.1: remote write needs local write. */
	if ((access & VIRTIO_IB_ACCESS_REMOTE_WRITE) && !(access & VIRTIO_IB_ACCESS_LOCAL_WRITE)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: REMOTE_WRITE without LOCAL_WRITE", what);
		return -EINVAL;
	}
	/* IBTA 10.6.3.1: so does remote atomic. */
	if ((access & VIRTIO_IB_ACCESS_REMOTE_ATOMIC) && !(access & VIRTIO_IB_ACCESS_LOCAL_WRITE)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: REMOTE_ATOMIC without LOCAL_WRITE", what);
		return -EINVAL;
	}
	return 0;
}

/* ROCE-DEV-MR-1, -2, -3: what both registrations check first. */
static int
check_pd_access(struct vur_rdma_dev *rd, const char *cmd, uint32_t pdn, uint32_t access)
{
	if (vur_pool_get(&rd->pds, pdn) == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: no PD %u", cmd, pdn);
		return -ENOENT;
	}
	return vur_rdma_mr_access_ok(rd, cmd, access);
}

struct vur_rdma_mr *
vur_rdma_mr_new(struct vur_rdma_dev *rd, const char *cmd, uint32_t pdn, uint32_t access, bool fast)
{
	struct vur_rdma_mr *mr;
	uint32_t slot;

	mr = vur_pool_alloc(&rd->mrs); /* ROCE-DEV-MR-4 */
	if (mr == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: max_mr (%u) MRs live", cmd, rd->limits.max_mr);
		return NULL;
	}
	slot = mr->obj.index - rd->mrs.first;
	mr->pdn = pdn;
	mr->access = access;
	mr->fast = fast;
	mr->valid = !fast; /* a fast MR is free until a REG_MR (IBTA 10.6) */
	mr->page_shift = VIRTIO_NET_ROCE_PAGE_SHIFT;
	rte_ticketlock_init(&mr->lock);
	/* ROCE-DEV-MR-8 (the index part) and -9 (not the slot's last rkey) */
	mr->rkey = vur_rdma_make_key(rd, mr->obj.index, rd->mr_last_rkey[slot], fast);
	/* one key of both kinds for a fast MR, as a REG_MR sets them (IBTA 10.6) */
	mr->lkey = fast ? mr->rkey : vur_rdma_make_key(rd, mr->obj.index, 0, false);
	rd->mr_last_rkey[slot] = mr->rkey;
	vur_pool_ref(vur_pool_get(&rd->pds, pdn));
	return mr;
}

int
vur_rdma_get_dma_mr(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_get_dma_mr *c,
		struct vur_rdma_mr **mrp)
{
	uint32_t pdn = rte_le_to_cpu_32(c->pdn);
	uint32_t access = rte_le_to_cpu_32(c->access_flags);
	struct vur_rdma_mr *mr;
	int ret;

	ret = check_pd_access(rd, "GET_DMA_MR", pdn, access);
	if (ret == 0) /* ROCE-DEV-QUOTA-3 */
		ret = vur_rdma_quota_take(rd, VUR_QUOTA_MRS, 1, "GET_DMA_MR");
	if (ret < 0)
		return ret;
	mr = vur_rdma_mr_new(rd, "GET_DMA_MR", pdn, access, false);
	if (mr == NULL)
		return -ENOSPC;
	mr->dma = true;
	*mrp = mr;
	return 0;
}

/* ROCE-DEV-MR-5, -6: the range and the number of pages it spans. */
static int
check_range(struct vur_rdma_dev *rd, uint64_t iova, uint64_t length, uint32_t npages)
{
	uint64_t first, last;

	if (length == 0 || length > rd->limits.max_mr_size || iova + length - 1 < iova) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_USER_MR: bad range 0x%" PRIx64 "+0x%" PRIx64, iova,
				length);
		return -EINVAL;
	}
	first = iova >> VIRTIO_NET_ROCE_PAGE_SHIFT;
	last = (iova + length - 1) >> VIRTIO_NET_ROCE_PAGE_SHIFT;
	if (last - first + 1 != npages) {
		VUR_RDMA_LOG(rd, NOTICE, "REG_USER_MR: %u pages for a range spanning %" PRIu64,
				npages, last - first + 1);
		return -EINVAL;
	}
	return 0;
}

/* ROCE-DEV-MR-7: every page aligned and entirely in driver memory. */
static int
copy_pages(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_reg_user_mr *c, uint64_t *pages)
{
	uint32_t i, n = rte_le_to_cpu_32(c->npages);
	uint64_t p;

	for (i = 0; i < n; i++) {
		memcpy(&p, &c->pages[i], sizeof(p)); /* the command copy may be unaligned */
		p = rte_le_to_cpu_64(p);
		if (p & (VIRTIO_NET_ROCE_PAGE_SIZE - 1) ||
				!rd->env.mem_ok(rd->env.arg, p, VIRTIO_NET_ROCE_PAGE_SIZE)) {
			VUR_RDMA_LOG(rd, NOTICE,
					"REG_USER_MR: page %u (0x%" PRIx64
					") is not a page of driver memory",
					i, p);
			return -EFAULT;
		}
		pages[i] = p;
	}
	return 0;
}

int
vur_rdma_reg_user_mr(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_reg_user_mr *c,
		struct vur_rdma_mr **mrp)
{
	uint32_t pdn = rte_le_to_cpu_32(c->pdn);
	uint32_t access = rte_le_to_cpu_32(c->access_flags);
	uint64_t iova = rte_le_to_cpu_64(c->virt_addr);
	uint64_t length = rte_le_to_cpu_64(c->length);
	uint32_t npages = rte_le_to_cpu_32(c->npages);
	struct vur_rdma_mr *mr;
	uint64_t *pages;
	int ret;

	ret = check_pd_access(rd, "REG_USER_MR", pdn, access);
	if (ret == 0)
		ret = check_range(rd, iova, length, npages);
	/* ROCE-DEV-QUOTA-3, -4: what it pins is its pages */
	if (ret == 0)
		ret = vur_rdma_quota_take(rd, VUR_QUOTA_MRS, 1, "REG_USER_MR");
	if (ret == 0)
		ret = vur_rdma_quota_take(rd, VUR_QUOTA_PINNED_BYTES,
				(uint64_t)npages << VIRTIO_NET_ROCE_PAGE_SHIFT, "REG_USER_MR");
	if (ret < 0)
		return ret;
	pages = malloc((size_t)npages * sizeof(*pages));
	if (pages == NULL)
		return -ENOMEM;
	ret = copy_pages(rd, c, pages);
	if (ret < 0)
		goto free_pages;
	mr = vur_rdma_mr_new(rd, "REG_USER_MR", pdn, access, false);
	if (mr == NULL) {
		ret = -ENOSPC;
		goto free_pages;
	}
	mr->iova = iova;
	mr->length = length;
	mr->npages = npages;
	mr->pages = pages;
	rd->pinned_bytes += (uint64_t)npages << VIRTIO_NET_ROCE_PAGE_SHIFT;
	*mrp = mr;
	return 0;

free_pages:
	free(pages);
	return ret;
}

int
vur_rdma_dereg_mr(struct vur_rdma_dev *rd, uint32_t mrn)
{
	struct vur_rdma_mr *mr = vur_pool_get(&rd->mrs, mrn);

	if (mr == NULL) { /* ROCE-DEV-MR-11 */
		VUR_RDMA_LOG(rd, NOTICE, "DEREG_MR: no MR %u", mrn);
		return -ENOENT;
	}
	if (mr->mw_bound != 0) { /* ROCE-DEV-MW-5 */
		VUR_RDMA_LOG(rd, NOTICE, "DEREG_MR: MR %u has %u MWs bound", mrn, mr->mw_bound);
		return -EBUSY;
	}
	if (mr->ring_refs != 0) { /* ROCE-DEV-RING-7 */
		VUR_RDMA_LOG(rd, NOTICE,
				"DEREG_MR: MR %u holds %u rings or records of live objects", mrn,
				mr->ring_refs);
		return -EBUSY;
	}
	/*
	 * ROCE-DEV-MR-12: accesses resolve the key each time (no MR pointer is
	 * cached), so once the slot is free no access can reach this memory.
	 * A fast MR in any state: its last key is the one a peer may hold.
	 */
	if (mr->fast)
		rd->mr_last_rkey[mr->obj.index - rd->mrs.first] = mr->rkey;
	if (!mr->fast && !mr->dma)
		rd->pinned_bytes -= (uint64_t)mr->npages << VIRTIO_NET_ROCE_PAGE_SHIFT;
	free(mr->pages);
	mr->pages = NULL;
	vur_pool_unref(vur_pool_get(&rd->pds, mr->pdn));
	vur_pool_free(&rd->mrs, mrn);
	return 0;
}
