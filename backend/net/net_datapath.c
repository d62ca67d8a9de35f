/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A data-path thread: poll while there is traffic, sleep when there is
 * none. Polling takes the transmit queue of each device the thread owns
 * under the device's lock, then (the first thread) the uplinks' receive
 * queues, then the QPs it serves on every device's RDMA engine. After
 * VUR_DP_IDLE_NS without work the thread arms what wakes it (its QPs' queue
 * kicks; the first, the uplinks' receive interrupts), looks once more, and
 * sleeps in epoll. On a 2-CPU machine the backend then costs nothing while
 * idle. Uplinks without a receive interrupt cannot wake it: the first
 * thread then also sleeps on a timer, short after traffic and longer the
 * longer the quiet lasts (VUR_DP_POLL_MIN_NS to VUR_DP_POLL_MAX_NS, see
 * net_switch.h), and polls them when it rings.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "common/dpdk_compat.h"
#include "common/log.h"
#include "net/net_dev.h"
#include "net/net_state.h"
#include "net/net_switch.h"
#include "net/net_txq.h"
#include "transport/transport.h"

#define VUR_DP_IDLE_NS         (200 * 1000ULL)       /* polling after the last frame */
#define VUR_DP_TIMER_MS        10                    /* sleep bound with an 802.3ad bond */
#define VUR_SW_LINK_REFRESH_NS (10 * 1000 * 1000ULL) /* the uplinks' up flags */
#define MAX_EVENTS             16

int vur_dp_launch(struct vur_dp *dp);
void vur_dp_join(struct vur_dp *dp);

/* The calling thread's data path: where the RoCE replies its engines make go. */
static RTE_DEFINE_PER_LCORE(struct vur_dp *, cur_dp);

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A device's own address is known without learning (a static entry, on
 * its access VLAN), and follows MAC_ADDR_SET and the VLAN's changes; a port that changed hands
 * forgets what it learned, also when its new device has the address of the one deleted before it
 * (the slot's attachment count tells them apart).
 */
static void
track_port(struct vur_switch *sw, int slot, struct vur_net_dev *nd, uint64_t now)
{
	struct rte_ether_addr *mac = &sw->dev_mac[slot];
	uint32_t gen = __atomic_load_n(&sw->slot_gen[slot], __ATOMIC_ACQUIRE);

	if (sw->seen[slot] != nd || (nd != NULL && sw->seen_gen[slot] != gen)) {
		rte_spinlock_lock(&sw->fdb_lock);
		vur_fdb_flush_port(&sw->fdb, slot);
		rte_spinlock_unlock(&sw->fdb_lock);
		memset(mac, 0, sizeof(*mac));
		sw->dev_vlan[slot] = 0;
		sw->seen[slot] = nd;
		sw->seen_gen[slot] = gen;
	}
	if (nd != NULL &&
			(memcmp(mac->addr_bytes, nd->filter->mac, RTE_ETHER_ADDR_LEN) != 0 ||
					sw->dev_vlan[slot] != nd->vlan)) {
		/* a new VLAN, too: what it learned is of the segment it left */
		memcpy(mac->addr_bytes, nd->filter->mac, RTE_ETHER_ADDR_LEN);
		sw->dev_vlan[slot] = nd->vlan;
		rte_spinlock_lock(&sw->fdb_lock);
		vur_fdb_flush_port(&sw->fdb, slot);
		vur_fdb_add_static(&sw->fdb, nd->vlan, mac, slot, now);
		rte_spinlock_unlock(&sw->fdb_lock);
	}
}

static uint32_t
poll_devices(struct vur_dp *dp, uint64_t now)
{
	struct vur_switch *sw = dp->sw;
	uint64_t ports = __atomic_load_n(&sw->attached, __ATOMIC_ACQUIRE);
	struct rte_mbuf *pkts[VUR_SW_BURST];
	struct vur_net_dev *nd;
	uint32_t total = 0;
	uint16_t n;

	for (int slot = (int)dp->id; slot < VUR_SW_MAX_DEVS; slot += (int)sw->n_dp) {
		if (!(ports & (1ULL << slot))) {
			if (sw->seen[slot] != NULL)
				track_port(sw, slot, NULL, now);
			continue;
		}
		nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
		if (nd == NULL)
			continue;
		/*
		 * To read: the transmit queue and its counters are this thread's
		 * alone, and the engines of other threads are not held up.
		 */
		pthread_rwlock_rdlock(nd->lock);
		track_port(sw, slot, nd, now);
		n = nd->txq.active ? vur_net_txq_burst(nd, sw->pool, pkts, VUR_SW_BURST) : 0;
		pthread_rwlock_unlock(nd->lock);
		if (n > 0)
			vur_switch_forward(sw, slot, pkts, n, now);
		total += n;
	}
	return total;
}

/*
 * RoCE replies the engines made while the bursts were delivered: through
 * the switch by source port, in order, in bursts. Delivering them can make
 * more (a READ response's ACK does not exist, but a NAK can answer a
 * retransmission), so drain a few rounds; what is left is dropped before
 * the thread reports a quiescent state (RC recovers it by retransmission).
 */
int
vur_switch_outbox_add(struct vur_switch *sw, int slot, struct rte_mbuf *m)
{
	struct vur_dp *dp = RTE_PER_LCORE(cur_dp);

	if (dp == NULL || dp->sw != sw)
		return -ENOSPC; /* not on a data path: nobody would send it */
	if (dp->n_outbox == VUR_SW_OUTBOX) {
		VUR_STAT_ADD(sw->stats.outbox_full, 1); /* RC retransmits what is lost */
		return -ENOSPC;
	}
	dp->outbox[dp->n_outbox] = m;
	dp->outbox_slot[dp->n_outbox++] = (uint8_t)slot;
	return 0;
}

void
vur_switch_nudge(struct vur_switch *sw, uint32_t dps)
{
	struct vur_dp *dp;

	/* Pairs with the fence in sleep_until_work(): it sees the work, or we see it asleep. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (; dps != 0; dps &= dps - 1) {
		dp = &sw->dp[__builtin_ctz(dps)];
		if (dp != RTE_PER_LCORE(cur_dp) && dp->id < sw->n_dp &&
				__atomic_load_n(&dp->asleep, __ATOMIC_RELAXED))
			eventfd_write(dp->wake_fd, 1);
	}
}

static uint32_t
drain_outbox(struct vur_dp *dp, uint64_t now)
{
	struct vur_switch *sw = dp->sw;
	struct rte_mbuf *pkts[VUR_SW_OUTBOX];
	uint8_t slots[VUR_SW_OUTBOX];
	uint32_t total = 0;
	uint16_t n, i, j;

	for (int round = 0; round < 8 && dp->n_outbox > 0; round++) {
		n = dp->n_outbox;
		memcpy(pkts, dp->outbox, n * sizeof(pkts[0]));
		memcpy(slots, dp->outbox_slot, n);
		dp->n_outbox = 0;
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && j - i < VUR_SW_BURST && slots[j] == slots[i]; j++)
				;
			vur_switch_send_rdma(sw, slots[i], pkts + i, (uint16_t)(j - i), now);
		}
		total += n;
	}
	if (dp->n_outbox > 0) {
		VUR_STAT_ADD(sw->stats.outbox_full, dp->n_outbox);
		rte_pktmbuf_free_bulk(dp->outbox, dp->n_outbox);
		dp->n_outbox = 0;
	}
	return total;
}

/*
 * The RDMA engines: the send queues, READ responses and timers of the QPs
 * this thread serves, on every device (@arm: see vur_tp_poll()).
 */
static uint32_t
poll_rdma(struct vur_dp *dp, uint64_t now, bool arm)
{
	struct vur_switch *sw = dp->sw;
	uint64_t ports = __atomic_load_n(&sw->attached, __ATOMIC_ACQUIRE), dl;
	struct rte_mbuf *pkts[VUR_SW_BURST];
	struct vur_net_dev *nd;
	uint32_t total = 0;
	uint16_t n;

	dp->rdma_deadline_ns = 0;
	for (; ports != 0; ports &= ports - 1) {
		int slot = __builtin_ctzll(ports);

		nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
		if (nd == NULL || nd->tp == NULL || !vur_tp_serves(nd->tp, dp->id))
			continue;
		pthread_rwlock_rdlock(nd->lock);
		n = vur_tp_poll(nd->tp, dp->id, pkts, VUR_SW_BURST, now, arm, &dl);
		pthread_rwlock_unlock(nd->lock);
		if (dl != 0 && (dp->rdma_deadline_ns == 0 || dl < dp->rdma_deadline_ns))
			dp->rdma_deadline_ns = dl;
		if (n > 0) {
			vur_switch_send_rdma(sw, slot, pkts, n, now);
			total += n + drain_outbox(dp, now);
		}
	}
	return total;
}

/* A kick woke us: clear it, if the queue is still the one that kicked. */
static void
clear_kick(struct vur_switch *sw, int slot, int fd)
{
	struct vur_net_dev *nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
	eventfd_t v;

	if (nd == NULL)
		return;
	pthread_rwlock_rdlock(nd->lock); /* as poll_devices() */
	if (nd->txq.active && nd->txq.kickfd == fd)
		eventfd_read(fd, &v);
	pthread_rwlock_unlock(nd->lock);
}

/*
 * Uplinks without a receive interrupt: ring the thread's timer after its
 * current idle sleep, the next one twice as long (to the bound). Returns
 * false when the timer cannot be armed: the caller bounds its sleep instead.
 */
static bool
arm_uplink_poll(struct vur_dp *dp)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = (time_t)(dp->poll_ns / 1000000000ULL),
				.tv_nsec = (long)(dp->poll_ns % 1000000000ULL) },
	};

	if (timerfd_settime(dp->poll_fd, 0, &its, NULL) != 0)
		return false;
	dp->poll_ns = RTE_MIN(dp->poll_ns * 2, VUR_DP_POLL_MAX_NS);
	return true;
}

static void
sleep_until_work(struct vur_dp *dp)
{
	struct vur_switch *sw = dp->sw;
	struct rte_epoll_event ev[MAX_EVENTS];
	bool uplinks = dp->id == 0;
	bool polled = uplinks && vur_switch_uplinks_polled(sw);
	int timeout = uplinks && vur_switch_uplinks_keepalive(sw) ? VUR_DP_TIMER_MS : -1;
	uint64_t now = now_ns(), ms;
	eventfd_t v;
	uint64_t ticks;
	int n;

	/*
	 * From here another thread's delivery to our engines wakes us; and the
	 * send queues' drivers kick again. What came meanwhile is work.
	 */
	__atomic_store_n(&dp->asleep, true, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (poll_rdma(dp, now, true) > 0) {
		__atomic_store_n(&dp->asleep, false, __ATOMIC_RELAXED);
		return;
	}

	/* the engines' retransmission and RNR timers */
	if (dp->rdma_deadline_ns != 0) {
		ms = dp->rdma_deadline_ns > now ? (dp->rdma_deadline_ns - now + 999999) / 1000000
						: 0;
		if (timeout < 0 || ms < (uint64_t)timeout)
			timeout = (int)RTE_MIN(ms, (uint64_t)INT32_MAX);
		if (timeout == 0)
			goto awake;
	}
	if (uplinks) {
		vur_switch_uplinks_intr(sw, true);
		/* A frame that arrived before the interrupt was armed would not wake us. */
		if (vur_switch_uplinks_rx(sw, now_ns()) > 0) {
			vur_switch_uplinks_intr(sw, false);
			goto awake;
		}
	}
	if (polled && !arm_uplink_poll(dp) && (timeout < 0 || timeout > 1))
		timeout = 1;
	/* Asleep, the thread holds no device: detach need not wait for it. */
	rte_rcu_qsbr_thread_offline(sw->rcu, dp->id);
	n = rte_epoll_wait(dp->epfd, ev, MAX_EVENTS, timeout);
	rte_rcu_qsbr_thread_online(sw->rcu, dp->id);
	if (uplinks)
		vur_switch_uplinks_intr(sw, false);
	for (int i = 0; i < n; i++) {
		uintptr_t slot = (uintptr_t)ev[i].epdata.data;

		if (slot < VUR_SW_MAX_DEVS)
			clear_kick(sw, (int)slot, ev[i].fd);
		else if (ev[i].fd == dp->wake_fd)
			eventfd_read(dp->wake_fd, &v);
		else if (ev[i].fd == dp->poll_fd && read(dp->poll_fd, &ticks, sizeof(ticks)) > 0)
			VUR_STAT_ADD(sw->stats.uplink_polls, 1);
	}
awake:
	__atomic_store_n(&dp->asleep, false, __ATOMIC_RELAXED);
}

static void
dp_loop(struct vur_dp *dp)
{
	struct vur_switch *sw = dp->sw;
	uint64_t now, last_work = 0, pass_start = 0;
	bool pass_busy = false;
	char name[16];
	uint32_t work;

	RTE_PER_LCORE(cur_dp) = dp;
	vur_tp_thread_register(dp->id);
	if (dp->lcore != LCORE_ID_ANY) { /* a control thread has its name already */
		snprintf(name, sizeof(name), dp->id == 0 ? "vur-net" : "vur-net%u", dp->id);
		prctl(PR_SET_NAME, name);
	}
	rte_rcu_qsbr_thread_register(sw->rcu, dp->id);
	rte_rcu_qsbr_thread_online(sw->rcu, dp->id);
	while (!__atomic_load_n(&sw->stopping, __ATOMIC_ACQUIRE)) {
		now = now_ns();
		/* a pass that found work ends where the next begins: no clock read more */
		if (pass_busy)
			__atomic_store_n(&dp->busy_ns, dp->busy_ns + (now - pass_start),
					__ATOMIC_RELAXED);
		pass_start = now;
		work = poll_devices(dp, now);
		if (dp->id == 0) {
			if (now >= dp->next_refresh_ns) {
				vur_switch_uplinks_refresh(sw);
				dp->next_refresh_ns = now + VUR_SW_LINK_REFRESH_NS;
			}
			work += vur_switch_uplinks_rx(sw, now);
		}
		work += drain_outbox(dp, now);
		work += poll_rdma(dp, now, false);
		rte_rcu_qsbr_quiescent(sw->rcu, dp->id);
		pass_busy = work > 0;
		if (work > 0) {
			last_work = now;
			dp->poll_ns = VUR_DP_POLL_MIN_NS; /* the next quiet starts short */
		} else if (now - last_work < VUR_DP_IDLE_NS)
			rte_pause();
		else
			sleep_until_work(dp);
	}
	rte_rcu_qsbr_thread_offline(sw->rcu, dp->id);
	rte_rcu_qsbr_thread_unregister(sw->rcu, dp->id);
	RTE_PER_LCORE(cur_dp) = NULL;
}

static int
dp_lcore_main(void *arg)
{
	dp_loop(arg);
	return 0;
}

static uint32_t
dp_thread_main(void *arg)
{
	dp_loop(arg);
	return 0;
}

int
vur_dp_launch(struct vur_dp *dp)
{
	int ret;

	if (dp->lcore != LCORE_ID_ANY) {
		ret = rte_eal_remote_launch(dp_lcore_main, dp, dp->lcore);
		if (ret != 0) {
			VUR_LOG(net, ERR, "data path %u: lcore %u busy", dp->id, dp->lcore);
			return -EBUSY;
		}
	} else {
		ret = rte_thread_create_control(&dp->thread, "vur-net", dp_thread_main, dp);
		if (ret != 0)
			return ret < 0 ? ret : -ret;
	}
	dp->started = true;
	return 0;
}

void
vur_dp_join(struct vur_dp *dp)
{
	if (!dp->started)
		return;
	if (dp->lcore != LCORE_ID_ANY)
		rte_eal_wait_lcore(dp->lcore);
	else
		rte_thread_join(dp->thread, NULL);
	dp->started = false;
}
