/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One pool per RDMA resource type (PD, MR, CQ, QP, AH): objects addressed
 * by index, a limit, and a reference count per object so that an object
 * others still use cannot be destroyed (IBTA 11.2: destroying a PD with
 * live QPs, MRs or AHs fails).
 *
 * The objects live in chunks of VUR_POOL_CHUNK slots, each allocated when
 * its first object is and kept until the pool goes: a device with 16k
 * QP numbers on rings pays for the QPs a driver creates (a chunk at a
 * time), not for every number up front. A chunk never moves, so a pointer
 * to an object stays good while it is live.
 */
#ifndef VUR_POOL_H
#define VUR_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vur_pool {
	const char *name;
	uint32_t max;       /* indices [first, first + max) */
	uint32_t first;     /* lowest index handed out */
	uint32_t elem_size; /* bytes per object, header included */
	uint32_t count;     /* objects alive */
	uint32_t hint;      /* where the next search starts */
	uint8_t **objs;     /* chunk directory: NULL for chunks never used */
	uint32_t n_chunks;
	uint32_t chunks; /* chunks allocated */
};

#define VUR_POOL_CHUNK 64

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

/*
 * The first free index of [@lo, @hi) from *@hint on (wrapping), for which
 * @ok (may be NULL) says yes; *@hint moves past it. UINT32_MAX if none.
 */
uint32_t vur_pool_find_free(struct vur_pool *p, uint32_t lo, uint32_t hi, uint32_t *hint,
		bool (*ok)(uint32_t index, void *arg), void *arg);

/* Bytes the pool holds now: its directory and the chunks made so far. */
size_t vur_pool_bytes(const struct vur_pool *p);

/* The live object at @index, or NULL for anything else a guest may send. */
void *vur_pool_get(struct vur_pool *p, uint32_t index);

/* Free an object nobody references: 0, -EBUSY while referenced, -ENOENT if not live. */
int vur_pool_free(struct vur_pool *p, uint32_t index);

void vur_pool_ref(void *obj);
void vur_pool_unref(void *obj);

/* Call @fn on every live object (teardown, telemetry). */
void vur_pool_foreach(struct vur_pool *p, void (*fn)(void *obj, void *arg), void *arg);

#endif /* VUR_POOL_H */
