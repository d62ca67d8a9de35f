/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Opening a device, control commands and the backend channel, against the
 * scripted backend of fake_backend.c: a well-behaved one, and one that
 * answers the wrong request, refuses, stays silent, advertises an
 * out-of-spec configuration, or corrupts the control queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "device.h"
#include "fake_backend.h"
#include "negotiate.h"
#include "tap.h"
#include "vur_user.h"
#include "clock.h"

#define MEM_SIZE (4u << 20)

static struct fake_backend fake;
static int warnings;

static void
log_hook(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level == VUR_USER_LOG_WARNING)
		warnings++;
	printf("# log %d: %s\n", level, msg);
}

static int
open_fake(struct vur_user_dev **d, unsigned int timeout_ms)
{
	struct vur_user_params p;

	TAP_EQ(fake_start(&fake), 0);
	vur_user_params_init(&p, fake.path);
	p.mem_size = MEM_SIZE;
	p.timeout_ms = timeout_ms;
	*d = NULL;
	return vur_user_open(&p, d);
}

static void
open_and_close(void)
{
	struct vur_user_config cfg;
	struct vur_user_dev *d;

	fake_init(&fake);
	TAP_EQ(open_fake(&d, 1000), 0);
	if (d != NULL) {
		/* 2N + 1 + M + 2L with N = 1, M = 1, L = 3 */
		TAP_EQ(vur_user_num_queues(d), 10);
		TAP_EQ(fake.n_enabled, 10);
		TAP_EQ(fake.mem_gpa, VUR_USER_GPA_BASE);
		TAP_EQ(fake.mem_size, MEM_SIZE);
		TAP_CHECK(fake.acked_features & VUSER_BIT(VHOST_USER_F_PROTOCOL_FEATURES));
		TAP_EQ(vur_user_features(d),
				fake.features & ~VUSER_BIT(VHOST_USER_F_PROTOCOL_FEATURES));
		TAP_EQ(vur_user_read_config(d, &cfg), 0);
		TAP_EQ(cfg.max_rdma_qps, 3);
		TAP_EQ(cfg.max_rdma_cqs, 1);
		TAP_EQ(cfg.roce_port_speed, 250);
		TAP_EQ(cfg.speed, 0); /* SPEED_DUPLEX not offered: not read */
		TAP_EQ(vur_user_close(d), 0);
	}
	fake_stop(&fake);
	TAP_EQ(fake.n_get_base, 10);
}

static void
open_fails(uint32_t request, enum fake_fault fault, int expect)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	fake.fault_request = request;
	fake.fault = fault;
	TAP_EQ(open_fake(&d, 200), expect);
	TAP_CHECK(d == NULL);
	fake_stop(&fake);
}

static void
open_bad_replies(void)
{
	open_fails(VHOST_USER_GET_FEATURES, FAKE_FAULT_WRONG_REPLY, -EPROTO);
	open_fails(VHOST_USER_GET_PROTOCOL_FEATURES, FAKE_FAULT_WRONG_REPLY, -EPROTO);
	open_fails(VHOST_USER_SET_FEATURES, FAKE_FAULT_WRONG_REPLY, -EPROTO);
	open_fails(VHOST_USER_GET_CONFIG, FAKE_FAULT_WRONG_REPLY, -EPROTO);
	open_fails(VHOST_USER_SET_MEM_TABLE, FAKE_FAULT_NACK, -EIO);
	open_fails(VHOST_USER_SET_BACKEND_REQ_FD, FAKE_FAULT_NACK, -EIO);
	open_fails(VHOST_USER_SET_VRING_ADDR, FAKE_FAULT_NACK, -EIO);
	open_fails(VHOST_USER_SET_VRING_ENABLE, FAKE_FAULT_NACK, -EIO);
	open_fails(VHOST_USER_GET_QUEUE_NUM, FAKE_FAULT_SILENT, -ETIMEDOUT);
	open_fails(VHOST_USER_GET_CONFIG, FAKE_FAULT_SILENT, -ETIMEDOUT);
}

/* Close reports the first failure and stops talking to a backend out of step. */
static void
close_reports_errors(void)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	fake.fault_request = VHOST_USER_GET_VRING_BASE;
	fake.fault = FAKE_FAULT_WRONG_REPLY;
	TAP_EQ(open_fake(&d, 500), 0);
	TAP_EQ(vur_user_close(d), -EPROTO);
	fake_stop(&fake);
	TAP_EQ(fake.n_get_base, 1);
}

static void
open_config(uint32_t qps, uint32_t cqs, int expect)
{
	struct virtio_net_roce_config *cfg;
	struct vur_user_dev *d;

	fake_init(&fake);
	cfg = (struct virtio_net_roce_config *)fake.config;
	cfg->max_rdma_qps = htole32(qps);
	cfg->max_rdma_cqs = htole32(cqs);
	TAP_EQ(open_fake(&d, 500), expect);
	vur_user_close(d);
	fake_stop(&fake);
}

/* ROCE-DEV-CFG-1, -2, and the 256 vrings vhost-user can name. */
static void
open_config_out_of_spec(void)
{
	open_config(2, 1, -EPROTO);
	open_config(3, 0, -EPROTO);
	open_config(16385, 1, -EPROTO);
	open_config(16384, 1, -ENOTSUP);
	open_config(126, 2, -ENOTSUP); /* 3 + 2 + 252 = 257 virtqueues */
}

static void
open_missing_features(void)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	fake.protocol_features &= ~VUSER_BIT(VHOST_USER_PROTOCOL_F_CONFIG);
	TAP_EQ(open_fake(&d, 500), -ENOTSUP);
	fake_stop(&fake);

	fake_init(&fake);
	fake.features &= ~VUSER_BIT(VIRTIO_F_VERSION_1);
	TAP_EQ(open_fake(&d, 500), -ENOTSUP);
	fake_stop(&fake);
}

/* Without REPLY_ACK nothing waits for acks, and the device still opens. */
static void
open_without_reply_ack(void)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	fake.protocol_features &= ~VUSER_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK);
	TAP_EQ(open_fake(&d, 500), 0);
	TAP_EQ(fake.n_enabled, 10);
	TAP_EQ(vur_user_close(d), 0);
	fake_stop(&fake);
}

static struct vur_user_dev *
open_ctrl(enum fake_ctrl mode, unsigned int timeout_ms)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	fake.ctrl = mode;
	TAP_EQ(open_fake(&d, timeout_ms), 0);
	return d;
}

static void
close_ctrl(struct vur_user_dev *d)
{
	vur_user_close(d);
	fake_stop(&fake);
}

static void
ctrl_ok(void)
{
	struct virtio_rdma_ack_query_device ack;
	struct virtio_rdma_cmd_create_cq cmd = { .cqe = htole32(0x11223344) };
	struct vur_user_dev *d = open_ctrl(FAKE_CTRL_OK, 1000);
	size_t free_before;
	uint8_t status = 0xff;

	if (d == NULL)
		return;
	free_before = d->mem.free_pages;
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0,
			       &ack, sizeof(ack), &status),
			sizeof(ack));
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_EQ(((uint8_t *)&ack)[sizeof(ack) - 1], 0xa5);
	TAP_EQ(fake.last_cmd[0], VIRTIO_NET_CTRL_ROCE);
	TAP_EQ(fake.last_cmd[1], VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE);
	/* ROCE-DRV-CTRL-3: readable part exactly 2 + data, writable 1 + ack data */
	TAP_EQ(fake.last_out_len, 2);
	TAP_EQ(fake.last_in_len, 1 + sizeof(ack));

	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &cmd,
			       sizeof(cmd), NULL, 0, &status),
			0);
	TAP_EQ(fake.last_out_len, 2 + sizeof(cmd));
	TAP_CHECK(memcmp(fake.last_data, &cmd, sizeof(cmd)) == 0);
	TAP_EQ(d->mem.free_pages, free_before);
	close_ctrl(d);
}

/* ROCE-DRV-CTRL-5: ack data of a failed command is not handed out. */
static void
ctrl_err(void)
{
	struct vur_user_dev *d = open_ctrl(FAKE_CTRL_ERR, 1000);
	uint8_t ack[8], status = 0;

	if (d == NULL)
		return;
	memset(ack, 0x77, sizeof(ack));
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack,
			       sizeof(ack), &status),
			0);
	TAP_EQ(status, VIRTIO_NET_ERR);
	TAP_EQ(ack[0], 0);
	TAP_EQ(ack[7], 0);
	close_ctrl(d);
}

static void
ctrl_timeout(void)
{
	struct vur_user_dev *d = open_ctrl(FAKE_CTRL_SILENT, 300);
	int64_t t0 = vuser_now_ms(), dt;
	uint8_t status;

	if (d == NULL)
		return;
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0,
			       NULL, 0, &status),
			-ETIMEDOUT);
	dt = vuser_now_ms() - t0;
	TAP_CHECK(dt >= 300 && dt < 3000);
	close_ctrl(d); /* the buffer still in flight is freed here */
}

/* A late answer is recognised as someone else's and its buffer reclaimed. */
static void
ctrl_late_answer(void)
{
	struct vur_user_dev *d = open_ctrl(FAKE_CTRL_LATE, 300);
	uint8_t ack[4] = { 0 }, status = 0xff;
	size_t free_before;

	if (d == NULL)
		return;
	free_before = d->mem.free_pages;
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack,
			       sizeof(ack), &status),
			-ETIMEDOUT);
	TAP_EQ(d->mem.free_pages, free_before - 1);
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack,
			       sizeof(ack), &status),
			sizeof(ack));
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_EQ(d->mem.free_pages, free_before);
	close_ctrl(d);
}

static void
ctrl_device_breaks_ring(enum fake_ctrl mode)
{
	struct vur_user_dev *d = open_ctrl(mode, 1000);
	uint8_t ack[4], status;

	if (d == NULL)
		return;
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack,
			       sizeof(ack), &status),
			-EPROTO);
	/* A broken queue stays broken. */
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, ack,
			       sizeof(ack), &status),
			-EIO);
	close_ctrl(d);
}

static void
ctrl_bad_used_id(void)
{
	ctrl_device_breaks_ring(FAKE_CTRL_BAD_ID);
}

static void
ctrl_used_len_too_long(void)
{
	ctrl_device_breaks_ring(FAKE_CTRL_TOO_LONG);
}

/* A missing notification costs the timeout and is reported, not hidden. */
static void
ctrl_no_notification(void)
{
	struct vur_user_dev *d = open_ctrl(FAKE_CTRL_NO_NOTIFY, 200);
	uint8_t status = 0xff;

	if (d == NULL)
		return;
	warnings = 0;
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, NULL, 0,
			       NULL, 0, &status),
			0);
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_EQ(warnings, 1);
	close_ctrl(d);
}

/* ROCE-DRV-CTRL-1, -2: refused before anything reaches the device. */
static void
ctrl_driver_requirements(void)
{
	struct vur_user_params p;
	struct vur_user_dev *d;
	uint8_t status;

	fake_init(&fake);
	TAP_EQ(fake_start(&fake), 0);
	vur_user_params_init(&p, fake.path);
	p.mem_size = MEM_SIZE;
	p.features &= ~VUSER_BIT(VIRTIO_NET_F_ROCE_PORT_SPEED);
	TAP_EQ(vur_user_open(&p, &d), 0);
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL,
			       0, NULL, 0, &status),
			-EOPNOTSUPP);
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0,
			       NULL, 0, &status),
			0);
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, 0, NULL, 1, NULL, 0, &status), -EINVAL);
	vur_user_close(d);
	fake_stop(&fake);

	fake_init(&fake);
	fake.features &= ~VUSER_BIT(VIRTIO_NET_F_ROCE);
	TAP_EQ(open_fake(&d, 500), 0);
	TAP_EQ(vur_user_num_queues(d), 3);
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_ROCE, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0,
			       NULL, 0, &status),
			-EOPNOTSUPP);
	/* Other classes are the caller's business. */
	TAP_EQ(vur_user_ctrl(d, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET,
			       "\x52\x54\0\0\0\1", 6, NULL, 0, &status),
			0);
	vur_user_close(d);
	fake_stop(&fake);
}

static void
backend_channel(void)
{
	struct vur_user_dev *d = open_ctrl(FAKE_CTRL_OK, 1000);
	uint64_t ack = 99;

	if (d == NULL)
		return;
	TAP_CHECK(vur_user_backend_fd(d) >= 0);
	TAP_EQ(vur_user_backend_event(d, 0), VUR_USER_EVENT_NONE);
	TAP_EQ(fake_backend_send(&fake, VHOST_USER_BACKEND_CONFIG_CHANGE_MSG, false), 0);
	TAP_EQ(vur_user_backend_event(d, 1000), VUR_USER_EVENT_CONFIG_CHANGE);
	TAP_EQ(fake_backend_send(&fake, VHOST_USER_BACKEND_CONFIG_CHANGE_MSG, true), 0);
	TAP_EQ(vur_user_backend_event(d, 1000), VUR_USER_EVENT_CONFIG_CHANGE);
	TAP_EQ(fake_backend_ack(&fake, VHOST_USER_BACKEND_CONFIG_CHANGE_MSG, &ack, 1000), 0);
	TAP_EQ(ack, 0);
	/* The backend may be waiting for the answer: it gets one, a refusal. */
	TAP_EQ(fake_backend_send(&fake, 77, true), 0);
	TAP_EQ(vur_user_backend_event(d, 1000), -EOPNOTSUPP);
	TAP_EQ(fake_backend_ack(&fake, 77, &ack, 1000), 0);
	TAP_EQ(ack, 1);
	close_ctrl(d);
}

int
main(void)
{
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_WARNING);
	TAP_RUN(open_and_close);
	TAP_RUN(open_bad_replies);
	TAP_RUN(close_reports_errors);
	TAP_RUN(open_config_out_of_spec);
	TAP_RUN(open_missing_features);
	TAP_RUN(open_without_reply_ack);
	TAP_RUN(ctrl_ok);
	TAP_RUN(ctrl_err);
	TAP_RUN(ctrl_timeout);
	TAP_RUN(ctrl_late_answer);
	TAP_RUN(ctrl_bad_used_id);
	TAP_RUN(ctrl_used_len_too_long);
	TAP_RUN(ctrl_no_notification);
	TAP_RUN(ctrl_driver_requirements);
	TAP_RUN(backend_channel);
	return tap_done();
}
