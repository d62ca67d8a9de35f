/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints (read them with dpdk-telemetry.py):
 *   /vur/devices          the socket path of every device
 *   /vur/device,PATH      one device: connection, features, resources, errors
 */
#ifndef VUR_TELEMETRY_H
#define VUR_TELEMETRY_H

int vur_telemetry_register(void);

#endif /* VUR_TELEMETRY_H */
