/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The caller's buffers in driver memory, for MRs and work requests: pages
 * of the device's memfd, which the backend maps too. Each allocation is
 * remembered, so that a free names only the pointer and a wrong pointer is
 * refused rather than freeing pages the driver uses.
 */
#include <errno.h>
#include <stdlib.h>

#include "device.h"
#include "vur_verbs.h"

struct vuser_ubuf {
	struct vuser_buf buf;
	struct vuser_ubuf *next;
};

void *
vur_user_alloc_buf(struct vur_user_dev *d, size_t len)
{
	struct vuser_ubuf *u;
	int ret;

	if (d == NULL || len == 0) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return NULL;
	ret = vuser_mem_alloc(&d->mem, len, VUSER_PAGE_SIZE, &u->buf);
	if (ret < 0) {
		free(u);
		errno = -ret;
		return NULL;
	}
	pthread_mutex_lock(&d->buf_lock);
	u->next = d->bufs;
	d->bufs = u;
	pthread_mutex_unlock(&d->buf_lock);
	return u->buf.hva;
}

int
vur_user_free_buf(struct vur_user_dev *d, void *p)
{
	struct vuser_ubuf **pos, *u = NULL;

	if (d == NULL)
		return -EINVAL;
	if (p == NULL)
		return 0;
	pthread_mutex_lock(&d->buf_lock);
	for (pos = &d->bufs; *pos != NULL; pos = &(*pos)->next) {
		if ((*pos)->buf.hva == p) {
			u = *pos;
			*pos = u->next;
			break;
		}
	}
	pthread_mutex_unlock(&d->buf_lock);
	if (u == NULL)
		return -EINVAL;
	vuser_mem_free(&d->mem, &u->buf);
	free(u);
	return 0;
}

/* At close: the memory goes with the memfd, only the records remain. */
void
vuser_bufs_release_all(struct vur_user_dev *d)
{
	struct vuser_ubuf *u;

	while ((u = d->bufs) != NULL) {
		d->bufs = u->next;
		free(u);
	}
}

uint64_t
vur_user_driver_addr(const struct vur_user_dev *d, const void *p)
{
	const uint8_t *b = p;

	if (d == NULL || d->mem.hva == NULL || b < d->mem.hva || b >= d->mem.hva + d->mem.size)
		return 0;
	return d->mem.gpa + (uint64_t)(b - d->mem.hva);
}
