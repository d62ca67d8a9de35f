/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of RC and UC QPs on a link: RoCE v2's ECN scheme with
 * DCQCN's rate control (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015), as RDMA NICs do it.
 *
 * - The engine sends RC and UC packets ECN-capable (ECT(0)); a switch or a
 *   host whose queue builds up marks them CE.
 * - Notification point (the receiver): a CE-marked request is answered with
 *   a CNP (BTH opcode 0x81) to the sending QP, at most one per QP every
 *   VUR_CC_CNP_GAP_NS.
 * - Reaction point (the sender): a CNP cuts the QP's rate by alpha/2 and
 *   raises alpha (how congested the path looks); alpha decays while no CNP
 *   comes; the rate climbs back towards the line rate in steps, by time and
 *   by bytes sent: five of fast recovery (halfway to the target), then
 *   additive increase of the target, then hyper increase. A QP that is not
 *   cut sends at the line rate, unpaced.
 *
 * The numbers are DCQCN's where a software link can use them; see each.
 * Rates in Mb/s, times in ns.
 */
#ifndef VUR_TP_CC_H
#define VUR_TP_CC_H

#include <stdbool.h>
#include <stdint.h>

#define VUR_CC_CNP_GAP_NS 50000ULL  /* the paper's N: one CNP per 50 us per QP at most */
#define VUR_CC_CUT_GAP_NS 50000ULL  /* at most one cut per 50 us: one per CNP burst */
#define VUR_CC_ALPHA_NS   55000ULL  /* K: alpha decays each 55 us without a CNP */
#define VUR_CC_INC_NS     300000ULL /* T: a rate increase step every 300 us */
#define VUR_CC_INC_BYTES \
	(1u << 20)             /* B: and every MiB sent (the paper's 10 MB, for slower links) */
#define VUR_CC_FAST_STEPS 5    /* F: steps of fast recovery */
#define VUR_CC_AI_MBPS    40   /* R_AI, the paper's */
#define VUR_CC_HAI_MBPS   400  /* R_HAI, the paper's */
#define VUR_CC_MIN_MBPS   10   /* never below */
#define VUR_CC_ALPHA_ONE  1024 /* alpha's fixed point: 1024 is 1 */
#define VUR_CC_G_SHIFT    4    /* g = 1/16, the paper's */

struct vur_tp_cc {
	/* reaction point: the QP as a sender */
	uint32_t rate;   /* R_C: what the QP may send at; 0: not cut, the line rate */
	uint32_t target; /* R_T */
	uint32_t alpha;  /* 0..VUR_CC_ALPHA_ONE */
	uint32_t t_steps, b_steps;
	uint32_t bytes;       /* sent towards the next byte step */
	uint64_t next_ns;     /* pacing: when the next packet may go */
	uint64_t alpha_ns;    /* next alpha decay */
	uint64_t inc_ns;      /* next time step */
	uint64_t cut_ns;      /* last cut */
	bool cnp_since_alpha; /* a CNP came in this alpha period */
	/* notification point: the QP as a receiver */
	uint64_t cnp_sent_ns;
	bool cnp_sent_once;
};

void vur_tp_cc_init(struct vur_tp_cc *c);

/* Notification point: whether a CE-marked packet at @now_ns is answered with a CNP. */
bool vur_tp_cc_want_cnp(struct vur_tp_cc *c, uint64_t now_ns);

/* Reaction point: a CNP came; @line_mbps: the port's speed. */
void vur_tp_cc_on_cnp(struct vur_tp_cc *c, uint32_t line_mbps, uint64_t now_ns);

/* Reaction point: let time pass to @now_ns (alpha decays, time steps). */
void vur_tp_cc_tick(struct vur_tp_cc *c, uint32_t line_mbps, uint64_t now_ns);

/* Reaction point: @bytes went on the wire at @now_ns (pacing, byte steps). */
void vur_tp_cc_sent(struct vur_tp_cc *c, uint32_t bytes, uint32_t line_mbps, uint64_t now_ns);

/* Whether the QP may send now; when not, vur_tp_cc_wait() says until when. */
static inline bool
vur_tp_cc_may_send(const struct vur_tp_cc *c, uint64_t now_ns)
{
	return c->rate == 0 || now_ns >= c->next_ns;
}

static inline uint64_t
vur_tp_cc_wait(const struct vur_tp_cc *c)
{
	return c->rate == 0 ? 0 : c->next_ns;
}

#endif /* VUR_TP_CC_H */
