/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver against the real backend, through the public API.
 *
 * Usage: virtio_user_backend_test PATH/TO/vhost-user-rdma
 *
 * Expected values are the backend's documented defaults (64 QPs, 64 CQs,
 * MTU 1500, loopback speed 100 Gb/s, a MAC of the device's own: locally
 * administered unicast, derived from the host and the socket path, logged).
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "child.h"
#include "tap.h"
#include "vur_rings.h"
#include "vur_user.h"

#define WAIT_MS 10000

/* 3 + M + 2L virtqueues with the defaults M = L = 64 (RFC v2: no ring queues) */
#define DEFAULT_VQS "195 vrings"

/* The same plus 2K doorbell and event queues, K as the driver took them */
static char default_vqs[32] = DEFAULT_VQS;

static const char *backend_bin;
static struct child backend; /* the default backend, shared by the first cases */
static struct vur_user_dev *dev;

static void
open_default(struct vur_user_dev **d)
{
	struct vur_user_params p;

	vur_user_params_init(&p, backend.sock);
	TAP_EQ(vur_user_open(&p, d), 0);
}

/* Start a backend of its own for one case. */
static bool
start_backend(struct child *c, const char *const *args)
{
	int ret = child_start_backend(c, backend_bin, args);

	if (ret == 0)
		ret = child_wait_socket(c, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0) {
		child_dump_log(c);
		child_cleanup(c);
	}
	return ret == 0;
}

/* SIGTERM must stop it with status 0; the log is shown when the case failed. */
static void
stop_backend(struct child *c)
{
	int status = child_stop(c, SIGTERM, WAIT_MS);

	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_case_failed)
		child_dump_log(c);
	child_cleanup(c);
}

static void
open_negotiates_roce(void)
{
	uint64_t f;

	if (!start_backend(&backend, NULL))
		return;
	open_default(&dev);
	if (dev == NULL)
		return;
	f = vur_user_features(dev);
	TAP_CHECK(f & (1ULL << VIRTIO_NET_F_ROCE));
	TAP_CHECK(f & (1ULL << VIRTIO_NET_F_ROCE_PORT_SPEED));
	TAP_CHECK(f & (1ULL << VIRTIO_NET_F_CTRL_VQ));
	TAP_CHECK(!(f & (1ULL << VIRTIO_NET_F_ROCE_RFC2)));
	TAP_CHECK(vur_user_has_roce(dev));
	TAP_CHECK(vur_user_has_port_speed(dev));
	TAP_EQ(vur_user_roce_class(dev), VIRTIO_NET_CTRL_ROCE);
	/* the device offers rings (4 queue pairs); the driver takes up to one per CPU */
	TAP_CHECK(vur_user_ring_queues(dev) >= 1 && vur_user_ring_queues(dev) <= 4);
	TAP_EQ(vur_user_num_queues(dev),
			virtio_net_roce_num_vqs_rings(1, 64, 64, vur_user_ring_queues(dev)));
	snprintf(default_vqs, sizeof(default_vqs), "%u vrings", vur_user_num_queues(dev));
	TAP_CHECK(vur_user_backend_fd(dev) >= 0);
}

static void
config_has_defaults(void)
{
	struct vur_user_config cfg;
	char line[160];

	if (dev == NULL) {
		tap_skip("no device");
		return;
	}
	TAP_EQ(vur_user_read_config(dev, &cfg), 0);
	TAP_EQ(cfg.max_rdma_qps, 64);
	TAP_EQ(cfg.max_rdma_cqs, 64);
	TAP_EQ(cfg.mtu, 1500);
	TAP_EQ(cfg.roce_port_speed, 1000);
	TAP_EQ(cfg.speed, 100000);
	TAP_CHECK(cfg.status & VIRTIO_NET_S_LINK_UP);
	TAP_EQ(cfg.mac[0] & 3, 2);
	snprintf(line, sizeof(line), "%s: MAC %02x:%02x:%02x:%02x:%02x:%02x (derived from",
			backend.sock, cfg.mac[0], cfg.mac[1], cfg.mac[2], cfg.mac[3], cfg.mac[4],
			cfg.mac[5]);
	TAP_EQ(child_log_count(&backend, line), 1);
}

/* librte_vhost calls new_device only once every vring the driver touched is ready. */
static void
every_vring_ready(void)
{
	TAP_EQ(child_wait_log(&backend, "device started", 1, WAIT_MS), 0);
	TAP_EQ(child_log_count(&backend, default_vqs), 1);
}

static bool
ctrl_ready(void)
{
	if (dev == NULL) {
		tap_skip("no device");
		return false;
	}
	return true;
}

static void
ctrl_query_device(void)
{
	struct virtio_rdma_ack_query_device ack;
	uint8_t status = 0xff;
	int ret;

	if (!ctrl_ready())
		return;
	ret = vur_user_ctrl(dev, vur_user_roce_class(dev), VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL,
			0, &ack, sizeof(ack), &status);
	TAP_EQ(ret, sizeof(ack));
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_CHECK(le32toh(ack.max_pd) > 0);
}

/*
 * Command after command: with VIRTIO_RING_F_EVENT_IDX the driver kicks only
 * when the available index passes the device's avail_event (virtio 2.7.10),
 * so this needs a device that publishes avail_event as it consumes.
 */
static void
ctrl_repeated(void)
{
	struct virtio_rdma_ack_query_port ack;
	uint8_t status;
	int i;

	if (!ctrl_ready())
		return;
	for (i = 0; i < 3; i++) {
		status = 0xff;
		TAP_EQ(vur_user_ctrl(dev, vur_user_roce_class(dev), VIRTIO_NET_CTRL_ROCE_QUERY_PORT,
				       NULL, 0, &ack, sizeof(ack), &status),
				sizeof(ack));
		TAP_EQ(status, VIRTIO_NET_OK);
	}
}

/* ROCE-DEV-SPEED-8: the command and the configuration space agree. */
static void
ctrl_query_port_speed(void)
{
	struct virtio_rdma_ack_query_port_speed ack;
	uint8_t status = 0xff;

	if (!ctrl_ready())
		return;
	TAP_EQ(vur_user_ctrl(dev, vur_user_roce_class(dev), VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED,
			       NULL, 0, &ack, sizeof(ack), &status),
			sizeof(ack));
	TAP_EQ(status, VIRTIO_NET_OK);
	TAP_EQ(le64toh(ack.speed), 1000);
	/* No uplink: the configured loopback speed (spec, Effective Port Speed). */
	TAP_EQ(le32toh(ack.flags), VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK);
}

static void
close_stops_device(void)
{
	if (dev == NULL) {
		tap_skip("no device");
		return;
	}
	TAP_EQ(vur_user_close(dev), 0);
	dev = NULL;
	TAP_EQ(child_wait_log(&backend, "device stopped", 1, WAIT_MS), 0);
	TAP_EQ(child_wait_log(&backend, "frontend disconnected", 1, WAIT_MS), 0);
}

static void
reopen_gets_fresh_device(void)
{
	struct vur_user_config cfg;

	open_default(&dev);
	if (dev == NULL)
		return;
	TAP_CHECK(vur_user_has_port_speed(dev));
	TAP_EQ(child_wait_log(&backend, "device started", 2, WAIT_MS), 0);
	TAP_EQ(child_log_count(&backend, default_vqs), 2);
	TAP_EQ(vur_user_read_config(dev, &cfg), 0);
	TAP_EQ(cfg.max_rdma_qps, 64);
}

static void
abrupt_close_then_reopen(void)
{
	if (dev == NULL) {
		tap_skip("no device");
		return;
	}
	vur_user_close_abrupt(dev);
	dev = NULL;
	TAP_EQ(child_wait_log(&backend, "frontend disconnected", 2, WAIT_MS), 0);
	/* The backend must have freed the old connection's state. */
	open_default(&dev);
	TAP_EQ(child_wait_log(&backend, "device started", 3, WAIT_MS), 0);
	TAP_EQ(vur_user_close(dev), 0);
	dev = NULL;
}

static void
sigterm_exits_zero(void)
{
	/* The log of the cases that shared this backend, if one failed. */
	if (tap_failed)
		child_dump_log(&backend);
	stop_backend(&backend);
}

/* The driver takes no RDMA queues when the caller does not want RoCE. */
static void
net_only_driver(void)
{
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;
	struct child c;

	if (!start_backend(&c, NULL))
		return;
	vur_user_params_init(&p, c.sock);
	p.features &= ~(1ULL << VIRTIO_NET_F_ROCE);
	TAP_EQ(vur_user_open(&p, &d), 0);
	if (d != NULL) {
		TAP_CHECK(!vur_user_has_roce(d));
		/* ROCE-DRV-FEAT-2: no port speed without RoCE. */
		TAP_CHECK(!vur_user_has_port_speed(d));
		TAP_EQ(vur_user_num_queues(d), 3);
		TAP_EQ(child_wait_log(&c, "3 vrings", 1, WAIT_MS), 0);
		TAP_EQ(vur_user_close(d), 0);
	}
	stop_backend(&c);
}

static void
rfc2_numbering(void)
{
	static const char *const args[] = { "--rfc2-numbering", NULL };
	struct vur_user_config cfg;
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;
	struct child c;

	if (!start_backend(&c, args))
		return;
	vur_user_params_init(&p, c.sock);
	p.rfc2_numbering = true;
	p.features = vur_user_supported_features(true);
	TAP_EQ(vur_user_open(&p, &d), 0);
	if (d != NULL) {
		TAP_CHECK(vur_user_features(d) & (1ULL << VIRTIO_NET_F_ROCE_RFC2));
		TAP_CHECK(!(vur_user_features(d) & (1ULL << VIRTIO_NET_F_ROCE)));
		TAP_CHECK(vur_user_has_roce(d));
		TAP_EQ(vur_user_roce_class(d), VIRTIO_NET_CTRL_ROCE_RFC2);
		TAP_EQ(vur_user_read_config(d, &cfg), 0);
		TAP_EQ(cfg.max_rdma_qps, 64);
		TAP_EQ(cfg.max_rdma_cqs, 64);
		TAP_EQ(cfg.roce_port_speed, 1000);
		TAP_EQ(child_wait_log(&c, DEFAULT_VQS, 1, WAIT_MS), 0);
		TAP_EQ(vur_user_close(d), 0);
	}
	stop_backend(&c);
}

/* A driver in today's numbering must not take bit 55 for RoCE (ROCE-DRV-RFC2-1). */
static void
rfc2_backend_new_driver(void)
{
	static const char *const args[] = { "--rfc2-numbering", NULL };
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;
	struct child c;

	if (!start_backend(&c, args))
		return;
	vur_user_params_init(&p, c.sock);
	TAP_EQ(vur_user_open(&p, &d), 0);
	if (d != NULL) {
		TAP_CHECK(!vur_user_has_roce(d));
		TAP_EQ(vur_user_num_queues(d), 3);
		TAP_EQ(vur_user_close(d), 0);
	}
	stop_backend(&c);
}

static void
no_port_speed(void)
{
	static const char *const args[] = { "--no-port-speed", NULL };
	struct vur_user_config cfg;
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;
	uint8_t status;
	struct child c;

	if (!start_backend(&c, args))
		return;
	vur_user_params_init(&p, c.sock);
	TAP_EQ(vur_user_open(&p, &d), 0);
	if (d != NULL) {
		TAP_CHECK(vur_user_has_roce(d));
		TAP_CHECK(!vur_user_has_port_speed(d));
		TAP_EQ(vur_user_read_config(d, &cfg), 0);
		TAP_EQ(cfg.roce_port_speed, 0); /* ROCE-DRV-CFG-2: not read */
		/* ROCE-DRV-CTRL-2: refused by the driver, nothing sent. */
		TAP_EQ(vur_user_ctrl(d, vur_user_roce_class(d),
				       VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, NULL, 0, NULL, 0,
				       &status),
				-EOPNOTSUPP);
		TAP_EQ(vur_user_close(d), 0);
	}
	stop_backend(&c);
}

static void
no_backend(void)
{
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;

	vur_user_params_init(&p, "/nonexistent/vhost-rdma0");
	TAP_EQ(vur_user_open(&p, &d), -ENOENT);
	TAP_CHECK(d == NULL);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/vhost-user-rdma\n", argv[0]);
		return 2;
	}
	backend_bin = argv[1];
	TAP_RUN(open_negotiates_roce);
	TAP_RUN(config_has_defaults);
	TAP_RUN(every_vring_ready);
	TAP_RUN(ctrl_query_device);
	TAP_RUN(ctrl_query_port_speed);
	TAP_RUN(ctrl_repeated);
	TAP_RUN(close_stops_device);
	TAP_RUN(reopen_gets_fresh_device);
	TAP_RUN(abrupt_close_then_reopen);
	TAP_RUN(sigterm_exits_zero);
	TAP_RUN(net_only_driver);
	TAP_RUN(rfc2_numbering);
	TAP_RUN(rfc2_backend_new_driver);
	TAP_RUN(no_port_speed);
	TAP_RUN(no_backend);
	child_cleanup(&backend);
	return tap_done();
}
