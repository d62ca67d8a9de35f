// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verbs_probe: libibverbs calls on an RDMA device, through its provider,
 * for the guest's test scripts. Built against Debian unstable's libibverbs
 * (rdma-core 65) for the guest (qemu-test/build-sid-image.sh).
 *
 *   verbs_probe speed DEVICE [PORT]
 *	ibv_query_port_speed() on PORT (default 1): prints "speed <value in
 *	100 Mb/s>", or "error <errno name> <errno>".
 *   verbs_probe pd DEVICE
 *	ibv_alloc_pd(), a verb the provider leaves to libibverbs' default
 *	(ibv_create_cq()), ibv_dealloc_pd(): prints "pd ok cq <errno name>",
 *	or "error <step> <errno name> <errno>".
 *
 * Exits 0 when every call went as printed, 1 on an error, 2 on bad usage.
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
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EPROTONOSUPPORT:
		return "EPROTONOSUPPORT";
	case EINVAL:
		return "EINVAL";
	case EIO:
		return "EIO";
	default:
		return "other";
	}
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i;

	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fprintf(stderr, "%s: no such device or cannot open it\n", name);
	return ctx;
}

static int speed(struct ibv_context *ctx, uint32_t port)
{
	uint64_t value;
	int ret;

	ret = ibv_query_port_speed(ctx, port, &value);
	if (ret) {
		printf("error %s %d\n", errno_name(ret), ret);
		return 1;
	}
	printf("speed %" PRIu64 "\n", value);
	return 0;
}

static int pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int cq_err, ret;

	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		printf("error alloc_pd %s %d\n", errno_name(errno), errno);
		return 1;
	}
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cq_err = cq ? 0 : errno;
	if (cq)
		ibv_destroy_cq(cq);
	ret = ibv_dealloc_pd(pd);
	if (ret) {
		printf("error dealloc_pd %s %d\n", errno_name(ret), ret);
		return 1;
	}
	printf("pd ok cq %s\n", cq ? "created" : errno_name(cq_err));
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	int ret;

	if (argc < 3 || (strcmp(argv[1], "speed") && strcmp(argv[1], "pd"))) {
		fprintf(stderr, "usage: %s speed DEVICE [PORT] | pd DEVICE\n",
			argv[0]);
		return 2;
	}
	ctx = open_device(argv[2]);
	if (!ctx)
		return 2;
	if (!strcmp(argv[1], "speed"))
		ret = speed(ctx, argc > 3 ? strtoul(argv[3], NULL, 0) : 1);
	else
		ret = pd(ctx);
	ibv_close_device(ctx);
	return ret;
}
