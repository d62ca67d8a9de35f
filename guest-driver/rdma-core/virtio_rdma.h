/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * virtio_rdma: the libibverbs provider of the virtio-net RoCE device
 * (guest kernel driver virtio_rdma.ko).
 */

#ifndef __VIRTIO_RDMA_H__
#define __VIRTIO_RDMA_H__

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <linux/virtio_ring.h>

#include <rdma/virtio_rdma-abi.h>
#include <linux/virtio_net_roce.h>

/*
 * The uverbs responses with their driver data: the core's response, then
 * the ABI header's struct, as the kernel's ib_copy_to_udata() writes it.
 */
struct virtio_rdma_alloc_pd_uresp {
	struct ib_uverbs_alloc_pd_resp ibv_resp;
	struct virtio_rdma_alloc_pd_resp drv;
};

struct virtio_rdma_create_cq_ucmd {
	struct ibv_create_cq ibv_cmd;
	struct virtio_rdma_create_cq_cmd drv;
};

struct virtio_rdma_create_cq_uresp {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct virtio_rdma_create_cq_resp drv;
};

struct virtio_rdma_resize_cq_ucmd {
	struct ibv_resize_cq ibv_cmd;
	struct virtio_rdma_resize_cq_cmd drv;
};

struct virtio_rdma_resize_cq_uresp {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct virtio_rdma_resize_cq_resp drv;
};

struct virtio_rdma_create_qp_ucmd {
	struct ibv_create_qp ibv_cmd;
	struct virtio_rdma_create_qp_cmd drv;
};

struct virtio_rdma_create_qp_uresp {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct virtio_rdma_create_qp_resp drv;
};

struct virtio_rdma_create_srq_ucmd {
	struct ibv_create_srq ibv_cmd;
	struct virtio_rdma_create_srq_cmd drv;
};

struct virtio_rdma_create_srq_uresp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct virtio_rdma_create_srq_resp drv;
};

struct virtio_rdma_create_ah_uresp {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct virtio_rdma_create_ah_resp drv;
};

struct virtio_rdma_device {
	struct verbs_device ibv_dev;
};

struct virtio_rdma_context {
	struct verbs_context ibv_ctx;
	uint32_t max_sge_rd; /* the device's, for RDMA READ s/g lists */
	/* The kernel's query_device: what the device reports it has. */
	bool atomics; /* atomic_cap not NONE: CMP_AND_SWP, FETCH_AND_ADD */
	bool mem_mgt; /* MEM_MGT_EXTENSIONS: LOCAL_INV, SEND_WITH_INV */
	bool mw; /* MEM_WINDOW: ALLOC_MW, DEALLOC_MW, BIND_MW */
};

struct virtio_rdma_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
};

/*
 * A virtqueue the process drives itself (virtio_rdma-abi.h): its avail and
 * used rings, its slots and, for a send or receive queue, its doorbell.
 * The shadow indices are the provider's; the lock of the queue guards
 * them.
 */
struct virtio_rdma_vq {
	void *ring;
	size_t ring_len;
	uint8_t *buf;
	size_t buf_len;
	void *notify_page;
	size_t notify_len;

	struct vring_avail *avail; /* at the start of the ring mapping */
	struct vring_used *used; /* at used_off */
	__le16 *avail_event; /* used->ring[num], with EVENT_IDX */
	__le16 *doorbell; /* notify_page + notify_off, or NULL */

	uint32_t stride;
	uint16_t num;
	uint16_t vq_index;
	bool event_idx;

	/*
	 * The next avail->idx to publish (its low 16 bits); on rings the
	 * next producer index.
	 */
	uint32_t avail_idx;
	uint16_t last_used; /* used->idx as the provider last saw it */
	uint32_t max_wr; /* outstanding WRs at most (send, receive) */
	uint32_t max_sge;
	pthread_spinlock_t lock;

	/*
	 * A send or receive ring of a QP on rings (virtio_rdma_qp_ring.c):
	 * buf, stride and num are its entries; the indices are the record's.
	 */
	bool rings;
	bool send; /* sq_event decides the doorbell; else rq_notify */
	__le32 *prod; /* the record's sq_prod or rq_prod */
	const __le32 *cons; /* sq_cons or rq_cons */
	const __le32 *event; /* sq_event or rq_notify */
	uint32_t ring_cons; /* cons as the provider last read it */
	struct ibv_qp *db_qp; /* whose doorbell the kernel rings */
};

struct virtio_rdma_cq {
	/* ibv_cq_ex (verbs_cq) begins with the ibv_cq's fields. */
	union {
		struct ibv_cq ibv_cq;
		struct verbs_cq vcq;
	};
	uint32_t cqn;
	struct virtio_rdma_vq vq; /* on rings: only its lock */
	/* The CQE between start_poll and end_poll (virtio_rdma_cq_ex.c). */
	const struct virtio_rdma_cq_req *cur;
	uint16_t cur_id;
	/* On rings (virtio_rdma_cq_ring.c): the record and the entries. */
	bool rings;
	struct virtio_rdma_cq_rec *rec;
	size_t rec_len;
	uint8_t *ents;
	size_t ents_len;
	uint32_t size; /* entries, a power of two */
	uint32_t stride;
	uint32_t cons; /* CQEs read; under vq.lock */
	/*
	 * After ibv_resize_cq(): the old ring's entries, which hold the CQEs
	 * before switch_prod, until cons reaches it (NULL: none).
	 */
	uint8_t *old_ents;
	size_t old_ents_len;
	uint32_t old_size;
	uint32_t old_stride;
	uint32_t switch_prod;
};

/*
 * The WR that the ibv_wr_* calls are building (virtio_rdma_qp_ex.c): a
 * struct ibv_send_wr, which the next ibv_wr_<opcode>() or
 * ibv_wr_complete() turns into a request as post_send does.
 */
struct virtio_rdma_wr_ex {
	struct ibv_send_wr wr;
	struct ibv_sge *sge; /* max_send_sge elements */
	uint8_t inline_buf[VIRTIO_NET_ROCE_MAX_INLINE];
	bool open; /* wr has an opcode, not yet a request */
	int err; /* the first error since wr_start */
	uint32_t start_idx; /* sq.avail_idx at wr_start */
};

/*
 * A shared receive queue: its WRs are used in the order their messages
 * complete, so a slot is free again once the used ring names it. The
 * slots never posted go first (fresh), then those the used ring gives
 * back (reclaimed: used entries taken so far). Under vq.lock.
 */
struct virtio_rdma_srq {
	struct ibv_srq ibv_srq;
	uint32_t srqn;
	uint32_t fresh;
	uint16_t reclaimed;
	struct virtio_rdma_vq vq;
	/* On rings (vq.rings): entries and record in one area, mapped. */
	void *area;
	size_t area_len;
};

struct virtio_rdma_qp {
	/* ibv_qp_ex (verbs_qp) begins with the ibv_qp. */
	union {
		struct ibv_qp ibv_qp;
		struct verbs_qp vqp;
	};
	uint32_t max_inline_data;
	uint32_t max_read_sge; /* min(max_send_sge, the device's max_sge_rd) */
	bool atomics; /* the context's, copied at create */
	bool mem_mgt;
	bool mw;
	bool has_rq; /* not on an SRQ: rq is mapped */
	struct virtio_rdma_vq sq;
	struct virtio_rdma_vq rq;
	struct virtio_rdma_wr_ex wr_ex;
	/* On rings: the areas mapped (one to three), the record in one. */
	bool rings;
	struct virtio_rdma_qp_rec *rec;
	struct {
		void *addr;
		size_t len;
		uint64_t mmap;
	} area[3];
	unsigned int nareas;
};

struct virtio_rdma_ah {
	struct ibv_ah ibv_ah;
	uint32_t ahn;
};

static inline struct virtio_rdma_context *to_vctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct virtio_rdma_context, ibv_ctx.context);
}

static inline struct virtio_rdma_device *to_vdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct virtio_rdma_device, ibv_dev.device);
}

static inline struct virtio_rdma_pd *to_vpd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct virtio_rdma_pd, ibv_pd);
}

static inline struct virtio_rdma_cq *to_vcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct virtio_rdma_cq, ibv_cq);
}

static inline struct virtio_rdma_qp *to_vqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct virtio_rdma_qp, ibv_qp);
}

static inline struct virtio_rdma_cq *to_vcq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct virtio_rdma_cq, vcq.cq_ex);
}

static inline struct virtio_rdma_qp *to_vqp_ex(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct virtio_rdma_qp, vqp.qp_ex);
}

static inline struct virtio_rdma_srq *to_vsrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct virtio_rdma_srq, ibv_srq);
}

static inline struct virtio_rdma_ah *to_vah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct virtio_rdma_ah, ibv_ah);
}

/* virtio_rdma_vq.c: mapping a virtqueue, and its index rules */
int virtio_rdma_vq_map(struct virtio_rdma_vq *vq, int cmd_fd,
		       const struct virtio_rdma_uring *uring, size_t min_stride,
		       bool doorbell);
void virtio_rdma_vq_unmap(struct virtio_rdma_vq *vq);
void *virtio_rdma_vq_slot(struct virtio_rdma_vq *vq, uint32_t id);
uint16_t virtio_rdma_vq_used_idx(struct virtio_rdma_vq *vq);
bool virtio_rdma_vq_full(struct virtio_rdma_vq *vq);
void *virtio_rdma_vq_next_slot(struct virtio_rdma_vq *vq);
void virtio_rdma_vq_push(struct virtio_rdma_vq *vq);
void virtio_rdma_vq_repost(struct virtio_rdma_vq *vq, uint16_t id);
void virtio_rdma_vq_publish(struct virtio_rdma_vq *vq);
void virtio_rdma_vq_notify(struct virtio_rdma_vq *vq, uint32_t old_idx);

/* virtio_rdma_qp_ring.c: a QP's send and receive rings */
int virtio_rdma_qp_ring_map(struct virtio_rdma_qp *qp, int cmd_fd,
			    const struct ibv_qp_cap *cap,
			    const struct virtio_rdma_create_qp_resp *drv,
			    size_t sq_entry, size_t rq_entry);
void virtio_rdma_qp_ring_unmap(struct virtio_rdma_qp *qp);
int virtio_rdma_srq_ring_map(struct virtio_rdma_srq *srq, int cmd_fd,
			     uint32_t max_wr, size_t entry,
			     const struct virtio_rdma_create_srq_resp *drv);
void virtio_rdma_qp_ring_reset(struct virtio_rdma_qp *qp);
bool virtio_rdma_wq_ring_full_now(struct virtio_rdma_vq *vq);
void virtio_rdma_wq_ring_publish(struct virtio_rdma_vq *vq);
void virtio_rdma_wq_ring_notify(struct virtio_rdma_vq *vq, uint32_t old);
void virtio_rdma_wq_ring_doorbell(struct virtio_rdma_vq *vq);
bool virtio_rdma_wq_ring_rule(uint32_t new_idx, uint32_t old_idx,
			      uint32_t event, bool send);

/* virtio_rdma_cq.c */
struct ibv_cq *virtio_rdma_create_cq(struct ibv_context *context, int cqe,
				     struct ibv_comp_channel *channel,
				     int comp_vector);
int virtio_rdma_destroy_cq(struct ibv_cq *ibcq);
int virtio_rdma_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int virtio_rdma_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int virtio_rdma_resize_cq(struct ibv_cq *ibcq, int cqe);
int virtio_rdma_cq_setup(struct virtio_rdma_cq *cq, struct ibv_context *context,
			 const struct virtio_rdma_create_cq_resp *drv);
void virtio_rdma_cq_unmap(struct virtio_rdma_cq *cq);
void virtio_rdma_cqe_to_wc(const struct virtio_rdma_cq_req *cqe,
			   struct ibv_wc *wc);
enum ibv_wc_status virtio_rdma_wc_status(uint8_t status);
enum ibv_wc_opcode virtio_rdma_wc_opcode(uint8_t opcode);
unsigned int virtio_rdma_wc_flags(uint32_t wc_flags);

/* virtio_rdma_cq_ring.c */
int virtio_rdma_cq_ring_map(struct virtio_rdma_cq *cq, int cmd_fd,
			    const struct virtio_rdma_cq_ring *r);
void virtio_rdma_cq_ring_unmap(struct virtio_rdma_cq *cq);
int virtio_rdma_cq_ring_poll(struct virtio_rdma_cq *cq, int ne,
			     struct ibv_wc *wc);
int virtio_rdma_cq_ring_take(struct virtio_rdma_cq *cq);
void virtio_rdma_cq_ring_publish(struct virtio_rdma_cq *cq);
int virtio_rdma_cq_ring_arm(struct virtio_rdma_cq *cq, int solicited_only);
int virtio_rdma_cq_ring_switch(struct virtio_rdma_cq *cq, int cmd_fd,
			       const struct virtio_rdma_resize_cq_resp *r);

/* virtio_rdma_cq_ex.c */
struct ibv_cq_ex *virtio_rdma_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr);
void virtio_rdma_cq_ex_set_ops(struct ibv_cq_ex *cq, uint64_t wc_flags);

/* virtio_rdma_qp.c */
struct ibv_qp *virtio_rdma_create_qp(struct ibv_pd *ibpd,
				     struct ibv_qp_init_attr *attr);
int virtio_rdma_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			  int attr_mask);
int virtio_rdma_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init_attr);
int virtio_rdma_destroy_qp(struct ibv_qp *ibqp);
int virtio_rdma_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr);
int virtio_rdma_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
void virtio_rdma_qp_unmap(struct virtio_rdma_qp *qp);
int virtio_rdma_qp_setup(struct virtio_rdma_qp *qp, struct ibv_context *context,
			 const struct ibv_qp_cap *cap,
			 const struct virtio_rdma_create_qp_resp *drv);
int virtio_rdma_build_send_req(struct virtio_rdma_qp *qp,
			       const struct ibv_send_wr *wr,
			       struct virtio_rdma_sq_req *req);
int virtio_rdma_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
			struct ibv_mw_bind *mw_bind);

/* virtio_rdma_qp_ex.c */
struct ibv_qp *virtio_rdma_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr);
int virtio_rdma_qp_ex_init(struct virtio_rdma_qp *qp, bool with_ops,
			   uint64_t ops);
size_t virtio_rdma_rq_stride(uint32_t max_sge);
void virtio_rdma_rq_req(struct virtio_rdma_rq_req *req,
			const struct ibv_recv_wr *wr);

/* virtio_rdma_srq.c */
struct ibv_srq *virtio_rdma_create_srq(struct ibv_pd *ibpd,
				       struct ibv_srq_init_attr *attr);
int virtio_rdma_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			   int attr_mask);
int virtio_rdma_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int virtio_rdma_destroy_srq(struct ibv_srq *ibsrq);
int virtio_rdma_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr);

#endif /* __VIRTIO_RDMA_H__ */
