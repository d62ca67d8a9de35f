/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packets an RC responder holds that came after a gap, so that once the
 * gap is filled they are taken without the requester sending them again
 * (IRN's idea, Mittal et al., SIGCOMM 2018, without its wire changes). The
 * wire stays IBTA's: the responder still answers the gap with one PSN
 * sequence NAK; once the gap is filled, one cumulative ACK covers what it
 * held, and a requester that reads it (this engine's does, completer.c)
 * skips what it was about to send again. A go-back-N requester (Linux rxe,
 * an RDMA NIC) resends all of it and gets duplicates acknowledged, as
 * before.
 *
 * Only single wire packets are held (never a local one, which borrows the
 * sender's memory), while the packet's pool keeps a quarter free.
 */
#ifndef VUR_TP_OOO_H
#define VUR_TP_OOO_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define VUR_TP_OOO_MAX 64 /* PSNs past the expected one it may hold; a power of two */

struct vur_tp_ooo {
	uint32_t n;
	uint32_t psn[VUR_TP_OOO_MAX];
	struct rte_mbuf *m[VUR_TP_OOO_MAX]; /* by PSN modulo VUR_TP_OOO_MAX */
};

/* Hold @m (a reference taken) for PSN @psn while @epsn is expected; false if not. */
bool vur_tp_ooo_hold(struct vur_tp_ooo *o, uint32_t epsn, uint32_t psn, struct rte_mbuf *m);

/* The packet held for @psn, handed over (the caller frees it); NULL if none. */
struct rte_mbuf *vur_tp_ooo_take(struct vur_tp_ooo *o, uint32_t psn);

/*
 * Let the packets held for PSNs before @epsn go: taken by other means (a
 * local packet holding several, a READ's span), they would be stale
 * there, and after the PSNs wrap, wrong.
 */
void vur_tp_ooo_forget_before(struct vur_tp_ooo *o, uint32_t epsn);

/* Let every held packet go. */
void vur_tp_ooo_clear(struct vur_tp_ooo *o);

#endif /* VUR_TP_OOO_H */
