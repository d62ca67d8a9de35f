/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One pool per RDMA resource type (PD, MR, CQ, QP, AH): a fixed table of
 * objects addressed by index, a limit, and a reference count per object so
 * that an object others still use cannot be destroyed (IBTA 11.2: destroying
 * a PD with live QPs, MRs or AHs fails).
 */
#ifndef VUR_POOL_H
#define VUR_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct vur_pool {
	const char *name;
	uint32_t max;       /* indices [first, first + max) */
	uint32_t first;     /* lowest index handed out */
	uint32_t elem_size; /* bytes per object, header included */
	uint32_t count;     /* objects alive */
	uint32_t hint;      /* where the next search starts */
	uint8_t *objs;
};

/* Every pooled object starts with this header. */
struct vur_pool_obj {
	uint32_t index;
	uint32_t refcnt; /* users besides the owner (QPs of a PD, ...) */
	bool live;
};

int vur_pool_init(struct vur_pool *p, const char *name, uint32_t first, uint32_t max,
		uint32_t elem_size);
void vur_pool_fini(struct vur_pool *p);

/* A zeroed live object, or NULL when the pool is full. */
void *vur_pool_alloc(struct vur_pool *p);

/* A specific index (QPN 1 for the GSI QP); NULL when taken or out of range. */
void *vur_pool_alloc_at(struct vur_pool *p, uint32_t index);

/* The live object at @index, or NULL for anything else a guest may send. */
void *vur_pool_get(struct vur_pool *p, uint32_t index);

/* Free an object nobody references: 0, -EBUSY while referenced, -ENOENT if not live. */
int vur_pool_free(struct vur_pool *p, uint32_t index);

void vur_pool_ref(void *obj);
void vur_pool_unref(void *obj);

/* Call @fn on every live object (teardown, telemetry). */
void vur_pool_foreach(struct vur_pool *p, void (*fn)(void *obj, void *arg), void *arg);

#endif /* VUR_POOL_H */
