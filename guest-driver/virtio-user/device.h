/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device object shared by the files of the driver: connection, driver
 * memory, negotiated features and virtqueues.
 */
#ifndef VUSER_DEVICE_H
#define VUSER_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "guest_mem.h"
#include "net.h"
#include "rings.h"
#include "vhost_user_msg.h"
#include "vring.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define VUSER_ASYNC_QLEN 64

/* Asynchronous events (async.c), under their own lock. */
struct vuser_async {
	pthread_mutex_t lock;
	int epoll_fd;          /* what vur_user_async_fd() hands out */
	int pending_fd;        /* eventfd, readable while events are queued */
	pthread_mutex_t qlock; /* q, head, count: the event thread pushes too */
	bool link_up;          /* as last reported */
	uint64_t speed;        /* as last reported, 100 Mb/s */
	struct vur_user_async_event q[VUSER_ASYNC_QLEN];
	unsigned int head, count;
};

struct vuser_ubuf;
struct vuser_qp;
struct vuser_cq;

struct vuser_vq {
	uint32_t index;
	struct vuser_buf mem; /* the ring, in driver memory */
	struct vuser_vring ring;
	int kick_fd;
	int call_fd;
};

struct vur_user_dev {
	char *name; /* the socket path, for logs */
	struct vur_user_params params;

	pthread_mutex_t conn_lock; /* one vhost-user request at a time */
	struct vuser_conn conn;
	int backend_fd; /* our end of the backend's channel, or -1 */

	struct vuser_mem mem;
	uint64_t offered;  /* by the backend's GET_FEATURES */
	uint64_t features; /* acked, VHOST_USER_F_PROTOCOL_FEATURES included */
	uint64_t protocol_features;
	uint64_t max_queue_pairs; /* GET_QUEUE_NUM, 0 without PROTOCOL_F_MQ */
	bool roce;
	bool port_speed;
	uint32_t max_qps; /* L, from the configuration space (RoCE only) */
	uint32_t max_cqs; /* M */

	struct vuser_vq *vqs;
	uint32_t n_vqs;           /* virtqueues the layout has */
	struct vuser_qp **qps;    /* live QPs by number, max_qps entries (rdma_q.c) */
	struct vuser_cq **cqs;    /* live CQs by number, max_cqs entries */
	struct vuser_srq **srqs;  /* live SRQs by number, max_qps entries */
	uint32_t n_setup;         /* of which set up so far */
	uint32_t n_qp_slots;      /* entries of qps and srqs: max_qps + max_ring_qp */
	uint32_t n_cq_slots;      /* entries of cqs: max_cqs + max_ring_cq */
	struct vuser_rings rings; /* rings.c */

	pthread_mutex_t ctrl_lock; /* one control command at a time */

	pthread_mutex_t buf_lock; /* the list of the caller's buffers */
	struct vuser_ubuf *bufs;  /* buf.c */

	struct vuser_async async;
	struct vuser_net net; /* receiveq1 and transmitq1 (net.c) */
};

bool vuser_dev_has(const struct vur_user_dev *d, unsigned int bit);

/* Read and decode the configuration space (config.c). */
int vuser_dev_get_config(struct vur_user_dev *d, struct vur_user_config *cfg);

/* The control virtqueue, or NULL without VIRTIO_NET_F_CTRL_VQ. */
struct vuser_vq *vuser_dev_ctrl_vq(struct vur_user_dev *d);

/* Free the buffers of control commands still in flight (ctrl.c). */
void vuser_ctrl_release_all(struct vur_user_dev *d);

/* Forget the caller's buffers, at close (buf.c). */
void vuser_bufs_release_all(struct vur_user_dev *d);

/* Start and end the async event machinery, from the configuration at open (async.c). */
int vuser_async_init(struct vur_user_dev *d, const struct vur_user_config *cfg);
void vuser_async_fini(struct vur_user_dev *d);

#endif /* VUSER_DEVICE_H */
