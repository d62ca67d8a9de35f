/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user messaging against a scripted peer: the test writes the
 * backend's bytes into one end of a socketpair before the request, reads
 * what the frontend sent, and checks that every malformed reply is refused
 * with -EPROTO (and the connection marked broken) instead of being trusted.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "vhost_user_msg.h"
#include "vur_user.h"

static int peer = -1;
static struct vuser_conn conn;

static void
setup(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	memset(&conn, 0, sizeof(conn));
	conn.sock = sv[0];
	conn.timeout_ms = 200;
	conn.name = "test";
	peer = sv[1];
}

static void
teardown(void)
{
	close(conn.sock);
	close(peer);
	peer = -1;
}

/* Queue a reply from the backend: header fields, then @size payload bytes. */
static void
peer_reply(uint32_t request, uint32_t flags, uint32_t size, const void *payload, size_t len)
{
	uint32_t hdr[3] = { request, flags, size };

	TAP_EQ(write(peer, hdr, sizeof(hdr)), sizeof(hdr));
	if (len > 0)
		TAP_EQ(write(peer, payload, len), len);
}

static void
peer_reply_u64(uint32_t request, uint64_t val)
{
	peer_reply(request, VHOST_USER_VERSION | VHOST_USER_REPLY, 8, &val, 8);
}

/* Read what the frontend sent: one message, and how many descriptors came with it. */
static int
peer_read(struct vuser_msg *msg, unsigned int *n_fds)
{
	int fds[VHOST_USER_MAX_FDS];
	const char *why;
	unsigned int i;
	int ret;

	ret = vuser_msg_recv(peer, 200, msg, fds, VHOST_USER_MAX_FDS, n_fds, &why);
	for (i = 0; i < *n_fds; i++)
		close(fds[i]);
	return ret;
}

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d != NULL && readdir(d) != NULL)
		n++;
	if (d != NULL)
		closedir(d);
	return n;
}

static void
get_u64_ok(void)
{
	struct vuser_msg msg;
	unsigned int n_fds;
	uint64_t val = 0;

	setup();
	peer_reply_u64(VHOST_USER_GET_FEATURES, 0x1234);
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), 0);
	TAP_EQ(val, 0x1234);
	TAP_EQ(peer_read(&msg, &n_fds), 0);
	TAP_EQ(msg.request, VHOST_USER_GET_FEATURES);
	TAP_EQ(msg.flags, VHOST_USER_VERSION);
	TAP_EQ(msg.size, 0);
	teardown();
}

static void
reply_to_other_request(void)
{
	uint64_t val = 0;

	setup();
	peer_reply_u64(VHOST_USER_GET_PROTOCOL_FEATURES, 0x1234);
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EPROTO);
	TAP_EQ(val, 0);
	TAP_CHECK(conn.broken);
	/* Out of step: nothing more is sent. */
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EIO);
	teardown();
}

static void
reply_without_reply_flag(void)
{
	uint64_t val = 0, v = 1;

	setup();
	peer_reply(VHOST_USER_GET_FEATURES, VHOST_USER_VERSION, 8, &v, 8);
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EPROTO);
	teardown();
}

static void
reply_of_wrong_size(void)
{
	uint32_t v = 1;
	uint64_t val = 0;

	setup();
	peer_reply(VHOST_USER_GET_FEATURES, VHOST_USER_VERSION | VHOST_USER_REPLY, 4, &v, 4);
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EPROTO);
	TAP_EQ(val, 0);
	teardown();
}

static void
reply_of_other_version(void)
{
	uint64_t val = 0, v = 1;

	setup();
	peer_reply(VHOST_USER_GET_FEATURES, 0x2 | VHOST_USER_REPLY, 8, &v, 8);
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EPROTO);
	teardown();
}

/* A size larger than any payload must not make the frontend read past its buffer. */
static void
reply_claims_huge_payload(void)
{
	uint8_t junk[64] = { 0 };
	uint64_t val = 0;

	setup();
	peer_reply(VHOST_USER_GET_FEATURES, VHOST_USER_VERSION | VHOST_USER_REPLY, 0xffffffff, junk,
			sizeof(junk));
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EPROTO);
	teardown();
}

/* Descriptors with a reply are closed, not kept. */
static void
reply_with_fd(void)
{
	struct vuser_msg msg = { .request = VHOST_USER_GET_FEATURES,
		.flags = VHOST_USER_VERSION | VHOST_USER_REPLY,
		.size = 8 };
	uint64_t val = 0;
	int efd, before;

	setup();
	efd = eventfd(0, EFD_CLOEXEC);
	TAP_EQ(vuser_msg_send(peer, &msg, &efd, 1), 0);
	close(efd);
	before = count_fds();
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -EPROTO);
	TAP_EQ(count_fds(), before);
	teardown();
}

static void
no_reply_times_out(void)
{
	uint64_t val = 0;

	setup();
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -ETIMEDOUT);
	TAP_CHECK(conn.broken);
	teardown();
}

static void
truncated_reply_times_out(void)
{
	uint32_t hdr[3] = { VHOST_USER_GET_FEATURES, VHOST_USER_VERSION | VHOST_USER_REPLY, 8 };
	uint64_t val = 0;

	setup();
	TAP_EQ(write(peer, hdr, sizeof(hdr)), sizeof(hdr)); /* no payload follows */
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -ETIMEDOUT);
	teardown();
}

static void
peer_closed(void)
{
	uint64_t val = 0;

	setup();
	close(peer);
	peer = -1;
	TAP_EQ(vuser_req_get_u64(&conn, VHOST_USER_GET_FEATURES, &val), -ECONNRESET);
	teardown();
}

/* A refused request fails alone: the stream is still in step. */
static void
reply_ack_failure(void)
{
	struct vuser_msg msg;
	unsigned int n_fds;

	setup();
	conn.reply_ack = true;
	peer_reply_u64(VHOST_USER_SET_FEATURES, 1);
	TAP_EQ(vuser_req_set_u64(&conn, VHOST_USER_SET_FEATURES, 0x5), -EIO);
	TAP_CHECK(!conn.broken);
	TAP_EQ(peer_read(&msg, &n_fds), 0);
	TAP_EQ(msg.flags, VHOST_USER_VERSION | VHOST_USER_NEED_REPLY);
	TAP_EQ(msg.payload.u64, 0x5);
	peer_reply_u64(VHOST_USER_SET_FEATURES, 0);
	TAP_EQ(vuser_req_set_u64(&conn, VHOST_USER_SET_FEATURES, 0x5), 0);
	teardown();
}

/* Without REPLY_ACK a request without a reply waits for nothing. */
static void
no_ack_without_reply_ack(void)
{
	struct vuser_msg msg;
	unsigned int n_fds;

	setup();
	TAP_EQ(vuser_req_no_payload(&conn, VHOST_USER_SET_OWNER), 0);
	TAP_EQ(peer_read(&msg, &n_fds), 0);
	TAP_EQ(msg.request, VHOST_USER_SET_OWNER);
	TAP_EQ(msg.flags, VHOST_USER_VERSION);
	teardown();
}

static void
mem_table_carries_fd(void)
{
	struct vuser_mem_region r = { 0x100000000ULL, 1 << 20, 0x7f0000000000ULL, 0 };
	struct vuser_msg msg;
	unsigned int n_fds = 0;
	int efd;

	setup();
	efd = eventfd(0, EFD_CLOEXEC);
	TAP_EQ(vuser_req_mem_table(&conn, &r, &efd, 1), 0);
	TAP_EQ(peer_read(&msg, &n_fds), 0);
	TAP_EQ(msg.request, VHOST_USER_SET_MEM_TABLE);
	TAP_EQ(msg.size, 8 + 32);
	TAP_EQ(msg.payload.memory.nregions, 1);
	TAP_EQ(msg.payload.memory.regions[0].guest_phys_addr, 0x100000000ULL);
	TAP_EQ(msg.payload.memory.regions[0].userspace_addr, 0x7f0000000000ULL);
	TAP_EQ(n_fds, 1);
	close(efd);
	teardown();
}

static void
vring_fd_index_bounds(void)
{
	struct vuser_msg msg;
	unsigned int n_fds = 0;

	setup();
	TAP_EQ(vuser_req_vring_fd(&conn, VHOST_USER_SET_VRING_KICK, 256, 0), -EINVAL);
	TAP_EQ(vuser_req_vring_fd(&conn, VHOST_USER_SET_VRING_CALL, 7, -1), 0);
	TAP_EQ(peer_read(&msg, &n_fds), 0);
	TAP_EQ(msg.payload.u64, 7 | VHOST_USER_VRING_NOFD);
	TAP_EQ(n_fds, 0);
	teardown();
}

static void
vring_base_other_index(void)
{
	struct vhost_vring_state st = { .index = 3, .num = 9 };
	uint32_t num = 0;

	setup();
	peer_reply(VHOST_USER_GET_VRING_BASE, VHOST_USER_VERSION | VHOST_USER_REPLY, sizeof(st),
			&st, sizeof(st));
	TAP_EQ(vuser_req_get_vring_base(&conn, 2, &num), -EPROTO);
	TAP_EQ(num, 0);
	teardown();
}

static void
config_reply(uint32_t offset, uint32_t size, uint32_t msg_size)
{
	struct vuser_config cfg = { .offset = offset, .size = size };

	memset(cfg.region, 0xab, sizeof(cfg.region));
	peer_reply(VHOST_USER_GET_CONFIG, VHOST_USER_VERSION | VHOST_USER_REPLY, msg_size, &cfg,
			msg_size);
}

static void
get_config_checks(void)
{
	uint8_t buf[48];

	setup();
	config_reply(0, 48, VUSER_CONFIG_HDR_SIZE + 48);
	TAP_EQ(vuser_req_get_config(&conn, 0, 48, buf), 0);
	TAP_EQ(buf[47], 0xab);
	/* An empty region is the backend's refusal. */
	config_reply(0, 0, VUSER_CONFIG_HDR_SIZE);
	TAP_EQ(vuser_req_get_config(&conn, 0, 48, buf), -EIO);
	TAP_CHECK(!conn.broken);
	teardown();

	setup();
	config_reply(0, 40, VUSER_CONFIG_HDR_SIZE + 40);
	TAP_EQ(vuser_req_get_config(&conn, 0, 48, buf), -EPROTO);
	teardown();

	setup();
	config_reply(8, 48, VUSER_CONFIG_HDR_SIZE + 48);
	TAP_EQ(vuser_req_get_config(&conn, 0, 48, buf), -EPROTO);
	teardown();

	setup();
	TAP_EQ(vuser_req_get_config(&conn, 0, VHOST_USER_MAX_CONFIG_SIZE + 1, buf), -EINVAL);
	teardown();
}

static void
quiet(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	printf("# log: %s\n", msg);
}

int
main(void)
{
	vur_user_set_log(quiet, NULL, VUR_USER_LOG_DEBUG);
	TAP_RUN(get_u64_ok);
	TAP_RUN(reply_to_other_request);
	TAP_RUN(reply_without_reply_flag);
	TAP_RUN(reply_of_wrong_size);
	TAP_RUN(reply_of_other_version);
	TAP_RUN(reply_claims_huge_payload);
	TAP_RUN(reply_with_fd);
	TAP_RUN(no_reply_times_out);
	TAP_RUN(truncated_reply_times_out);
	TAP_RUN(peer_closed);
	TAP_RUN(reply_ack_failure);
	TAP_RUN(no_ack_without_reply_ack);
	TAP_RUN(mem_table_carries_fd);
	TAP_RUN(vring_fd_index_bounds);
	TAP_RUN(vring_base_other_index);
	TAP_RUN(get_config_checks);
	return tap_done();
}
