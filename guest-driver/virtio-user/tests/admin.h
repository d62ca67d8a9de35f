/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an operator does, from a C test or bench: the backend's admin RPC
 * (one JSON-RPC 2.0 request per call, on a fresh connection, the reply line
 * returned as text) and the kernel side of a tap ("ip link set dev down").
 */
#ifndef VUSER_TEST_ADMIN_H
#define VUSER_TEST_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Call @method with @params (a JSON object as text, or NULL) on the admin
 * socket @path; the reply into @out. Returns 0 when the backend answered
 * with a result, -EREMOTEIO when it answered with an error, or -errno.
 */
int admin_call(const char *path, const char *method, const char *params, char *out, size_t size);

/* set_member_link / set_device_link: 0 or as admin_call(). */
int admin_member_link(const char *path, const char *member, bool up);
int admin_device_link(const char *path, const char *device, bool up);

/* Set the kernel interface @name up or down (IFF_UP): 0 or -errno. */
int admin_iface_set(const char *name, bool up);

#endif /* VUSER_TEST_ADMIN_H */
