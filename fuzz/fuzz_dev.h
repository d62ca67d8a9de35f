/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fuzz targets of the RDMA engine and the control commands share: a
 * device without vhost (the set-up of backend/transport/rc_test.c), made
 * afresh for every input so that nothing one input did reaches the next.
 *
 * Guest memory is two adjacent regions between two PROT_NONE guard pages: a read or
 * write past either end of what the memory table allows faults at once
 * instead of landing in the harness's own data.
 */
#ifndef VUR_FUZZ_DEV_H
#define VUR_FUZZ_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net_dev.h"
#include "net/net_state.h"
#include "net/net_switch.h"
#include "rdma/rdma_dev.h"
#include "transport/tp.h"

/* Guest memory: driver addresses [VUR_FUZZ_GPA0, VUR_FUZZ_GPA0 + VUR_FUZZ_RAM_SZ). */
#define VUR_FUZZ_GPA0   0x100000ULL
#define VUR_FUZZ_RAM_SZ (512u << 10)
#define VUR_FUZZ_QSZ    64   /* every virtqueue */
#define VUR_FUZZ_WR_SZ  1024 /* a buffer: a send WR with inline data fits */
#define VUR_FUZZ_BUFS   16   /* buffers per ring, reused in turn */
/* Ring n of guest memory: 4 KiB of rings, then VUR_FUZZ_BUFS buffers. */
#define VUR_FUZZ_RING_AREA (4096 + VUR_FUZZ_BUFS * VUR_FUZZ_WR_SZ)
/* where payloads land and come from: the second half of memory */
#define VUR_FUZZ_DATA_GPA (VUR_FUZZ_GPA0 + VUR_FUZZ_RAM_SZ / 2)
#define VUR_FUZZ_DATA_SZ  (VUR_FUZZ_RAM_SZ / 2)

/*
 * The QPs an engine device has: an RC pair, a UC QP to itself, a UD QP;
 * after vur_fuzz_dev_srqs() also an RC QP and a UD QP on an SRQ on a
 * virtqueue, and an RC QP on an SRQ on rings (the first one's peer).
 */
enum vur_fuzz_qp {
	VUR_FUZZ_RC_A,
	VUR_FUZZ_RC_B,
	VUR_FUZZ_UC,
	VUR_FUZZ_UD,
	VUR_FUZZ_NQPS,
	VUR_FUZZ_RC_SRQ = VUR_FUZZ_NQPS,
	VUR_FUZZ_UD_SRQ,
	VUR_FUZZ_RC_RINGS,
	VUR_FUZZ_NALL,
};

#define VUR_FUZZ_QKEY 0x11111111u

/* A driver's split ring in guest memory: descriptors, avail and used rings, buffers. */
struct vur_fuzz_ring {
	uint64_t desc, avail, used, bufs; /* driver addresses */
	uint16_t next;                    /* the next descriptor the driver offers */
};

struct vur_fuzz_dev {
	struct vur_rdma_dev rd;
	struct vur_net_state filter;
	struct vur_net_dev nd;
	struct vur_switch sw;
	struct vur_tp_dev td;
	struct vur_rdma_mr *mr; /* a DMA MR over all of memory, every access */
	uint32_t pdn;
	struct vur_rdma_cq *cq;
	struct vur_fuzz_ring cq_ring;          /* the CQ's buffers */
	struct vur_rdma_qp *qp[VUR_FUZZ_NALL]; /* NULL until made, or once destroyed */
	struct vur_fuzz_ring sq[VUR_FUZZ_NALL], rq[VUR_FUZZ_NQPS];
	unsigned int n_qps; /* VUR_FUZZ_NQPS, VUR_FUZZ_NALL once the SRQs are made */
	/* vur_fuzz_dev_srqs(): NULL before, or once destroyed */
	struct vur_rdma_srq *srq, *srq_rings;
	struct vur_rdma_cq *cq_rings;
	struct vur_fuzz_ring srq_ring; /* the SRQ on a virtqueue */
	uint16_t eq_next;              /* the next event buffer the driver offers */
	uint64_t now_ns;               /* the fake clock */
};

/* Once per process: EAL, the packet pools, guest memory and its table. 0 or -1. */
int vur_fuzz_global_init(void);

/* The packet pool (headers and whole frames) and the pool of borrowed payloads. */
struct rte_mempool *vur_fuzz_hdr_pool(void);
struct rte_mempool *vur_fuzz_ext_pool(void);

/* The memory table: two adjacent regions of VUR_FUZZ_RAM_SZ / 2. */
struct rte_vhost_memory *vur_fuzz_mem(void);

/* Host address of driver address @gpa (inside guest memory). */
void *vur_fuzz_at(uint64_t gpa);

/*
 * A fresh device: memory zeroed, keys restarted, a PD and its DMA MR. With
 * @engine the transport's hooks are given to the RDMA objects (they bind
 * CQs and QPs to the engine), else none are. 0 or -1.
 */
int vur_fuzz_dev_init(struct vur_fuzz_dev *d, bool engine);

/*
 * The same with an engine, room for the objects of vur_fuzz_dev_srqs() (16
 * QP numbers) and one queue of rings (ROCE-DEV-RING: doorbell and event
 * queue 0). 0 or -1.
 */
int vur_fuzz_dev_init_rings(struct vur_fuzz_dev *d);

/*
 * The engine's objects: a CQ with VUR_FUZZ_QSZ empty CQE buffers and the QPs
 * of enum vur_fuzz_qp in RTS, their send and receive rings served by the
 * engine, which is active. 0 or -1.
 */
int vur_fuzz_dev_qps(struct vur_fuzz_dev *d);

/*
 * Ring @r laid out as ring @n of guest memory (4 KiB of rings, then
 * VUR_FUZZ_BUFS buffers): the engine's are 0 to 2 * VUR_FUZZ_NQPS, the
 * rest free for other queues. Indices at 0.
 */
#define VUR_FUZZ_ENGINE_RINGS (1 + 2 * VUR_FUZZ_NQPS)
void vur_fuzz_ring_at(struct vur_fuzz_ring *fr, struct vur_split_ring *r, unsigned int n);

/* The same, and @r served by the engine (as librte_vhost would have started it). */
void vur_fuzz_ring_bind(struct vur_fuzz_ring *fr, struct vur_tp_ring *r, unsigned int n);

/*
 * A QP of @type on CQs @send_cqn and @recv_cqn, on SRQ @srqn unless 0, as
 * CREATE_QP makes it (in RESET); NULL if refused.
 */
struct vur_rdma_qp *vur_fuzz_make_qp(struct vur_fuzz_dev *d, uint8_t type, uint32_t send_cqn,
		uint32_t recv_cqn, uint32_t srqn);

/* @qp to RTS, its peer @dest_qpn, as MODIFY_QP would take it there step by step. */
void vur_fuzz_to_rts(struct vur_fuzz_dev *d, struct vur_rdma_qp *qp, uint32_t dest_qpn);

/*
 * fuzz_srq.c, after vur_fuzz_dev_init_rings() and vur_fuzz_dev_qps(): an
 * SRQ on a virtqueue (ring VUR_FUZZ_ENGINE_RINGS) with an RC and a UD QP on
 * it, a CQ and an SRQ on rings with an RC QP on them (the peer of the
 * first), event queue 0 with VUR_FUZZ_EQ_SZ buffers; n_qps grows. 0 or -1.
 */
#define VUR_FUZZ_EQ_SZ 8
int vur_fuzz_dev_srqs(struct vur_fuzz_dev *d);

/*
 * The driver's fields of the records of the objects on rings, as fuzz_srq.c
 * lays them out: the CQ's cons and notify, its prod (the device's); the
 * SRQ's prod and limit.
 */
enum vur_fuzz_rec {
	VUR_FUZZ_CQ_CONS,
	VUR_FUZZ_CQ_NOTIFY,
	VUR_FUZZ_CQ_PROD,
	VUR_FUZZ_SRQ_PROD,
	VUR_FUZZ_SRQ_LIMIT
};
uint32_t vur_fuzz_rec_get(enum vur_fuzz_rec f);
void vur_fuzz_rec_set(enum vur_fuzz_rec f, uint32_t v);

/* The driver posts receive WR @wr of @len bytes into the SRQ on rings (prod moves). */
void vur_fuzz_srq_rings_post(const void *wr, uint32_t len);

/* The driver offers event buffer of @len bytes to event queue 0. */
void vur_fuzz_eq_offer(struct vur_fuzz_dev *d, uint32_t len);

/* The driver offers @len bytes at @src as the next buffer of ring @r (one descriptor). */
void vur_fuzz_ring_offer(struct vur_fuzz_ring *r, const void *src, uint32_t len, bool writable);

/* Everything freed; aborts if a packet buffer was not given back (a leak). */
void vur_fuzz_dev_fini(struct vur_fuzz_dev *d);

#endif /* VUR_FUZZ_DEV_H */
