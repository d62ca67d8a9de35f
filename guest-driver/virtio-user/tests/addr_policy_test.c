/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allowed addresses per device (issue 25) through the real vhost-user
 * protocol: a device created over the admin RPC with one allowed IPv4
 * address, a virtio-user frontend on it. ADD_GID of another address fails
 * with VIRTIO_NET_ERR (-EREMOTEIO here) and is counted in get_devices and
 * telemetry (ROCE-DEV-POLICY-1); the link-local GID of the device's MAC is
 * taken (ROCE-DEV-POLICY-2); a set changed while the frontend runs keeps
 * the stored GIDs and checks the next ADD_GIDs (ROCE-DEV-POLICY-3); bad
 * sets are refused, the device unchanged.
 *
 * Usage: virtio_user_addr_policy_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "admin.h"
#include "rdma_e2e.h"

#define MEM_SIZE (4 << 20)
#define BUF_LEN  (64 * 1024)

static struct rdma_e2e t;
static struct rdma_ep ep;
static char path[128];

static int
rpc(const char *method, const char *params, char *out, size_t size)
{
	return admin_call(t.backend.admin, method, params, out, size);
}

static int
set_addresses(const char *list, char *out, size_t size)
{
	char params[512];

	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"allowed_ips\": %s}", path, list);
	return rpc("set_device_addresses", params, out, size);
}

static uint64_t
refused(void)
{
	return rdma_e2e_counter(&t, &ep, "refused_gids");
}

/* rdma_ep_open stores 10.0.0.7 at index 0: the allowed address. */
static void
create_with_addresses(void)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params),
			"{\"device\": \"%s\", \"allowed_ips\": [\"10.0.0.7\", \"10.0.0.7\"]}",
			path);
	TAP_EQ(rpc("create_device", params, out, sizeof(out)), 0);
	TAP_CHECK(strstr(out, "\"allowed_ips\": [\"10.0.0.7\"]") != NULL ||
			strstr(out, "\"allowed_ips\":[\"10.0.0.7\"]") != NULL);
	/* bad sets: refused, the device unchanged */
	TAP_EQ(set_addresses("[\"10.0.0.300\"]", out, sizeof(out)), -EREMOTEIO);
	TAP_EQ(set_addresses("[\"ff02::1\"]", out, sizeof(out)), -EREMOTEIO);
	TAP_EQ(set_addresses("[7]", out, sizeof(out)), -EREMOTEIO);
	TAP_EQ(set_addresses("\"10.0.0.8\"", out, sizeof(out)), -EREMOTEIO);
	snprintf(params, sizeof(params), "{\"device\": \"%s/none\", \"allowed_ips\": []}",
			t.backend.dir);
	TAP_EQ(rpc("set_device_addresses", params, out, sizeof(out)), -EREMOTEIO);
	TAP_EQ(rdma_ep_open(&ep, path, 7, BUF_LEN, MEM_SIZE), 0);
	TAP_EQ(refused(), 0);
}

static void
add_gid_rules(void)
{
	uint8_t gid[16];

	if (ep.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	/* ROCE-DEV-POLICY-1: another IPv4 address, an IPv6 one, refused and counted */
	rdma_e2e_gid_of("10.0.0.8", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 1, gid), -EREMOTEIO);
	rdma_e2e_gid_of("fd00::7", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 1, gid), -EREMOTEIO);
	TAP_EQ(refused(), 2);
	/* the entry stayed empty: DEL_GID of it fails */
	TAP_EQ(vur_user_del_gid(ep.d, 1), -EREMOTEIO);
	/* ROCE-DEV-POLICY-2: fe80::/64 with the EUI-64 of the device's MAC */
	memset(gid, 0, sizeof(gid));
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = ep.mac[0] ^ 2;
	gid[9] = ep.mac[1];
	gid[10] = ep.mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	memcpy(gid + 13, ep.mac + 3, 3);
	TAP_EQ(vur_user_add_gid(ep.d, 1, gid), 0);
	gid[15] ^= 1; /* another MAC's */
	TAP_EQ(vur_user_add_gid(ep.d, 2, gid), -EREMOTEIO);
	TAP_EQ(refused(), 3);
}

/* ROCE-DEV-POLICY-3: changed while the frontend runs. */
static void
live_change(void)
{
	char out[8192];
	uint8_t gid[16];

	if (ep.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	TAP_EQ(set_addresses("[\"10.0.0.8\", \"fd00::7\"]", out, sizeof(out)), 0);
	TAP_CHECK(strstr(out, "fd00::7") != NULL);
	rdma_e2e_gid_of("10.0.0.8", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 2, gid), 0);
	rdma_e2e_gid_of("fd00::7", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 3, gid), 0);
	/* 10.0.0.7, no longer allowed, stays at index 0 and is refused elsewhere */
	rdma_e2e_gid_of("10.0.0.7", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 4, gid), -EREMOTEIO);
	TAP_EQ(vur_user_del_gid(ep.d, 0), 0);
	TAP_EQ(vur_user_add_gid(ep.d, 0, gid), -EREMOTEIO);
	/* []: every address */
	TAP_EQ(set_addresses("[]", out, sizeof(out)), 0);
	TAP_EQ(vur_user_add_gid(ep.d, 0, gid), 0);
	rdma_e2e_gid_of("192.0.2.1", gid);
	TAP_EQ(vur_user_add_gid(ep.d, 4, gid), 0);
	TAP_EQ(refused(), 5); /* the counter stays */
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_start_admin(&t, argc, argv) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/policy0", t.backend.dir);
	TAP_RUN(create_with_addresses);
	TAP_RUN(add_gid_rules);
	TAP_RUN(live_change);
	if (ep.d != NULL)
		vur_user_close(ep.d);
	return rdma_e2e_end_admin(&t);
}
