/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Opening and closing a device: the vhost-user frontend's start-up sequence
 * (as DPDK's virtio-user sends it, and QEMU's vhost_dev_start for the rings),
 * which is also the virtio driver's initialization (virtio 3.1.1) with
 * vhost-user requests in place of register accesses:
 *
 *   SET_OWNER, GET_FEATURES, GET/SET_PROTOCOL_FEATURES, GET_QUEUE_NUM,
 *   SET_BACKEND_REQ_FD                          (vhost-user session)
 *   SET_FEATURES                                (FEATURES_OK)
 *   GET_CONFIG                                  (RDMA queue counts)
 *   SET_MEM_TABLE, per virtqueue SET_VRING_NUM/BASE/ADDR/KICK/CALL,
 *   then SET_VRING_ENABLE on each               (virtqueue setup, DRIVER_OK)
 *   GET_FEATURES                                (round trip: all processed)
 *
 * Every virtqueue of the layout is set up: librte_vhost starts a device
 * (new_device) only when every vring up to the highest index touched is
 * ready, and it is the device that assigns CQ and QP numbers, so the driver
 * cannot know in advance which RDMA queues it will need.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "device.h"
#include "log.h"
#include "negotiate.h"
#include "rdma_q.h"
#include "virtqueue.h"

bool
vuser_dev_has(const struct vur_user_dev *d, unsigned int bit)
{
	return (d->features & VUSER_BIT(bit)) != 0;
}

struct vuser_vq *
vuser_dev_ctrl_vq(struct vur_user_dev *d)
{
	uint32_t idx = virtio_net_roce_ctrl_vq(1);

	if (!vuser_dev_has(d, VIRTIO_NET_F_CTRL_VQ) || idx >= d->n_setup)
		return NULL;
	return &d->vqs[idx];
}

static bool
ring_size_ok(uint16_t n)
{
	return n != 0 && (n & (n - 1)) == 0 && n <= VUSER_VRING_MAX_SIZE;
}

static int
check_params(const struct vur_user_params *p)
{
	if (p->path == NULL || strlen(p->path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -EINVAL;
	if (p->mem_size == 0 || p->mem_size % VUSER_PAGE_SIZE != 0)
		return -EINVAL;
	if (!ring_size_ok(p->net_queue_size) || !ring_size_ok(p->ctrl_queue_size) ||
			!ring_size_ok(p->rdma_queue_size))
		return -EINVAL;
	if (p->timeout_ms == 0 || p->timeout_ms > INT_MAX)
		return -EINVAL;
	return 0;
}

void
vur_user_params_init(struct vur_user_params *p, const char *path)
{
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->features = vur_user_supported_features(false);
	p->mem_size = VUR_USER_DEFAULT_MEM_SIZE;
	p->net_queue_size = VUR_USER_DEFAULT_NET_QUEUE_SIZE;
	p->ctrl_queue_size = VUR_USER_DEFAULT_CTRL_QUEUE_SIZE;
	p->rdma_queue_size = VUR_USER_DEFAULT_RDMA_QUEUE_SIZE;
	p->timeout_ms = VUR_USER_DEFAULT_TIMEOUT_MS;
}

static int
connect_backend(struct vur_user_dev *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ret;

	d->conn.sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (d->conn.sock < 0)
		return -errno;
	strcpy(sa.sun_path, d->name);
	if (connect(d->conn.sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		VUSER_LOG(ERR, d->name, "connect: %s", strerror(errno));
		return ret;
	}
	return 0;
}

static int
negotiate_protocol(struct vur_user_dev *d)
{
	const char *why = NULL;
	uint64_t offered = 0, queues = 0;
	int ret;

	ret = vuser_req_get_u64(&d->conn, VHOST_USER_GET_PROTOCOL_FEATURES, &offered);
	if (ret < 0)
		return ret;
	ret = vuser_protocol_negotiate(offered, &d->protocol_features, &why);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "%s", why);
		return ret;
	}
	ret = vuser_req_set_u64(&d->conn, VHOST_USER_SET_PROTOCOL_FEATURES, d->protocol_features);
	if (ret < 0)
		return ret;
	d->conn.reply_ack = d->protocol_features & VUSER_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK);

	if (d->protocol_features & VUSER_BIT(VHOST_USER_PROTOCOL_F_MQ)) {
		ret = vuser_req_get_u64(&d->conn, VHOST_USER_GET_QUEUE_NUM, &queues);
		if (ret < 0)
			return ret;
		/* Queue pairs, as librte_vhost and QEMU's vhost-user-net count them. */
		d->max_queue_pairs = queues;
	}
	return 0;
}

/* The backend's channel: a socketpair whose other end the backend keeps. */
static int
open_backend_channel(struct vur_user_dev *d)
{
	int sv[2], ret;

	if (!(d->protocol_features & VUSER_BIT(VHOST_USER_PROTOCOL_F_BACKEND_REQ)))
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	ret = vuser_req_backend_fd(&d->conn, sv[1]);
	close(sv[1]);
	if (ret < 0) {
		close(sv[0]);
		return ret;
	}
	d->backend_fd = sv[0];
	return 0;
}

static int
negotiate_features(struct vur_user_dev *d)
{
	const char *why = NULL;
	int ret;

	ret = vuser_req_get_u64(&d->conn, VHOST_USER_GET_FEATURES, &d->offered);
	if (ret < 0)
		return ret;
	ret = vuser_features_negotiate(d->offered, d->params.features, d->params.rfc2_numbering,
			&d->features, &why);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "%s", why);
		return ret;
	}
	d->roce = vuser_dev_has(d, vuser_roce_bit(d->params.rfc2_numbering));
	d->port_speed = vuser_dev_has(d, VIRTIO_NET_F_ROCE_PORT_SPEED);
	return 0;
}

/*
 * The virtqueue layout from the RDMA queue counts; checked against the
 * transport. @cfg keeps the configuration read, the async events' start.
 */
static int
plan_queues(struct vur_user_dev *d, struct vur_user_config *cfg)
{
	int ret;

	ret = vuser_dev_get_config(d, cfg);
	if (ret < 0)
		return ret;
	d->n_vqs = vuser_dev_has(d, VIRTIO_NET_F_CTRL_VQ) ? 3 : 2;
	if (d->roce) {
		/* ROCE-DEV-CFG-1, -2: a device outside these ranges is broken. */
		if (cfg->max_rdma_qps < VIRTIO_NET_ROCE_MIN_QPS ||
				cfg->max_rdma_qps > VIRTIO_NET_ROCE_MAX_QPS ||
				cfg->max_rdma_cqs < 1 ||
				cfg->max_rdma_cqs > VIRTIO_NET_ROCE_MAX_CQS) {
			VUSER_LOG(ERR, d->name, "out of spec: max_rdma_qps %u, max_rdma_cqs %u",
					cfg->max_rdma_qps, cfg->max_rdma_cqs);
			return -EPROTO;
		}
		d->max_qps = cfg->max_rdma_qps;
		d->max_cqs = cfg->max_rdma_cqs;
		d->n_vqs = virtio_net_roce_num_vqs(1, d->max_cqs, d->max_qps);
		/* ROCE-DRV-RING-1: the doorbell and event queues after the QP pairs */
		d->rings.k = vuser_rings_plan(d, cfg->rdma_ring_queues);
		d->rings.k_dev = cfg->rdma_ring_queues;
		while (d->rings.k > 0 &&
				(d->n_vqs + 2u * d->rings.k > VHOST_USER_VRING_IDX_MASK + 1 ||
						(d->max_queue_pairs != 0 &&
								d->n_vqs + 2u * d->rings.k >
										2 * d->max_queue_pairs)))
			d->rings.k--;
		d->rings.first_vq = d->n_vqs;
		d->n_vqs = virtio_net_roce_num_vqs_rings(1, d->max_cqs, d->max_qps, d->rings.k);
		ret = vuser_rdma_q_init(d);
		if (ret < 0)
			return ret;
	}
	/* SET_VRING_KICK and _CALL carry the index in 8 bits. */
	if (d->n_vqs > VHOST_USER_VRING_IDX_MASK + 1 ||
			(d->max_queue_pairs != 0 && d->n_vqs > 2 * d->max_queue_pairs)) {
		VUSER_LOG(ERR, d->name,
				"%u virtqueues: more than vhost-user (%u) or the backend (%" PRIu64
				" pairs) allows",
				d->n_vqs, VHOST_USER_VRING_IDX_MASK + 1, d->max_queue_pairs);
		return -ENOTSUP;
	}
	return 0;
}

static int
share_memory(struct vur_user_dev *d)
{
	struct vuser_mem_region region = {
		.guest_phys_addr = d->mem.gpa,
		.memory_size = d->mem.size,
		.userspace_addr = (uintptr_t)d->mem.hva,
		.mmap_offset = 0,
	};

	return vuser_req_mem_table(&d->conn, &region, &d->mem.fd, 1);
}

static uint16_t
queue_size(const struct vur_user_dev *d, uint32_t index)
{
	uint32_t num;

	switch (virtio_net_roce_vq_classify(index, 1, d->max_cqs, d->max_qps, &num)) {
	case VIRTIO_NET_ROCE_VQ_NET:
		return d->params.net_queue_size;
	case VIRTIO_NET_ROCE_VQ_CTRL:
		return d->params.ctrl_queue_size;
	default:
		return d->params.rdma_queue_size;
	}
}

/*
 * Every ring is set up before any is enabled, as QEMU does: librte_vhost
 * starts the device (new_device) as soon as every vring allocated so far is
 * ready, so enabling ring by ring would start it with one ring.
 */
static int
setup_queues(struct vur_user_dev *d)
{
	uint32_t i;
	int ret;

	d->vqs = calloc(d->n_vqs, sizeof(d->vqs[0]));
	if (d->vqs == NULL)
		return -ENOMEM;
	for (i = 0; i < d->n_vqs; i++) {
		d->vqs[i].kick_fd = -1;
		d->vqs[i].call_fd = -1;
	}
	for (i = 0; i < d->n_vqs; i++) {
		ret = vuser_vq_setup(d, &d->vqs[i], i, queue_size(d, i));
		d->n_setup = i + 1; /* the failed one too: it holds resources */
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < d->n_vqs; i++) {
		ret = vuser_vq_enable(d, &d->vqs[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * librte_vhost answers a request before it acts on the device's readiness
 * (new_device), but handles one request at a time: when this reply comes,
 * the enable of the last ring has been fully processed.
 */
static int
sync_backend(struct vur_user_dev *d)
{
	uint64_t offered = 0;
	int ret;

	ret = vuser_req_get_u64(&d->conn, VHOST_USER_GET_FEATURES, &offered);
	if (ret == 0 && offered != d->offered) {
		VUSER_LOG(ERR, d->name,
				"backend changed its features from 0x%" PRIx64 " to 0x%" PRIx64,
				d->offered, offered);
		ret = -EPROTO;
	}
	return ret;
}

static void
free_dev(struct vur_user_dev *d)
{
	uint32_t i;

	vuser_eq_stop(d);
	if (d->conn.sock >= 0)
		close(d->conn.sock);
	vuser_async_fini(d);
	if (d->backend_fd >= 0)
		close(d->backend_fd);
	vuser_ctrl_release_all(d);
	vuser_bufs_release_all(d);
	vuser_rdma_q_fini(d);
	vuser_rings_fini(d);
	vuser_net_fini(d);
	for (i = 0; i < d->n_setup; i++)
		vuser_vq_free(d, &d->vqs[i]);
	free(d->vqs);
	vuser_mem_fini(&d->mem);
	pthread_mutex_destroy(&d->async.lock);
	pthread_mutex_destroy(&d->async.qlock);
	pthread_mutex_destroy(&d->rings.lock);
	pthread_mutex_destroy(&d->rings.ev_lock);
	pthread_mutex_destroy(&d->buf_lock);
	pthread_mutex_destroy(&d->ctrl_lock);
	pthread_mutex_destroy(&d->conn_lock);
	free(d->name);
	free(d);
}

static struct vur_user_dev *
alloc_dev(const struct vur_user_params *p)
{
	struct vur_user_dev *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->name = strdup(p->path);
	if (d->name == NULL) {
		free(d);
		return NULL;
	}
	d->params = *p;
	d->params.path = d->name;
	d->conn.sock = -1;
	d->conn.timeout_ms = (int)p->timeout_ms;
	d->conn.name = d->name;
	d->backend_fd = -1;
	d->mem.fd = -1;
	d->async.epoll_fd = -1;
	d->async.pending_fd = -1;
	pthread_mutex_init(&d->conn_lock, NULL);
	pthread_mutex_init(&d->ctrl_lock, NULL);
	pthread_mutex_init(&d->buf_lock, NULL);
	pthread_mutex_init(&d->async.lock, NULL);
	pthread_mutex_init(&d->async.qlock, NULL);
	pthread_mutex_init(&d->rings.lock, NULL);
	pthread_mutex_init(&d->rings.ev_lock, NULL);
	d->rings.epoll_fd = -1;
	d->rings.stop_fd = -1;
	return d;
}

static int
bring_up(struct vur_user_dev *d)
{
	struct vur_user_config cfg;
	int ret;

	ret = vuser_mem_init(&d->mem, d->params.mem_size, VUR_USER_GPA_BASE);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "driver memory of %zu bytes: %s", d->params.mem_size,
				strerror(-ret));
		return ret;
	}
	ret = connect_backend(d);
	if (ret == 0)
		ret = vuser_req_no_payload(&d->conn, VHOST_USER_SET_OWNER);
	if (ret == 0)
		ret = negotiate_features(d);
	if (ret == 0)
		ret = negotiate_protocol(d);
	if (ret == 0)
		ret = open_backend_channel(d);
	if (ret == 0)
		ret = vuser_req_set_u64(&d->conn, VHOST_USER_SET_FEATURES, d->features);
	if (ret == 0)
		ret = plan_queues(d, &cfg);
	if (ret == 0)
		ret = vuser_async_init(d, &cfg);
	if (ret == 0)
		ret = share_memory(d);
	if (ret == 0)
		ret = setup_queues(d);
	if (ret == 0)
		ret = vuser_net_init(d, cfg.mtu);
	if (ret == 0)
		ret = sync_backend(d);
	if (ret == 0)
		ret = vuser_rings_init(d);
	return ret;
}

int
vur_user_open(const struct vur_user_params *params, struct vur_user_dev **devp)
{
	struct vur_user_dev *d;
	int ret;

	if (params == NULL || devp == NULL || check_params(params) < 0)
		return -EINVAL;
	d = alloc_dev(params);
	if (d == NULL)
		return -ENOMEM;
	ret = bring_up(d);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "open failed: %s", strerror(-ret));
		free_dev(d);
		return ret;
	}
	VUSER_LOG(INFO, d->name,
			"open: features 0x%" PRIx64 ", protocol 0x%" PRIx64
			", %u virtqueues, %u ring queue pairs%s",
			d->features, d->protocol_features, d->n_vqs, d->rings.k,
			d->rings.available && d->rings.dflt ? " (objects on rings)" : "");
	*devp = d;
	return 0;
}

int
vur_user_close(struct vur_user_dev *d)
{
	uint32_t i;
	int ret, first = 0;

	if (d == NULL)
		return 0;
	pthread_mutex_lock(&d->conn_lock);
	for (i = 0; i < d->n_setup && !d->conn.broken; i++) {
		ret = vuser_vq_stop(d, &d->vqs[i]);
		if (ret < 0 && first == 0)
			first = ret;
	}
	pthread_mutex_unlock(&d->conn_lock);
	if (first < 0)
		VUSER_LOG(ERR, d->name, "close: stopping the virtqueues failed: %s",
				strerror(-first));
	free_dev(d);
	return first;
}

void
vur_user_close_abrupt(struct vur_user_dev *d)
{
	if (d != NULL)
		free_dev(d);
}

uint64_t
vur_user_features(const struct vur_user_dev *d)
{
	return d->features & ~VUSER_BIT(VHOST_USER_F_PROTOCOL_FEATURES);
}

uint64_t
vur_user_protocol_features(const struct vur_user_dev *d)
{
	return d->protocol_features;
}

bool
vur_user_has_roce(const struct vur_user_dev *d)
{
	return d->roce;
}

bool
vur_user_has_port_speed(const struct vur_user_dev *d)
{
	return d->port_speed;
}

uint8_t
vur_user_roce_class(const struct vur_user_dev *d)
{
	return d->params.rfc2_numbering ? VIRTIO_NET_CTRL_ROCE_RFC2 : VIRTIO_NET_CTRL_ROCE;
}

uint32_t
vur_user_num_queues(const struct vur_user_dev *d)
{
	return d->n_setup;
}

int
vur_user_backend_fd(const struct vur_user_dev *d)
{
	return d->backend_fd;
}
