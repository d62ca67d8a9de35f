/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vHCA port rule (issue 25, ROCE-DEV-POLICY-8) through the real
 * vhost-user protocol: a device with allowed addresses reports its link,
 * thus its RoCE port, up only while the GID table holds the GID of every
 * allowed address (the guest added them) and its uplinks are up; each
 * change reaches the driver as a configuration change, as an uplink's
 * does. No set: the port follows the uplinks alone.
 *
 * Usage: virtio_user_vhca_port_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/virtio_net.h>

#include "admin.h"
#include "rdma_e2e.h"

#define MEM_SIZE (4 << 20)
#define BUF_LEN  (64 * 1024)

static struct rdma_e2e t;
static struct rdma_ep ep;
static char path[128];

static int
set_addresses(const char *list)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"allowed_ips\": %s}", path, list);
	return admin_call(t.backend.admin, "set_device_addresses", params, out, sizeof(out));
}

static uint64_t
counter(const char *name)
{
	return rdma_e2e_counter(&t, &ep, name);
}

/* Whether VIRTIO_NET_S_LINK_UP becomes @up within 2 s (the rule runs after the command). */
static bool
link_becomes(bool up)
{
	struct vur_user_config cfg;
	uint64_t end = rdma_now_ms() + 2000;

	do {
		if (vur_user_read_config(ep.d, &cfg) == 0 &&
				!!(cfg.status & VIRTIO_NET_S_LINK_UP) == up)
			return counter("link_up") == up;
		poll(NULL, 0, 5);
	} while (rdma_now_ms() < end);
	return false;
}

/* rdma_ep_open stores 10.0.0.7 at index 0: one of the two allowed addresses. */
static void
down_until_every_gid(void)
{
	char params[512], out[8192];
	uint64_t changes;
	uint8_t gid[16];

	snprintf(params, sizeof(params),
			"{\"device\": \"%s\", \"allowed_ips\": [\"10.0.0.7\", \"fd00::7\"]}", path);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), 0);
	TAP_EQ(rdma_ep_open(&ep, path, 7, BUF_LEN, MEM_SIZE), 0);
	if (ep.d == NULL)
		return;
	TAP_CHECK(link_becomes(false));
	changes = counter("config_changes");
	rdma_e2e_gid_of("fd00::7", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 1, gid), 0);
	TAP_CHECK(link_becomes(true));
	TAP_EQ(counter("config_changes"), changes + 1);
	/* the guest takes one away: down again, told again */
	TAP_EQ(vur_user_del_gid(ep.d, 1), 0);
	TAP_CHECK(link_becomes(false));
	TAP_EQ(counter("config_changes"), changes + 2);
	/* a GID of another index is as good */
	TAP_EQ(vur_user_add_gid(ep.d, 5, gid), 0);
	TAP_CHECK(link_becomes(true));
}

/* The set changes live: the port follows it. */
static void
follows_the_set(void)
{
	uint64_t changes;

	if (ep.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	changes = counter("config_changes");
	TAP_EQ(set_addresses("[\"10.0.0.7\", \"10.0.0.9\"]"), 0);
	TAP_CHECK(link_becomes(false));
	TAP_EQ(set_addresses("[]"), 0); /* no set: the uplinks alone */
	TAP_CHECK(link_becomes(true));
	TAP_EQ(counter("config_changes"), changes + 2);
	/* the administrator's link still rules: down whatever the GIDs */
	TAP_EQ(admin_device_link(t.backend.admin, path, false), 0);
	TAP_CHECK(link_becomes(false));
	TAP_EQ(set_addresses("[\"10.0.0.7\"]"), 0);
	TAP_CHECK(link_becomes(false));
	TAP_EQ(admin_device_link(t.backend.admin, path, true), 0);
	TAP_CHECK(link_becomes(true));
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_start_admin(&t, argc, argv) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/vhca0", t.backend.dir);
	TAP_RUN(down_until_every_gid);
	TAP_RUN(follows_the_set);
	if (ep.d != NULL)
		vur_user_close(ep.d);
	return rdma_e2e_end_admin(&t);
}
