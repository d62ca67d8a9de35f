/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-device transmit limits (issue 25) through the real vhost-user
 * protocol: RDMA WRITEs from device a to device b, a's bandwidth limited
 * over the admin RPC: the goodput at most 5% above the limit and at least
 * 75% of it (ROCE-DEV-RATE-2; the limit counts headers: 58 bytes per
 * 1024-byte packet here, so about 94.6% is what an idle machine gets), the limit
 * changed live and followed (ROCE-DEV-RATE-3), a packet-rate limit
 * likewise; nothing lost for it (no retransmission, no error: the requester
 * waits, ROCE-DEV-RATE-1), the waits counted in telemetry; bad limits
 * refused cleanly by the admin RPC.
 *
 * The limits are well below what the engine reaches unlimited under ASan
 * on a shared 2-core machine (printed as a diagnostic).
 *
 * Usage: virtio_user_rate_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "admin.h"
#include "eth_util.h"
#include "vur_net.h"
#include "rdma_e2e.h"

#define MEM_SIZE (8 << 20)
#define BUF_LEN  (1 << 20)
#define DEPTH    16 /* WRITEs outstanding */
/* 1000-byte frames in the bucket the backend gives 1 MB/s (common/txrate.h: 288 KiB) */
#define VUR_TXRATE_BURST_FRAMES (288 * 1024 / 1000)

static struct rdma_e2e t;
static struct rdma_ep a, b;
static uint32_t qa, qb;

static int
set_rate(const char *rate)
{
	char params[512], out[8192];

	snprintf(params, sizeof(params), "{\"device\": \"%s\", \"rate\": %s}", a.path, rate);
	return admin_call(t.backend.admin, "set_device_rate", params, out, sizeof(out));
}

static uint64_t
counter(const char *name)
{
	return rdma_e2e_counter(&t, &a, name);
}

/*
 * WRITEs of @len bytes, DEPTH outstanding, for @warm_ms (not counted: the
 * bucket's first burst) then @ms: the goodput in bit/s, and the WRs that
 * completed in *@wrs. 0 on an error completion or a stall.
 */
static uint64_t
writes(uint32_t len, unsigned int warm_ms, unsigned int ms, uint64_t *wrs)
{
	uint64_t start = rdma_now_ms(), t0 = 0, end = start + warm_ms + ms, now, done = 0;
	struct vur_user_wc wc;
	unsigned int out = 0;
	uint64_t id = 0;

	*wrs = 0;
	while ((now = rdma_now_ms()) < end || out > 0) {
		if (t0 == 0 && now >= start + warm_ms) {
			t0 = now;
			done = 0;
		}
		while (now < end && out < DEPTH) {
			if (rdma_post_rdma(&a, qa, VUR_USER_WR_RDMA_WRITE, (id % DEPTH) * len, len,
					    b.addr + (id % DEPTH) * len, b.mr.rkey, id) != 0)
				return 0;
			id++;
			out++;
		}
		if (rdma_next_cqe(&a, &wc) != 1 || wc.status != VUR_USER_WC_SUCCESS)
			return 0;
		out--;
		if (t0 != 0 && rdma_now_ms() <= end)
			done++;
	}
	now = rdma_now_ms();
	*wrs = done;
	return t0 == 0 || now <= t0 ? 0 : done * len * 8 * 1000 / ((now < end ? now : end) - t0);
}

/*
 * Never faster than the limit (5% for the edges of the window), and not far
 * below it: a requester that wakes late on a loaded machine loses what
 * overflows its bucket (10 ms at the rate), as any token bucket does, so
 * under load the goodput sinks some way below the limit (89% seen in a run
 * beside guests on both CPUs); a rate computed wrong by a factor still fails.
 */
static bool
near_limit(uint64_t got, uint64_t want)
{
	printf("# measured %" PRIu64 ", limit %" PRIu64 " (%.1f%%)\n", got, want,
			100.0 * (double)got / (double)want);
	return got * 100 >= want * 75 && got * 100 <= want * 105;
}

static void
bandwidth(void)
{
	uint64_t bps, wrs, retx;

	if (!rdma_e2e_ready(&a, &b) || !rdma_rc_pair(&a, &b, &qa, &qb))
		return;
	bps = writes(64 * 1024, 0, 500, &wrs);
	printf("# unlimited: %" PRIu64 " Mbit/s\n", bps / 1000000);
	retx = counter("rdma_retransmits");
	TAP_EQ(set_rate("{\"bps\": 100000000}"), 0);
	TAP_EQ(counter("rate_bps"), 100000000);
	TAP_CHECK(near_limit(writes(64 * 1024, 300, 2000, &wrs), 100000000));
	TAP_CHECK(counter("rate_deferred") > 0);
	/* ROCE-DEV-RATE-1: waited for, never dropped: nothing was sent again */
	TAP_EQ(counter("rdma_retransmits"), retx);
	TAP_EQ(counter("rate_dropped"), 0);
}

/* ROCE-DEV-RATE-3: changed while WRs wait, none fails; the next seconds follow the new limit. */
static void
live_change(void)
{
	uint64_t wrs;

	if (!rdma_e2e_ready(&a, &b) || qa == 0)
		return;
	TAP_EQ(set_rate("{\"bps\": 40000000}"), 0);
	TAP_CHECK(near_limit(writes(64 * 1024, 300, 1500, &wrs), 40000000));
	TAP_EQ(counter("rate_pps"), 0); /* left out: unchanged */
}

static void
packet_rate(void)
{
	uint64_t wrs;

	if (!rdma_e2e_ready(&a, &b) || qa == 0)
		return;
	/* 0: unlimited bandwidth; one packet per 256-byte WRITE */
	TAP_EQ(set_rate("{\"bps\": 0, \"pps\": 2000}"), 0);
	writes(256, 300, 1500, &wrs);
	TAP_CHECK(near_limit(wrs * 1000 / 1500, 2000));
	TAP_EQ(counter("rate_pps"), 2000);
	TAP_EQ(set_rate("{\"pps\": 0}"), 0);
	TAP_EQ(counter("rate_pps"), 0);
}

/*
 * ROCE-DEV-RATE-4: frames of the transmit queue over the limit are dropped
 * and counted, their buffers returned (every send completes); what went is
 * one bucket plus the limit over the time it took.
 */
static void
ethernet_policed(void)
{
	uint64_t tx0, drop0, tx, drop, start, ms;
	uint8_t frame[1000];
	int sent = 0;

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(set_rate("{\"bps\": 8000000, \"pps\": 0}"), 0); /* 1 MB/s, a 288 KiB bucket */
	tx0 = counter("eth_tx_frames");
	drop0 = counter("rate_dropped");
	start = rdma_now_ms();
	for (int i = 0; i < 1000; i++) {
		eth_frame(frame, sizeof(frame), b.mac, a.mac, (uint32_t)i);
		sent += vur_user_net_send(a.d, frame, sizeof(frame)) == 0;
	}
	TAP_EQ(sent, 1000);
	/* every chain consumed: the counters add up once the queue is empty */
	drop = eth_wait_counter(t.backend.prefix, a.path, "rate_dropped", drop0 + 1, 5000) - drop0;
	for (int i = 0; i < 500 &&
			counter("eth_tx_frames") - tx0 + (counter("rate_dropped") - drop0) < 1000;
			i++)
		poll(NULL, 0, 10);
	ms = rdma_now_ms() - start;
	tx = counter("eth_tx_frames") - tx0;
	drop = counter("rate_dropped") - drop0;
	printf("# %" PRIu64 " frames went, %" PRIu64 " dropped in %" PRIu64 " ms\n", tx, drop, ms);
	TAP_EQ(tx + drop, 1000);
	TAP_CHECK(drop > 0);
	TAP_CHECK(tx <= VUR_TXRATE_BURST_FRAMES + ms + 1);
}

/* The admin RPC refuses bad limits; the device's stay. */
static void
bad_input(void)
{
	static const char *const bad[] = { "{\"bps\": -1}", "{\"bps\": \"fast\"}",
		"{\"bps\": 1.5e8}", "{\"bps\": 999}", "{\"bps\": 400000000001}",
		"{\"pps\": 1000000001}", "{\"pps\": true}", "{\"bogus\": 1}", "[1]", "7", "null" };
	char params[512], out[8192];

	if (!rdma_e2e_ready(&a, &b))
		return;
	TAP_EQ(set_rate("{\"bps\": 50000000}"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TAP_EQ(set_rate(bad[i]), -EREMOTEIO);
	TAP_EQ(counter("rate_bps"), 50000000);
	TAP_EQ(admin_call(t.backend.admin, "set_device_rate",
			       "{\"device\": \"/nonexistent\", \"rate\": {}}", out, sizeof(out)),
			-EREMOTEIO);
	TAP_EQ(admin_call(t.backend.admin, "set_device_rate", "{\"device\": 1}", out, sizeof(out)),
			-EREMOTEIO);
	snprintf(params, sizeof(params), "{\"device\": \"%s/rate9\", \"rate\": {\"bps\": -5}}",
			t.backend.dir);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), -EREMOTEIO);
	/* a device made with limits shows them */
	snprintf(params, sizeof(params),
			"{\"device\": \"%s/rate9\", \"rate\": {\"bps\": 8000000, \"pps\": 100}}",
			t.backend.dir);
	TAP_EQ(admin_call(t.backend.admin, "create_device", params, out, sizeof(out)), 0);
	TAP_CHECK(strstr(out, "\"bps\": 8000000") != NULL || strstr(out, "\"bps\":8000000"));
}

int
main(int argc, char **argv)
{
	bool up;

	if (rdma_e2e_args(&t, argc, argv) < 0)
		return 1;
	up = rdma_e2e_start(&t, &a, &b, BUF_LEN, MEM_SIZE);
	if (!up) {
		printf("Bail out! the backend did not start\n");
		child_dump_log(&t.backend);
		child_cleanup(&t.backend);
		return 1;
	}
	TAP_RUN(bandwidth);
	TAP_RUN(live_change);
	TAP_RUN(packet_rate);
	TAP_RUN(ethernet_policed);
	TAP_RUN(bad_input);
	tap_case_failed = 0;
	rdma_e2e_stop(&t, &a, &b);
	tap_failed += tap_case_failed;
	child_cleanup(&t.backend);
	return tap_done();
}
