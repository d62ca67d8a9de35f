/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SET_MEM_TABLE messages the backend refuses before librte_vhost sees
 * them: tables whose regions it could not map, or could map but not use.
 * librte_vhost (22.11 to 25.11) takes a region's fd before mapping the
 * region and closes it only once mapped, so every table it fails to map
 * would leave one fd open, and a frontend repeating one runs the backend
 * out of descriptors. A region larger than its file maps, and kills the
 * backend with SIGBUS at the first access past the file's end.
 */
#ifndef VUR_VDEV_MEM_TABLE_H
#define VUR_VDEV_MEM_TABLE_H

#include <stdint.h>

#include "vhost_msg.h"

/*
 * Why @msg's regions cannot be mapped, or cannot be used once mapped
 * (@region: the one at fault), or NULL when they can. @fds: the fds that
 * came with @msg, one per region; they stay librte_vhost's. Without them
 * (NULL) the regions' files are not checked.
 */
const char *vur_mem_table_fault(const struct vur_vhost_msg *msg,
		const struct vur_vhost_msg_fds *fds, uint32_t *region);

/*
 * Make librte_vhost refuse @msg with every fd it carries closed: its handler
 * checks first that the fds match the region count, and closes them all
 * when they do not.
 */
void vur_mem_table_refuse(struct vur_vhost_msg *msg);

#endif /* VUR_VDEV_MEM_TABLE_H */
