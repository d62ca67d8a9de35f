/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-device address policy (issue 25): the IP addresses the administrator
 * allows a guest to use, as RoCE v2 GIDs (an IPv6 address as is, an IPv4
 * address in its IPv4-mapped form), in the manner of the host admin setting
 * a ConnectX virtual function's GIDs. ADD_GID of any other GID fails with
 * VIRTIO_NET_ERR (ROCE-DEV-POLICY-1); the link-local GID of the device's own
 * MAC is always allowed (ROCE-DEV-POLICY-2), since Linux's RDMA core stores
 * it at index 0 whatever the addresses. An empty set allows every GID, as
 * before the policy existed. GIDs already in the table stay when the set
 * changes (ROCE-DEV-POLICY-3). The device owns the policy, so it outlives
 * the driver's connections; the RDMA layer reads it under the device lock.
 */
#ifndef VUR_RDMA_ADDR_POLICY_H
#define VUR_RDMA_ADDR_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many allowed addresses per device. */
#define VUR_ADDR_POLICY_MAX 16

/* INET6_ADDRSTRLEN: the longest text of one address and its NUL. */
#define VUR_ADDR_TEXT_LEN 46

struct vur_addr_policy {
	uint32_t n;                            /* 0: every GID allowed */
	uint8_t gids[VUR_ADDR_POLICY_MAX][16]; /* the allowed addresses, as GIDs */
	uint8_t mac[6];                        /* the device's: its link-local GID is allowed */
	uint64_t refused_gids;                 /* ADD_GIDs refused */
};

/*
 * @text, an IPv4 or IPv6 address, as the GID RoCE v2 uses for it. Returns 0,
 * or -EINVAL when it is neither.
 */
int vur_addr_parse_gid(const char *text, uint8_t gid[16]);

/* @gid as text: dotted IPv4 for an IPv4-mapped GID, else IPv6. */
void vur_addr_format_gid(const uint8_t gid[16], char *buf, size_t len);

/*
 * Replace @p's set with the @n addresses of @texts (duplicates kept once).
 * Returns 0, or -EINVAL (an address that does not parse, too many) with the
 * reason in @why; @p is unchanged then.
 */
int vur_addr_policy_set(struct vur_addr_policy *p, const char *const *texts, unsigned int n,
		char *why, size_t len);

/* Whether the driver may store @gid in its GID table under @p (NULL: no policy). */
bool vur_addr_policy_allows_gid(const struct vur_addr_policy *p, const uint8_t gid[16]);

#endif /* VUR_RDMA_ADDR_POLICY_H */
