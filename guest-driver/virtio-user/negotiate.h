/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Feature negotiation as pure functions: what the driver takes from what
 * the device offers and the caller wants, with the dependencies the spec
 * sets, and the vhost-user protocol features the frontend needs.
 */
#ifndef VUSER_NEGOTIATE_H
#define VUSER_NEGOTIATE_H

#include <stdbool.h>
#include <stdint.h>

#define VUSER_BIT(b) (1ULL << (b))

/* VIRTIO_NET_F_ROCE's bit in the chosen numbering (58, or 55 for RFC v2). */
unsigned int vuser_roce_bit(bool rfc2_numbering);

/*
 * The virtio features to acknowledge: @offered & @wanted & what the driver
 * supports, VHOST_USER_F_PROTOCOL_FEATURES when offered, minus features
 * whose dependency is missing. Returns 0, or -ENOTSUP with *why set when
 * the device lacks something the driver cannot do without.
 */
int vuser_features_negotiate(uint64_t offered, uint64_t wanted, bool rfc2_numbering,
		uint64_t *acked, const char **why);

/* The same for vhost-user protocol features. */
int vuser_protocol_negotiate(uint64_t offered, uint64_t *acked, const char **why);

#endif /* VUSER_NEGOTIATE_H */
