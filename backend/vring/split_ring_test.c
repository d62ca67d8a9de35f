/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split ring unit tests, without a VM: a fake guest memory of two adjacent
 * regions, a ring inside it, and a driver played by the test.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_vhost.h>

#include "split_ring.h"
#include "tests/tap.h"

#define QSZ       16
#define GPA0      0x100000ULL
#define REGION_SZ 0x10000ULL
#define DESC_GPA  GPA0
#define AVAIL_GPA (GPA0 + 0x1000)
#define USED_GPA  (GPA0 + 0x2000)
#define INDIR_GPA (GPA0 + 0x3000)
#define DATA_GPA  (GPA0 + 0x4000)

static uint8_t *ram; /* 2 * REGION_SZ bytes backing GPA0.. */
static struct rte_vhost_memory *mem;
static struct vur_split_ring vr;
static struct vring_desc *desc, *indir;
static struct vring_avail *avail;
static struct vring_used *used;

static void *
at(uint64_t gpa)
{
	return ram + (gpa - GPA0);
}

static void
setup(void)
{
	memset(ram, 0, 2 * REGION_SZ);
	desc = at(DESC_GPA);
	avail = at(AVAIL_GPA);
	used = at(USED_GPA);
	indir = at(INDIR_GPA);
	vur_split_ring_init(&vr, QSZ, desc, avail, used, 0, 0, false);
}

static void
set_desc(struct vring_desc *t, uint16_t i, uint64_t addr, uint32_t len, uint16_t flags,
		uint16_t next)
{
	t[i].addr = addr;
	t[i].len = len;
	t[i].flags = flags;
	t[i].next = next;
}

static void
offer(uint16_t head)
{
	avail->ring[avail->idx % QSZ] = head;
	avail->idx++;
}

static enum vur_pop_result
pop(struct vur_chain *c, const char **why)
{
	return vur_split_ring_pop(&vr, mem, c, why);
}

static void
empty_ring(void)
{
	struct vur_chain c;
	const char *why;

	setup();
	TAP_CHECK(pop(&c, &why) == VUR_POP_EMPTY);
}

static void
readable_then_writable(void)
{
	struct vur_chain c;
	const char *why;
	char buf[8];

	setup();
	memcpy(at(DATA_GPA), "hello", 5);
	set_desc(desc, 3, DATA_GPA, 5, VRING_DESC_F_NEXT, 7);
	set_desc(desc, 7, DATA_GPA + 0x100, 64, VRING_DESC_F_WRITE, 0);
	offer(3);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK);
	TAP_CHECK(c.head == 3 && c.n_out == 1 && c.n_in == 1);
	TAP_CHECK(c.out_len == 5 && c.in_len == 64);
	TAP_CHECK(vur_chain_read(&c, 1, buf, 8) == 4 && memcmp(buf, "ello", 4) == 0);
	TAP_CHECK(vur_chain_write(&c, 60, "abcdef", 6) == 4);
	TAP_CHECK(memcmp(at(DATA_GPA + 0x100 + 60), "abcd", 4) == 0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_EMPTY);
}

static void
buffer_across_regions(void)
{
	struct vur_chain c;
	const char *why;

	setup();
	set_desc(desc, 0, GPA0 + REGION_SZ - 10, 30, VRING_DESC_F_WRITE, 0);
	offer(0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK);
	TAP_CHECK(c.n_in == 2 && c.iov[0].iov_len == 10 && c.iov[1].iov_len == 20);
	TAP_CHECK(c.in_len == 30);
}

static void
expect_bad(const char *want)
{
	struct vur_chain c;
	const char *why = NULL;

	TAP_CHECK(pop(&c, &why) == VUR_POP_BAD_CHAIN);
	TAP_CHECK(why != NULL && strstr(why, want) != NULL);
	if (why != NULL && strstr(why, want) == NULL)
		printf("# got '%s', wanted '%s'\n", why, want);
	/* The bad chain was consumed; the ring goes on. */
	TAP_CHECK(!vr.broken);
}

static void
bad_chains(void)
{
	setup();
	set_desc(desc, 0, DATA_GPA, 4, VRING_DESC_F_NEXT, 1);
	set_desc(desc, 1, DATA_GPA, 4, VRING_DESC_F_NEXT, 0);
	offer(0);
	expect_bad("loops");

	set_desc(desc, 2, DATA_GPA, 4, VRING_DESC_F_NEXT, QSZ);
	offer(2);
	expect_bad("out of range");

	set_desc(desc, 3, DATA_GPA, 4, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 4);
	set_desc(desc, 4, DATA_GPA, 4, 0, 0);
	offer(3);
	expect_bad("readable descriptor after");

	set_desc(desc, 5, GPA0 + 2 * REGION_SZ - 2, 4, 0, 0);
	offer(5);
	expect_bad("outside guest memory");

	set_desc(desc, 6, 0x1000, 4, 0, 0);
	offer(6);
	expect_bad("outside guest memory");

	set_desc(desc, 8, UINT64_MAX - 1, 16, 0, 0);
	offer(8);
	expect_bad("outside guest memory");
}

static void
too_many_segments(void)
{
	struct vur_chain c;
	const char *why;
	uint16_t i;

	/* An indirect table of 65 one-byte buffers: one more than a chain holds. */
	setup();
	for (i = 0; i < VUR_CHAIN_MAX_IOV + 1; i++)
		set_desc(indir, i, DATA_GPA + i, 1, i < VUR_CHAIN_MAX_IOV ? VRING_DESC_F_NEXT : 0,
				i + 1);
	set_desc(desc, 0, INDIR_GPA, (VUR_CHAIN_MAX_IOV + 1) * 16, VRING_DESC_F_INDIRECT, 0);
	offer(0);
	expect_bad("too many segments");

	set_desc(indir, VUR_CHAIN_MAX_IOV - 1, DATA_GPA, 1, 0, 0);
	set_desc(desc, 1, INDIR_GPA, VUR_CHAIN_MAX_IOV * 16, VRING_DESC_F_INDIRECT, 0);
	offer(1);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK && c.n_out == VUR_CHAIN_MAX_IOV);
}

static void
indirect(void)
{
	struct vur_chain c;
	const char *why;

	setup();
	set_desc(indir, 0, DATA_GPA, 12, VRING_DESC_F_NEXT, 1);
	set_desc(indir, 1, DATA_GPA + 64, 100, VRING_DESC_F_WRITE, 0);
	set_desc(desc, 2, INDIR_GPA, 2 * 16, VRING_DESC_F_INDIRECT, 0);
	offer(2);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK);
	TAP_CHECK(c.head == 2 && c.out_len == 12 && c.in_len == 100);

	set_desc(desc, 3, INDIR_GPA, 2 * 16, VRING_DESC_F_INDIRECT | VRING_DESC_F_NEXT, 4);
	offer(3);
	expect_bad("indirect descriptor with NEXT");

	set_desc(desc, 4, INDIR_GPA, 20, VRING_DESC_F_INDIRECT, 0);
	offer(4);
	expect_bad("multiple of 16");

	set_desc(desc, 5, GPA0 + 2 * REGION_SZ - 16, 32, VRING_DESC_F_INDIRECT, 0);
	offer(5);
	expect_bad("indirect table outside");

	set_desc(indir, 0, INDIR_GPA, 16, VRING_DESC_F_INDIRECT, 0);
	set_desc(desc, 6, INDIR_GPA, 16, VRING_DESC_F_INDIRECT, 0);
	offer(6);
	expect_bad("nested indirect");

	set_desc(indir, 0, DATA_GPA, 1, VRING_DESC_F_NEXT, 1);
	set_desc(indir, 1, DATA_GPA, 1, VRING_DESC_F_NEXT, 0);
	set_desc(desc, 7, INDIR_GPA, 2 * 16, VRING_DESC_F_INDIRECT, 0);
	offer(7);
	expect_bad("loops");
}

static void
broken_ring(void)
{
	struct vur_chain c;
	const char *why;

	setup();
	avail->idx = QSZ + 1; /* more entries than the ring has */
	TAP_CHECK(pop(&c, &why) == VUR_POP_BROKEN && vr.broken);
	avail->idx = 1;
	TAP_CHECK(pop(&c, &why) == VUR_POP_BROKEN); /* stays broken */

	setup();
	offer(QSZ); /* head out of range */
	TAP_CHECK(pop(&c, &why) == VUR_POP_BROKEN);
	TAP_CHECK(why != NULL && strstr(why, "avail ring entry") != NULL);
}

static void
push_and_notify(void)
{
	setup();
	vur_split_ring_push(&vr, 5, 42);
	TAP_CHECK(used->idx == 1 && used->ring[0].id == 5 && used->ring[0].len == 42);
	TAP_CHECK(vur_split_ring_need_notify(&vr));
	avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	vur_split_ring_push(&vr, 6, 0);
	TAP_CHECK(!vur_split_ring_need_notify(&vr));

	/* EVENT_IDX: notify only when used_idx passes used_event. */
	vur_split_ring_init(&vr, QSZ, desc, avail, used, 0, 0, true);
	avail->ring[QSZ] = 1; /* used_event: wake me after entry 1 */
	vur_split_ring_push(&vr, 0, 0);
	TAP_CHECK(vur_split_ring_need_notify(&vr)); /* first notification always */
	vur_split_ring_push(&vr, 1, 0);
	TAP_CHECK(vur_split_ring_need_notify(&vr)); /* idx 1 -> 2 passes event 1 */
	vur_split_ring_push(&vr, 2, 0);
	TAP_CHECK(!vur_split_ring_need_notify(&vr)); /* 2 -> 3 does not */
}

/* Entries pushed later stay unseen until one index store publishes them all, in order. */
static void
push_later_then_publish(void)
{
	setup();
	vur_split_ring_push(&vr, 9, 0);
	vur_split_ring_push_later(&vr, 3, 48);
	vur_split_ring_push_later(&vr, 4, 0);
	TAP_CHECK(used->idx == 1 && used->ring[1].id == 3 && used->ring[2].id == 4);
	TAP_CHECK(used->ring[1].len == 48);
	TAP_CHECK(vur_split_ring_publish(&vr) == 2 && used->idx == 3);
	TAP_CHECK(vur_split_ring_publish(&vr) == 0 && used->idx == 3);
	vur_split_ring_push_later(&vr, 7, 0);
	TAP_CHECK(vur_split_ring_publish(&vr) == 1 && used->idx == 4 && used->ring[3].id == 7);
	/* across the wrap of the 16-bit index */
	vur_split_ring_init(&vr, QSZ, desc, avail, used, 0, 0xffff, false);
	vur_split_ring_push_later(&vr, 1, 0);
	vur_split_ring_push_later(&vr, 2, 0);
	TAP_CHECK(vur_split_ring_publish(&vr) == 2 && used->idx == 1);
	TAP_CHECK(used->ring[QSZ - 1].id == 1 && used->ring[0].id == 2);
}

static uint16_t
avail_event(void)
{
	uint16_t ev;

	memcpy(&ev, &used->ring[QSZ], sizeof(ev));
	return ev;
}

static void
event_idx_asks_for_the_next_kick(void)
{
	uint8_t *past = (uint8_t *)&used->ring[QSZ] + 2; /* just past avail_event */
	struct vur_chain c;
	const char *why;

	setup();
	vur_split_ring_init(&vr, QSZ, desc, avail, used, 0, 0, true);
	past[0] = 0xef;
	past[1] = 0xbe;
	set_desc(desc, 0, DATA_GPA, 4, 0, 0);
	offer(0);
	offer(0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK && pop(&c, &why) == VUR_POP_OK);
	TAP_CHECK(pop(&c, &why) == VUR_POP_EMPTY);
	TAP_CHECK(avail_event() == 2);                 /* kick me when entry 2 is made available */
	TAP_CHECK(past[0] == 0xef && past[1] == 0xbe); /* nothing past it written */
	offer(0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK && pop(&c, &why) == VUR_POP_EMPTY);
	TAP_CHECK(avail_event() == 3);
}

/* A polled ring (no_kick) leaves avail_event behind; armed again, it asks for the next entry. */
static void
polled_ring_asks_for_no_kick(void)
{
	struct vur_chain c;
	const char *why;

	setup();
	vur_split_ring_init(&vr, QSZ, desc, avail, used, 0, 0, true);
	set_desc(desc, 0, DATA_GPA, 4, 0, 0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_EMPTY);
	TAP_CHECK(avail_event() == 0);
	vr.no_kick = true;
	offer(0);
	offer(0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK && pop(&c, &why) == VUR_POP_OK);
	TAP_CHECK(pop(&c, &why) == VUR_POP_EMPTY);
	TAP_CHECK(avail_event() == 0); /* the driver, at 2, is past it: no kick */
	vr.no_kick = false;
	TAP_CHECK(pop(&c, &why) == VUR_POP_EMPTY);
	TAP_CHECK(avail_event() == 2);
}

/*
 * has_avail: entries offered and not taken, without taking them nor asking
 * for a kick (a control thread asks whether a QP has work for its thread).
 */
static void
has_avail_follows_the_driver(void)
{
	struct vur_chain c;
	const char *why;

	setup();
	vur_split_ring_init(&vr, QSZ, desc, avail, used, 0, 0, true);
	set_desc(desc, 0, DATA_GPA, 4, 0, 0);
	TAP_CHECK(!vur_split_ring_has_avail(&vr));
	offer(0);
	TAP_CHECK(vur_split_ring_has_avail(&vr));
	TAP_CHECK(vur_split_ring_has_avail(&vr)); /* nothing taken */
	TAP_CHECK(avail_event() == 0);
	TAP_CHECK(pop(&c, &why) == VUR_POP_OK);
	TAP_CHECK(!vur_split_ring_has_avail(&vr));
	vr.broken = true;
	offer(0);
	TAP_CHECK(!vur_split_ring_has_avail(&vr)); /* a broken ring is never served */
}

/* A ring whose entries go past its region is refused (fuzz_vhost's finding). */
static void
ring_must_fit_its_region(void)
{
	uint8_t *end = ram + REGION_SZ; /* the first region ends here, the second starts */

	TAP_CHECK(vur_split_ring_in_mem(mem, 64, ram, ram + 1024, ram + 2048, true));
	/* 64 descriptors: 1024 bytes; one byte less room is too little */
	TAP_CHECK(vur_split_ring_in_mem(mem, 64, end - 1024, ram, ram + 2048, false));
	TAP_CHECK(!vur_split_ring_in_mem(mem, 64, end - 1023, ram, ram + 2048, false));
	/* used ring: 4 + 8 * 64 bytes, and avail_event only with EVENT_IDX */
	TAP_CHECK(vur_split_ring_in_mem(mem, 64, ram, ram + 1024, end - 516, false));
	TAP_CHECK(!vur_split_ring_in_mem(mem, 64, ram, ram + 1024, end - 516, true));
	/* avail ring: 4 + 2 * 64 bytes, used_event with EVENT_IDX */
	TAP_CHECK(!vur_split_ring_in_mem(mem, 64, ram, end - 132, ram + 2048, true));
	/* a larger size than the ring was set up for, as SET_VRING_NUM after SET_VRING_ADDR */
	TAP_CHECK(!vur_split_ring_in_mem(mem, 32768, ram, ram + 1024, ram + 2048, false));
	TAP_CHECK(!vur_split_ring_in_mem(mem, 64, ram - 16, ram + 1024, ram + 2048, false));
	TAP_CHECK(!vur_split_ring_in_mem(NULL, 64, ram, ram + 1024, ram + 2048, false));
	TAP_CHECK(!vur_split_ring_in_mem(mem, 0, ram, ram + 1024, ram + 2048, false));
}

int
main(void)
{
	ram = aligned_alloc(4096, 2 * REGION_SZ);
	mem = calloc(1, sizeof(*mem) + 2 * sizeof(mem->regions[0]));
	mem->nregions = 2;
	for (int i = 0; i < 2; i++) {
		mem->regions[i].guest_phys_addr = GPA0 + i * REGION_SZ;
		mem->regions[i].size = REGION_SZ;
		mem->regions[i].host_user_addr = (uintptr_t)(ram + i * REGION_SZ);
	}
	TAP_RUN(empty_ring);
	TAP_RUN(readable_then_writable);
	TAP_RUN(buffer_across_regions);
	TAP_RUN(bad_chains);
	TAP_RUN(too_many_segments);
	TAP_RUN(indirect);
	TAP_RUN(broken_ring);
	TAP_RUN(push_and_notify);
	TAP_RUN(push_later_then_publish);
	TAP_RUN(event_idx_asks_for_the_next_kick);
	TAP_RUN(polled_ring_asks_for_no_kick);
	TAP_RUN(has_avail_follows_the_driver);
	TAP_RUN(ring_must_fit_its_region);
	free(mem);
	free(ram);
	return tap_done();
}
