// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_device: device and port attributes, the GID table, PDs, user
 * contexts, and the table of all verbs (MRs, CQs, QPs and AHs have their
 * own files). Each verb that the device implements is one control command
 * of class VIRTIO_NET_CTRL_ROCE; the RoCE GID table follows the netdev's
 * addresses through ib_core's GID management (ib_device_set_netdev).
 */
#include <linux/etherdevice.h>
#include <linux/version.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "virtio_rdma.h"

/*
 * QUERY_DEVICE once, at probe after DRIVER_OK: the values are fixed for the
 * device's life (ROCE-DEV-ATTR-1), and the data path needs the capabilities
 * before ib_core asks (a WR or an access flag of a capability the device
 * lacks is refused, ROCE-DRV-ATTR-4).
 */
int virtio_rdma_dev_attr_init(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_ack_query_device *a = &dev->attr;
	int ret;

	/*
	 * ROCE-DRV-INIT-3: objects an earlier driver left (a reboot, crash or
	 * kexec on a transport that forwards no device reset, as QEMU's
	 * generic vhost-user device) go before this driver adds its GIDs. A
	 * device of an older revision refuses the command: it is reset by its
	 * transport, and the driver goes on.
	 */
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_RESET_OBJECTS,
				   NULL, 0, NULL, 0);
	if (ret)
		dev_warn(&dev->vdev->dev,
			 "RESET_OBJECTS failed (%d): objects of an earlier driver may remain\n",
			 ret);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE,
				   NULL, 0, a, sizeof(*a));
	if (ret)
		return ret;
	/* ROCE-DRV-ATTR-2: only the defined bits are read. */
	dev->caps = le64_to_cpu(a->device_cap_flags) &
		    (VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN |
		     VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS |
		     VIRTIO_IB_DEVICE_SRQ | VIRTIO_IB_DEVICE_MEM_WINDOW |
		     VIRTIO_IB_DEVICE_ATOMIC | VIRTIO_IB_DEVICE_MULTICAST |
		     VIRTIO_IB_DEVICE_RESIZE_CQ);
	/* ROCE-DEV-ATTR-13: fast registration needs room for a page. */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	    !le32_to_cpu(a->max_fast_reg_page_list_len)) {
		dev_warn(&dev->vdev->dev,
			 "MEM_MGT_EXTENSIONS with max_fast_reg_page_list_len 0: not used\n");
		dev->caps &= ~VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS;
	}
	/* ROCE-DEV-ATTR-14 */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_SRQ) &&
	    (!le32_to_cpu(a->max_srq) || !le32_to_cpu(a->max_srq_wr) ||
	     !le32_to_cpu(a->max_srq_sge))) {
		dev_warn(&dev->vdev->dev,
			 "SRQ with max_srq %u, max_srq_wr %u, max_srq_sge %u: not used\n",
			 le32_to_cpu(a->max_srq), le32_to_cpu(a->max_srq_wr),
			 le32_to_cpu(a->max_srq_sge));
		dev->caps &= ~VIRTIO_IB_DEVICE_SRQ;
	}
	/* ROCE-DEV-ATTR-11 */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_ATOMIC) &&
	    a->atomic_cap != VIRTIO_IB_ATOMIC_HCA &&
	    a->atomic_cap != VIRTIO_IB_ATOMIC_GLOB) {
		dev_warn(&dev->vdev->dev,
			 "ATOMIC with atomic_cap %u: not used\n", a->atomic_cap);
		dev->caps &= ~VIRTIO_IB_DEVICE_ATOMIC;
	}
	/* ROCE-DEV-ATTR-15: memory windows need room for one. */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_WINDOW) &&
	    !le32_to_cpu(a->max_mw)) {
		dev_warn(&dev->vdev->dev,
			 "MEM_WINDOW with max_mw 0: not used\n");
		dev->caps &= ~VIRTIO_IB_DEVICE_MEM_WINDOW;
	}
	/* ROCE-DEV-ATTR-17 */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MULTICAST) &&
	    (!le32_to_cpu(a->max_mcast_grp) ||
	     !le32_to_cpu(a->max_mcast_qp_attach) ||
	     le32_to_cpu(a->max_total_mcast_qp_attach) <
	     le32_to_cpu(a->max_mcast_qp_attach))) {
		dev_warn(&dev->vdev->dev,
			 "MULTICAST with inconsistent limits: not used\n");
		dev->caps &= ~VIRTIO_IB_DEVICE_MULTICAST;
	}
	dev_info(&dev->vdev->dev,
		 "capabilities:%s%s%s%s%s%s%s (fast registration %u pages, vendor 0x%x part 0x%x)\n",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS) ?
		 " mem_mgt_extensions" : "",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_WINDOW) ?
		 " mem_window" : "",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_ATOMIC) ?
		 " atomic" : "",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN) ?
		 " rc_rnr_nak_gen" : "",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MULTICAST) ?
		 " multicast" : "",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_SRQ) ? " srq" : "",
		 virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_RESIZE_CQ) ?
		 " resize_cq" : "",
		 le32_to_cpu(a->max_fast_reg_page_list_len),
		 le32_to_cpu(a->vendor_id), le32_to_cpu(a->vendor_part_id));
	return 0;
}

/*
 * With the rings layout on, kernel consumers' CQs, QPs and SRQs go on
 * rings (virtio_rdma_cq_rings.c, virtio_rdma_qp_rings.c): the limits are
 * the rings', as far as one allocation of contiguous pages holds a ring.
 * ib_core keeps one set of attributes for the kernel and for processes:
 * max_qp_wr is the smaller of what a kernel QP and a process's QP on
 * rings (virtio_rdma_uqp_rings.c) take. A process whose provider does not
 * ask for rings still gets virtqueues, refused beyond a virtqueue's size
 * (README.md).
 */
static void query_device_rings(struct virtio_rdma_dev *dev,
			       struct ib_device_attr *attr)
{
	struct virtio_rdma_rings *r = &dev->rings;

	attr->max_qp = dev->max_rdma_qps + r->max_ring_qp;
	attr->max_qp_wr = min(virtio_rdma_qp_rings_max_wr(dev),
			      virtio_rdma_uqp_rings_max_wr(dev));
	attr->max_cq = dev->max_rdma_cqs + r->max_ring_cq;
	attr->max_cqe = virtio_rdma_cq_rings_max_cqe(dev);
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_SRQ)) {
		attr->max_srq += r->max_ring_qp;
		attr->max_srq_wr = min(virtio_rdma_srq_rings_max_wr(dev),
				       virtio_rdma_usrq_rings_max_wr(dev));
	}
}

static int virtio_rdma_query_device(struct ib_device *ibdev,
				    struct ib_device_attr *attr,
				    struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibdev);
	const struct virtio_rdma_ack_query_device *a = &dev->attr;
	u32 sq_vq = virtio_rdma_sq_vq(dev, 0), cq_vq = virtio_rdma_cq_vq(dev, 0);
	u32 rq_vq = virtio_rdma_rq_vq(dev, 0);

	/* ib_core's own query at registration has no udata on 7.x. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_RC_RNR_NAK_GEN))
		attr->device_cap_flags |= IB_DEVICE_RC_RNR_NAK_GEN;
	/* ALLOC_MR, REG_MR, LOCAL_INV, SEND_WITH_INV: what ULPs look for. */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		attr->max_fast_reg_page_list_len =
			le32_to_cpu(a->max_fast_reg_page_list_len);
	}
	/* ALLOC_MW, DEALLOC_MW, BIND_MW: type 1 and type 2B windows. */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_WINDOW)) {
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
		attr->max_mw = min_t(u32, le32_to_cpu(a->max_mw), INT_MAX);
	}
	/* An SRQ is a receive virtqueue of a QP number other than 0 and 1. */
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_SRQ)) {
		attr->max_srq = min(le32_to_cpu(a->max_srq),
				    dev->max_rdma_qps - 2);
		attr->max_srq_wr = min(le32_to_cpu(a->max_srq_wr),
				       virtqueue_get_vring_size(dev->vqs[rq_vq]));
		attr->max_srq_sge = le32_to_cpu(a->max_srq_sge);
	}
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = le32_to_cpu(a->vendor_id);
	attr->vendor_part_id = le32_to_cpu(a->vendor_part_id);
	attr->max_mr_size = le64_to_cpu(a->max_mr_size);
	attr->page_size_cap = le64_to_cpu(a->page_size_cap);
	/* ROCE-DRV-ATTR-1: hw_ver is for diagnostics only. */
	attr->hw_ver = le32_to_cpu(a->hw_ver);
	attr->max_qp = dev->max_rdma_qps;
	/* A WR or CQE is a slot of a virtqueue: no more than its size. */
	attr->max_qp_wr = min(le32_to_cpu(a->max_qp_wr),
			      virtqueue_get_vring_size(dev->vqs[sq_vq]));
	attr->max_send_sge = le32_to_cpu(a->max_send_sge);
	attr->max_recv_sge = le32_to_cpu(a->max_recv_sge);
	attr->max_sge_rd = le32_to_cpu(a->max_sge_rd);
	attr->max_cq = dev->max_rdma_cqs;
	/*
	 * A CQE is an entry of a ring with the rings layout on (every kernel
	 * CQ, a process's whose provider asks: virtio_rdma_ucq_rings.c;
	 * an older provider gets EINVAL beyond the virtqueue's size), else a
	 * slot of a virtqueue.
	 */
	attr->max_cqe = dev->rings.on ? virtio_rdma_cq_rings_max_cqe(dev) :
			min(le32_to_cpu(a->max_cqe),
			    virtqueue_get_vring_size(dev->vqs[cq_vq]));
	if (dev->rings.on)
		query_device_rings(dev, attr);
	attr->max_mr = le32_to_cpu(a->max_mr);
	attr->max_pd = le32_to_cpu(a->max_pd);
	attr->max_qp_rd_atom = le32_to_cpu(a->max_qp_rd_atom);
	attr->max_qp_init_rd_atom = le32_to_cpu(a->max_qp_init_rd_atom);
	attr->max_res_rd_atom = attr->max_qp_rd_atom * attr->max_qp;
	attr->max_ah = le32_to_cpu(a->max_ah);
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = a->local_ca_ack_delay;
	attr->atomic_cap = IB_ATOMIC_NONE;
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_ATOMIC))
		attr->atomic_cap = a->atomic_cap == VIRTIO_IB_ATOMIC_GLOB ?
				   IB_ATOMIC_GLOB : IB_ATOMIC_HCA;
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MULTICAST)) {
		attr->max_mcast_grp = le32_to_cpu(a->max_mcast_grp);
		attr->max_mcast_qp_attach = le32_to_cpu(a->max_mcast_qp_attach);
		attr->max_total_mcast_qp_attach =
			le32_to_cpu(a->max_total_mcast_qp_attach);
	}
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

#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
/*
 * Without this op, 7.x's ib_core dispatches PORT_ACTIVE and PORT_ERR
 * itself on each carrier change of the netdev: a second event for each one
 * the driver raises from the device's link bit (virtio_rdma_port.c, as on
 * 6.1). The driver's events stay the only ones.
 */
static void virtio_rdma_report_port_event(struct ib_device *ibdev,
					  struct net_device *ndev,
					  unsigned long event)
{
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

/* IB_ACCESS_* to enum virtio_ib_access_flags and back. */
u32 virtio_rdma_access_flags(int ib_flags)
{
	u32 flags = 0;

	if (ib_flags & IB_ACCESS_LOCAL_WRITE)
		flags |= VIRTIO_IB_ACCESS_LOCAL_WRITE;
	if (ib_flags & IB_ACCESS_REMOTE_WRITE)
		flags |= VIRTIO_IB_ACCESS_REMOTE_WRITE;
	if (ib_flags & IB_ACCESS_REMOTE_READ)
		flags |= VIRTIO_IB_ACCESS_REMOTE_READ;
	if (ib_flags & IB_ACCESS_REMOTE_ATOMIC)
		flags |= VIRTIO_IB_ACCESS_REMOTE_ATOMIC;
	if (ib_flags & IB_ACCESS_MW_BIND)
		flags |= VIRTIO_IB_ACCESS_MW_BIND;
	return flags;
}

int virtio_rdma_ib_access_flags(u32 flags)
{
	int ib_flags = 0;

	if (flags & VIRTIO_IB_ACCESS_LOCAL_WRITE)
		ib_flags |= IB_ACCESS_LOCAL_WRITE;
	if (flags & VIRTIO_IB_ACCESS_REMOTE_WRITE)
		ib_flags |= IB_ACCESS_REMOTE_WRITE;
	if (flags & VIRTIO_IB_ACCESS_REMOTE_READ)
		ib_flags |= IB_ACCESS_REMOTE_READ;
	if (flags & VIRTIO_IB_ACCESS_REMOTE_ATOMIC)
		ib_flags |= IB_ACCESS_REMOTE_ATOMIC;
	if (flags & VIRTIO_IB_ACCESS_MW_BIND)
		ib_flags |= IB_ACCESS_MW_BIND;
	return ib_flags;
}

/*
 * The access rights of an MR (user, DMA, or a REG_MR WR) on the wire:
 * LOCAL_WRITE and the REMOTE_* rights, REMOTE_ATOMIC only with the
 * capability (ROCE-DRV-ATTR-4); the remote writers need LOCAL_WRITE
 * (ROCE-DRV-MR-3, -4). MW binding, zero-based MRs and ODP: EOPNOTSUPP.
 */
int virtio_rdma_wire_access(struct virtio_rdma_dev *dev, int access,
			    u32 *wire)
{
	int have = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		   IB_ACCESS_REMOTE_READ;

	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_ATOMIC))
		have |= IB_ACCESS_REMOTE_ATOMIC;
	if (virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_WINDOW))
		have |= IB_ACCESS_MW_BIND;
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~have)
		return -EOPNOTSUPP;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	*wire = virtio_rdma_access_flags(access);
	return 0;
}

/*
 * The device's PD lives while the verbs PD or a QP that a process still
 * maps holds it (ROCE-DEV-PD-3 would refuse DESTROY_PD before).
 */
static void pd_release(struct kref *ref)
{
	struct virtio_rdma_pd_res *pd =
		container_of(ref, struct virtio_rdma_pd_res, ref);
	struct virtio_rdma_cmd_destroy_pd cmd = {
		.pdn = cpu_to_le32(pd->pdn),
	};
	int ret;

	if (!pd->dev->dead) {
		ret = virtio_rdma_roce_cmd(pd->dev,
					   VIRTIO_NET_CTRL_ROCE_DESTROY_PD,
					   &cmd, sizeof(cmd), NULL, 0);
		if (ret)
			dev_warn_ratelimited(&pd->dev->vdev->dev,
					     "PD %u: DESTROY_PD %d\n",
					     pd->pdn, ret);
	}
	kfree(pd);
}

void virtio_rdma_pd_get(struct virtio_rdma_pd_res *pd)
{
	kref_get(&pd->ref);
}

void virtio_rdma_pd_put(struct virtio_rdma_pd_res *pd)
{
	kref_put(&pd->ref, pd_release);
}

static int virtio_rdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibpd->device);
	struct virtio_rdma_alloc_pd_resp resp = {};
	struct virtio_rdma_ack_create_pd ack;
	struct virtio_rdma_pd_res *pd;
	int ret;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return -ENOMEM;
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL,
				   0, &ack, sizeof(ack));
	if (ret) {
		kfree(pd);
		return ret;
	}
	kref_init(&pd->ref);
	pd->dev = dev;
	pd->pdn = le32_to_cpu(ack.pdn);
	to_vpd(ibpd)->res = pd;
	if (!udata)
		return 0;
	resp.pdn = pd->pdn;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		virtio_rdma_pd_put(pd);
	return ret;
}

static int virtio_rdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	virtio_rdma_pd_put(to_vpd(ibpd)->res);
	return 0;
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
 * With this op ib_core removes the device while processes still hold
 * contexts (they get IB_EVENT_DEVICE_FATAL, then EIO) instead of waiting
 * for them to close, and open contexts do not pin the module. Before it
 * calls it, ib_core has zapped every mapping made with rdma_user_mmap_io()
 * (all of this driver's: rings, slots, doorbells) and dropped their
 * references; it then destroys the context's objects, so every device
 * object is destroyed while the device still answers.
 */
static void virtio_rdma_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static const struct ib_device_ops virtio_rdma_ib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = VIRTIO_RDMA_UVERBS_ABI_VERSION,

	.port_groups = virtio_rdma_port_groups,

	/*
	 * With post_send, post_recv and poll_cq (kernel QPs and CQs,
	 * virtio_rdma_kverbs.c) ib_core treats the device as a kernel verbs
	 * provider: ib_mad opens its GSI QP, ib_cm and rdma_cm attach.
	 */
	.add_gid = virtio_rdma_add_gid,
	.alloc_mr = virtio_rdma_alloc_mr,
	.alloc_mw = virtio_rdma_alloc_mw,
	.alloc_pd = virtio_rdma_alloc_pd,
	.alloc_ucontext = virtio_rdma_alloc_ucontext,
	.attach_mcast = virtio_rdma_attach_mcast,
	.create_ah = virtio_rdma_create_ah,
	.create_cq = virtio_rdma_create_cq,
	.create_qp = virtio_rdma_create_qp,
	.create_srq = virtio_rdma_create_srq,
	.create_user_ah = virtio_rdma_create_ah,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	/* Set where checked (7.2's header): uverbs may prefer it for user CQs. */
	.create_user_cq = virtio_rdma_create_cq,
#endif
	.dealloc_mw = virtio_rdma_dealloc_mw,
	.dealloc_pd = virtio_rdma_dealloc_pd,
	.dealloc_ucontext = virtio_rdma_dealloc_ucontext,
	.del_gid = virtio_rdma_del_gid,
	.dereg_mr = virtio_rdma_dereg_mr,
	.destroy_ah = virtio_rdma_destroy_ah,
	.destroy_cq = virtio_rdma_destroy_cq,
	.destroy_qp = virtio_rdma_destroy_qp,
	.detach_mcast = virtio_rdma_detach_mcast,
	.destroy_srq = virtio_rdma_destroy_srq,
	.disassociate_ucontext = virtio_rdma_disassociate_ucontext,
	.drain_rq = virtio_rdma_drain_rq,
	.drain_sq = virtio_rdma_drain_sq,
	.get_dma_mr = virtio_rdma_get_dma_mr,
	.get_link_layer = virtio_rdma_get_link_layer,
	.get_port_immutable = virtio_rdma_get_port_immutable,
	.map_mr_sg = virtio_rdma_map_mr_sg,
	.mmap = virtio_rdma_mmap,
	.mmap_free = virtio_rdma_mmap_free,
	.modify_qp = virtio_rdma_modify_qp,
	.modify_srq = virtio_rdma_modify_srq,
	.poll_cq = virtio_rdma_poll_cq,
	.post_recv = virtio_rdma_post_recv,
	.post_send = virtio_rdma_post_send,
	.post_srq_recv = virtio_rdma_post_srq_recv,
	.query_device = virtio_rdma_query_device,
	.query_pkey = virtio_rdma_query_pkey,
	.query_port = virtio_rdma_query_port,
	.query_qp = virtio_rdma_query_qp,
	.query_srq = virtio_rdma_query_srq,
	.reg_user_mr = virtio_rdma_reg_user_mr,
	.req_notify_cq = virtio_rdma_req_notify_cq,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	.resize_user_cq = virtio_rdma_resize_cq,
#else
	.resize_cq = virtio_rdma_resize_cq,
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
	.query_port_speed = virtio_rdma_query_port_speed,
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	.report_port_event = virtio_rdma_report_port_event,
#endif

	INIT_RDMA_OBJ_SIZE(ib_ah, virtio_rdma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, virtio_rdma_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, virtio_rdma_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, virtio_rdma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, virtio_rdma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, virtio_rdma_srq, ibsrq),
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
	/*
	 * ibv_req_notify_cq() goes through the kernel (REQ_NOTIFY_CQ is a
	 * control command); ib_core leaves that write() command off unless
	 * the driver asks for it.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	/*
	 * A process's QP on rings asks for its doorbell with POST_SEND or
	 * POST_RECV of no WR (virtio_rdma_uqp_rings.c), as rxe's provider.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);

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
