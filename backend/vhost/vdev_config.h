/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device configuration space: built from the device's state, read by the
 * frontend with VHOST_USER_GET_CONFIG, never written by it.
 */
#ifndef VUR_VDEV_CONFIG_H
#define VUR_VDEV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_net_roce.h>

/* Large enough for either numbering's layout. */
#define VUR_CONFIG_MAX_LEN sizeof(struct virtio_net_roce_config)

struct vur_config_state {
	uint8_t mac[6];
	bool link_up;
	bool announce; /* VIRTIO_NET_S_ANNOUNCE */
	uint16_t mtu;
	uint32_t max_qps;
	uint32_t max_cqs;
	uint16_t ring_queues; /* rdma_ring_queues */
	uint64_t speed;       /* RoCE port speed, 100 Mb/s units */
	bool rfc2_numbering;  /* RFC v2's field offsets */
};

/* Length of the configuration space in the chosen numbering. */
size_t vur_config_len(bool rfc2_numbering);

/* Encode @st little-endian into @buf (VUR_CONFIG_MAX_LEN bytes); returns the length. */
size_t vur_config_build(const struct vur_config_state *st, uint8_t *buf);

/*
 * Copy [@offset, @offset + @size) of the encoded space to @out.
 * Returns 0, or -EINVAL when the range is empty or leaves the space.
 */
int vur_config_read(
		const uint8_t *cfg, size_t cfg_len, uint32_t offset, uint32_t size, uint8_t *out);

#endif /* VUR_VDEV_CONFIG_H */
