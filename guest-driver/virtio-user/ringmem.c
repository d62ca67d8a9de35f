/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory for rings and records: blocks of a power of two bytes aligned to
 * their size (to the page for a page or more), so that a ring's address is
 * a multiple of its stride and no entry crosses a 4 KiB page. Blocks of a
 * page or more come from the page allocator of guest_mem.c; smaller ones
 * (records of 128 bytes, small CQ and receive rings) are carved out of
 * pages and kept on a free list per size class, so that 16k QPs need not
 * cost three pages each. Pages carved once stay carved until close.
 * Callers hold rings->lock.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "rings.h"

#define MIN_SHIFT 7 /* 128 bytes: a record */

static int
class_of(size_t len)
{
	int c = 0;

	while (((size_t)1 << (MIN_SHIFT + c)) < len)
		c++;
	return c;
}

static int
push(struct vuser_ringmem_class *c, const struct vuser_buf *b)
{
	struct vuser_buf *n;

	if (c->n == c->cap) {
		n = realloc(c->free, (c->cap ? 2 * c->cap : 64) * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		c->free = n;
		c->cap = c->cap ? 2 * c->cap : 64;
	}
	c->free[c->n++] = *b;
	return 0;
}

/* A fresh page cut into blocks of class @ci. */
static int
carve(struct vur_user_dev *d, int ci)
{
	size_t bsz = (size_t)1 << (MIN_SHIFT + ci);
	struct vuser_ringmem_class *c = &d->rings.cls[ci];
	struct vuser_buf page, b;
	int ret;

	ret = vuser_mem_alloc(&d->mem, VUSER_PAGE_SIZE, VUSER_PAGE_SIZE, &page);
	if (ret < 0)
		return ret;
	/* highest first: blocks are taken from the end, in address order */
	for (size_t off = VUSER_PAGE_SIZE; off > 0; off -= bsz) {
		b.hva = (uint8_t *)page.hva + off - bsz;
		b.gpa = page.gpa + off - bsz;
		b.len = bsz;
		ret = push(c, &b);
		if (ret < 0)
			return ret; /* the page stays with the driver memory until close */
	}
	return 0;
}

int
vuser_ringmem_alloc(struct vur_user_dev *d, size_t len, struct vuser_buf *b)
{
	struct vuser_ringmem_class *c;
	int ci, ret;

	if (len == 0 || (len & (len - 1)) != 0)
		return -EINVAL;
	if (len >= VUSER_PAGE_SIZE)
		return vuser_mem_alloc(&d->mem, len, VUSER_PAGE_SIZE, b);
	ci = class_of(len);
	c = &d->rings.cls[ci];
	if (c->n == 0) {
		ret = carve(d, ci);
		if (ret < 0)
			return ret;
	}
	*b = c->free[--c->n];
	memset(b->hva, 0, b->len);
	return 0;
}

void
vuser_ringmem_free(struct vur_user_dev *d, struct vuser_buf *b)
{
	if (b->hva == NULL)
		return;
	if (b->len >= VUSER_PAGE_SIZE)
		vuser_mem_free(&d->mem, b);
	else
		(void)push(&d->rings.cls[class_of(b->len)], b); /* on failure: lost until close */
	memset(b, 0, sizeof(*b));
}

void
vuser_ringmem_fini(struct vur_user_dev *d)
{
	for (int i = 0; i < VUSER_RINGMEM_CLASSES; i++) {
		free(d->rings.cls[i].free);
		memset(&d->rings.cls[i], 0, sizeof(d->rings.cls[i]));
	}
}

int
vuser_ring_alloc(struct vur_user_dev *d, struct vuser_ring *r, uint32_t entries, uint32_t entry)
{
	uint8_t ls = 0, lst = 6;
	int ret;

	while (((uint64_t)1 << ls) < entries)
		ls++;
	while (((uint32_t)1 << lst) < entry)
		lst++;
	if (ls > 31 || lst > 12)
		return -EINVAL;
	ret = vuser_ringmem_alloc(
			d, (size_t)1 << (ls + lst) < 128 ? 128 : (size_t)1 << (ls + lst), &r->mem);
	if (ret < 0)
		return ret;
	r->hva = r->mem.hva;
	r->gpa = r->mem.gpa;
	r->log_size = ls;
	r->log_stride = lst;
	r->mask = ((uint32_t)1 << ls) - 1;
	return 0;
}

void
vuser_ring_free(struct vur_user_dev *d, struct vuser_ring *r)
{
	vuser_ringmem_free(d, &r->mem);
	memset(r, 0, sizeof(*r));
}

void
vuser_ring_to_wire(const struct vuser_ring *r, uint32_t lkey, struct virtio_rdma_ring *w)
{
	memset(w, 0, sizeof(*w));
	if (r->hva == NULL)
		return;
	w->addr = htole64(r->gpa);
	w->lkey = htole32(lkey);
	w->log_size = r->log_size;
	w->log_stride = r->log_stride;
}
