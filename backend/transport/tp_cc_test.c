/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's notification and reaction points (tp_cc.c) as pure functions of
 * a QP's state and a clock the test moves.
 */
#include "tests/tap.h"
#include "transport/tp_cc.h"

#define LINE 10000 /* Mb/s */
#define US   1000ULL

/* The notification point answers at most one CE mark per gap. */
static void
cnp_gap(void)
{
	struct vur_tp_cc c;

	vur_tp_cc_init(&c);
	TAP_CHECK(vur_tp_cc_want_cnp(&c, 1000 * US));
	TAP_CHECK(!vur_tp_cc_want_cnp(&c, 1000 * US + 1));
	TAP_CHECK(!vur_tp_cc_want_cnp(&c, 1000 * US + VUR_CC_CNP_GAP_NS - 1));
	TAP_CHECK(vur_tp_cc_want_cnp(&c, 1000 * US + VUR_CC_CNP_GAP_NS));
	/* the first mark of all, at time 0, is answered too */
	vur_tp_cc_init(&c);
	TAP_CHECK(vur_tp_cc_want_cnp(&c, 0));
}

/* A QP not cut sends unpaced; the first CNP halves it (alpha starts at 1). */
static void
first_cut(void)
{
	struct vur_tp_cc c;

	vur_tp_cc_init(&c);
	TAP_CHECK(c.rate == 0 && vur_tp_cc_may_send(&c, 0) && vur_tp_cc_wait(&c) == 0);
	vur_tp_cc_sent(&c, 1500, LINE, 0); /* not paced: nothing changes */
	TAP_CHECK(c.rate == 0 && c.next_ns == 0);
	vur_tp_cc_on_cnp(&c, LINE, 100 * US);
	TAP_CHECK(c.rate == LINE / 2 && c.target == LINE);
	TAP_CHECK(c.alpha == VUR_CC_ALPHA_ONE);
	/* a CNP within the cut gap does not cut again */
	vur_tp_cc_on_cnp(&c, LINE, 100 * US + VUR_CC_CUT_GAP_NS - 1);
	TAP_CHECK(c.rate == LINE / 2);
	/* after it, it does, by alpha / 2 again */
	vur_tp_cc_on_cnp(&c, LINE, 100 * US + VUR_CC_CUT_GAP_NS);
	TAP_CHECK(c.rate == LINE / 4 && c.target == LINE / 2);
	/* never below the minimum */
	for (int i = 2; i < 40; i++)
		vur_tp_cc_on_cnp(&c, LINE, 100 * US + i * VUR_CC_CUT_GAP_NS);
	TAP_CHECK(c.rate == VUR_CC_MIN_MBPS);
}

/* Paced: 1500 bytes at 5000 Mb/s take 2.4 us; idle time earns no burst. */
static void
pacing(void)
{
	struct vur_tp_cc c;

	vur_tp_cc_init(&c);
	vur_tp_cc_on_cnp(&c, LINE, 0);
	TAP_CHECK(c.rate == 5000);
	vur_tp_cc_sent(&c, 1500, LINE, 0);
	TAP_CHECK(c.next_ns == 2400 && !vur_tp_cc_may_send(&c, 2399) &&
			vur_tp_cc_may_send(&c, 2400) && vur_tp_cc_wait(&c) == 2400);
	vur_tp_cc_sent(&c, 1500, LINE, 2400);
	TAP_CHECK(c.next_ns == 4800);
	vur_tp_cc_sent(&c, 1500, LINE, 1000 * US);
	TAP_CHECK(c.next_ns == 1000 * US + 2400);
}

/* Alpha decays by g each period without a CNP, and stays with one. */
static void
alpha_decay(void)
{
	struct vur_tp_cc c;
	uint32_t a;

	vur_tp_cc_init(&c);
	vur_tp_cc_on_cnp(&c, LINE, 0);
	a = c.alpha;
	vur_tp_cc_tick(&c, LINE, VUR_CC_ALPHA_NS); /* the CNP itself was in this period */
	TAP_CHECK(c.alpha == a);
	vur_tp_cc_tick(&c, LINE, 2 * VUR_CC_ALPHA_NS);
	TAP_CHECK(c.alpha == a - (a >> VUR_CC_G_SHIFT));
	/* a lower alpha cuts less */
	for (int i = 3; i < 60; i++)
		vur_tp_cc_tick(&c, LINE, i * VUR_CC_ALPHA_NS);
	a = c.rate;
	vur_tp_cc_on_cnp(&c, LINE, 60 * VUR_CC_ALPHA_NS);
	TAP_CHECK(c.rate > a / 2 + a / 4);
}

/*
 * Recovery: five time steps of fast recovery halve the distance to the
 * target each; then additive increase raises the target; the rate reaches
 * the line rate and pacing ends. Byte steps count like time steps.
 */
static void
recovery(void)
{
	struct vur_tp_cc c;
	uint64_t now = 0;
	int steps = 0;

	vur_tp_cc_init(&c);
	vur_tp_cc_on_cnp(&c, LINE, now);
	TAP_CHECK(c.rate == 5000 && c.target == LINE);
	now += VUR_CC_INC_NS;
	vur_tp_cc_tick(&c, LINE, now);
	TAP_CHECK(c.rate == 7500 && c.target == LINE); /* halfway */
	for (int i = 1; i < VUR_CC_FAST_STEPS; i++) {
		now += VUR_CC_INC_NS;
		vur_tp_cc_tick(&c, LINE, now);
	}
	TAP_CHECK(c.target == LINE && c.rate > 9800 && c.rate < LINE);
	while (c.rate != 0 && steps++ < 100) {
		now += VUR_CC_INC_NS;
		vur_tp_cc_tick(&c, LINE, now);
	}
	TAP_CHECK(c.rate == 0 && vur_tp_cc_may_send(&c, now));
	/* by bytes: a MiB sent is a step (alpha decayed meanwhile: a milder cut) */
	vur_tp_cc_on_cnp(&c, LINE, now);
	TAP_CHECK(c.rate > LINE / 2 && c.rate < LINE);
	steps = (int)c.rate;
	vur_tp_cc_sent(&c, VUR_CC_INC_BYTES, LINE, now);
	TAP_CHECK((int)c.rate > steps && c.b_steps == 1 && c.t_steps == 0);
	/* additive increase once one kind passed F steps; the target never passes the line */
	for (int i = 0; i < 3 * VUR_CC_FAST_STEPS; i++)
		vur_tp_cc_sent(&c, VUR_CC_INC_BYTES, LINE, now);
	TAP_CHECK(c.target <= LINE);
}

int
main(void)
{
	TAP_RUN(cnp_gap);
	TAP_RUN(first_cut);
	TAP_RUN(pacing);
	TAP_RUN(alpha_decay);
	TAP_RUN(recovery);
	return tap_done();
}
