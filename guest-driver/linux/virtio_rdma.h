/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_rdma: a driver for the virtio-net RoCE device (virtio-net with
 * VIRTIO_NET_F_ROCE). One virtio device gives one netdev (receiveq1,
 * transmitq1) and one ib_device (RoCE v2, port 1) bound to that netdev.
 *
 * The wire ABI is <linux/virtio_net_roce.h> from virtio-spec/include; the
 * normative text is virtio-spec/virtio-net-roce.md. Requirement IDs
 * (ROCE-DRV-*) in comments refer to it.
 */
#ifndef VIRTIO_RDMA_H
#define VIRTIO_RDMA_H

#include <linux/completion.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#include <linux/virtio.h>
#include <linux/virtio_net.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include <linux/virtio_net_roce.h>
#include <rdma/virtio_rdma-abi.h>

/*
 * The virtqueues: receiveq1, transmitq1 and the control queue (N = 1: no
 * VIRTIO_NET_F_MQ), then the M completion queues and the L send/receive
 * pairs of the RDMA verbs (virtio_net_roce_cq_vq() and friends).
 */
enum virtio_rdma_vq {
	VIRTIO_RDMA_VQ_RX,
	VIRTIO_RDMA_VQ_TX,
	VIRTIO_RDMA_VQ_CTRL,
	VIRTIO_RDMA_NR_NET_VQS,
};

#define VIRTIO_RDMA_N_PAIRS	1

/* Largest command and ack data the control buffer carries. */
#define VIRTIO_RDMA_CTRL_DATA_MAX	128
#define VIRTIO_RDMA_CTRL_ACK_MAX	128

/*
 * One control command: the buffer the device reads and writes, and where
 * it stands. Allocated on its own (never on the stack) so that it can be
 * mapped. The state is under virtio_rdma_ctrl.lock.
 */
struct virtio_rdma_ctrl_buf {
	struct virtio_net_ctrl_hdr hdr;
	u8 data[VIRTIO_RDMA_CTRL_DATA_MAX];
	virtio_net_ctrl_ack status;
	u8 ack[VIRTIO_RDMA_CTRL_ACK_MAX];
	bool inflight;			/* with the device (maybe timed out) */
	unsigned int used;		/* bytes written, once used */
};

/* virtio_rdma_ctrl_buf of sleeping and of atomic commands */
enum virtio_rdma_ctrl_kind {
	VIRTIO_RDMA_CTRL_SLEEP,
	VIRTIO_RDMA_CTRL_ATOMIC,
	VIRTIO_RDMA_CTRL_KINDS,
};

struct virtio_rdma_ctrl {
	spinlock_t lock;		/* the virtqueue, the buffers' state */
	struct mutex sleep_lock;	/* one sleeping command at a time */
	struct completion done;		/* the control queue's callback */
	struct virtio_rdma_ctrl_buf *buf[VIRTIO_RDMA_CTRL_KINDS];
};

/* The port as the configuration space and QUERY_PORT_SPEED describe it. */
struct virtio_rdma_port {
	struct mutex lock;		/* serializes updates (config work, probe) */
	bool link_up;
	u64 speed;			/* 100 Mb/s, last reported to consumers */
	u32 flags;			/* VIRTIO_RDMA_PORT_SPEED_F_* */
	u64 speed_events;		/* IB speed change events dispatched */
	u64 port_events;		/* PORT_ACTIVE and PORT_ERR dispatched */
	/* From QUERY_PORT at probe: fixed for the device's life (ROCE-DEV-ATTR-1). */
	u32 gid_tbl_len;
	u32 max_msg_sz;
	u16 link_mtu;			/* Ethernet MTU of the configuration space */
};

/*
 * The doorbell of one virtqueue: where virtio-pci's notify capability puts
 * it, and whether its page holds no other virtqueue's doorbell and nothing
 * else (then a process may map it).
 */
struct virtio_rdma_vq_notify {
	phys_addr_t addr;
	u16 off;			/* queue_notify_off */
	bool own_page;
};

/*
 * The rings layout (virtio_rdma_rings.c, virtio_rdma_eq.c): K doorbell and
 * event queue pairs from vqs[first_vq]; on once SETUP_RINGS succeeded.
 * Objects on rings are numbered from max_rdma_cqs (CQs) and max_rdma_qps
 * (QPs, SRQs); cqs[], qps[] and srqs[] hold them by number minus that.
 */
struct virtio_rdma_rings {
	u32 k;				/* pairs set up by find_vqs; 0: none */
	u32 k_dev;			/* rdma_ring_queues: summaries in db */
	u32 first_vq;
	bool on;
	u32 max_ring_qp;
	u32 max_ring_cq;
	u32 max_ring_wr;
	u32 max_ring_cqe;
	u32 pdn;			/* the driver's PD and DMA MR */
	u32 mrn;
	u32 lkey;
	void *db;			/* the doorbell area, K summaries */
	size_t db_len;			/* page aligned */
	u32 db_stride;
	u32 next_eq;			/* under dev->res_lock: the next object's */
	u32 live_cqs;			/* under dev->res_lock: CQs on rings */
	u32 live_qps;			/* under dev->res_lock: QPs on rings */
	u32 live_srqs;			/* under dev->res_lock: SRQs on rings */
	atomic64_t user_doorbells;	/* processes' doorbell commands */
	struct virtio_rdma_event **ev;	/* K arrays of event buffers */
	struct virtio_rdma_cq_res **cqs;	/* under dev->cq_lock */
	struct virtio_rdma_qp_res **qps;	/* under dev->qp_lock */
	struct virtio_rdma_srq_res **srqs;	/* under dev->qp_lock */
};

struct virtio_rdma_dev {
	struct ib_device ib;		/* first: ib_alloc_device() */
	struct virtio_device *vdev;
	struct net_device *netdev;
	struct virtqueue **vqs;		/* nvqs: the layout of the spec */
	u32 nvqs;
	char (*vq_names)[16];
	struct virtio_rdma_vq_notify *doorbells;	/* nvqs, or NULL */
	struct virtio_rdma_ctrl ctrl;
	struct virtio_rdma_port port;
	struct virtio_rdma_rings rings;
	bool has_port_speed;		/* VIRTIO_NET_F_ROCE_PORT_SPEED negotiated */
	u32 max_rdma_qps;
	u32 max_rdma_cqs;
	/*
	 * QUERY_DEVICE at probe: fixed for the device's life
	 * (ROCE-DEV-ATTR-1). caps holds the defined VIRTIO_IB_DEVICE_* bits
	 * only (ROCE-DRV-ATTR-2); what it lacks is never posted, set or
	 * claimed (ROCE-DRV-ATTR-4).
	 */
	struct virtio_rdma_ack_query_device attr;
	u64 caps;
	unsigned long warned_ops[BITS_TO_LONGS(64)];	/* WR opcodes refused, logged */

	/* RDMA objects (virtio_rdma_res.c) */
	bool user_rings;		/* user CQs and QPs possible */
	bool user_doorbells;		/* every send/receive queue has its page */
	struct mutex res_lock;		/* create and destroy+re-initialise */
	spinlock_t cq_lock;		/* cqs[] and each CQ's ibcq */
	struct virtio_rdma_cq_res **cqs;	/* max_rdma_cqs, by CQN */
	spinlock_t qp_lock;		/* qps[], srqs[] */
	struct virtio_rdma_qp_res **qps;	/* QPs by QPN: poll_cq, CQ errors */
	struct virtio_rdma_srq_res **srqs;	/* SRQs by number: limit events */
	bool dead;			/* reset: no more commands */
	struct mutex zombie_lock;
	struct list_head zombies;	/* memory the device may still use */

	spinlock_t ready_lock;		/* guards ready */
	bool ready;			/* config changes go to config_work */
	bool ib_registered;		/* events may be dispatched */
	bool needs_reset;		/* DEVICE_NEEDS_RESET seen: re-probing */
	struct work_struct config_work;
};

static inline struct virtio_rdma_dev *to_vdev_rdma(struct ib_device *ibdev)
{
	return container_of(ibdev, struct virtio_rdma_dev, ib);
}

/*
 * A user queue: one RDMA virtqueue that a process drives through its
 * mappings (<rdma/virtio_rdma-abi.h>), with its slots.
 */
enum virtio_rdma_mmap_kind {
	VIRTIO_RDMA_MMAP_RING,
	VIRTIO_RDMA_MMAP_BUF,
	VIRTIO_RDMA_MMAP_NOTIFY,
	VIRTIO_RDMA_MMAP_VMALLOC,	/* at vaddr: a ring in an MR (ring_mr.c) */
	VIRTIO_RDMA_MMAP_KINDS,
};

struct virtio_rdma_mmap {
	struct rdma_user_mmap_entry rdma;
	enum virtio_rdma_mmap_kind kind;
	phys_addr_t addr;		/* page aligned */
	void *vaddr;			/* VIRTIO_RDMA_MMAP_VMALLOC: vmalloc_user() */
	struct kref *owner;		/* the object this mapping holds */
	void (*release)(struct kref *ref);
	bool inserted;
};

/*
 * The driver's own indices of a queue it drives for a kernel consumer
 * (virtio_rdma_kverbs.c); unused for a queue a process drives.
 */
struct virtio_rdma_kq {
	spinlock_t lock;		/* post on a send or receive queue */
	u16 avail_idx;			/* the next WR's, the next avail entry's */
	u16 last_used;			/* used->idx last seen (CQ: consumed) */
	u16 polled;			/* receive queue: completions polled */
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
};

struct virtio_rdma_uq {
	struct virtqueue *vq;
	struct virtio_rdma_kq k;
	u16 num;
	u32 stride;
	void *slots;
	size_t slots_len;		/* page aligned */
	void *ring;			/* the available ring: the mapping starts here */
	u32 ring_len;
	u32 used_off;
	struct virtio_rdma_mmap maps[VIRTIO_RDMA_MMAP_KINDS];
};

/*
 * Memory the device may still touch because its destroy command failed
 * (no answer): freed only after the device is reset.
 */
struct virtio_rdma_zombie {
	struct list_head node;
	void (*free)(struct virtio_rdma_zombie *z);
};

/*
 * The memory of a ring of the rings layout (virtio_rdma_ring_mr.c):
 * contiguous pages in a DMA MR, or (big) vmalloc_user() memory in MR mrn
 * of its own; addr and lkey name it on the wire.
 */
struct virtio_rdma_ring_mem {
	void *base;			/* NULL: none */
	size_t len;			/* page aligned */
	u64 addr;			/* base in the MR of lkey */
	u32 lkey;
	bool big;
	u32 mrn;
};

/*
 * Device objects live while the verbs object or a mapping of their rings
 * holds them (struct kref); the last reference destroys them at the device.
 */
struct virtio_rdma_pd_res {
	struct kref ref;
	struct virtio_rdma_dev *dev;
	u32 pdn;
};

struct virtio_rdma_cq_res {
	struct kref ref;
	struct virtio_rdma_dev *dev;
	u32 cqn;
	bool kernel;			/* polled by the driver, not mapped */
	struct delayed_work wrap_work;	/* kernel CQ: events near used->idx 0 */
	struct ib_cq *ibcq;		/* under dev->cq_lock; NULL once destroyed */
	bool error_reported;
	struct virtio_rdma_uq ring;	/* on rings: only ring.k.lock */
	/* A CQ on rings (virtio_rdma_cq_rings.c): rmem.base non-NULL. */
	struct virtio_rdma_ring_mem rmem;	/* its ring */
	void *rrec;			/* its record, a page of its own */
	u32 rsize;			/* ring entries, a power of two */
	u32 rcons;			/* CQEs consumed, under ring.k.lock */
	/*
	 * After a resize (virtio_rdma_cq_rings.c), under ring.k.lock: a
	 * kernel CQ reads CQEs before switch_prod from rold, which goes once
	 * rcons reaches it (rold_work); while RESIZE_CQ is outstanding
	 * (resizing) it reads none at or beyond rstop (ROCE-DRV-RING-9). A
	 * process's CQ keeps rmem (mapped) to the end and is on ucur, if set.
	 */
	struct virtio_rdma_ring_mem rold;
	u32 rold_size;
	u32 switch_prod;
	u32 rstop;
	bool resizing;
	bool resize_lost;		/* no (sane) answer: unused until reset */
	struct work_struct rold_work;
	struct virtio_rdma_cq_uring *ucur;
	struct virtio_rdma_zombie zombie;
};

/*
 * The ring a resize gives a CQ: it lives while the CQ writes to it, a
 * process maps it, or (RESIZE_CQ without an answer) until the device is
 * reset; each holds a reference.
 */
struct virtio_rdma_cq_uring {
	struct kref ref;
	struct virtio_rdma_dev *dev;
	struct virtio_rdma_ring_mem mem;
	u32 size;			/* entries, a power of two */
	struct virtio_rdma_mmap map;	/* a process's CQ: its mapping */
	struct virtio_rdma_zombie zombie;
};

/*
 * A send, receive or SRQ ring of a kernel object on rings
 * (virtio_rdma_qp_rings.c), under the lock of the queue it serves: its
 * entries, the driver's producer index, the device's consumer index last
 * read, and (receive ring) the completions polled.
 */
struct virtio_rdma_kring {
	struct virtio_rdma_ring_mem mem;	/* base NULL: no such ring */
	u32 size;			/* entries, a power of two */
	u8 log_stride;
	u32 prod;
	u32 cons;
	u32 polled;
};

/*
 * A ring area of a process's QP or SRQ (virtio_rdma_uqp_rings.c): vmalloc_user()
 * memory, registered as an MR of the object's PD, mapped whole by the process.
 */
struct virtio_rdma_uarea {
	void *mem;			/* NULL: none */
	size_t len;			/* page aligned */
	u32 mrn;
	u32 lkey;
};

/*
 * A shared receive queue: the receive virtqueue of its number, posted by a
 * process or by the driver (kernel SRQ). Its WRs are used in the order
 * their messages complete, not in the order they were posted, so a slot is
 * free again once the used ring names it: a kernel SRQ takes the slots it
 * never posted first (fresh), then those the used ring gave back, in that
 * order (reclaimed: used entries taken so far).
 */
struct virtio_rdma_srq_res {
	struct kref ref;
	struct virtio_rdma_dev *dev;
	u32 srqn;
	bool kernel;			/* posted by the driver, not mapped */
	struct ib_srq *ibsrq;		/* under dev->qp_lock; NULL once destroyed */
	struct virtio_rdma_pd_res *pd;
	struct virtio_rdma_uq rq;
	u32 max_wr;
	u32 max_sge;
	u32 fresh;			/* kernel SRQ: slots fresh..num-1 never posted */
	u16 reclaimed;			/* kernel SRQ: used entries whose slot was taken */
	spinlock_t limit_lock;		/* limit and the SRQ queue's notifications */
	u32 limit;			/* armed srq_limit; 0: not armed */
	struct delayed_work wrap_work;	/* armed near used->idx 0 (vq.c) */
	/* A kernel SRQ on rings: rec non-NULL, ring under rq.k.lock. */
	struct virtio_rdma_srq_rec *rec;
	struct virtio_rdma_kring ring;
	/* A process's SRQ on rings: urec non-NULL, at the end of uarea. */
	struct virtio_rdma_srq_rec *urec;
	struct virtio_rdma_uarea uarea;
	struct virtio_rdma_zombie zombie;
};

struct virtio_rdma_qp_res {
	struct kref ref;
	struct virtio_rdma_dev *dev;
	u32 qpn;
	u8 qp_type;			/* VIRTIO_IB_QPT_* */
	bool sq_sig_all;
	bool kernel;			/* posted by the driver, not mapped */
	struct ib_qp *ibqp;		/* while in dev->qps[]: ib_wc.qp, events */
	bool fatal_reported;		/* IB_EVENT_QP_FATAL dispatched */
	struct virtio_rdma_pd_res *pd;
	struct virtio_rdma_cq_res *scq;
	struct virtio_rdma_cq_res *rcq;
	struct virtio_rdma_srq_res *srq;	/* receives from it; rq unused */
	struct virtio_rdma_uq sq;
	struct virtio_rdma_uq rq;
	/*
	 * A kernel QP on rings (virtio_rdma_qp_rings.c): rec non-NULL; the
	 * rings under sq.k.lock and rq.k.lock, which hold the limits.
	 */
	struct virtio_rdma_qp_rec *rec;
	struct virtio_rdma_kring rsq;
	struct virtio_rdma_kring rrq;	/* base NULL on an SRQ */
	u16 dbq;
	/*
	 * A process's QP on rings: urec non-NULL, in uarea[1] after the
	 * receive entries; uarea[0] the send entries.
	 */
	struct virtio_rdma_qp_rec *urec;
	struct virtio_rdma_uarea uarea[2];
	struct virtio_rdma_zombie zombie;
};

/* The verbs objects: ib_core allocates and frees them (INIT_RDMA_OBJ_SIZE). */
struct virtio_rdma_pd {
	struct ib_pd ibpd;
	struct virtio_rdma_pd_res *res;
};

struct virtio_rdma_cq {
	struct ib_cq ibcq;
	struct virtio_rdma_cq_res *res;
};

struct virtio_rdma_qp {
	struct ib_qp ibqp;
	struct virtio_rdma_qp_res *res;
};

struct virtio_rdma_srq {
	struct ib_srq ibsrq;
	struct virtio_rdma_srq_res *res;
};

struct virtio_rdma_ah {
	struct ib_ah ibah;
	u32 ahn;
};

struct virtio_rdma_ucontext {
	struct ib_ucontext ibuc;
};

struct virtio_rdma_mr {
	struct ib_mr ibmr;
	struct virtio_rdma_dev *dev;
	struct ib_umem *umem;		/* user MR; NULL for the others */
	u32 mrn;
	/*
	 * Fast registration MR: the page list a REG_MR WR names (le64
	 * driver addresses, one per page of mr->page_size), filled by
	 * map_mr_sg, guest-physical at pages_pa.
	 */
	__le64 *pages;
	phys_addr_t pages_pa;
	u32 npages;
	u32 max_pages;
	struct virtio_rdma_zombie zombie;
};

struct virtio_rdma_mw {
	struct ib_mw ibmw;
	struct virtio_rdma_dev *dev;
	u32 mwn;
};

static inline struct virtio_rdma_pd *to_vpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct virtio_rdma_pd, ibpd);
}

static inline struct virtio_rdma_cq *to_vcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct virtio_rdma_cq, ibcq);
}

static inline struct virtio_rdma_qp *to_vqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct virtio_rdma_qp, ibqp);
}

static inline struct virtio_rdma_srq *to_vsrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct virtio_rdma_srq, ibsrq);
}

static inline struct virtio_rdma_ah *to_vah(struct ib_ah *ibah)
{
	return container_of(ibah, struct virtio_rdma_ah, ibah);
}

static inline struct virtio_rdma_mw *to_vmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct virtio_rdma_mw, ibmw);
}

static inline struct virtio_rdma_mr *to_vmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct virtio_rdma_mr, ibmr);
}

/* Whether the device reports capability @cap (VIRTIO_IB_DEVICE_*). */
static inline bool virtio_rdma_has_cap(const struct virtio_rdma_dev *dev,
				       u64 cap)
{
	return dev->caps & cap;
}

/* The RDMA virtqueue of CQ @cqn, of the send and receive queues of QP @qpn. */
static inline u32 virtio_rdma_cq_vq(struct virtio_rdma_dev *dev, u32 cqn)
{
	return virtio_net_roce_cq_vq(VIRTIO_RDMA_N_PAIRS, cqn);
}

static inline u32 virtio_rdma_sq_vq(struct virtio_rdma_dev *dev, u32 qpn)
{
	return virtio_net_roce_sq_vq(VIRTIO_RDMA_N_PAIRS, dev->max_rdma_cqs,
				     qpn);
}

static inline u32 virtio_rdma_rq_vq(struct virtio_rdma_dev *dev, u32 qpn)
{
	return virtio_net_roce_rq_vq(VIRTIO_RDMA_N_PAIRS, dev->max_rdma_cqs,
				     qpn);
}

/* virtio_rdma_ctrl.c */
int virtio_rdma_ctrl_init(struct virtio_rdma_dev *dev);
void virtio_rdma_ctrl_detach(struct virtio_rdma_dev *dev);
void virtio_rdma_ctrl_free(struct virtio_rdma_dev *dev);
void virtio_rdma_ctrl_done(struct virtqueue *vq);
int virtio_rdma_ctrl_cmd(struct virtio_rdma_dev *dev, u8 class, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len);
int virtio_rdma_roce_cmd(struct virtio_rdma_dev *dev, u8 cmd,
			 const void *data, size_t len, void *ack,
			 size_t ack_len);
int virtio_rdma_roce_cmd_sg(struct virtio_rdma_dev *dev, u8 cmd,
			    const void *data, size_t len,
			    struct scatterlist *extra, void *ack,
			    size_t ack_len);
int virtio_rdma_roce_cmd_atomic(struct virtio_rdma_dev *dev, u8 cmd,
				const void *data, size_t len, void *ack,
				size_t ack_len);

/* virtio_rdma_netdev.c */
struct net_device *virtio_rdma_netdev_alloc(struct virtio_rdma_dev *dev);
int virtio_rdma_netdev_register(struct virtio_rdma_dev *dev);
void virtio_rdma_netdev_unregister(struct virtio_rdma_dev *dev);
void virtio_rdma_netdev_free_bufs(struct virtio_rdma_dev *dev);
void virtio_rdma_rx_done(struct virtqueue *vq);
void virtio_rdma_tx_done(struct virtqueue *vq);

/* virtio_rdma_ib.c */
int virtio_rdma_dev_attr_init(struct virtio_rdma_dev *dev);
int virtio_rdma_ib_register(struct virtio_rdma_dev *dev);
void virtio_rdma_ib_unregister(struct virtio_rdma_dev *dev);

/* virtio_rdma_rings.c, virtio_rdma_eq.c */
u32 virtio_rdma_rings_plan(struct virtio_rdma_dev *dev);
int virtio_rdma_rings_init(struct virtio_rdma_dev *dev);
void virtio_rdma_rings_free(struct virtio_rdma_dev *dev);
void virtio_rdma_doorbell_ring(struct virtio_rdma_dev *dev, u16 dbq, u32 qpn);
int virtio_rdma_eqs_init(struct virtio_rdma_dev *dev);
void virtio_rdma_eqs_free(struct virtio_rdma_dev *dev);
void virtio_rdma_eq_done(struct virtqueue *vq);

/* virtio_rdma_cq_rings.c: entries of 64 bytes, struct virtio_rdma_cq_req 48 */
#define VIRTIO_RDMA_CQ_LOG_STRIDE	6

u32 virtio_rdma_cq_rings_max_cqe(struct virtio_rdma_dev *dev);
int virtio_rdma_cq_rings_create(struct virtio_rdma_dev *dev,
				struct virtio_rdma_cq_res *cq, u32 cqe);
void virtio_rdma_cq_rings_free(struct virtio_rdma_cq_res *cq);
int virtio_rdma_cq_rings_poll(struct virtio_rdma_cq_res *cq, int ne,
			      struct ib_wc *wc);
bool virtio_rdma_cq_rings_pending(struct virtio_rdma_cq_res *cq);
int virtio_rdma_cq_rings_arm(struct virtio_rdma_cq_res *cq,
			     enum ib_cq_notify_flags f);
int virtio_rdma_cq_rings_resize_check(struct virtio_rdma_cq_res *cq, u32 cqe);
struct virtio_rdma_cq_uring *virtio_rdma_cq_uring_alloc(struct virtio_rdma_dev *dev,
							u32 cqe);
void virtio_rdma_cq_uring_release(struct kref *ref);
void virtio_rdma_cq_uring_put(struct virtio_rdma_cq_uring *u);
void virtio_rdma_cq_uring_lost(struct virtio_rdma_cq_res *cq,
			       struct virtio_rdma_cq_uring *u, int ret);
int virtio_rdma_cq_rings_resize_cmd(struct virtio_rdma_cq_res *cq, u32 cqe,
				    struct virtio_rdma_cq_uring *u,
				    u32 *switch_prod);
int virtio_rdma_cq_rings_resize(struct virtio_rdma_cq_res *cq, u32 cqe);

/*
 * A ring's entries (spec "Rings and Records"): a request and its s/g list
 * at a power-of-two stride of 64 to 4096 bytes, so that none crosses a
 * page.
 */
#define VIRTIO_RDMA_RING_MAX_LOG_STRIDE	12
#define VIRTIO_RDMA_SQ_ENTRY(sge)	(sizeof(struct virtio_rdma_sq_req) + \
					 (size_t)(sge) * sizeof(struct virtio_rdma_sge))
#define VIRTIO_RDMA_RQ_ENTRY(sge)	(sizeof(struct virtio_rdma_rq_req) + \
					 (size_t)(sge) * sizeof(struct virtio_rdma_sge))

static inline u8 virtio_rdma_ring_log_stride(size_t entry)
{
	return max_t(u8, 6, order_base_2(entry));
}

/* virtio_rdma_ring_mr.c */
size_t virtio_rdma_ring_mem_max(void);
int virtio_rdma_ring_mr_alloc(struct virtio_rdma_dev *dev, size_t len,
			      u32 pdn, void **mem, u32 *mrn, u32 *lkey);
void virtio_rdma_ring_mr_free(struct virtio_rdma_dev *dev, void *mem, u32 mrn);
int virtio_rdma_ring_mem_alloc(struct virtio_rdma_dev *dev,
			       struct virtio_rdma_ring_mem *m, size_t len,
			       u32 pdn, u32 dma_lkey);
void virtio_rdma_ring_mem_free(struct virtio_rdma_dev *dev,
			       struct virtio_rdma_ring_mem *m);

/* virtio_rdma_ucq_rings.c */
int virtio_rdma_ucq_rings_publish(struct virtio_rdma_cq_res *cq,
				  struct ib_ucontext *uctx,
				  void (*release)(struct kref *ref),
				  struct virtio_rdma_create_cq_resp *resp);
int virtio_rdma_ucq_rings_resize(struct virtio_rdma_cq_res *cq, u32 cqe,
				 struct ib_udata *udata);
void virtio_rdma_ucq_rings_unpublish(struct virtio_rdma_cq_res *cq);
/* virtio_rdma_uqp_rings.c */
u32 virtio_rdma_uqp_rings_max_wr(struct virtio_rdma_dev *dev);
int virtio_rdma_urings_wanted(struct virtio_rdma_dev *dev,
			      struct ib_udata *udata, u32 flag);
int virtio_rdma_uqp_rings_create(struct virtio_rdma_dev *dev,
				 struct virtio_rdma_qp_res *qp,
				 const struct virtio_rdma_cmd_create_qp *cmd,
				 const struct ib_qp_cap *cap);
void virtio_rdma_uqp_rings_free(struct virtio_rdma_qp_res *qp);
int virtio_rdma_uqp_rings_publish(struct virtio_rdma_qp_res *qp,
				  struct ib_ucontext *uctx,
				  const struct ib_qp_cap *cap,
				  void (*release)(struct kref *ref),
				  struct virtio_rdma_create_qp_resp *resp);
int virtio_rdma_uqp_rings_doorbell(struct virtio_rdma_qp_res *qp, bool has_wr);
u32 virtio_rdma_usrq_rings_max_wr(struct virtio_rdma_dev *dev);
int virtio_rdma_usrq_rings_create(struct virtio_rdma_dev *dev,
				  struct virtio_rdma_srq_res *srq,
				  const struct ib_srq_attr *attr);
void virtio_rdma_usrq_rings_free(struct virtio_rdma_srq_res *srq);
int virtio_rdma_usrq_rings_publish(struct virtio_rdma_srq_res *srq,
				   struct ib_ucontext *uctx,
				   void (*release)(struct kref *ref),
				   struct virtio_rdma_create_srq_resp *resp);

/* The record of an SRQ on rings, a kernel consumer's or a process's. */
static inline struct virtio_rdma_srq_rec *
virtio_rdma_srq_rec(struct virtio_rdma_srq_res *srq)
{
	return srq->rec ? srq->rec : srq->urec;
}

/* virtio_rdma_qp_rings.c */
bool virtio_rdma_ring_number_ok(struct virtio_rdma_dev *dev, u32 n, bool gsi);
int virtio_rdma_ring_destroy_refused(struct virtio_rdma_dev *dev, u8 destroy,
				     const void *cmd, size_t len);
void virtio_rdma_srq_rings_cmd(const struct virtio_rdma_srq_res *srq,
			       const struct ib_srq_attr *attr,
			       struct virtio_rdma_cmd_create_srq_rings *c);
u32 virtio_rdma_rings_max_wr(struct virtio_rdma_dev *dev, u32 entry);
u32 virtio_rdma_qp_rings_max_wr(struct virtio_rdma_dev *dev);
u32 virtio_rdma_srq_rings_max_wr(struct virtio_rdma_dev *dev);
struct virtio_rdma_qp_res **virtio_rdma_qp_slot(struct virtio_rdma_dev *dev,
					       u32 qpn);
struct virtio_rdma_srq_res **virtio_rdma_srq_slot(struct virtio_rdma_dev *dev,
						 u32 srqn);
int virtio_rdma_qp_rings_create(struct virtio_rdma_dev *dev,
				struct virtio_rdma_qp_res *qp,
				const struct virtio_rdma_cmd_create_qp *cmd,
				const struct ib_qp_cap *cap, u32 lkey);
void virtio_rdma_qp_rings_free(struct virtio_rdma_qp_res *qp);
void virtio_rdma_qp_rings_kernel_init(struct virtio_rdma_qp_res *qp,
				      const struct ib_qp_cap *cap);
int virtio_rdma_qp_rings_post_send(struct virtio_rdma_qp_res *qp,
				   const struct ib_send_wr *wr,
				   const struct ib_send_wr **bad_wr);
int virtio_rdma_qp_rings_post_recv(struct virtio_rdma_qp_res *qp,
				   const struct ib_recv_wr *wr,
				   const struct ib_recv_wr **bad_wr);
const struct virtio_rdma_rq_req *
virtio_rdma_qp_rings_recv_polled(struct virtio_rdma_qp_res *qp);
void virtio_rdma_qp_rings_reset(struct virtio_rdma_qp_res *qp);
int virtio_rdma_srq_rings_create(struct virtio_rdma_dev *dev,
				 struct virtio_rdma_srq_res *srq,
				 const struct ib_srq_attr *attr, u32 lkey);
void virtio_rdma_srq_rings_free(struct virtio_rdma_srq_res *srq);
int virtio_rdma_srq_rings_post_recv(struct virtio_rdma_srq_res *srq,
				    const struct ib_recv_wr *wr,
				    const struct ib_recv_wr **bad_wr);
bool virtio_rdma_srq_rings_arm(struct virtio_rdma_srq_res *srq, u32 limit);
u32 virtio_rdma_srq_rings_limit(struct virtio_rdma_srq_res *srq);

/* virtio_rdma_vq.c */
int virtio_rdma_find_vqs(struct virtio_rdma_dev *dev);
void virtio_rdma_del_vqs(struct virtio_rdma_dev *dev);
void virtio_rdma_doorbells_init(struct virtio_rdma_dev *dev);
int virtio_rdma_uq_init(struct virtio_rdma_dev *dev,
			struct virtio_rdma_uq *u, u32 vq_index, u32 stride,
			bool writable);
void virtio_rdma_uq_reset(struct virtio_rdma_uq *u);
void virtio_rdma_uq_free(struct virtio_rdma_uq *u);
int virtio_rdma_uq_publish(struct virtio_rdma_dev *dev,
			   struct ib_ucontext *uctx, struct virtio_rdma_uq *u,
			   bool doorbell, struct kref *owner,
			   void (*release)(struct kref *ref),
			   struct virtio_rdma_uring *resp);
void virtio_rdma_uq_unpublish(struct virtio_rdma_uq *u);
int virtio_rdma_mmap_insert(struct ib_ucontext *uctx,
			    struct virtio_rdma_mmap *m,
			    enum virtio_rdma_mmap_kind kind, phys_addr_t addr,
			    size_t len, struct kref *owner,
			    void (*release)(struct kref *ref), u64 *offset);
int virtio_rdma_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void virtio_rdma_mmap_free(struct rdma_user_mmap_entry *entry);
void virtio_rdma_cq_done(struct virtqueue *vq);
void virtio_rdma_zombie_add(struct virtio_rdma_dev *dev,
			    struct virtio_rdma_zombie *z,
			    void (*free)(struct virtio_rdma_zombie *z));
void virtio_rdma_zombies_free(struct virtio_rdma_dev *dev);
bool virtio_rdma_create_lost(struct virtio_rdma_dev *dev, int ret,
			     const char *what, struct virtio_rdma_zombie *z,
			     void (*free)(struct virtio_rdma_zombie *z));

/*
 * A command the device may still execute (it did not answer): the memory
 * it names stays assigned until the device is reset.
 */
static inline bool virtio_rdma_cmd_lost(int ret)
{
	return ret == -ETIMEDOUT || ret == -EBUSY || ret == -EIO;
}

/* virtio_rdma_ib.c */
void virtio_rdma_pd_get(struct virtio_rdma_pd_res *pd);
void virtio_rdma_pd_put(struct virtio_rdma_pd_res *pd);
u32 virtio_rdma_access_flags(int ib_flags);
int virtio_rdma_wire_access(struct virtio_rdma_dev *dev, int access,
			    u32 *wire);
int virtio_rdma_ib_access_flags(u32 flags);

/* virtio_rdma_mr.c */
#define VIRTIO_RDMA_MR_LIST_SGS	16
int virtio_rdma_mr_list_sg(void *buf, size_t len, struct scatterlist *sgl);
struct ib_mr *virtio_rdma_get_dma_mr(struct ib_pd *ibpd, int access);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
struct ib_mr *virtio_rdma_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt_addr, int access,
				      struct ib_dmah *dmah,
				      struct ib_udata *udata);
#else
struct ib_mr *virtio_rdma_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt_addr, int access,
				      struct ib_udata *udata);
#endif
int virtio_rdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *virtio_rdma_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				   u32 max_num_sg);
int virtio_rdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset);

/* virtio_rdma_mw.c */
int virtio_rdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int virtio_rdma_dealloc_mw(struct ib_mw *ibmw);

/* virtio_rdma_cq.c */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
int virtio_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs);
#else
int virtio_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata);
#endif
int virtio_rdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int virtio_rdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags f);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
int virtio_rdma_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
			  struct ib_udata *udata);
#else
int virtio_rdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
#endif
void virtio_rdma_cq_put(struct virtio_rdma_cq_res *cq);
void virtio_rdma_cq_qps_fatal(struct virtio_rdma_cq_res *cq);

/* virtio_rdma_qp.c */
int virtio_rdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			  struct ib_udata *udata);
int virtio_rdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata);
int virtio_rdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init);
int virtio_rdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int virtio_rdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			  struct ib_udata *udata);
int virtio_rdma_destroy_ah(struct ib_ah *ibah, u32 flags);
int virtio_rdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int virtio_rdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* virtio_rdma_srq.c */
int virtio_rdma_create_srq(struct ib_srq *ibsrq,
			   struct ib_srq_init_attr *init,
			   struct ib_udata *udata);
int virtio_rdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int virtio_rdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int virtio_rdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void virtio_rdma_srq_put(struct virtio_rdma_srq_res *srq);
void virtio_rdma_srq_check_limit(struct virtio_rdma_srq_res *srq);
void virtio_rdma_rq_done(struct virtqueue *vq);

/* virtio_rdma_main.c */
bool virtio_rdma_needs_reset(struct virtio_rdma_dev *dev);

/* virtio_rdma_kverbs.c */
void virtio_rdma_kq_init(struct virtio_rdma_uq *u, u32 max_wr, u32 max_sge,
			 u32 max_inline);
bool virtio_rdma_kcq_pending(struct virtio_rdma_cq_res *cq);
void virtio_rdma_sg_list(struct virtio_rdma_sge *dst, const struct ib_sge *src,
			 int num_sge);
int virtio_rdma_build_send_req(const struct virtio_rdma_qp_res *qp,
			       const struct ib_send_wr *wr,
			       struct virtio_rdma_sq_req *req);
bool virtio_rdma_cqe_to_wc(struct virtio_rdma_dev *dev,
			   const struct virtio_rdma_cq_req *cqe,
			   struct ib_wc *wc);
void virtio_rdma_kqp_reset(struct virtio_rdma_qp_res *qp);
int virtio_rdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr);
int virtio_rdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
int virtio_rdma_post_srq_recv(struct ib_srq *ibsrq,
			      const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr);
int virtio_rdma_poll_cq(struct ib_cq *ibcq, int ne, struct ib_wc *wc);
void virtio_rdma_drain_sq(struct ib_qp *ibqp);
void virtio_rdma_drain_rq(struct ib_qp *ibqp);

/* virtio_rdma_port.c */
extern const struct attribute_group *virtio_rdma_port_groups[];
int virtio_rdma_port_init(struct virtio_rdma_dev *dev);
void virtio_rdma_config_work(struct work_struct *work);
bool virtio_rdma_link_up(struct virtio_rdma_dev *dev);
u64 virtio_rdma_port_speed(struct virtio_rdma_dev *dev);
void virtio_rdma_ib_speed(u64 speed, u16 *ib_speed, u8 *ib_width);
enum ib_mtu virtio_rdma_port_mtu(u16 link_mtu);

#endif /* VIRTIO_RDMA_H */
