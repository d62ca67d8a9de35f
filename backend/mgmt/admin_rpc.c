/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin RPC's transport: the unix socket, the connections, request
 * framing and the JSON-RPC 2.0 envelope. The methods are in admin_methods.c.
 *
 * Connections live in a fixed array, so that an event the loop picked up
 * for a connection closed earlier in the same batch finds a valid (free or
 * reused, non-blocking) slot rather than freed memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "common/log.h"
#include "mgmt/admin_methods.h"
#include "mgmt/admin_rpc.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_mgmt, mgmt, INFO);

static void
conn_close(struct vur_admin_conn *c)
{
	if (c->watch.fd < 0)
		return;
	vur_event_loop_unwatch(c->admin->loop, &c->watch);
	close(c->watch.fd);
	c->watch.fd = -1;
	c->len = 0;
}

/* Replies are small; a client that does not read them loses its connection. */
static int
send_reply(struct vur_admin_conn *c, json_t *reply)
{
	char *text = json_dumps(reply, JSON_COMPACT);
	size_t len, off = 0;
	ssize_t n;

	if (text == NULL)
		return -ENOMEM;
	len = strlen(text);
	text[len] = '\n'; /* the NUL is not sent; a newline eases line-based clients */
	while (off <= len) {
		n = send(c->watch.fd, text + off, len + 1 - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += n;
	}
	free(text);
	return off == len + 1 ? 0 : -EIO;
}

static json_t *
envelope(json_t *id, json_t *result, json_t *error)
{
	json_t *r = json_pack("{s:s}", "jsonrpc", "2.0");

	json_object_set(r, "id", id != NULL ? id : json_null());
	if (error != NULL)
		json_object_set_new(r, "error", error);
	else
		json_object_set_new(r, "result", result);
	return r;
}

/* One parsed request: returns the reply, or NULL for a notification. */
static json_t *
handle(struct vur_admin *a, json_t *req)
{
	json_t *id = NULL, *params = NULL, *result = NULL, *error = NULL;
	const char *version = NULL, *method = NULL;
	json_error_t err;

	a->requests++;
	if (json_unpack_ex(req, &err, JSON_STRICT, "{s:s, s:s, s?o, s?o}", "jsonrpc", &version,
			    "method", &method, "params", &params, "id", &id) != 0) {
		error = vur_admin_error(VUR_RPC_INVALID_REQUEST, "invalid request: %s", err.text);
		id = json_is_object(req) ? json_object_get(req, "id") : NULL;
	} else if (strcmp(version, "2.0") != 0) {
		error = vur_admin_error(VUR_RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	} else {
		vur_admin_call(a, method, params, &result, &error);
	}
	if (error != NULL) {
		a->errors++;
		VUR_LOG(mgmt, INFO, "admin request %s refused: %s", method ? method : "(none)",
				json_string_value(json_object_get(error, "message")));
	}
	if (id == NULL && error == NULL) { /* a notification: no reply */
		json_decref(result);
		return NULL;
	}
	return envelope(id, result, error);
}

int
vur_admin_serve_buffer(struct vur_admin_conn *c)
{
	json_error_t err;
	json_t *req, *reply;
	int ret = 0;

	while (c->len > 0 && ret == 0) {
		req = json_loadb(c->buf, c->len, JSON_DISABLE_EOF_CHECK, &err);
		if (req == NULL && json_error_code(&err) == json_error_premature_end_of_input &&
				c->len < sizeof(c->buf))
			return 0; /* wait for the rest */
		if (req == NULL) {
			/* The stream cannot be resynchronised: answer, then close. */
			c->admin->errors++;
			reply = envelope(NULL, NULL,
					vur_admin_error(VUR_RPC_PARSE_ERROR, "parse error: %s",
							c->len == sizeof(c->buf)
									? "request too long"
									: err.text));
			send_reply(c, reply);
			json_decref(reply);
			return -EINVAL;
		}
		memmove(c->buf, c->buf + err.position, c->len - err.position);
		c->len -= err.position;
		/* Whitespace between requests is not a request. */
		while (c->len > 0 && strchr(" \t\r\n", c->buf[0]) != NULL)
			memmove(c->buf, c->buf + 1, --c->len);
		reply = handle(c->admin, req);
		json_decref(req);
		if (reply != NULL)
			ret = send_reply(c, reply);
		json_decref(reply);
	}
	return ret;
}

static void
on_conn(int fd, void *arg)
{
	struct vur_admin_conn *c = arg;
	ssize_t n;

	if (c->watch.fd != fd)
		return; /* closed earlier in this batch of events */
	n = recv(fd, c->buf + c->len, sizeof(c->buf) - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->len += n;
	if (vur_admin_serve_buffer(c) != 0)
		conn_close(c);
}

static void
on_accept(int fd, void *arg)
{
	struct vur_admin *a = arg;
	struct vur_admin_conn *c = NULL;
	int s;

	s = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0)
		return;
	for (unsigned int i = 0; i < VUR_ADMIN_MAX_CONNS && c == NULL; i++)
		if (a->conns[i].watch.fd < 0)
			c = &a->conns[i];
	if (c == NULL) {
		VUR_LOG(mgmt, WARNING, "%s: %d connections already; refusing one", a->path,
				VUR_ADMIN_MAX_CONNS);
		close(s);
		return;
	}
	c->len = 0;
	c->watch.fd = s;
	if (vur_event_loop_watch(a->loop, &c->watch) != 0) {
		close(s);
		c->watch.fd = -1;
	}
}

/* Whether a backend answers on @path. */
static bool
socket_alive(const struct sockaddr_un *addr)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (s < 0)
		return false;
	alive = connect(s, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(s);
	return alive;
}

/*
 * Listen on @path. The socket is bound under a temporary name and renamed
 * into place once it listens, so whoever sees the path (a test, systemd, a
 * script waiting for the file) can connect at once: bound in place, the
 * path exists before listen() and a connect in between is refused.
 */
static int
listen_on(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char tmp[sizeof(addr.sun_path)];
	int s, ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	if (socket_alive(&addr))
		return -EADDRINUSE; /* another backend's: a dead one's is replaced */
	/* a path too long for the suffix is bound in place, as it always was */
	ret = snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	if (ret < 0 || (size_t)ret >= sizeof(tmp))
		strcpy(tmp, path);
	strcpy(addr.sun_path, tmp);
	unlink(tmp);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
			listen(s, VUR_ADMIN_MAX_CONNS) != 0 ||
			(strcmp(tmp, path) != 0 && rename(tmp, path) != 0)) {
		ret = -errno;
		unlink(tmp);
		close(s);
		return ret;
	}
	return s;
}

int
vur_admin_start(struct vur_admin *a, const char *path, struct vur_event_loop *loop,
		struct vur_port_mgr *pm, struct vur_dev_mgr *dm)
{
	int s, ret;

	memset(a, 0, sizeof(*a));
	if (strlen(path) >= sizeof(a->path))
		return -ENAMETOOLONG;
	strcpy(a->path, path);
	a->loop = loop;
	a->pm = pm;
	a->dm = dm;
	for (unsigned int i = 0; i < VUR_ADMIN_MAX_CONNS; i++) {
		a->conns[i].admin = a;
		a->conns[i].watch = (struct vur_event_watch){
			.fd = -1, .cb = on_conn, .arg = &a->conns[i]
		};
	}
	s = listen_on(path);
	if (s < 0) {
		a->listen.fd = -1;
		return s;
	}
	a->listen = (struct vur_event_watch){ .fd = s, .cb = on_accept, .arg = a };
	ret = vur_event_loop_watch(loop, &a->listen);
	if (ret != 0) {
		close(s);
		unlink(path);
		a->listen.fd = -1;
		return ret;
	}
	VUR_LOG(mgmt, INFO, "admin RPC on %s", path);
	return 0;
}

void
vur_admin_stop(struct vur_admin *a)
{
	if (a->listen.fd < 0)
		return; /* never listened: no connection either */
	for (unsigned int i = 0; i < VUR_ADMIN_MAX_CONNS; i++) {
		if (a->conns[i].watch.fd >= 0)
			close(a->conns[i].watch.fd);
		a->conns[i].watch.fd = -1;
	}
	close(a->listen.fd);
	a->listen.fd = -1;
	unlink(a->path);
}
