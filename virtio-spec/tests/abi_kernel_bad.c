// SPDX-License-Identifier: BSD-3-Clause
/*
 * Must be rejected by sparse: a CPU-order value stored into a wire field.
 * Proves that the header's types are the kernel's bitwise __le types, so a
 * missing cpu_to_le*() in the guest driver cannot go unnoticed.
 */
#include <linux/virtio_net_roce.h>

void kernel_style_misuse(struct virtio_rdma_cmd_create_cq *cmd);

void kernel_style_misuse(struct virtio_rdma_cmd_create_cq *cmd)
{
	__u32 cqe = 256;

	cmd->cqe = cqe;
}
