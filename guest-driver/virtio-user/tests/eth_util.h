/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the Ethernet tests: frames that carry a marker, receiving the
 * one expected while other traffic (a kernel's IPv6 chatter on a tap) goes
 * by, and the backend's counters from its telemetry.
 */
#ifndef VUSER_TEST_ETH_UTIL_H
#define VUSER_TEST_ETH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "vur_net.h"

#define ETH_TEST_TYPE 0x88b5 /* IEEE 802 local experimental ethertype */

/*
 * An Ethernet frame of @len bytes (at least 18) from @src to @dst with
 * ETH_TEST_TYPE and the 4-byte @marker, then a byte pattern.
 */
void eth_frame(uint8_t *buf, size_t len, const uint8_t dst[6], const uint8_t src[6],
		uint32_t marker);

/* Whether @buf (of @len bytes) is an ETH_TEST_TYPE frame with @marker. */
int eth_is_marked(const uint8_t *buf, size_t len, uint32_t marker);

/*
 * Receive on @dev until the frame with @marker arrives (0, its length in
 * *@len), skipping others, or @timeout_ms pass (-ETIMEDOUT).
 */
int eth_recv_marked(struct vur_user_dev *dev, uint32_t marker, uint8_t *buf, size_t cap,
		size_t *len, int timeout_ms);

/*
 * Wait until the counter @field of device @path in the backend of EAL
 * prefix @prefix reaches @want; returns its last value.
 */
uint64_t eth_wait_counter(const char *prefix, const char *path, const char *field, uint64_t want,
		int timeout_ms);

#endif /* VUSER_TEST_ETH_UTIL_H */
