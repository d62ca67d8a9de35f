/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device-side access to a split virtqueue (virtio 1.x, 2.7): pop a chain of
 * descriptors as checked host iovecs, push it back used, decide whether to
 * notify. Nothing the driver wrote is trusted: every index is checked
 * against the ring size, chains are bounded, every buffer must lie inside
 * the frontend's memory table. A ring the driver corrupts is marked broken
 * and stays broken until the queue is reset.
 */
#ifndef VUR_SPLIT_RING_H
#define VUR_SPLIT_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include <linux/virtio_ring.h>

struct rte_vhost_memory;

#define VUR_CHAIN_MAX_IOV 64

struct vur_split_ring {
	uint16_t size; /* power of two, as librte_vhost checked */
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t last_avail; /* next avail entry the device reads */
	uint16_t avail_seen; /* the avail index as last read: entries up to it are there */
	uint16_t used_idx;   /* next used entry the device writes */
	uint16_t used_later; /* entries filled after used_idx, not yet published */
	uint16_t signalled_used;
	bool signalled_valid;
	bool event_idx; /* VIRTIO_RING_F_EVENT_IDX negotiated */
	/*
	 * With EVENT_IDX: an empty ring leaves avail_event as it is, so that
	 * the driver, past it already, does not kick for what it adds next.
	 * For a ring the device polls anyway; cleared before it sleeps.
	 */
	bool no_kick;
	bool broken;
	const char *broken_reason;
};

/* A popped chain: device-readable buffers first, then device-writable ones. */
struct vur_chain {
	uint16_t head;
	uint16_t n_out;
	uint16_t n_in;
	uint32_t out_len;                    /* bytes the device may read */
	uint32_t in_len;                     /* bytes the device may write */
	struct iovec iov[VUR_CHAIN_MAX_IOV]; /* [0, n_out) readable, then writable */
};

enum vur_pop_result {
	VUR_POP_OK,
	VUR_POP_EMPTY,
	VUR_POP_BAD_CHAIN, /* this chain is unusable; it was consumed, push it with len 0 */
	VUR_POP_BROKEN,    /* the ring itself is corrupt; stop using it */
};

struct rte_vhost_memory;

/*
 * Whether the three areas of a split ring of @size entries at host
 * addresses @desc, @avail and @used (with @event_idx, its used_event and
 * avail_event) each lie inside one region of @mem's host mappings. A
 * frontend can make librte_vhost hand out a ring larger than what it
 * translated (SET_VRING_NUM after SET_VRING_ADDR): check before serving.
 */
bool vur_split_ring_in_mem(const struct rte_vhost_memory *mem, uint16_t size, const void *desc,
		const void *avail, const void *used, bool event_idx);

void vur_split_ring_init(struct vur_split_ring *vr, uint16_t size, void *desc, void *avail,
		void *used, uint16_t last_avail, uint16_t used_idx, bool event_idx);

enum vur_pop_result vur_split_ring_pop(struct vur_split_ring *vr, struct rte_vhost_memory *mem,
		struct vur_chain *chain, const char **why);

/* Return @head to the driver with @len bytes written. */
void vur_split_ring_push(struct vur_split_ring *vr, uint16_t head, uint32_t len);

/*
 * Several used entries published at once, as libvhost-user's fill/flush:
 * the driver must see all the buffers of a merged receive (virtio 5.1.6.4)
 * together. Fill entry @n places past the next one, then flush @n entries.
 */
void vur_split_ring_fill(struct vur_split_ring *vr, uint16_t n, uint16_t head, uint32_t len);
void vur_split_ring_flush(struct vur_split_ring *vr, uint16_t n);

/* Give the last @n popped chains back to the avail side, unused and unpushed. */
void vur_split_ring_unpop(struct vur_split_ring *vr, uint16_t n);

/*
 * Whether the driver made entries available that the device has not taken
 * (or moved the avail index where it should not: popping will tell).
 */
bool vur_split_ring_has_avail(const struct vur_split_ring *vr);

/* Whether the driver asked to be notified of what was pushed since the last notification. */
bool vur_split_ring_need_notify(struct vur_split_ring *vr);

/*
 * Fill the next used entry without publishing it: vur_split_ring_publish()
 * makes every entry filled so far visible with one index store, as
 * librte_vhost's shadow used ring does per burst.
 */
void vur_split_ring_push_later(struct vur_split_ring *vr, uint16_t head, uint32_t len);

/* Publish the entries pushed later; returns how many. */
uint16_t vur_split_ring_publish(struct vur_split_ring *vr);

/* Copy up to @len bytes from the chain's readable part, starting at @off. Returns bytes copied. */
uint32_t vur_chain_read(const struct vur_chain *c, uint32_t off, void *dst, uint32_t len);

/* Copy @len bytes into the chain's writable part at @off. Returns bytes copied. */
uint32_t vur_chain_write(const struct vur_chain *c, uint32_t off, const void *src, uint32_t len);

#endif /* VUR_SPLIT_RING_H */
