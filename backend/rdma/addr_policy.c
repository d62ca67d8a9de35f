/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-device address policy (see addr_policy.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdma/addr_policy.h"

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int
vur_addr_parse_gid(const char *text, uint8_t gid[16])
{
	if (inet_pton(AF_INET, text, gid + 12) == 1) {
		memcpy(gid, v4_mapped, sizeof(v4_mapped));
		return 0;
	}
	return inet_pton(AF_INET6, text, gid) == 1 ? 0 : -EINVAL;
}

void
vur_addr_format_gid(const uint8_t gid[16], char *buf, size_t len)
{
	bool v4 = memcmp(gid, v4_mapped, sizeof(v4_mapped)) == 0;

	if (inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? gid + 12 : gid, buf, len) == NULL && len > 0)
		buf[0] = '\0';
}

static bool
in_set(const struct vur_addr_policy *p, uint32_t n, const uint8_t gid[16])
{
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(p->gids[i], gid, 16) == 0)
			return true;
	return false;
}

int
vur_addr_policy_set(struct vur_addr_policy *p, const char *const *texts, unsigned int n, char *why,
		size_t len)
{
	struct vur_addr_policy next = *p;
	uint8_t gid[16];

	next.n = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (vur_addr_parse_gid(texts[i], gid) != 0) {
			snprintf(why, len, "\"%s\": not an IPv4 or IPv6 address", texts[i]);
			return -EINVAL;
		}
		/* multicast and unspecified addresses are no GID of a port (ROCE-DEV-GID-1) */
		if (gid[0] == 0xff ||
				(gid[12] >= 224 && gid[12] <= 239 &&
						memcmp(gid, v4_mapped, sizeof(v4_mapped)) == 0)) {
			snprintf(why, len, "\"%s\": a multicast address", texts[i]);
			return -EINVAL;
		}
		if (in_set(&next, next.n, gid))
			continue;
		if (next.n == VUR_ADDR_POLICY_MAX) {
			snprintf(why, len, "more than %d allowed addresses", VUR_ADDR_POLICY_MAX);
			return -EINVAL;
		}
		memcpy(next.gids[next.n++], gid, 16);
	}
	*p = next;
	return 0;
}

/* fe80::/64 with the modified EUI-64 of @mac (RFC 4291 appendix A), as Linux forms it. */
static void
link_local_gid(const uint8_t mac[6], uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = mac[0] ^ 0x02;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
}

bool
vur_addr_policy_allows_gid(const struct vur_addr_policy *p, const uint8_t gid[16])
{
	uint8_t ll[16];

	if (p == NULL || p->n == 0)
		return true;
	if (in_set(p, p->n, gid))
		return true;
	link_local_gid(p->mac, ll);
	return memcmp(ll, gid, 16) == 0;
}
