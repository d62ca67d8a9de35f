/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link state from the kernel (see kernel_link.h). Plain rtnetlink and one
 * ioctl: libmnl or libnl would be one more dependency for reading a single
 * message type, and DPDK exports no netlink helper.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "port/kernel_link.h"

int
vur_kernel_link_listen(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static bool
listed(uint32_t ifindex, const uint32_t *ifindexes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ifindexes[i] == ifindex)
			return true;
	return false;
}

bool
vur_kernel_link_scan(const void *buf, size_t len, const uint32_t *ifindexes, size_t n)
{
	bool named = false;

	for (const struct nlmsghdr *h = buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);

		if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
			continue;
		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			continue;
		if (ifi->ifi_index > 0 && listed((uint32_t)ifi->ifi_index, ifindexes, n))
			named = true;
	}
	return named;
}

int
vur_kernel_link_drain(int fd, const uint32_t *ifindexes, size_t n, bool *named)
{
	/* aligned for the headers NLMSG_NEXT walks */
	uint32_t buf[8192 / sizeof(uint32_t)];
	int msgs = 0;

	*named = false;
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return msgs;
			if (errno == EINTR)
				continue;
			/* ENOBUFS: messages were lost; the caller reads every link anyway */
			if (errno == ENOBUFS) {
				*named = true;
				continue;
			}
			return -errno;
		}
		if (len == 0)
			return msgs;
		msgs++;
		if (vur_kernel_link_scan(buf, (size_t)len, ifindexes, n))
			*named = true;
	}
}

int
vur_kernel_link_up(int sock, uint32_t ifindex)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (if_indextoname(ifindex, ifr.ifr_name) == NULL)
		return -errno;
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
		return -errno;
	return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}
