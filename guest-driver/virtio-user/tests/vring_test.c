/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's split ring, with the test playing the device: it reads the
 * descriptors and the available ring, and writes the used ring, correctly
 * or not. Whatever a device writes must not make the driver take a chain it
 * did not make available, nor believe more bytes were written than it gave.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "vring.h"

#define GPA 0x100000000ULL
#define NUM 8

static struct vuser_vring vr;
static void *mem;

static void
setup(bool event_idx)
{
	mem = aligned_alloc(4096, 4096);
	memset(mem, 0, 4096);
	TAP_CHECK(vuser_vring_mem_size(NUM) <= 4096);
	TAP_EQ(vuser_vring_init(&vr, NUM, mem, GPA, event_idx), 0);
}

static void
teardown(void)
{
	vuser_vring_fini(&vr);
	free(mem);
}

/* Device: the head of available entry @i. */
static uint16_t
dev_avail(uint16_t i)
{
	return le16toh(vr.avail->ring[i % NUM]);
}

/* Device: mark @id used with @len bytes written. */
static void
dev_push(uint32_t id, uint32_t len)
{
	uint16_t idx = le16toh(vr.used->idx);

	vr.used->ring[idx % NUM].id = htole32(id);
	vr.used->ring[idx % NUM].len = htole32(len);
	vr.used->idx = htole16(idx + 1);
}

static int cookies[NUM];

static int
add2(int i)
{
	struct vuser_sg sg[2] = { { GPA + 0x1000, 10 }, { GPA + 0x2000, 20 } };

	return vuser_vring_add(&vr, sg, 1, 1, &cookies[i]);
}

static void
layout_and_chain(void)
{
	struct vuser_sg sg[3] = { { GPA + 0x1000, 2 }, { GPA + 0x1002, 8 }, { GPA + 0x100a, 1 } };
	int head;
	uint16_t d;

	setup(false);
	TAP_EQ(vr.desc_gpa, GPA);
	TAP_EQ(vr.avail_gpa, GPA + 16 * NUM);
	TAP_EQ(vr.used_gpa % 64, 0);
	head = vuser_vring_add(&vr, sg, 2, 1, &cookies[0]);
	TAP_EQ(head, 0);
	TAP_EQ(le16toh(vr.avail->idx), 0); /* not visible before publish */
	TAP_CHECK(vuser_vring_publish(&vr));
	TAP_EQ(le16toh(vr.avail->idx), 1);
	TAP_EQ(dev_avail(0), head);
	d = head;
	TAP_EQ(le64toh(vr.desc[d].addr), GPA + 0x1000);
	TAP_EQ(le16toh(vr.desc[d].flags), VRING_DESC_F_NEXT);
	d = le16toh(vr.desc[d].next);
	TAP_EQ(le32toh(vr.desc[d].len), 8);
	TAP_EQ(le16toh(vr.desc[d].flags), VRING_DESC_F_NEXT);
	d = le16toh(vr.desc[d].next);
	TAP_EQ(le16toh(vr.desc[d].flags), VRING_DESC_F_WRITE);
	TAP_EQ(vr.num_free, NUM - 3);
	teardown();
}

static void
used_round_trip(void)
{
	void *cookie = NULL;
	uint32_t len = 0;

	setup(false);
	TAP_EQ(add2(0), 0);
	vuser_vring_publish(&vr);
	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), 0);
	dev_push(dev_avail(0), 20);
	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), 1);
	TAP_CHECK(cookie == &cookies[0]);
	TAP_EQ(len, 20);
	TAP_EQ(vr.num_free, NUM);
	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), 0);
	teardown();
}

static void
ring_full(void)
{
	int i;

	setup(false);
	for (i = 0; i < NUM / 2; i++)
		TAP_CHECK(add2(i) >= 0);
	TAP_EQ(add2(0), -ENOSPC);
	TAP_EQ(vuser_vring_add(&vr, NULL, 0, 0, &cookies[0]), -EINVAL);
	teardown();
}

/* The device may rewrite descriptors; the free list lives where it cannot. */
static void
descriptors_scribbled(void)
{
	void *cookie;
	uint32_t len;
	int i, head;

	setup(false);
	memset(vr.desc, 0xff, sizeof(vr.desc[0]) * NUM);
	for (i = 0; i < NUM / 2; i++) {
		head = add2(i);
		TAP_CHECK(head >= 0 && head < NUM);
	}
	vuser_vring_publish(&vr);
	for (i = 0; i < NUM / 2; i++)
		dev_push(dev_avail(i), 0);
	for (i = 0; i < NUM / 2; i++)
		TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), 1);
	TAP_EQ(vr.num_free, NUM);
	teardown();
}

static void
expect_broken(void)
{
	void *cookie = NULL;
	uint32_t len = 0;

	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), -EPROTO);
	TAP_CHECK(cookie == NULL);
	TAP_CHECK(vr.broken);
	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), -EIO);
	TAP_EQ(add2(1), -EIO);
}

static void
used_id_out_of_range(void)
{
	setup(false);
	add2(0);
	vuser_vring_publish(&vr);
	dev_push(NUM, 0);
	expect_broken();
	teardown();
}

static void
used_id_not_in_flight(void)
{
	setup(false);
	add2(0);
	vuser_vring_publish(&vr);
	dev_push(dev_avail(0) + 1, 0); /* a descriptor inside the chain, not its head */
	expect_broken();
	teardown();
}

static void
used_twice(void)
{
	void *cookie;
	uint32_t len;

	setup(false);
	add2(0);
	add2(1);
	vuser_vring_publish(&vr);
	dev_push(dev_avail(0), 0);
	dev_push(dev_avail(0), 0);
	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), 1);
	expect_broken();
	teardown();
}

static void
used_len_too_long(void)
{
	setup(false);
	add2(0);
	vuser_vring_publish(&vr);
	dev_push(dev_avail(0), 21); /* the writable part is 20 bytes */
	expect_broken();
	teardown();
}

static void
used_index_too_far(void)
{
	setup(false);
	add2(0);
	vuser_vring_publish(&vr);
	dev_push(dev_avail(0), 0);
	vr.used->idx = htole16(5);
	expect_broken();
	teardown();
}

static void
kick_without_event_idx(void)
{
	setup(false);
	add2(0);
	TAP_CHECK(vuser_vring_publish(&vr));
	vr.used->flags = htole16(VRING_USED_F_NO_NOTIFY);
	add2(1);
	TAP_CHECK(!vuser_vring_publish(&vr));
	teardown();
}

/* The device asks for a kick when avail idx passes avail_event (virtio 2.7.10). */
static void
kick_with_event_idx(void)
{
	uint16_t *avail_event;

	setup(true);
	avail_event = (uint16_t *)&vr.used->ring[NUM];
	*avail_event = htole16(0);
	add2(0);
	TAP_CHECK(vuser_vring_publish(&vr)); /* 0 -> 1 passes 0 */
	add2(1);
	TAP_CHECK(!vuser_vring_publish(&vr)); /* 1 -> 2 does not */
	*avail_event = htole16(2);
	add2(2);
	TAP_CHECK(vuser_vring_publish(&vr)); /* 2 -> 3 passes 2 */
	teardown();
}

static void
notify_control(void)
{
	uint16_t *used_event;
	void *cookie;
	uint32_t len;

	setup(true);
	used_event = &vr.avail->ring[NUM];
	add2(0);
	add2(1);
	vuser_vring_publish(&vr);
	TAP_CHECK(!vuser_vring_enable_notify(&vr));
	TAP_EQ(le16toh(*used_event), 0);
	dev_push(dev_avail(0), 0);
	TAP_CHECK(vuser_vring_enable_notify(&vr)); /* something is pending: look again */
	TAP_EQ(vuser_vring_get_used(&vr, &cookie, &len), 1);
	TAP_EQ(le16toh(*used_event), 1);
	vuser_vring_disable_notify(&vr);
	TAP_EQ(le16toh(*used_event), 0);
	teardown();

	setup(false);
	vuser_vring_disable_notify(&vr);
	TAP_EQ(le16toh(vr.avail->flags), VRING_AVAIL_F_NO_INTERRUPT);
	vuser_vring_enable_notify(&vr);
	TAP_EQ(le16toh(vr.avail->flags), 0);
	teardown();
}

static void
in_flight_reclaimed(void)
{
	uint16_t pos = 0;
	int n = 0;

	setup(false);
	add2(0);
	add2(1);
	vuser_vring_publish(&vr);
	while (vuser_vring_next_in_flight(&vr, &pos) != NULL)
		n++;
	TAP_EQ(n, 2);
	TAP_EQ(vr.num_free, NUM);
	teardown();
}

static void
bad_sizes(void)
{
	struct vuser_vring r;
	char buf[64];

	TAP_EQ(vuser_vring_init(&r, 0, buf, GPA, false), -EINVAL);
	TAP_EQ(vuser_vring_init(&r, 6, buf, GPA, false), -EINVAL);
	TAP_EQ(vuser_vring_init(&r, 65535, buf, GPA, false), -EINVAL);
}

int
main(void)
{
	TAP_RUN(layout_and_chain);
	TAP_RUN(used_round_trip);
	TAP_RUN(ring_full);
	TAP_RUN(descriptors_scribbled);
	TAP_RUN(used_id_out_of_range);
	TAP_RUN(used_id_not_in_flight);
	TAP_RUN(used_twice);
	TAP_RUN(used_len_too_long);
	TAP_RUN(used_index_too_far);
	TAP_RUN(kick_without_event_idx);
	TAP_RUN(kick_with_event_idx);
	TAP_RUN(notify_control);
	TAP_RUN(in_flight_reclaimed);
	TAP_RUN(bad_sizes);
	return tap_done();
}
