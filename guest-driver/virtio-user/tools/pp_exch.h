/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The out-of-band exchange of rdma-core's ibv_*_pingpong examples, so that
 * vur-pingpong talks to them: over TCP the client sends its address, the
 * server answers with its own, the client says "done". An address is one
 * NUL-terminated text of fixed size, "LLLL:QQQQQQ:PPPPPP:GGGG...G": LID,
 * QPN and PSN in hex, and the GID as 32 hex digits in network byte order.
 * The peer is untrusted: every message is checked field by field.
 */
#ifndef VUR_PP_EXCH_H
#define VUR_PP_EXCH_H

#include <stdint.h>

#define PP_MSG_SIZE sizeof("0000:000000:000000:00000000000000000000000000000000")
#define PP_DONE     "done"

struct pp_dest {
	uint16_t lid; /* 0 on RoCE */
	uint32_t qpn; /* 24 bits */
	uint32_t psn; /* 24 bits */
	uint8_t gid[16];
};

/*
 * The GID a port has before the guest adds any: fe80::/64 with the
 * modified EUI-64 of @mac, as Linux makes it; the examples' default -g 0.
 */
void pp_link_local_gid(const uint8_t mac[6], uint8_t gid[16]);

/* @d as the message the examples send. */
void pp_format(const struct pp_dest *d, char msg[PP_MSG_SIZE]);

/* A received message: 0, or -EINVAL if it is not exactly one address. */
int pp_parse(const char msg[PP_MSG_SIZE], struct pp_dest *d);

/* Client: connect to @host:@port, send @mine, receive @peer, say done. 0 or -errno. */
int pp_client_exchange(const char *host, const char *port, const struct pp_dest *mine,
		struct pp_dest *peer);

/*
 * A TCP connection to @host:@port, for a caller that keeps its own exchange
 * on it (vur-wire): the connected socket, or -errno.
 */
int pp_client_connect(const char *host, const char *port);

/* Server: a socket listening on @port, or -errno. */
int pp_server_listen(const char *port);

/* Server: accept one client on @lfd (then closed) and read its address. Returns its socket. */
int pp_server_accept(int lfd, struct pp_dest *peer);

/* Server: answer on @fd with @mine, wait for "done", close @fd. 0 or -errno. */
int pp_server_reply(int fd, const struct pp_dest *mine);

#endif /* VUR_PP_EXCH_H */
