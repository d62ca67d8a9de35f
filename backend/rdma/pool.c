/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

static struct vur_pool_obj *
slot(struct vur_pool *p, uint32_t i)
{
	return (struct vur_pool_obj *)(p->objs + (size_t)i * p->elem_size);
}

int
vur_pool_init(struct vur_pool *p, const char *name, uint32_t first, uint32_t max,
		uint32_t elem_size)
{
	memset(p, 0, sizeof(*p));
	if (max == 0 || elem_size < sizeof(struct vur_pool_obj) || first > UINT32_MAX - max)
		return -EINVAL;
	p->objs = calloc(max, elem_size);
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
	free(p->objs);
	p->objs = NULL;
	p->count = 0;
}

static void *
take(struct vur_pool *p, uint32_t i)
{
	struct vur_pool_obj *o = slot(p, i);

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
		if (!slot(p, i)->live)
			return take(p, i);
	}
	return NULL;
}

void *
vur_pool_alloc_at(struct vur_pool *p, uint32_t index)
{
	uint32_t i = index - p->first;

	if (index < p->first || i >= p->max || slot(p, i)->live)
		return NULL;
	return take(p, i);
}

void *
vur_pool_get(struct vur_pool *p, uint32_t index)
{
	uint32_t i = index - p->first;
	struct vur_pool_obj *o;

	if (index < p->first || i >= p->max)
		return NULL;
	o = slot(p, i);
	return o->live ? o : NULL;
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
	uint32_t i;

	for (i = 0; i < p->max; i++)
		if (slot(p, i)->live)
			fn(slot(p, i), arg);
}
