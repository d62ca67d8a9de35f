/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The backend as a child process of a test: started on a private EAL file
 * prefix without hugepages or PCI, its stdout and stderr in a log file, and
 * waited for through inotify and a pidfd (never by sleeping in a loop). It
 * dies with the test (PR_SET_PDEATHSIG), so a test killed by its timeout
 * leaves no backend behind.
 */
#ifndef VUSER_TEST_CHILD_H
#define VUSER_TEST_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int pidfd;
	char prefix[64]; /* EAL --file-prefix */
	char dir[64];
	char sock[96];
	char log[96];
	char admin[96]; /* the backend's admin RPC socket */
	unsigned int n_sockets;
};

/* What child_start() runs: extra EAL arguments, sockets, application arguments. */
struct child_opts {
	const char *const *eal_args; /* NULL-terminated, may be NULL; before "--" */
	const char *const *app_args; /* NULL-terminated, may be NULL; after the sockets */
	unsigned int n_sockets;      /* "-s DIR/vhost-rdmaI" for I < n (0 means 1) */
};

/* Start @bin with @o in a fresh temporary directory. */
int child_start(struct child *c, const char *bin, const struct child_opts *o);

/* The path of socket @i (0 is @c->sock) into @buf. */
void child_sock(const struct child *c, unsigned int i, char *buf, size_t size);

/*
 * Start @bin serving one socket in a fresh temporary directory, with
 * @app_args (NULL-terminated, may be NULL) after "-s SOCKET".
 */
int child_start_backend(struct child *c, const char *bin, const char *const *app_args);

/*
 * Run any program (@argv, NULL-terminated, @argv[0] a path) the same way,
 * its output in @log: for tools the tests drive beside the backend.
 */
int child_exec(struct child *c, const char *const *argv, const char *log);

/*
 * Wait for every socket to appear, the devices' and the admin RPC's (made
 * once the uplinks are up): 0, -ETIMEDOUT, or -ECHILD if the child died.
 */
int child_wait_socket(struct child *c, int timeout_ms);

/* How often @needle occurs in the log. */
int child_log_count(const struct child *c, const char *needle);

/* Wait until @needle occurs at least @count times: 0 or -ETIMEDOUT. */
int child_wait_log(const struct child *c, const char *needle, int count, int timeout_ms);

/*
 * Send @sig (0: none, wait for it to end) and reap the child: its wait
 * status, or -ETIMEDOUT (then killed).
 */
int child_stop(struct child *c, int sig, int timeout_ms);

/* Print the log as TAP comments. */
void child_dump_log(const struct child *c);

/* Kill the child if it still runs and remove its files and EAL runtime directory. */
void child_cleanup(struct child *c);

#endif /* VUSER_TEST_CHILD_H */
