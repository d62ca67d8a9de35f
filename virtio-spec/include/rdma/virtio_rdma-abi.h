/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The uverbs ABI between the guest kernel driver virtio_rdma.ko and its
 * rdma-core provider (libvirtio_rdma): the driver data ("udata") of the
 * create commands and the layout of what a process maps.
 *
 * This is not the device's wire format (that is <linux/virtio_net_roce.h>)
 * but the contract between two guest components; like the wire ABI it is
 * declared once, here, and both sides include it.
 *
 * The data path without a system call per work request
 * -----------------------------------------------------
 * Each CQ owns a completion virtqueue, each QP a send and a receive
 * virtqueue (the spec's numbering: CQN c is virtqueue 2N+1+c, QPN q the
 * pair 2N+1+M+2q, 2N+2+M+2q). A process drives them itself through three
 * mappings per virtqueue, described by struct virtio_rdma_uring:
 *
 * - the ring: the virtqueue's available ring (at offset 0) and used ring
 *   (at used_off), read-write. The descriptor table is NOT mapped. The kernel fills it once when it
 *   creates the object: descriptor i is a single descriptor (no NEXT, no
 *   INDIRECT) for slot i of the buffer area, stride bytes long, device-
 *   readable for a send or receive queue, device-writable for a completion
 *   queue. A process therefore chooses only which of its own slots the
 *   device takes next; it can never make the device read or write memory
 *   other than its slots, and the addresses inside a request (s/g lists,
 *   remote addresses) are checked by the device against the keys of the
 *   QP's protection domain.
 * - the slots: num buffers of stride bytes, a struct virtio_rdma_sq_req,
 *   virtio_rdma_rq_req or virtio_rdma_cq_req each (read-write).
 * - the doorbell (send and receive queues only): the virtio-pci notify
 *   page of this virtqueue, which needs the device to give each virtqueue a
 *   page of its own (QEMU's page-per-vq). Writing vq_index there, as a
 *   16-bit little-endian value at notify_off, is the available buffer
 *   notification (VIRTIO_RDMA_URING_DOORBELL says notify_mmap is valid:
 *   0 is a valid mmap offset). Without page-per-vq the driver refuses user
 *   QPs.
 *
 * Indices, as the provider keeps them (all modulo 2^16, as virtio's):
 * - Send and receive queue: the n-th WR posted since the QP was created
 *   uses slot n % num; avail->ring[n % num] = n % num, then avail->idx =
 *   n + 1. The device makes them used in the order they were made
 *   available, so a slot is free again once used->idx has passed it. At
 *   most num WRs are outstanding (the QP's capacities never exceed it).
 *   The doorbell is rung as virtio says: with VIRTIO_RDMA_URING_EVENT_IDX
 *   when vring_need_event(avail_event, new_idx, old_idx); without it
 *   unless used->flags has VRING_USED_F_NO_NOTIFY. Completions come from
 *   the CQ, so nobody wants a used buffer notification of these queues:
 *   the kernel sets avail->flags VRING_AVAIL_F_NO_INTERRUPT and used_event
 *   0xffff at create (one notification per 2^16 WRs at most with
 *   EVENT_IDX), and the provider writes neither.
 * - Completion queue: the kernel makes every slot available before
 *   returning (avail->ring[i] = i, avail->idx = num). A CQE is the slot
 *   named by the id of the next used element; once the provider has read
 *   it, it makes the slot available again (avail->ring[avail->idx % num]
 *   = id, then avail->idx + 1). No doorbell: the device looks for a free
 *   buffer when it has a CQE to write. Completion interrupts are asked for
 *   with ibv_req_notify_cq() (VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ) and
 *   arrive on the uverbs completion channel.
 *
 * - Shared receive queue: the receive virtqueue of the SRQ's number, mapped
 *   as a receive queue's (struct virtio_rdma_create_srq_resp). The device
 *   uses an SRQ's WRs in the order their messages complete, not in the
 *   order they were posted, so a slot is free again once the used ring
 *   names it: the provider fills the slots it never posted first, then
 *   each slot the next used element gives back (used->ring[k % num].id for
 *   k = 0, 1, ...), and makes that slot available at
 *   avail->ring[avail->idx % num]. At most max_wr WRs are outstanding
 *   (avail->idx - used->idx). The kernel owns avail->flags and used_event
 *   of the SRQ's ring: it arms the SRQ limit there (ibv_modify_srq) and
 *   raises IBV_EVENT_SRQ_LIMIT_REACHED; the provider writes neither. A QP
 *   created on an SRQ has no receive queue: its create_qp response's rq is
 *   all zero.
 *
 * - Completion queue on rings (the device's "Rings in Driver Memory",
 *   with the driver's module parameter layout=rings): a provider that can
 *   drive one says so in its create_cq driver data
 *   (VIRTIO_RDMA_CREATE_CQ_RINGS); a kernel on rings then answers with
 *   VIRTIO_RDMA_CQ_RESP_RINGS in flags, cq all zero and ring set, and
 *   max_cqe is the ring's limit (a provider without the flag still gets a
 *   virtqueue CQ, and EINVAL beyond the virtqueue's size). The kernel
 *   allocates the ring and its record, and the device reaches them through
 *   the driver's own MR only: the process maps them (rec_mmap: one page,
 *   struct virtio_rdma_cq_rec at offset 0; ring_mmap: size entries of
 *   stride bytes, a struct virtio_rdma_cq_req at the start of each) but
 *   can never name other memory to the device. CQE n (n counted from 0
 *   since create) is entry n % size; it is there once the record's prod
 *   has passed n (read prod, then a read barrier, then the entry). Once
 *   read, the provider writes cons = n + 1 (after a full barrier), so that
 *   the device may reuse the entry. Arming is the provider's own
 *   (spec ROCE-DRV-RING-4): notify = VIRTIO_IB_NOTIFY_*, a full barrier,
 *   prod read again; the event comes on the uverbs completion channel.
 *   The kernel never reads such a ring: a process that lies in its record
 *   (cons, notify) breaks only its own CQ (overwritten or overrun entries,
 *   or events it did not want).
 *   ibv_resize_cq() moves such a CQ to a new ring (the device's
 *   RESIZE_CQ, ROCE-DRV-RING-8..10): the provider says it can follow with
 *   VIRTIO_RDMA_RESIZE_CQ_RINGS in its resize_cq driver data, having
 *   written cons for every CQE it read and holding its CQ's lock (no poll
 *   while the command runs); the kernel allocates the new ring, sends the
 *   command and answers with VIRTIO_RDMA_RESIZE_CQ_RESP_RINGS, switch_prod
 *   and the new ring (rec_mmap and rec_len 0: the record stays). CQE n is
 *   entry n % old size of the old ring while n is before switch_prod, entry
 *   n % size of the new ring after; prod and cons keep counting. The
 *   provider unmaps the old ring once cons has reached switch_prod; the
 *   device never touches it after the answer. Without the flag (an older
 *   provider: it has no resize_cq op, so only a program issuing the
 *   command itself) resizing a ring CQ fails with EOPNOTSUPP. A virtqueue
 *   CQ keeps every slot available: its depth is the virtqueue's size
 *   whatever cqe asks, so a resize within that size succeeds and changes
 *   nothing (EINVAL beyond), with or without driver data, and answers no
 *   flags.
 *
 * - Queue pair on rings (layout=rings): a provider that can drive one says
 *   so in its create_qp driver data (VIRTIO_RDMA_CREATE_QP_RINGS); a
 *   kernel on rings then answers with VIRTIO_RDMA_QP_RESP_RINGS, sq and rq
 *   all zero and rsq, rrq and rec set (an older kernel reads no driver
 *   data and answers with virtqueues; a provider without the flag still
 *   gets them). A QP on a virtqueue SRQ stays on virtqueues. The kernel
 *   allocates the rings and the record (struct virtio_rdma_qp_rec) in
 *   vmalloc memory registered as an MR of the QP's PD whose key no
 *   process gets, so the device sees only memory the kernel chose; the
 *   process maps each area once (rsq, rrq and rec may name the same
 *   one). WR n (counted from 0 since create or the last RESET) is entry
 *   n % size, the same request a virtqueue slot holds; the provider writes
 *   it, a write barrier, then sq_prod (rq_prod) = n + 1, and may reuse an
 *   entry once sq_cons (rq_cons) has passed it. The doorbell
 *   (ROCE-DRV-RING-3, -7): a full barrier, then if (new - sq_event - 1) <
 *   (new - old), or for receives if rq_notify is not zero, the provider
 *   asks the kernel to ring with the uverbs POST_SEND (POST_RECV) command
 *   of no WR; the kernel refuses WRs for such a QP (EINVAL). The doorbell
 *   summary itself is never mapped: one word holds 64 QPs' bits, and a
 *   process's plain store could erase other processes' doorbells. After
 *   a modify to RESET the provider writes sq_prod and rq_prod 0 and counts
 *   from 0 again (ROCE-DRV-RING-5). A process that lies in its record
 *   breaks only its own QP (ROCE-DEV-RING-10).
 * - Shared receive queue on rings: likewise VIRTIO_RDMA_CREATE_SRQ_RINGS
 *   and VIRTIO_RDMA_SRQ_RESP_RINGS (ring, rec: struct
 *   virtio_rdma_srq_rec, in one area). WR n is entry n % size; prod = n + 1
 *   after a write barrier; an entry is reused once cons has passed it (the
 *   device takes an SRQ's WRs in order and moves cons after each WR's
 *   CQE). No doorbell: the device takes WRs as messages come. The limit
 *   stays the kernel's (ibv_modify_srq): the provider never writes limit.
 *   QPs on such an SRQ are on rings too.
 *
 * Lifetime: the device object lives until the verbs object is destroyed
 * and the last mapping of its rings is gone. A QP destroyed while still
 * mapped is moved to RESET (the device then ignores its queues) and
 * destroyed with its last mapping; so a process that keeps a mapping
 * cannot touch a queue that another process's object uses later.
 */
#ifndef __VIRTIO_RDMA_ABI_H__
#define __VIRTIO_RDMA_ABI_H__

#include <linux/types.h>

/* ib_device.uverbs_abi_ver; the provider refuses any other. */
#define VIRTIO_RDMA_UVERBS_ABI_VERSION 2

/* struct virtio_rdma_uring.flags */
#define VIRTIO_RDMA_URING_EVENT_IDX (1 << 0) /* VIRTIO_RING_F_EVENT_IDX */
#define VIRTIO_RDMA_URING_DOORBELL  (1 << 1) /* notify_mmap is a doorbell page */

struct virtio_rdma_uring {
	__aligned_u64 ring_mmap;   /* mmap offset of the avail and used rings */
	__aligned_u64 buf_mmap;    /* mmap offset of the slots */
	__aligned_u64 notify_mmap; /* mmap offset of the notify page (DOORBELL) */
	__u32 ring_len;		   /* bytes to map at ring_mmap */
	__u32 buf_len;		   /* bytes to map at buf_mmap */
	__u32 used_off;		   /* struct vring_used in the ring mapping */
	__u32 notify_off;	   /* the doorbell's offset in the notify page */
	__u32 stride;		   /* bytes per slot */
	__u16 num;		   /* virtqueue size: slots and ring entries */
	__u16 vq_index;		   /* the virtqueue's index, the doorbell value */
	__u32 flags;		   /* VIRTIO_RDMA_URING_* */
	__u32 reserved;
};

struct virtio_rdma_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

/* struct virtio_rdma_create_cq_cmd.flags */
#define VIRTIO_RDMA_CREATE_CQ_RINGS (1 << 0) /* the provider drives CQ rings */

/* create_cq's driver data in; a kernel without it reads none of it. */
struct virtio_rdma_create_cq_cmd {
	__u32 flags;	/* VIRTIO_RDMA_CREATE_CQ_* */
	__u32 reserved;	/* 0 */
};

/* struct virtio_rdma_create_cq_resp.flags */
#define VIRTIO_RDMA_CQ_RESP_RINGS (1 << 0) /* ring describes the CQ, not cq */

/* A CQ ring and its record (struct virtio_rdma_cq_rec), both mapped. */
struct virtio_rdma_cq_ring {
	__aligned_u64 rec_mmap;	 /* mmap offset of the record's page */
	__aligned_u64 ring_mmap; /* mmap offset of the entries */
	__u32 rec_len;		 /* bytes to map at rec_mmap */
	__u32 ring_len;		 /* bytes to map at ring_mmap */
	__u32 size;		 /* entries, a power of two */
	__u32 stride;		 /* bytes per entry, a power of two >= 64 */
};

struct virtio_rdma_create_cq_resp {
	__u32 cqn;
	__u32 flags;			/* VIRTIO_RDMA_CQ_RESP_*; was reserved (0) */
	struct virtio_rdma_uring cq;	/* zero with VIRTIO_RDMA_CQ_RESP_RINGS */
	struct virtio_rdma_cq_ring ring; /* with VIRTIO_RDMA_CQ_RESP_RINGS */
};

/* struct virtio_rdma_resize_cq_cmd.flags */
#define VIRTIO_RDMA_RESIZE_CQ_RINGS (1 << 0) /* the provider follows a ring CQ */

/* resize_cq's driver data in; a kernel without resize reads none of it. */
struct virtio_rdma_resize_cq_cmd {
	__u32 flags;	/* VIRTIO_RDMA_RESIZE_CQ_* */
	__u32 reserved;	/* 0 */
};

/* struct virtio_rdma_resize_cq_resp.flags */
#define VIRTIO_RDMA_RESIZE_CQ_RESP_RINGS (1 << 0) /* switch_prod, ring valid */

struct virtio_rdma_resize_cq_resp {
	__u32 flags;			 /* VIRTIO_RDMA_RESIZE_CQ_RESP_* */
	__u32 switch_prod;		 /* the first CQE of the new ring */
	struct virtio_rdma_cq_ring ring; /* the new ring; rec_* 0 */
};

/* struct virtio_rdma_create_qp_cmd.flags */
#define VIRTIO_RDMA_CREATE_QP_RINGS (1 << 0) /* the provider drives QP rings */

/* create_qp's driver data in; a kernel without it reads none of it. */
struct virtio_rdma_create_qp_cmd {
	__u32 flags;	/* VIRTIO_RDMA_CREATE_QP_* */
	__u32 reserved;	/* 0 */
};

/* struct virtio_rdma_create_qp_resp.flags */
#define VIRTIO_RDMA_QP_RESP_RINGS (1 << 0) /* rsq, rrq describe the QP */

/*
 * A ring of a process's QP or SRQ on rings, or its record: where it lies
 * in an area the process maps whole. Several may share an area (the same
 * mmap offset): the provider then maps it once.
 */
struct virtio_rdma_wq_ring {
	__aligned_u64 mmap;	/* mmap offset of the area */
	__u32 len;		/* bytes to map at mmap */
	__u32 off;		/* the entries' (the record's) offset in it */
	__u32 size;		/* entries, a power of two; 0: none */
	__u32 stride;		/* bytes per entry, a power of two >= 64 */
};

struct virtio_rdma_create_qp_resp {
	__u32 qpn;
	__u32 flags;			/* VIRTIO_RDMA_QP_RESP_*; was reserved (0) */
	struct virtio_rdma_uring sq;	/* zero with VIRTIO_RDMA_QP_RESP_RINGS */
	struct virtio_rdma_uring rq;	/* likewise */
	struct virtio_rdma_wq_ring rsq;	/* with VIRTIO_RDMA_QP_RESP_RINGS */
	struct virtio_rdma_wq_ring rrq;	/* size 0 on an SRQ */
	struct virtio_rdma_wq_ring rec;	/* struct virtio_rdma_qp_rec, 128 bytes; size 0 */
};

/* struct virtio_rdma_create_srq_cmd.flags */
#define VIRTIO_RDMA_CREATE_SRQ_RINGS (1 << 0) /* the provider drives SRQ rings */

/* create_srq's driver data in; a kernel without it reads none of it. */
struct virtio_rdma_create_srq_cmd {
	__u32 flags;	/* VIRTIO_RDMA_CREATE_SRQ_* */
	__u32 reserved;	/* 0 */
};

/* struct virtio_rdma_create_srq_resp.flags */
#define VIRTIO_RDMA_SRQ_RESP_RINGS (1 << 0) /* ring, rec describe the SRQ */

struct virtio_rdma_create_srq_resp {
	__u32 srqn;
	__u32 flags;			/* VIRTIO_RDMA_SRQ_RESP_*; was reserved (0) */
	struct virtio_rdma_uring rq;	/* zero with VIRTIO_RDMA_SRQ_RESP_RINGS */
	struct virtio_rdma_wq_ring ring; /* with VIRTIO_RDMA_SRQ_RESP_RINGS */
	struct virtio_rdma_wq_ring rec;	/* struct virtio_rdma_srq_rec; size 0 */
};

/* The device's AH number, which a UD send request names (ud.ah). */
struct virtio_rdma_create_ah_resp {
	__u32 ahn;
	__u32 reserved;
};

#endif /* __VIRTIO_RDMA_ABI_H__ */
