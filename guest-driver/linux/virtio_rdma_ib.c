// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_device: device and port attributes, the GID table, PDs and user
 * contexts. Each verb that the device implements is one control command of
 * class VIRTIO_NET_CTRL_ROCE; the RoCE GID table follows the netdev's
 * addresses through ib_core's GID management (ib_device_set_netdev).
 */
#include <linux/etherdevice.h>
#include <linux/version.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "virtio_rdma.h"

struct virtio_rdma_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct virtio_rdma_ucontext {
	struct ib_ucontext ibuc;
};

static struct virtio_rdma_pd *to_vpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct virtio_rdma_pd, ibpd);
}

static int virtio_rdma_query_device(struct ib_device *ibdev,
				    struct ib_device_attr *attr,
				    struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);
	struct virtio_rdma_ack_query_device ack;
	u64 caps;
	int ret;

	if (udata->inlen || udata->outlen)
		return -EINVAL;
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE,
				   NULL, 0, &ack, sizeof(ack));
	if (ret)
		return ret;

	memset(attr, 0, sizeof(*attr));
	/* ROCE-DRV-ATTR-2: only the defined capability bit is read. */
	caps = le64_to_cpu(ack.device_cap_flags);
	if (caps & VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN)
		attr->device_cap_flags |= IB_DEVICE_RC_RNR_NAK_GEN;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = le64_to_cpu(ack.max_mr_size);
	attr->page_size_cap = le64_to_cpu(ack.page_size_cap);
	/* ROCE-DRV-ATTR-1: hw_ver is for diagnostics only. */
	attr->hw_ver = le32_to_cpu(ack.hw_ver);
	attr->max_qp = dev->max_rdma_qps;
	attr->max_qp_wr = le32_to_cpu(ack.max_qp_wr);
	attr->max_send_sge = le32_to_cpu(ack.max_send_sge);
	attr->max_recv_sge = le32_to_cpu(ack.max_recv_sge);
	attr->max_sge_rd = le32_to_cpu(ack.max_sge_rd);
	attr->max_cq = dev->max_rdma_cqs;
	attr->max_cqe = le32_to_cpu(ack.max_cqe);
	attr->max_mr = le32_to_cpu(ack.max_mr);
	attr->max_pd = le32_to_cpu(ack.max_pd);
	attr->max_qp_rd_atom = le32_to_cpu(ack.max_qp_rd_atom);
	attr->max_qp_init_rd_atom = le32_to_cpu(ack.max_qp_init_rd_atom);
	attr->max_res_rd_atom = attr->max_qp_rd_atom * attr->max_qp;
	attr->max_ah = le32_to_cpu(ack.max_ah);
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = ack.local_ca_ack_delay;
	attr->atomic_cap = IB_ATOMIC_NONE;
	return 0;
}

/* Section "Device and Port Attributes": the derived port attributes. */
static int virtio_rdma_query_port(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_attr *attr)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);
	struct virtio_rdma_port *port = &dev->port;
	bool up = virtio_rdma_link_up(dev);

	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = virtio_rdma_port_mtu(port->link_mtu);
	attr->phys_mtu = port->link_mtu;
	attr->gid_tbl_len = port->gid_tbl_len;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = port->max_msg_sz;
	attr->max_vl_num = 1;
	virtio_rdma_ib_speed(virtio_rdma_port_speed(dev), &attr->active_speed,
			     &attr->active_width);
	return 0;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
/* ROCE-DRV-SPEED-4, -5: the speed in 100 Mb/s as is, or not supported. */
static int virtio_rdma_query_port_speed(struct ib_device *ibdev, u32 port_num,
					u64 *speed)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);

	if (!dev->has_port_speed)
		return -EOPNOTSUPP;
	*speed = virtio_rdma_port_speed(dev);
	return 0;
}
#endif

static int virtio_rdma_get_port_immutable(struct ib_device *ibdev,
					  u32 port_num,
					  struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	/* RoCE v2 only: the device has no RoCE v1 (Ethertype 0x8915). */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer virtio_rdma_get_link_layer(struct ib_device *ibdev,
						       u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/* The P_Key table has the single entry 0xFFFF. */
static int virtio_rdma_query_pkey(struct ib_device *ibdev, u32 port_num,
				  u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/*
 * ib_core keeps the GID table and gives each GID its index; the device's
 * table has the same indices. The core deletes an entry before it reuses
 * the index (ROCE-DRV-GID-1).
 */
static int virtio_rdma_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(attr->device);
	struct virtio_rdma_cmd_add_gid cmd = {
		.index = cpu_to_le16(attr->index),
	};

	memcpy(cmd.gid, attr->gid.raw, sizeof(cmd.gid));
	return virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_ADD_GID, &cmd,
				    sizeof(cmd), NULL, 0);
}

static int virtio_rdma_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(attr->device);
	struct virtio_rdma_cmd_del_gid cmd = {
		.index = cpu_to_le16(attr->index),
	};

	return virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DEL_GID, &cmd,
				    sizeof(cmd), NULL, 0);
}

static int virtio_rdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibpd->device);
	struct virtio_rdma_ack_create_pd ack;
	int ret;

	/*
	 * A kernel PD comes with ib_core's DMA MR (get_dma_mr), which this
	 * driver does not have yet: kernel consumers are refused.
	 */
	if (!udata)
		return -EOPNOTSUPP;
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL,
				   0, &ack, sizeof(ack));
	if (ret)
		return ret;
	to_vpd(ibpd)->pdn = le32_to_cpu(ack.pdn);
	return 0;
}

static int virtio_rdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibpd->device);
	struct virtio_rdma_cmd_destroy_pd cmd = {
		.pdn = cpu_to_le32(to_vpd(ibpd)->pdn),
	};

	return virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &cmd,
				    sizeof(cmd), NULL, 0);
}

/* A user context holds nothing on the device. */
static int virtio_rdma_alloc_ucontext(struct ib_ucontext *uctx,
				      struct ib_udata *udata)
{
	return 0;
}

static void virtio_rdma_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * Nothing of a user context is mapped into its process (no doorbell, no
 * ring), so nothing is to be taken away when the device goes. With this op
 * ib_core removes the device while processes still hold contexts (they get
 * IB_EVENT_DEVICE_FATAL, then EIO) instead of waiting for them to close,
 * and open contexts do not pin the module.
 */
static void virtio_rdma_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static const struct ib_device_ops virtio_rdma_ib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,

	.port_groups = virtio_rdma_port_groups,

	.add_gid = virtio_rdma_add_gid,
	.alloc_pd = virtio_rdma_alloc_pd,
	.alloc_ucontext = virtio_rdma_alloc_ucontext,
	.dealloc_pd = virtio_rdma_dealloc_pd,
	.dealloc_ucontext = virtio_rdma_dealloc_ucontext,
	.del_gid = virtio_rdma_del_gid,
	.disassociate_ucontext = virtio_rdma_disassociate_ucontext,
	.get_link_layer = virtio_rdma_get_link_layer,
	.get_port_immutable = virtio_rdma_get_port_immutable,
	.query_device = virtio_rdma_query_device,
	.query_pkey = virtio_rdma_query_pkey,
	.query_port = virtio_rdma_query_port,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
	.query_port_speed = virtio_rdma_query_port_speed,
#endif

	INIT_RDMA_OBJ_SIZE(ib_pd, virtio_rdma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, virtio_rdma_ucontext, ibuc),
};

int virtio_rdma_ib_register(struct virtio_rdma_dev *dev)
{
	struct ib_device *ibdev = &dev->ib;
	int ret;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->dev.parent = &dev->vdev->dev;
	strscpy(ibdev->node_desc, "virtio_rdma", sizeof(ibdev->node_desc));
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    dev->netdev->dev_addr);
	ib_set_device_ops(ibdev, &virtio_rdma_ib_ops);

	ret = ib_device_set_netdev(ibdev, dev->netdev, VIRTIO_NET_ROCE_PORT_NUM);
	if (ret)
		return ret;
	/* DMA goes through the virtio transport's device, as for the rings. */
	ret = ib_register_device(ibdev, "virtio_rdma%d",
				 dev->vdev->dev.parent);
	if (ret) {
		/* Drop the netdev reference now: the netdev goes first. */
		ib_device_set_netdev(ibdev, NULL, VIRTIO_NET_ROCE_PORT_NUM);
		return ret;
	}
	WRITE_ONCE(dev->ib_registered, true);
	return 0;
}

void virtio_rdma_ib_unregister(struct virtio_rdma_dev *dev)
{
	WRITE_ONCE(dev->ib_registered, false);
	ib_unregister_device(&dev->ib);
}
