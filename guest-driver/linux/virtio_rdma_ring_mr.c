// SPDX-License-Identifier: GPL-2.0
/*
 * Rings larger than one page allocation (4 MiB with 4 KiB pages): a CQ of
 * more than 65536 CQEs, which unmodified software asks for (libfabric's
 * ofi_rxm: (128 + 128) x a universe of 1024). Such a ring is vmalloc_user()
 * memory, zeroed, registered with REG_USER_MR as an MR of the driver's own
 * PD (the rings layout's, virtio_rdma_rings.c) at its kernel virtual
 * address, LOCAL_WRITE only: the device reaches it through that MR's key,
 * which no process has, and a process maps it with remap_vmalloc_range()
 * (VIRTIO_RDMA_MMAP_VMALLOC). Like the rings' other MRs it counts against
 * the device's MR quota.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "virtio_rdma.h"

/* A ring MR of PD @pdn: a process's QP's own (virtio_rdma_uqp_rings.c). */
int virtio_rdma_ring_mr_alloc_pd(struct virtio_rdma_dev *dev, u32 pdn,
				 size_t len, void **mem, u32 *mrn, u32 *lkey)
{
	u32 npages = len >> VIRTIO_NET_ROCE_PAGE_SHIFT, i;
	struct virtio_rdma_cmd_reg_user_mr cmd = {
		.pdn = cpu_to_le32(pdn),
		.access_flags = cpu_to_le32(VIRTIO_IB_ACCESS_LOCAL_WRITE),
		.length = cpu_to_le64(len),
		.npages = cpu_to_le32(npages),
	};
	struct scatterlist sgl[VIRTIO_RDMA_MR_LIST_SGS];
	struct virtio_rdma_ack_reg_user_mr ack;
	__le64 *pages;
	void *ring;
	int ret;

	BUILD_BUG_ON(PAGE_SIZE != VIRTIO_NET_ROCE_PAGE_SIZE);
	if (!len || !PAGE_ALIGNED(len))
		return -EINVAL;
	ring = vmalloc_user(len);
	if (!ring)
		return -ENOMEM;
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < npages; i++)
		pages[i] = cpu_to_le64(page_to_phys(vmalloc_to_page(ring +
				       ((size_t)i << PAGE_SHIFT))));
	ret = virtio_rdma_mr_list_sg(pages, npages * sizeof(*pages), sgl);
	if (ret)
		goto err_pages;
	/* The I/O virtual address: the kernel's own, page aligned, unique. */
	cmd.virt_addr = cpu_to_le64((uintptr_t)ring);
	ret = virtio_rdma_roce_cmd_sg(dev, VIRTIO_NET_CTRL_ROCE_REG_USER_MR,
				      &cmd, sizeof(cmd), sgl, &ack,
				      sizeof(ack));
	if (ret)
		goto err_pages;
	kvfree(pages);
	*mem = ring;
	*mrn = le32_to_cpu(ack.mrn);
	*lkey = le32_to_cpu(ack.lkey);
	return 0;

err_pages:
	kvfree(pages);
err_free:
	if (virtio_rdma_cmd_lost(ret)) {
		/* The device may have registered it: never reuse the pages. */
		dev_warn(&dev->vdev->dev, "ring MR: REG_USER_MR %d, %zu bytes kept\n",
			 ret, len);
		return ret;
	}
	vfree(ring);
	return ret;
}

int virtio_rdma_ring_mr_alloc(struct virtio_rdma_dev *dev, size_t len,
			      void **mem, u32 *mrn, u32 *lkey)
{
	return virtio_rdma_ring_mr_alloc_pd(dev, dev->rings.pdn, len, mem, mrn,
					    lkey);
}

/*
 * After the ring's object is destroyed at the device. A DEREG_MR without
 * an answer leaves the device free to write: the pages are then kept
 * (never reused) rather than freed.
 */
void virtio_rdma_ring_mr_free(struct virtio_rdma_dev *dev, void *mem, u32 mrn)
{
	struct virtio_rdma_cmd_dereg_mr cmd = { .mrn = cpu_to_le32(mrn) };
	int ret = 0;

	if (!dev->dead)
		ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DEREG_MR,
					   &cmd, sizeof(cmd), NULL, 0);
	if (virtio_rdma_cmd_lost(ret)) {
		dev_warn(&dev->vdev->dev, "ring MR %u: DEREG_MR %d, kept\n",
			 mrn, ret);
		return;
	}
	vfree(mem);
}
