/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of the verbs layer (verbs_*.c) share: one way to run a
 * RoCE command and map its outcome to an errno, and the conversion of
 * address vectors, which both AHs and QPs carry.
 */
#ifndef VUSER_VERBS_H
#define VUSER_VERBS_H

#include <stdint.h>

#include <linux/virtio_net_roce.h>

#include "vur_verbs.h"

/* The public enums carry the wire's values: pin each pair. */
#define VUSER_SAME_VALUE(pub, wire) _Static_assert((int)(pub) == (int)(wire), #pub " is " #wire)

/*
 * Run RoCE command @cmd with @len bytes of @data and room for exactly
 * @ack_len bytes of ack data (ROCE-DRV-CTRL-3). Returns 0, -EREMOTEIO when
 * the device answered VIRTIO_NET_ERR (logged with the command's name),
 * -EPROTO when it wrote less ack data than the command has
 * (ROCE-DEV-CTRL-9), or an error of vur_user_ctrl().
 */
int vuser_roce_cmd(struct vur_user_dev *d, uint8_t cmd, const void *data, uint32_t len, void *ack,
		uint32_t ack_len);

void vuser_ah_attr_to_wire(const struct vur_user_ah_attr *a, struct virtio_rdma_ah_attr *w);
void vuser_ah_attr_from_wire(const struct virtio_rdma_ah_attr *w, struct vur_user_ah_attr *a);

#endif /* VUSER_VERBS_H */
