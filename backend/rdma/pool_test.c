/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the resource pool. */
#include <errno.h>

#include "pool.h"
#include "tests/tap.h"

struct thing {
	struct vur_pool_obj obj;
	int payload;
};

static void
limits_and_indices(void)
{
	struct vur_pool p;
	struct thing *t[4];

	TAP_CHECK(vur_pool_init(&p, "thing", 2, 3, sizeof(struct thing)) == 0);
	for (int i = 0; i < 3; i++) {
		t[i] = vur_pool_alloc(&p);
		TAP_CHECK(t[i] != NULL && t[i]->obj.index == 2u + i && t[i]->payload == 0);
	}
	TAP_CHECK(vur_pool_alloc(&p) == NULL); /* limit reached */
	TAP_CHECK(p.count == 3);
	TAP_CHECK(vur_pool_get(&p, 0) == NULL && vur_pool_get(&p, 1) == NULL);
	TAP_CHECK(vur_pool_get(&p, 5) == NULL && vur_pool_get(&p, UINT32_MAX) == NULL);
	TAP_CHECK(vur_pool_get(&p, 3) == t[1]);
	TAP_CHECK(vur_pool_free(&p, 3) == 0 && vur_pool_get(&p, 3) == NULL);
	TAP_CHECK(vur_pool_free(&p, 3) == -ENOENT); /* already destroyed */
	TAP_CHECK(vur_pool_free(&p, 77) == -ENOENT);
	t[3] = vur_pool_alloc(&p);
	TAP_CHECK(t[3] != NULL && t[3]->obj.index == 3);
	vur_pool_fini(&p);
}

static void
references_block_free(void)
{
	struct vur_pool p;
	struct thing *t;

	TAP_CHECK(vur_pool_init(&p, "pd", 0, 2, sizeof(struct thing)) == 0);
	t = vur_pool_alloc(&p);
	vur_pool_ref(t);
	TAP_CHECK(vur_pool_free(&p, t->obj.index) == -EBUSY);
	vur_pool_unref(t);
	TAP_CHECK(vur_pool_free(&p, t->obj.index) == 0);
	vur_pool_fini(&p);
}

static void
alloc_at(void)
{
	struct vur_pool p;
	struct thing *t;

	TAP_CHECK(vur_pool_init(&p, "qp", 1, 4, sizeof(struct thing)) == 0);
	t = vur_pool_alloc_at(&p, 1);
	TAP_CHECK(t != NULL && t->obj.index == 1);
	TAP_CHECK(vur_pool_alloc_at(&p, 1) == NULL); /* taken */
	TAP_CHECK(vur_pool_alloc_at(&p, 0) == NULL && vur_pool_alloc_at(&p, 5) == NULL);
	t = vur_pool_alloc(&p);
	TAP_CHECK(t != NULL && t->obj.index == 2);
	vur_pool_fini(&p);
}

static void
count_live(void *obj, void *arg)
{
	(void)obj;
	(*(int *)arg)++;
}

static void
foreach_and_bad_init(void)
{
	struct vur_pool p;
	int n = 0;

	TAP_CHECK(vur_pool_init(&p, "x", 0, 0, sizeof(struct thing)) == -EINVAL);
	TAP_CHECK(vur_pool_init(&p, "x", 0, 4, 1) == -EINVAL);
	TAP_CHECK(vur_pool_init(&p, "x", UINT32_MAX, 4, sizeof(struct thing)) == -EINVAL);
	TAP_CHECK(vur_pool_init(&p, "x", 0, 8, sizeof(struct thing)) == 0);
	vur_pool_alloc(&p);
	vur_pool_alloc(&p);
	vur_pool_foreach(&p, count_live, &n);
	TAP_CHECK(n == 2);
	vur_pool_fini(&p);
}

int
main(void)
{
	TAP_RUN(limits_and_indices);
	TAP_RUN(references_block_free);
	TAP_RUN(alloc_at);
	TAP_RUN(foreach_and_bad_init);
	return tap_done();
}
