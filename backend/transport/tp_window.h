/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An RC requester's in-flight window: how many packets (request packets,
 * and the responses a READ asks for) may be unacknowledged at once. IBTA
 * leaves this to the requester; on a shared, lossy fabric a requester that
 * sends whatever is posted overruns its peer's receive ring, and go-back-N
 * then resends everything behind the first drop. The window grows while
 * acknowledgements come (slow start, then one packet per window) and halves
 * on a loss (a PSN sequence NAK, a gap in READ responses), once per loss
 * episode; a retransmission timeout takes it back to its minimum. It is
 * TCP's AIMD (RFC 5681) counted in packets.
 */
#ifndef VUR_TP_WINDOW_H
#define VUR_TP_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The numbers. A new QP may have 64 packets out (64 KiB at path MTU 1024):
 * a tap's queue (1000 frames) and a DPDK receive ring (1024) take that from
 * several QPs at once. The window never exceeds 1024 packets, what one
 * receive ring holds, nor falls below 4, so a loss on a window of 4 still
 * leaves packets to carry the duplicate ACKs that tell of it.
 */
#define VUR_TP_WIN_INIT 64
#define VUR_TP_WIN_MIN  4
#define VUR_TP_WIN_MAX  1024

struct vur_tp_window {
	uint32_t cwnd;     /* packets that may be unacknowledged */
	uint32_t ssthresh; /* below it the window doubles per round trip */
	uint32_t acc;      /* packets acknowledged towards the next increase */
	bool recovering;   /* a loss was answered; losses before @recover belong to it */
	uint32_t recover;  /* PSN: one past the highest sent when the loss was answered */
	uint64_t losses;   /* loss episodes answered (shrinks) */
};

/* A window for a QP that enters RTS. */
void vur_tp_win_init(struct vur_tp_window *w);

/* @n packets newly acknowledged; @una: the first PSN not acknowledged now. */
void vur_tp_win_acked(struct vur_tp_window *w, uint32_t n, uint32_t una);

/*
 * A loss at PSN @psn; @sent: one past the highest PSN sent. A timeout takes
 * the window to its minimum, a NAK or a response gap halves it; either only
 * once per episode (a loss before the recovery point is the same one).
 */
void vur_tp_win_loss(struct vur_tp_window *w, uint32_t psn, uint32_t sent, bool timeout);

/*
 * Whether @pkts more may go with @in_flight unacknowledged. Nothing in
 * flight: anything goes (a message larger than the window is still sent).
 */
static inline bool
vur_tp_win_allows(const struct vur_tp_window *w, uint32_t in_flight, uint32_t pkts)
{
	return in_flight == 0 || in_flight + pkts <= w->cwnd;
}

#endif /* VUR_TP_WINDOW_H */
