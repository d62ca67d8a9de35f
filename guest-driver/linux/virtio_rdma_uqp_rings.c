// SPDX-License-Identifier: GPL-2.0
/*
 * Processes' QPs on rings (<rdma/virtio_rdma-abi.h>, "Queue pair on
 * rings"): a provider that can drive QP rings asks for them in its
 * create_qp driver data; with the rings layout on, the driver then
 * allocates the send and receive rings and the record in vmalloc_user()
 * memory, registers it as an MR of the QP's own PD (the spec wants a
 * ring's MR in its QP's PD; virtio_rdma_ring_mr.c), creates the QP on
 * those rings and lets the process map that memory. The device thus sees
 * only pages the kernel chose; a process that guesses the MR's key can
 * name through it only memory it maps anyway. What it writes there breaks
 * only its own QP: the device checks every index against the ring.
 *
 * The doorbell summary is never mapped: one word holds 64 QPs' bits, and
 * a plain store from a process would erase other processes' and the
 * kernel's doorbells or clear sleeping. The provider applies ROCE-DRV-
 * RING-3 and -7 itself and, only when they say to ring, posts no WR
 * through the uverbs POST_SEND (POST_RECV) command: the kernel then rings
 * the QP's doorbell as for a kernel QP (as rxe's provider does).
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>

#include "virtio_rdma.h"


/*
 * One area is one MR, at most virtio_rdma_ring_mem_max() (32 MiB). A send
 * ring of 32768 entries of 1024 bytes fills one; the receive ring and the
 * record then take a second.
 */
#define UQP_MAX_AREA	virtio_rdma_ring_mem_max()

/* The most WRs a ring of @entry bytes per WR holds in an area of @room. */
static u32 uqp_max_wr(struct virtio_rdma_dev *dev, size_t entry, size_t room)
{
	u8 ls = virtio_rdma_ring_log_stride(entry);

	if (!dev->rings.on || ls > VIRTIO_RDMA_RING_MAX_LOG_STRIDE)
		return 0;
	return min_t(u32, rounddown_pow_of_two(dev->rings.max_ring_wr),
		     rounddown_pow_of_two(room >> ls));
}

/*
 * A receive ring (a QP's or an SRQ's) of twice the WRs asked, as far as
 * the device and an area allow: the device gives a receive entry back only
 * after the WR's CQE (ROCE-DEV-RING-11), so a consumer that polled a
 * receive completion and posts at once can find the entry not free yet;
 * the provider bounds a receive ring by its size, and the slack absorbs
 * that lag (the consumer itself keeps max_recv_wr outstanding).
 */
static u32 uqp_rq_size(struct virtio_rdma_dev *dev, u32 wr, u32 sge)
{
	u32 want = roundup_pow_of_two(max(wr, 1u)) * 2;

	return min(want, uqp_max_wr(dev, VIRTIO_RDMA_RQ_ENTRY(sge),
				    UQP_MAX_AREA - PAGE_SIZE));
}

/* max_qp_wr of processes' QPs on rings, at the device's s/g limits. */
u32 virtio_rdma_uqp_rings_max_wr(struct virtio_rdma_dev *dev)
{
	const struct virtio_rdma_ack_query_device *a = &dev->attr;

	return min(uqp_max_wr(dev, VIRTIO_RDMA_SQ_ENTRY(le32_to_cpu(a->max_send_sge)),
			      UQP_MAX_AREA),
		   uqp_max_wr(dev, VIRTIO_RDMA_RQ_ENTRY(le32_to_cpu(a->max_recv_sge)),
			      UQP_MAX_AREA - PAGE_SIZE));
}

/*
 * 1: the provider asks for a CQ, QP or SRQ on rings, @flag
 * VIRTIO_RDMA_CREATE_{CQ,QP,SRQ}_RINGS in its create driver data (or
 * follows a resized CQ ring: VIRTIO_RDMA_RESIZE_CQ_RINGS), and the
 * driver has them; 0: a virtqueue one (an older provider sends no driver
 * data); <0: bad data.
 */
int virtio_rdma_urings_wanted(struct virtio_rdma_dev *dev,
			      struct ib_udata *udata, u32 flag)
{
	struct virtio_rdma_create_qp_cmd cmd = {};
	int ret;

	/* The create_cq, create_srq and resize_cq driver data are the same. */
	BUILD_BUG_ON(sizeof(cmd) != sizeof(struct virtio_rdma_create_srq_cmd) ||
		     sizeof(cmd) != sizeof(struct virtio_rdma_create_cq_cmd) ||
		     sizeof(cmd) != sizeof(struct virtio_rdma_resize_cq_cmd));

	if (!udata->inlen)
		return 0;
	ret = ib_copy_from_udata(&cmd, udata, min(udata->inlen, sizeof(cmd)));
	if (ret)
		return ret;
	if ((cmd.flags & ~flag) || cmd.reserved)
		return -EINVAL;
	if (udata->inlen > sizeof(cmd) &&
	    !ib_is_udata_cleared(udata, sizeof(cmd),
				 udata->inlen - sizeof(cmd)))
		return -EOPNOTSUPP;
	return (cmd.flags & flag) && dev->rings.on;
}

void virtio_rdma_uqp_rings_free(struct virtio_rdma_qp_res *qp)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(qp->uarea); i++) {
		if (qp->uarea[i].mem)
			virtio_rdma_ring_mr_free(qp->dev, qp->uarea[i].mem,
						 qp->uarea[i].mrn);
		qp->uarea[i].mem = NULL;
	}
	qp->urec = NULL;
}

static void uqp_ring_to_wire(const struct virtio_rdma_uarea *a, size_t off,
			     u32 size, u8 log_stride,
			     struct virtio_rdma_ring *w)
{
	w->addr = cpu_to_le64((uintptr_t)a->mem + off);
	w->lkey = cpu_to_le32(a->lkey);
	w->log_size = ilog2(size);
	w->log_stride = log_stride;
}

/*
 * The create command of a process's QP or SRQ on rings, under res_lock:
 * its doorbell or event queue (@q, the command's; @qout the object's), the
 * number the device gave checked (ROCE-DEV-RING-6: destroyed if not
 * eligible), the live count. The acks and destroys of both are one le32.
 */
static int uring_create(struct virtio_rdma_dev *dev, u8 create, u8 destroy,
			const void *c, size_t len, __le16 *q, u16 *qout,
			u32 *num, u32 *live)
{
	struct virtio_rdma_rings *r = &dev->rings;
	__le32 ack;
	u16 k;
	int ret;

	BUILD_BUG_ON(sizeof(struct virtio_rdma_ack_create_qp) != sizeof(ack) ||
		     sizeof(struct virtio_rdma_ack_create_srq) != sizeof(ack) ||
		     sizeof(struct virtio_rdma_cmd_destroy_qp) != sizeof(ack) ||
		     sizeof(struct virtio_rdma_cmd_destroy_srq) != sizeof(ack));
	mutex_lock(&dev->res_lock);
	k = r->next_eq++ % r->k;
	*q = cpu_to_le16(k);
	if (qout)
		*qout = k;
	ret = virtio_rdma_roce_cmd(dev, create, c, len, &ack, sizeof(ack));
	if (!ret && !virtio_rdma_ring_number_ok(dev, le32_to_cpu(ack), false)) {
		dev_err_ratelimited(&dev->vdev->dev,
				    "create on rings (%u): number %u not eligible\n",
				    create, le32_to_cpu(ack));
		ret = virtio_rdma_ring_destroy_refused(dev, destroy, &ack,
						       sizeof(ack));
	}
	if (!ret) {
		*num = le32_to_cpu(ack);
		WRITE_ONCE(*live, *live + 1);
	}
	mutex_unlock(&dev->res_lock);
	return ret;
}

/*
 * CREATE_QP with VIRTIO_RDMA_QP_F_RINGS on an area (or two) of the QP's:
 * the send entries, the receive entries (none on an SRQ), the record's
 * page. The caller enters the QP in the table.
 */
int virtio_rdma_uqp_rings_create(struct virtio_rdma_dev *dev,
				 struct virtio_rdma_qp_res *qp,
				 const struct virtio_rdma_cmd_create_qp *cmd,
				 const struct ib_qp_cap *cap)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_cmd_create_qp_rings c = { .qp = *cmd };
	u8 sls = virtio_rdma_ring_log_stride(VIRTIO_RDMA_SQ_ENTRY(cap->max_send_sge));
	u8 rls = virtio_rdma_ring_log_stride(VIRTIO_RDMA_RQ_ENTRY(cap->max_recv_sge));
	u32 ssize = roundup_pow_of_two(max(cap->max_send_wr, 1u));
	u32 rsize = qp->srq ? 0 : uqp_rq_size(dev, cap->max_recv_wr,
					      cap->max_recv_sge);
	size_t sbytes = PAGE_ALIGN((size_t)ssize << sls);
	size_t rbytes = PAGE_ALIGN((size_t)rsize << rls) + PAGE_SIZE;
	struct virtio_rdma_uarea *ra = &qp->uarea[0];
	size_t roff = sbytes;
	int ret;

	if (sls > VIRTIO_RDMA_RING_MAX_LOG_STRIDE || rls > VIRTIO_RDMA_RING_MAX_LOG_STRIDE ||
	    ssize > r->max_ring_wr || rsize > r->max_ring_wr ||
	    sbytes > UQP_MAX_AREA || rbytes > UQP_MAX_AREA)
		return -EINVAL;
	/* One MR for all when it fits, else the receive side's own. */
	if (sbytes + rbytes > UQP_MAX_AREA) {
		ra = &qp->uarea[1];
		roff = 0;
	}
	qp->uarea[0].len = ra == &qp->uarea[0] ? sbytes + rbytes : sbytes;
	ret = virtio_rdma_ring_mr_alloc(dev, qp->uarea[0].len, qp->pd->pdn,
					&qp->uarea[0].mem, &qp->uarea[0].mrn,
					&qp->uarea[0].lkey);
	if (ret)
		return ret;
	if (ra != &qp->uarea[0]) {
		ra->len = rbytes;
		ret = virtio_rdma_ring_mr_alloc(dev, ra->len, qp->pd->pdn,
						&ra->mem, &ra->mrn, &ra->lkey);
		if (ret)
			goto err_free;
	}
	/* vmalloc_user() zeroes: the driver's half of the record is 0. */
	qp->urec = ra->mem + roff + rbytes - PAGE_SIZE;
	c.qp.flags |= VIRTIO_RDMA_QP_F_RINGS;
	uqp_ring_to_wire(&qp->uarea[0], 0, ssize, sls, &c.sq);
	if (rsize)
		uqp_ring_to_wire(ra, roff, rsize, rls, &c.rq);
	c.rec.addr = cpu_to_le64((uintptr_t)qp->urec);
	c.rec.lkey = cpu_to_le32(ra->lkey);

	ret = uring_create(dev, VIRTIO_NET_CTRL_ROCE_CREATE_QP,
			   VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &c, sizeof(c), &c.dbq,
			   &qp->dbq, &qp->qpn, &r->live_qps);
	/* The device may use the area: the caller keeps it until reset. */
	if (!ret || virtio_rdma_cmd_lost(ret))
		return ret;
err_free:
	virtio_rdma_uqp_rings_free(qp);
	return ret == -EREMOTEIO ? -EINVAL : ret;
}

static void uqp_ring_resp(const struct virtio_rdma_uarea *a, u64 mmap,
			  size_t off, u32 size, size_t entry,
			  struct virtio_rdma_wq_ring *w)
{
	w->mmap = mmap;
	w->len = a->len;
	w->off = off;
	w->size = size;
	w->stride = size ? 1u << virtio_rdma_ring_log_stride(entry) : 0;
}

/* The areas' mappings, each holding the QP until it is gone. */
int virtio_rdma_uqp_rings_publish(struct virtio_rdma_qp_res *qp,
				  struct ib_ucontext *uctx,
				  const struct ib_qp_cap *cap,
				  void (*release)(struct kref *ref),
				  struct virtio_rdma_create_qp_resp *resp)
{
	struct virtio_rdma_mmap *m[2] = {
		&qp->sq.maps[VIRTIO_RDMA_MMAP_VMALLOC],
		&qp->rq.maps[VIRTIO_RDMA_MMAP_VMALLOC],
	};
	u64 off[2] = {};
	size_t roff;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(qp->uarea); i++) {
		if (!qp->uarea[i].mem)
			continue;
		m[i]->vaddr = qp->uarea[i].mem;
		ret = virtio_rdma_mmap_insert(uctx, m[i],
					      VIRTIO_RDMA_MMAP_VMALLOC, 0,
					      qp->uarea[i].len, &qp->ref,
					      release, &off[i]);
		if (ret)
			return ret;
	}
	uqp_ring_resp(&qp->uarea[0], off[0], 0,
		      roundup_pow_of_two(max(cap->max_send_wr, 1u)),
		      VIRTIO_RDMA_SQ_ENTRY(cap->max_send_sge), &resp->rsq);
	i = qp->uarea[1].mem ? 1 : 0;
	roff = i ? 0 : PAGE_ALIGN((size_t)resp->rsq.size * resp->rsq.stride);
	uqp_ring_resp(&qp->uarea[i], off[i], roff,
		      qp->srq ? 0 : uqp_rq_size(qp->dev, cap->max_recv_wr,
						 cap->max_recv_sge),
		      VIRTIO_RDMA_RQ_ENTRY(cap->max_recv_sge), &resp->rrq);
	uqp_ring_resp(&qp->uarea[i], off[i],
		      (void *)qp->urec - qp->uarea[i].mem, 0, 0, &resp->rec);
	resp->flags |= VIRTIO_RDMA_QP_RESP_RINGS;
	return 0;
}

/*
 * uverbs POST_SEND or POST_RECV of a process's QP: on rings, no WR (the
 * process wrote them into its ring and found that the device wants a
 * doorbell), and the kernel rings it. WRs are refused, and so is a
 * process's QP on virtqueues (it rings its own): they belong in the
 * process's queues.
 */
int virtio_rdma_uqp_rings_doorbell(struct virtio_rdma_qp_res *qp, bool has_wr)
{
	if (has_wr || !qp->urec)
		return -EINVAL;
	atomic64_inc(&qp->dev->rings.user_doorbells);
	virtio_rdma_doorbell_ring(qp->dev, qp->dbq, qp->qpn);
	return 0;
}

/* max_srq_wr of processes' SRQs on rings: the ring and the record's page. */
u32 virtio_rdma_usrq_rings_max_wr(struct virtio_rdma_dev *dev)
{
	return uqp_max_wr(dev,
			  VIRTIO_RDMA_RQ_ENTRY(le32_to_cpu(dev->attr.max_srq_sge)),
			  UQP_MAX_AREA - PAGE_SIZE);
}

void virtio_rdma_usrq_rings_free(struct virtio_rdma_srq_res *srq)
{
	if (srq->uarea.mem)
		virtio_rdma_ring_mr_free(srq->dev, srq->uarea.mem,
					 srq->uarea.mrn);
	srq->uarea.mem = NULL;
	srq->urec = NULL;
}

/*
 * CREATE_SRQ with VIRTIO_RDMA_SRQ_F_RINGS on an area of its own (the
 * entries, then the record's page), an MR of the SRQ's PD. The caller
 * enters it in the table.
 */
int virtio_rdma_usrq_rings_create(struct virtio_rdma_dev *dev,
				  struct virtio_rdma_srq_res *srq,
				  const struct ib_srq_attr *attr)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_cmd_create_srq_rings c;
	u8 ls = virtio_rdma_ring_log_stride(VIRTIO_RDMA_RQ_ENTRY(attr->max_sge));
	u32 size = uqp_rq_size(dev, attr->max_wr, attr->max_sge);
	size_t bytes = PAGE_ALIGN((size_t)size << ls) + PAGE_SIZE;
	struct virtio_rdma_uarea *a = &srq->uarea;
	int ret;

	if (ls > VIRTIO_RDMA_RING_MAX_LOG_STRIDE || size > r->max_ring_wr ||
	    bytes > UQP_MAX_AREA)
		return -EINVAL;
	virtio_rdma_srq_rings_cmd(srq, attr, &c);
	a->len = bytes;
	ret = virtio_rdma_ring_mr_alloc(dev, a->len, srq->pd->pdn, &a->mem,
					&a->mrn, &a->lkey);
	if (ret)
		return ret;
	/* vmalloc_user() zeroes: the driver's half of the record is 0. */
	srq->urec = a->mem + bytes - PAGE_SIZE;
	uqp_ring_to_wire(a, 0, size, ls, &c.ring);
	c.rec.addr = cpu_to_le64((uintptr_t)srq->urec);
	c.rec.lkey = cpu_to_le32(a->lkey);

	ret = uring_create(dev, VIRTIO_NET_CTRL_ROCE_CREATE_SRQ,
			   VIRTIO_NET_CTRL_ROCE_DESTROY_SRQ, &c, sizeof(c), &c.eq,
			   NULL, &srq->srqn, &r->live_srqs);
	/* The device may use the area: the caller keeps it until reset. */
	if (!ret || virtio_rdma_cmd_lost(ret))
		return ret;
	virtio_rdma_usrq_rings_free(srq);
	return ret == -EREMOTEIO ? -EINVAL : ret;
}

int virtio_rdma_usrq_rings_publish(struct virtio_rdma_srq_res *srq,
				   struct ib_ucontext *uctx,
				   void (*release)(struct kref *ref),
				   struct virtio_rdma_create_srq_resp *resp)
{
	struct virtio_rdma_mmap *m = &srq->rq.maps[VIRTIO_RDMA_MMAP_VMALLOC];
	u64 off;
	int ret;

	m->vaddr = srq->uarea.mem;
	ret = virtio_rdma_mmap_insert(uctx, m, VIRTIO_RDMA_MMAP_VMALLOC, 0,
				      srq->uarea.len, &srq->ref, release, &off);
	if (ret)
		return ret;
	uqp_ring_resp(&srq->uarea, off, 0,
		      uqp_rq_size(srq->dev, srq->max_wr, srq->max_sge),
		      VIRTIO_RDMA_RQ_ENTRY(srq->max_sge), &resp->ring);
	uqp_ring_resp(&srq->uarea, off,
		      (void *)srq->urec - srq->uarea.mem, 0, 0, &resp->rec);
	resp->flags |= VIRTIO_RDMA_SRQ_RESP_RINGS;
	return 0;
}
