/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user messaging, frontend side (QEMU docs/interop/vhost-user.rst):
 * a packed 12-byte header (request, flags, payload size), the payload, and
 * file descriptors as SCM_RIGHTS ancillary data.
 *
 * The backend is not trusted to be correct: every reply is checked for the
 * version, the reply flag, the request it answers and its exact size before
 * any field of it is used. After a timeout or a malformed reply the stream
 * can no longer be trusted to be in step, so the connection is marked
 * broken and sends nothing more.
 */
#ifndef VUSER_VHOST_USER_MSG_H
#define VUSER_VHOST_USER_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/vhost_types.h>

/* Requests of the frontend ("front-end message types"). */
#define VHOST_USER_GET_FEATURES          1
#define VHOST_USER_SET_FEATURES          2
#define VHOST_USER_SET_OWNER             3
#define VHOST_USER_SET_MEM_TABLE         5
#define VHOST_USER_SET_VRING_NUM         8
#define VHOST_USER_SET_VRING_ADDR        9
#define VHOST_USER_SET_VRING_BASE        10
#define VHOST_USER_GET_VRING_BASE        11
#define VHOST_USER_SET_VRING_KICK        12
#define VHOST_USER_SET_VRING_CALL        13
#define VHOST_USER_GET_PROTOCOL_FEATURES 15
#define VHOST_USER_SET_PROTOCOL_FEATURES 16
#define VHOST_USER_GET_QUEUE_NUM         17
#define VHOST_USER_SET_VRING_ENABLE      18
#define VHOST_USER_SET_BACKEND_REQ_FD    21 /* SET_SLAVE_REQ_FD in older texts */
#define VHOST_USER_GET_CONFIG            24

/* Requests of the backend, on the channel of SET_BACKEND_REQ_FD. */
#define VHOST_USER_BACKEND_CONFIG_CHANGE_MSG 2

#define VHOST_USER_F_PROTOCOL_FEATURES       30
#define VHOST_USER_PROTOCOL_F_MQ             0
#define VHOST_USER_PROTOCOL_F_REPLY_ACK      3
#define VHOST_USER_PROTOCOL_F_BACKEND_REQ    5 /* SLAVE_REQ in older texts */
#define VHOST_USER_PROTOCOL_F_CONFIG         9

#define VHOST_USER_VERSION                   0x1u
#define VHOST_USER_VERSION_MASK              0x3u
#define VHOST_USER_REPLY                     (1u << 2)
#define VHOST_USER_NEED_REPLY                (1u << 3)
#define VHOST_USER_VRING_IDX_MASK            0xffu /* the vring index in a u64 payload */
#define VHOST_USER_VRING_NOFD                (1u << 8)
#define VHOST_USER_MAX_FDS                   8 /* and memory regions */
#define VHOST_USER_MAX_CONFIG_SIZE           256

struct vuser_mem_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct vuser_memory {
	uint32_t nregions;
	uint32_t padding;
	struct vuser_mem_region regions[VHOST_USER_MAX_FDS];
};

struct vuser_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t region[VHOST_USER_MAX_CONFIG_SIZE];
};

#define VUSER_CONFIG_HDR_SIZE offsetof(struct vuser_config, region)

struct vuser_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size; /* of the payload */
	union {
		uint64_t u64;
		struct vhost_vring_state state;
		struct vhost_vring_addr addr;
		struct vuser_memory memory;
		struct vuser_config config;
	} payload;
} __attribute__((packed));

#define VUSER_MSG_HDR_SIZE offsetof(struct vuser_msg, payload)

_Static_assert(VUSER_MSG_HDR_SIZE == 12, "vhost-user header is 12 bytes");
_Static_assert(sizeof(struct vuser_mem_region) == 32, "memory region is 32 bytes");
_Static_assert(sizeof(struct vhost_vring_addr) == 40, "vring address is 40 bytes");
_Static_assert(sizeof(struct vhost_vring_state) == 8, "vring state is 8 bytes");

/* The frontend's end of a connection. */
struct vuser_conn {
	int sock;
	int timeout_ms;
	bool reply_ack; /* REPLY_ACK negotiated: ask for an ack where no reply exists */
	bool broken;    /* out of step with the backend: send nothing more */
	const char *name;
};

/* The name of a frontend request, for logs. */
const char *vuser_request_name(uint32_t request);

/*
 * Send one message and its file descriptors. Returns 0 or a negative errno
 * (-ECONNRESET when the backend has gone).
 */
int vuser_msg_send(int sock, const struct vuser_msg *msg, const int *fds, unsigned int n_fds);

/*
 * Receive one message: header, payload, and at most @max_fds descriptors
 * (*n_fds receives their number). The version and the payload size are
 * checked here; whether it is the expected message is the caller's check.
 * Returns 0, -ETIMEDOUT (nothing within @timeout_ms), -ECONNRESET (the peer
 * closed), -EPROTO (malformed; descriptors that came with it are closed).
 */
int vuser_msg_recv(int sock, int timeout_ms, struct vuser_msg *msg, int *fds, unsigned int max_fds,
		unsigned int *n_fds, const char **why);

/*
 * Is @reply the reply to @request with a payload of exactly @size bytes?
 * Returns 0 or -EPROTO with the reason in *why.
 */
int vuser_msg_check_reply(
		const struct vuser_msg *reply, uint32_t request, uint32_t size, const char **why);

/* Typed requests (vhost_user_req.c): 0 or a negative errno, logged with the reason. */
int vuser_req_no_payload(struct vuser_conn *c, uint32_t request);
int vuser_req_get_u64(struct vuser_conn *c, uint32_t request, uint64_t *val);
int vuser_req_set_u64(struct vuser_conn *c, uint32_t request, uint64_t val);
int vuser_req_vring_state(struct vuser_conn *c, uint32_t request, uint32_t index, uint32_t num);
int vuser_req_get_vring_base(struct vuser_conn *c, uint32_t index, uint32_t *num);
int vuser_req_vring_addr(struct vuser_conn *c, const struct vhost_vring_addr *addr);
int vuser_req_vring_fd(struct vuser_conn *c, uint32_t request, uint32_t index, int fd);
int vuser_req_mem_table(struct vuser_conn *c, const struct vuser_mem_region *regions,
		const int *fds, unsigned int n);
int vuser_req_backend_fd(struct vuser_conn *c, int fd);
int vuser_req_get_config(struct vuser_conn *c, uint32_t offset, uint32_t size, void *buf);

#endif /* VUSER_VHOST_USER_MSG_H */
