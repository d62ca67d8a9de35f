/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "vhost_user_msg.h"

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until @sock is readable or @deadline (ms, CLOCK_MONOTONIC) passes. */
static int
wait_readable(int sock, int64_t deadline)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	int64_t left;
	int ret;

	for (;;) {
		left = deadline - now_ms();
		if (left < 0)
			left = 0;
		ret = poll(&pfd, 1, (int)left);
		if (ret > 0)
			return 0;
		if (ret == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

int
vuser_msg_send(int sock, const struct vuser_msg *msg, const int *fds, unsigned int n_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	const char *p = (const char *)msg;
	size_t left = VUSER_MSG_HDR_SIZE + msg->size;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;

	if (n_fds > VHOST_USER_MAX_FDS || msg->size > sizeof(msg->payload))
		return -EINVAL;
	while (left > 0) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = (void *)(uintptr_t)p;
		iov.iov_len = left;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (n_fds > 0) {
			/* The descriptors travel with the first byte only. */
			memset(&ctl, 0, sizeof(ctl));
			mh.msg_control = ctl.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
		}
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EPIPE ? -ECONNRESET : -errno;
		p += n;
		left -= n;
		n_fds = 0;
	}
	return 0;
}

const char *
vuser_request_name(uint32_t request)
{
	static const char *const names[] = {
		[VHOST_USER_GET_FEATURES] = "GET_FEATURES",
		[VHOST_USER_SET_FEATURES] = "SET_FEATURES",
		[VHOST_USER_SET_OWNER] = "SET_OWNER",
		[VHOST_USER_SET_MEM_TABLE] = "SET_MEM_TABLE",
		[VHOST_USER_SET_VRING_NUM] = "SET_VRING_NUM",
		[VHOST_USER_SET_VRING_ADDR] = "SET_VRING_ADDR",
		[VHOST_USER_SET_VRING_BASE] = "SET_VRING_BASE",
		[VHOST_USER_GET_VRING_BASE] = "GET_VRING_BASE",
		[VHOST_USER_SET_VRING_KICK] = "SET_VRING_KICK",
		[VHOST_USER_SET_VRING_CALL] = "SET_VRING_CALL",
		[VHOST_USER_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
		[VHOST_USER_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
		[VHOST_USER_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
		[VHOST_USER_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
		[VHOST_USER_SET_BACKEND_REQ_FD] = "SET_BACKEND_REQ_FD",
		[VHOST_USER_GET_CONFIG] = "GET_CONFIG",
	};

	if (request < sizeof(names) / sizeof(names[0]) && names[request] != NULL)
		return names[request];
	return "request ?";
}

static void
close_fds(int *fds, unsigned int n)
{
	while (n > 0)
		close(fds[--n]);
}

/* Collect the SCM_RIGHTS descriptors of @mh; -EPROTO if they did not fit. */
static int
take_fds(struct msghdr *mh, int *fds, unsigned int max_fds, unsigned int *n_fds)
{
	bool overflow = (mh->msg_flags & MSG_CTRUNC) != 0;
	struct cmsghdr *cm;
	unsigned int n, i;
	int fd;

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*n_fds < max_fds) {
				fds[(*n_fds)++] = fd;
			} else {
				close(fd);
				overflow = true;
			}
		}
	}
	return overflow ? -EPROTO : 0;
}

/* Read exactly @len bytes, taking descriptors that come with them. */
static int
read_full(int sock, int64_t deadline, void *buf, size_t len, int *fds, unsigned int max_fds,
		unsigned int *n_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	char *p = buf;
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;
	int ret;

	while (len > 0) {
		ret = wait_readable(sock, deadline);
		if (ret < 0)
			return ret;
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = p;
		iov.iov_len = len;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		ret = take_fds(&mh, fds, max_fds, n_fds);
		if (ret < 0)
			return ret;
		p += n;
		len -= n;
	}
	return 0;
}

int
vuser_msg_recv(int sock, int timeout_ms, struct vuser_msg *msg, int *fds, unsigned int max_fds,
		unsigned int *n_fds, const char **why)
{
	int64_t deadline = now_ms() + timeout_ms;
	int ret;

	*n_fds = 0;
	*why = NULL;
	ret = read_full(sock, deadline, msg, VUSER_MSG_HDR_SIZE, fds, max_fds, n_fds);
	if (ret == -EPROTO)
		*why = "file descriptors it may not carry";
	if (ret < 0)
		goto fail;
	if ((msg->flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION) {
		*why = "a message of an unknown protocol version";
		ret = -EPROTO;
		goto fail;
	}
	if (msg->size > sizeof(msg->payload)) {
		/* Never read a payload larger than the buffer that receives it. */
		*why = "a payload larger than any message";
		ret = -EPROTO;
		goto fail;
	}
	ret = read_full(sock, deadline, &msg->payload, msg->size, fds, max_fds, n_fds);
	if (ret == -EPROTO)
		*why = "file descriptors it may not carry";
	if (ret < 0)
		goto fail;
	return 0;

fail:
	close_fds(fds, *n_fds);
	*n_fds = 0;
	return ret;
}

int
vuser_msg_check_reply(
		const struct vuser_msg *reply, uint32_t request, uint32_t size, const char **why)
{
	if (!(reply->flags & VHOST_USER_REPLY))
		*why = "a request where a reply was expected";
	else if (reply->request != request)
		*why = "the reply to another request";
	else if (reply->size != size)
		*why = "a reply of the wrong size";
	else
		return 0;
	return -EPROTO;
}
