// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_speed DEVICE [PORT]: ibv_query_port_speed() on a port of an RDMA
 * device, through libibverbs and the device's provider. Prints
 * "speed <value in 100 Mb/s>" and exits 0, or "error <errno name> <errno>"
 * and exits 1. Built against Debian unstable's libibverbs (rdma-core 65)
 * for the guest (qemu-test/build-sid-image.sh).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static const char *errno_name(int err)
{
	switch (err) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	uint32_t port = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 1;
	uint64_t speed;
	int i, ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE [PORT]\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("ibv_get_device_list");
		return 2;
	}
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "%s: no such device or cannot open it\n", argv[1]);
		return 2;
	}
	ret = ibv_query_port_speed(ctx, port, &speed);
	if (ret)
		printf("error %s %d\n", errno_name(ret), ret);
	else
		printf("speed %" PRIu64 "\n", speed);
	ibv_close_device(ctx);
	return ret ? 1 : 0;
}
