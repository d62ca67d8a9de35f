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
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>

#include "virtio_rdma.h"

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
	return 0;
}

/* The layout of the spec: receiveq1, transmitq1, controlq at 2N (N = 1). */
static int virtio_rdma_find_vqs(struct virtio_rdma_dev *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	struct virtqueue_info info[VIRTIO_RDMA_NR_VQS] = {
		[VIRTIO_RDMA_VQ_RX] = { "input.0", virtio_rdma_rx_done },
		[VIRTIO_RDMA_VQ_TX] = { "output.0", virtio_rdma_tx_done },
		[VIRTIO_RDMA_VQ_CTRL] = { "control", virtio_rdma_ctrl_done },
	};

	BUILD_BUG_ON(VIRTIO_RDMA_VQ_CTRL != 2 * 1);
	return virtio_find_vqs(dev->vdev, VIRTIO_RDMA_NR_VQS, dev->vqs, info,
			       NULL);
#else
	static const char * const names[VIRTIO_RDMA_NR_VQS] = {
		[VIRTIO_RDMA_VQ_RX] = "input.0",
		[VIRTIO_RDMA_VQ_TX] = "output.0",
		[VIRTIO_RDMA_VQ_CTRL] = "control",
	};
	vq_callback_t *callbacks[VIRTIO_RDMA_NR_VQS] = {
		[VIRTIO_RDMA_VQ_RX] = virtio_rdma_rx_done,
		[VIRTIO_RDMA_VQ_TX] = virtio_rdma_tx_done,
		[VIRTIO_RDMA_VQ_CTRL] = virtio_rdma_ctrl_done,
	};

	BUILD_BUG_ON(VIRTIO_RDMA_VQ_CTRL != 2 * 1);
	return virtio_find_vqs(dev->vdev, VIRTIO_RDMA_NR_VQS, dev->vqs,
			       callbacks, names, NULL);
#endif
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

	/* ROCE-DRV-INIT-1: RoCE commands only after DRIVER_OK. */
	virtio_device_ready(vdev);

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
	schedule_work(&dev->config_work);

	dev_info(&vdev->dev, "%s on %s: %pM, %u QPs, %u CQs, speed %s\n",
		 dev_name(&dev->ib.dev), netdev_name(dev->netdev),
		 dev->netdev->dev_addr, dev->max_rdma_qps, dev->max_rdma_cqs,
		 dev->has_port_speed ? "feature" : "not offered");
	return 0;

err_unregister_netdev:
	virtio_rdma_netdev_unregister(dev);
err_del_vqs:
	virtio_reset_device(vdev);
	virtio_rdma_netdev_free_bufs(dev);
	virtio_rdma_ctrl_detach(dev);
	vdev->config->del_vqs(vdev);
err_free_netdev:
	free_netdev(dev->netdev);
err_free_ctrl:
	virtio_rdma_ctrl_free(dev);
err_dealloc_ib:
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

	virtio_reset_device(vdev);
	virtio_rdma_netdev_free_bufs(dev);
	virtio_rdma_ctrl_detach(dev);
	vdev->config->del_vqs(vdev);

	free_netdev(dev->netdev);
	virtio_rdma_ctrl_free(dev);
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

module_virtio_driver(virtio_rdma_driver);
MODULE_DEVICE_TABLE(virtio, virtio_rdma_id_table);
MODULE_DESCRIPTION("virtio-net RoCE device: netdev and RDMA (ib_device)");
MODULE_LICENSE("GPL");
