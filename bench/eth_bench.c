/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet frames device to device through the backend's local switch:
 * one thread sends on the first device to the second's MAC, another
 * receives on the second, for 64-byte and 1500-byte frames. Prints frames
 * per second and Gb/s of frames received (and what the switch dropped for
 * want of receive buffers), with the memcpy bandwidth of the same run for
 * scale: each frame is copied twice (guest to mbuf, mbuf to guest).
 * It never fails on a timing.
 *
 * Usage: eth_bench SOCKET_A SOCKET_B [FRAMES]
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vur_net.h"
#include "vur_user.h"

#include "bench_util.h"

#define QUIET_MS 300 /* the receiver stops after this long without a frame */

struct rx_ctx {
	struct vur_user_dev *dev;
	unsigned int want;
	unsigned int got;
	uint64_t last_ns;
};

static void *
receiver(void *arg)
{
	struct rx_ctx *rx = arg;
	uint8_t buf[2048];

	while (rx->got < rx->want) {
		if (vur_user_net_recv(rx->dev, buf, sizeof(buf), QUIET_MS) < 0)
			break;
		rx->got++;
		rx->last_ns = now_ns();
	}
	return NULL;
}

/* Send @n frames of @len bytes from @a to @b; print what arrived. */
static int
run(struct vur_user_dev *a, struct vur_user_dev *b, const uint8_t dst[6], const uint8_t src[6],
		size_t len, unsigned int n, bool print)
{
	struct rx_ctx rx = { .dev = b, .want = n };
	uint8_t frame[1514];
	pthread_t t;
	uint64_t t0, ns;
	double fps;
	int ret = 0;

	memset(frame, 0x5a, sizeof(frame));
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	frame[12] = 0x88; /* IEEE 802 local experimental ethertype */
	frame[13] = 0xb5;
	if (pthread_create(&t, NULL, receiver, &rx) != 0)
		return -EAGAIN;
	t0 = now_ns();
	for (unsigned int i = 0; i < n && ret == 0; i++)
		ret = vur_user_net_send(a, frame, len);
	pthread_join(t, NULL);
	if (ret < 0) {
		fprintf(stderr, "send: %s\n", strerror(-ret));
		return ret;
	}
	if (!print)
		return 0;
	ns = rx.got > 0 ? rx.last_ns - t0 : 1;
	fps = rx.got * 1e9 / ns;
	printf("%4zu-byte frames: %u sent, %u received (%.1f%%), %9.0f frames/s, %6.2f Gb/s\n", len,
			n, rx.got, 100.0 * rx.got / n, fps, fps * len * 8 / 1e9);
	return 0;
}

static int
open_dev(const char *path, struct vur_user_dev **d, uint8_t mac[6])
{
	struct vur_user_params p;
	struct vur_user_config cfg;
	int ret;

	vur_user_params_init(&p, path);
	ret = vur_user_open(&p, d);
	if (ret == 0)
		ret = vur_user_read_config(*d, &cfg);
	if (ret < 0) {
		fprintf(stderr, "open %s: %s\n", path, strerror(-ret));
		return ret;
	}
	memcpy(mac, cfg.mac, 6);
	return 0;
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 1500 };
	struct vur_user_dev *a = NULL, *b = NULL;
	uint8_t mac_a[6], mac_b[6];
	unsigned int n = argc > 3 ? (unsigned int)atoi(argv[3]) : 200000;
	int ret;

	if (argc < 3 || n < 1000) {
		fprintf(stderr, "usage: %s SOCKET_A SOCKET_B [FRAMES >= 1000]\n", argv[0]);
		return 2;
	}
	ret = open_dev(argv[1], &a, mac_a);
	if (ret == 0)
		ret = open_dev(argv[2], &b, mac_b);
	printf("device to device through the local switch, %u frames per size\n", n);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && ret == 0; i++) {
		/* a warm-up round faults the buffers in */
		ret = run(a, b, mac_b, mac_a, sizes[i], n / 10, false);
		if (ret == 0)
			ret = run(a, b, mac_b, mac_a, sizes[i], n, true);
	}
	if (ret == 0)
		printf("reference: memcpy %.1f GB/s (64 MiB, best of 5)\n", memcpy_gbps());
	vur_user_close(a);
	vur_user_close(b);
	return ret < 0;
}
