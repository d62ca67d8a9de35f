/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

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

const char *
vur_mem_table_fault(const struct vur_vhost_msg *msg, uint32_t *region)
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
