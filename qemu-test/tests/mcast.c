// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A guest tool for the multicast scenario: UDP datagrams to an IPv4 or IPv6
 * multicast group on one interface, every one of them checked.
 *
 *   mcast recv IFACE GROUP PORT PEER COUNT SECONDS
 *       joins GROUP on IFACE (IP_ADD_MEMBERSHIP or IPV6_JOIN_GROUP), prints
 *       "joined GROUP", then takes datagrams for up to SECONDS until it has
 *       COUNT of them. Each must come from PEER and be one that `mcast send`
 *       made (its sequence number, group and length, the pattern after), and
 *       none may come twice. Prints "received N of COUNT" and what was wrong
 *       or missing; exits 0 when all COUNT came and nothing was wrong.
 *   mcast send IFACE GROUP PORT COUNT INTERVAL_MS
 *       sends COUNT datagrams (sequence numbers 0 to COUNT-1, 64 to 1000
 *       bytes) to GROUP out of IFACE, hop limit 1, no loopback.
 *
 * Built statically on the host (the guest has no libc):
 *   gcc -static -O2 -o mcast mcast.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_COUNT 1000
#define MAGIC     "vur-mcast"

union addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_storage ss;
};

static int
parse_addr(const char *text, uint16_t port, union addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, &a->in.sin_addr) == 1) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, text, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons(port);
		return 0;
	}
	fprintf(stderr, "mcast: not an address: %s\n", text);
	return -1;
}

static socklen_t
addr_len(const union addr *a)
{
	return a->sa.sa_family == AF_INET ? sizeof(a->in) : sizeof(a->in6);
}

/* Datagram @seq's length and its byte at @i: both follow from @seq alone. */
static size_t
dgram_len(unsigned int seq)
{
	return 64 + (seq * 97) % 937;
}

static uint8_t
dgram_byte(unsigned int seq, size_t i)
{
	return (uint8_t)(seq * 31 + i * 7);
}

/* "vur-mcast SEQ GROUP\0" then the pattern up to dgram_len(seq). */
static size_t
dgram_make(uint8_t *buf, unsigned int seq, const char *group)
{
	size_t len = dgram_len(seq);
	int head = snprintf((char *)buf, len, "%s %u %s", MAGIC, seq, group);

	for (size_t i = (size_t)head + 1; i < len; i++)
		buf[i] = dgram_byte(seq, i);
	return len;
}

/* The datagram's sequence number, or -1 when it is not one dgram_make made. */
static int
dgram_check(const uint8_t *buf, size_t len, const char *group, unsigned int count)
{
	char want[128];
	unsigned int seq;
	size_t head;

	if (len == 0 || len > 1000 || memchr(buf, 0, len) == NULL)
		return -1;
	if (sscanf((const char *)buf, MAGIC " %u", &seq) != 1 || seq >= count ||
			len != dgram_len(seq))
		return -1;
	snprintf(want, sizeof(want), "%s %u %s", MAGIC, seq, group);
	head = strlen(want);
	if (strcmp((const char *)buf, want) != 0)
		return -1;
	for (size_t i = head + 1; i < len; i++)
		if (buf[i] != dgram_byte(seq, i))
			return -1;
	return (int)seq;
}

static int
open_socket(const char *ifname, const union addr *group, unsigned int *ifindex)
{
	int one = 1, fd;

	*ifindex = if_nametoindex(ifname);
	if (*ifindex == 0) {
		fprintf(stderr, "mcast: no interface %s\n", ifname);
		return -1;
	}
	fd = socket(group->sa.sa_family, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) {
		perror("mcast: socket");
		return -1;
	}
	return fd;
}

static int
do_recv(const char *ifname, const char *group_text, uint16_t port, const char *peer_text,
		unsigned int count, int seconds)
{
	static uint8_t seen[MAX_COUNT];
	unsigned int ifindex, got = 0, bad = 0, dups = 0, wrong_src = 0;
	union addr group, peer, bind_to, from;
	uint8_t buf[2048];
	struct timespec now, end;
	int fd;

	if (parse_addr(group_text, port, &group) < 0 || parse_addr(peer_text, 0, &peer) < 0)
		return 2;
	fd = open_socket(ifname, &group, &ifindex);
	if (fd < 0)
		return 2;
	/* Bound to the group: only its datagrams, not another group's on the port. */
	bind_to = group;
	if (group.sa.sa_family == AF_INET6)
		bind_to.in6.sin6_scope_id = ifindex;
	if (bind(fd, &bind_to.sa, addr_len(&bind_to)) < 0) {
		perror("mcast: bind");
		return 2;
	}
	if (group.sa.sa_family == AF_INET) {
		struct ip_mreqn mr = { .imr_multiaddr = group.in.sin_addr,
			.imr_ifindex = (int)ifindex };

		if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
			perror("mcast: IP_ADD_MEMBERSHIP");
			return 2;
		}
	} else {
		struct ipv6_mreq mr = { .ipv6mr_multiaddr = group.in6.sin6_addr,
			.ipv6mr_interface = ifindex };

		if (setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr)) < 0) {
			perror("mcast: IPV6_JOIN_GROUP");
			return 2;
		}
	}
	printf("joined %s\n", group_text);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	while (got < count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		socklen_t from_len = sizeof(from);
		long left_ms;
		ssize_t n;
		int seq;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left_ms = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left_ms <= 0 || poll(&p, 1, (int)left_ms) <= 0)
			break;
		n = recvfrom(fd, buf, sizeof(buf), 0, &from.sa, &from_len);
		if (n < 0)
			continue;
		if (from.sa.sa_family != peer.sa.sa_family ||
				(from.sa.sa_family == AF_INET
								? memcmp(&from.in.sin_addr, &peer.in.sin_addr, 4)
								: memcmp(&from.in6.sin6_addr, &peer.in6.sin6_addr, 16)) !=
						0) {
			wrong_src++;
			continue;
		}
		seq = dgram_check(buf, (size_t)n, group_text, count);
		if (seq < 0)
			bad++;
		else if (seen[seq]++)
			dups++;
		else
			got++;
	}
	printf("received %u of %u", got, count);
	if (bad || dups || wrong_src)
		printf(", %u malformed, %u duplicated, %u from another source", bad, dups,
				wrong_src);
	if (got < count) {
		printf(", missing:");
		for (unsigned int i = 0, shown = 0; i < count && shown < 16; i++)
			if (!seen[i] && ++shown)
				printf(" %u", i);
	}
	printf("\n");
	return got == count && !bad && !dups && !wrong_src ? 0 : 1;
}

static int
do_send(const char *ifname, const char *group_text, uint16_t port, unsigned int count,
		unsigned int interval_ms)
{
	unsigned int ifindex, sent = 0;
	union addr group;
	uint8_t buf[1024];
	int fd, zero = 0, one = 1;

	if (parse_addr(group_text, port, &group) < 0)
		return 2;
	fd = open_socket(ifname, &group, &ifindex);
	if (fd < 0)
		return 2;
	if (group.sa.sa_family == AF_INET) {
		struct ip_mreqn mr = { .imr_ifindex = (int)ifindex };

		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)) < 0 ||
				setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero)) <
						0 ||
				setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &one, sizeof(one)) < 0) {
			perror("mcast: IP_MULTICAST_*");
			return 2;
		}
	} else {
		group.in6.sin6_scope_id = ifindex;
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof(ifindex)) <
						0 ||
				setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero,
						sizeof(zero)) < 0 ||
				setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &one, sizeof(one)) <
						0) {
			perror("mcast: IPV6_MULTICAST_*");
			return 2;
		}
	}
	for (unsigned int seq = 0; seq < count; seq++) {
		size_t len = dgram_make(buf, seq, group_text);

		if (sendto(fd, buf, len, 0, &group.sa, addr_len(&group)) == (ssize_t)len)
			sent++;
		else
			perror("mcast: sendto");
		usleep(interval_ms * 1000);
	}
	printf("sent %u of %u\n", sent, count);
	return sent == count ? 0 : 1;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 8 && strcmp(argv[1], "recv") == 0 && atoi(argv[6]) > 0 &&
			atoi(argv[6]) <= MAX_COUNT)
		return do_recv(argv[2], argv[3], (uint16_t)atoi(argv[4]), argv[5],
				(unsigned int)atoi(argv[6]), atoi(argv[7]));
	if (argc == 7 && strcmp(argv[1], "send") == 0 && atoi(argv[5]) > 0 &&
			atoi(argv[5]) <= MAX_COUNT)
		return do_send(argv[2], argv[3], (uint16_t)atoi(argv[4]),
				(unsigned int)atoi(argv[5]), (unsigned int)atoi(argv[6]));
	fprintf(stderr, "usage: mcast recv IFACE GROUP PORT PEER COUNT SECONDS\n"
			"       mcast send IFACE GROUP PORT COUNT INTERVAL_MS\n");
	return 2;
}
