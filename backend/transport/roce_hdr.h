/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * InfiniBand transport headers as RoCE v2 carries them (IBTA Vol 1 ch. 9,
 * Annex A17): BTH, DETH, RETH, AETH, ImmDt, IETH, ICRC, and the atomics'
 * AtomicETH and AtomicAckETH. Every field is in network
 * byte order; the packet code reads them with memcpy, so nothing here
 * assumes alignment.
 */
#ifndef VUR_ROCE_HDR_H
#define VUR_ROCE_HDR_H

#include <stdint.h>

#include <rte_byteorder.h>

#define VUR_ROCE_UDP_PORT 4791
#define VUR_BTH_LEN       12
#define VUR_DETH_LEN      8
#define VUR_RETH_LEN      16
#define VUR_AETH_LEN      4
#define VUR_IMM_LEN       4
#define VUR_IETH_LEN      4 /* the R_Key a SEND_WITH_INV invalidates */
#define VUR_ICRC_LEN      4
#define VUR_GRH_LEN       40 /* what a UD receive gets before the message */
#define VUR_PKEY_DEFAULT  0xffff

/* 24-bit sequence numbers and QP numbers. */
#define VUR_PSN_MASK 0xffffffu

struct vur_bth {
	uint8_t opcode;
	uint8_t flags; /* SE (7), MigReq (6), PadCnt (5:4), TVer (3:0) */
	rte_be16_t pkey;
	rte_be32_t qpn;  /* FECN (31), BECN (30), reserved (29:24), DestQP (23:0) */
	rte_be32_t apsn; /* AckReq (31), reserved (30:24), PSN (23:0) */
};

#define VUR_BTH_SE      0x80
#define VUR_BTH_PAD(f)  (((f) >> 4) & 3)
#define VUR_BTH_ACK_REQ 0x80000000u

struct vur_deth {
	rte_be32_t qkey;
	rte_be32_t sqp; /* reserved (31:24), SrcQP (23:0) */
};

struct vur_reth {
	uint8_t va[8]; /* be64, 4-byte aligned at best in a packet */
	rte_be32_t rkey;
	rte_be32_t len;
};

/*
 * AtomicETH (IBTA 9.3): the 8-byte aligned virtual address, the R_Key,
 * the swap (CmpSwap) or add (FetchAdd) data, the compare data (CmpSwap).
 * Its 64-bit fields sit at 4-byte offsets in a packet.
 */
#define VUR_ATOMIC_ETH_LEN 28
struct vur_atomic_eth {
	uint8_t va[8];
	rte_be32_t rkey;
	uint8_t swap_add[8];
	uint8_t compare[8];
};

/* AtomicAckETH (IBTA 9.3): the data at the address before the operation. */
#define VUR_ATOMIC_ACK_ETH_LEN 8
struct vur_atomic_ack_eth {
	uint8_t orig[8];
};

_Static_assert(sizeof(struct vur_atomic_eth) == VUR_ATOMIC_ETH_LEN, "AtomicETH is 28 bytes");
_Static_assert(sizeof(struct vur_atomic_ack_eth) == VUR_ATOMIC_ACK_ETH_LEN,
		"AtomicAckETH is 8 bytes");

/* AETH syndrome (IBTA 9.7.5.1): bits 7:5 say what, 4:0 carry the detail. */
#define VUR_AETH_ACK            0x00 /* 0 00 xxxxx: ACK, xxxxx = credit count */
#define VUR_AETH_RNR_NAK        0x20 /* 0 01 ttttt: RNR NAK, ttttt = timer code */
#define VUR_AETH_NAK            0x60 /* 0 11 ccccc: NAK with code c */
#define VUR_AETH_TYPE(s)        ((s)&0x60)
#define VUR_AETH_CREDIT_INVALID 0x1f /* no end-to-end credits (C9-150) */

enum vur_nak_code {
	VUR_NAK_PSN_SEQ = 0,
	VUR_NAK_INV_REQ = 1,
	VUR_NAK_REM_ACCESS = 2,
	VUR_NAK_REM_OP = 3,
};

/*
 * BTH opcodes: the transport in bits 7:5, the operation in 4:0 (IBTA
 * 9.2.1 table 38). UC and UD reuse the RC operation codes they have.
 */
#define VUR_TRANSPORT_RC  0x00
#define VUR_TRANSPORT_UC  0x20
#define VUR_TRANSPORT_UD  0x60
#define VUR_TRANSPORT(op) ((op)&0xe0)
#define VUR_OPERATION(op) ((op)&0x1f)

enum vur_ib_op {
	VUR_OP_SEND_FIRST = 0x00,
	VUR_OP_SEND_MIDDLE = 0x01,
	VUR_OP_SEND_LAST = 0x02,
	VUR_OP_SEND_LAST_IMM = 0x03,
	VUR_OP_SEND_ONLY = 0x04,
	VUR_OP_SEND_ONLY_IMM = 0x05,
	VUR_OP_WRITE_FIRST = 0x06,
	VUR_OP_WRITE_MIDDLE = 0x07,
	VUR_OP_WRITE_LAST = 0x08,
	VUR_OP_WRITE_LAST_IMM = 0x09,
	VUR_OP_WRITE_ONLY = 0x0a,
	VUR_OP_WRITE_ONLY_IMM = 0x0b,
	VUR_OP_READ_REQ = 0x0c,
	VUR_OP_READ_RESP_FIRST = 0x0d,
	VUR_OP_READ_RESP_MIDDLE = 0x0e,
	VUR_OP_READ_RESP_LAST = 0x0f,
	VUR_OP_READ_RESP_ONLY = 0x10,
	VUR_OP_ACK = 0x11,
	VUR_OP_ATOMIC_ACK = 0x12,
	VUR_OP_CMP_SWAP = 0x13,
	VUR_OP_FETCH_ADD = 0x14,
	VUR_OP_SEND_LAST_INV = 0x16, /* with an IETH */
	VUR_OP_SEND_ONLY_INV = 0x17,
	VUR_OP_COUNT = 0x20,
};

/* The ECN field of the IP header's traffic class (RFC 3168). */
#define VUR_ECN_MASK 0x3
#define VUR_ECN_ECT0 0x2
#define VUR_ECN_CE   0x3

/* RoCE v2's congestion notification packet (IBTA Annex A17.9.3): the whole opcode. */
#define VUR_OPCODE_CNP 0x81
/* Its 16 reserved bytes after the BTH. */
#define VUR_CNP_RSVD_LEN 16

/* PSN arithmetic modulo 2^24: the signed distance from @b to @a. */
static inline int32_t
vur_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static inline uint32_t
vur_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & VUR_PSN_MASK;
}

#endif /* VUR_ROCE_HDR_H */
