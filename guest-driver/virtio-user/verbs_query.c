/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device and port attributes: QUERY_DEVICE, QUERY_PORT and QUERY_PORT_SPEED,
 * and the port attributes the spec derives from the configuration space
 * (section "Device and Port Attributes"); RESET_OBJECTS, which a driver
 * sends before it creates anything (section "Device Initialization").
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <linux/virtio_net.h>

#include "device.h"
#include "rdma_q.h"
#include "verbs.h"

/* The largest RoCE v2 header overhead: IPv6 40, UDP 8, BTH 12, ETHs 32, ICRC 4. */
#define ROCE_V2_OVERHEAD 96
#define DEFAULT_LINK_MTU 1500

VUSER_SAME_VALUE(VUR_USER_DEVICE_RC_RNR_NAK_GEN, VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN);
VUSER_SAME_VALUE(VUR_USER_DEVICE_MEM_MGT_EXTENSIONS, VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS);
VUSER_SAME_VALUE(VUR_USER_DEVICE_ATOMIC, VIRTIO_IB_DEVICE_ATOMIC);
VUSER_SAME_VALUE(VUR_USER_ATOMIC_GLOB, VIRTIO_IB_ATOMIC_GLOB);
VUSER_SAME_VALUE(VUR_USER_MTU_256, VIRTIO_IB_MTU_256);
VUSER_SAME_VALUE(VUR_USER_MTU_512, VIRTIO_IB_MTU_512);
VUSER_SAME_VALUE(VUR_USER_MTU_1024, VIRTIO_IB_MTU_1024);
VUSER_SAME_VALUE(VUR_USER_MTU_2048, VIRTIO_IB_MTU_2048);
VUSER_SAME_VALUE(VUR_USER_MTU_4096, VIRTIO_IB_MTU_4096);
VUSER_SAME_VALUE(VUR_USER_PORT_SPEED_AGGREGATED, VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED);
VUSER_SAME_VALUE(VUR_USER_PORT_SPEED_LOOPBACK, VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK);
VUSER_SAME_VALUE(VUR_USER_PORT_SPEED_LINK_DOWN, VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN);

int
vur_user_query_device(struct vur_user_dev *d, struct vur_user_device_attr *attr)
{
	struct virtio_rdma_ack_query_device a;
	int ret;

	if (d == NULL || attr == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, &a, sizeof(a));
	if (ret < 0)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->device_cap_flags = le64toh(a.device_cap_flags);
	attr->max_mr_size = le64toh(a.max_mr_size);
	attr->page_size_cap = le64toh(a.page_size_cap);
	attr->hw_ver = le32toh(a.hw_ver);
	attr->max_qp_wr = le32toh(a.max_qp_wr);
	attr->max_send_sge = le32toh(a.max_send_sge);
	attr->max_recv_sge = le32toh(a.max_recv_sge);
	attr->max_sge_rd = le32toh(a.max_sge_rd);
	attr->max_cqe = le32toh(a.max_cqe);
	attr->max_mr = le32toh(a.max_mr);
	attr->max_pd = le32toh(a.max_pd);
	attr->max_qp_rd_atom = le32toh(a.max_qp_rd_atom);
	attr->max_qp_init_rd_atom = le32toh(a.max_qp_init_rd_atom);
	attr->max_ah = le32toh(a.max_ah);
	attr->local_ca_ack_delay = a.local_ca_ack_delay;
	attr->max_fast_reg_page_list_len = le32toh(a.max_fast_reg_page_list_len);
	attr->atomic_cap = a.atomic_cap;
	attr->max_mw = le32toh(a.max_mw);
	attr->max_srq = le32toh(a.max_srq);
	attr->max_srq_wr = le32toh(a.max_srq_wr);
	attr->max_srq_sge = le32toh(a.max_srq_sge);
	attr->max_mcast_grp = le32toh(a.max_mcast_grp);
	attr->max_mcast_qp_attach = le32toh(a.max_mcast_qp_attach);
	attr->max_total_mcast_qp_attach = le32toh(a.max_total_mcast_qp_attach);
	attr->max_ring_qp = le32toh(a.max_ring_qp);
	attr->max_ring_cq = le32toh(a.max_ring_cq);
	attr->max_ring_wr = le32toh(a.max_ring_wr);
	attr->max_ring_cqe = le32toh(a.max_ring_cqe);
	attr->max_qp = d->max_qps;
	attr->max_cq = d->max_cqs;
	return 0;
}

/* The largest IB MTU not above @link_mtu minus the headers, or 0 if none fits. */
static uint8_t
port_mtu(uint16_t link_mtu)
{
	uint8_t m;

	for (m = VIRTIO_IB_MTU_4096; m >= VIRTIO_IB_MTU_256; m--)
		if ((128u << m) + ROCE_V2_OVERHEAD <= link_mtu)
			return m;
	return 0;
}

int
vur_user_query_port(struct vur_user_dev *d, struct vur_user_port_attr *attr)
{
	struct virtio_rdma_ack_query_port a;
	struct vur_user_config cfg;
	int ret;

	if (d == NULL || attr == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0, &a, sizeof(a));
	if (ret < 0)
		return ret;
	ret = vuser_dev_get_config(d, &cfg);
	if (ret < 0)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->gid_tbl_len = le32toh(a.gid_tbl_len);
	attr->max_msg_sz = le32toh(a.max_msg_sz);
	/* virtio 5.1.4.2: without STATUS the driver assumes the link is up. */
	attr->state = !vuser_dev_has(d, VIRTIO_NET_F_STATUS) || (cfg.status & VIRTIO_NET_S_LINK_UP)
			? VUR_USER_PORT_ACTIVE
			: VUR_USER_PORT_DOWN;
	attr->link_mtu = vuser_dev_has(d, VIRTIO_NET_F_MTU) ? cfg.mtu : DEFAULT_LINK_MTU;
	attr->active_mtu = port_mtu(attr->link_mtu);
	attr->max_mtu = VUR_USER_MTU_4096;
	attr->pkey_tbl_len = 1;
	return 0;
}

int
vur_user_query_port_speed(struct vur_user_dev *d, struct vur_user_port_speed *speed)
{
	struct virtio_rdma_ack_query_port_speed a;
	int ret;

	if (d == NULL || speed == NULL)
		return -EINVAL;
	/* ROCE-DRV-SPEED-5; vur_user_ctrl() would refuse it too (ROCE-DRV-CTRL-2). */
	if (!d->port_speed)
		return -EOPNOTSUPP;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL, 0, &a, sizeof(a));
	if (ret < 0)
		return ret;
	speed->speed = le64toh(a.speed);
	speed->flags = le32toh(a.flags);
	speed->active_members = le16toh(a.active_members);
	speed->total_members = le16toh(a.total_members);
	return 0;
}

int
vur_user_reset_objects(struct vur_user_dev *d)
{
	int ret;

	if (d == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS, NULL, 0, NULL, 0);
	if (ret == 0) {
		vuser_detach_all(d); /* ROCE-DRV-INIT-4 */
		vuser_rings_reset(d);
	}
	return ret;
}
