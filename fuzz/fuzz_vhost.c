/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vhost-user messages as a frontend may send them, through what the
 * backend adds to librte_vhost (vhost/vdev.c): the connection's lifecycle
 * (on_new_connection, a second frontend refused, on_destroy_connection
 * freeing everything), the extern message handlers (GET_CONFIG and
 * SET_CONFIG of the config space, RESET_DEVICE, the stops before
 * GET_VRING_BASE, SET_VRING_ENABLE of the control queue and the messages
 * that remap rings), feature negotiation (learn_features) and the device's
 * start when every vring is ready (on_new_device, on_vring_state_changed).
 *
 * The harness is the frontend: it connects to the device's socket (in a
 * temporary folder), sends the input's messages, reads what comes back,
 * closes, and waits until the backend has dropped the connection, so each
 * input starts from a device with no frontend, and holds no more file
 * descriptors or heap allocations than before it. Guest memory is a 1 MiB
 * memfd. The data path runs (its thread serves the queues the frontend
 * sets up); the control thread's loop does not.
 *
 * An input is a list of messages, each: u8 which (bits 0-4 pick a request
 * of the table below, bit 5 sets NEED_REPLY, bit 6 keeps the payload raw,
 * bit 7 sends a second connection's attempt instead), u8 length, the
 * payload. Unless raw, the harness makes the payload's size the request's,
 * keeps features to those offered, bounds vring indices and makes SET_MEM_TABLE's regions lie in
 * the memfd and SET_VRING_ADDR's addresses in its first region; KICK and CALL carry an eventfd,
 * SET_MEM_TABLE the memfd once per region. A raw SET_MEM_TABLE carries the
 * memfd once; any other raw message as many eventfds as its length modulo
 * 3, where the protocol has none or one, but for those whose vring index
 * librte_vhost checks before any handler: it drops the connection on an
 * index out of range and keeps the message's fds (22.11 to 25.11,
 * vhost_user_check_and_alloc_queue_pair()), which the backend never sees.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "common/event_loop.h"
#include "common/log.h"
#include "net/net_switch.h"
#include "vhost/vdev.h"
#include "vhost/vhost_msg.h"

#define MEM_SZ      (1u << 20)
#define MAX_MSGS    48
#define MAX_REGIONS 8
#define N_VRINGS    8
#define RAW         0x40
#define SECOND      0x80
#define NEED_REPLY  0x20
#define VERSION_1   0x1u /* the header's version bits */
#define PAYLOAD_MAX (VUR_VHOST_CONFIG_HDR_SIZE + VUR_VHOST_USER_MAX_CONFIG_SIZE)
/*
 * How long a connection may take to appear (an input the backend refuses at
 * once goes on against a closed socket after it), and to go after we close
 * it: only a hang should exceed the latter, not a campaign niced beside
 * builds on a loaded machine (2 s did, twice, in a 20-minute campaign).
 */
#define WAIT_CONNECT_MS    2000
#define WAIT_DISCONNECT_MS 20000
/* for librte_vhost to free what a gone connection had, before check_leaks() makes sure */
#define WAIT_FDS_MS 1000

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

RTE_LOG_REGISTER_SUFFIX(vur_logtype_app, app, INFO);

enum fd_kind { FD_NONE, FD_EVENT, FD_MEM };

/* The requests (vhost-user.rst's numbers), their payload sizes and fds. */
static const struct {
	uint32_t request;
	uint32_t size;
	enum fd_kind fd;
} requests[] = {
	{ 1, 0, FD_NONE },                   /* GET_FEATURES */
	{ 2, 8, FD_NONE },                   /* SET_FEATURES */
	{ 3, 0, FD_NONE },                   /* SET_OWNER */
	{ 5, 8 + 32 * MAX_REGIONS, FD_MEM }, /* SET_MEM_TABLE (the size: its regions') */
	{ 8, 8, FD_NONE },                   /* SET_VRING_NUM */
	{ 9, 40, FD_NONE },                  /* SET_VRING_ADDR */
	{ 10, 8, FD_NONE },                  /* SET_VRING_BASE */
	{ 11, 8, FD_NONE },                  /* GET_VRING_BASE */
	{ 12, 8, FD_EVENT },                 /* SET_VRING_KICK */
	{ 13, 8, FD_EVENT },                 /* SET_VRING_CALL */
	{ 15, 0, FD_NONE },                  /* GET_PROTOCOL_FEATURES */
	{ 16, 8, FD_NONE },                  /* SET_PROTOCOL_FEATURES */
	{ 17, 0, FD_NONE },                  /* GET_QUEUE_NUM */
	{ 18, 8, FD_NONE },                  /* SET_VRING_ENABLE */
	{ 24, PAYLOAD_MAX, FD_NONE },        /* GET_CONFIG (the size: header + its size field) */
	{ 25, PAYLOAD_MAX, FD_NONE },        /* SET_CONFIG */
	{ 34, 0, FD_NONE },                  /* RESET_DEVICE */
	{ 39, 8, FD_NONE },                  /* SET_STATUS */
	{ 40, 0, FD_NONE },                  /* GET_STATUS */
	{ 4, 0, FD_NONE },                   /* RESET_OWNER */
};

/* What the process holds between inputs. */
struct footprint {
	int fds;
	unsigned int allocs;
};

static char dir[64], path[96];
static struct vur_event_loop loop;
static struct vur_switch sw;
static struct vur_dev *dev;
static int memfd;
static uint64_t region_uaddr, region_size; /* the first region, as last set */

static void
cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *args[] = { "fuzz", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
		"--no-telemetry", NULL };
	struct vur_dev_params dp = {
		.path = path,
		.port_speed = true,
		.max_qps = 8,
		.max_cqs = 8,
		.mtu = 1500,
		.mac = { 0x52, 0x54, 0, 0, 0, 1 },
		.loopback_mbps = 10000,
		.loop = &loop,
		.sw = &sw,
	};

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	snprintf(dir, sizeof(dir), "/tmp/vur-fuzz-vhost-XXXXXX");
	if (mkdtemp(dir) == NULL || rte_eal_init((int)RTE_DIM(args) - 1, args) < 0)
		abort();
	snprintf(path, sizeof(path), "%s/vhost", dir);
	atexit(cleanup);
	/* FUZZ_LOG=1: the backend's and librte_vhost's logs, to see what an input does */
	rte_log_set_global_level(getenv("FUZZ_LOG") != NULL ? RTE_LOG_INFO : RTE_LOG_EMERG);
	/* the control thread's loop, not run: the control queue is fuzz_ctrl's */
	loop.epfd = epoll_create1(EPOLL_CLOEXEC);
	loop.stop_fd = -1;
	loop.name = "fuzz";
	memfd = memfd_create("fuzz-guest", MFD_CLOEXEC);
	if (loop.epfd < 0 || memfd < 0 || ftruncate(memfd, MEM_SZ) != 0)
		abort();
	/* the data path, as the backend runs it: the engine and the queues need one */
	if (vur_switch_start(&sw) != 0)
		abort();
	dev = vur_dev_create(&dp);
	if (dev == NULL)
		abort();
	return 0;
}

static int
connect_dev(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		abort();
	return s;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Whether the device has a frontend (@connected) or none within @wait_ms. */
static bool
wait_vid(bool connected, uint64_t wait_ms)
{
	struct vur_dev_info info;
	uint64_t until = now_ms() + wait_ms;

	for (;;) {
		if (vur_dev_info(path, 0, &info) != 0)
			abort();
		if ((info.vid >= 0) == connected)
			return true;
		if (now_ms() > until)
			return false;
		usleep(100);
	}
}

/* Until the device has no frontend. */
static void
wait_dropped(void)
{
	if (!wait_vid(false, WAIT_DISCONNECT_MS)) {
		fprintf(stderr, "fuzz: the backend never dropped the connection\n");
		abort();
	}
}

/*
 * Whether @s has something to read within @wait_ms. libFuzzer's timer
 * signal (it checks -timeout every second) interrupts poll(): wait on
 * until the time is up, or a slow close would count as none (EINTR aborted
 * inputs as "never closed" on a loaded machine).
 */
static bool
readable(int s, int wait_ms)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	uint64_t until = now_ms() + (uint64_t)wait_ms;
	int n;

	for (;;) {
		n = poll(&p, 1, wait_ms);
		if (n >= 0 || errno != EINTR)
			return n > 0;
		if (now_ms() >= until)
			return false;
		wait_ms = (int)(until - now_ms());
	}
}

/* recv() that a signal does not cut short: > 0 bytes, 0 at the end, < 0 an error. */
static ssize_t
recv_some(int s, char *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(s, buf, len, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Read whatever replies came, until the backend has nothing more for now. */
static bool
drain(int s, int wait)
{
	char buf[4096];

	while (readable(s, wait)) {
		if (recv_some(s, buf, sizeof(buf)) <= 0)
			return false; /* the backend closed it */
		wait = 0;
	}
	return true;
}

/*
 * The end of an input: our side shut for writing, so the backend reads
 * the end of the stream after our last message and closes its side;
 * whatever it answered meanwhile is read. No timed wait for the last
 * replies, which a loaded machine can outlast (an input's coverage would
 * then depend on timing): the close says they are all sent.
 */
static void
drain_until_closed(int s)
{
	char buf[4096];

	shutdown(s, SHUT_WR);
	for (;;) {
		if (!readable(s, WAIT_DISCONNECT_MS)) {
			fprintf(stderr, "fuzz: the backend never closed the connection\n");
			abort();
		}
		if (recv_some(s, buf, sizeof(buf)) <= 0)
			return;
	}
}

/* Whether an eventfd was ever written to (a call fd the backend signalled) or not. */
static void
show_eventfd_count(const char *fd)
{
	char name[64], line[128];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/self/fdinfo/%s", fd);
	f = fopen(name, "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "eventfd-count:", 14) == 0)
			fprintf(stderr, "fuzz:     %s", line);
	fclose(f);
}

/* The file descriptors the process holds, but the one that reads them; @show lists them. */
static int
count_fds(bool show)
{
	DIR *d = opendir("/proc/self/fd");
	char link[64], target[256];
	struct dirent *e;
	ssize_t len;
	int n = 0;

	if (d == NULL)
		abort();
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		if (!show)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		fprintf(stderr, "fuzz:   fd %s -> %s\n", e->d_name, target);
		if (strcmp(target, "anon_inode:[eventfd]") == 0)
			show_eventfd_count(e->d_name);
	}
	closedir(d);
	return n - 1;
}

/*
 * A connection of ours the backend serves (it answered GET_FEATURES).
 * librte_vhost's thread takes connections in order, each once it is done
 * with the last, and serves one frontend at a time: every earlier
 * connection has then gone, its fds closed, the input's second one
 * (accepted late on a loaded machine, after the first went) too.
 */
static int
settled_connection(void)
{
	static const uint8_t get_features[12] = { 1, 0, 0, 0, VERSION_1 };
	uint64_t until = now_ms() + WAIT_DISCONNECT_MS;
	char buf[64];
	ssize_t sent;
	int s;

	for (;;) {
		s = connect_dev();
		sent = send(s, get_features, sizeof(get_features), MSG_NOSIGNAL);
		if (sent == (ssize_t)sizeof(get_features) && readable(s, WAIT_DISCONNECT_MS) &&
				recv_some(s, buf, sizeof(buf)) > 0)
			return s;
		close(s); /* refused: an earlier connection was still there */
		if (now_ms() > until) {
			fprintf(stderr, "fuzz: the backend never served a connection\n");
			abort();
		}
		usleep(1000);
	}
}

/* Allocations in the EAL heap (librte_vhost's devices and vrings, the backend's objects). */
static unsigned int
heap_allocs(void)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(0, &st) != 0)
		abort();
	return st.alloc_count;
}

static bool
as_before(const struct footprint *before)
{
	return count_fds(false) <= before->fds && heap_allocs() <= before->allocs;
}

/*
 * Every fd a connection brought (the memory table's, the vrings' eventfds)
 * is closed once it has gone, and what it allocated is freed, by
 * librte_vhost after the backend saw it go. A short wait sees that for most
 * inputs; the others (a second connection, a loaded machine) are settled
 * by a connection the backend serves, and what is open beyond its two ends
 * then, or still allocated once it has gone too, is a leak: a finding at
 * once, not after a campaign ran out of descriptors or heap (both
 * happened, after some 300,000 inputs: librte_vhost kept the fd of a
 * region it failed to map, and its RESET_OWNER lost each vring's buffers).
 */
static void
check_leaks(const struct footprint *before, bool second)
{
	uint64_t until = now_ms() + WAIT_FDS_MS;
	int n, s;

	while (!second && !as_before(before))
		if (now_ms() > until)
			second = true;
		else
			usleep(100);
	if (!second)
		return;
	s = settled_connection();
	n = count_fds(false) - 2; /* its two ends */
	if (n > before->fds) {
		fprintf(stderr, "fuzz: the input leaked %d fds; open now:\n", n - before->fds);
		count_fds(true);
		abort();
	}
	close(s);
	wait_dropped();
	/* that connection's own frees follow at once, in librte_vhost's thread */
	until = now_ms() + WAIT_FDS_MS;
	while (heap_allocs() > before->allocs)
		if (now_ms() > until) {
			fprintf(stderr, "fuzz: the input kept %u heap allocations\n",
					heap_allocs() - before->allocs);
			abort();
		} else {
			usleep(100);
		}
}

/* Whether request @r names a vring by a u32 index (state or address). */
static bool
has_vring_state(unsigned int r)
{
	switch (requests[r].request) {
	case 8:
	case 9:
	case 10:
	case 11:
	case 18:
		return true;
	default:
		return false;
	}
}

/* The payload of @req made what a well-behaved frontend's is, but for its values. */
static uint32_t
fix_payload(unsigned int r, uint8_t *p, uint32_t len, int *nfds)
{
	uint32_t size = requests[r].size;

	memset(p + len, 0, PAYLOAD_MAX + 8 + 32 * MAX_REGIONS - len);
	switch (requests[r].request) {
	case 5: { /* SET_MEM_TABLE: u32 nregions, u32 padding, regions */
		uint32_t n = 1 + p[0] % 2;
		uint64_t *reg = (uint64_t *)(p + 8);

		memcpy(p, &n, 4);
		for (uint32_t i = 0; i < n; i++, reg += 4) {
			/* halves of the memfd, guest addresses as given but page aligned */
			reg[0] &= ~0xfffULL;
			reg[1] = MEM_SZ / 2;
			reg[2] = (reg[2] & ~0xfffULL) | 0x7f0000000000ULL;
			reg[3] = (uint64_t)i * (MEM_SZ / 2);
		}
		reg = (uint64_t *)(p + 8);
		region_uaddr = reg[2];
		region_size = reg[1];
		*nfds = (int)n;
		return 8 + 32 * n;
	}
	case 2:
	case 16: { /* features: of those offered, or librte_vhost drops the frontend */
		uint64_t f;

		memcpy(&f, p, 8);
		f &= requests[r].request == 2 ? dev->features : dev->protocol_features;
		memcpy(p, &f, 8);
		break;
	}
	case 8:
	case 10:
	case 11:
	case 18: /* a vring state: index, num */
		p[0] %= N_VRINGS;
		memset(p + 1, 0, 3);
		break;
	case 9: /* index, flags, desc, used, avail, log: inside the first region */
		p[0] %= N_VRINGS;
		memset(p + 1, 0, 7);
		for (int i = 0; i < 3 && region_size != 0; i++) {
			uint64_t a;

			memcpy(&a, p + 8 + 8 * i, 8);
			a = region_uaddr + (a % region_size & ~0xfULL);
			memcpy(p + 8 + 8 * i, &a, 8);
		}
		break;
	case 12:
	case 13: /* the vring index, and the fd unless bit 8 says none */
		p[0] %= N_VRINGS;
		*nfds = (p[1] & 1) ? 0 : 1;
		break;
	case 24:
	case 25: { /* offset, size, flags, then the region */
		uint32_t sz;

		memcpy(&sz, p + 4, 4);
		sz %= VUR_VHOST_USER_MAX_CONFIG_SIZE + 1;
		memcpy(p + 4, &sz, 4);
		size = VUR_VHOST_CONFIG_HDR_SIZE + sz;
		break;
	}
	default:
		break;
	}
	if (requests[r].fd == FD_EVENT && *nfds < 0)
		*nfds = 1;
	return size;
}

static bool
send_msg(int s, unsigned int r, uint32_t flags, const uint8_t *p, uint32_t len, int nfds,
		enum fd_kind kind)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MAX_REGIONS)];
		struct cmsghdr align;
	} u;
	uint8_t hdr[12];
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)(uintptr_t)p, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int fds[MAX_REGIONS];
	struct cmsghdr *c;
	bool ok;

	memcpy(hdr, &requests[r].request, 4);
	memcpy(hdr + 4, &flags, 4);
	memcpy(hdr + 8, &len, 4);
	for (int i = 0; i < nfds; i++)
		fds[i] = kind == FD_MEM ? memfd : eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (nfds > 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	ok = sendmsg(s, &mh, MSG_NOSIGNAL) == (ssize_t)(sizeof(hdr) + len);
	for (int i = 0; i < nfds; i++)
		if (kind == FD_EVENT && fds[i] >= 0)
			close(fds[i]);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(8) uint8_t p[PAYLOAD_MAX + 8 + 32 * MAX_REGIONS];
	int s, second = -1, nfds;
	struct footprint before;
	enum fd_kind kind;
	uint32_t len, flags;
	unsigned int r;
	uint8_t which;

	region_uaddr = region_size = 0;
	wait_dropped();
	before.fds = count_fds(false);
	before.allocs = heap_allocs();
	s = connect_dev();
	wait_vid(true, WAIT_CONNECT_MS); /* or refused at once: the input goes on against a
					    closed socket */
	for (int m = 0; m < MAX_MSGS && size >= 2; m++) {
		which = data[0];
		len = RTE_MIN((uint32_t)data[1], (uint32_t)(size - 2));
		memcpy(p, data + 2, len);
		data += 2 + len;
		size -= 2 + len;
		if (which & SECOND) { /* another frontend on the same socket: refused */
			if (second < 0) {
				second = connect_dev();
				drain(second, 200); /* until the backend closes it */
			}
			continue;
		}
		r = (which & 0x1f) % RTE_DIM(requests);
		nfds = -1;
		kind = requests[r].fd;
		if (!(which & RAW)) {
			len = fix_payload(r, p, len, &nfds);
		} else if (kind == FD_MEM) {
			nfds = 1;
		} else if (kind == FD_EVENT || !has_vring_state(r)) {
			/* fds where none belong: the backend's own answers must close them too */
			nfds = (int)(len % 3);
			kind = FD_EVENT;
		}
		flags = VERSION_1 | ((which & NEED_REPLY) ? VUR_VHOST_USER_NEED_REPLY : 0);
		if (!send_msg(s, r, flags, p, len, RTE_MAX(nfds, 0), kind) || !drain(s, 0))
			break;
	}
	drain_until_closed(s);
	close(s);
	if (second >= 0)
		close(second);
	wait_dropped();
	check_leaks(&before, second >= 0);
	return 0;
}
