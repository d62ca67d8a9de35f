/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's RDMA engine counters, in its /vur/device dict (prefix rdma_),
 * and its QPs with theirs (/vur/qps,PATH).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "common/dpdk_compat.h"
#include "mgmt/telemetry.h"
#include "rdma/qp_state.h"
#include "transport/pkt.h"
#include "transport/transport.h"
#include "vhost/vdev.h"

void
vur_telemetry_add_rdma(struct rte_tel_data *d, const struct vur_tp_stats *st)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
#define F(name) { "rdma_" #name, offsetof(struct vur_tp_stats, name) }
		F(tx_pkts),
		F(tx_bytes),
		F(rx_pkts),
		F(rx_bytes),
		F(retransmits),
		F(retx_bytes),
		F(ecn_ce_rx),
		F(cnp_sent),
		F(cnp_rx),
		F(ooo_held),
		F(probes),
		F(nak_seq),
		F(nak_inv),
		F(nak_access),
		F(nak_op),
		F(rnr_nak_sent),
		F(rnr_waits),
		F(timeouts),
		F(cqes),
		F(cqe_lost),
		F(cq_overrun),
		F(flushed),
		F(wr_errors),
		F(atomics),
		F(atomic_replays),
		F(mcast_rx),
		F(ring_doorbells),
		F(ring_db_ignored),
		F(ring_db_handoffs),
		F(ring_events),
		F(ring_events_waited),
		F(ring_broken),
#undef F
	};
	char key[64];

	for (size_t i = 0; i < RTE_DIM(fields); i++)
		rte_tel_data_add_dict_uint(d, fields[i].key,
				*(const uint64_t *)((const char *)st + fields[i].off));
	for (int i = 0; i < VUR_TP_DROP_COUNT; i++) {
		snprintf(key, sizeof(key), "rdma_%s", vur_tp_drop_name(i));
		rte_tel_data_add_dict_uint(d, key, st->drops[i]);
	}
	for (int i = 1; i < VUR_PKT_ERR_COUNT; i++) {
		snprintf(key, sizeof(key), "rdma_rx_%s", vur_pkt_err_name(i));
		rte_tel_data_add_dict_uint(d, key, st->pkt_err[i]);
	}
}

static struct rte_tel_data *
qp_dict(const struct vur_tp_qp_info *q)
{
	struct rte_tel_data *d = rte_tel_data_alloc();

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "type", vur_tp_qp_type_name(q->type));
	rte_tel_data_add_dict_string(d, "state", vur_qp_state_name(q->state));
	rte_tel_data_add_dict_uint(d, "dest_qpn", q->dest_qpn);
	rte_tel_data_add_dict_uint(d, "data_path", q->data_path);
	rte_tel_data_add_dict_uint(d, "sq_psn", q->sq_psn);
	rte_tel_data_add_dict_uint(d, "rq_psn", q->rq_psn);
	rte_tel_data_add_dict_uint(d, "outstanding", q->outstanding);
	rte_tel_data_add_dict_uint(d, "reads_out", q->reads_out);
	rte_tel_data_add_dict_uint(d, "una", q->una);
	rte_tel_data_add_dict_uint(d, "window", q->window);
	rte_tel_data_add_dict_uint(d, "rate_mbps", q->rate_mbps);
	rte_tel_data_add_dict_uint(d, "srtt_us", q->srtt_us);
	/* its layout (issue 28): rings in driver memory or virtqueues */
	rte_tel_data_add_dict_string(d, "layout", q->rings ? "rings" : "virtqueues");
	rte_tel_data_add_dict_uint(d, "sq_entries", q->sq_entries);
	if (q->rings) {
		rte_tel_data_add_dict_uint(d, "dbq", q->dbq);
		rte_tel_data_add_dict_uint(d, "active", q->active);
	}
	for (unsigned int i = 0; i < vur_tp_qp_stat_nfields; i++)
		rte_tel_data_add_dict_uint(
				d, vur_tp_qp_stat_fields[i].name, vur_tp_qp_stat(&q->stats, i));
	return d;
}

/*
 * Split "PATH,QPN" into @path and *@qpn; false when @params has no such
 * tail. A device whose path is all of @params is asked for first, so a
 * path with a comma still works.
 */
static bool
split_qpn(const char *params, char *path, size_t size, uint32_t *qpn)
{
	const char *comma = strrchr(params, ',');
	char *end;
	unsigned long v;

	if (comma == NULL || comma[1] == '\0' || (size_t)(comma - params) >= size)
		return false;
	errno = 0;
	v = strtoul(comma + 1, &end, 10);
	if (*end != '\0' || errno != 0 || v > UINT32_MAX)
		return false;
	memcpy(path, params, (size_t)(comma - params));
	path[comma - params] = '\0';
	*qpn = (uint32_t)v;
	return true;
}

/*
 * /vur/qps,PATH: one dict per bound QP, keyed by its number;
 * /vur/qps,PATH,QPN: that QP's alone (telemetry's reply is bounded: a
 * device with many QPs does not fit in one).
 */
int
vur_telemetry_show_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vur_tp_qp_info *qps;
	struct rte_tel_data *q;
	char key[16], path[PATH_MAX];
	uint32_t only = UINT32_MAX;
	int n;

	(void)cmd;
	if (params == NULL)
		return -EINVAL;
	qps = calloc(VUR_DEV_MAX_QPS, sizeof(*qps));
	if (qps == NULL)
		return -ENOMEM;
	n = vur_dev_qps(params, qps, VUR_DEV_MAX_QPS);
	if (n < 0 && split_qpn(params, path, sizeof(path), &only))
		n = vur_dev_qps(path, qps, VUR_DEV_MAX_QPS);
	if (n < 0) {
		free(qps);
		return -EINVAL; /* telemetry answers null: no such device */
	}
	rte_tel_data_start_dict(d);
	for (int i = 0; i < RTE_MIN(n, VUR_DEV_MAX_QPS); i++) {
		if (only != UINT32_MAX && qps[i].qpn != only)
			continue;
		q = qp_dict(&qps[i]);
		if (q == NULL)
			break;
		snprintf(key, sizeof(key), "%u", qps[i].qpn);
		rte_tel_data_add_dict_container(d, key, q, 0);
	}
	free(qps);
	return 0;
}
