/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-device quotas (issue 25) through the real vhost-user protocol: a
 * device created over the admin RPC with quotas, a virtio-user frontend on
 * it; each quota refuses its command with VIRTIO_NET_ERR (-EREMOTEIO here)
 * while QUERY_DEVICE's limits leave room (ROCE-DEV-QUOTA-1..5), the
 * refusals counted in get_devices and telemetry; lowered below what is live
 * it keeps the live objects (ROCE-DEV-QUOTA-6); raised while the frontend
 * runs, the command succeeds; a device without quotas is not limited.
 *
 * Usage: virtio_user_quota_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
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
set_quota(const char *quota)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"quota\": %s}", path, quota);
	return rpc("set_device_quota", params, out, sizeof(out));
}

static uint64_t
counter(const char *name)
{
	return rdma_e2e_counter(&t, &ep, name);
}

/* PD, DMA MR (MR 1 of 2) and CQ (1 of 1) of rdma_ep_open. */
static void
create_with_quotas(void)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params),
			"{\"device\": \"%s\", \"max_qps\": 8, \"max_cqs\": 4, \"quota\": "
			"{\"qps\": 1, \"cqs\": 1, \"mrs\": 2, \"pinned_bytes\": 8192, "
			"\"wrs\": 64}}",
			path);
	TAP_EQ(rpc("create_device", params, out, sizeof(out)), 0);
	TAP_CHECK(strstr(out, "\"pinned_bytes\": {\"max\": 8192") != NULL ||
			strstr(out, "\"pinned_bytes\":{\"max\":8192") != NULL);
	/* a bad quota is refused, the device unchanged */
	TAP_EQ(set_quota("{\"bogus\": 1}"), -EREMOTEIO);
	TAP_EQ(set_quota("{\"qps\": -1}"), -EREMOTEIO);
	TAP_EQ(rdma_ep_open(&ep, path, 1, BUF_LEN, MEM_SIZE), 0);
	TAP_EQ(counter("quota_cqs"), 1);
	TAP_EQ(counter("quota_cqs_used"), 1);
	TAP_EQ(counter("quota_mrs_used"), 1);
}

static void
refusals(void)
{
	struct vur_user_qp_init_attr ia = {
		.pdn = ep.pdn,
		.qp_type = VUR_USER_QPT_RC,
		.send_cqn = ep.cqn,
		.recv_cqn = ep.cqn,
		.cap = { .max_send_wr = 32,
				.max_recv_wr = 33,
				.max_send_sge = 1,
				.max_recv_sge = 1 },
	};
	struct vur_user_mr mr, mr2;
	uint32_t cqn, qpn, qpn2;

	if (ep.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	/* ROCE-DEV-QUOTA-2 */
	TAP_EQ(vur_user_create_cq(ep.d, 16, &cqn), -EREMOTEIO);
	TAP_EQ(counter("quota_cqs_refused"), 1);
	/* ROCE-DEV-QUOTA-5: 32 + 33 WRs above 64 */
	TAP_EQ(vur_user_create_qp(ep.d, &ia, &qpn), -EREMOTEIO);
	TAP_EQ(counter("quota_wrs_refused"), 1);
	ia.cap.max_recv_wr = 32;
	TAP_EQ(vur_user_create_qp(ep.d, &ia, &qpn), 0);
	TAP_EQ(counter("quota_wrs_used"), 64);
	/* ROCE-DEV-QUOTA-1 */
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 0;
	TAP_EQ(vur_user_create_qp(ep.d, &ia, &qpn2), -EREMOTEIO);
	TAP_EQ(counter("quota_qps_refused"), 1);
	/* ROCE-DEV-QUOTA-4: 3 pages above 8192 bytes; 2 pages fit */
	TAP_EQ(vur_user_reg_mr(ep.d, ep.pdn, VUR_USER_ACCESS_LOCAL_WRITE, ep.buf, 3 * 4096, ep.addr,
			       &mr),
			-EREMOTEIO);
	TAP_EQ(counter("quota_pinned_bytes_refused"), 1);
	TAP_EQ(vur_user_reg_mr(ep.d, ep.pdn, VUR_USER_ACCESS_LOCAL_WRITE, ep.buf, 2 * 4096, ep.addr,
			       &mr),
			0);
	TAP_EQ(counter("quota_pinned_bytes_used"), 8192);
	/* ROCE-DEV-QUOTA-3: the DMA MR and this one are two */
	TAP_EQ(vur_user_get_dma_mr(ep.d, ep.pdn, 0, &mr2), -EREMOTEIO);
	TAP_EQ(counter("quota_mrs_refused"), 1);
	/* freed, its share comes back */
	TAP_EQ(vur_user_dereg_mr(ep.d, mr.mrn), 0);
	TAP_EQ(counter("quota_pinned_bytes_used"), 0);
	TAP_EQ(vur_user_destroy_qp(ep.d, qpn), 0);
	TAP_EQ(counter("quota_wrs_used"), 0);
}

/* Changed while the frontend runs. */
static void
live_change(void)
{
	struct vur_user_mr mr;
	uint32_t cqn[3];

	if (ep.d == NULL) {
		tap_case_failed = 1;
		return;
	}
	TAP_EQ(set_quota("{\"cqs\": 3}"), 0);
	TAP_EQ(counter("quota_cqs"), 3);
	TAP_EQ(counter("quota_mrs"), 2); /* left out: unchanged */
	TAP_EQ(vur_user_create_cq(ep.d, 16, &cqn[0]), 0);
	TAP_EQ(vur_user_create_cq(ep.d, 16, &cqn[1]), 0);
	TAP_EQ(vur_user_create_cq(ep.d, 16, &cqn[2]), -EREMOTEIO);
	/* ROCE-DEV-QUOTA-6: lowered below what is live, the CQs stay and work */
	TAP_EQ(set_quota("{\"cqs\": 1}"), 0);
	TAP_EQ(counter("quota_cqs_used"), 3);
	TAP_EQ(vur_user_req_notify_cq(ep.d, cqn[1], VUR_USER_NOTIFY_NEXT_COMPLETION), 0);
	TAP_EQ(vur_user_create_cq(ep.d, 16, &cqn[2]), -EREMOTEIO);
	TAP_EQ(vur_user_destroy_cq(ep.d, cqn[0]), 0);
	TAP_EQ(vur_user_destroy_cq(ep.d, cqn[1]), 0);
	/* 0: no quota; the refusal counters stay */
	TAP_EQ(set_quota("{\"mrs\": 0, \"pinned_bytes\": 0}"), 0);
	TAP_EQ(vur_user_reg_mr(ep.d, ep.pdn, VUR_USER_ACCESS_LOCAL_WRITE, ep.buf, 4 * 4096, ep.addr,
			       &mr),
			0);
	TAP_EQ(counter("quota_mrs_refused"), 1);
	TAP_EQ(counter("quota_cqs_refused"), 3);
}

int
main(int argc, char **argv)
{
	if (rdma_e2e_start_admin(&t, argc, argv) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/quota0", t.backend.dir);
	TAP_RUN(create_with_quotas);
	TAP_RUN(refusals);
	TAP_RUN(live_change);
	if (ep.d != NULL)
		vur_user_close(ep.d);
	return rdma_e2e_end_admin(&t);
}
