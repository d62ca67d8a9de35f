/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the transport share: the state of a bound CQ and QP,
 * the work queue entries the engine keeps, and each role's entry points.
 * Everything here runs with the device lock held: to read on the data path,
 * which then holds the lock of the QP it works on (vur_tp_qp_lock) and takes
 * a CQ's lock to write a CQE; to write on the other threads, which see the
 * engine at rest. Lock order: QP, then CQ or SRQ (never both); a thread holds
 * one QP at a time.
 *
 * A send WR is copied out of guest memory when the engine takes it from
 * the send virtqueue (struct vur_swqe): the driver can rewrite the request
 * afterwards without the engine noticing (no double fetch). Its position in
 * the queue is a free-running counter; WRs complete, and their buffers go
 * back used, in that order (ROCE-DEV-WR-1, -6).
 */
#ifndef VUR_TP_H
#define VUR_TP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_epoll.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>
#include <rte_ticketlock.h>

#include <linux/virtio_net_roce.h>

#include "common/log.h"
#include "rdma/rdma_dev.h"
#include "transport/pkt.h"
#include "transport/roce_hdr.h"
#include "transport/tp_cc.h"
#include "transport/tp_ooo.h"
#include "transport/tp_window.h"
#include "transport/transport.h"
#include "vring/split_ring.h"

#define VUR_TP_MAX_SGE    16 /* the device's max_sge */
#define VUR_TP_MAX_RD_RES 16 /* its max_qp_rd_atom */
/*
 * A responder's READ slots: twice max_qp_rd_atom, so that a READ being
 * replayed (asked again, its responses lost) never keeps a new one out.
 */
#define VUR_TP_RD_SLOTS (2 * VUR_TP_MAX_RD_RES)
#define VUR_TP_BURST    32 /* packets one QP builds per poll */
#define VUR_TP_WIRE_HDR 58 /* Ethernet, IPv4, UDP, BTH and ICRC: what a RoCE v2 packet adds */

/*
 * A ring in driver memory (tp_drvring.c): entries and the object's record,
 * both reached through their MR's key at each access (checked at create,
 * so only the indices are masked here). @next counts entries taken (a
 * send, receive or SRQ ring) or written (a CQ); @done those retired, which
 * the end of the pass publishes as the device's index in the record.
 */
struct vur_tp_drvring {
	struct vur_rdma_ring ring;
	struct vur_rdma_ring rec;
	uint32_t prod_off; /* the driver's index in the record (a CQ: its cons) */
	uint32_t cons_off; /* the device's index the pass publishes (a CQ: prod) */
	uint32_t next;
	uint32_t done;
	uint32_t published; /* @done (a CQ: @next) as last written to the record */
	uint64_t *srq_done; /* an SRQ's entries completed ahead of @done (a bit each) */
	bool cq_any;        /* a CQ: CQEs since the last publish */
	bool cq_sol;        /* ... one of them solicited or an error */
};

/* An event of an event queue (tp_eventq.c), kept by its object, queued at most once. */
struct vur_tp_event {
	TAILQ_ENTRY(vur_tp_event) next;
	uint32_t type;
	uint32_t number;
	bool queued;
};

/* A bound RDMA virtqueue, or a ring in driver memory (@drv). */
struct vur_tp_ring {
	bool drv;
	struct vur_tp_drvring dr;
	uint32_t vq;
	bool active;  /* mapped and ready: the engine may touch it */
	bool started; /* served since it was bound: its indices are the engine's */
	bool broken;  /* the driver corrupted it: never touched again */
	int callfd;
	int kickfd;
	bool kick_watched;
	struct rte_epoll_event kick_ev; /* wakes the data path it names, QP rings only */
	uint8_t dp;                     /* QP rings: the data-path thread of the QP */
	struct vur_split_ring ring;
	bool is_cq;
	bool is_sq;             /* a send queue: its used entries go out before the CQs' */
	bool notify_cq;         /* CQ: its armed notification is due */
	uint32_t dirty;         /* shards whose thread has used entries to publish (a bit each) */
	rte_ticketlock_t *lock; /* its QP's or CQ's */
};

struct vur_tp_cq {
	rte_ticketlock_t lock; /* its ring, armed and error (vur_tp_lock) */
	struct vur_tp_ring ring;
	struct vur_tp_event ev_comp, ev_err; /* on rings: CQ_COMP and CQ_ERR */
	uint16_t eq;
};

/*
 * A bound SRQ: its receive virtqueue, from which the QPs created on it take
 * WRs under @lock (vur_tp_lock), whichever thread delivers their packets.
 * Lock order: QP, then SRQ; nothing is taken while the SRQ is held.
 */
struct vur_tp_srq {
	rte_ticketlock_t lock;
	struct vur_rdma_srq *srq;
	struct vur_tp_ring ring;
	struct vur_tp_event ev_limit; /* on rings: SRQ_LIMIT */
};

struct vur_tp_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

enum vur_swqe_state {
	VUR_SWQE_POSTED,  /* taken from the ring, nothing sent */
	VUR_SWQE_SENDING, /* some packets sent */
	VUR_SWQE_SENT,    /* every packet sent; RC waits for its ACK or response */
	VUR_SWQE_DONE,    /* completed (CQE written if any), buffer not yet used */
};

/* What a REG_MR work request asks, as taken from the send queue. */
struct vur_tp_reg {
	uint64_t iova;
	uint64_t length;
	uint32_t key;
	uint32_t access;
	uint8_t page_shift;
};

/* BIND_MW (local_ops.c): the request as it came, in host order. */
struct vur_tp_bind {
	uint64_t addr;
	uint64_t length;
	uint32_t mr_lkey;
	uint32_t rkey;
	uint32_t access;
};

struct vur_swqe {
	uint16_t head; /* descriptor head, for the used ring */
	uint8_t state;
	uint8_t status; /* an error found when it was taken, else SUCCESS */
	uint64_t wr_id;
	uint8_t opcode; /* enum virtio_ib_wr_opcode */
	uint8_t flags;  /* VIRTIO_IB_SEND_* */
	rte_be32_t imm;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t ah, remote_qpn, remote_qkey;
	uint32_t num_sge;
	uint16_t inline_len;
	uint32_t length;    /* the message */
	uint32_t first_psn; /* given when its first packet is sent */
	uint32_t npkts;     /* request packets (a READ: its requests) */
	uint32_t span;      /* PSNs it takes: its packets, or a READ's responses */
	uint32_t next_pkt;  /* packets sent so far (rewound on retransmission) */
	uint32_t sent_max;  /* packets ever sent: beyond next_pkt is a retransmission */
	uint32_t read_got;  /* READ: response bytes placed; a retry asks for the rest */
	uint32_t chunk_len; /* READ: the bytes one request asks for (fixed at start) */
	bool rereq;         /* READ: the rest asked again for a gap, not yet answered */
	uint32_t inv_rkey;  /* LOCAL_INV, SEND_WITH_INV: the key to invalidate */
	union {
		struct vur_tp_reg reg;   /* REG_MR (local_ops.c); its page list is sge[0] */
		struct vur_tp_bind bind; /* BIND_MW */
	};

	/* atomic (atomic.c); rereq: sent again, not yet answered */
	uint64_t compare_add; /* CmpSwap's compare data, FetchAdd's add data */
	uint64_t swap;        /* CmpSwap's swap data */
	/* last, not cleared on reuse: only the first num_sge and inline_len are read */
	struct vur_tp_sge sge[VUR_TP_MAX_SGE];
	uint8_t inline_data[VIRTIO_NET_ROCE_MAX_INLINE];
};

struct vur_rwqe {
	uint16_t head;
	uint8_t status; /* an error found when it was taken */
	uint64_t wr_id;
	uint32_t num_sge;
	uint64_t length;                       /* the room its s/g elements describe */
	struct vur_tp_sge sge[VUR_TP_MAX_SGE]; /* last, not cleared: the first num_sge are read */
};

/*
 * A READ or an atomic the responder serves (IBTA 9.7.5.1.3:
 * max_dest_rd_atomic resources). An atomic is one response, its
 * ATOMIC_ACKNOWLEDGE, with the data the operation found (atomic.c).
 */
struct vur_rd_res {
	bool valid;
	uint32_t psn;      /* of the request: the first response's */
	uint32_t npkts;    /* responses */
	uint32_t next_pkt; /* responses sent */
	bool replay;       /* asked again after all its responses went */
	uint64_t va;
	uint32_t rkey;
	uint32_t len;

	bool atomic;   /* an atomic: @orig is its result, kept for duplicates */
	uint64_t orig; /* the data at its address before the operation */
};

struct vur_tp_qp {
	rte_ticketlock_t lock; /* everything below, and the QP's state (vur_tp_lock) */
	uint8_t dp;            /* the data-path thread that polls it */
	/* on rings: in its thread's inbox or active list (tp_doorbell.c) */
	uint8_t act_on; /* 0: neither; else set once, by whoever listed it */
	uint8_t act_where;
	TAILQ_ENTRY(vur_tp_qp) act;
	struct vur_tp_dev *td; /* its engine (activation from vur_tp_qp_lock) */
	struct vur_rdma_qp *qp;
	struct vur_tp_ring sq, rq; /* rq is never activated on an SRQ */
	struct vur_tp_srq *srq;    /* created on an SRQ: receive WRs come from there */
	struct vur_pkt_addr path;  /* RC/UC: the QP's address vector, resolved */

	/* Requester and completer. */
	struct vur_swqe *wqe;
	uint32_t nwqe; /* entries of wqe[]: the send virtqueue's size */
	/*
	 * Counters: completed < head <= send <= started <= tail. WRs from head
	 * to started have PSNs; send is the next to send (behind started after
	 * a rewind), tail the next to take from the ring.
	 */
	uint32_t head, send, started, tail;
	uint32_t psn;             /* next new request PSN */
	uint32_t una;             /* first PSN not acknowledged (or READ response not placed) */
	uint32_t sent_psn;        /* one past the highest PSN sent (a READ: its responses) */
	uint32_t ack_req_psn;     /* the last PSN sent that asked for an ACK */
	uint64_t ack_req_ns;      /* when it went */
	struct vur_tp_window win; /* packets that may be unacknowledged */
	struct vur_tp_cc cc;      /* RC, UC on a link: ECN, CNPs, the rate (tp_cc.h) */
	/* The round trip, and the tail-loss probe it times (requester.c). */
	uint64_t srtt_ns;   /* smoothed; 0 before the first sample */
	uint64_t rttvar_ns; /* its mean deviation */
	bool rtt_timing;    /* rtt_psn, sent at rtt_sent_ns, asks for the next sample */
	uint32_t rtt_psn;
	uint64_t rtt_sent_ns;
	uint64_t probe_deadline; /* 0: no probe due */
	uint64_t rate_ready_ns;  /* the device's transmit limit let nothing go: tokens then */
	bool probing;            /* the next packet is a probe, alone */
	bool probe_out;          /* the probe went: nothing more until an answer */
	bool peer_holds;         /* its responder was seen to hold what followed a gap */
	bool gap_resend;         /* gap_psn went alone after a NAK; its answer tells */
	uint32_t gap_psn;
	uint32_t probe_psn; /* the tail-loss probe sent: its PSN (send_probe) */
	bool probe_psn_valid;
	uint64_t retx_deadline; /* 0: no timer */
	uint8_t retry_left;
	uint8_t rnr_left;
	uint64_t rnr_deadline; /* 0: not waiting */
	uint32_t rnr_psn;      /* where to resume after the RNR wait */
	bool seq_nak_seen;     /* a PSN sequence NAK came, at seq_nak_psn */
	uint32_t seq_nak_psn;
	bool flush_pending; /* went to ERR/SQE on its own: flush at the next pass */
	bool peer_local;    /* its peer's last packet came from an engine of this backend */

	/* Responder. */
	uint32_t epsn;    /* expected PSN */
	uint32_t msn;     /* messages completed */
	bool nak_sent;    /* a PSN sequence NAK for epsn is out (C9-113) */
	bool ack_pending; /* an ACK of ack_psn waits for the end of the burst */
	uint32_t ack_psn;
	bool aeth_deferred; /* an ACK or NAK waits behind READ responses */
	uint8_t aeth_syndrome;
	uint32_t aeth_psn;
	bool uc_drop;         /* UC: dropping the rest of a message */
	bool in_send;         /* a SEND message is being received */
	bool in_write;        /* an RDMA WRITE message is being received */
	bool rwqe_held;       /* rwqe is taken from the ring */
	struct vur_rwqe rwqe; /* the receive WR of the current message */
	uint32_t roff;        /* bytes of the message placed in it */
	uint64_t wva;         /* WRITE: where the next payload goes */
	uint32_t wrkey;       /* WRITE: its rkey */
	uint32_t wleft;       /* WRITE: bytes RETH promised and not yet seen */
	uint32_t wlen;        /* WRITE: the whole length (CQE byte_len with immediate) */
	struct vur_rd_res res[VUR_TP_RD_SLOTS]; /* kept after serving, for replays */
	struct vur_tp_ooo ooo;                  /* RC: requests after a gap (tp_ooo.h) */
	struct vur_tp_ooo rd_ooo;               /* RC: READ responses after a gap */
	uint32_t res_next;                      /* slot of the next READ */

	struct vur_tp_qp_stats stats;
};

/*
 * What the calling thread keeps between the steps of one entry point
 * (vur_tp_poll, vur_tp_rx, a hook), per thread (tp_thread.c): the device is
 * the same throughout, and all of it is done before the entry point returns.
 */
#define VUR_TP_DIRTY_MAX 256 /* a device's vrings: each ring is listed once */
#define VUR_TP_ACK_BATCH 32  /* QPs whose ACK waits for the end of a burst */
#define VUR_TP_CQ_MAX    256 /* a device's vrings: each CQ overruns once */
#define VUR_TP_SRQ_USED  256 /* SRQ WRs whose buffers go used after their CQEs */

/* An SRQ's WR, completed, whose buffer goes used when the CQEs are published. */
struct vur_tp_srq_used {
	struct vur_tp_srq *s;
	uint16_t head;
};

struct vur_tp_self {
	unsigned int shard;       /* its counters: 0, or a data-path thread's id + 1 */
	struct vur_tp_qp *locked; /* the QP it holds */
	uint32_t wake;            /* data-path threads with new work (a bit each) */
	uint16_t n_dirty;
	uint16_t n_acks;
	uint16_t n_overrun;
	uint16_t n_srq_used;
	struct vur_tp_ring *dirty[VUR_TP_DIRTY_MAX]; /* rings to publish (vur_tp_publish) */
	struct vur_tp_qp *acks[VUR_TP_ACK_BATCH];    /* QPs with an ACK to send */
	uint32_t overrun[VUR_TP_CQ_MAX];             /* CQs whose QPs go to ERR */
	struct vur_tp_srq_used srq_used[VUR_TP_SRQ_USED];
};

RTE_DECLARE_PER_LCORE(struct vur_tp_self, vur_tp_self);

static inline struct vur_tp_self *
vur_tp_self(void)
{
	return &RTE_PER_LCORE(vur_tp_self);
}

/* The calling thread's shard of the device's counters. */
static inline struct vur_tp_stats *
vur_tp_stats(struct vur_tp_dev *td)
{
	return &td->stats[RTE_PER_LCORE(vur_tp_self).shard].s;
}

extern bool vur_tp_many_threads;

/*
 * The lock of a QP or a CQ. With one data-path thread nothing else runs
 * the engine while it holds the device lock to read (every other thread
 * takes it to write), so the lock is not taken: each acquisition is a full
 * barrier, which stalls on the stores to guest memory before it. A ticket
 * lock: fair between data-path threads, and its release is a plain store
 * (DPDK's x86 spinlock releases with xchg, a second barrier).
 */
static inline void
vur_tp_lock(rte_ticketlock_t *l)
{
	if (vur_tp_many_threads)
		rte_ticketlock_lock(l);
}

static inline void
vur_tp_unlock(rte_ticketlock_t *l)
{
	if (vur_tp_many_threads)
		rte_ticketlock_unlock(l);
}

/*
 * Hold QP @t (one at a time). Its data-path thread, if not the caller, is
 * woken at the end of the entry point (it may have work now: a READ
 * response to send, a timer to keep, a flush).
 */
void vur_tp_qp_lock(struct vur_tp_qp *t);
void vur_tp_qp_unlock(struct vur_tp_qp *t);

/* Count @n on the device and on its QP @t (whose lock the caller holds). */
#define VUR_TP_COUNT(td, t, field, n)           \
	do {                                    \
		vur_tp_stats(td)->field += (n); \
		(t)->stats.field += (n);        \
	} while (0)

/* A packet of QP @t dropped, for @why. */
static inline void
vur_tp_drop(struct vur_tp_dev *td, struct vur_tp_qp *t, enum vur_tp_drop why)
{
	vur_tp_stats(td)->drops[why]++;
	t->stats.drops++;
}

/* tp_mem.c: s/g elements and guest memory. */
enum vur_tp_access {
	VUR_TP_READ,  /* the engine reads the memory */
	VUR_TP_WRITE, /* the engine writes it: LOCAL_WRITE needed */
};

/* Whether @sge is valid for a WR of PD @pdn (spec: "valid for a WR"). */
bool vur_tp_sge_ok(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		enum vur_tp_access acc);

/*
 * The host address of [@addr, @addr + *@len) of the MR with lkey @key in
 * PD @pdn; *@len shrinks to the contiguous part. NULL if the key, PD,
 * access or range is wrong.
 */
void *vur_tp_mr_hva(struct vur_tp_dev *td, uint32_t pdn, uint32_t key, uint32_t access,
		uint64_t addr, uint32_t *len);

/*
 * The same for a remote request's rkey, which names an MR or a memory
 * window (ROCE-DEV-MW-9) of QP @qp, the responder: its PD, and its number
 * for a type 2 window. @access: the remote access asked (REMOTE_*).
 */
void *vur_tp_rkey_hva(struct vur_tp_dev *td, const struct vur_rdma_qp *qp, uint32_t rkey,
		uint32_t access, uint64_t addr, uint32_t *len);

/* Whether the rkey @rkey allows @access over [@va, @va + @len) to QP @qp. */
bool vur_tp_rkey_ok(struct vur_tp_dev *td, const struct vur_rdma_qp *qp, uint32_t rkey,
		uint32_t access, uint64_t va, uint64_t len);

/* Copy between packet payload and the s/g list @sge at byte @off. false on a bad element. */
bool vur_tp_sge_write(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		uint32_t num_sge, uint64_t off, const struct vur_pkt *p, uint32_t pay_off,
		uint32_t len);
bool vur_tp_sge_write_buf(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		uint32_t num_sge, uint64_t off, const void *buf, uint32_t len);

/* Append [@off, @off + @len) of the message of @sge to packet @m, by reference. */
bool vur_tp_sge_append(struct vur_tp_dev *td, uint32_t pdn, const struct vur_tp_sge *sge,
		uint32_t num_sge, uint64_t off, uint32_t len, struct rte_mbuf *m);

/* Whether [@gpa, @gpa + @len) of driver memory lies in one region of it. */
bool vur_tp_mem_ok(const struct vur_tp_dev *td, uint64_t gpa, uint64_t len);
/* Copy @len bytes of driver memory at @gpa (no key: a REG_MR's page list) to @buf. */
bool vur_tp_mem_read(const struct vur_tp_dev *td, uint64_t gpa, void *buf, uint32_t len);

struct vur_tp_cqe;

/*
 * local_ops.c: the work requests of the Base Memory Management Extensions
 * that touch no wire, REG_MR and LOCAL_INV, and invalidation by a
 * SEND_WITH_INV's IETH.
 */
static inline bool
vur_tp_local_op(uint8_t opcode)
{
	return opcode == VIRTIO_IB_WR_LOCAL_INV || opcode == VIRTIO_IB_WR_REG_MR ||
			opcode == VIRTIO_IB_WR_BIND_MW;
}

/* The rest of local op @w from its request @req in chain @c; sets @w->status. */
void vur_tp_local_op_decode(struct vur_tp_dev *td, const struct vur_tp_qp *t,
		const struct vur_chain *c, const struct virtio_rdma_sq_req *req,
		struct vur_swqe *w);

/*
 * The requester reached local op @w at send: it takes effect now, for the
 * WRs after it, and is done (no PSN) once the WRs before it complete;
 * false while a FENCE holds it. On an error it stays with a status.
 */
bool vur_tp_local_op_run(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_swqe *w);

/*
 * The last packet of a SEND_WITH_INV message @p: invalidate the MR its IETH
 * names, for receive CQE @e (WITH_INVALIDATE); false when it names none
 * this QP may invalidate.
 */
bool vur_tp_recv_invalidate(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		struct vur_tp_cqe *e);

/*
 * tp_drvring.c: rings in driver memory. A pop gives the next entry as a
 * chain of one readable buffer (the same WR parsing as a virtqueue's);
 * VUR_POP_BROKEN when the driver's index lies (more than the ring holds)
 * or the ring cannot be reached any more.
 */
void vur_tp_drv_bind(struct vur_tp_ring *r, const struct vur_rdma_ring *ring,
		const struct vur_rdma_ring *rec, uint32_t prod_off, uint32_t cons_off);
enum vur_pop_result vur_tp_drv_pop(struct vur_tp_dev *td, struct vur_tp_ring *r,
		struct vur_chain *c, const char **why);
/* Entries the driver has made available and the device not taken; 0 when it lies. */
uint32_t vur_tp_drv_avail(struct vur_tp_dev *td, struct vur_tp_ring *r);
/* Whether the driver's index differs from what the device took (work, or a lie to find). */
bool vur_tp_drv_moved(struct vur_tp_dev *td, struct vur_tp_ring *r);
/* Entry @head retired: in order, or (an SRQ) when those before it are too. */
void vur_tp_drv_retire(struct vur_tp_ring *r, uint16_t head);
/* The device's index into the record (the pass's end); a CQ's notification then. */
void vur_tp_drv_publish(struct vur_tp_dev *td, struct vur_tp_ring *r);
/* A CQE into a CQ ring: false when it has no room (an overrun). */
bool vur_tp_drv_cq_write(struct vur_tp_dev *td, struct vur_tp_ring *r,
		const struct virtio_rdma_cq_req *w, bool solicited);
/*
 * RESIZE_CQ (the CQ's lock held): CQ ring @r writes into @ring from the
 * next CQE on, its index in *@switch_prod; -EINVAL when more than @cqe
 * CQEs are not consumed, -EFAULT when the record cannot be read.
 */
int vur_tp_drv_cq_resize(struct vur_tp_dev *td, struct vur_tp_ring *r,
		const struct vur_rdma_ring *ring, uint32_t cqe, uint32_t *switch_prod);
/* The record's 32-bit word at @off (NULL when unreachable). */
uint32_t *vur_tp_drv_rec(struct vur_tp_dev *td, const struct vur_tp_drvring *d, uint32_t off);
/* A QP on rings back to RESET: indices 0, the device half of its record 0. */
void vur_tp_drv_reset(struct vur_tp_dev *td, struct vur_tp_ring *r);
/* A QP on rings entered ERR: rq_notify set, then a full barrier (ROCE-DEV-RING-22). */
void vur_tp_drv_rq_notify(struct vur_tp_dev *td, struct vur_tp_ring *r);
/* Pop from either kind of ring. */
static inline enum vur_pop_result
vur_tp_ring_pop(struct vur_tp_dev *td, struct vur_tp_ring *r, struct vur_chain *c, const char **why)
{
	if (r->drv)
		return vur_tp_drv_pop(td, r, c, why);
	return vur_split_ring_pop(&r->ring, td->mem, c, why);
}

/*
 * tp_doorbell.c: QPs on rings are polled by their thread only while on its
 * active list: listed when a doorbell names them or another thread touches
 * them (vur_tp_qp_lock), dropped when drained, sq_event written then.
 */
void vur_tp_qp_activate(struct vur_tp_dev *td, struct vur_tp_qp *t);
/*
 * Whether QP @t (held, or the engine at rest) has nothing for its thread to
 * do until a driver, a packet or a control command says: on either layout.
 */
bool vur_tp_qp_idle(struct vur_tp_dev *td, struct vur_tp_qp *t);
void vur_tp_qp_deactivate(struct vur_tp_dev *td, struct vur_tp_qp *t);
/* Thread @dp's part of vur_tp_poll for rings: doorbells, its active QPs, its event queues. */
uint16_t vur_tp_rings_poll(struct vur_tp_dev *td, unsigned int dp, struct rte_mbuf **out,
		uint16_t n, uint16_t max, uint64_t now_ns, bool arm, uint64_t *dl);
/* One QP's pass (tp_dev.c), shared by both layouts. */
uint16_t vur_tp_poll_qp(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out,
		uint16_t n, uint16_t max, uint64_t now_ns, bool arm, uint64_t *dl);
void vur_tp_rings_start(struct vur_tp_dev *td);
void vur_tp_rings_stop(struct vur_tp_dev *td);

/*
 * tp_eventq.c: event @ev (its object's) into event queue @eq, or kept in
 * order until the driver gives buffers; at most once queued.
 */
void vur_tp_event_post(struct vur_tp_dev *td, uint16_t eq, struct vur_tp_event *ev);
/* The events that waited, into the buffers that came (thread @dp's queues). */
void vur_tp_events_drain(struct vur_tp_dev *td, unsigned int dp);
/* An object goes: its events that wait go with it (control thread). */
void vur_tp_event_cancel(struct vur_tp_dev *td, uint16_t eq, struct vur_tp_event *ev);

/*
 * Doorbell/event queue pair k (rdma_doorbellq(k+1), rdma_eventq(k+1)): the
 * doorbell queue is only its kick (watched by thread @dp); the event queue
 * is a virtqueue of device-writable buffers, written under @lock from any
 * thread, its events waiting in @pending while it has none.
 */
struct vur_tp_rq {
	uint8_t dp;
	bool sleeping; /* the thread wrote sleeping = 1 in summary k */
	struct vur_tp_ring dbq;
	struct vur_tp_ring eq;
	rte_ticketlock_t lock;
	struct vur_tp_event_list pending;
	uint32_t n_pending;
};

/* tp_ring.c: bound virtqueues, guarded by @lock (their QP's or CQ's). */
void vur_tp_ring_bind(struct vur_tp_ring *r, uint32_t vq, rte_ticketlock_t *lock);

/*
 * Mark @head used (length @len), published with the rest of the pass by
 * vur_tp_publish(); @notify_cq: the CQ's armed notification is due then.
 */
void vur_tp_ring_push(struct vur_tp_dev *td, struct vur_tp_ring *r, uint16_t head, uint32_t len);
void vur_tp_ring_notify_cq(struct vur_tp_dev *td, struct vur_tp_ring *r);

/*
 * End an entry point's work (holding no QP): the QPs of CQs that overran go
 * to ERR (tp_cq.c), then what the calling thread made used is published,
 * completion queues first (a WR's buffer goes used after its CQE,
 * ROCE-DEV-WR-5), each ring's index once, with one notification check per
 * ring. Every entry point that completes work (vur_tp_poll, vur_tp_rx, the
 * QP hooks) calls it before it returns.
 */
void vur_tp_publish(struct vur_tp_dev *td);
void vur_tp_ring_activate(struct vur_tp_dev *td, struct vur_tp_ring *r, bool kick);
/* Whether the driver put entries in ring @r the device has not taken (either kind of ring). */
bool vur_tp_ring_moved(struct vur_tp_dev *td, struct vur_tp_ring *r);
void vur_tp_ring_deactivate(struct vur_tp_dev *td, struct vur_tp_ring *r);

/* tp_cq.c: completions. */
struct vur_tp_cqe {
	uint64_t wr_id;
	uint8_t status;
	uint8_t opcode;
	uint32_t byte_len;
	rte_be32_t imm;
	uint32_t inv_rkey; /* with VIRTIO_IB_WC_WITH_INVALIDATE, instead of imm */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;
	bool solicited;
};

/*
 * Write @e into CQ @cqn (ROCE-DEV-CQE-1) and notify if it is armed for it.
 * A CQ without a usable buffer overruns (ROCE-DEV-OVR-1, -2).
 */
void vur_tp_cq_post(struct vur_tp_dev *td, uint32_t cqn, const struct vur_tp_cqe *e);
/* The QPs of the CQs that overran since the last call go to ERR (ROCE-DEV-OVR-2). */
void vur_tp_cq_settle(struct vur_tp_dev *td);

/*
 * tp_srq.c: shared receive queues. The caller holds QP @t (created on
 * SRQ @s), which takes the SRQ's next WR, or gives one back used.
 */
enum vur_pop_result vur_tp_srq_pop(struct vur_tp_dev *td, struct vur_tp_qp *t,
		struct vur_chain *chain, const char **why);
/*
 * WR @head of @s used (length 0): when the calling thread publishes, after
 * the CQEs it wrote (ROCE-DEV-SRQ-10), in the order the WRs completed.
 */
void vur_tp_srq_push(struct vur_tp_dev *td, struct vur_tp_srq *s, uint16_t head);
/* vur_tp_publish(): the used buffers that vur_tp_srq_push() kept, onto their rings. */
void vur_tp_srq_settle(struct vur_tp_dev *td);
int vur_tp_srq_bind(void *arg, struct vur_rdma_srq *srq);
void vur_tp_srq_unbind(void *arg, struct vur_rdma_srq *srq);
/* Around what librte_vhost does to the rings (vur_tp_start, vur_tp_stop). */
void vur_tp_srq_start(struct vur_tp_dev *td);
void vur_tp_srq_stop(struct vur_tp_dev *td);

/* tp_wq.c: the send and receive queues of a QP. */
struct vur_tp_qp *vur_tp_qp_get(struct vur_tp_dev *td, uint32_t qpn);
/* Take new send WRs from the ring into wqe[] (flushing them in SQE/ERR). */
void vur_tp_sq_fetch(struct vur_tp_dev *td, struct vur_tp_qp *t);
/* Whether the s/g elements of send WR @w are valid now (ROCE-DEV-WR-3), when it starts. */
bool vur_tp_sq_sges_ok(struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w);
/* Take the next receive WR; false if none. */
bool vur_tp_rq_take(struct vur_tp_dev *td, struct vur_tp_qp *t);
/* Complete the held receive WR with @status (and the CQE fields of @e when it succeeds). */
void vur_tp_rq_complete(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_tp_cqe *e);
/* Complete the send WR at head with @status; moves the QP as IBTA says on an error. */
void vur_tp_sq_complete_head(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t status);
/* The QP goes to ERR (or SQE) on its own: ROCE-DEV-QPS-6, -7, -8. */
void vur_tp_qp_error(struct vur_tp_dev *td, struct vur_tp_qp *t, uint8_t state);
/* Flush everything outstanding (a QP in ERR; the send queue of one in SQE). */
void vur_tp_qp_flush(struct vur_tp_dev *td, struct vur_tp_qp *t);
/* Hand every outstanding WR back used, without CQEs (to RESET, ROCE-DEV-QPS-5). */
void vur_tp_qp_discard(struct vur_tp_dev *td, struct vur_tp_qp *t);
/* Forget all transport state: a QP just bound or reset. */
void vur_tp_qp_reset_state(struct vur_tp_qp *t);

/* The line rate congestion control climbs back to: the port's speed, in Mb/s. */
uint32_t vur_tp_line_mbps(const struct vur_tp_dev *td);

/* requester.c */
uint16_t vur_tp_requester(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out,
		uint16_t max, uint64_t now_ns);
/* READ requests out and not wholly answered (ROCE-DEV-READ-2: at most max_rd_atomic). */
uint32_t vur_tp_reads_outstanding(const struct vur_tp_qp *t);
/*
 * Request @c of READ @w from where its answers so far end: its first PSN,
 * and in @npsn the responses it asks for.
 */
uint32_t vur_tp_read_req(const struct vur_tp_dev *td, const struct vur_tp_qp *t,
		const struct vur_swqe *w, uint32_t c, uint32_t *npsn);
/* The first of READ @w's requests not wholly answered yet. */
static inline uint32_t
vur_tp_read_req_done(const struct vur_swqe *w)
{
	return w->read_got / w->chunk_len;
}
/* The send WR that holds PSN @psn, from head to started; NULL if none. */
struct vur_swqe *vur_tp_holding(struct vur_tp_qp *t, uint32_t psn);
/* The PSN of the first response READ @w lacks: where asking it again starts. */
uint32_t vur_tp_read_resume_psn(
		const struct vur_tp_dev *td, const struct vur_tp_qp *t, const struct vur_swqe *w);
uint32_t vur_tp_pmtu(const struct vur_tp_dev *td, const struct vur_tp_qp *t);
/*
 * Go back to the send WR that holds @psn and send from there (go-back-N):
 * from @psn itself inside a message, a READ from its first missing response.
 */
void vur_tp_rewind(struct vur_tp_qp *t, uint32_t psn);
/*
 * Everything before @to is acknowledged now (the completer): a round-trip
 * sample if the timed packet is among them; the probe waits again.
 */
void vur_tp_acked(struct vur_tp_qp *t, uint32_t to, uint64_t now_ns);
/* The timers of @t that expired by @now (retransmission, RNR wait, probe). */
void vur_tp_timers(struct vur_tp_dev *td, struct vur_tp_qp *t, uint64_t now_ns);
uint64_t vur_tp_timeout_ns(uint8_t timeout);
/* The wait an RNR NAK's timer code names (responder.c). */
uint64_t vur_tp_rnr_ns(uint8_t code);

/* Atomic WRs (CmpSwap, FetchAdd: RC only). */
static inline bool
vur_tp_wr_is_atomic(uint8_t opcode)
{
	return opcode == VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP ||
			opcode == VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * WRs that ask the responder for a resource and an answer of data: READs
 * and atomics, limited together by max_rd_atomic (IBTA 9.7.5.1.3).
 */
static inline bool
vur_tp_wr_is_rd_atomic(uint8_t opcode)
{
	return opcode == VIRTIO_IB_WR_RDMA_READ || vur_tp_wr_is_atomic(opcode);
}

/* atomic.c: CmpSwap and FetchAdd, RC only. */
/* Whether atomic WR @w's s/g list is one element of 8 bytes; sets @w->status if not. */
bool vur_tp_atomic_wr_ok(struct vur_swqe *w);
/* The AtomicETH of atomic WR @w in @h. */
void vur_tp_atomic_request(const struct vur_swqe *w, struct vur_pkt_hdrs *h);
/*
 * The host address of the 8 bytes atomic request @p names, checked; NULL
 * with the NAK to answer in *@code (and why in *@why) when it may not be done.
 */
uint64_t *vur_tp_atomic_target(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		enum vur_nak_code *code, const char **why);
/* Do atomic request @p at @target, once: returns the data found there. */
uint64_t vur_tp_atomic_execute(uint64_t *target, const struct vur_pkt *p);
/* The ATOMIC_ACKNOWLEDGE of resource @r; NULL when out of mbufs. */
struct rte_mbuf *vur_tp_atomic_ack(
		struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_rd_res *r);
/* Put the data ATOMIC_ACKNOWLEDGE @p returned into atomic WR @w's buffer. */
bool vur_tp_atomic_place(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_swqe *w,
		const struct vur_pkt *p);

/* responder.c */
void vur_tp_responder(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p);
/* The ACKs the packets taken since the last call asked for (the end of vur_tp_rx). */
void vur_tp_flush_acks(struct vur_tp_dev *td);
uint16_t vur_tp_read_responses(
		struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf **out, uint16_t max);

/* completer.c */
void vur_tp_completer(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		uint64_t now_ns);

/* tp_dev.c: a packet this device sends while it handles another (ACK, NAK). */
void vur_tp_send_reply(struct vur_tp_dev *td, struct vur_tp_qp *t, struct rte_mbuf *m);
/* The mbuf pools of the engine. */
struct rte_mempool *vur_tp_hdr_pool(const struct vur_tp_dev *td);
struct rte_mempool *vur_tp_ext_pool(const struct vur_tp_dev *td);
/* Build a packet from @t's QP to its peer (RC/UC path) with @h; NULL when out of mbufs. */
struct rte_mbuf *vur_tp_build(struct vur_tp_dev *td, struct vur_tp_qp *t, struct vur_pkt_hdrs *h,
		uint32_t pay_len);

#define VUR_TP_LOG(td, level, fmt, ...) VUR_RDMA_LOG((td)->rd, level, fmt, ##__VA_ARGS__)

static inline bool
vur_tp_state_sends(uint8_t state)
{
	return state == VIRTIO_IB_QPS_RTS || state == VIRTIO_IB_QPS_SQD;
}

static inline bool
vur_tp_state_receives(uint8_t state)
{
	/* ROCE-DEV-QPS-4: RTR, RTS, SQD and SQE process incoming packets. */
	return state >= VIRTIO_IB_QPS_RTR && state <= VIRTIO_IB_QPS_SQE;
}

#endif /* VUR_TP_H */
