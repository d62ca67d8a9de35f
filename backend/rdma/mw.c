/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows (IBTA Vol 1 10.6.7): type 1 and type 2B.
 *
 * ALLOC_MW takes an MW slot of the PD; its rkey is a random tag, its
 * index and key byte 0, made as a fast MR's (mr.c). MW indices follow
 * every MR index (rdma_dev.c), so one key index names an MR or an MW,
 * never both (ROCE-DEV-MR-16), and a key byte a driver chooses cannot turn
 * one into the other. A BIND_MW work request (transport/local_ops.c)
 * binds a window to a range of a valid MR of the PD that has MW_BIND,
 * with remote rights of its own and a new key byte; a type 1 MW is bound
 * again or unbound (addr 0, length 0) by any QP of its PD, a type 2 MW is
 * bound only when unbound and then belongs to the QP that bound it until
 * LOCAL_INV (any QP of the PD) or a SEND_WITH_INV on that QP. While an MW
 * is bound its MR counts it (mw_bound): DEREG_MR and the MR's
 * invalidation are refused (ROCE-DEV-MW-5, -11). DEALLOC_MW frees an MW
 * bound or not.
 *
 * The functions the data path calls run with the MW's lock held and the
 * MR's where they touch it; they change nothing when they refuse.
 */
#include <errno.h>
#include <inttypes.h>

#include <rte_byteorder.h>

#include "common/log.h"
#include "rdma/rdma_ops.h"

#define WINDOW_ACCESS                                                   \
	(VIRTIO_IB_ACCESS_REMOTE_READ | VIRTIO_IB_ACCESS_REMOTE_WRITE | \
			VIRTIO_IB_ACCESS_REMOTE_ATOMIC)

int
vur_rdma_alloc_mw(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_alloc_mw *c,
		struct vur_rdma_mw **mwp)
{
	uint32_t pdn = rte_le_to_cpu_32(c->pdn);
	struct vur_rdma_mw *mw;
	uint32_t slot;

	if (rd->limits.max_mw == 0) { /* ROCE-DEV-CTRL-16 */
		VUR_RDMA_LOG(rd, NOTICE, "ALLOC_MW: the device has no memory windows");
		return -EOPNOTSUPP;
	}
	/* ROCE-DEV-MW-1 */
	if (vur_pool_get(&rd->pds, pdn) == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "ALLOC_MW: no PD %u", pdn);
		return -ENOENT;
	}
	if (c->type != VIRTIO_IB_MW_TYPE_1 && c->type != VIRTIO_IB_MW_TYPE_2) {
		VUR_RDMA_LOG(rd, NOTICE, "ALLOC_MW: type %u", c->type);
		return -EINVAL;
	}
	mw = vur_pool_alloc(&rd->mws);
	if (mw == NULL) {
		VUR_RDMA_LOG(rd, NOTICE, "ALLOC_MW: max_mw (%u) MWs live", rd->limits.max_mw);
		return -ENOSPC;
	}
	slot = mw->obj.index - rd->mws.first;
	mw->pdn = pdn;
	mw->type = c->type;
	mw->qpn = VUR_RDMA_MW_NO_QP;
	rte_ticketlock_init(&mw->lock);
	/* ROCE-DEV-MW-2: not bound, key byte 0; never the slot's last tag */
	mw->rkey = vur_rdma_make_key(rd, mw->obj.index, rd->mw_last_rkey[slot], true);
	rd->mw_last_rkey[slot] = mw->rkey;
	vur_pool_ref(vur_pool_get(&rd->pds, pdn));
	*mwp = mw;
	return 0;
}

int
vur_rdma_dealloc_mw(struct vur_rdma_dev *rd, uint32_t mwn)
{
	struct vur_rdma_mw *mw = vur_pool_get(&rd->mws, mwn);
	struct vur_rdma_mr *mr;

	if (mw == NULL) { /* ROCE-DEV-MW-3 */
		VUR_RDMA_LOG(rd, NOTICE, "DEALLOC_MW: no MW %u", mwn);
		return -ENOENT;
	}
	/*
	 * Bound or not (ROCE-DEV-MW-3); its binding ends with it. Accesses
	 * resolve the key each time, so once the slot is free none reaches
	 * the memory through it (ROCE-DEV-MW-4). The engine is at rest.
	 */
	if (mw->bound) {
		mr = vur_pool_get(&rd->mrs, mw->mr_index);
		if (mr != NULL) /* always: a bound MR cannot be deregistered */
			mr->mw_bound--;
	}
	rd->mw_last_rkey[mwn - rd->mws.first] = mw->rkey; /* the key a peer may hold */
	vur_pool_unref(vur_pool_get(&rd->pds, mw->pdn));
	vur_pool_free(&rd->mws, mwn);
	return 0;
}

struct vur_rdma_mw *
vur_rdma_mw_at_key(struct vur_rdma_dev *rd, uint32_t key)
{
	return vur_pool_get(
			&rd->mws, (key >> VUR_MR_KEY_BYTE_BITS) & ((1u << rd->mr_index_bits) - 1));
}

static void
qp_gone(void *obj, void *arg)
{
	struct vur_rdma_mw *mw = obj;

	if (mw->type == VIRTIO_IB_MW_TYPE_2 && mw->qpn == *(const uint32_t *)arg)
		mw->qpn = VUR_RDMA_MW_NO_QP; /* stays bound: LOCAL_INV or DEALLOC_MW ends it */
}

void
vur_rdma_mw_qp_gone(struct vur_rdma_dev *rd, uint32_t qpn)
{
	vur_pool_foreach(&rd->mws, qp_gone, &qpn);
}

bool
vur_rdma_mw_unbinds(const struct vur_rdma_mw *mw, const struct vur_rdma_mw_bind *b)
{
	return mw->type == VIRTIO_IB_MW_TYPE_1 && b->addr == 0 && b->length == 0;
}

/* The range and the rights of a window on @mr (its lock held). */
static int
check_mr(struct vur_rdma_dev *rd, const struct vur_rdma_mr *mr, const struct vur_rdma_mw_bind *b)
{
	uint32_t window_access = WINDOW_ACCESS;

	if (mr == NULL || !mr->valid || mr->lkey != b->mr_lkey) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: no valid MR of lkey 0x%x", b->mr_lkey);
		return -ENOENT;
	}
	if (mr->pdn != b->pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: MR %u of PD %u, the QP's is %u", mr->obj.index,
				mr->pdn, b->pdn);
		return -EACCES;
	}
	if (!(mr->access & VIRTIO_IB_ACCESS_MW_BIND)) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: MR %u has no MW_BIND", mr->obj.index);
		return -EACCES;
	}
	/* within the MR: a DMA MR spans driver memory, its accesses checked as they come */
	if (b->addr + b->length < b->addr ||
			(!mr->dma &&
					(b->addr < mr->iova || b->length > mr->length ||
							b->addr - mr->iova >
									mr->length - b->length))) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: 0x%" PRIx64 "+0x%" PRIx64 " not within MR %u",
				b->addr, b->length, mr->obj.index);
		return -ERANGE;
	}
	/* REMOTE_* only (ROCE-DEV-MW-8) */
	if (b->access & ~window_access) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: access 0x%x", b->access);
		return -EINVAL;
	}
	/* remote write and remote atomic need the MR's local write */
	if ((b->access & (VIRTIO_IB_ACCESS_REMOTE_WRITE | VIRTIO_IB_ACCESS_REMOTE_ATOMIC)) &&
			!(mr->access & VIRTIO_IB_ACCESS_LOCAL_WRITE)) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: remote write on MR %u without LOCAL_WRITE",
				mr->obj.index);
		return -EACCES;
	}
	return 0;
}

int
vur_rdma_mw_bind(struct vur_rdma_dev *rd, struct vur_rdma_mw *mw, struct vur_rdma_mr *mr,
		const struct vur_rdma_mw_bind *b, uint32_t *old_mr)
{
	bool unbind = vur_rdma_mw_unbinds(mw, b);
	int ret;

	*old_mr = 0;
	/* ROCE-DEV-MW-7: the checks of the spec's "Memory Window Bind Operation" */
	if ((b->rkey | VUR_MR_KEY_BYTE_MASK) != (mw->rkey | VUR_MR_KEY_BYTE_MASK)) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: key 0x%x is not MW %u's", b->rkey,
				mw->obj.index);
		return -ENOENT;
	}
	if (mw->pdn != b->pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: MW %u of PD %u, the QP's is %u", mw->obj.index,
				mw->pdn, b->pdn);
		return -EACCES;
	}
	if (mw->type == VIRTIO_IB_MW_TYPE_2 && (mw->bound || b->length == 0)) {
		VUR_RDMA_LOG(rd, NOTICE, "BIND_MW: type 2 MW %u %s", mw->obj.index,
				mw->bound ? "is bound" : "of length 0");
		return -EBUSY;
	}
	if (!unbind) {
		ret = check_mr(rd, mr, b);
		if (ret < 0)
			return ret;
	}
	if (mw->bound)
		*old_mr = mw->mr_index;
	/* the consumer chooses the key byte (ROCE-DRV-MW-2); tag and index stay */
	mw->rkey = (mw->rkey & ~VUR_MR_KEY_BYTE_MASK) | (b->rkey & VUR_MR_KEY_BYTE_MASK);
	mw->bound = !unbind;
	if (unbind) {
		mw->addr = mw->length = 0;
		mw->access = 0;
		mw->mr_index = mw->mr_lkey = 0;
		return 0;
	}
	mw->addr = b->addr;
	mw->length = b->length;
	mw->access = b->access;
	mw->mr_index = mr->obj.index;
	mw->mr_lkey = mr->lkey;
	if (mw->type == VIRTIO_IB_MW_TYPE_2)
		mw->qpn = b->qpn;
	mr->mw_bound++;
	return 0;
}

int
vur_rdma_mw_invalidate(struct vur_rdma_dev *rd, struct vur_rdma_mw *mw, uint32_t pdn, uint32_t qpn,
		uint32_t key, const char *what, uint32_t *old_mr)
{
	*old_mr = 0;
	/* ROCE-DEV-MW-11: a type 1 MW cannot be invalidated */
	if (mw->type != VIRTIO_IB_MW_TYPE_2) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MW %u is of type 1", what, mw->obj.index);
		return -EINVAL;
	}
	if (mw->rkey != key) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: key 0x%x, MW %u has 0x%x", what, key, mw->obj.index,
				mw->rkey);
		return -EINVAL;
	}
	if (mw->pdn != pdn) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MW %u of PD %u, the QP's is %u", what, mw->obj.index,
				mw->pdn, pdn);
		return -EACCES;
	}
	/* ROCE-DEV-MW-12: remotely, only on the QP it is bound to */
	if (qpn != VUR_RDMA_MW_NO_QP && (!mw->bound || mw->qpn != qpn)) {
		VUR_RDMA_LOG(rd, NOTICE, "%s: MW %u is not bound to QP %u", what, mw->obj.index,
				qpn);
		return -EACCES;
	}
	/* ROCE-DEV-MW-10: unbound, keeping its key; unbound already is success */
	if (mw->bound)
		*old_mr = mw->mr_index;
	mw->bound = false;
	mw->addr = mw->length = 0;
	mw->access = 0;
	mw->mr_index = mw->mr_lkey = 0;
	mw->qpn = VUR_RDMA_MW_NO_QP;
	return 0;
}
