/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's side of the uplinks: receive bursts, transmit with flows
 * spread over the uplinks that are up (a flow hash picks one, so a flow
 * keeps its order), link state cached so that no burst waits for it, and
 * receive interrupts armed only while the data path sleeps (an uplink
 * without one is polled, see net_datapath.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_bond.h>
#include <rte_ethdev.h>

#include "common/log.h"
#include "net/net_switch.h"

int
vur_switch_set_uplinks(struct vur_switch *sw, struct vur_uplinks *u)
{
	struct vur_sw_uplink *up;
	uint16_t i;
	int ret;

	for (i = 0; i < u->n_uplinks && i < VUR_MAX_UPLINKS; i++) {
		up = &sw->uplinks[i];
		up->port_id = u->uplinks[i].port_id;
		up->keepalive = u->uplinks[i].bond &&
				u->uplinks[i].bond_mode == BONDING_MODE_8023AD;
		up->rx_intr = false;
		if (u->uplinks[i].rx_intr) {
			ret = rte_eth_dev_rx_intr_ctl_q(up->port_id, 0, sw->dp[0].epfd,
					RTE_INTR_EVENT_ADD, (void *)(uintptr_t)VUR_SW_MAX_DEVS);
			up->rx_intr = ret == 0;
			if (ret != 0)
				VUR_LOG(net, WARNING,
						"uplink %s: its receive interrupt cannot wake the "
						"data path (%s)",
						u->uplinks[i].name, rte_strerror(-ret));
			u->uplinks[i].rx_intr = up->rx_intr;
		}
		if (up->rx_intr)
			VUR_LOG(net, INFO,
					"uplink %s: receive interrupts: the data path sleeps "
					"until a frame comes",
					u->uplinks[i].name);
		else
			VUR_LOG(net, INFO,
					"uplink %s: no receive interrupt: polled, every pass "
					"while there is traffic, then every %llu us to %llu us "
					"(doubling) when idle",
					u->uplinks[i].name, VUR_DP_POLL_MIN_NS / 1000,
					VUR_DP_POLL_MAX_NS / 1000);
	}
	/* The data path reads the uplinks only up to the published count. */
	__atomic_store_n(&sw->n_uplinks, i, __ATOMIC_RELEASE);
	/* It may sleep with nothing to wake it for an uplink it must poll. */
	vur_switch_wake(sw);
	return 0;
}

void
vur_switch_unset_uplinks(struct vur_switch *sw)
{
	for (uint16_t i = 0; i < sw->n_uplinks; i++) {
		struct vur_sw_uplink *up = &sw->uplinks[i];

		if (up->rx_intr)
			rte_eth_dev_rx_intr_ctl_q(
					up->port_id, 0, sw->dp[0].epfd, RTE_INTR_EVENT_DEL, NULL);
		up->rx_intr = false;
	}
	sw->n_uplinks = 0;
}

static uint16_t
n_uplinks(const struct vur_switch *sw)
{
	return __atomic_load_n(&sw->n_uplinks, __ATOMIC_ACQUIRE);
}

/*
 * net_tap reads its queue only once its receive signal (O_ASYNC on the
 * queue's fd, owned by the process) has run its handler. The kernel wakes
 * our epoll and queues that signal at the same time, and may give the
 * signal to any thread: if that thread is slow to run, the data path reads
 * nothing, sleeps, and the frame waits for the next wake-up (seconds, with
 * busy TCG guests on two CPUs). Aimed at this thread instead, the signal is
 * handled before this thread returns from the wake-up, so the read sees the
 * frame. Called on the data-path thread; a queue whose signal someone else
 * aimed is left alone.
 */
static void
own_rx_signal(const struct vur_sw_uplink *up)
{
	struct f_owner_ex owner;
	char name[RTE_ETH_NAME_MAX_LEN] = "?";
	int fd, fl;

	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(up->port_id, 0);
	if (fd < 0)
		return;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || !(fl & O_ASYNC) || fcntl(fd, F_GETOWN_EX, &owner) < 0 ||
			owner.type != F_OWNER_PID || owner.pid != getpid())
		return;
	rte_eth_dev_get_name_by_port(up->port_id, name);
	owner.type = F_OWNER_TID;
	owner.pid = rte_sys_gettid();
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0)
		VUR_LOG(net, WARNING, "%s: receive signal not aimed at the data path: %s", name,
				strerror(errno));
	else
		VUR_LOG(net, INFO, "%s: receive signal aimed at the data path (thread %d)", name,
				owner.pid);
}

/* Link state without waiting: a bond is up while one of its members is. */
void
vur_switch_uplinks_refresh(struct vur_switch *sw)
{
	uint16_t up_idx[VUR_MAX_UPLINKS], n_up = 0;
	struct rte_eth_link link;

	for (uint16_t i = 0; i < n_uplinks(sw); i++) {
		struct vur_sw_uplink *up = &sw->uplinks[i];
		bool is_up = rte_eth_link_get_nowait(up->port_id, &link) == 0 &&
				link.link_status == RTE_ETH_LINK_UP;

		if (!up->sig_owned && up->rx_intr)
			own_rx_signal(up);
		up->sig_owned = true;
		__atomic_store_n(&up->up, is_up, __ATOMIC_RELAXED);
		if (is_up)
			up_idx[n_up++] = i;
	}
	rte_spinlock_lock(&sw->uplink_lock);
	memcpy(sw->up_idx, up_idx, sizeof(up_idx[0]) * n_up);
	sw->n_up = n_up;
	rte_spinlock_unlock(&sw->uplink_lock);
	rte_spinlock_lock(&sw->fdb_lock);
	__atomic_store_n(&sw->stats.fdb_learned, sw->fdb.stats.learned, __ATOMIC_RELAXED);
	__atomic_store_n(&sw->stats.fdb_moved, sw->fdb.stats.moved, __ATOMIC_RELAXED);
	__atomic_store_n(&sw->stats.fdb_evicted, sw->fdb.stats.evicted, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&sw->fdb_lock);
}

uint16_t
vur_switch_uplinks_rx(struct vur_switch *sw, uint64_t now_ns)
{
	struct rte_mbuf *pkts[VUR_SW_BURST];
	uint16_t total = 0, n;
	uint64_t bytes;

	for (uint16_t i = 0; i < n_uplinks(sw); i++) {
		struct vur_sw_uplink *up = &sw->uplinks[i];

		n = rte_eth_rx_burst(up->port_id, 0, pkts, VUR_SW_BURST);
		if (up->keepalive) { /* LACPDUs go out from inside the bond's tx burst */
			rte_spinlock_lock(&sw->uplink_lock);
			rte_eth_tx_burst(up->port_id, 0, pkts, 0);
			rte_spinlock_unlock(&sw->uplink_lock);
		}
		if (n == 0)
			continue;
		bytes = 0;
		for (uint16_t j = 0; j < n; j++)
			bytes += pkts[j]->pkt_len;
		VUR_STAT_ADD(up->stats.rx_frames, n);
		VUR_STAT_ADD(up->stats.rx_bytes, bytes);
		vur_switch_forward(sw, VUR_SW_PORT_UPLINK, pkts, n, now_ns);
		total += n;
	}
	return total;
}

static void
tx_one(struct vur_switch *sw, uint16_t u, struct rte_mbuf **pkts, uint16_t n)
{
	struct vur_sw_uplink *up = &sw->uplinks[u];
	uint64_t bytes = 0;
	uint16_t sent;

	for (uint16_t j = 0; j < n; j++)
		bytes += pkts[j]->pkt_len;
	sent = rte_eth_tx_burst(up->port_id, 0, pkts, n);
	for (uint16_t j = sent; j < n; j++)
		bytes -= pkts[j]->pkt_len;
	VUR_STAT_ADD(up->stats.tx_frames, sent);
	VUR_STAT_ADD(up->stats.tx_bytes, bytes);
	if (sent < n) {
		VUR_STAT_ADD(up->stats.tx_dropped, n - sent);
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
}

void
vur_switch_uplink_tx(
		struct vur_switch *sw, struct rte_mbuf **pkts, const uint32_t *hash, uint16_t n)
{
	struct rte_mbuf *per[VUR_MAX_UPLINKS][VUR_SW_BURST];
	uint16_t cnt[VUR_MAX_UPLINKS] = { 0 }, u;

	/* The data paths share each uplink's one transmit queue. */
	rte_spinlock_lock(&sw->uplink_lock);
	if (sw->n_up == 0) {
		rte_spinlock_unlock(&sw->uplink_lock);
		if (n_uplinks(sw) == 0)
			VUR_STAT_ADD(sw->stats.no_uplink, n);
		else
			VUR_STAT_ADD(sw->stats.uplink_down, n);
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		u = sw->up_idx[hash[i] % sw->n_up];
		per[u][cnt[u]++] = pkts[i];
	}
	for (u = 0; u < n_uplinks(sw); u++)
		if (cnt[u] > 0)
			tx_one(sw, u, per[u], cnt[u]);
	rte_spinlock_unlock(&sw->uplink_lock);
}

void
vur_switch_uplinks_intr(struct vur_switch *sw, bool enable)
{
	for (uint16_t i = 0; i < n_uplinks(sw); i++) {
		if (!sw->uplinks[i].rx_intr)
			continue;
		if (enable)
			rte_eth_dev_rx_intr_enable(sw->uplinks[i].port_id, 0);
		else
			rte_eth_dev_rx_intr_disable(sw->uplinks[i].port_id, 0);
	}
}

/* An uplink nothing wakes the data path for: it must be polled. */
bool
vur_switch_uplinks_polled(const struct vur_switch *sw)
{
	for (uint16_t i = 0; i < n_uplinks(sw); i++)
		if (!sw->uplinks[i].rx_intr)
			return true;
	return false;
}

/* An 802.3ad bond: LACP runs inside its bursts, needed at least every 100 ms. */
bool
vur_switch_uplinks_keepalive(const struct vur_switch *sw)
{
	for (uint16_t i = 0; i < n_uplinks(sw); i++)
		if (sw->uplinks[i].keepalive)
			return true;
	return false;
}

uint16_t
vur_switch_uplink_stats(
		const struct vur_switch *sw, uint16_t i, bool *up, struct vur_sw_uplink_stats *out)
{
	const struct vur_sw_uplink *u;

	if (i >= n_uplinks(sw))
		return UINT16_MAX;
	u = &sw->uplinks[i];
	*up = __atomic_load_n(&u->up, __ATOMIC_RELAXED);
	out->rx_frames = __atomic_load_n(&u->stats.rx_frames, __ATOMIC_RELAXED);
	out->rx_bytes = __atomic_load_n(&u->stats.rx_bytes, __ATOMIC_RELAXED);
	out->tx_frames = __atomic_load_n(&u->stats.tx_frames, __ATOMIC_RELAXED);
	out->tx_bytes = __atomic_load_n(&u->stats.tx_bytes, __ATOMIC_RELAXED);
	out->tx_dropped = __atomic_load_n(&u->stats.tx_dropped, __ATOMIC_RELAXED);
	return u->port_id;
}
