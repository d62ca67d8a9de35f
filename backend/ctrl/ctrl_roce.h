/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCE control commands (class VIRTIO_NET_CTRL_ROCE): their table and
 * handlers. The handlers' context is a struct vur_ctrl_target (its rdma).
 */
#ifndef VUR_CTRL_ROCE_H
#define VUR_CTRL_ROCE_H

#include <stdbool.h>

#include "ctrl/ctrl_dispatch.h"

#define VUR_CTRL_ROCE_MAX_CMDS VIRTIO_NET_CTRL_ROCE_NR_CMDS

/*
 * Fill @cmds (VUR_CTRL_ROCE_MAX_CMDS entries) with the RoCE commands under
 * the class and feature bits of the chosen numbering; returns the count.
 */
unsigned int vur_ctrl_roce_commands(bool rfc2_numbering, struct vur_ctrl_cmd *cmds);

#endif /* VUR_CTRL_ROCE_H */
