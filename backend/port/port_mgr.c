/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port manager (see port_mgr.h).
 *
 * Link events arrive on EAL's interrupt thread; the callback only writes an
 * eventfd. The control thread then arms a one-shot timer of
 * VUR_PORT_COALESCE_US and, when it fires, reads every member's link once
 * and applies the result: a burst of events costs one read and at most one
 * notification per device, and the last state is applied at most one
 * coalescing delay after the last event. Admin actions apply at once, so
 * that an RPC's reply shows its effect.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/log.h"
#include "port/kernel_link.h"
#include "port/port_mgr.h"
#include "vhost/vdev.h"

static void
arm_timer(int fd, uint64_t first_us, uint64_t period_us)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = first_us / 1000000,
				.tv_nsec = (first_us % 1000000) * 1000 },
		.it_interval = { .tv_sec = period_us / 1000000,
				.tv_nsec = (period_us % 1000000) * 1000 },
	};

	if (timerfd_settime(fd, 0, &its, NULL) != 0)
		VUR_LOG(port, ERR, "timerfd_settime: %s", strerror(errno));
}

static void
drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		VUR_LOG(port, ERR, "read fd %d: %s", fd, strerror(errno));
}

/* Recompute every device from the members' last state; the caller holds the lock. */
static void
apply_locked(struct vur_port_mgr *pm)
{
	const uint16_t n = pm->uplinks.n_members;

	pm->recomputes++;
	for (unsigned int i = 0; i < pm->n_devs; i++) {
		struct vur_port_dev *d = &pm->devs[i];

		vur_speed_compute(pm->state, n, d->admin_up, pm->loopback_mbps, &d->speed);
		vur_dev_set_speed(d->dev, &d->speed);
	}
}

static void
read_and_apply(struct vur_port_mgr *pm)
{
	pthread_mutex_lock(&pm->lock);
	vur_uplinks_read(&pm->uplinks, pm->state);
	apply_locked(pm);
	pthread_mutex_unlock(&pm->lock);
}

/* EAL interrupt thread: hand the news to the control thread. */
static void
on_link_event(void *arg)
{
	struct vur_port_mgr *pm = arg;
	uint64_t one = 1;

	if (write(pm->lsc_watch.fd, &one, sizeof(one)) != sizeof(one))
		VUR_LOG(port, ERR, "cannot signal a link event");
}

static void
schedule_apply(struct vur_port_mgr *pm)
{
	if (pm->apply_armed)
		return;
	pm->apply_armed = true;
	arm_timer(pm->apply_watch.fd, VUR_PORT_COALESCE_US, 0);
}

static void
on_lsc_fd(int fd, void *arg)
{
	struct vur_port_mgr *pm = arg;

	drain(fd);
	pm->link_events++;
	schedule_apply(pm);
}

static void
on_apply_timer(int fd, void *arg)
{
	struct vur_port_mgr *pm = arg;

	drain(fd);
	pm->apply_armed = false;
	read_and_apply(pm);
}

/* Read every member; a change is applied after the coalescing delay. */
static void
poll_members(struct vur_port_mgr *pm)
{
	struct vur_port_member now[VUR_MAX_MEMBERS];
	bool changed;

	pthread_mutex_lock(&pm->lock);
	changed = vur_uplinks_read(&pm->uplinks, now);
	pthread_mutex_unlock(&pm->lock);
	if (changed) {
		pm->link_events++;
		schedule_apply(pm);
	}
}

/*
 * Every member is polled, LSC or not: a PMD may claim LSC and never raise it
 * (DPDK 22.11's net_tap updates its link from netlink but calls no
 * application callback). For a port with LSC enabled the read is ethdev's
 * cached status, no system call; a member with a kernel interface costs an
 * ioctl.
 */
static void
on_poll_timer(int fd, void *arg)
{
	drain(fd);
	poll_members(arg);
}

/* rtnetlink: a member's kernel interface changed, so read now, not at the next poll. */
static void
on_netlink(int fd, void *arg)
{
	struct vur_port_mgr *pm = arg;
	uint32_t idx[VUR_MAX_MEMBERS];
	size_t n = 0;
	bool named;
	int ret;

	for (uint16_t i = 0; i < pm->uplinks.n_members; i++)
		if (pm->uplinks.members[i].if_index != 0)
			idx[n++] = pm->uplinks.members[i].if_index;
	ret = vur_kernel_link_drain(fd, idx, n, &named);
	if (ret < 0)
		VUR_LOG(port, ERR, "rtnetlink: %s", strerror(-ret));
	if (!named)
		return;
	pm->kernel_link_events++;
	poll_members(pm);
}

static int
watch_new(struct vur_port_mgr *pm, struct vur_event_watch *w, int fd, vur_event_cb_t cb)
{
	w->fd = fd;
	w->cb = cb;
	w->arg = pm;
	if (fd < 0)
		return -errno;
	return vur_event_loop_watch(pm->loop, w);
}

static void
watch_close(struct vur_event_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* Only for members with a kernel interface; without one polling suffices. */
static int
watch_kernel_links(struct vur_port_mgr *pm)
{
	int fd;

	if (!pm->uplinks.ifreq_open)
		return 0;
	fd = vur_kernel_link_listen();
	if (fd < 0) {
		VUR_LOG(port, WARNING, "no rtnetlink link events (%s): links polled only",
				strerror(-fd));
		return 0;
	}
	return watch_new(pm, &pm->nl_watch, fd, on_netlink);
}

/* The LSC eventfd exists before the uplinks start (a callback may fire at once). */
static int
start_watchers(struct vur_port_mgr *pm, uint32_t poll_ms)
{
	int ret;

	ret = watch_new(pm, &pm->lsc_watch, pm->lsc_watch.fd, on_lsc_fd);
	pm->watching = ret == 0;
	if (ret == 0)
		ret = watch_new(pm, &pm->apply_watch,
				timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC),
				on_apply_timer);
	if (ret != 0 || pm->uplinks.n_members == 0)
		return ret;
	ret = watch_new(pm, &pm->poll_watch,
			timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), on_poll_timer);
	if (ret == 0)
		arm_timer(pm->poll_watch.fd, poll_ms * 1000ULL, poll_ms * 1000ULL);
	if (ret == 0)
		ret = watch_kernel_links(pm);
	return ret;
}

int
vur_port_mgr_start(struct vur_port_mgr *pm, const struct vur_port_mgr_params *p,
		struct vur_dev *const *devs, unsigned int n_devs)
{
	int ret;

	memset(pm, 0, sizeof(*pm));
	pthread_mutex_init(&pm->lock, NULL);
	pm->lsc_watch.fd = pm->apply_watch.fd = pm->poll_watch.fd = pm->nl_watch.fd = -1;
	pm->loop = p->loop;
	pm->loopback_mbps = p->loopback_mbps;
	if (n_devs > VUR_PORT_MAX_DEVS)
		return -ENOSPC;
	pm->n_devs = n_devs;
	for (unsigned int i = 0; i < n_devs; i++) {
		pm->devs[i].dev = devs[i];
		pm->devs[i].admin_up = true;
	}
	pm->lsc_watch.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pm->lsc_watch.fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = vur_uplinks_start(&pm->uplinks, p->uplinks, p->n_uplinks, p->nominal, p->n_nominal,
			on_link_event, pm);
	if (ret != 0)
		goto fail;
	ret = start_watchers(pm, p->poll_ms);
	if (ret != 0)
		goto fail;
	read_and_apply(pm);
	return 0;

fail:
	/* The loop runs: whatever it watches must leave it before the fds close. */
	if (pm->watching) {
		vur_event_loop_unwatch(pm->loop, &pm->lsc_watch);
		if (pm->apply_watch.fd >= 0)
			vur_event_loop_unwatch(pm->loop, &pm->apply_watch);
		if (pm->poll_watch.fd >= 0)
			vur_event_loop_unwatch(pm->loop, &pm->poll_watch);
		if (pm->nl_watch.fd >= 0)
			vur_event_loop_unwatch(pm->loop, &pm->nl_watch);
	}
	vur_port_mgr_stop(pm);
	return ret;
}

void
vur_port_mgr_stop(struct vur_port_mgr *pm)
{
	vur_uplinks_stop(&pm->uplinks);
	watch_close(&pm->nl_watch);
	watch_close(&pm->poll_watch);
	watch_close(&pm->apply_watch);
	watch_close(&pm->lsc_watch);
	pm->n_devs = 0;
	pthread_mutex_destroy(&pm->lock);
}

int
vur_port_mgr_add_dev(struct vur_port_mgr *pm, struct vur_dev *dev, bool admin_up)
{
	struct vur_port_dev *d;

	pthread_mutex_lock(&pm->lock);
	if (pm->n_devs == VUR_PORT_MAX_DEVS) {
		pthread_mutex_unlock(&pm->lock);
		return -ENOSPC;
	}
	d = &pm->devs[pm->n_devs++];
	d->dev = dev;
	d->admin_up = admin_up;
	vur_speed_compute(pm->state, pm->uplinks.n_members, admin_up, pm->loopback_mbps, &d->speed);
	vur_dev_set_speed(dev, &d->speed);
	pthread_mutex_unlock(&pm->lock);
	return 0;
}

void
vur_port_mgr_del_dev(struct vur_port_mgr *pm, struct vur_dev *dev)
{
	pthread_mutex_lock(&pm->lock);
	for (unsigned int i = 0; i < pm->n_devs; i++) {
		if (pm->devs[i].dev != dev)
			continue;
		/* the order of the others is kept: telemetry lists them so */
		memmove(&pm->devs[i], &pm->devs[i + 1], (pm->n_devs - i - 1) * sizeof(pm->devs[0]));
		pm->n_devs--;
		break;
	}
	pthread_mutex_unlock(&pm->lock);
}

static struct vur_port_dev *
find_dev(struct vur_port_mgr *pm, const char *path)
{
	for (unsigned int i = 0; i < pm->n_devs; i++)
		if (strcmp(vur_dev_path(pm->devs[i].dev), path) == 0)
			return &pm->devs[i];
	return NULL;
}

int
vur_port_mgr_set_dev_link(struct vur_port_mgr *pm, const char *path, bool up)
{
	struct vur_port_dev *d;

	pthread_mutex_lock(&pm->lock);
	d = find_dev(pm, path);
	if (d != NULL && d->admin_up != up) {
		d->admin_up = up;
		VUR_LOG(port, INFO, "%s: link administratively %s", path, up ? "up" : "down");
		apply_locked(pm);
	}
	pthread_mutex_unlock(&pm->lock);
	return d != NULL ? 0 : -ENODEV;
}

int
vur_port_mgr_set_member_link(struct vur_port_mgr *pm, const char *member, bool up)
{
	struct vur_member *m;
	int ret;

	pthread_mutex_lock(&pm->lock);
	m = vur_uplinks_member(&pm->uplinks, member);
	pthread_mutex_unlock(&pm->lock);
	if (m == NULL)
		return -ENODEV;
	/* Not under the lock: the PMD may raise an LSC event synchronously. */
	ret = up ? rte_eth_dev_set_link_up(m->port_id) : rte_eth_dev_set_link_down(m->port_id);
	if (ret != 0)
		return ret;
	VUR_LOG(port, INFO, "member %s: link set %s", member, up ? "up" : "down");
	read_and_apply(pm);
	return 0;
}

int
vur_port_mgr_set_member_speed(struct vur_port_mgr *pm, const char *member, uint32_t mbps)
{
	struct vur_member *m;

	pthread_mutex_lock(&pm->lock);
	m = vur_uplinks_member(&pm->uplinks, member);
	if (m != NULL) {
		m->nominal_mbps = mbps;
		VUR_LOG(port, INFO, "member %s: nominal speed %u Mb/s%s", member, mbps,
				mbps ? "" : " (cleared: the link's own)");
		vur_uplinks_read(&pm->uplinks, pm->state);
		apply_locked(pm);
	}
	pthread_mutex_unlock(&pm->lock);
	return m != NULL ? 0 : -ENODEV;
}

int
vur_port_mgr_dev_state(struct vur_port_mgr *pm, const char *path, bool *admin_up,
		struct vur_speed_result *speed)
{
	struct vur_port_dev *d;

	pthread_mutex_lock(&pm->lock);
	d = find_dev(pm, path);
	if (d != NULL) {
		*admin_up = d->admin_up;
		*speed = d->speed;
	}
	pthread_mutex_unlock(&pm->lock);
	return d != NULL ? 0 : -ENODEV;
}

void
vur_port_mgr_uplinks(struct vur_port_mgr *pm, struct vur_uplinks *out)
{
	pthread_mutex_lock(&pm->lock);
	*out = pm->uplinks;
	pthread_mutex_unlock(&pm->lock);
}
