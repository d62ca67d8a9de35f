/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs of libvirtio_rdma_user: PDs, MRs, CQs, QPs, AHs, the GID table,
 * device and port attributes and asynchronous events, each one control
 * command of the virtio-net RoCE device (virtio-spec/virtio-net-roce.md)
 * run through vur_user_ctrl(). The structures here are in host byte order;
 * the library converts them to and from the little-endian wire structures.
 *
 * Numbering: object handles (pdn, mrn, ah, cqn, qpn) are the device's.
 * QP types, QP states, MTUs, access flags and event types have the values of
 * libibverbs' enums (the wire uses the same); the QP attribute mask is the
 * wire's enum virtio_ib_qp_attr_mask, not libibverbs' enum ibv_qp_attr_mask.
 *
 * Errors are negative errno values. -EREMOTEIO means that the device
 * answered VIRTIO_NET_ERR: the wire protocol carries no reason, the
 * backend logs one, and the library logs the command's name. The library
 * does not check values that the device validates (handles, states,
 * attribute masks and ranges, limits), so that a device's checks can be
 * exercised; it refuses only what it cannot express (-EINVAL), NULL
 * pointers (-EINVAL) and what the negotiated features exclude
 * (-EOPNOTSUPP). Keeping to the driver requirements of the spec on field
 * values (e.g. ROCE-DRV-MR-3, ROCE-DRV-QPS-1) is the caller's part.
 *
 * Threads: every call may be made from any thread; control commands are
 * serialized per device, posts per queue and polls per CQ, as with verbs.
 * vur_user_get_async_event() is for one thread at a time. Destroying a QP
 * or CQ while another thread posts to or polls it is the caller's error.
 */
#ifndef VUR_VERBS_H
#define VUR_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include "vur_user.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Path MTU and port MTU, as enum ibv_mtu. */
enum vur_user_mtu {
	VUR_USER_MTU_256 = 1,
	VUR_USER_MTU_512 = 2,
	VUR_USER_MTU_1024 = 3,
	VUR_USER_MTU_2048 = 4,
	VUR_USER_MTU_4096 = 5,
};

/** Access flags of MRs and QPs, as enum ibv_access_flags. */
enum vur_user_access_flags {
	VUR_USER_ACCESS_LOCAL_WRITE = 1 << 0,
	VUR_USER_ACCESS_REMOTE_WRITE = 1 << 1,
	VUR_USER_ACCESS_REMOTE_READ = 1 << 2,
	VUR_USER_ACCESS_REMOTE_ATOMIC = 1 << 3, /**< with LOCAL_WRITE; VUR_USER_DEVICE_ATOMIC */
	/** MWs may be bound to the MR (with VUR_USER_DEVICE_MEM_WINDOW) */
	VUR_USER_ACCESS_MW_BIND = 1 << 4,
};

/** Memory window types, as enum ibv_mw_type (type 2 is IBTA's type 2B). */
enum vur_user_mw_type {
	VUR_USER_MW_TYPE_1 = 1,
	VUR_USER_MW_TYPE_2 = 2,
};

/** QP transport services, as enum ibv_qp_type (SMI is refused by the device). */
enum vur_user_qp_type {
	VUR_USER_QPT_SMI = 0,
	VUR_USER_QPT_GSI = 1,
	VUR_USER_QPT_RC = 2,
	VUR_USER_QPT_UC = 3,
	VUR_USER_QPT_UD = 4,
};

/** QP states, as enum ibv_qp_state. */
enum vur_user_qp_state {
	VUR_USER_QPS_RESET,
	VUR_USER_QPS_INIT,
	VUR_USER_QPS_RTR,
	VUR_USER_QPS_RTS,
	VUR_USER_QPS_SQD,
	VUR_USER_QPS_SQE,
	VUR_USER_QPS_ERR,
};

/**
 * Which attributes of struct vur_user_qp_attr a MODIFY_QP carries: the
 * wire's mask (enum virtio_ib_qp_attr_mask). There is no P_Key index, port
 * or alternate path: the device has one port and the P_Key 0xFFFF.
 */
enum vur_user_qp_attr_mask {
	VUR_USER_QP_STATE = 1 << 0,
	VUR_USER_QP_CUR_STATE = 1 << 1,
	VUR_USER_QP_ACCESS_FLAGS = 1 << 2,
	VUR_USER_QP_QKEY = 1 << 3,
	VUR_USER_QP_AV = 1 << 4,
	VUR_USER_QP_PATH_MTU = 1 << 5,
	VUR_USER_QP_TIMEOUT = 1 << 6,
	VUR_USER_QP_RETRY_CNT = 1 << 7,
	VUR_USER_QP_RNR_RETRY = 1 << 8,
	VUR_USER_QP_RQ_PSN = 1 << 9,
	VUR_USER_QP_MAX_QP_RD_ATOMIC = 1 << 10,
	VUR_USER_QP_MIN_RNR_TIMER = 1 << 11,
	VUR_USER_QP_SQ_PSN = 1 << 12,
	VUR_USER_QP_MAX_DEST_RD_ATOMIC = 1 << 13,
	VUR_USER_QP_CAP = 1 << 14,
	VUR_USER_QP_DEST_QPN = 1 << 15,
	VUR_USER_QP_RATE_LIMIT = 1 << 16,
};

/** REQ_NOTIFY_CQ flags: exactly one per arm. */
enum vur_user_notify_flags {
	VUR_USER_NOTIFY_SOLICITED = 1 << 0,
	VUR_USER_NOTIFY_NEXT_COMPLETION = 1 << 1,
};

/** Port states, as enum ibv_port_state. */
enum vur_user_port_state {
	VUR_USER_PORT_DOWN = 1,
	VUR_USER_PORT_ACTIVE = 4,
};

/** How the port speed arises (struct vur_user_port_speed.flags). */
enum vur_user_port_speed_flags {
	VUR_USER_PORT_SPEED_AGGREGATED = 1 << 0, /**< the sum of more than one member */
	VUR_USER_PORT_SPEED_LOOPBACK = 1 << 1,   /**< every member down, or none */
	VUR_USER_PORT_SPEED_LINK_DOWN = 1 << 2,  /**< the device is administratively down */
};

/** device_cap_flags of QUERY_DEVICE (the wire's, VIRTIO_IB_DEVICE_*). */
enum vur_user_device_cap_flags {
	VUR_USER_DEVICE_RC_RNR_NAK_GEN = 1 << 0,
	/** ALLOC_MR, REG_MR, LOCAL_INV, SEND_WITH_INV (IB_DEVICE_MEM_MGT_EXTENSIONS) */
	VUR_USER_DEVICE_MEM_MGT_EXTENSIONS = 1 << 1,
	/** CREATE_SRQ, DESTROY_SRQ and QPs on an SRQ (IBV_DEVICE_SRQ_RESIZE aside) */
	VUR_USER_DEVICE_SRQ = 1 << 2,
	/** ALLOC_MW, DEALLOC_MW, BIND_MW, MW_BIND access; types 1 and 2 (IB_DEVICE_MEM_WINDOW) */
	VUR_USER_DEVICE_MEM_WINDOW = 1 << 3,
	VUR_USER_DEVICE_ATOMIC = 1 << 4, /**< CMP_AND_SWP and FETCH_AND_ADD on RC */
	/** ATTACH_MCAST, DETACH_MCAST, AHs to multicast groups (UD) */
	VUR_USER_DEVICE_MULTICAST = 1 << 5,
	/** QPs, CQs and SRQs on rings in driver memory (with rdma_ring_queues > 0) */
	VUR_USER_DEVICE_RINGS = 1 << 6,
	/** RESIZE_CQ: a CQ on rings moves to another ring (vur_user_resize_cq()) */
	VUR_USER_DEVICE_RESIZE_CQ = 1 << 7,
};

/** atomic_cap of QUERY_DEVICE, as enum ibv_atomic_cap. */
enum vur_user_atomic_cap {
	VUR_USER_ATOMIC_NONE = 0,
	VUR_USER_ATOMIC_HCA = 1,  /**< atomic among the device's own atomic operations */
	VUR_USER_ATOMIC_GLOB = 2, /**< also against the CPU's atomics on the same memory */
};

/** QUERY_DEVICE, and the RDMA queue counts of the configuration space. */
struct vur_user_device_attr {
	uint64_t device_cap_flags; /**< enum vur_user_device_cap_flags */
	uint64_t max_mr_size;
	uint64_t page_size_cap; /**< 4096: REG_USER_MR pages are 4 KiB */
	uint32_t hw_ver;        /**< for diagnostics only (ROCE-DRV-ATTR-1) */
	uint32_t max_qp_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sge_rd;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_ah;
	uint8_t local_ca_ack_delay;
	uint8_t atomic_cap;                  /**< enum vur_user_atomic_cap */
	uint32_t max_qp;                     /**< max_rdma_qps: QP numbers 0 to max_qp - 1 */
	uint32_t max_cq;                     /**< max_rdma_cqs */
	uint32_t max_fast_reg_page_list_len; /**< ALLOC_MR's max_num_sg; 0 without the extensions */
	uint32_t max_mw;                     /**< 0 without VUR_USER_DEVICE_MEM_WINDOW */
	uint32_t max_srq;                    /**< 0 without VUR_USER_DEVICE_SRQ */
	uint32_t max_srq_wr;                 /**< also bounded by rdma_queue_size */
	uint32_t max_srq_sge;
	uint32_t max_mcast_grp; /**< 0 without VUR_USER_DEVICE_MULTICAST */
	uint32_t max_mcast_qp_attach;
	uint32_t max_total_mcast_qp_attach;
	uint32_t max_ring_qp;  /**< RINGS: QPs and SRQs on rings, numbered from max_qp */
	uint32_t max_ring_cq;  /**< RINGS: CQs on rings, numbered from max_cq */
	uint32_t max_ring_wr;  /**< RINGS: WRs of a ring QP's queue or a ring SRQ */
	uint32_t max_ring_cqe; /**< RINGS: CQEs of a ring CQ */
};

/** QUERY_PORT, with the attributes the spec derives from the configuration. */
struct vur_user_port_attr {
	uint8_t state;         /**< enum vur_user_port_state, from VIRTIO_NET_S_LINK_UP */
	uint8_t max_mtu;       /**< VUR_USER_MTU_4096 */
	uint8_t active_mtu;    /**< the port MTU; 0 if the link MTU is below 352 */
	uint16_t link_mtu;     /**< the Ethernet MTU: config mtu, or 1500 */
	uint16_t pkey_tbl_len; /**< 1: the P_Key 0xFFFF */
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
};

/** QUERY_PORT_SPEED. */
struct vur_user_port_speed {
	uint64_t speed; /**< effective speed in 100 Mb/s, as ibv_query_port_speed() */
	uint32_t flags; /**< enum vur_user_port_speed_flags */
	uint16_t active_members;
	uint16_t total_members;
};

/** The keys of a new MR. */
struct vur_user_mr {
	uint32_t mrn;
	uint32_t lkey;
	uint32_t rkey;
};

/** A new memory window. */
struct vur_user_mw {
	uint32_t mwn;
	uint32_t rkey; /**< key byte 0; a BIND_MW gives it a new low byte */
};

/** Capacities of a QP, fixed at creation. */
struct vur_user_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

/** CREATE_QP flags. */
enum vur_user_qp_create_flags {
	/** receive WRs come from the SRQ srqn (as ibv_qp_init_attr.srq); cap.max_recv_* are 0 */
	VUR_USER_QP_F_SRQ = 1 << 0,
};

/** CREATE_QP. */
struct vur_user_qp_init_attr {
	uint32_t pdn;
	uint8_t qp_type;    /**< enum vur_user_qp_type */
	uint8_t sq_sig_all; /**< 1: every send WR generates a CQE */
	uint32_t send_cqn;
	uint32_t recv_cqn;
	struct vur_user_qp_cap cap;
	uint8_t flags; /**< enum vur_user_qp_create_flags, sent as is */
	uint32_t srqn; /**< with VUR_USER_QP_F_SRQ: an SRQ of the same PD */
	/**
	 * enum vur_user_layout: VUR_USER_LAYOUT_AUTO (0) for the device's
	 * default (vur_user_params.layout); RINGS puts the send and receive
	 * queues on rings in driver memory (up to max_ring_wr WRs each, the
	 * QP numbered from max_qp), VIRTQUEUES on the QP's virtqueues
	 */
	uint8_t layout;
};

/** CREATE_SRQ, and what vur_user_query_srq() gives back. */
struct vur_user_srq_attr {
	uint32_t max_wr;    /**< WRs outstanding at most, 1 to max_srq_wr */
	uint32_t max_sge;   /**< s/g elements per WR, up to max_srq_sge */
	uint32_t srq_limit; /**< the armed limit (vur_user_arm_srq()), 0 if not armed */
};

/** Routing of an address vector. */
struct vur_user_global_route {
	uint8_t dgid[16];
	uint32_t flow_label; /**< 20 bits */
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
};

/** An address vector: the destination of an AH or of an RC/UC QP. */
struct vur_user_ah_attr {
	struct vur_user_global_route grh;
	uint8_t dmac[6];
};

/** Attributes of MODIFY_QP and QUERY_QP (IBTA meaning and encoding). */
struct vur_user_qp_attr {
	uint8_t qp_state;     /**< enum vur_user_qp_state */
	uint8_t cur_qp_state; /**< modify only: the state the caller believes */
	uint8_t path_mtu;     /**< enum vur_user_mtu */
	uint8_t sq_draining;  /**< query only */
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
	uint32_t qp_access_flags; /**< enum vur_user_access_flags */
	uint32_t rate_limit;      /**< kb/s, 0 for none */
	struct vur_user_qp_cap cap;
	struct vur_user_ah_attr ah_attr;
};

/** Asynchronous event types, numbered as enum ibv_event_type. */
enum vur_user_async_event_type {
	VUR_USER_ASYNC_CQ_ERR = 0, /**< a ring CQ overran (element: the CQ) */
	VUR_USER_ASYNC_PORT_ACTIVE = 9,
	VUR_USER_ASYNC_PORT_ERR = 10,
	VUR_USER_ASYNC_DEVICE_SPEED_CHANGE = 20, /**< rdma-core 62 and later */
};

/** One asynchronous event. */
struct vur_user_async_event {
	uint32_t event_type; /**< enum vur_user_async_event_type */
	uint8_t port_num;    /**< 1, the only port */
	uint32_t element;    /**< the CQ of CQ_ERR */
};

/**
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param attr receives the device's attributes
 * @return 0, or -EINVAL, -EOPNOTSUPP (no RoCE), -EREMOTEIO, -EPROTO (a
 *         short answer), or an error of vur_user_ctrl()
 */
int vur_user_query_device(struct vur_user_dev *dev, struct vur_user_device_attr *attr);

/**
 * QUERY_PORT, plus the state and port MTU the spec derives from the
 * configuration space: ACTIVE when VIRTIO_NET_S_LINK_UP is set (or
 * VIRTIO_NET_F_STATUS is not negotiated); the port MTU is the largest IB
 * MTU not above the Ethernet MTU minus 96 bytes of RoCE v2 headers.
 *
 * @param dev  an open device with VIRTIO_NET_F_ROCE
 * @param attr receives the port's attributes
 * @return as vur_user_query_device(), or an error of vur_user_read_config()
 */
int vur_user_query_port(struct vur_user_dev *dev, struct vur_user_port_attr *attr);

/**
 * QUERY_PORT_SPEED: the effective speed of the port.
 *
 * @param dev   an open device
 * @param speed receives it
 * @return 0, -EOPNOTSUPP if VIRTIO_NET_F_ROCE_PORT_SPEED was not negotiated
 *         (as ibv_query_port_speed() on a device without it), or as
 *         vur_user_query_device()
 */
int vur_user_query_port_speed(struct vur_user_dev *dev, struct vur_user_port_speed *speed);

/**
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param pdn receives the handle of the new PD
 * @return 0, or as vur_user_query_device() (-EREMOTEIO at max_pd PDs)
 */
int vur_user_create_pd(struct vur_user_dev *dev, uint32_t *pdn);

/**
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param pdn a PD without MRs, QPs and AHs
 * @return 0, or as vur_user_query_device()
 */
int vur_user_destroy_pd(struct vur_user_dev *dev, uint32_t pdn);

/**
 * Allocate a buffer in driver memory, the memory the device can reach: for
 * the pages of user MRs and the data of work requests. Whole 4 KiB pages,
 * page aligned, zeroed.
 *
 * @param dev an open device
 * @param len bytes, more than 0
 * @return the buffer, or NULL with errno ENOMEM (driver memory exhausted:
 *         see vur_user_params.mem_size) or EINVAL
 */
void *vur_user_alloc_buf(struct vur_user_dev *dev, size_t len);

/**
 * Free a buffer of vur_user_alloc_buf(). Its MRs must be deregistered
 * first (ROCE-DRV-MR-2).
 *
 * @param dev an open device
 * @param buf the buffer; NULL is allowed
 * @return 0, or -EINVAL if @p buf is not a buffer of vur_user_alloc_buf()
 */
int vur_user_free_buf(struct vur_user_dev *dev, void *buf);

/**
 * @param dev an open device
 * @param p   any address in driver memory, e.g. within a buffer of
 *            vur_user_alloc_buf()
 * @return its driver address (what descriptors and page lists carry), or 0
 *         if @p p is not in driver memory
 */
uint64_t vur_user_driver_addr(const struct vur_user_dev *dev, const void *p);

/**
 * GET_DMA_MR: an MR of all driver memory, addressed by driver address.
 *
 * @param dev    an open device with VIRTIO_NET_F_ROCE
 * @param pdn    its PD
 * @param access enum vur_user_access_flags
 * @param mr     receives its handle and keys
 * @return 0, or as vur_user_query_device()
 */
int vur_user_get_dma_mr(
		struct vur_user_dev *dev, uint32_t pdn, uint32_t access, struct vur_user_mr *mr);

/**
 * REG_USER_MR of [@p buf, @p buf + @p len), a range of driver memory, at
 * I/O virtual address @p iova: the page list holds the driver address of
 * each 4 KiB page that [@p iova, @p iova + @p len) spans (ROCE-DRV-MR-1).
 *
 * @param dev    an open device with VIRTIO_NET_F_ROCE
 * @param pdn    its PD
 * @param access enum vur_user_access_flags
 * @param buf    start of the range; all of it must be driver memory
 * @param len    its length (0 is sent as such, for the device to refuse)
 * @param iova   the address the MR's users name; @p iova and @p buf must
 *               have the same offset within their 4 KiB page
 * @param mr     receives its handle and keys
 * @return 0, -EINVAL (NULL, not driver memory, offsets differ), or as
 *         vur_user_query_device()
 */
int vur_user_reg_mr(struct vur_user_dev *dev, uint32_t pdn, uint32_t access, void *buf, size_t len,
		uint64_t iova, struct vur_user_mr *mr);

/**
 * REG_USER_MR with a page list given as is, unchecked: for pages the caller
 * manages itself, and for tests of the device's checks.
 *
 * @param dev    an open device with VIRTIO_NET_F_ROCE
 * @param pdn    its PD
 * @param access enum vur_user_access_flags
 * @param iova   I/O virtual address of the MR's first byte
 * @param length its length in bytes
 * @param pages  driver addresses of 4 KiB pages; may be NULL if @p npages is 0
 * @param npages entries of @p pages, sent as the command's npages
 * @param mr     receives its handle and keys
 * @return 0, -EINVAL, -ENOMEM (the command does not fit driver memory), or
 *         as vur_user_query_device()
 */
int vur_user_reg_mr_pages(struct vur_user_dev *dev, uint32_t pdn, uint32_t access, uint64_t iova,
		uint64_t length, const uint64_t *pages, uint32_t npages, struct vur_user_mr *mr);

/**
 * ALLOC_MR: an MR for fast registration (IBTA's Base Memory Management
 * Extensions, as ib_alloc_mr(IB_MR_TYPE_MEM_REG)). It starts invalid, its
 * lkey and rkey one key with key byte 0; REG_MR work requests
 * (VUR_USER_WR_REG_MR) register it with a key of the same upper 24 bits
 * and a new low byte; LOCAL_INV and a peer's SEND_WITH_INV invalidate it.
 *
 * @param dev        an open device with VIRTIO_NET_F_ROCE and
 *                   VUR_USER_DEVICE_MEM_MGT_EXTENSIONS
 * @param pdn        its PD
 * @param max_num_sg the most pages one REG_MR may bind, 1 to
 *                   max_fast_reg_page_list_len (sent as is)
 * @param mr         receives its handle and keys
 * @return 0, or as vur_user_query_device()
 */
int vur_user_alloc_mr(struct vur_user_dev *dev, uint32_t pdn, uint32_t max_num_sg,
		struct vur_user_mr *mr);

/**
 * DEREG_MR of any kind (a fast-registration MR in any state). When it returns 0 the device no
 * longer accesses memory through the MR, and its pages may be reused.
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param mrn the MR
 * @return 0, or as vur_user_query_device()
 */
int vur_user_dereg_mr(struct vur_user_dev *dev, uint32_t mrn);

/**
 * ALLOC_MW: a memory window (IBTA 10.6.7, as ibv_alloc_mw()), not bound,
 * its rkey with key byte 0. A BIND_MW work request (VUR_USER_WR_BIND_MW)
 * binds it to a range of an MR that has VUR_USER_ACCESS_MW_BIND; a type 2
 * window then belongs to the QP that bound it until LOCAL_INV or a peer's
 * SEND_WITH_INV of its key.
 *
 * @param dev  an open device with VUR_USER_DEVICE_MEM_WINDOW
 * @param pdn  its PD
 * @param type enum vur_user_mw_type (sent as is)
 * @param mw   receives its handle and key
 * @return 0, or as vur_user_query_device() (-EIO: refused: no such PD, a
 *         bad type, max_mw windows live, or no memory windows)
 */
int vur_user_alloc_mw(struct vur_user_dev *dev, uint32_t pdn, uint8_t type, struct vur_user_mw *mw);

/**
 * DEALLOC_MW, bound or not. When it returns 0 the device no longer
 * accesses memory through the window.
 *
 * @param dev an open device
 * @param mwn the MW
 * @return 0, or as vur_user_query_device()
 */
int vur_user_dealloc_mw(struct vur_user_dev *dev, uint32_t mwn);

/**
 * CREATE_CQ. The device picks an unbound completion virtqueue of at least
 * @p cqe entries; this driver sets every one up with rdma_queue_size
 * entries (vur_user_params). The library then makes @p cqe CQE buffers
 * available on it, in driver memory (vur_user_poll_cq()).
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param cqe entries, 1 to min(max_cqe, rdma_queue_size)
 * @param cqn receives the CQ number
 * @return 0, or as vur_user_query_device(), or -ENOMEM (driver memory
 *         exhausted: the CQ is destroyed again), -EPROTO (the device named
 *         a CQ number out of range or in use)
 */
int vur_user_create_cq(struct vur_user_dev *dev, uint32_t cqe, uint32_t *cqn);

/**
 * CREATE_CQ in the layout @p layout (enum vur_user_layout; AUTO: the
 * device's default, see vur_user_params.layout). On rings the CQ
 * holds up to max_ring_cqe CQEs: a ring of @p cqe rounded up to a power of
 * two, in driver memory, and a record; completion events come through an
 * event queue (vur_user_cq_event_fd() works the same).
 *
 * @param dev   an open device with VIRTIO_NET_F_ROCE
 * @param cqe    entries
 * @param layout enum vur_user_layout
 * @param cqn    receives the CQ number
 * @return as vur_user_create_cq(), or -EOPNOTSUPP (rings asked for and
 *         the device has none, or the library was opened without them)
 */
int vur_user_create_cq_ex(struct vur_user_dev *dev, uint32_t cqe, uint8_t layout, uint32_t *cqn);

/**
 * DESTROY_CQ; then the library returns the completion virtqueue to its
 * initial state (ROCE-DRV-LIFE-2) and frees the CQE buffers.
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param cqn a CQ no QP uses
 * @return 0, or as vur_user_query_device()
 */
int vur_user_destroy_cq(struct vur_user_dev *dev, uint32_t cqn);

/**
 * Resize a CQ to @p cqe entries, as ibv_resize_cq(): CQEs not yet polled
 * stay and are polled first, an arm holds. On rings: RESIZE_CQ with a new
 * ring of @p cqe rounded up to a power of two; the old ring is freed once
 * the CQEs written into it are polled. On a completion virtqueue the driver
 * alone makes more or fewer CQE buffers available (fewer as it polls),
 * within the virtqueue's size.
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param cqn the CQ
 * @param cqe entries, at least the CQEs not yet polled
 * @return 0; -EINVAL (@p cqe 0, beyond max_ring_cqe or the virtqueue's
 *         size, fewer than the CQEs not yet polled: the CQ unchanged),
 *         -EBUSY (the ring of an earlier resize still holds CQEs),
 *         -EOPNOTSUPP (the device cannot resize its ring CQs),
 *         -EREMOTEIO (the device refused: a CQ in error), -ENOMEM
 */
int vur_user_resize_cq(struct vur_user_dev *dev, uint32_t cqn, uint32_t cqe);

/**
 * REQ_NOTIFY_CQ: arm the CQ for one completion notification.
 *
 * @param dev   an open device with VIRTIO_NET_F_ROCE
 * @param cqn   the CQ
 * @param flags exactly one of enum vur_user_notify_flags
 * @return 0, or as vur_user_query_device() (-EREMOTEIO for a CQ in error)
 */
int vur_user_req_notify_cq(struct vur_user_dev *dev, uint32_t cqn, uint32_t flags);

/**
 * CREATE_QP, in state RESET. The device picks the QP number (1 for the GSI
 * QP) among those whose virtqueues hold the capacities. The library sets
 * aside the driver memory of the QP's requests: cap.max_send_wr slots of
 * room for cap.max_send_sge elements, and the same for receives.
 *
 * @param dev  an open device with VIRTIO_NET_F_ROCE
 * @param attr PD, type, CQs and capacities
 * @param qpn  receives the QP number
 * @return 0, or as vur_user_create_cq()
 */
int vur_user_create_qp(
		struct vur_user_dev *dev, const struct vur_user_qp_init_attr *attr, uint32_t *qpn);

/**
 * MODIFY_QP: the attributes @p attr_mask names, and the transition to
 * @p attr->qp_state with VUR_USER_QP_STATE. Fields outside the mask are
 * sent as zero.
 *
 * @param dev       an open device with VIRTIO_NET_F_ROCE
 * @param qpn       the QP
 * @param attr      the values
 * @param attr_mask enum vur_user_qp_attr_mask, sent as is
 * @return 0, or as vur_user_query_device()
 */
int vur_user_modify_qp(struct vur_user_dev *dev, uint32_t qpn, const struct vur_user_qp_attr *attr,
		uint32_t attr_mask);

/**
 * QUERY_QP: every attribute of the QP, whatever @p attr_mask asks
 * (ROCE-DEV-QP-15); cur_qp_state reads as qp_state.
 *
 * @param dev       an open device with VIRTIO_NET_F_ROCE
 * @param qpn       the QP
 * @param attr_mask a hint, sent as is
 * @param attr      receives the attributes
 * @return 0, or as vur_user_query_device()
 */
int vur_user_query_qp(struct vur_user_dev *dev, uint32_t qpn, uint32_t attr_mask,
		struct vur_user_qp_attr *attr);

/**
 * DESTROY_QP, in any state; then, as vur_user_destroy_cq(), the QP's send
 * and receive virtqueues go back to their initial state.
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param qpn the QP
 * @return 0, or as vur_user_query_device()
 */
int vur_user_destroy_qp(struct vur_user_dev *dev, uint32_t qpn);

struct vur_user_recv_wr;

/**
 * CREATE_SRQ: a shared receive queue of @p attr->max_wr WRs of up to
 * @p attr->max_sge elements. The device picks its number among the QP
 * numbers and uses that number's receive virtqueue; the library sets aside
 * max_wr request slots, as for a QP's receive queue.
 *
 * @param dev  an open device with VUR_USER_DEVICE_SRQ
 * @param pdn  its PD: the PD of the QPs created on it
 * @param attr max_wr and max_sge (srq_limit is ignored)
 * @param srqn receives the SRQ number
 * @return 0, or as vur_user_create_cq()
 */
int vur_user_create_srq(struct vur_user_dev *dev, uint32_t pdn,
		const struct vur_user_srq_attr *attr, uint32_t *srqn);

/**
 * CREATE_SRQ in the layout @p layout (enum vur_user_layout). On rings the limit is armed in the
 * SRQ's record and reported through an event queue; vur_user_srq_event_fd() and
 * vur_user_srq_limit_reached() work the same.
 *
 * @return as vur_user_create_srq(), or -EOPNOTSUPP
 */
int vur_user_create_srq_ex(struct vur_user_dev *dev, uint32_t pdn,
		const struct vur_user_srq_attr *attr, uint8_t layout, uint32_t *srqn);

/**
 * DESTROY_SRQ, refused (-EREMOTEIO) while QPs created on it are live. The
 * device gives every WR still on it back used without a CQE; the library
 * then returns the virtqueue to its initial state.
 *
 * @param dev  an open device
 * @param srqn the SRQ
 * @return 0, or as vur_user_query_device(), or -EPROTO if the device left
 *         WRs unused (ROCE-DEV-SRQ-8; the SRQ is gone all the same)
 */
int vur_user_destroy_srq(struct vur_user_dev *dev, uint32_t srqn);

/**
 * Post receive WRs on an SRQ, as vur_user_post_recv() on a QP.
 *
 * @return 0, -EINVAL (NULL, no such SRQ, num_sge above its max_sge),
 *         -ENOMEM (max_wr WRs outstanding)
 */
int vur_user_post_srq_recv(struct vur_user_dev *dev, uint32_t srqn,
		const struct vur_user_recv_wr *wr, unsigned int n, unsigned int *bad);

/**
 * Arm the SRQ limit, as ibv_modify_srq(IBV_SRQ_LIMIT): the limit event
 * comes once, when fewer than @p srq_limit WRs remain on the SRQ. The
 * device has no command for it: the library asks for a used-buffer
 * notification of the SRQ's virtqueue at that point (used_event with
 * VIRTIO_RING_F_EVENT_IDX), which makes vur_user_srq_event_fd() readable.
 * A WR a QP has taken for a message in progress still counts as on the
 * SRQ, so the event can come one WR per QP late.
 *
 * @param dev       an open device
 * @param srqn      the SRQ
 * @param srq_limit 1 to max_wr to arm, 0 to disarm
 * @return 0, or -EINVAL
 */
int vur_user_arm_srq(struct vur_user_dev *dev, uint32_t srqn, uint32_t srq_limit);

/**
 * Whether the armed limit is reached: 1 once (the SRQ is disarmed then,
 * as IBV_EVENT_SRQ_LIMIT_REACHED is raised once per arming), else 0.
 * Counts the WRs on the SRQ from its used ring; takes the notification.
 *
 * @param dev  an open device
 * @param srqn the SRQ
 * @return 1, 0, or -EINVAL
 */
int vur_user_srq_limit_reached(struct vur_user_dev *dev, uint32_t srqn);

/**
 * @param dev  an open device
 * @param srqn the SRQ
 * @return the descriptor to poll() for the SRQ's limit notification, or -EINVAL
 */
int vur_user_srq_event_fd(const struct vur_user_dev *dev, uint32_t srqn);

/**
 * @param dev  an open device
 * @param srqn the SRQ
 * @param attr receives max_wr, max_sge and the armed limit
 * @param wrs  receives the WRs on the SRQ now (made available, not used);
 *             may be NULL
 * @return 0, or -EINVAL
 */
int vur_user_query_srq(struct vur_user_dev *dev, uint32_t srqn, struct vur_user_srq_attr *attr,
		uint32_t *wrs);

/**
 * CREATE_AH: an address vector for UD and GSI sends.
 *
 * @param dev  an open device with VIRTIO_NET_F_ROCE
 * @param pdn  its PD
 * @param attr the address vector; its source GID is read from the GID
 *             table now (ROCE-DEV-AH-3)
 * @param ah   receives the AH handle
 * @return 0, or as vur_user_query_device()
 */
int vur_user_create_ah(struct vur_user_dev *dev, uint32_t pdn, const struct vur_user_ah_attr *attr,
		uint32_t *ah);

/**
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param pdn the PD the AH belongs to
 * @param ah  the AH
 * @return 0, or as vur_user_query_device()
 */
int vur_user_destroy_ah(struct vur_user_dev *dev, uint32_t pdn, uint32_t ah);

/**
 * RESET_OBJECTS: the device destroys every RDMA object and GID it holds,
 * whoever made them, and the library forgets its QPs, SRQs and CQs (their
 * virtqueues back in their initial state). Every handle of the device is
 * dead afterwards: PDs, MRs, MWs, CQs, SRQs, QPs, AHs. A driver sends it
 * before it creates anything on a device that an earlier driver may have
 * left objects in; vur_user_open() needs none (a new vhost-user connection
 * starts from nothing).
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @return 0, or as vur_user_query_device()
 */
int vur_user_reset_objects(struct vur_user_dev *dev);

/**
 * ADD_GID: store a GID (an IPv6 or IPv4-mapped address) in an empty entry.
 *
 * @param dev   an open device with VIRTIO_NET_F_ROCE
 * @param index the entry, below gid_tbl_len
 * @param gid   16 bytes, network byte order
 * @return 0, or as vur_user_query_device()
 */
int vur_user_add_gid(struct vur_user_dev *dev, uint16_t index, const uint8_t gid[16]);

/**
 * DEL_GID: empty an entry.
 *
 * @param dev   an open device with VIRTIO_NET_F_ROCE
 * @param index the entry
 * @return 0, or as vur_user_query_device()
 */
int vur_user_del_gid(struct vur_user_dev *dev, uint16_t index);

/**
 * ATTACH_MCAST: attach a UD QP to a multicast group; its UD SENDs to the
 * group's GID then reach the QP. Attaching it again changes nothing.
 *
 * @param dev  an open device with VUR_USER_DEVICE_MULTICAST
 * @param qpn  a UD QP
 * @param gid  the group's multicast GID: IPv6 ff00::/8, or IPv4-mapped
 *             224.0.0.0/4; 16 bytes, network byte order
 * @return 0, or as vur_user_query_device()
 */
int vur_user_attach_mcast(struct vur_user_dev *dev, uint32_t qpn, const uint8_t gid[16]);

/**
 * DETACH_MCAST: detach a UD QP from a group it is attached to.
 *
 * @param dev  an open device with VUR_USER_DEVICE_MULTICAST
 * @param qpn  the QP
 * @param gid  the group's multicast GID
 * @return 0, or as vur_user_query_device()
 */
int vur_user_detach_mcast(struct vur_user_dev *dev, uint32_t qpn, const uint8_t gid[16]);

/**
 * The file descriptor to poll() for asynchronous events: readable while
 * vur_user_get_async_event() has something to do (a message from the
 * backend, or events already queued). Owned by the device.
 *
 * @param dev an open device
 * @return the descriptor
 */
int vur_user_async_fd(const struct vur_user_dev *dev);

/**
 * Take the next asynchronous event, handling the backend's messages while
 * none is queued. On each configuration change the driver reads the
 * configuration space again and queues PORT_ACTIVE or PORT_ERR when
 * VIRTIO_NET_S_LINK_UP flipped; with VIRTIO_NET_F_ROCE_PORT_SPEED it reads
 * the speed with QUERY_PORT_SPEED (ROCE-DRV-SPEED-1) and queues one
 * DEVICE_SPEED_CHANGE if it differs from the last speed it reported
 * (ROCE-DRV-SPEED-2, -3); with VIRTIO_NET_F_GUEST_ANNOUNCE it acknowledges
 * an announcement request. The last known link state and speed are those
 * at open, then those of the last change.
 *
 * A caller of this function does not also call vur_user_backend_event(),
 * which would take the messages from it.
 *
 * @param dev        an open device
 * @param ev         receives the event
 * @param timeout_ms how long to wait; 0 to check without waiting, -1 for
 *                   no limit
 * @return 1 with @p ev filled, 0 if no event came within @p timeout_ms,
 *         or -EINVAL, or an error of vur_user_backend_event() (-EPROTO,
 *         -ECONNRESET) or of vur_user_read_config()
 */
int vur_user_get_async_event(
		struct vur_user_dev *dev, struct vur_user_async_event *ev, int timeout_ms);

/**
 * Send WR opcodes: the wire's, which are enum ibv_wr_opcode's from 0 to 9;
 * REG_MR (10) has no libibverbs counterpart (IBV_WR_TSO there).
 */
enum vur_user_wr_opcode {
	VUR_USER_WR_RDMA_WRITE = 0,
	VUR_USER_WR_RDMA_WRITE_WITH_IMM = 1,
	VUR_USER_WR_SEND = 2,
	VUR_USER_WR_SEND_WITH_IMM = 3,
	VUR_USER_WR_RDMA_READ = 4,
	VUR_USER_WR_ATOMIC_CMP_AND_SWP = 5,   /**< RC; VUR_USER_DEVICE_ATOMIC */
	VUR_USER_WR_ATOMIC_FETCH_AND_ADD = 6, /**< RC; VUR_USER_DEVICE_ATOMIC */
	VUR_USER_WR_LOCAL_INV = 7, /**< inv.invalidate_rkey: an ALLOC_MR MR's or type 2 MW's key */
	VUR_USER_WR_BIND_MW = 8,   /**< RC and UC: bind, no s/g list */
	VUR_USER_WR_SEND_WITH_INV = 9, /**< RC: a SEND; the peer invalidates inv.invalidate_rkey */
	VUR_USER_WR_REG_MR = 10,       /**< fast registration: reg, the page list in sg_list[0] */
};

/** Send WR flags, as enum ibv_send_flags. */
enum vur_user_send_flags {
	VUR_USER_SEND_FENCE = 1 << 0,
	VUR_USER_SEND_SIGNALED = 1 << 1,
	VUR_USER_SEND_SOLICITED = 1 << 2,
	VUR_USER_SEND_INLINE = 1 << 3, /**< the data is inline_data, copied at post */
};

/**
 * Work completion opcodes: the wire's values, which differ from enum
 * ibv_wc_opcode for receives (IBV_WC_RECV is 128).
 */
enum vur_user_wc_opcode {
	VUR_USER_WC_SEND = 0,
	VUR_USER_WC_RDMA_WRITE = 1,
	VUR_USER_WC_RDMA_READ = 2,
	VUR_USER_WC_RECV = 3,
	VUR_USER_WC_RECV_RDMA_WITH_IMM = 4,
	VUR_USER_WC_COMP_SWAP = 5, /**< byte_len 8 */
	VUR_USER_WC_FETCH_ADD = 6, /**< byte_len 8 */
	VUR_USER_WC_LOCAL_INV = 7,
	VUR_USER_WC_REG_MR = 8,
	VUR_USER_WC_BIND_MW = 9,
};

/**
 * Work completion statuses: the wire's values, in IBTA's order but
 * without the statuses of features the device lacks, so that they differ
 * from enum ibv_wc_status from LOC_PROT_ERR on. vur_user_wc_status_str()
 * names them.
 */
enum vur_user_wc_status {
	VUR_USER_WC_SUCCESS,
	VUR_USER_WC_LOC_LEN_ERR,
	VUR_USER_WC_LOC_QP_OP_ERR,
	VUR_USER_WC_LOC_PROT_ERR,
	VUR_USER_WC_WR_FLUSH_ERR,
	VUR_USER_WC_BAD_RESP_ERR,
	VUR_USER_WC_LOC_ACCESS_ERR,
	VUR_USER_WC_REM_INV_REQ_ERR,
	VUR_USER_WC_REM_ACCESS_ERR,
	VUR_USER_WC_REM_OP_ERR,
	VUR_USER_WC_RETRY_EXC_ERR,
	VUR_USER_WC_RNR_RETRY_EXC_ERR,
	VUR_USER_WC_REM_ABORT_ERR,
	VUR_USER_WC_FATAL_ERR,
	VUR_USER_WC_RESP_TIMEOUT_ERR,
	VUR_USER_WC_GENERAL_ERR,
	VUR_USER_WC_MW_BIND_ERR, /**< a BIND_MW failed its checks */
};

/**
 * Work completion flags: the wire's, enum ibv_wc_flags' for GRH and
 * WITH_IMM; WITH_INV is the kernel's IB_WC_WITH_INVALIDATE (1 << 3 in
 * libibverbs).
 */
enum vur_user_wc_flags {
	VUR_USER_WC_GRH = 1 << 0,      /**< a UD receive: the first 40 bytes hold a GRH */
	VUR_USER_WC_WITH_IMM = 1 << 1, /**< imm_data is valid */
	VUR_USER_WC_WITH_INV = 1 << 2, /**< a SEND_WITH_INV invalidated invalidate_rkey */
};

/**
 * A scatter/gather element: @ref addr is in the address space of the MR
 * whose lkey it names: the driver address (vur_user_driver_addr()) for a
 * DMA MR, the iova for a user MR.
 */
struct vur_user_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** A send work request, as struct ibv_send_wr without the list link. */
struct vur_user_send_wr {
	uint64_t wr_id;
	uint8_t opcode;     /**< enum vur_user_wr_opcode */
	uint8_t send_flags; /**< enum vur_user_send_flags */
	uint32_t imm_data;  /**< network byte order, as in verbs */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma; /**< RDMA WRITE and READ */
		/**
		 * CMP_AND_SWP and FETCH_AND_ADD, as ibv_send_wr's: the 8 bytes
		 * at remote_addr (8-byte aligned) as a little-endian u64; what
		 * they held lands in sg_list, one element of 8 bytes whose MR
		 * allows LOCAL_WRITE, little-endian too.
		 */
		struct {
			uint64_t remote_addr;
			uint64_t compare_add; /**< CMP_AND_SWP: compare; FETCH_AND_ADD: add */
			uint64_t swap;        /**< CMP_AND_SWP */
			uint32_t rkey;        /**< an MR with VUR_USER_ACCESS_REMOTE_ATOMIC */
		} atomic;
		struct {
			uint32_t ah; /**< an AH of the QP's PD */
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud; /**< UD and GSI QPs */
		struct {
			uint32_t invalidate_rkey;
		} inv; /**< LOCAL_INV and SEND_WITH_INV */
		/**
		 * REG_MR: the ALLOC_MR MR @p key names becomes valid with @p key
		 * over [@p iova, @p iova + @p length). Its pages are listed in
		 * driver memory, one little-endian driver address each, aligned
		 * to 1 << @p page_shift, the first holding the iova's offset:
		 * sg_list[0] names that list (addr: its driver address, length:
		 * 8 x pages, lkey 0), num_sge 1. The device reads it when it
		 * executes the WR: keep it until the WR completes.
		 */
		struct {
			uint64_t iova;
			uint64_t length;
			uint32_t key;       /**< the MR's key with a new low byte */
			uint32_t access;    /**< enum vur_user_access_flags */
			uint8_t page_shift; /**< 12 to 30 */
		} reg;
		/**
		 * BIND_MW: the MW @p rkey names (its key with a new low byte,
		 * its new rkey) bound to [@p addr, @p addr + @p length) of the
		 * MR of @p mr_lkey, in that MR's addresses, with the remote
		 * rights @p access (REMOTE_READ, REMOTE_WRITE). A type 1 MW
		 * with @p addr 0 and @p length 0 is unbound.
		 */
		struct {
			uint64_t addr;
			uint64_t length;
			uint32_t mr_lkey;
			uint32_t rkey;
			uint32_t access; /**< enum vur_user_access_flags */
		} bind;
	};
	const struct vur_user_sge *sg_list; /**< without VUR_USER_SEND_INLINE */
	uint32_t num_sge;
	const void *inline_data; /**< with VUR_USER_SEND_INLINE: this process's memory */
	uint32_t inline_len;     /**< up to 512 bytes */
};

/** A receive work request. */
struct vur_user_recv_wr {
	uint64_t wr_id;
	const struct vur_user_sge *sg_list;
	uint32_t num_sge;
};

/** A work completion, as struct ibv_wc. */
struct vur_user_wc {
	uint64_t wr_id;
	uint8_t status; /**< enum vur_user_wc_status */
	uint8_t opcode; /**< enum vur_user_wc_opcode; not to be relied on for an error */
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data; /**< network byte order, with VUR_USER_WC_WITH_IMM */
	uint32_t qp_num;
	uint32_t src_qp;          /**< UD and GSI receives */
	uint32_t wc_flags;        /**< enum vur_user_wc_flags */
	uint32_t invalidate_rkey; /**< with VUR_USER_WC_WITH_INV */
};

/**
 * Post send WRs on a QP: each is laid out as the spec's request in a slot
 * of driver memory that the library set aside at CREATE_QP (cap.max_send_wr
 * slots, room for cap.max_send_sge elements each), and made available on
 * the QP's send virtqueue; the device is notified once, after the last.
 * The values the device validates (opcode for the QP type, keys, lengths,
 * state) are sent as given, so that a bad WR completes with the status the
 * spec names, as with verbs.
 *
 * @param dev  an open device with VIRTIO_NET_F_ROCE
 * @param qpn  a QP of this device
 * @param wr   the WRs
 * @param n    how many
 * @param bad  receives the index of the first WR not posted when the call
 *             fails (the ones before it are posted); may be NULL
 * @return 0 when all are posted; -EINVAL (NULL, no such QP, num_sge above
 *         the QP's max_send_sge, inline_len above 512), -ENOMEM (cap.max_send_wr
 *         WRs outstanding: ROCE-DRV-WR-2)
 */
int vur_user_post_send(struct vur_user_dev *dev, uint32_t qpn, const struct vur_user_send_wr *wr,
		unsigned int n, unsigned int *bad);

/**
 * Post receive WRs on a QP, as vur_user_post_send() does send WRs.
 *
 * @return 0, -EINVAL (NULL, no such QP, num_sge above max_recv_sge),
 *         -ENOMEM (cap.max_recv_wr WRs outstanding)
 */
int vur_user_post_recv(struct vur_user_dev *dev, uint32_t qpn, const struct vur_user_recv_wr *wr,
		unsigned int n, unsigned int *bad);

/**
 * Take up to @p n completions of a CQ, oldest first; each CQE's buffer is
 * made available to the device again. The library made the CQ's buffers
 * available at CREATE_CQ: as many as its cqe, so that a CQ overruns as
 * IBTA says, when more than cqe completions wait.
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param cqn a CQ of this device
 * @param wc  receives the completions
 * @param n   room in @p wc
 * @return the number taken (0 if none waits), or -EINVAL (NULL, no such
 *         CQ), -EPROTO (the device wrote a CQE of the wrong size)
 */
int vur_user_poll_cq(struct vur_user_dev *dev, uint32_t cqn, struct vur_user_wc *wc, int n);

/**
 * The file descriptor to poll() for a CQ's completion events: readable once
 * the device notified an armed CQ (vur_user_req_notify_cq()), until
 * vur_user_get_cq_event() takes the event. As with ibv_req_notify_cq(), arm,
 * poll the CQ once more, then wait (ROCE-DRV-NOTIFY-2). Owned by the device.
 *
 * @param dev an open device with VIRTIO_NET_F_ROCE
 * @param cqn a CQ of this device
 * @return the descriptor, or -EINVAL
 */
int vur_user_cq_event_fd(const struct vur_user_dev *dev, uint32_t cqn);

/**
 * Wait for and take a completion event of a CQ, as ibv_get_cq_event(). The
 * CQ is no longer armed afterwards (the device disarms it when it
 * notifies); there is nothing to acknowledge.
 *
 * @param dev        an open device with VIRTIO_NET_F_ROCE
 * @param cqn        a CQ of this device
 * @param timeout_ms how long to wait; 0 to check, -1 for no limit
 * @return 1 when an event was taken, 0 if none came within @p timeout_ms,
 *         or -EINVAL or an error of poll()
 */
int vur_user_get_cq_event(struct vur_user_dev *dev, uint32_t cqn, int timeout_ms);

/**
 * @param status enum vur_user_wc_status
 * @return its name, as ibv_wc_status_str() would give it
 */
const char *vur_user_wc_status_str(uint8_t status);

#ifdef __cplusplus
}
#endif

#endif /* VUR_VERBS_H */
