/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SRQs and the objects on rings of the engine device (fuzz_dev.h): an SRQ
 * on a virtqueue with an RC QP and a UD QP on it; a CQ and an SRQ on rings,
 * which the driver arms through their records in its memory (CQ notify,
 * SRQ limit), with an RC QP on both, the peer of the RC QP on the first SRQ,
 * so that what one sends the other's SRQ takes; event queue 0 (a split
 * ring) for their events. The rings' area is the 16 KiB after the engine's
 * rings and the three rings used here, before the data half of memory.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_vhost.h>

#include "fuzz/fuzz_dev.h"
#include "rdma/rdma_ops.h"

#define RINGS_AT       (VUR_FUZZ_GPA0 + (VUR_FUZZ_ENGINE_RINGS + 3) * (uint64_t)VUR_FUZZ_RING_AREA)
#define DB             (RINGS_AT + 0x000) /* doorbell summary 0 (128 bytes) */
#define CQ_REC         (RINGS_AT + 0x100)
#define SRQ_REC        (RINGS_AT + 0x180)
#define EQ_DESC        (RINGS_AT + 0x200)
#define EQ_AVAIL       (RINGS_AT + 0x280)
#define EQ_USED        (RINGS_AT + 0x300)
#define EQ_BUFS        (RINGS_AT + 0x400)  /* VUR_FUZZ_EQ_SZ of 16 bytes */
#define SRQ_RING       (RINGS_AT + 0x800)  /* 16 receive WRs of 128 bytes */
#define CQ_RING        (RINGS_AT + 0x1000) /* 64 CQEs of 64 bytes */
#define SRQ_LOG        4
#define SRQ_STRIDE_LOG 7
#define CQ_LOG         6

_Static_assert(CQ_RING + (64u << 6) <= VUR_FUZZ_DATA_GPA, "the rings fit before the data half");

static uint64_t
rec_at(enum vur_fuzz_rec f)
{
	switch (f) {
	case VUR_FUZZ_CQ_CONS:
		return CQ_REC + offsetof(struct virtio_rdma_cq_rec, cons);
	case VUR_FUZZ_CQ_NOTIFY:
		return CQ_REC + offsetof(struct virtio_rdma_cq_rec, notify);
	case VUR_FUZZ_CQ_PROD:
		return CQ_REC + offsetof(struct virtio_rdma_cq_rec, prod);
	case VUR_FUZZ_SRQ_PROD:
		return SRQ_REC + offsetof(struct virtio_rdma_srq_rec, prod);
	default:
		return SRQ_REC + offsetof(struct virtio_rdma_srq_rec, limit);
	}
}

uint32_t
vur_fuzz_rec_get(enum vur_fuzz_rec f)
{
	uint32_t v;

	memcpy(&v, vur_fuzz_at(rec_at(f)), sizeof(v));
	return rte_le_to_cpu_32(v);
}

void
vur_fuzz_rec_set(enum vur_fuzz_rec f, uint32_t v)
{
	v = rte_cpu_to_le_32(v);
	memcpy(vur_fuzz_at(rec_at(f)), &v, sizeof(v));
}

void
vur_fuzz_srq_rings_post(const void *wr, uint32_t len)
{
	uint32_t prod = vur_fuzz_rec_get(VUR_FUZZ_SRQ_PROD);
	uint64_t at = SRQ_RING + ((uint64_t)(prod % (1u << SRQ_LOG)) << SRQ_STRIDE_LOG);

	memset(vur_fuzz_at(at), 0, 1u << SRQ_STRIDE_LOG);
	memcpy(vur_fuzz_at(at), wr, RTE_MIN(len, 1u << SRQ_STRIDE_LOG));
	vur_fuzz_rec_set(VUR_FUZZ_SRQ_PROD, prod + 1);
}

void
vur_fuzz_eq_offer(struct vur_fuzz_dev *d, uint32_t len)
{
	struct vring_desc *desc = vur_fuzz_at(EQ_DESC);
	struct vring_avail *avail = vur_fuzz_at(EQ_AVAIL);
	uint16_t i = d->eq_next++ % VUR_FUZZ_EQ_SZ;

	desc[i] = (struct vring_desc){
		.addr = EQ_BUFS + i * 16u,
		.len = RTE_MIN(len, 16u),
		.flags = VRING_DESC_F_WRITE,
	};
	avail->ring[avail->idx % VUR_FUZZ_EQ_SZ] = i;
	avail->idx++;
}

static void
ring_ref(struct vur_fuzz_dev *d, struct virtio_rdma_ring *r, uint64_t addr, uint8_t log_size,
		uint8_t log_stride)
{
	r->addr = rte_cpu_to_le_64(addr);
	r->lkey = rte_cpu_to_le_32(d->mr->lkey);
	r->log_size = log_size;
	r->log_stride = log_stride;
}

static void
rec_ref(struct vur_fuzz_dev *d, struct virtio_rdma_rec_ref *r, uint64_t addr)
{
	r->addr = rte_cpu_to_le_64(addr);
	r->lkey = rte_cpu_to_le_32(d->mr->lkey);
}

/* Event queue 0 on a split ring, as vur_tp_rings_start() would serve it from a virtqueue. */
static int
event_queue(struct vur_fuzz_dev *d)
{
	struct vur_tp_rq *q = calloc(1, sizeof(*q));

	if (q == NULL)
		return -1;
	rte_ticketlock_init(&q->lock);
	TAILQ_INIT(&q->pending);
	vur_tp_ring_bind(&q->dbq, UINT32_MAX, &q->lock);
	vur_tp_ring_bind(&q->eq, UINT32_MAX, &q->lock);
	vur_split_ring_init(&q->eq.ring, VUR_FUZZ_EQ_SZ, vur_fuzz_at(EQ_DESC),
			vur_fuzz_at(EQ_AVAIL), vur_fuzz_at(EQ_USED), 0, 0, false);
	q->eq.started = q->eq.active = true;
	d->td.rq = q;
	d->td.n_rq = 1;
	for (uint32_t i = 0; i < VUR_FUZZ_EQ_SZ; i++)
		vur_fuzz_eq_offer(d, 16);
	return 0;
}

/* CQ and SRQ on rings (ROCE-DEV-RING-4, -15, -17), event queue 0. */
static int
rings(struct vur_fuzz_dev *d)
{
	struct virtio_rdma_cmd_setup_rings sr = {
		.addr = rte_cpu_to_le_64(DB),
		.lkey = rte_cpu_to_le_32(d->mr->lkey),
	};
	struct virtio_rdma_cmd_create_cq_rings cc = {
		.cqe = rte_cpu_to_le_32(1u << CQ_LOG),
		.flags = rte_cpu_to_le_32(VIRTIO_RDMA_CQ_F_RINGS),
	};
	struct virtio_rdma_cmd_create_srq_rings sc = {
		.srq = {
			.pdn = rte_cpu_to_le_32(d->pdn),
			.max_wr = rte_cpu_to_le_32(1u << SRQ_LOG),
			.max_sge = rte_cpu_to_le_32(4),
			.flags = rte_cpu_to_le_32(VIRTIO_RDMA_SRQ_F_RINGS),
		},
	};
	uint32_t cqn, srqn;

	if (event_queue(d) != 0 || vur_rdma_setup_rings(&d->rd, &sr) != 0)
		return -1;
	ring_ref(d, &cc.ring, CQ_RING, CQ_LOG, 6);
	rec_ref(d, &cc.rec, CQ_REC);
	if (vur_rdma_create_cq_rings(&d->rd, &cc, &cqn) != 0)
		return -1;
	d->cq_rings = vur_pool_get(&d->rd.cqs, cqn);
	ring_ref(d, &sc.ring, SRQ_RING, SRQ_LOG, SRQ_STRIDE_LOG);
	rec_ref(d, &sc.rec, SRQ_REC);
	if (vur_rdma_create_srq_rings(&d->rd, &sc, &srqn) != 0)
		return -1;
	d->srq_rings = vur_pool_get(&d->rd.srqs, srqn);
	return 0;
}

int
vur_fuzz_dev_srqs(struct vur_fuzz_dev *d)
{
	struct virtio_rdma_cmd_create_srq sc = {
		.pdn = rte_cpu_to_le_32(d->pdn),
		.max_wr = rte_cpu_to_le_32(VUR_FUZZ_QSZ),
		.max_sge = rte_cpu_to_le_32(4),
	};
	uint32_t srqn, cqn = d->cq->obj.index;
	struct vur_rdma_qp *a, *b;

	if (vur_rdma_create_srq(&d->rd, &sc, &srqn) != 0 || rings(d) != 0)
		return -1;
	d->srq = vur_pool_get(&d->rd.srqs, srqn);
	/* no vhost: the engine could not start its virtqueue (vur_tp_srq_bind) */
	vur_fuzz_ring_bind(&d->srq_ring, &d->srq->tp->ring, VUR_FUZZ_ENGINE_RINGS);
	a = vur_fuzz_make_qp(d, VIRTIO_IB_QPT_RC, cqn, cqn, srqn);
	d->qp[VUR_FUZZ_UD_SRQ] = vur_fuzz_make_qp(d, VIRTIO_IB_QPT_UD, cqn, cqn, srqn);
	b = vur_fuzz_make_qp(d, VIRTIO_IB_QPT_RC, d->cq_rings->obj.index, d->cq_rings->obj.index,
			d->srq_rings->obj.index);
	if (a == NULL || b == NULL || d->qp[VUR_FUZZ_UD_SRQ] == NULL)
		return -1;
	d->qp[VUR_FUZZ_RC_SRQ] = a;
	d->qp[VUR_FUZZ_RC_RINGS] = b;
	vur_fuzz_to_rts(d, a, b->obj.index);
	vur_fuzz_to_rts(d, b, a->obj.index);
	vur_fuzz_to_rts(d, d->qp[VUR_FUZZ_UD_SRQ], 0);
	/* the UD QP on the SRQ only receives: two rings before the rings' area */
	vur_fuzz_ring_bind(&d->sq[VUR_FUZZ_RC_SRQ], &a->tp->sq, VUR_FUZZ_ENGINE_RINGS + 1);
	vur_fuzz_ring_bind(&d->sq[VUR_FUZZ_RC_RINGS], &b->tp->sq, VUR_FUZZ_ENGINE_RINGS + 2);
	d->n_qps = VUR_FUZZ_NALL;
	return 0;
}
