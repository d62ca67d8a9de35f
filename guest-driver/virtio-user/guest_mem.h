/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver memory: one memfd, mapped shared here and, through SET_MEM_TABLE,
 * in the backend. Everything the device reads or writes (rings, control
 * buffers, later RDMA buffers) is carved out of it, so every buffer has a
 * driver address (gpa, what descriptors carry) and a host address (hva,
 * what this process dereferences).
 *
 * The allocator hands out whole 4 KiB pages, first fit, from a bitmap: the
 * allocations are few and long-lived (one per virtqueue, one per control
 * command, the caller's MR buffers), so simplicity wins over packing. It
 * takes its own lock: control commands and the caller's buffers allocate
 * from different threads.
 */
#ifndef VUSER_GUEST_MEM_H
#define VUSER_GUEST_MEM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define VUSER_PAGE_SIZE 4096u

struct vuser_buf {
	void *hva;
	uint64_t gpa;
	size_t len; /* rounded up to whole pages */
};

struct vuser_mem {
	pthread_mutex_t lock; /* the bitmap and free_pages */
	int fd;
	uint8_t *hva;
	uint64_t gpa;
	size_t size;
	size_t n_pages;
	size_t free_pages;
	uint64_t *used; /* one bit per page */
};

/* Create and map @size bytes (a multiple of the page size) at driver address @gpa. */
int vuser_mem_init(struct vuser_mem *m, size_t size, uint64_t gpa);
void vuser_mem_fini(struct vuser_mem *m);

/*
 * Allocate @len bytes, zeroed, whose driver address is aligned to @align
 * (a power of two; at least a page). Returns 0 or -ENOMEM/-EINVAL.
 */
int vuser_mem_alloc(struct vuser_mem *m, size_t len, size_t align, struct vuser_buf *buf);
void vuser_mem_free(struct vuser_mem *m, const struct vuser_buf *buf);

/* Host address of [@gpa, @gpa + @len), or NULL if it is not all driver memory. */
void *vuser_mem_hva(const struct vuser_mem *m, uint64_t gpa, size_t len);

#endif /* VUSER_GUEST_MEM_H */
