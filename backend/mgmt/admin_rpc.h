/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin RPC: JSON-RPC 2.0 over a unix stream socket, in the manner of
 * SPDK's rpc.py (requests need no framing: one JSON object after another on
 * a connection; each gets one reply object). Served on the control thread,
 * so that every action is serialised with link events and control queues.
 * vhost-user-rdma-ctl is its command-line client.
 */
#ifndef VUR_ADMIN_RPC_H
#define VUR_ADMIN_RPC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event_loop.h"

struct vur_dev_mgr;
struct vur_port_mgr;

#define VUR_ADMIN_MAX_CONNS   8
#define VUR_ADMIN_MAX_REQUEST 4096

struct vur_admin;

struct vur_admin_conn {
	struct vur_admin *admin;
	struct vur_event_watch watch; /* fd -1: a free slot */
	size_t len;
	char buf[VUR_ADMIN_MAX_REQUEST];
};

struct vur_admin {
	char path[PATH_MAX];
	struct vur_event_loop *loop;
	struct vur_port_mgr *pm;
	struct vur_dev_mgr *dm; /* NULL: devices cannot be created or deleted */
	struct vur_event_watch listen;
	struct vur_admin_conn conns[VUR_ADMIN_MAX_CONNS];
	uint64_t requests;
	uint64_t errors;
};

/*
 * Listen on @path (a stale socket file left by a dead backend is replaced;
 * one a live backend answers on is not). Returns 0 or a negative errno.
 */
int vur_admin_start(struct vur_admin *a, const char *path, struct vur_event_loop *loop,
		struct vur_port_mgr *pm, struct vur_dev_mgr *dm);

/*
 * Parse and answer every complete request in @c's buffer, replies to its
 * socket; what is left is the start of the next request. Returns 0, or a
 * negative errno when the connection must close (a parse error answered, a
 * reply not sent). The connection's receive path, and fuzz/fuzz_admin.c.
 */
int vur_admin_serve_buffer(struct vur_admin_conn *c);

/* Close every connection and the socket; call once the control thread stopped. */
void vur_admin_stop(struct vur_admin *a);

#endif /* VUR_ADMIN_RPC_H */
