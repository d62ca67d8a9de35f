// SPDX-License-Identifier: GPL-2.0
/*
 * The memory of a ring of the rings layout, a CQ's, a kernel QP's send or
 * receive ring or a kernel SRQ's (the records are small allocations of
 * their own). Up to one allocation of physically contiguous pages (4 MiB
 * with 4 KiB pages) it is such pages, zeroed, which the device reaches
 * through a DMA MR at guest-physical addresses. Beyond, it is
 * vmalloc_user() memory, zeroed, registered with REG_USER_MR as an MR of
 * its own at its kernel virtual address, LOCAL_WRITE only, in the PD the
 * spec asks for: the object's (a QP's or SRQ's, ROCE-DEV-RING-4) or for a
 * CQ any, the driver's own (virtio_rdma_rings.c). The device reaches it
 * through that MR's key, which no process has, and a process maps a CQ's
 * with remap_vmalloc_range() (VIRTIO_RDMA_MMAP_VMALLOC). Like the rings'
 * other MRs it counts against the device's MR quota. Unmodified software
 * asks for such sizes: libfabric's ofi_rxm a CQ of (128 + 128) x a
 * universe of 1024, and QPs of 32k WRs.
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "virtio_rdma.h"

/* The largest physically contiguous allocation: the page allocator's. */
#if defined(MAX_PAGE_ORDER)
#define RING_MAX_ORDER	MAX_PAGE_ORDER
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define RING_MAX_ORDER	MAX_ORDER
#else
#define RING_MAX_ORDER	(MAX_ORDER - 1)
#endif

/*
 * The largest ring: its page list in VIRTIO_RDMA_MR_LIST_SGS pieces of
 * the control queue, each at least a page (kvcalloc() may give scattered
 * pages): 32 MiB with 4 KiB pages.
 */
size_t virtio_rdma_ring_mem_max(void)
{
	return ((size_t)VIRTIO_RDMA_MR_LIST_SGS * (PAGE_SIZE / sizeof(__le64)))
	       << PAGE_SHIFT;
}

int virtio_rdma_ring_mr_alloc(struct virtio_rdma_dev *dev, size_t len,
			      u32 pdn, void **mem, u32 *mrn, u32 *lkey)
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
	if (!len || !PAGE_ALIGNED(len) || len > virtio_rdma_ring_mem_max())
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

/*
 * A zeroed ring of @len bytes (page aligned), its address and key for the
 * wire in @m: contiguous pages through @dma_lkey, or beyond one such
 * allocation (or when none is to be had) an MR of PD @pdn of its own.
 */
int virtio_rdma_ring_mem_alloc(struct virtio_rdma_dev *dev,
			       struct virtio_rdma_ring_mem *m, size_t len,
			       u32 pdn, u32 dma_lkey)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->len = PAGE_ALIGN(len);
	if (m->len <= PAGE_SIZE << RING_MAX_ORDER) {
		m->base = alloc_pages_exact(m->len, GFP_KERNEL | __GFP_ZERO |
					    __GFP_NOWARN);
		if (m->base) {
			m->addr = virt_to_phys(m->base);
			m->lkey = dma_lkey;
			return 0;
		}
	}
	ret = virtio_rdma_ring_mr_alloc(dev, m->len, pdn, &m->base, &m->mrn,
					&m->lkey);
	if (ret) {
		m->base = NULL;
		return ret;
	}
	m->big = true;
	m->addr = (uintptr_t)m->base;
	return 0;
}

/* After the ring's object is destroyed at the device (or never created). */
void virtio_rdma_ring_mem_free(struct virtio_rdma_dev *dev,
			       struct virtio_rdma_ring_mem *m)
{
	if (m->base && m->big)
		virtio_rdma_ring_mr_free(dev, m->base, m->mrn);
	else if (m->base)
		free_pages_exact(m->base, m->len);
	m->base = NULL;
}
