/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"

#define MAX_ARGS    48
#define MAX_SOCKETS 8

/* In the child: log to @log, die with the parent, become @argv[0]. */
static void
exec_child(const char *log, pid_t parent, const char *const *argv)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(126);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

void
child_sock(const struct child *c, unsigned int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s/vhost-rdma%u", c->dir, i);
}

int
child_start(struct child *c, const char *bin, const struct child_opts *o)
{
	static int serial;
	static char socks[MAX_SOCKETS][96];
	const char *argv[MAX_ARGS];
	const char *const *a;
	pid_t parent = getpid();
	int n = 0;

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->pidfd = -1;
	c->n_sockets = o->n_sockets > 0 ? o->n_sockets : 1;
	if (c->n_sockets > MAX_SOCKETS)
		return -EINVAL;
	strcpy(c->dir, "/tmp/vur-user-XXXXXX");
	if (mkdtemp(c->dir) == NULL)
		return -errno;
	child_sock(c, 0, c->sock, sizeof(c->sock));
	snprintf(c->log, sizeof(c->log), "%s/log", c->dir);
	snprintf(c->admin, sizeof(c->admin), "%s/admin.sock", c->dir);
	snprintf(c->prefix, sizeof(c->prefix), "vuruser%d_%d", (int)parent, serial++);

	argv[n++] = bin;
	argv[n++] = "--no-huge";
	/* the caller's -m replaces ours: DPDK 25.11's EAL refuses a second one */
	if (!(o->eal_args != NULL && o->eal_args[0] != NULL && strcmp(o->eal_args[0], "-m") == 0)) {
		argv[n++] = "-m";
		argv[n++] = "128";
	}
	argv[n++] = "--no-pci";
	argv[n++] = "--file-prefix";
	argv[n++] = c->prefix;
	argv[n++] = "--log-level";
	argv[n++] = "lib.eal:error";
	for (a = o->eal_args; a != NULL && *a != NULL && n < MAX_ARGS - 1; a++)
		argv[n++] = *a;
	argv[n++] = "--";
	for (unsigned int i = 0; i < c->n_sockets && n < MAX_ARGS - 2; i++) {
		child_sock(c, i, socks[i], sizeof(socks[i]));
		argv[n++] = "-s";
		argv[n++] = socks[i];
	}
	/* Never the shared default admin socket: tests run in parallel. */
	argv[n++] = "--admin-socket";
	argv[n++] = c->admin;
	for (a = o->app_args; a != NULL && *a != NULL && n < MAX_ARGS - 1; a++)
		argv[n++] = *a;
	argv[n] = NULL;

	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0)
		exec_child(c->log, parent, argv);
	c->pidfd = pidfd_open(c->pid, 0);
	return c->pidfd < 0 ? -errno : 0;
}

int
child_start_backend(struct child *c, const char *bin, const char *const *app_args)
{
	const struct child_opts o = { .app_args = app_args, .n_sockets = 1 };

	return child_start(c, bin, &o);
}

/* Wait for an inotify event (0), the child's exit (-ECHILD) or the deadline (-ETIMEDOUT). */
static int
wait_event(const struct child *c, int ino, int64_t deadline)
{
	struct pollfd pfd[2] = { { .fd = ino, .events = POLLIN },
		{ .fd = c->pidfd, .events = POLLIN } };
	char buf[4096];
	int64_t left = deadline - vuser_now_ms();

	if (left <= 0)
		return -ETIMEDOUT;
	if (poll(pfd, 2, (int)left) <= 0)
		return -ETIMEDOUT;
	if (pfd[0].revents & POLLIN)
		while (read(ino, buf, sizeof(buf)) > 0)
			;
	return (pfd[1].revents & POLLIN) ? -ECHILD : 0;
}

static bool
all_sockets_exist(const struct child *c)
{
	struct stat st;
	char sock[96];

	for (unsigned int i = 0; i < c->n_sockets; i++) {
		child_sock(c, i, sock, sizeof(sock));
		if (stat(sock, &st) != 0 || !S_ISSOCK(st.st_mode))
			return false;
	}
	/*
	 * The admin socket comes last, once the uplinks are up: the device
	 * sockets serve before that (slower with DPDK 25.11's net_tap).
	 */
	return stat(c->admin, &st) == 0 && S_ISSOCK(st.st_mode);
}

int
child_wait_socket(struct child *c, int timeout_ms)
{
	int64_t deadline = vuser_now_ms() + timeout_ms;
	int ino, ret;

	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0)
		return -errno;
	/* Watch first, then look: a socket made in between is not missed. */
	inotify_add_watch(
			ino, c->dir, IN_CREATE | IN_MOVED_TO); /* the admin socket is renamed in */
	for (;;) {
		if (all_sockets_exist(c)) {
			ret = 0;
			break;
		}
		ret = wait_event(c, ino, deadline);
		if (ret < 0)
			break;
	}
	close(ino);
	return ret;
}

int
child_log_count(const struct child *c, const char *needle)
{
	char *text = NULL, *p;
	size_t size = 0;
	FILE *f, *mem;
	char buf[4096];
	size_t n;
	int count = 0;

	f = fopen(c->log, "r");
	if (f == NULL)
		return 0;
	mem = open_memstream(&text, &size);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	fclose(mem);
	for (p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		count++;
	free(text);
	return count;
}

int
child_wait_log(const struct child *c, const char *needle, int count, int timeout_ms)
{
	int64_t deadline = vuser_now_ms() + timeout_ms;
	int ino, ret;

	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0)
		return -errno;
	inotify_add_watch(ino, c->log, IN_MODIFY);
	for (;;) {
		if (child_log_count(c, needle) >= count) {
			ret = 0;
			break;
		}
		ret = wait_event(c, ino, deadline);
		if (ret == -ECHILD)
			ret = child_log_count(c, needle) >= count ? 0 : -ETIMEDOUT;
		if (ret < 0)
			break;
	}
	close(ino);
	return ret;
}

int
child_exec(struct child *c, const char *const *argv, const char *log)
{
	pid_t parent = getpid();
	int fd;

	memset(c, 0, sizeof(*c));
	c->pidfd = -1;
	snprintf(c->log, sizeof(c->log), "%s", log);
	/* there before anyone waits on it: child_wait_log() watches the file */
	fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0)
		exec_child(c->log, parent, argv);
	c->pidfd = pidfd_open(c->pid, 0);
	return c->pidfd < 0 ? -errno : 0;
}

int
child_stop(struct child *c, int sig, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->pidfd, .events = POLLIN };
	int status = 0;

	if (c->pid < 0)
		return -ECHILD;
	if (sig != 0)
		kill(c->pid, sig);
	if (poll(&pfd, 1, timeout_ms) <= 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &status, 0);
		c->pid = -1;
		return -ETIMEDOUT;
	}
	waitpid(c->pid, &status, 0);
	c->pid = -1;
	return status;
}

void
child_dump_log(const struct child *c)
{
	char line[512];
	FILE *f = fopen(c->log, "r");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		printf("#   %s%s", line, strchr(line, '\n') != NULL ? "" : "\n");
	fclose(f);
}

/* EAL's runtime directory of the prefix (eal_create_runtime_dir() in DPDK 22.11). */
static void
remove_runtime_dir(const struct child *c)
{
	const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int dfd;

	snprintf(path, sizeof(path), "%s/dpdk/%s", base != NULL ? base : "/tmp", c->prefix);
	d = opendir(path);
	if (d == NULL)
		return;
	dfd = dirfd(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dfd, e->d_name, 0);
	closedir(d);
	rmdir(path);
}

void
child_cleanup(struct child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
	}
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	if (c->prefix[0] != '\0')
		remove_runtime_dir(c);
	if (c->dir[0] != '\0') {
		for (unsigned int i = 0; i < c->n_sockets; i++) {
			char sock[96];

			child_sock(c, i, sock, sizeof(sock));
			unlink(sock);
		}
		unlink(c->log);
		unlink(c->admin);
		rmdir(c->dir);
	} else if (c->log[0] != '\0') {
		unlink(c->log);
	}
}
