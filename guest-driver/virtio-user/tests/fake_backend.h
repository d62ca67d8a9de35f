/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A scripted vhost-user backend in a thread of the test: it answers the
 * frontend's requests, maps the memory table, and plays the device on the
 * control queue, correctly or with the fault a test asks for. It lets the
 * driver's open, control and backend-channel paths be tested against
 * misbehaviour the real backend never shows.
 */
#ifndef VUSER_TEST_FAKE_BACKEND_H
#define VUSER_TEST_FAKE_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define FAKE_MAX_VQS 256

/* How the fake answers one vhost-user request (fake_backend.fault_request). */
enum fake_fault {
	FAKE_FAULT_NONE,
	FAKE_FAULT_WRONG_REPLY, /* the reply names another request */
	FAKE_FAULT_NACK,        /* REPLY_ACK with a failure */
	FAKE_FAULT_SILENT,      /* no answer at all */
};

/* How the fake device answers control commands. */
enum fake_ctrl {
	FAKE_CTRL_OK,        /* ack VIRTIO_NET_OK, ack data filled with 0xa5 (but see below) */
	FAKE_CTRL_ERR,       /* ack VIRTIO_NET_ERR only */
	FAKE_CTRL_SILENT,    /* never */
	FAKE_CTRL_LATE,      /* the first command with the second one */
	FAKE_CTRL_BAD_ID,    /* a used id the driver never made available */
	FAKE_CTRL_TOO_LONG,  /* a used length beyond the writable buffers */
	FAKE_CTRL_NO_NOTIFY, /* answers, but never signals the call eventfd */
};

struct fake_vq {
	uint32_t num;
	uint64_t desc, avail, used; /* frontend addresses */
	int kick_fd, call_fd;
	bool enabled;
	uint16_t last_avail;
};

struct fake_backend {
	/* set before fake_start() */
	uint64_t features;
	uint64_t protocol_features;
	uint8_t config[64];
	uint32_t config_len;
	uint32_t fault_request;
	enum fake_fault fault;
	enum fake_ctrl ctrl;
	/* what CREATE_CQ and CREATE_QP answer (fake_init: CQ 0, QP 2) */
	uint32_t create_cqn, create_qpn;

	/* what the fake saw, readable after the device is closed or a command answered */
	uint64_t acked_features;
	uint64_t mem_gpa, mem_size, mem_uaddr;
	uint32_t n_enabled, n_get_base;
	uint8_t last_cmd[2];
	uint32_t last_out_len, last_in_len;
	/* command data in one descriptor, up to this size; aligned for its structs */
	uint8_t last_data[1024] __attribute__((aligned(8)));
	/*
	 * QUERY_PORT_SPEED is answered with roce_port_speed of @config, as
	 * a device does (ROCE-DEV-SPEED-8); here is how often it came.
	 */
	uint32_t n_speed_queries;
	uint32_t n_announce_acks; /* VIRTIO_NET_CTRL_ANNOUNCE_ACK */

	/* internals */
	char path[108];
	int listen_fd, conn_fd, stop_fd, backend_req_fd;
	uint8_t *map;
	pthread_t thread;
	struct fake_vq vq[FAKE_MAX_VQS];
	uint32_t pending_heads[8], n_pending;
};

/* A device like the real backend's, with 3 QPs and 1 CQ (10 virtqueues). */
void fake_init(struct fake_backend *f);

/* Listen on a fresh socket (f->path) and serve one connection in a thread. */
int fake_start(struct fake_backend *f);

/* Wait for the connection to end (or end it if none came) and free everything. */
void fake_stop(struct fake_backend *f);

/* Send a request of type @request, without payload, on the backend channel. */
int fake_backend_send(struct fake_backend *f, uint32_t request, bool need_reply);

/* Read the frontend's answer to it (the u64 of REPLY_ACK) within @timeout_ms. */
int fake_backend_ack(struct fake_backend *f, uint32_t request, uint64_t *ack, int timeout_ms);

/*
 * The device's side of an RDMA virtqueue, from the test's thread (the
 * fake's thread serves only the control queue). One available chain of
 * virtqueue @vq: its head, its first descriptor (address translated into
 * @buf, NULL if outside driver memory, length, flags) and the number of
 * descriptors; 0 if none is available, 1 if one is.
 */
struct fake_chain {
	uint16_t head;
	uint16_t flags; /* of the first descriptor */
	uint32_t len;
	void *buf;
	uint32_t n_desc;
};
int fake_vq_next(struct fake_backend *f, uint32_t vq, struct fake_chain *c);

/* Mark chain @head of @vq used with @len bytes written. */
void fake_vq_use(struct fake_backend *f, uint32_t vq, uint16_t head, uint32_t len);

/* The driver's avail index of @vq, as it stands in the ring. */
uint16_t fake_vq_avail_idx(struct fake_backend *f, uint32_t vq);

#endif /* VUSER_TEST_FAKE_BACKEND_H */
