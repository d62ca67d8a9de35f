/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rdma_pair.h"

int
rdma_ep_open(struct rdma_ep *e, const char *path, uint8_t last_octet, size_t buf_len,
		size_t mem_size)
{
	struct vur_user_params p;

	vur_user_params_init(&p, path);
	p.mem_size = mem_size;
	return rdma_ep_open_params(e, &p, last_octet, buf_len);
}

int
rdma_ep_open_params(struct rdma_ep *e, const struct vur_user_params *params, uint8_t last_octet,
		size_t buf_len)
{
	struct vur_user_params p = *params;
	struct vur_user_config cfg;
	int ret;

	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s", params->path);
	p.path = e->path;
	ret = vur_user_open(&p, &e->d);
	if (ret < 0)
		return ret;
	ret = vur_user_read_config(e->d, &cfg);
	if (ret < 0)
		return ret;
	memcpy(e->mac, cfg.mac, 6);
	e->gid[10] = e->gid[11] = 0xff;
	e->gid[12] = 10;
	e->gid[15] = last_octet;
	e->buf = vur_user_alloc_buf(e->d, buf_len);
	if (e->buf == NULL)
		return -ENOMEM;
	e->addr = vur_user_driver_addr(e->d, e->buf);
	return rdma_ep_objects(e);
}

int
rdma_ep_objects(struct rdma_ep *e)
{
	int ret = vur_user_add_gid(e->d, 0, e->gid);

	if (ret == 0)
		ret = vur_user_create_pd(e->d, &e->pdn);
	if (ret == 0)
		ret = vur_user_get_dma_mr(e->d, e->pdn,
				VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
						VUR_USER_ACCESS_REMOTE_READ,
				&e->mr);
	if (ret == 0)
		ret = vur_user_create_cq(e->d, RDMA_EP_CQ_DEPTH, &e->cqn);
	return ret;
}

int
rdma_create_qp(struct rdma_ep *e, uint8_t type, uint32_t *qpn)
{
	struct vur_user_qp_init_attr ia = {
		.pdn = e->pdn,
		.qp_type = type,
		.send_cqn = e->cqn,
		.recv_cqn = e->cqn,
		.cap = { .max_send_wr = 32,
				.max_recv_wr = 32,
				.max_send_sge = 16,
				.max_recv_sge = 16,
				.max_inline_data = 512 },
	};

	return vur_user_create_qp(e->d, &ia, qpn);
}

int
rdma_connect_qp(struct rdma_ep *e, uint32_t qpn, uint8_t type, const struct rdma_ep *peer,
		uint32_t peer_qpn, uint8_t rnr_retry, uint8_t timeout, uint8_t retry_cnt)
{
	struct vur_user_qp_attr at = {
		.qp_access_flags = VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
				VUR_USER_ACCESS_REMOTE_READ,
		.qkey = 0x11111111,
		.path_mtu = VUR_USER_MTU_1024,
		.dest_qp_num = peer_qpn,
		.rq_psn = 0x100 + peer_qpn,
		.sq_psn = 0x100 + qpn,
		.max_dest_rd_atomic = 16,
		.max_rd_atomic = 16,
		.min_rnr_timer = 1, /* 10 us */
		.timeout = timeout,
		.retry_cnt = retry_cnt,
		.rnr_retry = rnr_retry,
	};
	bool ud = type == VUR_USER_QPT_UD;
	int ret;

	memcpy(at.ah_attr.grh.dgid, peer->gid, 16);
	at.ah_attr.grh.hop_limit = 64;
	memcpy(at.ah_attr.dmac, peer->mac, 6);
	at.qp_state = VUR_USER_QPS_INIT;
	ret = vur_user_modify_qp(e->d, qpn, &at,
			VUR_USER_QP_STATE | (ud ? VUR_USER_QP_QKEY : VUR_USER_QP_ACCESS_FLAGS));
	if (ret < 0)
		return ret;
	at.qp_state = VUR_USER_QPS_RTR;
	ret = vur_user_modify_qp(e->d, qpn, &at,
			VUR_USER_QP_STATE |
					(ud ? 0
					    : VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU | VUR_USER_QP_DEST_QPN |
											VUR_USER_QP_RQ_PSN |
											(type == VUR_USER_QPT_RC ? VUR_USER_QP_MAX_DEST_RD_ATOMIC |
																	VUR_USER_QP_MIN_RNR_TIMER
														 : 0)));
	if (ret < 0)
		return ret;
	at.qp_state = VUR_USER_QPS_RTS;
	return vur_user_modify_qp(e->d, qpn, &at,
			VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN |
					(type == VUR_USER_QPT_RC ? VUR_USER_QP_TIMEOUT |
											VUR_USER_QP_RETRY_CNT |
											VUR_USER_QP_RNR_RETRY |
											VUR_USER_QP_MAX_QP_RD_ATOMIC
								 : 0));
}

struct vur_user_sge
rdma_sge(const struct rdma_ep *e, uint64_t off, uint32_t len)
{
	return (struct vur_user_sge){ .addr = e->addr + off, .length = len, .lkey = e->mr.lkey };
}

struct vur_user_send_wr
rdma_req(uint64_t wr_id, uint8_t opcode, uint8_t flags, const struct vur_user_sge *sg, uint32_t n)
{
	return (struct vur_user_send_wr){
		.wr_id = wr_id, .opcode = opcode, .send_flags = flags, .sg_list = sg, .num_sge = n
	};
}

int
rdma_post_send(struct rdma_ep *e, uint32_t qpn, const struct vur_user_send_wr *wr)
{
	return vur_user_post_send(e->d, qpn, wr, 1, NULL);
}

int
rdma_post_recv(struct rdma_ep *e, uint32_t qpn, uint64_t wr_id, const struct vur_user_sge *sg,
		uint32_t n)
{
	struct vur_user_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = n };

	return vur_user_post_recv(e->d, qpn, &wr, 1, NULL);
}

int
rdma_post_inv(struct rdma_ep *e, uint32_t qpn, uint8_t opcode, uint32_t key, uint64_t wr_id,
		const struct vur_user_sge *s)
{
	struct vur_user_send_wr q = {
		.wr_id = wr_id,
		.opcode = opcode,
		.send_flags = VUR_USER_SEND_SIGNALED,
		.sg_list = s,
		.num_sge = s != NULL ? 1 : 0,
	};

	q.inv.invalidate_rkey = key;
	return vur_user_post_send(e->d, qpn, &q, 1, NULL);
}

int
rdma_post_rdma(struct rdma_ep *e, uint32_t qpn, uint8_t opcode, uint64_t off, uint32_t len,
		uint64_t va, uint32_t rkey, uint64_t wr_id)
{
	struct vur_user_sge s = rdma_sge(e, off, len);
	struct vur_user_send_wr q = rdma_req(wr_id, opcode, VUR_USER_SEND_SIGNALED, &s, 1);

	q.rdma.remote_addr = va;
	q.rdma.rkey = rkey;
	return rdma_post_send(e, qpn, &q);
}

int
rdma_qp_state(struct rdma_ep *e, uint32_t qpn)
{
	struct vur_user_qp_attr at;

	return vur_user_query_qp(e->d, qpn, 0, &at) == 0 ? at.qp_state : -1;
}
