/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fuzz input read front to back, and the big-endian stores the targets
 * that build packets need.
 */
#ifndef VUR_FUZZ_INPUT_H
#define VUR_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct input {
	const uint8_t *p;
	size_t left;
};

/* The next @n bytes into @dst; false, taking nothing, when fewer are left. */
static inline bool
take(struct input *in, void *dst, size_t n)
{
	if (in->left < n)
		return false;
	memcpy(dst, in->p, n);
	in->p += n;
	in->left -= n;
	return true;
}

static inline void
put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

#endif /* VUR_FUZZ_INPUT_H */
