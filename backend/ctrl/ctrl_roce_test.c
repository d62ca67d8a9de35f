/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the RoCE command table and handlers, through the dispatcher. */
#include <string.h>

#include <rte_byteorder.h>

#include "ctrl/ctrl_roce.h"
#include "ctrl/ctrl_target.h"
#include "rdma/rdma_dev.h"
#include "tests/ctrl_chain.h"
#include "tests/tap.h"

#define F_ROCE  (1ULL << VIRTIO_NET_F_ROCE)
#define F_SPEED (1ULL << VIRTIO_NET_F_ROCE_PORT_SPEED)

static struct vur_ctrl_cmd cmds[VUR_CTRL_ROCE_MAX_CMDS];
static struct vur_ctrl_table table = { cmds, 0 };
static struct vur_rdma_dev rd;
static struct vur_ctrl_target target = { .rdma = &rd };
static uint8_t out[256], in[256];

static uint16_t
vq_size(void *arg, uint32_t vq)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(vq);
	return 64;
}

static bool
mem_ok(void *arg, uint64_t gpa, uint64_t len)
{
	RTE_SET_USED(arg);
	return gpa >= 0x10000000 && gpa + len <= 0x14000000;
}

static const struct vur_rdma_env env = {
	.vq_size = vq_size,
	.mem_ok = mem_ok,
	.n_pairs = 1,
	.port_mtu = VIRTIO_IB_MTU_1024,
};

/* Send class/command/data; returns the ack byte, ack data in in[1..]. */
static uint8_t
send(uint8_t cls, uint8_t cmd, const void *data, uint32_t len, uint32_t in_len, uint64_t feat)
{
	struct vur_ctrl_result r;
	struct vur_chain c;

	ctrl_chain_build(&c, out, cls, cmd, data, len, in, in_len);
	vur_ctrl_dispatch(&table, &target, feat, &c, &r);
	return r.ack;
}

static uint32_t setup_max_mw = 4096; /* the default */

static void
setup(bool rfc2, uint32_t max_pd)
{
	struct vur_rdma_limits l;

	vur_rdma_limits_default(&l, 64, 64);
	l.max_pd = max_pd;
	l.max_mw = setup_max_mw;
	table.n_cmds = vur_ctrl_roce_commands(rfc2, cmds);
	TAP_CHECK(vur_ctrl_table_validate(&table) == 0);
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
}

/* CREATE_PD, RoCE negotiated: it succeeds; the PD number as the ack has it (little endian). */
static uint32_t
create_pd(void)
{
	uint32_t pdn;

	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5, F_ROCE) ==
			VIRTIO_NET_OK);
	memcpy(&pdn, in + 1, 4);
	return pdn;
}

static void
query_device_and_port(void)
{
	struct virtio_rdma_ack_query_device qd;
	struct virtio_rdma_ack_query_port qp;

	setup(false, 4);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0,
				  1 + sizeof(qd), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&qd, in + 1, sizeof(qd));
	TAP_CHECK(rte_le_to_cpu_64(qd.page_size_cap) == 4096);
	/* atomics, CPU atomics on the driver's memory: GLOB (transport/atomic.c) */
	TAP_CHECK(rte_le_to_cpu_64(qd.device_cap_flags) ==
			(VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN | VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS |
					VIRTIO_IB_DEVICE_ATOMIC | VIRTIO_IB_DEVICE_MEM_WINDOW |
					VIRTIO_IB_DEVICE_SRQ | VIRTIO_IB_DEVICE_MULTICAST));
	/* ROCE-DEV-ATTR-17 */
	TAP_CHECK(rte_le_to_cpu_32(qd.max_mcast_grp) == 64 &&
			rte_le_to_cpu_32(qd.max_mcast_qp_attach) == 64 &&
			rte_le_to_cpu_32(qd.max_total_mcast_qp_attach) == 1024);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_mw) == 4096); /* ROCE-DEV-ATTR-15 */
	/* ROCE-DEV-ATTR-14: 64 QP numbers, of which 2 to 63 may be SRQs */
	TAP_CHECK(rte_le_to_cpu_32(qd.max_srq) == 62);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_srq_wr) >= 1 && rte_le_to_cpu_32(qd.max_srq_wr) <= 1024);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_srq_sge) >= 1);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_fast_reg_page_list_len) == VUR_MAX_FAST_REG_PAGES);
	TAP_CHECK(qd.atomic_cap == VIRTIO_IB_ATOMIC_GLOB);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_pd) == 4 && qd.local_ca_ack_delay <= 31);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_qp_rd_atom) <= 255);
	/* ROCE-DEV-ATTR-16: not zero */
	TAP_CHECK(rte_le_to_cpu_32(qd.vendor_id) == 0x1af4 &&
			rte_le_to_cpu_32(qd.vendor_part_id) == 0x1041);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0,
				  1 + sizeof(qp), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&qp, in + 1, sizeof(qp));
	TAP_CHECK(rte_le_to_cpu_32(qp.gid_tbl_len) >= 1 && rte_le_to_cpu_32(qp.gid_tbl_len) <= 256);
	TAP_CHECK(rte_le_to_cpu_32(qp.max_msg_sz) == 0x80000000u);
	/* ROCE-DEV-CTRL-1: nothing without the feature */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0,
				  1 + sizeof(qp), 0) == VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

static void
pd_lifecycle(void)
{
	struct virtio_rdma_cmd_destroy_pd d;
	uint32_t pdn[3];

	setup(false, 2);
	for (int i = 0; i < 2; i++) {
		TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5,
					  F_ROCE) == VIRTIO_NET_OK);
		memcpy(&pdn[i], in + 1, 4);
	}
	TAP_CHECK(pdn[0] != pdn[1] && pdn[0] != 0);
	/* ROCE-DEV-PD-1: max_pd reached; ROCE-DEV-CTRL-8: zeroed ack data */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5, F_ROCE) ==
			VIRTIO_NET_ERR);
	TAP_CHECK(in[1] == 0 && in[4] == 0);
	d.pdn = rte_cpu_to_le_32(pdn[0]);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	/* ROCE-DEV-PD-2: destroyed twice, or never created */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	d.pdn = rte_cpu_to_le_32(0xdeadbeef);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	/* ROCE-DEV-CTRL-4: wrong length */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &d, 3, 1, F_ROCE) ==
			VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, &d, 4, 5, F_ROCE) ==
			VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

static void
port_speed_feature_and_numbering(void)
{
	struct virtio_rdma_ack_query_port_speed a;

	setup(false, 1);
	rd.port.speed = 2500;
	rd.port.flags = VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED;
	rd.port.active_members = 2;
	rd.port.total_members = 3;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL, 0,
				  1 + sizeof(a), F_ROCE | F_SPEED) == VIRTIO_NET_OK);
	memcpy(&a, in + 1, sizeof(a));
	TAP_CHECK(rte_le_to_cpu_64(a.speed) == 2500 && rte_le_to_cpu_16(a.active_members) == 2);
	TAP_CHECK(rte_le_to_cpu_32(a.flags) == VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED);
	/* ROCE-DEV-CTRL-3 */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL, 0,
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	/* RFC v2 numbering answers class 6 under bit 55, and not class 64 */
	vur_rdma_dev_fini(&rd);
	setup(true, 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_RFC2, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5,
				  1ULL << VIRTIO_NET_F_ROCE_RFC2) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5,
				  1ULL << VIRTIO_NET_F_ROCE_RFC2) == VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

static void
every_command_and_page_list_length(void)
{
	struct {
		struct virtio_rdma_cmd_reg_user_mr c;
		__le64 pages[2];
	} r;
	uint32_t pdn;

	setup(false, 1);
	/*
	 * ROCE-DEV-CTRL-2: every command, 0 to 28 (RESIZE_CQ), is in the
	 * table in order; NR_CMDS is no command
	 */
	TAP_CHECK(table.n_cmds == VIRTIO_NET_CTRL_ROCE_NR_CMDS);
	for (unsigned int i = 0; i < table.n_cmds; i++)
		TAP_CHECK(cmds[i].command == i);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_NR_CMDS, NULL, 0, 1, F_ROCE) ==
			VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_NR_CMDS, NULL, 0, 1, F_ROCE) ==
			VIRTIO_NET_ERR);
	pdn = create_pd();
	memset(&r, 0, sizeof(r));
	r.c.pdn = pdn;
	r.c.virt_addr = rte_cpu_to_le_64(0x1ff0);
	r.c.length = rte_cpu_to_le_64(0x20);
	r.c.npages = rte_cpu_to_le_32(2);
	r.pages[0] = rte_cpu_to_le_64(0x10000000);
	r.pages[1] = rte_cpu_to_le_64(0x10003000);
	/* ROCE-DEV-CTRL-4: 2 + 32 + 8 x npages exactly */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r) - 8,
				  13, F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r), 12,
				  F_ROCE) == VIRTIO_NET_ERR); /* -5: no room for the ack */
	TAP_CHECK(rd.mrs.count == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r), 13,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(rd.mrs.count == 1 && in[1] == 1); /* mrn 1 */
	vur_rdma_dev_fini(&rd);
}

/*
 * ALLOC_MR through the dispatcher: exactly 8 bytes of command and room for
 * 12 of ack; a live PD, max_num_sg 1..max_fast_reg_page_list_len; the ack
 * names a free MR whose keys are one, key byte 0; DEREG_MR frees it.
 */
static void
alloc_mr_command(void)
{
	struct virtio_rdma_cmd_alloc_mr c = { 0 };
	struct virtio_rdma_ack_alloc_mr a;
	uint8_t longer[sizeof(c) + 4] = { 0 };
	struct virtio_rdma_cmd_dereg_mr d;
	uint32_t pdn;

	setup(false, 2);
	pdn = create_pd();
	c.pdn = pdn;
	c.max_num_sg = rte_cpu_to_le_32(16);
	/* ROCE-DEV-CTRL-4, -5: the lengths */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c) - 1,
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	memcpy(longer, &c, sizeof(c));
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, longer, sizeof(longer),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c),
				  sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	/* the values */
	c.pdn = rte_cpu_to_le_32(rte_le_to_cpu_32(pdn) + 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	c.pdn = pdn;
	c.max_num_sg = 0;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	c.max_num_sg = rte_cpu_to_le_32(VUR_MAX_FAST_REG_PAGES + 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(rd.mrs.count == 0);
	/* without RoCE negotiated: refused like every RoCE command */
	c.max_num_sg = rte_cpu_to_le_32(VUR_MAX_FAST_REG_PAGES);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c),
				  1 + sizeof(a), 0) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&a, in + 1, sizeof(a));
	TAP_CHECK(rd.mrs.count == 1 && rte_le_to_cpu_32(a.mrn) == 1);
	TAP_CHECK(a.lkey == a.rkey && (rte_le_to_cpu_32(a.rkey) & 0xff) == 0);
	/* DESTROY_PD refused while it holds the MR; DEREG_MR of a free fast MR */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &pdn, 4, 1, F_ROCE) ==
			VIRTIO_NET_ERR);
	d.mrn = a.mrn;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEREG_MR, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(rd.mrs.count == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &pdn, 4, 1, F_ROCE) ==
			VIRTIO_NET_OK);
	vur_rdma_dev_fini(&rd);
}

/* MRs with REMOTE_ATOMIC: taken with LOCAL_WRITE, refused without (IBTA 10.6.3.1). */
static void
remote_atomic_mrs(void)
{
	struct {
		struct virtio_rdma_cmd_reg_user_mr c;
		__le64 pages[1];
	} r;
	struct virtio_rdma_cmd_get_dma_mr d;
	uint32_t pdn;

	setup(false, 2);
	pdn = create_pd();
	memset(&r, 0, sizeof(r));
	r.c.pdn = pdn;
	r.c.virt_addr = rte_cpu_to_le_64(0x1000);
	r.c.length = rte_cpu_to_le_64(0x1000);
	r.c.npages = rte_cpu_to_le_32(1);
	r.pages[0] = rte_cpu_to_le_64(0x10000000);
	r.c.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_REMOTE_ATOMIC);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r), 13,
				  F_ROCE) == VIRTIO_NET_ERR);
	r.c.access_flags = rte_cpu_to_le_32(
			VIRTIO_IB_ACCESS_REMOTE_ATOMIC | VIRTIO_IB_ACCESS_REMOTE_READ);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r), 13,
				  F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(rd.mrs.count == 0);
	r.c.access_flags = rte_cpu_to_le_32(
			VIRTIO_IB_ACCESS_LOCAL_WRITE | VIRTIO_IB_ACCESS_REMOTE_ATOMIC);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r), 13,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(rd.mrs.count == 1);
	memset(&d, 0, sizeof(d));
	d.pdn = pdn;
	d.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_REMOTE_ATOMIC);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_GET_DMA_MR, &d, sizeof(d), 13,
				  F_ROCE) == VIRTIO_NET_ERR);
	d.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_ALL | VIRTIO_IB_ACCESS_REMOTE_ATOMIC);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_GET_DMA_MR, &d, sizeof(d), 13,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(rd.mrs.count == 2);
	vur_rdma_dev_fini(&rd);
}

/*
 * ALLOC_MW and DEALLOC_MW through the dispatcher: 8 bytes of command, 8 of
 * ack; ROCE-DEV-MW-1 (PD, type, max_mw), -2 (key byte 0), -3 (a live MW);
 * ROCE-DEV-CTRL-16 and ROCE-DEV-ATTR-15 on a device without windows.
 */
static void
alloc_mw_command(void)
{
	struct virtio_rdma_ack_query_device qd;
	struct virtio_rdma_cmd_alloc_mw c = { 0 };
	struct virtio_rdma_ack_alloc_mw a, a2;
	struct virtio_rdma_cmd_dealloc_mw d;
	uint8_t longer[sizeof(c) + 4] = { 0 };
	uint32_t pdn;

	setup(false, 2);
	pdn = create_pd();
	c.pdn = pdn;
	c.type = VIRTIO_IB_MW_TYPE_1;
	/* ROCE-DEV-CTRL-4, -5: the lengths */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c) - 1,
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	memcpy(longer, &c, sizeof(c));
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, longer, sizeof(longer),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	/* ROCE-DEV-MW-1 */
	c.pdn = rte_cpu_to_le_32(rte_le_to_cpu_32(pdn) + 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	c.pdn = pdn;
	c.type = 0;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	c.type = 3;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(rd.mws.count == 0);
	c.type = VIRTIO_IB_MW_TYPE_1;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a), 0) == VIRTIO_NET_ERR); /* no RoCE */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&a, in + 1, sizeof(a));
	c.type = VIRTIO_IB_MW_TYPE_2;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a2), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&a2, in + 1, sizeof(a2));
	/* ROCE-DEV-MW-2, ROCE-DEV-CTRL-14 */
	TAP_CHECK(rd.mws.count == 2 && a.mwn != a2.mwn);
	TAP_CHECK((rte_le_to_cpu_32(a.rkey) & 0xff) == 0 &&
			(rte_le_to_cpu_32(a2.rkey) & 0xff) == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &pdn, 4, 1, F_ROCE) ==
			VIRTIO_NET_ERR);
	/* ROCE-DEV-MW-3 */
	d.mwn = rte_cpu_to_le_32(rte_le_to_cpu_32(a2.mwn) + 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	d.mwn = a.mwn;
	memcpy(longer, &d, sizeof(d));
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, longer, sizeof(d) + 1,
				  1, F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	d.mwn = a2.mwn;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(rd.mws.count == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &pdn, 4, 1, F_ROCE) ==
			VIRTIO_NET_OK);
	vur_rdma_dev_fini(&rd);

	/* a device without windows: no capability, max_mw 0, both commands refused */
	setup_max_mw = 0;
	setup(false, 2);
	setup_max_mw = 4096;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0,
				  1 + sizeof(qd), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&qd, in + 1, sizeof(qd));
	TAP_CHECK(!(rte_le_to_cpu_64(qd.device_cap_flags) & VIRTIO_IB_DEVICE_MEM_WINDOW));
	TAP_CHECK(qd.max_mw == 0);
	pdn = create_pd();
	c.pdn = pdn;
	c.type = VIRTIO_IB_MW_TYPE_1;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	d.mwn = rte_cpu_to_le_32(rd.limits.max_mr + 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

/* CREATE_SRQ and DESTROY_SRQ through the dispatcher: lengths, ack, refusals. */
static void
srq_commands(void)
{
	struct virtio_rdma_cmd_create_srq c;
	struct virtio_rdma_cmd_destroy_srq d;
	struct virtio_rdma_ack_create_srq a;
	__le32 pdn;

	setup(false, 1);
	pdn = create_pd();
	memset(&c, 0, sizeof(c));
	c.pdn = pdn;
	c.max_wr = rte_cpu_to_le_32(16);
	c.max_sge = rte_cpu_to_le_32(2);
	/* ROCE-DEV-CTRL-4, -5: the command's and the ack's sizes */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c) - 4,
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(rd.srqs.count == 0);
	/* ROCE-DEV-SRQ-1 */
	c.pdn = rte_cpu_to_le_32(rte_le_to_cpu_32(pdn) + 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_ERR);
	c.pdn = pdn;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c),
				  1 + sizeof(a), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&a, in + 1, sizeof(a));
	TAP_CHECK(rte_le_to_cpu_32(a.srqn) == 2); /* ROCE-DEV-VQ-5: the first from 2 */
	/* ROCE-DEV-PD-3: the SRQ holds its PD */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &pdn, 4, 1, F_ROCE) ==
			VIRTIO_NET_ERR);
	/* ROCE-DEV-SRQ-7: an unknown SRQ */
	d.srqn = rte_cpu_to_le_32(3);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	d.srqn = a.srqn;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(rd.srqs.count == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &d, sizeof(d), 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &pdn, 4, 1, F_ROCE) ==
			VIRTIO_NET_OK);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-ATTR-14, CTRL-16: a device with QP numbers 0 and 1 only has no SRQs. */
static void
no_srq_without_numbers(void)
{
	struct virtio_rdma_ack_query_device qd;
	struct virtio_rdma_cmd_create_srq c;
	struct vur_rdma_limits l;

	vur_rdma_limits_default(&l, 2, 4);
	table.n_cmds = vur_ctrl_roce_commands(false, cmds);
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0,
				  1 + sizeof(qd), F_ROCE) == VIRTIO_NET_OK);
	memcpy(&qd, in + 1, sizeof(qd));
	TAP_CHECK(!(rte_le_to_cpu_64(qd.device_cap_flags) & VIRTIO_IB_DEVICE_SRQ));
	TAP_CHECK(qd.max_srq == 0 && qd.max_srq_wr == 0 && qd.max_srq_sge == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5, F_ROCE) ==
			VIRTIO_NET_OK);
	memset(&c, 0, sizeof(c));
	memcpy(&c.pdn, in + 1, 4);
	c.max_wr = rte_cpu_to_le_32(1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), 5,
				  F_ROCE) == VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-INIT-4, -5: RESET_OBJECTS leaves nothing of an earlier driver, the port as it is. */
static void
reset_objects_command(void)
{
	static const uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	struct virtio_rdma_cmd_add_gid g = { .index = 0 };
	struct virtio_rdma_cmd_create_cq c = { .cqe = rte_cpu_to_le_32(16) };
	struct vur_rdma_counts n;
	__le32 pdn;

	setup(false, 2);
	rd.port.speed = 250;
	memcpy(g.gid, gid, sizeof(gid));
	pdn = create_pd();
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &c, sizeof(c), 5,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ADD_GID, &g, sizeof(g), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	/* no data is allowed (ROCE-DEV-CTRL-4), nothing changes then */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, &pdn, 4, 1,
				  F_ROCE) == VIRTIO_NET_ERR);
	TAP_CHECK(rd.pds.count == 1 && rd.cqs.count == 1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, NULL, 0, 1,
				  F_ROCE) == VIRTIO_NET_OK);
	vur_rdma_dev_counts(&rd, &n);
	TAP_CHECK(n.pds == 0 && n.cqs == 0 && n.gids == 0 && n.qps == 0 && n.mrs == 0);
	TAP_CHECK(rd.port.speed == 250 && rd.limits.max_pd == 2);
	/* a new driver's objects: the same numbers, the same GID index */
	TAP_CHECK(create_pd() == pdn);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &c, sizeof(c), 5,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_ADD_GID, &g, sizeof(g), 1,
				  F_ROCE) == VIRTIO_NET_OK);
	/* and again, with nothing to free */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, NULL, 0, 1,
				  F_ROCE) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, NULL, 0, 1,
				  F_ROCE) == VIRTIO_NET_OK);
	/* ROCE-DEV-CTRL-1: not without RoCE */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, NULL, 0, 1, 0) ==
			VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

int
main(void)
{
	TAP_RUN(query_device_and_port);
	TAP_RUN(pd_lifecycle);
	TAP_RUN(port_speed_feature_and_numbering);
	TAP_RUN(every_command_and_page_list_length);
	TAP_RUN(alloc_mr_command);
	TAP_RUN(remote_atomic_mrs);
	TAP_RUN(alloc_mw_command);
	TAP_RUN(srq_commands);
	TAP_RUN(no_srq_without_numbers);
	TAP_RUN(reset_objects_command);
	return tap_done();
}
