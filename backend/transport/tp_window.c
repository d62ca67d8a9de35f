/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-flight window of an RC requester (tp_window.h): slow start,
 * congestion avoidance, and one decrease per loss episode.
 */
#include <rte_common.h>

#include "transport/roce_hdr.h"
#include "transport/tp_window.h"

void
vur_tp_win_init(struct vur_tp_window *w)
{
	*w = (struct vur_tp_window){
		.cwnd = VUR_TP_WIN_INIT,
		.ssthresh = VUR_TP_WIN_MAX,
	};
}

void
vur_tp_win_acked(struct vur_tp_window *w, uint32_t n, uint32_t una)
{
	/* The episode ends once everything sent before it is acknowledged. */
	if (w->recovering && vur_psn_diff(una, w->recover) >= 0)
		w->recovering = false;
	if (w->cwnd < w->ssthresh) {
		w->cwnd = RTE_MIN(w->cwnd + n, w->ssthresh);
		return;
	}
	w->acc += n;
	if (w->acc >= w->cwnd) { /* one packet more per window acknowledged */
		w->acc -= w->cwnd;
		w->cwnd = RTE_MIN(w->cwnd + 1, (uint32_t)VUR_TP_WIN_MAX);
	}
}

void
vur_tp_win_loss(struct vur_tp_window *w, uint32_t psn, uint32_t sent, bool timeout)
{
	bool same = w->recovering && vur_psn_diff(psn, w->recover) < 0;

	/* A timeout within an episode still restarts from the minimum (nothing came back). */
	if (same && !timeout)
		return;
	if (!same)
		w->ssthresh = RTE_MAX(w->cwnd / 2, (uint32_t)VUR_TP_WIN_MIN);
	w->cwnd = timeout ? VUR_TP_WIN_MIN : w->ssthresh;
	w->acc = 0;
	w->recovering = true;
	w->recover = sent;
	w->losses++;
}
