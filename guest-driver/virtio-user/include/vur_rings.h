/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings layout seen from outside the library: where a ring QP's, CQ's
 * or SRQ's rings and record are, the event counts, and two levers on the
 * doorbell and event queues. For diagnostics, benchmarks and tests of a
 * device's checks (a test may write a record as a hostile driver would);
 * applications need none of it: the verbs of vur_verbs.h use rings by
 * themselves.
 */
#ifndef VUR_RINGS_H
#define VUR_RINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "vur_user.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where an object's rings and record are. */
struct vur_user_ring_info {
	void *rec;             /**< the 128-byte record, this process's address */
	uint64_t rec_addr;     /**< its driver address (the MR's address space) */
	void *ring[2];         /**< QP: send, receive (NULL on an SRQ); CQ, SRQ: ring[0] */
	uint64_t ring_addr[2]; /**< their driver addresses */
	uint32_t size[2];      /**< entries */
	uint32_t stride[2];    /**< bytes per entry */
	uint32_t lkey;         /**< the MR the rings and record are in */
	uint16_t queue;        /**< QP: its doorbell queue; CQ, SRQ: its event queue */
	uint64_t events;       /**< CQ: CQ_COMP events taken; SRQ: SRQ_LIMIT events */
	uint64_t errors;       /**< CQ: CQ_ERR events taken */
};

/**
 * @param dev an open device
 * @return the doorbell/event queue pairs the library set up (0: no rings)
 */
uint16_t vur_user_ring_queues(const struct vur_user_dev *dev);

/**
 * @param dev  an open device
 * @param qpn  a QP on rings
 * @param info receives where its rings are
 * @return 0, or -EINVAL (no such QP, or a QP on virtqueues)
 */
int vur_user_qp_ring_info(struct vur_user_dev *dev, uint32_t qpn, struct vur_user_ring_info *info);

/** As vur_user_qp_ring_info(), for a CQ on rings. */
int vur_user_cq_ring_info(struct vur_user_dev *dev, uint32_t cqn, struct vur_user_ring_info *info);

/** As vur_user_qp_ring_info(), for an SRQ on rings. */
int vur_user_srq_ring_info(
		struct vur_user_dev *dev, uint32_t srqn, struct vur_user_ring_info *info);

/**
 * Hold the event queues' buffers: while held, buffers the device used are
 * not made available again, so the device runs out of them and keeps its
 * events; on release every held buffer goes back at once.
 *
 * @param dev  an open device with rings
 * @param hold true to hold, false to release
 * @return 0, or -EINVAL (no rings)
 */
int vur_user_eq_hold(struct vur_user_dev *dev, bool hold);

/**
 * Ring the doorbell of @p qpn on doorbell queue @p dbq as a post would:
 * its summary bit, then a notification if the device sleeps. Any number:
 * for tests of the device's handling of bits that name no ring QP of @p dbq.
 *
 * @param dev an open device with rings
 * @param dbq a doorbell queue, below vur_user_ring_queues()
 * @param qpn the bit to set, below max_qp + max_ring_qp
 * @return 0, or -EINVAL
 */
int vur_user_ring_doorbell(struct vur_user_dev *dev, uint16_t dbq, uint32_t qpn);

/**
 * @param dev an open device with rings
 * @param lkey receives the key of the library's MR over all driver memory
 *        (LOCAL_WRITE; its own PD), which holds the doorbell area and the
 *        rings of CQs; 0 before the first object on rings
 * @return 0, or -EINVAL
 */
int vur_user_rings_lkey(struct vur_user_dev *dev, uint32_t *lkey);

#ifdef __cplusplus
}
#endif

#endif /* VUR_RINGS_H */
