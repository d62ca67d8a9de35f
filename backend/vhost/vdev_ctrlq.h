/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's control virtqueue, served on the control thread: woken by the
 * queue's kick eventfd, it executes requests in order (ROCE-DEV-CTRL-10)
 * and notifies the driver through the call eventfd.
 */
#ifndef VUR_VDEV_CTRLQ_H
#define VUR_VDEV_CTRLQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/event_loop.h"
#include "ctrl/ctrl_dispatch.h"
#include "common/ratelimit.h"
#include "vring/split_ring.h"

struct rte_vhost_memory;

struct vur_ctrlq_stats {
	uint64_t requests;
	uint64_t errors;                      /* requests answered VIRTIO_NET_ERR */
	uint64_t bad_chains;                  /* unusable descriptor chains */
	uint64_t broken;                      /* times the ring was found corrupt */
	uint64_t rejects[VUR_CTRL_REJ_COUNT]; /* errors by reason */
};

struct vur_ctrlq {
	pthread_rwlock_t *lock; /* the device's lock */
	const char *name;       /* the device's name, for logs */
	struct vur_event_loop *loop;
	struct vur_event_watch watch;
	bool active;
	int vid;
	uint16_t qid;
	int callfd;
	struct rte_vhost_memory *mem;
	struct vur_split_ring ring;
	const struct vur_ctrl_table *table;
	void *ctx; /* the handlers' context */
	uint64_t negotiated;
	struct vur_ctrlq_stats stats;
	struct vur_ratelimit log_rl; /* what the driver sends decides what we log */
	/* after each batch, without the lock (the vHCA port rule: ADD_GID may bring the port up) */
	void (*after)(void *arg);
	void *after_arg;
};

void vur_ctrlq_init(struct vur_ctrlq *q, pthread_rwlock_t *lock, const char *name,
		struct vur_event_loop *loop);

/* Start serving queue @qid of @vid. Called with the device lock held. */
int vur_ctrlq_start(struct vur_ctrlq *q, int vid, uint16_t qid, uint64_t negotiated,
		const struct vur_ctrl_table *table, void *ctx);

/* Stop serving and hand the ring indices back to librte_vhost. Device lock held. */
void vur_ctrlq_stop(struct vur_ctrlq *q);

#endif /* VUR_VDEV_CTRLQ_H */
