/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the ring commands (issue 28) through the dispatcher:
 * SETUP_RINGS, CREATE_QP, CREATE_CQ and CREATE_SRQ on rings, every refusal
 * of the design note, the numbering, MRs busy while rings use them, and
 * RESET_OBJECTS. Driver memory is a buffer of this test: records and
 * doorbell summaries the device writes are checked there.
 */
#include <string.h>

#include <rte_byteorder.h>

#include "ctrl/ctrl_roce.h"
#include "ctrl/ctrl_target.h"
#include "rdma/rdma_dev.h"
#include "tests/ctrl_chain.h"
#include "tests/tap.h"

#define F_ROCE   (1ULL << VIRTIO_NET_F_ROCE)
#define MEM_BASE 0x10000000ULL
#define MEM_SIZE (1u << 20)
#define K        4

static struct vur_ctrl_cmd cmds[VUR_CTRL_ROCE_MAX_CMDS];
static struct vur_ctrl_table table = { cmds, 0 };
static struct vur_rdma_dev rd;
static struct vur_ctrl_target target = { .rdma = &rd };
static uint8_t out[512], in[256];
static uint8_t mem[MEM_SIZE] __rte_aligned(4096);

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
	return gpa >= MEM_BASE && len <= MEM_SIZE && gpa - MEM_BASE <= MEM_SIZE - len;
}

static void *
hva(void *arg, uint64_t gpa, uint64_t len)
{
	return mem_ok(arg, gpa, len) ? mem + (gpa - MEM_BASE) : NULL;
}

static const struct vur_rdma_env env = {
	.vq_size = vq_size,
	.mem_ok = mem_ok,
	.hva = hva,
	.n_pairs = 1,
	.port_mtu = VIRTIO_IB_MTU_1024,
};

static uint8_t
send(uint8_t cmd, const void *data, uint32_t len, uint32_t in_len)
{
	struct vur_ctrl_result r;
	struct vur_chain c;

	ctrl_chain_build(&c, out, VIRTIO_NET_CTRL_ROCE, cmd, data, len, in, in_len);
	vur_ctrl_dispatch(&table, &target, F_ROCE, &c, &r);
	return r.ack;
}

static uint32_t
ack32(void)
{
	uint32_t v;

	memcpy(&v, in + 1, 4);
	return rte_le_to_cpu_32(v);
}

static void
setup(uint32_t k)
{
	struct vur_rdma_limits l;

	vur_rdma_limits_default(&l, 64, 64);
	vur_rdma_limits_rings(&l, k, 16384, 16384);
	table.n_cmds = vur_ctrl_roce_commands(false, cmds);
	TAP_CHECK(vur_ctrl_table_validate(&table) == 0);
	TAP_CHECK(vur_rdma_dev_init(&rd, "test", &l, &env) == 0);
	memset(mem, 0xa5, sizeof(mem));
}

static uint32_t
create_pd(void)
{
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, 5) == VIRTIO_NET_OK);
	return ack32();
}

/* A DMA MR of @pdn with @access: its lkey; its number in *@mrn. */
static uint32_t
dma_mr(uint32_t pdn, uint32_t access, uint32_t *mrn)
{
	struct virtio_rdma_cmd_get_dma_mr c = {
		.pdn = rte_cpu_to_le_32(pdn),
		.access_flags = rte_cpu_to_le_32(access),
	};
	uint32_t v;

	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_GET_DMA_MR, &c, sizeof(c), 13) == VIRTIO_NET_OK);
	if (mrn != NULL)
		*mrn = ack32();
	memcpy(&v, in + 5, 4);
	return rte_le_to_cpu_32(v);
}

/* A user MR of one page at iova 0x100000 over driver page @page: its lkey. */
static uint32_t
user_mr(uint32_t pdn, uint64_t page, uint32_t *mrn)
{
	struct {
		struct virtio_rdma_cmd_reg_user_mr c;
		__le64 pages[1];
	} r;
	uint32_t v;

	memset(&r, 0, sizeof(r));
	r.c.pdn = rte_cpu_to_le_32(pdn);
	r.c.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_LOCAL_WRITE);
	r.c.virt_addr = rte_cpu_to_le_64(0x100000);
	r.c.length = rte_cpu_to_le_64(4096);
	r.c.npages = rte_cpu_to_le_32(1);
	r.pages[0] = rte_cpu_to_le_64(page);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_REG_USER_MR, &r, sizeof(r), 13) == VIRTIO_NET_OK);
	if (mrn != NULL)
		*mrn = ack32();
	memcpy(&v, in + 5, 4);
	return rte_le_to_cpu_32(v);
}

static uint8_t
dereg(uint32_t mrn)
{
	struct virtio_rdma_cmd_dereg_mr d = { .mrn = rte_cpu_to_le_32(mrn) };

	return send(VIRTIO_NET_CTRL_ROCE_DEREG_MR, &d, sizeof(d), 1);
}

static uint8_t
setup_rings(uint64_t addr, uint32_t lkey)
{
	struct virtio_rdma_cmd_setup_rings c = {
		.addr = rte_cpu_to_le_64(addr),
		.lkey = rte_cpu_to_le_32(lkey),
	};

	return send(VIRTIO_NET_CTRL_ROCE_SETUP_RINGS, &c, sizeof(c), 1);
}

static uint32_t
create_cq_vq(void)
{
	struct virtio_rdma_cmd_create_cq c = { .cqe = rte_cpu_to_le_32(16) };

	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &c, sizeof(c), 5) == VIRTIO_NET_OK);
	return ack32();
}

static void
ring(struct virtio_rdma_ring *r, uint64_t addr, uint32_t lkey, uint8_t log_size, uint8_t log_stride)
{
	memset(r, 0, sizeof(*r));
	r->addr = rte_cpu_to_le_64(addr);
	r->lkey = rte_cpu_to_le_32(lkey);
	r->log_size = log_size;
	r->log_stride = log_stride;
}

/* A good RC QP on rings in the DMA MR @lkey: send ring, receive ring, record. */
static void
qp_cmd(struct virtio_rdma_cmd_create_qp_rings *c, uint32_t pdn, uint32_t cqn, uint32_t lkey)
{
	memset(c, 0, sizeof(*c));
	c->qp.pdn = rte_cpu_to_le_32(pdn);
	c->qp.qp_type = VIRTIO_IB_QPT_RC;
	c->qp.send_cqn = c->qp.recv_cqn = rte_cpu_to_le_32(cqn);
	c->qp.cap.max_send_wr = rte_cpu_to_le_32(16);
	c->qp.cap.max_recv_wr = rte_cpu_to_le_32(16);
	c->qp.cap.max_send_sge = rte_cpu_to_le_32(4);
	c->qp.cap.max_recv_sge = rte_cpu_to_le_32(4);
	c->qp.flags = rte_cpu_to_le_32(VIRTIO_RDMA_QP_F_RINGS);
	ring(&c->sq, MEM_BASE + 0x10000, lkey, 4, 10);
	ring(&c->rq, MEM_BASE + 0x20000, lkey, 4, 7);
	c->rec.addr = rte_cpu_to_le_64(MEM_BASE + 0x30000);
	c->rec.lkey = rte_cpu_to_le_32(lkey);
	c->dbq = rte_cpu_to_le_16(K - 1);
}

static uint8_t
create_qp(const struct virtio_rdma_cmd_create_qp_rings *c)
{
	return send(VIRTIO_NET_CTRL_ROCE_CREATE_QP, c, sizeof(*c), 5);
}

static uint8_t
destroy_qp(uint32_t qpn)
{
	struct virtio_rdma_cmd_destroy_qp d = { .qpn = rte_cpu_to_le_32(qpn) };

	return send(VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &d, sizeof(d), 1);
}

/*
 * ROCE-DEV-RING-1: the capability and the max_ring_* fields iff K > 0;
 * ROCE-DEV-RING-26: an MR more per ring object.
 */
static void
query_device_rings(void)
{
	struct virtio_rdma_ack_query_device qd;
	uint32_t max_mr_rings;

	setup(K);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, 1 + sizeof(qd)) ==
			VIRTIO_NET_OK);
	memcpy(&qd, in + 1, sizeof(qd));
	TAP_CHECK(rte_le_to_cpu_64(qd.device_cap_flags) & VIRTIO_IB_DEVICE_RINGS);
	TAP_CHECK(rte_le_to_cpu_64(qd.device_cap_flags) & VIRTIO_IB_DEVICE_RESIZE_CQ);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_ring_qp) == 16384 &&
			rte_le_to_cpu_32(qd.max_ring_cq) == 16384);
	TAP_CHECK(rte_le_to_cpu_32(qd.max_ring_wr) == 32768 &&
			rte_le_to_cpu_32(qd.max_ring_cqe) == 1u << 22);
	max_mr_rings = rte_le_to_cpu_32(qd.max_mr);
	vur_rdma_dev_fini(&rd);

	setup(0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, 1 + sizeof(qd)) ==
			VIRTIO_NET_OK);
	memcpy(&qd, in + 1, sizeof(qd));
	TAP_CHECK(!(rte_le_to_cpu_64(qd.device_cap_flags) &
			(VIRTIO_IB_DEVICE_RINGS | VIRTIO_IB_DEVICE_RESIZE_CQ)));
	TAP_CHECK(qd.max_ring_qp == 0 && qd.max_ring_cq == 0 && qd.max_ring_wr == 0 &&
			qd.max_ring_cqe == 0);
	TAP_CHECK(max_mr_rings >= rte_le_to_cpu_32(qd.max_mr) + 16384 + 16384);
	/* ROCE-DEV-RING-2: no rings, no SETUP_RINGS */
	TAP_CHECK(setup_rings(MEM_BASE, dma_mr(create_pd(), VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL)) ==
			VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-RING-3, -7: SETUP_RINGS's checks, its writes, its MR busy, a second call. */
static void
setup_rings_command(void)
{
	uint32_t size = virtio_rdma_doorbell_size(64, 16384), pdn, rw, ro, mrn, umrn, ulkey;
	struct virtio_rdma_cmd_create_qp_rings q;
	uint8_t longer[sizeof(struct virtio_rdma_cmd_setup_rings) + 1] = { 0 };
	struct virtio_rdma_cmd_alloc_mr am = { .max_num_sg = rte_cpu_to_le_32(4) };
	uint32_t sleeping, fkey;

	setup(K);
	pdn = create_pd();
	rw = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, &mrn);
	ro = dma_mr(pdn, 0, NULL);
	am.pdn = rte_cpu_to_le_32(pdn);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &am, sizeof(am), 13) == VIRTIO_NET_OK);
	memcpy(&fkey, in + 5, 4);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_SETUP_RINGS, longer, sizeof(longer), 1) ==
			VIRTIO_NET_ERR);
	TAP_CHECK(setup_rings(MEM_BASE + 32, rw) == VIRTIO_NET_ERR);    /* not 64-aligned */
	TAP_CHECK(setup_rings(MEM_BASE, ro) == VIRTIO_NET_ERR);         /* no LOCAL_WRITE */
	TAP_CHECK(setup_rings(MEM_BASE, rw + 0x100) == VIRTIO_NET_ERR); /* no such key */
	TAP_CHECK(setup_rings(MEM_BASE + MEM_SIZE - size, rw) == VIRTIO_NET_ERR); /* K don't fit */
	TAP_CHECK(setup_rings(MEM_BASE, rte_le_to_cpu_32(fkey)) == VIRTIO_NET_ERR); /* fast MR */
	/* a user MR of one page: K summaries do not fit in it */
	ulkey = user_mr(pdn, MEM_BASE + 0x40000, &umrn);
	TAP_CHECK(setup_rings(0x100000, ulkey) == VIRTIO_NET_ERR);
	TAP_CHECK(!rd.doorbells_set);

	TAP_CHECK(setup_rings(MEM_BASE, rw) == VIRTIO_NET_OK);
	for (uint32_t k = 0; k < K; k++) {
		memcpy(&sleeping, mem + k * size, 4);
		TAP_CHECK(sleeping == 0); /* written 0 */
	}
	TAP_CHECK(dereg(mrn) == VIRTIO_NET_ERR); /* ROCE-DEV-RING-7 */
	/* a second call replaces the first while no QP is on rings */
	TAP_CHECK(setup_rings(MEM_BASE + 0x8000, dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL)) ==
			VIRTIO_NET_OK);
	TAP_CHECK(dereg(mrn) == VIRTIO_NET_OK); /* the first area's MR is free again */
	rw = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL);
	qp_cmd(&q, pdn, create_cq_vq(), rw);
	TAP_CHECK(create_qp(&q) == VIRTIO_NET_OK);
	TAP_CHECK(setup_rings(MEM_BASE, rw) == VIRTIO_NET_ERR); /* ring QPs live */
	TAP_CHECK(destroy_qp(ack32()) == VIRTIO_NET_OK);
	TAP_CHECK(setup_rings(MEM_BASE, rw) == VIRTIO_NET_OK);
	vur_rdma_dev_fini(&rd);
}

/* One refusal of CREATE_QP: @mutate applied to a good command; nothing is created. */
static void
refused(const char *why, struct virtio_rdma_cmd_create_qp_rings *c)
{
	uint32_t before = rd.qps.count;

	if (create_qp(c) != VIRTIO_NET_ERR || rd.qps.count != before)
		printf("# CREATE_QP on rings accepted: %s\n", why);
	TAP_CHECK(rd.qps.count == before);
}

/* ROCE-DEV-RING-4, -5: every refusal of CREATE_QP on rings; RING-6 numbering; RING-8 record. */
static void
create_qp_rings_refusals(void)
{
	struct virtio_rdma_cmd_create_qp_rings good, c;
	uint32_t pdn, pdn2, lkey, lkey_ro, lkey_pd2, cqn, mrn, rec[16];

	setup(K);
	pdn = create_pd();
	pdn2 = create_pd();
	lkey = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, &mrn);
	lkey_ro = dma_mr(pdn, 0, NULL);
	lkey_pd2 = dma_mr(pdn2, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL);
	cqn = create_cq_vq();
	qp_cmd(&good, pdn, cqn, lkey);

	c = good;
	refused("before SETUP_RINGS", &c);
	TAP_CHECK(setup_rings(MEM_BASE + 0x80000, lkey) == VIRTIO_NET_OK);

	/* the rings' length without F_RINGS, F_RINGS without it */
	c = good;
	c.qp.flags = 0;
	refused("no F_RINGS", &c);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_QP, &good.qp, sizeof(good.qp), 5) ==
			VIRTIO_NET_ERR);
	c = good;
	c.sq.log_stride = 5;
	refused("stride 32", &c);
	c = good;
	c.sq.log_stride = 13;
	refused("stride 8192", &c);
	c = good;
	c.sq.log_stride = 9; /* 512 < 576 + 4 x 16 */
	refused("send entry too small", &c);
	c = good;
	c.rq.log_stride = 6; /* 64 < 24 + 4 x 16 */
	refused("receive entry too small", &c);
	c = good;
	c.sq.log_size = 16; /* 65536 > max_ring_wr */
	refused("send ring too large", &c);
	c = good;
	c.rq.log_size = 3; /* 8 < max_recv_wr 16 */
	refused("max_recv_wr above the ring", &c);
	c = good;
	c.sq.log_size = 3;
	refused("max_send_wr above the ring", &c);
	c = good;
	c.sq.addr = rte_cpu_to_le_64(MEM_BASE + 0x10200); /* not a multiple of 1024 */
	refused("misaligned ring", &c);
	c = good;
	c.sq.addr = rte_cpu_to_le_64(MEM_BASE + MEM_SIZE - 0x1000); /* 16 KiB past the end */
	refused("ring outside memory", &c);
	c = good;
	c.sq.lkey = rte_cpu_to_le_32(lkey_pd2);
	refused("MR of another PD", &c);
	c = good;
	c.sq.lkey = rte_cpu_to_le_32(lkey ^ 0x100);
	refused("no such key", &c);
	c = good;
	c.sq.reserved = rte_cpu_to_le_16(1);
	refused("ring reserved", &c);
	c = good;
	c.rec.addr = rte_cpu_to_le_64(MEM_BASE + 0x30040);
	refused("record misaligned", &c);
	c = good;
	c.rec.lkey = rte_cpu_to_le_32(lkey_ro);
	refused("record without LOCAL_WRITE", &c);
	c = good;
	c.rec.reserved = rte_cpu_to_le_32(1);
	refused("record reserved", &c);
	c = good;
	c.dbq = rte_cpu_to_le_16(K);
	refused("dbq >= K", &c);
	c = good;
	c.reserved[6] = rte_cpu_to_le_16(1);
	refused("reserved", &c);
	c = good;
	c.qp.cap.max_send_wr = rte_cpu_to_le_32(32769); /* above max_ring_wr */
	c.sq.log_size = 15;
	refused("max_send_wr above max_ring_wr", &c);
	TAP_CHECK(rd.qps.count == 0);

	/* ROCE-DEV-RING-6: numbers from max_rdma_qps; RING-8: the device half zeroed */
	memset(rec, 0xff, sizeof(rec));
	memcpy(mem + 0x30000 + 64, rec, 64);
	TAP_CHECK(create_qp(&good) == VIRTIO_NET_OK && ack32() == 64);
	memcpy(rec, mem + 0x30000 + 64, 64);
	TAP_CHECK(rec[0] == 0 && rec[1] == 0 && rec[2] == 0);
	c = good;
	c.qp.cap.max_send_wr = rte_cpu_to_le_32(32768); /* at max_ring_wr: one ring of 32k */
	c.sq.log_size = 15;
	c.sq.addr = rte_cpu_to_le_64(MEM_BASE);
	c.sq.log_stride = 10;
	refused("32 MiB ring outside 1 MiB of memory", &c);
	TAP_CHECK(create_qp(&good) == VIRTIO_NET_OK && ack32() == 65);
	c = good;
	c.qp.qp_type = VIRTIO_IB_QPT_GSI; /* the GSI QP is QP 1, on rings too */
	TAP_CHECK(create_qp(&c) == VIRTIO_NET_OK && ack32() == 1);
	refused("a second GSI QP", &c);
	TAP_CHECK(dereg(mrn) == VIRTIO_NET_ERR); /* ROCE-DEV-RING-7 */
	TAP_CHECK(destroy_qp(64) == VIRTIO_NET_OK && destroy_qp(65) == VIRTIO_NET_OK &&
			destroy_qp(1) == VIRTIO_NET_OK);
	TAP_CHECK(dereg(mrn) == VIRTIO_NET_ERR); /* still the doorbell area's */
	TAP_CHECK(rd.ring_qps == 0);
	/* on an SRQ: no receive ring */
	{
		struct virtio_rdma_cmd_create_srq s = {
			.pdn = rte_cpu_to_le_32(pdn),
			.max_wr = rte_cpu_to_le_32(8),
			.max_sge = rte_cpu_to_le_32(1),
		};

		TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &s, sizeof(s), 5) == VIRTIO_NET_OK);
		c = good;
		c.qp.flags = rte_cpu_to_le_32(VIRTIO_RDMA_QP_F_RINGS | VIRTIO_RDMA_QP_F_SRQ);
		c.qp.srqn = rte_cpu_to_le_32(ack32());
		c.qp.cap.max_recv_wr = c.qp.cap.max_recv_sge = 0;
		refused("F_SRQ with a receive ring", &c);
		memset(&c.rq, 0, sizeof(c.rq));
		TAP_CHECK(create_qp(&c) == VIRTIO_NET_OK);
	}
	vur_rdma_dev_fini(&rd);
}

static void
cq_cmd(struct virtio_rdma_cmd_create_cq_rings *c, uint32_t lkey)
{
	memset(c, 0, sizeof(*c));
	c->cqe = rte_cpu_to_le_32(64);
	c->flags = rte_cpu_to_le_32(VIRTIO_RDMA_CQ_F_RINGS);
	c->eq = rte_cpu_to_le_16(1);
	ring(&c->ring, MEM_BASE + 0x50000, lkey, 6, 6);
	c->rec.addr = rte_cpu_to_le_64(MEM_BASE + 0x30080);
	c->rec.lkey = rte_cpu_to_le_32(lkey);
}

/* ROCE-DEV-RING-4, -5, -19, -20: CREATE_CQ on rings, REQ_NOTIFY_CQ, DESTROY_CQ. */
static void
create_cq_rings(void)
{
	struct virtio_rdma_cmd_create_cq_rings good, c;
	struct virtio_rdma_cmd_create_qp_rings q;
	struct virtio_rdma_cmd_req_notify n;
	struct virtio_rdma_cmd_destroy_cq d;
	uint32_t pdn, lkey, lkey_ro, cqn, mrn;

	setup(K);
	pdn = create_pd();
	lkey = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, &mrn);
	lkey_ro = dma_mr(pdn, 0, NULL);
	cq_cmd(&good, lkey);
#define CQ_REFUSED(what)                                                            \
	do {                                                                        \
		TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &c, sizeof(c), 5) == \
				VIRTIO_NET_ERR);                                    \
		if (rd.cqs.count != 0)                                              \
			printf("# CREATE_CQ on rings accepted: %s\n", what);        \
	} while (0)
	c = good;
	c.flags = 0;
	CQ_REFUSED("no F_RINGS");
	c = good;
	c.eq = rte_cpu_to_le_16(K);
	CQ_REFUSED("eq >= K");
	c = good;
	c.cqe = rte_cpu_to_le_32(65);
	CQ_REFUSED("cqe above the ring");
	c = good;
	c.cqe = 0;
	CQ_REFUSED("cqe 0");
	c = good;
	c.ring.lkey = rte_cpu_to_le_32(lkey_ro);
	CQ_REFUSED("ring without LOCAL_WRITE");
	c = good;
	c.ring.log_size = 23; /* above max_ring_cqe */
	CQ_REFUSED("ring above max_ring_cqe");
	c = good;
	c.reserved[0] = rte_cpu_to_le_16(1);
	CQ_REFUSED("reserved");
	c = good;
	c.rec.addr = rte_cpu_to_le_64(MEM_BASE + 0x30010);
	CQ_REFUSED("record misaligned");
	TAP_CHECK(rd.cqs.count == 0);
#undef CQ_REFUSED
	/* ROCE-DEV-RING-6: numbered from max_rdma_cqs, a virtqueue CQ from 0 beside it */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &good, sizeof(good), 5) == VIRTIO_NET_OK);
	cqn = ack32();
	TAP_CHECK(cqn == 64);
	TAP_CHECK(create_cq_vq() == 0);
	/* ROCE-DEV-RING-19 */
	n.cqn = rte_cpu_to_le_32(cqn);
	n.flags = rte_cpu_to_le_32(VIRTIO_IB_NOTIFY_NEXT_COMPLETION);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ, &n, sizeof(n), 1) == VIRTIO_NET_ERR);
	n.cqn = 0;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ, &n, sizeof(n), 1) == VIRTIO_NET_OK);
	/* a QP on rings completing into a virtqueue CQ (recv) and a ring CQ (send) */
	TAP_CHECK(setup_rings(MEM_BASE + 0x80000, lkey) == VIRTIO_NET_OK);
	qp_cmd(&q, pdn, cqn, lkey);
	q.qp.recv_cqn = 0;
	TAP_CHECK(create_qp(&q) == VIRTIO_NET_OK);
	/* ROCE-DEV-RING-20 */
	d.cqn = rte_cpu_to_le_32(cqn);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &d, sizeof(d), 1) == VIRTIO_NET_ERR);
	TAP_CHECK(destroy_qp(64) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &d, sizeof(d), 1) == VIRTIO_NET_OK);
	TAP_CHECK(setup_rings(MEM_BASE + 0x80000,
				  dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL)) ==
			VIRTIO_NET_OK);
	TAP_CHECK(dereg(mrn) == VIRTIO_NET_OK); /* nothing holds it now */
	vur_rdma_dev_fini(&rd);
}

static uint8_t
resize(const struct virtio_rdma_cmd_resize_cq *c)
{
	return send(VIRTIO_NET_CTRL_ROCE_RESIZE_CQ, c, sizeof(*c), 5);
}

/*
 * ROCE-DEV-RING-23, -24: RESIZE_CQ's refusals leave the CQ's ring (and its
 * MR's hold) as it was; a resize moves the hold from the old ring's MR to
 * the new one's. No transport here: switch_prod is 0 (the pending CQEs are
 * tp_rings_test's).
 */
static void
resize_cq_rings(void)
{
	struct virtio_rdma_cmd_create_cq_rings cc;
	struct virtio_rdma_cmd_resize_cq good, c;
	uint32_t pdn, lkey, lkey2, lkey_ro, lkey_user, cqn, vcqn, mrn2;
	struct vur_rdma_cq *cq;

	setup(K);
	pdn = create_pd();
	lkey = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL);
	lkey2 = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, &mrn2);
	lkey_ro = dma_mr(pdn, 0, NULL);
	lkey_user = user_mr(pdn, MEM_BASE + 0x70000, NULL);
	cq_cmd(&cc, lkey);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &cc, sizeof(cc), 5) == VIRTIO_NET_OK);
	cqn = ack32();
	vcqn = create_cq_vq();
	cq = vur_pool_get(&rd.cqs, cqn);
	memset(&good, 0, sizeof(good));
	good.cqn = rte_cpu_to_le_32(cqn);
	good.cqe = rte_cpu_to_le_32(128);
	ring(&good.ring, MEM_BASE + 0x58000, lkey2, 7, 6);
#define RESIZE_REFUSED(what)                                                        \
	do {                                                                        \
		TAP_CHECK(resize(&c) == VIRTIO_NET_ERR);                            \
		if (cq->rings->ring[0].addr != MEM_BASE + 0x50000 || cq->cqe != 64) \
			printf("# RESIZE_CQ changed the CQ: %s\n", what);           \
	} while (0)
	c = good;
	c.cqn = rte_cpu_to_le_32(cqn + 1);
	RESIZE_REFUSED("unknown cqn");
	c = good;
	c.cqn = rte_cpu_to_le_32(vcqn);
	RESIZE_REFUSED("a virtqueue CQ");
	c = good;
	c.cqe = 0;
	RESIZE_REFUSED("cqe 0");
	c = good;
	c.cqe = rte_cpu_to_le_32(129);
	RESIZE_REFUSED("cqe above the ring");
	c = good;
	c.ring.lkey = rte_cpu_to_le_32(lkey_ro);
	RESIZE_REFUSED("ring without LOCAL_WRITE");
	c = good;
	c.ring.lkey = rte_cpu_to_le_32(0x7777700);
	RESIZE_REFUSED("no MR");
	c = good;
	ring(&c.ring, 0x100000, lkey_user, 7, 6); /* 8 KiB in a one-page MR */
	RESIZE_REFUSED("ring outside its MR");
	c = good;
	c.ring.log_size = 23;
	RESIZE_REFUSED("ring above max_ring_cqe");
	c = good;
	c.ring.log_stride = 5;
	RESIZE_REFUSED("stride below a CQE");
	c = good;
	c.ring.addr = rte_cpu_to_le_64(MEM_BASE + 0x58010);
	RESIZE_REFUSED("ring not aligned to its stride");
	c = good;
	c.ring.reserved = rte_cpu_to_le_16(1);
	RESIZE_REFUSED("reserved");
	c = good;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_RESIZE_CQ, &c, sizeof(c) - 1, 5) ==
			VIRTIO_NET_ERR); /* ROCE-DEV-CTRL-4 */
	cq->error = true;
	RESIZE_REFUSED("a CQ in error");
	cq->error = false;
#undef RESIZE_REFUSED
	/* the new ring's MR is held, and the old one's freed by the next resize */
	TAP_CHECK(resize(&good) == VIRTIO_NET_OK && ack32() == 0);
	TAP_CHECK(cq->rings->ring[0].addr == MEM_BASE + 0x58000 && cq->cqe == 128 &&
			cq->rings->ring[0].log_size == 7);
	TAP_CHECK(dereg(mrn2) == VIRTIO_NET_ERR); /* ROCE-DEV-RING-7 */
	c = good;
	c.cqe = rte_cpu_to_le_32(8); /* down */
	ring(&c.ring, MEM_BASE + 0x5c000, lkey, 3, 7);
	TAP_CHECK(resize(&c) == VIRTIO_NET_OK);
	TAP_CHECK(cq->cqe == 8 && cq->rings->ring[0].log_stride == 7);
	TAP_CHECK(dereg(mrn2) == VIRTIO_NET_OK); /* ROCE-DEV-RING-24: the old ring let go */
	vur_rdma_dev_fini(&rd);

	/* ROCE-DEV-RING-23, ROCE-DEV-ATTR-2: no rings, no RESIZE_CQ */
	setup(0);
	TAP_CHECK(resize(&good) == VIRTIO_NET_ERR);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-RING-4, -6: CREATE_SRQ on rings takes a ring QP number. */
static void
create_srq_rings(void)
{
	struct virtio_rdma_cmd_create_srq_rings good, c;
	struct virtio_rdma_cmd_create_qp_rings q;
	uint32_t pdn, lkey;

	setup(K);
	pdn = create_pd();
	lkey = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL);
	memset(&good, 0, sizeof(good));
	good.srq.pdn = rte_cpu_to_le_32(pdn);
	good.srq.max_wr = rte_cpu_to_le_32(32);
	good.srq.max_sge = rte_cpu_to_le_32(2);
	good.srq.flags = rte_cpu_to_le_32(VIRTIO_RDMA_SRQ_F_RINGS);
	ring(&good.ring, MEM_BASE + 0x60000, lkey, 5, 6);
	good.rec.addr = rte_cpu_to_le_64(MEM_BASE + 0x30100);
	good.rec.lkey = rte_cpu_to_le_32(lkey);
	good.eq = rte_cpu_to_le_16(0);
	c = good;
	c.srq.flags = 0;
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), 5) == VIRTIO_NET_ERR);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &good.srq, sizeof(good.srq), 5) ==
			VIRTIO_NET_ERR); /* F_RINGS in the short form */
	c = good;
	c.srq.max_wr = rte_cpu_to_le_32(33);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), 5) == VIRTIO_NET_ERR);
	c = good;
	c.ring.log_stride = 6; /* 64 < 24 + 3 x 16 with max_sge 3 */
	c.srq.max_sge = rte_cpu_to_le_32(3);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), 5) == VIRTIO_NET_ERR);
	c = good;
	c.eq = rte_cpu_to_le_16(K);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &c, sizeof(c), 5) == VIRTIO_NET_ERR);
	TAP_CHECK(rd.srqs.count == 0);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_CREATE_SRQ, &good, sizeof(good), 5) == VIRTIO_NET_OK);
	TAP_CHECK(ack32() == 64);
	/* the next QP on rings takes the next number */
	TAP_CHECK(setup_rings(MEM_BASE + 0x80000, lkey) == VIRTIO_NET_OK);
	qp_cmd(&q, pdn, create_cq_vq(), lkey);
	q.qp.flags = rte_cpu_to_le_32(VIRTIO_RDMA_QP_F_RINGS | VIRTIO_RDMA_QP_F_SRQ);
	q.qp.srqn = rte_cpu_to_le_32(64);
	q.qp.cap.max_recv_wr = q.qp.cap.max_recv_sge = 0;
	memset(&q.rq, 0, sizeof(q.rq));
	TAP_CHECK(create_qp(&q) == VIRTIO_NET_OK && ack32() == 65);
	vur_rdma_dev_fini(&rd);
}

/* ROCE-DEV-RING-5, -20: RESET_OBJECTS forgets SETUP_RINGS and every ring. */
static void
reset_forgets_rings(void)
{
	struct virtio_rdma_cmd_create_qp_rings q;
	uint32_t pdn, lkey;

	setup(K);
	pdn = create_pd();
	lkey = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL);
	TAP_CHECK(setup_rings(MEM_BASE + 0x80000, lkey) == VIRTIO_NET_OK);
	qp_cmd(&q, pdn, create_cq_vq(), lkey);
	TAP_CHECK(create_qp(&q) == VIRTIO_NET_OK);
	TAP_CHECK(send(VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, NULL, 0, 1) == VIRTIO_NET_OK);
	TAP_CHECK(!rd.doorbells_set && rd.ring_qps == 0 && rd.qps.count == 0);
	pdn = create_pd();
	lkey = dma_mr(pdn, VIRTIO_IB_ACCESS_LOCAL_WRITE, NULL);
	qp_cmd(&q, pdn, create_cq_vq(), lkey);
	TAP_CHECK(create_qp(&q) == VIRTIO_NET_ERR); /* SETUP_RINGS first again */
	TAP_CHECK(setup_rings(MEM_BASE + 0x80000, lkey) == VIRTIO_NET_OK);
	TAP_CHECK(create_qp(&q) == VIRTIO_NET_OK && ack32() == 64);
	vur_rdma_dev_fini(&rd);
}

/* Objects on rings cost their pools' memory when made, a chunk at a time. */
static void
pools_grow_when_used(void)
{
	size_t idle;

	setup(K);
	idle = vur_pool_bytes(&rd.qps) + vur_pool_bytes(&rd.cqs) + vur_pool_bytes(&rd.srqs);
	printf("# QP, CQ and SRQ pools of 64 + 16384 numbers: %zu bytes before any object\n", idle);
	TAP_CHECK(idle < 16 * 1024);
	printf("# bytes per QP slot %zu, CQ %zu, SRQ %zu\n", sizeof(struct vur_rdma_qp),
			sizeof(struct vur_rdma_cq), sizeof(struct vur_rdma_srq));
	vur_rdma_dev_fini(&rd);
}

int
main(void)
{
	TAP_RUN(query_device_rings);
	TAP_RUN(setup_rings_command);
	TAP_RUN(create_qp_rings_refusals);
	TAP_RUN(create_cq_rings);
	TAP_RUN(resize_cq_rings);
	TAP_RUN(create_srq_rings);
	TAP_RUN(reset_forgets_rings);
	TAP_RUN(pools_grow_when_used);
	return tap_done();
}
