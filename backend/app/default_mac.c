/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The default MAC of a device: unique per host and per socket path.
 *
 * A fixed default (every backend's first device on 52:54:00:5e:00:01) is
 * fine while devices only meet on one backend's switch, but two backends
 * started with defaults and joined by a wire would both claim that address:
 * each switch takes the other's frames for its own device. So, without
 * --mac, each device's address is a hash of the host's identity (systemd's
 * /etc/machine-id, unique per installation; the host name where that file
 * is absent or empty, as in many containers) and the device's socket path
 * (two backends of one host, e.g. in two network namespaces, serve two
 * paths). The same host and path give the same address on every start, so
 * a guest that reconnects after a backend restart keeps its MAC.
 */
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_jhash.h>

#include "default_mac.h"

/* any constant: it only keeps the hash apart from other uses of rte_jhash */
#define VUR_MAC_SEED 0x76757201u

const char *
vur_host_identity(const char *machine_id_file, char *buf, size_t len)
{
	FILE *f = fopen(machine_id_file, "r");

	buf[0] = '\0';
	if (f != NULL) {
		if (fgets(buf, (int)len, f) == NULL)
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, " \t\r\n")] = '\0';
		if (buf[0] != '\0')
			return "machine-id";
	}
	if (gethostname(buf, len) != 0 || buf[0] == '\0')
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	return "hostname";
}

void
vur_default_mac(const char *host_id, const char *path, uint32_t attempt, uint8_t mac[6])
{
	/*
	 * rte_jhash reads the key by whole 32-bit words and masks the tail: the
	 * key sits in a buffer padded with zeros, so no read goes past it.
	 */
	alignas(8) char key[PATH_MAX + 256] = { 0 };
	uint32_t pc = VUR_MAC_SEED, pb = attempt;
	int n;

	n = snprintf(key, sizeof(key) - sizeof(uint64_t), "%s\n%s", host_id, path);
	if (n < 0)
		n = 0;
	n = RTE_MIN(n, (int)(sizeof(key) - sizeof(uint64_t) - 1));
	rte_jhash_2hashes(key, (uint32_t)n, &pc, &pb);
	mac[0] = pc >> 24;
	mac[1] = pc >> 16;
	mac[2] = pc >> 8;
	mac[3] = pc;
	mac[4] = pb >> 8;
	mac[5] = pb;
	/*
	 * First octet: bit 0 (I/G) clear, a unicast address: a device's own
	 * address must be (a group address would be flooded, and --mac refuses
	 * one). Bit 1 (U/L) set, a locally administered address (IEEE 802):
	 * it claims no vendor's OUI, so it can never be the
	 * burned-in address of a real NIC on the same wire.
	 */
	mac[0] = (uint8_t)((mac[0] & ~0x01u) | 0x02u);
}
