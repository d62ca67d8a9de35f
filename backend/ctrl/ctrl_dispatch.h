/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control virtqueue requests (virtio-net 5.1.6.5 as RFC v2 extends it):
 *
 *   device-readable:  u8 class; u8 command; u8 command-specific-data[];
 *   device-writable:  u8 ack;   u8 ack-specific-data[];
 *
 * One table describes every command the device knows: its data sizes, the
 * feature it needs, and its handler. Sizes are validated here, once, before
 * any handler runs; a handler sees a copy of the command data that is
 * exactly as long as the table says, and an ack buffer as long as its ack.
 */
#ifndef VUR_CTRL_DISPATCH_H
#define VUR_CTRL_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "vring/split_ring.h"

#define VIRTIO_NET_OK  0
#define VIRTIO_NET_ERR 1

/* Largest command data: REG_USER_MR of a 1 GiB MR (VUR_MAX_MR_SIZE), 2 MiB of pages. */
#define VUR_CTRL_MAX_CMD_LEN (32u + 8u * ((1u << 18) + 1u))
#define VUR_CTRL_MAX_ACK_LEN 128u
#define VUR_CTRL_VAR_ANY     UINT32_MAX

/*
 * A handler returns VIRTIO_NET_OK with the ack data filled in, or
 * VIRTIO_NET_ERR (the ack data is then sent as zeroes).
 */
typedef uint8_t (*vur_ctrl_handler_t)(void *ctx, const void *cmd, uint32_t cmd_len, void *ack);

struct vur_ctrl_cmd {
	uint8_t class;
	uint8_t command;
	const char *name;
	uint32_t cmd_len;      /* exact length, or the fixed part when var_elem != 0 */
	uint32_t alt_len;      /* fixed commands: another exact length (a second form), or 0 */
	uint32_t var_elem;     /* size of each trailing element, 0 when fixed */
	uint32_t var_count_at; /* offset of the le32 element count (var_elem != 0),
				* or VUR_CTRL_VAR_ANY: any length >= cmd_len, the
				* handler checks the rest */
	uint32_t ack_len;
	uint64_t feature; /* feature bit mask the command needs, 0 for none */
	vur_ctrl_handler_t handler;
};

struct vur_ctrl_table {
	const struct vur_ctrl_cmd *cmds;
	unsigned int n_cmds;
};

enum vur_ctrl_reject {
	VUR_CTRL_REJ_NONE,
	VUR_CTRL_REJ_NO_ACK,    /* no room for the ack byte: nothing can be answered */
	VUR_CTRL_REJ_SHORT_HDR, /* fewer than 2 readable bytes */
	VUR_CTRL_REJ_UNKNOWN,   /* class/command not in the table */
	VUR_CTRL_REJ_FEATURE,   /* needs a feature the driver did not negotiate */
	VUR_CTRL_REJ_CMD_LEN,   /* command data of the wrong length */
	VUR_CTRL_REJ_ACK_LEN,   /* writable part too short for the ack data */
	VUR_CTRL_REJ_HANDLER,   /* the handler refused */
	VUR_CTRL_REJ_COUNT,
};

const char *vur_ctrl_reject_name(enum vur_ctrl_reject r);

struct vur_ctrl_result {
	uint32_t written; /* bytes written to the writable part */
	uint8_t ack;
	enum vur_ctrl_reject reject;
	const struct vur_ctrl_cmd *cmd; /* NULL when unknown */
};

/* Check a table once at start-up: sizes within bounds, no command twice. */
int vur_ctrl_table_validate(const struct vur_ctrl_table *table);

/*
 * Execute one request held in @chain: validate it against @table and
 * @negotiated, run the handler with @ctx, write ack and ack data back.
 */
void vur_ctrl_dispatch(const struct vur_ctrl_table *table, void *ctx, uint64_t negotiated,
		const struct vur_chain *chain, struct vur_ctrl_result *res);

#endif /* VUR_CTRL_DISPATCH_H */
