// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A guest tool for scenario 10: verbs on a uverbs device through the
 * kernel's write() interface of <rdma/ib_user_verbs.h>, without libibverbs
 * (there is no rdma-core provider for the device yet).
 *
 *   uverbs_tool pd DEV       GET_CONTEXT and ALLOC_PD; prints
 *                            "VUR-WAIT pd_allocated" and waits for a line
 *                            on stdin (the host counts the backend's PDs),
 *                            then DEALLOC_PD. Results as VUR-RESULT lines.
 *   uverbs_tool events DEV   GET_CONTEXT, then prints each asynchronous
 *                            event of the context as "EVENT <type> <element>"
 *                            until killed: what ibv_get_async_event() would
 *                            return (type 20 is the speed change).
 *
 * Built statically on the host (the guest has no libc):
 *   gcc -static -O2 -o uverbs_tool uverbs_tool.c
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

/* Open @path and get a user context; the fd, or -1 after a failed result. */
static int open_context(const char *path, const char *tag,
			struct ib_uverbs_get_context_resp *resp)
{
	struct ib_uverbs_get_context ctx = { 0 };
	char name[64], detail[64];
	int fd, err;

	fd = open(path, O_RDWR | O_CLOEXEC);
	snprintf(name, sizeof(name), "%s_uverbs_open", tag);
	result(name, fd < 0 ? errno : 0, path);
	if (fd < 0)
		return -1;
	ctx.response = (uintptr_t)resp;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &ctx, sizeof(ctx),
			 sizeof(*resp));
	snprintf(name, sizeof(name), "%s_uverbs_get_context", tag);
	snprintf(detail, sizeof(detail), "%u completion vectors",
		 resp->num_comp_vectors);
	result(name, err, detail);
	if (err) {
		close(fd);
		return -1;
	}
	return fd;
}

static int pd(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct ib_uverbs_alloc_pd_resp pd_resp = { 0 };
	struct ib_uverbs_alloc_pd pd = { 0 };
	struct ib_uverbs_dealloc_pd dpd = { 0 };
	char line[64], detail[64];
	int fd, err;

	fd = open_context(path, "pd", &ctx_resp);
	if (fd < 0)
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

static int events(const char *path)
{
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct ib_uverbs_async_event_desc ev;
	ssize_t n;
	int fd;

	fd = open_context(path, "events", &ctx_resp);
	if (fd < 0)
		return 1;
	for (;;) {
		n = read(ctx_resp.async_fd, &ev, sizeof(ev));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(ev)) {
			printf("EVENT-ERROR %zd %s\n", n, strerror(errno));
			return 1;
		}
		printf("EVENT %u %llu\n", ev.event_type,
		       (unsigned long long)ev.element);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pd"))
		return pd(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "events"))
		return events(argv[2]);
	fprintf(stderr, "usage: %s pd|events /dev/infiniband/uverbsN\n",
		argv[0]);
	return 2;
}
