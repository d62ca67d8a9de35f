/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Atomic operations on RC: CmpSwap (opcode 0x13) and FetchAdd (0x14)
 * requests carry an AtomicETH (virtual address, R_Key, swap or add data,
 * compare data, all big-endian); the responder answers with an
 * ATOMIC_ACKNOWLEDGE (0x12): an AETH and an AtomicAckETH holding the 8
 * bytes the address held before the operation. One packet and one PSN
 * each way, as Linux rxe sends and takes them (rxe_opcode.c).
 *
 * The virtio ABI is little-endian: the compare and swap/add data of the
 * send WR, the 8 bytes at the target and the 8 bytes the original value
 * lands in are little-endian u64, and the wire carries them big-endian.
 *
 * The requester: a WR's s/g list is exactly one element of 8 bytes whose
 * MR allows LOCAL_WRITE (the original value is written there); an atomic
 * takes one of the max_rd_atomic resources, as a READ does, and a FENCE
 * waits for it (requester.c). Unanswered, it is sent again like a READ:
 * the responder answers a duplicate from what it saved.
 *
 * The responder: the address must be 8-byte aligned (else NAK invalid
 * request, as rxe does for a misaligned atomic); the R_Key must name an
 * MR of the QP's PD that allows REMOTE_ATOMIC over the 8 bytes, and the
 * QP's qp_access_flags must allow REMOTE_ATOMIC (else NAK remote access
 * error). The operation is a real CPU atomic on the host mapping of the
 * guest's memory, so it is atomic also against the guest CPU's own
 * atomics and those of other engines on the same memory: atomic_cap
 * VIRTIO_IB_ATOMIC_GLOB (IBTA 11.2.1.2's ATOMIC_GLOB). It takes a
 * responder resource (max_dest_rd_atomic, shared with READs,
 * IBTA 9.7.5.1.3), which keeps the original value: a duplicate request
 * (a PSN already taken) is answered with the saved value and is never
 * executed twice; one whose resource is gone is dropped (rxe does the
 * same), and the requester's retries run out. The ATOMIC_ACKNOWLEDGE goes
 * with the READ responses, in PSN order (responder.c).
 */
#include <rte_byteorder.h>

#include "transport/tp.h"

bool
vur_tp_atomic_wr_ok(struct vur_swqe *w)
{
	/* one local data segment of 8 bytes (rxe refuses other lengths) */
	if (w->num_sge != 1 || (w->flags & VIRTIO_IB_SEND_INLINE)) {
		w->status = VIRTIO_IB_WC_LOC_QP_OP_ERR;
		return false;
	}
	if (w->length != sizeof(uint64_t)) {
		w->status = VIRTIO_IB_WC_LOC_LEN_ERR;
		return false;
	}
	return true;
}

void
vur_tp_atomic_request(const struct vur_swqe *w, struct vur_pkt_hdrs *h)
{
	h->va = w->remote_addr;
	h->rkey = w->rkey;
	if (w->opcode == VIRTIO_IB_WR_ATOMIC_CMP_AND_SWP) {
		h->swap_add = w->swap;
		h->compare = w->compare_add;
	} else {
		h->swap_add = w->compare_add; /* FetchAdd: the add data; compare unused, 0 */
		h->compare = 0;
	}
	h->ack_req = true; /* its response is the ATOMIC_ACKNOWLEDGE */
}

uint64_t *
vur_tp_atomic_target(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_pkt *p,
		enum vur_nak_code *code, const char **why)
{
	uint32_t len = sizeof(uint64_t);
	void *hva;

	if (p->h.va & (sizeof(uint64_t) - 1)) {
		*code = VUR_NAK_INV_REQ;
		*why = "misaligned atomic address";
		return NULL;
	}
	*code = VUR_NAK_REM_ACCESS;
	*why = "R_Key, access or range";
	if (!(t->qp->attr.access_flags & VIRTIO_IB_ACCESS_REMOTE_ATOMIC) ||
			!vur_tp_rkey_ok(td, t->qp, p->h.rkey, VIRTIO_IB_ACCESS_REMOTE_ATOMIC,
					p->h.va, len))
		return NULL;
	/* an MR's rkey or a memory window's (ROCE-DEV-MW-9) */
	hva = vur_tp_rkey_hva(td, t->qp, p->h.rkey, VIRTIO_IB_ACCESS_REMOTE_ATOMIC, p->h.va, &len);
	/* an aligned address never splits a page; a host address that is not aligned is refused */
	if (hva == NULL || len != sizeof(uint64_t) || ((uintptr_t)hva & (sizeof(uint64_t) - 1))) {
		*why = "the atomic's 8 bytes are not mapped whole";
		return NULL;
	}
	return hva;
}

uint64_t
vur_tp_atomic_execute(uint64_t *target, const struct vur_pkt *p)
{
	uint64_t expected;

	if (p->h.opcode == (VUR_TRANSPORT_RC | VUR_OP_CMP_SWAP)) {
		/* on failure @expected becomes what is there; on success it is */
		expected = rte_cpu_to_le_64(p->h.compare);
		__atomic_compare_exchange_n(target, &expected, rte_cpu_to_le_64(p->h.swap_add),
				false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		return rte_le_to_cpu_64(expected);
	}
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return __atomic_fetch_add(target, p->h.swap_add, __ATOMIC_SEQ_CST);
#else
	/* the guest's little-endian u64: add in host order, swap in place */
	uint64_t orig = __atomic_load_n(target, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(target, &orig,
			rte_cpu_to_le_64(rte_le_to_cpu_64(orig) + p->h.swap_add), false,
			__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	return rte_le_to_cpu_64(orig);
#endif
}

struct rte_mbuf *
vur_tp_atomic_ack(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_rd_res *r)
{
	struct vur_pkt_hdrs h = {
		.opcode = VUR_TRANSPORT_RC | VUR_OP_ATOMIC_ACK,
		.dest_qpn = t->qp->attr.dest_qp_num,
		.psn = r->psn,
		.syndrome = VUR_AETH_ACK | VUR_AETH_CREDIT_INVALID,
		.msn = t->msn,
		.orig = r->orig,
	};

	return vur_tp_build(td, t, &h, 0);
}

bool
vur_tp_atomic_place(struct vur_tp_dev *td, struct vur_tp_qp *t, const struct vur_swqe *w,
		const struct vur_pkt *p)
{
	uint64_t orig = rte_cpu_to_le_64(p->h.orig);

	return vur_tp_sge_write_buf(td, t->qp->pdn, w->sge, 1, 0, &orig, sizeof(orig));
}
