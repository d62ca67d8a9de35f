/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work requests of IBTA's Base Memory Management Extensions (Vol 1
 * 10.6, 11.4) that stay in the device: REG_MR (fast registration),
 * LOCAL_INV and BIND_MW (memory windows, 10.6.7); and the invalidation a
 * SEND_WITH_INV asks of its responder.
 *
 * Ordering. A local op takes effect when the requester reaches it in send
 * queue order (vur_tp_local_op_run): the WRs after it see the MR as it
 * left it, those before it saw it as it was, whatever is still to be
 * acknowledged of them. It takes no PSN (its span is 0, its first PSN the
 * next one: every ACK that covers the WR before it covers it too) and
 * completes, as every WR does, in order: after the WRs before it, so a
 * REG_MR behind a SEND completes after the SEND's ACK (IBTA 10.8.3.4,
 * completion order). With FENCE it also waits until every WR before it has
 * completed before it takes effect: a LOCAL_INV after a READ into the MR,
 * or a SEND whose retransmission would read it, needs that ("local
 * invalidate fence"; mlx5 makes it strong ordering).
 *
 * Concurrency. An MR may be used by QPs of every data-path thread while
 * one of them registers or invalidates it: its fields change under its
 * lock (rdma_dev.h), which every access through its keys takes too
 * (tp_mem.c). The control thread frees it with the device lock held to
 * write, when no data-path thread is in the engine. A memory window is
 * bound and invalidated under its own lock, with the MR's taken under it
 * (lock order: QP, MW, MR; never two MRs at once), as every remote access
 * through it does (tp_mem.c).
 */
#include <inttypes.h>
#include <string.h>

#include "rdma/rdma_ops.h"
#include "transport/tp.h"

#define SQ_REQ_LEN sizeof(struct virtio_rdma_sq_req)
#define SGE_LEN    sizeof(struct virtio_rdma_sge)

void
vur_tp_local_op_decode(struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_chain *c,
		const struct virtio_rdma_sq_req *req, struct vur_swqe *w)
{
	struct virtio_rdma_sge sge;

	RTE_SET_USED(t);
	w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR;
	if (w->flags & VIRTIO_IB_SEND_INLINE) /* no data of their own */
		return;
	if (w->opcode == VIRTIO_IB_WR_LOCAL_INV) {
		w->inv_rkey = rte_le_to_cpu_32(req->inv.invalidate_rkey);
		w->status = VIRTIO_IB_WC_SUCCESS;
		return;
	}
	if (w->opcode == VIRTIO_IB_WR_BIND_MW) {
		/* ROCE-DEV-MW-6: no message; ROCE-DEV-WR-12: a device with windows */
		if (rte_le_to_cpu_32(req->num_sge) != 0 || td->rd->limits.max_mw == 0)
			return;
		w->bind = (struct vur_tp_bind){
			.addr = rte_le_to_cpu_64(req->bind.addr),
			.length = rte_le_to_cpu_64(req->bind.length),
			.mr_lkey = rte_le_to_cpu_32(req->bind.mr_lkey),
			.rkey = rte_le_to_cpu_32(req->bind.rkey),
			.access = rte_le_to_cpu_32(req->bind.access),
		};
		w->status = VIRTIO_IB_WC_SUCCESS;
		return;
	}
	/* REG_MR: the page list in sg_list[0], by driver address (lkey 0) */
	if (rte_le_to_cpu_32(req->num_sge) != 1 || c->out_len < SQ_REQ_LEN + SGE_LEN)
		return;
	vur_chain_read(c, SQ_REQ_LEN, &sge, sizeof(sge));
	w->sge[0] = (struct vur_tp_sge){
		.addr = rte_le_to_cpu_64(sge.addr),
		.length = rte_le_to_cpu_32(sge.length),
		.lkey = rte_le_to_cpu_32(sge.lkey),
	};
	w->reg = (struct vur_tp_reg){
		.iova = rte_le_to_cpu_64(req->reg.iova),
		.length = rte_le_to_cpu_64(req->reg.length),
		.key = rte_le_to_cpu_32(req->reg.key),
		.access = rte_le_to_cpu_32(req->reg.access),
		.page_shift = req->reg.page_shift,
	};
	/* its s/g list is not data: num_sge stays 0, nothing is sent or checked by key */
	if (w->sge[0].lkey != 0 || w->sge[0].length % sizeof(uint64_t) != 0 ||
			w->sge[0].length == 0 ||
			w->sge[0].length > VUR_MAX_FAST_REG_PAGES * sizeof(uint64_t))
		return;
	w->status = VIRTIO_IB_WC_SUCCESS;
}

/* Drop MR @index's count of bound MWs (an MW's lock held): it can go again. */
static void
mr_unbound(struct vur_tp_dev *td, uint32_t index)
{
	struct vur_rdma_mr *mr = vur_pool_get(&td->rd->mrs, index);

	if (mr == NULL) /* never: an MR with MWs bound stays */
		return;
	vur_tp_lock(&mr->lock);
	mr->mw_bound--;
	vur_tp_unlock(&mr->lock);
}

/*
 * A type 2 memory window @mw invalidated by @key (IBTA 10.6.7.2.3; @qpn:
 * the QP of a SEND_WITH_INV, VUR_RDMA_MW_NO_QP for LOCAL_INV).
 */
static bool
invalidate_mw(struct vur_tp_dev *td, struct vur_rdma_mw *mw, uint32_t pdn, uint32_t qpn,
		uint32_t key, const char *what)
{
	uint32_t old_mr;
	int ret;

	vur_tp_lock(&mw->lock);
	ret = vur_rdma_mw_invalidate(td->rd, mw, pdn, qpn, key, what, &old_mr);
	if (ret == 0 && old_mr != 0)
		mr_unbound(td, old_mr);
	vur_tp_unlock(&mw->lock);
	return ret == 0;
}

/*
 * The MR or type 2 memory window @key names invalidated for PD @pdn
 * (@what: for the log; @qpn: as for invalidate_mw). An MR with MWs bound
 * is not invalidated (ROCE-DEV-MW-11, mr_fast.c).
 */
static bool
invalidate(struct vur_tp_dev *td, uint32_t pdn, uint32_t qpn, uint32_t key, const char *what)
{
	struct vur_rdma_mw *mw = vur_rdma_mw_at_key(td->rd, key);
	struct vur_rdma_mr *mr;
	int ret;

	if (mw != NULL)
		return invalidate_mw(td, mw, pdn, qpn, key, what);
	mr = vur_rdma_mr_at_key(td->rd, key);
	if (mr == NULL) {
		VUR_TP_LOG(td, NOTICE, "%s: no MR or MW of key 0x%x", what, key);
		return false;
	}
	if (mr->fast)
		vur_tp_lock(&mr->lock);
	ret = vur_rdma_mr_invalidate(td->rd, mr, pdn, key, what);
	if (mr->fast)
		vur_tp_unlock(&mr->lock);
	return ret == 0;
}

/*
 * BIND_MW (IBTA 10.6.7.2.2): the MW at the key's index bound to the MR of
 * the WR's lkey, or a type 1 MW unbound. The new MR's count is taken
 * under its lock, the old one's dropped under its own after (a type 1 MW
 * bound again, maybe to the same MR).
 */
static bool
bind_mw(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_swqe *w)
{
	const struct vur_tp_bind *g = &w->bind;
	struct vur_rdma_mw_bind b = {
		.pdn = t->qp->pdn,
		.qpn = t->qp->obj.index,
		.rkey = g->rkey,
		.mr_lkey = g->mr_lkey,
		.access = g->access,
		.addr = g->addr,
		.length = g->length,
	};
	struct vur_rdma_mw *mw = vur_rdma_mw_at_key(td->rd, g->rkey);
	struct vur_rdma_mr *mr = NULL;
	uint32_t old_mr;
	int ret;

	if (mw == NULL) {
		VUR_TP_LOG(td, NOTICE, "QP %u: BIND_MW: no MW of key 0x%x", t->qp->obj.index,
				g->rkey);
		return false;
	}
	vur_tp_lock(&mw->lock);
	if (!vur_rdma_mw_unbinds(mw, &b))
		mr = vur_rdma_mr_at_key(td->rd, g->mr_lkey);
	if (mr != NULL)
		vur_tp_lock(&mr->lock);
	ret = vur_rdma_mw_bind(td->rd, mw, mr, &b, &old_mr);
	if (mr != NULL)
		vur_tp_unlock(&mr->lock);
	if (ret == 0 && old_mr != 0)
		mr_unbound(td, old_mr);
	vur_tp_unlock(&mw->lock);
	return ret == 0;
}

/* REG_MR: the page list read now (IBTA: when the WR executes), every page checked. */
static bool
reg_mr(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_swqe *w)
{
	uint64_t pages[VUR_MAX_FAST_REG_PAGES];
	uint32_t npages = w->sge[0].length / sizeof(uint64_t);
	const struct vur_tp_reg *g = &w->reg;
	struct vur_rdma_fast_reg r = {
		.pdn = t->qp->pdn,
		.key = g->key,
		.iova = g->iova,
		.length = g->length,
		.access = g->access,
		.page_shift = g->page_shift,
		.pages = pages,
		.npages = npages,
	};
	struct vur_rdma_mr *mr;
	int ret;

	if (!vur_tp_mem_read(td, w->sge[0].addr, pages, w->sge[0].length)) {
		VUR_TP_LOG(td, NOTICE, "QP %u: REG_MR: page list at 0x%" PRIx64 " not in memory",
				t->qp->obj.index, w->sge[0].addr);
		return false;
	}
	for (uint32_t i = 0; i < npages; i++) {
		pages[i] = rte_le_to_cpu_64(pages[i]);
		/* as REG_USER_MR's (ROCE-DEV-MR-7): the whole page in driver memory */
		if (g->page_shift <= 30 && !vur_tp_mem_ok(td, pages[i], 1ULL << g->page_shift)) {
			VUR_TP_LOG(td, NOTICE,
					"QP %u: REG_MR: page %u (0x%" PRIx64
					") not in driver memory",
					t->qp->obj.index, i, pages[i]);
			return false;
		}
	}
	mr = vur_rdma_mr_at_key(td->rd, g->key);
	if (mr == NULL) {
		VUR_TP_LOG(td, NOTICE, "QP %u: REG_MR: no MR of key 0x%x", t->qp->obj.index,
				g->key);
		return false;
	}
	if (mr->fast)
		vur_tp_lock(&mr->lock);
	ret = vur_rdma_mr_fast_reg(td->rd, mr, &r); /* page size and count checked there */
	if (mr->fast)
		vur_tp_unlock(&mr->lock);
	return ret == 0;
}

bool
vur_tp_local_op_run(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_swqe *w)
{
	bool ok;

	if ((w->flags & VIRTIO_IB_SEND_FENCE) && t->head != t->send)
		return false;
	if (w->opcode == VIRTIO_IB_WR_LOCAL_INV)
		ok = invalidate(td, t->qp->pdn, VUR_RDMA_MW_NO_QP, w->inv_rkey, "LOCAL_INV");
	else if (w->opcode == VIRTIO_IB_WR_BIND_MW)
		ok = bind_mw(td, t, w);
	else
		ok = reg_mr(td, t, w);
	if (!ok) {
		/* completes once the WRs before it have, and the QP leaves RTS (or SQE) */
		w->status = w->opcode == VIRTIO_IB_WR_BIND_MW ? VIRTIO_IB_WC_MW_BIND_ERR
							      : VIRTIO_IB_WC_LOC_QP_OP_ERR;
		return true;
	}
	w->first_psn = t->psn;
	w->span = w->npkts = w->next_pkt = w->sent_max = 0;
	w->state = VUR_SWQE_SENT;
	t->started = t->send + 1;
	t->send++;
	return true;
}

bool
vur_tp_recv_invalidate(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		struct vur_tp_cqe *e)
{
	if (!invalidate(td, t->qp->pdn, t->qp->obj.index, p->h.ieth, "SEND_WITH_INV"))
		return false;
	e->wc_flags |= VIRTIO_IB_WC_WITH_INVALIDATE;
	e->inv_rkey = p->h.ieth;
	return true;
}
