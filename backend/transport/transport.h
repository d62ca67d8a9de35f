/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA engine of a device: what serves its send, receive and completion
 * virtqueues, and the RoCE v2 transport (requester, responder, completer)
 * between its QPs and their peers.
 *
 * Threads and locks. The control thread binds and unbinds CQs and QPs and
 * changes QP states (through the hooks of struct vur_rdma_hooks); the
 * vhost thread starts and stops the engine around remaps, pauses and
 * disconnects. Both hold the device lock to write (common/dev_lock.h), so
 * they see the engine at rest. The data path holds it to read: each QP
 * belongs to one data-path thread, which polls its send queue and keeps its
 * timers (vur_tp_poll); received packets are taken by whichever thread
 * delivers them (vur_tp_rx). Either way a QP is touched under its own lock
 * and a CQ under its own, so the QPs of one device run on several threads
 * at once. After the engine stops, the caller waits for the data path to
 * pass a quiescent state (without the lock) before guest memory may go:
 * packets in flight refer to it.
 */
#ifndef VUR_TRANSPORT_H
#define VUR_TRANSPORT_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_spinlock.h>

#include <rte_mbuf.h>

#include <linux/virtio_net_roce.h>

struct rte_vhost_memory;
struct vur_net_dev;
struct vur_rdma_dev;

/* Why the engine dropped a received packet. */
enum vur_tp_drop {
	VUR_TP_DROP_MALFORMED, /* not a RoCE v2 packet we can parse (see pkt_err) */
	VUR_TP_DROP_NO_QP,     /* ROCE-DEV-WIRE-4: no such live QP */
	VUR_TP_DROP_QP_STATE,  /* its state takes no packets */
	VUR_TP_DROP_TRANSPORT, /* opcode of another transport than the QP's */
	VUR_TP_DROP_QKEY,      /* UD: Q_Key mismatch */
	VUR_TP_DROP_NO_RECV,   /* UC/UD: no receive WR */
	VUR_TP_DROP_PSN,       /* out of sequence, duplicate, or a stale response */
	VUR_TP_DROP_UC_ERROR,  /* UC: the rest of a message that failed */
	VUR_TP_DROP_NO_MBUF,   /* a response could not be built */
	VUR_TP_DROP_COUNT
};

/*
 * Per device, in shards: one per data-path thread and one for the threads
 * that hold the device lock to write; each shard has one writer at a time.
 * Telemetry reads their sum (vur_tp_stats_sum).
 */
struct vur_tp_stats {
	uint64_t tx_pkts, tx_bytes;                    /* packets built, payload bytes */
	uint64_t rx_pkts, rx_bytes;                    /* packets taken, payload bytes */
	uint64_t retransmits;                          /* packets sent again (timeout, NAK, RNR) */
	uint64_t retx_bytes;                           /* their payload bytes */
	uint64_t ecn_ce_rx;                            /* requests that came CE-marked */
	uint64_t cnp_sent, cnp_rx;                     /* congestion notifications */
	uint64_t ooo_held;                             /* requests after a gap, held (tp_ooo.h) */
	uint64_t probes;                               /* tail-loss probes sent */
	uint64_t nak_seq, nak_inv, nak_access, nak_op; /* NAKs sent by kind */
	uint64_t rnr_nak_sent;
	uint64_t rnr_waits; /* RNR NAKs received */
	uint64_t timeouts;  /* retransmission timer expiries */
	uint64_t cqes;
	uint64_t cqe_lost;   /* CQ in error */
	uint64_t cq_overrun; /* CQs that overran */
	uint64_t flushed;    /* WRs completed with WR_FLUSH_ERR */
	uint64_t wr_errors;  /* WRs completed with another error */
	uint64_t pkt_err[8]; /* by enum vur_pkt_err */
	uint64_t drops[VUR_TP_DROP_COUNT];

	/* The responder's atomics (atomic.c). */
	uint64_t atomics;        /* done on this device's memory, each once */
	uint64_t atomic_replays; /* duplicates answered from the saved result */

	uint64_t mcast_rx; /* packets to a group a QP is attached to (one per packet) */

	/* Rings in driver memory (issue 28). */
	uint64_t ring_doorbells;     /* doorbell summary bits taken for QPs on rings */
	uint64_t ring_db_ignored;    /* bits for no QP on rings of that doorbell queue */
	uint64_t ring_db_handoffs;   /* QPs listed for another thread */
	uint64_t ring_events;        /* events written into event queue buffers */
	uint64_t ring_events_waited; /* events that waited for a buffer */
	uint64_t ring_broken;        /* rings whose driver index lied: their object in error */
};

/*
 * Per QP, for as long as it is bound (RESET keeps them); the same names as
 * the device's counters above, each also counted there.
 */
struct vur_tp_qp_stats {
	uint64_t tx_pkts, tx_bytes;
	uint64_t rx_pkts, rx_bytes;
	uint64_t retransmits;
	uint64_t retx_bytes;
	uint64_t ecn_ce_rx, cnp_sent, cnp_rx;
	uint64_t ooo_held;
	uint64_t probes;
	uint64_t nak_seq, nak_inv, nak_access, nak_op;
	uint64_t rnr_nak_sent;
	uint64_t rnr_waits;
	uint64_t timeouts;
	uint64_t flushed;
	uint64_t wr_errors;
	uint64_t drops; /* its packets dropped, received or replies, any reason */
	uint64_t atomics, atomic_replays;
};

/* The per-QP counters by name (tp_stats.c), in the order of the struct. */
struct vur_tp_qp_stat_field {
	const char *name;
	size_t off;
};
extern const struct vur_tp_qp_stat_field vur_tp_qp_stat_fields[];
extern const unsigned int vur_tp_qp_stat_nfields;
uint64_t vur_tp_qp_stat(const struct vur_tp_qp_stats *st, unsigned int i);

/* "RC", "UC", "UD", "GSI", or "?". */
const char *vur_tp_qp_type_name(uint8_t type);

/* What management shows of a bound QP: a snapshot taken under the device lock. */
struct vur_tp_qp_info {
	uint32_t qpn;
	uint8_t type;  /* VIRTIO_IB_QPT_* */
	uint8_t state; /* VIRTIO_IB_QPS_* */
	uint32_t dest_qpn;
	uint8_t data_path;    /* the data-path thread that polls its send queue */
	uint32_t sq_psn;      /* next new request PSN */
	uint32_t rq_psn;      /* expected PSN */
	uint32_t outstanding; /* send WRs taken and not completed */
	uint32_t reads_out;   /* READs sent and not complete */
	uint32_t una;         /* RC: first PSN not acknowledged */
	uint32_t window;      /* RC: packets it may have unacknowledged (tp_window.h) */
	uint32_t rate_mbps;   /* RC, UC: the rate congestion control allows; 0: the line rate */
	uint32_t srtt_us;     /* RC: the smoothed round trip; 0 before the first */
	bool rings;           /* on rings in driver memory, else on virtqueues */
	uint16_t dbq;         /* on rings: its doorbell queue */
	uint32_t sq_entries;  /* its send ring's or send virtqueue's entries */
	bool active;          /* on rings: on its thread's active list (polled) */
	struct vur_tp_qp_stats stats;
};

struct vur_tp_qp;
struct vur_tp_ring;
struct vur_tp_event;
TAILQ_HEAD(vur_tp_qp_list, vur_tp_qp);
TAILQ_HEAD(vur_tp_event_list, vur_tp_event);

/* Data-path threads the engine tells apart (net_switch.h's VUR_SW_MAX_DP). */
#define VUR_TP_MAX_THREADS 16
/*
 * Counter shards: the first for the threads that hold the device lock to
 * write, then one per data-path thread.
 */
#define VUR_TP_SHARDS (VUR_TP_MAX_THREADS + 1)

struct vur_tp_stats_shard {
	alignas(RTE_CACHE_LINE_SIZE) struct vur_tp_stats s; /* no false sharing */
};

struct vur_tp_dev {
	struct vur_rdma_dev *rd;
	struct vur_net_dev *nd; /* its Ethernet port: MAC, switch, slot */
	int vid;
	bool active;                  /* rings may be touched */
	struct rte_vhost_memory *mem; /* this engine's copy of the memory table */
	/* the bound QPs, by number: a pass visits those, not every slot of the table */
	uint64_t qp_bound[VIRTIO_NET_ROCE_MAX_QPS / 64];
	/* how many of them each data-path thread serves: a thread skips a device with none */
	uint32_t qp_count[VUR_TP_MAX_THREADS];
	struct vur_tp_stats_shard stats[VUR_TP_SHARDS];

	/*
	 * Rings in driver memory (tp_doorbell.c, tp_eventq.c): per thread, the
	 * QPs on rings it polls (@active, its own) and those others listed for
	 * it (@inbox, under @lock); the K doorbell/event queue pairs, made at
	 * the first start; the threads that own one of them.
	 */
	struct vur_tp_act {
		rte_spinlock_t lock;
		struct vur_tp_qp_list inbox;
		struct vur_tp_qp_list active;
		uint32_t n; /* listed in either, for vur_tp_serves() */
	} act[VUR_TP_MAX_THREADS];
	struct vur_tp_rq *rq;
	uint32_t n_rq;
	uint32_t ring_dps;
};

const char *vur_tp_drop_name(enum vur_tp_drop why);

/* The hooks given to the RDMA objects (rdma_dev.h), with a struct vur_tp_dev as argument. */
extern const struct vur_rdma_hooks vur_tp_hooks;

void vur_tp_init(struct vur_tp_dev *td, struct vur_rdma_dev *rd, struct vur_net_dev *nd);
/* What the engine keeps across connections (its ring queue pairs): the device goes. */
void vur_tp_fini(struct vur_tp_dev *td);

/*
 * The calling thread is data-path thread @id (below VUR_TP_MAX_THREADS): its
 * counters go to a shard of its own. Other threads share the first shard,
 * which they write under the device's write lock only.
 */
void vur_tp_thread_register(unsigned int id);

/*
 * @n data-path threads run the engine (before they start). With one, the
 * QP and CQ locks are left out.
 */
void vur_tp_set_threads(unsigned int n);

/* What congestion control allows the device's QPs now (tp_cc.h). */
struct vur_tp_rates {
	uint32_t paced_qps;  /* QPs a CNP slowed down */
	uint64_t paced_mbps; /* the rates they may send at, summed */
};

/* The device's paced QPs now (the device lock held; a QP's rate read as it stands). */
void vur_tp_rates(struct vur_tp_dev *td, struct vur_tp_rates *out);

/* Events of objects on rings waiting for an event queue buffer now. */
uint32_t vur_tp_events_pending(const struct vur_tp_dev *td);

/* The device's counters: the sum of the shards. */
void vur_tp_stats_sum(const struct vur_tp_dev *td, struct vur_tp_stats *out);

/*
 * Serve the bound rings of frontend @vid that are ready (write lock held).
 * Returns 0 or a negative errno.
 */
int vur_tp_start(struct vur_tp_dev *td, int vid);

/* Stop touching rings and guest memory (write lock held); indices go back to librte_vhost. */
void vur_tp_stop(struct vur_tp_dev *td);

/* Whether data-path thread @dp serves a QP of the device (a hint: read without the lock). */
static inline bool
vur_tp_serves(const struct vur_tp_dev *td, unsigned int dp)
{
	return __atomic_load_n(&td->qp_count[dp], __ATOMIC_RELAXED) != 0 ||
			(__atomic_load_n(&td->ring_dps, __ATOMIC_RELAXED) & (1u << dp)) ||
			__atomic_load_n(&td->act[dp].n, __ATOMIC_RELAXED) != 0;
}

/*
 * Data path, read lock held: run the send queues, the READ responses and
 * the timers of the QPs data-path thread @dp serves; up to @max new packets
 * in @out. Returns how many; *@deadline_ns: their earliest timer, 0 for
 * none. @arm: the data path sleeps after this pass unless it finds work, so
 * an empty send queue asks its driver to kick again; without it the
 * drivers need not kick (a system call each) for a thread that polls
 * anyway.
 */
uint16_t vur_tp_poll(struct vur_tp_dev *td, unsigned int dp, struct rte_mbuf **out, uint16_t max,
		uint64_t now_ns, bool arm, uint64_t *deadline_ns);

/*
 * Data path, read lock held: take @n RoCE v2 frames for this device;
 * consumes them. The data-path threads of the QPs that took them are woken
 * if they sleep: they may have work now (READ responses, timers).
 */
void vur_tp_rx(struct vur_tp_dev *td, struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns);

/*
 * Snapshot of the bound QPs, lowest number first (lock held): up to @max in
 * @out. Returns how many are bound, which may exceed @max.
 */
unsigned int vur_tp_qp_infos(struct vur_tp_dev *td, struct vur_tp_qp_info *out, unsigned int max);

/* Whether a frame for IP address @gid (16 bytes, IPv4-mapped for IPv4) is the engine's. */
bool vur_tp_owns_gid(const struct vur_tp_dev *td, const uint8_t *gid);
/*
 * Whether a frame to Ethernet address @mac and multicast IP address @gid is
 * the engine's: a QP is attached to the group and @mac is the group's.
 */
bool vur_tp_takes_mcast(const struct vur_tp_dev *td, const uint8_t *mac, const uint8_t *gid);

#endif /* VUR_TRANSPORT_H */
