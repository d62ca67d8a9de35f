/* SPDX-License-Identifier: BSD-3-Clause */
/* A device's RDMA engine counters, in its /vur/device dict (prefix rdma_). */
#include <stdio.h>

#include <rte_telemetry.h>

#include "mgmt/telemetry.h"
#include "transport/pkt.h"
#include "transport/transport.h"

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
#undef F
	};
	char key[64];

	for (size_t i = 0; i < RTE_DIM(fields); i++)
		rte_tel_data_add_dict_u64(d, fields[i].key,
				*(const uint64_t *)((const char *)st + fields[i].off));
	for (int i = 0; i < VUR_TP_DROP_COUNT; i++) {
		snprintf(key, sizeof(key), "rdma_%s", vur_tp_drop_name(i));
		rte_tel_data_add_dict_u64(d, key, st->drops[i]);
	}
	for (int i = 1; i < VUR_PKT_ERR_COUNT; i++) {
		snprintf(key, sizeof(key), "rdma_rx_%s", vur_pkt_err_name(i));
		rte_tel_data_add_dict_u64(d, key, st->pkt_err[i]);
	}
}
