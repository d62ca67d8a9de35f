/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices at runtime (issue 25): one backend, 32 devices created over the
 * admin RPC, a virtio-user frontend on each; half of them deleted while the
 * other half carries RDMA (RC WRITE and SEND) and Ethernet traffic between
 * pairs of them, then made again and used; no error on the devices that
 * stay, the deleted sockets gone, and the backend's file descriptors and
 * resident memory back where they were once every runtime device is gone.
 *
 * Usage: virtio_user_tenant_test PATH/TO/vhost-user-rdma [EAL arguments...]
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "admin.h"
#include "eth_util.h"
#include "rdma_e2e.h"
#include "vur_net.h"

#define N_DEVS    32
#define HALF      (N_DEVS / 2) /* 0..HALF-1 stay, HALF..N_DEVS-1 go and come back */
#define BUF_LEN   (64 * 1024)
#define MEM_SIZE  (4 << 20)
#define XFER_LEN  4096
#define SEND_LEN  256
#define ROUND_CAP 100000

struct tdev {
	char path[128];
	struct rdma_ep ep;
	uint32_t qpn; /* its RC QP, connected to its pair's (i ^ 1) */
};

static struct rdma_e2e t;
static struct tdev devs[N_DEVS];
static atomic_bool traffic_stop;
static atomic_uint traffic_rounds;
static atomic_uint traffic_errors;
static char traffic_why[256];

static int
rpc(const char *method, const char *params, char *out, size_t size)
{
	return admin_call(t.backend.admin, method, params, out, size);
}

static int
create_dev(unsigned int i)
{
	char params[256], out[4096];

	snprintf(params, sizeof(params),
			"{\"device\": \"%s\", \"max_qps\": 4, \"max_cqs\": 2, \"mtu\": 1500}",
			devs[i].path);
	return rpc("create_device", params, out, sizeof(out));
}

static int
delete_dev(unsigned int i)
{
	char params[256], out[4096];

	snprintf(params, sizeof(params), "{\"device\": \"%s\"}", devs[i].path);
	return rpc("delete_device", params, out, sizeof(out));
}

/* A frontend on device @i: PD, DMA MR, GID 10.0.0.(i + 1), CQ. */
static int
attach(unsigned int i)
{
	return rdma_ep_open(&devs[i].ep, devs[i].path, (uint8_t)(i + 1), BUF_LEN, MEM_SIZE);
}

/* Connect the RC QPs of the pairs among @first..@last (i with i + 1). */
static bool
connect_pairs(unsigned int first, unsigned int last)
{
	bool ok = true;

	for (unsigned int i = first; i < last; i += 2)
		ok = ok &&
				rdma_rc_pair(&devs[i].ep, &devs[i + 1].ep, &devs[i].qpn,
						&devs[i + 1].qpn);
	return ok;
}

static void
fail(const char *fmt, unsigned int i, int v)
{
	if (atomic_fetch_add(&traffic_errors, 1) == 0)
		snprintf(traffic_why, sizeof(traffic_why), fmt, i, v);
}

static bool
cqe_ok(struct rdma_ep *e, uint64_t wr_id, unsigned int i)
{
	struct vur_user_wc wc;

	if (rdma_next_cqe(e, &wc) != 1) {
		fail("device %u: no CQE (%d)", i, 0);
		return false;
	}
	if (wc.status != VUR_USER_WC_SUCCESS || wc.wr_id != wr_id) {
		fail("device %u: CQE status %d", i, wc.status);
		return false;
	}
	return true;
}

/*
 * One round between devices @i and @i + 1: an RC WRITE and a SEND from i,
 * every byte checked on the other side, and an Ethernet frame each way.
 */
static bool
exchange(unsigned int i, uint32_t round)
{
	struct rdma_ep *a = &devs[i].ep, *b = &devs[i + 1].ep;
	struct vur_user_sge rs = rdma_sge(b, XFER_LEN, SEND_LEN),
			    ss = rdma_sge(a, XFER_LEN, SEND_LEN);
	struct vur_user_send_wr wr;
	uint8_t frame[128], got[2048];
	size_t len;
	uint32_t marker;

	rdma_fill(a->buf, XFER_LEN + SEND_LEN, round * 64 + i);
	if (rdma_post_recv(b, devs[i + 1].qpn, 1, &rs, 1) != 0 ||
			rdma_post_rdma(a, devs[i].qpn, VUR_USER_WR_RDMA_WRITE, 0, XFER_LEN, b->addr,
					b->mr.rkey, 2) != 0) {
		fail("device %u: post failed (%d)", i, 0);
		return false;
	}
	wr = rdma_req(3, VUR_USER_WR_SEND, VUR_USER_SEND_SIGNALED, &ss, 1);
	if (rdma_post_send(a, devs[i].qpn, &wr) != 0) {
		fail("device %u: post send failed (%d)", i, 0);
		return false;
	}
	if (!cqe_ok(a, 2, i) || !cqe_ok(a, 3, i) || !cqe_ok(b, 1, i + 1))
		return false;
	if (memcmp(a->buf, b->buf, XFER_LEN + SEND_LEN) != 0) {
		fail("device %u: data differ (round %d)", i + 1, (int)round);
		return false;
	}
	for (unsigned int dir = 0; dir < 2; dir++) {
		struct rdma_ep *from = dir ? b : a, *to = dir ? a : b;

		marker = (round << 8) | (i << 1) | dir;
		eth_frame(frame, sizeof(frame), to->mac, from->mac, marker);
		if (vur_user_net_send(from->d, frame, sizeof(frame)) != 0 ||
				eth_recv_marked(to->d, marker, got, sizeof(got), &len, 5000) != 0) {
			fail("device %u: Ethernet frame lost (dir %d)", i, (int)dir);
			return false;
		}
	}
	return true;
}

/* The devices that stay: rounds on every pair until told to stop. */
static void *
traffic(void *arg)
{
	(void)arg;
	for (uint32_t round = 1; !atomic_load(&traffic_stop) && round < ROUND_CAP; round++) {
		for (unsigned int i = 0; i < HALF; i += 2)
			if (!exchange(i, round))
				return NULL;
		atomic_fetch_add(&traffic_rounds, 1);
	}
	return NULL;
}

static int
backend_fds(void)
{
	char dir[64];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)t.backend.pid);
	d = opendir(dir);
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static long
backend_rss_kib(void)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)t.backend.pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * The backend's fds once they settle at @want (within 5 s): the admin RPC's
 * connection of the last request closes when the backend reads its end.
 */
static int
backend_fds_settled(int want)
{
	int n = backend_fds();

	for (int i = 0; i < 500 && n != want; i++) {
		poll(NULL, 0, 10);
		n = backend_fds();
	}
	return n;
}

/* How many devices get_devices lists. */
static int
device_count(void)
{
	static char out[256 * 1024];
	const char *p = out;
	int n = 0;

	if (rpc("get_devices", NULL, out, sizeof(out)) != 0)
		return -1;
	while ((p = strstr(p, "\"device\":")) != NULL) {
		n++;
		p++;
	}
	return n;
}

static void
close_all(unsigned int first, unsigned int last)
{
	for (unsigned int i = first; i < last; i++) {
		vur_user_close(devs[i].ep.d);
		devs[i].ep.d = NULL;
	}
}

static int fds0;
static long rss0;

static void
create_32_and_attach(void)
{
	bool ok = true;

	fds0 = backend_fds();
	rss0 = backend_rss_kib();
	printf("# before: %d fds, %ld KiB resident\n", fds0, rss0);
	for (unsigned int i = 0; i < N_DEVS; i++)
		TAP_EQ(create_dev(i), 0);
	TAP_EQ(device_count(), N_DEVS + 1);
	for (unsigned int i = 0; i < N_DEVS && ok; i++) {
		int ret = attach(i);

		TAP_EQ(ret, 0);
		ok = ret == 0;
	}
	TAP_CHECK(ok && connect_pairs(0, N_DEVS));
	/* every pair works before anything goes */
	for (unsigned int i = 0; i < N_DEVS && ok; i += 2)
		TAP_CHECK(exchange(i, 0));
	TAP_EQ(atomic_load(&traffic_errors), 0);
}

static void
delete_half_under_traffic(void)
{
	pthread_t th;
	unsigned int before;

	atomic_store(&traffic_stop, false);
	TAP_EQ(pthread_create(&th, NULL, traffic, NULL), 0);
	while (atomic_load(&traffic_rounds) < 2 && atomic_load(&traffic_errors) == 0)
		poll(NULL, 0, 10);
	before = atomic_load(&traffic_rounds);
	for (unsigned int i = HALF; i < N_DEVS; i++) {
		TAP_EQ(delete_dev(i), 0);
		TAP_CHECK(access(devs[i].path, F_OK) != 0 && errno == ENOENT);
		/* its frontend sees the connection closed: nothing more to ask */
		vur_user_close_abrupt(devs[i].ep.d);
		devs[i].ep.d = NULL;
	}
	TAP_EQ(device_count(), HALF + 1);
	/* the ones deleted are unknown now; a second delete is refused */
	TAP_EQ(delete_dev(HALF), -EREMOTEIO);
	/* made again, on the same paths, and used while the others still run */
	for (unsigned int i = HALF; i < N_DEVS; i++) {
		TAP_EQ(create_dev(i), 0);
		TAP_EQ(attach(i), 0);
	}
	TAP_CHECK(connect_pairs(HALF, N_DEVS));
	for (unsigned int i = HALF; i < N_DEVS; i += 2)
		TAP_CHECK(exchange(i, 1));
	while (atomic_load(&traffic_rounds) < before + 2 && atomic_load(&traffic_errors) == 0)
		poll(NULL, 0, 10);
	atomic_store(&traffic_stop, true);
	pthread_join(th, NULL);
	printf("# %u rounds on the %d devices that stayed (%u before the deletes)\n",
			atomic_load(&traffic_rounds), HALF, before);
	if (atomic_load(&traffic_errors) != 0)
		printf("# traffic: %s\n", traffic_why);
	TAP_EQ(atomic_load(&traffic_errors), 0);
	TAP_EQ(device_count(), N_DEVS + 1);
}

/* Every runtime device gone: the backend's fds and memory as before. */
static void
nothing_left_behind(void)
{
	int fds;
	long rss1, rss2;

	close_all(0, N_DEVS);
	for (unsigned int i = 0; i < N_DEVS; i++)
		TAP_EQ(delete_dev(i), 0);
	TAP_EQ(device_count(), 1);
	fds = backend_fds_settled(fds0);
	rss1 = backend_rss_kib();
	printf("# after: %d fds, %ld KiB resident\n", fds, rss1);
	TAP_EQ(fds, fds0);
	/* once more: what a leak would add up is the growth of a second round */
	for (unsigned int i = 0; i < N_DEVS; i++)
		TAP_EQ(create_dev(i), 0);
	for (unsigned int i = 0; i < N_DEVS; i++)
		TAP_EQ(attach(i), 0);
	TAP_CHECK(connect_pairs(0, N_DEVS));
	for (unsigned int i = 0; i < N_DEVS; i += 2)
		TAP_CHECK(exchange(i, 2));
	close_all(0, N_DEVS);
	for (unsigned int i = 0; i < N_DEVS; i++)
		TAP_EQ(delete_dev(i), 0);
	TAP_EQ(backend_fds_settled(fds0), fds0);
	rss2 = backend_rss_kib();
	printf("# after a second round: %d fds, %ld KiB resident\n", backend_fds(), rss2);
	TAP_CHECK(rss0 > 0 && rss2 > 0);
	TAP_CHECK(rss2 <= rss1 + 8 * 1024);
	TAP_EQ(atomic_load(&traffic_errors), 0);
}

int
main(int argc, char **argv)
{
	const char *asan = getenv("ASAN_OPTIONS");
	char env[512];
	struct rlimit rl;
	bool up;

	if (rdma_e2e_args(&t, argc, argv) < 0)
		return 1;
	/* 33 devices of up to 13 virtqueues, two eventfds each, on both sides */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* ASan keeps freed memory aside (256 MiB): no measure of RSS through that */
	snprintf(env, sizeof(env), "%s%squarantine_size_mb=1", asan != NULL ? asan : "",
			asan != NULL && asan[0] != '\0' ? ":" : "");
	setenv("ASAN_OPTIONS", env, 1);
	{
		const struct child_opts o = { .eal_args = t.eal_args, .n_sockets = 1 };

		up = child_start(&t.backend, t.backend_bin, &o) == 0 &&
				child_wait_socket(&t.backend, RDMA_E2E_WAIT_MS) == 0;
	}
	if (!up) {
		printf("Bail out! the backend did not start\n");
		child_dump_log(&t.backend);
		child_cleanup(&t.backend);
		return 1;
	}
	for (unsigned int i = 0; i < N_DEVS; i++)
		snprintf(devs[i].path, sizeof(devs[i].path), "%s/tenant%02u", t.backend.dir, i);
	TAP_RUN(create_32_and_attach);
	TAP_RUN(delete_half_under_traffic);
	TAP_RUN(nothing_left_behind);
	{
		int status;

		close_all(0, N_DEVS);
		status = child_stop(&t.backend, SIGTERM, RDMA_E2E_WAIT_MS);
		tap_case_failed = 0;
		TAP_CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
		if (tap_failed || tap_case_failed)
			child_dump_log(&t.backend);
		tap_failed += tap_case_failed;
		child_cleanup(&t.backend);
	}
	return tap_done();
}
