/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doorbell of a send queue on rings (ROCE-DRV-RING-3): after sq_prod
 * moved from @old to @new, ring only if the device asked, i.e. sq_prod
 * passed sq_event (virtio's vring_need_event in 32 bits); then set the QP's
 * bit in its doorbell summary and, if the device thread watching it sleeps,
 * notify rdma_doorbellq(dbq+1), a notification without a buffer.
 *
 * The full barriers pair with the device's: it writes sq_event, fence,
 * re-reads sq_prod; the driver writes sq_prod, fence, reads sq_event. One
 * of the two sees the other's store, so a post is never left unseen. The
 * same for the summary: the device sets sleeping, fence, takes the bits;
 * the driver sets its bit, fence, reads sleeping.
 */
#include <endian.h>

#include "device.h"
#include "rings.h"
#include "virtqueue.h"

static struct virtio_rdma_doorbell *
summary(struct vur_user_dev *d, uint16_t dbq)
{
	return (void *)((uint8_t *)d->rings.db.hva + (size_t)dbq * d->rings.db_stride);
}

void
vuser_doorbell_ring(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn)
{
	struct virtio_rdma_doorbell *s = summary(d, dbq);

	__atomic_fetch_or(&s->bits[qpn / 64], htole64(1ull << (qpn % 64)), __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->sleeping, __ATOMIC_RELAXED) != 0)
		vuser_vq_kick(&d->vqs[d->rings.first_vq + 2 * dbq]);
}

void
vuser_doorbell_post(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn, uint32_t old,
		uint32_t new_prod, const struct virtio_rdma_qp_rec *rec)
{
	uint32_t ev;

	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* sq_prod stored before sq_event is read */
	ev = le32toh(__atomic_load_n(&rec->sq_event, __ATOMIC_RELAXED));
	if ((uint32_t)(new_prod - ev - 1) < (uint32_t)(new_prod - old))
		vuser_doorbell_ring(d, dbq, qpn);
}

/*
 * ROCE-DRV-RING-7: a QP in ERR flushes receives only when told (the device
 * does not watch rq_prod); it sets rq_notify, fence, reads rq_prod; we
 * wrote rq_prod, fence, read rq_notify: one of us sees the other.
 */
void
vuser_doorbell_post_recv(struct vur_user_dev *d, uint16_t dbq, uint32_t qpn,
		const struct virtio_rdma_qp_rec *rec)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* rq_prod stored before rq_notify is read */
	if (__atomic_load_n(&rec->rq_notify, __ATOMIC_RELAXED) != 0)
		vuser_doorbell_ring(d, dbq, qpn);
}
