/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests the backend sends on its own channel (SET_BACKEND_REQ_FD):
 * today only VHOST_USER_BACKEND_CONFIG_CHANGE_MSG, by which the device
 * raises a configuration change (a port speed change, for this device).
 * The backend may ask for a reply; a request this driver does not handle
 * is refused, never left unanswered, since the backend may be waiting.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "log.h"

static int
reply(struct vur_user_dev *d, const struct vuser_msg *req, uint64_t result)
{
	struct vuser_msg msg;
	int ret;

	memset(&msg, 0, sizeof(msg));
	msg.request = req->request;
	msg.flags = VHOST_USER_VERSION | VHOST_USER_REPLY;
	msg.size = sizeof(msg.payload.u64);
	msg.payload.u64 = result;
	ret = vuser_msg_send(d->backend_fd, &msg, NULL, 0);
	if (ret < 0)
		VUSER_LOG(ERR, d->name, "backend request %u: reply failed: %s", req->request,
				strerror(-ret));
	return ret;
}

static int
handle(struct vur_user_dev *d, const struct vuser_msg *msg)
{
	if (msg->flags & VHOST_USER_REPLY) {
		VUSER_LOG(ERR, d->name, "backend channel: a reply where a request was expected");
		return -EPROTO;
	}
	switch (msg->request) {
	case VHOST_USER_BACKEND_CONFIG_CHANGE_MSG:
		if (msg->size != 0) {
			VUSER_LOG(ERR, d->name, "CONFIG_CHANGE_MSG with a %u-byte payload",
					msg->size);
			return -EPROTO;
		}
		return VUR_USER_EVENT_CONFIG_CHANGE;
	default:
		VUSER_LOG(WARNING, d->name, "backend request %u not handled", msg->request);
		return -EOPNOTSUPP;
	}
}

int
vur_user_backend_event(struct vur_user_dev *d, int timeout_ms)
{
	struct pollfd pfd = { .events = POLLIN };
	int fds[VHOST_USER_MAX_FDS];
	const char *why = NULL;
	struct vuser_msg msg;
	unsigned int n_fds;
	int ret, result;

	if (d == NULL || d->backend_fd < 0)
		return -ENOTCONN;
	pfd.fd = d->backend_fd;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? VUR_USER_EVENT_NONE : -errno;
	if (ret == 0)
		return VUR_USER_EVENT_NONE;

	ret = vuser_msg_recv(d->backend_fd, d->conn.timeout_ms, &msg, fds, VHOST_USER_MAX_FDS,
			&n_fds, &why);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "backend channel: %s", why != NULL ? why : strerror(-ret));
		return ret == -ETIMEDOUT ? -EPROTO : ret;
	}
	/* No request this driver handles carries descriptors. */
	while (n_fds > 0)
		close(fds[--n_fds]);
	result = handle(d, &msg);
	if (msg.flags & VHOST_USER_NEED_REPLY) {
		ret = reply(d, &msg, result < 0 ? 1 : 0);
		if (ret < 0 && result >= 0)
			result = ret;
	}
	return result;
}
