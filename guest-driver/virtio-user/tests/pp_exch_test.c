/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The address text of rdma-core's ibv_*_pingpong exchange (tools/pp_exch.c):
 * the exact bytes the examples send ("%04x:%06x:%06x:" and the GID's 32 hex
 * digits in network order, NUL-terminated), and every malformed text
 * refused.
 */
#include <errno.h>
#include <string.h>

#include "pp_exch.h"
#include "tap.h"

/* QPN 0x11, PSN 0x8a3c62, the link-local GID of MAC 52:54:00:5e:00:02. */
static const struct pp_dest known = {
	.qpn = 0x11,
	.psn = 0x8a3c62,
	.gid = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x5e, 0x00, 0x02 },
};
static const char known_text[] = "0000:000011:8a3c62:fe80000000000000505400fffe5e0002";

static void
format_is_the_examples(void)
{
	char msg[PP_MSG_SIZE];
	struct pp_dest d = known;

	TAP_EQ(PP_MSG_SIZE, 52);
	pp_format(&known, msg);
	TAP_EQ(memcmp(msg, known_text, sizeof(known_text)), 0);
	/* only 24 bits of QPN and PSN fit */
	d.qpn = 0x1abcdef;
	d.psn = 0xffffffff;
	d.lid = 0xbeef;
	pp_format(&d, msg);
	TAP_EQ(strncmp(msg, "beef:abcdef:ffffff:", 19), 0);
	TAP_EQ(strlen(msg), PP_MSG_SIZE - 1);
}

static void
parse_round_trip(void)
{
	char msg[PP_MSG_SIZE];
	struct pp_dest d;

	memcpy(msg, known_text, sizeof(msg));
	TAP_EQ(pp_parse(msg, &d), 0);
	TAP_EQ(d.lid, 0);
	TAP_EQ(d.qpn, 0x11);
	TAP_EQ(d.psn, 0x8a3c62);
	TAP_EQ(memcmp(d.gid, known.gid, 16), 0);
	/* sscanf's %x takes capitals: so does this */
	memcpy(msg, "0000:00ABCD:8A3C62:FE80000000000000505400FFFE5E0002", sizeof(msg));
	TAP_EQ(pp_parse(msg, &d), 0);
	TAP_EQ(d.qpn, 0xabcd);
	TAP_EQ(d.gid[0], 0xfe);
}

/* One character replaced at each position: only the hex digits may change it and stay valid. */
static void
parse_refuses_malformed(void)
{
	static const char bad[] = { ':', 'g', ' ', '\0', '-', 'x' };
	char msg[PP_MSG_SIZE];
	struct pp_dest d;
	int refused = 0, total = 0;

	for (size_t pos = 0; pos < PP_MSG_SIZE; pos++) {
		for (size_t b = 0; b < sizeof(bad); b++) {
			memcpy(msg, known_text, sizeof(msg));
			if (msg[pos] == bad[b])
				continue;
			msg[pos] = bad[b];
			total++;
			refused += pp_parse(msg, &d) == -EINVAL;
		}
	}
	TAP_EQ(refused, total);
	/* the NUL at the end is part of the message */
	memcpy(msg, known_text, sizeof(msg));
	msg[PP_MSG_SIZE - 1] = '0';
	TAP_EQ(pp_parse(msg, &d), -EINVAL);
}

int
main(void)
{
	TAP_RUN(format_is_the_examples);
	TAP_RUN(parse_round_trip);
	TAP_RUN(parse_refuses_malformed);
	return tap_done();
}
