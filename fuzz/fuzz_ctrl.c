/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands as a driver may send them, through the dispatcher and
 * every handler (RoCE and virtio-net), over a device whose engine serves
 * live QPs (fuzz_dev.h): what ctrl_roce_test.c does by hand, with any
 * class, command, length and ack buffer.
 *
 * An input: u8 mode, then requests, each
 *   u8 class, u8 command, le16 length, the command data, u8 ack length, u8 split
 * The command data and the ack buffer are heap allocations of exactly
 * their length, so that a read or write past either is caught; the
 * readable part is in two descriptors, split where @split says. Mode bit 0:
 * the RFC v2 numbering; bit 1: no feature negotiated (else all of them).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl_net.h"
#include "ctrl/ctrl_roce.h"
#include "ctrl/ctrl_target.h"
#include "fuzz/fuzz_dev.h"

#define MAX_REQUESTS 32
#define MAX_CMD_LEN  4096 /* more only makes the page lists longer */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vur_fuzz_dev dev;
static struct vur_ctrl_cmd cmds[VUR_CTRL_ROCE_MAX_CMDS + VUR_CTRL_NET_MAX_CMDS];

/* One request: [class, command, data] readable, @in_len writable; false at the input's end. */
static bool
request(const struct vur_ctrl_table *table, void *target, uint64_t features, const uint8_t **p,
		size_t *left)
{
	uint32_t len, in_len, split;
	struct vur_ctrl_result res;
	struct vur_chain c;
	uint8_t *out, *in;

	if (*left < 4)
		return false;
	len = RTE_MIN((uint32_t)((*p)[2] | (*p)[3] << 8) % (MAX_CMD_LEN + 1),
			(uint32_t)(*left - 4));
	out = malloc(2 + len);
	if (out == NULL)
		abort();
	memcpy(out, *p, 2);
	memcpy(out + 2, *p + 4, len);
	*p += 4 + len;
	*left -= 4 + len;
	in_len = *left > 0 ? (*p)[0] : 0;
	split = *left > 1 ? (*p)[1] % (2 + len + 1) : 2 + len;
	*p += RTE_MIN(*left, (size_t)2);
	*left -= RTE_MIN(*left, (size_t)2);
	in = malloc(in_len + 1); /* malloc(0) may be NULL: the chain's length says 0 */
	if (in == NULL)
		abort();

	memset(&c, 0, sizeof(c));
	c.iov[c.n_out++] = (struct iovec){ out, split };
	if (split < 2 + len)
		c.iov[c.n_out++] = (struct iovec){ out + split, 2 + len - split };
	c.out_len = 2 + len;
	if (in_len > 0) {
		c.iov[c.n_out] = (struct iovec){ in, in_len };
		c.n_in = 1;
		c.in_len = in_len;
	}
	vur_ctrl_dispatch(table, target, features, &c, &res);
	free(in);
	free(out);
	return true;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	if (vur_fuzz_global_init() != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vur_ctrl_table table = { cmds, 0 };
	struct vur_ctrl_target target = { .rdma = &dev.rd, .net = &dev.filter };
	uint64_t features;

	if (size < 1)
		return 0;
	/* as vdev.c builds a device's table */
	table.n_cmds = vur_ctrl_roce_commands(data[0] & 1, cmds);
	table.n_cmds += vur_ctrl_net_commands(cmds + table.n_cmds);
	if (vur_ctrl_table_validate(&table) != 0)
		abort();
	features = (data[0] & 2) ? 0 : UINT64_MAX;
	data++;
	size--;
	if (vur_fuzz_dev_init(&dev, true) != 0 || vur_fuzz_dev_qps(&dev) != 0)
		abort();
	vur_net_state_set_features(&dev.filter, features);
	for (int r = 0; r < MAX_REQUESTS && request(&table, &target, features, &data, &size); r++)
		;
	vur_fuzz_dev_fini(&dev);
	return 0;
}
