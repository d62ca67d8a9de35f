/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_mem.h"

#define BITS 64u

static bool
page_used(const struct vuser_mem *m, size_t p)
{
	return (m->used[p / BITS] >> (p % BITS)) & 1;
}

static void
mark(struct vuser_mem *m, size_t first, size_t n, bool used)
{
	size_t p;

	for (p = first; p < first + n; p++) {
		if (used)
			m->used[p / BITS] |= 1ULL << (p % BITS);
		else
			m->used[p / BITS] &= ~(1ULL << (p % BITS));
	}
	if (used)
		m->free_pages -= n;
	else
		m->free_pages += n;
}

int
vuser_mem_init(struct vuser_mem *m, size_t size, uint64_t gpa)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	if (size == 0 || size % VUSER_PAGE_SIZE != 0 || gpa % VUSER_PAGE_SIZE != 0 ||
			gpa + size < gpa)
		return -EINVAL;
	m->n_pages = size / VUSER_PAGE_SIZE;
	m->used = calloc((m->n_pages + BITS - 1) / BITS, sizeof(m->used[0]));
	if (m->used == NULL)
		return -ENOMEM;
	m->fd = memfd_create("vur-user-mem", MFD_CLOEXEC);
	if (m->fd < 0 || ftruncate(m->fd, size) < 0) {
		ret = -errno;
		goto fail;
	}
	m->hva = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->hva == MAP_FAILED) {
		ret = -errno;
		m->hva = NULL;
		goto fail;
	}
	m->gpa = gpa;
	m->size = size;
	m->free_pages = m->n_pages;
	return 0;

fail:
	vuser_mem_fini(m);
	return ret;
}

void
vuser_mem_fini(struct vuser_mem *m)
{
	if (m->hva != NULL)
		munmap(m->hva, m->size);
	if (m->fd >= 0)
		close(m->fd);
	free(m->used);
	pthread_mutex_destroy(&m->lock);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

/* The first free page at or after @p, or m->n_pages: a used word of 64 pages at a time. */
static size_t
next_free(const struct vuser_mem *m, size_t p)
{
	size_t w = p / BITS;
	uint64_t free_bits;

	if (p >= m->n_pages)
		return m->n_pages;
	free_bits = ~m->used[w] & (~0ULL << (p % BITS));
	while (free_bits == 0) {
		if (++w * BITS >= m->n_pages)
			return m->n_pages;
		free_bits = ~m->used[w];
	}
	p = w * BITS + (size_t)__builtin_ctzll(free_bits);
	return p < m->n_pages ? p : m->n_pages;
}

/*
 * First free run of @n pages starting on a multiple of @step pages, or
 * SIZE_MAX. Used pages are skipped a word at a time: every control command
 * takes a buffer, and with 16k QPs' rings in use a page-by-page scan from
 * the start cost more than the command's round trip.
 */
static size_t
find_run(const struct vuser_mem *m, size_t n, size_t step)
{
	size_t start = 0, p;

	for (;;) {
		start = (next_free(m, start) + step - 1) / step * step;
		if (start + n > m->n_pages)
			return SIZE_MAX;
		for (p = start; p < start + n && !page_used(m, p); p++)
			;
		if (p == start + n)
			return start;
		start = p + 1; /* past the used page; aligned again above */
	}
}

int
vuser_mem_alloc(struct vuser_mem *m, size_t len, size_t align, struct vuser_buf *buf)
{
	size_t n, step, first;

	if (len == 0 || len > m->size || align == 0 || (align & (align - 1)) != 0)
		return -EINVAL;
	n = (len + VUSER_PAGE_SIZE - 1) / VUSER_PAGE_SIZE;
	/* m->gpa is page aligned; alignment beyond a page is counted from it. */
	step = align <= VUSER_PAGE_SIZE ? 1 : align / VUSER_PAGE_SIZE;
	if (m->gpa % (step * VUSER_PAGE_SIZE) != 0)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	first = n > m->free_pages ? SIZE_MAX : find_run(m, n, step);
	if (first != SIZE_MAX)
		mark(m, first, n, true);
	pthread_mutex_unlock(&m->lock);
	if (first == SIZE_MAX)
		return -ENOMEM;
	buf->hva = m->hva + first * VUSER_PAGE_SIZE;
	buf->gpa = m->gpa + first * VUSER_PAGE_SIZE;
	buf->len = n * VUSER_PAGE_SIZE;
	memset(buf->hva, 0, buf->len);
	return 0;
}

void
vuser_mem_free(struct vuser_mem *m, const struct vuser_buf *buf)
{
	if (buf == NULL || buf->len == 0)
		return;
	pthread_mutex_lock(&m->lock);
	mark(m, (buf->gpa - m->gpa) / VUSER_PAGE_SIZE, buf->len / VUSER_PAGE_SIZE, false);
	pthread_mutex_unlock(&m->lock);
}

void *
vuser_mem_hva(const struct vuser_mem *m, uint64_t gpa, size_t len)
{
	if (gpa < m->gpa || gpa - m->gpa > m->size || len > m->size - (gpa - m->gpa))
		return NULL;
	return m->hva + (gpa - m->gpa);
}
