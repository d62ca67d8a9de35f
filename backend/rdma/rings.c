/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rings in driver memory (VIRTIO_IB_DEVICE_RINGS, issue 28): SETUP_RINGS,
 * and what CREATE_QP, CREATE_CQ and CREATE_SRQ check of the rings and
 * records they name. Every address is checked here, once: the ring wholly
 * inside an MR of the right kind, PD and access, aligned to its stride (so
 * no entry crosses a 4 KiB page), the record likewise; the data path then
 * only masks indices. Each ring, record and doorbell area holds its MR
 * (ring_refs: DEREG_MR refused, ROCE-DEV-RING-7) until its object goes.
 *
 * Numbers: QPs and SRQs on rings take max_qps and on (a GSI QP stays 1),
 * CQs on rings max_cqs and on (ROCE-DEV-RING-6).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

#define REC_SIZE   128u
#define REC_DEVICE 64u /* the device's half of a record */
#define MIN_STRIDE 6
#define MAX_STRIDE 12 /* an entry never crosses a 4 KiB page */
#define QPN_GSI    1

/* Entry sizes (ROCE-DEV-RING-4): the request and its s/g list in one entry. */
static uint32_t
sq_entry(uint32_t sge)
{
	return (uint32_t)sizeof(struct virtio_rdma_sq_req) + sge * sizeof(struct virtio_rdma_sge);
}

static uint32_t
rq_entry(uint32_t sge)
{
	return (uint32_t)sizeof(struct virtio_rdma_rq_req) + sge * sizeof(struct virtio_rdma_sge);
}

static bool
is_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* Driver address of byte @addr of @mr (a DMA or user MR, @addr inside it). */
static uint64_t
mr_gpa(const struct vur_rdma_mr *mr, uint64_t addr)
{
	uint64_t pos;

	if (mr->dma)
		return addr;
	pos = (mr->iova & ((1ULL << mr->page_shift) - 1)) + (addr - mr->iova);
	return mr->pages[pos >> mr->page_shift] + (pos & ((1ULL << mr->page_shift) - 1));
}

/* Whether [@addr, @addr + @len) lies in @mr, and in driver memory page by page (DMA MR). */
static bool
in_mr(struct vur_rdma_dev *rd, const struct vur_rdma_mr *mr, uint64_t addr, uint64_t len)
{
	uint64_t page = VIRTIO_NET_ROCE_PAGE_SIZE, a, end = addr + len;

	if (end < addr)
		return false;
	if (!mr->dma)
		return addr >= mr->iova && len <= mr->length && addr - mr->iova <= mr->length - len;
	/* a DMA MR is the driver's memory: each page the data path will reach is in it */
	for (a = addr; a < end; a = (a & ~(page - 1)) + page)
		if (!rd->env.mem_ok(rd->env.arg, a, RTE_MIN(end, (a & ~(page - 1)) + page) - a))
			return false;
	return true;
}

/*
 * ROCE-DEV-RING-4: [@addr, @addr + @len) of the MR of @lkey, for a
 * ring or record of PD @pdn (0: any PD), @write: LOCAL_WRITE needed.
 */
static struct vur_rdma_mr *
check_area(struct vur_rdma_dev *rd, const char *what, uint64_t addr, uint32_t lkey, uint64_t len,
		uint32_t pdn, bool write)
{
	struct vur_rdma_mr *mr = vur_rdma_mr_by_lkey(rd, lkey);

	if (mr == NULL || mr->fast) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: lkey 0x%x names no DMA or user MR", what, lkey);
		return NULL;
	}
	if (pdn != 0 && mr->pdn != pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MR %u is of PD %u, not %u", what, mr->obj.index,
				mr->pdn, pdn);
		return NULL;
	}
	if (write && !(mr->access & VIRTIO_IB_ACCESS_LOCAL_WRITE)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MR %u without LOCAL_WRITE", what, mr->obj.index);
		return NULL;
	}
	if (!in_mr(rd, mr, addr, len)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: 0x%" PRIx64 "+0x%" PRIx64 " is not inside MR %u",
				what, addr, len, mr->obj.index);
		return NULL;
	}
	return mr;
}

static void
keep(struct vur_rdma_ring *r, const struct vur_rdma_mr *mr, uint64_t addr, uint32_t lkey)
{
	r->addr = addr;
	r->lkey = lkey;
	r->pdn = mr->pdn;
	r->mrn = mr->obj.index;
}

/*
 * ROCE-DEV-RING-4: a ring of at most @max entries of at least
 * @min_entry bytes.
 */
static int
check_ring(struct vur_rdma_dev *rd, const char *what, const struct virtio_rdma_ring *w,
		uint32_t max, uint32_t min_entry, uint32_t pdn, bool write, struct vur_rdma_ring *r)
{
	uint64_t addr = rte_le_to_cpu_64(w->addr);
	uint32_t lkey = rte_le_to_cpu_32(w->lkey);
	struct vur_rdma_mr *mr;

	if (w->reserved != 0 || w->log_size > 31 || (1u << w->log_size) > max ||
			w->log_stride < MIN_STRIDE || w->log_stride > MAX_STRIDE ||
			(1u << w->log_stride) < min_entry) {
		VUR_RDMA_LOG(rd, NOTICE,
				"%s: ring of 2^%u entries of 2^%u bytes refused (at most %u "
				"entries, "
				"%u bytes each at least)",
				what, w->log_size, w->log_stride, max, min_entry);
		return -EINVAL;
	}
	if (addr & ((1ULL << w->log_stride) - 1)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: ring at 0x%" PRIx64 " not aligned to its stride",
				what, addr);
		return -EINVAL;
	}
	mr = check_area(rd, what, addr, lkey, (uint64_t)1 << (w->log_size + w->log_stride), pdn,
			write);
	if (mr == NULL)
		return -EINVAL;
	keep(r, mr, addr, lkey);
	r->log_size = w->log_size;
	r->log_stride = w->log_stride;
	return 0;
}

/* ROCE-DEV-RING-4: 128 bytes, 128-aligned, LOCAL_WRITE. */
static int
check_rec(struct vur_rdma_dev *rd, const char *what, const struct virtio_rdma_rec_ref *w,
		uint32_t pdn, struct vur_rdma_ring *r)
{
	uint64_t addr = rte_le_to_cpu_64(w->addr);
	uint32_t lkey = rte_le_to_cpu_32(w->lkey);
	struct vur_rdma_mr *mr;

	if (w->reserved != 0 || (addr & (REC_SIZE - 1))) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: record at 0x%" PRIx64 " misaligned or reserved set",
				what, addr);
		return -EINVAL;
	}
	mr = check_area(rd, what, addr, lkey, REC_SIZE, pdn, true);
	if (mr == NULL)
		return -EINVAL;
	keep(r, mr, addr, lkey);
	r->log_stride = 7;
	return 0;
}

static void
ref_area(struct vur_rdma_dev *rd, const struct vur_rdma_ring *r, int delta)
{
	struct vur_rdma_mr *mr = vur_pool_get(&rd->mrs, r->mrn);

	if (mr != NULL)
		mr->ring_refs += delta;
}

static void
ref_rings(struct vur_rdma_dev *rd, const struct vur_rdma_rings *g, int delta)
{
	ref_area(rd, &g->ring[0], delta);
	if (g->has_rq)
		ref_area(rd, &g->ring[1], delta);
	ref_area(rd, &g->rec, delta);
}

/* Host address of [@addr, @addr + @len) of area @r, one page; NULL if it cannot be reached. */
static void *
area_hva(struct vur_rdma_dev *rd, const struct vur_rdma_ring *r, uint64_t addr, uint64_t len)
{
	const struct vur_rdma_mr *mr = vur_pool_get(&rd->mrs, r->mrn);

	if (mr == NULL || rd->env.hva == NULL)
		return NULL;
	return rd->env.hva(rd->env.arg, mr_gpa(mr, addr), len);
}

/* ROCE-DEV-RING-8: the device half of a record zeroed before the ack. */
static int
rec_reset(struct vur_rdma_dev *rd, const struct vur_rdma_ring *rec)
{
	uint8_t *p = area_hva(rd, rec, rec->addr + REC_DEVICE, REC_DEVICE);

	if (p == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "record at 0x%" PRIx64 " cannot be reached", rec->addr);
		return -EFAULT;
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (unsigned int i = 0; i < REC_DEVICE / 4; i++)
		__atomic_store_n((uint32_t *)(p + 4 * i), 0, __ATOMIC_RELAXED);
	return 0;
}

/* The rings of an object go with it: their MRs are free to go (ROCE-DEV-RING-20). */
void
vur_rdma_rings_free(struct vur_rdma_dev *rd, struct vur_rdma_rings *g)
{
	if (g == NULL)
		return;
	ref_rings(rd, g, -1);
	free(g);
}

static bool
rings_on(struct vur_rdma_dev *rd, const char *what)
{
	if (rd->limits.ring_queues == 0) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: the device has no rings", what);
		return false;
	}
	return true;
}

/* ROCE-DEV-RING-3 */
int
vur_rdma_setup_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_setup_rings *c)
{
	uint64_t addr = rte_le_to_cpu_64(c->addr);
	uint32_t lkey = rte_le_to_cpu_32(c->lkey), k = rd->limits.ring_queues;
	uint32_t size = virtio_rdma_doorbell_size(rd->limits.max_qps, rd->limits.max_ring_qp);
	struct vur_rdma_ring area = { 0 };
	struct vur_rdma_mr *mr;
	uint32_t *sleeping;

	if (!rings_on(rd, "SETUP_RINGS"))
		return -EOPNOTSUPP;
	if (c->reserved != 0 || (addr & 63)) {
		VUR_RDMA_LOG(rd, NOTICE, "SETUP_RINGS: 0x%" PRIx64 " misaligned or reserved set",
				addr);
		return -EINVAL;
	}
	if (rd->ring_qps != 0) {
		VUR_RDMA_LOG(rd, NOTICE, "SETUP_RINGS: %u QPs on rings are live", rd->ring_qps);
		return -EBUSY;
	}
	mr = check_area(rd, "SETUP_RINGS", addr, lkey, (uint64_t)k * size, 0, true);
	if (mr == NULL)
		return -EINVAL;
	keep(&area, mr, addr, lkey);
	/* every summary's sleeping word reachable, then written 0 */
	for (uint32_t i = 0; i < k; i++)
		if (area_hva(rd, &area, addr + (uint64_t)i * size, 4) == NULL)
			return -EFAULT;
	for (uint32_t i = 0; i < k; i++) {
		sleeping = area_hva(rd, &area, addr + (uint64_t)i * size, 4);
		__atomic_store_n(sleeping, 0, __ATOMIC_RELEASE);
	}
	if (rd->doorbells_set)
		ref_area(rd, &rd->doorbells, -1);
	rd->doorbells = area;
	rd->doorbell_size = size;
	rd->doorbells_set = true;
	ref_area(rd, &area, 1);
	if (rd->env.hooks != NULL)
		rd->env.hooks->doorbells_moved(rd->env.hooks_arg);
	return 0;
}

/* A ring number free in both QPs and SRQs. */
static bool
number_free(uint32_t index, void *arg)
{
	struct vur_rdma_dev *rd = arg;

	return vur_pool_get(&rd->qps, index) == NULL && vur_pool_get(&rd->srqs, index) == NULL;
}

/* ROCE-DEV-RING-6: the QP or SRQ number a new object on rings takes, or UINT32_MAX. */
static uint32_t
ring_number(struct vur_rdma_dev *rd, bool gsi)
{
	const struct vur_rdma_limits *l = &rd->limits;

	if (gsi)
		return number_free(QPN_GSI, rd) ? QPN_GSI : UINT32_MAX;
	return vur_pool_find_free(&rd->qps, l->max_qps, l->max_qps + l->max_ring_qp,
			&rd->ring_qp_hint, number_free, rd);
}

/* ROCE-DEV-RING-4: what CREATE_QP on rings adds to CREATE_QP's checks. */
int
vur_rdma_qp_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp_rings *c,
		const struct vur_rdma_qp_cap *cap, struct vur_rdma_rings **out, uint32_t *qpn)
{
	const struct vur_rdma_limits *l = &rd->limits;
	uint32_t pdn = rte_le_to_cpu_32(c->qp.pdn);
	bool on_srq = c->qp.flags & VIRTIO_RDMA_QP_F_SRQ;
	struct vur_rdma_rings g = { 0 };
	uint16_t dbq = rte_le_to_cpu_16(c->dbq);
	struct vur_rdma_rings *p;

	if (!rings_on(rd, "CREATE_QP"))
		return -EOPNOTSUPP;
	if (!is_zero(c->reserved, sizeof(c->reserved)) || dbq >= l->ring_queues) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: doorbell queue %u (of %u) or reserved set",
				dbq, l->ring_queues);
		return -EINVAL;
	}
	if (!rd->doorbells_set) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: rings before SETUP_RINGS");
		return -EINVAL;
	}
	if (check_ring(rd, "CREATE_QP send ring", &c->sq, l->max_ring_wr,
			    sq_entry(cap->max_send_sge), pdn, false, &g.ring[0]) < 0 ||
			check_rec(rd, "CREATE_QP record", &c->rec, pdn, &g.rec) < 0)
		return -EINVAL;
	if (cap->max_send_wr > (1u << g.ring[0].log_size)) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: max_send_wr %u above the ring's %u entries",
				cap->max_send_wr, 1u << g.ring[0].log_size);
		return -EINVAL;
	}
	if (on_srq) {
		if (!is_zero(&c->rq, sizeof(c->rq))) {
			VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: on an SRQ with a receive ring");
			return -EINVAL;
		}
	} else {
		if (check_ring(rd, "CREATE_QP receive ring", &c->rq, l->max_ring_wr,
				    rq_entry(cap->max_recv_sge), pdn, false, &g.ring[1]) < 0)
			return -EINVAL;
		if (cap->max_recv_wr > (1u << g.ring[1].log_size)) {
			VUR_RDMA_LOG(rd, NOTICE,
					"CREATE_QP: max_recv_wr %u above the ring's %u entries",
					cap->max_recv_wr, 1u << g.ring[1].log_size);
			return -EINVAL;
		}
		g.has_rq = true;
	}
	g.q = dbq;
	*qpn = ring_number(rd, c->qp.qp_type == VIRTIO_IB_QPT_GSI);
	if (*qpn == UINT32_MAX) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_QP: no QP number on rings is free%s",
				c->qp.qp_type == VIRTIO_IB_QPT_GSI ? " (GSI: QP 1)" : "");
		return -ENOSPC;
	}
	if (rec_reset(rd, &g.rec) < 0)
		return -EFAULT;
	p = malloc(sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	*p = g;
	ref_rings(rd, p, 1);
	*out = p;
	return 0;
}

/* ROCE-DEV-RING-4, -15: CREATE_CQ on rings. */
int
vur_rdma_create_cq_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_cq_rings *c,
		uint32_t *cqn)
{
	const struct vur_rdma_limits *l = &rd->limits;
	uint32_t cqe = rte_le_to_cpu_32(c->cqe), n;
	uint16_t eq = rte_le_to_cpu_16(c->eq);
	struct vur_rdma_rings g = { 0 };
	struct vur_rdma_cq *cq;

	if (!rings_on(rd, "CREATE_CQ"))
		return -EOPNOTSUPP;
	if (rte_le_to_cpu_32(c->flags) != VIRTIO_RDMA_CQ_F_RINGS ||
			!is_zero(c->reserved, sizeof(c->reserved)) || eq >= l->ring_queues) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_CQ: flags 0x%x, event queue %u (of %u)",
				rte_le_to_cpu_32(c->flags), eq, l->ring_queues);
		return -EINVAL;
	}
	if (check_ring(rd, "CREATE_CQ ring", &c->ring, l->max_ring_cqe,
			    sizeof(struct virtio_rdma_cq_req), 0, true, &g.ring[0]) < 0 ||
			check_rec(rd, "CREATE_CQ record", &c->rec, 0, &g.rec) < 0)
		return -EINVAL;
	if (cqe == 0 || cqe > (1u << g.ring[0].log_size)) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_CQ: cqe %u outside 1..%u (the ring's entries)",
				cqe, 1u << g.ring[0].log_size);
		return -EINVAL;
	}
	g.q = eq;
	n = vur_pool_find_free(&rd->cqs, l->max_cqs, l->max_cqs + l->max_ring_cq, &rd->ring_cq_hint,
			NULL, NULL);
	if (n == UINT32_MAX) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_CQ: max_ring_cq (%u) CQs on rings live",
				l->max_ring_cq);
		return -ENOSPC;
	}
	if (rec_reset(rd, &g.rec) < 0)
		return -EFAULT;
	cq = vur_pool_alloc_at(&rd->cqs, n);
	if (cq == NULL || (cq->rings = malloc(sizeof(*cq->rings))) == NULL) {
		if (cq != NULL)
			vur_pool_free(&rd->cqs, n);
		return -ENOMEM;
	}
	*cq->rings = g;
	cq->cqe = cqe;
	ref_rings(rd, cq->rings, 1);
	if (rd->env.hooks != NULL && rd->env.hooks->cq_bind(rd->env.hooks_arg, cq) < 0) {
		VUR_RDMA_LOG(rd, ERR, "CREATE_CQ: no memory for CQ %u", n);
		vur_rdma_rings_free(rd, cq->rings);
		vur_pool_free(&rd->cqs, n);
		return -ENOMEM;
	}
	*cqn = n;
	return 0;
}

/*
 * ROCE-DEV-RING-23, -24: RESIZE_CQ. The new ring is checked as CREATE_CQ's;
 * the transport swaps it in between two CQEs (the CQ lock), after which the
 * old ring is never touched, so its MR is free at once.
 */
int
vur_rdma_resize_cq(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_resize_cq *c,
		uint32_t *switch_prod)
{
	uint32_t cqn = rte_le_to_cpu_32(c->cqn), cqe = rte_le_to_cpu_32(c->cqe);
	struct vur_rdma_cq *cq = vur_pool_get(&rd->cqs, cqn);
	struct vur_rdma_ring r = { 0 };
	int ret;

	if (!rings_on(rd, "RESIZE_CQ"))
		return -EOPNOTSUPP;
	if (cq == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "RESIZE_CQ: no CQ %u", cqn);
		return -ENOENT;
	}
	if (cq->rings == NULL) {
		VUR_RDMA_LOG(rd, NOTICE,
				"RESIZE_CQ: CQ %u is on a virtqueue (its driver resizes it)", cqn);
		return -EINVAL;
	}
	if (cq->error) { /* read again under the CQ's lock by the transport */
		VUR_RDMA_LOG(rd, NOTICE, "RESIZE_CQ: CQ %u is in error", cqn);
		return -EIO;
	}
	if (check_ring(rd, "RESIZE_CQ ring", &c->ring, rd->limits.max_ring_cqe,
			    sizeof(struct virtio_rdma_cq_req), 0, true, &r) < 0)
		return -EINVAL;
	if (cqe == 0 || cqe > (1u << r.log_size)) {
		VUR_RDMA_LOG(rd, NOTICE, "RESIZE_CQ: cqe %u outside 1..%u (the ring's entries)",
				cqe, 1u << r.log_size);
		return -EINVAL;
	}
	*switch_prod = 0;
	if (rd->env.hooks != NULL) {
		ret = rd->env.hooks->cq_resize(rd->env.hooks_arg, cq, &r, cqe, switch_prod);
		if (ret < 0)
			return ret;
	}
	ref_area(rd, &r, 1);
	ref_area(rd, &cq->rings->ring[0], -1);
	cq->rings->ring[0] = r;
	cq->cqe = cqe;
	return 0;
}

/* ROCE-DEV-RING-4, -17: CREATE_SRQ on rings. */
int
vur_rdma_create_srq_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_srq_rings *c,
		uint32_t *srqn)
{
	const struct vur_rdma_limits *l = &rd->limits;
	uint32_t pdn = rte_le_to_cpu_32(c->srq.pdn), max_wr = rte_le_to_cpu_32(c->srq.max_wr);
	uint32_t max_sge = rte_le_to_cpu_32(c->srq.max_sge), n;
	uint16_t eq = rte_le_to_cpu_16(c->eq);
	struct vur_rdma_rings g = { 0 };
	struct vur_rdma_srq *srq;
	struct vur_rdma_pd *pd;

	if (!rings_on(rd, "CREATE_SRQ") || l->max_srq == 0)
		return -EOPNOTSUPP;
	pd = vur_pool_get(&rd->pds, pdn);
	if (pd == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: no PD %u", pdn);
		return -ENOENT;
	}
	if (rte_le_to_cpu_32(c->srq.flags) != VIRTIO_RDMA_SRQ_F_RINGS ||
			!is_zero(c->reserved, sizeof(c->reserved)) || eq >= l->ring_queues ||
			max_wr == 0 || max_wr > l->max_ring_wr || max_sge > l->max_srq_sge) {
		VUR_RDMA_LOG(rd, NOTICE,
				"CREATE_SRQ: flags 0x%x, event queue %u (of %u), max_wr %u, "
				"max_sge %u refused",
				rte_le_to_cpu_32(c->srq.flags), eq, l->ring_queues, max_wr,
				max_sge);
		return -EINVAL;
	}
	if (check_ring(rd, "CREATE_SRQ ring", &c->ring, l->max_ring_wr, rq_entry(max_sge), pdn,
			    false, &g.ring[0]) < 0 ||
			check_rec(rd, "CREATE_SRQ record", &c->rec, pdn, &g.rec) < 0)
		return -EINVAL;
	if (max_wr > (1u << g.ring[0].log_size)) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: max_wr %u above the ring's %u entries",
				max_wr, 1u << g.ring[0].log_size);
		return -EINVAL;
	}
	g.q = eq;
	n = ring_number(rd, false);
	if (n == UINT32_MAX) {
		VUR_RDMA_LOG(rd, NOTICE, "CREATE_SRQ: no number on rings is free");
		return -ENOSPC;
	}
	if (rec_reset(rd, &g.rec) < 0)
		return -EFAULT;
	srq = vur_pool_alloc_at(&rd->srqs, n);
	if (srq == NULL || (srq->rings = malloc(sizeof(*srq->rings))) == NULL) {
		if (srq != NULL)
			vur_pool_free(&rd->srqs, n);
		return -ENOMEM;
	}
	*srq->rings = g;
	srq->pdn = pdn;
	srq->max_wr = max_wr;
	srq->max_sge = max_sge;
	ref_rings(rd, srq->rings, 1);
	if (rd->env.hooks != NULL && rd->env.hooks->srq_bind(rd->env.hooks_arg, srq) < 0) {
		VUR_RDMA_LOG(rd, ERR, "CREATE_SRQ: no memory for SRQ %u", n);
		vur_rdma_rings_free(rd, srq->rings);
		vur_pool_free(&rd->srqs, n);
		return -ENOMEM;
	}
	vur_pool_ref(pd);
	*srqn = n;
	return 0;
}

/* RESET_OBJECTS and device reset: the doorbell area is forgotten with everything. */
void
vur_rdma_rings_forget(struct vur_rdma_dev *rd)
{
	if (rd->doorbells_set)
		ref_area(rd, &rd->doorbells, -1);
	rd->doorbells_set = false;
}
