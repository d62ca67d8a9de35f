/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send and receive work requests as a guest posts them (tp_wq.c's decoding,
 * local_ops.c's REG_MR, LOCAL_INV and BIND_MW, atomics, SEND_WITH_INV,
 * inline data, s/g lists) against a live table of keys: the DMA MR, a user
 * MR over scattered pages, a fast-registration MR, MWs of type 1 and 2, an
 * MR of another PD; the data path's passes run them (what it sends comes
 * back in: the RC pair are each other's peer), and MRs and MWs are
 * deregistered and registered again between them.
 *
 * An input is a list of records, each a kind byte and its bytes:
 *   kind % 5 == 0  a send WR: u8 QP, le16 length, the WR's bytes; unless
 *                  bit 7 of QP says raw, every key of the WR (the s/g
 *                  elements', rkey, invalidate, REG_MR's and BIND_MW's) is
 *                  taken from the table by bits 8-15 of its raw value (the
 *                  low byte kept where the WR gives a new key byte), and
 *                  addresses are folded into the data half of memory
 *   kind % 5 == 1  a receive WR: the same into the receive ring
 *   kind % 5 == 2  a pass of the data path: u8 clock step (2^(step % 32) ns)
 *   kind % 5 == 3  a page list in guest memory for REG_MR: u8 slot, u8 n,
 *                  n bytes, each a page of the data half (0xff: raw 8 bytes)
 *   kind % 5 == 4  u8 object: that MR or MW freed and made again
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz/fuzz_dev.h"
#include "fuzz/fuzz_input.h"
#include "rdma/rdma_ops.h"
#include "transport/transport.h"

#define WR_RAW       0x80
#define MAX_RECORDS  64
#define PASS_PACKETS 32
#define USER_PAGES   8
#define FAST_PAGES   16
#define PAGE_SZ      VIRTIO_NET_ROCE_PAGE_SIZE
/* page lists: the last 4 pages of the data half, 512 entries each */
#define PLIST_GPA (VUR_FUZZ_DATA_GPA + VUR_FUZZ_DATA_SZ - 4 * PAGE_SZ)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The key table: what a WR's key selects. */
enum obj { O_DMA, O_USER, O_FAST, O_MW1, O_MW2, O_OTHER_PD, O_DEAD, O_N };

static struct vur_fuzz_dev dev;
static uint32_t pd2, mrn[O_N], mwn[O_N], ahn;

static uint64_t
fold(uint64_t a)
{
	return VUR_FUZZ_DATA_GPA + a % VUR_FUZZ_DATA_SZ;
}

static int
make_user_mr(enum obj o)
{
	uint8_t buf[sizeof(struct virtio_rdma_cmd_reg_user_mr) + USER_PAGES * 8];
	struct virtio_rdma_cmd_reg_user_mr *c = (void *)buf;
	struct vur_rdma_mr *mr;
	uint64_t p;

	memset(buf, 0, sizeof(buf));
	c->pdn = rte_cpu_to_le_32(o == O_OTHER_PD ? pd2 : dev.pdn);
	c->access_flags = rte_cpu_to_le_32(VIRTIO_IB_ACCESS_ALL_EXT);
	c->virt_addr = rte_cpu_to_le_64(0x7f0000001000ULL);
	c->length = rte_cpu_to_le_64(USER_PAGES * PAGE_SZ);
	c->npages = rte_cpu_to_le_32(USER_PAGES);
	/* every other page of the data half, backwards: no two adjacent */
	for (uint32_t i = 0; i < USER_PAGES; i++) {
		p = rte_cpu_to_le_64(VUR_FUZZ_DATA_GPA + (2 * (USER_PAGES - i)) * PAGE_SZ);
		memcpy(&c->pages[i], &p, sizeof(p));
	}
	if (vur_rdma_reg_user_mr(&dev.rd, c, &mr) != 0)
		return -1;
	mrn[o] = mr->obj.index;
	return 0;
}

static int
make(enum obj o)
{
	struct virtio_rdma_cmd_alloc_mr am = {
		.pdn = rte_cpu_to_le_32(dev.pdn),
		.max_num_sg = rte_cpu_to_le_32(FAST_PAGES),
	};
	struct virtio_rdma_cmd_alloc_mw aw = { .pdn = rte_cpu_to_le_32(dev.pdn) };
	struct vur_rdma_mr *mr;
	struct vur_rdma_mw *mw;

	switch (o) {
	case O_USER:
	case O_OTHER_PD:
		return make_user_mr(o);
	case O_FAST:
		if (vur_rdma_alloc_mr(&dev.rd, &am, &mr) != 0)
			return -1;
		mrn[o] = mr->obj.index;
		return 0;
	case O_MW1:
	case O_MW2:
		aw.type = o == O_MW1 ? VIRTIO_IB_MW_TYPE_1 : VIRTIO_IB_MW_TYPE_2;
		if (vur_rdma_alloc_mw(&dev.rd, &aw, &mw) != 0)
			return -1;
		mwn[o] = mw->obj.index;
		return 0;
	default:
		return 0;
	}
}

/* An object freed (when it can be: an MR with bound MWs stays) and made again. */
static void
remake(enum obj o)
{
	switch (o) {
	case O_USER:
	case O_OTHER_PD:
	case O_FAST:
		if (vur_rdma_dereg_mr(&dev.rd, mrn[o]) == 0 && make(o) != 0)
			abort();
		break;
	case O_MW1:
	case O_MW2:
		if (vur_rdma_dealloc_mw(&dev.rd, mwn[o]) != 0 || make(o) != 0)
			abort();
		break;
	default:
		break;
	}
}

/* The key object @o has now (@rkey: its remote key). */
static uint32_t
key_of(enum obj o, bool rkey)
{
	struct vur_rdma_mr *mr;
	struct vur_rdma_mw *mw;

	switch (o) {
	case O_DMA:
		return rkey ? dev.mr->rkey : dev.mr->lkey;
	case O_MW1:
	case O_MW2:
		mw = vur_pool_get(&dev.rd.mws, mwn[o]);
		return mw != NULL ? mw->rkey : 0;
	case O_DEAD:
		return 0xdead00u;
	default:
		mr = vur_pool_get(&dev.rd.mrs, mrn[o]);
		return mr == NULL ? 0 : rkey ? mr->rkey : mr->lkey;
	}
}

/* Raw address @a made an address inside what object @o covers now. */
static uint64_t
addr_in(enum obj o, uint64_t a)
{
	struct vur_rdma_mr *mr;
	struct vur_rdma_mw *mw;

	switch (o) {
	case O_MW1:
	case O_MW2:
		mw = vur_pool_get(&dev.rd.mws, mwn[o]);
		return mw != NULL && mw->bound && mw->length != 0 ? mw->addr + a % mw->length
								  : fold(a);
	case O_USER:
	case O_FAST:
	case O_OTHER_PD:
		mr = vur_pool_get(&dev.rd.mrs, mrn[o]);
		return mr != NULL && mr->length != 0 ? mr->iova + a % mr->length : fold(a);
	default:
		return fold(a);
	}
}

/*
 * Raw key @k (little endian) made the key of the object its bits 8-15
 * select, which is returned.
 */
static enum obj
fix_key(void *p, bool rkey, bool keep_byte)
{
	uint32_t k, v;
	enum obj o;

	memcpy(&k, p, sizeof(k));
	k = rte_le_to_cpu_32(k);
	o = (enum obj)((k >> 8) % O_N);
	v = key_of(o, rkey);
	if (keep_byte)
		v = (v & ~0xffu) | (k & 0xff);
	v = rte_cpu_to_le_32(v);
	memcpy(p, &v, sizeof(v));
	return o;
}

static void
fix_sges(uint8_t *wr, uint32_t len, uint32_t off, bool page_list)
{
	struct virtio_rdma_sge sge;

	for (; off + sizeof(sge) <= len; off += sizeof(sge)) {
		memcpy(&sge, wr + off, sizeof(sge));
		sge.length = rte_cpu_to_le_32(rte_le_to_cpu_32(sge.length) % (3 * PAGE_SZ));
		if (page_list) /* REG_MR's page list, by driver address */
			sge.addr = rte_cpu_to_le_64(
					PLIST_GPA + rte_le_to_cpu_64(sge.addr) % (4 * PAGE_SZ));
		else
			sge.addr = rte_cpu_to_le_64(addr_in(fix_key(&sge.lkey, false, false),
					rte_le_to_cpu_64(sge.addr)));
		memcpy(wr + off, &sge, sizeof(sge));
	}
}

static void
fix_send(uint8_t *wr, uint32_t len)
{
	struct virtio_rdma_sq_req *sq = (struct virtio_rdma_sq_req *)wr;
	enum obj o;

	if (len < sizeof(*sq))
		return;
	switch (sq->opcode) {
	case VIRTIO_IB_WR_REG_MR:
		fix_key(&sq->reg.key, false, true);
		fix_sges(wr, len, sizeof(*sq), true);
		return;
	case VIRTIO_IB_WR_BIND_MW:
		fix_key(&sq->bind.rkey, true, true);
		o = fix_key(&sq->bind.mr_lkey, false, false);
		sq->bind.addr = rte_cpu_to_le_64(addr_in(o, rte_le_to_cpu_64(sq->bind.addr)));
		return;
	case VIRTIO_IB_WR_LOCAL_INV:
	case VIRTIO_IB_WR_SEND_WITH_INV:
		fix_key(&sq->inv.invalidate_rkey, true, false);
		break;
	case VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP:
	case VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD:
		o = fix_key(&sq->atomic.rkey, true, false);
		sq->atomic.remote_addr = rte_cpu_to_le_64(
				addr_in(o, rte_le_to_cpu_64(sq->atomic.remote_addr)) & ~7ULL);
		break;
	case VIRTIO_IB_WR_SEND:
	case VIRTIO_IB_WR_SEND_WITH_IMM:
		/* a UD QP's: the AH, its own QP number and Q_Key */
		sq->ud.ah = rte_cpu_to_le_32(ahn);
		sq->ud.remote_qpn = rte_cpu_to_le_32(dev.qp[VUR_FUZZ_UD]->obj.index);
		sq->ud.remote_qkey = rte_cpu_to_le_32(VUR_FUZZ_QKEY);
		break;
	default:
		o = fix_key(&sq->rdma.rkey, true, false);
		sq->rdma.remote_addr = rte_cpu_to_le_64(
				addr_in(o, rte_le_to_cpu_64(sq->rdma.remote_addr)));
		break;
	}
	if (!(sq->send_flags & VIRTIO_IB_SEND_INLINE))
		fix_sges(wr, len, sizeof(*sq), false);
}

static void
work_request(struct input *in, bool send)
{
	static uint8_t wr[VUR_FUZZ_WR_SZ];
	uint8_t q, l[2];
	uint32_t len;

	if (!take(in, &q, 1) || !take(in, l, 2))
		return;
	len = RTE_MIN((uint32_t)(l[0] | l[1] << 8) % (VUR_FUZZ_WR_SZ + 1), (uint32_t)in->left);
	memset(wr, 0, sizeof(wr));
	take(in, wr, len);
	if (!(q & WR_RAW)) {
		if (send)
			fix_send(wr, len);
		else
			fix_sges(wr, len, offsetof(struct virtio_rdma_rq_req, sg_list), false);
	}
	q = (q & 0x7f) % VUR_FUZZ_NQPS;
	vur_fuzz_ring_offer(send ? &dev.sq[q] : &dev.rq[q], wr, len, false);
}

static void
page_list(struct input *in)
{
	uint8_t slot, n, b;
	uint64_t *pl, raw;

	if (!take(in, &slot, 1) || !take(in, &n, 1))
		return;
	pl = vur_fuzz_at(PLIST_GPA + (slot % 4) * PAGE_SZ);
	for (uint32_t i = 0; i < RTE_MIN(n, FAST_PAGES * 2u) && take(in, &b, 1); i++) {
		if (b == 0xff && take(in, &raw, sizeof(raw)))
			pl[i] = raw;
		else
			pl[i] = rte_cpu_to_le_64(VUR_FUZZ_DATA_GPA + (uint64_t)(b % 124) * PAGE_SZ);
	}
}

static void
pass(struct input *in)
{
	struct rte_mbuf *out[PASS_PACKETS];
	uint64_t deadline;
	uint16_t n;
	uint8_t step;

	if (!take(in, &step, 1))
		return;
	dev.now_ns += 1ULL << (step % 32);
	n = vur_tp_poll(&dev.td, 0, out, PASS_PACKETS, dev.now_ns, false, &deadline);
	if (n > 0)
		vur_tp_rx(&dev.td, out, n, dev.now_ns);
}

static int
make_ah(void)
{
	struct virtio_rdma_cmd_create_ah c = { .pdn = rte_cpu_to_le_32(dev.pdn) };

	memcpy(c.ah_attr.grh.dgid, dev.qp[VUR_FUZZ_UD]->attr.av.dgid, VIRTIO_NET_ROCE_GID_LEN);
	c.ah_attr.grh.hop_limit = 64;
	memcpy(c.ah_attr.dmac, dev.filter.mac, 6);
	return vur_rdma_create_ah(&dev.rd, &c, &ahn);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (vur_fuzz_global_init() != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t kind, o;

	if (vur_fuzz_dev_init(&dev, true) != 0 || vur_fuzz_dev_qps(&dev) != 0 ||
			vur_rdma_create_pd(&dev.rd, &pd2) != 0 ||
			vur_rdma_add_gid(&dev.rd, 0, dev.qp[VUR_FUZZ_UD]->attr.av.sgid) != 0 ||
			make_ah() != 0)
		abort();
	for (int i = 0; i < O_N; i++)
		if (make((enum obj)i) != 0)
			abort();
	for (int r = 0; r < MAX_RECORDS && take(&in, &kind, 1); r++) {
		switch (kind % 5) {
		case 0:
		case 1:
			work_request(&in, kind % 5 == 0);
			break;
		case 2:
			pass(&in);
			break;
		case 3:
			page_list(&in);
			break;
		default:
			if (take(&in, &o, 1))
				remake((enum obj)(o % O_N));
			break;
		}
	}
	vur_fuzz_dev_fini(&dev);
	return 0;
}
