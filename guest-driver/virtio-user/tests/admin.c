/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "admin.h"

#define ADMIN_TIMEOUT_MS 10000

static int
connect_to(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int s;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		close(s);
		return -errno;
	}
	return s;
}

/* Read up to the reply's newline. */
static int
read_line(int s, char *out, size_t size)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len == 0 || out[len - 1] != '\n') {
		if (len + 1 >= size)
			return -EMSGSIZE;
		if (poll(&p, 1, ADMIN_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = recv(s, out + len, size - 1 - len, 0);
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		len += n;
	}
	out[len] = '\0';
	return 0;
}

int
admin_call(const char *path, const char *method, const char *params, char *out, size_t size)
{
	char req[1024];
	int s, len, ret;

	len = snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"%s%s}",
			method, params ? ",\"params\":" : "", params ? params : "");
	if (len < 0 || (size_t)len >= sizeof(req))
		return -E2BIG;
	s = connect_to(path);
	if (s < 0)
		return s;
	ret = send(s, req, len, MSG_NOSIGNAL) == len ? 0 : -EIO;
	if (ret == 0)
		ret = read_line(s, out, size);
	close(s);
	if (ret == 0 && strstr(out, "\"error\"") != NULL)
		ret = -EREMOTEIO;
	return ret;
}

static int
set_link(const char *path, const char *method, const char *key, const char *name, bool up)
{
	char params[256], out[4096];

	snprintf(params, sizeof(params), "{\"%s\":\"%s\",\"up\":%s}", key, name,
			up ? "true" : "false");
	return admin_call(path, method, params, out, sizeof(out));
}

int
admin_member_link(const char *path, const char *member, bool up)
{
	return set_link(path, "set_member_link", "member", member, up);
}

int
admin_device_link(const char *path, const char *device, bool up)
{
	return set_link(path, "set_device_link", "device", device, up);
}

int
admin_iface_set(const char *name, bool up)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		ret = -errno;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	if (ret == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}
