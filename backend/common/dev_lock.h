/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's lock: a reader-writer lock. The control and vhost threads,
 * management and the Ethernet path take it to write (alone); the RDMA
 * engine's data path takes it to read, then locks what it touches: one QP,
 * one CQ (transport/tp.h). So the QPs of one device run on several
 * data-path threads at once, and a control command still sees the engine
 * at rest.
 *
 * Writers are preferred: data-path threads take it to read many times a
 * second, and with readers preferred two of them could keep a control
 * command out for as long as traffic lasts. Not recursive: a thread never
 * takes it twice (a waiting writer would block the second read).
 */
#ifndef VUR_DEV_LOCK_H
#define VUR_DEV_LOCK_H

#include <pthread.h>

static inline int
vur_dev_lock_init(pthread_rwlock_t *lock)
{
	pthread_rwlockattr_t attr;
	int ret;

	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	ret = pthread_rwlock_init(lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return -ret;
}

#endif /* VUR_DEV_LOCK_H */
