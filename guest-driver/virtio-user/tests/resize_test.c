/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resizing CQs (ibv_resize_cq) end to end, on one real backend through
 * virtio-user, RDMA WRITEs between two devices with their data checked:
 *
 *   ring_resize   ROCE-DEV-RING-23, -24, -25; ROCE-DRV-RING-8, -9, -10: a
 *                 ring CQ holding 200 CQEs grown 256 -> 8192 and filled to
 *                 1200 beyond the switch, the arm made before it firing
 *                 after it; every refusal (pending CQEs, beyond
 *                 max_ring_cqe, unknown CQ, virtqueue CQ, bad ring) leaving
 *                 the CQ working; shrunk to 16 once drained
 *   vq_resize     a CQ on a completion virtqueue grown and shrunk by the
 *                 driver alone, and refused beyond its virtqueue
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "rdma_e2e.h"
#include "rdma_pair.h"
#include "tap.h"
#include "vur_rings.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define BUF_LEN  (1u << 20)
#define MEM_SIZE (32u << 20)
#define MSG      64u
#define CHUNK    32u /* rdma_create_qp()'s max_send_wr */

static struct rdma_e2e e2e;
static struct rdma_ep a, b;
static struct vur_user_device_attr attr;

static void
devices_open(void)
{
	if (!rdma_e2e_start(&e2e, &a, &b, BUF_LEN, MEM_SIZE) || !rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_query_device(a.d, &attr), 0);
	TAP_CHECK(attr.device_cap_flags & VUR_USER_DEVICE_RESIZE_CQ);
}

/* CQEs the device wrote into a's CQ on rings @cqn (its record's prod). */
static uint32_t
ring_prod(uint32_t cqn)
{
	struct vur_user_ring_info info;

	if (vur_user_cq_ring_info(a.d, cqn, &info) < 0)
		return 0;
	return le32toh(__atomic_load_n(
			&((struct virtio_rdma_cq_rec *)info.rec)->prod, __ATOMIC_ACQUIRE));
}

/* CQEs the device wrote on a (its counter). */
static uint64_t
cqes_written(void)
{
	return rdma_e2e_counter(&e2e, &a, "rdma_cqes");
}

/*
 * WRITEs @first to @first + @n - 1 (wr_id i, message i of the buffer) from a
 * to b on @qa, CHUNK at a time, each chunk's CQEs written (not polled)
 * before the next: what @written counts reaches @base + n. Whether they
 * all were.
 */
static bool
writes(uint32_t qa, uint32_t first, uint32_t n, uint64_t (*written)(uint32_t), uint32_t arg,
		uint64_t base)
{
	uint64_t end;
	uint32_t i = first, k;

	while (i < first + n) {
		for (k = 0; k < CHUNK && i < first + n; k++, i++) {
			rdma_fill(a.buf + (uint64_t)i * MSG, MSG, i);
			if (rdma_post_rdma(&a, qa, VUR_USER_WR_RDMA_WRITE, (uint64_t)i * MSG, MSG,
					    b.addr + (uint64_t)i * MSG, b.mr.rkey, i) != 0)
				return false;
		}
		end = rdma_now_ms() + RDMA_E2E_WAIT_MS;
		while (written(arg) < base + (i - first) && rdma_now_ms() < end)
			poll(NULL, 0, 1);
		if (written(arg) < base + (i - first)) {
			printf("# %" PRIu64 " of %u CQEs written\n", written(arg) - base,
					i - first);
			return false;
		}
	}
	return true;
}

static uint64_t
ring_written(uint32_t cqn)
{
	return ring_prod(cqn);
}

static uint64_t
vq_written(uint32_t unused)
{
	(void)unused;
	return cqes_written();
}

/* Poll CQEs @first to @first + @n - 1 of @cqn in order, each message's data at b checked. */
static bool
poll_checked(uint32_t cqn, uint32_t first, uint32_t n)
{
	uint32_t saved = a.cqn, i;
	bool ok = true;

	a.cqn = cqn;
	for (i = first; ok && i < first + n; i++) {
		ok = EXPECT_CQE(&a, i, VUR_USER_WC_SUCCESS, VUR_USER_WC_RDMA_WRITE);
		ok = ok && memcmp(a.buf + (uint64_t)i * MSG, b.buf + (uint64_t)i * MSG, MSG) == 0;
	}
	ok = ok && rdma_no_cqe(&a, 0);
	a.cqn = saved;
	TAP_CHECK(ok);
	return ok;
}

/* RESIZE_CQ as a driver could send it: @cqn onto @log_size entries of @log_stride at @addr. */
static int
raw_resize(uint32_t cqn, uint32_t cqe, uint64_t addr, uint32_t lkey, uint8_t log_size,
		uint8_t log_stride)
{
	struct virtio_rdma_cmd_resize_cq c = {
		.cqn = htole32(cqn),
		.cqe = htole32(cqe),
		.ring = { .addr = htole64(addr),
				.lkey = htole32(lkey),
				.log_size = log_size,
				.log_stride = log_stride },
	};
	struct virtio_rdma_ack_resize_cq ack;

	return rdma_raw(a.d, VIRTIO_NET_CTRL_ROCE_RESIZE_CQ, &c, sizeof(c), &ack, sizeof(ack));
}

/* ROCE-DEV-RING-23..25, ROCE-DRV-RING-8..10 */
static void
ring_resize(void)
{
	uint32_t cq, vcq, qa, qb, saved = a.cqn, n = 0;
	struct vur_user_ring_info info;
	uint64_t free_addr;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(vur_user_create_cq_ex(a.d, 256, VUR_USER_LAYOUT_RINGS, &cq), 0);
	a.cqn = cq;
	if (!rdma_rc_pair(&a, &b, &qa, &qb))
		goto out;
	TAP_CHECK(writes(qa, 0, 200, ring_written, cq, 0));
	n = 200;
	/* armed before the resize: the first CQE after it notifies */
	TAP_CHECK(vur_user_cq_event_fd(a.d, cq) >= 0);
	TAP_EQ(vur_user_req_notify_cq(a.d, cq, VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	/* 200 CQEs wait: the library refuses 199, and so does the device */
	TAP_EQ(vur_user_resize_cq(a.d, cq, 199), -EINVAL);
	TAP_EQ(vur_user_cq_ring_info(a.d, cq, &info), 0);
	/* a ring the device would take but for the pending CQEs: 128 entries after the CQ's */
	free_addr = info.ring_addr[0];
	TAP_EQ(raw_resize(cq, 128, free_addr, info.lkey, 7, 6), VIRTIO_NET_ERR);
	/* beyond max_ring_cqe; unknown CQ; a ring misaligned, of a too small stride, without a key
	 */
	TAP_EQ(vur_user_resize_cq(a.d, cq, attr.max_ring_cqe + 1), -EINVAL);
	TAP_EQ(raw_resize(cq + 1, 256, free_addr, info.lkey, 8, 6), VIRTIO_NET_ERR);
	TAP_EQ(raw_resize(cq, 256, free_addr + 8, info.lkey, 8, 6), VIRTIO_NET_ERR);
	TAP_EQ(raw_resize(cq, 256, free_addr, info.lkey, 8, 5), VIRTIO_NET_ERR);
	TAP_EQ(raw_resize(cq, 256, free_addr, 0x7777700, 8, 6), VIRTIO_NET_ERR);
	/* a virtqueue CQ: no command (the driver's alone) */
	TAP_EQ(vur_user_create_cq_ex(a.d, 16, VUR_USER_LAYOUT_VIRTQUEUES, &vcq), 0);
	TAP_EQ(raw_resize(vcq, 256, free_addr, info.lkey, 8, 6), VIRTIO_NET_ERR);
	TAP_EQ(vur_user_destroy_cq(a.d, vcq), 0);
	/* the CQ as it was: its 200 CQEs in place, no event yet */
	TAP_EQ(vur_user_get_cq_event(a.d, cq, 0), 0);
	TAP_EQ(ring_prod(cq), 200);
	/* up: 8192 entries, then filled far beyond the old 256 */
	TAP_EQ(vur_user_resize_cq(a.d, cq, 8192), 0);
	TAP_EQ(vur_user_cq_ring_info(a.d, cq, &info), 0);
	TAP_EQ(info.size[0], 8192);
	TAP_CHECK(writes(qa, n, 1000, ring_written, cq, n));
	n += 1000;
	TAP_EQ(vur_user_get_cq_event(a.d, cq, RDMA_E2E_WAIT_MS), 1); /* the arm held */
	TAP_EQ(vur_user_cq_ring_info(a.d, cq, &info), 0);
	TAP_EQ(info.errors, 0);
	if (!poll_checked(cq, 0, n))
		goto pair;
	/* down, once drained; 16 more fill it exactly */
	TAP_EQ(vur_user_resize_cq(a.d, cq, 16), 0);
	TAP_EQ(vur_user_cq_ring_info(a.d, cq, &info), 0);
	TAP_EQ(info.size[0], 16);
	TAP_CHECK(writes(qa, n, 16, ring_written, cq, n));
	TAP_CHECK(poll_checked(cq, n, 16));
	TAP_EQ(vur_user_cq_ring_info(a.d, cq, &info), 0);
	TAP_EQ(info.errors, 0);
pair:
	rdma_pair_done(&a, &b, qa, qb);
out:
	a.cqn = saved;
	TAP_EQ(vur_user_destroy_cq(a.d, cq), 0);
}

/* The spec's "Resizing a Completion Queue": a virtqueue CQ is the driver's to resize. */
static void
vq_resize(void)
{
	uint32_t cq, qa, qb, saved = a.cqn, n = 0;
	struct vur_user_params p;
	uint64_t base;

	if (!rdma_e2e_ready(&a, &b))
		return;
	vur_user_params_init(&p, a.path); /* as rdma_ep_open() opened a */
	TAP_EQ(vur_user_create_cq_ex(a.d, 16, VUR_USER_LAYOUT_VIRTQUEUES, &cq), 0);
	a.cqn = cq;
	if (!rdma_rc_pair(&a, &b, &qa, &qb))
		goto out;
	/* beyond the virtqueue: refused, the CQ unchanged */
	TAP_EQ(vur_user_resize_cq(a.d, cq, p.rdma_queue_size + 1u), -EINVAL);
	TAP_EQ(vur_user_resize_cq(a.d, cq, 0), -EINVAL);
	/* 16 -> 60 (the virtqueue's 64 minus a margin): 60 CQEs held at once */
	TAP_EQ(vur_user_resize_cq(a.d, cq, 60), 0);
	base = cqes_written();
	TAP_CHECK(writes(qa, 0, 60, vq_written, 0, base));
	n = 60;
	TAP_CHECK(poll_checked(cq, 0, n));
	/* down to 8: it takes effect as CQEs are polled (60 buffers are out, none taken back) */
	TAP_EQ(vur_user_resize_cq(a.d, cq, 8), 0);
	base = cqes_written();
	TAP_CHECK(writes(qa, n, 8, vq_written, 0, base));
	TAP_CHECK(poll_checked(cq, n, 8));
	n += 8;
	TAP_EQ(vur_user_resize_cq(a.d, cq, 40), 0);
	base = cqes_written();
	TAP_CHECK(writes(qa, n, 40, vq_written, 0, base));
	TAP_CHECK(poll_checked(cq, n, 40));
	n += 40;
	/* 20 buffers were kept back by now: up to 60 again reuses them, 60 held at once */
	TAP_EQ(vur_user_resize_cq(a.d, cq, 60), 0);
	base = cqes_written();
	TAP_CHECK(writes(qa, n, 60, vq_written, 0, base));
	TAP_CHECK(poll_checked(cq, n, 60));
	TAP_EQ(rdma_qp_state(&a, qa), VUR_USER_QPS_RTS);
	rdma_pair_done(&a, &b, qa, qb);
out:
	a.cqn = saved;
	TAP_EQ(vur_user_destroy_cq(a.d, cq), 0);
}

static void
devices_close(void)
{
	rdma_e2e_stop(&e2e, &a, &b);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_args(&e2e, argc, argv) < 0)
		return 1;
	TAP_RUN(devices_open);
	TAP_RUN(ring_resize);
	TAP_RUN(vq_resize);
	TAP_RUN(devices_close);
	child_cleanup(&e2e.backend);
	return tap_done();
}
