/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>

#include "vdev_config.h"

/* virtio-net's speed field holds Mb/s up to 0x7fffffff (virtio-spec 5.1.4). */
#define VIRTIO_NET_SPEED_MAX   0x7fffffffULL
#define VIRTIO_NET_DUPLEX_FULL 1
#define VIRTIO_NET_S_LINK_UP   1
#define VIRTIO_NET_S_ANNOUNCE  2

size_t
vur_config_len(bool rfc2_numbering)
{
	return rfc2_numbering ? sizeof(struct virtio_net_roce_config_rfc2)
			      : sizeof(struct virtio_net_roce_config);
}

static uint32_t
net_speed_mbps(uint64_t speed)
{
	uint64_t mbps = speed * VIRTIO_NET_ROCE_SPEED_UNIT_MBPS;

	if (speed > VIRTIO_NET_SPEED_MAX / VIRTIO_NET_ROCE_SPEED_UNIT_MBPS)
		mbps = VIRTIO_NET_SPEED_MAX;
	return (uint32_t)mbps;
}

/*
 * RFC v2 placed the RoCE fields where supported_tunnel_types now sits; the
 * fields before it are the same in both layouts.
 */
static void
to_rfc2_layout(const struct virtio_net_roce_config *c, uint8_t *buf)
{
	struct virtio_net_roce_config_rfc2 r;

	memset(&r, 0, sizeof(r));
	memcpy(&r, c, offsetof(struct virtio_net_roce_config_rfc2, max_rdma_qps));
	r.max_rdma_qps = c->max_rdma_qps;
	r.max_rdma_cqs = c->max_rdma_cqs;
	r.roce_port_speed = c->roce_port_speed;
	memset(buf, 0, VUR_CONFIG_MAX_LEN);
	memcpy(buf, &r, sizeof(r));
}

size_t
vur_config_build(const struct vur_config_state *st, uint8_t *buf)
{
	struct virtio_net_roce_config c;

	memset(&c, 0, sizeof(c));
	memcpy(c.mac, st->mac, sizeof(c.mac));
	c.status = rte_cpu_to_le_16((st->link_up ? VIRTIO_NET_S_LINK_UP : 0) |
			(st->announce ? VIRTIO_NET_S_ANNOUNCE : 0));
	c.max_virtqueue_pairs = rte_cpu_to_le_16(1);
	c.mtu = rte_cpu_to_le_16(st->mtu);
	c.speed = rte_cpu_to_le_32(net_speed_mbps(st->speed));
	c.duplex = VIRTIO_NET_DUPLEX_FULL;
	c.max_rdma_qps = rte_cpu_to_le_32(st->max_qps);
	c.max_rdma_cqs = rte_cpu_to_le_32(st->max_cqs);
	c.rdma_ring_queues = rte_cpu_to_le_16(st->ring_queues);
	c.roce_port_speed = rte_cpu_to_le_64(st->speed);

	if (st->rfc2_numbering)
		to_rfc2_layout(&c, buf);
	else
		memcpy(buf, &c, sizeof(c));
	return vur_config_len(st->rfc2_numbering);
}

int
vur_config_read(const uint8_t *cfg, size_t cfg_len, uint32_t offset, uint32_t size, uint8_t *out)
{
	if (size == 0 || offset >= cfg_len || size > cfg_len - offset)
		return -EINVAL;
	memcpy(out, cfg + offset, size);
	return 0;
}
