/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of rings in driver memory (issue 28) on a real engine over a
 * fake driver memory: the objects made by the control operations (SETUP_RINGS,
 * CREATE_CQ and CREATE_QP on rings), the test playing the driver by writing
 * entries and indices into the rings and records. The ring walker with
 * lying indices, the order of the indices the device publishes, CQ
 * notifications and overruns through an event queue (a split ring in the
 * fake memory), doorbell summaries and the sleeping word, RESET. Each case
 * names the ROCE-DEV-RING rule it proves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_vhost.h>

#include "net/net_dev.h"
#include "net/net_state.h"
#include "net/net_switch.h"
#include "rdma/rdma_ops.h"
#include "tests/tap.h"
#include "transport/pkt.h"
#include "transport/tp.h"

#define GPA0    0x100000ULL
#define RAM_SZ  (1u << 20)
#define DB      (GPA0 + 0x00000) /* doorbell summaries */
#define SQ      (GPA0 + 0x10000) /* 16 entries of 1024 */
#define RQ      (GPA0 + 0x20000) /* 16 entries of 128 */
#define CQR     (GPA0 + 0x21000) /* 64 CQEs of 64 */
#define QP_REC  (GPA0 + 0x22000)
#define CQ_REC  (GPA0 + 0x22080)
#define QP2_REC (GPA0 + 0x22100)
#define SQ2     (GPA0 + 0x30000)
#define EQ_DESC (GPA0 + 0x40000)
#define EQ_AV   (GPA0 + 0x41000)
#define EQ_USED (GPA0 + 0x42000)
#define EQ_BUF  (GPA0 + 0x43000)
#define DATA    (GPA0 + 0x50000)
#define K       2
#define EQ_SZ   8

static struct rte_mempool *hdr_pool, *ext_pool;
static uint8_t *ram;
static struct rte_vhost_memory *mem;
static struct vur_rdma_dev rd;
static struct vur_net_state filter;
static struct vur_net_dev nd;
static struct vur_switch sw;
static struct vur_tp_dev td;
static struct vur_rdma_mr *mr;
static struct vur_rdma_cq *cq;
static struct vur_rdma_qp *qp;
static struct vur_tp_qp *t;
static uint32_t pdn;

static void *
at(uint64_t gpa)
{
	return ram + (gpa - GPA0);
}

static uint32_t
rd32(uint64_t gpa)
{
	uint32_t v;

	memcpy(&v, at(gpa), 4);
	return rte_le_to_cpu_32(v);
}

static void
wr32(uint64_t gpa, uint32_t v)
{
	v = rte_cpu_to_le_32(v);
	memcpy(at(gpa), &v, 4);
}

static uint16_t
vq_size(void *arg, uint32_t vq)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(vq);
	return 0; /* no virtqueue: everything on rings */
}

static bool
mem_ok(void *arg, uint64_t gpa, uint64_t len)
{
	RTE_SET_USED(arg);
	return gpa >= GPA0 && len <= RAM_SZ && gpa - GPA0 <= RAM_SZ - len;
}

static void *
hva(void *arg, uint64_t gpa, uint64_t len)
{
	return mem_ok(arg, gpa, len) ? at(gpa) : NULL;
}

static void
ring(struct virtio_rdma_ring *r, uint64_t addr, uint8_t log_size, uint8_t log_stride)
{
	r->addr = rte_cpu_to_le_64(addr);
	r->lkey = rte_cpu_to_le_32(mr->lkey);
	r->log_size = log_size;
	r->log_stride = log_stride;
}

/* An RC QP on rings in @state (its send ring at @sq, record at @rec). */
static struct vur_rdma_qp *
make_qp(uint64_t sq, uint64_t rec, uint8_t state)
{
	struct virtio_rdma_cmd_create_qp_rings c;
	struct vur_rdma_qp *q;
	uint32_t qpn = 0;

	memset(&c, 0, sizeof(c));
	c.qp.pdn = rte_cpu_to_le_32(pdn);
	c.qp.qp_type = VIRTIO_IB_QPT_RC;
	c.qp.send_cqn = c.qp.recv_cqn = rte_cpu_to_le_32(cq->obj.index);
	c.qp.cap.max_send_wr = c.qp.cap.max_recv_wr = rte_cpu_to_le_32(16);
	c.qp.cap.max_send_sge = c.qp.cap.max_recv_sge = rte_cpu_to_le_32(4);
	c.qp.flags = rte_cpu_to_le_32(VIRTIO_RDMA_QP_F_RINGS);
	ring(&c.sq, sq, 4, 10);
	ring(&c.rq, RQ, 4, 7);
	c.rec.addr = rte_cpu_to_le_64(rec);
	c.rec.lkey = rte_cpu_to_le_32(mr->lkey);
	TAP_CHECK(vur_rdma_create_qp_rings(&rd, &c, &qpn) == 0);
	q = vur_pool_get(&rd.qps, qpn);
	for (uint8_t s = VIRTIO_IB_QPS_INIT; q != NULL && s <= state; s++) {
		q->attr.state = s;
		vur_tp_hooks.qp_modified(&td, q, s - 1);
	}
	return q;
}

static void
setup(void)
{
	const struct vur_rdma_env env = {
		.vq_size = vq_size,
		.mem_ok = mem_ok,
		.hva = hva,
		.n_pairs = 1,
		.port_mtu = VIRTIO_IB_MTU_1024,
		.hooks = &vur_tp_hooks,
		.hooks_arg = &td,
	};
	struct virtio_rdma_cmd_get_dma_mr mc = {
		.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_ALL),
	};
	struct virtio_rdma_cmd_create_cq_rings cc = {
		.cqe = rte_cpu_to_le_32(64),
		.flags = rte_cpu_to_le_32(VIRTIO_RDMA_CQ_F_RINGS),
	};
	struct virtio_rdma_cmd_setup_rings sr = { .addr = rte_cpu_to_le_64(DB) };
	struct vur_rdma_limits l;
	uint32_t cqn = 0;

	memset(ram, 0, RAM_SZ);
	memset(&nd, 0, sizeof(nd));
	memset(&sw, 0, sizeof(sw));
	memcpy(filter.mac, "\x52\x54\x00\x00\x00\x01", 6);
	nd.filter = &filter;
	vur_tp_init(&td, &rd, &nd);
	td.mem = mem;
	td.active = true;
	vur_rdma_limits_default(&l, 8, 4);
	vur_rdma_limits_rings(&l, K, 64, 64);
	TAP_CHECK(vur_rdma_dev_init(&rd, "rings_test", &l, &env) == 0);
	TAP_CHECK(vur_rdma_create_pd(&rd, &pdn) == 0);
	mc.pdn = rte_cpu_to_le_32(pdn);
	TAP_CHECK(vur_rdma_get_dma_mr(&rd, &mc, &mr) == 0);
	/* the event queues, as vur_tp_rings_start() would make them, on split rings here */
	td.rq = calloc(K, sizeof(*td.rq));
	td.n_rq = K;
	for (uint32_t k = 0; k < K; k++) {
		rte_ticketlock_init(&td.rq[k].lock);
		TAILQ_INIT(&td.rq[k].pending);
		vur_tp_ring_bind(&td.rq[k].eq, 0, &td.rq[k].lock);
	}
	vur_split_ring_init(
			&td.rq[0].eq.ring, EQ_SZ, at(EQ_DESC), at(EQ_AV), at(EQ_USED), 0, 0, false);
	td.rq[0].eq.active = td.rq[0].eq.started = true;
	sr.lkey = rte_cpu_to_le_32(mr->lkey);
	TAP_CHECK(vur_rdma_setup_rings(&rd, &sr) == 0);
	ring(&cc.ring, CQR, 6, 6);
	cc.rec.addr = rte_cpu_to_le_64(CQ_REC);
	cc.rec.lkey = rte_cpu_to_le_32(mr->lkey);
	TAP_CHECK(vur_rdma_create_cq_rings(&rd, &cc, &cqn) == 0);
	cq = vur_pool_get(&rd.cqs, cqn);
	qp = make_qp(SQ, QP_REC, VIRTIO_IB_QPS_INIT);
	t = qp != NULL ? qp->tp : NULL;
	sw.rdma_pool = hdr_pool;
	sw.rdma_ext_pool = ext_pool;
}

static void
teardown(void)
{
	vur_tp_publish(&td);
	td.rq[0].eq.active = false; /* nothing to hand back to librte_vhost */
	vur_rdma_dev_fini(&rd);
	vur_tp_fini(&td);
}

/* The driver offers event buffer @i. */
static void
eq_offer(uint16_t i)
{
	struct vring_desc *d = at(EQ_DESC);
	struct vring_avail *a = at(EQ_AV);

	d[i] = (struct vring_desc){
		.addr = EQ_BUF + i * 16, .len = 16, .flags = VRING_DESC_F_WRITE
	};
	a->ring[a->idx % EQ_SZ] = i;
	a->idx++;
}

static uint16_t
eq_used(void)
{
	return ((struct vring_used *)at(EQ_USED))->idx;
}

/* The driver posts SEND WR @i (zero length, signalled) into the send ring at @sq. */
static void
post_send(uint64_t sq, uint32_t i, uint64_t wr_id)
{
	struct virtio_rdma_sq_req r;

	memset(&r, 0, sizeof(r));
	r.wr_id = rte_cpu_to_le_64(wr_id);
	r.opcode = VIRTIO_IB_WR_SEND;
	r.send_flags = VIRTIO_IB_SEND_SIGNALED;
	memcpy(at(sq + (i % 16) * 1024), &r, sizeof(r));
}

/* ROCE-DEV-RING-9, -11, -15: WRs taken through sq_prod; sq_cons and prod published. */
static void
send_walk(void)
{
	struct virtio_rdma_cq_req cqe;

	setup();
	qp->attr.state = VIRTIO_IB_QPS_RTS;
	post_send(SQ, 0, 0x10);
	post_send(SQ, 1, 0x11);
	wr32(QP_REC + 0, 2); /* sq_prod */
	vur_tp_qp_lock(t);
	vur_tp_sq_fetch(&td, t);
	TAP_CHECK(t->tail == 2 && t->wqe[0].status == VIRTIO_IB_WC_SUCCESS &&
			t->wqe[1].wr_id == 0x11 && t->wqe[1].opcode == VIRTIO_IB_WR_SEND);
	vur_tp_sq_complete_head(&td, t, VIRTIO_IB_WC_SUCCESS);
	vur_tp_sq_complete_head(&td, t, VIRTIO_IB_WC_SUCCESS);
	vur_tp_qp_unlock(t);
	TAP_CHECK(rd32(QP_REC + 64) == 0 && rd32(CQ_REC + 64) == 0); /* not before the publish */
	vur_tp_publish(&td);
	TAP_CHECK(rd32(QP_REC + 64) == 2); /* sq_cons */
	TAP_CHECK(rd32(CQ_REC + 64) == 2); /* prod */
	memcpy(&cqe, at(CQR + 64), sizeof(cqe));
	TAP_CHECK(rte_le_to_cpu_64(cqe.wr_id) == 0x11 && cqe.status == VIRTIO_IB_WC_SUCCESS &&
			rte_le_to_cpu_32(cqe.qp_num) == qp->obj.index);
	/* the ring wraps: 16 more, index 18 */
	for (uint32_t i = 2; i < 18; i++)
		post_send(SQ, i, i);
	wr32(QP_REC + 0, 18);
	vur_tp_qp_lock(t);
	vur_tp_sq_fetch(&td, t);
	TAP_CHECK(t->tail == 2 + t->nwqe || t->tail == 18);
	vur_tp_qp_unlock(t);
	teardown();
}

/* ROCE-DEV-RING-9, -10: a send index beyond the ring: that QP in ERR, another unharmed. */
static void
lying_send_index(void)
{
	struct vur_rdma_qp *q2;

	setup();
	q2 = make_qp(SQ2, QP2_REC, VIRTIO_IB_QPS_RTS);
	qp->attr.state = VIRTIO_IB_QPS_RTS;
	wr32(QP_REC + 0, 17); /* 17 WRs in a ring of 16 */
	vur_tp_qp_lock(t);
	vur_tp_sq_fetch(&td, t);
	vur_tp_qp_unlock(t);
	TAP_CHECK(t->tail == 0 && t->sq.broken && qp->attr.state == VIRTIO_IB_QPS_ERR);
	post_send(SQ2, 0, 0x20);
	wr32(QP2_REC + 0, 1);
	vur_tp_qp_lock(q2->tp);
	vur_tp_sq_fetch(&td, q2->tp);
	vur_tp_qp_unlock(q2->tp);
	TAP_CHECK(q2->tp->tail == 1 && q2->attr.state == VIRTIO_IB_QPS_RTS);
	/* sq_prod behind what the device took: a lie too */
	wr32(QP2_REC + 0, 0);
	vur_tp_qp_lock(q2->tp);
	vur_tp_sq_fetch(&td, q2->tp);
	vur_tp_qp_unlock(q2->tp);
	TAP_CHECK(q2->tp->sq.broken);
	teardown();
}

/* ROCE-DEV-RING-10, -11: receive WRs at packet arrival; a lying rq_prod; rq_cons after the CQE. */
static void
receive_walk(void)
{
	struct virtio_rdma_rq_req r = { .wr_id = rte_cpu_to_le_64(0x77), .num_sge = 1 };
	struct virtio_rdma_sge s = { .addr = rte_cpu_to_le_64(DATA), .length = 64 };
	struct vur_tp_cqe e = { .status = VIRTIO_IB_WC_SUCCESS, .opcode = VIRTIO_IB_WC_RECV };

	setup();
	s.lkey = rte_cpu_to_le_32(mr->lkey);
	memcpy(at(RQ), &r, sizeof(r));
	memcpy(at(RQ + sizeof(r)), &s, sizeof(s));
	TAP_CHECK(!vur_tp_rq_take(&td, t)); /* nothing posted */
	wr32(QP_REC + 4, 1);                /* rq_prod */
	TAP_CHECK(vur_tp_rq_take(&td, t) && t->rwqe.status == VIRTIO_IB_WC_SUCCESS &&
			t->rwqe.wr_id == 0x77 && t->rwqe.length == 64);
	vur_tp_rq_complete(&td, t, &e);
	vur_tp_publish(&td);
	TAP_CHECK(rd32(QP_REC + 68) == 1 && rd32(CQ_REC + 64) == 1);
	wr32(QP_REC + 4, 1 + 17);
	TAP_CHECK(!vur_tp_rq_take(&td, t) && qp->attr.state == VIRTIO_IB_QPS_ERR);
	teardown();
}

/* ROCE-DEV-RING-16, -18: an armed CQ: one CQ_COMP per arm, into an event buffer. */
static void
cq_notification(void)
{
	struct vur_tp_cqe e = { .status = VIRTIO_IB_WC_SUCCESS, .opcode = VIRTIO_IB_WC_RECV };
	struct virtio_rdma_event ev;

	setup();
	eq_offer(0);
	eq_offer(1);
	wr32(CQ_REC + 4, VIRTIO_IB_NOTIFY_NEXT_COMPLETION);
	vur_tp_cq_post(&td, cq->obj.index, &e);
	vur_tp_publish(&td);
	TAP_CHECK(rd32(CQ_REC + 4) == 0 && eq_used() == 1);
	memcpy(&ev, at(EQ_BUF), sizeof(ev));
	TAP_CHECK(rte_le_to_cpu_32(ev.type) == VIRTIO_RDMA_EV_CQ_COMP &&
			rte_le_to_cpu_32(ev.number) == cq->obj.index);
	vur_tp_cq_post(&td, cq->obj.index, &e); /* not armed: no event */
	vur_tp_publish(&td);
	TAP_CHECK(eq_used() == 1);
	/* SOLICITED: an unsolicited CQE does not fire it, a solicited one does */
	wr32(CQ_REC + 4, VIRTIO_IB_NOTIFY_SOLICITED);
	vur_tp_cq_post(&td, cq->obj.index, &e);
	vur_tp_publish(&td);
	TAP_CHECK(eq_used() == 1 && rd32(CQ_REC + 4) == VIRTIO_IB_NOTIFY_SOLICITED);
	e.solicited = true;
	vur_tp_cq_post(&td, cq->obj.index, &e);
	vur_tp_publish(&td);
	TAP_CHECK(eq_used() == 2 && rd32(CQ_REC + 4) == 0);
	teardown();
}

/* ROCE-DEV-RING-15, -18: a full CQ overruns; CQ_ERR waits for a buffer, then goes. */
static void
cq_overrun_event_waits(void)
{
	struct vur_tp_cqe e = { .status = VIRTIO_IB_WC_SUCCESS, .opcode = VIRTIO_IB_WC_RECV };
	struct virtio_rdma_event ev;

	setup();
	for (int i = 0; i < 64; i++)
		vur_tp_cq_post(&td, cq->obj.index, &e);
	vur_tp_publish(&td);
	TAP_CHECK(!cq->error && rd32(CQ_REC + 64) == 64);
	vur_tp_cq_post(&td, cq->obj.index, &e); /* cons is still 0 */
	vur_tp_publish(&td);
	TAP_CHECK(cq->error && qp->attr.state == VIRTIO_IB_QPS_ERR);
	TAP_CHECK(vur_tp_events_pending(&td) == 1 && eq_used() == 0);
	eq_offer(0);
	vur_tp_events_drain(&td, 0);
	vur_tp_publish(&td);
	TAP_CHECK(vur_tp_events_pending(&td) == 0 && eq_used() == 1);
	memcpy(&ev, at(EQ_BUF), sizeof(ev));
	TAP_CHECK(rte_le_to_cpu_32(ev.type) == VIRTIO_RDMA_EV_CQ_ERR &&
			rte_le_to_cpu_32(ev.number) == cq->obj.index);
	/* a lying cons (beyond prod) overruns a fresh CQ as well: covered by the same room test */
	teardown();
}

#define NEWR (GPA0 + 0x60000) /* a resized CQ's ring: up to 256 CQEs of 64 */

static int
resize_to(uint64_t addr, uint8_t log_size, uint32_t cqe, uint32_t *switch_prod)
{
	struct virtio_rdma_cmd_resize_cq c = {
		.cqn = rte_cpu_to_le_32(cq->obj.index),
		.cqe = rte_cpu_to_le_32(cqe),
	};

	ring(&c.ring, addr, log_size, 6);
	return vur_rdma_resize_cq(&rd, &c, switch_prod);
}

static uint64_t
wr_id_at(uint64_t ring_addr, uint32_t size, uint32_t i)
{
	struct virtio_rdma_cq_req c;

	memcpy(&c, at(ring_addr + (i % size) * 64), sizeof(c));
	return rte_le_to_cpu_64(c.wr_id);
}

/*
 * ROCE-DEV-RING-23, -24, -25: CQEs before switch_prod stay in the old ring,
 * later ones go to the new one; prod and the arm carry over; CQEs not
 * consumed count against the new size, both ways.
 */
static void
resize_across_pending(void)
{
	struct vur_tp_cqe e = { .status = VIRTIO_IB_WC_SUCCESS, .opcode = VIRTIO_IB_WC_RECV };
	uint32_t sp = 0, i;
	bool ok = true;

	setup();
	for (i = 0; i < 10; i++) {
		e.wr_id = i;
		vur_tp_cq_post(&td, cq->obj.index, &e);
	}
	vur_tp_publish(&td);
	wr32(CQ_REC, 4); /* six not consumed */
	TAP_CHECK(resize_to(NEWR, 8, 5, &sp) == -EINVAL);
	TAP_CHECK(cq->rings->ring[0].addr == CQR && cq->tp->ring.dr.ring.addr == CQR);
	eq_offer(0);
	wr32(CQ_REC + 4, VIRTIO_IB_NOTIFY_NEXT_COMPLETION);
	TAP_CHECK(resize_to(NEWR, 8, 256, &sp) == 0 && sp == 10);
	for (i = 10; i < 260; i++) { /* 256 not consumed at the end: the new ring full */
		e.wr_id = i;
		vur_tp_cq_post(&td, cq->obj.index, &e);
	}
	vur_tp_publish(&td);
	TAP_CHECK(!cq->error && rd32(CQ_REC + 64) == 260);
	for (i = 4; i < 10; i++)
		ok &= wr_id_at(CQR, 64, i) == i;
	for (i = 10; i < 260; i++)
		ok &= wr_id_at(NEWR, 256, i) == i;
	TAP_CHECK(ok);
	TAP_CHECK(eq_used() == 1 && rd32(CQ_REC + 4) == 0); /* the arm held across the switch */
	/* down to 8 entries once everything is consumed; the ninth CQE overruns */
	TAP_CHECK(resize_to(CQR, 3, 8, &sp) == -EINVAL);
	wr32(CQ_REC, 260);
	TAP_CHECK(resize_to(CQR, 3, 8, &sp) == 0 && sp == 260);
	for (i = 260; i < 268; i++) {
		e.wr_id = i;
		vur_tp_cq_post(&td, cq->obj.index, &e);
	}
	vur_tp_publish(&td);
	TAP_CHECK(!cq->error && wr_id_at(CQR, 8, 267) == 267 && wr_id_at(NEWR, 256, 259) == 259);
	vur_tp_cq_post(&td, cq->obj.index, &e);
	vur_tp_publish(&td);
	TAP_CHECK(cq->error);
	TAP_CHECK(resize_to(NEWR, 8, 256, &sp) == -EIO); /* in error: stays */
	teardown();
}

/* ROCE-DEV-RING-12, -13, -14: summary bits taken, foreign ones ignored, sleeping, sq_event. */
static void
doorbells_and_sleeping(void)
{
	uint32_t size = virtio_rdma_doorbell_size(8, 64), qpn;
	struct rte_mbuf *out[32];
	uint64_t dl = 0, bits;

	setup();
	qpn = qp->obj.index;
	TAP_CHECK(qpn == 8);                                  /* the first number on rings */
	bits = rte_cpu_to_le_64((1ULL << qpn) | (1ULL << 3)); /* QP 3: not on rings */
	memcpy(at(DB + 64), &bits, 8);
	bits = rte_cpu_to_le_64(1ULL << qpn); /* on summary 1, but the QP's queue is 0 */
	memcpy(at(DB + size + 64), &bits, 8);
	TAP_CHECK(vur_tp_rings_poll(&td, 0, out, 0, 32, 1000, true, &dl) == 0);
	TAP_CHECK(rd32(DB) == 1 && rd32(DB + size) == 1); /* sleeping, both owned by thread 0 */
	memcpy(&bits, at(DB + 64), 8);
	TAP_CHECK(bits == 0);
	TAP_CHECK(td.stats[0].s.ring_doorbells + td.stats[1].s.ring_doorbells == 1);
	TAP_CHECK(td.stats[0].s.ring_db_ignored + td.stats[1].s.ring_db_ignored == 2);
	/* INIT takes no send WR: drained and dropped at once, sq_event = 0 */
	TAP_CHECK(t->act_on == 0 && td.act[0].n == 0);
	TAP_CHECK(vur_tp_rings_poll(&td, 0, out, 0, 32, 1000, false, &dl) == 0);
	TAP_CHECK(rd32(DB) == 0 && rd32(DB + size) == 0); /* awake */
	/* a QP touched by a thread lists itself; its MODIFY_QP too */
	vur_tp_qp_lock(t);
	vur_tp_qp_unlock(t);
	TAP_CHECK(t->act_on == 1 && td.act[0].n == 1);
	vur_tp_rings_poll(&td, 0, out, 0, 32, 1000, false, &dl);
	TAP_CHECK(t->act_on == 0 && td.act[0].n == 0);
	teardown();
}

/* CQE @i of the CQ ring. */
static struct virtio_rdma_cq_req
cqe_at(uint32_t i)
{
	struct virtio_rdma_cq_req c;

	memcpy(&c, at(CQR + (i % 64) * 64), sizeof(c));
	return c;
}

/*
 * ROCE-DEV-RING-22: entering ERR sets rq_notify before the receives are
 * flushed; a receive posted in ERR is flushed when its doorbell bit comes.
 */
static void
err_flushes_receives(void)
{
	struct virtio_rdma_rq_req r = { .wr_id = rte_cpu_to_le_64(0x81) };
	uint64_t bits = rte_cpu_to_le_64(1ULL << 8), dl = 0;
	struct rte_mbuf *out[32];

	setup();
	qp->attr.state = VIRTIO_IB_QPS_RTS;
	memcpy(at(RQ), &r, sizeof(r));
	wr32(QP_REC + 4, 1); /* rq_prod: one receive, not taken (no packet) */
	TAP_CHECK(rd32(QP_REC + 76) == 0);
	qp->attr.state = VIRTIO_IB_QPS_ERR;
	vur_tp_hooks.qp_modified(&td, qp, VIRTIO_IB_QPS_RTS);
	vur_tp_publish(&td);
	TAP_CHECK(rd32(QP_REC + 76) != 0); /* rq_notify */
	TAP_CHECK(rd32(QP_REC + 68) == 1 && rd32(CQ_REC + 64) == 1);
	TAP_CHECK(rte_le_to_cpu_64(cqe_at(0).wr_id) == 0x81 &&
			cqe_at(0).status == VIRTIO_IB_WC_WR_FLUSH_ERR);
	vur_tp_rings_poll(&td, 0, out, 0, 32, 1000, false, &dl);
	TAP_CHECK(t->act_on == 0); /* nothing left: not watched */
	/* the driver posts in ERR, sees rq_notify and rings: flushed at the bit */
	r.wr_id = rte_cpu_to_le_64(0x82);
	memcpy(at(RQ + 128), &r, sizeof(r));
	wr32(QP_REC + 4, 2);
	memcpy(at(DB + 64), &bits, 8);
	vur_tp_rings_poll(&td, 0, out, 0, 32, 1000, false, &dl);
	vur_tp_publish(&td);
	TAP_CHECK(rd32(QP_REC + 68) == 2 && rd32(CQ_REC + 64) == 2);
	TAP_CHECK(rte_le_to_cpu_64(cqe_at(1).wr_id) == 0x82 &&
			cqe_at(1).status == VIRTIO_IB_WC_WR_FLUSH_ERR);
	TAP_CHECK(t->act_on == 0);
	/* RESET clears it (ROCE-DEV-RING-8) */
	qp->attr.state = VIRTIO_IB_QPS_RESET;
	vur_tp_hooks.qp_modified(&td, qp, VIRTIO_IB_QPS_ERR);
	TAP_CHECK(rd32(QP_REC + 76) == 0);
	teardown();
}

/*
 * ROCE-DEV-RING-12 in ERR: a send posted after the flush took the ring,
 * while the driver still saw the old sq_event (no doorbell), is found by
 * the re-read after sq_event and flushed, not left. A pass whose output
 * is full (max 0) skips the requester and comes straight to the drop.
 */
static void
err_rereads_sq_prod(void)
{
	struct rte_mbuf *out[32];
	uint64_t dl = 0;

	setup();
	qp->attr.state = VIRTIO_IB_QPS_RTS;
	vur_tp_hooks.qp_modified(&td, qp, VIRTIO_IB_QPS_RTR);
	qp->attr.state = VIRTIO_IB_QPS_ERR;
	vur_tp_hooks.qp_modified(&td, qp, VIRTIO_IB_QPS_RTS); /* flushed, listed */
	TAP_CHECK(t->act_on == 1);
	post_send(SQ, 0, 0x91);
	wr32(QP_REC + 0, 1); /* sq_prod; no bit: sq_event said the device watches */
	vur_tp_rings_poll(&td, 0, out, 0, 0, 1000, false, &dl);
	TAP_CHECK(t->act_on == 1 && rd32(QP_REC + 72) == 0); /* sq_event, re-read: kept */
	TAP_CHECK(dl == 1000); /* and no sleep: the flush makes no packet to keep it awake */
	dl = 0;
	vur_tp_rings_poll(&td, 0, out, 0, 32, 1000, false, &dl);
	vur_tp_publish(&td);
	TAP_CHECK(rd32(QP_REC + 64) == 1 && rd32(CQ_REC + 64) == 1);
	TAP_CHECK(rte_le_to_cpu_64(cqe_at(0).wr_id) == 0x91 &&
			cqe_at(0).status == VIRTIO_IB_WC_WR_FLUSH_ERR);
	TAP_CHECK(t->act_on == 0 && rd32(QP_REC + 72) == 1);
	teardown();
}

/* ROCE-DEV-RING-8: RESET zeroes the device half of the record and the indices. */
static void
reset_zeroes_record(void)
{
	setup();
	memset(at(QP_REC + 64), 0xee, 64);
	t->sq.dr.next = t->sq.dr.done = 5;
	qp->attr.state = VIRTIO_IB_QPS_RESET;
	vur_tp_hooks.qp_modified(&td, qp, VIRTIO_IB_QPS_INIT);
	TAP_CHECK(rd32(QP_REC + 64) == 0 && rd32(QP_REC + 72) == 0 && rd32(QP_REC + 76) == 0 &&
			rd32(QP_REC + 124) == 0);
	TAP_CHECK(t->sq.dr.next == 0 && t->sq.dr.done == 0);
	teardown();
}

/* ROCE-DEV-RING-17: an SRQ's cons counts only the WRs before the first not yet done. */
static void
srq_retires_in_order(void)
{
	uint64_t bitmap[1] = { 0 };
	struct vur_tp_ring r;

	memset(&r, 0, sizeof(r));
	r.drv = true;
	r.dr.ring.log_size = 3;
	r.dr.srq_done = bitmap;
	vur_tp_drv_retire(&r, 1);
	vur_tp_drv_retire(&r, 2);
	TAP_CHECK(r.dr.done == 0);
	vur_tp_drv_retire(&r, 0);
	TAP_CHECK(r.dr.done == 3 && bitmap[0] == 0);
	for (uint16_t i = 3; i < 11; i++) /* wraps at 8 */
		vur_tp_drv_retire(&r, i % 8);
	TAP_CHECK(r.dr.done == 11);
}

/* What an idle QP and CQ on rings cost the backend (printed for the report). */
static void
idle_costs(void)
{
	size_t qp_bytes = sizeof(struct vur_rdma_qp) + sizeof(struct vur_tp_qp) +
			sizeof(struct vur_rdma_rings);
	size_t cq_bytes = sizeof(struct vur_rdma_cq) + sizeof(struct vur_tp_cq) +
			sizeof(struct vur_rdma_rings);

	setup();
	TAP_CHECK(t->wqe == NULL); /* no send WR yet: no copies */
	printf("# idle QP on rings: %zu bytes (object %zu, engine %zu, rings %zu); CQ %zu\n",
			qp_bytes, sizeof(struct vur_rdma_qp), sizeof(struct vur_tp_qp),
			sizeof(struct vur_rdma_rings), cq_bytes);
	printf("# a QP's send WR copies at its first WR: %zu bytes each, up to 128\n",
			sizeof(struct vur_swqe));
	teardown();
}

int
main(void)
{
	char *args[] = { "tp_rings_test", "--no-huge", "-m", "64", "--no-pci",
		"--file-prefix=vur_rings_test", "--no-telemetry", "--log-level=vur.*:warning",
		NULL };

	if (rte_eal_init((int)RTE_DIM(args) - 1, args) < 0 || vur_pkt_init() < 0) {
		printf("Bail out! EAL\n");
		return 1;
	}
	hdr_pool = rte_pktmbuf_pool_create(
			"h", 255, 0, 0, 8192 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	ext_pool = rte_pktmbuf_pool_create("x", 255, 0, 0, 0, SOCKET_ID_ANY);
	ram = aligned_alloc(4096, RAM_SZ);
	mem = calloc(1, sizeof(*mem) + sizeof(mem->regions[0]));
	if (hdr_pool == NULL || ext_pool == NULL || ram == NULL || mem == NULL) {
		printf("Bail out! pools\n");
		return 1;
	}
	mem->nregions = 1;
	mem->regions[0].guest_phys_addr = GPA0;
	mem->regions[0].size = RAM_SZ;
	mem->regions[0].host_user_addr = (uintptr_t)ram;
	vur_tp_thread_register(0);
	TAP_RUN(send_walk);
	TAP_RUN(lying_send_index);
	TAP_RUN(receive_walk);
	TAP_RUN(cq_notification);
	TAP_RUN(cq_overrun_event_waits);
	TAP_RUN(resize_across_pending);
	TAP_RUN(doorbells_and_sleeping);
	TAP_RUN(err_flushes_receives);
	TAP_RUN(err_rereads_sq_prod);
	TAP_RUN(reset_zeroes_record);
	TAP_RUN(srq_retires_in_order);
	TAP_RUN(idle_costs);
	free(mem);
	free(ram);
	rte_mempool_free(hdr_pool);
	rte_mempool_free(ext_pool);
	rte_eal_cleanup();
	return tap_done();
}
