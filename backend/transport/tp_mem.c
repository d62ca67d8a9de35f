/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest memory as the engine reaches it: through a key, never a raw
 * address. Every access resolves the key again (a deregistered MR is gone
 * at once, ROCE-DEV-MR-12), checks the PD and the access rights, bounds the
 * range by the MR, and translates driver addresses through the engine's
 * copy of the memory table, one contiguous host range at a time.
 */
#include <string.h>

#include <rte_vhost.h>

#include "rdma/rdma_ops.h"
#include "transport/tp.h"

#define PAGE_SIZE VIRTIO_NET_ROCE_PAGE_SIZE

/* Host address of driver address @gpa; *@len shrinks to what its region holds. */
static void *
gpa_hva(const struct rte_vhost_memory *mem, uint64_t gpa, uint32_t *len)
{
	const struct rte_vhost_mem_region *r;
	uint64_t off;

	for (uint32_t i = 0; mem != NULL && i < mem->nregions; i++) {
		r = &mem->regions[i];
		if (gpa < r->guest_phys_addr || gpa - r->guest_phys_addr >= r->size)
			continue;
		off = gpa - r->guest_phys_addr;
		if (*len > r->size - off)
			*len = (uint32_t)(r->size - off);
		return (void *)(uintptr_t)(r->host_user_addr + off);
	}
	return NULL;
}

/* Driver address of MR byte @addr; *@len shrinks to the pages that follow each other. */
static bool
mr_gpa(const struct vur_rdma_mr *mr, uint64_t addr, uint32_t *len, uint64_t *gpa)
{
	uint64_t pos, page, in, run;

	if (mr->dma) {
		*gpa = addr;
		return true;
	}
	pos = (mr->iova & (PAGE_SIZE - 1)) + (addr - mr->iova);
	page = pos / PAGE_SIZE;
	in = pos % PAGE_SIZE;
	if (page >= mr->npages)
		return false;
	*gpa = mr->pages[page] + in;
	run = PAGE_SIZE - in;
	while (run < *len && page + 1 < mr->npages &&
			mr->pages[page + 1] == mr->pages[page] + PAGE_SIZE) {
		page++;
		run += PAGE_SIZE;
	}
	if (*len > run)
		*len = (uint32_t)run;
	return true;
}

/* Whether [@addr, @addr + @len) lies in @mr (a DMA MR: checked when translated). */
static bool
in_mr(const struct vur_rdma_mr *mr, uint64_t addr, uint64_t len)
{
	if (mr->dma)
		return addr + len >= addr;
	return addr >= mr->iova && len <= mr->length && addr - mr->iova <= mr->length - len;
}

static struct vur_rdma_mr *
mr_of(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, bool remote, uint32_t access)
{
	struct vur_rdma_mr *mr = remote ? vur_rdma_mr_by_rkey(td->rd, key)
					: vur_rdma_mr_by_lkey(td->rd, key);

	if (mr == NULL || mr->pdn != pdn || (mr->access & access) != access)
		return NULL;
	return mr;
}

void *
vur_tp_mr_hva(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, bool remote, uint32_t access,
		uint64_t addr, uint32_t *len)
{
	struct vur_rdma_mr *mr = mr_of(td, pdn, key, remote, access);
	uint64_t gpa;

	if (mr == NULL || *len == 0 || !in_mr(mr, addr, *len) || !mr_gpa(mr, addr, len, &gpa))
		return NULL;
	return gpa_hva(td->mem, gpa, len);
}

/* Every byte of a range translates (DMA MRs can name memory no region holds). */
static bool
range_mapped(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, bool remote, uint32_t access,
		uint64_t addr, uint64_t len)
{
	uint32_t n;

	while (len > 0) {
		n = (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX);
		if (vur_tp_mr_hva(td, pdn, key, remote, access, addr, &n) == NULL)
			return false;
		addr += n;
		len -= n;
	}
	return true;
}

bool
vur_tp_sge_ok(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		enum vur_tp_access acc)
{
	uint32_t access = acc == VUR_TP_WRITE ? VIRTIO_IB_ACCESS_LOCAL_WRITE : 0;
	struct vur_rdma_mr *mr;

	if (sge->length == 0) /* contributes nothing, is not otherwise checked */
		return true;
	mr = mr_of(td, pdn, sge->lkey, false, access);
	if (mr == NULL || !in_mr(mr, sge->addr, sge->length))
		return false;
	return !mr->dma || range_mapped(td, pdn, sge->lkey, false, access, sge->addr, sge->length);
}

bool
vur_tp_rkey_ok(struct vur_tp_dev *td, uint32_t pdn, uint32_t rkey, uint32_t access, uint64_t va,
		uint64_t len)
{
	struct vur_rdma_mr *mr = mr_of(td, pdn, rkey, true, access);

	if (mr == NULL || !in_mr(mr, va, len))
		return false;
	return !mr->dma || range_mapped(td, pdn, rkey, true, access, va, len);
}

/* Walk [@off, @off + @len) of a s/g list as host ranges; @fn gets each. */
typedef bool (*range_fn)(void *hva, uint32_t n, uint32_t done, void *arg);

static bool
sge_walk(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge, uint32_t num_sge,
		uint64_t off, uint32_t len, uint32_t access, range_fn fn, void *arg)
{
	uint32_t done = 0, n;
	uint64_t in;
	void *hva;

	for (uint32_t i = 0; i < num_sge && done < len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		in = off;
		off = 0;
		while (in < sge[i].length && done < len) {
			n = (uint32_t)RTE_MIN(sge[i].length - in, (uint64_t)(len - done));
			hva = vur_tp_mr_hva(
					td, pdn, sge[i].lkey, false, access, sge[i].addr + in, &n);
			if (hva == NULL || !fn(hva, n, done, arg))
				return false;
			in += n;
			done += n;
		}
	}
	return done == len;
}

struct from_pkt {
	const struct vur_pkt *p;
	uint32_t pay_off;
};

static bool
copy_from_pkt(void *hva, uint32_t n, uint32_t done, void *arg)
{
	struct from_pkt *f = arg;

	return vur_pkt_copy_payload(f->p, f->pay_off + done, hva, n) == n;
}

bool
vur_tp_sge_write(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		uint32_t num_sge, uint64_t off, const struct vur_pkt *p, uint32_t pay_off,
		uint32_t len)
{
	struct from_pkt f = { .p = p, .pay_off = pay_off };

	return sge_walk(td, pdn, sge, num_sge, off, len, VIRTIO_IB_ACCESS_LOCAL_WRITE,
			copy_from_pkt, &f);
}

static bool
copy_from_buf(void *hva, uint32_t n, uint32_t done, void *arg)
{
	memcpy(hva, (const uint8_t *)arg + done, n);
	return true;
}

bool
vur_tp_sge_write_buf(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		uint32_t num_sge, uint64_t off, const void *buf, uint32_t len)
{
	return sge_walk(td, pdn, sge, num_sge, off, len, VIRTIO_IB_ACCESS_LOCAL_WRITE,
			copy_from_buf, (void *)(uintptr_t)buf);
}

struct to_pkt {
	struct vur_tp_dev *td;
	struct rte_mbuf *m;
};

static bool
append_ref(void *hva, uint32_t n, uint32_t done, void *arg)
{
	struct to_pkt *t = arg;

	RTE_SET_USED(done);
	return vur_pkt_append_ref(t->m, vur_tp_ext_pool(t->td), hva, n) == 0;
}

bool
vur_tp_sge_append(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		uint32_t num_sge, uint64_t off, uint32_t len, struct rte_mbuf *m)
{
	struct to_pkt t = { .td = td, .m = m };

	return sge_walk(td, pdn, sge, num_sge, off, len, 0, append_ref, &t);
}
