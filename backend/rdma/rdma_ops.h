/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The operations the RoCE control commands perform on a device's RDMA
 * objects, one file per kind of object (pd.c, mr.c, cq.c, srq.c, qp.c,
 * ah.c, gid.c, mcast.c). Each takes the command's wire structure (little-endian, already
 * checked for length by the dispatcher), checks every value the guest
 * chose, and either changes nothing and returns a negative errno with the
 * reason logged (ROCE-DEV-CTRL-7), or applies the whole command and returns
 * 0. Called on the control thread with the device lock held.
 */
#ifndef VUR_RDMA_OPS_H
#define VUR_RDMA_OPS_H

#include <stdint.h>

#include <linux/virtio_net_roce.h>

#include "rdma/rdma_dev.h"

/* pd.c */
int vur_rdma_create_pd(struct vur_rdma_dev *rd, uint32_t *pdn);
int vur_rdma_destroy_pd(struct vur_rdma_dev *rd, uint32_t pdn);

/* mr.c */
int vur_rdma_get_dma_mr(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_get_dma_mr *c,
		struct vur_rdma_mr **mrp);
int vur_rdma_reg_user_mr(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_reg_user_mr *c,
		struct vur_rdma_mr **mrp);
int vur_rdma_dereg_mr(struct vur_rdma_dev *rd, uint32_t mrn);
/*
 * The live, valid MR whose lkey (rkey) is @key, or NULL: keys are checked
 * whole. For the control thread (the data path: vur_rdma_mr_at_key and the
 * MR's lock, tp_mem.c).
 */
struct vur_rdma_mr *vur_rdma_mr_by_lkey(struct vur_rdma_dev *rd, uint32_t key);
struct vur_rdma_mr *vur_rdma_mr_by_rkey(struct vur_rdma_dev *rd, uint32_t key);
/* The live MR whose index @key holds, whatever the rest of @key says, or NULL. */
struct vur_rdma_mr *vur_rdma_mr_at_key(struct vur_rdma_dev *rd, uint32_t key);
/* ROCE-DEV-MR-2, -3: access flags an MR may have; @what names the command or WR. */
int vur_rdma_mr_access_ok(struct vur_rdma_dev *rd, const char *what, uint32_t access);
/* Take an MR slot of PD @pdn and key it; the caller fills in what the MR covers. */
struct vur_rdma_mr *vur_rdma_mr_new(
		struct vur_rdma_dev *rd, const char *cmd, uint32_t pdn, uint32_t access, bool fast);

/*
 * mr_fast.c: fast-registration MRs (IBTA 10.6 and 11.4, Base Memory
 * Management Extensions). ALLOC_MR on the control thread; the rest on the
 * data path, with the MR's lock held (vur_rdma_mr.lock).
 */
int vur_rdma_alloc_mr(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_alloc_mr *c,
		struct vur_rdma_mr **mrp);

/* What a REG_MR work request asks, its page list read and checked against driver memory. */
struct vur_rdma_fast_reg {
	uint32_t pdn; /* the QP's */
	uint32_t key;
	uint64_t iova;
	uint64_t length;
	uint32_t access;
	uint8_t page_shift;
	const uint64_t *pages; /* driver addresses, host order */
	uint32_t npages;
};

/* REG_MR of @mr (the MR at @r->key's index): 0 when it is valid now, or why not. */
int vur_rdma_mr_fast_reg(
		struct vur_rdma_dev *rd, struct vur_rdma_mr *mr, const struct vur_rdma_fast_reg *r);
/* LOCAL_INV or a SEND_WITH_INV's IETH: 0 when @mr (at @key's index) is invalid now. */
int vur_rdma_mr_invalidate(struct vur_rdma_dev *rd, struct vur_rdma_mr *mr, uint32_t pdn,
		uint32_t key, const char *what);

/* The key a new MR or MW at key index @index gets (mr.c): never @avoid; @fast: key byte 0. */
uint32_t vur_rdma_make_key(
		const struct vur_rdma_dev *rd, uint32_t index, uint32_t avoid, bool fast);

/*
 * mw.c: memory windows (IBTA 10.6.7, types 1 and 2B). ALLOC_MW and
 * DEALLOC_MW on the control thread; bind and invalidate on the data path,
 * with the MW's lock held and the MR's too where they touch it.
 */
int vur_rdma_alloc_mw(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_alloc_mw *c,
		struct vur_rdma_mw **mwp);
int vur_rdma_dealloc_mw(struct vur_rdma_dev *rd, uint32_t mwn);
/* The live MW whose index @key holds, whatever the rest of @key says, or NULL. */
struct vur_rdma_mw *vur_rdma_mw_at_key(struct vur_rdma_dev *rd, uint32_t key);
/* DESTROY_QP of @qpn: type 2 MWs bound to it take no access any more (ROCE-DEV-MW-13). */
void vur_rdma_mw_qp_gone(struct vur_rdma_dev *rd, uint32_t qpn);

/* What a BIND_MW work request asks. */
struct vur_rdma_mw_bind {
	uint32_t pdn; /* the QP's */
	uint32_t qpn;
	uint32_t rkey; /* key index << 8 | new key byte */
	uint32_t mr_lkey;
	uint32_t access;
	uint64_t addr;
	uint64_t length;
};

/* Whether @b unbinds a type 1 MW: no MR is then involved. */
bool vur_rdma_mw_unbinds(const struct vur_rdma_mw *mw, const struct vur_rdma_mw_bind *b);
/*
 * BIND_MW of @mw (at @b->rkey's index) over @mr (at @b->mr_lkey's index,
 * its lock held; NULL when it unbinds or no MR is there): 0 when bound (or
 * unbound) now, and @mr's count of bound MWs taken; *@old_mr is then the
 * index of the MR the MW was bound to before (0: none), whose count the
 * caller drops under that MR's lock. Changes nothing when it refuses.
 */
int vur_rdma_mw_bind(struct vur_rdma_dev *rd, struct vur_rdma_mw *mw, struct vur_rdma_mr *mr,
		const struct vur_rdma_mw_bind *b, uint32_t *old_mr);
/*
 * LOCAL_INV (@qpn VUR_RDMA_MW_NO_QP: any QP of @pdn) or a SEND_WITH_INV's
 * IETH arriving on QP @qpn: 0 when type 2 MW @mw is unbound now; *@old_mr
 * as for a bind.
 */
int vur_rdma_mw_invalidate(struct vur_rdma_dev *rd, struct vur_rdma_mw *mw, uint32_t pdn,
		uint32_t qpn, uint32_t key, const char *what, uint32_t *old_mr);

/* cq.c */
int vur_rdma_create_cq(struct vur_rdma_dev *rd, uint32_t cqe, uint32_t *cqn);
int vur_rdma_destroy_cq(struct vur_rdma_dev *rd, uint32_t cqn);
int vur_rdma_req_notify_cq(struct vur_rdma_dev *rd, uint32_t cqn, uint32_t flags);

/* qp.c */
int vur_rdma_create_qp(
		struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp *c, uint32_t *qpn);
int vur_rdma_modify_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_modify_qp *c);
int vur_rdma_query_qp(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_query_qp *c,
		struct virtio_rdma_ack_query_qp *a);
int vur_rdma_destroy_qp(struct vur_rdma_dev *rd, uint32_t qpn);

/* srq.c */
int vur_rdma_create_srq(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_srq *c,
		uint32_t *srqn);
int vur_rdma_destroy_srq(struct vur_rdma_dev *rd, uint32_t srqn);
/* CREATE_QP with VIRTIO_RDMA_QP_F_SRQ: its SRQ, or NULL (logged) if the QP may not use it. */
struct vur_rdma_srq *vur_rdma_srq_for_qp(
		struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp *c);

/* ah.c: address vectors (for AHs and QPs) and AHs */
/* @for_ah: an AH's, which may name a multicast group */
int vur_rdma_av_from_wire(struct vur_rdma_dev *rd, const struct virtio_rdma_ah_attr *w, bool for_ah,
		struct vur_rdma_av *av);
void vur_rdma_av_to_wire(const struct vur_rdma_av *av, struct virtio_rdma_ah_attr *w);
int vur_rdma_create_ah(
		struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_ah *c, uint32_t *ah);
int vur_rdma_destroy_ah(struct vur_rdma_dev *rd, uint32_t pdn, uint32_t ah);

/* gid.c */
int vur_rdma_add_gid(struct vur_rdma_dev *rd, uint16_t index,
		const uint8_t gid[VIRTIO_NET_ROCE_GID_LEN]);
int vur_rdma_del_gid(struct vur_rdma_dev *rd, uint16_t index);

/* mcast.c: multicast groups of UD QPs */
/* A multicast GID: IPv6 ff00::/8, or IPv4-mapped 224.0.0.0/4. */
bool vur_rdma_gid_is_mcast(const uint8_t *gid);
/* The Ethernet address multicast GID @gid maps to (RFC 1112, RFC 2464). */
void vur_rdma_mcast_mac(const uint8_t *gid, uint8_t mac[6]);
int vur_rdma_attach_mcast(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_mcast *c);
int vur_rdma_detach_mcast(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_mcast *c);
/* The group of multicast GID @gid with a QP attached, or NULL; the data path's too. */
struct vur_rdma_mcast_grp *vur_rdma_mcast_find(struct vur_rdma_dev *rd, const uint8_t *gid);
/* DESTROY_QP of @qpn: detached from every group (ROCE-DEV-MCAST-5). */
void vur_rdma_mcast_qp_gone(struct vur_rdma_dev *rd, uint32_t qpn);
int vur_rdma_mcast_init(struct vur_rdma_dev *rd);
void vur_rdma_mcast_fini(struct vur_rdma_dev *rd);

/*
 * rings.c: rings in driver memory (VIRTIO_IB_DEVICE_RINGS). Each checks
 * every address once; an object's rings hold their MRs until it goes.
 */
int vur_rdma_setup_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_setup_rings *c);
int vur_rdma_create_qp_rings(struct vur_rdma_dev *rd,
		const struct virtio_rdma_cmd_create_qp_rings *c, uint32_t *qpn);
/* CREATE_QP's ring checks, for @cap; the rings (MRs held) and the number in *@out, *@qpn. */
int vur_rdma_qp_rings(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_create_qp_rings *c,
		const struct vur_rdma_qp_cap *cap, struct vur_rdma_rings **out, uint32_t *qpn);
int vur_rdma_create_cq_rings(struct vur_rdma_dev *rd,
		const struct virtio_rdma_cmd_create_cq_rings *c, uint32_t *cqn);
int vur_rdma_create_srq_rings(struct vur_rdma_dev *rd,
		const struct virtio_rdma_cmd_create_srq_rings *c, uint32_t *srqn);
/* RESIZE_CQ: the CQ's first CQE in the new ring in *@switch_prod. */
int vur_rdma_resize_cq(struct vur_rdma_dev *rd, const struct virtio_rdma_cmd_resize_cq *c,
		uint32_t *switch_prod);
/* Let go of @g (NULL: nothing) and of its MRs. */
void vur_rdma_rings_free(struct vur_rdma_dev *rd, struct vur_rdma_rings *g);
/* Forget SETUP_RINGS (RESET_OBJECTS, device reset). */
void vur_rdma_rings_forget(struct vur_rdma_dev *rd);

#endif /* VUR_RDMA_OPS_H */
