/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the RDMA object operations (rdma_ops.h) against a fake
 * transport: which virtqueues are ready and how large, where driver memory
 * is. Every refusal must leave the device as it was.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "rdma/rdma_ops.h"
#include "tests/tap.h"

#define MEM_BASE 0x100000000ULL
#define MEM_SIZE (16ULL << 20)

static uint16_t vq_sizes[256];
static struct vur_rdma_dev rd;

static uint16_t
vq_size(void *arg, uint32_t vq)
{
	RTE_SET_USED(arg);
	return vq < RTE_DIM(vq_sizes) ? vq_sizes[vq] : 0;
}

static bool
mem_ok(void *arg, uint64_t gpa, uint64_t len)
{
	RTE_SET_USED(arg);
	return gpa >= MEM_BASE && len <= MEM_SIZE && gpa - MEM_BASE <= MEM_SIZE - len;
}

/* 8 QPs, 4 CQs, one net pair: CQ vqs 3..6, QP q uses 7 + 2q and 8 + 2q. */
static void
setup(void)
{
	const struct vur_rdma_env env = {
		.vq_size = vq_size,
		.mem_ok = mem_ok,
		.n_pairs = 1,
		.port_mtu = VIRTIO_IB_MTU_1024,
	};
	struct vur_rdma_limits l;

	vur_rdma_limits_default(&l, 8, 4);
	l.max_mr = 4;
	l.max_mw = 2;
	l.max_ah = 2;
	l.max_pd = 4;
	for (unsigned int i = 0; i < RTE_DIM(vq_sizes); i++)
		vq_sizes[i] = 64;
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
}

static uint32_t
new_pd(void)
{
	uint32_t pdn = 0;

	TAP_CHECK(vur_rdma_create_pd(&rd, &pdn) == 0);
	return pdn;
}

static struct vur_rdma_mr *
dma_mr(uint32_t pdn, uint32_t access, int expect)
{
	struct virtio_rdma_cmd_get_dma_mr c = {
		.pdn = rte_cpu_to_le_32(pdn),
		.access_flags = rte_cpu_to_le_32(access),
	};
	struct vur_rdma_mr *mr = NULL;

	TAP_CHECK(vur_rdma_get_dma_mr(&rd, &c, &mr) == expect);
	return mr;
}

static void
mr_keys(void)
{
	struct vur_rdma_mr *a, *b;
	uint32_t pdn, idx, lkey, rkey;

	setup();
	pdn = new_pd();
	/* ROCE-DEV-MR-1, -2, -3 */
	dma_mr(pdn + 1, VIRTIO_IB_ACCESS_LOCAL_WRITE, -ENOENT);
	dma_mr(pdn, 1u << 5, -EINVAL);
	dma_mr(pdn, VIRTIO_IB_ACCESS_REMOTE_WRITE, -EINVAL);
	/* IBTA 10.6.3.1: REMOTE_ATOMIC needs LOCAL_WRITE, as REMOTE_WRITE does */
	dma_mr(pdn, VIRTIO_IB_ACCESS_REMOTE_ATOMIC, -EINVAL);
	dma_mr(pdn, VIRTIO_IB_ACCESS_REMOTE_ATOMIC | VIRTIO_IB_ACCESS_REMOTE_READ, -EINVAL);
	TAP_CHECK(rd.mrs.count == 0 && rd.pds.count == 1);

	a = dma_mr(pdn, VIRTIO_IB_ACCESS_ALL, 0);
	b = dma_mr(pdn, VIRTIO_IB_ACCESS_REMOTE_READ, 0);
	if (a == NULL || b == NULL)
		return;
	/* ROCE-DEV-MR-8, and keys that name their MR and nothing else */
	TAP_CHECK(a->lkey != b->lkey && a->rkey != b->rkey);
	TAP_CHECK(vur_rdma_mr_by_lkey(&rd, a->lkey) == a && vur_rdma_mr_by_rkey(&rd, b->rkey) == b);
	TAP_CHECK(vur_rdma_mr_by_lkey(&rd, a->lkey ^ (1u << 31)) == NULL);
	TAP_CHECK(vur_rdma_mr_by_rkey(&rd, a->obj.index) == NULL || a->rkey == a->obj.index);
	/* PD-3: busy while MRs hold it */
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == -EBUSY);

	/* ROCE-DEV-MR-9: the slot's next rkey is another one; old keys miss */
	idx = a->obj.index;
	lkey = a->lkey;
	rkey = a->rkey;
	TAP_CHECK(vur_rdma_dereg_mr(&rd, idx) == 0);
	TAP_CHECK(vur_rdma_dereg_mr(&rd, idx) == -ENOENT); /* MR-11 */
	TAP_CHECK(vur_rdma_mr_by_lkey(&rd, lkey) == NULL);
	/* slots are handed out round-robin: the third one is the freed slot again */
	dma_mr(pdn, 0, 0);
	dma_mr(pdn, 0, 0);
	a = dma_mr(pdn, VIRTIO_IB_ACCESS_ALL, 0);
	TAP_CHECK(a != NULL && a->obj.index == idx && a->rkey != rkey && a->lkey != lkey);
	TAP_CHECK(vur_rdma_mr_by_rkey(&rd, rkey) == NULL);
	TAP_CHECK(vur_rdma_dereg_mr(&rd, b->obj.index) == 0);
	b = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE | VIRTIO_IB_ACCESS_REMOTE_ATOMIC, 0);
	TAP_CHECK(b != NULL &&
			b->access ==
					(VIRTIO_IB_ACCESS_LOCAL_WRITE |
							VIRTIO_IB_ACCESS_REMOTE_ATOMIC));
	/* ROCE-DEV-MR-4: max_mr */
	dma_mr(pdn, 0, -ENOSPC);
	vur_rdma_dev_fini(&rd);
}

/* A REG_USER_MR command with room for 4 pages. */
struct reg_cmd {
	struct virtio_rdma_cmd_reg_user_mr c;
	__le64 pages[4];
};

static int
reg(struct reg_cmd *r, uint32_t pdn, uint64_t iova, uint64_t len, uint32_t npages,
		struct vur_rdma_mr **mr)
{
	r->c.pdn = rte_cpu_to_le_32(pdn);
	r->c.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_LOCAL_WRITE);
	r->c.virt_addr = rte_cpu_to_le_64(iova);
	r->c.length = rte_cpu_to_le_64(len);
	r->c.npages = rte_cpu_to_le_32(npages);
	return vur_rdma_reg_user_mr(&rd, &r->c, mr);
}

static void
user_mr(void)
{
	struct vur_rdma_mr *mr = NULL;
	struct reg_cmd r;
	uint32_t pdn;

	setup();
	pdn = new_pd();
	for (int i = 0; i < 4; i++)
		r.pages[i] = rte_cpu_to_le_64(MEM_BASE + 0x10000 + 0x1000 * (3 - i));
	/* The spec's example: 0x...1010 + 0x2000 spans 3 pages. */
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0x2000, 2, &mr) == -EINVAL); /* MR-6 */
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0x2000, 4, &mr) == -EINVAL);
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0, 0, &mr) == -EINVAL); /* MR-5 */
	TAP_CHECK(reg(&r, pdn, UINT64_MAX - 0xfff, 0x2000, 2, &mr) == -EINVAL);
	TAP_CHECK(reg(&r, pdn, 0, VUR_MAX_MR_SIZE + 4096, 1, &mr) == -EINVAL);
	/* MR-7: unaligned, outside, straddling the end of driver memory */
	r.pages[1] = rte_cpu_to_le_64(MEM_BASE + 0x10008);
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0x2000, 3, &mr) == -EFAULT);
	r.pages[1] = rte_cpu_to_le_64(MEM_BASE - 0x1000);
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0x2000, 3, &mr) == -EFAULT);
	r.pages[1] = rte_cpu_to_le_64(MEM_BASE + MEM_SIZE);
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0x2000, 3, &mr) == -EFAULT);
	TAP_CHECK(rd.mrs.count == 0 && rd.pds.objs != NULL);

	r.pages[1] = rte_cpu_to_le_64(MEM_BASE + MEM_SIZE - 0x1000);
	TAP_CHECK(reg(&r, pdn, 0x7f0000001010ULL, 0x2000, 3, &mr) == 0);
	TAP_CHECK(mr != NULL && mr->npages == 3 && mr->pages[1] == MEM_BASE + MEM_SIZE - 0x1000);
	TAP_CHECK(mr != NULL && mr->iova == 0x7f0000001010ULL && !mr->dma);
	/* fini frees the page list (ASan would report it otherwise) */
	vur_rdma_dev_fini(&rd);
}

static void
cqs(void)
{
	uint32_t cqn[4];

	setup();
	/* ROCE-DEV-CQ-1 */
	TAP_CHECK(vur_rdma_create_cq(&rd, 0, &cqn[0]) == -EINVAL);
	TAP_CHECK(vur_rdma_create_cq(&rd, rd.limits.max_cqe + 1, &cqn[0]) == -EINVAL);
	/* CQ-2, -3: CQ 0's virtqueue (3) is not ready, CQ 1's too small for 100 */
	vq_sizes[3] = 0;
	vq_sizes[4] = 32;
	vq_sizes[5] = 128;
	TAP_CHECK(vur_rdma_create_cq(&rd, 100, &cqn[0]) == 0 && cqn[0] == 2);
	TAP_CHECK(vur_rdma_create_cq(&rd, 32, &cqn[1]) == 0 && cqn[1] == 1);
	TAP_CHECK(vur_rdma_create_cq(&rd, 64, &cqn[2]) == 0 && cqn[2] == 3);
	TAP_CHECK(vur_rdma_create_cq(&rd, 1, &cqn[3]) == -ENOSPC);
	TAP_CHECK(rd.cqs.count == 3);
	/* CQ-7 */
	TAP_CHECK(vur_rdma_req_notify_cq(&rd, cqn[0], 0) == -EINVAL);
	TAP_CHECK(vur_rdma_req_notify_cq(&rd, cqn[0], 3) == -EINVAL);
	TAP_CHECK(vur_rdma_req_notify_cq(&rd, 0, 1) == -ENOENT);
	TAP_CHECK(vur_rdma_req_notify_cq(&rd, cqn[0], VIRTIO_IB_NOTIFY_SOLICITED) == 0);
	TAP_CHECK(vur_rdma_req_notify_cq(&rd, cqn[0], VIRTIO_IB_NOTIFY_NEXT_COMPLETION) == 0);
	rd.cqs.objs[0] = rd.cqs.objs[0]; /* keep the pool opaque otherwise */
	((struct vur_rdma_cq *)vur_pool_get(&rd.cqs, cqn[1]))->error = true;
	TAP_CHECK(vur_rdma_req_notify_cq(&rd, cqn[1], VIRTIO_IB_NOTIFY_SOLICITED) == -EIO);
	/* CQ-5 */
	TAP_CHECK(vur_rdma_destroy_cq(&rd, cqn[0]) == 0);
	TAP_CHECK(vur_rdma_destroy_cq(&rd, cqn[0]) == -ENOENT);
	TAP_CHECK(vur_rdma_destroy_cq(&rd, 99) == -ENOENT);
	vur_rdma_dev_fini(&rd);
}

static void
create_qp_cmd(struct virtio_rdma_cmd_create_qp *c, uint32_t pdn, uint8_t type, uint32_t cqn)
{
	memset(c, 0, sizeof(*c));
	c->pdn = rte_cpu_to_le_32(pdn);
	c->qp_type = type;
	c->send_cqn = rte_cpu_to_le_32(cqn);
	c->recv_cqn = rte_cpu_to_le_32(cqn);
	c->cap.max_send_wr = rte_cpu_to_le_32(16);
	c->cap.max_recv_wr = rte_cpu_to_le_32(16);
	c->cap.max_send_sge = rte_cpu_to_le_32(2);
	c->cap.max_recv_sge = rte_cpu_to_le_32(2);
}

static void
create_qps(void)
{
	struct virtio_rdma_cmd_create_qp c;
	uint32_t pdn, cqn, qpn, qpn2;

	setup();
	pdn = new_pd();
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	create_qp_cmd(&c, pdn + 1, VIRTIO_IB_QPT_RC, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -ENOENT); /* QP-1 */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_SMI, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL); /* QP-2 */
	create_qp_cmd(&c, pdn, 5, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.sq_sig_all = 2;
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL); /* QP-3 */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.recv_cqn = rte_cpu_to_le_32(cqn + 1);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -ENOENT); /* QP-4 */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.cap.max_inline_data = rte_cpu_to_le_32(513);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL); /* QP-5 */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.cap.max_recv_sge = rte_cpu_to_le_32(rd.limits.max_sge + 1);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	TAP_CHECK(rd.qps.count == 0 && rd.cqs.objs != NULL);

	/* QP-6, -7: GSI is QP 1 and once; others from 2, on ready and large queues */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_GSI, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0 && qpn == 1);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -ENOSPC);
	vq_sizes[7 + 2 * 2] = 0; /* QP 2's send queue not ready */
	vq_sizes[8 + 2 * 3] = 8; /* QP 3's receive queue too small */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0 && qpn == 4);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn2) == 0 && qpn2 == 5);
	/* CQ-6 and PD-3: busy while QPs use them */
	TAP_CHECK(vur_rdma_destroy_cq(&rd, cqn) == -EBUSY);
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == -EBUSY);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, 1) == 0 && vur_rdma_destroy_qp(&rd, qpn) == 0);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, qpn) == -ENOENT &&
			vur_rdma_destroy_qp(&rd, 0) == -ENOENT);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, qpn2) == 0);
	TAP_CHECK(vur_rdma_destroy_cq(&rd, cqn) == 0 && vur_rdma_destroy_pd(&rd, pdn) == 0);
	vur_rdma_dev_fini(&rd);
}

static int
create_srq(uint32_t pdn, uint32_t max_wr, uint32_t max_sge, uint32_t *srqn)
{
	struct virtio_rdma_cmd_create_srq c = {
		.pdn = rte_cpu_to_le_32(pdn),
		.max_wr = rte_cpu_to_le_32(max_wr),
		.max_sge = rte_cpu_to_le_32(max_sge),
	};

	return vur_rdma_create_srq(&rd, &c, srqn);
}

/* CREATE_SRQ's refusals and its number (ROCE-DEV-SRQ-1, -2, -3, -4, VQ-5). */
static void
srq_create_rules(void)
{
	uint32_t pdn, srqn, n[6], cqn, qpn;
	struct virtio_rdma_cmd_create_qp c;

	setup();
	pdn = new_pd();
	TAP_CHECK(rd.limits.max_srq == 6 && rd.limits.max_srq_wr >= 64 &&
			rd.limits.max_srq_sge == rd.limits.max_sge);
	TAP_CHECK(create_srq(pdn + 1, 16, 1, &srqn) == -ENOENT); /* SRQ-1 */
	TAP_CHECK(create_srq(pdn, 0, 1, &srqn) == -EINVAL);      /* SRQ-2 */
	TAP_CHECK(create_srq(pdn, rd.limits.max_srq_wr + 1, 1, &srqn) == -EINVAL);
	TAP_CHECK(create_srq(pdn, 16, rd.limits.max_srq_sge + 1, &srqn) == -EINVAL);
	TAP_CHECK(create_srq(pdn, 65, 1, &srqn) == -ENOSPC); /* SRQ-3: no virtqueue that large */
	TAP_CHECK(rd.srqs.count == 0);
	/* SRQ-4: from 2, on a ready receive virtqueue; the send one does not matter */
	vq_sizes[8 + 2 * 2] = 0;
	vq_sizes[7 + 2 * 3] = 0;
	TAP_CHECK(create_srq(pdn, 16, 0, &n[0]) == 0 && n[0] == 3);
	/* VQ-5: a QP does not take an SRQ's number, nor an SRQ a QP's */
	vq_sizes[8 + 2 * 2] = 64;
	vq_sizes[7 + 2 * 3] = 64;
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0 && qpn == 2);
	TAP_CHECK(create_srq(pdn, 16, 1, &n[1]) == 0 && n[1] == 4);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0 && qpn == 5);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, 2) == 0 && vur_rdma_destroy_qp(&rd, 5) == 0);
	/* SRQ-3: max_srq (6) live, then no number either way */
	for (unsigned int i = 2; i < 6; i++)
		TAP_CHECK(create_srq(pdn, 1, 1, &n[i]) == 0);
	TAP_CHECK(rd.srqs.count == 6);
	TAP_CHECK(create_srq(pdn, 1, 1, &srqn) == -ENOSPC);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -ENOSPC);
	/* PD-3: the SRQs hold the PD */
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == -EBUSY);
	/* SRQ-7: an unknown number, a QP's number */
	TAP_CHECK(vur_rdma_destroy_srq(&rd, 0) == -ENOENT &&
			vur_rdma_destroy_srq(&rd, 99) == -ENOENT);
	for (unsigned int i = 0; i < 6; i++)
		TAP_CHECK(vur_rdma_destroy_srq(&rd, n[i]) == 0);
	TAP_CHECK(vur_rdma_destroy_srq(&rd, n[0]) == -ENOENT);
	TAP_CHECK(vur_rdma_destroy_cq(&rd, cqn) == 0 && vur_rdma_destroy_pd(&rd, pdn) == 0);
	vur_rdma_dev_fini(&rd);
}

/* CREATE_QP on an SRQ (ROCE-DEV-SRQ-5, -6, QP-19) and DESTROY_SRQ while used (SRQ-7). */
static void
srq_qp_rules(void)
{
	uint32_t pdn, pdn2, srqn, cqn, qpn, qpn2, gsi;
	struct virtio_rdma_cmd_create_qp c;

	setup();
	pdn = new_pd();
	pdn2 = new_pd();
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	TAP_CHECK(create_srq(pdn, 32, 2, &srqn) == 0 && srqn == 2);
	/* QP-19: unknown flags */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.flags = 2;
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	/* SRQ-5: receive capacities must be 0 */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.flags = VIRTIO_RDMA_QP_F_SRQ;
	c.srqn = rte_cpu_to_le_32(srqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	c.cap.max_recv_wr = 0;
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL); /* max_recv_sge 2 */
	c.cap.max_recv_sge = 0;
	c.srqn = rte_cpu_to_le_32(3); /* not an SRQ */
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	c.srqn = rte_cpu_to_le_32(srqn);
	c.pdn = rte_cpu_to_le_32(pdn2); /* another PD */
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	c.pdn = rte_cpu_to_le_32(pdn);
	c.qp_type = VIRTIO_IB_QPT_GSI; /* the GSI QP keeps its own */
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	TAP_CHECK(rd.qps.count == 0 && rd.srqs.count == 1);
	/* SRQ-6: the receive virtqueue of the QP's number is not looked at */
	vq_sizes[8 + 2 * 3] = 0;
	c.qp_type = VIRTIO_IB_QPT_RC;
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0 && qpn == 3);
	c.qp_type = VIRTIO_IB_QPT_UD;
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn2) == 0 && qpn2 == 4);
	c.qp_type = VIRTIO_IB_QPT_UC;
	c.flags = 0; /* srqn ignored without the flag */
	c.cap.max_recv_wr = rte_cpu_to_le_32(1);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &gsi) == 0 && gsi == 5);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, gsi) == 0);
	/* SRQ-7: busy while QPs are on it; then destroyed */
	TAP_CHECK(vur_rdma_destroy_srq(&rd, srqn) == -EBUSY);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, qpn) == 0);
	TAP_CHECK(vur_rdma_destroy_srq(&rd, srqn) == -EBUSY);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, qpn2) == 0);
	TAP_CHECK(vur_rdma_destroy_srq(&rd, srqn) == 0);
	TAP_CHECK(vur_rdma_destroy_cq(&rd, cqn) == 0 && vur_rdma_destroy_pd(&rd, pdn) == 0 &&
			vur_rdma_destroy_pd(&rd, pdn2) == 0);
	/* QP-19: F_SRQ on a device without SRQs */
	vur_rdma_dev_fini(&rd);
	setup();
	rd.limits.max_srq = 0;
	pdn = new_pd();
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.cap.max_recv_wr = c.cap.max_recv_sge = 0;
	c.flags = VIRTIO_RDMA_QP_F_SRQ;
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EINVAL);
	TAP_CHECK(create_srq(pdn, 1, 1, &srqn) == -EOPNOTSUPP); /* CTRL-16 */
	vur_rdma_dev_fini(&rd);
}

static const uint8_t gid_v6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t gid_v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };

static void
gids_and_ahs(void)
{
	struct virtio_rdma_cmd_create_ah c = { 0 };
	uint8_t mc[16] = { 0xff, 0x02, [15] = 1 }, zero[16] = { 0 };
	uint32_t pdn, ah, ah2;

	setup();
	pdn = new_pd();
	/* ROCE-DEV-GID-1, -2 */
	TAP_CHECK(vur_rdma_add_gid(&rd, rd.limits.gid_tbl_len, gid_v6) == -EINVAL);
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, zero) == -EINVAL);
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, mc) == -EINVAL);
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, gid_v6) == 0);
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, gid_v4) == -EEXIST);
	TAP_CHECK(vur_rdma_add_gid(&rd, 1, gid_v4) == 0);
	TAP_CHECK(vur_rdma_del_gid(&rd, 2) == -ENOENT && vur_rdma_del_gid(&rd, 999) == -ENOENT);

	/* ROCE-DEV-AH-1: PD, then the address vector */
	c.pdn = rte_cpu_to_le_32(pdn + 1);
	memcpy(c.ah_attr.grh.dgid, gid_v6, 16);
	c.ah_attr.grh.dgid[15] = 2;
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah) == -ENOENT);
	c.pdn = rte_cpu_to_le_32(pdn);
	c.ah_attr.grh.sgid_index = 2; /* empty entry */
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah) == -EINVAL);
	c.ah_attr.grh.sgid_index = 1; /* IPv4 source, IPv6 destination */
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah) == -EINVAL);
	c.ah_attr.grh.sgid_index = 0;
	c.ah_attr.grh.flow_label = rte_cpu_to_le_32(0x100000);
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah) == -EINVAL);
	c.ah_attr.grh.flow_label = rte_cpu_to_le_32(0xfffff);
	memcpy(c.ah_attr.grh.dgid, zero, 16);
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah) == -EINVAL);
	memcpy(c.ah_attr.grh.dgid, gid_v6, 16);
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah) == 0);
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah2) == 0 && ah2 != ah);
	TAP_CHECK(vur_rdma_create_ah(&rd, &c, &ah2) == -ENOSPC); /* max_ah 2 */
	/* AH-3 and GID-3: the AH keeps the GID it was created with */
	TAP_CHECK(vur_rdma_del_gid(&rd, 0) == 0);
	TAP_CHECK(memcmp(((struct vur_rdma_ah *)vur_pool_get(&rd.ahs, ah))->av.sgid, gid_v6, 16) ==
			0);
	/* AH-2: wrong PD, then PD-3 */
	TAP_CHECK(vur_rdma_destroy_ah(&rd, pdn + 1, ah) == -ENOENT);
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == -EBUSY);
	TAP_CHECK(vur_rdma_destroy_ah(&rd, pdn, ah) == 0);
	TAP_CHECK(vur_rdma_destroy_ah(&rd, pdn, ah) == -ENOENT);
	vur_rdma_dev_fini(&rd);
}

static struct virtio_rdma_cmd_modify_qp m;

static int
modify(uint32_t qpn, uint32_t mask, uint8_t state)
{
	m.qpn = rte_cpu_to_le_32(qpn);
	m.attr_mask = rte_cpu_to_le_32(mask);
	m.qp_state = state;
	return vur_rdma_modify_qp(&rd, &m);
}

#define A(x) VIRTIO_IB_QP_##x

static void
modify_qps(void)
{
	struct virtio_rdma_cmd_create_qp c;
	struct virtio_rdma_cmd_query_qp q = { 0 };
	struct virtio_rdma_ack_query_qp a;
	uint32_t pdn, cqn, qpn, rtr;

	setup();
	pdn = new_pd();
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, gid_v6) == 0);
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0);
	memset(&m, 0, sizeof(m));

	TAP_CHECK(modify(qpn + 1, A(STATE), VIRTIO_IB_QPS_INIT) == -ENOENT); /* QP-8 */
	TAP_CHECK(modify(qpn, A(STATE) | (1u << 17), 1) == -EINVAL);         /* QP-9 */
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_RTS) == -EINVAL);      /* QPS-1 */
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_INIT) == -EINVAL);     /* QPS-2 */
	TAP_CHECK(modify(qpn, A(STATE) | A(ACCESS_FLAGS) | A(QKEY), 1) == -EINVAL);
	TAP_CHECK(modify(qpn, A(STATE), 7) == -EINVAL);
	m.qp_access_flags = rte_cpu_to_le_32(1u << 5);
	TAP_CHECK(modify(qpn, A(STATE) | A(ACCESS_FLAGS), VIRTIO_IB_QPS_INIT) == -EINVAL);
	m.qp_access_flags = rte_cpu_to_le_32(
			VIRTIO_IB_ACCESS_REMOTE_READ | VIRTIO_IB_ACCESS_REMOTE_ATOMIC);
	TAP_CHECK(modify(qpn, A(STATE) | A(ACCESS_FLAGS), VIRTIO_IB_QPS_INIT) == 0);

	/* INIT -> RTR: each value range of QP-12, the AV of QP-13, then success */
	rtr = A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
			A(MIN_RNR_TIMER);
	TAP_CHECK(modify(qpn, rtr & ~A(AV), VIRTIO_IB_QPS_RTR) == -EINVAL);
	memcpy(m.ah_attr.grh.dgid, gid_v6, 16);
	m.ah_attr.grh.dgid[15] = 9;
	m.path_mtu = VIRTIO_IB_MTU_2048; /* above the port MTU (1024) */
	m.dest_qp_num = rte_cpu_to_le_32(0x12);
	m.rq_psn = rte_cpu_to_le_32(0x1000000);
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTR) == -EINVAL);
	m.path_mtu = VIRTIO_IB_MTU_1024;
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTR) == -EINVAL); /* rq_psn */
	m.rq_psn = rte_cpu_to_le_32(0xabcdef);
	m.min_rnr_timer = 32;
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTR) == -EINVAL);
	m.min_rnr_timer = 12;
	m.max_dest_rd_atomic = rd.limits.max_qp_rd_atom + 1;
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTR) == -EINVAL);
	m.max_dest_rd_atomic = 4;
	m.ah_attr.grh.sgid_index = 3; /* no GID there */
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTR) == -EINVAL);
	m.ah_attr.grh.sgid_index = 0;
	m.cur_qp_state = VIRTIO_IB_QPS_RESET; /* QP-11; CUR_STATE not accepted here anyway */
	TAP_CHECK(modify(qpn, rtr | A(CUR_STATE), VIRTIO_IB_QPS_RTR) == -EINVAL);
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTR) == 0);

	/* RTR -> RTS with CUR_STATE: wrong, then right */
	m.sq_psn = rte_cpu_to_le_32(0x123456);
	m.timeout = 14;
	m.retry_cnt = 8;
	m.rnr_retry = 7;
	m.max_rd_atomic = 2;
	m.cur_qp_state = VIRTIO_IB_QPS_INIT;
	rtr = A(STATE) | A(CUR_STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
			A(MAX_QP_RD_ATOMIC);
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTS) == -EINVAL);
	m.cur_qp_state = VIRTIO_IB_QPS_RTR;
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTS) == -EINVAL); /* retry_cnt 8 */
	m.retry_cnt = 7;
	TAP_CHECK(modify(qpn, rtr, VIRTIO_IB_QPS_RTS) == 0);
	TAP_CHECK(modify(qpn, A(CAP), 0) == -EINVAL); /* CAP is never modified */

	/* QP-15: everything comes back, whatever the mask */
	q.qpn = rte_cpu_to_le_32(qpn);
	q.attr_mask = rte_cpu_to_le_32(1u << 20);
	TAP_CHECK(vur_rdma_query_qp(&rd, &q, &a) == -EINVAL);
	q.attr_mask = 0;
	memset(&a, 0xee, sizeof(a));
	memset(a.padding, 0, sizeof(a.padding));
	memset(a.reserved, 0, sizeof(a.reserved));
	a.cap.padding = 0; /* the dispatcher hands handlers a zeroed ack */
	memset(a.ah_attr.reserved, 0, sizeof(a.ah_attr.reserved));
	TAP_CHECK(vur_rdma_query_qp(&rd, &q, &a) == 0);
	TAP_CHECK(a.qp_state == VIRTIO_IB_QPS_RTS && a.path_mtu == VIRTIO_IB_MTU_1024);
	TAP_CHECK(a.sq_draining == 0 && a.max_rd_atomic == 2 && a.max_dest_rd_atomic == 4);
	TAP_CHECK(a.min_rnr_timer == 12 && a.timeout == 14 && a.retry_cnt == 7 && a.rnr_retry == 7);
	TAP_CHECK(rte_le_to_cpu_32(a.rq_psn) == 0xabcdef && rte_le_to_cpu_32(a.sq_psn) == 0x123456);
	TAP_CHECK(rte_le_to_cpu_32(a.dest_qp_num) == 0x12 && a.qkey == 0);
	TAP_CHECK(rte_le_to_cpu_32(a.qp_access_flags) ==
			(VIRTIO_IB_ACCESS_REMOTE_READ | VIRTIO_IB_ACCESS_REMOTE_ATOMIC));
	TAP_CHECK(rte_le_to_cpu_32(a.cap.max_send_wr) == 16 && a.cap.padding == 0);
	TAP_CHECK(a.ah_attr.grh.dgid[15] == 9 && a.ah_attr.grh.padding == 0);

	/* Any state to ERR and RESET */
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_ERR) == 0);
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_RTS) == -EINVAL);
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_RESET) == 0);
	/* RESET forgets every attribute but cap */
	memset(&a, 0, sizeof(a));
	TAP_CHECK(vur_rdma_query_qp(&rd, &q, &a) == 0);
	TAP_CHECK(a.qp_state == VIRTIO_IB_QPS_RESET && a.path_mtu == 0 && a.dest_qp_num == 0);
	TAP_CHECK(a.qp_access_flags == 0 && a.ah_attr.grh.dgid[15] == 0);
	TAP_CHECK(rte_le_to_cpu_32(a.cap.max_send_wr) == 16);
	/* RESET to RESET and ERR to ERR exist, as in IBTA */
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_RESET) == 0);
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_ERR) == 0);
	TAP_CHECK(modify(qpn, A(STATE), VIRTIO_IB_QPS_ERR) == 0);
	vur_rdma_dev_fini(&rd);
}

static int
alloc_mr(uint32_t pdn, uint32_t max_num_sg, struct vur_rdma_mr **mrp)
{
	struct virtio_rdma_cmd_alloc_mr c = {
		.pdn = rte_cpu_to_le_32(pdn),
		.max_num_sg = rte_cpu_to_le_32(max_num_sg),
	};

	return vur_rdma_alloc_mr(&rd, &c, mrp);
}

/* ALLOC_MR: its PD, max_num_sg in 1..max_fast_reg_page_list_len, max_mr; a free MR, key byte 0. */
static void
alloc_mr_limits(void)
{
	struct vur_rdma_mr *mr = NULL, *m2 = NULL;
	uint32_t pdn, n;

	setup();
	pdn = new_pd();
	TAP_CHECK(rd.limits.max_fast_reg_page_list_len == VUR_MAX_FAST_REG_PAGES);
	TAP_CHECK(alloc_mr(pdn + 1, 1, &mr) == -ENOENT);
	TAP_CHECK(alloc_mr(pdn, 0, &mr) == -EINVAL);
	TAP_CHECK(alloc_mr(pdn, VUR_MAX_FAST_REG_PAGES + 1, &mr) == -EINVAL);
	TAP_CHECK(alloc_mr(pdn, UINT32_MAX, &mr) == -EINVAL);
	TAP_CHECK(rd.mrs.count == 0);
	TAP_CHECK(alloc_mr(pdn, VUR_MAX_FAST_REG_PAGES, &mr) == 0);
	TAP_CHECK(mr->fast && !mr->valid && mr->max_pages == VUR_MAX_FAST_REG_PAGES);
	TAP_CHECK(mr->lkey == mr->rkey && (mr->rkey & VUR_MR_KEY_BYTE_MASK) == 0);
	TAP_CHECK(vur_rdma_mr_at_key(&rd, mr->rkey) == mr);
	TAP_CHECK(vur_rdma_mr_at_key(&rd, mr->rkey | 0x77) == mr); /* any key byte: its slot */
	/* invalid: no key of it is good */
	TAP_CHECK(vur_rdma_mr_by_rkey(&rd, mr->rkey) == NULL);
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == -EBUSY);
	for (n = 1; n < rd.limits.max_mr; n++)
		TAP_CHECK(alloc_mr(pdn, 1, &m2) == 0);
	TAP_CHECK(alloc_mr(pdn, 1, &m2) == -ENOSPC); /* ROCE-DEV-MR-4 */
	TAP_CHECK(rd.mrs.count == rd.limits.max_mr);
	vur_rdma_dev_fini(&rd);
}

static uint64_t pages[4];

static struct vur_rdma_fast_reg
reg_of(const struct vur_rdma_mr *mr, uint32_t pdn, uint8_t key_byte)
{
	for (uint32_t i = 0; i < RTE_DIM(pages); i++)
		pages[i] = MEM_BASE + 0x10000 * (i + 1);
	return (struct vur_rdma_fast_reg){
		.pdn = pdn,
		.key = (mr->rkey & ~VUR_MR_KEY_BYTE_MASK) | key_byte,
		.iova = 0x7f0000000100ULL,
		.length = 3 * 4096 - 0x100,
		.access = VIRTIO_IB_ACCESS_LOCAL_WRITE | VIRTIO_IB_ACCESS_REMOTE_WRITE,
		.page_shift = 12,
		.pages = pages,
		.npages = 3,
	};
}

/*
 * IBTA 10.6: free -> REG_MR -> valid (its key, pages, access) -> LOCAL_INV
 * or remote invalidation -> free; every refusal leaves the MR as it was.
 */
static void
fast_mr_states(void)
{
	struct vur_rdma_mr *mr = NULL, *other = NULL, *user = NULL;
	struct virtio_rdma_cmd_get_dma_mr dc = { 0 };
	struct vur_rdma_fast_reg r, bad;
	uint32_t pdn, pd2, key, slot_key;

	setup();
	pdn = new_pd();
	pd2 = new_pd();
	TAP_CHECK(alloc_mr(pdn, 3, &mr) == 0 && alloc_mr(pd2, 3, &other) == 0);
	dc.pdn = rte_cpu_to_le_32(pdn);
	TAP_CHECK(vur_rdma_get_dma_mr(&rd, &dc, &user) == 0);
	r = reg_of(mr, pdn, 0x5a);
	key = r.key;
	/* every refusal */
	bad = r;
	bad.pdn = pd2;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EACCES);
	bad = r;
	bad.key ^= 1u << 31; /* another tag */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = r;
	bad.access = VIRTIO_IB_ACCESS_REMOTE_WRITE; /* without LOCAL_WRITE */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad.access = VIRTIO_IB_ACCESS_REMOTE_ATOMIC; /* without LOCAL_WRITE */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad.access = VIRTIO_IB_ACCESS_MW_BIND << 1;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = r;
	bad.page_shift = 11;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad.page_shift = 31;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = r;
	bad.npages = 4; /* more than max_num_sg */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad.npages = 0;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = r;
	bad.length = 3 * 4096 - 0xff; /* one byte past the third page */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad.length = 0;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = r;
	bad.iova = UINT64_MAX - 10; /* wraps */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = r;
	pages[1] += 0x800; /* not a page */
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &bad) == -EINVAL);
	bad = reg_of(mr, pdn, 0x5a);
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, user, &bad) == -EINVAL); /* not ALLOC_MR's */
	TAP_CHECK(!mr->valid && mr->rkey == (key & ~VUR_MR_KEY_BYTE_MASK));
	/* free -> valid */
	r = reg_of(mr, pdn, 0x5a);
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &r) == 0);
	TAP_CHECK(mr->valid && mr->lkey == key && mr->rkey == key && mr->npages == 3);
	TAP_CHECK(mr->iova == r.iova && mr->length == r.length && mr->page_shift == 12);
	TAP_CHECK(mr->pages[2] == MEM_BASE + 0x30000 && mr->access == r.access);
	TAP_CHECK(vur_rdma_mr_by_rkey(&rd, key) == mr && vur_rdma_mr_by_lkey(&rd, key) == mr);
	TAP_CHECK(vur_rdma_mr_by_rkey(&rd, key ^ 1) == NULL);
	/* valid: no second REG_MR */
	r = reg_of(mr, pdn, 0x5b);
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &r) == -EBUSY && mr->rkey == key);
	/* invalidation: the whole key, the QP's PD, ALLOC_MR's MRs only */
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, mr, pdn, key ^ 1, "test") == -EINVAL);
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, mr, pd2, key, "test") == -EACCES);
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, user, pdn, user->rkey, "test") == -EINVAL);
	TAP_CHECK(mr->valid && user->valid);
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, mr, pdn, key, "test") == 0 && !mr->valid);
	TAP_CHECK(vur_rdma_mr_by_rkey(&rd, key) == NULL);
	/* invalid already, the same key: still success */
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, mr, pdn, key, "test") == 0 && !mr->valid);
	/* free again: a new key byte, a 64 KiB page */
	r = reg_of(mr, pdn, 0x5b);
	r.page_shift = 16;
	r.npages = 1;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, mr, &r) == 0 && mr->rkey == r.key);
	/* DEREG_MR in any state; the slot's next MR has another tag */
	slot_key = mr->rkey;
	TAP_CHECK(alloc_mr(pdn, 1, &other) == 0); /* the last slot: the next takes mr's */
	TAP_CHECK(vur_rdma_dereg_mr(&rd, mr->obj.index) == 0);
	TAP_CHECK(alloc_mr(pdn, 1, &user) == 0 && user == mr);
	TAP_CHECK((mr->rkey | VUR_MR_KEY_BYTE_MASK) != (slot_key | VUR_MR_KEY_BYTE_MASK));
	TAP_CHECK(vur_rdma_mr_at_key(&rd, slot_key) == mr && !mr->valid);
	vur_rdma_dev_fini(&rd);
}

static int
alloc_mw(uint32_t pdn, uint8_t type, struct vur_rdma_mw **mwp)
{
	struct virtio_rdma_cmd_alloc_mw c = { .pdn = rte_cpu_to_le_32(pdn), .type = type };

	return vur_rdma_alloc_mw(&rd, &c, mwp);
}

/*
 * ALLOC_MW and DEALLOC_MW (ROCE-DEV-MW-1 to -3), the shared key space
 * (ROCE-DEV-MR-16), handles never those of live MWs (ROCE-DEV-CTRL-14).
 */
static void
mw_alloc(void)
{
	struct vur_rdma_mw *mw = NULL, *m2 = NULL, *m3 = NULL;
	struct vur_rdma_mr *mr;
	uint32_t pdn, old;

	setup();
	pdn = new_pd();
	/* ROCE-DEV-MW-1: a live PD, type 1 or 2, max_mw */
	TAP_CHECK(alloc_mw(pdn + 1, VIRTIO_IB_MW_TYPE_1, &mw) == -ENOENT);
	TAP_CHECK(alloc_mw(0, VIRTIO_IB_MW_TYPE_1, &mw) == -ENOENT);
	TAP_CHECK(alloc_mw(pdn, 0, &mw) == -EINVAL);
	TAP_CHECK(alloc_mw(pdn, 3, &mw) == -EINVAL);
	TAP_CHECK(alloc_mw(pdn, 0xff, &mw) == -EINVAL);
	TAP_CHECK(rd.mws.count == 0 && rd.pds.count == 1);
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_1, &mw) == 0);
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_2, &m2) == 0);
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_1, &m3) == -ENOSPC);
	TAP_CHECK(mw->obj.index != m2->obj.index); /* ROCE-DEV-CTRL-14 */
	/* ROCE-DEV-MW-2: not bound, key byte 0 */
	TAP_CHECK(!mw->bound && !m2->bound && m2->type == VIRTIO_IB_MW_TYPE_2);
	TAP_CHECK((mw->rkey & VUR_MR_KEY_BYTE_MASK) == 0 && (m2->rkey & VUR_MR_KEY_BYTE_MASK) == 0);
	/* ROCE-DEV-MR-16: the key index of an MW is no MR's, any key byte */
	mr = dma_mr(pdn, VIRTIO_IB_ACCESS_MW_BIND, 0);
	TAP_CHECK(mw->obj.index > rd.limits.max_mr && m2->obj.index > rd.limits.max_mr);
	TAP_CHECK(vur_rdma_mw_at_key(&rd, mw->rkey | 0x33) == mw);
	TAP_CHECK(vur_rdma_mr_at_key(&rd, mw->rkey | 0x33) == NULL);
	TAP_CHECK(vur_rdma_mr_at_key(&rd, m2->rkey) == NULL);
	TAP_CHECK(vur_rdma_mw_at_key(&rd, mr->rkey) == NULL);
	TAP_CHECK(vur_rdma_mw_at_key(&rd, mr->lkey) == NULL);
	TAP_CHECK(((mw->rkey ^ mr->rkey) >> 8 & ((1u << rd.mr_index_bits) - 1)) != 0);
	/* a PD with MWs stays (ROCE-DEV-PD-3) */
	TAP_CHECK(vur_rdma_dereg_mr(&rd, mr->obj.index) == 0);
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == -EBUSY);
	/* ROCE-DEV-MW-3: a live MW only */
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, 0) == -ENOENT);
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, 1) == -ENOENT); /* an MR's index */
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, UINT32_MAX) == -ENOENT);
	old = mw->rkey;
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, mw->obj.index) == 0);
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, mw->obj.index) == -ENOENT);
	TAP_CHECK(vur_rdma_mw_at_key(&rd, old) == NULL);
	/* the slot again: another tag, so the old key stays dead */
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_2, &m3) == 0 && m3 == mw);
	TAP_CHECK((m3->rkey | VUR_MR_KEY_BYTE_MASK) != (old | VUR_MR_KEY_BYTE_MASK));
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, m2->obj.index) == 0);
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, m3->obj.index) == 0);
	TAP_CHECK(vur_rdma_destroy_pd(&rd, pdn) == 0);
	vur_rdma_dev_fini(&rd);
}

/* A device without memory windows (max_mw 0): ROCE-DEV-CTRL-16, ROCE-DEV-MR-15, ROCE-DEV-QP-18. */
static void
mw_not_offered(void)
{
	const struct vur_rdma_env env = { .vq_size = vq_size, .mem_ok = mem_ok, .n_pairs = 1 };
	struct vur_rdma_limits l;
	struct vur_rdma_mw *mw = NULL;
	uint32_t pdn;

	vur_rdma_limits_default(&l, 8, 4);
	l.max_mw = 0;
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
	pdn = new_pd();
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_1, &mw) == -EOPNOTSUPP);
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, l.max_mr + 1) == -ENOENT);
	dma_mr(pdn, VIRTIO_IB_ACCESS_MW_BIND, -EINVAL);
	TAP_CHECK(rd.mrs.count == 0);
	vur_rdma_dev_fini(&rd);
	/* with them: MW_BIND is an MR's access (ROCE-DEV-MR-15) */
	setup();
	pdn = new_pd();
	TAP_CHECK(dma_mr(pdn, VIRTIO_IB_ACCESS_MW_BIND | VIRTIO_IB_ACCESS_LOCAL_WRITE, 0) != NULL);
	dma_mr(pdn, VIRTIO_IB_ACCESS_MW_BIND << 1, -EINVAL);
	vur_rdma_dev_fini(&rd);
}

static struct vur_rdma_mw_bind
bind_of(const struct vur_rdma_mw *mw, const struct vur_rdma_mr *mr, uint32_t pdn, uint8_t key_byte)
{
	return (struct vur_rdma_mw_bind){
		.pdn = pdn,
		.qpn = 5,
		.rkey = (mw->rkey & ~VUR_MR_KEY_BYTE_MASK) | key_byte,
		.mr_lkey = mr->lkey,
		.access = VIRTIO_IB_ACCESS_REMOTE_READ | VIRTIO_IB_ACCESS_REMOTE_WRITE,
		.addr = mr->iova + 0x100,
		.length = 0x200,
	};
}

/* Every check of a BIND_MW (ROCE-DEV-MW-7) changes nothing; then MW-8. */
static void
mw_bind_rules(void)
{
	struct vur_rdma_mr *mr = NULL, *ro = NULL, *nobind = NULL, *other = NULL, *fast = NULL;
	struct vur_rdma_mw *mw = NULL, *mw2 = NULL;
	struct vur_rdma_mw_bind b, bad;
	struct vur_rdma_fast_reg r;
	uint32_t pdn, pd2, old, key;

	setup();
	pdn = new_pd();
	pd2 = new_pd();
	TAP_CHECK(alloc_mr(pdn, 3, &fast) == 0);
	r = reg_of(fast, pdn, 0x11);
	r.access |= VIRTIO_IB_ACCESS_MW_BIND;
	TAP_CHECK(vur_rdma_mr_fast_reg(&rd, fast, &r) == 0);
	mr = fast;
	ro = dma_mr(pdn, VIRTIO_IB_ACCESS_MW_BIND, 0); /* no LOCAL_WRITE */
	nobind = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, 0);
	other = dma_mr(pd2, VIRTIO_IB_ACCESS_MW_BIND | VIRTIO_IB_ACCESS_LOCAL_WRITE, 0);
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_1, &mw) == 0);
	TAP_CHECK(alloc_mw(pdn, VIRTIO_IB_MW_TYPE_2, &mw2) == 0);
	b = bind_of(mw, mr, pdn, 0x42);
	old = mw->rkey;
	/* the MW: its key index (tag too) and its PD */
	bad = b;
	bad.rkey ^= 1u << 31;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -ENOENT);
	bad = b;
	bad.pdn = pd2;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, other, &bad, &key) == -EACCES);
	/* the MR: live and valid (NULL: none at the lkey's index), its lkey, its PD, MW_BIND */
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, NULL, &b, &key) == -ENOENT);
	bad = b;
	bad.mr_lkey ^= 1;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -ENOENT);
	bad = b;
	bad.mr_lkey = other->lkey;
	bad.addr = 0x1000;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, other, &bad, &key) == -EACCES);
	bad.mr_lkey = nobind->lkey;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, nobind, &bad, &key) == -EACCES);
	/* within the MR */
	bad = b;
	bad.addr = mr->iova - 1;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -ERANGE);
	bad.addr = mr->iova + mr->length - 0x1ff;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -ERANGE);
	bad.addr = UINT64_MAX - 0x10;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -ERANGE);
	bad = b;
	bad.length = mr->length + 1;
	bad.addr = mr->iova;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -ERANGE);
	/* the rights: REMOTE_* only; write and atomic need the MR's LOCAL_WRITE */
	bad = b;
	bad.access |= VIRTIO_IB_ACCESS_LOCAL_WRITE;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -EINVAL);
	bad.access = VIRTIO_IB_ACCESS_MW_BIND;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &bad, &key) == -EINVAL);
	bad = b;
	bad.mr_lkey = ro->lkey;
	bad.addr = 0x1000;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, ro, &bad, &key) == -EACCES);
	bad.access = VIRTIO_IB_ACCESS_REMOTE_ATOMIC;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, ro, &bad, &key) == -EACCES);
	TAP_CHECK(!mw->bound && mw->rkey == old && mr->mw_bound == 0 && ro->mw_bound == 0);
	/* read only on an MR without LOCAL_WRITE is fine; a DMA MR's range is any */
	bad.access = VIRTIO_IB_ACCESS_REMOTE_READ;
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, ro, &bad, &key) == 0 && key == 0);
	TAP_CHECK(mw->bound && ro->mw_bound == 1 && mw->mr_index == ro->obj.index);
	/* ROCE-DEV-MW-8, type 1: bound again elsewhere, the key byte the WR's */
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, mr, &b, &key) == 0 && key == ro->obj.index);
	ro->mw_bound--; /* what the caller does with the old MR's count */
	TAP_CHECK(mw->bound && mw->rkey == ((old & ~VUR_MR_KEY_BYTE_MASK) | 0x42));
	TAP_CHECK(mw->addr == b.addr && mw->length == b.length && mw->access == b.access);
	TAP_CHECK(mw->mr_index == mr->obj.index && mw->mr_lkey == mr->lkey && mr->mw_bound == 1);
	/* ROCE-DEV-MW-5, -11: the MR stays while an MW is bound to it */
	TAP_CHECK(vur_rdma_dereg_mr(&rd, mr->obj.index) == -EBUSY);
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, mr, pdn, mr->rkey, "test") == -EBUSY && mr->valid);
	/* a type 1 MW cannot be invalidated (ROCE-DEV-MW-11) */
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw, pdn, VUR_RDMA_MW_NO_QP, mw->rkey, "test", &key) ==
			-EINVAL);
	TAP_CHECK(mw->bound);
	/* unbind: addr 0, length 0, whatever the MR and access say */
	bad = b;
	bad.addr = bad.length = 0;
	bad.mr_lkey = 0x12345600;
	bad.access = 0xff;
	bad.rkey = (old & ~VUR_MR_KEY_BYTE_MASK) | 0x43;
	TAP_CHECK(vur_rdma_mw_unbinds(mw, &bad));
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw, NULL, &bad, &key) == 0 && key == mr->obj.index);
	mr->mw_bound--;
	TAP_CHECK(!mw->bound && (mw->rkey & VUR_MR_KEY_BYTE_MASK) == 0x43);
	/* type 2: length 0 is no unbind */
	bad = bind_of(mw2, mr, pdn, 1);
	bad.addr = bad.length = 0;
	TAP_CHECK(!vur_rdma_mw_unbinds(mw2, &bad));
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw2, mr, &bad, &key) == -EBUSY && !mw2->bound);
	b = bind_of(mw2, mr, pdn, 1);
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw2, mr, &b, &key) == 0 && key == 0);
	TAP_CHECK(mw2->bound && mw2->qpn == 5 && mr->mw_bound == 1);
	/* bound: no second bind, not even from its QP */
	b = bind_of(mw2, mr, pdn, 2);
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw2, mr, &b, &key) == -EBUSY);
	TAP_CHECK((mw2->rkey & VUR_MR_KEY_BYTE_MASK) == 1 && mr->mw_bound == 1);
	/* invalidation of a type 2 MW (ROCE-DEV-MW-10, -12) */
	key = mw2->rkey;
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pdn, VUR_RDMA_MW_NO_QP, key ^ 1, "t", &old) ==
			-EINVAL);
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pd2, VUR_RDMA_MW_NO_QP, key, "t", &old) ==
			-EACCES);
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pdn, 6, key, "t", &old) == -EACCES);
	TAP_CHECK(mw2->bound);
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pdn, 5, key, "t", &old) == 0);
	TAP_CHECK(!mw2->bound && old == mr->obj.index && mw2->rkey == key);
	mr->mw_bound--;
	/* unbound: LOCAL_INV succeeds, a remote one does not */
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pdn, 5, key, "t", &old) == -EACCES);
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pdn, VUR_RDMA_MW_NO_QP, key, "t", &old) == 0);
	TAP_CHECK(old == 0);
	/* ROCE-DEV-MW-13: its QP destroyed, it stays bound to no QP */
	b = bind_of(mw2, mr, pdn, 3);
	TAP_CHECK(vur_rdma_mw_bind(&rd, mw2, mr, &b, &key) == 0);
	vur_rdma_mw_qp_gone(&rd, 4);
	TAP_CHECK(mw2->qpn == 5);
	vur_rdma_mw_qp_gone(&rd, 5);
	TAP_CHECK(mw2->bound && mw2->qpn == VUR_RDMA_MW_NO_QP);
	TAP_CHECK(vur_rdma_mw_invalidate(&rd, mw2, pdn, 5, mw2->rkey, "t", &old) == -EACCES);
	/* ROCE-DEV-MW-3: DEALLOC_MW of a bound MW frees the MR */
	TAP_CHECK(mr->mw_bound == 1 && vur_rdma_dereg_mr(&rd, mr->obj.index) == -EBUSY);
	TAP_CHECK(vur_rdma_dealloc_mw(&rd, mw2->obj.index) == 0 && mr->mw_bound == 0);
	TAP_CHECK(vur_rdma_mr_invalidate(&rd, mr, pdn, mr->rkey, "test") == 0);
	TAP_CHECK(vur_rdma_dereg_mr(&rd, mr->obj.index) == 0);
	vur_rdma_dev_fini(&rd);
}

static uint32_t
ud_qp(uint32_t pdn, uint32_t cqn)
{
	struct virtio_rdma_cmd_create_qp c;
	uint32_t qpn = UINT32_MAX;

	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_UD, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0);
	return qpn;
}

static int
mcast(bool attach, uint32_t qpn, const uint8_t *gid)
{
	struct virtio_rdma_cmd_mcast c = { .qpn = rte_cpu_to_le_32(qpn) };

	memcpy(c.gid, gid, 16);
	return attach ? vur_rdma_attach_mcast(&rd, &c) : vur_rdma_detach_mcast(&rd, &c);
}

/* Multicast GIDs and the Ethernet addresses they map to (RFC 1112, RFC 2464). */
static void
mcast_gids(void)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 239, 129, 30, 1 };
	static const uint8_t v6[16] = { 0xff, 0x1e, [14] = 0x1e, [15] = 0x01 };
	uint8_t g[16], mac[6];

	TAP_CHECK(vur_rdma_gid_is_mcast(v4) && vur_rdma_gid_is_mcast(v6));
	memcpy(g, v4, 16);
	g[12] = 224;
	TAP_CHECK(vur_rdma_gid_is_mcast(g));
	g[12] = 240; /* class E */
	TAP_CHECK(!vur_rdma_gid_is_mcast(g));
	TAP_CHECK(!vur_rdma_gid_is_mcast(gid_v4) && !vur_rdma_gid_is_mcast(gid_v6));
	memcpy(g, v4, 16);
	g[9] = 1; /* not IPv4-mapped */
	TAP_CHECK(!vur_rdma_gid_is_mcast(g));
	vur_rdma_mcast_mac(v4, mac);
	TAP_CHECK(memcmp(mac, "\x01\x00\x5e\x01\x1e\x01", 6) == 0); /* 23 bits: 129 -> 1 */
	vur_rdma_mcast_mac(v6, mac);
	TAP_CHECK(memcmp(mac, "\x33\x33\x00\x00\x1e\x01", 6) == 0);
}

/* ROCE-DEV-MCAST-1 to -5, with small limits. */
static void
mcast_rules(void)
{
	const struct vur_rdma_env env = { .vq_size = vq_size, .mem_ok = mem_ok, .n_pairs = 1 };
	uint8_t g1[16] = { 0xff, 0x02, [15] = 1 }, g2[16], g3[16];
	struct virtio_rdma_cmd_create_qp c;
	struct vur_rdma_limits l;
	uint32_t pdn, cqn, q1, q2, q3, rc;

	vur_rdma_limits_default(&l, 8, 4);
	l.max_mcast_grp = 2;
	l.max_mcast_qp_attach = 2;
	l.max_total_mcast_qp_attach = 3;
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
	memcpy(g2, g1, 16);
	g2[15] = 2;
	memcpy(g3, g1, 16);
	g3[15] = 3;
	pdn = new_pd();
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	q1 = ud_qp(pdn, cqn);
	q2 = ud_qp(pdn, cqn);
	q3 = ud_qp(pdn, cqn);
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &rc) == 0);
	/* MCAST-1 */
	TAP_CHECK(mcast(true, rc, g1) == -ENOENT && mcast(true, 7, g1) == -ENOENT);
	TAP_CHECK(mcast(true, q1, gid_v6) == -EINVAL && mcast(false, q1, gid_v4) == -EINVAL);
	/* MCAST-2: two QPs a group, three attachments, two groups */
	TAP_CHECK(mcast(true, q1, g1) == 0 && mcast(true, q2, g1) == 0);
	TAP_CHECK(mcast(true, q3, g1) == -ENOSPC);
	TAP_CHECK(mcast(true, q1, g1) == 0); /* MCAST-3 */
	TAP_CHECK(mcast(true, q1, g2) == 0 && rd.mcast_attached == 3);
	TAP_CHECK(mcast(true, q2, g2) == -ENOSPC);
	TAP_CHECK(mcast(false, q1, g1) == 0);
	TAP_CHECK(mcast(true, q3, g3) == -ENOSPC); /* g1 (q2) and g2 (q1) are two groups */
	TAP_CHECK(mcast(false, q2, g1) == 0 && mcast(true, q3, g3) == 0);
	TAP_CHECK(vur_rdma_mcast_find(&rd, g1) == NULL && vur_rdma_mcast_find(&rd, g3) != NULL);
	/* MCAST-4 */
	TAP_CHECK(mcast(false, q2, g1) == -ENOENT && mcast(false, q3, g2) == -ENOENT);
	/* MCAST-5: the group goes with its last QP */
	TAP_CHECK(vur_rdma_destroy_qp(&rd, q3) == 0);
	TAP_CHECK(vur_rdma_mcast_find(&rd, g3) == NULL && rd.mcast_attached == 1);
	vur_rdma_dev_fini(&rd);
}

/* AHs may name a group (its MAC the group's), QPs may not; nothing without the capability. */
static void
mcast_address_vectors(void)
{
	const struct vur_rdma_env env = { .vq_size = vq_size, .mem_ok = mem_ok, .n_pairs = 1 };
	struct virtio_rdma_ah_attr w = { .dmac = { 2, 0, 0, 0, 0, 1 } };
	struct vur_rdma_limits l;
	struct vur_rdma_av av;
	uint32_t pdn, cqn, q1;

	setup();
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, gid_v6) == 0);
	w.grh.dgid[0] = 0xff;
	w.grh.dgid[1] = 0x02;
	w.grh.dgid[15] = 0x09;
	TAP_CHECK(vur_rdma_av_from_wire(&rd, &w, false, &av) == -EINVAL); /* a QP's */
	TAP_CHECK(vur_rdma_av_from_wire(&rd, &w, true, &av) == 0);
	TAP_CHECK(memcmp(av.dmac, "\x33\x33\x00\x00\x00\x09", 6) == 0); /* MCAST-7 */
	vur_rdma_dev_fini(&rd);
	/* CTRL-16: a device without multicast */
	vur_rdma_limits_default(&l, 8, 4);
	l.max_mcast_grp = l.max_mcast_qp_attach = l.max_total_mcast_qp_attach = 0;
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, gid_v6) == 0);
	TAP_CHECK(vur_rdma_av_from_wire(&rd, &w, true, &av) == -EINVAL);
	pdn = new_pd();
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	q1 = ud_qp(pdn, cqn);
	TAP_CHECK(mcast(true, q1, w.grh.dgid) == -EOPNOTSUPP);
	TAP_CHECK(mcast(false, q1, w.grh.dgid) == -EOPNOTSUPP);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-QUOTA-1..6: the administrator's quotas, below the device's limits. */
static void
quotas(void)
{
	struct vur_rdma_quota q = { .max = { [VUR_QUOTA_QPS] = 1,
						    [VUR_QUOTA_CQS] = 1,
						    [VUR_QUOTA_MRS] = 2,
						    [VUR_QUOTA_PINNED_BYTES] = 2 * 4096,
						    [VUR_QUOTA_WRS] = 40 } };
	struct virtio_rdma_cmd_create_qp c;
	struct vur_rdma_mr *mr = NULL, *mr2 = NULL;
	uint32_t pdn, cqn, cqn2, qpn, qpn2;
	struct reg_cmd r;

	setup();
	rd.quota = &q;
	pdn = new_pd();
	/* QUOTA-2: one CQ */
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn) == 0);
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn2) == -EDQUOT);
	TAP_CHECK(rd.cqs.count == 1 && q.refused[VUR_QUOTA_CQS] == 1);
	/* QUOTA-5: 16 + 16 WRs fit in 40, 16 + 32 do not */
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	c.cap.max_recv_wr = rte_cpu_to_le_32(32);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == -EDQUOT);
	TAP_CHECK(q.refused[VUR_QUOTA_WRS] == 1 && rd.qps.count == 0 && rd.qp_wrs == 0);
	create_qp_cmd(&c, pdn, VIRTIO_IB_QPT_RC, cqn);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0 && rd.qp_wrs == 32);
	/* QUOTA-1: one QP */
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn2) == -EDQUOT);
	TAP_CHECK(q.refused[VUR_QUOTA_QPS] == 1 && rd.qps.count == 1);
	/* QUOTA-4: 3 pages pinned are above 2 pages' bytes; refused, nothing held */
	for (int i = 0; i < 4; i++)
		r.pages[i] = rte_cpu_to_le_64(MEM_BASE + 0x1000 * i);
	TAP_CHECK(reg(&r, pdn, 0x10000, 0x3000, 3, &mr) == -EDQUOT);
	TAP_CHECK(q.refused[VUR_QUOTA_PINNED_BYTES] == 1 && rd.pinned_bytes == 0);
	TAP_CHECK(reg(&r, pdn, 0x10000, 0x2000, 2, &mr) == 0 && rd.pinned_bytes == 8192);
	/* QUOTA-3: two MRs of any kind; a DMA MR pins nothing */
	TAP_CHECK(dma_mr(pdn, 0, 0) != NULL);
	dma_mr(pdn, 0, -EDQUOT);
	TAP_CHECK(alloc_mr(pdn, 4, &mr2) == -EDQUOT);
	TAP_CHECK(q.refused[VUR_QUOTA_MRS] == 2 && rd.mrs.count == 2);
	/* freed objects give their share back */
	if (mr != NULL)
		TAP_CHECK(vur_rdma_dereg_mr(&rd, mr->obj.index) == 0 && rd.pinned_bytes == 0);
	TAP_CHECK(vur_rdma_destroy_qp(&rd, qpn) == 0 && rd.qp_wrs == 0);
	TAP_CHECK(vur_rdma_create_qp(&rd, &c, &qpn) == 0);
	/* QUOTA-6: lowered below what is held, live objects stay, new ones are refused */
	q.max[VUR_QUOTA_CQS] = 0; /* 0: no quota */
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn2) == 0);
	q.max[VUR_QUOTA_CQS] = 1;
	TAP_CHECK(rd.cqs.count == 2 && vur_rdma_quota_used(&rd, VUR_QUOTA_CQS) == 2);
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn2) == -EDQUOT);
	/* RESET_OBJECTS keeps the quota, drops what counted against it */
	TAP_CHECK(vur_rdma_dev_reset(&rd) == 0);
	TAP_CHECK(rd.quota == &q && rd.qp_wrs == 0 && rd.pinned_bytes == 0);
	TAP_CHECK(vur_rdma_create_cq(&rd, 16, &cqn2) == 0);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-POLICY-1..3: ADD_GID of an address the administrator does not allow. */
static void
gid_policy(void)
{
	const char *allowed[] = { "10.0.0.7" };
	struct vur_addr_policy p = { .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } };
	uint8_t v4[16], other[16], ll[16];
	char why[64];

	TAP_CHECK(vur_addr_parse_gid("10.0.0.7", v4) == 0);
	TAP_CHECK(vur_addr_parse_gid("10.0.0.8", other) == 0);
	TAP_CHECK(vur_addr_parse_gid("fe80::5054:ff:fe12:3456", ll) == 0);
	TAP_CHECK(vur_addr_policy_set(&p, allowed, 1, why, sizeof(why)) == 0);
	setup();
	rd.policy = &p;
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, other) == -EACCES && p.refused_gids == 1);
	TAP_CHECK(!rd.gids[0].valid);
	TAP_CHECK(vur_rdma_add_gid(&rd, 0, ll) == 0); /* POLICY-2: its own MAC's */
	TAP_CHECK(vur_rdma_add_gid(&rd, 1, v4) == 0);
	/* POLICY-3: a set changed live keeps the GIDs stored, checks the next ones */
	TAP_CHECK(vur_addr_policy_set(&p, NULL, 0, why, sizeof(why)) == 0);
	TAP_CHECK(vur_rdma_add_gid(&rd, 2, other) == 0);
	allowed[0] = "10.0.0.9";
	TAP_CHECK(vur_addr_policy_set(&p, allowed, 1, why, sizeof(why)) == 0);
	TAP_CHECK(rd.gids[1].valid && rd.gids[2].valid);
	TAP_CHECK(vur_rdma_add_gid(&rd, 3, v4) == -EACCES && p.refused_gids == 2);
	/* RESET_OBJECTS keeps the policy */
	TAP_CHECK(vur_rdma_dev_reset(&rd) == 0 && rd.policy == &p);
	vur_rdma_dev_fini(&rd);
}

int
main(void)
{
	TAP_RUN(mr_keys);
	TAP_RUN(user_mr);
	TAP_RUN(cqs);
	TAP_RUN(create_qps);
	TAP_RUN(gids_and_ahs);
	TAP_RUN(modify_qps);
	TAP_RUN(alloc_mr_limits);
	TAP_RUN(fast_mr_states);
	TAP_RUN(mw_alloc);
	TAP_RUN(mw_not_offered);
	TAP_RUN(mw_bind_rules);
	TAP_RUN(srq_create_rules);
	TAP_RUN(srq_qp_rules);
	TAP_RUN(mcast_gids);
	TAP_RUN(mcast_rules);
	TAP_RUN(mcast_address_vectors);
	TAP_RUN(quotas);
	TAP_RUN(gid_policy);
	return tap_done();
}
