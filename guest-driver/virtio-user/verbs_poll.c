/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions: CQEs taken from the completion virtqueue, their buffers made
 * available again at once; completion events from the virtqueue's used
 * buffer notifications, which the device sends only for an armed CQ
 * (ROCE-DEV-NOTIFY-1, -2).
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "device.h"
#include "rdma_q.h"
#include "rings.h"
#include "verbs.h"

VUSER_SAME_VALUE(VUR_USER_WC_SEND, VIRTIO_IB_WC_SEND);
VUSER_SAME_VALUE(VUR_USER_WC_RDMA_WRITE, VIRTIO_IB_WC_RDMA_WRITE);
VUSER_SAME_VALUE(VUR_USER_WC_RDMA_READ, VIRTIO_IB_WC_RDMA_READ);
VUSER_SAME_VALUE(VUR_USER_WC_RECV, VIRTIO_IB_WC_RECV);
VUSER_SAME_VALUE(VUR_USER_WC_RECV_RDMA_WITH_IMM, VIRTIO_IB_WC_RECV_RDMA_WITH_IMM);
VUSER_SAME_VALUE(VUR_USER_WC_COMP_SWAP, VIRTIO_IB_WC_COMP_SWAP);
VUSER_SAME_VALUE(VUR_USER_WC_FETCH_ADD, VIRTIO_IB_WC_FETCH_ADD);
VUSER_SAME_VALUE(VUR_USER_WC_SUCCESS, VIRTIO_IB_WC_SUCCESS);
VUSER_SAME_VALUE(VUR_USER_WC_WR_FLUSH_ERR, VIRTIO_IB_WC_WR_FLUSH_ERR);
VUSER_SAME_VALUE(VUR_USER_WC_GENERAL_ERR, VIRTIO_IB_WC_GENERAL_ERR);
VUSER_SAME_VALUE(VUR_USER_WC_GRH, VIRTIO_IB_WC_GRH);
VUSER_SAME_VALUE(VUR_USER_WC_WITH_IMM, VIRTIO_IB_WC_WITH_IMM);
VUSER_SAME_VALUE(VUR_USER_WC_WITH_INV, VIRTIO_IB_WC_WITH_INVALIDATE);
VUSER_SAME_VALUE(VUR_USER_WC_LOCAL_INV, VIRTIO_IB_WC_LOCAL_INV);
VUSER_SAME_VALUE(VUR_USER_WC_REG_MR, VIRTIO_IB_WC_REG_MR);
VUSER_SAME_VALUE(VUR_USER_WC_BIND_MW, VIRTIO_IB_WC_BIND_MW);
VUSER_SAME_VALUE(VUR_USER_WC_MW_BIND_ERR, VIRTIO_IB_WC_MW_BIND_ERR);

void
vuser_wc_from_wire(const struct virtio_rdma_cq_req *w, struct vur_user_wc *wc)
{
	wc->wr_id = le64toh(w->wr_id);
	wc->status = w->status;
	wc->opcode = w->opcode;
	wc->vendor_err = le32toh(w->vendor_err);
	wc->qp_num = le32toh(w->qp_num);
	/* the other fields of an error CQE mean nothing (ROCE-DRV-CQE-2) */
	if (w->status != VIRTIO_IB_WC_SUCCESS) {
		wc->byte_len = wc->imm_data = wc->src_qp = wc->wc_flags = 0;
		wc->invalidate_rkey = 0;
		return;
	}
	wc->byte_len = le32toh(w->byte_len);
	wc->src_qp = le32toh(w->src_qp);
	wc->wc_flags = le32toh(w->wc_flags);
	/* one field of the CQE, as in struct ibv_wc */
	wc->imm_data = (wc->wc_flags & VIRTIO_IB_WC_WITH_INVALIDATE) ? 0 : w->imm_data;
	wc->invalidate_rkey = (wc->wc_flags & VIRTIO_IB_WC_WITH_INVALIDATE)
			? le32toh(w->invalidate_rkey)
			: 0;
}

int
vur_user_poll_cq(struct vur_user_dev *d, uint32_t cqn, struct vur_user_wc *wc, int n)
{
	struct vuser_cq *cq = d != NULL ? vuser_cq_get(d, cqn) : NULL;
	struct vuser_vring *ring;
	void *cookie;
	uint32_t len;
	int k = 0, ret = 0;

	if (cq == NULL || wc == NULL || n < 0)
		return -EINVAL;
	if (cq->r != NULL) {
		pthread_mutex_lock(&cq->lock);
		k = vuser_rcq_poll(d, cq->r, wc, n);
		pthread_mutex_unlock(&cq->lock);
		return k;
	}
	ring = &cq->vq->ring;
	pthread_mutex_lock(&cq->lock);
	while (k < n) {
		ret = vuser_vring_get_used(ring, &cookie, &len);
		if (ret <= 0)
			break;
		if (len == sizeof(struct virtio_rdma_cq_req))
			vuser_wc_from_wire(cookie, &wc[k++]);
		else
			ret = -EPROTO;
		vuser_cq_give_back(cq, cookie); /* a CQ keeps its cqe buffers */
		if (ret < 0)
			break;
	}
	vuser_vring_publish(ring);
	pthread_mutex_unlock(&cq->lock);
	if (ret < 0 && k == 0)
		return ret == -EIO ? -EPROTO : ret;
	return k;
}

int
vur_user_cq_event_fd(const struct vur_user_dev *d, uint32_t cqn)
{
	const struct vuser_cq *cq = d != NULL ? vuser_cq_get(d, cqn) : NULL;

	if (cq != NULL && cq->r != NULL)
		return vuser_rcq_event_fd((struct vur_user_dev *)(uintptr_t)d, cq->r);
	return cq != NULL ? cq->vq->call_fd : -EINVAL;
}

int
vur_user_get_cq_event(struct vur_user_dev *d, uint32_t cqn, int timeout_ms)
{
	struct pollfd p = { .fd = vur_user_cq_event_fd(d, cqn), .events = POLLIN };
	uint64_t count;
	int ret;

	if (p.fd < 0)
		return p.fd;
	do
		ret = poll(&p, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	if (ret <= 0)
		return ret < 0 ? -errno : 0;
	/* Several notifications folded into the counter are one event: the CQ was armed once. */
	if (read(p.fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return -errno;
	return 1;
}

const char *
vur_user_wc_status_str(uint8_t status)
{
	static const char *const names[] = {
		[VUR_USER_WC_SUCCESS] = "success",
		[VUR_USER_WC_LOC_LEN_ERR] = "local length error",
		[VUR_USER_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[VUR_USER_WC_LOC_PROT_ERR] = "local protection error",
		[VUR_USER_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[VUR_USER_WC_BAD_RESP_ERR] = "bad response error",
		[VUR_USER_WC_LOC_ACCESS_ERR] = "local access error",
		[VUR_USER_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[VUR_USER_WC_REM_ACCESS_ERR] = "remote access error",
		[VUR_USER_WC_REM_OP_ERR] = "remote operation error",
		[VUR_USER_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[VUR_USER_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[VUR_USER_WC_REM_ABORT_ERR] = "remote aborted error",
		[VUR_USER_WC_FATAL_ERR] = "fatal error",
		[VUR_USER_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[VUR_USER_WC_GENERAL_ERR] = "general error",
		[VUR_USER_WC_MW_BIND_ERR] = "memory bind operation error",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown";
}
