/* SPDX-License-Identifier: BSD-3-Clause */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vring.h"

/* The device writes the used ring: give it its own cache lines. */
#define USED_ALIGN 64u

static size_t
avail_size(uint16_t num)
{
	/* flags, idx, ring[num], used_event */
	return 4 + 2u * num + 2;
}

static size_t
used_offset(uint16_t num)
{
	size_t off = sizeof(struct vring_desc) * num + avail_size(num);

	return (off + USED_ALIGN - 1) & ~(size_t)(USED_ALIGN - 1);
}

size_t
vuser_vring_mem_size(uint16_t num)
{
	/* flags, idx, ring[num], avail_event */
	return used_offset(num) + 4 + sizeof(struct vring_used_elem) * num + 2;
}

static uint16_t *
used_event(struct vuser_vring *vr)
{
	return &vr->avail->ring[vr->num];
}

static uint16_t *
avail_event(struct vuser_vring *vr)
{
	return (uint16_t *)&vr->used->ring[vr->num];
}

int
vuser_vring_init(struct vuser_vring *vr, uint16_t num, void *mem, uint64_t gpa, bool event_idx)
{
	uint8_t *base = mem;
	uint16_t i;

	memset(vr, 0, sizeof(*vr));
	/* virtio 2.7: Queue Size is a power of 2, at most 32768. */
	if (num == 0 || (num & (num - 1)) != 0 || num > VUSER_VRING_MAX_SIZE)
		return -EINVAL;
	vr->slots = calloc(num, sizeof(vr->slots[0]));
	vr->free_next = calloc(num, sizeof(vr->free_next[0]));
	if (vr->slots == NULL || vr->free_next == NULL) {
		vuser_vring_fini(vr);
		return -ENOMEM;
	}
	vr->num = num;
	vr->event_idx = event_idx;
	vr->notify_on = true;
	vr->desc = (struct vring_desc *)base;
	vr->avail = (struct vring_avail *)(base + sizeof(struct vring_desc) * num);
	vr->used = (struct vring_used *)(base + used_offset(num));
	vr->desc_gpa = gpa;
	vr->avail_gpa = gpa + sizeof(struct vring_desc) * num;
	vr->used_gpa = gpa + used_offset(num);
	for (i = 0; i < num; i++)
		vr->free_next[i] = i + 1; /* the last one is never followed */
	vr->num_free = num;
	return 0;
}

void
vuser_vring_fini(struct vuser_vring *vr)
{
	free(vr->slots);
	free(vr->free_next);
	memset(vr, 0, sizeof(*vr));
}

int
vuser_vring_add(struct vuser_vring *vr, const struct vuser_sg *sg, unsigned int n_out,
		unsigned int n_in, void *cookie)
{
	unsigned int n = n_out + n_in, i;
	uint16_t head, idx, flags;
	uint64_t in_len = 0;

	if (vr->broken)
		return -EIO;
	if (n == 0 || cookie == NULL)
		return -EINVAL;
	if (n > vr->num_free)
		return -ENOSPC;
	for (i = n_out; i < n; i++)
		in_len += sg[i].len;
	if (in_len > UINT32_MAX)
		return -EINVAL; /* the used length could not report it */

	head = idx = vr->free_head;
	for (i = 0; i < n; i++) {
		flags = i >= n_out ? VRING_DESC_F_WRITE : 0;
		if (i + 1 < n)
			flags |= VRING_DESC_F_NEXT;
		vr->desc[idx].addr = htole64(sg[i].addr);
		vr->desc[idx].len = htole32(sg[i].len);
		vr->desc[idx].flags = htole16(flags);
		vr->desc[idx].next = htole16(i + 1 < n ? vr->free_next[idx] : 0);
		idx = vr->free_next[idx];
	}
	vr->free_head = idx;
	vr->num_free -= n;
	vr->in_flight++;
	vr->slots[head].cookie = cookie;
	vr->slots[head].n_desc = n;
	vr->slots[head].in_len = (uint32_t)in_len;
	vr->avail->ring[vr->avail_idx & (vr->num - 1)] = htole16(head);
	vr->avail_idx++;
	return head;
}

bool
vuser_vring_publish(struct vuser_vring *vr)
{
	uint16_t old = vr->published_idx, new = vr->avail_idx;

	/* Descriptors and ring entries before the index (virtio 1.2, 2.7.13.3). */
	__atomic_store_n(&vr->avail->idx, htole16(new), __ATOMIC_RELEASE);
	/* The index before reading what the device asked for (2.7.13.4). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	vr->published_idx = new;
	if (vr->event_idx)
		return vring_need_event(le16toh(__atomic_load_n(avail_event(vr), __ATOMIC_RELAXED)),
				new, old);
	return !(le16toh(__atomic_load_n(&vr->used->flags, __ATOMIC_RELAXED)) &
			VRING_USED_F_NO_NOTIFY);
}

static int
mark_broken(struct vuser_vring *vr, const char *reason)
{
	vr->broken = true;
	vr->broken_reason = reason;
	return -EPROTO;
}

static void
free_chain(struct vuser_vring *vr, uint16_t head)
{
	uint16_t last = head, i;

	for (i = 1; i < vr->slots[head].n_desc; i++)
		last = vr->free_next[last];
	vr->free_next[last] = vr->free_head;
	vr->free_head = head;
	vr->num_free += vr->slots[head].n_desc;
	vr->in_flight--;
	memset(&vr->slots[head], 0, sizeof(vr->slots[head]));
}

int
vuser_vring_get_used(struct vuser_vring *vr, void **cookie, uint32_t *len)
{
	uint16_t used_idx, pending;
	uint32_t id, n;

	if (vr->broken)
		return -EIO;
	/* The index before the entries it covers. */
	used_idx = le16toh(__atomic_load_n(&vr->used->idx, __ATOMIC_ACQUIRE));
	pending = used_idx - vr->last_used;
	if (pending == 0)
		return 0;
	if (pending > vr->in_flight)
		return mark_broken(vr, "used index moved past the chains in flight");

	id = le32toh(vr->used->ring[vr->last_used & (vr->num - 1)].id);
	n = le32toh(vr->used->ring[vr->last_used & (vr->num - 1)].len);
	if (id >= vr->num)
		return mark_broken(vr, "used id out of range");
	if (vr->slots[id].cookie == NULL)
		return mark_broken(vr, "used id is not a chain in flight");
	if (n > vr->slots[id].in_len)
		return mark_broken(vr, "used length exceeds the writable buffers");

	*cookie = vr->slots[id].cookie;
	*len = n;
	free_chain(vr, id);
	vr->last_used++;
	if (vr->event_idx && vr->notify_on)
		__atomic_store_n(used_event(vr), htole16(vr->last_used), __ATOMIC_RELAXED);
	return 1;
}

bool
vuser_vring_enable_notify(struct vuser_vring *vr)
{
	vr->notify_on = true;
	if (vr->event_idx)
		__atomic_store_n(used_event(vr), htole16(vr->last_used), __ATOMIC_RELAXED);
	else
		__atomic_store_n(&vr->avail->flags, 0, __ATOMIC_RELAXED);
	/* The request before looking at the used index again (2.7.7). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return le16toh(__atomic_load_n(&vr->used->idx, __ATOMIC_ACQUIRE)) != vr->last_used;
}

void
vuser_vring_notify_at(struct vuser_vring *vr, uint16_t used_idx)
{
	vr->notify_on = false; /* taking used chains leaves used_event alone */
	if (vr->event_idx)
		__atomic_store_n(used_event(vr), htole16(used_idx), __ATOMIC_RELAXED);
	else
		__atomic_store_n(&vr->avail->flags, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

uint16_t
vuser_vring_outstanding(const struct vuser_vring *vr)
{
	uint16_t used = le16toh(__atomic_load_n(&vr->used->idx, __ATOMIC_ACQUIRE));

	return (uint16_t)(vr->published_idx - used);
}

void
vuser_vring_disable_notify(struct vuser_vring *vr)
{
	vr->notify_on = false;
	if (vr->event_idx)
		/* Behind the used index: reached again only after it wraps. */
		__atomic_store_n(used_event(vr), htole16(vr->last_used - 1), __ATOMIC_RELAXED);
	else
		__atomic_store_n(&vr->avail->flags, htole16(VRING_AVAIL_F_NO_INTERRUPT),
				__ATOMIC_RELAXED);
}

void *
vuser_vring_next_in_flight(struct vuser_vring *vr, uint16_t *pos)
{
	void *cookie;

	for (; *pos < vr->num; (*pos)++) {
		cookie = vr->slots[*pos].cookie;
		if (cookie != NULL) {
			free_chain(vr, *pos);
			(*pos)++;
			return cookie;
		}
	}
	return NULL;
}
