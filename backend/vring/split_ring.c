/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split virtqueue, device side. Conformance references are to virtio 1.3,
 * 2.7 "Split Virtqueues".
 */
#include <string.h>

#include <rte_atomic.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_vhost.h>

#include "split_ring.h"

#define VRING_DESC_SIZE sizeof(struct vring_desc)

static bool
area_in_mem(const struct rte_vhost_memory *mem, const void *p, uint64_t len)
{
	uint64_t a = (uintptr_t)p;

	for (uint32_t i = 0; i < mem->nregions; i++) {
		const struct rte_vhost_mem_region *r = &mem->regions[i];

		if (a >= r->host_user_addr && len <= r->size &&
				a - r->host_user_addr <= r->size - len)
			return true;
	}
	return false;
}

bool
vur_split_ring_in_mem(const struct rte_vhost_memory *mem, uint16_t size, const void *desc,
		const void *avail, const void *used, bool event_idx)
{
	uint64_t ev = event_idx ? sizeof(uint16_t) : 0;

	return mem != NULL && size != 0 &&
			area_in_mem(mem, desc, (uint64_t)size * sizeof(struct vring_desc)) &&
			area_in_mem(mem, avail,
					sizeof(struct vring_avail) +
							(uint64_t)size * sizeof(uint16_t) + ev) &&
			area_in_mem(mem, used,
					sizeof(struct vring_used) +
							(uint64_t)size *
									sizeof(struct vring_used_elem) +
							ev);
}

void
vur_split_ring_init(struct vur_split_ring *vr, uint16_t size, void *desc, void *avail, void *used,
		uint16_t last_avail, uint16_t used_idx, bool event_idx)
{
	memset(vr, 0, sizeof(*vr));
	vr->size = size;
	vr->desc = desc;
	vr->avail = avail;
	vr->used = used;
	vr->last_avail = vr->avail_seen = last_avail;
	vr->used_idx = used_idx;
	vr->event_idx = event_idx;
}

static enum vur_pop_result
mark_broken(struct vur_split_ring *vr, const char *reason, const char **why)
{
	vr->broken = true;
	vr->broken_reason = reason;
	*why = reason;
	return VUR_POP_BROKEN;
}

struct walk {
	const struct vring_desc *table;
	uint32_t table_size;
	bool indirect;
	bool saw_writable;
};

/* Append [addr, addr + len) to the chain, split where guest regions end. */
static const char *
add_buffer(struct vur_chain *c, struct rte_vhost_memory *mem, uint64_t addr, uint32_t len,
		bool writable)
{
	uint64_t left = len, piece, hva;

	if (writable) {
		if ((uint64_t)c->in_len + len > UINT32_MAX)
			return "writable buffers exceed 4 GiB";
		c->in_len += len;
	} else {
		if ((uint64_t)c->out_len + len > UINT32_MAX)
			return "readable buffers exceed 4 GiB";
		c->out_len += len;
	}
	while (left > 0) {
		if (c->n_out + c->n_in == VUR_CHAIN_MAX_IOV)
			return "chain has too many segments";
		piece = left;
		hva = rte_vhost_va_from_guest_pa(mem, addr, &piece);
		if (hva == 0 || piece == 0)
			return "buffer outside guest memory";
		c->iov[c->n_out + c->n_in].iov_base = (void *)(uintptr_t)hva;
		c->iov[c->n_out + c->n_in].iov_len = piece;
		if (writable)
			c->n_in++;
		else
			c->n_out++;
		addr += piece;
		left -= piece;
	}
	return NULL;
}

/* Switch the walk to an indirect table (2.7.5.3). */
static const char *
enter_indirect(struct walk *w, struct rte_vhost_memory *mem, const struct vring_desc *d)
{
	uint64_t addr = rte_le_to_cpu_64(d->addr);
	uint64_t len = rte_le_to_cpu_32(d->len);
	uint64_t mapped = len;

	/* 2.7.5.3.1: no INDIRECT inside an indirect table; not with NEXT. */
	if (w->indirect)
		return "nested indirect descriptor";
	if (rte_le_to_cpu_16(d->flags) & VRING_DESC_F_NEXT)
		return "indirect descriptor with NEXT";
	if (len == 0 || len % VRING_DESC_SIZE != 0)
		return "indirect table length not a multiple of 16";
	w->table = (const void *)(uintptr_t)rte_vhost_va_from_guest_pa(mem, addr, &mapped);
	if (w->table == NULL || mapped != len)
		return "indirect table outside guest memory";
	w->table_size = len / VRING_DESC_SIZE;
	w->indirect = true;
	return NULL;
}

static const char *
walk_chain(struct vur_split_ring *vr, struct rte_vhost_memory *mem, struct vur_chain *c)
{
	struct walk w = { .table = vr->desc, .table_size = vr->size };
	uint32_t idx = c->head, steps = 0;
	struct vring_desc d;
	const char *err;
	uint16_t flags;

	for (;;) {
		if (idx >= w.table_size)
			return "descriptor index out of range";
		/* 2.7.5.2: a chain never exceeds the queue (or table) size. */
		if (++steps > w.table_size)
			return "descriptor chain loops";
		d = w.table[idx];
		flags = rte_le_to_cpu_16(d.flags);
		if (flags & VRING_DESC_F_INDIRECT) {
			err = enter_indirect(&w, mem, &d);
			if (err != NULL)
				return err;
			idx = 0;
			steps = 0;
			continue;
		}
		if (flags & VRING_DESC_F_WRITE)
			w.saw_writable = true;
		else if (w.saw_writable)
			return "readable descriptor after a writable one";
		err = add_buffer(c, mem, rte_le_to_cpu_64(d.addr), rte_le_to_cpu_32(d.len),
				flags & VRING_DESC_F_WRITE);
		if (err != NULL)
			return err;
		if (!(flags & VRING_DESC_F_NEXT))
			return NULL;
		idx = rte_le_to_cpu_16(d.next);
	}
}

static uint16_t
read_avail_idx(const struct vur_split_ring *vr)
{
	return rte_le_to_cpu_16(__atomic_load_n(&vr->avail->idx, __ATOMIC_ACQUIRE));
}

bool
vur_split_ring_has_avail(const struct vur_split_ring *vr)
{
	return !vr->broken && read_avail_idx(vr) != vr->last_avail;
}

enum vur_pop_result
vur_split_ring_pop(struct vur_split_ring *vr, struct rte_vhost_memory *mem, struct vur_chain *chain,
		const char **why)
{
	uint16_t avail_idx, head;

	*why = NULL;
	if (vr->broken) {
		*why = vr->broken_reason;
		return VUR_POP_BROKEN;
	}
	/*
	 * The driver writes the avail index as it adds entries: reading it
	 * once for the entries it announced, not for each, spares a cache
	 * miss per entry (as librte_vhost does per burst).
	 */
	avail_idx = vr->avail_seen;
	if (avail_idx == vr->last_avail)
		avail_idx = read_avail_idx(vr);
	if (avail_idx == vr->last_avail && vr->event_idx && !vr->no_kick) {
		/*
		 * 2.7.10: with EVENT_IDX the driver kicks only when it passes
		 * avail_event. Ask for the next entry, then look again: an entry
		 * made available before the driver saw avail_event gets no kick.
		 */
		/* avail_event is the 16 bits just past the used ring, no more */
		__atomic_store_n((uint16_t *)&vr->used->ring[vr->size],
				rte_cpu_to_le_16(vr->last_avail), __ATOMIC_RELAXED);
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
		avail_idx = read_avail_idx(vr);
	}
	if ((uint16_t)(avail_idx - vr->last_avail) > vr->size)
		return mark_broken(vr, "driver moved the avail index past the ring", why);
	vr->avail_seen = avail_idx;
	if (avail_idx == vr->last_avail)
		return VUR_POP_EMPTY;

	head = rte_le_to_cpu_16(vr->avail->ring[vr->last_avail & (vr->size - 1)]);
	if (head >= vr->size)
		return mark_broken(vr, "avail ring entry out of range", why);
	vr->last_avail++;

	memset(chain, 0, offsetof(struct vur_chain, iov));
	chain->head = head;
	*why = walk_chain(vr, mem, chain);
	return *why == NULL ? VUR_POP_OK : VUR_POP_BAD_CHAIN;
}

void
vur_split_ring_fill(struct vur_split_ring *vr, uint16_t n, uint16_t head, uint32_t len)
{
	struct vring_used_elem *e = &vr->used->ring[(uint16_t)(vr->used_idx + n) & (vr->size - 1)];

	e->id = rte_cpu_to_le_32(head);
	e->len = rte_cpu_to_le_32(len);
}

void
vur_split_ring_flush(struct vur_split_ring *vr, uint16_t n)
{
	vr->used_idx += n;
	/* 2.7.8: the elements are visible before the index that publishes them. */
	__atomic_store_n(&vr->used->idx, rte_cpu_to_le_16(vr->used_idx), __ATOMIC_RELEASE);
}

void
vur_split_ring_push(struct vur_split_ring *vr, uint16_t head, uint32_t len)
{
	vur_split_ring_fill(vr, 0, head, len);
	vur_split_ring_flush(vr, 1);
}

void
vur_split_ring_push_later(struct vur_split_ring *vr, uint16_t head, uint32_t len)
{
	vur_split_ring_fill(vr, vr->used_later++, head, len);
}

uint16_t
vur_split_ring_publish(struct vur_split_ring *vr)
{
	uint16_t n = vr->used_later;

	if (n > 0)
		vur_split_ring_flush(vr, n);
	vr->used_later = 0;
	return n;
}

void
vur_split_ring_unpop(struct vur_split_ring *vr, uint16_t n)
{
	vr->last_avail -= n;
}

bool
vur_split_ring_need_notify(struct vur_split_ring *vr)
{
	uint16_t old = vr->signalled_used, new = vr->used_idx, event;
	bool valid = vr->signalled_valid;

	/* The used index store must be visible before the driver's flags are read. */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	vr->signalled_used = new;
	vr->signalled_valid = true;
	if (!vr->event_idx)
		return !(rte_le_to_cpu_16(vr->avail->flags) & VRING_AVAIL_F_NO_INTERRUPT);
	/* used_event sits just past the avail ring (2.7.10). */
	event = rte_le_to_cpu_16(vr->avail->ring[vr->size]);
	return !valid || vring_need_event(event, new, old);
}

static uint32_t
chain_copy(const struct iovec *iov, uint16_t n, uint32_t off, void *buf, uint32_t len, bool to_iov)
{
	uint32_t done = 0, step;
	uint16_t i;

	for (i = 0; i < n && done < len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		step = RTE_MIN((uint64_t)len - done, iov[i].iov_len - off);
		if (to_iov)
			memcpy((char *)iov[i].iov_base + off, (char *)buf + done, step);
		else
			memcpy((char *)buf + done, (char *)iov[i].iov_base + off, step);
		done += step;
		off = 0;
	}
	return done;
}

uint32_t
vur_chain_read(const struct vur_chain *c, uint32_t off, void *dst, uint32_t len)
{
	return chain_copy(c->iov, c->n_out, off, dst, len, false);
}

uint32_t
vur_chain_write(const struct vur_chain *c, uint32_t off, const void *src, uint32_t len)
{
	return chain_copy(c->iov + c->n_out, c->n_in, off, (void *)(uintptr_t)src, len, true);
}
