/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest memory as the engine reaches it: through a key, never a raw
 * address. Every access resolves the key again (a deregistered MR is gone
 * at once, ROCE-DEV-MR-12; an invalidated fast MR too), checks the PD and
 * the access rights, bounds the range by the MR, and translates driver
 * addresses through the engine's copy of the memory table, one contiguous
 * host range at a time.
 *
 * A fast-registration MR changes on the data path (local_ops.c): its key,
 * state, range and pages are read under its lock, which an access holds
 * from the key check to the driver address it translates (a leaf lock:
 * taken with a QP's held, nothing taken under it). The memory behind that
 * address stays mapped while the device lock is held to read; a REG_MR or
 * an invalidation on another thread right after the check is ordered after
 * this access, as on an RDMA NIC.
 *
 * An rkey can also name a memory window (rdma/mw.c): its binding (rights,
 * range, MR, the QP of a type 2 window) is read under the MW's lock, and
 * the MR is reached under it, through the MR's lkey, with the MR's lock
 * (lock order: MW, then MR). The window's rights stand for the MR's
 * remote rights, which it need not have (IBTA 10.6.7).
 */
#include <string.h>

#include <rte_vhost.h>

#include "rdma/rdma_ops.h"
#include "transport/tp.h"

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
	uint64_t page_size = 1ULL << mr->page_shift, pos, page, in, run;

	if (mr->dma) {
		*gpa = addr;
		return true;
	}
	pos = (mr->iova & (page_size - 1)) + (addr - mr->iova);
	page = pos >> mr->page_shift;
	in = pos & (page_size - 1);
	if (page >= mr->npages)
		return false;
	*gpa = mr->pages[page] + in;
	run = page_size - in;
	while (run < *len && page + 1 < mr->npages &&
			mr->pages[page + 1] == mr->pages[page] + page_size) {
		page++;
		run += page_size;
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

/* A fast MR's fields are the data path's too: read them under its lock. */
static void
mr_lock(struct vur_rdma_mr *mr)
{
	if (mr->fast)
		vur_tp_lock(&mr->lock);
}

static void
mr_unlock(struct vur_rdma_mr *mr)
{
	if (mr->fast)
		vur_tp_unlock(&mr->lock);
}

/* Whether @mr, as it stands (its lock held), grants @access by @key to PD @pdn. */
static bool
mr_grants(const struct vur_rdma_mr *mr, uint32_t pdn, uint32_t key, bool remote, uint32_t access)
{
	return mr->valid && (remote ? mr->rkey : mr->lkey) == key && mr->pdn == pdn &&
			(mr->access & access) == access;
}

static void *
mr_hva(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, bool remote, uint32_t access,
		uint64_t addr, uint32_t *len)
{
	struct vur_rdma_mr *mr = vur_rdma_mr_at_key(td->rd, key);
	uint64_t gpa = 0;
	bool ok;

	if (mr == NULL || *len == 0)
		return NULL;
	mr_lock(mr);
	ok = mr_grants(mr, pdn, key, remote, access) && in_mr(mr, addr, *len) &&
			mr_gpa(mr, addr, len, &gpa);
	mr_unlock(mr);
	return ok ? gpa_hva(td->mem, gpa, len) : NULL;
}

void *
vur_tp_mr_hva(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, uint32_t access, uint64_t addr,
		uint32_t *len)
{
	return mr_hva(td, pdn, key, false, access, addr, len);
}

/*
 * ROCE-DEV-MW-9: whether @mw, as it stands (its lock held), opens @access
 * over [@addr, @addr + @len) by @rkey to QP @qp.
 */
static bool
mw_grants(const struct vur_rdma_mw *mw, const struct vur_rdma_qp *qp, uint32_t rkey,
		uint32_t access, uint64_t addr, uint64_t len)
{
	return mw->bound && mw->rkey == rkey && mw->pdn == qp->pdn &&
			(mw->type == VIRTIO_IB_MW_TYPE_1 || mw->qpn == qp->obj.index) &&
			(mw->access & access) == access && addr >= mw->addr && len <= mw->length &&
			addr - mw->addr <= mw->length - len;
}

/* What the MR behind a window must allow for @access: what its bind asked of it. */
static uint32_t
mw_mr_access(uint32_t access)
{
	return (access & (VIRTIO_IB_ACCESS_REMOTE_WRITE | VIRTIO_IB_ACCESS_REMOTE_ATOMIC))
			? VIRTIO_IB_ACCESS_LOCAL_WRITE
			: 0;
}

void *
vur_tp_rkey_hva(struct vur_tp_dev *td, const struct vur_rdma_qp *qp, uint32_t rkey, uint32_t access,
		uint64_t addr, uint32_t *len)
{
	struct vur_rdma_mw *mw = vur_rdma_mw_at_key(td->rd, rkey);
	void *hva = NULL;

	if (mw == NULL)
		return mr_hva(td, qp->pdn, rkey, true, access, addr, len);
	vur_tp_lock(&mw->lock);
	if (*len != 0 && mw_grants(mw, qp, rkey, access, addr, *len))
		hva = mr_hva(td, qp->pdn, mw->mr_lkey, false, mw_mr_access(access), addr, len);
	vur_tp_unlock(&mw->lock);
	return hva;
}

/* Whether @key grants @access over [@addr, @addr + @len) (a DMA MR: then checked page by page). */
static bool
key_ok(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, bool remote, uint32_t access,
		uint64_t addr, uint64_t len, bool *dma)
{
	struct vur_rdma_mr *mr = vur_rdma_mr_at_key(td->rd, key);
	bool ok;

	if (mr == NULL)
		return false;
	mr_lock(mr);
	ok = mr_grants(mr, pdn, key, remote, access) && in_mr(mr, addr, len);
	*dma = mr->dma;
	mr_unlock(mr);
	return ok;
}

/* Every byte of a range translates (DMA MRs can name memory no region holds). */
static bool
range_mapped(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, bool remote, uint32_t access,
		uint64_t addr, uint64_t len)
{
	uint32_t n;

	while (len > 0) {
		n = (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX);
		if (mr_hva(td, pdn, key, remote, access, addr, &n) == NULL)
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
	bool dma;

	if (sge->length == 0) /* contributes nothing, is not otherwise checked */
		return true;
	if (!key_ok(td, pdn, sge->lkey, false, access, sge->addr, sge->length, &dma))
		return false;
	return !dma || range_mapped(td, pdn, sge->lkey, false, access, sge->addr, sge->length);
}

bool
vur_tp_rkey_ok(struct vur_tp_dev *td, const struct vur_rdma_qp *qp, uint32_t rkey, uint32_t access,
		uint64_t va, uint64_t len)
{
	struct vur_rdma_mw *mw = vur_rdma_mw_at_key(td->rd, rkey);
	uint32_t mr_key = rkey;
	bool dma, remote = true, ok;

	if (mw != NULL) {
		vur_tp_lock(&mw->lock);
		ok = mw_grants(mw, qp, rkey, access, va, len);
		mr_key = mw->mr_lkey;
		remote = false;
		access = mw_mr_access(access);
		ok = ok && key_ok(td, qp->pdn, mr_key, false, access, va, len, &dma);
		vur_tp_unlock(&mw->lock);
	} else {
		ok = key_ok(td, qp->pdn, rkey, true, access, va, len, &dma);
	}
	if (!ok)
		return false;
	/* the window may go meanwhile: each later access checks it again */
	return !dma || range_mapped(td, qp->pdn, mr_key, remote, access, va, len);
}

bool
vur_tp_mem_ok(const struct vur_tp_dev *td, uint64_t gpa, uint64_t len)
{
	uint32_t n = (uint32_t)RTE_MIN(len, (uint64_t)UINT32_MAX);

	return len <= UINT32_MAX && gpa_hva(td->mem, gpa, &n) != NULL && n == len;
}

bool
vur_tp_mem_read(const struct vur_tp_dev *td, uint64_t gpa, void *buf, uint32_t len)
{
	uint32_t done = 0, n;
	void *hva;

	while (done < len) {
		n = len - done;
		if (gpa + done < gpa)
			return false;
		hva = gpa_hva(td->mem, gpa + done, &n);
		if (hva == NULL)
			return false;
		memcpy((uint8_t *)buf + done, hva, n);
		done += n;
	}
	return true;
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
			hva = vur_tp_mr_hva(td, pdn, sge[i].lkey, access, sge[i].addr + in, &n);
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
