/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's view of a member's link. A member that is a kernel
 * interface underneath (net_tap, net_af_packet) has its carrier in the
 * kernel: net_af_packet never reports a change at all, and net_tap's
 * ethdev status, with LSC enabled, is a copy that net_tap refreshes on its
 * own interrupt thread. So the port manager asks the kernel (IFF_UP and
 * IFF_RUNNING), and hears of changes from rtnetlink (RTM_NEWLINK) as they
 * happen rather than at the next link poll.
 */
#ifndef VUR_KERNEL_LINK_H
#define VUR_KERNEL_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A non-blocking rtnetlink socket subscribed to link changes, or -errno. */
int vur_kernel_link_listen(void);

/*
 * Read every pending message of @fd; *@named is set when one is about an
 * interface of @ifindexes (@n of them). Returns the messages read, or -errno.
 */
int vur_kernel_link_drain(int fd, const uint32_t *ifindexes, size_t n, bool *named);

/*
 * Whether the rtnetlink datagram @buf (@len bytes) holds an RTM_NEWLINK or
 * RTM_DELLINK about one of @ifindexes; truncated or foreign messages are
 * skipped. The parser vur_kernel_link_drain() applies to each datagram.
 */
bool vur_kernel_link_scan(const void *buf, size_t len, const uint32_t *ifindexes, size_t n);

/*
 * Whether interface @ifindex is up with carrier (IFF_UP and IFF_RUNNING),
 * through the datagram socket @sock: 1, 0, or -errno (gone, for one).
 */
int vur_kernel_link_up(int sock, uint32_t ifindex);

#endif /* VUR_KERNEL_LINK_H */
