// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: the DMA MR of kernel PDs (GET_DMA_MR), user MRs
 * (REG_USER_MR with the page list of the pinned pages) and fast
 * registration MRs of kernel consumers (ALLOC_MR; map_mr_sg fills their
 * page list, a REG_MR WR registers it: virtio_rdma_kverbs.c); DEREG_MR
 * for all of them.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "virtio_rdma.h"

/* The page list rides in at most this many descriptors. */

struct ib_mr *virtio_rdma_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibpd->device);
	struct virtio_rdma_cmd_get_dma_mr cmd = {
		.pdn = cpu_to_le32(to_vpd(ibpd)->res->pdn),
	};
	struct virtio_rdma_ack_get_dma_mr ack;
	struct virtio_rdma_mr *mr;
	u32 wire;
	int ret;

	ret = virtio_rdma_wire_access(dev, access, &wire);
	if (ret)
		return ERR_PTR(ret);
	cmd.access_flags = cpu_to_le32(wire);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_GET_DMA_MR, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	mr->dev = dev;
	mr->mrn = le32_to_cpu(ack.mrn);
	mr->ibmr.lkey = le32_to_cpu(ack.lkey);
	mr->ibmr.rkey = le32_to_cpu(ack.rkey);
	return &mr->ibmr;
}

/*
 * ROCE-DRV-MR-1: the driver (guest-physical) address of each 4 KiB page of
 * [virt_addr, virt_addr + length), in order. The device uses physical
 * addresses (no VIRTIO_F_ACCESS_PLATFORM), so they come from the pinned
 * pages themselves, not from a DMA mapping an IOMMU could have made.
 */
static void mr_fill_pages(struct ib_umem *umem, __le64 *pages, u32 npages)
{
	struct scatterlist *sg;
	u32 n = 0, i;

	BUILD_BUG_ON(PAGE_SIZE != VIRTIO_NET_ROCE_PAGE_SIZE);
	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i) {
		phys_addr_t pa = page_to_phys(sg_page(sg)) + sg->offset;
		u32 off;

		for (off = 0; off < sg->length && n < npages;
		     off += VIRTIO_NET_ROCE_PAGE_SIZE)
			pages[n++] = cpu_to_le64(pa + off);
	}
}

/* A scatterlist over the (possibly vmalloc'ed) page list. */
int virtio_rdma_mr_list_sg(void *buf, size_t len, struct scatterlist *sgl)
{
	unsigned int n = 0;

	sg_init_table(sgl, VIRTIO_RDMA_MR_LIST_SGS);
	while (len) {
		size_t chunk = min_t(size_t, len,
				     PAGE_SIZE - offset_in_page(buf));
		struct page *page = is_vmalloc_addr(buf) ?
				    vmalloc_to_page(buf) : virt_to_page(buf);

		/* Merge what is physically contiguous with the last entry. */
		if (n && page_to_phys(sg_page(&sgl[n - 1])) +
			 sgl[n - 1].offset + sgl[n - 1].length ==
			 page_to_phys(page) + offset_in_page(buf)) {
			sgl[n - 1].length += chunk;
		} else {
			if (n == VIRTIO_RDMA_MR_LIST_SGS)
				return -ENOMEM;
			sg_set_page(&sgl[n++], page, chunk, offset_in_page(buf));
		}
		buf += chunk;
		len -= chunk;
	}
	sg_mark_end(&sgl[n - 1]);
	return 0;
}

static int mr_register(struct virtio_rdma_mr *mr, u32 pdn, u32 wire,
		       u64 virt_addr, u64 length)
{
	struct virtio_rdma_cmd_reg_user_mr cmd = {
		.pdn = cpu_to_le32(pdn),
		.access_flags = cpu_to_le32(wire),
		.virt_addr = cpu_to_le64(virt_addr),
		.length = cpu_to_le64(length),
	};
	struct scatterlist sgl[VIRTIO_RDMA_MR_LIST_SGS];
	struct virtio_rdma_ack_reg_user_mr ack;
	u32 npages = ib_umem_num_dma_blocks(mr->umem,
					    VIRTIO_NET_ROCE_PAGE_SIZE);
	__le64 *pages;
	int ret;

	cmd.npages = cpu_to_le32(npages);
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	mr_fill_pages(mr->umem, pages, npages);
	ret = virtio_rdma_mr_list_sg(pages, npages * sizeof(*pages), sgl);
	if (ret)
		goto out_free;
	ret = virtio_rdma_roce_cmd_sg(mr->dev, VIRTIO_NET_CTRL_ROCE_REG_USER_MR,
				      &cmd, sizeof(cmd), sgl, &ack,
				      sizeof(ack));
	if (ret)
		goto out_free;
	mr->mrn = le32_to_cpu(ack.mrn);
	mr->ibmr.lkey = le32_to_cpu(ack.lkey);
	mr->ibmr.rkey = le32_to_cpu(ack.rkey);
out_free:
	kvfree(pages);
	return ret;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
struct ib_mr *virtio_rdma_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt_addr, int access,
				      struct ib_dmah *dmah,
				      struct ib_udata *udata)
#else
struct ib_mr *virtio_rdma_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt_addr, int access,
				      struct ib_udata *udata)
#endif
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibpd->device);
	struct virtio_rdma_mr *mr;
	u32 wire;
	int ret;

	ret = virtio_rdma_wire_access(dev, access, &wire);
	if (ret)
		return ERR_PTR(ret);
	/* The page list maps page to page: the offsets in a page must agree. */
	if (!length || offset_in_page(start ^ virt_addr))
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dev = dev;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	/* The rename's exact release was not checked: 6.1 and 7.2 were. */
	mr->umem = ib_umem_get_va(ibpd->device, start, length, access);
#else
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
#endif
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}
	/* ib_umem_num_dma_blocks() counts from the I/O virtual address. */
	mr->umem->iova = virt_addr;
	ret = mr_register(mr, to_vpd(ibpd)->res->pdn, wire, virt_addr, length);
	if (ret)
		goto err_release;
	mr->ibmr.length = length;
	mr->ibmr.iova = virt_addr;
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(ret == -EREMOTEIO ? -EINVAL : ret);
}

static void mr_zombie_free(struct virtio_rdma_zombie *z)
{
	struct virtio_rdma_mr *mr = container_of(z, struct virtio_rdma_mr,
						 zombie);

	ib_umem_release(mr->umem);
	kfree(mr->pages);
	kfree(mr);
}

/*
 * ROCE-DRV-MR-2: the pages stay pinned until DEREG_MR has completed; if
 * the device did not answer they stay pinned until it is reset, and if it
 * refused a user MR (a window bound) they stay with the MR.
 */
int virtio_rdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct virtio_rdma_mr *mr = to_vmr(ibmr);
	struct virtio_rdma_cmd_dereg_mr cmd = {
		.mrn = cpu_to_le32(mr->mrn),
	};
	int ret = 0;

	if (!mr->dev->dead)
		ret = virtio_rdma_roce_cmd(mr->dev, VIRTIO_NET_CTRL_ROCE_DEREG_MR,
					   &cmd, sizeof(cmd), NULL, 0);
	if (virtio_rdma_cmd_lost(ret)) {
		dev_warn(&mr->dev->vdev->dev, "MR %u: DEREG_MR %d, pages kept until reset\n",
			 mr->mrn, ret);
		virtio_rdma_zombie_add(mr->dev, &mr->zombie, mr_zombie_free);
		return 0;
	}
	/*
	 * ROCE-DEV-MW-5: a memory window is still bound to a user MR (only
	 * processes have windows). The MR stays, pages pinned, as the device
	 * still uses them: the deregistration fails as "resource busy".
	 */
	if (ret == -EREMOTEIO && mr->umem)
		return -EBUSY;
	if (ret)
		dev_warn_ratelimited(&mr->dev->vdev->dev, "MR %u: DEREG_MR %d\n",
				     mr->mrn, ret);
	ib_umem_release(mr->umem);
	kfree(mr->pages);
	kfree(mr);
	return 0;
}

/*
 * A fast registration MR (IB_MR_TYPE_MEM_REG): ALLOC_MR gives an invalid
 * MR and its key index (ROCE-DEV-FRMR-4), and the driver keeps a page list
 * of max_num_sg entries for the REG_MR WRs that register it. The list is
 * guest-physical memory the device reads directly (no
 * VIRTIO_F_ACCESS_PLATFORM: the driver's addresses are physical), as the
 * rings' slots are.
 */
struct ib_mr *virtio_rdma_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				   u32 max_num_sg)
{
	struct virtio_rdma_dev *dev = to_vdev_rdma(ibpd->device);
	struct virtio_rdma_cmd_alloc_mr cmd = {
		.pdn = cpu_to_le32(to_vpd(ibpd)->res->pdn),
		.max_num_sg = cpu_to_le32(max_num_sg),
	};
	struct virtio_rdma_ack_alloc_mr ack;
	struct virtio_rdma_mr *mr;
	int ret;

	/* ROCE-DRV-ATTR-4; SG_GAPS and integrity MRs: not this device. */
	if (!virtio_rdma_has_cap(dev, VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	/* ROCE-DEV-FRMR-2 */
	if (!max_num_sg ||
	    max_num_sg > le32_to_cpu(dev->attr.max_fast_reg_page_list_len))
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_free_mr;
	}
	mr->pages_pa = virt_to_phys(mr->pages);
	mr->max_pages = max_num_sg;
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &cmd,
				   sizeof(cmd), &ack, sizeof(ack));
	if (ret)
		goto err_free_pages;
	mr->dev = dev;
	mr->mrn = le32_to_cpu(ack.mrn);
	mr->ibmr.lkey = le32_to_cpu(ack.lkey);
	mr->ibmr.rkey = le32_to_cpu(ack.rkey);
	return &mr->ibmr;

err_free_pages:
	kfree(mr->pages);
err_free_mr:
	kfree(mr);
	return ERR_PTR(ret == -EREMOTEIO ? -ENOMEM : ret);
}

static int mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct virtio_rdma_mr *mr = to_vmr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/*
 * The ULP's s/g list (DMA addresses: guest-physical without
 * VIRTIO_F_ACCESS_PLATFORM) into the page list, pages of mr->page_size
 * (set by ib_map_mr_sg()); ib_sg_to_pages() sets iova and length. The
 * device takes pages of 4 KiB to 1 GiB (reg.page_shift 12 to 30).
 */
int virtio_rdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset)
{
	struct virtio_rdma_mr *mr = to_vmr(ibmr);

	if (!mr->pages)
		return -EINVAL;
	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_4K ||
	    ibmr->page_size > SZ_1G)
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mr_set_page);
}
