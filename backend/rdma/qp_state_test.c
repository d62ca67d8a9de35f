/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the QP state transition table. */
#include "qp_state.h"
#include "tests/tap.h"

#define S(x) VIRTIO_IB_QPS_##x
#define A(x) VIRTIO_IB_QP_##x

static enum vur_qp_check
check(uint8_t type, unsigned int cur, unsigned int next, uint32_t mask, uint32_t *bad)
{
	return vur_qp_check_modify(type, cur, next, mask | A(STATE), bad);
}

static void
rc_to_rts(void)
{
	uint32_t bad;
	const uint8_t rc = VIRTIO_IB_QPT_RC;
	const uint32_t rtr = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
			A(MIN_RNR_TIMER);
	const uint32_t rts =
			A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC);

	TAP_CHECK(check(rc, S(RESET), S(INIT), A(ACCESS_FLAGS), &bad) == VUR_QP_CHECK_OK);
	TAP_CHECK(check(rc, S(INIT), S(RTR), rtr, &bad) == VUR_QP_CHECK_OK);
	TAP_CHECK(check(rc, S(INIT), S(RTR), rtr & ~A(MIN_RNR_TIMER), &bad) ==
			VUR_QP_CHECK_MISSING_ATTR);
	TAP_CHECK(bad == A(MIN_RNR_TIMER));
	TAP_CHECK(check(rc, S(RTR), S(RTS), rts, &bad) == VUR_QP_CHECK_OK);
	TAP_CHECK(check(rc, S(RTR), S(RTS), rts | A(CUR_STATE) | A(RATE_LIMIT), &bad) ==
			VUR_QP_CHECK_OK);
	TAP_CHECK(check(rc, S(RTR), S(RTS), rts & ~A(TIMEOUT), &bad) == VUR_QP_CHECK_MISSING_ATTR &&
			bad == A(TIMEOUT));
}

static void
ud_and_gsi_to_rts(void)
{
	uint32_t bad;
	uint8_t types[] = { VIRTIO_IB_QPT_UD, VIRTIO_IB_QPT_GSI };

	for (unsigned int i = 0; i < 2; i++) {
		TAP_CHECK(check(types[i], S(RESET), S(INIT), A(QKEY), &bad) == VUR_QP_CHECK_OK);
		TAP_CHECK(check(types[i], S(RESET), S(INIT), 0, &bad) ==
						VUR_QP_CHECK_MISSING_ATTR &&
				bad == A(QKEY));
		TAP_CHECK(check(types[i], S(INIT), S(RTR), 0, &bad) == VUR_QP_CHECK_OK);
		TAP_CHECK(check(types[i], S(INIT), S(RTR), A(AV), &bad) ==
						VUR_QP_CHECK_EXTRA_ATTR &&
				bad == A(AV));
		TAP_CHECK(check(types[i], S(RTR), S(RTS), A(SQ_PSN), &bad) == VUR_QP_CHECK_OK);
	}
}

static void
uc_needs_no_rdma_read_attrs(void)
{
	uint32_t bad;

	TAP_CHECK(check(VIRTIO_IB_QPT_UC, S(INIT), S(RTR),
				  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
				  &bad) == VUR_QP_CHECK_OK);
	TAP_CHECK(check(VIRTIO_IB_QPT_UC, S(RTR), S(RTS), A(SQ_PSN) | A(MAX_QP_RD_ATOMIC), &bad) ==
			VUR_QP_CHECK_EXTRA_ATTR);
}

/* The complete set of transitions, written out from IBTA 10.3.1. */
static void
exactly_the_ib_transitions(void)
{
	static const bool legal[VUR_QPS_COUNT][VUR_QPS_COUNT] = {
		[S(RESET)] = { [S(RESET)] = 1, [S(INIT)] = 1, [S(ERR)] = 1 },
		[S(INIT)] = { [S(RESET)] = 1, [S(INIT)] = 1, [S(RTR)] = 1, [S(ERR)] = 1 },
		[S(RTR)] = { [S(RESET)] = 1, [S(RTS)] = 1, [S(ERR)] = 1 },
		[S(RTS)] = { [S(RESET)] = 1, [S(RTS)] = 1, [S(SQD)] = 1, [S(ERR)] = 1 },
		[S(SQD)] = { [S(RESET)] = 1, [S(RTS)] = 1, [S(SQD)] = 1, [S(ERR)] = 1 },
		[S(SQE)] = { [S(RESET)] = 1, [S(RTS)] = 1, [S(ERR)] = 1 },
		[S(ERR)] = { [S(RESET)] = 1, [S(ERR)] = 1 },
	};
	uint32_t bad;

	for (unsigned int c = 0; c < VUR_QPS_COUNT; c++) {
		for (unsigned int n = 0; n < VUR_QPS_COUNT; n++) {
			/* UD needs QKEY into INIT; give each type what it needs. */
			enum vur_qp_check r = vur_qp_check_modify(VIRTIO_IB_QPT_UD, c, n,
					A(STATE) | (c == S(RESET) && n == S(INIT) ? A(QKEY) : 0) |
							(c == S(RTR) && n == S(RTS) ? A(SQ_PSN)
										    : 0),
					&bad);

			TAP_CHECK((r != VUR_QP_CHECK_BAD_TRANSITION) == legal[c][n]);
			if ((r != VUR_QP_CHECK_BAD_TRANSITION) != legal[c][n])
				printf("# %s -> %s\n", vur_qp_state_name(c), vur_qp_state_name(n));
		}
	}
}

static void
bad_input(void)
{
	uint32_t bad;

	TAP_CHECK(check(VIRTIO_IB_QPT_RC, S(RESET), 7, 0, &bad) == VUR_QP_CHECK_BAD_STATE);
	TAP_CHECK(check(VIRTIO_IB_QPT_RC, S(RESET), 255, 0, &bad) == VUR_QP_CHECK_BAD_STATE);
	TAP_CHECK(check(VIRTIO_IB_QPT_SMI, S(RESET), S(INIT), 0, &bad) == VUR_QP_CHECK_BAD_TYPE);
	TAP_CHECK(check(9, S(RESET), S(INIT), 0, &bad) == VUR_QP_CHECK_BAD_TYPE);
	TAP_CHECK(check(VIRTIO_IB_QPT_RC, S(RESET), S(INIT), A(ACCESS_FLAGS) | A(CAP), &bad) ==
					VUR_QP_CHECK_EXTRA_ATTR &&
			bad == A(CAP));
	TAP_CHECK(check(VIRTIO_IB_QPT_RC, S(RESET), S(INIT), A(ACCESS_FLAGS) | (1u << 20), &bad) ==
			VUR_QP_CHECK_EXTRA_ATTR);
	/* No STATE bit: the QP stays where it is, and only that cell's attributes are allowed. */
	TAP_CHECK(vur_qp_check_modify(VIRTIO_IB_QPT_RC, S(RTS), 200, A(MIN_RNR_TIMER), &bad) ==
			VUR_QP_CHECK_OK);
	TAP_CHECK(vur_qp_check_modify(VIRTIO_IB_QPT_RC, S(RESET), 0, A(QKEY), &bad) ==
			VUR_QP_CHECK_EXTRA_ATTR);
	TAP_CHECK(vur_qp_check_modify(VIRTIO_IB_QPT_RC, 9, 0, A(STATE), &bad) ==
			VUR_QP_CHECK_BAD_TYPE);
	TAP_CHECK(vur_qp_state_name(3)[0] == 'R' && vur_qp_state_name(99)[0] == '?');
}

int
main(void)
{
	TAP_RUN(rc_to_rts);
	TAP_RUN(ud_and_gsi_to_rts);
	TAP_RUN(uc_needs_no_rdma_read_attrs);
	TAP_RUN(exactly_the_ib_transitions);
	TAP_RUN(bad_input);
	return tap_done();
}
