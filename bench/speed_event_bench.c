/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Notification latency: from a member link change to the speed-change
 * event in the driver, two ways:
 *  - admin: the clock starts before the set_member_link RPC is sent;
 *  - kernel: the clock starts before "ip link set dev IFACE down|up"
 *    (SIOCSIFFLAGS) on the tap's kernel side; the backend hears of it from
 *    rtnetlink (port/kernel_link.h), its link poll (--link-poll-ms) being
 *    the fallback; a random pause before each change keeps the samples off
 *    any periodic phase.
 * Each change alternates down and up and must end in one event.
 *
 * Usage: speed_event_bench DEVICE_SOCKET ADMIN_SOCKET MEMBER IFACE [N]
 * The backend must run with MEMBER (an ethdev name) as an uplink member
 * whose kernel interface is IFACE, and another member up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin.h"
#include "bench_util.h"
#include "vur_verbs.h"

#define EVENT_TIMEOUT_MS 5000

/* Wait for the speed event; the elapsed ns since @t0, or 0 on a timeout. */
static uint64_t
wait_speed_event(struct vur_user_dev *dev, uint64_t t0)
{
	struct vur_user_async_event ev;

	while (vur_user_get_async_event(dev, &ev, EVENT_TIMEOUT_MS) == 1)
		if (ev.event_type == VUR_USER_ASYNC_DEVICE_SPEED_CHANGE)
			return now_ns() - t0;
	return 0;
}

static unsigned int
run(struct vur_user_dev *dev, const char *admin, const char *member, const char *iface, bool kernel,
		uint64_t *ns, unsigned int n)
{
	unsigned int got = 0, seed = 1;
	uint64_t t0, dt;

	for (unsigned int i = 0; i < n; i++) {
		bool up = i % 2 == 1;
		int ret;

		if (kernel)
			usleep(rand_r(&seed) % 25000);
		t0 = now_ns();
		ret = kernel ? admin_iface_set(iface, up) : admin_member_link(admin, member, up);
		if (ret != 0) {
			fprintf(stderr, "link change %u failed: %d\n", i, ret);
			break;
		}
		dt = wait_speed_event(dev, t0);
		if (dt == 0) {
			fprintf(stderr, "no event after change %u\n", i);
			break;
		}
		ns[got++] = dt;
	}
	/* Leave the member up. */
	if (got % 2 == 1) {
		if (kernel)
			admin_iface_set(iface, true);
		else
			admin_member_link(admin, member, true);
		wait_speed_event(dev, now_ns());
	}
	return got;
}

int
main(int argc, char **argv)
{
	unsigned int n = argc > 5 ? (unsigned int)atoi(argv[5]) : 200, got;
	struct vur_user_params p;
	struct vur_user_dev *dev;
	uint64_t *ns;

	if (argc < 5 || n == 0) {
		fprintf(stderr, "usage: %s DEVICE_SOCKET ADMIN_SOCKET MEMBER IFACE [N]\n", argv[0]);
		return 2;
	}
	vur_user_params_init(&p, argv[1]);
	if (vur_user_open(&p, &dev) != 0) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	ns = calloc(n, sizeof(*ns));
	if (ns == NULL)
		return 1;
	printf("reference: memcpy %.1f GB/s\n", memcpy_gbps());

	got = run(dev, argv[2], argv[3], argv[4], false, ns, n);
	report("speed event after set_member_link RPC", ns, got);
	got = run(dev, argv[2], argv[3], argv[4], true, ns, n);
	report("speed event after the tap's kernel link change (rtnetlink)", ns, got);

	free(ns);
	vur_user_close(dev);
	return 0;
}
