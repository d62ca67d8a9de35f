/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA side of one device: its limits, its resource pools and its GID
 * table. Owned by the device, touched only by the control thread (with the
 * device lock held) while the device runs.
 *
 * Objects hold driver addresses, never host pointers into driver memory:
 * the frontend may remap its memory (SET_MEM_TABLE) at any time, so the
 * data path translates through the current memory table when it accesses.
 */
#ifndef VUR_RDMA_DEV_H
#define VUR_RDMA_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ticketlock.h>

#include <linux/virtio_net_roce.h>

#include "common/ratelimit.h"
#include "rdma/addr_policy.h"
#include "rdma/pool.h"
#include "rdma/quota.h"

/*
 * Largest user MR. Its page list travels in one control command, so this
 * bounds the command size too (2 MiB of page addresses for 1 GiB).
 */
#define VUR_MAX_MR_SIZE  (1ULL << 30)
#define VUR_MAX_MR_PAGES ((uint32_t)(VUR_MAX_MR_SIZE >> VIRTIO_NET_ROCE_PAGE_SHIFT) + 1)

/*
 * The most pages a REG_MR work request binds (max_fast_reg_page_list_len):
 * 2 MiB of 4 KiB pages, more than the kernel's storage ULPs ask for (NVMe
 * over Fabrics and iSER 256 + 1, NFS over RDMA up to 256). The device reads
 * that page list on the data path, into the thread's stack.
 */
#define VUR_MAX_FAST_REG_PAGES 512

/*
 * The access flags MRs and QPs take: RFC v2's, and REMOTE_ATOMIC
 * (VIRTIO_IB_DEVICE_ATOMIC); MW_BIND too when the device has memory
 * windows (max_mw, rdma/mw.c).
 */
#define VUR_RDMA_ACCESS_FLAGS (VIRTIO_IB_ACCESS_ALL | VIRTIO_IB_ACCESS_REMOTE_ATOMIC)

/* QUERY_DEVICE's vendor_id and vendor_part_id: virtio's PCI vendor, virtio-net's device ID. */
#define VUR_RDMA_VENDOR_ID      0x1af4
#define VUR_RDMA_VENDOR_PART_ID 0x1041

/* What QUERY_DEVICE and QUERY_PORT report, fixed for the device's lifetime. */
struct vur_rdma_limits {
	uint32_t max_qps;
	uint32_t max_cqs;
	uint32_t max_pd;
	uint32_t max_mr;
	uint32_t max_mw; /* 0: no memory windows (no VIRTIO_IB_DEVICE_MEM_WINDOW) */
	uint32_t max_ah;
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint32_t max_sge;
	uint32_t max_qp_rd_atom;
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
	uint64_t max_mr_size;
	uint32_t max_fast_reg_page_list_len; /* ALLOC_MR's max_num_sg */
	uint32_t max_srq;                    /* 0: no VIRTIO_IB_DEVICE_SRQ */
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
	uint32_t max_mcast_grp; /* 0: no VIRTIO_IB_DEVICE_MULTICAST */
	uint32_t max_mcast_qp_attach;
	uint32_t max_total_mcast_qp_attach;
	/* Rings in driver memory (rdma/rings.c); ring_queues 0: none, the rest 0 too */
	uint32_t ring_queues;  /* K: doorbell/event queue pairs after the QP pairs */
	uint32_t max_ring_qp;  /* QPs and SRQs on rings: numbers max_qps and on */
	uint32_t max_ring_cq;  /* CQs on rings: numbers max_cqs and on */
	uint32_t max_ring_wr;  /* entries of a send, receive or SRQ ring */
	uint32_t max_ring_cqe; /* entries of a CQ ring */
};

struct vur_rdma_cq;
struct vur_rdma_ring;
struct vur_rdma_qp;
struct vur_rdma_srq;

/*
 * What the transport does when the control commands bind, change and
 * unbind CQs and QPs (transport/transport.h). Called with the device lock
 * held, after the command's checks passed and its changes are applied; a
 * bind hook that fails undoes nothing but its own work, and the command
 * then fails.
 */
struct vur_rdma_hooks {
	int (*cq_bind)(void *arg, struct vur_rdma_cq *cq);
	void (*cq_unbind)(void *arg, struct vur_rdma_cq *cq);
	int (*qp_bind)(void *arg, struct vur_rdma_qp *qp);
	void (*qp_unbind)(void *arg, struct vur_rdma_qp *qp);
	/* MODIFY_QP applied; @old_state is the state before it. */
	void (*qp_modified)(void *arg, struct vur_rdma_qp *qp, uint8_t old_state);
	/* QUERY_QP's sq_draining (ROCE-DEV-QPS-9). */
	bool (*qp_sq_draining)(void *arg, const struct vur_rdma_qp *qp);
	/* An SRQ's receive virtqueue; unbind marks its WRs used (ROCE-DEV-SRQ-8). */
	int (*srq_bind)(void *arg, struct vur_rdma_srq *srq);
	void (*srq_unbind)(void *arg, struct vur_rdma_srq *srq);
	/* SETUP_RINGS gave doorbell summaries whose sleeping is 0: their threads set it again. */
	void (*doorbells_moved)(void *arg);
	/*
	 * RESIZE_CQ: CQ @cq on rings writes into @ring from the next CQE on,
	 * whose index goes to *@switch_prod; refused (nothing changed) when
	 * more than @cqe CQEs are not consumed or the CQ is in error.
	 */
	int (*cq_resize)(void *arg, struct vur_rdma_cq *cq, const struct vur_rdma_ring *ring,
			uint32_t cqe, uint32_t *switch_prod);
};

/*
 * What the RDMA layer asks of the transport below it. Callbacks run with
 * the device lock held and must not take it.
 */
struct vur_rdma_env {
	/* Size of virtqueue @vq if the driver has made it ready, else 0. */
	uint16_t (*vq_size)(void *arg, uint32_t vq);
	/* Whether [@gpa, @gpa + @len) lies within one region of driver memory. */
	bool (*mem_ok)(void *arg, uint64_t gpa, uint64_t len);
	/* Host address of [@gpa, @gpa + @len) in one region, or NULL (records written at create).
	 */
	void *(*hva)(void *arg, uint64_t gpa, uint64_t len);
	void *arg;
	uint32_t n_pairs;                   /* virtio-net queue pairs before the control queue */
	uint8_t port_mtu;                   /* enum virtio_ib_mtu: the port MTU */
	const struct vur_rdma_hooks *hooks; /* NULL: no transport (unit tests) */
	void *hooks_arg;
};

struct vur_rdma_pd {
	struct vur_pool_obj obj; /* refcnt: the MRs, SRQs, QPs and AHs of this PD */
};

/* An address vector as the device keeps it: the source GID captured (ROCE-DEV-AH-3). */
struct vur_rdma_av {
	uint8_t dgid[VIRTIO_NET_ROCE_GID_LEN];
	uint8_t sgid[VIRTIO_NET_ROCE_GID_LEN];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t dmac[6];
};

/* A key's low byte: its key byte, which a REG_MR chooses (mr.c). */
#define VUR_MR_KEY_BYTE_BITS 8
#define VUR_MR_KEY_BYTE_MASK 0xffu

/*
 * An MR. A DMA or user MR is fixed from its command to DEREG_MR. A
 * fast-registration MR (ALLOC_MR, @fast) changes on the data path: a
 * REG_MR work request gives it keys, range, access and pages and makes it
 * valid; LOCAL_INV and a SEND_WITH_INV's IETH make it invalid (IBTA 10.6:
 * "free"), which refuses every access. A data-path thread reads or changes
 * those fields with @lock held (vur_tp_lock: only with several threads);
 * the control thread, which sees the engine at rest, needs no lock.
 */
struct vur_rdma_mr {
	struct vur_pool_obj obj;
	uint32_t pdn;
	uint32_t access; /* enum virtio_ib_access_flags */
	uint32_t lkey;
	uint32_t rkey;
	bool dma;           /* GET_DMA_MR: all of driver memory, iova == driver address */
	bool fast;          /* ALLOC_MR: set up by REG_MR work requests (mr_fast.c) */
	bool valid;         /* accesses allowed: always, but for a fast MR not registered */
	uint8_t page_shift; /* of pages[]: 12 for a user MR, REG_MR's for a fast one */
	uint64_t iova;      /* user MR: first I/O virtual address */
	uint64_t length;
	uint32_t npages;
	uint32_t max_pages;    /* fast MR: max_num_sg, the room in pages[] */
	uint64_t *pages;       /* driver address of each page */
	uint32_t mw_bound;     /* MWs bound to it (mw.c): no DEREG_MR, no invalidation */
	uint32_t ring_refs;    /* rings, records and doorbell areas in it (rings.c): no DEREG_MR */
	rte_ticketlock_t lock; /* fast MR: the fields above; every MR: mw_bound */
};

/* A type 2 MW's QP that was destroyed: no QP number is this (24 bits). */
#define VUR_RDMA_MW_NO_QP UINT32_MAX

/*
 * A memory window (IBTA 10.6.7, mw.c): a key of the MR key space (its
 * index in the MW pool, above every MR index) that a BIND_MW work request
 * binds to a range of an MR with rights of its own. The binding changes on
 * the data path: a data-path thread reads or changes the fields below
 * @type with @lock held (vur_tp_lock), and takes the MR's lock under it
 * (lock order: QP, MW, MR). The control thread, which allocates and frees
 * MWs with the engine at rest, needs no lock.
 */
struct vur_rdma_mw {
	struct vur_pool_obj obj; /* index == mwn == the key index */
	uint32_t pdn;
	uint8_t type; /* VIRTIO_IB_MW_TYPE_* */
	bool bound;
	uint32_t rkey;
	uint32_t access; /* REMOTE_* */
	uint64_t addr;   /* the window, in the MR's addresses */
	uint64_t length;
	uint32_t mr_index; /* the MR it is bound to */
	uint32_t mr_lkey;  /* that MR's lkey, as at the bind */
	uint32_t qpn;      /* type 2: the QP it is bound to, or VUR_RDMA_MW_NO_QP */
	rte_ticketlock_t lock;
};

/*
 * A ring or record in driver memory as CREATE or SETUP_RINGS checked it
 * (rings.c): wholly inside its MR, aligned, with the access it needs, so
 * the data path only masks indices. The MR stays (ring_refs) while it lives.
 */
struct vur_rdma_ring {
	uint64_t addr; /* in the MR's addresses */
	uint32_t lkey;
	uint32_t pdn;       /* the MR's: the key is checked against it at each access */
	uint32_t mrn;       /* its MR, busy meanwhile */
	uint8_t log_size;   /* entries: 1 << log_size (a record: 0) */
	uint8_t log_stride; /* bytes of an entry (a record: 128) */
};

/* What an object on rings has instead of virtqueues. */
struct vur_rdma_rings {
	struct vur_rdma_ring ring[2]; /* QP: send, receive; CQ, SRQ: ring[0] */
	bool has_rq;                  /* a QP not on an SRQ */
	struct vur_rdma_ring rec;     /* its record (struct virtio_rdma_*_rec) */
	uint16_t q;                   /* QP: its doorbell queue; CQ, SRQ: its event queue */
};

struct vur_rdma_cq {
	struct vur_pool_obj obj;      /* refcnt: QPs that use it */
	struct vur_rdma_rings *rings; /* NULL: on a completion virtqueue */
	uint32_t cqe;
	uint32_t vq;          /* its completion virtqueue */
	uint16_t vq_size;     /* as the virtqueue was when bound (ROCE-DEV-LIFE-2) */
	uint32_t armed;       /* VIRTIO_IB_NOTIFY_* */
	bool error;           /* overrun: stays until destroyed (ROCE-DEV-OVR-5) */
	struct vur_tp_cq *tp; /* the transport's, while bound */
};

struct vur_rdma_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

/* Every attribute MODIFY_QP sets and QUERY_QP returns, in host order. */
struct vur_rdma_qp_attr {
	uint8_t state; /* enum virtio_ib_qp_state */
	uint8_t path_mtu;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t access_flags;
	uint32_t rate_limit;
	struct vur_rdma_av av;
};

struct vur_rdma_qp {
	struct vur_pool_obj obj;
	uint8_t type; /* VIRTIO_IB_QPT_* */
	bool sq_sig_all;
	uint32_t pdn;
	uint32_t send_cqn;
	uint32_t recv_cqn;
	struct vur_rdma_qp_cap cap;
	struct vur_rdma_qp_attr attr;
	uint32_t sq_vq, rq_vq;
	uint16_t sq_size, rq_size;    /* as bound; rq_size 0 on an SRQ */
	uint32_t srqn;                /* VIRTIO_RDMA_QP_F_SRQ: its SRQ (never 0 or 1), else 0 */
	struct vur_rdma_rings *rings; /* VIRTIO_RDMA_QP_F_RINGS, else NULL */
	struct vur_tp_qp *tp;         /* the transport's, while bound */
};

/*
 * A shared receive queue (srq.c): a number of the QP numbers, whose receive
 * virtqueue it binds; the QPs created on it take their receive WRs there.
 */
struct vur_rdma_srq {
	struct vur_pool_obj obj; /* index: its number; refcnt: the QPs on it */
	uint32_t pdn;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t vq;                  /* the receive virtqueue of its number */
	uint16_t vq_size;             /* as bound */
	struct vur_rdma_rings *rings; /* VIRTIO_RDMA_SRQ_F_RINGS, else NULL */
	struct vur_tp_srq *tp;        /* the transport's, while bound */
};

struct vur_rdma_ah {
	struct vur_pool_obj obj;
	uint32_t pdn;
	struct vur_rdma_av av;
};

/* A multicast group of UD QPs (mcast.c); a slot whose nqps is 0 is free. */
struct vur_rdma_mcast_grp {
	uint8_t gid[VIRTIO_NET_ROCE_GID_LEN];
	uint32_t nqps;
	uint32_t *qpns; /* max_mcast_qp_attach, made at the slot's first use */
};

struct vur_rdma_gid {
	bool valid;
	uint8_t raw[VIRTIO_NET_ROCE_GID_LEN];
};

/* Port speed as the port manager last computed it. */
struct vur_port_speed {
	uint64_t speed; /* 100 Mb/s units */
	uint32_t flags; /* VIRTIO_RDMA_PORT_SPEED_F_* */
	uint16_t active_members;
	uint16_t total_members;
};

struct vur_rdma_dev {
	const char *name; /* for logs: the device's socket path */
	struct vur_rdma_limits limits;
	struct vur_rdma_env env;
	struct vur_pool pds;
	struct vur_pool mrs;
	struct vur_pool mws; /* indices above the MRs': one key index space */
	struct vur_pool cqs; /* index == CQ number */
	struct vur_pool qps; /* index == QP number */
	struct vur_pool ahs;
	struct vur_pool srqs;   /* index == SRQ number, from the QP numbers */
	uint32_t *mr_last_rkey; /* per MR slot, so a new rkey differs (ROCE-DEV-MR-9) */
	uint32_t *mw_last_rkey; /* per MW slot, likewise */
	uint32_t mr_index_bits; /* low bits of a key: the MR's or MW's index */
	struct vur_rdma_gid *gids;
	struct vur_rdma_mcast_grp *mcast; /* max_mcast_grp slots */
	uint32_t mcast_attached;          /* QP attachments over all groups */
	struct vur_port_speed port;       /* written by the device under its lock */
	struct vur_ratelimit log_rl;      /* refusals are guest-caused */
	/* rings.c: SETUP_RINGS's doorbell summaries, and what takes ring numbers */
	bool doorbells_set;
	struct vur_rdma_ring doorbells; /* summary k at addr + k * doorbell_size */
	uint32_t doorbell_size;         /* virtio_rdma_doorbell_size() of the limits */
	uint32_t ring_qps;              /* live QPs on rings (SETUP_RINGS refused meanwhile) */
	uint32_t ring_qp_hint, ring_cq_hint;
	/* quota.h: the device's quota (NULL: none), what counts against it */
	struct vur_rdma_quota *quota;
	uint64_t pinned_bytes; /* pages of live user MRs */
	uint64_t qp_wrs;       /* max_send_wr + max_recv_wr of live QPs */
	/* addr_policy.h: the GIDs the administrator allows (NULL: any) */
	struct vur_addr_policy *policy;
};

/* Live objects of each kind, for management. */
struct vur_rdma_counts {
	uint32_t pds, mrs, mws, cqs, qps, ahs, gids, srqs, mcast_grps, mcast_attached;
};

void vur_rdma_limits_default(struct vur_rdma_limits *l, uint32_t max_qps, uint32_t max_cqs);
/*
 * K ring queue pairs (0: no rings), at most @max_ring_qp QPs and @max_ring_cq CQs on rings;
 * max_mr grows by one per such object. After vur_rdma_limits_default().
 */
void vur_rdma_limits_rings(
		struct vur_rdma_limits *l, uint32_t k, uint32_t max_ring_qp, uint32_t max_ring_cq);

/* The IB MTU of the port for an Ethernet MTU (96 bytes of RoCE v2 headers). */
uint8_t vur_rdma_port_mtu(uint32_t eth_mtu);

int vur_rdma_dev_init(struct vur_rdma_dev *rd, const char *name,
		const struct vur_rdma_limits *limits, const struct vur_rdma_env *env);

/* Free every resource: a frontend went away or the device is destroyed. */
void vur_rdma_dev_fini(struct vur_rdma_dev *rd);

/*
 * RESET_OBJECTS (ROCE-DEV-INIT-4): every object and GID freed, their
 * virtqueues unbound, the pools made anew with the same limits; the port
 * speed kept. Fails only when memory runs out; the device has no RDMA then.
 */
int vur_rdma_dev_reset(struct vur_rdma_dev *rd);

void vur_rdma_dev_counts(const struct vur_rdma_dev *rd, struct vur_rdma_counts *c);

#endif /* VUR_RDMA_DEV_H */
