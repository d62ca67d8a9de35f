/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the tests of the verbs against the real backend share: the backend
 * child, one device per case, the backend's object counts from telemetry,
 * and builders of valid objects and attributes.
 *
 * Functions and state are static here, in each test program, because the
 * TAP state of tap.h is per translation unit: a check in a helper must
 * count for the case that called it.
 */
#ifndef VUSER_TEST_VERBS_TEST_H
#define VUSER_TEST_VERBS_TEST_H

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
#include "telemetry.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define WAIT_MS 10000

static const char *backend_bin;
static struct child backend;
static struct vur_user_dev *dev; /* the device of the running case */
static struct vur_user_device_attr lim;
static struct vur_user_port_attr port;

/* IPv4-mapped GIDs: ::ffff:10.0.0.1 (ours) and ::ffff:10.0.0.2 (a peer). */
static const uint8_t gid_local[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t gid_peer[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t gid_v6[16] = { 0xfd, 0x00, [15] = 0x02 };
static const uint8_t gid_mcast[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t gid_zero[16];

static inline void
log_hook(void *arg, int level, const char *msg)
{
	(void)arg;
	printf("# log %d: %s\n", level, msg);
}

/* The backend's object counts, as its telemetry reports them. */
struct counts {
	uint64_t pds, mrs, cqs, qps, ahs, gids;
};

static inline int
read_counts(struct counts *c)
{
	char cmd[160], json[4096];
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), "/vur/device,%s", backend.sock);
	ret = telemetry_query(backend.prefix, cmd, json, sizeof(json));
	if (ret < 0)
		return ret;
	if (telemetry_field(json, "pds", &c->pds) < 0 ||
			telemetry_field(json, "mrs", &c->mrs) < 0 ||
			telemetry_field(json, "cqs", &c->cqs) < 0 ||
			telemetry_field(json, "qps", &c->qps) < 0 ||
			telemetry_field(json, "ahs", &c->ahs) < 0 ||
			telemetry_field(json, "gids", &c->gids) < 0) {
		printf("# telemetry answer without an object count: %s\n", json);
		return -ENOENT;
	}
	return 0;
}

static inline void
check_refused(int ret, const struct counts *before, const struct counts *after, int line,
		const char *what)
{
	if (ret != -EREMOTEIO) {
		printf("# %s:%d: %s: %d where the device must refuse (-EREMOTEIO)\n", __FILE__,
				line, what, ret);
		tap_case_failed = 1;
	}
	if (memcmp(before, after, sizeof(*before)) != 0) {
		printf("# %s:%d: %s: the refusal changed the objects (ROCE-DEV-CTRL-7): pds "
		       "%llu->%llu "
		       "mrs %llu->%llu cqs %llu->%llu qps %llu->%llu ahs %llu->%llu gids "
		       "%llu->%llu\n",
				__FILE__, line, what, (unsigned long long)before->pds,
				(unsigned long long)after->pds, (unsigned long long)before->mrs,
				(unsigned long long)after->mrs, (unsigned long long)before->cqs,
				(unsigned long long)after->cqs, (unsigned long long)before->qps,
				(unsigned long long)after->qps, (unsigned long long)before->ahs,
				(unsigned long long)after->ahs, (unsigned long long)before->gids,
				(unsigned long long)after->gids);
		tap_case_failed = 1;
	}
}

/* @call must fail with VIRTIO_NET_ERR and leave every object as it was. */
#define REFUSED(call)                                                    \
	do {                                                             \
		struct counts before_, after_;                           \
		int ret_;                                                \
		TAP_EQ(read_counts(&before_), 0);                        \
		ret_ = (call);                                           \
		TAP_EQ(read_counts(&after_), 0);                         \
		check_refused(ret_, &before_, &after_, __LINE__, #call); \
	} while (0)

/* Raw control command of the RoCE class: its ack byte, or a negative errno. */
static inline int
raw(uint8_t cmd, const void *data, uint32_t len, void *ack, uint32_t ack_len, int *written)
{
	uint8_t status = 0xff;
	int ret;

	ret = vur_user_ctrl(dev, vur_user_roce_class(dev), cmd, data, len, ack, ack_len, &status);
	if (written != NULL)
		*written = ret;
	return ret < 0 ? ret : status;
}

static inline bool
begin(void)
{
	struct vur_user_params p;

	vur_user_params_init(&p, backend.sock);
	dev = NULL;
	TAP_EQ(vur_user_open(&p, &dev), 0);
	if (dev == NULL)
		tap_skip("no device");
	return dev != NULL;
}

/*
 * Close, and wait until the backend has let the connection go, so that the
 * next case's connection does not overtake the end of this one (see
 * two_frontends_one_socket()).
 */
static inline void
end(void)
{
	int disconnects = child_log_count(&backend, "frontend disconnected");

	if (dev == NULL)
		return;
	TAP_EQ(vur_user_close(dev), 0);
	dev = NULL;
	TAP_EQ(child_wait_log(&backend, "frontend disconnected", disconnects + 1, WAIT_MS), 0);
}

static inline uint32_t
new_pd(void)
{
	uint32_t pdn = UINT32_MAX;

	TAP_EQ(vur_user_create_pd(dev, &pdn), 0);
	return pdn;
}

static inline uint32_t
new_cq(uint32_t cqe)
{
	uint32_t cqn = UINT32_MAX;

	TAP_EQ(vur_user_create_cq(dev, cqe, &cqn), 0);
	return cqn;
}

static inline struct vur_user_qp_init_attr
qp_init(uint8_t type, uint32_t pdn, uint32_t cqn)
{
	return (struct vur_user_qp_init_attr){
		.pdn = pdn,
		.qp_type = type,
		.send_cqn = cqn,
		.recv_cqn = cqn,
		.cap = { .max_send_wr = 16,
				.max_recv_wr = 16,
				.max_send_sge = 1,
				.max_recv_sge = 1 },
	};
}

static inline uint32_t
new_qp(uint8_t type, uint32_t pdn, uint32_t cqn)
{
	struct vur_user_qp_init_attr ia = qp_init(type, pdn, cqn);
	uint32_t qpn = UINT32_MAX;

	TAP_EQ(vur_user_create_qp(dev, &ia, &qpn), 0);
	return qpn;
}

/* An address vector valid once gid_local is at index 0 (section "Address Handles"). */
static inline struct vur_user_ah_attr
valid_av(void)
{
	struct vur_user_ah_attr av = {
		.grh = { .sgid_index = 0, .hop_limit = 64, .traffic_class = 0, .flow_label = 0 },
		.dmac = { 0x52, 0x54, 0x00, 0x5e, 0x00, 0x02 },
	};

	memcpy(av.grh.dgid, gid_peer, sizeof(av.grh.dgid));
	return av;
}

static inline int
query_state(uint32_t qpn)
{
	struct vur_user_qp_attr a;
	int ret = vur_user_query_qp(dev, qpn, 0, &a);

	return ret < 0 ? ret : a.qp_state;
}

#define RC_RTR_MASK                                                                         \
	(VUR_USER_QP_STATE | VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU | VUR_USER_QP_DEST_QPN | \
			VUR_USER_QP_RQ_PSN | VUR_USER_QP_MAX_DEST_RD_ATOMIC |               \
			VUR_USER_QP_MIN_RNR_TIMER)
#define RC_RTS_MASK                                                                             \
	(VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN | VUR_USER_QP_TIMEOUT | VUR_USER_QP_RETRY_CNT | \
			VUR_USER_QP_RNR_RETRY | VUR_USER_QP_MAX_QP_RD_ATOMIC)

/* The attributes an RC QP goes through to RTS, with values that can be recognised. */
static inline struct vur_user_qp_attr
rc_attr(void)
{
	return (struct vur_user_qp_attr){
		.qp_access_flags = VUR_USER_ACCESS_REMOTE_WRITE | VUR_USER_ACCESS_REMOTE_READ,
		.path_mtu = VUR_USER_MTU_1024,
		.dest_qp_num = 0xabcde,
		.rq_psn = 0x123456,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.sq_psn = 0x654321,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
		.ah_attr = valid_av(),
	};
}

/* A PD, a CQ, the GID at index 0, and a QP of @type in RESET. */
static inline uint32_t
qp_setup(uint8_t type)
{
	uint32_t pdn = new_pd(), cqn = new_cq(16);

	TAP_EQ(vur_user_add_gid(dev, 0, gid_local), 0);
	return new_qp(type, pdn, cqn);
}

static inline int
modify(uint32_t qpn, struct vur_user_qp_attr a, uint8_t state, uint32_t mask)
{
	a.qp_state = state;
	return vur_user_modify_qp(dev, qpn, &a, mask);
}

static inline bool
all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len > 0 && b[len - 1] == 0)
		len--;
	return len == 0;
}

static inline bool
have_limits(void)
{
	if (lim.max_pd == 0 || port.gid_tbl_len == 0) {
		tap_skip("no device or port attributes");
		return false;
	}
	return true;
}

/* Start the shared backend and learn the device's limits. */
static inline void
start(void)
{
	int ret = child_start_backend(&backend, backend_bin, NULL);

	if (ret == 0)
		ret = child_wait_socket(&backend, WAIT_MS);
	TAP_EQ(ret, 0);
	if (ret < 0 || !begin())
		return;
	TAP_EQ(vur_user_query_device(dev, &lim), 0);
	TAP_EQ(vur_user_query_port(dev, &port), 0);
	end();
}

/* SIGTERM must stop it with status 0: no crash, and no leak under LeakSanitizer. */
static inline void
stop(void)
{
	int status = child_stop(&backend, SIGTERM, WAIT_MS);

	TAP_CHECK(status >= 0 && WIFEXITED(status));
	TAP_EQ(WEXITSTATUS(status), 0);
	if (tap_failed || tap_case_failed)
		child_dump_log(&backend);
}

#endif /* VUSER_TEST_VERBS_TEST_H */
