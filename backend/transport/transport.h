/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA engine of a device: what serves its send, receive and completion
 * virtqueues, and the RoCE v2 transport (requester, responder, completer)
 * between its QPs and their peers.
 *
 * Threads and locks. Everything of a device's engine is guarded by the
 * device's lock. The control thread binds and unbinds CQs and QPs and
 * changes QP states (through the hooks of struct vur_rdma_hooks); the
 * vhost thread starts and stops the engine around remaps, pauses and
 * disconnects; the data-path thread polls the send queues, runs the timers
 * and hands received packets to the engine. After the engine stops, the
 * caller waits for the data path to pass a quiescent state (without the
 * lock) before guest memory may go: packets in flight refer to it.
 */
#ifndef VUR_TRANSPORT_H
#define VUR_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Per device; single writer (under the device lock), read by telemetry. */
struct vur_tp_stats {
	uint64_t tx_pkts, tx_bytes;                    /* packets built, payload bytes */
	uint64_t rx_pkts, rx_bytes;                    /* packets taken, payload bytes */
	uint64_t retransmits;                          /* packets sent again (timeout, NAK, RNR) */
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
};

/*
 * Per QP, for as long as it is bound (RESET keeps them); the same names as
 * the device's counters above, each also counted there.
 */
struct vur_tp_qp_stats {
	uint64_t tx_pkts, tx_bytes;
	uint64_t rx_pkts, rx_bytes;
	uint64_t retransmits;
	uint64_t nak_seq, nak_inv, nak_access, nak_op;
	uint64_t rnr_nak_sent;
	uint64_t rnr_waits;
	uint64_t timeouts;
	uint64_t flushed;
	uint64_t wr_errors;
	uint64_t drops; /* its packets dropped, received or replies, any reason */
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
	uint32_t sq_psn;      /* next new request PSN */
	uint32_t rq_psn;      /* expected PSN */
	uint32_t outstanding; /* send WRs taken and not completed */
	uint32_t reads_out;   /* READs sent and not complete */
	struct vur_tp_qp_stats stats;
};

struct vur_tp_qp;
struct vur_tp_ring;

/* Rings a pass may leave used entries in before they are published at once. */
#define VUR_TP_DIRTY_MAX 64

/* ACKs a burst of received packets asks for: one per QP, sent once the burst is taken. */
#define VUR_TP_ACK_BATCH 32

struct vur_tp_dev {
	struct vur_rdma_dev *rd;
	struct vur_net_dev *nd; /* its Ethernet port: MAC, switch, slot */
	int vid;
	bool active;                              /* rings may be touched */
	struct rte_vhost_memory *mem;             /* this engine's copy of the memory table */
	uint64_t next_deadline_ns;                /* earliest timer of any QP, 0 for none */
	struct vur_tp_qp *acks[VUR_TP_ACK_BATCH]; /* QPs with an ACK to send (vur_tp_rx) */
	uint16_t n_acks;
	struct vur_tp_ring *dirty[VUR_TP_DIRTY_MAX]; /* rings to publish (vur_tp_publish) */
	uint16_t n_dirty;
	/* the bound QPs, by number: a pass visits those, not every slot of the table */
	uint64_t qp_bound[VIRTIO_NET_ROCE_MAX_QPS / 64];
	struct vur_tp_stats stats;
};

const char *vur_tp_drop_name(enum vur_tp_drop why);

/* The hooks given to the RDMA objects (rdma_dev.h), with a struct vur_tp_dev as argument. */
extern const struct vur_rdma_hooks vur_tp_hooks;

void vur_tp_init(struct vur_tp_dev *td, struct vur_rdma_dev *rd, struct vur_net_dev *nd);

/*
 * Serve the bound rings of frontend @vid that are ready (lock held).
 * Returns 0 or a negative errno.
 */
int vur_tp_start(struct vur_tp_dev *td, int vid);

/* Stop touching rings and guest memory (lock held); indices go back to librte_vhost. */
void vur_tp_stop(struct vur_tp_dev *td);

/*
 * Data path, lock held: run the send queues, the read responses and the
 * timers; up to @max new packets in @out. Returns how many. @arm: the data
 * path sleeps after this pass unless it finds work, so an empty send queue
 * asks its driver to kick again; without it the drivers need not kick (a
 * system call each) for a thread that polls anyway.
 */
uint16_t vur_tp_poll(struct vur_tp_dev *td, struct rte_mbuf **out, uint16_t max, uint64_t now_ns,
		bool arm);

/* Data path, lock held: take @n RoCE v2 frames for this device; consumes them. */
void vur_tp_rx(struct vur_tp_dev *td, struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns);

/*
 * Snapshot of the bound QPs, lowest number first (lock held): up to @max in
 * @out. Returns how many are bound, which may exceed @max.
 */
unsigned int vur_tp_qp_infos(struct vur_tp_dev *td, struct vur_tp_qp_info *out, unsigned int max);

/* Whether a frame for IP address @gid (16 bytes, IPv4-mapped for IPv4) is the engine's. */
bool vur_tp_owns_gid(const struct vur_tp_dev *td, const uint8_t *gid);

#endif /* VUR_TRANSPORT_H */
