/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The facts of each BTH opcode in one table, as Linux rxe keeps them
 * (rxe_opcode.c): which extended headers follow the BTH, whether it carries
 * a payload, its place in a message, and which transports may use it.
 */
#ifndef VUR_OPCODE_H
#define VUR_OPCODE_H

#include <stdbool.h>
#include <stdint.h>

enum vur_op_mask {
	VUR_OPM_DETH = 1u << 0,
	VUR_OPM_RETH = 1u << 1,
	VUR_OPM_AETH = 1u << 2,
	VUR_OPM_IMM = 1u << 3,
	VUR_OPM_PAYLOAD = 1u << 4,
	VUR_OPM_FIRST = 1u << 5,
	VUR_OPM_MIDDLE = 1u << 6,
	VUR_OPM_LAST = 1u << 7,
	VUR_OPM_SEND = 1u << 8,
	VUR_OPM_WRITE = 1u << 9,
	VUR_OPM_READ = 1u << 10,  /* the request */
	VUR_OPM_RRESP = 1u << 11, /* read response */
	VUR_OPM_ACK = 1u << 12,
	VUR_OPM_REQ = 1u << 13, /* requester to responder */
	VUR_OPM_RC = 1u << 14,  /* transports that have it */
	VUR_OPM_UC = 1u << 15,
	VUR_OPM_UD = 1u << 16,
	VUR_OPM_CNP = 1u << 17,        /* a congestion notification (tp_cc.h) */
	VUR_OPM_IETH = 1u << 18,       /* SEND_WITH_INV's R_Key, after the BTH (IBTA 9.3.7) */
	VUR_OPM_ATOMIC = 1u << 19,     /* an atomic request: AtomicETH */
	VUR_OPM_ATOMIC_ACK = 1u << 20, /* ATOMIC_ACKNOWLEDGE: AtomicAckETH after the AETH */
};

struct vur_opcode_info {
	const char *name;
	uint32_t mask;
};

/*
 * What @opcode is on the wire: NULL for an opcode this device does not
 * implement for that transport (RD, invalidate...). A CNP is its
 * own transport: its 16 reserved bytes count as payload.
 */
const struct vur_opcode_info *vur_opcode_info(uint8_t opcode);

/*
 * The opcode of one packet of a message whose packets have @opcode's kind
 * (SEND, RDMA WRITE or READ response, and its transport): FIRST, MIDDLE,
 * LAST or ONLY by whether it holds the message's @first and @last packet;
 * an immediate or IETH of @opcode rides on the last one only. 0xff for an opcode of
 * another kind.
 */
uint8_t vur_op_segment(uint8_t opcode, bool first, bool last);

/* Bytes of the headers between the BTH and the payload. */
uint32_t vur_opcode_ext_len(uint32_t mask);

#endif /* VUR_OPCODE_H */
