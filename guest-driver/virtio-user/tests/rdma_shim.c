/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's part of the RDMA virtqueues for the engine tests: one page
 * of driver memory per buffer (simple, and plenty at these queue sizes),
 * the page itself as the ring cookie, freed when the device gives it back.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <linux/virtio_ring.h>

#include "device.h"
#include "rdma_shim.h"
#include "virtqueue.h"
#include "vring.h"
#include "vur_verbs.h"

#define BUF_SIZE 4096

/* Taken back, per virtqueue (the tests use a few hundred at most). */
static uint32_t used_count[1024];

uint32_t
shim_cq_vq(uint32_t cqn)
{
	return virtio_net_roce_cq_vq(1, cqn);
}

uint32_t
shim_sq_vq(struct vur_user_dev *d, uint32_t qpn)
{
	return virtio_net_roce_sq_vq(1, d->max_cqs, qpn);
}

uint32_t
shim_rq_vq(struct vur_user_dev *d, uint32_t qpn)
{
	return virtio_net_roce_rq_vq(1, d->max_cqs, qpn);
}

static int
add(struct vur_user_dev *d, uint32_t vq, const void *p, uint32_t len, int writable, uint32_t room)
{
	struct vuser_vq *q;
	struct vuser_sg sg;
	uint8_t *buf;
	int ret;

	if (vq >= d->n_vqs || len > BUF_SIZE || room > BUF_SIZE)
		return -EINVAL;
	q = &d->vqs[vq];
	buf = vur_user_alloc_buf(d, BUF_SIZE);
	if (buf == NULL)
		return -ENOMEM;
	if (p != NULL)
		memcpy(buf, p, len);
	sg.addr = vur_user_driver_addr(d, buf);
	sg.len = writable ? room : len;
	ret = vuser_vring_add(&q->ring, &sg, writable ? 0 : 1, writable ? 1 : 0, buf);
	if (ret < 0) {
		vur_user_free_buf(d, buf);
		return ret;
	}
	if (vuser_vring_publish(&q->ring))
		vuser_vq_kick(q);
	return 0;
}

int
shim_cq_buffers(struct vur_user_dev *d, uint32_t cqn, uint32_t n, uint32_t len)
{
	int ret = 0;

	for (uint32_t i = 0; i < n && ret == 0; i++)
		ret = add(d, shim_cq_vq(cqn), NULL, 0, 1, len);
	return ret;
}

int
shim_post_raw(struct vur_user_dev *d, uint32_t vq, const void *p, uint32_t len, int writable)
{
	return add(d, vq, p, len, writable, len);
}

/* Buffers the device has used on @vq go back to the allocator. */
static void
reclaim(struct vur_user_dev *d, uint32_t vq)
{
	void *cookie;
	uint32_t len;

	while (vq < d->n_vqs && vuser_vring_get_used(&d->vqs[vq].ring, &cookie, &len) == 1) {
		vur_user_free_buf(d, cookie);
		used_count[vq % 1024]++;
	}
}

uint32_t
shim_used(struct vur_user_dev *d, uint32_t vq)
{
	reclaim(d, vq);
	return used_count[vq % 1024];
}

int
shim_post_send(struct vur_user_dev *d, uint32_t qpn, const struct virtio_rdma_sq_req *req,
		const struct virtio_rdma_sge *sg, uint32_t num_sge)
{
	uint8_t buf[BUF_SIZE];
	uint32_t len = sizeof(*req) + num_sge * sizeof(*sg);

	if (len > sizeof(buf))
		return -EINVAL;
	reclaim(d, shim_sq_vq(d, qpn));
	memcpy(buf, req, sizeof(*req));
	if (num_sge > 0)
		memcpy(buf + sizeof(*req), sg, num_sge * sizeof(*sg));
	return add(d, shim_sq_vq(d, qpn), buf, len, 0, 0);
}

int
shim_post_recv(struct vur_user_dev *d, uint32_t qpn, uint64_t wr_id,
		const struct virtio_rdma_sge *sg, uint32_t num_sge)
{
	uint8_t buf[BUF_SIZE];
	struct virtio_rdma_rq_req req = { .wr_id = htole64(wr_id), .num_sge = htole32(num_sge) };
	uint32_t len = sizeof(req) + num_sge * sizeof(*sg);

	if (len > sizeof(buf))
		return -EINVAL;
	reclaim(d, shim_rq_vq(d, qpn));
	memcpy(buf, &req, sizeof(req));
	if (num_sge > 0)
		memcpy(buf + sizeof(req), sg, num_sge * sizeof(*sg));
	return add(d, shim_rq_vq(d, qpn), buf, len, 0, 0);
}

int
shim_poll_cq(struct vur_user_dev *d, uint32_t cqn, struct virtio_rdma_cq_req *wc, int max)
{
	struct vuser_vq *q = &d->vqs[shim_cq_vq(cqn)];
	struct vuser_sg sg;
	void *cookie;
	uint32_t len;
	int n = 0, ret;

	while (n < max) {
		ret = vuser_vring_get_used(&q->ring, &cookie, &len);
		if (ret < 0)
			return ret;
		if (ret == 0)
			break;
		if (len != sizeof(*wc))
			return -EPROTO;
		memcpy(&wc[n], cookie, sizeof(*wc));
		/* the same buffer, available again */
		sg.addr = vur_user_driver_addr(d, cookie);
		sg.len = sizeof(*wc);
		if (vuser_vring_add(&q->ring, &sg, 0, 1, cookie) < 0)
			return -EIO;
		vuser_vring_publish(&q->ring);
		reclaim(d, shim_sq_vq(d, le32toh(wc[n].qp_num)));
		reclaim(d, shim_rq_vq(d, le32toh(wc[n].qp_num)));
		n++;
	}
	return n;
}

void
shim_ring_reinit(struct vur_user_dev *d, uint32_t vq)
{
	struct vuser_vq *q = &d->vqs[vq];
	uint16_t pos = 0, num = q->ring.num;
	void *cookie;

	reclaim(d, vq);
	while ((cookie = vuser_vring_next_in_flight(&q->ring, &pos)) != NULL)
		vur_user_free_buf(d, cookie);
	vuser_vring_fini(&q->ring);
	memset(q->mem.hva, 0, vuser_vring_mem_size(num));
	vuser_vring_init(&q->ring, num, q->mem.hva, q->mem.gpa,
			vuser_dev_has(d, VIRTIO_RING_F_EVENT_IDX));
}
