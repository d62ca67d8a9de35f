/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the SET_MEM_TABLE checks: message images built here as a
 * frontend sends them (vhost-user.rst: u32 nregions, u32 padding, then
 * regions of guest address, size, frontend address, mmap offset), each
 * region's fd a sparse memfd of 2 GiB unless a test says otherwise.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/tap.h"
#include "vdev_mem_table.h"

#define FILE_SIZE (2ULL << 30)

static struct vur_vhost_msg_fds fds;
static int memfd = -1;

static struct vur_vhost_msg
table(uint32_t nregions, uint64_t size, uint64_t offset)
{
	struct vur_vhost_msg m = { .request = VUR_VHOST_USER_SET_MEM_TABLE };
	uint32_t whole = nregions < VUR_VHOST_MEMORY_MAX_NREGIONS ? nregions
								  : VUR_VHOST_MEMORY_MAX_NREGIONS;

	m.payload.mem.nregions = nregions;
	for (uint32_t i = 0; i < whole; i++)
		m.payload.mem.regions[i] = (struct vur_vhost_region){
			.guest_phys_addr = 0x100000000ULL * (i + 1),
			.memory_size = size,
			.userspace_addr = 0x7f0000000000ULL + 0x100000000ULL * i,
			.mmap_offset = offset,
		};
	m.size = VUR_VHOST_MEMORY_HDR_SIZE + whole * sizeof(m.payload.mem.regions[0]);
	fds.fd_num = (int)whole;
	for (uint32_t i = 0; i < VUR_VHOST_MEMORY_MAX_NREGIONS; i++)
		fds.fds[i] = i < whole ? memfd : -1;
	return m;
}

static void
good_tables(void)
{
	struct vur_vhost_msg m = table(1, 1 << 20, 0);
	uint32_t r;

	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	m = table(8, 1ULL << 30, 4096);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	m = table(0, 0, 0); /* no memory: librte_vhost's to accept */
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	/* more regions than librte_vhost has: it refuses them and closes their fds */
	m = table(9, 1 << 20, 0);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
}

static void
regions_that_cannot_be_mapped(void)
{
	struct vur_vhost_msg m = table(3, 1 << 20, 0);
	uint32_t r;

	m.payload.mem.regions[2].memory_size = 0;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 2);
	m = table(1, 1 << 20, UINT64_MAX - 4095);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 0);
	m = table(2, 1 << 20, 0);
	m.payload.mem.regions[1].guest_phys_addr = UINT64_MAX - 4095;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 1);
	m = table(1, 1 << 20, 0);
	m.payload.mem.regions[0].userspace_addr = UINT64_MAX;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL);
	/* a region that ends exactly at 2^64 does not wrap */
	m = table(1, 1 << 20, 0);
	m.payload.mem.regions[0].guest_phys_addr = 0ULL - (1 << 20);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	/* 4 EiB: no 64-bit address space has room for it */
	m = table(1, 1ULL << 62, 0);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL);
}

static void
short_payloads(void)
{
	struct vur_vhost_msg m = table(2, 1 << 20, 0);
	uint32_t r;

	m.size = VUR_VHOST_MEMORY_HDR_SIZE + 32 + 31;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 1);
	m.size = 4;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL);
	m.size = 0;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL);
}

static void
regions_past_their_file(void)
{
	struct vur_vhost_msg m = table(2, FILE_SIZE, 0);
	uint32_t r;

	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	m.payload.mem.regions[1].memory_size = FILE_SIZE + 1;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 1);
	/* the region's start in the file counts: librte_vhost maps from 0 */
	m = table(1, FILE_SIZE - 4096, 4096);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	m = table(1, FILE_SIZE - 4096, 8192);
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 0);
}

static void
fds_that_cannot_be_mapped(void)
{
	char path[64];
	struct vur_vhost_msg m = table(2, 1 << 20, 0);
	int efd = eventfd(0, EFD_CLOEXEC), ro, zero, null;
	uint32_t r;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	TAP_CHECK(efd >= 0 && ro >= 0 && zero >= 0 && null >= 0);
	fds.fds[1] = efd;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 1);
	fds.fds[1] = ro;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 1);
	fds.fds[1] = null; /* a device without mmap */
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) != NULL && r == 1);
	fds.fds[1] = zero; /* a device that maps, with no size to check */
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	/* fds that do not match the regions: librte_vhost refuses and closes them */
	fds.fds[1] = efd;
	fds.fd_num = 1;
	TAP_CHECK(vur_mem_table_fault(&m, &fds, &r) == NULL);
	close(efd);
	close(ro);
	close(zero);
	close(null);
}

static void
refused_tables_count_no_fd(void)
{
	struct vur_vhost_msg m = table(1, 0, 0);

	vur_mem_table_refuse(&m);
	/* librte_vhost compares this with the fds it got: at most 8 */
	TAP_CHECK(m.payload.mem.nregions > VUR_VHOST_MEMORY_MAX_NREGIONS);
	TAP_CHECK((int)m.payload.mem.nregions < 0);
}

int
main(void)
{
	memfd = memfd_create("guest-memory", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, (off_t)FILE_SIZE) != 0) {
		perror("memfd");
		return 1;
	}
	TAP_RUN(good_tables);
	TAP_RUN(regions_that_cannot_be_mapped);
	TAP_RUN(short_payloads);
	TAP_RUN(regions_past_their_file);
	TAP_RUN(fds_that_cannot_be_mapped);
	TAP_RUN(refused_tables_count_no_fd);
	return tap_done();
}
