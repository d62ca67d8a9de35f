/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two devices' worth of RDMA set-up for the engine tests and benchmarks: an
 * end point (device, PD, DMA MR over a buffer, GID, CQ with its buffers)
 * and QPs taken to RTS towards a peer.
 */
#ifndef VUSER_TEST_RDMA_PAIR_H
#define VUSER_TEST_RDMA_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "vur_user.h"
#include "vur_verbs.h"

#define RDMA_EP_CQ_DEPTH 48

/* One end of a connection: a device, its PD, CQ, a QP and a registered buffer. */
struct rdma_ep {
	struct vur_user_dev *d;
	char path[128];
	uint8_t mac[6];
	uint8_t gid[16];
	uint32_t pdn, cqn, qpn;
	struct vur_user_mr mr; /* a DMA MR of everything, all access */
	uint8_t *buf;
	uint64_t addr; /* the driver address of buf */
};

/* Open the device at @path with @mem_size of driver memory and set @e up. */
int rdma_ep_open(struct rdma_ep *e, const char *path, uint8_t last_octet, size_t buf_len,
		size_t mem_size);

/* The same with every parameter of the open given (@p->path the socket). */
int rdma_ep_open_params(struct rdma_ep *e, const struct vur_user_params *p, uint8_t last_octet,
		size_t buf_len);

/* @e's GID, PD, DMA MR and CQ, made anew (after RESET_OBJECTS). */
int rdma_ep_objects(struct rdma_ep *e);

/* A QP of @type on @e's PD and CQ (32 WRs, 16 s/g elements, 512 inline bytes each way). */
int rdma_create_qp(struct rdma_ep *e, uint8_t type, uint32_t *qpn);

/* @qpn of @e to RTS towards @peer_qpn of @peer (UD: only its own states). */
int rdma_connect_qp(struct rdma_ep *e, uint32_t qpn, uint8_t type, const struct rdma_ep *peer,
		uint32_t peer_qpn, uint8_t rnr_retry, uint8_t timeout, uint8_t retry_cnt);

/* An s/g element of @e's buffer at @off. */
struct vur_user_sge rdma_sge(const struct rdma_ep *e, uint64_t off, uint32_t len);

/* A send WR of @n elements at @sg. */
struct vur_user_send_wr rdma_req(uint64_t wr_id, uint8_t opcode, uint8_t flags,
		const struct vur_user_sge *sg, uint32_t n);

/* Post one send WR / one receive WR of @n elements at @sg. */
int rdma_post_send(struct rdma_ep *e, uint32_t qpn, const struct vur_user_send_wr *wr);
int rdma_post_recv(struct rdma_ep *e, uint32_t qpn, uint64_t wr_id, const struct vur_user_sge *sg,
		uint32_t n);

/*
 * A signaled invalidation of @key: LOCAL_INV, or SEND_WITH_INV of the one
 * element at @s (NULL: none).
 */
int rdma_post_inv(struct rdma_ep *e, uint32_t qpn, uint8_t opcode, uint32_t key, uint64_t wr_id,
		const struct vur_user_sge *s);

/* A signaled RDMA WRITE or READ of @len bytes at @off of @e's buffer, to @va of @rkey. */
int rdma_post_rdma(struct rdma_ep *e, uint32_t qpn, uint8_t opcode, uint64_t off, uint32_t len,
		uint64_t va, uint32_t rkey, uint64_t wr_id);

/* The state of @e's QP @qpn, or -1 if QUERY_QP fails. */
int rdma_qp_state(struct rdma_ep *e, uint32_t qpn);

#endif /* VUSER_TEST_RDMA_PAIR_H */
