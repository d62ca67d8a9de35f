/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-path thread: poll while there is traffic, sleep when there is
 * none. Polling takes each device's transmit queue under its lock, then the
 * uplinks' receive queues. After VUR_DP_IDLE_NS without a frame the thread
 * arms the uplinks' receive interrupts, looks once more, and sleeps in
 * epoll on the transmit kicks and those interrupts. On a 2-CPU machine the
 * backend then costs nothing while idle.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

#include <rte_pause.h>

#include "common/log.h"
#include "net/net_dev.h"
#include "net/net_state.h"
#include "net/net_switch.h"
#include "net/net_txq.h"
#include "transport/transport.h"

#define VUR_DP_IDLE_NS         (200 * 1000ULL)       /* polling after the last frame */
#define VUR_DP_TIMER_MS        10                    /* sleep bound with polled uplinks */
#define VUR_SW_LINK_REFRESH_NS (10 * 1000 * 1000ULL) /* the uplinks' up flags */
#define MAX_EVENTS             16
#define RCU_THREAD             0

uint32_t vur_switch_main(void *arg);

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A device's own address is known without learning (a static entry), and
 * follows MAC_ADDR_SET; a port that changed hands forgets what it learned.
 */
static void
track_port(struct vur_switch *sw, int slot, struct vur_net_dev *nd, uint64_t now)
{
	struct rte_ether_addr *mac = &sw->dev_mac[slot];

	if (sw->seen[slot] != nd) {
		vur_fdb_flush_port(&sw->fdb, slot);
		memset(mac, 0, sizeof(*mac));
		sw->seen[slot] = nd;
	}
	if (nd != NULL && memcmp(mac->addr_bytes, nd->filter->mac, RTE_ETHER_ADDR_LEN) != 0) {
		vur_fdb_flush_port(&sw->fdb, slot);
		memcpy(mac->addr_bytes, nd->filter->mac, RTE_ETHER_ADDR_LEN);
		vur_fdb_add_static(&sw->fdb, mac, slot, now);
	}
}

static uint32_t
poll_devices(struct vur_switch *sw, uint64_t now)
{
	uint64_t ports = __atomic_load_n(&sw->attached, __ATOMIC_ACQUIRE);
	struct rte_mbuf *pkts[VUR_SW_BURST];
	struct vur_net_dev *nd;
	uint32_t total = 0;
	uint16_t n;

	for (int slot = 0; slot < VUR_SW_MAX_DEVS; slot++) {
		if (!(ports & (1ULL << slot))) {
			if (sw->seen[slot] != NULL)
				track_port(sw, slot, NULL, now);
			continue;
		}
		nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
		if (nd == NULL)
			continue;
		pthread_mutex_lock(nd->lock);
		track_port(sw, slot, nd, now);
		n = nd->txq.active ? vur_net_txq_burst(nd, sw->pool, pkts, VUR_SW_BURST) : 0;
		pthread_mutex_unlock(nd->lock);
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
static uint32_t
drain_outbox(struct vur_switch *sw, uint64_t now)
{
	struct rte_mbuf *pkts[VUR_SW_OUTBOX];
	uint8_t slots[VUR_SW_OUTBOX];
	uint32_t total = 0;
	uint16_t n, i, j;

	for (int round = 0; round < 8 && sw->n_outbox > 0; round++) {
		n = sw->n_outbox;
		memcpy(pkts, sw->outbox, n * sizeof(pkts[0]));
		memcpy(slots, sw->outbox_slot, n);
		sw->n_outbox = 0;
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && j - i < VUR_SW_BURST && slots[j] == slots[i]; j++)
				;
			vur_switch_send_rdma(sw, slots[i], pkts + i, (uint16_t)(j - i), now);
		}
		total += n;
	}
	if (sw->n_outbox > 0) {
		VUR_STAT_ADD(sw->stats.outbox_full, sw->n_outbox);
		rte_pktmbuf_free_bulk(sw->outbox, sw->n_outbox);
		sw->n_outbox = 0;
	}
	return total;
}

/* The RDMA engines: send queues, READ responses, timers (@arm: see vur_tp_poll()). */
static uint32_t
poll_rdma(struct vur_switch *sw, uint64_t now, bool arm)
{
	uint64_t ports = __atomic_load_n(&sw->attached, __ATOMIC_ACQUIRE), dl;
	struct rte_mbuf *pkts[VUR_SW_BURST];
	struct vur_net_dev *nd;
	uint32_t total = 0;
	uint16_t n;

	sw->rdma_deadline_ns = 0;
	for (int slot = 0; slot < VUR_SW_MAX_DEVS; slot++) {
		if (!(ports & (1ULL << slot)))
			continue;
		nd = __atomic_load_n(&sw->slots[slot], __ATOMIC_ACQUIRE);
		if (nd == NULL || nd->tp == NULL)
			continue;
		pthread_mutex_lock(nd->lock);
		n = vur_tp_poll(nd->tp, pkts, VUR_SW_BURST, now, arm);
		dl = nd->tp->next_deadline_ns;
		pthread_mutex_unlock(nd->lock);
		if (dl != 0 && (sw->rdma_deadline_ns == 0 || dl < sw->rdma_deadline_ns))
			sw->rdma_deadline_ns = dl;
		if (n > 0) {
			vur_switch_send_rdma(sw, slot, pkts, n, now);
			total += n + drain_outbox(sw, now);
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
	pthread_mutex_lock(nd->lock);
	if (nd->txq.active && nd->txq.kickfd == fd)
		eventfd_read(fd, &v);
	pthread_mutex_unlock(nd->lock);
}

static void
sleep_until_work(struct vur_switch *sw)
{
	struct rte_epoll_event ev[MAX_EVENTS];
	int timeout = vur_switch_uplinks_need_timer(sw) ? VUR_DP_TIMER_MS : -1;
	uint64_t now = now_ns(), ms;
	eventfd_t v;
	int n;

	/* The send queues' drivers kick again from here; what came meanwhile is work. */
	if (poll_rdma(sw, now, true) > 0)
		return;

	/* the engines' retransmission and RNR timers */
	if (sw->rdma_deadline_ns != 0) {
		ms = sw->rdma_deadline_ns > now ? (sw->rdma_deadline_ns - now + 999999) / 1000000
						: 0;
		if (timeout < 0 || ms < (uint64_t)timeout)
			timeout = (int)RTE_MIN(ms, (uint64_t)INT32_MAX);
		if (timeout == 0)
			return;
	}
	vur_switch_uplinks_intr(sw, true);
	/* A frame that arrived before the interrupt was armed would not wake us. */
	if (vur_switch_uplinks_rx(sw, now_ns()) > 0) {
		vur_switch_uplinks_intr(sw, false);
		return;
	}
	/* Asleep, the thread holds no device: detach need not wait for it. */
	rte_rcu_qsbr_thread_offline(sw->rcu, RCU_THREAD);
	n = rte_epoll_wait(sw->epfd, ev, MAX_EVENTS, timeout);
	rte_rcu_qsbr_thread_online(sw->rcu, RCU_THREAD);
	vur_switch_uplinks_intr(sw, false);
	for (int i = 0; i < n; i++) {
		uintptr_t slot = (uintptr_t)ev[i].epdata.data;

		if (slot < VUR_SW_MAX_DEVS)
			clear_kick(sw, (int)slot, ev[i].fd);
		else if (ev[i].fd == sw->wake_fd)
			eventfd_read(sw->wake_fd, &v);
	}
}

uint32_t
vur_switch_main(void *arg)
{
	struct vur_switch *sw = arg;
	uint64_t now, last_work = 0;
	uint32_t work;

	rte_rcu_qsbr_thread_register(sw->rcu, RCU_THREAD);
	rte_rcu_qsbr_thread_online(sw->rcu, RCU_THREAD);
	while (!__atomic_load_n(&sw->stopping, __ATOMIC_ACQUIRE)) {
		now = now_ns();
		if (now >= sw->next_refresh_ns) {
			vur_switch_uplinks_refresh(sw);
			sw->next_refresh_ns = now + VUR_SW_LINK_REFRESH_NS;
		}
		work = poll_devices(sw, now);
		work += vur_switch_uplinks_rx(sw, now);
		work += drain_outbox(sw, now);
		work += poll_rdma(sw, now, false);
		rte_rcu_qsbr_quiescent(sw->rcu, RCU_THREAD);
		if (work > 0)
			last_work = now;
		else if (now - last_work < VUR_DP_IDLE_NS)
			rte_pause();
		else
			sleep_until_work(sw);
	}
	rte_rcu_qsbr_thread_offline(sw->rcu, RCU_THREAD);
	rte_rcu_qsbr_thread_unregister(sw->rcu, RCU_THREAD);
	return 0;
}
