/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Ethernet path through the local switch as far as frames land:
 * frames from an uplink and from devices' transmit rings (net_txq.c) go
 * through the switch's forwarding (net_switch.c: learning, flooding, the
 * RoCE v2 ones for an engine, ROCE-DEV-WIRE-3, MCAST-8) into the devices'
 * receive filters and receive rings (net_rxq.c, merged buffers or not),
 * or into the RDMA engine of a device with live QPs (one attached to a
 * multicast group); the engine's own packets go back through the switch
 * (vur_switch_send_rdma), whole (ICRC) to a device that runs its own RoCE.
 * Three devices: port 0 has the engine, ports 1 and 2 are plain virtio-net.
 * No uplink is configured: frames for the outside are counted and freed.
 *
 * An input is a list of records, each a kind byte and its bytes:
 *   kind % 6 == 0  a frame from the uplink: u8 fix, le16 length, the frame
 *   kind % 6 == 1  a frame a device sends: u8 device, u8 fix, le16 length,
 *                  the virtio-net header and frame, into its transmit ring,
 *                  which the data path then polls
 *   kind % 6 == 2  receive buffers: u8 device, u8 count (of 1 KiB each)
 *   kind % 6 == 3  a receive-filter or device change: u8 device, u8 op, 2 bytes
 *   kind % 6 == 4  a pass of the engine: u8 clock step (2^(step % 32) ns)
 *   kind % 6 == 5  a WR of the engine's UD QP: u8 which, u8 length: with bit
 *                  2 of which a receive WR, else a send of length bytes, by
 *                  bit 0 to the group's AH or device 1's, by bit 1 to the
 *                  multicast QPN or QP 1
 * Unless fix says raw, the harness picks the frame's destination and source
 * MACs from the devices', the group's, broadcast and strangers' (by their
 * first byte), and makes a UDP/IP frame's lengths and a RoCE v2 one's ICRC
 * right. Devices' frames reach at most 1 KiB (one transmit buffer).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net.h>

#include <rte_mbuf.h>

#include "fuzz/fuzz_dev.h"
#include "fuzz/fuzz_input.h"
#include "net/net_dev.h"
#include "net/net_state.h"
#include "net/net_switch.h"
#include "net/net_txq.h"
#include "rdma/rdma_ops.h"
#include "transport/icrc.h"
#include "transport/transport.h"

#define N_DEVS      3
#define RAW_MACS    0x01
#define RAW_LENGTHS 0x02
#define FIX_CHAIN   0x80
#define MAX_FRAME   4096
#define MAX_RECORDS 64
#define HDR_LEN     ((uint32_t)sizeof(struct virtio_net_hdr_mrg_rxbuf))

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vur_fuzz_dev dev;
static struct vur_net_state filter[N_DEVS]; /* [0] is unused: the engine device's is dev.filter */
static struct vur_net_dev plain[N_DEVS];    /* [0] is unused: dev.nd */
static struct vur_net_dev *nd[N_DEVS];
static pthread_rwlock_t lock[N_DEVS];
static struct vur_fuzz_ring rx[N_DEVS], tx[N_DEVS];
static uint32_t ah_group, ah_dev1;

/* The group the UD QP is in: ff0e::1 (its MAC 33:33:00:00:00:01). */
static const uint8_t group_gid[16] = { 0xff, 0x0e, [15] = 1 };
static const uint8_t gid_v6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t macs[8][6] = {
	{ 0x52, 0x54, 0, 0, 0, 1 }, /* device 0 (the engine's) */
	{ 0x52, 0x54, 0, 0, 0, 2 }, /* device 1 */
	{ 0x52, 0x54, 0, 0, 0, 3 }, /* device 2 */
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, { 0x33, 0x33, 0, 0, 0, 1 }, /* the group */
	{ 0x01, 0x00, 0x5e, 0, 0, 1 },                                      /* another multicast */
	{ 0x02, 0, 0, 0, 0, 0x09 }, /* a stranger behind the uplink */
	{ 0x02, 0, 0, 0, 0, 0x0a }, /* another */
};

/* The addresses, lengths and ICRC of frame @f that @fix does not keep raw. */
static void
fix_frame(uint8_t *f, uint32_t len, uint8_t fix)
{
	uint32_t l3 = RTE_ETHER_HDR_LEN, l4, icrc;
	bool ipv6;

	if (len < RTE_ETHER_HDR_LEN)
		return;
	if (!(fix & RAW_MACS)) {
		memcpy(f, macs[f[0] % 8], 6);
		memcpy(f + 6, macs[(f[6] % 4) == 3 ? 6 : f[6] % 4], 6);
	}
	if (fix & RAW_LENGTHS)
		return;
	if (f[12] == 0x81 && f[13] == 0x00 && len >= l3 + 4)
		l3 += 4; /* one VLAN tag */
	ipv6 = f[l3 - 2] == 0x86 && f[l3 - 1] == 0xdd;
	if (!ipv6 && !(f[l3 - 2] == 0x08 && f[l3 - 1] == 0x00))
		return;
	l4 = l3 + (ipv6 ? 40 : 20);
	if (len < l4 + 8 + 4)
		return;
	if (ipv6) {
		f[l3] = (uint8_t)(0x60 | (f[l3] & 0x0f));
		f[l3 + 6] = IPPROTO_UDP;
		put_be16(f + l3 + 4, len - l4);
	} else {
		f[l3] = 0x45;
		f[l3 + 6] &= 0x40;
		f[l3 + 7] = 0;
		f[l3 + 9] = IPPROTO_UDP;
		put_be16(f + l3 + 2, len - l3);
	}
	put_be16(f + l4 + 4, len - l4);
	if (f[l4 + 2] == 0x12 && f[l4 + 3] == 0xb7) { /* RoCE v2 */
		icrc = vur_icrc_flat(f + l3, len - l3 - 4, ipv6);
		memcpy(f + len - 4, &icrc, 4);
	}
}

static struct rte_mbuf *
to_mbuf(const uint8_t *f, uint32_t len, bool chain)
{
	struct rte_mempool *pool = vur_fuzz_hdr_pool();
	uint32_t first = chain ? len / 2 : len;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *m2 = NULL;

	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)first) == NULL)
		goto free;
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), f, first);
	if (first < len) {
		m2 = rte_pktmbuf_alloc(pool);
		if (m2 == NULL || rte_pktmbuf_append(m2, (uint16_t)(len - first)) == NULL)
			goto free;
		memcpy(rte_pktmbuf_mtod(m2, uint8_t *), f + first, len - first);
		if (rte_pktmbuf_chain(m, m2) != 0)
			goto free;
	}
	return m;
free:
	rte_pktmbuf_free(m2);
	rte_pktmbuf_free(m);
	return NULL;
}

static void
from_uplink(struct input *in)
{
	static uint8_t f[MAX_FRAME];
	struct rte_mbuf *m;
	uint8_t fix, l[2];
	uint32_t len;

	if (!take(in, &fix, 1) || !take(in, l, 2))
		return;
	len = RTE_MIN((uint32_t)(l[0] | l[1] << 8) % (MAX_FRAME + 1), (uint32_t)in->left);
	take(in, f, len);
	fix_frame(f, len, fix);
	m = to_mbuf(f, len, fix & FIX_CHAIN);
	if (m != NULL)
		vur_switch_forward(&dev.sw, VUR_SW_PORT_UPLINK, &m, 1, dev.now_ns);
}

/* What the data path does for a device's transmit queue (net_datapath.c). */
static void
poll_tx(int d)
{
	struct rte_mbuf *pkts[VUR_SW_BURST];
	uint16_t n;

	pthread_rwlock_rdlock(nd[d]->lock);
	n = nd[d]->txq.active ? vur_net_txq_burst(nd[d], dev.sw.pool, pkts, VUR_SW_BURST) : 0;
	pthread_rwlock_unlock(nd[d]->lock);
	if (n > 0)
		vur_switch_forward(&dev.sw, (uint16_t)d, pkts, n, dev.now_ns);
}

static void
from_device(struct input *in)
{
	static uint8_t b[VUR_FUZZ_WR_SZ];
	uint8_t d, fix, l[2];
	uint32_t len;

	if (!take(in, &d, 1) || !take(in, &fix, 1) || !take(in, l, 2))
		return;
	d %= N_DEVS;
	len = RTE_MIN((uint32_t)(l[0] | l[1] << 8) % (VUR_FUZZ_WR_SZ + 1), (uint32_t)in->left);
	memset(b, 0, sizeof(b));
	take(in, b, len);
	if (len > nd[d]->hdr_len) {
		if (!(fix & RAW_LENGTHS)) /* no offloads: none were negotiated */
			memset(b, 0, 2);
		fix_frame(b + nd[d]->hdr_len, len - nd[d]->hdr_len, fix);
	}
	vur_fuzz_ring_offer(&tx[d], b, len, false);
	poll_tx(d);
}

/* A device's address moved (MAC_ADDR_SET): its static FDB entry follows. */
static void
set_mac(int d, const uint8_t *mac)
{
	struct vur_net_state *ns = (struct vur_net_state *)(uintptr_t)nd[d]->filter;
	struct rte_ether_addr a;

	memcpy(ns->mac, mac, 6);
	memcpy(a.addr_bytes, mac, 6);
	vur_fdb_flush_port(&dev.sw.fdb, (uint16_t)d);
	if (!rte_is_multicast_ether_addr(&a))
		vur_fdb_add_static(&dev.sw.fdb, 0, &a, (uint16_t)d, dev.now_ns);
}

static void
change(struct input *in)
{
	uint8_t d, op, a[2], uc[3 * 6], mc[3 * 6];
	struct vur_net_state *ns;
	struct vur_net_dev *n;
	uint32_t n_uc, n_mc;

	if (!take(in, &d, 1) || !take(in, &op, 1) || !take(in, a, 2))
		return;
	d %= N_DEVS;
	n = nd[d];
	ns = (struct vur_net_state *)(uintptr_t)n->filter;
	switch (op % 8) {
	case 0: /* VIRTIO_NET_CTRL_RX */
		ns->promisc = a[0] & 1;
		ns->allmulti = a[0] & 2;
		ns->alluni = a[0] & 4;
		ns->nomulti = a[0] & 8;
		ns->nouni = a[0] & 16;
		ns->nobcast = a[0] & 32;
		break;
	case 1: /* VIRTIO_NET_CTRL_VLAN: a bad vid now and then */
		vur_net_state_set_vlan(ns, (a[0] | a[1] << 8) & 0x1fff, a[1] & 0x80);
		break;
	case 2:
		vur_net_state_set_features(ns, (a[0] & 1) ? 1ULL << VIRTIO_NET_F_CTRL_VLAN : 0);
		break;
	case 3: /* MAC_TABLE_SET from the address list, wrong kinds refused */
		n_uc = a[0] % 4;
		n_mc = a[1] % 4;
		for (uint32_t i = 0; i < 3; i++) {
			memcpy(uc + 6 * i, macs[(a[0] >> (2 + i)) % 8], 6);
			memcpy(mc + 6 * i, macs[(a[1] >> (2 + i)) % 8], 6);
		}
		vur_net_state_set_mac_tables(ns, uc, n_uc, mc, n_mc);
		break;
	case 4:
		n->link_down = a[0] & 1;
		vur_net_dev_set_vlan(
				n, a[0] & 2 ? 10 : 0); /* an access VLAN: tags pushed, popped */
		break;
	case 5:
		set_mac(d, macs[a[0] % 8]);
		break;
	case 6:
		n->mrg_rxbuf = a[0] & 1;
		n->hdr_len = (a[0] & 3) == 0 ? sizeof(struct virtio_net_hdr) : HDR_LEN;
		break;
	default: /* a queue stopped or started again */
		n->rxq.active = a[0] & 1;
		n->txq.active = a[0] & 2;
		break;
	}
}

static void
rx_buffers(struct input *in)
{
	uint8_t d, k;

	if (!take(in, &d, 1) || !take(in, &k, 1))
		return;
	d %= N_DEVS;
	for (uint8_t i = 0; i < k % (VUR_FUZZ_BUFS + 1); i++)
		vur_fuzz_ring_offer(&rx[d], NULL, VUR_FUZZ_WR_SZ, true);
}

static void
pass(struct input *in)
{
	struct rte_mbuf *out[VUR_SW_BURST];
	uint64_t deadline;
	uint8_t step;
	uint16_t n;

	if (!take(in, &step, 1))
		return;
	dev.now_ns += 1ULL << (step % 32);
	n = vur_tp_poll(&dev.td, 0, out, VUR_SW_BURST, dev.now_ns, false, &deadline);
	if (n > 0)
		vur_switch_send_rdma(&dev.sw, 0, out, n, dev.now_ns);
}

static void
ud_send(struct input *in)
{
	struct virtio_rdma_sq_req *r;
	static uint8_t wr[sizeof(*r) + sizeof(struct virtio_rdma_sge)];
	struct virtio_rdma_sge *sge = (void *)(wr + sizeof(*r));
	uint8_t which, len;

	if (!take(in, &which, 1) || !take(in, &len, 1))
		return;
	r = (void *)wr;
	memset(wr, 0, sizeof(wr));
	if (which & 4) { /* a receive WR instead: what a datagram lands in */
		struct virtio_rdma_rq_req *q = (void *)wr;
		struct virtio_rdma_sge *s = (void *)(wr + sizeof(*q));

		q->num_sge = rte_cpu_to_le_32(1);
		s->addr = rte_cpu_to_le_64(VUR_FUZZ_DATA_GPA + 0x1000);
		s->length = rte_cpu_to_le_32(2048);
		s->lkey = rte_cpu_to_le_32(dev.mr->lkey);
		vur_fuzz_ring_offer(&dev.rq[VUR_FUZZ_UD], wr, sizeof(*q) + sizeof(*s), false);
		return;
	}
	r->opcode = VIRTIO_IB_WR_SEND;
	r->send_flags = VIRTIO_IB_SEND_SIGNALED;
	r->ud.ah = rte_cpu_to_le_32(which & 1 ? ah_dev1 : ah_group);
	r->ud.remote_qpn = rte_cpu_to_le_32(which & 2 ? 0xffffff : 1);
	r->ud.remote_qkey = rte_cpu_to_le_32(VUR_FUZZ_QKEY);
	r->num_sge = rte_cpu_to_le_32(1);
	sge->addr = rte_cpu_to_le_64(VUR_FUZZ_DATA_GPA);
	sge->length = rte_cpu_to_le_32(len);
	sge->lkey = rte_cpu_to_le_32(dev.mr->lkey);
	vur_fuzz_ring_offer(&dev.sq[VUR_FUZZ_UD], wr, sizeof(wr), false);
}

static int
make_ah(const uint8_t *gid, uint8_t sgid_index, const uint8_t *mac, uint32_t *ah)
{
	struct virtio_rdma_cmd_create_ah c = { .pdn = rte_cpu_to_le_32(dev.pdn) };

	memcpy(c.ah_attr.grh.dgid, gid, 16);
	c.ah_attr.grh.sgid_index = sgid_index;
	c.ah_attr.grh.hop_limit = 64;
	memcpy(c.ah_attr.dmac, mac, 6);
	return vur_rdma_create_ah(&dev.rd, &c, ah);
}

/* The engine device on port 0 with a GID and a group, two plain ones beside it. */
static int
setup(void)
{
	struct virtio_rdma_cmd_mcast mc = { 0 };
	const uint8_t *gid0 = dev.qp[VUR_FUZZ_UD]->attr.av.sgid;
	uint8_t gid1[16];

	/* a v4-mapped GID (0) and a v6 one (1): the group's AH takes the second */
	if (vur_rdma_add_gid(&dev.rd, 0, gid0) != 0 || vur_rdma_add_gid(&dev.rd, 1, gid_v6) != 0)
		return -1;
	mc.qpn = rte_cpu_to_le_32(dev.qp[VUR_FUZZ_UD]->obj.index);
	memcpy(mc.gid, group_gid, 16);
	memcpy(gid1, gid0, 16);
	gid1[15] = 2;
	if (vur_rdma_attach_mcast(&dev.rd, &mc) != 0 ||
			make_ah(group_gid, 1, macs[4], &ah_group) != 0 ||
			make_ah(gid1, 0, macs[1], &ah_dev1) != 0)
		return -1;
	memset(dev.sw.slots, 0, sizeof(dev.sw.slots));
	dev.sw.attached = 0;
	dev.sw.pool = vur_fuzz_hdr_pool();
	dev.sw.n_uplinks = dev.sw.n_up = 0;
	memset(&dev.sw.stats, 0, sizeof(dev.sw.stats));
	vur_fdb_init(&dev.sw.fdb, VUR_FDB_AGE_NS);
	for (int d = 0; d < N_DEVS; d++) {
		if (d == 0) {
			vur_net_dev_init(&dev.nd, &lock[0], "fuzz0", &dev.filter, &dev.rd);
			nd[0] = &dev.nd;
			nd[0]->tp = &dev.td;
			nd[0]->roce = true;
		} else {
			vur_net_state_init(&filter[d], macs[d], 1);
			vur_net_dev_init(&plain[d], &lock[d], "fuzz", &filter[d], NULL);
			nd[d] = &plain[d];
		}
		if (vur_net_dev_attach(nd[d], &dev.sw) != 0 || nd[d]->slot != d)
			return -1;
		nd[d]->hdr_len = HDR_LEN;
		nd[d]->mrg_rxbuf = true;
		nd[d]->max_frame = 1500 + RTE_ETHER_HDR_LEN + 8;
		vur_fuzz_ring_at(&rx[d], &nd[d]->rxq.ring, VUR_FUZZ_ENGINE_RINGS + 2 * d);
		vur_fuzz_ring_at(&tx[d], &nd[d]->txq.ring, VUR_FUZZ_ENGINE_RINGS + 2 * d + 1);
		nd[d]->rxq.mem = nd[d]->txq.mem = vur_fuzz_mem();
		nd[d]->rxq.active = nd[d]->txq.active = true;
		set_mac(d, macs[d]);
	}
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (vur_fuzz_global_init() != 0)
		abort();
	for (int d = 0; d < N_DEVS; d++)
		pthread_rwlock_init(&lock[d], NULL);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t kind;

	if (vur_fuzz_dev_init(&dev, true) != 0 || vur_fuzz_dev_qps(&dev) != 0 || setup() != 0)
		abort();
	for (int r = 0; r < MAX_RECORDS && take(&in, &kind, 1); r++) {
		switch (kind % 6) {
		case 0:
			from_uplink(&in);
			break;
		case 1:
			from_device(&in);
			break;
		case 2:
			rx_buffers(&in);
			break;
		case 3:
			change(&in);
			break;
		case 4:
			pass(&in);
			break;
		default:
			ud_send(&in);
			break;
		}
	}
	/* as detach does: the device's queues first, then its port */
	for (int d = 0; d < N_DEVS; d++)
		nd[d]->rxq.active = nd[d]->txq.active = false;
	vur_fuzz_dev_fini(&dev);
	return 0;
}
