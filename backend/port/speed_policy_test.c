/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the speed rules: the ConnectX-7 scenario step by step. */
#include <linux/virtio_net_roce.h>

#include "port/speed_policy.h"
#include "tests/tap.h"

#define AGG  VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED
#define LOOP VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK
#define DOWN VIRTIO_RDMA_PORT_SPEED_F_LINK_DOWN

static void
lag_of_four(void)
{
	struct vur_port_member m[4];
	struct vur_speed_result r, prev;
	int i;

	for (i = 0; i < 4; i++)
		m[i] = (struct vur_port_member){
			.up = true, .speed_mbps = 100000, .max_mbps = 100000
		};
	vur_speed_compute(m, 4, true, 0, &r);
	TAP_CHECK(r.speed == 4000 && r.flags == AGG && r.link_up && r.active == 4 && r.total == 4);

	/* one member down: the sum of the others, one change */
	prev = r;
	m[2].up = false;
	vur_speed_compute(m, 4, true, 0, &r);
	TAP_CHECK(r.speed == 3000 && r.flags == AGG && r.active == 3);
	TAP_CHECK(vur_speed_changed(&prev, &r));

	/* one member left: no longer aggregated */
	m[0].up = m[1].up = false;
	vur_speed_compute(m, 4, true, 0, &r);
	TAP_CHECK(r.speed == 1000 && r.flags == 0 && r.active == 1);

	/* all down with the device up: loopback at the members' maximum */
	m[3].up = false;
	vur_speed_compute(m, 4, true, 0, &r);
	TAP_CHECK(r.speed == 4000 && r.flags == LOOP && r.link_up && r.active == 0);

	/* device link down: 0, whatever the members */
	m[0].up = true;
	vur_speed_compute(m, 4, false, 0, &r);
	TAP_CHECK(r.speed == 0 && r.flags == DOWN && !r.link_up && r.active == 1);

	/* recovery */
	for (i = 0; i < 4; i++)
		m[i].up = true;
	prev = r;
	vur_speed_compute(m, 4, true, 0, &r);
	TAP_CHECK(r.speed == 4000 && r.flags == AGG && vur_speed_changed(&prev, &r));
	TAP_CHECK(!vur_speed_changed(&r, &r));
}

static void
no_uplink_and_small_speeds(void)
{
	struct vur_port_member m = { .up = true, .speed_mbps = 10, .max_mbps = 10 };
	struct vur_speed_result r;

	vur_speed_compute(NULL, 0, true, 25000, &r);
	TAP_CHECK(r.speed == 250 && r.flags == LOOP && r.link_up && r.total == 0);
	/* 10 Mb/s is not "down" */
	vur_speed_compute(&m, 1, true, 0, &r);
	TAP_CHECK(r.speed == 1 && r.flags == 0);
	/* a member that reports no speed, up: 0 units is all we can say */
	m.speed_mbps = 0;
	vur_speed_compute(&m, 1, true, 0, &r);
	TAP_CHECK(r.speed == 0 && r.link_up);
}

int
main(void)
{
	TAP_RUN(lag_of_four);
	TAP_RUN(no_uplink_and_small_speeds);
	return tap_done();
}
