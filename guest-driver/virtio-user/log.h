/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging through the hook of vur_user_set_log(). Lines about a device carry
 * its socket path, so that a process with several devices can tell them apart.
 */
#ifndef VUSER_LOG_H
#define VUSER_LOG_H

#include "vur_user.h"

void vuser_log(int level, const char *name, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));

#define VUSER_LOG(level, name, ...) vuser_log(VUR_USER_LOG_##level, name, __VA_ARGS__)

#endif /* VUSER_LOG_H */
