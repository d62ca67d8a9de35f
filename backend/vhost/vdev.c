/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device objects and the vhost-user glue that serves them.
 *
 * Security model: the frontend (QEMU, or a virtio-user process) is not
 * trusted. Every message the device answers itself (GET_CONFIG, SET_CONFIG)
 * is validated here before use; librte_vhost validates the rest.
 *
 * librte_vhost's callbacks carry only a vid, so devices are found through
 * a vid-indexed table filled on new_connection and cleared on
 * destroy_connection. There is no "current device".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_vhost.h>

#include "common/dev_lock.h"
#include "common/dpdk_compat.h"
#include "common/log.h"
#include "vdev.h"
#include "vdev_mem_table.h"
#include "vhost_msg.h"
#include "net/net_switch.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_vhost, vhost, INFO);

static pthread_mutex_t vid_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vur_dev *dev_by_vid[RTE_MAX_VHOST_DEVICE];
static struct vur_dev *devs[RTE_MAX_VHOST_DEVICE];

#define VUR_NET_F(bit)           (1ULL << (bit))
#define VIRTIO_NET_F_CTRL_VQ_BIT 17
#define VIRTIO_NET_F_MTU_BIT     3
#define VIRTIO_NET_F_STATUS_BIT  16
#define VUR_DEFAULT_ETH_MTU      1500 /* without VIRTIO_NET_F_MTU */

/* The vHCA port rule (below, beside the speed changes it joins). */
static bool vhca_gids_present(const struct vur_dev *dev);
static bool roce_negotiated(const struct vur_dev *dev);
static bool update_link(struct vur_dev *dev);
static void recheck_port(void *arg);

uint64_t
vur_dev_offered_features(bool rfc2_numbering, bool port_speed)
{
	/* virtio-net bits from virtio-spec 5.1.3; transport bits from 6. */
	uint64_t f = VUR_NET_F(32) |    /* VIRTIO_F_VERSION_1 */
			VUR_NET_F(28) | /* VIRTIO_RING_F_INDIRECT_DESC */
			VUR_NET_F(29) | /* VIRTIO_RING_F_EVENT_IDX */
			VUR_NET_F(VHOST_USER_F_PROTOCOL_FEATURES) |
			VUR_NET_F(3) |         /* VIRTIO_NET_F_MTU */
			VUR_NET_F(5) |         /* VIRTIO_NET_F_MAC */
			VUR_NET_F(15) |        /* VIRTIO_NET_F_MRG_RXBUF */
			VUR_NET_F(16) |        /* VIRTIO_NET_F_STATUS */
			VUR_NET_F(17) |        /* VIRTIO_NET_F_CTRL_VQ */
			VUR_NET_F(63) |        /* VIRTIO_NET_F_SPEED_DUPLEX */
			VUR_NET_CTRL_FEATURES; /* RX, MAC, VLAN, ANNOUNCE, MQ commands */

	f |= VUR_NET_F(rfc2_numbering ? VIRTIO_NET_F_ROCE_RFC2 : VIRTIO_NET_F_ROCE);
	if (port_speed)
		f |= VUR_NET_F(VIRTIO_NET_F_ROCE_PORT_SPEED);
	return f;
}

static struct vur_dev *
dev_from_vid(int vid)
{
	struct vur_dev *dev = NULL;

	if (vid < 0 || vid >= RTE_MAX_VHOST_DEVICE)
		return NULL;
	pthread_mutex_lock(&vid_lock);
	dev = dev_by_vid[vid];
	pthread_mutex_unlock(&vid_lock);
	return dev;
}

/*
 * The configuration space, encoded from the current state: the MAC the
 * driver set with MAC_ADDR_SET shows in `mac` (virtio-net 5.1.6.5.2.1).
 */
size_t
vur_dev_config_snapshot(struct vur_dev *dev, uint8_t *buf)
{
	struct vur_config_state st;
	size_t len;

	pthread_rwlock_wrlock(&dev->lock);
	st = dev->cfg_state;
	if (dev->rdma_ready) {
		memcpy(st.mac, dev->net.mac, sizeof(st.mac));
		st.announce = dev->net.announce_pending;
	}
	len = vur_config_build(&st, buf);
	pthread_rwlock_unlock(&dev->lock);
	return len;
}

static enum rte_vhost_msg_result
handle_get_config(struct vur_dev *dev, struct vur_vhost_msg *msg)
{
	struct vur_vhost_config *c = &msg->payload.cfg;
	uint8_t cfg[VUR_CONFIG_MAX_LEN];
	size_t len;

	if (msg->size < VUR_VHOST_CONFIG_HDR_SIZE || msg->size > sizeof(*c) ||
			c->size > VUR_VHOST_USER_MAX_CONFIG_SIZE) {
		VUR_DEV_LOG(dev, ERR, "GET_CONFIG: bad payload size %u", msg->size);
		goto refuse;
	}
	len = vur_dev_config_snapshot(dev, cfg);
	if (vur_config_read(cfg, len, c->offset, c->size, c->region) < 0) {
		VUR_DEV_LOG(dev, ERR, "GET_CONFIG: range %u+%u outside the %zu-byte space",
				c->offset, c->size, len);
		goto refuse;
	}
	msg->size = VUR_VHOST_CONFIG_HDR_SIZE + c->size;
	return RTE_VHOST_MSG_RESULT_REPLY;

refuse:
	/* A reply with an empty region is how a backend says no (vhost-user.rst). */
	c->size = 0;
	msg->size = VUR_VHOST_CONFIG_HDR_SIZE;
	return RTE_VHOST_MSG_RESULT_REPLY;
}

static enum rte_vhost_msg_result
handle_set_config(struct vur_dev *dev, struct vur_vhost_msg *msg)
{
	/* Every field of a virtio-net config space is read-only to the driver. */
	VUR_DEV_LOG(dev, WARNING, "SET_CONFIG refused: the configuration space is read-only");
	/*
	 * Failing without REPLY_ACK makes librte_vhost drop the connection, which
	 * a read-only write does not deserve: ignore it instead.
	 */
	if (msg->flags & VUR_VHOST_USER_NEED_REPLY)
		return RTE_VHOST_MSG_RESULT_ERR;
	return RTE_VHOST_MSG_RESULT_OK;
}

/*
 * Messages that remap guest memory or rewire a vring. librte_vhost handles
 * them while the device may be running; the control queue stops touching
 * guest memory before and picks up the new mapping after (as SPDK does).
 */
static bool
remaps_rings(uint32_t request)
{
	switch (request) {
	case VUR_VHOST_USER_SET_MEM_TABLE:
	case VUR_VHOST_USER_SET_VRING_NUM:
	case VUR_VHOST_USER_SET_VRING_ADDR:
	case VUR_VHOST_USER_SET_VRING_BASE:
	case VUR_VHOST_USER_SET_VRING_KICK:
	case VUR_VHOST_USER_SET_VRING_CALL:
		return true;
	default:
		return false;
	}
}

static void start_queues(struct vur_dev *dev);
static void stop_queues(struct vur_dev *dev);

/*
 * After the engine stopped (lock released): packets the data path built
 * refer to guest memory until it has passed a quiescent state, so wait for
 * that before librte_vhost may unmap it.
 */
static void
sync_datapath(struct vur_dev *dev)
{
	if (dev->eth.sw != NULL)
		vur_switch_sync(dev->eth.sw);
}
static enum rte_vhost_msg_result handle_reset_device(struct vur_dev *dev);

/* Every queue stopped, and the data path past what it built from guest memory. */
static void
quiesce(struct vur_dev *dev)
{
	pthread_rwlock_wrlock(&dev->lock);
	stop_queues(dev);
	pthread_rwlock_unlock(&dev->lock);
	sync_datapath(dev);
}

/*
 * RESET_OWNER is deprecated: vhost-user.rst asks a backend to ignore it or
 * to disable every ring. The backend stops serving the rings until the
 * frontend sets one up again, and does not let librte_vhost reset: its
 * reset (22.11 to 25.11) clears each vring without freeing the vring's
 * shadow and copy buffers, and unmaps the memory table without a
 * destroy_device call. A frontend repeating it filled the heap until
 * vring allocations failed, and librte_vhost then kept the eventfd of the
 * message it could not handle (fuzz_vhost found both).
 */
static enum rte_vhost_msg_result
handle_reset_owner(struct vur_dev *dev)
{
	quiesce(dev);
	VUR_DEV_LOG(dev, INFO, "RESET_OWNER (deprecated): the rings stop until set up again");
	return RTE_VHOST_MSG_RESULT_OK;
}

/*
 * librte_vhost closes the fds of the messages it handles, not of those an
 * extern handler answers (22.11 to 25.11): the ones the backend answers
 * carry none, but a frontend may attach some.
 */
static void
drop_msg_fds(struct vur_dev *dev, struct vur_vhost_msg *msg)
{
	struct vur_vhost_msg_fds *f = vur_vhost_msg_fds(msg);

	if (f == NULL || f->fd_num <= 0 || f->fd_num > VUR_VHOST_MEMORY_MAX_NREGIONS)
		return;
	VUR_DEV_LOG(dev, ERR, "vhost-user request %u carries %d fds it has no use for: closed",
			msg->request, f->fd_num);
	for (int i = 0; i < f->fd_num; i++) {
		if (f->fds[i] >= 0)
			close(f->fds[i]);
		f->fds[i] = -1;
	}
	f->fd_num = 0;
}

static enum rte_vhost_msg_result
answer_msg(struct vur_dev *dev, struct vur_vhost_msg *msg)
{
	const char *why;
	uint32_t region;

	/* before anything stops: librte_vhost keeps its table when it refuses one */
	if (msg->request == VUR_VHOST_USER_SET_MEM_TABLE &&
			(why = vur_mem_table_fault(msg, vur_vhost_msg_fds(msg), &region)) != NULL) {
		VUR_DEV_LOG(dev, ERR, "SET_MEM_TABLE refused: region %u %s", region, why);
		vur_mem_table_refuse(msg);
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
	if (msg->request == VUR_VHOST_USER_RESET_OWNER)
		return handle_reset_owner(dev);
	/* librte_vhost frees the memory table first; a new one counts once it succeeded */
	if (msg->request == VUR_VHOST_USER_SET_MEM_TABLE) {
		pthread_rwlock_wrlock(&dev->lock);
		dev->mem_table = false;
		pthread_rwlock_unlock(&dev->lock);
	}
	if (remaps_rings(msg->request)) {
		quiesce(dev);
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
	/*
	 * librte_vhost acks SET_VRING_ENABLE before it reports the vring's new
	 * state, so a disabled control queue must stop here, before the ack,
	 * or requests the driver makes after it would still be served.
	 */
	if (msg->request == VUR_VHOST_USER_SET_VRING_ENABLE &&
			msg->size >= sizeof(msg->payload.state) && msg->payload.state.num == 0 &&
			msg->payload.state.index == virtio_net_roce_ctrl_vq(1)) {
		pthread_rwlock_wrlock(&dev->lock);
		vur_ctrlq_stop(&dev->ctrlq);
		pthread_rwlock_unlock(&dev->lock);
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
	/*
	 * The vring's indices are ours while we serve it: hand them back first.
	 * librte_vhost also closes the kick eventfd the control thread watches.
	 */
	if (msg->request == VUR_VHOST_USER_GET_VRING_BASE &&
			msg->size >= sizeof(msg->payload.state)) {
		pthread_rwlock_wrlock(&dev->lock);
		vur_net_dev_stop(&dev->eth, (int)msg->payload.state.index);
		if (msg->payload.state.index == virtio_net_roce_ctrl_vq(1))
			vur_ctrlq_stop(&dev->ctrlq);
		/* QEMU stops every vring one by one: the engine stops at the first of its own */
		if (msg->payload.state.index > virtio_net_roce_ctrl_vq(1))
			vur_tp_stop(&dev->tp);
		pthread_rwlock_unlock(&dev->lock);
		sync_datapath(dev);
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
	switch (msg->request) {
	case VUR_VHOST_USER_GET_CONFIG:
		return handle_get_config(dev, msg);
	case VUR_VHOST_USER_SET_CONFIG:
		return handle_set_config(dev, msg);
	case VUR_VHOST_USER_RESET_DEVICE:
		return handle_reset_device(dev);
	default:
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
}

static enum rte_vhost_msg_result
pre_msg_handle(int vid, void *raw)
{
	struct vur_dev *dev = dev_from_vid(vid);
	struct vur_vhost_msg *msg = raw;
	enum rte_vhost_msg_result res;

	if (dev == NULL)
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	res = answer_msg(dev, msg);
	if (res != RTE_VHOST_MSG_RESULT_NOT_HANDLED)
		drop_msg_fds(dev, msg);
	return res;
}

static enum rte_vhost_msg_result
post_msg_handle(int vid, void *raw)
{
	struct vur_dev *dev = dev_from_vid(vid);
	struct vur_vhost_msg *msg = raw;

	if (dev == NULL || !remaps_rings(msg->request))
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	pthread_rwlock_wrlock(&dev->lock);
	/* called only when librte_vhost's handler did not fail */
	if (msg->request == VUR_VHOST_USER_SET_MEM_TABLE)
		dev->mem_table = true;
	start_queues(dev);
	pthread_rwlock_unlock(&dev->lock);
	return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
}

static const struct rte_vhost_user_extern_ops extern_ops = {
	.pre_msg_handle = pre_msg_handle,
	.post_msg_handle = post_msg_handle,
};

static struct vur_dev *
dev_from_path(const char *path)
{
	struct vur_dev *dev = NULL;
	unsigned int i;

	pthread_mutex_lock(&vid_lock);
	for (i = 0; i < RTE_DIM(devs); i++) {
		if (devs[i] != NULL && strcmp(devs[i]->path, path) == 0) {
			dev = devs[i];
			break;
		}
	}
	pthread_mutex_unlock(&vid_lock);
	return dev;
}

static void
fill_info(struct vur_dev *dev, struct vur_dev_info *info)
{
	pthread_rwlock_wrlock(&dev->lock);
	strcpy(info->path, dev->path);
	info->vid = dev->vid;
	info->started = dev->started;
	info->client = dev->client;
	memcpy(info->mac, dev->cfg_state.mac, sizeof(info->mac));
	info->mtu = dev->cfg_state.mtu;
	info->max_qps = dev->cfg_state.max_qps;
	info->max_cqs = dev->cfg_state.max_cqs;
	info->offered = dev->features;
	info->negotiated = dev->negotiated;
	memset(&info->rdma, 0, sizeof(info->rdma));
	if (dev->rdma_ready)
		vur_rdma_dev_counts(&dev->rdma, &info->rdma);
	info->speed = dev->cfg_state.speed;
	info->speed_flags = dev->speed.flags;
	info->active_members = dev->speed.active;
	info->total_members = dev->speed.total;
	info->config_changes = dev->config_changes;
	info->link_up = dev->cfg_state.link_up;
	info->data_path = dev->eth.sw != NULL && dev->eth.slot >= 0
			? (int)vur_switch_dp_of(dev->eth.sw, dev->eth.slot)->id
			: -1;
	info->ctrl = dev->ctrlq.stats;
	info->eth = dev->eth.stats;
	vur_tp_stats_sum(&dev->tp, &info->rdma_tp);
	vur_tp_rates(&dev->tp, &info->rdma_rates);
	info->ring_events_pending = vur_tp_events_pending(&dev->tp);
	info->ring_queues = dev->cfg_state.ring_queues;
	info->rx_filter = dev->net;
	info->quota = dev->quota;
	info->policy = dev->policy;
	vur_txrate_read(&dev->txrate, &info->rate_bps, &info->rate_pps, &info->rate);
	info->vlan = dev->eth.vlan;
	for (int k = 0; k < VUR_QUOTA_N; k++)
		info->quota_used[k] = dev->rdma_ready ? vur_rdma_quota_used(&dev->rdma, k) : 0;
	pthread_rwlock_unlock(&dev->lock);
}

int
vur_dev_info(const char *path, unsigned int n, struct vur_dev_info *info)
{
	unsigned int i, seen = 0;
	int ret = -ENOENT;

	/* Devices are freed only after management stops; the table lock suffices. */
	pthread_mutex_lock(&vid_lock);
	for (i = 0; i < RTE_DIM(devs); i++) {
		if (devs[i] == NULL)
			continue;
		if (path != NULL ? strcmp(devs[i]->path, path) == 0 : seen++ == n) {
			fill_info(devs[i], info);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&vid_lock);
	return ret;
}

int
vur_dev_qps(const char *path, struct vur_tp_qp_info *out, unsigned int max)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&vid_lock);
	for (unsigned int i = 0; i < RTE_DIM(devs); i++) {
		if (devs[i] == NULL || strcmp(devs[i]->path, path) != 0)
			continue;
		pthread_rwlock_wrlock(&devs[i]->lock);
		ret = devs[i]->rdma_ready ? (int)vur_tp_qp_infos(&devs[i]->tp, out, max) : 0;
		pthread_rwlock_unlock(&devs[i]->lock);
		break;
	}
	pthread_mutex_unlock(&vid_lock);
	return ret;
}

/* struct vur_rdma_env callbacks; the device lock is held. */
static uint16_t
env_vq_size(void *arg, uint32_t vq)
{
	struct vur_dev *dev = arg;
	struct rte_vhost_vring vr;

	if (vq >= VUR_MAX_VRINGS || !(dev->vq_ready[vq / 64] & (1ULL << (vq % 64))) ||
			rte_vhost_get_vhost_vring(dev->vid, vq, &vr) != 0)
		return 0;
	return vr.size;
}

/*
 * Control commands run only while the control queue is served, so its copy
 * of the memory table is the current one.
 */
static bool
env_mem_ok(void *arg, uint64_t gpa, uint64_t len)
{
	const struct rte_vhost_memory *mem = ((struct vur_dev *)arg)->ctrlq.mem;
	const struct rte_vhost_mem_region *r;
	uint32_t i;

	for (i = 0; mem != NULL && i < mem->nregions; i++) {
		r = &mem->regions[i];
		if (gpa >= r->guest_phys_addr && len <= r->size &&
				gpa - r->guest_phys_addr <= r->size - len)
			return true;
	}
	return false;
}

/* The same, for what the control commands write: a record or a doorbell summary. */
static void *
env_hva(void *arg, uint64_t gpa, uint64_t len)
{
	const struct rte_vhost_memory *mem = ((struct vur_dev *)arg)->ctrlq.mem;
	const struct rte_vhost_mem_region *r;
	uint32_t i;

	for (i = 0; mem != NULL && i < mem->nregions; i++) {
		r = &mem->regions[i];
		if (gpa >= r->guest_phys_addr && len <= r->size &&
				gpa - r->guest_phys_addr <= r->size - len)
			return (void *)(uintptr_t)(r->host_user_addr + (gpa - r->guest_phys_addr));
	}
	return NULL;
}

/* What QUERY_PORT_SPEED answers: the speed policy's last result. */
static void
set_rdma_port(struct vur_dev *dev)
{
	dev->rdma.port = (struct vur_port_speed){
		.speed = dev->speed.speed,
		.flags = dev->speed.flags,
		.active_members = dev->speed.active,
		.total_members = dev->speed.total,
	};
}

/* A new frontend starts from nothing, whatever the last one left. */
static int
reset_rdma(struct vur_dev *dev)
{
	const struct vur_rdma_env env = {
		.vq_size = env_vq_size,
		.mem_ok = env_mem_ok,
		.hva = env_hva,
		.arg = dev,
		.n_pairs = 1,
		.port_mtu = vur_rdma_port_mtu(VUR_DEFAULT_ETH_MTU),
		.hooks = &vur_tp_hooks,
		.hooks_arg = &dev->tp,
	};

	memset(dev->vq_ready, 0, sizeof(dev->vq_ready));
	dev->rdma_ready = vur_rdma_dev_init(&dev->rdma, dev->path, &dev->limits, &env) == 0;
	dev->rdma.quota = &dev->quota;
	dev->rdma.policy = &dev->policy;
	set_rdma_port(dev);
	dev->target.rdma = &dev->rdma;
	vur_net_state_init(&dev->net, dev->cfg_state.mac, 1);
	dev->target.net = &dev->net;
	return dev->rdma_ready ? 0 : -ENOMEM;
}

static void drop_connection(struct vur_dev *dev);

static int
on_new_connection(int vid)
{
	char path[PATH_MAX];
	struct vur_dev *dev;
	int busy;

	if (vid < 0 || vid >= RTE_MAX_VHOST_DEVICE || rte_vhost_get_ifname(vid, path, sizeof(path)))
		return -1;
	dev = dev_from_path(path);
	if (dev == NULL)
		return -1;

	/* One socket is one device: a second frontend would share its state. */
	pthread_rwlock_wrlock(&dev->lock);
	busy = dev->vid;
	if (busy < 0) {
		dev->vid = vid;
		dev->started = false;
		dev->negotiated = 0;
		dev->mem_table = false;
		reset_rdma(dev); /* a new frontend starts from nothing */
		update_link(dev);
	}
	pthread_rwlock_unlock(&dev->lock);
	if (busy >= 0) {
		VUR_DEV_LOG(dev, WARNING,
				"refusing a second frontend (vid %d) while vid %d is connected",
				vid, busy);
		return -1;
	}
	if (!dev->rdma_ready || rte_vhost_extern_callback_register(vid, &extern_ops, dev) != 0) {
		VUR_DEV_LOG(dev, ERR, "cannot set up the connection (vid %d)", vid);
		drop_connection(dev);
		return -1;
	}
	pthread_mutex_lock(&vid_lock);
	dev_by_vid[vid] = dev;
	pthread_mutex_unlock(&vid_lock);
	VUR_DEV_LOG(dev, INFO, "frontend connected (vid %d)", vid);
	return 0;
}

/* Forget the frontend of @dev and free everything it owned. */
static void
drop_connection(struct vur_dev *dev)
{
	int vid;

	pthread_rwlock_wrlock(&dev->lock);
	vid = dev->vid;
	stop_queues(dev);
	if (dev->rdma_ready)
		vur_rdma_dev_fini(&dev->rdma);
	dev->rdma_ready = false;
	dev->vid = -1;
	dev->mem_table = false;
	dev->started = false;
	pthread_rwlock_unlock(&dev->lock);
	sync_datapath(dev);
	if (vid < 0)
		return;
	pthread_mutex_lock(&vid_lock);
	if (dev_by_vid[vid] == dev)
		dev_by_vid[vid] = NULL;
	pthread_mutex_unlock(&vid_lock);
	VUR_DEV_LOG(dev, INFO, "frontend disconnected (vid %d): its resources are freed", vid);
}

static void
on_destroy_connection(int vid)
{
	struct vur_dev *dev = dev_from_vid(vid);

	if (dev != NULL)
		drop_connection(dev);
}

static bool
vq_ready(const struct vur_dev *dev, uint32_t qid)
{
	return qid < VUR_MAX_VRINGS && (dev->vq_ready[qid / 64] & (1ULL << (qid % 64)));
}

/* Whether the driver set features and made a virtqueue ready: it can be told. */
static bool
driver_live(const struct vur_dev *dev)
{
	if (dev->vid < 0 || dev->negotiated == 0)
		return false;
	for (unsigned int i = 0; i < RTE_DIM(dev->vq_ready); i++)
		if (dev->vq_ready[i] != 0)
			return true;
	return false;
}

/* The control queue exists when CTRL_VQ is negotiated; it follows the one rx/tx pair. */
static void
start_ctrlq(struct vur_dev *dev)
{
	const uint16_t qid = virtio_net_roce_ctrl_vq(1);
	int ret;

	/* A vring the driver has not made ready (or disabled) is not served. */
	if (!(dev->negotiated & (1ULL << VIRTIO_NET_F_CTRL_VQ_BIT)) || dev->ctrlq.active ||
			!vq_ready(dev, qid))
		return;
	ret = vur_ctrlq_start(&dev->ctrlq, dev->vid, qid, dev->negotiated, &dev->ctrl_table,
			&dev->target);
	if (ret < 0)
		VUR_DEV_LOG(dev, ERR, "cannot serve the control queue: %s", strerror(-ret));
}

/*
 * Queues are served as soon as each is ready, not from new_device:
 * librte_vhost 22.11 calls new_device only when every vring the frontend
 * touched is ready, and QEMU enables all of the device's vrings while a
 * guest may use only some (a stock virtio_net driver sets up three).
 * Every start checks its own vring's readiness; the caller holds the lock.
 */
static void
start_queues(struct vur_dev *dev)
{
	uint16_t mtu = dev->negotiated & VUR_NET_F(VIRTIO_NET_F_MTU_BIT) ? dev->cfg_state.mtu
									 : VUR_DEFAULT_ETH_MTU;

	dev->eth.roce = roce_negotiated(dev);
	/*
	 * A frontend may set vrings up before its memory table, or free the
	 * table (RESET_OWNER): every queue below reads it (fuzz_vhost found a
	 * SET_VRING_NUM with RoCE negotiated and no table crashing the backend).
	 */
	if (!dev->mem_table)
		return;
	start_ctrlq(dev);
	if (dev->vid >= 0 && dev->negotiated != 0)
		vur_net_dev_start(&dev->eth, dev->vid, dev->negotiated, mtu,
				vq_ready(dev, VUR_NET_RX_VQ), vq_ready(dev, VUR_NET_TX_VQ));
	if (dev->eth.roce && dev->rdma_ready && vur_tp_start(&dev->tp, dev->vid) < 0)
		VUR_DEV_LOG(dev, ERR, "cannot serve the RDMA queues");
}

/* Stop every served queue (around remaps; the caller holds the lock). */
static void
stop_queues(struct vur_dev *dev)
{
	vur_ctrlq_stop(&dev->ctrlq);
	vur_net_dev_stop(&dev->eth, -1);
	vur_tp_stop(&dev->tp);
}

/* Features are fixed once the driver sets up its first vring. */
static void
learn_features(struct vur_dev *dev)
{
	uint64_t features = 0;

	if (rte_vhost_get_negotiated_features(dev->vid, &features) != 0 ||
			features == dev->negotiated)
		return;
	dev->negotiated = features;
	vur_net_state_set_features(&dev->net, features);
	/* The port MTU follows the Ethernet MTU the driver accepted (spec: QUERY_PORT). */
	dev->rdma.env.port_mtu = vur_rdma_port_mtu(features & VUR_NET_F(VIRTIO_NET_F_MTU_BIT)
					? dev->cfg_state.mtu
					: VUR_DEFAULT_ETH_MTU);
	/*
	 * ROCE-DEV-POLICY-8 holds only with RoCE negotiated. Nobody to notify:
	 * features are learned as the driver's first vring is set up, before
	 * the driver reads the status it starts from.
	 */
	update_link(dev);
}

/*
 * The device is started while it serves a queue, whichever way the driver
 * got there (new_device, or queue by queue with QEMU); the caller holds the
 * lock and logs what changed.
 */
static bool
update_started(struct vur_dev *dev)
{
	bool serving = dev->ctrlq.active || dev->eth.rxq.active || dev->eth.txq.active;
	bool changed = serving != dev->started;

	dev->started = serving;
	return changed;
}

static void
log_started(struct vur_dev *dev, bool changed)
{
	if (!changed)
		return;
	if (dev->started)
		VUR_DEV_LOG(dev, INFO, "device started: features 0x%" PRIx64 ", %u vrings",
				dev->negotiated, rte_vhost_get_vring_num(dev->vid));
	else
		VUR_DEV_LOG(dev, INFO, "device stopped");
}

/*
 * VHOST_USER_RESET_DEVICE: the driver reset the device (QEMU sends it when
 * the guest resets it or reboots; a paused VM only stops the vrings, and
 * keeps its state). Everything the driver made goes, as on a new frontend:
 * RDMA resources, receive filters, features. Every vring stops being served
 * until the driver sets it up again (librte_vhost reports it not ready, then
 * ready, when its kick is set again).
 */
static enum rte_vhost_msg_result
handle_reset_device(struct vur_dev *dev)
{
	uint64_t proto = 0;
	int ret;

	if (rte_vhost_get_negotiated_protocol_features(dev->vid, &proto) != 0 ||
			!(proto & (1ULL << VUR_VHOST_USER_PROTOCOL_F_RESET_DEVICE))) {
		VUR_DEV_LOG(dev, ERR, "RESET_DEVICE without its protocol feature: refused");
		return RTE_VHOST_MSG_RESULT_ERR;
	}
	pthread_rwlock_wrlock(&dev->lock);
	stop_queues(dev);
	if (dev->rdma_ready)
		vur_rdma_dev_fini(&dev->rdma);
	dev->negotiated = 0;
	ret = reset_rdma(dev);
	update_link(dev);
	log_started(dev, update_started(dev));
	pthread_rwlock_unlock(&dev->lock);
	sync_datapath(dev);
	if (ret < 0) {
		VUR_DEV_LOG(dev, ERR, "device reset: cannot set the device up again: %s",
				strerror(-ret));
		return RTE_VHOST_MSG_RESULT_ERR;
	}
	VUR_DEV_LOG(dev, INFO, "device reset: what the driver made is freed");
	return RTE_VHOST_MSG_RESULT_OK;
}

static int
on_new_device(int vid)
{
	struct vur_dev *dev = dev_from_vid(vid);
	bool changed;

	if (dev == NULL)
		return -1;
	pthread_rwlock_wrlock(&dev->lock);
	learn_features(dev);
	start_queues(dev);
	changed = update_started(dev);
	log_started(dev, changed);
	pthread_rwlock_unlock(&dev->lock);
	return 0;
}

static void
on_destroy_device(int vid)
{
	struct vur_dev *dev = dev_from_vid(vid);
	bool changed;

	if (dev == NULL)
		return;
	pthread_rwlock_wrlock(&dev->lock);
	stop_queues(dev);
	changed = update_started(dev);
	log_started(dev, changed);
	pthread_rwlock_unlock(&dev->lock);
	sync_datapath(dev);
}

/*
 * librte_vhost calls this whenever a vring becomes ready (addresses, kick,
 * call, enabled) or stops being ready, before new_device too. CQs and QPs
 * bind only ready virtqueues; the control and Ethernet queues are served
 * while theirs are ready.
 */
static int
on_vring_state_changed(int vid, uint16_t queue_id, int enable)
{
	struct vur_dev *dev = dev_from_vid(vid);

	if (dev == NULL || queue_id >= VUR_MAX_VRINGS)
		return 0;
	pthread_rwlock_wrlock(&dev->lock);
	if (enable)
		dev->vq_ready[queue_id / 64] |= 1ULL << (queue_id % 64);
	else
		dev->vq_ready[queue_id / 64] &= ~(1ULL << (queue_id % 64));
	learn_features(dev);
	if (queue_id == virtio_net_roce_ctrl_vq(1) && !enable)
		vur_ctrlq_stop(&dev->ctrlq);
	/*
	 * A vring leaving stops only what it carries; the others stay as they
	 * are (after destroy_device they are stopped and stay so).
	 */
	if (!enable) {
		vur_net_dev_stop(&dev->eth, queue_id);
		/* an RDMA vring leaving: the engine goes on with the rings still ready */
		if (queue_id > virtio_net_roce_ctrl_vq(1) && dev->tp.active) {
			vur_tp_stop(&dev->tp);
			start_queues(dev);
		}
	} else {
		start_queues(dev);
	}
	log_started(dev, update_started(dev));
	pthread_rwlock_unlock(&dev->lock);
	if (!enable)
		sync_datapath(dev);
	return 0;
}

static const struct rte_vhost_device_ops device_ops = {
	.new_device = on_new_device,
	.vring_state_changed = on_vring_state_changed,
	.destroy_device = on_destroy_device,
	.new_connection = on_new_connection,
	.destroy_connection = on_destroy_connection,
};

static int
registry_add(struct vur_dev *dev)
{
	unsigned int i;

	pthread_mutex_lock(&vid_lock);
	for (i = 0; i < RTE_DIM(devs); i++) {
		if (devs[i] == NULL) {
			devs[i] = dev;
			break;
		}
	}
	pthread_mutex_unlock(&vid_lock);
	return i < RTE_DIM(devs) ? 0 : -ENOSPC;
}

static void
registry_del(struct vur_dev *dev)
{
	unsigned int i;

	pthread_mutex_lock(&vid_lock);
	for (i = 0; i < RTE_DIM(devs); i++)
		if (devs[i] == dev)
			devs[i] = NULL;
	pthread_mutex_unlock(&vid_lock);
}

static void
init_config(struct vur_dev *dev, const struct vur_dev_params *p)
{
	struct vur_config_state *st = &dev->cfg_state;

	memcpy(st->mac, p->mac, sizeof(st->mac));
	st->mtu = p->mtu;
	st->max_qps = p->max_qps;
	st->max_cqs = p->max_cqs;
	st->ring_queues = (uint16_t)p->ring_queues;
	st->rfc2_numbering = p->rfc2_numbering;
	/* No uplink yet: link up at the loopback speed (spec, Effective Port Speed). */
	vur_speed_compute(NULL, 0, true, p->loopback_mbps, &dev->speed);
	st->link_up = dev->speed.link_up;
	st->speed = dev->speed.speed;
}

/*
 * Make @dev's server socket path free for librte_vhost's bind. A socket file
 * a backend that died left behind (nothing accepts on it) is removed: else
 * the bind fails ("Address already in use") and a backend restarted after a
 * crash could never serve QEMU (chardev reconnect=N) again. A socket
 * something accepts on (one socket is one device) and any file that is not
 * a socket are refused before librte_vhost sees them: when its start fails,
 * rte_vhost_driver_unregister() unlinks the path, which would take a live
 * backend's socket file away from the next frontend.
 */
static int
claim_socket_path(const struct vur_dev *dev)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	int s, ret;

	if (lstat(dev->path, &st) != 0)
		return 0; /* nothing there (or not reachable: librte_vhost says why) */
	if (!S_ISSOCK(st.st_mode)) {
		VUR_DEV_LOG(dev, ERR, "the path exists and is not a socket");
		return -EEXIST;
	}
	if (strlen(dev->path) >= sizeof(addr.sun_path))
		return 0; /* librte_vhost refuses it */
	strcpy(addr.sun_path, dev->path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	ret = connect(s, (const struct sockaddr *)&addr, sizeof(addr)) == 0 ? 0 : -errno;
	close(s);
	if (ret == 0) {
		VUR_DEV_LOG(dev, ERR, "another process serves this socket");
		return -EADDRINUSE;
	}
	if (ret != -ECONNREFUSED)
		return 0; /* let the bind decide */
	if (unlink(dev->path) != 0 && errno != ENOENT)
		return -errno;
	VUR_DEV_LOG(dev, INFO, "removed a stale socket file (nothing accepts on it)");
	return 0;
}

static int
serve_socket(struct vur_dev *dev)
{
	uint64_t flags = dev->client ? RTE_VHOST_USER_CLIENT : 0;
	int ret;

	if (!dev->client) {
		ret = claim_socket_path(dev);
		if (ret != 0)
			return ret;
	}
	ret = rte_vhost_driver_register(dev->path, flags);
	if (ret != 0) {
		VUR_DEV_LOG(dev, ERR, "cannot register the vhost-user socket");
		return -EIO;
	}
	if (!VUR_VHOST_MSG_FDS_KNOWN)
		VUR_DEV_LOG(dev, WARNING,
				"%s is newer than the releases whose vhost-user message layout is "
				"known: memory-region files and stray fds are not checked",
				rte_version());
	if (rte_vhost_driver_set_features(dev->path, dev->features) != 0 ||
			rte_vhost_driver_set_protocol_features(dev->path, dev->protocol_features) !=
					0 ||
			rte_vhost_driver_callback_register(dev->path, &device_ops) != 0) {
		VUR_DEV_LOG(dev, ERR, "cannot configure the vhost-user socket");
		goto unregister;
	}
	if (rte_vhost_driver_start(dev->path) != 0) {
		VUR_DEV_LOG(dev, ERR, "cannot start the vhost-user socket");
		goto unregister;
	}
	return 0;

unregister:
	rte_vhost_driver_unregister(dev->path);
	return -EIO;
}

struct vur_dev *
vur_dev_create(const struct vur_dev_params *p)
{
	struct vur_dev *dev;
	int ret;

	if (strlen(p->path) >= sizeof(dev->path)) {
		rte_errno = ENAMETOOLONG;
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	strcpy(dev->path, p->path);
	dev->client = p->client;
	dev->vid = -1;
	dev->features = vur_dev_offered_features(p->rfc2_numbering, p->port_speed);
	if (p->no_roce)
		dev->features &=
				~(VUR_NET_F(VIRTIO_NET_F_ROCE) | VUR_NET_F(VIRTIO_NET_F_ROCE_RFC2) |
						VUR_NET_F(VIRTIO_NET_F_ROCE_PORT_SPEED));
	dev->protocol_features = (1ULL << VHOST_USER_PROTOCOL_F_MQ) |
			(1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK) |
			(1ULL << VHOST_USER_PROTOCOL_F_BACKEND_REQ) |
			(1ULL << VHOST_USER_PROTOCOL_F_CONFIG) |
			(1ULL << VUR_VHOST_USER_PROTOCOL_F_RESET_DEVICE);
	ret = vur_dev_lock_init(&dev->lock);
	if (ret < 0) {
		free(dev);
		rte_errno = -ret;
		return NULL;
	}
	init_config(dev, p);
	memcpy(dev->quota.max, p->quota, sizeof(dev->quota.max));
	dev->policy = p->policy;
	memcpy(dev->policy.mac, p->mac, sizeof(dev->policy.mac)); /* ROCE-DEV-POLICY-2 */
	dev->policy.refused_gids = 0;
	dev->cfg_state.link_up = dev->speed.link_up && vhca_gids_present(dev);
	dev->policy.refused_macs = 0;
	vur_rdma_limits_default(&dev->limits, p->max_qps, p->max_cqs);
	vur_rdma_limits_rings(&dev->limits, p->ring_queues, p->max_ring_qps, p->max_ring_cqs);
	dev->ctrl_table.cmds = dev->cmds;
	dev->ctrl_table.n_cmds = vur_ctrl_roce_commands(p->rfc2_numbering, dev->cmds);
	dev->ctrl_table.n_cmds += vur_ctrl_net_commands(dev->cmds + dev->ctrl_table.n_cmds);
	vur_ctrlq_init(&dev->ctrlq, &dev->lock, dev->path, p->loop);
	dev->ctrlq.after = recheck_port;
	dev->ctrlq.after_arg = dev;
	vur_net_dev_init(&dev->eth, &dev->lock, dev->path, &dev->net, &dev->rdma);
	vur_tp_init(&dev->tp, &dev->rdma, &dev->eth);
	dev->eth.tp = &dev->tp;
	rte_spinlock_init(&dev->txrate.lock);
	dev->eth.txrate = &dev->txrate;
	ret = vur_txrate_set(&dev->txrate, p->rate_bps, p->rate_pps, vur_txrate_now_ns());
	if (ret < 0)
		goto free_dev;
	dev->eth.policy = &dev->policy; /* net/net_antispoof.h */
	dev->eth.vlan = p->vlan;        /* before it is a port of the switch */
	if (vur_ctrl_table_validate(&dev->ctrl_table) != 0) {
		ret = -EINVAL;
		goto free_dev;
	}
	if (p->sw != NULL) {
		ret = vur_net_dev_attach(&dev->eth, p->sw);
		if (ret < 0)
			goto free_dev;
	}

	ret = registry_add(dev);
	if (ret < 0)
		goto free_dev;
	ret = serve_socket(dev);
	if (ret < 0)
		goto unlist;
	VUR_DEV_LOG(dev, INFO, "serving (%s, features 0x%" PRIx64 ")",
			dev->client ? "client" : "server", dev->features);
	return dev;

unlist:
	registry_del(dev);
	vur_net_dev_detach(&dev->eth);
free_dev:
	pthread_rwlock_destroy(&dev->lock);
	free(dev);
	rte_errno = -ret;
	return NULL;
}

void
vur_dev_set_quota(struct vur_dev *dev, const uint64_t max[VUR_QUOTA_N])
{
	pthread_rwlock_wrlock(&dev->lock);
	memcpy(dev->quota.max, max, sizeof(dev->quota.max));
	pthread_rwlock_unlock(&dev->lock);
}

int
vur_dev_set_rate(struct vur_dev *dev, uint64_t bps, uint64_t pps)
{
	/* its own lock: the data path takes the buckets under the device's read lock */
	return vur_txrate_set(&dev->txrate, bps, pps, vur_txrate_now_ns());
}

void
vur_dev_set_vlan(struct vur_dev *dev, uint16_t vlan)
{
	pthread_rwlock_wrlock(&dev->lock);
	vur_net_dev_set_vlan(&dev->eth, vlan);
	pthread_rwlock_unlock(&dev->lock);
}

void
vur_dev_set_addresses(struct vur_dev *dev, const struct vur_addr_policy *next)
{
	pthread_rwlock_wrlock(&dev->lock);
	dev->policy.n = next->n;
	memcpy(dev->policy.gids, next->gids, sizeof(dev->policy.gids));
	dev->policy.mac_pinned = next->mac_pinned;
	pthread_rwlock_unlock(&dev->lock);
	recheck_port(dev); /* ROCE-DEV-POLICY-8: the port follows the new set */
}

const char *
vur_dev_path(const struct vur_dev *dev)
{
	return dev->path;
}

static bool
roce_negotiated(const struct vur_dev *dev)
{
	return dev->negotiated &
			VUR_NET_F(dev->cfg_state.rfc2_numbering ? VIRTIO_NET_F_ROCE_RFC2
								: VIRTIO_NET_F_ROCE);
}

/*
 * The vHCA rule (issue 25, ROCE-DEV-POLICY-8): with allowed addresses set,
 * the port is ACTIVE only once the GID table holds the GID of every one of
 * them, as a ConnectX virtual function's vHCA port is up only when the
 * physical port is up and its virtual GID table holds the GIDs the host
 * admin requested, and down otherwise (Mellanox OFED user manual, "Virtual
 * Function InfiniBand Ports"). Device lock held.
 */
static bool
vhca_gids_present(const struct vur_dev *dev)
{
	uint32_t i, j;

	/*
	 * A driver that did not negotiate RoCE has no RoCE port and no GID
	 * table: its Ethernet link follows the uplinks alone, and the address
	 * policy still holds for its frames (net_antispoof.c).
	 */
	if (dev->policy.n == 0 || !roce_negotiated(dev))
		return true;
	if (!dev->rdma_ready)
		return false;
	for (i = 0; i < dev->policy.n; i++) {
		for (j = 0; j < dev->rdma.limits.gid_tbl_len; j++)
			if (dev->rdma.gids[j].valid &&
					memcmp(dev->rdma.gids[j].raw, dev->policy.gids[i],
							sizeof(dev->policy.gids[i])) == 0)
				break;
		if (j == dev->rdma.limits.gid_tbl_len)
			return false;
	}
	return true;
}

/*
 * Set the link the guest sees (VIRTIO_NET_S_LINK_UP, thus the RoCE port's
 * state) from the uplinks and the vHCA rule. Whether it changed in a way
 * the driver sees (VIRTIO_NET_F_STATUS). Device lock held.
 */
static bool
update_link(struct vur_dev *dev)
{
	bool up = dev->speed.link_up && vhca_gids_present(dev);
	bool changed = up != dev->cfg_state.link_up;

	dev->cfg_state.link_up = up;
	dev->eth.link_down = !up;
	return changed && (dev->negotiated & VUR_NET_F(VIRTIO_NET_F_STATUS_BIT));
}

/* Tell the frontend of @vid that the configuration changed (not from a frontend's message). */
static void
notify_config(struct vur_dev *dev, int vid)
{
	/*
	 * Without need_reply: QEMU does not read its backend channel while it
	 * waits for the answer to one of its own messages: a reply awaited here
	 * could block both sides.
	 */
	if (rte_vhost_backend_config_change(vid, false) != 0)
		VUR_DEV_LOG(dev, WARNING, "cannot send the configuration change (vid %d)", vid);
}

/* The vHCA rule again, after commands or an address change: notify when the port changed. */
static void
recheck_port(void *arg)
{
	struct vur_dev *dev = arg;
	bool notify;
	int vid;

	pthread_rwlock_wrlock(&dev->lock);
	notify = update_link(dev) && driver_live(dev);
	if (notify)
		dev->config_changes++;
	vid = dev->vid;
	pthread_rwlock_unlock(&dev->lock);
	if (notify)
		notify_config(dev, vid);
}

int
vur_dev_set_speed(struct vur_dev *dev, const struct vur_speed_result *r)
{
	bool notify;
	int vid;

	pthread_rwlock_wrlock(&dev->lock);
	notify = (dev->negotiated & VUR_NET_F(VIRTIO_NET_F_ROCE_PORT_SPEED)) &&
			vur_speed_changed(&dev->speed, r);
	dev->speed = *r;
	dev->cfg_state.speed = r->speed;
	notify = (update_link(dev) || notify) && driver_live(dev);
	if (dev->rdma_ready)
		set_rdma_port(dev);
	vid = dev->vid;
	if (notify)
		dev->config_changes++;
	pthread_rwlock_unlock(&dev->lock);
	if (notify)
		notify_config(dev, vid);
	return notify;
}

void
vur_dev_stop(struct vur_dev *dev)
{
	/*
	 * Unregistering closes the connection (destroy_device runs first) and
	 * removes a listening socket's file. librte_vhost 22.11 does not call
	 * destroy_connection then, so the connection's state is dropped here.
	 */
	if (rte_vhost_driver_unregister(dev->path) != 0)
		VUR_DEV_LOG(dev, ERR, "cannot unregister the vhost-user socket");
	drop_connection(dev);
	registry_del(dev);
	vur_net_dev_detach(&dev->eth);
	VUR_DEV_LOG(dev, INFO, "socket closed");
}

void
vur_dev_free(struct vur_dev *dev)
{
	vur_tp_fini(&dev->tp);
	pthread_rwlock_destroy(&dev->lock);
	free(dev);
}
