// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA virtqueues: all of them set up at probe, the doorbells of the
 * virtio-pci notify capability, and the user queues a process maps.
 *
 * virtio_ring only allocates and configures the RDMA virtqueues; the driver
 * never adds or takes buffers on them through its API. For each CQ and QP
 * the driver fills the descriptor table once (descriptor i is slot i), and
 * the process drives the available ring and reads the used ring itself
 * (<rdma/virtio_rdma-abi.h>). The rings are in guest-physical memory that
 * the device reads directly: without VIRTIO_F_ACCESS_PLATFORM, which the
 * driver requires for RDMA, a physical address is the device's address.
 *
 * A corner of vring_interrupt(): it calls a completion queue's callback
 * only when used->idx differs from virtio_ring's own last_used_idx, which
 * stays 0 because the driver takes no buffer through virtio_ring. A
 * completion interrupt that arrives while used->idx is exactly 0 modulo
 * 2^16 (after 65536 x k CQEs on that CQ) is therefore lost. The consumer
 * polls the CQ after arming it (ROCE-DRV-NOTIFY-2), so it loses the event,
 * not the CQE; README.md says so.
 */
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/virtio_config.h>
#include <linux/virtio_pci.h>
#include <linux/virtio_ring.h>
#include <linux/vmalloc.h>

#include "virtio_rdma.h"

static const char *vq_name(struct virtio_rdma_dev *dev, u32 i)
{
	u32 n;

	switch (virtio_net_roce_vq_classify_rings(i, VIRTIO_RDMA_N_PAIRS,
						  dev->max_rdma_cqs,
						  dev->max_rdma_qps,
						  dev->rings.k, &n)) {
	case VIRTIO_NET_ROCE_VQ_NET:
		return i % 2 ? "output.0" : "input.0";
	case VIRTIO_NET_ROCE_VQ_CTRL:
		return "control";
	case VIRTIO_NET_ROCE_VQ_CQ:
		snprintf(dev->vq_names[i], sizeof(dev->vq_names[i]), "cq.%u", n);
		break;
	case VIRTIO_NET_ROCE_VQ_SQ:
		snprintf(dev->vq_names[i], sizeof(dev->vq_names[i]), "sq.%u", n);
		break;
	case VIRTIO_NET_ROCE_VQ_RQ:
		snprintf(dev->vq_names[i], sizeof(dev->vq_names[i]), "rq.%u", n);
		break;
	case VIRTIO_NET_ROCE_VQ_DBQ:
		snprintf(dev->vq_names[i], sizeof(dev->vq_names[i]), "db.%u", n);
		break;
	case VIRTIO_NET_ROCE_VQ_EQ:
		snprintf(dev->vq_names[i], sizeof(dev->vq_names[i]), "eq.%u", n);
		break;
	default:
		return NULL;
	}
	return dev->vq_names[i];
}

static vq_callback_t *vq_callback(u32 i)
{
	switch (i) {
	case VIRTIO_RDMA_VQ_RX:
		return virtio_rdma_rx_done;
	case VIRTIO_RDMA_VQ_TX:
		return virtio_rdma_tx_done;
	case VIRTIO_RDMA_VQ_CTRL:
		return virtio_rdma_ctrl_done;
	}
	/*
	 * Completion queues and receive queues (an SRQ's limit,
	 * virtio_rdma_srq.c): the caller; send queues: none.
	 */
	return NULL;
}

/*
 * The layout of the spec: receiveq1, transmitq1, controlq at 2N (N = 1),
 * then M completion queues and L send/receive pairs, all set up now: the
 * device binds a CQ or QP number to virtqueues that are enabled and in
 * their initial state (ROCE-DRV-LIFE-1).
 */
static int find_vqs(struct virtio_rdma_dev *dev, u32 k)
{
	u32 n = virtio_net_roce_num_vqs_rings(VIRTIO_RDMA_N_PAIRS,
					      dev->max_rdma_cqs,
					      dev->max_rdma_qps, k);
	u32 first_ring = n - 2 * k;
	u32 first_sq = virtio_net_roce_sq_vq(VIRTIO_RDMA_N_PAIRS,
					     dev->max_rdma_cqs, 0);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	struct virtqueue_info *info;
#else
	vq_callback_t **callbacks;
	const char **names;
#endif
	int ret = -ENOMEM;
	u32 i;

	BUILD_BUG_ON(VIRTIO_RDMA_VQ_CTRL != 2 * VIRTIO_RDMA_N_PAIRS);
	if (n > U16_MAX) {
		dev_err(&dev->vdev->dev, "%u virtqueues: more than virtio-pci has\n",
			n);
		return -EPROTO;
	}
	dev->nvqs = n;
	dev->rings.k = k;
	dev->rings.first_vq = first_ring;
	dev->vqs = kcalloc(n, sizeof(*dev->vqs), GFP_KERNEL);
	dev->vq_names = kcalloc(n, sizeof(*dev->vq_names), GFP_KERNEL);
	if (!dev->vqs || !dev->vq_names)
		goto err_free;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	info = kcalloc(n, sizeof(*info), GFP_KERNEL);
	if (!info)
		goto err_free;
	for (i = 0; i < n; i++) {
		info[i].name = vq_name(dev, i);
		info[i].callback = vq_callback(i);
		if (i > VIRTIO_RDMA_VQ_CTRL && i < first_sq)
			info[i].callback = virtio_rdma_cq_done;
		else if (i >= first_ring && (i - first_ring) % 2)
			info[i].callback = virtio_rdma_eq_done;
		else if (i > first_sq && i < first_ring && (i - first_sq) % 2)
			info[i].callback = virtio_rdma_rq_done;
	}
	ret = virtio_find_vqs(dev->vdev, n, dev->vqs, info, NULL);
	kfree(info);
#else
	callbacks = kcalloc(n, sizeof(*callbacks), GFP_KERNEL);
	names = kcalloc(n, sizeof(*names), GFP_KERNEL);
	if (!callbacks || !names) {
		kfree(callbacks);
		kfree(names);
		goto err_free;
	}
	for (i = 0; i < n; i++) {
		names[i] = vq_name(dev, i);
		callbacks[i] = vq_callback(i);
		if (i > VIRTIO_RDMA_VQ_CTRL && i < first_sq)
			callbacks[i] = virtio_rdma_cq_done;
		else if (i >= first_ring && (i - first_ring) % 2)
			callbacks[i] = virtio_rdma_eq_done;
		else if (i > first_sq && i < first_ring && (i - first_sq) % 2)
			callbacks[i] = virtio_rdma_rq_done;
	}
	ret = virtio_find_vqs(dev->vdev, n, dev->vqs, callbacks, names, NULL);
	kfree(callbacks);
	kfree(names);
#endif
	if (ret) {
		/*
		 * The transport has fewer queues than the configuration
		 * describes (QEMU's generic vhost-user device takes its count
		 * from the user's num_vqs), or no vectors for them: say so,
		 * rather than only "probe failed with error -22".
		 */
		if (k)
			dev_info(&dev->vdev->dev,
				 "%u virtqueues with %u ring queue pairs: %d; the transport has fewer: virtqueues\n",
				 n, k, ret);
		else
			dev_err(&dev->vdev->dev,
				"cannot set up the %u virtqueues the configuration needs (%u pairs, %u CQs, %u QPs): %d; does the device have that many?\n",
				n, VIRTIO_RDMA_N_PAIRS, dev->max_rdma_cqs, dev->max_rdma_qps, ret);
		goto err_free;
	}
	return 0;

err_free:
	kfree(dev->vq_names);
	kfree(dev->vqs);
	dev->vq_names = NULL;
	dev->vqs = NULL;
	dev->rings.k = 0;
	dev->rings.first_vq = 0;
	return ret;
}

/*
 * With the rings layout, the 2K doorbell/event queues after the QP pairs
 * too; a transport without them (fewer queues than the configuration
 * implies) refuses, and the driver falls back to the layout without them.
 */
int virtio_rdma_find_vqs(struct virtio_rdma_dev *dev)
{
	u32 k = virtio_rdma_rings_plan(dev);

	if (k && !find_vqs(dev, k))
		return 0;
	return find_vqs(dev, 0);
}

void virtio_rdma_del_vqs(struct virtio_rdma_dev *dev)
{
	dev->vdev->config->del_vqs(dev->vdev);
	kfree(dev->doorbells);
	kfree(dev->vq_names);
	kfree(dev->vqs);
	dev->doorbells = NULL;
	dev->vq_names = NULL;
	dev->vqs = NULL;
}

/* One virtio vendor capability of the PCI function (virtio 4.1.4). */
struct vpci_cap {
	u8 bar;
	u32 offset;
	u32 length;
	int pos;
};

static bool find_cap(struct pci_dev *pdev, u8 type, struct vpci_cap *cap)
{
	int pos;

	for (pos = pci_find_capability(pdev, PCI_CAP_ID_VNDR); pos > 0;
	     pos = pci_find_next_capability(pdev, pos, PCI_CAP_ID_VNDR)) {
		u8 cfg_type, bar;

		pci_read_config_byte(pdev, pos +
				     offsetof(struct virtio_pci_cap, cfg_type),
				     &cfg_type);
		pci_read_config_byte(pdev, pos +
				     offsetof(struct virtio_pci_cap, bar), &bar);
		/* 4.1.4.1: the first capability of a type the driver can use. */
		if (cfg_type != type || bar >= PCI_STD_NUM_BARS ||
		    !(pci_resource_flags(pdev, bar) & IORESOURCE_MEM))
			continue;
		cap->bar = bar;
		cap->pos = pos;
		pci_read_config_dword(pdev, pos +
				      offsetof(struct virtio_pci_cap, offset),
				      &cap->offset);
		pci_read_config_dword(pdev, pos +
				      offsetof(struct virtio_pci_cap, length),
				      &cap->length);
		if ((u64)cap->offset + cap->length >
		    pci_resource_len(pdev, bar))
			continue;
		return true;
	}
	return false;
}

/*
 * The doorbell of every virtqueue, from the notify capability and each
 * queue's queue_notify_off (virtio 4.1.4.4). virtio_pci keeps these to
 * itself (virtio_pci_common.h is not exported), so the driver reads them
 * again: at probe, after find_vqs and before DRIVER_OK, when nothing else
 * selects queues. A doorbell may be mapped into a process only if its page
 * lies within the notify region and holds no other queue's doorbell (QEMU:
 * page-per-vq). Without that, user QPs are refused.
 */
void virtio_rdma_doorbells_init(struct virtio_rdma_dev *dev)
{
	struct device *parent = dev->vdev->dev.parent;
	struct virtio_pci_common_cfg __iomem *common;
	struct vpci_cap ccap, ncap;
	unsigned long *seen, *shared;
	struct pci_dev *pdev;
	u64 start, end, page;
	u32 mult, i;

	dev->user_doorbells = false;
	if (!parent || !dev_is_pci(parent)) {
		dev_info(&dev->vdev->dev, "not virtio-pci: no user doorbells, no user QPs\n");
		return;
	}
	pdev = to_pci_dev(parent);
	if (!find_cap(pdev, VIRTIO_PCI_CAP_COMMON_CFG, &ccap) ||
	    !find_cap(pdev, VIRTIO_PCI_CAP_NOTIFY_CFG, &ncap) ||
	    ccap.length < sizeof(*common))
		goto no_doorbells;
	pci_read_config_dword(pdev, ncap.pos +
			      offsetof(struct virtio_pci_notify_cap,
				       notify_off_multiplier), &mult);

	dev->doorbells = kcalloc(dev->nvqs, sizeof(*dev->doorbells),
				 GFP_KERNEL);
	seen = bitmap_zalloc(U16_MAX + 1, GFP_KERNEL);
	shared = bitmap_zalloc(U16_MAX + 1, GFP_KERNEL);
	common = pci_iomap_range(pdev, ccap.bar, ccap.offset, sizeof(*common));
	if (!dev->doorbells || !seen || !shared || !common)
		goto out_free;

	start = pci_resource_start(pdev, ncap.bar) + ncap.offset;
	end = start + ncap.length;
	for (i = 0; i < dev->nvqs; i++) {
		u16 off;

		iowrite16(i, &common->queue_select);
		off = ioread16(&common->queue_notify_off);
		dev->doorbells[i].off = off;
		dev->doorbells[i].addr = start + (u64)off * mult;
		page = dev->doorbells[i].addr >> PAGE_SHIFT;
		/* With such a multiplier, equal offsets are a shared page. */
		if (mult % PAGE_SIZE == 0 && mult &&
		    test_and_set_bit(off, seen))
			set_bit(off, shared);
		dev->doorbells[i].own_page =
			mult && mult % PAGE_SIZE == 0 &&
			(page << PAGE_SHIFT) >= start &&
			((page + 1) << PAGE_SHIFT) <= end;
	}
	dev->user_doorbells = true;
	for (i = 0; i < dev->nvqs; i++) {
		if (test_bit(dev->doorbells[i].off, shared))
			dev->doorbells[i].own_page = false;
		if (i > VIRTIO_RDMA_VQ_CTRL + dev->max_rdma_cqs &&
		    !dev->doorbells[i].own_page)
			dev->user_doorbells = false;
	}
	if (!dev->user_doorbells)
		dev_info(&dev->vdev->dev,
			 "notify_off_multiplier %u: doorbells share pages (no page-per-vq): no user QPs\n",
			 mult);

out_free:
	if (common)
		pci_iounmap(pdev, common);
	bitmap_free(shared);
	bitmap_free(seen);
	return;

no_doorbells:
	dev_info(&dev->vdev->dev, "no usable notify capability: no user QPs\n");
}

/*
 * The user queue of RDMA virtqueue @vq_index for a new object: slots of
 * @stride bytes, descriptor i naming slot i (device-writable if @writable),
 * the rings as the device expects a newly bound queue. Called with
 * res_lock held, after the create command bound the queue and before the
 * device can need a buffer.
 */
int virtio_rdma_uq_init(struct virtio_rdma_dev *dev,
			struct virtio_rdma_uq *u, u32 vq_index, u32 stride,
			bool writable)
{
	struct virtio_device *vdev = dev->vdev;
	const struct vring *vr;
	phys_addr_t slots;
	u32 i;

	u->vq = dev->vqs[vq_index];
	vr = virtqueue_get_vring(u->vq);
	u->num = vr->num;
	u->stride = stride;
	u->ring = vr->avail;
	u->used_off = (void *)vr->used - (void *)vr->avail;
	/* The used ring with avail_event after it (VIRTIO_RING_F_EVENT_IDX). */
	u->ring_len = PAGE_ALIGN(u->used_off +
				 struct_size(vr->used, ring, vr->num) +
				 sizeof(__virtio16));
	if (!PAGE_ALIGNED(u->ring) || (size_t)u->num * 16 % PAGE_SIZE)
		return -EOPNOTSUPP;	/* checked at probe */

	u->slots_len = PAGE_ALIGN((size_t)u->num * stride);
	u->slots = alloc_pages_exact(u->slots_len, GFP_KERNEL | __GFP_ZERO);
	if (!u->slots)
		return -ENOMEM;
	slots = virt_to_phys(u->slots);

	for (i = 0; i < u->num; i++) {
		vr->desc[i].addr = cpu_to_virtio64(vdev, slots + (u64)i * stride);
		vr->desc[i].len = cpu_to_virtio32(vdev, stride);
		vr->desc[i].flags = cpu_to_virtio16(vdev, writable ?
						    VRING_DESC_F_WRITE : 0);
		vr->desc[i].next = 0;
	}
	/* A completion queue has every slot available from the start. */
	if (writable) {
		for (i = 0; i < u->num; i++)
			vr->avail->ring[i] = cpu_to_virtio16(vdev, i);
		virtio_wmb(true);
		vr->avail->idx = cpu_to_virtio16(vdev, u->num);
	} else {
		/*
		 * Send and receive queues complete through their CQ: no used
		 * buffer notifications (EVENT_IDX: at most one per 2^16).
		 */
		vr->avail->flags = cpu_to_virtio16(vdev, VRING_AVAIL_F_NO_INTERRUPT);
		vr->avail->ring[u->num] = cpu_to_virtio16(vdev, 0xffff);
	}
	return 0;
}

/*
 * Back to the initial state (ROCE-DRV-LIFE-2) once the object is destroyed
 * at the device: no buffer available, indices and flags zero. The whole
 * mapped range is cleared, so the next owner sees nothing of the last.
 */
void virtio_rdma_uq_reset(struct virtio_rdma_uq *u)
{
	const struct vring *vr = virtqueue_get_vring(u->vq);

	memset(vr->avail, 0, u->ring_len);
	memset(vr->desc, 0, (size_t)u->num * sizeof(*vr->desc));
	virtio_wmb(true);
}

void virtio_rdma_uq_free(struct virtio_rdma_uq *u)
{
	if (u->slots)
		free_pages_exact(u->slots, u->slots_len);
	u->slots = NULL;
}

static struct virtio_rdma_mmap *to_vmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct virtio_rdma_mmap, rdma);
}

static int uq_insert(struct ib_ucontext *uctx, struct virtio_rdma_mmap *m,
		     enum virtio_rdma_mmap_kind kind, phys_addr_t addr,
		     size_t len, struct kref *owner,
		     void (*release)(struct kref *ref), u64 *offset)
{
	int ret;

	m->kind = kind;
	m->addr = addr;
	m->owner = owner;
	m->release = release;
	ret = rdma_user_mmap_entry_insert(uctx, &m->rdma, len);
	if (ret)
		return ret;
	/* The mapping's reference, dropped by mmap_free. */
	kref_get(owner);
	m->inserted = true;
	*offset = rdma_user_mmap_get_offset(&m->rdma);
	return 0;
}

/* uq_insert() for the rings of a CQ on rings (virtio_rdma_ucq_rings.c). */
int virtio_rdma_mmap_insert(struct ib_ucontext *uctx,
			    struct virtio_rdma_mmap *m,
			    enum virtio_rdma_mmap_kind kind, phys_addr_t addr,
			    size_t len, struct kref *owner,
			    void (*release)(struct kref *ref), u64 *offset)
{
	return uq_insert(uctx, m, kind, addr, len, owner, release, offset);
}

/*
 * Offer the queue's ring, slots and (if @doorbell) its doorbell page to the
 * process, and describe them in @resp. Each mapping holds a reference on
 * @owner until its last user is gone (virtio_rdma_mmap_free).
 */
int virtio_rdma_uq_publish(struct virtio_rdma_dev *dev,
			   struct ib_ucontext *uctx, struct virtio_rdma_uq *u,
			   bool doorbell, struct kref *owner,
			   void (*release)(struct kref *ref),
			   struct virtio_rdma_uring *resp)
{
	u32 index = u->vq->index;
	u64 off;
	int ret;

	memset(resp, 0, sizeof(*resp));
	ret = uq_insert(uctx, &u->maps[VIRTIO_RDMA_MMAP_RING],
			VIRTIO_RDMA_MMAP_RING, virt_to_phys(u->ring),
			u->ring_len, owner, release, &off);
	if (ret)
		return ret;
	resp->ring_mmap = off;
	ret = uq_insert(uctx, &u->maps[VIRTIO_RDMA_MMAP_BUF],
			VIRTIO_RDMA_MMAP_BUF, virt_to_phys(u->slots),
			u->slots_len, owner, release, &off);
	if (ret)
		return ret;
	resp->buf_mmap = off;
	if (doorbell) {
		phys_addr_t db = dev->doorbells[index].addr;

		ret = uq_insert(uctx, &u->maps[VIRTIO_RDMA_MMAP_NOTIFY],
				VIRTIO_RDMA_MMAP_NOTIFY, db & PAGE_MASK,
				PAGE_SIZE, owner, release, &off);
		if (ret)
			return ret;
		resp->notify_mmap = off;
		resp->notify_off = offset_in_page(db);
		resp->flags |= VIRTIO_RDMA_URING_DOORBELL;
	}
	resp->ring_len = u->ring_len;
	resp->buf_len = u->slots_len;
	resp->used_off = u->used_off;
	resp->stride = u->stride;
	resp->num = u->num;
	resp->vq_index = index;
	if (virtio_has_feature(dev->vdev, VIRTIO_RING_F_EVENT_IDX))
		resp->flags |= VIRTIO_RDMA_URING_EVENT_IDX;
	return 0;
}

/* The verbs object is gone: no new mapping; existing ones keep theirs. */
void virtio_rdma_uq_unpublish(struct virtio_rdma_uq *u)
{
	int i;

	for (i = 0; i < VIRTIO_RDMA_MMAP_KINDS; i++) {
		if (!u->maps[i].inserted)
			continue;
		u->maps[i].inserted = false;
		rdma_user_mmap_entry_remove(&u->maps[i].rdma);
	}
}

/*
 * What a process may map: only what an object of its own context offered,
 * whole, without execute permission. The ring and the slots are ordinary
 * memory; the doorbell is device memory, uncached.
 */
int virtio_rdma_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	struct virtio_rdma_mmap *m;
	size_t len = vma->vm_end - vma->vm_start;
	pgprot_t prot = vma->vm_page_prot;
	int ret;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	e = rdma_user_mmap_entry_get(uctx, vma);
	if (!e)
		return -EINVAL;
	m = to_vmap(e);
	if (len != e->npages << PAGE_SHIFT) {
		ret = -EINVAL;
		goto out_put;
	}
	if (m->kind == VIRTIO_RDMA_MMAP_NOTIFY)
		prot = pgprot_noncached(prot);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYEXEC);
#else
	vma->vm_flags &= ~VM_MAYEXEC;
#endif
	if (m->kind == VIRTIO_RDMA_MMAP_VMALLOC)	/* virtio_rdma_ring_mr.c */
		ret = remap_vmalloc_range(vma, m->vaddr, 0);
	else
		ret = rdma_user_mmap_io(uctx, vma, PHYS_PFN(m->addr), len,
					prot, e);
out_put:
	rdma_user_mmap_entry_put(e);
	return ret;
}

void virtio_rdma_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct virtio_rdma_mmap *m = to_vmap(e);

	kref_put(m->owner, m->release);
}

/* The completion queue's interrupt: the CQ's completion event. */
void virtio_rdma_cq_done(struct virtqueue *vq)
{
	struct virtio_rdma_dev *dev = vq->vdev->priv;
	u32 cqn = vq->index - virtio_net_roce_cq_vq(VIRTIO_RDMA_N_PAIRS, 0);
	struct virtio_rdma_cq_res *cq;
	unsigned long flags;

	spin_lock_irqsave(&dev->cq_lock, flags);
	cq = cqn < dev->max_rdma_cqs ? dev->cqs[cqn] : NULL;
	if (cq && cq->ibcq && cq->ibcq->comp_handler)
		cq->ibcq->comp_handler(cq->ibcq, cq->ibcq->cq_context);
	spin_unlock_irqrestore(&dev->cq_lock, flags);
}

/*
 * A destroy command that failed (no answer) leaves the device free to use
 * the object's memory: it is kept until the device is reset.
 */
void virtio_rdma_zombie_add(struct virtio_rdma_dev *dev,
			    struct virtio_rdma_zombie *z,
			    void (*free)(struct virtio_rdma_zombie *z))
{
	z->free = free;
	mutex_lock(&dev->zombie_lock);
	list_add_tail(&z->node, &dev->zombies);
	mutex_unlock(&dev->zombie_lock);
}

/*
 * A create command that got no answer (@ret), or the destroy of an object
 * whose number the driver refused: the device may have created it on the
 * rings and record it was given, and may use them until it is reset. The
 * create function then left them in the object; @z keeps it (@free frees
 * its memory and the object) until the reset, as a destroy without an
 * answer does. Returns whether it did; otherwise the caller frees it.
 */
bool virtio_rdma_create_lost(struct virtio_rdma_dev *dev, int ret,
			     const char *what, struct virtio_rdma_zombie *z,
			     void (*free)(struct virtio_rdma_zombie *z))
{
	if (!virtio_rdma_cmd_lost(ret))
		return false;
	dev_warn(&dev->vdev->dev, "%s: create %d, kept until reset\n", what,
		 ret);
	virtio_rdma_zombie_add(dev, z, free);
	return true;
}

/* After the device reset. */
void virtio_rdma_zombies_free(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_zombie *z, *tmp;

	list_for_each_entry_safe(z, tmp, &dev->zombies, node) {
		list_del(&z->node);
		z->free(z);
	}
}
