/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "telemetry.h"

#define WAIT_MS 5000

/* EAL's runtime directory (eal_create_runtime_dir() in DPDK 22.11), as child.c. */
static void
socket_path(const char *prefix, char *path, size_t size)
{
	const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");

	snprintf(path, size, "%s/dpdk/%s/dpdk_telemetry.v2", base != NULL ? base : "/tmp", prefix);
}

/* One message of the SEQPACKET socket, within the wait bound. */
static int
recv_msg(int fd, char *out, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, WAIT_MS) != 1)
		return -ETIMEDOUT;
	n = recv(fd, out, size - 1, 0);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return (int)n;
}

int
telemetry_query(const char *prefix, const char *cmd, char *out, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	socket_path(prefix, sa.sun_path, sizeof(sa.sun_path));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	/* The server greets first with its version and output limit. */
	ret = recv_msg(fd, out, size);
	if (ret < 0)
		goto out;
	if (send(fd, cmd, strlen(cmd), 0) < 0) {
		ret = -errno;
		goto out;
	}
	ret = recv_msg(fd, out, size);
out:
	close(fd);
	return ret;
}

int
telemetry_field(const char *json, const char *field, uint64_t *value)
{
	char key[128], *end;
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", field);
	p = strstr(json, key);
	if (p == NULL)
		return -ENOENT;
	p += strlen(key);
	while (*p == ' ')
		p++;
	errno = 0;
	*value = strtoull(p, &end, 10);
	return end == p || errno != 0 ? -ENOENT : 0;
}
