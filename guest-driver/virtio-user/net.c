/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet frames on receiveq1 and transmitq1 (virtio 5.1.6.2-4).
 *
 * Each queue has a fixed set of slots in driver memory, one descriptor per
 * slot: transmit slots hold a header and a frame until the device returns
 * them; receive slots are all posted, and each is reposted as soon as its
 * frame is copied out. What the device writes (used length, header,
 * num_buffers) is checked before use.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "clock.h"
#include "device.h"
#include "log.h"
#include "net.h"
#include "virtqueue.h"

#define RX_VQ           0 /* receiveq1 */
#define TX_VQ           1 /* transmitq1 */
#define ETH_HLEN        14
#define VLAN_TAGS_LEN   8
#define DEFAULT_MTU     1500
#define MRG_RX_SLOT     2048
#define SLOT_ALIGN      64
#define ALIGN_UP(x, a)  (((x) + (a)-1) / (a) * (a))
#define COOKIE(slot)    ((void *)(uintptr_t)((slot) + 1))
#define SLOT_OF(cookie) ((uint16_t)((uintptr_t)(cookie)-1))

static int
post_rx(struct vur_user_dev *d, uint16_t slot)
{
	struct vuser_net *n = &d->net;
	struct vuser_sg sg = { n->rx_mem.gpa + (uint64_t)slot * n->rx_slot, n->rx_slot };
	int ret = vuser_vring_add(&d->vqs[RX_VQ].ring, &sg, 0, 1, COOKIE(slot));

	return ret < 0 ? ret : 0;
}

static int
publish(struct vuser_vq *vq)
{
	return vuser_vring_publish(&vq->ring) ? vuser_vq_kick(vq) : 0;
}

int
vuser_net_init(struct vur_user_dev *d, uint16_t mtu)
{
	struct vuser_net *n = &d->net;
	int ret;

	pthread_mutex_init(&n->tx_lock, NULL);
	pthread_mutex_init(&n->rx_lock, NULL);
	n->mrg_rxbuf = vuser_dev_has(d, VIRTIO_NET_F_MRG_RXBUF);
	n->hdr_len = n->mrg_rxbuf || vuser_dev_has(d, VIRTIO_F_VERSION_1)
			? sizeof(struct virtio_net_hdr_mrg_rxbuf)
			: sizeof(struct virtio_net_hdr);
	n->max_frame = (mtu != 0 ? mtu : DEFAULT_MTU) + ETH_HLEN + VLAN_TAGS_LEN;
	n->n_tx = n->n_rx = d->params.net_queue_size;
	n->tx_slot = ALIGN_UP(n->hdr_len + n->max_frame, SLOT_ALIGN);
	n->rx_slot = d->params.net_rx_buf_size;
	if (n->rx_slot == 0)
		n->rx_slot = n->mrg_rxbuf ? MRG_RX_SLOT : n->tx_slot;
	/* 5.1.6.3.1: a buffer holds at least the header (and a whole frame unmerged). */
	if (n->rx_slot < n->hdr_len || (!n->mrg_rxbuf && n->rx_slot < n->hdr_len + n->max_frame)) {
		VUSER_LOG(ERR, d->name, "receive buffers of %u bytes are too small", n->rx_slot);
		return -EINVAL;
	}
	/*
	 * Receive buffers now, so that frames sent before the first receive
	 * wait in the ring. Without the memory for them the device still
	 * opens, for RDMA, and the Ethernet calls say -ENOMEM.
	 */
	ret = vuser_mem_alloc(&d->mem, (size_t)n->n_rx * n->rx_slot, VUSER_PAGE_SIZE, &n->rx_mem);
	if (ret < 0) {
		VUSER_LOG(WARNING, d->name,
				"no driver memory for %u receive buffers of %u bytes: "
				"no Ethernet frames on this device",
				n->n_rx, n->rx_slot);
		return 0;
	}
	for (uint16_t i = 0; ret == 0 && i < n->n_rx; i++)
		ret = post_rx(d, i);
	if (ret == 0)
		ret = publish(&d->vqs[RX_VQ]);
	if (ret < 0)
		VUSER_LOG(ERR, d->name, "receive buffers: %s", strerror(-ret));
	return ret;
}

/* Transmit slots on the first send: a device used for RDMA only never pays for them. */
static int
alloc_tx(struct vur_user_dev *d)
{
	struct vuser_net *n = &d->net;
	int ret;

	n->tx_free = calloc(n->n_tx, sizeof(*n->tx_free));
	if (n->tx_free == NULL)
		return -ENOMEM;
	ret = vuser_mem_alloc(&d->mem, (size_t)n->n_tx * n->tx_slot, VUSER_PAGE_SIZE, &n->tx_mem);
	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "no driver memory for %u transmit slots of %u bytes",
				n->n_tx, n->tx_slot);
		free(n->tx_free);
		n->tx_free = NULL;
		return ret;
	}
	for (uint16_t i = 0; i < n->n_tx; i++)
		n->tx_free[n->n_tx_free++] = i;
	return 0;
}

void
vuser_net_fini(struct vur_user_dev *d)
{
	struct vuser_net *n = &d->net;

	if (n->tx_mem.hva != NULL)
		vuser_mem_free(&d->mem, &n->tx_mem);
	if (n->rx_mem.hva != NULL)
		vuser_mem_free(&d->mem, &n->rx_mem);
	free(n->tx_free);
	pthread_mutex_destroy(&n->tx_lock);
	pthread_mutex_destroy(&n->rx_lock);
	memset(n, 0, sizeof(*n));
}

/* Take back what the device has sent. */
static int
reclaim_tx(struct vur_user_dev *d)
{
	struct vuser_net *n = &d->net;
	void *cookie;
	uint32_t len;
	int ret;

	while ((ret = vuser_vring_get_used(&d->vqs[TX_VQ].ring, &cookie, &len)) == 1)
		n->tx_free[n->n_tx_free++] = SLOT_OF(cookie);
	return ret;
}

/* Wait for the device to use something on @vq, until @deadline. */
static int
wait_call(struct vuser_vq *vq, int64_t deadline)
{
	struct pollfd pfd = { .fd = vq->call_fd, .events = POLLIN };
	int64_t left = deadline - vuser_now_ms();
	uint64_t count;
	int ret;

	if (left <= 0)
		return -ETIMEDOUT;
	ret = poll(&pfd, 1, (int)left);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret > 0 && read(vq->call_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static int
get_tx_slot(struct vur_user_dev *d, uint16_t *slot)
{
	struct vuser_vq *vq = &d->vqs[TX_VQ];
	int64_t deadline = vuser_now_ms() + d->params.timeout_ms;
	int ret;

	for (;;) {
		ret = reclaim_tx(d);
		if (ret < 0)
			return -EIO;
		if (d->net.n_tx_free > 0) {
			*slot = d->net.tx_free[--d->net.n_tx_free];
			/* Completions are reclaimed on the next send: no interrupts. */
			vuser_vring_disable_notify(&vq->ring);
			return 0;
		}
		if (vuser_vring_enable_notify(&vq->ring))
			continue;
		ret = wait_call(vq, deadline);
		if (ret < 0)
			return ret;
	}
}

/* Post @hdr then @data, copied into one slot, as one descriptor. */
static int
post_tx(struct vur_user_dev *d, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
	struct vuser_net *n = &d->net;
	struct vuser_sg sg;
	uint8_t *p;
	uint16_t slot;
	int ret;

	if (hdr_len + len > n->tx_slot)
		return -EMSGSIZE;
	pthread_mutex_lock(&n->tx_lock);
	ret = n->tx_mem.hva != NULL ? 0 : alloc_tx(d);
	if (ret == 0)
		ret = get_tx_slot(d, &slot);
	if (ret == 0) {
		p = (uint8_t *)n->tx_mem.hva + (size_t)slot * n->tx_slot;
		if (hdr_len > 0)
			memcpy(p, hdr, hdr_len);
		memcpy(p + hdr_len, data, len);
		sg.addr = n->tx_mem.gpa + (uint64_t)slot * n->tx_slot;
		sg.len = (uint32_t)(hdr_len + len);
		ret = vuser_vring_add(&d->vqs[TX_VQ].ring, &sg, 1, 0, COOKIE(slot));
		if (ret < 0)
			n->tx_free[n->n_tx_free++] = slot;
		else
			ret = publish(&d->vqs[TX_VQ]);
	}
	if (ret == 0)
		n->stats.tx_frames++;
	pthread_mutex_unlock(&n->tx_lock);
	return ret;
}

int
vuser_net_send_raw(struct vur_user_dev *d, const void *data, size_t len)
{
	return post_tx(d, NULL, 0, data, len);
}

int
vur_user_net_send(struct vur_user_dev *d, const void *frame, size_t len)
{
	/* 5.1.6.2.1: no offload asked for, so flags 0 and GSO_NONE. */
	static const struct virtio_net_hdr_mrg_rxbuf hdr;

	if (d == NULL || frame == NULL || len < ETH_HLEN)
		return -EINVAL;
	if (len > d->net.max_frame)
		return -EMSGSIZE;
	return post_tx(d, &hdr, d->net.hdr_len, frame, len);
}

/* The next used receive buffer: 1 with its slot and length, 0 if none, -EIO. */
static int
next_rx(struct vur_user_dev *d, uint16_t *slot, uint32_t *len)
{
	void *cookie;
	int ret = vuser_vring_get_used(&d->vqs[RX_VQ].ring, &cookie, len);

	if (ret < 0) {
		VUSER_LOG(ERR, d->name, "receive queue broken: %s",
				d->vqs[RX_VQ].ring.broken_reason);
		return -EIO;
	}
	if (ret == 1)
		*slot = SLOT_OF(cookie);
	return ret;
}

/*
 * Copy out the frame that starts in @slot (@len bytes used) and its merged
 * buffers, reposting each. Returns the frame's length, or -EMSGSIZE,
 * -EPROTO, -EIO.
 */
static int
take_frame(struct vur_user_dev *d, uint16_t slot, uint32_t len, uint8_t *buf, size_t cap)
{
	struct vuser_net *n = &d->net;
	struct virtio_net_hdr_mrg_rxbuf hdr;
	const uint8_t *p = (const uint8_t *)n->rx_mem.hva + (size_t)slot * n->rx_slot;
	uint32_t nb = 1, off = n->hdr_len;
	size_t total = 0, k;
	int ret = 0;

	/* The used length was checked against the buffer by the ring. */
	if (len < n->hdr_len) {
		VUSER_LOG(ERR, d->name, "receive buffer of %u bytes: no room for the header", len);
		n->stats.rx_errors++;
		return post_rx(d, slot) < 0 ? -EIO : -EPROTO;
	}
	memcpy(&hdr, p, n->hdr_len);
	if (n->mrg_rxbuf)
		nb = le16toh(hdr.num_buffers);
	if (nb == 0 || nb > n->n_rx) {
		VUSER_LOG(ERR, d->name, "num_buffers %u with %u buffers posted", nb, n->n_rx);
		n->stats.rx_errors++;
		return post_rx(d, slot) < 0 ? -EIO : -EPROTO;
	}
	for (k = 0; k < nb; k++) {
		if (k > 0) {
			/* The device publishes a frame's buffers together (5.1.6.4). */
			ret = next_rx(d, &slot, &len);
			if (ret <= 0) {
				VUSER_LOG(ERR, d->name, "frame of %u buffers: only %zu used", nb,
						k);
				n->stats.rx_errors++;
				return ret < 0 ? ret : -EPROTO;
			}
			p = (const uint8_t *)n->rx_mem.hva + (size_t)slot * n->rx_slot;
			off = 0;
		}
		if (total + (len - off) <= cap)
			memcpy(buf + total, p + off, len - off);
		total += len - off;
		if (post_rx(d, slot) < 0)
			return -EIO;
	}
	n->stats.rx_buffers += nb;
	if (total > cap)
		return -EMSGSIZE;
	n->stats.rx_frames++;
	return (int)total;
}

int
vur_user_net_recv(struct vur_user_dev *d, void *buf, size_t cap, int timeout_ms)
{
	struct vuser_vq *vq;
	int64_t deadline;
	uint32_t len;
	uint16_t slot;
	int ret;

	if (d == NULL || buf == NULL || timeout_ms < 0)
		return -EINVAL;
	if (d->net.rx_mem.hva == NULL)
		return -ENOMEM;
	vq = &d->vqs[RX_VQ];
	deadline = vuser_now_ms() + timeout_ms;
	pthread_mutex_lock(&d->net.rx_lock);
	for (;;) {
		ret = next_rx(d, &slot, &len);
		if (ret == 1) {
			ret = take_frame(d, slot, len, buf, cap);
			if (publish(vq) < 0 && ret >= 0)
				ret = -EIO;
			/* While frames keep coming, the next call finds them without a wake-up. */
			vuser_vring_disable_notify(&vq->ring);
			break;
		}
		if (ret < 0)
			break;
		if (vuser_vring_enable_notify(&vq->ring))
			continue;
		ret = wait_call(vq, deadline);
		if (ret < 0)
			break;
	}
	pthread_mutex_unlock(&d->net.rx_lock);
	return ret;
}

void
vur_user_net_stats(struct vur_user_dev *d, struct vur_user_net_stats *st)
{
	pthread_mutex_lock(&d->net.rx_lock);
	pthread_mutex_lock(&d->net.tx_lock);
	*st = d->net.stats;
	pthread_mutex_unlock(&d->net.tx_lock);
	pthread_mutex_unlock(&d->net.rx_lock);
}
