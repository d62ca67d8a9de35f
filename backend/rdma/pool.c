/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

/* Slot @i, or NULL when its chunk was never made (then nothing in it is live). */
static struct vur_pool_obj *
slot(const struct vur_pool *p, uint32_t i)
{
	uint8_t *chunk = p->objs[i / VUR_POOL_CHUNK];

	if (chunk == NULL)
		return NULL;
	return (struct vur_pool_obj *)(chunk + (size_t)(i % VUR_POOL_CHUNK) * p->elem_size);
}

static bool
live(const struct vur_pool *p, uint32_t i)
{
	const struct vur_pool_obj *o = slot(p, i);

	return o != NULL && o->live;
}

int
vur_pool_init(struct vur_pool *p, const char *name, uint32_t first, uint32_t max,
		uint32_t elem_size)
{
	memset(p, 0, sizeof(*p));
	if (max == 0 || elem_size < sizeof(struct vur_pool_obj) || first > UINT32_MAX - max)
		return -EINVAL;
	p->n_chunks = (max + VUR_POOL_CHUNK - 1) / VUR_POOL_CHUNK;
	p->objs = calloc(p->n_chunks, sizeof(*p->objs));
	if (p->objs == NULL)
		return -ENOMEM;
	p->name = name;
	p->first = first;
	p->max = max;
	p->elem_size = elem_size;
	return 0;
}

void
vur_pool_fini(struct vur_pool *p)
{
	for (uint32_t c = 0; p->objs != NULL && c < p->n_chunks; c++)
		free(p->objs[c]);
	free(p->objs);
	p->objs = NULL;
	p->count = 0;
	p->chunks = 0;
}

/* Slot @i, its chunk made if need be; NULL when memory runs out. */
static struct vur_pool_obj *
make_slot(struct vur_pool *p, uint32_t i)
{
	uint8_t **chunk = &p->objs[i / VUR_POOL_CHUNK];

	if (*chunk == NULL) {
		*chunk = calloc(VUR_POOL_CHUNK, p->elem_size);
		if (*chunk == NULL)
			return NULL;
		p->chunks++;
	}
	return slot(p, i);
}

static void *
take(struct vur_pool *p, uint32_t i)
{
	struct vur_pool_obj *o = make_slot(p, i);

	if (o == NULL)
		return NULL;
	memset(o, 0, p->elem_size);
	o->index = p->first + i;
	o->live = true;
	p->count++;
	p->hint = (i + 1) % p->max;
	return o;
}

void *
vur_pool_alloc(struct vur_pool *p)
{
	uint32_t n, i;

	if (p->count == p->max)
		return NULL;
	for (n = 0; n < p->max; n++) {
		i = (p->hint + n) % p->max;
		if (!live(p, i))
			return take(p, i);
	}
	return NULL;
}

void *
vur_pool_alloc_at(struct vur_pool *p, uint32_t index)
{
	uint32_t i = index - p->first;

	if (index < p->first || i >= p->max || live(p, i))
		return NULL;
	return take(p, i);
}

uint32_t
vur_pool_find_free(struct vur_pool *p, uint32_t lo, uint32_t hi, uint32_t *hint,
		bool (*ok)(uint32_t index, void *arg), void *arg)
{
	uint32_t n, index, span;

	if (lo < p->first || hi > p->first + p->max || lo >= hi)
		return UINT32_MAX;
	span = hi - lo;
	if (*hint < lo || *hint >= hi)
		*hint = lo;
	for (n = 0; n < span; n++) {
		index = lo + (*hint - lo + n) % span;
		if (!live(p, index - p->first) && (ok == NULL || ok(index, arg))) {
			*hint = index + 1 < hi ? index + 1 : lo;
			return index;
		}
	}
	return UINT32_MAX;
}

void *
vur_pool_get(struct vur_pool *p, uint32_t index)
{
	uint32_t i = index - p->first;
	struct vur_pool_obj *o;

	if (index < p->first || i >= p->max)
		return NULL;
	o = slot(p, i);
	return o != NULL && o->live ? o : NULL;
}

int
vur_pool_free(struct vur_pool *p, uint32_t index)
{
	struct vur_pool_obj *o = vur_pool_get(p, index);

	if (o == NULL)
		return -ENOENT;
	if (o->refcnt != 0)
		return -EBUSY;
	o->live = false;
	p->count--;
	return 0;
}

void
vur_pool_ref(void *obj)
{
	((struct vur_pool_obj *)obj)->refcnt++;
}

void
vur_pool_unref(void *obj)
{
	((struct vur_pool_obj *)obj)->refcnt--;
}

void
vur_pool_foreach(struct vur_pool *p, void (*fn)(void *obj, void *arg), void *arg)
{
	struct vur_pool_obj *o;

	for (uint32_t c = 0; c < p->n_chunks; c++) {
		if (p->objs[c] == NULL)
			continue;
		for (uint32_t i = c * VUR_POOL_CHUNK; i < p->max && i < (c + 1) * VUR_POOL_CHUNK;
				i++) {
			o = slot(p, i);
			if (o->live)
				fn(o, arg);
		}
	}
}

size_t
vur_pool_bytes(const struct vur_pool *p)
{
	return (size_t)p->n_chunks * sizeof(*p->objs) +
			(size_t)p->chunks * VUR_POOL_CHUNK * p->elem_size;
}
