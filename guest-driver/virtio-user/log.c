/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static const char *const level_names[] = {
	[VUR_USER_LOG_ERR] = "ERR",
	[VUR_USER_LOG_WARNING] = "WARNING",
	[VUR_USER_LOG_INFO] = "INFO",
	[VUR_USER_LOG_DEBUG] = "DEBUG",
};

static void
log_stderr(void *arg, int level, const char *msg)
{
	const char *name = NULL;

	(void)arg;
	if (level >= 0 && level < (int)(sizeof(level_names) / sizeof(level_names[0])))
		name = level_names[level];
	fprintf(stderr, "virtio-user %s: %s\n", name != NULL ? name : "?", msg);
}

static vur_user_log_fn log_fn = log_stderr;
static void *log_arg;
static int log_max = VUR_USER_LOG_WARNING;

void
vur_user_set_log(vur_user_log_fn fn, void *arg, int max_level)
{
	log_fn = fn != NULL ? fn : log_stderr;
	log_arg = arg;
	log_max = max_level;
}

void
vuser_log(int level, const char *name, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n = 0;

	if (level > log_max)
		return;
	if (name != NULL)
		n = snprintf(line, sizeof(line), "%s: ", name);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	log_fn(log_arg, level, line);
}
