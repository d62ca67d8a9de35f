/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API against the real backend, part one: the command format,
 * device and port attributes, PDs, MRs and CQs, and frontends that die or
 * share a socket; verbs_qp_test.c has QPs, AHs and the GID table. Each
 * command's happy path and every error condition the spec lists for it,
 * written from virtio-spec/virtio-net-roce.md (IDs from conformance.md).
 *
 * Usage: virtio_user_verbs_test PATH/TO/vhost-user-rdma
 *
 * One backend serves every case; each case opens its own device, so that
 * it starts from an empty device (ROCE-DEV-INIT-1). A refusal must change
 * nothing (ROCE-DEV-CTRL-7): REFUSED() compares the backend's object
 * counts (telemetry /vur/device) before and after each refused command.
 */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "verbs_test.h"

/* ---- Command format and error reporting ---- */

/* ROCE-DEV-CTRL-2: commands and classes the device does not know. */
static void
unknown_command_or_class(void)
{
	uint8_t status = 0xff, ack[64];

	if (!begin())
		return;
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_NR_CMDS, NULL, 0, ack, sizeof(ack), NULL), VIRTIO_NET_ERR);
	TAP_EQ(raw(255, NULL, 0, ack, sizeof(ack), NULL), VIRTIO_NET_ERR);
	/* A RoCE command in a class that is not RoCE's. */
	TAP_EQ(vur_user_ctrl(dev, VIRTIO_NET_CTRL_ROCE + 1, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0,
			       ack, 4, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_ERR);
	/* Class 6 is VIRTIO_NET_CTRL_NOTF_COAL in this numbering, not RoCE (RFC v2). */
	TAP_EQ(vur_user_ctrl(dev, VIRTIO_NET_CTRL_ROCE_RFC2, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL,
			       0, ack, 4, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_ERR);
	TAP_EQ(vur_user_ctrl(dev, 200, 0, NULL, 0, NULL, 0, &status), 0);
	TAP_EQ(status, VIRTIO_NET_ERR);
	end();
}

/* ROCE-DEV-CTRL-4: command data of the wrong length is not executed. */
static void
command_data_length(void)
{
	uint8_t data[64] = { 0 }, ack[8];
	struct counts c;
	uint32_t pdn;

	if (!begin())
		return;
	pdn = new_pd();
	memcpy(data, &(uint32_t){ htole32(pdn) }, 4);
	/* DESTROY_PD with 3 and with 5 bytes: the PD stays. */
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_DESTROY_PD, data, 3, NULL, 0, NULL), VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_DESTROY_PD, data, 5, NULL, 0, NULL), VIRTIO_NET_ERR);
	TAP_EQ(read_counts(&c), 0);
	TAP_EQ(c.pds, 1);
	/* CREATE_PD has no command data: one byte of it is one too many. */
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_PD, data, 1, ack, 4, NULL), VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, data, 4, ack, 0, NULL), VIRTIO_NET_ERR);
	TAP_EQ(read_counts(&c), 0);
	TAP_EQ(c.pds, 1);
	/* CREATE_CQ with its 4 bytes plus one. */
	memcpy(data, &(uint32_t){ htole32(1) }, 4);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_CQ, data, 5, ack, 4, NULL), VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_CQ, data, 0, ack, 4, NULL), VIRTIO_NET_ERR);
	TAP_EQ(read_counts(&c), 0);
	TAP_EQ(c.cqs, 0);
	/* The right length works. */
	memcpy(data, &(uint32_t){ htole32(pdn) }, 4);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_DESTROY_PD, data, 4, NULL, 0, NULL), VIRTIO_NET_OK);
	end();
}

/* ROCE-DEV-CTRL-4 for REG_USER_MR: 2 + 32 + 8 x npages, exactly. */
static void
reg_mr_length_follows_npages(void)
{
	struct virtio_rdma_cmd_reg_user_mr *c;
	uint8_t cmd[sizeof(*c) + 3 * 8], ack[12];
	uint64_t page;
	uint32_t pdn;
	void *buf;

	if (!begin())
		return;
	pdn = new_pd();
	buf = vur_user_alloc_buf(dev, 2 * 4096);
	page = vur_user_driver_addr(dev, buf);
	memset(cmd, 0, sizeof(cmd));
	c = (void *)cmd;
	c->pdn = htole32(pdn);
	c->virt_addr = htole64(0x10000);
	c->length = htole64(4096);
	c->npages = htole32(1);
	c->pages[0] = htole64(page);
	c->pages[1] = htole64(page + 4096);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_REG_USER_MR, cmd, sizeof(*c) + 16, ack, sizeof(ack), NULL),
			VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_REG_USER_MR, cmd, sizeof(*c), ack, sizeof(ack), NULL),
			VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_REG_USER_MR, cmd, sizeof(*c) - 8, ack, sizeof(ack), NULL),
			VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_REG_USER_MR, cmd, sizeof(*c) + 8, ack, sizeof(ack), NULL),
			VIRTIO_NET_OK);
	vur_user_free_buf(dev, buf);
	end();
}

/* ROCE-DEV-CTRL-5, -9: the ack buffer must hold the ack data; used length 1 + its size. */
static void
ack_buffer_length(void)
{
	uint8_t ack[256];
	struct counts c;
	int written = -1;

	if (!begin())
		return;
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack, 3, NULL), VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, NULL, 0, NULL), VIRTIO_NET_ERR);
	TAP_EQ(read_counts(&c), 0);
	TAP_EQ(c.pds, 0); /* not executed */
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, ack,
			       sizeof(struct virtio_rdma_ack_query_device) - 1, NULL),
			VIRTIO_NET_ERR);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL, 0, ack, 31, NULL), VIRTIO_NET_ERR);
	/* Room to spare: the device writes the ack data and no more. */
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack, sizeof(ack), &written),
			VIRTIO_NET_OK);
	TAP_EQ(written, sizeof(struct virtio_rdma_ack_create_pd));
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0, ack, sizeof(ack), &written),
			VIRTIO_NET_OK);
	TAP_EQ(written, sizeof(struct virtio_rdma_ack_query_port));
	end();
}

/* ROCE-DEV-CTRL-13: padding and reserved fields of ack data are zero. */
static void
ack_padding_is_zero(void)
{
	struct virtio_rdma_ack_query_device qd;
	struct virtio_rdma_ack_query_port qp;
	struct virtio_rdma_ack_query_port_speed qs;
	struct virtio_rdma_ack_query_qp qq;
	struct virtio_rdma_cmd_query_qp c = { 0 };
	uint32_t qpn;

	if (!begin())
		return;
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, &qd, sizeof(qd), NULL),
			VIRTIO_NET_OK);
	TAP_CHECK(all_zero(qd.padding, sizeof(qd.padding)));
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0, &qp, sizeof(qp), NULL), VIRTIO_NET_OK);
	TAP_CHECK(all_zero(qp.reserved, sizeof(qp.reserved)));
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL, 0, &qs, sizeof(qs), NULL),
			VIRTIO_NET_OK);
	TAP_CHECK(all_zero(qs.reserved, sizeof(qs.reserved)));
	qpn = qp_setup(VUR_USER_QPT_RC);
	TAP_EQ(modify(qpn, rc_attr(), VUR_USER_QPS_INIT,
			       VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS),
			0);
	TAP_EQ(modify(qpn, rc_attr(), VUR_USER_QPS_RTR, RC_RTR_MASK), 0);
	c.qpn = htole32(qpn);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_QUERY_QP, &c, sizeof(c), &qq, sizeof(qq), NULL),
			VIRTIO_NET_OK);
	TAP_CHECK(all_zero(qq.padding, sizeof(qq.padding)));
	TAP_CHECK(all_zero(qq.reserved, sizeof(qq.reserved)));
	TAP_EQ(qq.cap.padding, 0);
	TAP_EQ(qq.ah_attr.grh.padding, 0);
	TAP_CHECK(all_zero(qq.ah_attr.reserved, sizeof(qq.ah_attr.reserved)));
	end();
}

/* ROCE-DEV-CTRL-12: padding and reserved fields of command data are ignored. */
static void
command_padding_is_ignored(void)
{
	struct virtio_rdma_cmd_create_qp cq;
	struct virtio_rdma_cmd_modify_qp mq;
	struct virtio_rdma_cmd_add_gid ag;
	struct virtio_rdma_cmd_create_ah ca;
	struct vur_user_ah_attr av = valid_av();
	uint8_t ack[16];
	uint32_t pdn, cqn, qpn;

	if (!begin())
		return;
	pdn = new_pd();
	cqn = new_cq(8);
	memset(&ag, 0xff, sizeof(ag));
	ag.index = 0;
	memcpy(ag.gid, gid_local, 16);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_ADD_GID, &ag, sizeof(ag), NULL, 0, NULL), VIRTIO_NET_OK);

	memset(&cq, 0xff, sizeof(cq));
	cq.pdn = htole32(pdn);
	cq.qp_type = VIRTIO_IB_QPT_RC;
	cq.sq_sig_all = 0;
	cq.flags = 0; /* a field now (ROCE-DEV-QP-19); srqn stays 0xff.., ignored without F_SRQ */
	cq.send_cqn = cq.recv_cqn = htole32(cqn);
	cq.cap.max_send_wr = cq.cap.max_recv_wr = htole32(8);
	cq.cap.max_send_sge = cq.cap.max_recv_sge = htole32(1);
	cq.cap.max_inline_data = 0;
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_QP, &cq, sizeof(cq), ack, 4, NULL), VIRTIO_NET_OK);
	memcpy(&qpn, ack, 4);
	qpn = le32toh(qpn);

	memset(&mq, 0xff, sizeof(mq));
	memset(&mq.qkey, 0,
			offsetof(struct virtio_rdma_cmd_modify_qp, reserved) -
					offsetof(struct virtio_rdma_cmd_modify_qp, qkey));
	mq.qpn = htole32(qpn);
	mq.attr_mask = htole32(VIRTIO_IB_QP_STATE | VIRTIO_IB_QP_ACCESS_FLAGS);
	mq.qp_state = VIRTIO_IB_QPS_INIT;
	mq.qp_access_flags = htole32(VIRTIO_IB_ACCESS_REMOTE_READ);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_MODIFY_QP, &mq, sizeof(mq), NULL, 0, NULL), VIRTIO_NET_OK);
	TAP_EQ(query_state(qpn), VUR_USER_QPS_INIT);

	memset(&ca, 0xff, sizeof(ca));
	ca.pdn = htole32(pdn);
	memcpy(ca.ah_attr.grh.dgid, av.grh.dgid, 16);
	ca.ah_attr.grh.flow_label = 0;
	ca.ah_attr.grh.sgid_index = 0;
	ca.ah_attr.grh.hop_limit = 64;
	ca.ah_attr.grh.traffic_class = 0;
	memcpy(ca.ah_attr.dmac, av.dmac, 6);
	TAP_EQ(raw(VIRTIO_NET_CTRL_ROCE_CREATE_AH, &ca, sizeof(ca), ack, 4, NULL), VIRTIO_NET_OK);
	end();
}

/* ---- Device and port attributes ---- */

/* ROCE-DEV-ATTR-2 to -9; max_qp and max_cq from the configuration space. */
static void
query_device_within_spec(void)
{
	struct vur_user_device_attr a;

	if (!begin())
		return;
	TAP_EQ(vur_user_query_device(dev, &a), 0);
	/*
	 * RC RNR NAK generation, the Base Memory Management Extensions, SRQs,
	 * windows, atomics, multicast, rings (the backend's default K = 4), CQ resize
	 */
	TAP_EQ(a.device_cap_flags,
			VUR_USER_DEVICE_RC_RNR_NAK_GEN | VUR_USER_DEVICE_MEM_MGT_EXTENSIONS |
					VUR_USER_DEVICE_SRQ | VUR_USER_DEVICE_MEM_WINDOW |
					VUR_USER_DEVICE_ATOMIC | VUR_USER_DEVICE_MULTICAST |
					VUR_USER_DEVICE_RINGS | VUR_USER_DEVICE_RESIZE_CQ);
	TAP_CHECK(a.max_mcast_grp >= 1 && a.max_mcast_qp_attach >= 1 &&
			a.max_total_mcast_qp_attach >= a.max_mcast_qp_attach); /* ATTR-17 */
	TAP_EQ(a.max_mw, 4096);
	TAP_EQ(a.max_srq, 62);
	TAP_EQ(a.max_srq_wr, 1024);
	TAP_EQ(a.max_srq_sge, 16);
	TAP_EQ(a.max_fast_reg_page_list_len, 512);
	TAP_EQ(a.atomic_cap, VUR_USER_ATOMIC_GLOB); /* CPU atomics on the driver's memory */
	TAP_EQ(a.page_size_cap, 4096);
	TAP_CHECK(a.max_qp_wr >= 1 && a.max_cqe >= 1);
	TAP_CHECK(a.max_send_sge >= 1 && a.max_recv_sge >= 1 && a.max_sge_rd >= 1);
	TAP_CHECK(a.max_mr >= 1 && a.max_pd >= 1 && a.max_ah >= 1);
	TAP_CHECK(a.max_qp_rd_atom <= 255 && a.max_qp_init_rd_atom <= 255);
	TAP_CHECK(a.local_ca_ack_delay <= 31);
	TAP_CHECK(a.max_mr_size > 0);
	TAP_EQ(a.max_qp, 64);
	TAP_EQ(a.max_cq, 64);
	end();
}

static void
query_port_within_spec(void)
{
	struct vur_user_port_speed ps;
	struct vur_user_port_attr a;

	if (!begin())
		return;
	TAP_EQ(vur_user_query_port(dev, &a), 0);
	TAP_CHECK(a.gid_tbl_len >= 1 && a.gid_tbl_len <= 256);       /* ROCE-DEV-ATTR-8 */
	TAP_CHECK(a.max_msg_sz >= 1 && a.max_msg_sz <= 0x80000000u); /* ROCE-DEV-ATTR-9 */
	TAP_EQ(a.state, VUR_USER_PORT_ACTIVE);
	TAP_EQ(a.link_mtu, 1500);
	TAP_EQ(a.active_mtu, VUR_USER_MTU_1024);
	/* The defaults: no uplink, the configured loopback speed (ROCE-DEV-SPEED-1). */
	TAP_EQ(vur_user_query_port_speed(dev, &ps), 0);
	TAP_EQ(ps.speed, 1000);
	TAP_EQ(ps.flags, VUR_USER_PORT_SPEED_LOOPBACK);
	TAP_EQ(ps.total_members, 0);
	TAP_EQ(ps.active_members, 0);
	end();
}

/* ---- Protection domains ---- */

/* ROCE-DEV-CTRL-14, ROCE-DEV-PD-2. */
static void
pd_create_destroy(void)
{
	uint32_t a, b;

	if (!begin())
		return;
	a = new_pd();
	b = new_pd();
	TAP_CHECK(a != b);
	TAP_EQ(vur_user_destroy_pd(dev, a), 0);
	REFUSED(vur_user_destroy_pd(dev, a));
	REFUSED(vur_user_destroy_pd(dev, 0xdeadbeef));
	TAP_EQ(vur_user_destroy_pd(dev, b), 0);
	REFUSED(vur_user_destroy_pd(dev, b));
	end();
}

/* ROCE-DEV-PD-1: exactly max_pd PDs. */
static void
pd_limit(void)
{
	uint32_t pdn, n = 0, last = 0;

	if (!have_limits() || !begin())
		return;
	while (n <= lim.max_pd && vur_user_create_pd(dev, &pdn) == 0) {
		last = pdn;
		n++;
	}
	TAP_EQ(n, lim.max_pd);
	REFUSED(vur_user_create_pd(dev, &pdn));
	TAP_EQ(vur_user_destroy_pd(dev, last), 0);
	TAP_EQ(vur_user_create_pd(dev, &pdn), 0);
	end();
}

/* ROCE-DEV-PD-3: a PD with an MR, a QP or an AH is busy. */
static void
pd_busy(void)
{
	struct vur_user_ah_attr av = valid_av();
	struct vur_user_mr mr;
	uint32_t pdn, cqn, qpn, ah;

	if (!begin())
		return;
	pdn = new_pd();
	TAP_EQ(vur_user_get_dma_mr(dev, pdn, 0, &mr), 0);
	REFUSED(vur_user_destroy_pd(dev, pdn));
	TAP_EQ(vur_user_dereg_mr(dev, mr.mrn), 0);

	cqn = new_cq(4);
	qpn = new_qp(VUR_USER_QPT_RC, pdn, cqn);
	REFUSED(vur_user_destroy_pd(dev, pdn));
	TAP_EQ(vur_user_destroy_qp(dev, qpn), 0);

	TAP_EQ(vur_user_add_gid(dev, 0, gid_local), 0);
	TAP_EQ(vur_user_create_ah(dev, pdn, &av, &ah), 0);
	REFUSED(vur_user_destroy_pd(dev, pdn));
	TAP_EQ(vur_user_destroy_ah(dev, pdn, ah), 0);

	TAP_EQ(vur_user_destroy_pd(dev, pdn), 0);
	TAP_EQ(vur_user_destroy_cq(dev, cqn), 0);
	end();
}

/* ---- Memory regions ---- */

/* ROCE-DEV-MR-8: keys of live MRs differ; lkey and rkey differing is nice to have. */
static void
mr_keys(void)
{
	struct vur_user_mr a, b, c;
	uint32_t pdn;
	void *buf;

	if (!begin())
		return;
	pdn = new_pd();
	buf = vur_user_alloc_buf(dev, 4096);
	TAP_EQ(vur_user_get_dma_mr(dev, pdn, VUR_USER_ACCESS_LOCAL_WRITE, &a), 0);
	TAP_EQ(vur_user_get_dma_mr(dev, pdn, 0, &b), 0);
	TAP_EQ(vur_user_reg_mr(dev, pdn,
			       VUR_USER_ACCESS_LOCAL_WRITE | VUR_USER_ACCESS_REMOTE_WRITE |
					       VUR_USER_ACCESS_REMOTE_READ,
			       buf, 4096, (uintptr_t)buf, &c),
			0);
	TAP_CHECK(a.mrn != b.mrn && b.mrn != c.mrn && a.mrn != c.mrn); /* ROCE-DEV-CTRL-14 */
	TAP_CHECK(a.lkey != b.lkey && b.lkey != c.lkey && a.lkey != c.lkey);
	TAP_CHECK(a.rkey != b.rkey && b.rkey != c.rkey && a.rkey != c.rkey);
	if (a.lkey == a.rkey)
		printf("# note: lkey == rkey (0x%x): allowed, but a leaked lkey is then an rkey\n",
				a.lkey);
	TAP_EQ(vur_user_dereg_mr(dev, a.mrn), 0);
	TAP_EQ(vur_user_dereg_mr(dev, b.mrn), 0);
	TAP_EQ(vur_user_dereg_mr(dev, c.mrn), 0);
	REFUSED(vur_user_dereg_mr(dev, c.mrn)); /* ROCE-DEV-MR-11 */
	REFUSED(vur_user_dereg_mr(dev, 0xdeadbeef));
	TAP_EQ(vur_user_free_buf(dev, buf), 0);
	end();
}

/* ROCE-DEV-MR-9 (SHOULD): a new MR does not get the rkey of one just deregistered. */
static void
mr_rkey_not_reused_soon(void)
{
	struct vur_user_mr a, b;
	uint32_t pdn;
	int i;

	if (!begin())
		return;
	pdn = new_pd();
	TAP_EQ(vur_user_get_dma_mr(dev, pdn, 0, &a), 0);
	for (i = 0; i < 8; i++) {
		TAP_EQ(vur_user_dereg_mr(dev, a.mrn), 0);
		TAP_EQ(vur_user_get_dma_mr(dev, pdn, 0, &b), 0);
		TAP_CHECK(b.rkey != a.rkey);
		a = b;
	}
	end();
}

/* ROCE-DEV-MR-1, -2, -3 for both kinds. */
static void
mr_pd_and_access(void)
{
	struct vur_user_mr mr;
	uint32_t pdn, dead;
	void *buf;

	if (!begin())
		return;
	pdn = new_pd();
	dead = new_pd();
	TAP_EQ(vur_user_destroy_pd(dev, dead), 0);
	buf = vur_user_alloc_buf(dev, 4096);
	REFUSED(vur_user_get_dma_mr(dev, dead, 0, &mr));
	REFUSED(vur_user_get_dma_mr(dev, 0xdeadbeef, 0, &mr));
	REFUSED(vur_user_reg_mr(dev, dead, 0, buf, 4096, 0, &mr));
	REFUSED(vur_user_get_dma_mr(dev, pdn, 1u << 3, &mr));
	REFUSED(vur_user_get_dma_mr(dev, pdn, 0x80000000u, &mr));
	REFUSED(vur_user_reg_mr(
			dev, pdn, VUR_USER_ACCESS_LOCAL_WRITE | (1u << 5), buf, 4096, 0, &mr));
	REFUSED(vur_user_get_dma_mr(dev, pdn, VUR_USER_ACCESS_REMOTE_WRITE, &mr));
	REFUSED(vur_user_reg_mr(dev, pdn,
			VUR_USER_ACCESS_REMOTE_WRITE | VUR_USER_ACCESS_REMOTE_READ, buf, 4096, 0,
			&mr));
	/* Remote read alone needs no local write. */
	TAP_EQ(vur_user_reg_mr(dev, pdn, VUR_USER_ACCESS_REMOTE_READ, buf, 4096, 0, &mr), 0);
	TAP_EQ(vur_user_dereg_mr(dev, mr.mrn), 0);
	vur_user_free_buf(dev, buf);
	end();
}

/* ROCE-DEV-MR-5, -6, -7: length, npages and every page checked. */
static void
reg_mr_page_list_checks(void)
{
	uint64_t base, pages[3], mem_end = VUR_USER_GPA_BASE + VUR_USER_DEFAULT_MEM_SIZE;
	struct vur_user_mr mr;
	uint32_t pdn;
	void *buf;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	buf = vur_user_alloc_buf(dev, 3 * 4096);
	base = vur_user_driver_addr(dev, buf);
	pages[0] = base;
	pages[1] = base + 4096;
	pages[2] = base + 8192;

	/* The happy path, unaligned start: 0x1010 + 0x2000 spans 3 pages. */
	TAP_EQ(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr), 0);
	TAP_EQ(vur_user_dereg_mr(dev, mr.mrn), 0);
	/* MR-5: length 0, beyond max_mr_size, past 2^64. */
	REFUSED(vur_user_reg_mr(dev, pdn, 0, buf, 0, base, &mr));
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1000, 0, NULL, 0, &mr));
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0, lim.max_mr_size + 1, pages, 1, &mr));
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0xfffffffffffff000ULL, 0x2000, pages, 2, &mr));
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0xfffffffffffff000ULL, 0x2000, pages, 1, &mr));
	/* MR-6: one page too few, one too many. */
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 2, &mr));
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1000, 0x2000, pages, 3, &mr));
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1000, 0x1000, pages, 0, &mr));
	/* MR-7: unaligned, outside driver memory, straddling its end, zero. */
	pages[1] = base + 4096 + 8;
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr));
	pages[1] = VUR_USER_GPA_BASE - 4096;
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr));
	pages[1] = mem_end;
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr));
	pages[1] = mem_end - 2048;
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr));
	pages[1] = 0;
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr));
	pages[1] = 0xfffffffffffff000ULL;
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr));
	/* The last page of driver memory is driver memory. */
	pages[1] = mem_end - 4096;
	TAP_EQ(vur_user_reg_mr_pages(dev, pdn, 0, 0x1010, 0x2000, pages, 3, &mr), 0);
	TAP_EQ(vur_user_dereg_mr(dev, mr.mrn), 0);
	vur_user_free_buf(dev, buf);
	end();
}

/*
 * ROCE-DEV-MR-5 at its bounds: an MR of max_mr_size bytes (its pages may
 * repeat: the spec asks nothing else of them), and one ending at 2^64.
 */
static void
mr_size_bounds(void)
{
	uint64_t npages, i, *pages;
	struct vur_user_mr mr;
	uint32_t pdn;
	void *buf;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	buf = vur_user_alloc_buf(dev, 4096);
	npages = (0x10 + lim.max_mr_size + 4095) / 4096;
	if (npages > (1u << 20)) {
		tap_skip("max_mr_size too large for one command in driver memory");
		end();
		return;
	}
	pages = calloc(npages + 1, sizeof(*pages));
	for (i = 0; i <= npages; i++)
		pages[i] = vur_user_driver_addr(dev, buf);
	TAP_EQ(vur_user_reg_mr_pages(
			       dev, pdn, 0, 0x10, lim.max_mr_size, pages, (uint32_t)npages, &mr),
			0);
	TAP_EQ(vur_user_dereg_mr(dev, mr.mrn), 0);
	/* One byte more, with the page count that goes with it. */
	npages = (0x10 + lim.max_mr_size + 1 + 4095) / 4096;
	REFUSED(vur_user_reg_mr_pages(
			dev, pdn, 0, 0x10, lim.max_mr_size + 1, pages, (uint32_t)npages, &mr));
	/* The last page of the address space: up to, not past, 2^64. */
	TAP_EQ(vur_user_reg_mr_pages(dev, pdn, 0, 0xfffffffffffff000ULL, 0x1000, pages, 1, &mr), 0);
	TAP_EQ(vur_user_reg_mr_pages(dev, pdn, 0, 0xffffffffffffffffULL, 1, pages, 1, &mr), 0);
	REFUSED(vur_user_reg_mr_pages(dev, pdn, 0, 0xffffffffffffffffULL, 2, pages, 1, &mr));
	free(pages);
	end();
}

/* ROCE-DEV-MR-4: max_mr MRs of both kinds together. */
static void
mr_limit(void)
{
	struct vur_user_mr mr;
	uint32_t pdn, n = 0;
	void *buf;

	if (!have_limits() || !begin())
		return;
	pdn = new_pd();
	buf = vur_user_alloc_buf(dev, 4096);
	TAP_EQ(vur_user_reg_mr(dev, pdn, 0, buf, 4096, 0, &mr), 0);
	n = 1;
	while (n <= lim.max_mr && vur_user_get_dma_mr(dev, pdn, 0, &mr) == 0)
		n++;
	TAP_EQ(n, lim.max_mr);
	REFUSED(vur_user_get_dma_mr(dev, pdn, 0, &mr));
	REFUSED(vur_user_reg_mr(dev, pdn, 0, buf, 4096, 0, &mr));
	TAP_EQ(vur_user_dereg_mr(dev, mr.mrn), 0);
	TAP_EQ(vur_user_reg_mr(dev, pdn, 0, buf, 4096, 0, &mr), 0);
	end();
}

/* ---- Completion queues ---- */

/* ROCE-DEV-CQ-1, -2, -3, -5. */
static void
cq_create_destroy(void)
{
	uint32_t cqn, a;

	if (!have_limits() || !begin())
		return;
	REFUSED(vur_user_create_cq(dev, 0, &cqn));
	REFUSED(vur_user_create_cq(dev, lim.max_cqe + 1, &cqn));
	REFUSED(vur_user_create_cq(dev, UINT32_MAX, &cqn));
	/* Every completion virtqueue has 64 entries: 65 fits none (CQ-2). */
	if (lim.max_cqe > VUR_USER_DEFAULT_RDMA_QUEUE_SIZE)
		REFUSED(vur_user_create_cq(dev, VUR_USER_DEFAULT_RDMA_QUEUE_SIZE + 1, &cqn));
	a = new_cq(VUR_USER_DEFAULT_RDMA_QUEUE_SIZE);
	TAP_CHECK(a < lim.max_cq);
	TAP_EQ(vur_user_destroy_cq(dev, a), 0);
	REFUSED(vur_user_destroy_cq(dev, a));
	REFUSED(vur_user_destroy_cq(dev, lim.max_cq));
	REFUSED(vur_user_destroy_cq(dev, 0xdeadbeef));
	end();
}

/* ROCE-DEV-CQ-2, -3: M CQs, each on its own completion virtqueue. */
static void
cq_limit(void)
{
	uint64_t seen = 0;
	uint32_t cqn, n = 0;

	if (!have_limits() || !begin())
		return;
	while (n <= lim.max_cq && vur_user_create_cq(dev, 1, &cqn) == 0) {
		TAP_CHECK(cqn < lim.max_cq && cqn < 64 && !(seen & (1ULL << cqn)));
		if (cqn < 64)
			seen |= 1ULL << cqn;
		n++;
	}
	TAP_EQ(n, lim.max_cq);
	REFUSED(vur_user_create_cq(dev, 1, &cqn));
	TAP_EQ(vur_user_destroy_cq(dev, 5), 0);
	TAP_EQ(vur_user_create_cq(dev, 1, &cqn), 0);
	TAP_EQ(cqn, 5);
	end();
}

/* ROCE-DEV-CQ-6: a CQ a QP uses, as send or as receive CQ, stays. */
static void
cq_busy(void)
{
	struct vur_user_qp_init_attr ia;
	uint32_t pdn, scq, rcq, qpn;

	if (!begin())
		return;
	pdn = new_pd();
	scq = new_cq(8);
	rcq = new_cq(8);
	ia = qp_init(VUR_USER_QPT_UD, pdn, scq);
	ia.recv_cqn = rcq;
	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	REFUSED(vur_user_destroy_cq(dev, scq));
	REFUSED(vur_user_destroy_cq(dev, rcq));
	TAP_EQ(vur_user_destroy_qp(dev, qpn), 0);
	TAP_EQ(vur_user_destroy_cq(dev, scq), 0);
	TAP_EQ(vur_user_destroy_cq(dev, rcq), 0);
	end();
}

/* ROCE-DEV-CQ-7: exactly one flag, a live CQ. */
static void
req_notify(void)
{
	uint32_t cqn, dead;

	if (!begin())
		return;
	cqn = new_cq(4);
	dead = new_cq(4);
	TAP_EQ(vur_user_destroy_cq(dev, dead), 0);
	TAP_EQ(vur_user_req_notify_cq(dev, cqn, VUR_USER_NOTIFY_SOLICITED), 0);
	TAP_EQ(vur_user_req_notify_cq(dev, cqn, VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	/* Arming an armed CQ combines the requests (ROCE-DEV-NOTIFY-6): not an error. */
	TAP_EQ(vur_user_req_notify_cq(dev, cqn, VUR_USER_NOTIFY_SOLICITED), 0);
	REFUSED(vur_user_req_notify_cq(dev, cqn, 0));
	REFUSED(vur_user_req_notify_cq(
			dev, cqn, VUR_USER_NOTIFY_SOLICITED | VUR_USER_NOTIFY_NEXT_COMPLETION));
	REFUSED(vur_user_req_notify_cq(dev, cqn, 1u << 2));
	REFUSED(vur_user_req_notify_cq(dev, dead, VUR_USER_NOTIFY_SOLICITED));
	REFUSED(vur_user_req_notify_cq(dev, 0xdeadbeef, VUR_USER_NOTIFY_NEXT_COMPLETION));
	end();
}

/* ---- A frontend that dies mid-command ---- */

/* In the child: objects of every kind, then commands until killed. */
static void
doomed_frontend(int ready_fd)
{
	struct vur_user_qp_attr a = rc_attr();
	struct vur_user_ah_attr av = valid_av();
	struct vur_user_qp_init_attr ia;
	struct vur_user_params p;
	struct vur_user_mr mr;
	uint32_t pdn = 0, cqn = 0, qpn = 0, ah, tmp;
	void *buf;
	int i, ok = 1;

	vur_user_set_log(NULL, NULL, 0);
	vur_user_params_init(&p, backend.sock);
	if (vur_user_open(&p, &dev) < 0)
		_exit(1);
	ok &= vur_user_create_pd(dev, &pdn) == 0 && vur_user_add_gid(dev, 0, gid_local) == 0;
	for (i = 0; i < 4 && ok; i++) {
		ok &= vur_user_create_cq(dev, 8, &cqn) == 0;
		ia = qp_init(VUR_USER_QPT_RC, pdn, cqn);
		ok &= vur_user_create_qp(dev, &ia, &qpn) == 0;
		buf = vur_user_alloc_buf(dev, 4096);
		ok &= buf != NULL && vur_user_reg_mr(dev, pdn, 1, buf, 4096, 0, &mr) == 0;
	}
	ok &= vur_user_create_ah(dev, pdn, &av, &ah) == 0;
	a.qp_state = VUR_USER_QPS_INIT;
	ok &= vur_user_modify_qp(dev, qpn, &a, VUR_USER_QP_STATE | VUR_USER_QP_ACCESS_FLAGS) == 0;
	if (write(ready_fd, ok ? "r" : "f", 1) != 1 || !ok)
		_exit(1);
	for (;;) {
		vur_user_create_pd(dev, &tmp);
		vur_user_create_cq(dev, 4, &cqn);
		vur_user_query_qp(dev, qpn, 0, &a);
		vur_user_destroy_cq(dev, cqn);
		vur_user_destroy_pd(dev, tmp);
	}
}

/*
 * A frontend killed while commands run (or just after one): the backend
 * frees what it owned and serves the next frontend with the full limits
 * (a disconnect frees everything it owned).
 */
static void
frontend_killed_mid_command(void)
{
	static const int delays_us[] = { 0, 500, 3000, 20000 };
	struct counts c;
	char ready = 0;
	int pipefd[2], disconnects, status;
	unsigned int i;
	uint32_t n, cqn;
	struct pollfd pfd;
	pid_t pid;

	if (!have_limits())
		return;
	for (i = 0; i < sizeof(delays_us) / sizeof(delays_us[0]); i++) {
		disconnects = child_log_count(&backend, "frontend disconnected");
		if (pipe2(pipefd, O_CLOEXEC) < 0)
			break;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(pipefd[0]);
			doomed_frontend(pipefd[1]);
		}
		close(pipefd[1]);
		pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
		TAP_EQ(poll(&pfd, 1, WAIT_MS), 1);
		TAP_EQ(read(pipefd[0], &ready, 1), 1);
		TAP_EQ(ready, 'r');
		close(pipefd[0]);
		if (i == 0) {
			/* The counts of a live frontend, before it dies. */
			TAP_EQ(read_counts(&c), 0);
			TAP_EQ(c.qps, 4);
			TAP_EQ(c.mrs, 4);
			TAP_EQ(c.ahs, 1);
			TAP_EQ(c.gids, 1);
			TAP_CHECK(c.cqs >= 4 && c.cqs <= 5);
			TAP_CHECK(c.pds >= 1 && c.pds <= 2);
		}
		usleep(delays_us[i]);
		kill(pid, SIGKILL);
		TAP_EQ(waitpid(pid, &status, 0), pid);
		TAP_CHECK(WIFSIGNALED(status));
		TAP_EQ(child_wait_log(&backend, "frontend disconnected", disconnects + 1, WAIT_MS),
				0);
		TAP_EQ(read_counts(&c), 0);
		TAP_EQ(c.pds + c.mrs + c.cqs + c.qps + c.ahs + c.gids, 0);
	}
	/* The next frontend gets a fresh device with every CQ and PD available. */
	if (!begin())
		return;
	for (n = 0; n <= lim.max_cq && vur_user_create_cq(dev, 1, &cqn) == 0; n++)
		;
	TAP_EQ(n, lim.max_cq);
	TAP_EQ(read_counts(&c), 0);
	TAP_EQ(c.cqs, lim.max_cq);
	TAP_EQ(c.pds, 0);
	TAP_EQ(new_pd() != UINT32_MAX, 1);
	end();
}

/*
 * Two frontends on one socket, as a frontend that reconnects before the
 * backend has seen its old connection end also makes: the backend refuses
 * the second (one socket is one device), and neither the attempt nor the
 * end of the first disturbs anything else (a disconnect frees what that
 * frontend owned; others never notice). On a backend of its own, so that
 * what it leaves behind touches no other case.
 */
static void
two_frontends_one_socket(void)
{
	struct vur_user_dev *a = NULL, *b = NULL;
	struct vur_user_params p;
	struct child own;
	uint32_t pdn;
	int status, ret;

	ret = child_start_backend(&own, backend_bin, NULL);
	if (ret == 0)
		ret = child_wait_socket(&own, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0) {
		child_cleanup(&own);
		return;
	}
	vur_user_params_init(&p, own.sock);
	p.timeout_ms = 2000;
	TAP_EQ(vur_user_open(&p, &a), 0);
	if (a != NULL) {
		TAP_EQ(vur_user_create_pd(a, &pdn), 0);
		/* One socket is one device: the second frontend is refused... */
		TAP_EQ(vur_user_open(&p, &b) < 0, 1);
		TAP_EQ(child_wait_log(&own, "refusing a second frontend", 1, WAIT_MS), 0);
		/* ...and the first keeps its objects and its device. */
		TAP_EQ(vur_user_create_pd(a, &pdn), 0);
		TAP_EQ(vur_user_close(a), 0);
	}
	if (b != NULL) {
		TAP_EQ(child_wait_log(&own, "frontend disconnected", 1, WAIT_MS), 0);
		TAP_EQ(vur_user_create_pd(b, &pdn), 0);
		TAP_EQ(vur_user_close(b), 0);
	}
	status = child_stop(&own, SIGTERM, WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0); /* LeakSanitizer: nothing of either left */
	if (tap_case_failed)
		child_dump_log(&own);
	child_cleanup(&own);
}

/* The verbs in the RFC v2 numbering: class 6 carries them (ROCE-DEV-RFC2-4). */
static void
rfc2_numbering_verbs(void)
{
	static const char *const args[] = { "--rfc2-numbering", NULL };
	struct vur_user_dev *d = NULL;
	struct vur_user_device_attr a;
	struct vur_user_params p;
	struct child own;
	uint32_t pdn;
	int ret, status;

	ret = child_start_backend(&own, backend_bin, args);
	if (ret == 0)
		ret = child_wait_socket(&own, WAIT_MS);
	TAP_EQ(ret, 0);
	vur_user_params_init(&p, own.sock);
	p.rfc2_numbering = true;
	p.features = vur_user_supported_features(true);
	if (ret == 0)
		TAP_EQ(vur_user_open(&p, &d), 0);
	if (d != NULL) {
		TAP_EQ(vur_user_roce_class(d), VIRTIO_NET_CTRL_ROCE_RFC2);
		TAP_EQ(vur_user_query_device(d, &a), 0);
		TAP_EQ(a.max_qp, 64);
		TAP_EQ(vur_user_create_pd(d, &pdn), 0);
		TAP_EQ(vur_user_destroy_pd(d, pdn), 0);
		TAP_EQ(vur_user_destroy_pd(d, pdn), -EREMOTEIO);
		TAP_EQ(vur_user_close(d), 0);
	}
	status = child_stop(&own, SIGTERM, WAIT_MS);
	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_case_failed)
		child_dump_log(&own);
	child_cleanup(&own);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/vhost-user-rdma\n", argv[0]);
		return 2;
	}
	backend_bin = argv[1];
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_WARNING);
	TAP_RUN(start);
	TAP_RUN(unknown_command_or_class);
	TAP_RUN(command_data_length);
	TAP_RUN(reg_mr_length_follows_npages);
	TAP_RUN(ack_buffer_length);
	TAP_RUN(ack_padding_is_zero);
	TAP_RUN(command_padding_is_ignored);
	TAP_RUN(query_device_within_spec);
	TAP_RUN(query_port_within_spec);
	TAP_RUN(pd_create_destroy);
	TAP_RUN(pd_limit);
	TAP_RUN(pd_busy);
	TAP_RUN(mr_keys);
	TAP_RUN(mr_rkey_not_reused_soon);
	TAP_RUN(mr_pd_and_access);
	TAP_RUN(reg_mr_page_list_checks);
	TAP_RUN(mr_size_bounds);
	TAP_RUN(mr_limit);
	TAP_RUN(cq_create_destroy);
	TAP_RUN(cq_limit);
	TAP_RUN(cq_busy);
	TAP_RUN(req_notify);
	TAP_RUN(frontend_killed_mid_command);
	TAP_RUN(two_frontends_one_socket);
	TAP_RUN(rfc2_numbering_verbs);
	TAP_RUN(stop);
	child_cleanup(&backend);
	return tap_done();
}
