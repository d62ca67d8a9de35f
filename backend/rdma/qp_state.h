/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB QP state machine (IBTA Vol. 1, 10.3.1 and the ModifyQP verb,
 * 11.2.5.2): which transitions exist and, per QP type, which attributes each
 * transition requires and which it allows.
 */
#ifndef VUR_QP_STATE_H
#define VUR_QP_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net_roce.h>

#define VUR_QPS_COUNT (VIRTIO_IB_QPS_ERR + 1)

/* The state's name, "RESET" .. "ERR", or "?" out of range. */
const char *vur_qp_state_name(unsigned int state);

enum vur_qp_check {
	VUR_QP_CHECK_OK,
	VUR_QP_CHECK_BAD_STATE,      /* target state out of range */
	VUR_QP_CHECK_BAD_TRANSITION, /* the table has no such transition */
	VUR_QP_CHECK_MISSING_ATTR,   /* a required attribute is not in the mask */
	VUR_QP_CHECK_EXTRA_ATTR,     /* an attribute the transition does not allow */
	VUR_QP_CHECK_BAD_TYPE,       /* QP type without a transport here */
};

/* What a check result means, for logs. */
const char *vur_qp_check_name(enum vur_qp_check chk);

/*
 * Check a MODIFY_QP of a QP of @qp_type (VIRTIO_IB_QPT_*) now in @cur with
 * @attr_mask and, when VIRTIO_IB_QP_STATE is in the mask, @next. On
 * MISSING_ATTR or EXTRA_ATTR, *@bad holds the offending bits.
 */
enum vur_qp_check vur_qp_check_modify(uint8_t qp_type, unsigned int cur, unsigned int next,
		uint32_t attr_mask, uint32_t *bad);

#endif /* VUR_QP_STATE_H */
