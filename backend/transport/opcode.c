/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>

#include <rte_common.h>

#include "transport/opcode.h"
#include "transport/roce_hdr.h"

#define RCUC  (VUR_OPM_RC | VUR_OPM_UC)
#define ALL   (VUR_OPM_RC | VUR_OPM_UC | VUR_OPM_UD)
#define SEND  (VUR_OPM_SEND | VUR_OPM_REQ | VUR_OPM_PAYLOAD)
#define WRITE (VUR_OPM_WRITE | VUR_OPM_REQ | VUR_OPM_PAYLOAD)
#define RRESP (VUR_OPM_RRESP | VUR_OPM_PAYLOAD | VUR_OPM_RC)
#define ONLY  (VUR_OPM_FIRST | VUR_OPM_LAST)

/* IBTA Vol 1, 9.2.1 table 38 and 9.3 (the headers of each packet). */
static const struct vur_opcode_info ops[VUR_OP_COUNT] = {
	[VUR_OP_SEND_FIRST] = { "SEND_FIRST", SEND | VUR_OPM_FIRST | RCUC },
	[VUR_OP_SEND_MIDDLE] = { "SEND_MIDDLE", SEND | VUR_OPM_MIDDLE | RCUC },
	[VUR_OP_SEND_LAST] = { "SEND_LAST", SEND | VUR_OPM_LAST | RCUC },
	[VUR_OP_SEND_LAST_IMM] = { "SEND_LAST_IMM", SEND | VUR_OPM_LAST | VUR_OPM_IMM | RCUC },
	[VUR_OP_SEND_ONLY] = { "SEND_ONLY", SEND | ONLY | ALL },
	[VUR_OP_SEND_ONLY_IMM] = { "SEND_ONLY_IMM", SEND | ONLY | VUR_OPM_IMM | ALL },
	[VUR_OP_WRITE_FIRST] = { "WRITE_FIRST", WRITE | VUR_OPM_FIRST | VUR_OPM_RETH | RCUC },
	[VUR_OP_WRITE_MIDDLE] = { "WRITE_MIDDLE", WRITE | VUR_OPM_MIDDLE | RCUC },
	[VUR_OP_WRITE_LAST] = { "WRITE_LAST", WRITE | VUR_OPM_LAST | RCUC },
	[VUR_OP_WRITE_LAST_IMM] = { "WRITE_LAST_IMM", WRITE | VUR_OPM_LAST | VUR_OPM_IMM | RCUC },
	[VUR_OP_WRITE_ONLY] = { "WRITE_ONLY", WRITE | ONLY | VUR_OPM_RETH | RCUC },
	[VUR_OP_WRITE_ONLY_IMM] = { "WRITE_ONLY_IMM",
			WRITE | ONLY | VUR_OPM_RETH | VUR_OPM_IMM | RCUC },
	[VUR_OP_READ_REQ] = { "READ_REQUEST",
			VUR_OPM_READ | VUR_OPM_REQ | ONLY | VUR_OPM_RETH | VUR_OPM_RC },
	[VUR_OP_READ_RESP_FIRST] = { "READ_RESPONSE_FIRST", RRESP | VUR_OPM_FIRST | VUR_OPM_AETH },
	[VUR_OP_READ_RESP_MIDDLE] = { "READ_RESPONSE_MIDDLE", RRESP | VUR_OPM_MIDDLE },
	[VUR_OP_READ_RESP_LAST] = { "READ_RESPONSE_LAST", RRESP | VUR_OPM_LAST | VUR_OPM_AETH },
	[VUR_OP_READ_RESP_ONLY] = { "READ_RESPONSE_ONLY", RRESP | ONLY | VUR_OPM_AETH },
	[VUR_OP_ACK] = { "ACKNOWLEDGE", VUR_OPM_ACK | VUR_OPM_AETH | VUR_OPM_RC },
	/* RC only (IBTA 9.2.1 table 38); one packet each, one PSN */
	[VUR_OP_ATOMIC_ACK] = { "ATOMIC_ACKNOWLEDGE",
			VUR_OPM_ACK | VUR_OPM_ATOMIC_ACK | VUR_OPM_AETH | VUR_OPM_RC },
	[VUR_OP_CMP_SWAP] = { "COMPARE_SWAP", VUR_OPM_ATOMIC | VUR_OPM_REQ | ONLY | VUR_OPM_RC },
	[VUR_OP_FETCH_ADD] = { "FETCH_ADD", VUR_OPM_ATOMIC | VUR_OPM_REQ | ONLY | VUR_OPM_RC },
	[VUR_OP_SEND_LAST_INV] = { "SEND_LAST_WITH_INVALIDATE",
			SEND | VUR_OPM_LAST | VUR_OPM_IETH | VUR_OPM_RC },
	[VUR_OP_SEND_ONLY_INV] = { "SEND_ONLY_WITH_INVALIDATE",
			SEND | ONLY | VUR_OPM_IETH | VUR_OPM_RC },
};

static const struct vur_opcode_info cnp = { "CNP", VUR_OPM_CNP | VUR_OPM_PAYLOAD };

const struct vur_opcode_info *
vur_opcode_info(uint8_t opcode)
{
	const struct vur_opcode_info *oi = &ops[VUR_OPERATION(opcode)];
	uint32_t transport;

	switch (VUR_TRANSPORT(opcode)) {
	case VUR_TRANSPORT_RC:
		transport = VUR_OPM_RC;
		break;
	case VUR_TRANSPORT_UC:
		transport = VUR_OPM_UC;
		break;
	case VUR_TRANSPORT_UD:
		transport = VUR_OPM_UD;
		break;
	default:
		/* RD, extended and manufacturer opcodes; the CNP alone of its kind */
		return opcode == VUR_OPCODE_CNP ? &cnp : NULL;
	}
	if (oi->name == NULL || !(oi->mask & transport))
		return NULL;
	return oi;
}

uint8_t
vur_op_segment(uint8_t opcode, bool first, bool last)
{
	/* FIRST, MIDDLE, LAST, ONLY of each kind; then LAST and ONLY with ImmDt */
	static const uint8_t send[6] = { VUR_OP_SEND_FIRST, VUR_OP_SEND_MIDDLE, VUR_OP_SEND_LAST,
		VUR_OP_SEND_ONLY, VUR_OP_SEND_LAST_IMM, VUR_OP_SEND_ONLY_IMM };
	static const uint8_t write[6] = { VUR_OP_WRITE_FIRST, VUR_OP_WRITE_MIDDLE,
		VUR_OP_WRITE_LAST, VUR_OP_WRITE_ONLY, VUR_OP_WRITE_LAST_IMM,
		VUR_OP_WRITE_ONLY_IMM };
	static const uint8_t rresp[6] = { VUR_OP_READ_RESP_FIRST, VUR_OP_READ_RESP_MIDDLE,
		VUR_OP_READ_RESP_LAST, VUR_OP_READ_RESP_ONLY, VUR_OP_READ_RESP_LAST,
		VUR_OP_READ_RESP_ONLY };
	const uint32_t mask = ops[VUR_OPERATION(opcode)].mask;
	const uint8_t *kind;
	unsigned int i;

	if (mask & VUR_OPM_SEND)
		kind = send;
	else if (mask & VUR_OPM_WRITE)
		kind = write;
	else if (mask & VUR_OPM_RRESP)
		kind = rresp;
	else
		return 0xff;
	i = first && last ? 3 : first ? 0 : last ? 2 : 1;
	if (last && (mask & VUR_OPM_IETH)) /* SEND only: its last packet has the IETH */
		return (uint8_t)(VUR_TRANSPORT(opcode) |
				(first ? VUR_OP_SEND_ONLY_INV : VUR_OP_SEND_LAST_INV));
	if (last && (mask & VUR_OPM_IMM))
		i += 2;
	return (uint8_t)(VUR_TRANSPORT(opcode) | kind[i]);
}

uint32_t
vur_opcode_ext_len(uint32_t mask)
{
	/* IBTA 9.2: DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH in that order. */
	return (mask & VUR_OPM_DETH ? VUR_DETH_LEN : 0) + (mask & VUR_OPM_RETH ? VUR_RETH_LEN : 0) +
			(mask & VUR_OPM_ATOMIC ? VUR_ATOMIC_ETH_LEN : 0) +
			(mask & VUR_OPM_AETH ? VUR_AETH_LEN : 0) +
			(mask & VUR_OPM_ATOMIC_ACK ? VUR_ATOMIC_ACK_ETH_LEN : 0) +
			(mask & VUR_OPM_IMM ? VUR_IMM_LEN : 0) +
			(mask & VUR_OPM_IETH ? VUR_IETH_LEN : 0);
}
