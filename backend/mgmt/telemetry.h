/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints (read them with dpdk-telemetry.py):
 *   /vur/devices          the socket path of every device
 *   /vur/device,PATH      one device: connection, features, port speed,
 *                         resources, errors
 *   /vur/uplinks          uplinks and their members' links (read-only; the
 *                         admin RPC changes them)
 */
#ifndef VUR_TELEMETRY_H
#define VUR_TELEMETRY_H

struct vur_port_mgr;

int vur_telemetry_register(struct vur_port_mgr *pm);

#endif /* VUR_TELEMETRY_H */
