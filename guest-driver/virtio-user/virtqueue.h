/* SPDX-License-Identifier: BSD-3-Clause */
/* A virtqueue of the device: its ring in driver memory and its eventfds. */
#ifndef VUSER_VIRTQUEUE_H
#define VUSER_VIRTQUEUE_H

#include <stdint.h>

struct vur_user_dev;
struct vuser_vq;

/*
 * Allocate the ring and eventfds of virtqueue @index and announce them to
 * the backend (SET_VRING_NUM, _BASE, _ADDR, _KICK, _CALL). On failure what
 * was allocated stays in @vq for vuser_vq_free().
 */
int vuser_vq_setup(struct vur_user_dev *d, struct vuser_vq *vq, uint32_t index, uint16_t size);

/* SET_VRING_ENABLE 1: the backend may use the ring from now on. */
int vuser_vq_enable(struct vur_user_dev *d, struct vuser_vq *vq);

/* GET_VRING_BASE: the backend stops the ring (and the device, on the first). */
int vuser_vq_stop(struct vur_user_dev *d, struct vuser_vq *vq);

/* Release what vuser_vq_setup() allocated. */
void vuser_vq_free(struct vur_user_dev *d, struct vuser_vq *vq);

/*
 * Back to the initial state, empty and with indices 0, for a virtqueue the
 * device has unbound (ROCE-DRV-LIFE-2: re-initializing its memory, as
 * VIRTIO_F_RING_RESET is not offered). What was in flight is forgotten.
 */
void vuser_vq_reinit(struct vur_user_dev *d, struct vuser_vq *vq);

/* Notify the device that the ring has new buffers. */
int vuser_vq_kick(struct vuser_vq *vq);

#endif /* VUSER_VIRTQUEUE_H */
