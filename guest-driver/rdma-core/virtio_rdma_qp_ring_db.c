// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doorbell of a QP on rings (virtio_rdma_qp_ring.c), once the rule
 * said to ring: the uverbs POST_SEND (POST_RECV) command with no WR, as
 * rdma-core's rxe provider rings (post_send_db). The kernel then sets the
 * QP's bit in the doorbell summary, which no process maps, and notifies
 * (virtio_rdma_uqp_rings.c). A file of its own so that the unit test can
 * count the commands in its place.
 */

#include <config.h>

#include "virtio_rdma.h"

void virtio_rdma_wq_ring_doorbell(struct virtio_rdma_vq *vq)
{
	struct ibv_send_wr *bad_swr;
	struct ibv_recv_wr *bad_rwr;

	if (vq->send)
		ibv_cmd_post_send(vq->db_qp, NULL, &bad_swr);
	else
		ibv_cmd_post_recv(vq->db_qp, NULL, &bad_rwr);
}
