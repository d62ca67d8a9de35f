/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One RoCE control command, as every verb runs it: the class of the
 * device's numbering, the answer's length checked, VIRTIO_NET_ERR turned
 * into -EREMOTEIO. The wire carries no reason for a refusal; the log line
 * names the command so that it can be matched with the backend's log.
 */
#include <errno.h>
#include <string.h>

#include <linux/virtio_net.h>

#include "device.h"
#include "log.h"
#include "verbs.h"

static const char *const cmd_names[VIRTIO_NET_CTRL_ROCE_NR_CMDS] = {
	[VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE] = "QUERY_DEVICE",
	[VIRTIO_NET_CTRL_ROCE_QUERY_PORT] = "QUERY_PORT",
	[VIRTIO_NET_CTRL_ROCE_CREATE_CQ] = "CREATE_CQ",
	[VIRTIO_NET_CTRL_ROCE_DESTROY_CQ] = "DESTROY_CQ",
	[VIRTIO_NET_CTRL_ROCE_CREATE_PD] = "CREATE_PD",
	[VIRTIO_NET_CTRL_ROCE_DESTROY_PD] = "DESTROY_PD",
	[VIRTIO_NET_CTRL_ROCE_GET_DMA_MR] = "GET_DMA_MR",
	[VIRTIO_NET_CTRL_ROCE_REG_USER_MR] = "REG_USER_MR",
	[VIRTIO_NET_CTRL_ROCE_DEREG_MR] = "DEREG_MR",
	[VIRTIO_NET_CTRL_ROCE_CREATE_QP] = "CREATE_QP",
	[VIRTIO_NET_CTRL_ROCE_MODIFY_QP] = "MODIFY_QP",
	[VIRTIO_NET_CTRL_ROCE_QUERY_QP] = "QUERY_QP",
	[VIRTIO_NET_CTRL_ROCE_DESTROY_QP] = "DESTROY_QP",
	[VIRTIO_NET_CTRL_ROCE_CREATE_AH] = "CREATE_AH",
	[VIRTIO_NET_CTRL_ROCE_DESTROY_AH] = "DESTROY_AH",
	[VIRTIO_NET_CTRL_ROCE_ADD_GID] = "ADD_GID",
	[VIRTIO_NET_CTRL_ROCE_DEL_GID] = "DEL_GID",
	[VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ] = "REQ_NOTIFY_CQ",
	[VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED] = "QUERY_PORT_SPEED",
	[VIRTIO_NET_CTRL_ROCE_ALLOC_MR] = "ALLOC_MR",
	[VIRTIO_NET_CTRL_ROCE_CREATE_SRQ] = "CREATE_SRQ",
	[VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ] = "DESTROY_SRQ",
	[VIRTIO_NET_CTRL_ROCE_ALLOC_MW] = "ALLOC_MW",
	[VIRTIO_NET_CTRL_ROCE_DEALLOC_MW] = "DEALLOC_MW",
	[VIRTIO_NET_CTRL_ROCE_ATTACH_MCAST] = "ATTACH_MCAST",
	[VIRTIO_NET_CTRL_ROCE_DETACH_MCAST] = "DETACH_MCAST",
	[VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS] = "RESET_OBJECTS",
	[VIRTIO_NET_CTRL_ROCE_SETUP_RINGS] = "SETUP_RINGS",
	[VIRTIO_NET_CTRL_ROCE_RESIZE_CQ] = "RESIZE_CQ",
};

int
vuser_roce_cmd(struct vur_user_dev *d, uint8_t cmd, const void *data, uint32_t len, void *ack,
		uint32_t ack_len)
{
	const char *name = cmd < VIRTIO_NET_CTRL_ROCE_NR_CMDS ? cmd_names[cmd] : "?";
	uint8_t status;
	int ret;

	ret = vur_user_ctrl(d, vur_user_roce_class(d), cmd, data, len, ack, ack_len, &status);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "%s: %s", name, strerror(-ret));
		return ret;
	}
	if (status != VIRTIO_NET_OK) {
		VUSER_LOG(ERR, d->name, "%s: refused by the device (VIRTIO_NET_ERR)", name);
		return -EREMOTEIO;
	}
	if ((uint32_t)ret != ack_len) {
		VUSER_LOG(ERR, d->name, "%s: %d bytes of ack data where %u are due", name, ret,
				ack_len);
		return -EPROTO;
	}
	return 0;
}
