/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings layout (issue 28), driver side: QP, CQ and SRQ rings and their
 * 128-byte records in driver memory, read by the device through an MR; the
 * doorbell summaries and rdma_doorbellqK; the event queues rdma_eventqK.
 *
 * Ownership of memory: rings and records come from ringmem.c (power-of-two
 * blocks aligned to their size, so no entry crosses a 4 KiB page). The
 * library registers one DMA MR with LOCAL_WRITE of a PD of its own for the
 * doorbell area and CQ rings, and one per caller PD that has ring QPs or
 * SRQs (a QP's rings must be in an MR of its PD); it deregisters a PD's MR
 * before DESTROY_PD. Every address the device gets is a driver address.
 *
 * Locks: rings->lock for set-up (SETUP_RINGS, the MRs, ringmem), the
 * queue's own lock for posts (QP sq/rq, SRQ) and polls (CQ), rings->ev_lock
 * for what the event thread touches (event state of ring CQs and SRQs).
 */
#ifndef VUSER_RINGS_H
#define VUSER_RINGS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net_roce.h>

#include "guest_mem.h"
#include "vur_verbs.h"

struct vur_user_dev;
struct vuser_vq;
struct vuser_wq;

/* One ring: 1 << log_size entries of 1 << log_stride bytes. */
struct vuser_ring {
	struct vuser_buf mem; /* from ringmem */
	uint8_t *hva;
	uint64_t gpa;
	uint32_t mask;
	uint8_t log_size, log_stride;
};

/* Free blocks of one size class below a page. */
struct vuser_ringmem_class {
	struct vuser_buf *free;
	uint32_t n, cap;
};

#define VUSER_RINGMEM_CLASSES 5 /* 128 to 2048 bytes */

/* The ring part of a QP. */
struct vuser_rqp {
	struct vuser_ring sq, rq; /* rq.mem.hva NULL on an SRQ */
	struct vuser_buf rec_mem;
	struct virtio_rdma_qp_rec *rec;
	uint32_t qpn;
	uint32_t lkey;
	uint16_t dbq;
	uint32_t sq_prod, rq_prod; /* the driver's copies */
	uint32_t max_send_wr, max_recv_wr;
};

/* The ring part of a CQ. */
struct vuser_rcq {
	struct vuser_ring ring;
	struct vuser_ring old; /* a resize's previous ring, CQEs before switch_prod */
	uint32_t switch_prod;  /* (old.mem.hva set) the first CQE of ring */
	struct vuser_buf rec_mem;
	struct virtio_rdma_cq_rec *rec;
	uint32_t cons; /* the driver's copy */
	uint32_t lkey;
	uint16_t eq;
	/* under rings->ev_lock */
	int ev_fd;       /* eventfd of completion events, made on first use */
	bool ev_pending; /* an event came before ev_fd existed */
	bool error;      /* CQ_ERR came */
	uint64_t n_comp, n_err;
};

/* The ring part of an SRQ. */
struct vuser_rsrq {
	struct vuser_ring ring;
	struct vuser_buf rec_mem;
	struct virtio_rdma_srq_rec *rec;
	uint32_t prod;
	uint32_t lkey;
	uint16_t eq;
	/* under rings->ev_lock */
	int ev_fd;
	bool limit_hit;
	uint64_t n_limit;
};

/* An event queue: its virtqueue and its buffers. */
struct vuser_eq {
	struct vuser_vq *vq;
	struct vuser_buf bufs; /* n buffers of struct virtio_rdma_event */
	uint32_t n;
	void **held; /* buffers kept back while held */
	uint32_t n_held;
};

/* A caller PD's MR over driver memory, for the rings of its QPs and SRQs. */
struct vuser_pd_mr {
	uint32_t pdn, mrn, lkey;
};

struct vuser_rings {
	uint16_t k;     /* doorbell/event queue pairs set up */
	uint16_t k_dev; /* the device's rdma_ring_queues: summaries in the doorbell area */
	uint32_t first_vq;
	uint32_t max_ring_qp, max_ring_cq, max_ring_wr, max_ring_cqe;
	bool available; /* capability and K > 0 */
	bool resize;    /* VIRTIO_IB_DEVICE_RESIZE_CQ */
	bool dflt;      /* new objects on rings unless told otherwise */

	pthread_mutex_t lock;
	bool ready; /* SETUP_RINGS done */
	uint32_t lib_pdn;
	struct vur_user_mr lib_mr;
	struct vuser_pd_mr *pd_mrs;
	uint32_t n_pd_mrs, cap_pd_mrs;
	struct vuser_buf db; /* the doorbell summaries */
	uint32_t db_stride;
	uint32_t next_q;
	uint32_t n_objects; /* ring QPs, CQs and SRQs live */
	struct vuser_ringmem_class cls[VUSER_RINGMEM_CLASSES];

	pthread_mutex_t ev_lock;
	struct vuser_eq *eqs;
	bool hold;
	int epoll_fd, stop_fd;
	pthread_t thread;
	bool thread_on;
};

/* rings.c: at open, once the device is up; at close. */
int vuser_rings_init(struct vur_user_dev *d);
void vuser_rings_fini(struct vur_user_dev *d);

/* Virtqueues of the layout with K ring queue pairs, and the K to use (device.c). */
uint16_t vuser_rings_plan(const struct vur_user_dev *d, uint16_t k_offered);

/* Whether an object asking @layout goes on rings: 1, 0, or -EOPNOTSUPP/-EINVAL. */
int vuser_rings_choose(const struct vur_user_dev *d, uint8_t layout);

/*
 * SETUP_RINGS and the library's MR, once (rings->lock held); the MR of
 * @pdn's rings, registered on first use. 0 or a negative errno.
 */
int vuser_rings_ready(struct vur_user_dev *d);
int vuser_rings_pd_lkey(struct vur_user_dev *d, uint32_t pdn, uint32_t *lkey);

/* Before DESTROY_PD: the library's MR of @pdn deregistered (0, or its error). */
int vuser_rings_pd_release(struct vur_user_dev *d, uint32_t pdn);

/* After RESET_OBJECTS: every MR and the doorbell area forgotten (the device forgot them). */
void vuser_rings_reset(struct vur_user_dev *d);

/* The next doorbell or event queue, round robin. */
uint16_t vuser_rings_next_queue(struct vur_user_dev *d);

/* ringmem.c: a zeroed block of @len (a power of two >= 128) aligned to min(@len, 4096). */
int vuser_ringmem_alloc(struct vur_user_dev *d, size_t len, struct vuser_buf *b);
void vuser_ringmem_free(struct vur_user_dev *d, struct vuser_buf *b);
void vuser_ringmem_fini(struct vur_user_dev *d);

/* A ring of at least @entries entries of at least @entry bytes; 0 or -ENOMEM/-EINVAL. */
int vuser_ring_alloc(
		struct vur_user_dev *d, struct vuser_ring *r, uint32_t entries, uint32_t entry);
void vuser_ring_free(struct vur_user_dev *d, struct vuser_ring *r);
void vuser_ring_to_wire(const struct vuser_ring *r, uint32_t lkey, struct virtio_rdma_ring *w);

static inline void *
vuser_ring_entry(const struct vuser_ring *r, uint32_t i)
{
	return r->hva + ((size_t)(i & r->mask) << r->log_stride);
}

/* doorbell.c: ring @qpn's doorbell on @dbq after sq_prod moved from @old to @new. */
void vuser_doorbell_post(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn, uint32_t old,
		uint32_t new_prod, const struct virtio_rdma_qp_rec *rec);
void vuser_doorbell_ring(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn);
/* doorbell.c: after rq_prod moved, ring if the device asked (the QP is in ERR). */
void vuser_doorbell_post_recv(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn,
		const struct virtio_rdma_qp_rec *rec);

/* eventq.c: buffers and the thread at open; the thread stopped at close. */
int vuser_eq_start(struct vur_user_dev *d);
void vuser_eq_stop(struct vur_user_dev *d);

/* ring_obj.c: the ring objects' create and destroy, as rdma_q.c's attach/detach. */
int vuser_rqp_create(struct vur_user_dev *d, const struct vur_user_qp_init_attr *attr,
		const struct virtio_rdma_cmd_create_qp *base, uint32_t *qpn);
int vuser_rcq_create(struct vur_user_dev *d, uint32_t cqe, uint32_t *cqn);
int vuser_rsrq_create(struct vur_user_dev *d, uint32_t pdn, const struct vur_user_srq_attr *attr,
		uint32_t *srqn);
/* Whether @qpn / @cqn may name a new ring object (or the GSI QP). */
bool vuser_rings_qpn_ok(const struct vur_user_dev *d, uint32_t qpn, bool gsi);
void vuser_rqp_free(struct vur_user_dev *d, struct vuser_rqp *r);
void vuser_rcq_free(struct vur_user_dev *d, struct vuser_rcq *r);
void vuser_rsrq_free(struct vur_user_dev *d, struct vuser_rsrq *r);

/* ring_post.c and ring_poll.c: the data path on rings (the queue's lock taken inside). */
int vuser_rqp_post_send(struct vur_user_dev *d, struct vuser_wq *q, struct vuser_rqp *r,
		uint8_t qp_type, const struct vur_user_send_wr *wr, unsigned int n,
		unsigned int *bad);
int vuser_rqp_post_recv(struct vur_user_dev *d, struct vuser_wq *q, struct vuser_rqp *r,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad);
int vuser_rsrq_post_recv(struct vur_user_dev *d, struct vuser_wq *q, struct vuser_rsrq *r,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad);
void vuser_rqp_reset(struct vuser_wq *sq, struct vuser_wq *rq, struct vuser_rqp *r);
int vuser_rcq_poll(struct vur_user_dev *d, struct vuser_rcq *r, struct vur_user_wc *wc, int n);
/* ring_obj.c: RESIZE_CQ onto a new ring (the CQ's lock held). */
int vuser_rcq_resize(struct vur_user_dev *d, uint32_t cqn, struct vuser_rcq *r, uint32_t cqe);
int vuser_rcq_arm(struct vur_user_dev *d, struct vuser_rcq *r, uint32_t flags);
int vuser_rcq_event_fd(struct vur_user_dev *d, struct vuser_rcq *r);

#endif /* VUSER_RINGS_H */
