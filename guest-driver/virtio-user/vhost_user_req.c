/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frontend's requests, one function each: build the message, send it
 * with its descriptors, and check the reply or the REPLY_ACK answer.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "log.h"
#include "vhost_user_msg.h"

/*
 * Send @msg; receive and check its reply into @msg when it has one
 * (@reply_size != 0), or its ack when REPLY_ACK is negotiated.
 */
static int
transact(struct vuser_conn *c, struct vuser_msg *msg, const int *fds, unsigned int n_fds,
		uint32_t reply_size)
{
	bool want_ack = reply_size == 0 && c->reply_ack;
	uint32_t request = msg->request;
	const char *why = NULL;
	unsigned int n_fds_in;
	int ret;

	if (c->broken)
		return -EIO;
	msg->flags = VHOST_USER_VERSION;
	if (want_ack) {
		msg->flags |= VHOST_USER_NEED_REPLY;
		reply_size = sizeof(msg->payload.u64);
	}
	ret = vuser_msg_send(c->sock, msg, fds, n_fds);
	if (ret < 0) {
		VUSER_LOG(ERR, c->name, "%s: send failed: %s", vuser_request_name(request),
				strerror(-ret));
		goto broken;
	}
	if (reply_size == 0)
		return 0;

	/* No reply carries descriptors: any that come are closed and refused. */
	ret = vuser_msg_recv(c->sock, c->timeout_ms, msg, NULL, 0, &n_fds_in, &why);
	if (ret == 0)
		ret = vuser_msg_check_reply(msg, request, reply_size, &why);
	if (ret < 0) {
		VUSER_LOG(ERR, c->name, "%s: %s%s", vuser_request_name(request),
				why != NULL ? "backend sent " : "no reply: ",
				why != NULL ? why : strerror(-ret));
		goto broken;
	}
	if (want_ack && msg->payload.u64 != 0) {
		/* The stream is still in step: only this request failed. */
		VUSER_LOG(ERR, c->name, "%s refused by the backend (ack %llu)",
				vuser_request_name(request), (unsigned long long)msg->payload.u64);
		return -EIO;
	}
	return 0;

broken:
	c->broken = true;
	return ret;
}

static void
msg_init(struct vuser_msg *msg, uint32_t request, uint32_t size)
{
	memset(msg, 0, VUSER_MSG_HDR_SIZE + size);
	msg->request = request;
	msg->size = size;
}

int
vuser_req_no_payload(struct vuser_conn *c, uint32_t request)
{
	struct vuser_msg msg;

	msg_init(&msg, request, 0);
	return transact(c, &msg, NULL, 0, 0);
}

int
vuser_req_get_u64(struct vuser_conn *c, uint32_t request, uint64_t *val)
{
	struct vuser_msg msg;
	int ret;

	msg_init(&msg, request, 0);
	ret = transact(c, &msg, NULL, 0, sizeof(msg.payload.u64));
	if (ret == 0)
		*val = msg.payload.u64;
	return ret;
}

int
vuser_req_set_u64(struct vuser_conn *c, uint32_t request, uint64_t val)
{
	struct vuser_msg msg;

	msg_init(&msg, request, sizeof(msg.payload.u64));
	msg.payload.u64 = val;
	return transact(c, &msg, NULL, 0, 0);
}

int
vuser_req_vring_state(struct vuser_conn *c, uint32_t request, uint32_t index, uint32_t num)
{
	struct vuser_msg msg;

	msg_init(&msg, request, sizeof(msg.payload.state));
	msg.payload.state.index = index;
	msg.payload.state.num = num;
	return transact(c, &msg, NULL, 0, 0);
}

int
vuser_req_get_vring_base(struct vuser_conn *c, uint32_t index, uint32_t *num)
{
	struct vuser_msg msg;
	int ret;

	msg_init(&msg, VHOST_USER_GET_VRING_BASE, sizeof(msg.payload.state));
	msg.payload.state.index = index;
	ret = transact(c, &msg, NULL, 0, sizeof(msg.payload.state));
	if (ret < 0)
		return ret;
	if (msg.payload.state.index != index) {
		VUSER_LOG(ERR, c->name, "GET_VRING_BASE %u: reply names vring %u", index,
				msg.payload.state.index);
		return -EPROTO;
	}
	*num = msg.payload.state.num;
	return 0;
}

int
vuser_req_vring_addr(struct vuser_conn *c, const struct vhost_vring_addr *addr)
{
	struct vuser_msg msg;

	msg_init(&msg, VHOST_USER_SET_VRING_ADDR, sizeof(msg.payload.addr));
	msg.payload.addr = *addr;
	return transact(c, &msg, NULL, 0, 0);
}

int
vuser_req_vring_fd(struct vuser_conn *c, uint32_t request, uint32_t index, int fd)
{
	struct vuser_msg msg;

	if (index > VHOST_USER_VRING_IDX_MASK)
		return -EINVAL; /* the u64 payload has 8 bits for the index */
	msg_init(&msg, request, sizeof(msg.payload.u64));
	msg.payload.u64 = index;
	if (fd < 0)
		msg.payload.u64 |= VHOST_USER_VRING_NOFD;
	return transact(c, &msg, &fd, fd < 0 ? 0 : 1, 0);
}

int
vuser_req_mem_table(struct vuser_conn *c, const struct vuser_mem_region *regions, const int *fds,
		unsigned int n)
{
	struct vuser_msg msg;
	uint32_t size = offsetof(struct vuser_memory, regions) + n * sizeof(regions[0]);

	if (n == 0 || n > VHOST_USER_MAX_FDS)
		return -EINVAL;
	msg_init(&msg, VHOST_USER_SET_MEM_TABLE, size);
	msg.payload.memory.nregions = n;
	memcpy(msg.payload.memory.regions, regions, n * sizeof(regions[0]));
	return transact(c, &msg, fds, n, 0);
}

int
vuser_req_backend_fd(struct vuser_conn *c, int fd)
{
	struct vuser_msg msg;

	msg_init(&msg, VHOST_USER_SET_BACKEND_REQ_FD, 0);
	return transact(c, &msg, &fd, 1, 0);
}

int
vuser_req_get_config(struct vuser_conn *c, uint32_t offset, uint32_t size, void *buf)
{
	uint32_t msg_size = VUSER_CONFIG_HDR_SIZE + size;
	struct vuser_msg msg;
	const char *why = NULL;
	unsigned int n_fds;
	int ret;

	if (size == 0 || size > VHOST_USER_MAX_CONFIG_SIZE)
		return -EINVAL;
	if (c->broken)
		return -EIO;
	/* The request carries room for the region, as QEMU sends it. */
	msg_init(&msg, VHOST_USER_GET_CONFIG, msg_size);
	msg.payload.config.offset = offset;
	msg.payload.config.size = size;
	msg.flags = VHOST_USER_VERSION;
	ret = vuser_msg_send(c->sock, &msg, NULL, 0);
	if (ret == 0)
		ret = vuser_msg_recv(c->sock, c->timeout_ms, &msg, NULL, 0, &n_fds, &why);
	if (ret < 0)
		goto broken;
	/* An empty region is how a backend refuses (vhost-user.rst, GET_CONFIG). */
	if (msg.size == VUSER_CONFIG_HDR_SIZE && msg.request == VHOST_USER_GET_CONFIG &&
			(msg.flags & VHOST_USER_REPLY)) {
		VUSER_LOG(ERR, c->name, "GET_CONFIG %u+%u refused by the backend", offset, size);
		return -EIO;
	}
	ret = vuser_msg_check_reply(&msg, VHOST_USER_GET_CONFIG, msg_size, &why);
	if (ret == 0 && (msg.payload.config.offset != offset || msg.payload.config.size != size)) {
		why = "a region other than the one asked for";
		ret = -EPROTO;
	}
	if (ret < 0)
		goto broken;
	memcpy(buf, msg.payload.config.region, size);
	return 0;

broken:
	VUSER_LOG(ERR, c->name, "GET_CONFIG: %s%s", why != NULL ? "backend sent " : "no reply: ",
			why != NULL ? why : strerror(-ret));
	c->broken = true;
	return ret;
}
