/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vdev_mem_table.h"

/*
 * Whether the address space has room for a mapping of @len bytes now, as
 * librte_vhost's mmap() of the region will need (the region's fd is not
 * ours to try): a reservation that takes no memory, released at once.
 */
static bool
address_space_holds(uint64_t len)
{
	void *p;

	if (len > SIZE_MAX)
		return false;
	p = mmap(NULL, (size_t)len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	munmap(p, (size_t)len);
	return true;
}

static const char *
region_fault(const struct vur_vhost_region *r)
{
	if (r->memory_size == 0)
		return "is empty";
	/* librte_vhost maps the fd from offset 0 up to the region's end */
	if (r->mmap_offset > UINT64_MAX - r->memory_size)
		return "wraps: its offset and size overflow";
	if (r->guest_phys_addr > UINT64_MAX - (r->memory_size - 1) ||
			r->userspace_addr > UINT64_MAX - (r->memory_size - 1))
		return "wraps: its address range overflows";
	if (!address_space_holds(r->mmap_offset + r->memory_size))
		return "does not fit in the address space";
	return NULL;
}

/*
 * Whether librte_vhost's mapping of @fd for @r can be made: it maps the
 * file shared and read-write from offset 0 to the region's end, rounded up
 * to the file's block size (the page size of hugetlbfs). The same mapping,
 * not populated, is made and undone here, as an fd that cannot be mapped
 * (read-only, an eventfd, /dev/null) stays open in librte_vhost.
 */
static bool
maps(const struct vur_vhost_region *r, int fd, const struct stat *st)
{
	uint64_t len = r->mmap_offset + r->memory_size;
	uint64_t blk = st->st_blksize > 0 ? (uint64_t)st->st_blksize : 1;
	void *p;

	if (len > UINT64_MAX - (blk - 1))
		return false;
	len = (len + blk - 1) / blk * blk;
	if (len > SIZE_MAX)
		return false;
	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	munmap(p, (size_t)len);
	return true;
}

/*
 * A region past the end of a regular file maps without error, and the
 * first access beyond the end raises SIGBUS, which kills the backend
 * (librte_vhost reads the used ring as soon as a vring's address is set).
 * A frontend that shrinks the file later still can; QEMU's memfd backend
 * seals its size.
 */
static const char *
region_file_fault(const struct vur_vhost_region *r, int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return "has an fd that cannot be examined";
	if (!maps(r, fd, &st))
		return "has an fd that cannot be mapped shared and read-write";
	/* devices (device DAX) have no size to check */
	if (S_ISREG(st.st_mode) &&
			(st.st_size < 0 || r->mmap_offset + r->memory_size > (uint64_t)st.st_size))
		return "extends past the end of its file";
	return NULL;
}

const char *
vur_mem_table_fault(const struct vur_vhost_msg *msg, const struct vur_vhost_msg_fds *fds,
		uint32_t *region)
{
	const struct vur_vhost_memory *mem = &msg->payload.mem;
	const char *why;

	*region = 0;
	if (msg->size < VUR_VHOST_MEMORY_HDR_SIZE)
		return "has no region count: the payload is shorter than its header";
	/* librte_vhost refuses more regions than it has, and closes their fds */
	if (mem->nregions > VUR_VHOST_MEMORY_MAX_NREGIONS)
		return NULL;
	if (msg->size < VUR_VHOST_MEMORY_HDR_SIZE + mem->nregions * sizeof(mem->regions[0])) {
		*region = (msg->size - VUR_VHOST_MEMORY_HDR_SIZE) / sizeof(mem->regions[0]);
		return "is missing: the payload is shorter than the regions it counts";
	}
	for (uint32_t i = 0; i < mem->nregions; i++) {
		why = region_fault(&mem->regions[i]);
		/* librte_vhost refuses fds that do not match the regions, and closes them */
		if (why == NULL && fds != NULL && fds->fd_num == (int)mem->nregions)
			why = region_file_fault(&mem->regions[i], fds->fds[i]);
		if (why != NULL) {
			*region = i;
			return why;
		}
	}
	return NULL;
}

void
vur_mem_table_refuse(struct vur_vhost_msg *msg)
{
	/* no message carries this many fds */
	msg->payload.mem.nregions = UINT32_MAX;
}
