// SPDX-License-Identifier: GPL-2.0
/*
 * The rings layout (VIRTIO_IB_DEVICE_RINGS): its set-up. The module
 * parameter layout chooses it; the device must report the capability and
 * rdma_ring_queues K > 0, and the transport must really have the 2K
 * queues after the QP pairs (the generic vhost-user device takes its
 * count from the user's num_vqs): find_vqs asks for them and, if the
 * transport refuses, falls back to the K = 0 layout of older drivers.
 *
 * At probe, after RESET_OBJECTS: a PD and its DMA MR of the driver's own
 * (the device reaches kernel memory through it, as kernel consumers'
 * WRs do with local_dma_lkey), the doorbell area in pages of its own,
 * buffers on every event queue, then SETUP_RINGS. A device reset or
 * RESET_OBJECTS forgets all of it, so it lives until remove resets the
 * device (ROCE-DRV-RING-5).
 *
 * The doorbell queues carry no buffers: a notification of one says "its
 * summary changed" (virtio_rdma_doorbell_ring). The event queues carry
 * device-writable struct virtio_rdma_event buffers (virtio_rdma_eq.c).
 */
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/virtio_config.h>

#include "virtio_rdma.h"

/*
 * auto: rings when the device offers them (issue 28: far fewer queues and
 * vectors, deeper queues), else RFC v2's virtqueues; rings behaves the same
 * and virtqueues keeps the older layout on a device that has both.
 */
static char *layout = "auto";
module_param(layout, charp, 0444);
MODULE_PARM_DESC(layout,
		 "RDMA queue layout: auto (default: rings when the device has them, else virtqueues), rings (the same) or virtqueues (never rings); ports/1/layout shows the one chosen");

/* One pair per CPU is enough: each queue is a device thread's doorbell. */
#define VIRTIO_RDMA_MAX_RING_QUEUES	8

static bool layout_is(const char *name)
{
	return layout && sysfs_streq(layout, name);
}

/*
 * How many doorbell/event pairs find_vqs asks for: 0 keeps the layout of
 * older drivers (those queues need not be set up, spec "Rings in Driver
 * Memory").
 */
u32 virtio_rdma_rings_plan(struct virtio_rdma_dev *dev)
{
	u16 k;

	if (!layout_is("rings") && !layout_is("auto")) {
		if (!layout_is("virtqueues"))
			dev_warn(&dev->vdev->dev,
				 "layout=%s: not auto, virtqueues or rings; virtqueues\n",
				 layout);
		return 0;
	}
	if (virtio_has_feature(dev->vdev, VIRTIO_F_ACCESS_PLATFORM)) {
		dev_info(&dev->vdev->dev,
			 "VIRTIO_F_ACCESS_PLATFORM: rings need physical addresses; virtqueues\n");
		return 0;
	}
	virtio_cread_le(dev->vdev, struct virtio_net_roce_config,
			rdma_ring_queues, &k);
	dev->rings.k_dev = k;
	return min3((u32)k, num_online_cpus(), (u32)VIRTIO_RDMA_MAX_RING_QUEUES);
}

static int rings_pd_mr(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_ack_create_pd pd_ack;
	struct virtio_rdma_cmd_get_dma_mr mr_cmd = {
		.access_flags = cpu_to_le32(VIRTIO_IB_ACCESS_LOCAL_WRITE),
	};
	struct virtio_rdma_ack_get_dma_mr mr_ack;
	struct virtio_rdma_cmd_destroy_pd pd_cmd;
	int ret;

	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0,
				   &pd_ack, sizeof(pd_ack));
	if (ret)
		return ret;
	mr_cmd.pdn = pd_ack.pdn;
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_GET_DMA_MR,
				   &mr_cmd, sizeof(mr_cmd), &mr_ack,
				   sizeof(mr_ack));
	if (ret) {
		pd_cmd.pdn = pd_ack.pdn;
		virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_PD,
				     &pd_cmd, sizeof(pd_cmd), NULL, 0);
		return ret;
	}
	r->pdn = le32_to_cpu(pd_ack.pdn);
	r->mrn = le32_to_cpu(mr_ack.mrn);
	r->lkey = le32_to_cpu(mr_ack.lkey);
	return 0;
}

/* Whether the device offers what find_vqs set up queues for. */
static bool rings_offered(struct virtio_rdma_dev *dev)
{
	const struct virtio_rdma_ack_query_device *a = &dev->attr;

	/* ROCE-DRV-RING-1 */
	if (!(le64_to_cpu(a->device_cap_flags) & VIRTIO_IB_DEVICE_RINGS)) {
		dev_info(&dev->vdev->dev,
			 "rdma_ring_queues %u without VIRTIO_IB_DEVICE_RINGS: virtqueues\n",
			 dev->rings.k);
		return false;
	}
	if (!le32_to_cpu(a->max_ring_qp) || !le32_to_cpu(a->max_ring_cq) ||
	    !le32_to_cpu(a->max_ring_wr) || !le32_to_cpu(a->max_ring_cqe)) {
		dev_warn(&dev->vdev->dev,
			 "RINGS with max_ring_qp %u, max_ring_cq %u, max_ring_wr %u, max_ring_cqe %u: virtqueues\n",
			 le32_to_cpu(a->max_ring_qp), le32_to_cpu(a->max_ring_cq),
			 le32_to_cpu(a->max_ring_wr), le32_to_cpu(a->max_ring_cqe));
		return false;
	}
	return true;
}

/*
 * After QUERY_DEVICE (which followed RESET_OBJECTS). A failure leaves the
 * driver on virtqueues: the ring queues stay set up and unused, which the
 * device allows.
 */
int virtio_rdma_rings_init(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_rings *r = &dev->rings;
	const struct virtio_rdma_ack_query_device *a = &dev->attr;
	struct virtio_rdma_cmd_setup_rings cmd = {};
	struct virtio_rdma_cmd_dereg_mr dereg;
	struct virtio_rdma_cmd_destroy_pd dpd;
	int ret;

	if (!r->k || !rings_offered(dev))
		return 0;
	r->max_ring_qp = le32_to_cpu(a->max_ring_qp);
	r->max_ring_cq = le32_to_cpu(a->max_ring_cq);
	r->max_ring_wr = le32_to_cpu(a->max_ring_wr);
	r->max_ring_cqe = le32_to_cpu(a->max_ring_cqe);
	r->db_stride = virtio_rdma_doorbell_size(dev->max_rdma_qps,
						 r->max_ring_qp);
	/* Summaries for all K the device has (it scans them all), used or not. */
	r->db_len = PAGE_ALIGN((size_t)r->db_stride * r->k_dev);
	r->db = alloc_pages_exact(r->db_len, GFP_KERNEL | __GFP_ZERO);
	if (!r->db)
		return -ENOMEM;
	ret = virtio_rdma_eqs_init(dev);
	if (ret)
		goto err_free;
	ret = rings_pd_mr(dev);
	if (ret)
		goto err_eqs;
	cmd.addr = cpu_to_le64(virt_to_phys(r->db));
	cmd.lkey = cpu_to_le32(r->lkey);
	ret = virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_SETUP_RINGS, &cmd,
				   sizeof(cmd), NULL, 0);
	if (ret)
		goto err_mr;
	r->on = true;
	dev_info(&dev->vdev->dev,
		 "rings: %u doorbell/event queue pairs, %u QPs, %u CQs, %u WRs, %u CQEs\n",
		 r->k, r->max_ring_qp, r->max_ring_cq, r->max_ring_wr,
		 r->max_ring_cqe);
	return 0;

err_mr:
	dereg.mrn = cpu_to_le32(r->mrn);
	virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DEREG_MR, &dereg,
			     sizeof(dereg), NULL, 0);
	dpd.pdn = cpu_to_le32(r->pdn);
	virtio_rdma_roce_cmd(dev, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &dpd,
			     sizeof(dpd), NULL, 0);
err_eqs:
	/*
	 * The device may hold the event buffers until it is reset: they stay
	 * until remove (virtio_rdma_rings_free) rather than being freed here.
	 */
err_free:
	dev_warn(&dev->vdev->dev, "rings: set-up failed (%d): virtqueues\n",
		 ret);
	return 0;
}

/* After the device reset of remove or of a failed probe. */
void virtio_rdma_rings_free(struct virtio_rdma_dev *dev)
{
	struct virtio_rdma_rings *r = &dev->rings;

	virtio_rdma_eqs_free(dev);
	if (r->db)
		free_pages_exact(r->db, r->db_len);
	r->db = NULL;
	r->on = false;
}

/*
 * ROCE-DRV-RING-3 and -7, the summary half: the QP's bit with an atomic
 * OR, a full barrier (pairs with the device's: it sets sleeping, fence,
 * takes the bits; one of the two sees the other's store), then a
 * notification only if the device thread sleeps. A spurious bit only
 * costs the device a scan (ROCE-DEV-RING-14).
 */
void virtio_rdma_doorbell_ring(struct virtio_rdma_dev *dev, u16 dbq, u32 qpn)
{
	struct virtio_rdma_rings *r = &dev->rings;
	struct virtio_rdma_doorbell *s = (void *)((u8 *)r->db +
						  (size_t)dbq * r->db_stride);

	/* Little-endian bit numbering of the __le64 words, as the spec says. */
	set_bit_le(qpn % 64, &s->bits[qpn / 64]);
	smp_mb__after_atomic();
	if (READ_ONCE(s->sleeping))
		virtqueue_notify(dev->vqs[r->first_vq + 2 * dbq]);
}
