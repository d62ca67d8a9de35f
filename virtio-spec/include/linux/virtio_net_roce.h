/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net RoCE extension: the wire ABI.
 *
 * This header is the single definition of every structure, constant and
 * virtqueue index of the virtio-net RoCE device (RFC v2 plus the aggregated
 * port-speed extension). The backend, the virtio-user driver, the guest
 * kernel module, the rdma-core provider and the QEMU patch all include it;
 * none of them redeclares a wire structure.
 *
 * All multi-byte fields are little-endian (virtio 1.x). Types come from
 * <linux/types.h> so that the header builds both in userspace and in the
 * kernel, where sparse checks the __le annotations.
 *
 * The normative text is virtio-spec/virtio-net-roce.tex; every size and
 * offset that text fixes is pinned by a _Static_assert below.
 */
#ifndef _LINUX_VIRTIO_NET_ROCE_H
#define _LINUX_VIRTIO_NET_ROCE_H

#include <linux/types.h>

/*
 * Numbering.
 *
 * RFC v2 used feature bit 55 and control class 6. In virtio-spec master
 * (checked 2026-11, commit 15f488c1) bit 55 is VIRTIO_NET_F_GUEST_USO6 and
 * class 6 is VIRTIO_NET_CTRL_NOTF_COAL. vhost-user (GET/SET_FEATURES) and
 * the virtio core of the guests we target carry 64 feature bits, so the
 * bits must lie below 64; in the device-specific ranges 0-23 and 50-63 the
 * only unassigned bits are 4 and 58. The class byte has room: classes 0-9
 * are assigned (9 is VIRTNET_RSS_CTX_CTRL) and taking the next sequential
 * one is how RFC v2 collided, so we take 64 and leave 10-63 to upstream.
 */
#define VIRTIO_NET_F_ROCE		58 /* RDMA over Converged Ethernet v2 */
#define VIRTIO_NET_F_ROCE_PORT_SPEED	4  /* aggregated port speed; needs ROCE */
#define VIRTIO_NET_CTRL_ROCE		64

/* RFC v2 numbering, offered by the backend only behind an option. */
#define VIRTIO_NET_F_ROCE_RFC2		55
#define VIRTIO_NET_CTRL_ROCE_RFC2	6

/* Control commands of class VIRTIO_NET_CTRL_ROCE (RFC v2, then ours). */
#define VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE	0
#define VIRTIO_NET_CTRL_ROCE_QUERY_PORT		1
#define VIRTIO_NET_CTRL_ROCE_CREATE_CQ		2
#define VIRTIO_NET_CTRL_ROCE_DESTROY_CQ		3
#define VIRTIO_NET_CTRL_ROCE_CREATE_PD		4
#define VIRTIO_NET_CTRL_ROCE_DESTROY_PD		5
#define VIRTIO_NET_CTRL_ROCE_GET_DMA_MR		6
#define VIRTIO_NET_CTRL_ROCE_REG_USER_MR	7
#define VIRTIO_NET_CTRL_ROCE_DEREG_MR		8
#define VIRTIO_NET_CTRL_ROCE_CREATE_QP		9
#define VIRTIO_NET_CTRL_ROCE_MODIFY_QP		10
#define VIRTIO_NET_CTRL_ROCE_QUERY_QP		11
#define VIRTIO_NET_CTRL_ROCE_DESTROY_QP		12
#define VIRTIO_NET_CTRL_ROCE_CREATE_AH		13
#define VIRTIO_NET_CTRL_ROCE_DESTROY_AH		14
#define VIRTIO_NET_CTRL_ROCE_ADD_GID		15
#define VIRTIO_NET_CTRL_ROCE_DEL_GID		16
#define VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ	17
#define VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED	18 /* VIRTIO_NET_F_ROCE_PORT_SPEED */
#define VIRTIO_NET_CTRL_ROCE_ALLOC_MR		19 /* VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS */
#define VIRTIO_NET_CTRL_ROCE_CREATE_SRQ		20 /* VIRTIO_IB_DEVICE_SRQ */
#define VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ	21 /* VIRTIO_IB_DEVICE_SRQ */
#define VIRTIO_NET_CTRL_ROCE_ALLOC_MW		22 /* VIRTIO_IB_DEVICE_MEM_WINDOW */
#define VIRTIO_NET_CTRL_ROCE_DEALLOC_MW		23 /* VIRTIO_IB_DEVICE_MEM_WINDOW */
#define VIRTIO_NET_CTRL_ROCE_ATTACH_MCAST	24 /* VIRTIO_IB_DEVICE_MULTICAST */
#define VIRTIO_NET_CTRL_ROCE_DETACH_MCAST	25 /* VIRTIO_IB_DEVICE_MULTICAST */
#define VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS	26 /* every RDMA object destroyed */
#define VIRTIO_NET_CTRL_ROCE_SETUP_RINGS	27 /* VIRTIO_IB_DEVICE_RINGS */
#define VIRTIO_NET_CTRL_ROCE_RESIZE_CQ		28 /* VIRTIO_IB_DEVICE_RESIZE_CQ */
#define VIRTIO_NET_CTRL_ROCE_NR_CMDS		29

/* Limits the spec text fixes. */
#define VIRTIO_NET_ROCE_MAX_QPS		16384
#define VIRTIO_NET_ROCE_MIN_QPS		3  /* QPN 0 reserved, 1 the GSI QP, one more */
#define VIRTIO_NET_ROCE_MAX_CQS		16384
#define VIRTIO_NET_ROCE_PAGE_SHIFT	12 /* REG_USER_MR pages[] are 4 KiB */
#define VIRTIO_NET_ROCE_PAGE_SIZE	(1u << VIRTIO_NET_ROCE_PAGE_SHIFT)
#define VIRTIO_NET_ROCE_MAX_INLINE	512
#define VIRTIO_NET_ROCE_GID_LEN		16
#define VIRTIO_NET_ROCE_PORT_NUM	1  /* the one RoCE port */
#define VIRTIO_NET_ROCE_GSI_QKEY	0x80010000u /* Q_Key of QP1 (IBTA 13.5.1.1) */
#define VIRTIO_NET_ROCE_SPEED_UNIT_MBPS	100 /* roce_port_speed unit */

/*
 * Device configuration: virtio-net's layout as in virtio-spec master, then
 * the RoCE fields. The offsets do not depend on the negotiated features.
 */
struct virtio_net_roce_config {
	__u8 mac[6];
	__le16 status;
	__le16 max_virtqueue_pairs;
	__le16 mtu;
	__le32 speed;			/* Mb/s, VIRTIO_NET_F_SPEED_DUPLEX */
	__u8 duplex;
	__u8 rss_max_key_size;
	__le16 rss_max_indirection_table_length;
	__le32 supported_hash_types;
	__le32 supported_tunnel_types;
	__le32 max_rdma_qps;		/* VIRTIO_NET_F_ROCE */
	__le32 max_rdma_cqs;		/* VIRTIO_NET_F_ROCE */
	__le16 rdma_ring_queues;	/* K: doorbell/event queue pairs; 0: no rings */
	__le16 reserved;		/* zero */
	__le64 roce_port_speed;		/* 100 Mb/s, VIRTIO_NET_F_ROCE_PORT_SPEED */
};

/* The same fields placed as RFC v2 placed them (before supported_tunnel_types existed). */
struct virtio_net_roce_config_rfc2 {
	__u8 mac[6];
	__le16 status;
	__le16 max_virtqueue_pairs;
	__le16 mtu;
	__le32 speed;
	__u8 duplex;
	__u8 rss_max_key_size;
	__le16 rss_max_indirection_table_length;
	__le32 supported_hash_types;
	__le32 max_rdma_qps;
	__le32 max_rdma_cqs;
	__le64 roce_port_speed;
};

/*
 * Virtqueue layout. N receive/transmit pairs (1 unless VIRTIO_NET_F_MQ or
 * VIRTIO_NET_F_RSS is negotiated, then max_virtqueue_pairs), the control
 * queue, M = max_rdma_cqs completion queues, then L = max_rdma_qps
 * send/receive pairs. CQ number c uses rdma_completeq(c+1); QP number q uses
 * rdma_transmitq(q+1) and rdma_receiveq(q+1).
 */
static inline __u32 virtio_net_roce_ctrl_vq(__u32 n_pairs)
{
	return 2 * n_pairs;
}

static inline __u32 virtio_net_roce_cq_vq(__u32 n_pairs, __u32 cqn)
{
	return 2 * n_pairs + 1 + cqn;
}

static inline __u32 virtio_net_roce_sq_vq(__u32 n_pairs, __u32 max_cqs, __u32 qpn)
{
	return 2 * n_pairs + 1 + max_cqs + 2 * qpn;
}

static inline __u32 virtio_net_roce_rq_vq(__u32 n_pairs, __u32 max_cqs, __u32 qpn)
{
	return virtio_net_roce_sq_vq(n_pairs, max_cqs, qpn) + 1;
}

static inline __u32 virtio_net_roce_num_vqs(__u32 n_pairs, __u32 max_cqs, __u32 max_qps)
{
	return 2 * n_pairs + 1 + max_cqs + 2 * max_qps;
}

/*
 * With rdma_ring_queues K > 0, K doorbell/event pairs follow the QP pairs:
 * rdma_doorbellq(k+1), which carries no buffers (a notification of it says
 * "doorbell summary k changed"), then rdma_eventq(k+1), whose device-writable
 * buffers receive struct virtio_rdma_event. A driver that does not use rings
 * need not set them up.
 */
static inline __u32 virtio_net_roce_dbq_vq(__u32 n_pairs, __u32 max_cqs, __u32 max_qps,
					   __u32 k)
{
	return virtio_net_roce_num_vqs(n_pairs, max_cqs, max_qps) + 2 * k;
}

static inline __u32 virtio_net_roce_eq_vq(__u32 n_pairs, __u32 max_cqs, __u32 max_qps,
					  __u32 k)
{
	return virtio_net_roce_dbq_vq(n_pairs, max_cqs, max_qps, k) + 1;
}

static inline __u32 virtio_net_roce_num_vqs_rings(__u32 n_pairs, __u32 max_cqs,
						  __u32 max_qps, __u32 ring_queues)
{
	return virtio_net_roce_num_vqs(n_pairs, max_cqs, max_qps) + 2 * ring_queues;
}

enum virtio_net_roce_vq_kind {
	VIRTIO_NET_ROCE_VQ_NET,		/* receiveqN or transmitqN */
	VIRTIO_NET_ROCE_VQ_CTRL,
	VIRTIO_NET_ROCE_VQ_CQ,
	VIRTIO_NET_ROCE_VQ_SQ,
	VIRTIO_NET_ROCE_VQ_RQ,
	VIRTIO_NET_ROCE_VQ_INVALID,	/* past the last queue */
	VIRTIO_NET_ROCE_VQ_DBQ,		/* rdma_doorbellqK */
	VIRTIO_NET_ROCE_VQ_EQ,		/* rdma_eventqK */
};

/*
 * What virtqueue @vq is; *num receives the pair, CQ or QP number.
 * The inverse of the functions above.
 */
static inline enum virtio_net_roce_vq_kind
virtio_net_roce_vq_classify(__u32 vq, __u32 n_pairs, __u32 max_cqs,
			    __u32 max_qps, __u32 *num)
{
	__u32 ctrl = virtio_net_roce_ctrl_vq(n_pairs);
	__u32 first_sq = virtio_net_roce_sq_vq(n_pairs, max_cqs, 0);

	if (vq < ctrl) {
		*num = vq / 2;
		return VIRTIO_NET_ROCE_VQ_NET;
	}
	if (vq == ctrl) {
		*num = 0;
		return VIRTIO_NET_ROCE_VQ_CTRL;
	}
	if (vq < first_sq) {
		*num = vq - ctrl - 1;
		return VIRTIO_NET_ROCE_VQ_CQ;
	}
	if (vq - first_sq < 2 * max_qps) {
		*num = (vq - first_sq) / 2;
		return (vq - first_sq) % 2 ? VIRTIO_NET_ROCE_VQ_RQ :
					     VIRTIO_NET_ROCE_VQ_SQ;
	}
	*num = 0;
	return VIRTIO_NET_ROCE_VQ_INVALID;
}

/* The same with K ring queue pairs after the QP pairs. */
static inline enum virtio_net_roce_vq_kind
virtio_net_roce_vq_classify_rings(__u32 vq, __u32 n_pairs, __u32 max_cqs,
				  __u32 max_qps, __u32 ring_queues, __u32 *num)
{
	__u32 first = virtio_net_roce_num_vqs(n_pairs, max_cqs, max_qps);

	if (vq < first)
		return virtio_net_roce_vq_classify(vq, n_pairs, max_cqs, max_qps, num);
	if (vq - first < 2 * ring_queues) {
		*num = (vq - first) / 2;
		return (vq - first) % 2 ? VIRTIO_NET_ROCE_VQ_EQ :
					  VIRTIO_NET_ROCE_VQ_DBQ;
	}
	*num = 0;
	return VIRTIO_NET_ROCE_VQ_INVALID;
}

/* IB enumerations as the wire carries them (IBTA 1.4 / RoCE v2 annex A17). */
enum virtio_ib_access_flags {
	VIRTIO_IB_ACCESS_LOCAL_WRITE = (1 << 0),
	VIRTIO_IB_ACCESS_REMOTE_WRITE = (1 << 1),
	VIRTIO_IB_ACCESS_REMOTE_READ = (1 << 2),
	VIRTIO_IB_ACCESS_REMOTE_ATOMIC = (1 << 3),	/* VIRTIO_IB_DEVICE_ATOMIC */
	VIRTIO_IB_ACCESS_MW_BIND = (1 << 4),		/* VIRTIO_IB_DEVICE_MEM_WINDOW */
};
#define VIRTIO_IB_ACCESS_ALL \
	(VIRTIO_IB_ACCESS_LOCAL_WRITE | VIRTIO_IB_ACCESS_REMOTE_WRITE | \
	 VIRTIO_IB_ACCESS_REMOTE_READ)
#define VIRTIO_IB_ACCESS_ALL_EXT \
	(VIRTIO_IB_ACCESS_ALL | VIRTIO_IB_ACCESS_REMOTE_ATOMIC | \
	 VIRTIO_IB_ACCESS_MW_BIND)

#define VIRTIO_IB_QPT_SMI	0
#define VIRTIO_IB_QPT_GSI	1
#define VIRTIO_IB_QPT_RC	2
#define VIRTIO_IB_QPT_UC	3
#define VIRTIO_IB_QPT_UD	4

enum virtio_ib_qp_attr_mask {
	VIRTIO_IB_QP_STATE = (1 << 0),
	VIRTIO_IB_QP_CUR_STATE = (1 << 1),
	VIRTIO_IB_QP_ACCESS_FLAGS = (1 << 2),
	VIRTIO_IB_QP_QKEY = (1 << 3),
	VIRTIO_IB_QP_AV = (1 << 4),
	VIRTIO_IB_QP_PATH_MTU = (1 << 5),
	VIRTIO_IB_QP_TIMEOUT = (1 << 6),
	VIRTIO_IB_QP_RETRY_CNT = (1 << 7),
	VIRTIO_IB_QP_RNR_RETRY = (1 << 8),
	VIRTIO_IB_QP_RQ_PSN = (1 << 9),
	VIRTIO_IB_QP_MAX_QP_RD_ATOMIC = (1 << 10),
	VIRTIO_IB_QP_MIN_RNR_TIMER = (1 << 11),
	VIRTIO_IB_QP_SQ_PSN = (1 << 12),
	VIRTIO_IB_QP_MAX_DEST_RD_ATOMIC = (1 << 13),
	VIRTIO_IB_QP_CAP = (1 << 14),
	VIRTIO_IB_QP_DEST_QPN = (1 << 15),
	VIRTIO_IB_QP_RATE_LIMIT = (1 << 16),
};
#define VIRTIO_IB_QP_ATTR_ALL ((1u << 17) - 1)

enum virtio_ib_qp_state {
	VIRTIO_IB_QPS_RESET,
	VIRTIO_IB_QPS_INIT,
	VIRTIO_IB_QPS_RTR,
	VIRTIO_IB_QPS_RTS,
	VIRTIO_IB_QPS_SQD,
	VIRTIO_IB_QPS_SQE,
	VIRTIO_IB_QPS_ERR,
};

enum virtio_ib_mtu {
	VIRTIO_IB_MTU_256 = 1,
	VIRTIO_IB_MTU_512 = 2,
	VIRTIO_IB_MTU_1024 = 3,
	VIRTIO_IB_MTU_2048 = 4,
	VIRTIO_IB_MTU_4096 = 5,
};

/*
 * device_cap_flags of QUERY_DEVICE. Every device-specific feature bit below
 * 64 is taken, so the verbs beyond RFC v2's set are capabilities of the
 * RoCE device, as on an RDMA NIC: a device without one answers its
 * commands VIRTIO_NET_ERR and completes its WRs VIRTIO_IB_WC_LOC_QP_OP_ERR.
 */
#define VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN		(1 << 0)
/* ALLOC_MR, REG_MR, LOCAL_INV, SEND_WITH_INV */
#define VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS	(1 << 1)
/* CREATE_SRQ, DESTROY_SRQ */
#define VIRTIO_IB_DEVICE_SRQ			(1 << 2)
/* ALLOC_MW, DEALLOC_MW, BIND_MW; types 1 and 2 */
#define VIRTIO_IB_DEVICE_MEM_WINDOW		(1 << 3)
/* CMP_AND_SWP, FETCH_AND_ADD on RC */
#define VIRTIO_IB_DEVICE_ATOMIC			(1 << 4)
/* ATTACH_MCAST, DETACH_MCAST; UD sends to and receives from multicast groups */
#define VIRTIO_IB_DEVICE_MULTICAST		(1 << 5)
/* SETUP_RINGS; QPs, CQs and SRQs on rings in driver memory (rdma_ring_queues > 0) */
#define VIRTIO_IB_DEVICE_RINGS			(1 << 6)
/* RESIZE_CQ; a CQ on rings moves to another ring (only with RINGS) */
#define VIRTIO_IB_DEVICE_RESIZE_CQ		(1 << 7)

/* atomic_cap of QUERY_DEVICE (IBTA 11.2.1.2) */
#define VIRTIO_IB_ATOMIC_NONE	0
#define VIRTIO_IB_ATOMIC_HCA	1 /* atomic among this device's atomic operations */
#define VIRTIO_IB_ATOMIC_GLOB	2 /* also against the driver's CPU atomics */

/* Control command and ack data, in command order. */
struct virtio_rdma_ack_query_device {
	__le64 device_cap_flags;
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 hw_ver;
	__le32 max_qp_wr;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_sge_rd;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_qp_rd_atom;
	__le32 max_qp_init_rd_atom;
	__le32 max_ah;
	__u8 local_ca_ack_delay;
	__u8 atomic_cap;	/* VIRTIO_IB_ATOMIC_* */
	__u8 padding[2];
	__le32 max_fast_reg_page_list_len; /* MEM_MGT_EXTENSIONS: ALLOC_MR max_num_sg */
	__le32 max_srq;		/* SRQ */
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	__le32 max_mw;		/* MEM_WINDOW */
	__le32 vendor_id;	/* IEEE OUI, or the PCI vendor ID of the implementation */
	__le32 vendor_part_id;
	__le32 max_mcast_grp;	/* MULTICAST */
	__le32 max_mcast_qp_attach;
	__le32 max_total_mcast_qp_attach;
	__le32 max_ring_qp;	/* RINGS: QPs (and SRQs) on rings, numbered from max_rdma_qps */
	__le32 max_ring_cq;	/* RINGS: CQs on rings, numbered from max_rdma_cqs */
	__le32 max_ring_wr;	/* RINGS: entries of a send, receive or SRQ ring */
	__le32 max_ring_cqe;	/* RINGS: entries of a CQ ring */
};

struct virtio_rdma_ack_query_port {
	__le32 gid_tbl_len;
	__le32 max_msg_sz;
	__le32 reserved[6];
};

struct virtio_rdma_cmd_create_cq {
	__le32 cqe;
};

struct virtio_rdma_ack_create_cq {
	__le32 cqn;
};

struct virtio_rdma_cmd_destroy_cq {
	__le32 cqn;
};

struct virtio_rdma_ack_create_pd {
	__le32 pdn;
};

struct virtio_rdma_cmd_destroy_pd {
	__le32 pdn;
};

struct virtio_rdma_cmd_get_dma_mr {
	__le32 pdn;
	__le32 access_flags;	/* enum virtio_ib_access_flags */
};

struct virtio_rdma_ack_get_dma_mr {
	__le32 mrn;
	__le32 lkey;
	__le32 rkey;
};

struct virtio_rdma_cmd_reg_user_mr {
	__le32 pdn;
	__le32 access_flags;	/* enum virtio_ib_access_flags */
	__le64 virt_addr;	/* I/O virtual address the MR starts at */
	__le64 length;
	__le32 npages;
	__le32 padding;
	__le64 pages[];		/* driver (guest-physical) address of each 4 KiB page */
};

struct virtio_rdma_ack_reg_user_mr {
	__le32 mrn;
	__le32 lkey;
	__le32 rkey;
};

struct virtio_rdma_cmd_dereg_mr {
	__le32 mrn;
};

/* An MR for fast registration: no pages until a REG_MR WR binds them. */
struct virtio_rdma_cmd_alloc_mr {
	__le32 pdn;
	__le32 max_num_sg;	/* pages a REG_MR may bind, <= max_fast_reg_page_list_len */
};

struct virtio_rdma_ack_alloc_mr {
	__le32 mrn;
	__le32 lkey;		/* key byte 0 (bits 8-31: its key index); invalid */
	__le32 rkey;
};

/*
 * Rings (VIRTIO_IB_DEVICE_RINGS). A ring is 1 << log_size entries of
 * 1 << log_stride bytes in driver memory, read through an MR of the device:
 * @addr is an address of the MR of @lkey (a multiple of the stride, the
 * whole ring inside the MR), so every entry lies in one 4 KiB page. Indices
 * are free-running __le32 counters; entry i is at addr + (i mod size) *
 * stride. Each object also has a record of 128 bytes (128-byte aligned): the
 * first 64 bytes written by the driver, the last 64 by the device.
 */
struct virtio_rdma_ring {
	__le64 addr;
	__le32 lkey;
	__u8 log_size;		/* 0 to log2(max_ring_wr or max_ring_cqe) */
	__u8 log_stride;	/* 6 to 12 */
	__le16 reserved;
};

struct virtio_rdma_rec_ref {
	__le64 addr;		/* 128-byte aligned, 128 bytes inside the MR */
	__le32 lkey;		/* an MR with LOCAL_WRITE */
	__le32 reserved;
};

/*
 * A shared receive queue takes a number from the QP numbers (2 to L-1) and
 * that number's rdma_receiveq as its receive virtqueue; no QP has it while
 * the SRQ lives, and its rdma_transmitq is not used.
 */
struct virtio_rdma_cmd_create_srq {
	__le32 pdn;
	__le32 max_wr;		/* <= max_srq_wr and the virtqueue's size */
	__le32 max_sge;		/* <= max_srq_sge */
	__le32 flags;		/* VIRTIO_RDMA_SRQ_F_* (zero: on a virtqueue) */
};

/* CREATE_SRQ with VIRTIO_RDMA_SRQ_F_RINGS; its number is one of the ring QPs'. */
struct virtio_rdma_cmd_create_srq_rings {
	struct virtio_rdma_cmd_create_srq srq;	/* max_wr <= the ring's entries */
	struct virtio_rdma_ring ring;		/* struct virtio_rdma_rq_req entries */
	struct virtio_rdma_rec_ref rec;		/* struct virtio_rdma_srq_rec */
	__le16 eq;				/* for its limit event, < rdma_ring_queues */
	__le16 reserved[3];
};

struct virtio_rdma_ack_create_srq {
	__le32 srqn;
};

struct virtio_rdma_cmd_destroy_srq {
	__le32 srqn;
};

#define VIRTIO_IB_MW_TYPE_1	1
#define VIRTIO_IB_MW_TYPE_2	2

struct virtio_rdma_cmd_alloc_mw {
	__le32 pdn;
	__u8 type;		/* VIRTIO_IB_MW_TYPE_* */
	__u8 padding[3];
};

struct virtio_rdma_ack_alloc_mw {
	__le32 mwn;
	__le32 rkey;		/* key byte 0; the MW is not bound */
};

struct virtio_rdma_cmd_dealloc_mw {
	__le32 mwn;
};

struct virtio_rdma_qp_cap {
	__le32 max_send_wr;
	__le32 max_recv_wr;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_inline_data;
	__le32 padding;
};

#define VIRTIO_RDMA_QP_F_SRQ	(1 << 0) /* receives from srqn; cap.max_recv_* are 0 */
#define VIRTIO_RDMA_QP_F_RINGS	(1 << 1) /* struct virtio_rdma_cmd_create_qp_rings */

struct virtio_rdma_cmd_create_qp {
	__le32 pdn;
	__u8 qp_type;		/* VIRTIO_IB_QPT_* */
	__u8 sq_sig_all;
	__u8 flags;		/* VIRTIO_RDMA_QP_F_* */
	__u8 padding;
	__le32 send_cqn;
	__le32 recv_cqn;
	struct virtio_rdma_qp_cap cap;
	__le32 srqn;		/* VIRTIO_RDMA_QP_F_SRQ */
	__le32 reserved[3];
};

struct virtio_rdma_ack_create_qp {
	__le32 qpn;
};

/* CREATE_QP with VIRTIO_RDMA_QP_F_RINGS; the QP number is max_rdma_qps or more (GSI: 1). */
struct virtio_rdma_cmd_create_qp_rings {
	struct virtio_rdma_cmd_create_qp qp;
	struct virtio_rdma_ring sq;	/* entries: struct virtio_rdma_sq_req and its SGEs */
	struct virtio_rdma_ring rq;	/* struct virtio_rdma_rq_req; zero with F_SRQ */
	struct virtio_rdma_rec_ref rec;	/* struct virtio_rdma_qp_rec */
	__le16 dbq;			/* its doorbell queue, < rdma_ring_queues */
	__le16 reserved[7];
};

struct virtio_rdma_qp_rec {
	/* driver */
	__le32 sq_prod;		/* send WRs posted */
	__le32 rq_prod;		/* receive WRs posted */
	__le32 drv_reserved[14];
	/* device */
	__le32 sq_cons;		/* send WRs whose entries the driver may reuse */
	__le32 rq_cons;		/* receive WRs likewise */
	__le32 sq_event;	/* ring the doorbell when sq_prod passes this (as used_event) */
	__le32 rq_notify;	/* non-zero in ERR: ring the doorbell after posting receives */
	__le32 dev_reserved[12];
};

#define VIRTIO_RDMA_CQ_F_RINGS	(1 << 0)

/* CREATE_CQ with VIRTIO_RDMA_CQ_F_RINGS; the CQ number is max_rdma_cqs or more. */
struct virtio_rdma_cmd_create_cq_rings {
	__le32 cqe;		/* <= the ring's entries */
	__le32 flags;		/* VIRTIO_RDMA_CQ_F_RINGS */
	__le16 eq;		/* its event queue, < rdma_ring_queues */
	__le16 reserved[3];
	struct virtio_rdma_ring ring;	/* struct virtio_rdma_cq_req entries, log_stride >= 6 */
	struct virtio_rdma_rec_ref rec;	/* struct virtio_rdma_cq_rec */
};

struct virtio_rdma_cq_rec {
	/* driver */
	__le32 cons;		/* CQEs consumed */
	__le32 notify;		/* VIRTIO_IB_NOTIFY_* armed; the device clears it as it notifies */
	__le32 drv_reserved[14];
	/* device */
	__le32 prod;		/* CQEs written */
	__le32 dev_reserved[15];
};

/*
 * RESIZE_CQ: a CQ on rings moves to @ring (checked as CREATE_CQ's); its
 * record, prod and arm stay. CQEs before switch_prod are in the old ring,
 * the others in the new one.
 */
struct virtio_rdma_cmd_resize_cq {
	__le32 cqn;
	__le32 cqe;			/* <= the new ring's entries */
	struct virtio_rdma_ring ring;	/* struct virtio_rdma_cq_req entries */
};

struct virtio_rdma_ack_resize_cq {
	__le32 switch_prod;		/* the first CQE of the new ring */
};

#define VIRTIO_RDMA_SRQ_F_RINGS	(1 << 0)

struct virtio_rdma_srq_rec {
	/* driver */
	__le32 prod;		/* receive WRs posted */
	__le32 limit;		/* srq_limit armed; the device clears it as it reports it */
	__le32 drv_reserved[14];
	/* device */
	__le32 cons;		/* receive WRs whose entries the driver may reuse */
	__le32 dev_reserved[15];
};

/* SETUP_RINGS: where the doorbell summaries live, one per doorbell queue. */
struct virtio_rdma_cmd_setup_rings {
	__le64 addr;		/* 64-byte aligned, rdma_ring_queues summaries inside the MR */
	__le32 lkey;		/* an MR with LOCAL_WRITE */
	__le32 reserved;
};

/*
 * Doorbell summary k. The driver sets bit (qpn mod 64) of bits[qpn / 64]
 * (an atomic OR) when a QP of doorbell queue k needs the device, then
 * notifies rdma_doorbellq(k+1) if @sleeping is set; the device takes the
 * words with an atomic exchange.
 */
struct virtio_rdma_doorbell {
	__le32 sleeping;	/* device: nonzero while it waits for a notification */
	__le32 reserved[15];
	__le64 bits[];		/* QP numbers 0 to max_rdma_qps + max_ring_qp - 1 */
};

/* The bytes of one summary; summary k is at addr + k * this. */
static inline __u32 virtio_rdma_doorbell_size(__u32 max_qps, __u32 max_ring_qp)
{
	__u32 words = (max_qps + max_ring_qp + 63) / 64;

	return (__u32)sizeof(struct virtio_rdma_doorbell) + ((words * 8 + 63) & ~63u);
}

/* Event queue entries (device-writable). */
#define VIRTIO_RDMA_EV_CQ_COMP		0 /* @number's armed notification */
#define VIRTIO_RDMA_EV_SRQ_LIMIT	1 /* SRQ @number fell below its armed limit */
#define VIRTIO_RDMA_EV_CQ_ERR		2 /* CQ @number overran: it is in error */

struct virtio_rdma_event {
	__le32 type;		/* VIRTIO_RDMA_EV_* */
	__le32 number;
	__le32 reserved[2];
};

struct virtio_rdma_global_route {
	__u8 dgid[VIRTIO_NET_ROCE_GID_LEN];
	__le32 flow_label;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 padding;
};

struct virtio_rdma_ah_attr {
	struct virtio_rdma_global_route grh;
	__u8 dmac[6];
	__u8 reserved[10];
};

struct virtio_rdma_cmd_modify_qp {
	__le32 qpn;
	__le32 attr_mask;	/* enum virtio_ib_qp_attr_mask */
	__u8 qp_state;		/* enum virtio_ib_qp_state */
	__u8 cur_qp_state;
	__u8 path_mtu;		/* enum virtio_ib_mtu */
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 padding[7];
	__le32 qkey;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 dest_qp_num;
	__le32 qp_access_flags;	/* enum virtio_ib_access_flags */
	__le32 rate_limit;	/* kb/s */
	struct virtio_rdma_qp_cap cap;
	struct virtio_rdma_ah_attr ah_attr;
	__le32 reserved[4];
};

struct virtio_rdma_cmd_query_qp {
	__le32 qpn;
	__le32 attr_mask;
};

struct virtio_rdma_ack_query_qp {
	__u8 qp_state;
	__u8 path_mtu;
	__u8 sq_draining;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 padding[7];
	__le32 qkey;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 dest_qp_num;
	__le32 qp_access_flags;
	__le32 rate_limit;
	struct virtio_rdma_qp_cap cap;
	struct virtio_rdma_ah_attr ah_attr;
	__le32 reserved[4];
};

struct virtio_rdma_cmd_destroy_qp {
	__le32 qpn;
};

struct virtio_rdma_cmd_create_ah {
	__le32 pdn;
	__le32 padding;
	struct virtio_rdma_ah_attr ah_attr;
};

struct virtio_rdma_ack_create_ah {
	__le32 ah;
};

struct virtio_rdma_cmd_destroy_ah {
	__le32 pdn;
	__le32 ah;
};

struct virtio_rdma_cmd_add_gid {
	__le16 index;
	__le16 padding[3];
	__u8 gid[VIRTIO_NET_ROCE_GID_LEN];
};

struct virtio_rdma_cmd_del_gid {
	__le16 index;
};

/* The destination QP number of every multicast packet (IBTA 9.2.3) */
#define VIRTIO_IB_MULTICAST_QPN	0xffffff

/* ATTACH_MCAST and DETACH_MCAST */
struct virtio_rdma_cmd_mcast {
	__le32 qpn;
	__le32 padding;
	__u8 gid[VIRTIO_NET_ROCE_GID_LEN];	/* the group's multicast GID */
};

#define VIRTIO_IB_NOTIFY_SOLICITED		(1 << 0)
#define VIRTIO_IB_NOTIFY_NEXT_COMPLETION	(1 << 1)

struct virtio_rdma_cmd_req_notify {
	__le32 cqn;
	__le32 flags;		/* exactly one VIRTIO_IB_NOTIFY_* */
};

/* QUERY_PORT_SPEED ack flags */
#define VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED	(1 << 0) /* sum of >1 member */
#define VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK	(1 << 1) /* every member down */
#define VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN	(1 << 2) /* device link down */

struct virtio_rdma_ack_query_port_speed {
	__le64 speed;		/* 100 Mb/s units, as ibv_query_port_speed() */
	__le32 flags;		/* VIRTIO_RDMA_PORT_SPEED_F_* */
	__le16 active_members;	/* uplink members whose link is up */
	__le16 total_members;	/* uplink members, up or down */
	__le32 reserved[4];
};

/* Send queue requests (device-readable). 0 to 9 are libibverbs' numbers. */
enum virtio_ib_wr_opcode {
	VIRTIO_IB_WR_RDMA_WRITE,
	VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM,
	VIRTIO_IB_WR_SEND,
	VIRTIO_IB_WR_SEND_WITH_IMM,
	VIRTIO_IB_WR_RDMA_READ,
	VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP,	/* ATOMIC */
	VIRTIO_IB_WR_ATOMIC_FETCH_AND_ADD,	/* ATOMIC */
	VIRTIO_IB_WR_LOCAL_INV,			/* MEM_MGT_EXTENSIONS */
	VIRTIO_IB_WR_BIND_MW,			/* MEM_WINDOW */
	VIRTIO_IB_WR_SEND_WITH_INV,		/* MEM_MGT_EXTENSIONS */
	VIRTIO_IB_WR_REG_MR,			/* MEM_MGT_EXTENSIONS */
};

#define VIRTIO_IB_SEND_FENCE		(1 << 0)
#define VIRTIO_IB_SEND_SIGNALED		(1 << 1)
#define VIRTIO_IB_SEND_SOLICITED	(1 << 2)
#define VIRTIO_IB_SEND_INLINE		(1 << 3)

struct virtio_rdma_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

struct virtio_rdma_sq_req {
	__le64 wr_id;
	__u8 opcode;		/* enum virtio_ib_wr_opcode */
	__u8 send_flags;	/* VIRTIO_IB_SEND_* */
	__le16 padding;
	__be32 imm_data;	/* ImmDt, network byte order, carried as is */
	union {
		struct {
			__le64 remote_addr;
			__le32 rkey;
		} rdma;
		struct {
			__le32 remote_qpn;
			__le32 remote_qkey;
			__le32 ah;
		} ud;
		/* the original value lands in sg_list[0], 8 bytes */
		struct {
			__le64 remote_addr;	/* 8-byte aligned */
			__le32 rkey;
			__le32 padding;
			__le64 compare_add;	/* CMP_AND_SWP: compare; FETCH_AND_ADD: add */
			__le64 swap;		/* CMP_AND_SWP */
		} atomic;
		/* LOCAL_INV, SEND_WITH_INV: the key of the MR or MW to invalidate */
		struct {
			__le32 invalidate_rkey;
		} inv;
		/*
		 * REG_MR: the MR of @key's number becomes valid with @key, over
		 * the pages whose driver addresses (le64 each, 1 << page_shift
		 * aligned) sg_list[0] holds: num_sge 1, its lkey 0.
		 */
		struct {
			__le64 iova;
			__le64 length;
			__le32 key;		/* key index << 8 | new key byte */
			__le32 access;		/* enum virtio_ib_access_flags */
			__u8 page_shift;	/* 12 to 30 */
			__u8 padding[7];
		} reg;
		/* BIND_MW: the MW of @rkey's number, over a range of MR @mr_lkey */
		struct {
			__le64 addr;		/* 0 and length 0: unbind (type 1) */
			__le64 length;
			__le32 mr_lkey;
			__le32 rkey;		/* key index << 8 | new key byte */
			__le32 access;		/* REMOTE_* only */
			__le32 padding;
		} bind;
		__le64 reserved[4];
	};
	__u8 inline_data[VIRTIO_NET_ROCE_MAX_INLINE];
	union {
		__le32 num_sge;
		__le16 inline_len;	/* with VIRTIO_IB_SEND_INLINE */
	};
	__le32 reserved2[3];
	struct virtio_rdma_sge sg_list[];
};

/* Receive queue requests (device-readable). */
struct virtio_rdma_rq_req {
	__le64 wr_id;
	__le32 num_sge;
	__le32 reserved[3];
	struct virtio_rdma_sge sg_list[];
};

/* Completion queue entries (device-writable). */
enum virtio_ib_wc_opcode {
	VIRTIO_IB_WC_SEND,
	VIRTIO_IB_WC_RDMA_WRITE,
	VIRTIO_IB_WC_RDMA_READ,
	VIRTIO_IB_WC_RECV,
	VIRTIO_IB_WC_RECV_RDMA_WITH_IMM,
	VIRTIO_IB_WC_COMP_SWAP,
	VIRTIO_IB_WC_FETCH_ADD,
	VIRTIO_IB_WC_LOCAL_INV,
	VIRTIO_IB_WC_REG_MR,
	VIRTIO_IB_WC_BIND_MW,
};

enum virtio_ib_wc_status {
	VIRTIO_IB_WC_SUCCESS,
	VIRTIO_IB_WC_LOC_LEN_ERR,
	VIRTIO_IB_WC_LOC_QP_OP_ERR,
	VIRTIO_IB_WC_LOC_PROT_ERR,
	VIRTIO_IB_WC_WR_FLUSH_ERR,
	VIRTIO_IB_WC_BAD_RESP_ERR,
	VIRTIO_IB_WC_LOC_ACCESS_ERR,
	VIRTIO_IB_WC_REM_INV_REQ_ERR,
	VIRTIO_IB_WC_REM_ACCESS_ERR,
	VIRTIO_IB_WC_REM_OP_ERR,
	VIRTIO_IB_WC_RETRY_EXC_ERR,
	VIRTIO_IB_WC_RNR_RETRY_EXC_ERR,
	VIRTIO_IB_WC_REM_ABORT_ERR,
	VIRTIO_IB_WC_FATAL_ERR,
	VIRTIO_IB_WC_RESP_TIMEOUT_ERR,
	VIRTIO_IB_WC_GENERAL_ERR,
	VIRTIO_IB_WC_MW_BIND_ERR,
};

#define VIRTIO_IB_WC_GRH		(1 << 0)
#define VIRTIO_IB_WC_WITH_IMM		(1 << 1)
#define VIRTIO_IB_WC_WITH_INVALIDATE	(1 << 2) /* invalidate_rkey holds the key */

struct virtio_rdma_cq_req {
	__le64 wr_id;
	__u8 status;		/* enum virtio_ib_wc_status */
	__u8 opcode;		/* enum virtio_ib_wc_opcode */
	__le16 padding;
	__le32 vendor_err;
	__le32 byte_len;
	union {
		__be32 imm_data;	/* ImmDt, network byte order */
		__le32 invalidate_rkey;	/* VIRTIO_IB_WC_WITH_INVALIDATE */
	};
	__le32 qp_num;
	__le32 src_qp;
	__le32 wc_flags;	/* VIRTIO_IB_WC_* */
	__le32 reserved[3];
};

/*
 * Layout pins. A change here is a change of the wire format: the spec text
 * and every consumer change with it.
 */
#define VIRTIO_NET_ROCE_PIN_SIZE(type, size) \
	_Static_assert(sizeof(struct type) == (size), #type " size")
#define VIRTIO_NET_ROCE_PIN_OFF(type, field, off) \
	_Static_assert(__builtin_offsetof(struct type, field) == (off), \
		       #type "." #field " offset")

VIRTIO_NET_ROCE_PIN_SIZE(virtio_net_roce_config, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, status, 6);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, max_virtqueue_pairs, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, mtu, 10);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, speed, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, duplex, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, supported_hash_types, 20);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, supported_tunnel_types, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, max_rdma_qps, 28);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, max_rdma_cqs, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, rdma_ring_queues, 36);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, reserved, 38);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config, roce_port_speed, 40);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_net_roce_config_rfc2, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config_rfc2, max_rdma_qps, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config_rfc2, max_rdma_cqs, 28);
VIRTIO_NET_ROCE_PIN_OFF(virtio_net_roce_config_rfc2, roce_port_speed, 32);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_query_device, 128);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_mr_size, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, page_size_cap, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, hw_ver, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_qp_wr, 28);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_send_sge, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_recv_sge, 36);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_sge_rd, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_cqe, 44);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_mr, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_pd, 52);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_qp_rd_atom, 56);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_qp_init_rd_atom, 60);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_ah, 64);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, local_ca_ack_delay, 68);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, atomic_cap, 69);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_fast_reg_page_list_len, 72);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_srq, 76);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_srq_wr, 80);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_srq_sge, 84);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_mw, 88);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, vendor_id, 92);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, vendor_part_id, 96);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_mcast_grp, 100);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_mcast_qp_attach, 104);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_total_mcast_qp_attach, 108);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_ring_qp, 112);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_ring_cq, 116);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_ring_wr, 120);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_device, max_ring_cqe, 124);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_query_port, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_port, max_msg_sz, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_cq, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_create_cq, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_destroy_cq, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_create_pd, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_destroy_pd, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_get_dma_mr, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_get_dma_mr, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_get_dma_mr, rkey, 8);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_reg_user_mr, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_reg_user_mr, virt_addr, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_reg_user_mr, length, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_reg_user_mr, npages, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_reg_user_mr, pages, 32);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_reg_user_mr, 12);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_dereg_mr, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_alloc_mr, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_alloc_mr, 12);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_srq, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_srq, flags, 12);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_srq_rings, 56);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_srq_rings, ring, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_srq_rings, rec, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_srq_rings, eq, 48);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_create_srq, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_destroy_srq, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_alloc_mw, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_alloc_mw, type, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_alloc_mw, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_dealloc_mw, 4);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_qp_cap, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_qp_cap, max_inline_data, 16);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_qp, 56);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, qp_type, 4);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, sq_sig_all, 5);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, flags, 6);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, send_cqn, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, recv_cqn, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, cap, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, srqn, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp, reserved, 44);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_create_qp, 4);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ring, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ring, lkey, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ring, log_size, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ring, log_stride, 13);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_rec_ref, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_rec_ref, lkey, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_qp_rings, 120);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp_rings, sq, 56);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp_rings, rq, 72);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp_rings, rec, 88);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_qp_rings, dbq, 104);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_qp_rec, 128);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_qp_rec, rq_prod, 4);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_qp_rec, sq_cons, 64);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_qp_rec, rq_cons, 68);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_qp_rec, sq_event, 72);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_cq_rings, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_cq_rings, flags, 4);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_cq_rings, eq, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_cq_rings, ring, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_cq_rings, rec, 32);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cq_rec, 128);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_rec, notify, 4);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_rec, prod, 64);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_resize_cq, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_resize_cq, ring, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_resize_cq, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_srq_rec, 128);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_srq_rec, limit, 4);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_srq_rec, cons, 64);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_setup_rings, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_setup_rings, lkey, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_doorbell, 64);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_doorbell, bits, 64);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_event, 16);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_global_route, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_global_route, flow_label, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_global_route, sgid_index, 20);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_global_route, hop_limit, 21);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_global_route, traffic_class, 22);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ah_attr, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ah_attr, dmac, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ah_attr, reserved, 30);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_modify_qp, 128);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, attr_mask, 4);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, qp_state, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, cur_qp_state, 9);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, path_mtu, 10);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, max_rd_atomic, 11);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, max_dest_rd_atomic, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, min_rnr_timer, 13);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, timeout, 14);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, retry_cnt, 15);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, rnr_retry, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, qkey, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, rq_psn, 28);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, sq_psn, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, dest_qp_num, 36);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, qp_access_flags, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, rate_limit, 44);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, cap, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, ah_attr, 72);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_modify_qp, reserved, 112);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_query_qp, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_query_qp, 120);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, sq_draining, 2);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, rnr_retry, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, qkey, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, rq_psn, 20);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, sq_psn, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, dest_qp_num, 28);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, qp_access_flags, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, rate_limit, 36);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, cap, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, ah_attr, 64);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_qp, reserved, 104);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_destroy_qp, 4);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_create_ah, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_create_ah, ah_attr, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_create_ah, 4);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_destroy_ah, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_add_gid, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_add_gid, gid, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_del_gid, 2);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_mcast, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cmd_mcast, gid, 8);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cmd_req_notify, 8);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_ack_query_port_speed, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_port_speed, flags, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_port_speed, active_members, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_port_speed, total_members, 14);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_ack_query_port_speed, reserved, 16);

VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_sge, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sge, length, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sge, lkey, 12);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_sq_req, 576);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, opcode, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, send_flags, 9);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, imm_data, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, rdma.remote_addr, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, rdma.rkey, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, ud.remote_qpn, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, ud.remote_qkey, 20);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, ud.ah, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, atomic.remote_addr, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, atomic.rkey, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, atomic.compare_add, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, atomic.swap, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, inv.invalidate_rkey, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, reg.iova, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, reg.length, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, reg.key, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, reg.access, 36);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, reg.page_shift, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, bind.addr, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, bind.length, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, bind.mr_lkey, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, bind.rkey, 36);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, bind.access, 40);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, inline_data, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, num_sge, 560);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, inline_len, 560);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, reserved2, 564);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_sq_req, sg_list, 576);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_rq_req, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_rq_req, num_sge, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_rq_req, sg_list, 24);
VIRTIO_NET_ROCE_PIN_SIZE(virtio_rdma_cq_req, 48);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, status, 8);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, opcode, 9);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, vendor_err, 12);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, byte_len, 16);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, imm_data, 20);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, invalidate_rkey, 20);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, qp_num, 24);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, src_qp, 28);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, wc_flags, 32);
VIRTIO_NET_ROCE_PIN_OFF(virtio_rdma_cq_req, reserved, 36);

#endif /* _LINUX_VIRTIO_NET_ROCE_H */
