// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A guest tool for scenario 8: a user context and a PD on a uverbs device
 * through the kernel's write() interface of <rdma/ib_user_verbs.h>, without
 * libibverbs (no rdma-core provider for the device yet). It opens the
 * device, sends GET_CONTEXT and ALLOC_PD, prints "VUR-WAIT pd_allocated",
 * waits for a line on stdin (the host checks the backend's PD count), then
 * sends DEALLOC_PD and closes. Results as VUR-RESULT lines.
 *
 * Built statically on the host (the guest has no libc):
 *   gcc -static -O2 -o uverbs_pd uverbs_pd.c
 *   uverbs_pd /dev/infiniband/uverbs0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

/* One legacy write() command: header, command, response through a pointer. */
static int uverbs_cmd(int fd, uint32_t command, void *cmd, size_t cmd_len,
		      size_t resp_len)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		char cmd[64];
	} buf;
	size_t len = sizeof(buf.hdr) + cmd_len;
	ssize_t n;

	if (cmd_len > sizeof(buf.cmd) || len % 4 || resp_len % 4)
		return EINVAL;
	buf.hdr.command = command;
	buf.hdr.in_words = len / 4;
	buf.hdr.out_words = resp_len / 4;
	memcpy(buf.cmd, cmd, cmd_len);
	n = write(fd, &buf, len);
	if (n < 0)
		return errno;
	return n == (ssize_t)len ? 0 : EIO;
}

static void result(const char *name, int err, const char *detail)
{
	printf("VUR-RESULT %s %s %s%s%s\n", name, err ? "fail" : "ok", detail,
	       err ? ": " : "", err ? strerror(err) : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct ib_uverbs_alloc_pd_resp pd_resp = { 0 };
	struct ib_uverbs_get_context ctx = { 0 };
	struct ib_uverbs_alloc_pd pd = { 0 };
	struct ib_uverbs_dealloc_pd dpd = { 0 };
	char line[64], detail[64];
	int fd, err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s /dev/infiniband/uverbsN\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	result("uverbs_open", fd < 0 ? errno : 0, argv[1]);
	if (fd < 0)
		return 1;

	ctx.response = (uintptr_t)&ctx_resp;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &ctx, sizeof(ctx),
			 sizeof(ctx_resp));
	snprintf(detail, sizeof(detail), "%u completion vectors",
		 ctx_resp.num_comp_vectors);
	result("uverbs_get_context", err, detail);
	if (err)
		return 1;

	pd.response = (uintptr_t)&pd_resp;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pd, sizeof(pd),
			 sizeof(pd_resp));
	snprintf(detail, sizeof(detail), "handle %u", pd_resp.pd_handle);
	result("uverbs_alloc_pd", err, detail);
	if (err)
		return 1;

	printf("VUR-WAIT pd_allocated\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || strncmp(line, "go", 2))
		result("step_pd_allocated", EINTR, "no go");

	dpd.pd_handle = pd_resp.pd_handle;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd), 0);
	result("uverbs_dealloc_pd", err, "");
	close(fd);
	return err ? 1 : 0;
}
