/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pp_exch.h"

void
pp_link_local_gid(const uint8_t mac[6], uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = mac[0] ^ 2;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
}

void
pp_format(const struct pp_dest *d, char msg[PP_MSG_SIZE])
{
	int n = snprintf(msg, PP_MSG_SIZE, "%04x:%06x:%06x:", d->lid, d->qpn & 0xffffff,
			d->psn & 0xffffff);

	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, PP_MSG_SIZE - n, "%02x", d->gid[i]);
}

/* @len hex digits at @s, exactly: their value, or -1. */
static int64_t
hex(const char *s, int len)
{
	int64_t v = 0;

	for (int i = 0; i < len; i++) {
		char c = s[i];
		int digit = c >= '0' && c <= '9'       ? c - '0'
				: c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10
						       : -1;

		if (digit < 0)
			return -1;
		v = v * 16 + digit;
	}
	return v;
}

int
pp_parse(const char msg[PP_MSG_SIZE], struct pp_dest *d)
{
	int64_t lid = hex(msg, 4), qpn = hex(msg + 5, 6), psn = hex(msg + 12, 6), b;

	if (lid < 0 || qpn < 0 || psn < 0 || msg[4] != ':' || msg[11] != ':' || msg[18] != ':' ||
			msg[PP_MSG_SIZE - 1] != '\0')
		return -EINVAL;
	for (int i = 0; i < 16; i++) {
		b = hex(msg + 19 + 2 * i, 2);
		if (b < 0)
			return -EINVAL;
		d->gid[i] = (uint8_t)b;
	}
	d->lid = (uint16_t)lid;
	d->qpn = (uint32_t)qpn;
	d->psn = (uint32_t)psn;
	return 0;
}

/* Exactly @len bytes, or -errno (-EPROTO if the peer closed first). */
static int
read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		got += (size_t)n;
	}
	return 0;
}

static int
write_full(int fd, const void *buf, size_t len)
{
	ssize_t n;

	for (size_t done = 0; done < len; done += (size_t)n) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n < 0)
			return -errno;
	}
	return 0;
}

/* A socket connected to, or (@host NULL) listening on, @port: the fd or -errno. */
static int
open_socket(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *a;
	int fd = -ENOENT, one = 1;

	if (host == NULL)
		hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -EHOSTUNREACH;
	for (a = res; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			fd = -errno;
			continue;
		}
		if (host != NULL && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (host == NULL &&
				setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
				bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 1) == 0)
			break;
		close(fd);
		fd = -errno;
	}
	freeaddrinfo(res);
	return fd;
}

int
pp_client_exchange(const char *host, const char *port, const struct pp_dest *mine,
		struct pp_dest *peer)
{
	char msg[PP_MSG_SIZE];
	int fd = open_socket(host, port), ret;

	if (fd < 0)
		return fd;
	pp_format(mine, msg);
	ret = write_full(fd, msg, sizeof(msg));
	if (ret == 0)
		ret = read_full(fd, msg, sizeof(msg));
	if (ret == 0)
		ret = write_full(fd, PP_DONE, sizeof(PP_DONE));
	if (ret == 0)
		ret = pp_parse(msg, peer);
	close(fd);
	return ret;
}

int
pp_client_connect(const char *host, const char *port)
{
	return open_socket(host, port);
}

int
pp_server_listen(const char *port)
{
	return open_socket(NULL, port);
}

int
pp_server_accept(int lfd, struct pp_dest *peer)
{
	char msg[PP_MSG_SIZE];
	int fd, ret;

	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	ret = fd < 0 ? -errno : 0;
	close(lfd);
	if (ret == 0)
		ret = read_full(fd, msg, sizeof(msg));
	if (ret == 0)
		ret = pp_parse(msg, peer);
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}

int
pp_server_reply(int fd, const struct pp_dest *mine)
{
	char msg[PP_MSG_SIZE];
	int ret;

	pp_format(mine, msg);
	ret = write_full(fd, msg, sizeof(msg));
	if (ret == 0)
		ret = read_full(fd, msg, sizeof(PP_DONE));
	close(fd);
	return ret;
}
