// SPDX-License-Identifier: BSD-3-Clause
/*
 * The header as kernel code sees it: sparse checks every __le field as a
 * bitwise type. Build with: sparse -Wsparse-error -I../include abi_kernel.c
 */
#include <linux/virtio_net_roce.h>

#define __force __attribute__((force))

static inline __le32 cpu_to_le32(__u32 v)
{
	return (__force __le32)v;	/* little-endian host, as the kernel's on x86 */
}

static inline __u64 le64_to_cpu(__le64 v)
{
	return (__force __u64)v;
}

__u64 kernel_style_use(struct virtio_rdma_cmd_create_cq *cmd,
		       const struct virtio_rdma_ack_query_port_speed *ack);

__u64 kernel_style_use(struct virtio_rdma_cmd_create_cq *cmd,
		       const struct virtio_rdma_ack_query_port_speed *ack)
{
	cmd->cqe = cpu_to_le32(256);
	return le64_to_cpu(ack->speed);
}
