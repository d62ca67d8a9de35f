/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "guest_mem.h"
#include "tap.h"

#define BASE 0x100000000ULL
#define SIZE (64u * VUSER_PAGE_SIZE)

static void
alloc_is_zeroed_and_translates(void)
{
	struct vuser_mem m;
	struct vuser_buf a, b;

	TAP_EQ(vuser_mem_init(&m, SIZE, BASE), 0);
	TAP_EQ(vuser_mem_alloc(&m, 100, 1, &a), 0);
	TAP_EQ(a.gpa, BASE);
	TAP_EQ(a.len, VUSER_PAGE_SIZE);
	memset(a.hva, 0x5a, a.len);
	vuser_mem_free(&m, &a);
	TAP_EQ(vuser_mem_alloc(&m, VUSER_PAGE_SIZE + 1, 1, &b), 0);
	TAP_EQ(b.gpa, BASE); /* first fit reuses the freed page */
	TAP_EQ(b.len, 2 * VUSER_PAGE_SIZE);
	TAP_EQ(((uint8_t *)b.hva)[0], 0);
	TAP_CHECK(vuser_mem_hva(&m, b.gpa + 10, 20) == (uint8_t *)b.hva + 10);
	TAP_EQ(m.free_pages, 62);
	vuser_mem_fini(&m);
}

static void
alignment(void)
{
	struct vuser_mem m;
	struct vuser_buf a, b;

	TAP_EQ(vuser_mem_init(&m, SIZE, BASE), 0);
	TAP_EQ(vuser_mem_alloc(&m, 1, 1, &a), 0);
	TAP_EQ(vuser_mem_alloc(&m, 1, 16 * VUSER_PAGE_SIZE, &b), 0);
	TAP_EQ(b.gpa % (16 * VUSER_PAGE_SIZE), 0);
	TAP_EQ(b.gpa, BASE + 16 * VUSER_PAGE_SIZE);
	TAP_EQ(vuser_mem_alloc(&m, 1, 3, &b), -EINVAL);
	vuser_mem_fini(&m);
}

static void
exhaustion(void)
{
	struct vuser_mem m;
	struct vuser_buf a, b, c;

	TAP_EQ(vuser_mem_init(&m, SIZE, BASE), 0);
	TAP_EQ(vuser_mem_alloc(&m, SIZE / 2, 1, &a), 0);
	TAP_EQ(vuser_mem_alloc(&m, SIZE / 2, 1, &b), 0);
	TAP_EQ(vuser_mem_alloc(&m, 1, 1, &c), -ENOMEM);
	vuser_mem_free(&m, &a);
	TAP_EQ(vuser_mem_alloc(&m, SIZE / 2 + 1, 1, &c), -ENOMEM);
	TAP_EQ(vuser_mem_alloc(&m, SIZE + 1, 1, &c), -EINVAL);
	TAP_EQ(vuser_mem_alloc(&m, 0, 1, &c), -EINVAL);
	vuser_mem_fini(&m);
}

/* Driver addresses outside the memory, or running past its end, have no host address. */
static void
translation_bounds(void)
{
	struct vuser_mem m;

	TAP_EQ(vuser_mem_init(&m, SIZE, BASE), 0);
	TAP_CHECK(vuser_mem_hva(&m, BASE, SIZE) != NULL);
	TAP_CHECK(vuser_mem_hva(&m, BASE - 1, 1) == NULL);
	TAP_CHECK(vuser_mem_hva(&m, BASE + SIZE, 1) == NULL);
	TAP_CHECK(vuser_mem_hva(&m, BASE + SIZE - 1, 2) == NULL);
	TAP_CHECK(vuser_mem_hva(&m, BASE + 8, UINT64_MAX) == NULL);
	TAP_CHECK(vuser_mem_hva(&m, UINT64_MAX, 1) == NULL);
	TAP_CHECK(vuser_mem_hva(&m, 0, 1) == NULL);
	vuser_mem_fini(&m);
}

/*
 * First fit past whole words of used pages (the scan skips them 64 at a
 * time), runs that cross a word, alignment, and the last page of a memory
 * that is not a whole number of words.
 */
static void
first_fit_across_words(void)
{
	size_t n = 200;
	struct vuser_mem m;
	struct vuser_buf b[200], c;

	TAP_EQ(vuser_mem_init(&m, n * VUSER_PAGE_SIZE, BASE), 0);
	for (size_t i = 0; i < n; i++)
		TAP_EQ(vuser_mem_alloc(&m, 1, 1, &b[i]), 0);
	TAP_EQ(vuser_mem_alloc(&m, 1, 1, &c), -ENOMEM);
	vuser_mem_free(&m, &b[70]);
	vuser_mem_free(&m, &b[127]);
	vuser_mem_free(&m, &b[128]);
	vuser_mem_free(&m, &b[131]);
	vuser_mem_free(&m, &b[132]);
	vuser_mem_free(&m, &b[199]);
	/* 127-128 cross a word, 131-132 start odd: no free pair aligned to two pages */
	TAP_EQ(vuser_mem_alloc(&m, 2 * VUSER_PAGE_SIZE, 2 * VUSER_PAGE_SIZE, &c), -ENOMEM);
	TAP_EQ(vuser_mem_alloc(&m, 2 * VUSER_PAGE_SIZE, 1, &c), 0);
	TAP_EQ(c.gpa, BASE + 127 * VUSER_PAGE_SIZE);
	TAP_EQ(vuser_mem_alloc(&m, 2 * VUSER_PAGE_SIZE, 1, &c), 0);
	TAP_EQ(c.gpa, BASE + 131 * VUSER_PAGE_SIZE);
	TAP_EQ(vuser_mem_alloc(&m, 1, 1, &c), 0);
	TAP_EQ(c.gpa, BASE + 70 * VUSER_PAGE_SIZE);
	TAP_EQ(vuser_mem_alloc(&m, 1, 1, &c), 0);
	TAP_EQ(c.gpa, BASE + 199 * VUSER_PAGE_SIZE);
	TAP_EQ(vuser_mem_alloc(&m, 1, 1, &c), -ENOMEM);
	TAP_EQ(m.free_pages, 0);
	vuser_mem_fini(&m);
}

static void
bad_init(void)
{
	struct vuser_mem m;

	TAP_EQ(vuser_mem_init(&m, 0, BASE), -EINVAL);
	TAP_EQ(vuser_mem_init(&m, SIZE + 1, BASE), -EINVAL);
	TAP_EQ(vuser_mem_init(&m, SIZE, BASE + 1), -EINVAL);
	TAP_EQ(vuser_mem_init(&m, SIZE, UINT64_MAX - VUSER_PAGE_SIZE + 1), -EINVAL);
	vuser_mem_fini(&m);
}

int
main(void)
{
	TAP_RUN(alloc_is_zeroed_and_translates);
	TAP_RUN(alignment);
	TAP_RUN(exhaustion);
	TAP_RUN(translation_bounds);
	TAP_RUN(first_fit_across_words);
	TAP_RUN(bad_init);
	return tap_done();
}
