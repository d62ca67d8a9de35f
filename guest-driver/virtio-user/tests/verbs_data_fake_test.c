/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data verbs against the scripted backend of fake_backend.c, the test
 * playing the device on the RDMA virtqueues: what post_send and post_recv
 * put on the rings (ROCE-DRV-WR-1, -2, -4), what poll_cq makes of a CQE
 * (ROCE-DRV-CQE-1, -2), completion events, and the rings after a destroy
 * (ROCE-DRV-LIFE-2). What the real engine does with them is rdma_test.c's
 * business.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_net_roce.h>
#include <linux/virtio_ring.h>

#include "fake_backend.h"
#include "tap.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define MEM_SIZE (4u << 20)
#define WAIT_MS  2000
#define CQE      3 /* the CQ's entries, and so its buffers */
#define QPN      2
#define CQN      0

static struct fake_backend fake;
static struct vur_user_dev *dev;
/* The fake device has 3 QPs and 1 CQ: the virtqueue numbers the spec gives them. */
static uint32_t cq_vq, sq_vq, rq_vq;

static void
log_hook(void *arg, int level, const char *msg)
{
	(void)arg;
	printf("# log %d: %s\n", level, msg);
}

static const struct vur_user_qp_init_attr rc_attr = {
	.qp_type = VUR_USER_QPT_RC,
	.cap = { .max_send_wr = 4, .max_recv_wr = 2, .max_send_sge = 2, .max_recv_sge = 1 },
};

static void
open_fake(void)
{
	struct vur_user_params p;

	fake_init(&fake);
	TAP_EQ(fake_start(&fake), 0);
	vur_user_params_init(&p, fake.path);
	p.mem_size = MEM_SIZE;
	p.timeout_ms = WAIT_MS;
	TAP_EQ(vur_user_open(&p, &dev), 0);
	cq_vq = virtio_net_roce_cq_vq(1, CQN);
	sq_vq = virtio_net_roce_sq_vq(1, 1, QPN);
	rq_vq = virtio_net_roce_rq_vq(1, 1, QPN);
}

static void
close_fake(void)
{
	vur_user_close(dev);
	fake_stop(&fake);
	dev = NULL;
}

/* A CQ and an RC QP on it, as the fake numbers them. */
static bool
create_objects(const struct vur_user_qp_init_attr *attr)
{
	struct vur_user_qp_init_attr ia = *attr;
	uint32_t cqn = 99, qpn = 99;

	TAP_EQ(vur_user_create_cq(dev, CQE, &cqn), 0);
	TAP_EQ(cqn, CQN);
	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	TAP_EQ(qpn, QPN);
	return cqn == CQN && qpn == QPN;
}

/* ROCE-DRV-CQE-1: the CQ's buffers, one device-writable descriptor of a CQE each. */
static void
cq_buffers_made_available(void)
{
	struct fake_chain c;
	int n = 0;

	open_fake();
	if (!create_objects(&rc_attr))
		goto out;
	while (fake_vq_next(&fake, cq_vq, &c) == 1) {
		TAP_EQ(c.n_desc, 1);
		TAP_EQ(c.flags, VRING_DESC_F_WRITE);
		TAP_EQ(c.len, sizeof(struct virtio_rdma_cq_req));
		TAP_CHECK(c.buf != NULL);
		n++;
	}
	TAP_EQ(n, CQE);
	/* the send and receive queues start empty (ROCE-DRV-LIFE-1) */
	TAP_EQ(fake_vq_avail_idx(&fake, sq_vq), 0);
	TAP_EQ(fake_vq_avail_idx(&fake, rq_vq), 0);
out:
	close_fake();
}

static bool
all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* ROCE-DRV-WR-1, -4: a WRITE with immediate and two elements, as the wire lays it out. */
static void
send_wr_layout(void)
{
	const struct vur_user_sge sg[2] = { { 0x1000, 10, 0x11 }, { 0x2000, 20, 0x22 } };
	struct vur_user_send_wr wr = {
		.wr_id = 0x1122334455667788,
		.opcode = VUR_USER_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = VUR_USER_SEND_SIGNALED | VUR_USER_SEND_FENCE,
		.imm_data = htobe32(0xabcdef01),
		.rdma = { .remote_addr = 0x123456789a, .rkey = 0x77 },
		.sg_list = sg,
		.num_sge = 2,
	};
	const struct virtio_rdma_sq_req *r;
	struct fake_chain c;
	struct pollfd kick;

	open_fake();
	if (!create_objects(&rc_attr))
		goto out;
	TAP_EQ(vur_user_post_send(dev, QPN, &wr, 1, NULL), 0);
	kick = (struct pollfd){ .fd = fake.vq[sq_vq].kick_fd, .events = POLLIN };
	TAP_EQ(poll(&kick, 1, WAIT_MS), 1); /* the device was notified */
	TAP_EQ(fake_vq_next(&fake, sq_vq, &c), 1);
	TAP_EQ(c.n_desc, 1);
	TAP_EQ(c.flags, 0); /* device-readable, one descriptor */
	TAP_EQ(c.len, sizeof(*r) + 2 * sizeof(struct virtio_rdma_sge));
	r = c.buf;
	if (r == NULL)
		goto out;
	TAP_EQ(le64toh(r->wr_id), 0x1122334455667788);
	TAP_EQ(r->opcode, VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM);
	TAP_EQ(r->send_flags, VIRTIO_IB_SEND_SIGNALED | VIRTIO_IB_SEND_FENCE);
	TAP_EQ(be32toh(r->imm_data), 0xabcdef01);
	TAP_EQ(le64toh(r->rdma.remote_addr), 0x123456789a);
	TAP_EQ(le32toh(r->rdma.rkey), 0x77);
	TAP_EQ(le32toh(r->num_sge), 2);
	TAP_EQ(le64toh(r->sg_list[1].addr), 0x2000);
	TAP_EQ(le32toh(r->sg_list[1].length), 20);
	TAP_EQ(le32toh(r->sg_list[1].lkey), 0x22);
	TAP_CHECK(r->padding == 0 && all_zero(r->inline_data, sizeof(r->inline_data)) &&
			all_zero(r->reserved2, sizeof(r->reserved2)));
	TAP_CHECK(all_zero((const uint8_t *)&r->rdma + 12, sizeof(r->reserved) - 12));
	/* a SEND has no immediate and no remote address, whatever the caller left there */
	wr.opcode = VUR_USER_WR_SEND;
	TAP_EQ(vur_user_post_send(dev, QPN, &wr, 1, NULL), 0);
	TAP_EQ(fake_vq_next(&fake, sq_vq, &c), 1);
	r = c.buf;
	TAP_EQ(r->imm_data, 0);
	TAP_CHECK(all_zero(r->reserved, sizeof(r->reserved)));
out:
	close_fake();
}

/* Inline data goes into the request; no s/g element follows it (ROCE-DRV-WR-1). */
static void
inline_and_ud_layout(void)
{
	struct vur_user_qp_init_attr ud = rc_attr;
	uint8_t data[100];
	struct vur_user_send_wr wr = {
		.wr_id = 7,
		.opcode = VUR_USER_WR_SEND,
		.send_flags = VUR_USER_SEND_INLINE,
		.ud = { .ah = 5, .remote_qpn = 0x123, .remote_qkey = 0x80010000 },
		.inline_data = data,
		.inline_len = sizeof(data),
	};
	const struct virtio_rdma_sq_req *r;
	struct fake_chain c;

	memset(data, 0x5a, sizeof(data));
	ud.qp_type = VUR_USER_QPT_UD;
	open_fake();
	if (!create_objects(&ud))
		goto out;
	TAP_EQ(vur_user_post_send(dev, QPN, &wr, 1, NULL), 0);
	TAP_EQ(fake_vq_next(&fake, sq_vq, &c), 1);
	TAP_EQ(c.len, sizeof(*r));
	r = c.buf;
	if (r == NULL)
		goto out;
	TAP_EQ(le16toh(r->inline_len), 100);
	TAP_CHECK(memcmp(r->inline_data, data, 100) == 0);
	TAP_CHECK(all_zero(r->inline_data + 100, sizeof(r->inline_data) - 100));
	TAP_EQ(le32toh(r->ud.ah), 5);
	TAP_EQ(le32toh(r->ud.remote_qpn), 0x123);
	TAP_EQ(le32toh(r->ud.remote_qkey), 0x80010000);
out:
	close_fake();
}

/* ROCE-DRV-WR-2: at most max_send_wr outstanding; slots come back when the device uses them. */
static void
post_limits(void)
{
	const struct vur_user_sge sg[3] = { { 0, 1, 1 } };
	struct vur_user_send_wr wr[6];
	struct vur_user_recv_wr rwr[3];
	struct fake_chain c;
	unsigned int bad = 99;

	for (int i = 0; i < 6; i++)
		wr[i] = (struct vur_user_send_wr){ .wr_id = i, .sg_list = sg, .num_sge = 1 };
	for (int i = 0; i < 3; i++)
		rwr[i] = (struct vur_user_recv_wr){ .wr_id = i, .sg_list = sg, .num_sge = 1 };
	open_fake();
	if (!create_objects(&rc_attr))
		goto out;
	/* five WRs: four posted, the fifth finds the queue full */
	TAP_EQ(vur_user_post_send(dev, QPN, wr, 5, &bad), -ENOMEM);
	TAP_EQ(bad, 4);
	TAP_EQ(fake_vq_avail_idx(&fake, sq_vq), 4);
	TAP_EQ(vur_user_post_recv(dev, QPN, rwr, 3, &bad), -ENOMEM);
	TAP_EQ(bad, 2);
	/* the device completes the first: one slot free again */
	TAP_EQ(fake_vq_next(&fake, sq_vq, &c), 1);
	fake_vq_use(&fake, sq_vq, c.head, 0);
	TAP_EQ(vur_user_post_send(dev, QPN, &wr[4], 2, &bad), -ENOMEM);
	TAP_EQ(bad, 1);
	/* what the library cannot express: more elements than the QP's cap, 513 inline bytes */
	fake_vq_next(&fake, sq_vq, &c);
	fake_vq_use(&fake, sq_vq, c.head, 0);
	wr[0].num_sge = 3;
	TAP_EQ(vur_user_post_send(dev, QPN, wr, 1, &bad), -EINVAL);
	TAP_EQ(bad, 0);
	wr[0].send_flags = VUR_USER_SEND_INLINE;
	wr[0].inline_data = sg;
	wr[0].inline_len = 513;
	TAP_EQ(vur_user_post_send(dev, QPN, wr, 1, NULL), -EINVAL);
	rwr[0].num_sge = 2;
	TAP_EQ(vur_user_post_recv(dev, QPN, rwr, 1, NULL), -EINVAL);
	/* no such QP, no such CQ */
	TAP_EQ(vur_user_post_send(dev, 1, &wr[1], 1, &bad), -EINVAL);
	TAP_EQ(vur_user_post_recv(dev, 7, rwr, 1, NULL), -EINVAL);
	TAP_EQ(vur_user_poll_cq(dev, 1, NULL, 0), -EINVAL);
	TAP_EQ(vur_user_cq_event_fd(dev, 1), -EINVAL);
	TAP_EQ(fake_vq_avail_idx(&fake, sq_vq), 5);
out:
	close_fake();
}

/* Write @w into the next CQ buffer, used with @len bytes. */
static void
write_cqe(const struct virtio_rdma_cq_req *w, uint32_t len)
{
	struct fake_chain c;

	if (fake_vq_next(&fake, cq_vq, &c) != 1 || c.buf == NULL) {
		tap_case_failed = 1;
		return;
	}
	memcpy(c.buf, w, sizeof(*w));
	fake_vq_use(&fake, cq_vq, c.head, len);
}

/* ROCE-DRV-CQE-2: CQEs read as written, error CQEs reduced to what they mean. */
static void
poll_converts_cqes(void)
{
	struct virtio_rdma_cq_req ok = {
		.wr_id = htole64(0x42),
		.status = VIRTIO_IB_WC_SUCCESS,
		.opcode = VIRTIO_IB_WC_RECV_RDMA_WITH_IMM,
		.byte_len = htole32(4096),
		.imm_data = htobe32(0x01020304),
		.qp_num = htole32(QPN),
		.src_qp = htole32(9),
		.wc_flags = htole32(VIRTIO_IB_WC_WITH_IMM),
	};
	struct virtio_rdma_cq_req err = ok;
	struct vur_user_wc wc[4];

	open_fake();
	if (!create_objects(&rc_attr))
		goto out;
	TAP_EQ(vur_user_poll_cq(dev, CQN, wc, 4), 0);
	err.wr_id = htole64(0x43);
	err.status = VIRTIO_IB_WC_REM_ACCESS_ERR;
	err.vendor_err = htole32(3);
	write_cqe(&ok, sizeof(ok));
	write_cqe(&err, sizeof(err));
	TAP_EQ(vur_user_poll_cq(dev, CQN, wc, 4), 2);
	TAP_EQ(wc[0].wr_id, 0x42);
	TAP_EQ(wc[0].status, VUR_USER_WC_SUCCESS);
	TAP_EQ(wc[0].opcode, VUR_USER_WC_RECV_RDMA_WITH_IMM);
	TAP_EQ(wc[0].byte_len, 4096);
	TAP_EQ(be32toh(wc[0].imm_data), 0x01020304);
	TAP_EQ(wc[0].qp_num, QPN);
	TAP_EQ(wc[0].src_qp, 9);
	TAP_EQ(wc[0].wc_flags, VUR_USER_WC_WITH_IMM);
	TAP_EQ(wc[1].wr_id, 0x43);
	TAP_EQ(wc[1].status, VUR_USER_WC_REM_ACCESS_ERR);
	TAP_EQ(wc[1].vendor_err, 3);
	TAP_EQ(wc[1].qp_num, QPN);
	TAP_CHECK(wc[1].byte_len == 0 && wc[1].imm_data == 0 && wc[1].src_qp == 0 &&
			wc[1].wc_flags == 0);
	TAP_EQ(strcmp(vur_user_wc_status_str(wc[1].status), "remote access error"), 0);
	TAP_EQ(strcmp(vur_user_wc_status_str(200), "unknown"), 0);
	/* both buffers are available again: three CQEs fit once more */
	TAP_EQ(fake_vq_avail_idx(&fake, cq_vq), CQE + 2);
	/* a short CQE is the device's error: reported, its buffer kept */
	write_cqe(&ok, 40);
	TAP_EQ(vur_user_poll_cq(dev, CQN, wc, 4), -EPROTO);
	TAP_EQ(fake_vq_avail_idx(&fake, cq_vq), CQE + 3);
out:
	close_fake();
}

/* Completion events: the CQ virtqueue's notification, taken once (ibv_get_cq_event()). */
static void
cq_events(void)
{
	uint64_t one = 1;
	struct pollfd p;

	open_fake();
	if (!create_objects(&rc_attr))
		goto out;
	p = (struct pollfd){ .fd = vur_user_cq_event_fd(dev, CQN), .events = POLLIN };
	TAP_CHECK(p.fd >= 0);
	TAP_EQ(vur_user_get_cq_event(dev, CQN, 0), 0);
	TAP_EQ(vur_user_get_cq_event(dev, CQN, 20), 0);
	/* two notifications before the driver looks: one event */
	TAP_EQ(write(fake.vq[cq_vq].call_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	TAP_EQ(write(fake.vq[cq_vq].call_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	TAP_EQ(poll(&p, 1, 0), 1);
	TAP_EQ(vur_user_get_cq_event(dev, CQN, WAIT_MS), 1);
	TAP_EQ(poll(&p, 1, 0), 0);
	TAP_EQ(vur_user_get_cq_event(dev, CQN, 0), 0);
	/* arming is the control command */
	TAP_EQ(vur_user_req_notify_cq(dev, CQN, VUR_USER_NOTIFY_SOLICITED), 0);
	TAP_EQ(fake.last_cmd[1], VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ);
out:
	close_fake();
}

/* ROCE-DRV-LIFE-2: after a destroy the rings are as new, and the numbers can live again. */
static void
destroy_resets_rings(void)
{
	const struct vur_user_sge sg = { 0, 1, 1 };
	struct vur_user_send_wr wr = { .sg_list = &sg, .num_sge = 1 };
	struct vur_user_recv_wr rwr = { .sg_list = &sg, .num_sge = 1 };
	struct fake_chain c;
	struct vur_user_wc wc;

	open_fake();
	if (!create_objects(&rc_attr))
		goto out;
	TAP_EQ(vur_user_post_send(dev, QPN, &wr, 1, NULL), 0);
	TAP_EQ(vur_user_post_recv(dev, QPN, &rwr, 1, NULL), 0);
	TAP_EQ(vur_user_destroy_qp(dev, QPN), 0);
	TAP_EQ(vur_user_destroy_cq(dev, CQN), 0);
	TAP_EQ(fake_vq_avail_idx(&fake, sq_vq), 0);
	TAP_EQ(fake_vq_avail_idx(&fake, rq_vq), 0);
	TAP_EQ(fake_vq_avail_idx(&fake, cq_vq), 0);
	TAP_EQ(vur_user_post_send(dev, QPN, &wr, 1, NULL), -EINVAL);
	TAP_EQ(vur_user_poll_cq(dev, CQN, &wc, 1), -EINVAL);
	/* the device forgot the rings too; the same numbers again */
	fake.vq[sq_vq].last_avail = fake.vq[rq_vq].last_avail = fake.vq[cq_vq].last_avail = 0;
	if (!create_objects(&rc_attr))
		goto out;
	TAP_EQ(fake_vq_avail_idx(&fake, cq_vq), CQE);
	TAP_EQ(vur_user_post_send(dev, QPN, &wr, 1, NULL), 0);
	TAP_EQ(fake_vq_next(&fake, sq_vq, &c), 1);
	TAP_EQ(c.n_desc, 1);
	/* a device that names a CQ out of range is refused */
	fake.create_cqn = 5;
	TAP_EQ(vur_user_create_cq(dev, 1, &(uint32_t){ 0 }), -EPROTO);
out:
	close_fake();
}

int
main(void)
{
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_INFO);
	TAP_RUN(cq_buffers_made_available);
	TAP_RUN(send_wr_layout);
	TAP_RUN(inline_and_ud_layout);
	TAP_RUN(post_limits);
	TAP_RUN(poll_converts_cqes);
	TAP_RUN(cq_events);
	TAP_RUN(destroy_resets_rings);
	return tap_done();
}
