/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs layer against the scripted backend of fake_backend.c: the
 * asynchronous events a configuration change raises, the port attributes
 * derived from the configuration space, and the command data the verbs put
 * on the wire. The real backend's answers are verbs_test.c's business.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <linux/virtio_net.h>
#include <linux/virtio_net_roce.h>

#include "fake_backend.h"
#include "negotiate.h"
#include "tap.h"
#include "vhost_user_msg.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define MEM_SIZE (4u << 20)
#define WAIT_MS  2000

static struct fake_backend fake;

static void
log_hook(void *arg, int level, const char *msg)
{
	(void)arg;
	printf("# log %d: %s\n", level, msg);
}

static struct virtio_net_roce_config *
fake_cfg(void)
{
	return (struct virtio_net_roce_config *)fake.config;
}

/* Open on the fake as fake_init() made it, minus @drop features. */
static struct vur_user_dev *
open_fake(uint64_t drop)
{
	struct vur_user_params p;
	struct vur_user_dev *d = NULL;

	TAP_EQ(fake_start(&fake), 0);
	vur_user_params_init(&p, fake.path);
	p.mem_size = MEM_SIZE;
	p.timeout_ms = WAIT_MS;
	p.features &= ~drop;
	TAP_EQ(vur_user_open(&p, &d), 0);
	return d;
}

static void
close_fake(struct vur_user_dev *d)
{
	vur_user_close(d);
	fake_stop(&fake);
}

static void
set_link(bool up)
{
	uint16_t status = le16toh(fake_cfg()->status);

	status = up ? status | VIRTIO_NET_S_LINK_UP : status & ~VIRTIO_NET_S_LINK_UP;
	fake_cfg()->status = htole16(status);
}

static void
notify(void)
{
	TAP_EQ(fake_backend_send(&fake, VHOST_USER_BACKEND_CONFIG_CHANGE_MSG, false), 0);
}

/* The next event: its type, or 0 if none comes within @timeout_ms. */
static uint32_t
next_event(struct vur_user_dev *d, int timeout_ms)
{
	struct vur_user_async_event ev = { 0 };
	int ret = vur_user_get_async_event(d, &ev, timeout_ms);

	TAP_CHECK(ret == 0 || ret == 1);
	if (ret == 1)
		TAP_EQ(ev.port_num, 1);
	return ret == 1 ? ev.event_type : 0;
}

static bool
readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* ROCE-DRV-SPEED-1, -2: one event per notification whose speed differs. */
static void
speed_change_raises_one_event(void)
{
	struct vur_user_port_speed ps;
	struct vur_user_dev *d;

	fake_init(&fake);
	d = open_fake(0);
	if (d == NULL)
		return;
	TAP_CHECK(!readable(vur_user_async_fd(d)));
	TAP_EQ(next_event(d, 0), 0);
	fake_cfg()->roce_port_speed = htole64(500);
	notify();
	TAP_EQ(next_event(d, WAIT_MS), VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	TAP_EQ(fake.n_speed_queries, 1);
	TAP_EQ(next_event(d, 0), 0);
	TAP_EQ(vur_user_query_port_speed(d, &ps), 0);
	TAP_EQ(ps.speed, 500);
	close_fake(d);
}

/*
 * ROCE-DRV-SPEED-3: a notification after which the speed is what was last
 * reported raises nothing, be the speed unchanged or changed and back.
 */
static void
unchanged_speed_raises_nothing(void)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	d = open_fake(0);
	if (d == NULL)
		return;
	notify(); /* nothing changed */
	TAP_EQ(next_event(d, 200), 0);
	TAP_EQ(fake.n_speed_queries, 1);
	fake_cfg()->roce_port_speed = htole64(400);
	fake_cfg()->roce_port_speed = htole64(250); /* and back, before the driver looks */
	notify();
	TAP_EQ(next_event(d, 200), 0);
	TAP_EQ(fake.n_speed_queries, 2);
	fake_cfg()->roce_port_speed = htole64(300);
	notify();
	TAP_EQ(next_event(d, WAIT_MS), VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	TAP_EQ(next_event(d, 0), 0);
	TAP_EQ(fake.n_speed_queries, 3);
	close_fake(d);
}

/* A link flap: PORT_ERR or PORT_ACTIVE, then the speed, each once. */
static void
link_down_and_up(void)
{
	struct vur_user_port_attr pa;
	struct vur_user_dev *d;
	struct pollfd pfd;
	int fd;

	fake_init(&fake);
	d = open_fake(0);
	if (d == NULL)
		return;
	fd = vur_user_async_fd(d);
	set_link(false);
	fake_cfg()->roce_port_speed = 0;
	notify();
	TAP_EQ(next_event(d, WAIT_MS), VUR_USER_ASYNC_PORT_ERR);
	/* The second event of the notification keeps the descriptor readable. */
	TAP_CHECK(readable(fd));
	TAP_EQ(next_event(d, 0), VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	TAP_CHECK(!readable(fd));
	TAP_EQ(vur_user_query_port(d, &pa), 0);
	TAP_EQ(pa.state, VUR_USER_PORT_DOWN);

	set_link(true);
	fake_cfg()->roce_port_speed = htole64(250);
	notify();
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	TAP_EQ(poll(&pfd, 1, WAIT_MS), 1); /* the message wakes a poller */
	TAP_EQ(next_event(d, WAIT_MS), VUR_USER_ASYNC_PORT_ACTIVE);
	TAP_EQ(next_event(d, 0), VUR_USER_ASYNC_DEVICE_SPEED_CHANGE);
	TAP_EQ(next_event(d, 0), 0);
	TAP_EQ(vur_user_query_port(d, &pa), 0);
	TAP_EQ(pa.state, VUR_USER_PORT_ACTIVE);
	close_fake(d);
}

/* ROCE-DRV-SPEED-5, ROCE-DRV-CTRL-2: no speed query, no speed event. */
static void
no_port_speed_feature(void)
{
	struct vur_user_port_speed ps;
	struct vur_user_dev *d;

	fake_init(&fake);
	d = open_fake(VUSER_BIT(VIRTIO_NET_F_ROCE_PORT_SPEED));
	if (d == NULL)
		return;
	TAP_EQ(vur_user_query_port_speed(d, &ps), -EOPNOTSUPP);
	fake_cfg()->roce_port_speed = htole64(500);
	notify();
	set_link(false);
	notify();
	TAP_EQ(next_event(d, WAIT_MS), VUR_USER_ASYNC_PORT_ERR);
	TAP_EQ(next_event(d, 0), 0);
	TAP_EQ(fake.n_speed_queries, 0);
	close_fake(d);
}

/* virtio 5.1.6.5.4: an announcement request is acknowledged. */
static void
guest_announce_is_acked(void)
{
	struct vur_user_dev *d;

	fake_init(&fake);
	fake.features |= VUSER_BIT(VIRTIO_NET_F_GUEST_ANNOUNCE);
	d = open_fake(0);
	if (d == NULL)
		return;
	TAP_CHECK(vur_user_features(d) & VUSER_BIT(VIRTIO_NET_F_GUEST_ANNOUNCE));
	fake_cfg()->status |= htole16(VIRTIO_NET_S_ANNOUNCE);
	notify();
	TAP_EQ(next_event(d, 300), 0);
	TAP_EQ(fake.n_announce_acks, 1);
	close_fake(d);
}

/* A request the driver does not handle is refused, and is no event. */
static void
other_requests_are_no_events(void)
{
	struct vur_user_dev *d;
	uint64_t ack = 0;

	fake_init(&fake);
	d = open_fake(0);
	if (d == NULL)
		return;
	TAP_EQ(fake_backend_send(&fake, 77, true), 0);
	TAP_EQ(next_event(d, 300), 0);
	TAP_EQ(fake_backend_ack(&fake, 77, &ack, WAIT_MS), 0);
	TAP_EQ(ack, 1);
	close_fake(d);
}

static uint8_t
active_mtu(uint16_t mtu, uint64_t drop)
{
	struct vur_user_port_attr pa = { 0 };
	struct vur_user_dev *d;

	fake_init(&fake);
	fake_cfg()->mtu = htole16(mtu);
	d = open_fake(drop);
	if (d != NULL)
		TAP_EQ(vur_user_query_port(d, &pa), 0);
	close_fake(d);
	return pa.active_mtu;
}

/* Section "Device and Port Attributes": the largest IB MTU <= MTU - 96. */
static void
port_mtu_derivation(void)
{
	TAP_EQ(active_mtu(1500, 0), VUR_USER_MTU_1024);
	TAP_EQ(active_mtu(4192, 0), VUR_USER_MTU_4096);
	TAP_EQ(active_mtu(4191, 0), VUR_USER_MTU_2048);
	TAP_EQ(active_mtu(9000, 0), VUR_USER_MTU_4096);
	TAP_EQ(active_mtu(352, 0), VUR_USER_MTU_256);
	TAP_EQ(active_mtu(351, 0), 0);
	/* Without VIRTIO_NET_F_MTU the Ethernet MTU is 1500. */
	TAP_EQ(active_mtu(9000, VUSER_BIT(VIRTIO_NET_F_MTU)), VUR_USER_MTU_1024);
}

/* ROCE-DRV-MR-1: npages and the pages of [iova, iova + len), in order. */
static void
reg_mr_page_list(void)
{
	const struct virtio_rdma_cmd_reg_user_mr *c = (const void *)fake.last_data;
	struct vur_user_mr mr;
	struct vur_user_dev *d;
	uint8_t *buf;
	uint64_t base;

	fake_init(&fake);
	d = open_fake(0);
	if (d == NULL)
		return;
	buf = vur_user_alloc_buf(d, 4 * 4096);
	TAP_CHECK(buf != NULL);
	base = vur_user_driver_addr(d, buf);
	TAP_CHECK(base >= VUR_USER_GPA_BASE && base % 4096 == 0);
	/* The spec's example: 0x...1010 + 0x2000 spans three pages. */
	TAP_EQ(vur_user_reg_mr(d, 7, VUR_USER_ACCESS_LOCAL_WRITE, buf + 0x10, 0x2000,
			       0x7f0000001010ULL, &mr),
			0);
	TAP_EQ(fake.last_out_len, 2 + sizeof(*c) + 3 * 8);
	TAP_EQ(le32toh(c->pdn), 7);
	TAP_EQ(le32toh(c->access_flags), VUR_USER_ACCESS_LOCAL_WRITE);
	TAP_EQ(le64toh(c->virt_addr), 0x7f0000001010ULL);
	TAP_EQ(le64toh(c->length), 0x2000);
	TAP_EQ(le32toh(c->npages), 3);
	TAP_EQ(le64toh(c->pages[0]), base);
	TAP_EQ(le64toh(c->pages[2]), base + 2 * 4096);
	TAP_EQ(mr.lkey, 0xa5a5a5a5);
	/* What the driver cannot express: offsets that differ, memory it does not own. */
	TAP_EQ(vur_user_reg_mr(d, 7, 0, buf + 0x10, 0x100, 0x7f0000001000ULL, &mr), -EINVAL);
	TAP_EQ(vur_user_reg_mr(d, 7, 0, &mr, sizeof(mr), (uintptr_t)&mr, &mr), -EINVAL);
	TAP_EQ(vur_user_reg_mr(d, 7, 0, buf, MEM_SIZE, 0, &mr), -EINVAL);
	/* Length 0 goes to the device, which refuses it (ROCE-DEV-MR-5). */
	TAP_EQ(vur_user_reg_mr(d, 7, 0, buf, 0, 0, &mr), 0);
	TAP_EQ(le32toh(c->npages), 0);
	TAP_EQ(vur_user_driver_addr(d, &mr), 0);
	TAP_EQ(vur_user_free_buf(d, buf + 1), -EINVAL);
	TAP_EQ(vur_user_free_buf(d, buf), 0);
	TAP_EQ(vur_user_free_buf(d, buf), -EINVAL);
	close_fake(d);
}

/* MODIFY_QP carries the attributes of the mask, and zero elsewhere. */
static void
modify_qp_sends_masked_fields(void)
{
	const struct virtio_rdma_cmd_modify_qp *c = (const void *)fake.last_data;
	struct vur_user_qp_attr a;
	struct vur_user_dev *d;

	fake_init(&fake);
	d = open_fake(0);
	if (d == NULL)
		return;
	memset(&a, 0x5c, sizeof(a));
	a.qp_state = VUR_USER_QPS_RTR;
	a.rq_psn = 0x123456;
	a.ah_attr.grh.flow_label = 0xabcde;
	TAP_EQ(vur_user_modify_qp(d, 9, &a,
			       VUR_USER_QP_STATE | VUR_USER_QP_RQ_PSN | VUR_USER_QP_AV |
					       (1u << 20)),
			0);
	TAP_EQ(fake.last_out_len, 2 + sizeof(*c));
	TAP_EQ(le32toh(c->qpn), 9);
	TAP_EQ(le32toh(c->attr_mask),
			VUR_USER_QP_STATE | VUR_USER_QP_RQ_PSN | VUR_USER_QP_AV | (1u << 20));
	TAP_EQ(c->qp_state, VIRTIO_IB_QPS_RTR);
	TAP_EQ(le32toh(c->rq_psn), 0x123456);
	TAP_EQ(le32toh(c->ah_attr.grh.flow_label), 0xabcde);
	TAP_EQ(c->ah_attr.grh.padding, 0); /* ROCE-DRV-CTRL-4 */
	TAP_EQ(c->path_mtu, 0);
	TAP_EQ(le32toh(c->sq_psn), 0);
	TAP_EQ(le32toh(c->cap.max_send_wr), 0);
	close_fake(d);
}

/* VIRTIO_NET_ERR becomes -EREMOTEIO, and no ack data is taken. */
static void
device_refusal_is_eremoteio(void)
{
	struct vur_user_dev *d;
	uint32_t pdn = 77;

	fake_init(&fake);
	fake.ctrl = FAKE_CTRL_ERR;
	d = open_fake(0);
	if (d == NULL)
		return;
	TAP_EQ(vur_user_create_pd(d, &pdn), -EREMOTEIO);
	TAP_EQ(pdn, 77);
	TAP_EQ(vur_user_destroy_pd(d, 1), -EREMOTEIO);
	close_fake(d);
}

int
main(void)
{
	vur_user_set_log(log_hook, NULL, VUR_USER_LOG_WARNING);
	TAP_RUN(speed_change_raises_one_event);
	TAP_RUN(unchanged_speed_raises_nothing);
	TAP_RUN(link_down_and_up);
	TAP_RUN(no_port_speed_feature);
	TAP_RUN(guest_announce_is_acked);
	TAP_RUN(other_requests_are_no_events);
	TAP_RUN(port_mtu_derivation);
	TAP_RUN(reg_mr_page_list);
	TAP_RUN(modify_qp_sends_masked_fields);
	TAP_RUN(device_refusal_is_eremoteio);
	return tap_done();
}
