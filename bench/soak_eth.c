/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * soak_eth: Ethernet between two devices of one backend, every byte
 * checked; one flow of the soak run (bench/soak.py).
 *
 *   soak_eth SOCKET_A SOCKET_B FRAMES SEED
 *
 * Opens both devices (it is the driver of each), then sends FRAMES frames,
 * alternately A to B and B to A, of lengths from 60 to 1514 bytes with a
 * payload that is a function of SEED and the frame's number, and checks
 * that each arrives whole at the other device within 5 s. A frame not there
 * by then is waited for 30 s more, to tell a late frame (a stalled data
 * path) from a lost one. Exit 0 when every frame came back right in time;
 * 1 with the first wrong or lost frame on stderr; 3 when one came back
 * right but late; 2 when a device cannot be opened.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eth_util.h"
#include "vur_net.h"
#include "vur_user.h"

#define WAIT_MS 5000
#define LATE_MS 30000
#define MIN_LEN 60
#define MAX_LEN 1514

static uint8_t
pattern(uint32_t seed, uint32_t n, size_t off)
{
	uint32_t x = seed * 2654435761u ^ n * 40503u ^ (uint32_t)off * 2246822519u;

	return (uint8_t)(x >> 13 ^ x);
}

static int
open_dev(const char *path, struct vur_user_dev **d, uint8_t mac[6])
{
	struct vur_user_params p;
	struct vur_user_config cfg;

	vur_user_params_init(&p, path);
	p.mem_size = 8u << 20;
	if (vur_user_open(&p, d) != 0)
		return -1;
	if (vur_user_read_config(*d, &cfg) != 0)
		return -1;
	memcpy(mac, cfg.mac, 6);
	return 0;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * After WAIT_MS without the frame: wait LATE_MS more, saying how long it
 * took and what both drivers counted, so that the soak's log tells a
 * stalled data path from a lost frame. Whether it came.
 */
static bool
recv_late(struct vur_user_dev **d, int from, int to, uint32_t marker, uint8_t *in, size_t cap,
		size_t *got)
{
	struct vur_user_net_stats tx, rx;
	uint64_t t0 = now_ms();
	bool came = eth_recv_marked(d[to], marker, in, cap, got, LATE_MS) == 0;

	vur_user_net_stats(d[from], &tx);
	vur_user_net_stats(d[to], &rx);
	fprintf(stderr,
			"soak_eth: %s after %" PRIu64 " ms more; sender posted %" PRIu64
			" frames, receiver took %" PRIu64 "\n",
			came ? "came" : "still missing", now_ms() - t0, tx.tx_frames, rx.rx_frames);
	return came;
}

int
main(int argc, char **argv)
{
	static uint8_t out[MAX_LEN], in[4096];
	struct vur_user_dev *d[2];
	uint8_t mac[2][6];
	uint32_t frames, seed, n_late = 0;
	size_t len, got;
	bool late;

	if (argc != 5) {
		fprintf(stderr, "usage: %s SOCKET_A SOCKET_B FRAMES SEED\n", argv[0]);
		return 2;
	}
	frames = (uint32_t)strtoul(argv[3], NULL, 0);
	seed = (uint32_t)strtoul(argv[4], NULL, 0);
	if (open_dev(argv[1], &d[0], mac[0]) != 0 || open_dev(argv[2], &d[1], mac[1]) != 0) {
		fprintf(stderr, "soak_eth: cannot open the devices\n");
		return 2;
	}
	for (uint32_t n = 0; n < frames; n++) {
		int from = n % 2, to = 1 - from;
		uint32_t marker = seed * 1000003u + n + 1;

		len = MIN_LEN + pattern(seed, n, 0) * 6u % (MAX_LEN - MIN_LEN + 1);
		eth_frame(out, len, mac[to], mac[from], marker);
		/* after the marker (eth_util.c: 14 bytes of header, 4 of marker): the pattern */
		for (size_t i = 18; i < len; i++)
			out[i] = pattern(seed, n, i);
		if (vur_user_net_send(d[from], out, len) != 0) {
			fprintf(stderr, "soak_eth: frame %u: send refused\n", n);
			return 1;
		}
		if (eth_recv_marked(d[to], marker, in, sizeof(in), &got, WAIT_MS) != 0) {
			late = recv_late(d, from, to, marker, in, sizeof(in), &got);
			fprintf(stderr, "soak_eth: frame %u (%zu bytes): %s\n", n, len,
					late ? "arrived late" : "never arrived");
			if (!late)
				return 1;
			n_late++;
		}
		if (got != len || memcmp(in, out, len) != 0) {
			fprintf(stderr,
					"soak_eth: frame %u: %zu bytes arrived, %zu sent, or "
					"wrong\n",
					n, got, len);
			return 1;
		}
	}
	vur_user_close(d[0]);
	vur_user_close(d[1]);
	printf("soak_eth: %u frames, every byte right, %u of them late\n", frames, n_late);
	return n_late > 0 ? 3 : 0;
}
