/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin RPC's methods: list devices and uplinks with their speeds, set a
 * device's or a member's link, declare a member's nominal speed.
 */
#ifndef VUR_ADMIN_METHODS_H
#define VUR_ADMIN_METHODS_H

#include <jansson.h>

struct vur_admin;

/* JSON-RPC 2.0 error codes (jsonrpc.org/specification, 5.1) and errno-style ones. */
#define VUR_RPC_PARSE_ERROR      -32700
#define VUR_RPC_INVALID_REQUEST  -32600
#define VUR_RPC_METHOD_NOT_FOUND -32601
#define VUR_RPC_INVALID_PARAMS   -32602

/*
 * Run @method with @params (NULL when absent). On success returns 0 and a
 * new reference in @result; on failure returns a JSON-RPC error code and
 * a new reference in @error ({"code", "message"}).
 */
int vur_admin_call(struct vur_admin *a, const char *method, json_t *params, json_t **result,
		json_t **error);

/* A JSON-RPC error object. */
json_t *vur_admin_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* VUR_ADMIN_METHODS_H */
