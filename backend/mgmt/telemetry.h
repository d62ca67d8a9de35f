/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints (read them with dpdk-telemetry.py):
 *   /vur/devices          the socket path of every device
 *   /vur/device,PATH      one device: connection, features, port speed,
 *                         resources, errors
 *   /vur/qps,PATH         one device's bound QPs: type, state, PSNs, work
 *                         outstanding, and their counters
 *   /vur/uplinks          uplinks and their members' links (read-only; the
 *                         admin RPC changes them)
 *   /vur/switch           the local switch: its counters and each uplink's
 *                         traffic (telemetry_eth.c)
 */
#ifndef VUR_TELEMETRY_H
#define VUR_TELEMETRY_H

struct rte_tel_data;
struct vur_net_dev_stats;
struct vur_net_state;
struct vur_port_mgr;
struct vur_switch;
struct vur_tp_stats;

int vur_telemetry_register(struct vur_port_mgr *pm);

/*
 * Before the port manager and the switch stop: the endpoints stay (DPDK
 * cannot remove them) but no longer read either.
 */
void vur_telemetry_unregister(void);

/* Register /vur/switch (telemetry_eth.c). */
int vur_telemetry_register_switch(struct vur_switch *sw);
void vur_telemetry_unregister_switch(void);

/* A device's Ethernet counters, added to its /vur/device dict. */
void vur_telemetry_add_eth(struct rte_tel_data *d, const struct vur_net_dev_stats *st);

/*
 * A device's receive filter as its driver set it (RX modes, the MAC tables;
 * a table that overflowed counts -1), likewise.
 */
void vur_telemetry_add_rx_filter(struct rte_tel_data *d, const struct vur_net_state *ns);

/* A device's RDMA engine counters, likewise (telemetry_rdma.c). */
void vur_telemetry_add_rdma(struct rte_tel_data *d, const struct vur_tp_stats *st);

/* The /vur/qps handler (telemetry_rdma.c). */
int vur_telemetry_show_qps(const char *cmd, const char *params, struct rte_tel_data *d);

#endif /* VUR_TELEMETRY_H */
