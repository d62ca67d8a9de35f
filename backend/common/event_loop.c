/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_thread.h>

#include "common/dpdk_compat.h"
#include "common/event_loop.h"
#include "common/log.h"

#define MAX_EVENTS 16

struct vur_event_deferred {
	struct vur_event_deferred *next;
	void (*fn)(void *arg);
	void *arg;
};

/* What callbacks deferred, in the order they asked. */
static void
run_deferred(struct vur_event_loop *loop)
{
	struct vur_event_deferred *d;

	while ((d = loop->deferred) != NULL) {
		loop->deferred = d->next;
		d->fn(d->arg);
		free(d);
	}
}

int
vur_event_loop_defer(struct vur_event_loop *loop, void (*fn)(void *arg), void *arg)
{
	struct vur_event_deferred *d = malloc(sizeof(*d)), **tail = &loop->deferred;

	if (d == NULL)
		return -ENOMEM;
	*d = (struct vur_event_deferred){ .fn = fn, .arg = arg };
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = d;
	return 0;
}

static uint32_t
loop_main(void *p)
{
	struct vur_event_loop *loop = p;
	struct epoll_event ev[MAX_EVENTS];
	struct vur_event_watch *w;
	int i, n;

	for (;;) {
		n = epoll_wait(loop->epfd, ev, MAX_EVENTS, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			VUR_LOG(app, ERR, "%s: epoll_wait: %s", loop->name, strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (ev[i].data.ptr == NULL)
				return 0; /* the stop eventfd */
			w = ev[i].data.ptr;
			w->cb(w->fd, w->arg);
		}
		/* No event of this batch is left to run: what was unwatched may go. */
		run_deferred(loop);
	}
}

int
vur_event_loop_start(struct vur_event_loop *loop, const char *name)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int ret;

	memset(loop, 0, sizeof(*loop));
	loop->name = name;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	loop->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (loop->epfd < 0 || loop->stop_fd < 0 ||
			epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->stop_fd, &ev) < 0) {
		ret = -errno;
		goto close_fds;
	}
	/*
	 * A DPDK control thread: named, and kept off the data-plane lcores
	 * (EAL gives it the CPUs no lcore uses, else the main lcore's).
	 */
	ret = rte_thread_create_control(&loop->thread, name, loop_main, loop);
	if (ret != 0) {
		ret = ret < 0 ? ret : -ret;
		goto close_fds;
	}
	return 0;

close_fds:
	if (loop->stop_fd >= 0)
		close(loop->stop_fd);
	if (loop->epfd >= 0)
		close(loop->epfd);
	return ret;
}

void
vur_event_loop_stop(struct vur_event_loop *loop)
{
	uint64_t one = 1;

	if (write(loop->stop_fd, &one, sizeof(one)) != sizeof(one))
		VUR_LOG(app, ERR, "%s: cannot wake the loop", loop->name);
	rte_thread_join(loop->thread, NULL);
	run_deferred(loop);
	close(loop->stop_fd);
	close(loop->epfd);
}

int
vur_event_loop_watch(struct vur_event_loop *loop, struct vur_event_watch *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0)
		return -errno;
	return 0;
}

void
vur_event_loop_unwatch(struct vur_event_loop *loop, struct vur_event_watch *w)
{
	if (epoll_ctl(loop->epfd, EPOLL_CTL_DEL, w->fd, NULL) < 0)
		VUR_LOG(app, WARNING, "%s: unwatch fd %d: %s", loop->name, w->fd, strerror(errno));
}
