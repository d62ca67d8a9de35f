/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration space: read with VHOST_USER_GET_CONFIG and decoded in
 * either numbering (struct virtio_net_roce_config, or its RFC v2 layout).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "device.h"

/* Decode a configuration space read in the device's numbering. */
static void
decode_config(const struct vur_user_dev *d, const void *raw, struct vur_user_config *cfg)
{
	const struct virtio_net_roce_config_rfc2 *r = raw;
	const struct virtio_net_roce_config *c = raw;

	memset(cfg, 0, sizeof(*cfg));
	/* Both layouts agree up to supported_hash_types. */
	if (vuser_dev_has(d, VIRTIO_NET_F_MAC))
		memcpy(cfg->mac, c->mac, sizeof(cfg->mac));
	if (vuser_dev_has(d, VIRTIO_NET_F_STATUS))
		cfg->status = le16toh(c->status);
	if (vuser_dev_has(d, VIRTIO_NET_F_MTU))
		cfg->mtu = le16toh(c->mtu);
	if (vuser_dev_has(d, VIRTIO_NET_F_SPEED_DUPLEX)) {
		cfg->speed = le32toh(c->speed);
		cfg->duplex = c->duplex;
	}
	if (!d->roce)
		return;
	cfg->max_rdma_qps = le32toh(d->params.rfc2_numbering ? r->max_rdma_qps : c->max_rdma_qps);
	cfg->max_rdma_cqs = le32toh(d->params.rfc2_numbering ? r->max_rdma_cqs : c->max_rdma_cqs);
	if (!d->params.rfc2_numbering)
		cfg->rdma_ring_queues = le16toh(c->rdma_ring_queues);
	/* ROCE-DRV-CFG-2: not read without the feature. */
	if (d->port_speed)
		cfg->roce_port_speed = le64toh(
				d->params.rfc2_numbering ? r->roce_port_speed : c->roce_port_speed);
}

/*
 * Bytes of the configuration space that hold fields of negotiated features:
 * the driver reads no further (ROCE-DRV-CFG-2 for roce_port_speed), so that
 * it also reads a backend whose space is shorter, e.g. an RFC v2 one.
 */
static uint32_t
config_size(const struct vur_user_dev *d)
{
	if (d->roce && d->params.rfc2_numbering)
		return d->port_speed
				? sizeof(struct virtio_net_roce_config_rfc2)
				: offsetof(struct virtio_net_roce_config_rfc2, roce_port_speed);
	if (d->roce)
		return d->port_speed ? sizeof(struct virtio_net_roce_config)
				     : offsetof(struct virtio_net_roce_config, roce_port_speed);
	if (vuser_dev_has(d, VIRTIO_NET_F_SPEED_DUPLEX))
		return offsetof(struct virtio_net_roce_config, duplex) + 1;
	if (vuser_dev_has(d, VIRTIO_NET_F_MTU))
		return offsetof(struct virtio_net_roce_config, mtu) + 2;
	if (vuser_dev_has(d, VIRTIO_NET_F_STATUS))
		return offsetof(struct virtio_net_roce_config, status) + 2;
	if (vuser_dev_has(d, VIRTIO_NET_F_MAC))
		return sizeof(((struct virtio_net_roce_config *)0)->mac);
	return 0;
}

/*
 * One GET_CONFIG for all fields: the backend answers it from one snapshot,
 * which is what ROCE-DRV-CFG-3's generation check protects on transports
 * that read field by field.
 */
int
vuser_dev_get_config(struct vur_user_dev *d, struct vur_user_config *cfg)
{
	union {
		struct virtio_net_roce_config c;
		struct virtio_net_roce_config_rfc2 r;
	} raw;
	uint32_t size = config_size(d);
	int ret = 0;

	memset(&raw, 0, sizeof(raw));
	if (size > 0) {
		pthread_mutex_lock(&d->conn_lock);
		ret = vuser_req_get_config(&d->conn, 0, size, &raw);
		pthread_mutex_unlock(&d->conn_lock);
	}
	if (ret == 0)
		decode_config(d, &raw, cfg);
	return ret;
}

int
vur_user_read_config(struct vur_user_dev *d, struct vur_user_config *cfg)
{
	if (d == NULL || cfg == NULL)
		return -EINVAL;
	return vuser_dev_get_config(d, cfg);
}
