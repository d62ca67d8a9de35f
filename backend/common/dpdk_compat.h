/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK releases the backend builds with: 22.11, 24.11 and 25.11 (LTS
 * and current). The code uses the names of current DPDK; this header, and
 * only this one, maps them back onto the releases that predate them. Each
 * mapping says when DPDK introduced the new name; the old names are gone
 * from 23.11 on (telemetry's u64 calls: deprecated in 24.11, gone in 25.11).
 *
 * The bonding PMD's devargs key for its members ("slave=" before 23.11,
 * "member=" since) is a run-time string the tests need too: meson.build
 * derives VUR_BOND_MEMBER_KVARG from the same version.
 */
#ifndef VUR_DPDK_COMPAT_H
#define VUR_DPDK_COMPAT_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_eth_bond.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>
#include <rte_thread.h>
#include <rte_version.h>
#include <rte_vhost.h>

#if RTE_VERSION < RTE_VERSION_NUM(23, 3, 0, 0)
/* 23.03 renamed the vhost-user backend ("slave") channel. */
#define VHOST_USER_PROTOCOL_F_BACKEND_REQ VHOST_USER_PROTOCOL_F_SLAVE_REQ
#define rte_vhost_backend_config_change   rte_vhost_slave_config_change
/* 23.03: unsigned telemetry values are "uint". */
#define rte_tel_data_add_dict_uint rte_tel_data_add_dict_u64
#endif

#if RTE_VERSION < RTE_VERSION_NUM(23, 11, 0, 0)
/* 23.11 renamed the bonding PMD's slaves to members. */
#define rte_eth_bond_members_get rte_eth_bond_slaves_get

/*
 * 23.11 replaced rte_ctrl_thread_create() (pthread_t, void * routine) with
 * rte_thread_create_control() (rte_thread_t, uint32_t routine). Before it,
 * an rte_thread_t is the pthread_t (lib/eal/unix/rte_thread.c), so that
 * rte_thread_join() joins a control thread too.
 */
struct vur_compat_ctrl_start {
	rte_thread_func func;
	void *arg;
};

static inline void *
vur_compat_ctrl_main(void *p)
{
	struct vur_compat_ctrl_start start = *(struct vur_compat_ctrl_start *)p;

	free(p);
	return (void *)(uintptr_t)start.func(start.arg);
}

static inline int
vur_compat_thread_create_control(
		rte_thread_t *thread, const char *name, rte_thread_func func, void *arg)
{
	struct vur_compat_ctrl_start *start = malloc(sizeof(*start));
	pthread_t tid;
	int ret;

	if (start == NULL)
		return -ENOMEM;
	start->func = func;
	start->arg = arg;
	ret = rte_ctrl_thread_create(&tid, name, NULL, vur_compat_ctrl_main, start);
	if (ret != 0) {
		free(start);
		return ret < 0 ? ret : -ret;
	}
	thread->opaque_id = (uintptr_t)tid;
	return 0;
}
#define rte_thread_create_control vur_compat_thread_create_control
#endif

#endif /* VUR_DPDK_COMPAT_H */
