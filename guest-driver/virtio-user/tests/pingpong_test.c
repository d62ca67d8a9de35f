/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vur-pingpong end to end: a server and a client process on two devices of
 * one real backend, exchanging their addresses over TCP as rdma-core's
 * ibv_{rc,uc,ud}_pingpong do, then ping-ponging with every byte checked
 * (-c); and what a failed WR, a bad peer or bad options make of it.
 *
 *   pingpong_test BACKEND VUR_PINGPONG
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "tap.h"

#define WAIT_MS 60000

static const char *backend_bin, *pingpong_bin;
static struct child backend;
static char sock0[128], sock1[128];

/* A TCP port nobody listens on now. */
static int
free_port(char *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), ret = -1;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
			getsockname(fd, (struct sockaddr *)&a, &alen) == 0)
		ret = snprintf(buf, len, "%u", ntohs(a.sin_port));
	if (fd >= 0)
		close(fd);
	return ret;
}

static void
start_backend(void)
{
	const struct child_opts o = { .n_sockets = 2 };
	int ret = child_start(&backend, backend_bin, &o);

	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	child_sock(&backend, 0, sock0, sizeof(sock0));
	child_sock(&backend, 1, sock1, sizeof(sock1));
}

/* vur-pingpong on @sock with @args (NULL-terminated) and @host (NULL: server). */
static int
start(struct child *c, const char *name, const char *sock, const char *port,
		const char *const *args, const char *host)
{
	const char *argv[24] = { pingpong_bin, "-d", sock, "-p", port };
	char log[128];
	int n = 5;

	while (*args != NULL && n < 22)
		argv[n++] = *args++;
	if (host != NULL)
		argv[n++] = host;
	snprintf(log, sizeof(log), "%s/%s.log", backend.dir, name);
	return child_exec(c, argv, log);
}

/* Exit status of @c once it ends (-1 if killed, or not within WAIT_MS). */
static int
exit_status(struct child *c)
{
	int st = child_stop(c, 0, WAIT_MS);

	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A server and a client with @args: both end with 0 and report @iters iterations. */
static void
run_pair(const char *const *args, const char *iters_line)
{
	struct child srv, cli;
	char port[8];

	free_port(port, sizeof(port));
	TAP_EQ(start(&srv, "server", sock0, port, args, NULL), 0);
	/* it prints its address once it listens */
	TAP_EQ(child_wait_log(&srv, "local address", 1, WAIT_MS), 0);
	TAP_EQ(start(&cli, "client", sock1, port, args, "127.0.0.1"), 0);
	TAP_EQ(exit_status(&cli), 0);
	TAP_EQ(exit_status(&srv), 0);
	TAP_EQ(child_log_count(&srv, "remote address:  LID 0x0000"), 1);
	TAP_EQ(child_log_count(&cli, iters_line), 1);
	TAP_EQ(child_log_count(&srv, iters_line), 1);
	if (tap_case_failed) {
		child_dump_log(&srv);
		child_dump_log(&cli);
	}
	child_cleanup(&srv);
	child_cleanup(&cli);
}

static void
rc(void)
{
	/* -L: both keep their QP 100 ms after the end, and still exit 0; -t: rdma_cm's timeout */
	static const char *const args[] = { "-c", "-n", "300", "-L", "100", "-t", "18", NULL };

	run_pair(args, "300 iters in");
}

static void
rc_events_large(void)
{
	static const char *const args[] = { "-e", "-c", "-s", "200000", "-n", "50", NULL };

	run_pair(args, "50 iters in");
}

static void
uc(void)
{
	static const char *const args[] = { "-T", "uc", "-c", "-s", "10000", "-n", "100", NULL };

	run_pair(args, "100 iters in");
}

static void
ud(void)
{
	static const char *const args[] = { "-T", "ud", "-c", "-e", "-n", "200", NULL };

	run_pair(args, "200 iters in");
}

/* UD messages larger than the port MTU are refused up front, as ibv_ud_pingpong does. */
static void
ud_above_mtu(void)
{
	static const char *const args[] = { "-T", "ud", "-s", "2048", NULL };
	struct child srv;
	char port[8];

	free_port(port, sizeof(port));
	TAP_EQ(start(&srv, "server", sock0, port, args, NULL), 0);
	TAP_EQ(exit_status(&srv), 1);
	TAP_EQ(child_log_count(&srv, "larger than the port MTU"), 1);
	child_cleanup(&srv);
}

/*
 * A failed WR is a failure: the client's 8 KiB SENDs do not fit the
 * server's 4 KiB receives, so the server's receive completes with a local
 * length error and the client's SEND with the remote invalid request NAK
 * (ROCE-DEV-SEND-5). Each names the status and exits 1, without a figure.
 */
static void
rc_peer_refuses(void)
{
	static const char *const small[] = { "-s", "4096", "-n", "5", NULL };
	static const char *const large[] = { "-s", "8192", "-n", "5", NULL };
	struct child srv, cli;
	char port[8];

	free_port(port, sizeof(port));
	TAP_EQ(start(&srv, "server", sock0, port, small, NULL), 0);
	TAP_EQ(child_wait_log(&srv, "local address", 1, WAIT_MS), 0);
	TAP_EQ(start(&cli, "client", sock1, port, large, "127.0.0.1"), 0);
	TAP_EQ(exit_status(&cli), 1);
	TAP_EQ(exit_status(&srv), 1);
	TAP_EQ(child_log_count(&cli, "Failed status remote invalid request error (7) for wr_id 2"),
			1);
	TAP_EQ(child_log_count(&srv, "Failed status local length error (1) for wr_id 1"), 1);
	TAP_EQ(child_log_count(&cli, "iters in"), 0);
	TAP_EQ(child_log_count(&srv, "iters in"), 0);
	if (tap_case_failed) {
		child_dump_log(&srv);
		child_dump_log(&cli);
	}
	child_cleanup(&srv);
	child_cleanup(&cli);
}

/* A peer that sends something else than an address: the server says so, and exits 1. */
static void
bad_peer(void)
{
	static const char *const none[] = { NULL };
	static const char garbage[52] = "0000:00001z:000000:fe80000000000000505400fffe5e0002";
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct child srv;
	char port[8];
	int fd;

	free_port(port, sizeof(port));
	a.sin_port = htons((uint16_t)atoi(port));
	TAP_EQ(start(&srv, "server", sock0, port, none, NULL), 0);
	TAP_EQ(child_wait_log(&srv, "local address", 1, WAIT_MS), 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	TAP_EQ(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	TAP_EQ(write(fd, garbage, sizeof(garbage)), (ssize_t)sizeof(garbage));
	TAP_EQ(exit_status(&srv), 1);
	TAP_EQ(child_log_count(&srv, "waiting for a client: Invalid argument"), 1);
	close(fd);
	child_cleanup(&srv);
	/* no server at all: the client says so */
	TAP_EQ(start(&srv, "client", sock1, port, none, "127.0.0.1"), 0);
	TAP_EQ(exit_status(&srv), 1);
	TAP_EQ(child_log_count(&srv, "exchanging addresses with the server"), 1);
	child_cleanup(&srv);
}

/* Bad options: a line saying which, and status 2; no device is touched. */
static void
bad_options(void)
{
	static const char *const cases[][3] = {
		{ "-s", "0", NULL },
		{ "-m", "1000", NULL },
		{ "-T", "xrc", NULL },
		{ "-i", "2", NULL },
		{ "-g", "256", NULL },
		{ "-L", "-1", NULL },
		{ "-t", "0", NULL },
		{ "-t", "32", NULL },
	};
	struct child c;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TAP_EQ(start(&c, "opts", sock0, "1", cases[i], NULL), 0);
		TAP_EQ(exit_status(&c), 2);
		TAP_EQ(child_log_count(&c, "invalid value"), 1);
		child_cleanup(&c);
	}
}

static void
backend_stops_cleanly(void)
{
	int status = child_stop(&backend, SIGTERM, WAIT_MS);

	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&backend);
	child_cleanup(&backend);
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		printf("Bail out! usage: %s BACKEND VUR_PINGPONG\n", argv[0]);
		return 1;
	}
	backend_bin = argv[1];
	pingpong_bin = argv[2];
	signal(SIGPIPE, SIG_IGN);
	TAP_RUN(start_backend);
	TAP_RUN(rc);
	TAP_RUN(rc_events_large);
	TAP_RUN(uc);
	TAP_RUN(ud);
	TAP_RUN(ud_above_mtu);
	TAP_RUN(rc_peer_refuses);
	TAP_RUN(bad_peer);
	TAP_RUN(bad_options);
	TAP_RUN(backend_stops_cleanly);
	return tap_done();
}
