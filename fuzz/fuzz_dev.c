/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_vhost.h>

#include "fuzz/fuzz_dev.h"
#include "rdma/rdma_ops.h"
#include "transport/pkt.h"

#define PAGE 4096u
/* Ring n: 4 KiB of rings (descriptors, avail at +1 KiB, used at +1.5 KiB), then its buffers. */
#define RING_AREA VUR_FUZZ_RING_AREA

/* mr.c, under FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION: its key sequence. */
extern uint32_t vur_rdma_fuzz_key_state;

static struct rte_mempool *hdr_pool, *ext_pool;
static uint8_t *ram;
static struct rte_vhost_memory *mem;

struct rte_mempool *
vur_fuzz_hdr_pool(void)
{
	return hdr_pool;
}

struct rte_mempool *
vur_fuzz_ext_pool(void)
{
	return ext_pool;
}

struct rte_vhost_memory *
vur_fuzz_mem(void)
{
	return mem;
}

void *
vur_fuzz_at(uint64_t gpa)
{
	return ram + (gpa - VUR_FUZZ_GPA0);
}

int
vur_fuzz_global_init(void)
{
	/* --no-shconf: targets run side by side (meson test, -jobs) share no files */
	char *args[] = { "fuzz", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level=*:emergency", NULL };
	uint8_t *base;

	if (rte_eal_init((int)RTE_DIM(args) - 1, args) < 0 || vur_pkt_init() < 0)
		return -1;
	hdr_pool = rte_pktmbuf_pool_create(
			"fuzz_hdr", 1023, 0, 0, 8192 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	ext_pool = rte_pktmbuf_pool_create("fuzz_ext", 1023, 0, 0, 0, SOCKET_ID_ANY);
	base = mmap(NULL, VUR_FUZZ_RAM_SZ + 2 * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mem = calloc(1, sizeof(*mem) + 2 * sizeof(mem->regions[0]));
	if (hdr_pool == NULL || ext_pool == NULL || base == MAP_FAILED || mem == NULL)
		return -1;
	if (mprotect(base, PAGE, PROT_NONE) != 0 ||
			mprotect(base + PAGE + VUR_FUZZ_RAM_SZ, PAGE, PROT_NONE) != 0)
		return -1;
	ram = base + PAGE;
	/* two regions, as a VM's memory below and above a hole: buffers are split where one ends */
	mem->nregions = 2;
	for (uint32_t i = 0; i < 2; i++) {
		mem->regions[i].guest_phys_addr = VUR_FUZZ_GPA0 + i * VUR_FUZZ_RAM_SZ / 2;
		mem->regions[i].size = VUR_FUZZ_RAM_SZ / 2;
		mem->regions[i].host_user_addr = (uintptr_t)ram + i * VUR_FUZZ_RAM_SZ / 2;
		mem->regions[i].mmap_addr = ram + i * VUR_FUZZ_RAM_SZ / 2;
		mem->regions[i].mmap_size = VUR_FUZZ_RAM_SZ / 2;
	}
	return 0;
}

static uint16_t
vq_size(void *arg, uint32_t vq)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(vq);
	return VUR_FUZZ_QSZ;
}

/* As vdev.c answers: inside one region. */
static bool
mem_ok(void *arg, uint64_t gpa, uint64_t len)
{
	RTE_SET_USED(arg);
	for (uint32_t i = 0; i < mem->nregions; i++) {
		const struct rte_vhost_mem_region *r = &mem->regions[i];

		if (gpa >= r->guest_phys_addr && len <= r->size &&
				gpa - r->guest_phys_addr <= r->size - len)
			return true;
	}
	return false;
}

/* As vdev.c answers: the host address of a range inside one region. */
static void *
hva(void *arg, uint64_t gpa, uint64_t len)
{
	return mem_ok(arg, gpa, len) ? vur_fuzz_at(gpa) : NULL;
}

static int
dev_init(struct vur_fuzz_dev *d, bool engine, bool rings)
{
	static const uint8_t mac[RTE_ETHER_ADDR_LEN] = { 0x52, 0x54, 0, 0, 0, 1 };
	struct vur_rdma_env env = {
		.vq_size = vq_size,
		.mem_ok = mem_ok,
		.hva = hva,
		.n_pairs = 1,
		.port_mtu = VIRTIO_IB_MTU_1024,
		.hooks = engine ? &vur_tp_hooks : NULL,
		.hooks_arg = &d->td,
	};
	struct virtio_rdma_cmd_get_dma_mr mc = {
		.access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_ALL_EXT),
	};
	struct vur_rdma_limits l;

	memset(ram, 0, VUR_FUZZ_RAM_SZ);
	vur_rdma_fuzz_key_state = 1;
	memset(d, 0, sizeof(*d));
	d->now_ns = 1000000000ULL;
	vur_net_state_init(&d->filter, mac, 1);
	d->nd.filter = &d->filter;
	/* the switch only as far as the engine needs one: its pools (no data path) */
	d->sw.rdma_pool = hdr_pool;
	d->sw.rdma_ext_pool = ext_pool;
	vur_tp_init(&d->td, &d->rd, &d->nd);
	d->td.mem = mem;
	d->n_qps = VUR_FUZZ_NQPS;
	vur_rdma_limits_default(&l, rings ? 16 : 8, 4);
	if (rings)
		vur_rdma_limits_rings(&l, 1, 4, 4);
	if (vur_rdma_dev_init(&d->rd, "fuzz", &l, &env) != 0)
		return -1;
	d->nd.sw = &d->sw;
	if (vur_rdma_create_pd(&d->rd, &d->pdn) != 0)
		return -1;
	mc.pdn = rte_cpu_to_le_32(d->pdn);
	return vur_rdma_get_dma_mr(&d->rd, &mc, &d->mr);
}

int
vur_fuzz_dev_init(struct vur_fuzz_dev *d, bool engine)
{
	return dev_init(d, engine, false);
}

int
vur_fuzz_dev_init_rings(struct vur_fuzz_dev *d)
{
	return dev_init(d, true, true);
}

void
vur_fuzz_ring_at(struct vur_fuzz_ring *fr, struct vur_split_ring *r, unsigned int n)
{
	uint64_t at = VUR_FUZZ_GPA0 + (uint64_t)n * RING_AREA;

	fr->desc = at;
	fr->avail = at + 1024;
	fr->used = at + 1536;
	fr->bufs = at + PAGE;
	fr->next = 0;
	vur_split_ring_init(r, VUR_FUZZ_QSZ, vur_fuzz_at(fr->desc), vur_fuzz_at(fr->avail),
			vur_fuzz_at(fr->used), 0, 0, false);
}

void
vur_fuzz_ring_bind(struct vur_fuzz_ring *fr, struct vur_tp_ring *r, unsigned int n)
{
	vur_fuzz_ring_at(fr, &r->ring, n);
	r->started = true;
	r->active = true;
}

void
vur_fuzz_ring_offer(struct vur_fuzz_ring *r, const void *src, uint32_t len, bool writable)
{
	uint16_t i = r->next++ % VUR_FUZZ_QSZ;
	struct vring_desc *desc = vur_fuzz_at(r->desc);
	struct vring_avail *avail = vur_fuzz_at(r->avail);
	uint64_t buf = r->bufs + (uint64_t)(i % VUR_FUZZ_BUFS) * VUR_FUZZ_WR_SZ;

	len = RTE_MIN(len, VUR_FUZZ_WR_SZ);
	if (src != NULL)
		memcpy(vur_fuzz_at(buf), src, len);
	desc[i] = (struct vring_desc){
		.addr = buf,
		.len = len,
		.flags = writable ? VRING_DESC_F_WRITE : 0,
	};
	avail->ring[avail->idx % VUR_FUZZ_QSZ] = i;
	avail->idx++;
}

struct vur_rdma_qp *
vur_fuzz_make_qp(struct vur_fuzz_dev *d, uint8_t type, uint32_t send_cqn, uint32_t recv_cqn,
		uint32_t srqn)
{
	struct virtio_rdma_cmd_create_qp qc = {
		.pdn = rte_cpu_to_le_32(d->pdn),
		.qp_type = type,
		.send_cqn = rte_cpu_to_le_32(send_cqn),
		.recv_cqn = rte_cpu_to_le_32(recv_cqn),
		.cap = {
			.max_send_wr = rte_cpu_to_le_32(VUR_FUZZ_QSZ),
			.max_recv_wr = rte_cpu_to_le_32(srqn != 0 ? 0 : VUR_FUZZ_QSZ),
			.max_send_sge = rte_cpu_to_le_32(4),
			.max_recv_sge = rte_cpu_to_le_32(srqn != 0 ? 0 : 4),
			.max_inline_data = rte_cpu_to_le_32(VIRTIO_NET_ROCE_MAX_INLINE),
		},
	};
	uint32_t qpn;

	if (srqn != 0) {
		qc.flags = rte_cpu_to_le_32(VIRTIO_RDMA_QP_F_SRQ);
		qc.srqn = rte_cpu_to_le_32(srqn);
	}

	if (vur_rdma_create_qp(&d->rd, &qc, &qpn) != 0)
		return NULL;
	return vur_pool_get(&d->rd.qps, qpn);
}

/* What MODIFY_QP to RTS would have set, then the engine told of each step. */
void
vur_fuzz_to_rts(struct vur_fuzz_dev *d, struct vur_rdma_qp *qp, uint32_t dest_qpn)
{
	static const uint8_t steps[][2] = {
		{ VIRTIO_IB_QPS_RESET, VIRTIO_IB_QPS_INIT },
		{ VIRTIO_IB_QPS_INIT, VIRTIO_IB_QPS_RTR },
		{ VIRTIO_IB_QPS_RTR, VIRTIO_IB_QPS_RTS },
	};

	qp->attr.path_mtu = VIRTIO_IB_MTU_256;
	qp->attr.timeout = 14;
	qp->attr.retry_cnt = 3;
	qp->attr.rnr_retry = 3;
	qp->attr.max_rd_atomic = 4;
	qp->attr.max_dest_rd_atomic = 4;
	qp->attr.min_rnr_timer = 1;
	qp->attr.dest_qp_num = dest_qpn;
	qp->attr.sq_psn = 100;
	qp->attr.rq_psn = 100;
	qp->attr.qkey = VUR_FUZZ_QKEY;
	qp->attr.access_flags = VIRTIO_IB_ACCESS_ALL_EXT;
	memcpy(qp->attr.av.sgid, vur_pkt_v4_mapped, 12);
	memcpy(qp->attr.av.dgid, vur_pkt_v4_mapped, 12);
	memcpy(qp->attr.av.sgid + 12, "\x0a\x00\x00\x01", 4);
	memcpy(qp->attr.av.dgid + 12, "\x0a\x00\x00\x01", 4);
	memcpy(qp->attr.av.dmac, d->filter.mac, 6);
	qp->attr.av.hop_limit = 64;
	for (size_t i = 0; i < RTE_DIM(steps); i++) {
		qp->attr.state = steps[i][1];
		vur_tp_hooks.qp_modified(&d->td, qp, steps[i][0]);
	}
}

int
vur_fuzz_dev_qps(struct vur_fuzz_dev *d)
{
	static const uint8_t types[VUR_FUZZ_NQPS] = {
		[VUR_FUZZ_RC_A] = VIRTIO_IB_QPT_RC,
		[VUR_FUZZ_RC_B] = VIRTIO_IB_QPT_RC,
		[VUR_FUZZ_UC] = VIRTIO_IB_QPT_UC,
		[VUR_FUZZ_UD] = VIRTIO_IB_QPT_UD,
	};
	uint32_t cqn;

	if (vur_rdma_create_cq(&d->rd, VUR_FUZZ_QSZ, &cqn) != 0)
		return -1;
	d->cq = vur_pool_get(&d->rd.cqs, cqn);
	vur_fuzz_ring_bind(&d->cq_ring, &d->cq->tp->ring, 0);
	for (uint16_t i = 0; i < VUR_FUZZ_QSZ; i++)
		vur_fuzz_ring_offer(&d->cq_ring, NULL, VUR_FUZZ_WR_SZ, true);
	for (unsigned int q = 0; q < VUR_FUZZ_NQPS; q++) {
		d->qp[q] = vur_fuzz_make_qp(d, types[q], cqn, cqn, 0);
		if (d->qp[q] == NULL)
			return -1;
	}
	/* the RC pair talks to each other, the UC QP to itself */
	vur_fuzz_to_rts(d, d->qp[VUR_FUZZ_RC_A], d->qp[VUR_FUZZ_RC_B]->obj.index);
	vur_fuzz_to_rts(d, d->qp[VUR_FUZZ_RC_B], d->qp[VUR_FUZZ_RC_A]->obj.index);
	vur_fuzz_to_rts(d, d->qp[VUR_FUZZ_UC], d->qp[VUR_FUZZ_UC]->obj.index);
	vur_fuzz_to_rts(d, d->qp[VUR_FUZZ_UD], 0);
	for (unsigned int q = 0; q < VUR_FUZZ_NQPS; q++) {
		struct vur_tp_qp *t = d->qp[q]->tp;

		vur_fuzz_ring_bind(&d->sq[q], &t->sq, 1 + 2 * q);
		vur_fuzz_ring_bind(&d->rq[q], &t->rq, 2 + 2 * q);
	}
	d->td.active = true;
	return 0;
}

static void
cq_rest(void *obj, void *arg)
{
	struct vur_rdma_cq *cq = obj;

	RTE_SET_USED(arg);
	if (cq->tp != NULL)
		cq->tp->ring.active = false;
}

static void
srq_rest(void *obj, void *arg)
{
	struct vur_rdma_srq *srq = obj;

	RTE_SET_USED(arg);
	if (srq->tp != NULL && !srq->tp->ring.drv)
		srq->tp->ring.active = false;
}

static void
qp_rest(void *obj, void *arg)
{
	struct vur_rdma_qp *qp = obj;

	RTE_SET_USED(arg);
	if (qp->tp != NULL)
		qp->tp->sq.active = qp->tp->rq.active = false;
}

void
vur_fuzz_dev_fini(struct vur_fuzz_dev *d)
{
	vur_tp_publish(&d->td);
	/*
	 * Nothing to hand back to librte_vhost: there is none. The live
	 * objects, not d->cq and d->qp[]: an input may have reset them all
	 * (RESET_OBJECTS) and made others.
	 */
	d->td.active = false;
	if (d->rd.cqs.objs != NULL)
		vur_pool_foreach(&d->rd.cqs, cq_rest, NULL);
	if (d->rd.qps.objs != NULL)
		vur_pool_foreach(&d->rd.qps, qp_rest, NULL);
	if (d->rd.srqs.objs != NULL)
		vur_pool_foreach(&d->rd.srqs, srq_rest, NULL);
	d->nd.sw = NULL;
	vur_rdma_dev_fini(&d->rd);
	vur_tp_fini(&d->td); /* the event queues of vur_fuzz_dev_srqs() */
	if (rte_mempool_avail_count(hdr_pool) != hdr_pool->size ||
			rte_mempool_avail_count(ext_pool) != ext_pool->size) {
		fprintf(stderr, "fuzz: a packet buffer leaked\n");
		abort();
	}
}
