/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions on rings (ROCE-DRV-RING-4): CQEs read between the driver's
 * consumer index and the device's producer index (acquire), the consumer
 * index stored back (release) so that the device has room again. Arming
 * is a store to the record's notify and a full barrier; the caller polls
 * once more afterwards (ROCE-DRV-NOTIFY-2), which catches a CQE the
 * device published before it saw the arm. Completion events come from the
 * event queue thread (eventq.c) through the CQ's eventfd.
 */
#include <endian.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "device.h"
#include "log.h"
#include "rdma_q.h"
#include "rings.h"

/*
 * ROCE-DRV-RING-9: after a resize, CQEs before switch_prod are read from the
 * old ring, which goes once the last of them is read.
 */
static const void *
rcq_entry(struct vur_user_dev *d, struct vuser_rcq *r, uint32_t i)
{
	if (r->old.mem.hva == NULL)
		return vuser_ring_entry(&r->ring, i);
	if ((int32_t)(i - r->switch_prod) < 0)
		return vuser_ring_entry(&r->old, i);
	pthread_mutex_lock(&d->rings.lock);
	vuser_ring_free(d, &r->old); /* zeroes it */
	pthread_mutex_unlock(&d->rings.lock);
	return vuser_ring_entry(&r->ring, i);
}

int
vuser_rcq_poll(struct vur_user_dev *d, struct vuser_rcq *r, struct vur_user_wc *wc, int n)
{
	uint32_t prod = le32toh(__atomic_load_n(&r->rec->prod, __ATOMIC_ACQUIRE));
	int k = 0;

	/* a device that says more CQEs than the ring holds broke it (old ones count too) */
	if ((uint32_t)(prod - r->cons) > r->ring.mask + 1)
		return -EPROTO;
	while (k < n && r->cons != prod)
		vuser_wc_from_wire(rcq_entry(d, r, r->cons++), &wc[k++]);
	if (k > 0)
		__atomic_store_n(&r->rec->cons, htole32(r->cons), __ATOMIC_RELEASE);
	return k;
}

int
vuser_rcq_arm(struct vur_user_dev *d, struct vuser_rcq *r, uint32_t flags)
{
	bool error;

	if (flags != VIRTIO_IB_NOTIFY_SOLICITED && flags != VIRTIO_IB_NOTIFY_NEXT_COMPLETION)
		return -EINVAL;
	pthread_mutex_lock(&d->rings.ev_lock);
	error = r->error;
	pthread_mutex_unlock(&d->rings.ev_lock);
	if (error)
		return -EREMOTEIO; /* as the device answers REQ_NOTIFY_CQ of a CQ in error */
	__atomic_store_n(&r->rec->notify, htole32(flags), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* before the caller reads prod again */
	return 0;
}

int
vuser_rcq_event_fd(struct vur_user_dev *d, struct vuser_rcq *r)
{
	uint64_t one = 1;
	int fd;

	pthread_mutex_lock(&d->rings.ev_lock);
	if (r->ev_fd < 0) {
		r->ev_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->ev_fd >= 0 && r->ev_pending &&
				write(r->ev_fd, &one, sizeof(one)) == sizeof(one))
			r->ev_pending = false;
	}
	fd = r->ev_fd >= 0 ? r->ev_fd : -errno;
	pthread_mutex_unlock(&d->rings.ev_lock);
	return fd;
}
