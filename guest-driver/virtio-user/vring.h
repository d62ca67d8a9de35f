/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver side of a split virtqueue (virtio 1.x, 2.7): add a chain of
 * buffers, publish it, decide whether the device needs a kick, take used
 * buffers back, and turn used-buffer notifications on and off, with or
 * without VIRTIO_RING_F_EVENT_IDX.
 *
 * The ring lives in driver memory; the bookkeeping (free list, what each
 * chain is) lives here, where the device cannot touch it. What the device
 * writes is checked before use: a used entry must name the head of a chain
 * the driver made available and report no more bytes than the chain's
 * writable part. A device that breaks these rules marks the ring broken,
 * and a broken ring takes nothing more.
 *
 * Not thread-safe: the owner of the ring serializes calls.
 */
#ifndef VUSER_VRING_H
#define VUSER_VRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_ring.h>

#define VUSER_VRING_MAX_SIZE 32768

/* One buffer of a chain: a driver address and a length. */
struct vuser_sg {
	uint64_t addr;
	uint32_t len;
};

struct vuser_vring_slot {
	void *cookie;    /* NULL while the chain is not in flight */
	uint16_t n_desc; /* descriptors of the chain */
	uint32_t in_len; /* bytes the device may write */
};

struct vuser_vring {
	uint16_t num;
	bool event_idx;
	bool broken;
	const char *broken_reason;

	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint64_t desc_gpa, avail_gpa, used_gpa;

	bool notify_on; /* the driver wants used-buffer notifications */
	uint16_t free_head;
	uint16_t num_free;
	uint16_t in_flight;     /* chains the device owns */
	uint16_t avail_idx;     /* next avail slot the driver fills */
	uint16_t published_idx; /* avail->idx at the last vuser_vring_publish() */
	uint16_t last_used;     /* next used entry the driver reads */
	/*
	 * Kept out of driver memory, where the device could rewrite them:
	 * the free list and what each chain in flight is.
	 */
	uint16_t *free_next;
	struct vuser_vring_slot *slots; /* indexed by head descriptor */
};

/* Bytes of driver memory a ring of @num entries takes (desc, avail, used). */
size_t vuser_vring_mem_size(uint16_t num);

/*
 * Lay a ring of @num entries (a power of two) out in @mem, zeroed driver
 * memory at driver address @gpa. Returns 0 or -EINVAL/-ENOMEM.
 */
int vuser_vring_init(struct vuser_vring *vr, uint16_t num, void *mem, uint64_t gpa, bool event_idx);
void vuser_vring_fini(struct vuser_vring *vr);

/*
 * Add a chain of @n_out device-readable then @n_in device-writable buffers,
 * with @cookie (not NULL) to give back when it is used. The chain becomes
 * visible to the device at the next vuser_vring_publish().
 * Returns the head descriptor, or -ENOSPC, -EINVAL, -EIO (broken ring).
 */
int vuser_vring_add(struct vuser_vring *vr, const struct vuser_sg *sg, unsigned int n_out,
		unsigned int n_in, void *cookie);

/*
 * Make the added chains visible. Returns true if the device asked to be
 * notified (its avail_event, or the absence of VRING_USED_F_NO_NOTIFY).
 */
bool vuser_vring_publish(struct vuser_vring *vr);

/*
 * Take the next used chain: 1 with *cookie and *len (bytes written) set,
 * 0 if there is none, -EPROTO if the device broke the ring, -EIO if it was
 * broken before.
 */
int vuser_vring_get_used(struct vuser_vring *vr, void **cookie, uint32_t *len);

/*
 * Ask for a notification at the next used chain. Returns true if chains
 * were used meanwhile, so that the caller looks again before it sleeps.
 */
bool vuser_vring_enable_notify(struct vuser_vring *vr);

/*
 * Ask for a notification when the device's used index passes @used_idx
 * (used_event, with EVENT_IDX; without it, at every used chain). Taking
 * used chains does not move it.
 */
void vuser_vring_notify_at(struct vuser_vring *vr, uint16_t used_idx);

/* Chains made available and not yet marked used, by the device's used index. */
uint16_t vuser_vring_outstanding(const struct vuser_vring *vr);

/* Ask the device not to notify (a hint: it may still do so). */
void vuser_vring_disable_notify(struct vuser_vring *vr);

/*
 * Take back the cookie of a chain still in flight, starting at slot
 * *pos (0 the first time); for cleanup once the device is stopped.
 * Returns NULL when there is none left.
 */
void *vuser_vring_next_in_flight(struct vuser_vring *vr, uint16_t *pos);

#endif /* VUSER_VRING_H */
