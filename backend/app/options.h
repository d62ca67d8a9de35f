/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command line of vhost-user-rdma: the part after EAL's "--".
 */
#ifndef VUR_OPTIONS_H
#define VUR_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VUR_MAX_SOCKETS          64
#define VUR_MAX_UPLINK_OPTS      8  /* VUR_MAX_UPLINKS */
#define VUR_MAX_NOMINAL_OPTS     32 /* VUR_MAX_MEMBERS */
#define VUR_DEFAULT_ADMIN_SOCKET "/var/tmp/vhost-user-rdma.sock"

/* --member-speed NAME=MBPS */
struct vur_member_speed_opt {
	char name[64];
	uint32_t mbps;
};

struct vur_options {
	const char *sockets[VUR_MAX_SOCKETS];
	unsigned int n_sockets;
	bool client;         /* connect to the sockets and reconnect */
	bool rfc2_numbering; /* offer RFC v2's feature bit, class and config layout */
	bool port_speed;     /* offer VIRTIO_NET_F_ROCE_PORT_SPEED */
	uint32_t max_qps;
	uint32_t max_cqs;
	uint32_t ring_queues;   /* K doorbell/event queue pairs (rings in driver memory); 0: none */
	bool ring_queues_given; /* else the default, lowered to what the layout leaves room for */
	uint32_t max_ring_qps;
	uint32_t max_ring_cqs;
	uint16_t mtu;
	uint8_t base_mac[6];                      /* --mac: device i gets base_mac + i */
	bool mac_given;                           /* else: vur_default_mac() per device */
	uint64_t loopback_mbps;                   /* speed with no uplink up */
	const char *uplinks[VUR_MAX_UPLINK_OPTS]; /* ethdev names; none: every port */
	unsigned int n_uplinks;
	struct vur_member_speed_opt member_speeds[VUR_MAX_NOMINAL_OPTS];
	unsigned int n_member_speeds;
	uint32_t link_poll_ms;    /* polling period of links without LSC events */
	const char *admin_socket; /* admin RPC; NULL: none */
	bool help;
};

/*
 * Parse the application arguments (argv[0] is the program name).
 * Returns 0, or -EINVAL after printing the reason to @err.
 */
int vur_options_parse(struct vur_options *opts, int argc, char **argv, FILE *err);

/* The man-style usage text. */
void vur_options_usage(FILE *out, const char *prog);

#endif /* VUR_OPTIONS_H */
