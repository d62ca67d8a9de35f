/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's side of the RDMA virtqueues of live QPs and CQs: the
 * request slots of each send and receive queue, the CQE buffers of each
 * CQ, and the return of their virtqueues to the initial state when the
 * object is destroyed (ROCE-DRV-LIFE-2).
 *
 * Slots and CQE buffers live in driver memory, set aside when the object
 * is created, so that posting and polling allocate nothing. A send queue
 * has cap.max_send_wr slots: running out of slots is exactly having
 * max_send_wr WRs outstanding (ROCE-DRV-WR-2). The slot stack and the
 * lengths stay in this process's memory, out of the device's reach.
 */
#ifndef VUSER_RDMA_Q_H
#define VUSER_RDMA_Q_H

#include <pthread.h>
#include <stdint.h>

#include "guest_mem.h"
#include "vur_verbs.h"

struct virtio_rdma_cq_req;

struct vur_user_dev;
struct vuser_vq;

/* A send or receive queue. */
struct vuser_wq {
	pthread_mutex_t lock; /* posts of one queue, one at a time */
	struct vuser_vq *vq;
	struct vuser_buf slots; /* max_wr slots of slot_size bytes */
	uint32_t slot_size;
	uint32_t max_sge;
	uint32_t max_wr;
	uint32_t n_free;
	uint32_t *free; /* slot numbers, a stack */
};

struct vuser_rqp;
struct vuser_rcq;
struct vuser_rsrq;

struct vuser_qp {
	uint8_t type;           /* enum vur_user_qp_type: which union member a send fills */
	struct vuser_wq sq, rq; /* on rings: their locks and limits only */
	struct vuser_rqp *r;    /* on rings (rings.h), else NULL */
};

/*
 * An SRQ: its WRs go on the receive virtqueue of its number. The limit is
 * armed at @limit WRs; with EVENT_IDX used_event follows the avail index.
 */
struct vuser_srq {
	struct vuser_wq rq;
	uint32_t limit; /* 0: not armed */
	struct vuser_rsrq *r;
};

struct vuser_cq {
	pthread_mutex_t lock; /* polls of one CQ, one at a time */
	struct vuser_vq *vq;
	struct vuser_buf cqes; /* the buffers of CREATE_CQ, one CQE each */
	uint32_t n;            /* the CQ's size: buffers to keep available */
	struct vuser_rcq *r;
	/* a virtqueue CQ resized (cq_resize.c) */
	uint32_t out; /* buffers available or used and not yet polled */
	void **spare; /* buffers kept back by a shrink, for a grow */
	uint32_t n_spare;
	struct vuser_buf *ext; /* buffer areas of grows */
	uint32_t n_ext;
};

/*
 * cq_resize.c: a polled CQE buffer of a virtqueue CQ made available again,
 * or kept back while more than the CQ's size are out; a virtqueue CQ's
 * size changed by the driver alone (within the virtqueue's size); the
 * areas of such a CQ freed.
 */
void vuser_cq_give_back(struct vuser_cq *cq, void *cookie);
int vuser_cq_resize_vq(struct vur_user_dev *d, struct vuser_cq *cq, uint32_t cqe);
void vuser_cq_resize_free(struct vur_user_dev *d, struct vuser_cq *cq);

/* The tables, at open when RoCE is negotiated, and their release at close. */
int vuser_rdma_q_init(struct vur_user_dev *d);
void vuser_rdma_q_fini(struct vur_user_dev *d);

/* Room in the tables for @ring_qps QP numbers and @ring_cqs CQ numbers more (rings). */
int vuser_rdma_q_grow(struct vur_user_dev *d, uint32_t ring_qps, uint32_t ring_cqs);

/*
 * After CREATE_CQ: make @cqe buffers (at most the ring's size) available
 * on the CQ's completion virtqueue. -EPROTO if the device named a CQ that
 * does not exist, -ENOMEM.
 */
int vuser_cq_attach(struct vur_user_dev *d, uint32_t cqn, uint32_t cqe);

/* After DESTROY_CQ: forget the buffers, the virtqueue back to its initial state. */
void vuser_cq_detach(struct vur_user_dev *d, uint32_t cqn);

/* After CREATE_QP: the slots of both queues. -EPROTO or -ENOMEM as above. */
int vuser_qp_attach(struct vur_user_dev *d, uint32_t qpn, const struct vur_user_qp_init_attr *attr);

/* After DESTROY_QP: as vuser_cq_detach(), for both queues. */
void vuser_qp_detach(struct vur_user_dev *d, uint32_t qpn);

/* After CREATE_SRQ / DESTROY_SRQ, as for a QP's receive queue. */
int vuser_srq_attach(struct vur_user_dev *d, uint32_t srqn, uint32_t max_wr, uint32_t max_sge);
void vuser_srq_detach(struct vur_user_dev *d, uint32_t srqn);
struct vuser_srq *vuser_srq_get(const struct vur_user_dev *d, uint32_t srqn);

/* After RESET_OBJECTS: every QP, SRQ and CQ detached, as after its destroy. */
void vuser_detach_all(struct vur_user_dev *d);

/* The live QP or CQ of that number, or NULL. */
struct vuser_qp *vuser_qp_get(const struct vur_user_dev *d, uint32_t qpn);
struct vuser_cq *vuser_cq_get(const struct vur_user_dev *d, uint32_t cqn);

/* Post receive WRs on @q (a QP's, or SRQ @srq's); verbs_post.c. */
int vuser_post_recv_wq(struct vur_user_dev *d, struct vuser_wq *q,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad,
		struct vuser_srq *srq);

/* SRQ @srq armed: used_event moved along with new WRs (q->lock held); verbs_srq.c. */
void vuser_srq_rearm(struct vuser_srq *srq);

/* What verbs_post.c and ring_post.c share: the checks and the wire layout of a WR. */
int vuser_check_send(const struct vuser_wq *q, const struct vur_user_send_wr *wr);
uint32_t vuser_send_to_wire(uint8_t qp_type, const struct vur_user_send_wr *wr, void *slot);
uint32_t vuser_recv_to_wire(const struct vur_user_recv_wr *wr, void *slot);
void vuser_wc_from_wire(const struct virtio_rdma_cq_req *w, struct vur_user_wc *wc);

/* A free slot of @q, after taking back those the device used; NULL if none. */
void *vuser_wq_slot(struct vur_user_dev *d, struct vuser_wq *q);

#endif /* VUSER_RDMA_Q_H */
