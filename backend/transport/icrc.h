/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The invariant CRC of a RoCE v2 packet (IBTA Annex A17.3.3): CRC-32 (IEEE,
 * reflected) over 8 bytes of ones standing for the LRH, then the IP, UDP
 * and IB headers with the fields that routers may change masked to ones
 * (IPv4 TOS, TTL and checksum; IPv6 traffic class, flow label and hop
 * limit; UDP checksum; the BTH's FECN/BECN/reserved byte), then the payload
 * and pad. It is stored little-endian after the payload, as Linux rxe and
 * RoCE NICs store it. ISA-L's crc32_gzip_refl is that CRC, incremental and
 * carry-less-multiply fast (DPDK's rte_hash_crc is CRC-32C: the wrong
 * polynomial).
 */
#ifndef VUR_ICRC_H
#define VUR_ICRC_H

#include <stdint.h>

struct rte_mbuf;

/*
 * The ICRC of the RoCE v2 packet in @m whose IP header starts at @l3_off
 * and whose ICRC field starts at @icrc_off (the packet may be segmented).
 * Returns the value in host order: store it with rte_cpu_to_le_32().
 * @ipv6 says which IP header it is.
 */
uint32_t vur_icrc_compute(const struct rte_mbuf *m, uint32_t l3_off, uint32_t icrc_off, int ipv6);

/* The same over a flat buffer @p of @len bytes (IP header first, ICRC excluded). */
uint32_t vur_icrc_flat(const uint8_t *p, uint32_t len, int ipv6);

#endif /* VUR_ICRC_H */
