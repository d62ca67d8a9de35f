// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (IBTA 10.6.7): ALLOC_MW and DEALLOC_MW, for type 1 and
 * type 2 (2B) windows. Only userspace binds them (ibv_bind_mw() and
 * IBV_WR_BIND_MW post a BIND_MW WR on a mapped send queue): no kernel work
 * request carries a bind (IB_WR_BIND_MW has no ib_send_wr form), so kernel
 * QPs never do. ib_core allocates the ib_mw
 * (INIT_RDMA_OBJ_SIZE) and reports mw->rkey to uverbs.
 */
#include "virtio_rdma.h"

int virtio_rdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibmw->device);
	struct virtio_rdma_mw *mw = to_vmw(ibmw);
	struct virtio_rdma_cmd_alloc_mw cmd = {
		.pdn = cpu_to_le32(to_vpd(ibmw->pd)->res->pdn),
	};
	struct virtio_rdma_ack_alloc_mw ack;
	int ret;

	/* ROCE-DRV-ATTR-4 */
	if (!virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_WINDOW))
		return -EOPNOTSUPP;
	switch (ibmw->type) {
	case IB_MW_TYPE_1:
		cmd.type = VIRTIO_IB_MW_TYPE_1;
		break;
	case IB_MW_TYPE_2:
		cmd.type = VIRTIO_IB_MW_TYPE_2;
		break;
	default:
		return -EINVAL;
	}
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret)
		return ret == -EREMOTEIO ? -ENOMEM : ret;
	mw->dev = dev;
	mw->mwn = le32_to_cpu(ack.mwn);
	ibmw->rkey = le32_to_cpu(ack.rkey);
	/* ROCE-DEV-MW-2: a new MW has key byte 0; the device said otherwise. */
	if (ibmw->rkey & 0xff)
		dev_warn_ratelimited(&dev->vdev->dev,
				     "MW %u: ALLOC_MW rkey 0x%x has key byte %u\n",
				     mw->mwn, ibmw->rkey, ibmw->rkey & 0xff);
	return 0;
}

/*
 * ROCE-DEV-MW-3: DEALLOC_MW succeeds whether the MW is bound or not; its
 * binding ends with it (ROCE-DEV-MW-4). A command the device did not answer
 * leaves nothing of the driver's behind: an MW names no driver memory.
 */
int virtio_rdma_dealloc_mw(struct ib_mw *ibmw)
{
	struct virtio_rdma_mw *mw = to_vmw(ibmw);
	struct virtio_rdma_cmd_dealloc_mw cmd = {
		.mwn = cpu_to_le32(mw->mwn),
	};
	int ret;

	if (mw->dev->dead)
		return 0;
	ret = virtio_rdma_roce_cmd(mw->dev, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW,
				   &cmd, sizeof(cmd), NULL, 0);
	if (ret)
		dev_warn_ratelimited(&mw->dev->vdev->dev, "MW %u: DEALLOC_MW %d\n",
				     mw->mwn, ret);
	return 0;
}
