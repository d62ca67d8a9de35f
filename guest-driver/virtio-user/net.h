/* SPDX-License-Identifier: BSD-3-Clause */
/* The Ethernet queues' state, inside the device (net.c). */
#ifndef VUSER_NET_H
#define VUSER_NET_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "guest_mem.h"
#include "vur_net.h"

struct vur_user_dev;

struct vuser_net {
	pthread_mutex_t tx_lock;
	pthread_mutex_t rx_lock;
	uint16_t hdr_len;
	bool mrg_rxbuf;
	uint32_t max_frame;
	struct vuser_buf tx_mem; /* n_tx slots of tx_slot bytes */
	uint32_t tx_slot;
	uint16_t n_tx;
	uint16_t *tx_free; /* a stack of free slots */
	uint16_t n_tx_free;
	struct vuser_buf rx_mem; /* n_rx slots of rx_slot bytes, all posted when idle */
	uint32_t rx_slot;
	uint16_t n_rx;
	struct vur_user_net_stats stats;
};

/* At open, once the queues are set up: posts every receive buffer. */
int vuser_net_init(struct vur_user_dev *d, uint16_t mtu);
void vuser_net_fini(struct vur_user_dev *d);

/*
 * Post @len bytes as they are (no header added) in one descriptor on
 * transmitq1: the public send, and tests that hand the device a malformed
 * chain.
 */
int vuser_net_send_raw(struct vur_user_dev *d, const void *data, size_t len);

#endif /* VUSER_NET_H */
