/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One rte_log type per component ("vur.<component>"); every line carries
 * the identity of the object it is about.
 */
#ifndef VUR_LOG_H
#define VUR_LOG_H

#include <rte_log.h>

#include "common/ratelimit.h"

extern int vur_logtype_app;
extern int vur_logtype_vhost;
extern int vur_logtype_rdma;
extern int vur_logtype_net;
extern int vur_logtype_port;
extern int vur_logtype_mgmt;

#define VUR_LOG(type, level, fmt, ...) \
	rte_log(RTE_LOG_##level, vur_logtype_##type, "VUR_" #type ": " fmt "\n", ##__VA_ARGS__)

/* Device-scoped: the socket path names the device. */
#define VUR_DEV_LOG(dev, level, fmt, ...) \
	VUR_LOG(vhost, level, "%s: " fmt, (dev)->path, ##__VA_ARGS__)

/*
 * Lines a guest can cause about @who (a device's name), through the rate
 * limit @rl of the object they are about: a guest is untrusted.
 */
#define VUR_LOG_LIMITED(rl, who, type, level, fmt, ...)               \
	vur_log_limited(rl, who, RTE_LOG_##level, vur_logtype_##type, \
			"VUR_" #type ": %s: " fmt "\n", who, ##__VA_ARGS__)

/* RDMA objects, named by their device's socket path; guest-caused, so limited. */
#define VUR_RDMA_LOG(rd, level, fmt, ...) \
	VUR_LOG_LIMITED(&(rd)->log_rl, (rd)->name, rdma, level, fmt, ##__VA_ARGS__)

#endif /* VUR_LOG_H */
