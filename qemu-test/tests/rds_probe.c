// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RDS over RDMA between two guests (scenario 19): a reliable datagram
 * socket (AF_RDS) held to the InfiniBand transport (SO_RDS_TRANSPORT
 * RDS_TRANS_IB, rds_rdma: RC QPs through the RDMA CM, fast registration),
 * and messages sent, echoed and checked.
 *
 *   rds_probe echo LOCAL PORT COUNT
 *       receive COUNT messages on LOCAL:PORT, check each, send it back
 *   rds_probe send LOCAL PEER PORT COUNT
 *       send COUNT messages from LOCAL:PORT to PEER:PORT, one at a time,
 *       sizes 1 B to 64 KiB in turn, and check each echo
 *
 * A message is its sequence number (4 bytes, when it fits) and bytes made
 * from it and their offset. Prints one line; exits 0 when every message
 * came back whole, 1 otherwise. Built static (the guest has no C library).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define MAX_MSG (64 * 1024)

static const size_t sizes[] = { 1, 100, 4096, 4097, 8000, 65536 };

static unsigned char pattern(uint32_t seq, size_t i)
{
	return (unsigned char)(seq * 131 + i * 7 + (i >> 8));
}

static void fill(unsigned char *buf, uint32_t seq, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(seq, i);
	if (len >= sizeof(seq))
		memcpy(buf, &seq, sizeof(seq));
}

/* Whether @buf (@len bytes) is message @seq of length @want. */
static int check(const unsigned char *buf, size_t len, uint32_t seq, size_t want)
{
	static unsigned char ref[MAX_MSG];

	if (len != want)
		return 0;
	fill(ref, seq, want);
	return memcmp(buf, ref, want) == 0;
}

static struct sockaddr_in addr(const char *ip, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		exit(2);
	}
	return sin;
}

static int rds_socket(const char *local, int port)
{
	struct sockaddr_in sin = addr(local, port);
	struct timeval tv = { .tv_sec = 30 };
	int trans = RDS_TRANS_IB, buf = 1 << 20;
	int fd;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		perror("socket(AF_RDS)");
		exit(1);
	}
	/* Held to the IB transport (before bind): never RDS over TCP. */
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans))) {
		perror("SO_RDS_TRANSPORT");
		exit(1);
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, "bind %s:%d: %s\n", local, port, strerror(errno));
		exit(1);
	}
	return fd;
}

static int echo(int fd, int count)
{
	static unsigned char buf[MAX_MSG];
	struct sockaddr_in from;
	socklen_t fl;
	ssize_t n;
	int i;

	for (i = 0; i < count; i++) {
		fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			fprintf(stderr, "echo: message %d: recvfrom: %s\n", i, strerror(errno));
			return 1;
		}
		if (!check(buf, n, i, sizes[i % (sizeof(sizes) / sizeof(sizes[0]))])) {
			fprintf(stderr, "echo: message %d (%zd bytes) is not what was sent\n", i, n);
			return 1;
		}
		if (sendto(fd, buf, n, 0, (struct sockaddr *)&from, fl) != n) {
			fprintf(stderr, "echo: message %d: sendto: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("rds echo: %d messages received whole and sent back\n", count);
	return 0;
}

static int send_all(int fd, const char *peer, int port, int count)
{
	static unsigned char out[MAX_MSG], in[MAX_MSG];
	struct sockaddr_in to = addr(peer, port);
	unsigned long long bytes = 0;
	size_t len;
	ssize_t n;
	int i, tries;

	for (i = 0; i < count; i++) {
		len = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
		fill(out, i, len);
		/* The first send makes the connection; the peer may not be bound yet. */
		for (tries = 0;; tries++) {
			if (sendto(fd, out, len, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len)
				break;
			if (tries == 50 || (errno != ENOBUFS && errno != ECONNREFUSED &&
					    errno != EAGAIN && errno != EHOSTUNREACH)) {
				fprintf(stderr, "send: message %d: sendto: %s\n", i, strerror(errno));
				return 1;
			}
			usleep(200000);
		}
		n = recv(fd, in, sizeof(in), 0);
		if (n < 0) {
			fprintf(stderr, "send: echo of message %d: %s\n", i, strerror(errno));
			return 1;
		}
		if (!check(in, n, i, len)) {
			fprintf(stderr, "send: echo of message %d (%zd bytes) differs\n", i, n);
			return 1;
		}
		bytes += len;
	}
	printf("rds send: %d messages (1 B to 64 KiB, %llu bytes) echoed whole\n", count, bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "echo"))
		return echo(rds_socket(argv[2], atoi(argv[3])), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "send"))
		return send_all(rds_socket(argv[2], atoi(argv[4])), argv[3], atoi(argv[4]),
				atoi(argv[5]));
	fprintf(stderr, "usage: rds_probe echo LOCAL PORT COUNT\n"
			"       rds_probe send LOCAL PEER PORT COUNT\n");
	return 2;
}
