/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin socket's requests as any local client may send them: the
 * framing of unframed JSON one request after another (admin_rpc.c), the
 * JSON-RPC 2.0 envelope, every method's strict parameters
 * (admin_methods.c), over a port manager with no device and no uplink.
 *
 * An input: u8 chunk size (1 to 256), then the bytes a client sends,
 * delivered in chunks of that size as recv() would, each served at once;
 * the replies are read back and dropped. A connection the backend closes
 * ends the input.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>

#include "common/log.h"
#include "mgmt/admin_rpc.h"
#include "port/port_mgr.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the event loop's log type, which app/main.c registers in the backend */
RTE_LOG_REGISTER_SUFFIX(vur_logtype_app, app, INFO);

static struct vur_port_mgr pm;
static struct vur_admin admin;
static int fds[2]; /* the backend's end, the client's */

/* The client reads every reply: a full socket must not decide what the backend does. */
static void
drain(void)
{
	char buf[4096];

	while (recv(fds[1], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	/* refusals are logged per request: not what is measured */
	rte_log_set_global_level(RTE_LOG_EMERG);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0 ||
			pthread_mutex_init(&pm.lock, NULL) != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vur_admin_conn *c = &admin.conns[0];
	size_t chunk, n;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] + 1;
	data++;
	size--;
	memset(&admin, 0, sizeof(admin));
	admin.pm = &pm;
	c->admin = &admin;
	c->watch.fd = fds[0];
	while (size > 0) {
		n = RTE_MIN(RTE_MIN(chunk, size), sizeof(c->buf) - c->len);
		if (n == 0)
			abort(); /* a full buffer the backend neither served nor refused */
		memcpy(c->buf + c->len, data, n);
		c->len += n;
		data += n;
		size -= n;
		if (vur_admin_serve_buffer(c) != 0)
			break; /* the backend closes the connection */
		drain();
	}
	drain();
	return 0;
}
