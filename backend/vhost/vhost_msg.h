/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The part of librte_vhost's VhostUserMsg that the extern message handler
 * reads and answers. librte_vhost does not install its message header, so
 * the layout is declared here, checked against the vhost-user protocol
 * (docs/interop/vhost-user.rst in QEMU): a packed 12-byte header, then the
 * payload.
 */
#ifndef VUR_VHOST_MSG_H
#define VUR_VHOST_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <rte_version.h>

#define VUR_VHOST_USER_RESET_OWNER      4
#define VUR_VHOST_USER_SET_MEM_TABLE    5
#define VUR_VHOST_USER_SET_VRING_NUM    8
#define VUR_VHOST_USER_SET_VRING_ADDR   9
#define VUR_VHOST_USER_SET_VRING_BASE   10
#define VUR_VHOST_USER_GET_VRING_BASE   11
#define VUR_VHOST_USER_SET_VRING_KICK   12
#define VUR_VHOST_USER_SET_VRING_CALL   13
#define VUR_VHOST_USER_SET_VRING_ENABLE 18
#define VUR_VHOST_USER_GET_CONFIG       24
#define VUR_VHOST_USER_SET_CONFIG       25
#define VUR_VHOST_USER_RESET_DEVICE     34
#define VUR_VHOST_USER_NEED_REPLY       (1u << 3)
#define VUR_VHOST_USER_MAX_CONFIG_SIZE  256
#define VUR_VHOST_MEMORY_MAX_NREGIONS   8 /* librte_vhost's VHOST_MEMORY_MAX_NREGIONS */

/* Protocol features librte_vhost 22.11's rte_vhost.h does not name. */
#define VUR_VHOST_USER_PROTOCOL_F_RESET_DEVICE 13

struct vur_vhost_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t region[VUR_VHOST_USER_MAX_CONFIG_SIZE];
} __attribute__((packed));

#define VUR_VHOST_CONFIG_HDR_SIZE offsetof(struct vur_vhost_config, region)

struct vur_vhost_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
} __attribute__((packed));

struct vur_vhost_memory {
	uint32_t nregions;
	uint32_t padding;
	struct vur_vhost_region regions[VUR_VHOST_MEMORY_MAX_NREGIONS];
} __attribute__((packed));

#define VUR_VHOST_MEMORY_HDR_SIZE offsetof(struct vur_vhost_memory, regions)

struct vur_vhost_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size; /* of the payload */
	union {
		uint64_t u64;
		struct {
			uint32_t index;
			uint32_t num;
		} state; /* SET_VRING_ENABLE: num is 0 or 1 */
		struct vur_vhost_config cfg;
		struct vur_vhost_memory mem; /* SET_MEM_TABLE */
	} payload;
} __attribute__((packed));

_Static_assert(offsetof(struct vur_vhost_msg, payload) == 12, "vhost-user header is 12 bytes");
_Static_assert(sizeof(struct vur_vhost_region) == 32, "a memory region is 32 bytes");

/*
 * The extern handlers get librte_vhost's message context: the message as
 * read, then the fds that came with it (lib/vhost/vhost_user.h: "external
 * message handlers rely on" that layout). The message is as long as
 * librte_vhost's whole payload union, whose largest member, vhost-crypto's
 * session parameters, grew in 25.03. Measured by compiling each release's
 * vhost_user.h, 22.03 to 26.07 and main of July 2026 (26.11-rc0): the fds
 * start at byte 644 before 25.03 and at 1084 since. backend_test's
 * memory_table_past_its_file checks it on the DPDK a build uses. A later
 * release is not trusted: the fds are then not read (VUR_VHOST_MSG_FDS_KNOWN
 * is 0), and the checks that need them are skipped.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(26, 11, 0, 1)
#define VUR_VHOST_MSG_FDS_KNOWN   0
#define VUR_VHOST_MSG_CONTEXT_FDS 0
#elif RTE_VERSION >= RTE_VERSION_NUM(25, 3, 0, 0)
#define VUR_VHOST_MSG_FDS_KNOWN   1
#define VUR_VHOST_MSG_CONTEXT_FDS 1084
#else
#define VUR_VHOST_MSG_FDS_KNOWN   1
#define VUR_VHOST_MSG_CONTEXT_FDS 644
#endif

struct vur_vhost_msg_fds {
	int fds[VUR_VHOST_MEMORY_MAX_NREGIONS];
	int fd_num;
} __attribute__((packed));

/*
 * The fds of @msg, which the extern handler got from librte_vhost, or NULL
 * on a DPDK whose layout is not known.
 */
static inline struct vur_vhost_msg_fds *
vur_vhost_msg_fds(struct vur_vhost_msg *msg)
{
	if (!VUR_VHOST_MSG_FDS_KNOWN)
		return NULL;
	return (struct vur_vhost_msg_fds *)((char *)msg + VUR_VHOST_MSG_CONTEXT_FDS);
}

#endif /* VUR_VHOST_MSG_H */
