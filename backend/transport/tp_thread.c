/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What each thread keeps of the engine: its shard of the counters, the QP
 * it holds, and the work of one entry point that waits for its end (rings
 * to publish, ACKs to send, CQs that overran, threads to wake). Per thread,
 * so that several data-path threads serve the QPs of one device at once.
 */
#include <string.h>

#include "net/net_dev.h"
#include "net/net_switch.h"
#include "transport/tp.h"

RTE_DEFINE_PER_LCORE(struct vur_tp_self, vur_tp_self);

bool vur_tp_many_threads;

void
vur_tp_set_threads(unsigned int n)
{
	vur_tp_many_threads = n > 1;
}

_Static_assert(VUR_TP_MAX_THREADS == VUR_SW_MAX_DP, "a shard per data-path thread");
_Static_assert(VUR_TP_SHARDS <= 32, "a dirty bit per shard");

void
vur_tp_thread_register(unsigned int id)
{
	RTE_VERIFY(id < VUR_TP_MAX_THREADS);
	RTE_PER_LCORE(vur_tp_self).shard = id + 1;
}

void
vur_tp_stats_sum(const struct vur_tp_dev *td, struct vur_tp_stats *out)
{
	const uint64_t *in;
	uint64_t *sum = (uint64_t *)out;

	_Static_assert(sizeof(*out) % sizeof(uint64_t) == 0, "counters only");
	memset(out, 0, sizeof(*out));
	for (unsigned int s = 0; s < VUR_TP_SHARDS; s++) {
		in = (const uint64_t *)&td->stats[s].s;
		for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
			sum[i] += __atomic_load_n(&in[i], __ATOMIC_RELAXED);
	}
}

void
vur_tp_qp_lock(struct vur_tp_qp *t)
{
	struct vur_tp_self *self = vur_tp_self();

	vur_tp_lock(&t->lock);
	self->locked = t;
	if ((unsigned int)t->dp + 1 != self->shard)
		self->wake |= 1u << t->dp;
	/* on rings: whatever touched it may have given it work its thread must poll */
	if (t->qp->rings != NULL && __atomic_load_n(&t->act_on, __ATOMIC_RELAXED) == 0)
		vur_tp_qp_activate(t->td, t);
}

void
vur_tp_qp_unlock(struct vur_tp_qp *t)
{
	vur_tp_self()->locked = NULL;
	vur_tp_unlock(&t->lock);
}
