/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libvirtio_rdma_user: a userspace driver for the virtio-net RoCE device that
 * is at the same time the vhost-user frontend, as DPDK's virtio-user is for
 * virtio-net. A process (a container, a test, a benchmark) connects to the
 * backend's socket and drives the device without QEMU and without a guest
 * kernel.
 *
 * This first layer opens a device (feature negotiation, driver memory,
 * virtqueues), reads its configuration space, runs control commands and
 * receives the backend's notifications. The verbs API sits on top of it.
 *
 * Errors are negative errno values; the reason is logged through the hook
 * set with vur_user_set_log(). A device may be used from several threads:
 * vhost-user requests and control commands are serialized internally;
 * vur_user_backend_event() is for one thread at a time, and
 * vur_user_close() for when no other call on the device is under way.
 *
 * Resources per device: the driver memory (a memfd) and two eventfds per
 * virtqueue (390 with the backend's defaults of 64 QPs and 64 CQs).
 */
#ifndef VUR_USER_H
#define VUR_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Driver memory is one memfd mapped shared by this process and the backend.
 * Its driver ("guest-physical") addresses start at VUR_USER_GPA_BASE: not
 * zero, so that a zero address is never valid, and above 4 GiB, so that an
 * address truncated to 32 bits falls outside the memory table.
 */
#define VUR_USER_GPA_BASE                0x100000000ULL
#define VUR_USER_DEFAULT_MEM_SIZE        (64u << 20)
#define VUR_USER_DEFAULT_NET_QUEUE_SIZE  256
#define VUR_USER_DEFAULT_CTRL_QUEUE_SIZE 64
#define VUR_USER_DEFAULT_RDMA_QUEUE_SIZE 64
#define VUR_USER_DEFAULT_TIMEOUT_MS      5000

/* Log levels, numbered as syslog's. */
enum vur_user_log_level {
	VUR_USER_LOG_ERR = 3,
	VUR_USER_LOG_WARNING = 4,
	VUR_USER_LOG_INFO = 6,
	VUR_USER_LOG_DEBUG = 7,
};

/**
 * Receives one formatted log line (no trailing newline).
 *
 * @param arg   the pointer given to vur_user_set_log()
 * @param level one of enum vur_user_log_level
 * @param msg   the line, prefixed with the device's socket path when it
 *              concerns a device
 */
typedef void (*vur_user_log_fn)(void *arg, int level, const char *msg);

/**
 * Route the library's log lines. Process-wide; call it before opening
 * devices.
 *
 * @param fn        the hook, or NULL for the default (stderr)
 * @param arg       passed to @p fn
 * @param max_level lines above this level are dropped (default
 *                  VUR_USER_LOG_WARNING)
 */
void vur_user_set_log(vur_user_log_fn fn, void *arg, int max_level);

/** How to open a device. Fill with vur_user_params_init(), then adjust. */
struct vur_user_params {
	/** the backend's vhost-user socket (the backend listens) */
	const char *path;
	/**
	 * Virtio feature bits the caller wants, in the numbering chosen below.
	 * The device gets what it offers of these, restricted to
	 * vur_user_supported_features() and to the spec's dependencies
	 * (ROCE needs CTRL_VQ, ROCE_PORT_SPEED needs ROCE).
	 */
	uint64_t features;
	/**
	 * RFC v2 numbering: VIRTIO_NET_F_ROCE is bit 55, the control class is 6
	 * and the configuration space is struct virtio_net_roce_config_rfc2.
	 * Only for a backend started with --rfc2-numbering; ask for bit 55 in
	 * @ref features then (vur_user_supported_features(true)).
	 */
	bool rfc2_numbering;
	/** driver memory in bytes, a multiple of 4096 (default 64 MiB) */
	size_t mem_size;
	/** ring sizes, powers of two up to 32768 */
	uint16_t net_queue_size;
	uint16_t ctrl_queue_size;
	uint16_t rdma_queue_size;
	/** bound on every wait for the backend: replies, control commands */
	unsigned int timeout_ms;
	/**
	 * bytes per receive buffer, header included (vur_net.h); 0 for the
	 * default: 2048 with VIRTIO_NET_F_MRG_RXBUF, else room for the header
	 * and a frame of the device's MTU with two VLAN tags
	 */
	uint32_t net_rx_buf_size;
	/**
	 * Queue layout of new QPs, CQs and SRQs (enum vur_user_layout). With
	 * VUR_USER_LAYOUT_AUTO (0, the default) the environment variable
	 * VUR_USER_LAYOUT ("rings" or "virtqueues") decides, else rings when
	 * the device offers them, else the RFC v2 virtqueues. Rings need a
	 * device that offers them
	 * (rdma_ring_queues > 0 and VUR_USER_DEVICE_RINGS); their queues are
	 * set up whenever offered, unless "virtqueues" was chosen. A create
	 * flag overrides the choice per object.
	 */
	uint8_t layout;
	/** event queue buffers per event queue; 0 for the default (64) */
	uint16_t eq_buffers;
};

/** Queue layouts (struct vur_user_params.layout). */
enum vur_user_layout {
	VUR_USER_LAYOUT_AUTO = 0,
	VUR_USER_LAYOUT_VIRTQUEUES = 1, /**< RFC v2: a virtqueue per CQ, two per QP */
	VUR_USER_LAYOUT_RINGS = 2,      /**< rings in driver memory, doorbells, event queues */
};

/** The decoded configuration space, in host byte order. */
struct vur_user_config {
	uint8_t mac[6];
	uint16_t status;              /**< VIRTIO_NET_S_* (VIRTIO_NET_F_STATUS) */
	uint16_t max_virtqueue_pairs; /**< raw field; the driver uses one pair */
	uint16_t mtu;                 /**< VIRTIO_NET_F_MTU */
	uint32_t speed;               /**< Mb/s (VIRTIO_NET_F_SPEED_DUPLEX) */
	uint8_t duplex;               /**< VIRTIO_NET_F_SPEED_DUPLEX */
	uint32_t max_rdma_qps;        /**< VIRTIO_NET_F_ROCE */
	uint32_t max_rdma_cqs;        /**< VIRTIO_NET_F_ROCE */
	uint64_t roce_port_speed;     /**< 100 Mb/s (VIRTIO_NET_F_ROCE_PORT_SPEED) */
	uint16_t rdma_ring_queues;    /**< doorbell/event queue pairs; 0: no rings */
};

/** Events vur_user_backend_event() returns. */
enum vur_user_event {
	VUR_USER_EVENT_NONE = 0,          /**< nothing within the timeout */
	VUR_USER_EVENT_CONFIG_CHANGE = 1, /**< the configuration space changed */
};

struct vur_user_dev;

/**
 * Virtio feature bits this driver can negotiate in the given numbering:
 * VERSION_1, EVENT_IDX, INDIRECT_DESC, the virtio-net bits CTRL_VQ, MAC,
 * STATUS, MTU, SPEED_DUPLEX, MRG_RXBUF, the control-queue features CTRL_RX, CTRL_VLAN,
 * CTRL_RX_EXTRA, GUEST_ANNOUNCE and CTRL_MAC_ADDR (their commands are the
 * caller's, through vur_user_ctrl(); they need CTRL_VQ), and
 * VIRTIO_NET_F_ROCE (bit 58, or 55 in the RFC v2 numbering) with
 * VIRTIO_NET_F_ROCE_PORT_SPEED (bit 4). Never MQ: the driver uses one
 * queue pair.
 */
uint64_t vur_user_supported_features(bool rfc2_numbering);

/**
 * Fill @p params with the defaults: every supported feature, 64 MiB of
 * driver memory, the default queue sizes and timeout.
 *
 * @param params filled in
 * @param path   the backend's socket
 */
void vur_user_params_init(struct vur_user_params *params, const char *path);

/**
 * Connect to the backend and bring the device up: negotiate features and
 * vhost-user protocol features, set up the backend's notification channel,
 * read the configuration space, share driver memory, and set up every
 * virtqueue: receiveq1, transmitq1 and the control queue, and with
 * VIRTIO_NET_F_ROCE every completion, send and receive virtqueue of the
 * max_rdma_cqs CQs and max_rdma_qps QPs (QP 0's pair included). All of them
 * are set up because the device, not the driver, picks CQ and QP numbers,
 * and because librte_vhost starts a device only when every virtqueue up to
 * the highest index touched is ready. When this returns, the backend has
 * processed every request (a final GET_FEATURES round trip orders it).
 *
 * @param params how to open; see struct vur_user_params
 * @param devp   receives the device
 * @return 0, or -EINVAL (bad parameters), -ECONNREFUSED/-ENOENT (no
 *         backend), -ETIMEDOUT, -EPROTO (malformed reply or out-of-spec
 *         configuration), -EIO (the backend refused a request), -ENOTSUP
 *         (the backend lacks what the driver needs), -ENOMEM
 */
int vur_user_open(const struct vur_user_params *params, struct vur_user_dev **devp);

/**
 * Stop the device cleanly and free it: GET_VRING_BASE on every virtqueue
 * (the backend stops the device on the first), then close the connection
 * and release memory and file descriptors. @p dev is freed even on error.
 *
 * @param dev the device; NULL is allowed
 * @return 0, or the first error met while stopping the queues
 */
int vur_user_close(struct vur_user_dev *dev);

/**
 * Free the device after closing the connection without any request, as a
 * crashing process would. For tests of the backend's disconnect handling.
 *
 * @param dev the device; NULL is allowed
 */
void vur_user_close_abrupt(struct vur_user_dev *dev);

/**
 * @param dev an open device
 * @return the negotiated virtio feature bits (without the vhost-user
 *         transport bit VHOST_USER_F_PROTOCOL_FEATURES)
 */
uint64_t vur_user_features(const struct vur_user_dev *dev);

/**
 * @param dev an open device
 * @return the negotiated vhost-user protocol feature bits
 */
uint64_t vur_user_protocol_features(const struct vur_user_dev *dev);

/**
 * @param dev an open device
 * @return true if VIRTIO_NET_F_ROCE (in the device's numbering) is negotiated
 */
bool vur_user_has_roce(const struct vur_user_dev *dev);

/**
 * @param dev an open device
 * @return true if VIRTIO_NET_F_ROCE_PORT_SPEED is negotiated
 */
bool vur_user_has_port_speed(const struct vur_user_dev *dev);

/**
 * @param dev an open device
 * @return the control class of RoCE commands: VIRTIO_NET_CTRL_ROCE (64), or
 *         VIRTIO_NET_CTRL_ROCE_RFC2 (6) in the RFC v2 numbering
 */
uint8_t vur_user_roce_class(const struct vur_user_dev *dev);

/**
 * @param dev an open device
 * @return the number of virtqueues set up (2N+1, plus M+2L with RoCE,
 *         plus 2K doorbell and event queues with rings)
 */
uint32_t vur_user_num_queues(const struct vur_user_dev *dev);

/**
 * Read the configuration space again (one VHOST_USER_GET_CONFIG, which the
 * backend answers from one snapshot, so multi-byte fields are consistent)
 * and decode it. Fields of features that are not negotiated read as 0.
 *
 * @param dev an open device
 * @param cfg receives the decoded fields
 * @return 0, -ETIMEDOUT, -EPROTO, -EIO
 */
int vur_user_read_config(struct vur_user_dev *dev, struct vur_user_config *cfg);

/**
 * Run one control command and wait for its answer (virtio-net control
 * virtqueue format): [class, command, @p data] device-readable, then
 * [ack, @p ack_len bytes] device-writable, in driver memory. Waits on the
 * control queue's used-buffer notification, at most the open timeout.
 * A command that times out stays with the device; its buffer is reclaimed
 * when the device returns it or when the device is closed.
 *
 * The driver requirements of the RoCE section are enforced: RoCE commands
 * need VIRTIO_NET_F_ROCE, QUERY_PORT_SPEED needs VIRTIO_NET_F_ROCE_PORT_SPEED
 * (ROCE-DRV-CTRL-1, -2); ack data of a failed command is not returned
 * (ROCE-DRV-CTRL-5).
 *
 * @param dev     an open device
 * @param cls     command class, e.g. vur_user_roce_class(dev)
 * @param cmd     command
 * @param data    command-specific-data, may be NULL when @p len is 0
 * @param len     its length
 * @param ack     receives the ack-specific-data; bytes the device did not
 *                write, and all of it when the call fails, are zeroed; may
 *                be NULL when @p ack_len is 0
 * @param ack_len room for ack-specific-data
 * @param status  receives the ack byte (VIRTIO_NET_OK or VIRTIO_NET_ERR);
 *                VIRTIO_NET_ERR when the call fails
 * @return bytes of ack-specific-data the device wrote (0 when *status is
 *         not VIRTIO_NET_OK), or -EOPNOTSUPP, -EINVAL, -ENOMEM (driver
 *         memory exhausted), -ETIMEDOUT, -EPROTO (the device returned a
 *         buffer it does not own or wrote more than it may), -EIO (the
 *         control queue broke earlier)
 */
int vur_user_ctrl(struct vur_user_dev *dev, uint8_t cls, uint8_t cmd, const void *data,
		uint32_t len, void *ack, uint32_t ack_len, uint8_t *status);

/**
 * @param dev an open device
 * @return the file descriptor that becomes readable when the backend sends
 *         a message (for poll()), or -1 if VHOST_USER_PROTOCOL_F_BACKEND_REQ
 *         was not negotiated
 */
int vur_user_backend_fd(const struct vur_user_dev *dev);

/**
 * Wait up to @p timeout_ms for one message from the backend and handle it,
 * replying when the backend asks for a reply.
 *
 * @param dev        an open device
 * @param timeout_ms 0 to check without waiting
 * @return a positive enum vur_user_event, VUR_USER_EVENT_NONE on timeout,
 *         or -EOPNOTSUPP (a request this driver does not handle; refused),
 *         -EPROTO (malformed message), -ECONNRESET (the backend closed the
 *         channel), -ENOTCONN (no channel)
 */
int vur_user_backend_event(struct vur_user_dev *dev, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* VUR_USER_H */
