/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names management gives the engine's per-QP counters and QP types, so
 * that telemetry and the admin RPC show them alike.
 */
#include <stddef.h>

#include <linux/virtio_net_roce.h>

#include "transport/transport.h"

#define F(name)                                               \
	{                                                     \
#name, offsetof(struct vur_tp_qp_stats, name) \
	}
const struct vur_tp_qp_stat_field vur_tp_qp_stat_fields[] = {
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
	F(timeouts),
	F(nak_seq),
	F(nak_inv),
	F(nak_access),
	F(nak_op),
	F(rnr_nak_sent),
	F(rnr_waits),
	F(flushed),
	F(wr_errors),
	F(drops),
	F(atomics),
	F(atomic_replays),
};
#undef F

_Static_assert(sizeof(vur_tp_qp_stat_fields) / sizeof(vur_tp_qp_stat_fields[0]) ==
				sizeof(struct vur_tp_qp_stats) / sizeof(uint64_t),
		"every per-QP counter has a name");

const unsigned int vur_tp_qp_stat_nfields =
		sizeof(vur_tp_qp_stat_fields) / sizeof(vur_tp_qp_stat_fields[0]);

uint64_t
vur_tp_qp_stat(const struct vur_tp_qp_stats *st, unsigned int i)
{
	return *(const uint64_t *)((const char *)st + vur_tp_qp_stat_fields[i].off);
}

const char *
vur_tp_qp_type_name(uint8_t type)
{
	switch (type) {
	case VIRTIO_IB_QPT_GSI:
		return "GSI";
	case VIRTIO_IB_QPT_RC:
		return "RC";
	case VIRTIO_IB_QPT_UC:
		return "UC";
	case VIRTIO_IB_QPT_UD:
		return "UD";
	default:
		return "?";
	}
}
