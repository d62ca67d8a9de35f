/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resizing a CQ on a completion virtqueue, by the driver alone (the
 * spec's "Resizing a Completion Queue"): the device writes a CQE into the
 * next available buffer and overruns only when there is none, so the CQ's
 * depth is the number of buffers out. A grow makes more available (kept-back
 * ones first, then a new area); a shrink keeps back the buffers polled while
 * more than the new size are out, since an available buffer cannot be taken
 * back. Beyond the virtqueue's size the CQ would need another virtqueue,
 * which its QPs cannot follow: refused. Under the CQ's lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "device.h"
#include "rdma_q.h"
#include "verbs.h"

#define CQE_LEN sizeof(struct virtio_rdma_cq_req)

static bool
in_area(const struct vuser_buf *b, const void *p)
{
	return (const uint8_t *)p >= (const uint8_t *)b->hva &&
			(const uint8_t *)p < (const uint8_t *)b->hva + b->len;
}

static void
offer(struct vuser_cq *cq, void *cookie)
{
	const struct vuser_buf *b = &cq->cqes;
	struct vuser_sg sg;

	for (uint32_t i = 0; !in_area(b, cookie) && i < cq->n_ext; i++)
		b = &cq->ext[i];
	sg.addr = b->gpa + (uint64_t)((uint8_t *)cookie - (uint8_t *)b->hva);
	sg.len = CQE_LEN;
	vuser_vring_add(&cq->vq->ring, &sg, 0, 1, cookie);
}

void
vuser_cq_give_back(struct vuser_cq *cq, void *cookie)
{
	if (cq->out > cq->n && cq->spare != NULL) {
		cq->spare[cq->n_spare++] = cookie;
		cq->out--;
		return;
	}
	offer(cq, cookie);
}

int
vuser_cq_resize_vq(struct vur_user_dev *d, struct vuser_cq *cq, uint32_t cqe)
{
	uint32_t num = cq->vq->ring.num, more;
	struct vuser_buf *ext;
	int ret;

	if (cqe == 0 || cqe > num)
		return -EINVAL;
	/* every buffer of the CQ fits the spares: out + spares never exceed num */
	if (cq->spare == NULL && (cq->spare = calloc(num, sizeof(*cq->spare))) == NULL)
		return -ENOMEM;
	while (cq->out < cqe && cq->n_spare > 0) {
		offer(cq, cq->spare[--cq->n_spare]);
		cq->out++;
	}
	if (cq->out < cqe) {
		more = cqe - cq->out;
		ext = realloc(cq->ext, (cq->n_ext + 1) * sizeof(*ext));
		if (ext == NULL)
			return -ENOMEM;
		cq->ext = ext;
		ret = vuser_mem_alloc(&d->mem, (size_t)more * CQE_LEN, VUSER_PAGE_SIZE,
				&cq->ext[cq->n_ext]);
		if (ret < 0)
			return ret;
		cq->n_ext++;
		for (uint32_t i = 0; i < more; i++)
			offer(cq, (uint8_t *)ext[cq->n_ext - 1].hva + i * CQE_LEN);
		cq->out = cqe;
	}
	vuser_vring_publish(&cq->vq->ring);
	return 0;
}

void
vuser_cq_resize_free(struct vur_user_dev *d, struct vuser_cq *cq)
{
	for (uint32_t i = 0; i < cq->n_ext; i++)
		vuser_mem_free(&d->mem, &cq->ext[i]);
	free(cq->ext);
	free(cq->spare);
}
