/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the per-device address policy (ROCE-DEV-POLICY-1..3). */
#include <errno.h>
#include <string.h>

#include "addr_policy.h"
#include "tests/tap.h"

static void
parse_and_format(void)
{
	static const uint8_t v4[16] = {
		[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 0, [14] = 0, [15] = 7
	};
	uint8_t gid[16];
	char text[VUR_ADDR_TEXT_LEN];

	TAP_CHECK(vur_addr_parse_gid("10.0.0.7", gid) == 0 && memcmp(gid, v4, 16) == 0);
	vur_addr_format_gid(gid, text, sizeof(text));
	TAP_CHECK(strcmp(text, "10.0.0.7") == 0);
	TAP_CHECK(vur_addr_parse_gid("fd00::1", gid) == 0 && gid[0] == 0xfd && gid[15] == 1);
	vur_addr_format_gid(gid, text, sizeof(text));
	TAP_CHECK(strcmp(text, "fd00::1") == 0);
	/* the IPv4-mapped text is the same GID as the dotted form */
	TAP_CHECK(vur_addr_parse_gid("::ffff:10.0.0.7", gid) == 0 && memcmp(gid, v4, 16) == 0);
	TAP_CHECK(vur_addr_parse_gid("10.0.0.256", gid) == -EINVAL);
	TAP_CHECK(vur_addr_parse_gid("", gid) == -EINVAL);
	TAP_CHECK(vur_addr_parse_gid("fd00::1 ", gid) == -EINVAL);
	TAP_CHECK(vur_addr_parse_gid("host.example", gid) == -EINVAL);
}

static void
set_rules(void)
{
	const char *good[] = { "10.0.0.7", "fd00::1", "10.0.0.7" };
	const char *bad[] = { "10.0.0.8", "nonsense" };
	const char *mcast[] = { "239.1.1.1" };
	const char *mcast6[] = { "ff02::1" };
	const char *many[VUR_ADDR_POLICY_MAX + 1];
	char texts[VUR_ADDR_POLICY_MAX + 1][16];
	struct vur_addr_policy p = { 0 };
	char why[128];

	TAP_CHECK(vur_addr_policy_set(&p, good, 3, why, sizeof(why)) == 0);
	TAP_CHECK(p.n == 2); /* the duplicate kept once */
	/* a bad address leaves the set as it was */
	TAP_CHECK(vur_addr_policy_set(&p, bad, 2, why, sizeof(why)) == -EINVAL);
	TAP_CHECK(p.n == 2 && strstr(why, "nonsense") != NULL);
	TAP_CHECK(vur_addr_policy_set(&p, mcast, 1, why, sizeof(why)) == -EINVAL && p.n == 2);
	TAP_CHECK(vur_addr_policy_set(&p, mcast6, 1, why, sizeof(why)) == -EINVAL && p.n == 2);
	for (int i = 0; i <= VUR_ADDR_POLICY_MAX; i++) {
		snprintf(texts[i], sizeof(texts[i]), "10.1.0.%d", i + 1);
		many[i] = texts[i];
	}
	TAP_CHECK(vur_addr_policy_set(&p, many, VUR_ADDR_POLICY_MAX, why, sizeof(why)) == 0);
	TAP_CHECK(p.n == VUR_ADDR_POLICY_MAX);
	TAP_CHECK(vur_addr_policy_set(&p, many, VUR_ADDR_POLICY_MAX + 1, why, sizeof(why)) ==
			-EINVAL);
	TAP_CHECK(p.n == VUR_ADDR_POLICY_MAX);
	/* an empty set: no policy */
	TAP_CHECK(vur_addr_policy_set(&p, NULL, 0, why, sizeof(why)) == 0 && p.n == 0);
}

/* ROCE-DEV-POLICY-1, -2 */
static void
allows(void)
{
	const char *set[] = { "10.0.0.7", "fd00::1" };
	struct vur_addr_policy p = { .mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } };
	/* fe80::5054:ff:fe12:3456, what Linux derives from that MAC */
	static const uint8_t ll[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34,
		0x56 };
	uint8_t gid[16];
	char why[128];

	TAP_CHECK(vur_addr_parse_gid("10.0.0.8", gid) == 0);
	TAP_CHECK(vur_addr_policy_allows_gid(NULL, gid));
	TAP_CHECK(vur_addr_policy_allows_gid(&p, gid)); /* empty set: anything */
	TAP_CHECK(vur_addr_policy_set(&p, set, 2, why, sizeof(why)) == 0);
	TAP_CHECK(!vur_addr_policy_allows_gid(&p, gid));
	TAP_CHECK(vur_addr_parse_gid("10.0.0.7", gid) == 0 && vur_addr_policy_allows_gid(&p, gid));
	TAP_CHECK(vur_addr_parse_gid("fd00::1", gid) == 0 && vur_addr_policy_allows_gid(&p, gid));
	TAP_CHECK(vur_addr_parse_gid("fd00::2", gid) == 0 && !vur_addr_policy_allows_gid(&p, gid));
	/* 10.0.0.7 as a plain IPv6 address (::a00:7) is another GID */
	TAP_CHECK(vur_addr_parse_gid("::a00:7", gid) == 0 && !vur_addr_policy_allows_gid(&p, gid));
	TAP_CHECK(vur_addr_policy_allows_gid(&p, ll));
	/* another MAC's link-local GID is not the device's */
	memcpy(gid, ll, 16);
	gid[15] ^= 1;
	TAP_CHECK(!vur_addr_policy_allows_gid(&p, gid));
}

int
main(void)
{
	TAP_RUN(parse_and_format);
	TAP_RUN(set_rules);
	TAP_RUN(allows);
	return tap_done();
}
