/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread: one epoll loop that sleeps until a watched file
 * descriptor (a control virtqueue's kick eventfd, later the admin socket and
 * link events) is readable, then calls its handler. It never busy-polls.
 */
#ifndef VUR_EVENT_LOOP_H
#define VUR_EVENT_LOOP_H

#include <rte_thread.h>

typedef void (*vur_event_cb_t)(int fd, void *arg);

/*
 * A watched descriptor. Its owner keeps it alive as long as the loop runs:
 * after unwatch a callback already picked up may still run once, so the
 * callback must check, under its object's lock, that it is still wanted.
 */
struct vur_event_watch {
	int fd;
	vur_event_cb_t cb;
	void *arg;
};

struct vur_event_deferred;

struct vur_event_loop {
	int epfd;
	int stop_fd; /* eventfd that wakes the loop to stop */
	rte_thread_t thread;
	const char *name;
	struct vur_event_deferred *deferred; /* the loop's thread's only */
};

int vur_event_loop_start(struct vur_event_loop *loop, const char *name);
void vur_event_loop_stop(struct vur_event_loop *loop);

/*
 * Watch @w->fd; @w->cb(fd, arg) runs on the loop's thread while it is
 * readable. Returns 0 or a negative errno.
 */
int vur_event_loop_watch(struct vur_event_loop *loop, struct vur_event_watch *w);

/* Stop watching @w->fd. */
void vur_event_loop_unwatch(struct vur_event_loop *loop, struct vur_event_watch *w);

/*
 * On the loop's thread only: call @fn(@arg) once the current batch of
 * events is handled, when no callback picked up before this call can still
 * run: how an object whose watches a callback just removed is freed (a
 * device deleted by the admin RPC). If the loop stops first, stop calls it.
 * Returns 0 or -ENOMEM.
 */
int vur_event_loop_defer(struct vur_event_loop *loop, void (*fn)(void *arg), void *arg);

#endif /* VUR_EVENT_LOOP_H */
