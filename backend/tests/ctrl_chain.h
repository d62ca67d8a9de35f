/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For unit tests of control commands: a two-descriptor request as a driver
 * would make it, [class, command, data] readable and @in_len writable bytes.
 */
#ifndef VUR_TEST_CTRL_CHAIN_H
#define VUR_TEST_CTRL_CHAIN_H

#include <string.h>

#include "vring/split_ring.h"

static inline void
ctrl_chain_build(struct vur_chain *c, uint8_t *out, uint8_t cls, uint8_t cmd, const void *data,
		uint32_t len, uint8_t *in, uint32_t in_len)
{
	memset(c, 0, sizeof(*c));
	out[0] = cls;
	out[1] = cmd;
	if (len > 0 && data != NULL) /* GCC 15 cannot tell that NULL comes with 0 */
		memcpy(out + 2, data, len);
	c->iov[0] = (struct iovec){ out, 2 + len };
	c->iov[1] = (struct iovec){ in, in_len };
	c->n_out = c->n_in = 1;
	c->out_len = 2 + len;
	c->in_len = in_len;
	memset(in, 0xaa, in_len);
}

#endif /* VUR_TEST_CTRL_CHAIN_H */
