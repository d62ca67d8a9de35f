/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The default MAC of a device when --mac is not given: derived from the
 * host's identity and the device's socket path, so that backends started
 * with defaults on two hosts joined by a wire (or on one host, in two
 * network namespaces) never answer for the same address.
 */
#ifndef VUR_DEFAULT_MAC_H
#define VUR_DEFAULT_MAC_H

#include <stddef.h>
#include <stdint.h>

#define VUR_MACHINE_ID_FILE "/etc/machine-id"

/*
 * The host's identity into @buf: the first line of @machine_id_file
 * (normally VUR_MACHINE_ID_FILE), or the host name when that file is absent
 * or empty. Returns which one: "machine-id" or "hostname".
 */
const char *vur_host_identity(const char *machine_id_file, char *buf, size_t len);

/*
 * The MAC of the device on @path (an absolute path) on host @host_id: a
 * hash of both (rte_jhash), made a locally administered unicast address.
 * @attempt picks another address for the same inputs (0 first), for when
 * two devices of one backend would get the same one.
 */
void vur_default_mac(const char *host_id, const char *path, uint32_t attempt, uint8_t mac[6]);

#endif /* VUR_DEFAULT_MAC_H */
