/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal client of DPDK's telemetry socket (dpdk_telemetry.v2 in the EAL
 * runtime directory of a file prefix): one command, one JSON answer, and
 * the value of one numeric field of it. Enough for tests to read the
 * backend's object counts without a JSON library.
 */
#ifndef VUSER_TEST_TELEMETRY_H
#define VUSER_TEST_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Send @cmd (e.g. "/vur/device,/tmp/x/vhost-rdma0") to the telemetry socket
 * of EAL file prefix @prefix and put the answer, NUL-terminated, in @out.
 * Returns its length, or -errno.
 */
int telemetry_query(const char *prefix, const char *cmd, char *out, size_t size);

/*
 * The unsigned integer after "@field": in @json. Returns 0, or -ENOENT if
 * the field is absent or not a number.
 */
int telemetry_field(const char *json, const char *field, uint64_t *value);

#endif /* VUSER_TEST_TELEMETRY_H */
