/* SPDX-License-Identifier: BSD-3-Clause */
/* The out-of-order packets of an RC responder (tp_ooo.h). */
#include <rte_mempool.h>

#include "transport/pkt.h"
#include "transport/roce_hdr.h"
#include "transport/tp_ooo.h"

bool
vur_tp_ooo_hold(struct vur_tp_ooo *o, uint32_t epsn, uint32_t psn, struct rte_mbuf *m)
{
	int32_t d = vur_psn_diff(psn, epsn);
	uint32_t slot = psn % VUR_TP_OOO_MAX;

	if (d <= 0 || d >= VUR_TP_OOO_MAX || vur_pkt_is_local(m))
		return false;
	/* held already (a retransmission): the one held stays */
	if (o->m[slot] != NULL)
		return o->psn[slot] == psn;
	/* the pool serves every port of the switch: never starve it */
	if (rte_mempool_avail_count(m->pool) < m->pool->size / 4)
		return false;
	rte_pktmbuf_refcnt_update(m, 1);
	o->m[slot] = m;
	o->psn[slot] = psn;
	o->n++;
	return true;
}

struct rte_mbuf *
vur_tp_ooo_take(struct vur_tp_ooo *o, uint32_t psn)
{
	uint32_t slot = psn % VUR_TP_OOO_MAX;
	struct rte_mbuf *m = o->m[slot];

	if (m == NULL || o->psn[slot] != psn)
		return NULL;
	o->m[slot] = NULL;
	o->n--;
	return m;
}

void
vur_tp_ooo_forget_before(struct vur_tp_ooo *o, uint32_t epsn)
{
	for (uint32_t i = 0; o->n > 0 && i < VUR_TP_OOO_MAX; i++)
		if (o->m[i] != NULL && vur_psn_diff(o->psn[i], epsn) < 0) {
			rte_pktmbuf_free(o->m[i]);
			o->m[i] = NULL;
			o->n--;
		}
}

void
vur_tp_ooo_clear(struct vur_tp_ooo *o)
{
	for (uint32_t i = 0; o->n > 0 && i < VUR_TP_OOO_MAX; i++)
		if (o->m[i] != NULL) {
			rte_pktmbuf_free(o->m[i]);
			o->m[i] = NULL;
			o->n--;
		}
}
