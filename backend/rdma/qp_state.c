/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP state transition table. Rows and columns are enum virtio_ib_qp_state;
 * each cell lists, per transport, the attributes required and allowed.
 * Attributes this device has no field for (P_Key index, port, alternate
 * path, path migration state) are simply absent. GSI QPs follow UD's rules.
 */
#include <stddef.h>

#include "qp_state.h"

enum transport { T_UD, T_UC, T_RC, T_COUNT };

struct transition {
	bool valid;
	uint32_t req[T_COUNT];
	uint32_t opt[T_COUNT];
};

#define A(x) VIRTIO_IB_QP_##x

static const char *const state_names[VUR_QPS_COUNT] = {
	[VIRTIO_IB_QPS_RESET] = "RESET",
	[VIRTIO_IB_QPS_INIT] = "INIT",
	[VIRTIO_IB_QPS_RTR] = "RTR",
	[VIRTIO_IB_QPS_RTS] = "RTS",
	[VIRTIO_IB_QPS_SQD] = "SQD",
	[VIRTIO_IB_QPS_SQE] = "SQE",
	[VIRTIO_IB_QPS_ERR] = "ERR",
};

/* Any state may go to RESET or ERR with no attribute but the state. */
#define TO_RESET_OR_ERR \
	[VIRTIO_IB_QPS_RESET] = { .valid = true }, [VIRTIO_IB_QPS_ERR] = { .valid = true }

static const struct transition table[VUR_QPS_COUNT][VUR_QPS_COUNT] = {
	[VIRTIO_IB_QPS_RESET] = {
		TO_RESET_OR_ERR,
		[VIRTIO_IB_QPS_INIT] = {
			.valid = true,
			.req = { [T_UD] = A(QKEY), [T_UC] = A(ACCESS_FLAGS),
				[T_RC] = A(ACCESS_FLAGS) },
		},
	},
	[VIRTIO_IB_QPS_INIT] = {
		TO_RESET_OR_ERR,
		[VIRTIO_IB_QPS_INIT] = {
			.valid = true,
			.opt = { [T_UD] = A(QKEY), [T_UC] = A(ACCESS_FLAGS),
				[T_RC] = A(ACCESS_FLAGS) },
		},
		[VIRTIO_IB_QPS_RTR] = {
			.valid = true,
			.req = { [T_UC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
				[T_RC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
					A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER) },
			.opt = { [T_UD] = A(QKEY), [T_UC] = A(ACCESS_FLAGS),
				[T_RC] = A(ACCESS_FLAGS) },
		},
	},
	[VIRTIO_IB_QPS_RTR] = {
		TO_RESET_OR_ERR,
		[VIRTIO_IB_QPS_RTS] = {
			.valid = true,
			.req = { [T_UD] = A(SQ_PSN), [T_UC] = A(SQ_PSN),
				[T_RC] = A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
					A(MAX_QP_RD_ATOMIC) },
			.opt = { [T_UD] = A(CUR_STATE) | A(QKEY) | A(RATE_LIMIT),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(RATE_LIMIT),
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
					A(RATE_LIMIT) },
		},
	},
	[VIRTIO_IB_QPS_RTS] = {
		TO_RESET_OR_ERR,
		[VIRTIO_IB_QPS_RTS] = {
			.valid = true,
			.opt = { [T_UD] = A(CUR_STATE) | A(QKEY) | A(RATE_LIMIT),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(RATE_LIMIT),
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
					A(RATE_LIMIT) },
		},
		[VIRTIO_IB_QPS_SQD] = { .valid = true },
	},
	[VIRTIO_IB_QPS_SQD] = {
		TO_RESET_OR_ERR,
		[VIRTIO_IB_QPS_RTS] = {
			.valid = true,
			.opt = { [T_UD] = A(CUR_STATE) | A(QKEY),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) },
		},
		[VIRTIO_IB_QPS_SQD] = {
			.valid = true,
			.opt = { [T_UD] = A(QKEY), [T_UC] = A(AV) | A(ACCESS_FLAGS),
				[T_RC] = A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
					A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) |
					A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) },
		},
	},
	[VIRTIO_IB_QPS_SQE] = {
		TO_RESET_OR_ERR,
		[VIRTIO_IB_QPS_RTS] = {
			.valid = true,
			.opt = { [T_UD] = A(CUR_STATE) | A(QKEY),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS) },
		},
	},
	[VIRTIO_IB_QPS_ERR] = {
		TO_RESET_OR_ERR,
	},
};

const char *
vur_qp_state_name(unsigned int state)
{
	return state < VUR_QPS_COUNT ? state_names[state] : "?";
}

const char *
vur_qp_check_name(enum vur_qp_check chk)
{
	switch (chk) {
	case VUR_QP_CHECK_OK:
		return "ok";
	case VUR_QP_CHECK_BAD_STATE:
		return "no such state";
	case VUR_QP_CHECK_BAD_TRANSITION:
		return "no such transition";
	case VUR_QP_CHECK_MISSING_ATTR:
		return "required attributes missing";
	case VUR_QP_CHECK_EXTRA_ATTR:
		return "attributes the transition does not accept";
	case VUR_QP_CHECK_BAD_TYPE:
		return "QP type without a transport";
	}
	return "?";
}

static int
transport_of(uint8_t qp_type)
{
	switch (qp_type) {
	case VIRTIO_IB_QPT_GSI:
	case VIRTIO_IB_QPT_UD:
		return T_UD;
	case VIRTIO_IB_QPT_UC:
		return T_UC;
	case VIRTIO_IB_QPT_RC:
		return T_RC;
	default: /* SMI has no place in RoCE */
		return -1;
	}
}

enum vur_qp_check
vur_qp_check_modify(uint8_t qp_type, unsigned int cur, unsigned int next, uint32_t attr_mask,
		uint32_t *bad)
{
	const struct transition *t;
	uint32_t attrs;
	int tr = transport_of(qp_type);

	*bad = 0;
	if (tr < 0 || cur >= VUR_QPS_COUNT)
		return VUR_QP_CHECK_BAD_TYPE;
	if (!(attr_mask & VIRTIO_IB_QP_STATE))
		next = cur; /* a modify without a transition: the cur->cur cell */
	else if (next >= VUR_QPS_COUNT)
		return VUR_QP_CHECK_BAD_STATE;

	t = &table[cur][next];
	if (!t->valid)
		return VUR_QP_CHECK_BAD_TRANSITION;

	attrs = attr_mask & ~(uint32_t)VIRTIO_IB_QP_STATE;
	if ((t->req[tr] & ~attrs) != 0) {
		*bad = t->req[tr] & ~attrs;
		return VUR_QP_CHECK_MISSING_ATTR;
	}
	if ((attrs & ~(t->req[tr] | t->opt[tr])) != 0) {
		*bad = attrs & ~(t->req[tr] | t->opt[tr]);
		return VUR_QP_CHECK_EXTRA_ATTR;
	}
	return VUR_QP_CHECK_OK;
}
