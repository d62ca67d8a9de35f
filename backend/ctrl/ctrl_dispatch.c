/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "ctrl_dispatch.h"

#define CTRL_HDR_LEN 2

static const char *const reject_names[VUR_CTRL_REJ_COUNT] = {
	[VUR_CTRL_REJ_NONE] = "ok",
	[VUR_CTRL_REJ_NO_ACK] = "no writable ack byte",
	[VUR_CTRL_REJ_SHORT_HDR] = "shorter than class and command",
	[VUR_CTRL_REJ_UNKNOWN] = "unknown class or command",
	[VUR_CTRL_REJ_FEATURE] = "feature not negotiated",
	[VUR_CTRL_REJ_CMD_LEN] = "command data of the wrong length",
	[VUR_CTRL_REJ_ACK_LEN] = "no room for the ack data",
	[VUR_CTRL_REJ_HANDLER] = "refused by the command",
};

const char *
vur_ctrl_reject_name(enum vur_ctrl_reject r)
{
	return r < VUR_CTRL_REJ_COUNT ? reject_names[r] : "?";
}

static const struct vur_ctrl_cmd *
lookup(const struct vur_ctrl_table *t, uint8_t class, uint8_t command)
{
	unsigned int i;

	for (i = 0; i < t->n_cmds; i++)
		if (t->cmds[i].class == class && t->cmds[i].command == command)
			return &t->cmds[i];
	return NULL;
}

/* Whether @len bytes of command data are what @cmd declares; @data holds them. */
static bool
cmd_len_ok(const struct vur_ctrl_cmd *cmd, const uint8_t *data, uint32_t len)
{
	uint32_t count;
	uint64_t want;

	if (cmd->var_elem == 0)
		return len == cmd->cmd_len || (cmd->alt_len != 0 && len == cmd->alt_len);
	if (len < cmd->cmd_len)
		return false;
	if (cmd->var_count_at == VUR_CTRL_VAR_ANY)
		return true;
	memcpy(&count, data + cmd->var_count_at, sizeof(count));
	want = cmd->cmd_len + (uint64_t)rte_le_to_cpu_32(count) * cmd->var_elem;
	return want == len;
}

int
vur_ctrl_table_validate(const struct vur_ctrl_table *t)
{
	const struct vur_ctrl_cmd *c;
	unsigned int i;

	for (i = 0; i < t->n_cmds; i++) {
		c = &t->cmds[i];
		if (c->handler == NULL || c->ack_len > VUR_CTRL_MAX_ACK_LEN ||
				c->cmd_len > VUR_CTRL_MAX_CMD_LEN ||
				(c->alt_len != 0 &&
						(c->var_elem != 0 || c->alt_len <= c->cmd_len ||
								c->alt_len > VUR_CTRL_MAX_CMD_LEN)))
			return -EINVAL;
		if (c->var_elem != 0 && c->var_count_at != VUR_CTRL_VAR_ANY &&
				(uint64_t)c->var_count_at + sizeof(uint32_t) > c->cmd_len)
			return -EINVAL;
		if (lookup(t, c->class, c->command) != c)
			return -EEXIST;
	}
	return 0;
}

static enum vur_ctrl_reject
check_and_run(const struct vur_ctrl_table *table, void *ctx, uint64_t negotiated,
		const struct vur_chain *chain, struct vur_ctrl_result *res, uint8_t *ack_data)
{
	const struct vur_ctrl_cmd *cmd;
	uint8_t hdr[CTRL_HDR_LEN];
	uint32_t data_len;
	uint8_t *data;
	enum vur_ctrl_reject rej = VUR_CTRL_REJ_NONE;

	if (vur_chain_read(chain, 0, hdr, sizeof(hdr)) != sizeof(hdr))
		return VUR_CTRL_REJ_SHORT_HDR;
	cmd = lookup(table, hdr[0], hdr[1]);
	res->cmd = cmd;
	if (cmd == NULL || cmd->ack_len > VUR_CTRL_MAX_ACK_LEN)
		return VUR_CTRL_REJ_UNKNOWN;
	if ((negotiated & cmd->feature) != cmd->feature)
		return VUR_CTRL_REJ_FEATURE;
	data_len = chain->out_len - CTRL_HDR_LEN;
	if (data_len > VUR_CTRL_MAX_CMD_LEN || data_len < cmd->cmd_len)
		return VUR_CTRL_REJ_CMD_LEN;
	if (chain->in_len < 1 + cmd->ack_len)
		return VUR_CTRL_REJ_ACK_LEN;

	/* A private copy: the driver cannot change the data under the handler. */
	data = malloc(RTE_MAX(data_len, 1u));
	if (data == NULL)
		return VUR_CTRL_REJ_HANDLER;
	vur_chain_read(chain, CTRL_HDR_LEN, data, data_len);
	if (!cmd_len_ok(cmd, data, data_len))
		rej = VUR_CTRL_REJ_CMD_LEN;
	else if (cmd->handler(ctx, data, data_len, ack_data) != VIRTIO_NET_OK)
		rej = VUR_CTRL_REJ_HANDLER;
	free(data);
	return rej;
}

void
vur_ctrl_dispatch(const struct vur_ctrl_table *table, void *ctx, uint64_t negotiated,
		const struct vur_chain *chain, struct vur_ctrl_result *res)
{
	uint8_t ack_data[VUR_CTRL_MAX_ACK_LEN] __rte_aligned(8) = { 0 };
	uint32_t ack_len;

	memset(res, 0, sizeof(*res));
	if (chain->in_len < 1) {
		res->reject = VUR_CTRL_REJ_NO_ACK;
		res->ack = VIRTIO_NET_ERR;
		return;
	}
	res->reject = check_and_run(table, ctx, negotiated, chain, res, ack_data);
	res->ack = res->reject == VUR_CTRL_REJ_NONE ? VIRTIO_NET_OK : VIRTIO_NET_ERR;
	if (res->ack != VIRTIO_NET_OK)
		memset(ack_data, 0, sizeof(ack_data));

	/* Ack data only where the driver made room for all of it. */
	ack_len = 0;
	if (res->cmd != NULL && res->cmd->ack_len <= VUR_CTRL_MAX_ACK_LEN &&
			chain->in_len >= 1 + res->cmd->ack_len)
		ack_len = res->cmd->ack_len;
	res->written = vur_chain_write(chain, 0, &res->ack, 1);
	res->written += vur_chain_write(chain, 1, ack_data, ack_len);
}
