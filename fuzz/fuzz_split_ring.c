/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The split-ring walker as a device meets a driver that writes anything:
 * descriptor tables, indirect tables, avail indices, lengths, flags, over
 * guest memory of two adjacent regions between guard pages (fuzz_dev.h).
 * Every chain popped is read and written whole, as a device would, so an
 * iovec outside the memory faults or trips ASan.
 *
 * An input: u8 mode, le16 avail index, then the bytes of the descriptor
 * table, of the avail ring, and of a data area where indirect tables may
 * be. Mode: the ring size (2^((mode & 15) % 9)), bit 4 event index, bit 5 raw
 * addresses (else each descriptor's address, the data area's too, is
 * folded into memory and a page either side of it, so that most land
 * inside).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "fuzz/fuzz_dev.h"
#include "vring/split_ring.h"

#define DESC_GPA  VUR_FUZZ_GPA0
#define AVAIL_GPA (VUR_FUZZ_GPA0 + 0x1000)
#define USED_GPA  (VUR_FUZZ_GPA0 + 0x2000)
#define DATA_GPA  (VUR_FUZZ_GPA0 + 0x3000)
#define DATA_SZ   0x2000u
#define AREA_SZ   (DATA_GPA + DATA_SZ - VUR_FUZZ_GPA0)
#define MAX_POPS  512
#define RAW_ADDR  0x20

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t bounce[VUR_CHAIN_MAX_IOV * 4096];
static const uint8_t zeros[4096];

/* Copy up to @n input bytes to driver address @gpa; returns how many. */
static size_t
fill(uint64_t gpa, const uint8_t **p, size_t *left, size_t n)
{
	n = RTE_MIN(n, *left);
	memcpy(vur_fuzz_at(gpa), *p, n);
	*p += n;
	*left -= n;
	return n;
}

/* Descriptor addresses folded into [memory - 4 KiB, memory + 4 KiB). */
static void
fold_addrs(struct vring_desc *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i].addr = VUR_FUZZ_GPA0 - 4096 + d[i].addr % (VUR_FUZZ_RAM_SZ + 8192);
}

/* What a device does with a chain: read what it may read, write what it may write. */
static uint32_t
use(const struct vur_chain *c)
{
	uint32_t n = vur_chain_read(c, 0, bounce, RTE_MIN(c->out_len, (uint32_t)sizeof(bounce)));
	uint32_t w = 0;

	if (n > c->out_len)
		abort();
	/* zeros: nothing one input writes reaches the next */
	while (w < c->in_len) {
		uint32_t k = vur_chain_write(c, w, zeros, RTE_MIN(c->in_len - w, sizeof(zeros)));

		if (k == 0)
			abort(); /* in_len promised room that is not there */
		w += k;
	}
	return w;
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
	struct vur_split_ring vr;
	struct vring_avail *avail = vur_fuzz_at(AVAIL_GPA);
	struct vur_chain c;
	const char *why;
	uint16_t qsz, idx;
	uint8_t mode;

	if (size < 3)
		return 0;
	mode = data[0];
	idx = (uint16_t)(data[1] | data[2] << 8);
	data += 3;
	size -= 3;
	qsz = (uint16_t)(1u << ((mode & 0x0f) % 9));
	memset(vur_fuzz_at(VUR_FUZZ_GPA0), 0, AREA_SZ);
	fill(DESC_GPA, &data, &size, qsz * sizeof(struct vring_desc));
	fill(AVAIL_GPA + offsetof(struct vring_avail, ring), &data, &size,
			qsz * sizeof(uint16_t) + 2);
	fill(DATA_GPA, &data, &size, DATA_SZ);
	if (!(mode & RAW_ADDR)) {
		fold_addrs(vur_fuzz_at(DESC_GPA), qsz);
		fold_addrs(vur_fuzz_at(DATA_GPA), DATA_SZ / sizeof(struct vring_desc));
	}
	avail->idx = idx;
	vur_split_ring_init(&vr, qsz, vur_fuzz_at(DESC_GPA), avail, vur_fuzz_at(USED_GPA), 0, 0,
			mode & 0x10);
	for (int i = 0; i < MAX_POPS; i++) {
		enum vur_pop_result r = vur_split_ring_pop(&vr, vur_fuzz_mem(), &c, &why);

		if (r == VUR_POP_OK) {
			if (c.n_out + c.n_in > VUR_CHAIN_MAX_IOV)
				abort();
			vur_split_ring_push_later(&vr, c.head, use(&c));
		} else if (r == VUR_POP_BAD_CHAIN) {
			vur_split_ring_push(&vr, c.head, 0);
		} else {
			break;
		}
		if (i % 8 == 7) {
			vur_split_ring_publish(&vr);
			vur_split_ring_need_notify(&vr);
		}
	}
	vur_split_ring_publish(&vr);
	vur_split_ring_need_notify(&vr);
	return 0;
}
