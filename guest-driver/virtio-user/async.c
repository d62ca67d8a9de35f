/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events, in the manner of ibv_get_async_event(): the
 * backend's configuration-change messages become port and speed events.
 *
 * The device raises one notification for any change of the port speed,
 * its flags or the link bit (ROCE-DEV-SPEED-10), and may fold several
 * changes into one (ROCE-DEV-SPEED-11). So each notification is a prompt
 * to compare: the link bit and the speed against the last ones reported,
 * an event for each that differs, none for a notification that changed
 * nothing the consumer sees (ROCE-DRV-SPEED-3).
 *
 * The descriptor handed out is an epoll set of the backend channel and an
 * eventfd that is readable while events are queued, so that poll() on it
 * also wakes for the second event of a notification that raised two.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "clock.h"
#include "device.h"
#include "log.h"
#include "vur_verbs.h"

static bool
link_is_up(const struct vur_user_dev *d, const struct vur_user_config *cfg)
{
	/* virtio 5.1.4.2: without STATUS the driver assumes the link is up. */
	return !vuser_dev_has(d, VIRTIO_NET_F_STATUS) || (cfg->status & VIRTIO_NET_S_LINK_UP);
}

int
vuser_async_init(struct vur_user_dev *d, const struct vur_user_config *cfg)
{
	struct vuser_async *a = &d->async;
	struct epoll_event ev = { .events = EPOLLIN };

	a->link_up = link_is_up(d, cfg);
	a->speed = cfg->roce_port_speed;
	a->pending_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	a->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (a->pending_fd < 0 || a->epoll_fd < 0)
		return -errno;
	if (epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, a->pending_fd, &ev) < 0)
		return -errno;
	if (d->backend_fd >= 0 && epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, d->backend_fd, &ev) < 0)
		return -errno;
	return 0;
}

void
vuser_async_fini(struct vur_user_dev *d)
{
	if (d->async.epoll_fd >= 0)
		close(d->async.epoll_fd);
	if (d->async.pending_fd >= 0)
		close(d->async.pending_fd);
	d->async.epoll_fd = d->async.pending_fd = -1;
}

void vuser_async_push(struct vur_user_dev *d, uint32_t type, uint32_t element);

/* Queue an event; from the caller's thread or the event queue thread (qlock). */
void
vuser_async_push(struct vur_user_dev *d, uint32_t type, uint32_t element)
{
	struct vuser_async *a = &d->async;
	uint64_t one = 1;

	pthread_mutex_lock(&a->qlock);
	if (a->count == VUSER_ASYNC_QLEN) {
		pthread_mutex_unlock(&a->qlock);
		VUSER_LOG(WARNING, d->name, "async event %u lost: %u events not taken", type,
				VUSER_ASYNC_QLEN);
		return;
	}
	a->q[(a->head + a->count) % VUSER_ASYNC_QLEN] = (struct vur_user_async_event){
		.event_type = type,
		.port_num = VIRTIO_NET_ROCE_PORT_NUM,
		.element = element,
	};
	if (a->count++ == 0 && write(a->pending_fd, &one, sizeof(one)) < 0)
		VUSER_LOG(ERR, d->name, "async eventfd: %s", strerror(errno));
	pthread_mutex_unlock(&a->qlock);
}

static void
push(struct vur_user_dev *d, uint32_t type)
{
	vuser_async_push(d, type, 0);
}

static bool
pop(struct vur_user_dev *d, struct vur_user_async_event *ev)
{
	struct vuser_async *a = &d->async;
	uint64_t count;

	pthread_mutex_lock(&a->qlock);
	if (a->count == 0) {
		pthread_mutex_unlock(&a->qlock);
		return false;
	}
	*ev = a->q[a->head];
	a->head = (a->head + 1) % VUSER_ASYNC_QLEN;
	if (--a->count == 0 && read(a->pending_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		VUSER_LOG(ERR, d->name, "async eventfd: %s", strerror(errno));
	pthread_mutex_unlock(&a->qlock);
	return true;
}

/* virtio 5.1.6.5.4: the driver acknowledges VIRTIO_NET_S_ANNOUNCE. */
static void
ack_announce(struct vur_user_dev *d)
{
	uint8_t status;
	int ret;

	ret = vur_user_ctrl(d, VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_ANNOUNCE_ACK, NULL, 0,
			NULL, 0, &status);
	if (ret < 0 || status != VIRTIO_NET_OK)
		VUSER_LOG(WARNING, d->name, "ANNOUNCE_ACK failed: %s",
				ret < 0 ? strerror(-ret) : "VIRTIO_NET_ERR");
}

static int
config_changed(struct vur_user_dev *d)
{
	struct vuser_async *a = &d->async;
	struct vur_user_port_speed ps;
	struct vur_user_config cfg;
	uint64_t speed;
	bool up;
	int ret;

	ret = vuser_dev_get_config(d, &cfg);
	if (ret < 0)
		return ret;
	up = link_is_up(d, &cfg);
	if (up != a->link_up) {
		a->link_up = up;
		push(d, up ? VUR_USER_ASYNC_PORT_ACTIVE : VUR_USER_ASYNC_PORT_ERR);
	}
	/* ROCE-DRV-SPEED-1, -2, -3, -5 */
	if (d->port_speed) {
		speed = cfg.roce_port_speed;
		ret = vur_user_query_port_speed(d, &ps);
		if (ret == 0)
			speed = ps.speed;
		else
			VUSER_LOG(WARNING, d->name,
					"QUERY_PORT_SPEED failed (%s): the speed of "
					"the configuration space is taken",
					strerror(-ret));
		if (speed != a->speed) {
			a->speed = speed;
			push(d, VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
		}
	}
	if (vuser_dev_has(d, VIRTIO_NET_F_GUEST_ANNOUNCE) && (cfg.status & VIRTIO_NET_S_ANNOUNCE))
		ack_announce(d);
	return 0;
}

int
vur_user_async_fd(const struct vur_user_dev *d)
{
	return d->async.epoll_fd;
}

/* What is left of @deadline (-1: none) as a poll() timeout. */
static int
left_ms(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - vuser_now_ms();
	return left > 0 ? (int)left : 0;
}

/* 0: nothing within @left ms; 1: an event queued; 2: the backend's channel. */
static int
wait_either(struct vur_user_dev *d, int left)
{
	struct pollfd p[2] = {
		{ .fd = d->async.pending_fd, .events = POLLIN },
		{ .fd = d->backend_fd, .events = POLLIN },
	};
	int ret;

	ret = poll(p, d->backend_fd >= 0 ? 2 : 1, left);
	if (ret < 0)
		return errno == EINTR ? 1 : -errno;
	if (ret == 0)
		return 0;
	return (p[0].revents & POLLIN) ? 1 : 2;
}

int
vur_user_get_async_event(struct vur_user_dev *d, struct vur_user_async_event *ev, int timeout_ms)
{
	int64_t deadline;
	int ret, left;

	if (d == NULL || ev == NULL)
		return -EINVAL;
	deadline = timeout_ms < 0 ? -1 : vuser_now_ms() + timeout_ms;
	pthread_mutex_lock(&d->async.lock);
	for (;;) {
		if (pop(d, ev)) {
			ret = 1;
			break;
		}
		left = left_ms(deadline);
		/* events of the event queue thread come through pending_fd */
		ret = wait_either(d, left);
		if (ret <= 0)
			break;
		if (ret == 1)
			continue;
		ret = vur_user_backend_event(d, 0);
		if (ret == VUR_USER_EVENT_CONFIG_CHANGE)
			ret = config_changed(d);
		else if (ret == VUR_USER_EVENT_NONE && left == 0)
			break;
		/* A request this driver refused was answered: no event, no error. */
		if (ret < 0 && ret != -EOPNOTSUPP)
			break;
	}
	pthread_mutex_unlock(&d->async.lock);
	return ret;
}
