/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local switch and the data-path thread that runs it: between the
 * devices of this backend (their virtio-net queues) and the uplinks.
 *
 * The data path is one thread per EAL worker lcore (one control thread
 * when EAL gives no worker). Each owns the devices whose port slot it is
 * given (slot modulo the number of threads): it polls their transmit
 * queues while there is traffic, and when idle sleeps in epoll on their
 * kick eventfds. The first also owns the uplinks' receive queues and
 * interrupts; an uplink without a receive interrupt (net_af_packet, a
 * bond) it polls: every pass while there is traffic, then on a timer of
 * 50 us doubling to 1 ms while idle (net_datapath.c says why); an 802.3ad
 * bond gets a burst at least every 10 ms for LACP.
 *
 * RDMA QPs are spread over the threads one by one, whatever their device
 * (vur_switch_qp_dp): a thread polls the send queues and keeps the timers
 * of its QPs and sleeps on their kicks. The engine takes the device lock to
 * read and the QP's own lock (transport/transport.h), so two threads serve
 * two QPs of one device at once. A thread delivers what it forwards itself,
 * taking the destination device's lock, and holds one device lock at a
 * time; a QP that took packets from another thread than its own has that
 * thread woken (vur_switch_nudge). A packet that borrows guest memory never
 * leaves the thread that built it: replies go to that thread's own outbox,
 * sent before its next quiescent state. The FDB and the uplinks' transmit
 * queues are shared, each under a spinlock.
 *
 * Devices attach and detach from other threads. Detach waits, through an
 * RCU quiescent-state variable (rte_rcu_qsbr, one reader per data-path
 * thread), until no data path holds the device, so it can be freed.
 */
#ifndef VUR_NET_SWITCH_H
#define VUR_NET_SWITCH_H

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_interrupts.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>
#include <rte_thread.h>

#include "net/net_fdb.h"
#include "net/net_fwd.h"
#include "port/uplink.h"

#define VUR_SW_BURST  32
#define VUR_SW_OUTBOX 512 /* RoCE replies made while delivering a burst */
#define VUR_SW_MAX_DP 16  /* data-path threads */

/*
 * An idle data path polls the uplinks without a receive interrupt after a
 * sleep of VUR_DP_POLL_MIN_NS, doubled at each wake-up that finds nothing,
 * up to VUR_DP_POLL_MAX_NS; work brings it back to the minimum. The numbers:
 * the thread already polls for 200 us after its last work (VUR_DP_IDLE_NS),
 * which covers a ping-pong's turn (a round trip between two backends takes
 * tens of microseconds), so the sleeps only start once the wire is quiet.
 * 50 us is about the kernel's default timer slack: a shorter sleep would
 * not be kept. 1 ms bounds what a frame after a quiet spell waits (it was
 * 10 ms with a plain epoll timeout: 10 to 12 ms per vur-pingpong iteration
 * between two backends over net_af_packet) while an idle thread wakes at
 * most 1000 times a second, each wake-up one pass that finds nothing
 * (net_af_packet reads its mmap ring without a system call): about 2% of a
 * core measured on a 2-CPU VM (release build; the timer's wake-ups are most
 * of it), nothing when no uplink is polled. The doubling reaches the bound
 * after five sleeps, 1.55 ms into the quiet.
 */
#define VUR_DP_POLL_MIN_NS (50 * 1000ULL)
#define VUR_DP_POLL_MAX_NS (1000 * 1000ULL)

struct vur_net_dev;

/* Per-uplink counters, written by the data path only. */
struct vur_sw_uplink_stats {
	uint64_t rx_frames;
	uint64_t rx_bytes;
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t tx_dropped; /* the PMD's queue was full */
};

struct vur_sw_uplink {
	uint16_t port_id;
	bool rx_intr;   /* receive interrupts armed when the thread sleeps; else polled */
	bool keepalive; /* an 802.3ad bond: bursts at least every 100 ms */
	bool up;        /* link status, refreshed every VUR_SW_LINK_REFRESH_NS */
	bool sig_owned; /* its receive signal, if any, checked and aimed at the data path */
	struct vur_sw_uplink_stats stats;
};

/* Switch counters, written by the data path only. */
struct vur_sw_stats {
	uint64_t flooded;     /* frames flooded (broadcast, multicast, unknown) */
	uint64_t no_uplink;   /* frames for the outside with no uplink configured */
	uint64_t uplink_down; /* frames for the outside with every uplink down */
	uint64_t fdb_learned;
	uint64_t fdb_moved;
	uint64_t fdb_evicted;
	uint64_t roce_to_wire; /* RoCE packets made whole (ICRC) for an uplink */
	uint64_t outbox_full;  /* RoCE replies dropped: more than one pass can hold */
	uint64_t uplink_polls; /* idle wake-ups on the timer to poll uplinks without interrupts */
	uint64_t vlan_no_mbuf; /* frames for an uplink not tagged: packet buffers exhausted */
};

struct vur_switch;

/* One data-path thread: what only it touches. */
struct vur_dp {
	alignas(RTE_CACHE_LINE_SIZE) struct vur_switch *sw; /* no false sharing between threads */
	unsigned int id;     /* its RCU reader id; it owns the slots id, id + n_dp, ... */
	unsigned int lcore;  /* its EAL worker lcore, or LCORE_ID_ANY: a control thread */
	rte_thread_t thread; /* the control thread */
	bool started;
	int epfd; /* its devices' kicks (and the uplinks' interrupts for the first) */
	int wake_fd;
	struct rte_epoll_event wake_ev;
	int poll_fd; /* the first: a timerfd, the next poll of uplinks without interrupts */
	struct rte_epoll_event poll_ev;
	uint64_t poll_ns; /* the next idle sleep before such a poll (doubles, to a bound) */
	uint64_t next_refresh_ns;
	struct rte_mbuf *outbox[VUR_SW_OUTBOX];
	uint8_t outbox_slot[VUR_SW_OUTBOX];
	uint16_t n_outbox;
	uint64_t rdma_deadline_ns; /* its engines' earliest timer, 0 for none */
	uint64_t busy_ns;          /* time in passes that found work (the rest polls or sleeps) */
	bool asleep; /* about to sleep or sleeping: another thread's delivery wakes it */
};

struct vur_switch {
	struct rte_mempool *pool;          /* packet buffers for frames from devices */
	struct rte_mempool *rdma_pool;     /* headers of the RoCE packets engines build */
	struct rte_mempool *rdma_ext_pool; /* their payload segments, borrowing guest memory */
	struct vur_dp dp[VUR_SW_MAX_DP];
	unsigned int n_dp;
	bool running;
	bool stopping;
	struct rte_rcu_qsbr *rcu;

	pthread_mutex_t attach_lock; /* attach and detach */
	struct vur_net_dev *slots[VUR_SW_MAX_DEVS];
	uint32_t slot_gen[VUR_SW_MAX_DEVS]; /* attachments of each slot so far */
	uint64_t attached;
	/* each device port's access VLAN (0: none), set before it is attached */
	uint16_t port_vlan[VUR_SW_MAX_DEVS];
	struct rte_epoll_event kick_ev[VUR_SW_MAX_DEVS];

	struct vur_sw_uplink uplinks[VUR_MAX_UPLINKS];
	uint16_t n_uplinks; /* published after the uplinks are filled in */

	/* The data paths': a slot's entries belong to the thread that owns the slot. */
	struct vur_net_dev *seen[VUR_SW_MAX_DEVS];
	uint32_t seen_gen[VUR_SW_MAX_DEVS]; /* slot_gen when seen: a new device, an old address */
	struct rte_ether_addr dev_mac[VUR_SW_MAX_DEVS];
	uint16_t dev_vlan[VUR_SW_MAX_DEVS]; /* the VLAN of dev_mac's static entry */
	rte_spinlock_t fdb_lock;
	struct vur_fdb fdb;
	/* the uplinks' transmit queues, up_idx, n_up */
	rte_spinlock_t uplink_lock;
	uint16_t up_idx[VUR_MAX_UPLINKS]; /* the uplinks that are up */
	uint16_t n_up;
	struct vur_sw_stats stats;
};

/*
 * Create the packet pools and start the data-path threads: one on each EAL
 * worker lcore (at most VUR_SW_MAX_DP), or one control thread when there is
 * no worker. Returns 0 or a negative errno.
 */
int vur_switch_start(struct vur_switch *sw);

/* Stop the threads and free what start allocated. */
void vur_switch_stop(struct vur_switch *sw);

/*
 * Give the switch the started uplinks (once, after the port manager
 * started them). They must outlive the switch's thread. An uplink whose
 * receive interrupt cannot join the data path's epoll is polled, and its
 * rx_intr cleared so that the admin RPC says so.
 */
int vur_switch_set_uplinks(struct vur_switch *sw, struct vur_uplinks *u);
/* With the data path stopped: the uplinks' interrupts leave its epoll. */
void vur_switch_unset_uplinks(struct vur_switch *sw);

/* Device ports: a slot, or -ENOSPC. Detach waits for the data path to let go. */
int vur_switch_attach(struct vur_switch *sw, struct vur_net_dev *nd);
void vur_switch_detach(struct vur_switch *sw, int slot);

/* Device port @slot is on access VLAN @vlan (net_vlan.h; 0: none) from now on. */
void vur_switch_set_vlan(struct vur_switch *sw, int slot, uint16_t vlan);

/* Wake the data path when transmit kick @fd of device @slot is signalled. */
int vur_switch_watch_kick(struct vur_switch *sw, int slot, int fd);
void vur_switch_unwatch_kick(struct vur_switch *sw, int slot);

/*
 * A QP's queue kicks wake data-path thread @dp, its own (edge-triggered:
 * never read, the engine looks at the rings itself). @ev must stay put
 * while watched.
 */
int vur_switch_watch_rdma_kick(
		struct vur_switch *sw, unsigned int dp, int fd, struct rte_epoll_event *ev);
void vur_switch_unwatch_rdma_kick(
		struct vur_switch *sw, unsigned int dp, struct rte_epoll_event *ev);

/* The data-path thread that serves QP @qpn of device port @slot. */
unsigned int vur_switch_qp_dp(const struct vur_switch *sw, int slot, uint32_t qpn);

/* Wake the data paths (they have new work that no kick announces). */
void vur_switch_wake(struct vur_switch *sw);

/*
 * Data path: the engine gave work to the QPs of data-path threads @dps (a
 * bit each); those that sleep, but the caller, are woken (READ responses to
 * send, timers to keep, a flush).
 */
void vur_switch_nudge(struct vur_switch *sw, uint32_t dps);

/* The data-path thread that owns device port @slot. */
static inline struct vur_dp *
vur_switch_dp_of(struct vur_switch *sw, int slot)
{
	return &sw->dp[(unsigned int)slot % sw->n_dp];
}

/*
 * Wait until the data path holds no packet it built before this call
 * (without any device lock): after a device stopped its engine, no packet
 * refers to its guest memory any more.
 */
void vur_switch_sync(struct vur_switch *sw);

/*
 * Data path: RoCE packets device port @slot built (at most VUR_SW_BURST):
 * those for the device itself straight to its engine, the rest through the
 * switch. Consumes them.
 */
void vur_switch_send_rdma(struct vur_switch *sw, int slot, struct rte_mbuf **pkts, uint16_t n,
		uint64_t now_ns);

/*
 * Data path: a RoCE reply from device port @slot, sent by the calling
 * data-path thread after its current burst. -ENOSPC when its outbox is
 * full, or when the caller is not a data-path thread.
 */
int vur_switch_outbox_add(struct vur_switch *sw, int slot, struct rte_mbuf *m);

/* Snapshots of the counters, for telemetry. */
void vur_switch_stats(const struct vur_switch *sw, struct vur_sw_stats *out);
uint16_t vur_switch_uplink_stats(
		const struct vur_switch *sw, uint16_t i, bool *up, struct vur_sw_uplink_stats *out);

/* Counters the data-path threads add to and other threads read. */
#define VUR_STAT_ADD(c, n) __atomic_fetch_add(&(c), (n), __ATOMIC_RELAXED)

/* The data path's steps (net_switch.c, net_uplinks.c); the uplinks' on the first thread. */
void vur_switch_forward(struct vur_switch *sw, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		uint64_t now_ns);
void vur_switch_uplinks_refresh(struct vur_switch *sw);
uint16_t vur_switch_uplinks_rx(struct vur_switch *sw, uint64_t now_ns);
void vur_switch_uplink_tx(
		struct vur_switch *sw, struct rte_mbuf **pkts, const uint32_t *hash, uint16_t n);
void vur_switch_uplinks_intr(struct vur_switch *sw, bool enable);
bool vur_switch_uplinks_polled(const struct vur_switch *sw);
bool vur_switch_uplinks_keepalive(const struct vur_switch *sw);

#endif /* VUR_NET_SWITCH_H */
