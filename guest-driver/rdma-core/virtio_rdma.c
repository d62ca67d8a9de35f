// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * virtio_rdma: the libibverbs provider of the virtio-net RoCE device.
 *
 * The kernel driver (guest-driver/linux, virtio_rdma.ko) registers its
 * ib_devices as virtio_rdma%d with RDMA_DRIVER_UNKNOWN: it is out of tree,
 * and the ioctl header's driver id must equal the kernel's. So the provider
 * matches by name, and says RDMA_DRIVER_UNKNOWN in its context.
 *
 * The verbs of RC, UC and UD: the control path through the kernel
 * (ibv_cmd_*), the data path through virtqueues the process maps
 * (rdma/virtio_rdma-abi.h; virtio_rdma_vq.c, virtio_rdma_cq.c,
 * virtio_rdma_qp.c), memory windows (ALLOC_MW and DEALLOC_MW through the
 * kernel, BIND_MW WRs on the send queue), and the extended QP and CQ verbs
 * (virtio_rdma_qp_ex.c, virtio_rdma_cq_ex.c).
 */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "virtio_rdma.h"

static void virtio_rdma_free_context(struct ibv_context *ibctx);

static const struct verbs_match_ent hca_table[] = {
	VERBS_NAME_MATCH("virtio_rdma", NULL),
	{},
};

static int
virtio_rdma_query_device(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);
	return 0;
}

static int virtio_rdma_query_port(struct ibv_context *context, uint8_t port,
				  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

/*
 * The kernel driver's port attribute ports/<port>/effective_speed: the
 * effective speed in 100 Mb/s, or EOPNOTSUPP when the device does not offer
 * VIRTIO_NET_F_ROCE_PORT_SPEED.
 */
static int virtio_rdma_sysfs_port_speed(struct ibv_context *context,
					uint32_t port_num, uint64_t *speed)
{
	struct verbs_device *vdev = verbs_get_device(context->device);
	char buf[32], *end;
	uint64_t val;

	errno = 0;
	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), vdev->sysfs,
				      "ports/%u/effective_speed",
				      port_num) <= 0) {
		if (errno != ENOENT)
			return errno ? errno : EIO;
		/* No such port, or a driver without the attribute. */
		if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), vdev->sysfs,
					      "ports/%u/state", port_num) <= 0)
			return EINVAL;
		return EOPNOTSUPP;
	}

	errno = 0;
	val = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return EIO;

	*speed = val;
	return 0;
}

/*
 * ibv_query_port_speed(): the kernel's UVERBS_METHOD_QUERY_PORT_SPEED
 * (Linux 7.0 and later); a kernel without the method (Linux 6.1 answers
 * EPROTONOSUPPORT) or whose core lacks the device op (EOPNOTSUPP) leaves the
 * driver's sysfs attribute, which gives the same value.
 */
static int virtio_rdma_query_port_speed(struct ibv_context *context,
					uint32_t port_num, uint64_t *speed)
{
	int ret;

	ret = ibv_cmd_query_port_speed(context, port_num, speed);
	if (ret != EPROTONOSUPPORT && ret != EOPNOTSUPP)
		return ret;

	return virtio_rdma_sysfs_port_speed(context, port_num, speed);
}

static struct ibv_pd *virtio_rdma_alloc_pd(struct ibv_context *context)
{
	struct virtio_rdma_alloc_pd_uresp resp = {};
	struct ibv_alloc_pd cmd;
	struct virtio_rdma_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(context, &pd->ibv_pd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}

	pd->pdn = resp.drv.pdn;
	return &pd->ibv_pd;
}

static int virtio_rdma_dealloc_pd(struct ibv_pd *ibpd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(to_vpd(ibpd));
	return 0;
}

static struct ibv_mr *virtio_rdma_reg_mr(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t hca_va,
					 int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}

	return &vmr->ibv_mr;
}

static int virtio_rdma_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;

	free(vmr);
	return 0;
}

/*
 * The kernel's alloc_mw (ALLOC_MW): the MW's key has key byte 0 and no
 * binding; BIND_MW WRs give it its keys after (virtio_rdma_qp.c).
 */
static struct ibv_mw *virtio_rdma_alloc_mw(struct ibv_pd *pd,
					   enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;

	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}

	return mw;
}

static int virtio_rdma_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;

	free(mw);
	return 0;
}

/* The device's AH number goes into every UD send request that uses it. */
static struct ibv_ah *virtio_rdma_create_ah(struct ibv_pd *pd,
					    struct ibv_ah_attr *attr)
{
	struct virtio_rdma_create_ah_uresp resp = {};
	struct virtio_rdma_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}

	ah->ahn = resp.drv.ahn;
	return &ah->ibv_ah;
}

static int virtio_rdma_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;

	free(to_vah(ibah));
	return 0;
}

static const struct verbs_context_ops virtio_rdma_ctx_ops = {
	.alloc_mw = virtio_rdma_alloc_mw,
	.alloc_pd = virtio_rdma_alloc_pd,
	/*
	 * The kernel's ATTACH_MCAST and DETACH_MCAST; it refuses them without
	 * the capability.
	 */
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = virtio_rdma_bind_mw,
	.create_ah = virtio_rdma_create_ah,
	.create_cq = virtio_rdma_create_cq,
	.create_cq_ex = virtio_rdma_create_cq_ex,
	.create_qp = virtio_rdma_create_qp,
	.create_qp_ex = virtio_rdma_create_qp_ex,
	.dealloc_mw = virtio_rdma_dealloc_mw,
	.create_srq = virtio_rdma_create_srq,
	.dealloc_pd = virtio_rdma_dealloc_pd,
	.dereg_mr = virtio_rdma_dereg_mr,
	.destroy_ah = virtio_rdma_destroy_ah,
	.destroy_cq = virtio_rdma_destroy_cq,
	.destroy_qp = virtio_rdma_destroy_qp,
	.detach_mcast = ibv_cmd_detach_mcast,
	.destroy_srq = virtio_rdma_destroy_srq,
	.free_context = virtio_rdma_free_context,
	.modify_qp = virtio_rdma_modify_qp,
	.modify_srq = virtio_rdma_modify_srq,
	.poll_cq = virtio_rdma_poll_cq,
	.post_recv = virtio_rdma_post_recv,
	.post_send = virtio_rdma_post_send,
	.post_srq_recv = virtio_rdma_post_srq_recv,
	.query_device_ex = virtio_rdma_query_device,
	.query_port = virtio_rdma_query_port,
	.query_port_speed = virtio_rdma_query_port_speed,
	.query_qp = virtio_rdma_query_qp,
	.query_srq = virtio_rdma_query_srq,
	.reg_mr = virtio_rdma_reg_mr,
	.req_notify_cq = virtio_rdma_req_notify_cq,
	.resize_cq = virtio_rdma_resize_cq,
};

static struct verbs_context *virtio_rdma_alloc_context(struct ibv_device *ibdev,
						       int cmd_fd,
						       void *private_data)
{
	struct ib_uverbs_get_context_resp resp;
	struct ibv_device_attr_ex attr;
	struct virtio_rdma_context *ctx;
	struct ibv_get_context cmd;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd, sizeof(cmd), NULL, &resp,
				  sizeof(resp));
	if (ret)
		goto err_uninit;

	ret = virtio_rdma_query_device(&ctx->ibv_ctx.context, NULL, &attr,
				       sizeof(attr));
	if (ret)
		goto err_uninit;
	ctx->max_sge_rd = attr.orig_attr.max_sge_rd;
	/*
	 * The kernel driver reports a capability only when the device has
	 * it (ROCE-DRV-ATTR-4): the provider posts nothing else.
	 */
	ctx->atomics = attr.orig_attr.atomic_cap != IBV_ATOMIC_NONE;
	ctx->mem_mgt =
		attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS;
	ctx->mw = attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW;

	verbs_set_ops(&ctx->ibv_ctx, &virtio_rdma_ctx_ops);
	return &ctx->ibv_ctx;

err_uninit:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static void virtio_rdma_free_context(struct ibv_context *ibctx)
{
	struct virtio_rdma_context *ctx = to_vctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *
virtio_rdma_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct virtio_rdma_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->ibv_dev;
}

static void virtio_rdma_uninit_device(struct verbs_device *verbs_device)
{
	free(to_vdev(&verbs_device->device));
}

static const struct verbs_device_ops virtio_rdma_dev_ops = {
	.name = "virtio_rdma",
	.match_min_abi_version = VIRTIO_RDMA_UVERBS_ABI_VERSION,
	.match_max_abi_version = VIRTIO_RDMA_UVERBS_ABI_VERSION,
	.match_table = hca_table,
	.alloc_device = virtio_rdma_device_alloc,
	.uninit_device = virtio_rdma_uninit_device,
	.alloc_context = virtio_rdma_alloc_context,
};
PROVIDER_DRIVER(virtio_rdma, virtio_rdma_dev_ops);
