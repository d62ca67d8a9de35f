// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_rdma: the virtio driver. Feature negotiation, probe and remove,
 * the configuration change notification.
 *
 * The device is a virtio-net device (VIRTIO_ID_NET), so this driver and
 * virtio_net match the same devices; Linux 6.1's virtio bus has no
 * driver_override. A device that does not offer VIRTIO_NET_F_ROCE is
 * refused in validate, before FEATURES_OK, so that virtio_net can still
 * negotiate its own features with it afterwards. See README.md.
 *
 * A device that sets DEVICE_NEEDS_RESET (a vhost-user backend that
 * restarted and lost every RDMA object) is reset and probed again; see
 * virtio_rdma_needs_reset().
 */
#include <linux/device.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_ring.h>
#include <linux/workqueue.h>

#include "virtio_rdma.h"

static struct virtio_driver virtio_rdma_driver;

/* Re-probes of devices that need a reset; drained at module unload. */
static struct workqueue_struct *virtio_rdma_wq;

/*
 * One re-probe: it holds a reference to the virtio device, not to the
 * driver's state, which remove frees.
 */
struct virtio_rdma_reprobe {
	struct work_struct work;
	struct virtio_device *vdev;
};

static unsigned int virtio_rdma_features[] = {
	VIRTIO_NET_F_MAC,
	VIRTIO_NET_F_MTU,
	VIRTIO_NET_F_STATUS,
	VIRTIO_NET_F_SPEED_DUPLEX,
	VIRTIO_NET_F_CTRL_VQ,
	VIRTIO_NET_F_ROCE,
	VIRTIO_NET_F_ROCE_PORT_SPEED,
};

static const struct virtio_device_id virtio_rdma_id_table[] = {
	{ VIRTIO_ID_NET, VIRTIO_DEV_ANY_ID },
	{ 0 },
};

/*
 * Before FEATURES_OK. ROCE-DRV-FEAT-1, -2: RoCE needs the control queue,
 * the port speed needs RoCE. A device without RoCE is not ours.
 */
static int virtio_rdma_validate(struct virtio_device *vdev)
{
	if (!virtio_has_feature(vdev, VIRTIO_F_VERSION_1)) {
		dev_info(&vdev->dev, "legacy device: not a RoCE device\n");
		return -ENODEV;
	}
	if (!virtio_has_feature(vdev, VIRTIO_NET_F_ROCE) ||
	    !virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ)) {
		dev_info(&vdev->dev,
			 "no VIRTIO_NET_F_ROCE with a control queue: left to virtio_net\n");
		return -ENODEV;
	}
	/* Processes drive split rings (<rdma/virtio_rdma-abi.h>). */
	__virtio_clear_bit(vdev, VIRTIO_F_RING_PACKED);
	return 0;
}

/*
 * Whether processes can drive the RDMA virtqueues: the device must use
 * guest-physical addresses (the descriptors name the slots by physical
 * address, the page lists of MRs too; virtio_ring then allocates each ring
 * in pages of its own, at the address it gives the device), and each
 * ring's available and used rings must start on a page of their own and
 * end in pages that hold nothing else: num x 16 bytes of descriptors a
 * multiple of the page size (num >= 256 with 4 KiB pages; QEMU's
 * queue-size is 1024 by default).
 */
static void virtio_rdma_check_rings(struct virtio_rdma_dev *dev)
{
	u32 i;

	dev->user_rings = false;
	if (virtio_has_feature(dev->vdev, VIRTIO_F_ACCESS_PLATFORM)) {
		dev_info(&dev->vdev->dev,
			 "VIRTIO_F_ACCESS_PLATFORM: the device translates addresses; no user CQs and QPs\n");
		return;
	}
	for (i = VIRTIO_RDMA_VQ_CTRL + 1; i < dev->rings.first_vq; i++) {
		const struct vring *vr = virtqueue_get_vring(dev->vqs[i]);

		/* The ring where virt_to_phys() finds it (no DMA remapping). */
		if (!virt_addr_valid(vr->desc) ||
		    virtqueue_get_desc_addr(dev->vqs[i]) !=
		    virt_to_phys(vr->desc)) {
			dev_info(&dev->vdev->dev,
				 "virtqueue %u: not at its physical address: no user CQs and QPs\n",
				 i);
			return;
		}
		if ((size_t)vr->num * sizeof(*vr->desc) % PAGE_SIZE ||
		    !PAGE_ALIGNED(vr->avail)) {
			dev_info(&dev->vdev->dev,
				 "virtqueue %u: size %u, user queues need a multiple of %lu (queue-size 256 or more): no user CQs and QPs\n",
				 i, vr->num, PAGE_SIZE / sizeof(*vr->desc));
			return;
		}
	}
	dev->user_rings = true;
}

static int virtio_rdma_res_init(struct virtio_rdma_dev *dev)
{
	mutex_init(&dev->res_lock);
	mutex_init(&dev->zombie_lock);
	spin_lock_init(&dev->cq_lock);
	spin_lock_init(&dev->qp_lock);
	INIT_LIST_HEAD(&dev->zombies);
	dev->cqs = kcalloc(dev->max_rdma_cqs, sizeof(*dev->cqs), GFP_KERNEL);
	dev->qps = kcalloc(dev->max_rdma_qps, sizeof(*dev->qps), GFP_KERNEL);
	dev->srqs = kcalloc(dev->max_rdma_qps, sizeof(*dev->srqs), GFP_KERNEL);
	return dev->cqs && dev->qps && dev->srqs ? 0 : -ENOMEM;
}

/* ROCE-DEV-CFG-1, -2: the device's queue counts, checked before use. */
static int virtio_rdma_read_limits(struct virtio_rdma_dev *dev)
{
	virtio_cread_le(dev->vdev, struct virtio_net_roce_config, max_rdma_qps,
			&dev->max_rdma_qps);
	virtio_cread_le(dev->vdev, struct virtio_net_roce_config, max_rdma_cqs,
			&dev->max_rdma_cqs);
	if (dev->max_rdma_qps < VIRTIO_NET_ROCE_MIN_QPS ||
	    dev->max_rdma_qps > VIRTIO_NET_ROCE_MAX_QPS ||
	    !dev->max_rdma_cqs || dev->max_rdma_cqs > VIRTIO_NET_ROCE_MAX_CQS) {
		dev_err(&dev->vdev->dev, "max_rdma_qps %u, max_rdma_cqs %u: out of range\n",
			dev->max_rdma_qps, dev->max_rdma_cqs);
		return -EPROTO;
	}
	return 0;
}

/*
 * Unbind and probe again, unless the device was unbound meanwhile (then
 * whichever driver binds it next starts from a reset). device_reprobe()
 * takes the device lock and calls remove: this work is not the device's
 * config_work, which remove cancels and waits for, and it does not touch
 * the driver's state, which remove frees.
 */
static void virtio_rdma_reprobe_work(struct work_struct *work)
{
	struct virtio_rdma_reprobe *r =
		container_of(work, struct virtio_rdma_reprobe, work);
	struct device *d = &r->vdev->dev;
	bool ours;
	int ret;

	device_lock(d);
	ours = d->driver == &virtio_rdma_driver.driver;
	device_unlock(d);
	if (ours) {
		ret = device_reprobe(d);
		if (ret)
			dev_err(d, "probe after the reset: %d\n", ret);
	}
	put_device(d);
	kfree(r);
}

/*
 * ROCE-DRV-INIT-2: DEVICE_NEEDS_RESET means the device lost the RDMA
 * objects (a vhost-user backend that restarted: QEMU's vhost-user-rdma
 * sets it, ROCE-DEV-INIT-3), while ib_core, processes and the RDMA
 * virtqueues still hold them. Nothing of them can be repaired in place,
 * so the device goes away and comes back as after a hot unplug and plug:
 *
 * - the virtqueues are broken first: every control command fails at once
 *   with -EIO (one that waits is woken) instead of waiting for its
 *   timeout, so the teardown below sends nothing that could hang;
 * - the device is reset: it touches no memory of the objects from then on,
 *   and the driver sends no more commands (dead), so destroy frees what it
 *   frees without asking the device;
 * - a work item outside the device's state re-probes it: remove
 *   unregisters the ib_device (ib_core disassociates each user context:
 *   its mappings are zapped, its objects destroyed, and its process gets
 *   IB_EVENT_DEVICE_FATAL, then EIO) and the netdev, and probe brings up
 *   a new netdev and ib_device (virtio_rdma%d, the lowest free number: the
 *   same name when there is one device). The netdev's addresses go with
 *   the old netdev, like after a hot plug: userspace configures it again,
 *   and ib_core fills the new GID table from them.
 *
 * Returns whether the device needs a reset (the caller then leaves it
 * alone). Called from config_work only, so once per notification.
 */
bool virtio_rdma_needs_reset(struct virtio_rdma_dev *dev)
{
	struct virtio_device *vdev = dev->vdev;
	struct virtio_rdma_reprobe *r;

	if (dev->needs_reset)
		return true;
	if (!(vdev->config->get_status(vdev) & VIRTIO_CONFIG_S_NEEDS_RESET))
		return false;
	dev->needs_reset = true;
	dev_warn(&vdev->dev,
		 "device needs a reset: its RDMA objects are lost; resetting and probing again\n");

	virtio_break_device(vdev);
	complete(&dev->ctrl.done);
	virtio_reset_device(vdev);
	WRITE_ONCE(dev->dead, true);

	/* Without memory the device stays reset: unbind and bind it by hand. */
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return true;
	INIT_WORK(&r->work, virtio_rdma_reprobe_work);
	r->vdev = vdev;
	get_device(&vdev->dev);
	queue_work(virtio_rdma_wq, &r->work);
	return true;
}

static void virtio_rdma_config_changed(struct virtio_device *vdev)
{
	struct virtio_rdma_dev *dev = vdev->priv;

	spin_lock(&dev->ready_lock);
	if (dev->ready)
		schedule_work(&dev->config_work);
	spin_unlock(&dev->ready_lock);
}

static void virtio_rdma_set_ready(struct virtio_rdma_dev *dev, bool ready)
{
	spin_lock_irq(&dev->ready_lock);
	dev->ready = ready;
	spin_unlock_irq(&dev->ready_lock);
}

static int virtio_rdma_probe(struct virtio_device *vdev)
{
	struct virtio_rdma_dev *dev;
	int ret;

	dev = ib_alloc_device(virtio_rdma_dev, ib);
	if (!dev)
		return -ENOMEM;
	dev->vdev = vdev;
	vdev->priv = dev;
	dev->has_port_speed = virtio_has_feature(vdev,
						 VIRTIO_NET_F_ROCE_PORT_SPEED);
	spin_lock_init(&dev->ready_lock);
	mutex_init(&dev->port.lock);
	INIT_WORK(&dev->config_work, virtio_rdma_config_work);

	ret = virtio_rdma_read_limits(dev);
	if (ret)
		goto err_dealloc_ib;
	ret = virtio_rdma_res_init(dev);
	if (ret)
		goto err_dealloc_ib;
	ret = virtio_rdma_ctrl_init(dev);
	if (ret)
		goto err_free_ctrl;
	dev->netdev = virtio_rdma_netdev_alloc(dev);
	if (!dev->netdev) {
		ret = -ENOMEM;
		goto err_free_ctrl;
	}
	ret = virtio_rdma_find_vqs(dev);
	if (ret)
		goto err_free_netdev;
	/* Before DRIVER_OK: it selects queues in the common configuration. */
	virtio_rdma_doorbells_init(dev);
	virtio_rdma_check_rings(dev);

	/* ROCE-DRV-INIT-1: RoCE commands only after DRIVER_OK. */
	virtio_device_ready(vdev);

	ret = virtio_rdma_dev_attr_init(dev);
	if (ret)
		goto err_del_vqs;
	ret = virtio_rdma_rings_init(dev);
	if (ret)
		goto err_del_vqs;
	ret = virtio_rdma_port_init(dev);
	if (ret)
		goto err_del_vqs;
	ret = virtio_rdma_netdev_register(dev);
	if (ret)
		goto err_del_vqs;
	ret = virtio_rdma_ib_register(dev);
	if (ret)
		goto err_unregister_netdev;

	/*
	 * From here on each configuration change is followed. Catch up once:
	 * what changed since port_init, and the carrier of the netdev.
	 */
	virtio_rdma_set_ready(dev, true);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	/*
	 * virtio_net turns the driver's configuration change reporting off
	 * until its netdev is opened and again at close, in the virtio_device,
	 * where it stays when virtio_net is unbound: enable it for this driver.
	 */
	virtio_config_driver_enable(vdev);
#endif
	schedule_work(&dev->config_work);

	dev_info(&vdev->dev, "%s on %s: %pM, %u QPs, %u CQs, speed %s, user queues %s\n",
		 dev_name(&dev->ib.dev), netdev_name(dev->netdev),
		 dev->netdev->dev_addr, dev->max_rdma_qps, dev->max_rdma_cqs,
		 dev->has_port_speed ? "feature" : "not offered",
		 !dev->user_rings ? "no" : dev->user_doorbells ? "yes" :
		 "CQs only");
	return 0;

err_unregister_netdev:
	virtio_rdma_netdev_unregister(dev);
err_del_vqs:
	virtio_reset_device(vdev);
	virtio_rdma_netdev_free_bufs(dev);
	virtio_rdma_ctrl_detach(dev);
	virtio_rdma_rings_free(dev);
	virtio_rdma_del_vqs(dev);
err_free_netdev:
	free_netdev(dev->netdev);
err_free_ctrl:
	virtio_rdma_ctrl_free(dev);
err_dealloc_ib:
	kfree(dev->srqs);
	kfree(dev->qps);
	kfree(dev->cqs);
	ib_dealloc_device(&dev->ib);
	return ret;
}

static void virtio_rdma_remove(struct virtio_device *vdev)
{
	struct virtio_rdma_dev *dev = vdev->priv;

	virtio_rdma_set_ready(dev, false);
	cancel_work_sync(&dev->config_work);
	/* Deletes the GIDs with DEL_GID while the device still answers. */
	virtio_rdma_ib_unregister(dev);
	virtio_rdma_netdev_unregister(dev);

	/*
	 * ib_core destroyed every object of every context above, while the
	 * device answered; what is left is memory whose destroy command got
	 * no answer, free once the device is reset.
	 */
	virtio_reset_device(vdev);
	dev->dead = true;
	virtio_rdma_zombies_free(dev);
	virtio_rdma_netdev_free_bufs(dev);
	virtio_rdma_ctrl_detach(dev);
	virtio_rdma_rings_free(dev);
	virtio_rdma_del_vqs(dev);

	free_netdev(dev->netdev);
	virtio_rdma_ctrl_free(dev);
	kfree(dev->srqs);
	kfree(dev->qps);
	kfree(dev->cqs);
	ib_dealloc_device(&dev->ib);
}

static struct virtio_driver virtio_rdma_driver = {
	.driver.name = KBUILD_MODNAME,
	.driver.owner = THIS_MODULE,
	.id_table = virtio_rdma_id_table,
	.feature_table = virtio_rdma_features,
	.feature_table_size = ARRAY_SIZE(virtio_rdma_features),
	.validate = virtio_rdma_validate,
	.probe = virtio_rdma_probe,
	.remove = virtio_rdma_remove,
	.config_changed = virtio_rdma_config_changed,
};

static int __init virtio_rdma_init(void)
{
	int ret;

	/*
	 * Unbound: a re-probe sleeps and needs no particular CPU; 7.x warns
	 * about a workqueue that says neither WQ_UNBOUND nor WQ_PERCPU.
	 */
	virtio_rdma_wq = alloc_workqueue("virtio_rdma", WQ_UNBOUND, 0);
	if (!virtio_rdma_wq)
		return -ENOMEM;
	ret = register_virtio_driver(&virtio_rdma_driver);
	if (ret)
		destroy_workqueue(virtio_rdma_wq);
	return ret;
}

/*
 * The driver first: no device is bound after it, so a re-probe still
 * queued finds none of ours and does nothing; then the queue is drained
 * before the module's code goes.
 */
static void __exit virtio_rdma_exit(void)
{
	unregister_virtio_driver(&virtio_rdma_driver);
	destroy_workqueue(virtio_rdma_wq);
}

module_init(virtio_rdma_init);
module_exit(virtio_rdma_exit);
MODULE_DEVICE_TABLE(virtio, virtio_rdma_id_table);
MODULE_DESCRIPTION("virtio-net RoCE device: netdev and RDMA (ib_device)");
MODULE_LICENSE("GPL");
