/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the rtnetlink parser: which datagrams name a member's
 * interface, and what a short, foreign or malformed message does (nothing).
 */
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "port/kernel_link.h"
#include "tests/tap.h"

static const uint32_t members[] = { 7, 42 };

/* Append a message of @type about @ifindex with @extra attribute bytes; its length. */
static size_t
put_msg(uint8_t *buf, uint16_t type, int ifindex, size_t extra)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct ifinfomsg *ifi = NLMSG_DATA(h);

	memset(h, 0, NLMSG_SPACE(sizeof(*ifi) + extra));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi) + extra);
	h->nlmsg_type = type;
	ifi->ifi_index = ifindex;
	return NLMSG_ALIGN(h->nlmsg_len);
}

static bool
scan(const uint8_t *buf, size_t len)
{
	return vur_kernel_link_scan(buf, len, members, 2);
}

static void
link_messages(void)
{
	uint32_t words[256];
	uint8_t *buf = (uint8_t *)words;
	size_t len;

	TAP_CHECK(scan(buf, put_msg(buf, RTM_NEWLINK, 42, 0)));
	TAP_CHECK(scan(buf, put_msg(buf, RTM_DELLINK, 7, 16)));
	TAP_CHECK(!scan(buf, put_msg(buf, RTM_NEWLINK, 8, 0)));   /* not a member's */
	TAP_CHECK(!scan(buf, put_msg(buf, RTM_NEWADDR, 42, 0)));  /* not about a link */
	TAP_CHECK(!scan(buf, put_msg(buf, RTM_NEWLINK, -42, 0))); /* no such index */
	TAP_CHECK(!vur_kernel_link_scan(buf, put_msg(buf, RTM_NEWLINK, 42, 0), members, 0));

	/* several messages: the member's is the third */
	len = put_msg(buf, RTM_NEWLINK, 1, 8);
	len += put_msg(buf + len, RTM_NEWROUTE, 42, 0);
	len += put_msg(buf + len, RTM_NEWLINK, 7, 4);
	TAP_CHECK(scan(buf, len));
}

static void
bad_messages(void)
{
	uint32_t words[256];
	uint8_t *buf = (uint8_t *)words;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t len = put_msg(buf, RTM_NEWLINK, 42, 0);

	TAP_CHECK(!scan(buf, 0));
	TAP_CHECK(!scan(buf, sizeof(*h) - 1)); /* not even a header */
	TAP_CHECK(!scan(buf, len - 1));        /* the message is cut */
	h->nlmsg_len = sizeof(*h) + 2;         /* too short for its ifinfomsg */
	TAP_CHECK(!scan(buf, len));
	h->nlmsg_len = 0xffff; /* longer than the datagram */
	TAP_CHECK(!scan(buf, len));
	h->nlmsg_len = 0; /* would never advance */
	TAP_CHECK(!scan(buf, len));
}

int
main(void)
{
	TAP_RUN(link_messages);
	TAP_RUN(bad_messages);
	return tap_done();
}
