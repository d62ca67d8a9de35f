/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device manager (see dev_mgr.h): every device of the backend, created
 * and deleted at runtime, with the settings the command line gives them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include <linux/virtio_net_roce.h>

#include "app/default_mac.h"
#include "common/event_loop.h"
#include "common/log.h"
#include "mgmt/dev_mgr.h"
#include "net/net_vlan.h"
#include "port/port_mgr.h"
#include "vhost/vdev.h"
#include "vhost/vdev_config.h"

#define MAC_FMT      "%02x:%02x:%02x:%02x:%02x:%02x"
#define MAC_BYTES(m) (m)[0], (m)[1], (m)[2], (m)[3], (m)[4], (m)[5]

void
vur_dev_mgr_init(struct vur_dev_mgr *dm, struct vur_event_loop *loop, struct vur_switch *sw,
		uint64_t loopback_mbps, const struct vur_dev_spec *defaults)
{
	memset(dm, 0, sizeof(*dm));
	pthread_mutex_init(&dm->lock, NULL);
	dm->loop = loop;
	dm->sw = sw;
	dm->loopback_mbps = loopback_mbps;
	dm->defaults = *defaults;
	dm->host_source = vur_host_identity(VUR_MACHINE_ID_FILE, dm->host, sizeof(dm->host));
}

int
vur_dev_spec_check(const struct vur_dev_spec *s, char *why, size_t len)
{
	static const uint8_t zero[6];
	uint32_t vqs;

	if (s->path[0] == '\0') {
		snprintf(why, len, "empty socket path");
		return -EINVAL;
	}
	if (s->max_qps < VIRTIO_NET_ROCE_MIN_QPS || s->max_qps > VIRTIO_NET_ROCE_MAX_QPS) {
		snprintf(why, len, "max_qps %u: expected %u..%u", s->max_qps,
				VIRTIO_NET_ROCE_MIN_QPS, VIRTIO_NET_ROCE_MAX_QPS);
		return -EINVAL;
	}
	if (s->max_cqs < 1 || s->max_cqs > VIRTIO_NET_ROCE_MAX_CQS) {
		snprintf(why, len, "max_cqs %u: expected 1..%u", s->max_cqs,
				VIRTIO_NET_ROCE_MAX_CQS);
		return -EINVAL;
	}
	vqs = virtio_net_roce_num_vqs(1, s->max_cqs, s->max_qps);
	if (vqs > VUR_MAX_VRINGS) {
		snprintf(why, len, "max_qps %u and max_cqs %u need %u virtqueues; at most %d fit",
				s->max_qps, s->max_cqs, vqs, VUR_MAX_VRINGS);
		return -EINVAL;
	}
	if (s->mtu < VUR_DEV_MTU_MIN) {
		snprintf(why, len, "mtu %u: expected %d..%d", s->mtu, VUR_DEV_MTU_MIN,
				VUR_DEV_MTU_MAX);
		return -EINVAL;
	}
	if (s->mac_given && ((s->mac[0] & 1) || memcmp(s->mac, zero, 6) == 0)) {
		snprintf(why, len, "mac " MAC_FMT ": not a unicast address", MAC_BYTES(s->mac));
		return -EINVAL;
	}
	if (s->vlan != VUR_VLAN_NONE && !vur_vlan_valid(s->vlan)) {
		snprintf(why, len, "vlan %u: expected 1..%d, or 0 for none", s->vlan, VUR_VLAN_MAX);
		return -EINVAL;
	}
	return 0;
}

/* The device of @mac, or NULL; the caller holds the lock. */
static struct vur_dev *
dev_of_mac(const struct vur_dev_mgr *dm, const uint8_t mac[6])
{
	for (unsigned int i = 0; i < dm->n_devs; i++)
		if (memcmp(dm->devs[i]->cfg_state.mac, mac, 6) == 0)
			return dm->devs[i];
	return NULL;
}

static int
find(const struct vur_dev_mgr *dm, const char *path)
{
	for (unsigned int i = 0; i < dm->n_devs; i++)
		if (strcmp(vur_dev_path(dm->devs[i]), path) == 0)
			return (int)i;
	return -1;
}

/* @path as an absolute path (the MAC must not depend on where we were started). */
static void
absolute_path(const char *path, char *buf, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, path);
}

/*
 * The device's MAC: the one given (never another device's), or one of its
 * own derived from this host and its socket path; should two devices of
 * this backend meet on one, the later takes the next derivation.
 */
static int
pick_mac(struct vur_dev_mgr *dm, const struct vur_dev_spec *s, uint8_t mac[6], char *why,
		size_t len)
{
	char path[2 * PATH_MAX + 2]; /* the working directory and @s->path */
	struct vur_dev *other;

	if (s->mac_given) {
		other = dev_of_mac(dm, s->mac);
		if (other != NULL) {
			snprintf(why, len, "mac " MAC_FMT " is device %s's", MAC_BYTES(s->mac),
					vur_dev_path(other));
			return -EEXIST;
		}
		memcpy(mac, s->mac, 6);
		VUR_LOG(app, INFO, "%s: MAC " MAC_FMT " (%s)", s->path, MAC_BYTES(mac),
				s->mac_source != NULL ? s->mac_source : "given");
		return 0;
	}
	absolute_path(s->path, path, sizeof(path));
	for (uint32_t attempt = 0;; attempt++) {
		vur_default_mac(dm->host, path, attempt, mac);
		if (dev_of_mac(dm, mac) == NULL)
			break;
	}
	VUR_LOG(app, INFO, "%s: MAC " MAC_FMT " (derived from the socket path and the host's %s)",
			s->path, MAC_BYTES(mac), dm->host_source);
	return 0;
}

/* What librte_vhost would refuse without saying why: said here, with an errno. */
static int
check_path(const struct vur_dev_spec *s, char *why, size_t len)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;

	if (strlen(s->path) >= VUR_DEV_SUN_PATH) {
		snprintf(why, len, "socket path longer than %d bytes", VUR_DEV_SUN_PATH - 1);
		return -ENAMETOOLONG;
	}
	slash = strrchr(s->path, '/');
	if (slash == NULL)
		return 0; /* in the working directory */
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - s->path), s->path);
	if (dir[0] == '\0')
		strcpy(dir, "/");
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s: no such directory", dir);
		return -ENOENT;
	}
	return 0;
}

/*
 * The doorbell/event queue pairs a device gets: none with RFC v2's numbering
 * (its configuration has no field for them) or without RoCE, and no more
 * than the virtqueues left beside the QPs' and CQs' leave room for.
 */
static uint32_t
ring_queues(const struct vur_dev_spec *s)
{
	uint32_t vqs = virtio_net_roce_num_vqs(1, s->max_cqs, s->max_qps);

	if (s->rfc2_numbering || s->no_roce || vqs >= VUR_MAX_VRINGS)
		return 0;
	return RTE_MIN(s->ring_queues, (VUR_MAX_VRINGS - vqs) / 2);
}

int
vur_dev_mgr_create(struct vur_dev_mgr *dm, const struct vur_dev_spec *s, char *why, size_t len)
{
	struct vur_dev_params p = {
		.path = s->path,
		.client = s->client,
		.rfc2_numbering = s->rfc2_numbering,
		.no_roce = s->no_roce,
		.port_speed = s->port_speed && !s->no_roce,
		.max_qps = s->max_qps,
		.max_cqs = s->max_cqs,
		.ring_queues = ring_queues(s),
		.max_ring_qps = s->max_ring_qps,
		.max_ring_cqs = s->max_ring_cqs,
		.mtu = s->mtu,
		.loopback_mbps = dm->loopback_mbps,
		.loop = dm->loop,
		.sw = dm->sw,
	};
	struct vur_dev *dev;
	int ret;

	RTE_BUILD_BUG_ON(sizeof(s->quota) != sizeof(p.quota));
	memcpy(p.quota, s->quota, sizeof(p.quota));
	p.policy = s->policy;
	p.rate_bps = s->rate_bps;
	p.rate_pps = s->rate_pps;
	p.vlan = s->vlan;
	ret = vur_dev_spec_check(s, why, len);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&dm->lock);
	if (dm->stopping) {
		snprintf(why, len, "the backend is stopping");
		ret = -ESHUTDOWN;
		goto out;
	}
	if (find(dm, s->path) >= 0) {
		snprintf(why, len, "device %s exists", s->path);
		ret = -EEXIST;
		goto out;
	}
	if (dm->n_devs == VUR_DEV_MGR_MAX) {
		snprintf(why, len, "%d devices already: no device port left", VUR_DEV_MGR_MAX);
		ret = -ENOSPC;
		goto out;
	}
	ret = check_path(s, why, len);
	if (ret == 0)
		ret = pick_mac(dm, s, p.mac, why, len);
	if (ret != 0)
		goto out;
	dev = vur_dev_create(&p);
	if (dev == NULL) {
		ret = -rte_errno;
		if (ret == -EEXIST)
			snprintf(why, len, "%s exists and is not a socket", s->path);
		else if (ret == -EADDRINUSE)
			snprintf(why, len, "another process serves %s", s->path);
		else if (ret == -ENOSPC)
			snprintf(why, len, "no device port left on the local switch");
		else
			snprintf(why, len, "%s: cannot serve the socket: %s", s->path,
					strerror(-ret));
		goto out;
	}
	if (dm->pm != NULL && vur_port_mgr_add_dev(dm->pm, dev, !s->admin_down) != 0) {
		/* never: the port manager holds as many as the switch */
		vur_dev_stop(dev);
		vur_dev_free(dev);
		snprintf(why, len, "the port manager is full");
		ret = -ENOSPC;
		goto out;
	}
	dm->devs[dm->n_devs++] = dev;
	dm->created++;
	/*
	 * What QEMU's generic vhost-user device (vhost-user-test-device-pci
	 * since 10.2) must be told, as it cannot ask: one receive/transmit
	 * pair (max_virtqueue_pairs is 1), the control queue, the CQs and the
	 * QPs' pairs, and the configuration space's length.
	 */
	VUR_LOG(app, INFO, "%s: QEMU's generic device: virtio-id=1,num_vqs=%u,config_size=%zu",
			s->path,
			virtio_net_roce_num_vqs_rings(1, p.max_cqs, p.max_qps, p.ring_queues),
			vur_config_len(p.rfc2_numbering));
out:
	pthread_mutex_unlock(&dm->lock);
	return ret;
}

static void
free_deleted(void *arg)
{
	vur_dev_free(arg);
}

int
vur_dev_mgr_delete(struct vur_dev_mgr *dm, const char *path)
{
	struct vur_dev *dev;
	int i;

	pthread_mutex_lock(&dm->lock);
	i = dm->stopping ? -1 : find(dm, path); /* stopping: every device is going */
	if (i < 0) {
		pthread_mutex_unlock(&dm->lock);
		return -ENODEV;
	}
	dev = dm->devs[i];
	memmove(&dm->devs[i], &dm->devs[i + 1], (dm->n_devs - i - 1) * sizeof(dm->devs[0]));
	dm->n_devs--;
	if (dm->pm != NULL)
		vur_port_mgr_del_dev(dm->pm, dev);
	vur_dev_stop(dev);
	/* A callback of the control thread's current batch may still look at it. */
	if (vur_event_loop_defer(dm->loop, free_deleted, dev) != 0) {
		if (dm->n_graveyard < RTE_DIM(dm->graveyard))
			dm->graveyard[dm->n_graveyard++] = dev; /* freed by vur_dev_mgr_fini() */
		else
			VUR_LOG(app, ERR, "%s: out of memory: the device's memory is lost", path);
	}
	dm->deleted++;
	pthread_mutex_unlock(&dm->lock);
	VUR_LOG(app, INFO, "%s: device deleted", path);
	return 0;
}

int
vur_dev_mgr_set_quota(struct vur_dev_mgr *dm, const char *path, const uint64_t *max)
{
	int i;

	pthread_mutex_lock(&dm->lock);
	i = dm->stopping ? -1 : find(dm, path);
	if (i >= 0)
		vur_dev_set_quota(dm->devs[i], max);
	pthread_mutex_unlock(&dm->lock);
	return i >= 0 ? 0 : -ENODEV;
}

int
vur_dev_mgr_set_rate(struct vur_dev_mgr *dm, const char *path, uint64_t bps, uint64_t pps)
{
	int i, ret = -ENODEV;

	pthread_mutex_lock(&dm->lock);
	i = dm->stopping ? -1 : find(dm, path);
	if (i >= 0)
		ret = vur_dev_set_rate(dm->devs[i], bps, pps);
	pthread_mutex_unlock(&dm->lock);
	return ret;
}

int
vur_dev_mgr_set_vlan(struct vur_dev_mgr *dm, const char *path, uint16_t vlan)
{
	int i;

	if (vlan != VUR_VLAN_NONE && !vur_vlan_valid(vlan))
		return -EINVAL;
	pthread_mutex_lock(&dm->lock);
	i = dm->stopping ? -1 : find(dm, path);
	if (i >= 0)
		vur_dev_set_vlan(dm->devs[i], vlan);
	pthread_mutex_unlock(&dm->lock);
	return i >= 0 ? 0 : -ENODEV;
}

int
vur_dev_mgr_set_addresses(
		struct vur_dev_mgr *dm, const char *path, const struct vur_addr_policy *next)
{
	int i;

	pthread_mutex_lock(&dm->lock);
	i = dm->stopping ? -1 : find(dm, path);
	if (i >= 0)
		vur_dev_set_addresses(dm->devs[i], next);
	pthread_mutex_unlock(&dm->lock);
	return i >= 0 ? 0 : -ENODEV;
}

void
vur_dev_mgr_set_ports(struct vur_dev_mgr *dm, struct vur_port_mgr *pm)
{
	pthread_mutex_lock(&dm->lock);
	dm->pm = pm;
	pthread_mutex_unlock(&dm->lock);
}

unsigned int
vur_dev_mgr_list(struct vur_dev_mgr *dm, struct vur_dev **out, unsigned int max)
{
	unsigned int n;

	pthread_mutex_lock(&dm->lock);
	for (n = 0; n < dm->n_devs && n < max; n++)
		out[n] = dm->devs[n];
	pthread_mutex_unlock(&dm->lock);
	return n;
}

void
vur_dev_mgr_stop(struct vur_dev_mgr *dm)
{
	pthread_mutex_lock(&dm->lock);
	dm->stopping = true;
	for (unsigned int i = 0; i < dm->n_devs; i++)
		vur_dev_stop(dm->devs[i]);
	pthread_mutex_unlock(&dm->lock);
}

void
vur_dev_mgr_fini(struct vur_dev_mgr *dm)
{
	while (dm->n_devs > 0)
		vur_dev_free(dm->devs[--dm->n_devs]);
	while (dm->n_graveyard > 0)
		vur_dev_free(dm->graveyard[--dm->n_graveyard]);
	pthread_mutex_destroy(&dm->lock);
}
