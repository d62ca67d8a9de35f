/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions: GET_DMA_MR, REG_USER_MR (from a buffer of driver memory,
 * or from a page list as given), ALLOC_MR (fast registration) and DEREG_MR;
 * memory windows: ALLOC_MW and DEALLOC_MW.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "verbs.h"

#define PAGE_SIZE VIRTIO_NET_ROCE_PAGE_SIZE
#define PAGE_MASK ((uint64_t)PAGE_SIZE - 1)

VUSER_SAME_VALUE(VUR_USER_ACCESS_LOCAL_WRITE, VIRTIO_IB_ACCESS_LOCAL_WRITE);
VUSER_SAME_VALUE(VUR_USER_ACCESS_REMOTE_WRITE, VIRTIO_IB_ACCESS_REMOTE_WRITE);
VUSER_SAME_VALUE(VUR_USER_ACCESS_REMOTE_READ, VIRTIO_IB_ACCESS_REMOTE_READ);
VUSER_SAME_VALUE(VUR_USER_ACCESS_REMOTE_ATOMIC, VIRTIO_IB_ACCESS_REMOTE_ATOMIC);

static void
mr_from_wire(const struct virtio_rdma_ack_reg_user_mr *a, struct vur_user_mr *mr)
{
	mr->mrn = le32toh(a->mrn);
	mr->lkey = le32toh(a->lkey);
	mr->rkey = le32toh(a->rkey);
}

int
vur_user_get_dma_mr(struct vur_user_dev *d, uint32_t pdn, uint32_t access, struct vur_user_mr *mr)
{
	struct virtio_rdma_cmd_get_dma_mr c = { .pdn = htole32(pdn),
		.access_flags = htole32(access) };
	struct virtio_rdma_ack_get_dma_mr a;
	int ret;

	if (d == NULL || mr == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_GET_DMA_MR, &c, sizeof(c), &a, sizeof(a));
	if (ret == 0) {
		mr->mrn = le32toh(a.mrn);
		mr->lkey = le32toh(a.lkey);
		mr->rkey = le32toh(a.rkey);
	}
	return ret;
}

int
vur_user_reg_mr_pages(struct vur_user_dev *d, uint32_t pdn, uint32_t access, uint64_t iova,
		uint64_t length, const uint64_t *pages, uint32_t npages, struct vur_user_mr *mr)
{
	struct virtio_rdma_ack_reg_user_mr a;
	struct virtio_rdma_cmd_reg_user_mr *c;
	uint64_t len = sizeof(*c) + (uint64_t)npages * sizeof(c->pages[0]);
	uint32_t i;
	int ret;

	if (d == NULL || mr == NULL || (npages > 0 && pages == NULL))
		return -EINVAL;
	/* The command's length travels in 32 bits (and in driver memory). */
	if (len > d->mem.size)
		return -ENOMEM;
	c = calloc(1, len);
	if (c == NULL)
		return -ENOMEM;
	c->pdn = htole32(pdn);
	c->access_flags = htole32(access);
	c->virt_addr = htole64(iova);
	c->length = htole64(length);
	c->npages = htole32(npages);
	for (i = 0; i < npages; i++)
		c->pages[i] = htole64(pages[i]);
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, c, (uint32_t)len, &a, sizeof(a));
	free(c);
	if (ret == 0)
		mr_from_wire(&a, mr);
	return ret;
}

/*
 * The page list of ROCE-DRV-MR-1: with the same offset in the page for
 * @iova and @buf, page i of [iova, iova + len) is page i of the buffer.
 */
int
vur_user_reg_mr(struct vur_user_dev *d, uint32_t pdn, uint32_t access, void *buf, size_t len,
		uint64_t iova, struct vur_user_mr *mr)
{
	uint64_t start, *pages;
	uint32_t npages, i;
	int ret;

	if (d == NULL || buf == NULL || mr == NULL)
		return -EINVAL;
	start = vur_user_driver_addr(d, buf);
	if (start == 0 || vuser_mem_hva(&d->mem, start, len) == NULL ||
			((start ^ iova) & PAGE_MASK) != 0)
		return -EINVAL;
	npages = len == 0 ? 0 : (uint32_t)(((start & PAGE_MASK) + len + PAGE_MASK) / PAGE_SIZE);
	pages = calloc(npages > 0 ? npages : 1, sizeof(*pages));
	if (pages == NULL)
		return -ENOMEM;
	for (i = 0; i < npages; i++)
		pages[i] = (start & ~PAGE_MASK) + (uint64_t)i * PAGE_SIZE;
	ret = vur_user_reg_mr_pages(d, pdn, access, iova, len, pages, npages, mr);
	free(pages);
	return ret;
}

int
vur_user_alloc_mr(struct vur_user_dev *d, uint32_t pdn, uint32_t max_num_sg, struct vur_user_mr *mr)
{
	struct virtio_rdma_cmd_alloc_mr c = { .pdn = htole32(pdn),
		.max_num_sg = htole32(max_num_sg) };
	struct virtio_rdma_ack_alloc_mr a;
	int ret;

	if (d == NULL || mr == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_ALLOC_MR, &c, sizeof(c), &a, sizeof(a));
	if (ret == 0) {
		mr->mrn = le32toh(a.mrn);
		mr->lkey = le32toh(a.lkey);
		mr->rkey = le32toh(a.rkey);
	}
	return ret;
}

int
vur_user_dereg_mr(struct vur_user_dev *d, uint32_t mrn)
{
	struct virtio_rdma_cmd_dereg_mr c = { .mrn = htole32(mrn) };

	if (d == NULL)
		return -EINVAL;
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DEREG_MR, &c, sizeof(c), NULL, 0);
}

int
vur_user_alloc_mw(struct vur_user_dev *d, uint32_t pdn, uint8_t type, struct vur_user_mw *mw)
{
	struct virtio_rdma_cmd_alloc_mw c = { .pdn = htole32(pdn), .type = type };
	struct virtio_rdma_ack_alloc_mw a;
	int ret;

	if (d == NULL || mw == NULL)
		return -EINVAL;
	ret = vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_ALLOC_MW, &c, sizeof(c), &a, sizeof(a));
	if (ret == 0) {
		mw->mwn = le32toh(a.mwn);
		mw->rkey = le32toh(a.rkey);
	}
	return ret;
}

int
vur_user_dealloc_mw(struct vur_user_dev *d, uint32_t mwn)
{
	struct virtio_rdma_cmd_dealloc_mw c = { .mwn = htole32(mwn) };

	if (d == NULL)
		return -EINVAL;
	return vuser_roce_cmd(d, VIRTIO_NET_CTRL_ROCE_DEALLOC_MW, &c, sizeof(c), NULL, 0);
}
