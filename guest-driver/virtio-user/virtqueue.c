/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Setting a virtqueue up on the backend, and stopping it.
 *
 * The ring addresses of SET_VRING_ADDR are this process's addresses (hva):
 * vhost-user translates them through the userspace_addr of the memory
 * table, whereas the descriptors carry driver addresses (gpa). The order of
 * the requests is QEMU's (vhost_virtqueue_start): size, base, addresses,
 * kick, call. SET_VRING_ENABLE, which a ring needs once
 * VHOST_USER_F_PROTOCOL_FEATURES is negotiated (it starts disabled), is a
 * separate step that the device sends for every ring after all are set up.
 */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <linux/virtio_ring.h>

#include "device.h"
#include "log.h"
#include "virtqueue.h"

static int
alloc_ring(struct vur_user_dev *d, struct vuser_vq *vq, uint16_t size)
{
	int ret;

	ret = vuser_mem_alloc(&d->mem, vuser_vring_mem_size(size), VUSER_PAGE_SIZE, &vq->mem);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "vq %u: no driver memory for a ring of %u (%zu bytes free)",
				vq->index, size, d->mem.free_pages * (size_t)VUSER_PAGE_SIZE);
		return ret;
	}
	ret = vuser_vring_init(&vq->ring, size, vq->mem.hva, vq->mem.gpa,
			vuser_dev_has(d, VIRTIO_RING_F_EVENT_IDX));
	if (ret < 0)
		return ret;
	vq->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vq->call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vq->kick_fd < 0 || vq->call_fd < 0) {
		ret = -errno;
		VUSER_LOG(ERR, d->name, "vq %u: eventfd: %s", vq->index, strerror(errno));
		return ret;
	}
	return 0;
}

static int
announce_ring(struct vur_user_dev *d, struct vuser_vq *vq)
{
	struct vuser_conn *c = &d->conn;
	struct vhost_vring_addr addr = {
		.index = vq->index,
		.desc_user_addr = (uintptr_t)vq->ring.desc,
		.avail_user_addr = (uintptr_t)vq->ring.avail,
		.used_user_addr = (uintptr_t)vq->ring.used,
	};
	int ret;

	ret = vuser_req_vring_state(c, VHOST_USER_SET_VRING_NUM, vq->index, vq->ring.num);
	if (ret == 0)
		ret = vuser_req_vring_state(c, VHOST_USER_SET_VRING_BASE, vq->index, 0);
	if (ret == 0)
		ret = vuser_req_vring_addr(c, &addr);
	if (ret == 0)
		ret = vuser_req_vring_fd(c, VHOST_USER_SET_VRING_KICK, vq->index, vq->kick_fd);
	if (ret == 0)
		ret = vuser_req_vring_fd(c, VHOST_USER_SET_VRING_CALL, vq->index, vq->call_fd);
	if (ret < 0)
		VUSER_LOG(ERR, d->name, "vq %u: setup failed: %s", vq->index, strerror(-ret));
	return ret;
}

int
vuser_vq_setup(struct vur_user_dev *d, struct vuser_vq *vq, uint32_t index, uint16_t size)
{
	int ret;

	memset(vq, 0, sizeof(*vq));
	vq->index = index;
	vq->kick_fd = -1;
	vq->call_fd = -1;
	ret = alloc_ring(d, vq, size);
	if (ret == 0)
		ret = announce_ring(d, vq);
	return ret;
}

int
vuser_vq_enable(struct vur_user_dev *d, struct vuser_vq *vq)
{
	int ret;

	ret = vuser_req_vring_state(&d->conn, VHOST_USER_SET_VRING_ENABLE, vq->index, 1);
	if (ret < 0)
		VUSER_LOG(ERR, d->name, "vq %u: enable failed: %s", vq->index, strerror(-ret));
	return ret;
}

int
vuser_vq_stop(struct vur_user_dev *d, struct vuser_vq *vq)
{
	uint32_t base = 0;
	int ret;

	ret = vuser_req_get_vring_base(&d->conn, vq->index, &base);
	/* Requests the device never took: worth a line when debugging a device. */
	if (ret == 0 && base != vq->ring.avail_idx)
		VUSER_LOG(DEBUG, d->name,
				"vq %u stopped with the device at avail %u, the driver at %u",
				vq->index, base, vq->ring.avail_idx);
	return ret;
}

void
vuser_vq_free(struct vur_user_dev *d, struct vuser_vq *vq)
{
	if (vq->kick_fd >= 0)
		close(vq->kick_fd);
	if (vq->call_fd >= 0)
		close(vq->call_fd);
	vuser_vring_fini(&vq->ring);
	vuser_mem_free(&d->mem, &vq->mem);
	memset(vq, 0, sizeof(*vq));
	vq->kick_fd = -1;
	vq->call_fd = -1;
}

void
vuser_vq_reinit(struct vur_user_dev *d, struct vuser_vq *vq)
{
	uint16_t num = vq->ring.num;

	vuser_vring_fini(&vq->ring);
	memset(vq->mem.hva, 0, vuser_vring_mem_size(num));
	vuser_vring_init(&vq->ring, num, vq->mem.hva, vq->mem.gpa,
			vuser_dev_has(d, VIRTIO_RING_F_EVENT_IDX));
}

int
vuser_vq_kick(struct vuser_vq *vq)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is saturated, so the device has a kick pending. */
	if (write(vq->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}
