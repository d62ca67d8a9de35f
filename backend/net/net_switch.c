/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch object (ports, attach and detach) and its forwarding step: a
 * burst from one port goes through the forwarding rule, then to each
 * destination device under that device's lock (its receive filter, its
 * receive queue, or the RDMA engine for RoCE v2 addressed to it), and to
 * the uplinks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "common/dpdk_compat.h"
#include "common/log.h"
#include "net/net_dev.h"
#include "net/net_rxq.h"
#include "net/net_state.h"
#include "net/net_switch.h"
#include "net/net_vlan.h"
#include "transport/pkt.h"
#include "transport/transport.h"

#define POOL_MBUFS 4095
#define POOL_CACHE 256
/* RoCE headers (and inline payloads up to 512 bytes) and borrowed payload segments */
#define RDMA_HDR_MBUFS 8191
#define RDMA_HDR_ROOM  (RTE_PKTMBUF_HEADROOM + 1024)
#define RDMA_EXT_MBUFS 16383
#define RDMA_KICK_TAG  (VUR_SW_MAX_DEVS + 1) /* epoll data of engine kicks */

/* net_datapath.c: a data-path thread */
int vur_dp_launch(struct vur_dp *dp);
void vur_dp_join(struct vur_dp *dp);

int
vur_switch_attach(struct vur_switch *sw, struct vur_net_dev *nd)
{
	int slot = -ENOSPC;

	pthread_mutex_lock(&sw->attach_lock);
	for (int i = 0; i < VUR_SW_MAX_DEVS; i++) {
		if (!(sw->attached & (1ULL << i))) {
			slot = i;
			break;
		}
	}
	if (slot >= 0) {
		__atomic_store_n(&sw->port_vlan[slot], nd->vlan, __ATOMIC_RELEASE);
		__atomic_store_n(&sw->slot_gen[slot], sw->slot_gen[slot] + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&sw->slots[slot], nd, __ATOMIC_RELEASE);
		__atomic_store_n(&sw->attached, sw->attached | (1ULL << slot), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sw->attach_lock);
	return slot;
}

void
vur_switch_detach(struct vur_switch *sw, int slot)
{
	pthread_mutex_lock(&sw->attach_lock);
	__atomic_store_n(&sw->attached, sw->attached & ~(1ULL << slot), __ATOMIC_RELEASE);
	__atomic_store_n(&sw->slots[slot], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&sw->attach_lock);
	/* The data path reports a quiescent state between bursts and while it sleeps. */
	rte_rcu_qsbr_synchronize(sw->rcu, RTE_QSBR_THRID_INVALID);
}

void
vur_switch_set_vlan(struct vur_switch *sw, int slot, uint16_t vlan)
{
	__atomic_store_n(&sw->port_vlan[slot], vlan, __ATOMIC_RELEASE);
}

/* The attached device ports on segment @seg (an access VLAN, or 0: none). */
static uint64_t
seg_members(const struct vur_switch *sw, uint16_t seg)
{
	uint64_t ports = __atomic_load_n(&sw->attached, __ATOMIC_ACQUIRE), members = 0;

	for (; ports != 0; ports &= ports - 1) {
		int slot = __builtin_ctzll(ports);

		if (__atomic_load_n(&sw->port_vlan[slot], __ATOMIC_ACQUIRE) == seg)
			members |= 1ULL << slot;
	}
	return members;
}

int
vur_switch_watch_kick(struct vur_switch *sw, int slot, int fd)
{
	struct rte_epoll_event *ev = &sw->kick_ev[slot];
	int epfd;

	memset(ev, 0, sizeof(*ev));
	ev->epdata.event = EPOLLIN;
	ev->epdata.data = (void *)(uintptr_t)slot;
	epfd = vur_switch_dp_of(sw, slot)->epfd;
	return rte_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, ev) < 0 ? -EINVAL : 0;
}

void
vur_switch_unwatch_kick(struct vur_switch *sw, int slot)
{
	struct rte_epoll_event *ev = &sw->kick_ev[slot];

	if (rte_epoll_ctl(vur_switch_dp_of(sw, slot)->epfd, EPOLL_CTL_DEL, ev->fd, ev) < 0)
		VUR_LOG(net, WARNING, "port %d: cannot unwatch its transmit kick", slot);
}

int
vur_switch_watch_rdma_kick(
		struct vur_switch *sw, unsigned int dp, int fd, struct rte_epoll_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->epdata.event = EPOLLIN | EPOLLET;
	ev->epdata.data = (void *)(uintptr_t)RDMA_KICK_TAG;
	return rte_epoll_ctl(sw->dp[dp].epfd, EPOLL_CTL_ADD, fd, ev) < 0 ? -EINVAL : 0;
}

void
vur_switch_unwatch_rdma_kick(struct vur_switch *sw, unsigned int dp, struct rte_epoll_event *ev)
{
	/* librte_vhost may have closed the fd already, which removed it: no complaint */
	rte_epoll_ctl(sw->dp[dp].epfd, EPOLL_CTL_DEL, ev->fd, ev);
}

unsigned int
vur_switch_qp_dp(const struct vur_switch *sw, int slot, uint32_t qpn)
{
	/* Neighbouring QPs, and a device's and its peer's QPs of one number, apart. */
	return sw->n_dp == 0 ? 0 : ((unsigned int)slot + qpn) % sw->n_dp;
}

void
vur_switch_wake(struct vur_switch *sw)
{
	for (unsigned int i = 0; i < sw->n_dp; i++)
		eventfd_write(sw->dp[i].wake_fd, 1);
}

void
vur_switch_sync(struct vur_switch *sw)
{
	if (sw->running)
		rte_rcu_qsbr_synchronize(sw->rcu, RTE_QSBR_THRID_INVALID);
}

/* A data path's epoll and wake-up eventfd. */
static int
dp_init(struct vur_switch *sw, unsigned int id, unsigned int lcore)
{
	struct vur_dp *dp = &sw->dp[id];

	dp->sw = sw;
	dp->id = id;
	dp->lcore = lcore;
	dp->epfd = epoll_create1(EPOLL_CLOEXEC);
	dp->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	dp->wake_ev.epdata.event = EPOLLIN;
	dp->wake_ev.epdata.data = (void *)(uintptr_t)VUR_SW_MAX_DEVS;
	if (dp->epfd < 0 || dp->wake_fd < 0 ||
			rte_epoll_ctl(dp->epfd, EPOLL_CTL_ADD, dp->wake_fd, &dp->wake_ev) < 0)
		return -errno;
	if (id != 0)
		return 0;
	/* the uplinks' thread: its timer for polling uplinks without interrupts */
	dp->poll_ns = VUR_DP_POLL_MIN_NS;
	dp->poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	dp->poll_ev.epdata.event = EPOLLIN;
	dp->poll_ev.epdata.data = (void *)(uintptr_t)(VUR_SW_MAX_DEVS + 1);
	if (dp->poll_fd < 0 ||
			rte_epoll_ctl(dp->epfd, EPOLL_CTL_ADD, dp->poll_fd, &dp->poll_ev) < 0)
		return -errno;
	return 0;
}

static void
dp_fini(struct vur_dp *dp)
{
	if (dp->poll_fd >= 0)
		close(dp->poll_fd);
	if (dp->wake_fd >= 0)
		close(dp->wake_fd);
	if (dp->epfd >= 0)
		close(dp->epfd);
	dp->poll_fd = dp->wake_fd = dp->epfd = -1;
}

/* One data path per EAL worker lcore, or a single control thread without one. */
static unsigned int
dp_lcores(unsigned int *lcores)
{
	unsigned int n = 0, lcore;

	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (n == VUR_SW_MAX_DP) {
			VUR_LOG(net, WARNING, "lcore %u and later: not used, at most %d data paths",
					lcore, VUR_SW_MAX_DP);
			break;
		}
		lcores[n++] = lcore;
	}
	if (n == 0)
		lcores[n++] = LCORE_ID_ANY;
	return n;
}

int
vur_switch_start(struct vur_switch *sw)
{
	unsigned int lcores[VUR_SW_MAX_DP], n;
	size_t sz;
	int ret;

	memset(sw, 0, sizeof(*sw));
	for (unsigned int i = 0; i < VUR_SW_MAX_DP; i++)
		sw->dp[i].epfd = sw->dp[i].wake_fd = sw->dp[i].poll_fd = -1;
	pthread_mutex_init(&sw->attach_lock, NULL);
	rte_spinlock_init(&sw->fdb_lock);
	rte_spinlock_init(&sw->uplink_lock);
	vur_fdb_init(&sw->fdb, VUR_FDB_AGE_NS);
	n = dp_lcores(lcores);
	sz = rte_rcu_qsbr_get_memsize(n);
	sw->rcu = rte_zmalloc("vur_switch_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (sw->rcu == NULL || rte_rcu_qsbr_init(sw->rcu, n) != 0)
		goto nomem;
	sw->pool = rte_pktmbuf_pool_create("vur_net_tx", POOL_MBUFS, POOL_CACHE, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (sw->pool == NULL)
		goto nomem;
	ret = vur_pkt_init();
	if (ret < 0)
		goto fail;
	sw->rdma_pool = rte_pktmbuf_pool_create("vur_rdma_hdr", RDMA_HDR_MBUFS, POOL_CACHE, 0,
			RDMA_HDR_ROOM, SOCKET_ID_ANY);
	sw->rdma_ext_pool = rte_pktmbuf_pool_create(
			"vur_rdma_ext", RDMA_EXT_MBUFS, POOL_CACHE, 0, 0, SOCKET_ID_ANY);
	if (sw->rdma_pool == NULL || sw->rdma_ext_pool == NULL)
		goto nomem;
	/* every epoll exists before a device can attach to one */
	for (unsigned int i = 0; i < n; i++) {
		ret = dp_init(sw, i, lcores[i]);
		if (ret < 0)
			goto fail;
	}
	sw->n_dp = n;
	vur_tp_set_threads(n);
	sw->running = true;
	for (unsigned int i = 0; i < n; i++) {
		ret = vur_dp_launch(&sw->dp[i]);
		if (ret < 0)
			goto fail;
	}
	if (lcores[0] == LCORE_ID_ANY)
		VUR_LOG(net, INFO, "data path: one control thread (no EAL worker lcore)");
	else
		VUR_LOG(net, INFO, "data path: %u thread(s), on EAL worker lcores", n);
	return 0;

nomem:
	VUR_LOG(net, ERR, "switch: cannot allocate: %s", rte_strerror(rte_errno));
	ret = -ENOMEM;
fail:
	vur_switch_stop(sw);
	return ret;
}

void
vur_switch_stop(struct vur_switch *sw)
{
	if (sw->running) {
		__atomic_store_n(&sw->stopping, true, __ATOMIC_RELEASE);
		vur_switch_wake(sw);
		for (unsigned int i = 0; i < sw->n_dp; i++)
			vur_dp_join(&sw->dp[i]);
		sw->running = false;
	}
	vur_switch_unset_uplinks(sw);
	for (unsigned int i = 0; i < VUR_SW_MAX_DP; i++)
		dp_fini(&sw->dp[i]);
	sw->n_dp = 0;
	rte_mempool_free(sw->pool);
	rte_mempool_free(sw->rdma_pool);
	rte_mempool_free(sw->rdma_ext_pool);
	rte_free(sw->rcu);
	sw->pool = sw->rdma_pool = sw->rdma_ext_pool = NULL;
	sw->rcu = NULL;
	pthread_mutex_destroy(&sw->attach_lock);
}

void
vur_switch_stats(const struct vur_switch *sw, struct vur_sw_stats *out)
{
	const uint64_t *src = (const uint64_t *)&sw->stats;
	uint64_t *dst = (uint64_t *)out;

	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* What one burst sends where: packet indices per destination device. */
struct burst_plan {
	struct vur_frame_info fi[VUR_SW_BURST];
	uint16_t seg[VUR_SW_BURST]; /* each frame's segment: its access VLAN, or 0 */
	uint8_t idx[VUR_SW_MAX_DEVS][VUR_SW_BURST];
	uint8_t n[VUR_SW_MAX_DEVS];
	uint64_t devs;
	struct rte_mbuf *up[VUR_SW_BURST];
	uint32_t up_hash[VUR_SW_BURST];
	uint16_t n_up;
	bool have_last; /* last_fwd holds the decision for the burst's last addresses */
	struct vur_fwd last_fwd;
};

/*
 * Where a frame goes. The frames of a burst mostly share their addresses
 * (an engine's packets to one peer): for the same pair as the frame before,
 * the decision stands, without the FDB (its lock, learning and lookup).
 */
static void
decide(struct vur_switch *sw, uint16_t in_port, struct burst_plan *bp, uint16_t i, uint64_t now_ns,
		struct vur_fwd *f)
{
	const struct vur_frame_info *fi = &bp->fi[i];

	/* have_last: a frame before this one was planned */
	if (bp->have_last && bp->seg[i] == bp->seg[i - 1] &&
			rte_is_same_ether_addr(&fi->src, &bp->fi[i - 1].src) &&
			rte_is_same_ether_addr(&fi->dst, &bp->fi[i - 1].dst)) {
		*f = bp->last_fwd;
		return;
	}
	rte_spinlock_lock(&sw->fdb_lock);
	vur_fwd_decide(&sw->fdb, in_port, bp->seg[i], fi, seg_members(sw, bp->seg[i]), now_ns, f);
	rte_spinlock_unlock(&sw->fdb_lock);
	bp->last_fwd = *f;
	bp->have_last = true;
}

/*
 * ROCE-DEV-WIRE-3: a RoCE v2 packet belongs to the device (its RDMA engine)
 * if the driver negotiated RoCE and the packet is for the device's MAC and
 * one of its GIDs. Every other frame, UDP 4791 included, is ordinary
 * Ethernet for its receive queue: a guest running its own RoCE stack (Linux
 * rxe) over a device without RoCE gets its packets.
 */
static bool
for_rdma(const struct vur_net_dev *nd, const struct vur_frame_info *fi)
{
	if (!nd->roce || !fi->roce_v2 || nd->tp == NULL || !nd->tp->active)
		return false;
	/* ROCE-DEV-MCAST-8: a group a QP is attached to, whatever the receive filter */
	if (rte_is_multicast_ether_addr(&fi->dst))
		return vur_tp_takes_mcast(nd->tp, fi->dst.addr_bytes, fi->dst_gid);
	return memcmp(fi->dst.addr_bytes, nd->filter->mac, RTE_ETHER_ADDR_LEN) == 0 &&
			vur_tp_owns_gid(nd->tp, fi->dst_gid);
}

/*
 * An engine's packet for a driver that runs its own RoCE (Linux rxe over a
 * device without RoCE): it checks the ICRC, so it gets whole packets, as
 * from a link. Device lock held.
 */
static void
deliver_wire(struct vur_switch *sw, struct vur_net_dev *nd, const struct rte_mbuf *m)
{
	struct rte_mbuf *w[VUR_PKT_MAX_SEGS];
	uint16_t n = vur_pkt_to_wire(m, sw->pool, w, RTE_DIM(w));

	if (n == 0) {
		nd->stats.drops[VUR_NET_DROP_RX_NO_MBUF]++;
		return;
	}
	VUR_STAT_ADD(sw->stats.roce_to_wire, n);
	vur_net_rxq_enqueue(nd, w, n);
	rte_pktmbuf_free_bulk(w, n);
}

/*
 * RoCE v2 packets for the device's engine, taken with the device lock held
 * to read: the engine locks the QPs it gives them to, so several threads
 * deliver to one device at once.
 */
static void
deliver_rdma(struct vur_net_dev *nd, struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns)
{
	VUR_STAT_ADD(nd->stats.roce_rx, n);
	vur_tp_rx(nd->tp, pkts, n, now_ns);
}

/* Ethernet frames for the device's receive queue, device lock held to write. */
static void
deliver_net(struct vur_switch *sw, struct vur_net_dev *nd, struct rte_mbuf **pkts,
		const struct vur_frame_info **fi, uint16_t n)
{
	struct rte_mbuf *net[VUR_SW_BURST];
	uint16_t n_net = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (nd->link_down) {
			nd->stats.drops[VUR_NET_DROP_LINK_DOWN]++;
		} else if (!nd->rxq.active) {
			nd->stats.drops[VUR_NET_DROP_RX_NOT_READY]++;
		} else if (!vur_net_state_accepts(nd->filter, fi[i]->dst.addr_bytes,
					   fi[i]->vlan_tagged, fi[i]->vid)) {
			nd->stats.drops[VUR_NET_DROP_RX_FILTERED]++;
		} else if (vur_pkt_is_local(m)) {
			if (n_net > 0) /* the frames before it go first */
				vur_net_rxq_enqueue(nd, net, n_net);
			n_net = 0;
			deliver_wire(sw, nd, m);
		} else {
			net[n_net++] = m;
		}
	}
	if (n_net > 0)
		vur_net_rxq_enqueue(nd, net, n_net);
}

/*
 * A burst's frames for one device: its engine's first, under the read lock,
 * then the rest, under the write lock. The two never share a queue, so
 * their order across the two does not matter.
 */
static void
deliver(struct vur_switch *sw, int slot, struct rte_mbuf **pkts, const struct burst_plan *bp,
		uint64_t now_ns)
{
	struct vur_net_dev *nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
	struct rte_mbuf *net[VUR_SW_BURST], *roce[VUR_SW_BURST];
	const struct vur_frame_info *net_fi[VUR_SW_BURST];
	uint16_t n_net = 0, n_roce = 0;

	if (nd == NULL)
		return;
	pthread_rwlock_rdlock(nd->lock);
	for (int i = 0; i < bp->n[slot]; i++) {
		const struct vur_frame_info *fi = &bp->fi[bp->idx[slot][i]];
		struct rte_mbuf *m = pkts[bp->idx[slot][i]];

		if (!nd->link_down && for_rdma(nd, fi)) {
			rte_pktmbuf_refcnt_update(m, 1);
			roce[n_roce++] = m;
		} else {
			net_fi[n_net] = fi;
			net[n_net++] = m;
		}
	}
	if (n_roce > 0)
		deliver_rdma(nd, roce, n_roce, now_ns);
	pthread_rwlock_unlock(nd->lock);
	if (n_net == 0)
		return;
	pthread_rwlock_wrlock(nd->lock);
	deliver_net(sw, nd, net, net_fi, n_net);
	pthread_rwlock_unlock(nd->lock);
}

static void forward(struct vur_switch *sw, uint16_t in_port, struct rte_mbuf **pkts,
		const struct vur_frame_info *fi, uint16_t n, uint64_t now_ns);

/*
 * The headers of frame @m; false for a runt. An engine's packet has them in
 * its first segment and its payload (guest memory) after: they are parsed
 * where they are, copied out only when they go on past the first segment.
 */
static bool
frame_info(const struct rte_mbuf *m, struct vur_frame_info *fi)
{
	uint8_t buf[VUR_FRAME_PARSE_LEN];
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
	const uint8_t *p;

	if (m->data_len < len &&
			vur_frame_parse(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len, fi) ==
					0 &&
			!fi->truncated)
		return true;
	p = rte_pktmbuf_read(m, 0, len, buf);
	return p != NULL && vur_frame_parse(p, len, fi) == 0;
}

void
vur_switch_send_rdma(struct vur_switch *sw, int slot, struct rte_mbuf **pkts, uint16_t n,
		uint64_t now_ns)
{
	struct vur_net_dev *nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
	struct rte_mbuf *self[VUR_SW_BURST], *other[VUR_SW_BURST];
	struct vur_frame_info fi[VUR_SW_BURST];
	uint16_t n_self = 0, n_other = 0;

	if (nd == NULL) {
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	/*
	 * Between two QPs of one device the switch, which never sends a frame
	 * back where it came from, is not the way: the device takes its own.
	 */
	pthread_rwlock_rdlock(nd->lock);
	for (uint16_t i = 0; i < n; i++) {
		if (!frame_info(pkts[i],
				    &fi[n_other])) { /* the engine builds whole headers: never */
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		if (!nd->link_down && for_rdma(nd, &fi[n_other])) {
			self[n_self++] = pkts[i];
			if (!rte_is_multicast_ether_addr(&fi[n_other].dst))
				continue;
			/* ROCE-DEV-MCAST-10: the group's QPs here, and everyone else */
			rte_pktmbuf_refcnt_update(pkts[i], 1);
		}
		other[n_other++] = pkts[i];
	}
	if (n_self > 0)
		deliver_rdma(nd, self, n_self, now_ns);
	pthread_rwlock_unlock(nd->lock);
	if (n_other > 0)
		forward(sw, (uint16_t)slot, other, fi, n_other, now_ns);
}

/* Queue @m for the uplinks, after sending what a full queue holds. */
static void
queue_uplink(struct vur_switch *sw, struct burst_plan *bp, struct rte_mbuf *m, uint32_t hash)
{
	if (bp->n_up == RTE_DIM(bp->up)) {
		vur_switch_uplink_tx(sw, bp->up, bp->up_hash, bp->n_up);
		bp->n_up = 0;
	}
	bp->up[bp->n_up] = m;
	bp->up_hash[bp->n_up++] = hash;
}

/*
 * The segment of frame @m from @in_port, parsed into @fi. A device's frames
 * are on its access VLAN (they come untagged: net_txq.c drops the others).
 * A frame from the uplink tagged (802.1Q) with a VLAN some device here has
 * as its access VLAN is on that VLAN, its tag popped before any device
 * parses it (the frame is ours alone: the PMD's); any other, tagged or not,
 * is on the untagged segment, as it was before access VLANs existed.
 */
static uint16_t
segment(struct vur_switch *sw, uint16_t in_port, struct rte_mbuf *m, struct vur_frame_info *fi)
{
	int vid;

	if (in_port < VUR_SW_MAX_DEVS)
		return __atomic_load_n(&sw->port_vlan[in_port], __ATOMIC_ACQUIRE);
	vid = fi->vlan_tagged ? vur_vlan_outer_vid(m) : -1;
	if (!vur_vlan_valid(vid) || seg_members(sw, (uint16_t)vid) == 0 || vur_vlan_pop(m) != 0)
		return VUR_VLAN_NONE;
	if (!frame_info(m, fi))
		memset(fi, 0, sizeof(*fi)); /* a tag and no more: goes nowhere but floods */
	return (uint16_t)vid;
}

/* Frame @m of a device on access VLAN @seg, tagged, for the uplinks. */
static void
queue_tagged(struct vur_switch *sw, struct burst_plan *bp, struct rte_mbuf *m, uint16_t seg,
		uint32_t hash)
{
	struct rte_mbuf *t = vur_vlan_push_copy(m, seg, sw->pool);

	if (t == NULL) {
		VUR_STAT_ADD(sw->stats.vlan_no_mbuf, 1);
		return;
	}
	queue_uplink(sw, bp, t, hash);
}

/* @fi: the frame's parsed headers, or NULL to parse them here. */
static void
plan(struct vur_switch *sw, uint16_t in_port, struct rte_mbuf *m, const struct vur_frame_info *fi,
		uint16_t i, struct burst_plan *bp, uint64_t now_ns)
{
	uint64_t devs;
	struct vur_fwd f;

	if (fi != NULL) {
		bp->fi[i] = *fi;
	} else if (!frame_info(m, &bp->fi[i])) {
		bp->have_last = false;
		return; /* a runt: nowhere */
	}
	bp->seg[i] = segment(sw, in_port, m, &bp->fi[i]);
	decide(sw, in_port, bp, i, now_ns, &f);
	if (f.flood)
		VUR_STAT_ADD(sw->stats.flooded, 1);
	for (devs = f.devs; devs != 0; devs &= devs - 1) {
		int d = __builtin_ctzll(devs);

		bp->idx[d][bp->n[d]++] = i;
		bp->devs |= 1ULL << d;
	}
	if (!f.uplink)
		return;
	if (vur_pkt_is_local(m)) {
		/* a link needs whole packets: payload copied, pad, ICRC */
		struct rte_mbuf *w[VUR_PKT_MAX_SEGS];
		uint16_t n = vur_pkt_to_wire(m, sw->pool, w, RTE_DIM(w));

		VUR_STAT_ADD(sw->stats.roce_to_wire, n);
		for (uint16_t k = 0; k < n; k++) {
			/* whole packets of our own: the tag goes in place */
			if (bp->seg[i] != VUR_VLAN_NONE && vur_vlan_push(w[k], bp->seg[i]) != 0) {
				queue_tagged(sw, bp, w[k], bp->seg[i], bp->fi[i].flow_hash);
				rte_pktmbuf_free(w[k]);
				continue;
			}
			queue_uplink(sw, bp, w[k], bp->fi[i].flow_hash);
		}
	} else if (bp->seg[i] != VUR_VLAN_NONE && f.devs == 0 &&
			vur_vlan_push(m, bp->seg[i]) == 0) {
		/* for the uplinks alone and ours alone (no copy was shared): tagged in place */
		rte_pktmbuf_refcnt_update(m, 1); /* the PMD frees its reference */
		queue_uplink(sw, bp, m, bp->fi[i].flow_hash);
	} else if (bp->seg[i] != VUR_VLAN_NONE) {
		/* devices read it too (or it is shared already): tagged in a copy */
		queue_tagged(sw, bp, m, bp->seg[i], bp->fi[i].flow_hash);
	} else {
		rte_pktmbuf_refcnt_update(m, 1); /* the PMD frees its reference */
		queue_uplink(sw, bp, m, bp->fi[i].flow_hash);
	}
}

/* @fi: the frames' parsed headers (an engine's packets, parsed already), or NULL. */
static void
forward(struct vur_switch *sw, uint16_t in_port, struct rte_mbuf **pkts,
		const struct vur_frame_info *fi, uint16_t n, uint64_t now_ns)
{
	struct burst_plan bp;

	bp.devs = 0;
	bp.n_up = 0;
	bp.have_last = false;
	memset(bp.n, 0, sizeof(bp.n));
	for (uint16_t i = 0; i < n; i++)
		plan(sw, in_port, pkts[i], fi != NULL ? &fi[i] : NULL, i, &bp, now_ns);
	for (uint64_t devs = bp.devs; devs != 0; devs &= devs - 1)
		deliver(sw, __builtin_ctzll(devs), pkts, &bp, now_ns);
	if (bp.n_up > 0)
		vur_switch_uplink_tx(sw, bp.up, bp.up_hash, bp.n_up);
	rte_pktmbuf_free_bulk(pkts, n);
}

void
vur_switch_forward(struct vur_switch *sw, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		uint64_t now_ns)
{
	forward(sw, in_port, pkts, NULL, n, now_ns);
}
