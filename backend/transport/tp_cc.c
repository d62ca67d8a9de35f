/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's notification and reaction points for one QP (tp_cc.h). Written
 * here rather than taken from a library: no library the field uses has
 * it; RDMA NICs run it in firmware, Linux rxe has none.
 */
#include <rte_common.h>

#include "transport/tp_cc.h"

void
vur_tp_cc_init(struct vur_tp_cc *c)
{
	*c = (struct vur_tp_cc){ .alpha = VUR_CC_ALPHA_ONE };
}

bool
vur_tp_cc_want_cnp(struct vur_tp_cc *c, uint64_t now_ns)
{
	if (c->cnp_sent_once && now_ns - c->cnp_sent_ns < VUR_CC_CNP_GAP_NS)
		return false;
	c->cnp_sent_once = true;
	c->cnp_sent_ns = now_ns;
	return true;
}

static uint32_t
line_of(uint32_t line_mbps)
{
	return RTE_MAX(line_mbps, (uint32_t)VUR_CC_MIN_MBPS);
}

void
vur_tp_cc_on_cnp(struct vur_tp_cc *c, uint32_t line_mbps, uint64_t now_ns)
{
	uint32_t line = line_of(line_mbps), cur = c->rate != 0 ? c->rate : line;

	c->cnp_since_alpha = true;
	if (c->rate != 0 && now_ns - c->cut_ns < VUR_CC_CUT_GAP_NS)
		return;
	if (c->rate == 0) { /* the first cut: the clocks start */
		c->next_ns = now_ns;
		c->alpha_ns = now_ns + VUR_CC_ALPHA_NS;
	}
	/* R_T = R_C; R_C = R_C (1 - alpha / 2); alpha = (1 - g) alpha + g */
	c->target = cur;
	c->rate = RTE_MAX((uint32_t)((uint64_t)cur * (2 * VUR_CC_ALPHA_ONE - c->alpha) /
					  (2 * VUR_CC_ALPHA_ONE)),
			(uint32_t)VUR_CC_MIN_MBPS);
	c->alpha = c->alpha - (c->alpha >> VUR_CC_G_SHIFT) + (VUR_CC_ALPHA_ONE >> VUR_CC_G_SHIFT);
	c->alpha = RTE_MIN(c->alpha, (uint32_t)VUR_CC_ALPHA_ONE);
	c->t_steps = c->b_steps = 0;
	c->bytes = 0;
	c->cut_ns = now_ns;
	c->inc_ns = now_ns + VUR_CC_INC_NS;
}

/* One increase step (by time or by bytes): the rate goes halfway to a target that grows. */
static void
increase(struct vur_tp_cc *c, uint32_t line, bool by_time)
{
	uint32_t lo, hi;

	if (by_time)
		c->t_steps++;
	else
		c->b_steps++;
	lo = RTE_MIN(c->t_steps, c->b_steps);
	hi = RTE_MAX(c->t_steps, c->b_steps);
	if (lo > VUR_CC_FAST_STEPS) /* hyper increase */
		c->target += (lo - VUR_CC_FAST_STEPS) * VUR_CC_HAI_MBPS;
	else if (hi > VUR_CC_FAST_STEPS) /* additive increase */
		c->target += VUR_CC_AI_MBPS;
	/* else fast recovery: the target stays */
	c->target = RTE_MIN(c->target, line);
	c->rate = (c->rate + c->target + 1) / 2;
	if (c->rate >= line) /* back at the line rate: no longer paced */
		c->rate = 0;
}

void
vur_tp_cc_tick(struct vur_tp_cc *c, uint32_t line_mbps, uint64_t now_ns)
{
	uint32_t line = line_of(line_mbps);

	if (c->rate == 0)
		return;
	/* after a long sleep only one step each: nothing was sent to learn from */
	if (now_ns >= c->alpha_ns) {
		if (!c->cnp_since_alpha)
			c->alpha -= c->alpha >> VUR_CC_G_SHIFT;
		c->cnp_since_alpha = false;
		c->alpha_ns = now_ns + VUR_CC_ALPHA_NS;
	}
	if (now_ns >= c->inc_ns) {
		c->inc_ns = now_ns + VUR_CC_INC_NS;
		increase(c, line, true);
	}
}

void
vur_tp_cc_sent(struct vur_tp_cc *c, uint32_t bytes, uint32_t line_mbps, uint64_t now_ns)
{
	uint64_t gap;

	if (c->rate == 0)
		return;
	/* bytes * 8 bits at rate Mb/s is bytes * 8 / rate us */
	gap = (uint64_t)bytes * 8000 / c->rate;
	/* an idle QP earns no credit beyond now: a burst after a pause is still paced */
	c->next_ns = RTE_MAX(c->next_ns, now_ns) + gap;
	c->bytes += bytes;
	if (c->bytes >= VUR_CC_INC_BYTES) {
		c->bytes -= VUR_CC_INC_BYTES;
		increase(c, line_of(line_mbps), false);
	}
}
