/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of control request validation and dispatch. */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "ctrl_dispatch.h"
#include "tests/tap.h"

#define F_A (1ULL << 7)

static unsigned int calls;

static uint8_t
echo_handler(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	(void)ctx;
	calls++;
	memcpy(ack, cmd, len < 8 ? len : 8);
	return VIRTIO_NET_OK;
}

static uint8_t
refuse_handler(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	(void)ctx;
	(void)cmd;
	(void)len;
	calls++;
	memset(ack, 0xee, 4); /* must not reach the driver */
	return VIRTIO_NET_ERR;
}

static const struct vur_ctrl_cmd cmds[] = {
	{ .class = 64,
			.command = 0,
			.name = "FIXED",
			.cmd_len = 4,
			.ack_len = 8,
			.handler = echo_handler },
	{ .class = 64,
			.command = 1,
			.name = "VAR",
			.cmd_len = 8,
			.var_elem = 8,
			.var_count_at = 4,
			.handler = echo_handler },
	{ .class = 64, .command = 2, .name = "NEEDS_A", .feature = F_A, .handler = echo_handler },
	{ .class = 64, .command = 3, .name = "REFUSE", .ack_len = 4, .handler = refuse_handler },
	{ .class = 1,
			.command = 0,
			.name = "ANY",
			.cmd_len = 2,
			.var_elem = 1,
			.var_count_at = VUR_CTRL_VAR_ANY,
			.handler = echo_handler },
};
static const struct vur_ctrl_table table = { cmds, RTE_DIM(cmds) };

static uint8_t out[256], in[64];
static struct vur_chain chain;

/* A request as a driver lays it out: readable [out, out+out_len), writable in[]. */
static void
request(uint32_t out_len, uint32_t in_len)
{
	memset(&chain, 0, sizeof(chain));
	memset(in, 0xaa, sizeof(in));
	chain.iov[0].iov_base = out;
	chain.iov[0].iov_len = out_len;
	chain.n_out = out_len ? 1 : 0;
	chain.out_len = out_len;
	chain.iov[chain.n_out].iov_base = in;
	chain.iov[chain.n_out].iov_len = in_len;
	chain.n_in = in_len ? 1 : 0;
	chain.in_len = in_len;
}

static struct vur_ctrl_result
run(uint64_t negotiated)
{
	struct vur_ctrl_result r;

	vur_ctrl_dispatch(&table, NULL, negotiated, &chain, &r);
	return r;
}

static void
fixed_command(void)
{
	struct vur_ctrl_result r;

	memcpy(out,
			"\x40\x00"
			"abcd",
			6);
	request(6, 9);
	calls = 0;
	r = run(0);
	TAP_CHECK(r.ack == VIRTIO_NET_OK && r.reject == VUR_CTRL_REJ_NONE && calls == 1);
	TAP_CHECK(r.written == 9 && in[0] == VIRTIO_NET_OK && memcmp(in + 1, "abcd", 4) == 0);
	TAP_CHECK(in[5] == 0 && in[8] == 0); /* the rest of the ack data is zero */

	request(5, 9); /* one byte short */
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_CMD_LEN && in[0] == VIRTIO_NET_ERR);
	request(7, 9); /* one byte long */
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_CMD_LEN);
	request(6, 8); /* no room for the ack data */
	r = run(0);
	TAP_CHECK(r.reject == VUR_CTRL_REJ_ACK_LEN && r.written == 1 && in[0] == VIRTIO_NET_ERR);
	TAP_CHECK(in[1] == 0xaa); /* nothing past the ack byte */
}

static void
variable_command(void)
{
	/* fixed part 8 bytes (count at 4), then count x 8 bytes */
	memcpy(out,
			"\x40\x01"
			"\0\0\0\0"
			"\x02\0\0\0",
			10);
	request(2 + 8 + 16, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_NONE);
	request(2 + 8 + 8, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_CMD_LEN);
	memcpy(out + 6, "\xff\xff\xff\xff", 4); /* a count whose size wraps 32 bits */
	request(2 + 8 + 8, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_CMD_LEN);
	request(2 + 4, 1); /* shorter than the fixed part: the count is not even there */
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_CMD_LEN);

	memcpy(out,
			"\x01\x00"
			"xyzw",
			6);
	request(6, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_NONE);
	request(3, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_CMD_LEN);
}

static void
unknown_and_feature(void)
{
	memcpy(out, "\x41\x00", 2);
	request(2, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_UNKNOWN && in[0] == VIRTIO_NET_ERR);
	memcpy(out, "\x40\x09", 2);
	request(2, 1);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_UNKNOWN);
	memcpy(out, "\x40\x02", 2);
	request(2, 1);
	calls = 0;
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_FEATURE && calls == 0);
	TAP_CHECK(run(F_A).reject == VUR_CTRL_REJ_NONE && calls == 1);
}

static void
malformed_frames(void)
{
	struct vur_ctrl_result r;

	request(1, 1); /* class only */
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_SHORT_HDR && in[0] == VIRTIO_NET_ERR);
	request(0, 4);
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_SHORT_HDR);
	memcpy(out,
			"\x40\x00"
			"abcd",
			6);
	request(6, 0); /* no ack byte at all */
	calls = 0;
	r = run(0);
	TAP_CHECK(r.reject == VUR_CTRL_REJ_NO_ACK && r.written == 0 && calls == 0);

	/* class and command in separate descriptors */
	request(6, 9);
	chain.iov[2] = chain.iov[1];
	chain.iov[0].iov_len = 1;
	chain.iov[1].iov_base = out + 1;
	chain.iov[1].iov_len = 5;
	chain.n_out = 2;
	TAP_CHECK(run(0).reject == VUR_CTRL_REJ_NONE && memcmp(in + 1, "abcd", 4) == 0);
}

static void
handler_refusal(void)
{
	struct vur_ctrl_result r;

	memcpy(out, "\x40\x03", 2);
	request(2, 5);
	r = run(0);
	TAP_CHECK(r.reject == VUR_CTRL_REJ_HANDLER && in[0] == VIRTIO_NET_ERR);
	TAP_CHECK(r.written == 5 && in[1] == 0 && in[4] == 0); /* zeroes, not 0xee */
}

static void
table_validation(void)
{
	static const struct vur_ctrl_cmd dup[] = {
		{ .class = 1, .command = 1, .handler = echo_handler },
		{ .class = 1, .command = 1, .handler = echo_handler },
	};
	static const struct vur_ctrl_cmd big_ack[] = {
		{ .class = 1,
				.command = 1,
				.ack_len = VUR_CTRL_MAX_ACK_LEN + 1,
				.handler = echo_handler },
	};
	static const struct vur_ctrl_cmd bad_count[] = {
		{ .class = 1,
				.command = 1,
				.cmd_len = 4,
				.var_elem = 8,
				.var_count_at = 2,
				.handler = echo_handler },
	};
	struct vur_ctrl_table t;

	TAP_CHECK(vur_ctrl_table_validate(&table) == 0);
	t = (struct vur_ctrl_table){ dup, 2 };
	TAP_CHECK(vur_ctrl_table_validate(&t) == -EEXIST);
	t = (struct vur_ctrl_table){ big_ack, 1 };
	TAP_CHECK(vur_ctrl_table_validate(&t) == -EINVAL);
	t = (struct vur_ctrl_table){ bad_count, 1 };
	TAP_CHECK(vur_ctrl_table_validate(&t) == -EINVAL);
	TAP_CHECK(strcmp(vur_ctrl_reject_name(VUR_CTRL_REJ_UNKNOWN), "unknown class or command") ==
			0);
}

int
main(void)
{
	TAP_RUN(fixed_command);
	TAP_RUN(variable_command);
	TAP_RUN(unknown_and_feature);
	TAP_RUN(malformed_frames);
	TAP_RUN(handler_refusal);
	TAP_RUN(table_validation);
	return tap_done();
}
