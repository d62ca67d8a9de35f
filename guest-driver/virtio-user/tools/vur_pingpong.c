/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vur-pingpong: rdma-core's ibv_rc_pingpong, ibv_uc_pingpong and
 * ibv_ud_pingpong on a virtio-net RoCE device driven through
 * libvirtio_rdma_user, with their options, their out-of-band exchange
 * (pp_exch.c) and their message pattern, so that either end can be one of
 * those tools in a guest.
 *
 * The tool is the device's driver, so it also does what a kernel does for
 * the examples: it puts the port's default GID, the IPv6 link-local address
 * made from the MAC, in the GID table, and finds a peer's MAC from its
 * link-local GID as Linux does for RoCE.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pp_exch.h"
#include "vur_user.h"
#include "vur_verbs.h"

#define RECV_WRID 1
#define SEND_WRID 2
#define GRH_LEN   40 /* before every UD receive */
#define QKEY      0x11111111
#define CHECK_MS  100 /* without completions, the QP's state is looked at this often */

struct opts {
	const char *socket;
	const char *server; /* NULL: be the server */
	const char *port;
	uint8_t type;
	uint32_t size;
	uint8_t mtu;
	uint32_t rx_depth;
	uint32_t iters;
	uint8_t gidx;
	bool events;
	bool validate;
	uint32_t linger_ms;
	uint8_t timeout; /* RC: the local ACK timeout, 4.096 us << timeout */
};

struct ctx {
	struct vur_user_dev *d;
	const struct opts *o;
	uint8_t mac[6];
	uint8_t gid[16];
	uint32_t pdn, cqn, qpn, ah;
	struct vur_user_mr mr;
	uint8_t *buf;      /* GRH area, receive area, send area */
	uint32_t buf_size; /* GRH_LEN + 2 * size */
	uint32_t send_flags;
};

static void
usage(const char *argv0)
{
	printf("Usage:\n"
	       "  %s -d SOCKET            start a server and wait for connection\n"
	       "  %s -d SOCKET <host>     connect to server at <host>\n"
	       "\n"
	       "The ping-pong of rdma-core's ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong\n"
	       "on a virtio-net RoCE device, through its vhost-user socket; either end can be\n"
	       "one of those tools.\n"
	       "\n"
	       "Options:\n"
	       "  -d, --ib-dev=SOCKET    the backend's vhost-user socket of the device (required)\n"
	       "  -T, --transport=TYPE   rc (default), uc or ud: which example to talk to\n"
	       "  -p, --port=PORT        listen on/connect to TCP port PORT (default 18515)\n"
	       "  -i, --ib-port=PORT     the device's port (1, the only one)\n"
	       "  -s, --size=SIZE        size of each message (default 4096; ud: 1024)\n"
	       "  -m, --mtu=SIZE         path MTU (default 1024)\n"
	       "  -r, --rx-depth=DEP     receives to post at a time (default 500)\n"
	       "  -n, --iters=ITERS      number of exchanges (default 1000)\n"
	       "  -g, --gid-idx=IDX      the local GID's index; it holds the port's link-local\n"
	       "                         GID, fe80::/64 from the MAC (default 0)\n"
	       "  -e, --events           sleep on CQ events (default poll)\n"
	       "  -c, --chk              validate received buffers\n"
	       "  -L, --linger=MS        keep the QP MS ms after the last completion before\n"
	       "                         closing (default 0): the device still answers a peer\n"
	       "                         that resends its last request because our ACK of it\n"
	       "                         was lost\n"
	       "  -t, --timeout=T        RC: the local ACK timeout, 4.096 us x 2^T, each of\n"
	       "                         7 retries (default 14, 67 ms, as the examples; rdma_cm\n"
	       "                         takes 18, about 1 s, on RoCE)\n"
	       "  -h, --help             this text\n",
			argv0, argv0);
}

static int
mtu_enum(long mtu)
{
	switch (mtu) {
	case 256:
		return VUR_USER_MTU_256;
	case 512:
		return VUR_USER_MTU_512;
	case 1024:
		return VUR_USER_MTU_1024;
	case 2048:
		return VUR_USER_MTU_2048;
	case 4096:
		return VUR_USER_MTU_4096;
	default:
		return -1;
	}
}

/* A whole decimal number within [@min, @max], or -1. */
static long
number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -1;
	return v;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "transport", required_argument, NULL, 'T' },
		{ "port", required_argument, NULL, 'p' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'n' },
		{ "gid-idx", required_argument, NULL, 'g' },
		{ "events", no_argument, NULL, 'e' },
		{ "chk", no_argument, NULL, 'c' },
		{ "linger", required_argument, NULL, 'L' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool size_given = false;
	long v;
	int c;

	*o = (struct opts){ .port = "18515",
		.type = VUR_USER_QPT_RC,
		.size = 4096,
		.mtu = VUR_USER_MTU_1024,
		.rx_depth = 500,
		.iters = 1000,
		.timeout = 14 };
	while ((c = getopt_long(argc, argv, "d:T:p:i:s:m:r:n:g:ecL:t:h", longopts, NULL)) != -1) {
		v = 0;
		switch (c) {
		case 'd':
			o->socket = optarg;
			break;
		case 'T':
			if (strcmp(optarg, "rc") == 0)
				o->type = VUR_USER_QPT_RC;
			else if (strcmp(optarg, "uc") == 0)
				o->type = VUR_USER_QPT_UC;
			else if (strcmp(optarg, "ud") == 0)
				o->type = VUR_USER_QPT_UD;
			else
				v = -1;
			break;
		case 'p':
			o->port = optarg;
			v = number(optarg, 1, 65535);
			break;
		case 'i':
			v = number(optarg, 1, 1);
			break;
		case 's':
			v = number(optarg, 1, 1L << 30);
			o->size = (uint32_t)v;
			size_given = true;
			break;
		case 'm':
			v = mtu_enum(number(optarg, 256, 4096));
			o->mtu = (uint8_t)v;
			break;
		case 'r':
			v = number(optarg, 1, 16383);
			o->rx_depth = (uint32_t)v;
			break;
		case 'n':
			v = number(optarg, 1, 1L << 30);
			o->iters = (uint32_t)v;
			break;
		case 'g':
			v = number(optarg, 0, 255);
			o->gidx = (uint8_t)v;
			break;
		case 'e':
			o->events = true;
			break;
		case 'c':
			o->validate = true;
			break;
		case 'L':
			v = number(optarg, 0, 600000);
			o->linger_ms = (uint32_t)v;
			break;
		case 't':
			v = number(optarg, 1, 31); /* 0 would be no timer: a lost tail hangs */
			o->timeout = (uint8_t)v;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			return -1;
		}
		if (v < 0) {
			fprintf(stderr, "vur-pingpong: invalid value '%s' for -%c\n", optarg, c);
			return -1;
		}
	}
	if (optind == argc - 1)
		o->server = argv[optind];
	else if (optind < argc)
		return -1;
	if (o->socket == NULL) {
		fprintf(stderr, "vur-pingpong: -d SOCKET is required\n");
		return -1;
	}
	if (o->type == VUR_USER_QPT_UD && !size_given)
		o->size = 1024;
	return 0;
}

/* The MAC inside a link-local EUI-64 GID: 0, or -1 for any other GID. */
static int
gid_mac(const uint8_t gid[16], uint8_t mac[6])
{
	static const uint8_t prefix[8] = { 0xfe, 0x80 };

	if (memcmp(gid, prefix, 8) != 0 || gid[11] != 0xff || gid[12] != 0xfe)
		return -1;
	mac[0] = gid[8] ^ 2;
	mac[1] = gid[9];
	mac[2] = gid[10];
	mac[3] = gid[13];
	mac[4] = gid[14];
	mac[5] = gid[15];
	return 0;
}

static void
gid_str(const uint8_t gid[16], char *s, size_t len)
{
	snprintf(s, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7], gid[8],
			gid[9], gid[10], gid[11], gid[12], gid[13], gid[14], gid[15]);
}

static int
fail(const char *what, int ret)
{
	fprintf(stderr, "vur-pingpong: %s: %s\n", what, strerror(-ret));
	return ret;
}

/* Device, GID, PD, MR over the buffer, CQ and QP in INIT, as the examples' pp_init_ctx. */
static int
init_ctx(struct ctx *c)
{
	const struct opts *o = c->o;
	struct vur_user_params p;
	struct vur_user_config cfg;
	struct vur_user_port_attr port;
	struct vur_user_qp_init_attr ia = { .qp_type = o->type };
	struct vur_user_qp_attr at = { .qp_state = VUR_USER_QPS_INIT, .qkey = QKEY };
	uint16_t queue = 64;
	int ret;

	/* room for rx_depth receives and their CQEs */
	while (queue < o->rx_depth + 1)
		queue *= 2;
	vur_user_params_init(&p, o->socket);
	p.rdma_queue_size = queue;
	p.mem_size = ((size_t)GRH_LEN + 2 * o->size + (64u << 20) + 4095) & ~(size_t)4095;
	ret = vur_user_open(&p, &c->d);
	if (ret < 0)
		return fail(o->socket, ret);
	ret = vur_user_read_config(c->d, &cfg);
	if (ret < 0)
		return fail("reading the configuration", ret);
	memcpy(c->mac, cfg.mac, 6);
	ret = vur_user_query_port(c->d, &port);
	if (ret < 0)
		return fail("querying the port", ret);
	/* a UD message is one packet */
	if (o->type == VUR_USER_QPT_UD && o->size > (128u << port.active_mtu)) {
		fprintf(stderr, "vur-pingpong: requested size larger than the port MTU (%u)\n",
				128u << port.active_mtu);
		return -EINVAL;
	}
	pp_link_local_gid(c->mac, c->gid);
	ret = vur_user_add_gid(c->d, o->gidx, c->gid);
	if (ret < 0)
		return fail("adding the link-local GID", ret);
	c->buf_size = GRH_LEN + 2 * o->size;
	c->buf = vur_user_alloc_buf(c->d, c->buf_size);
	if (c->buf == NULL)
		return fail("allocating the buffer", -errno);
	memset(c->buf, 0x7b, c->buf_size);       /* the examples' filling */
	memset(c->buf + GRH_LEN, 0xee, o->size); /* nothing received yet */
	ret = vur_user_create_pd(c->d, &c->pdn);
	if (ret == 0)
		ret = vur_user_reg_mr(c->d, c->pdn, VUR_USER_ACCESS_LOCAL_WRITE, c->buf,
				c->buf_size, vur_user_driver_addr(c->d, c->buf), &c->mr);
	if (ret == 0)
		ret = vur_user_create_cq(c->d, o->rx_depth + 1, &c->cqn);
	if (ret < 0)
		return fail("PD, MR or CQ", ret);
	ia.pdn = c->pdn;
	ia.send_cqn = ia.recv_cqn = c->cqn;
	ia.cap = (struct vur_user_qp_cap){ .max_send_wr = 1,
		.max_recv_wr = o->rx_depth,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.max_inline_data = VUR_USER_QPT_UD == o->type ? 0 : 512 };
	ret = vur_user_create_qp(c->d, &ia, &c->qpn);
	if (ret < 0)
		return fail("creating the QP", ret);
	/* the examples inline what fits; UD sends from behind the GRH area */
	if (ia.cap.max_inline_data >= o->size)
		c->send_flags = VUR_USER_SEND_INLINE;
	ret = vur_user_modify_qp(c->d, c->qpn, &at,
			VUR_USER_QP_STATE |
					(o->type == VUR_USER_QPT_UD ? VUR_USER_QP_QKEY
								    : VUR_USER_QP_ACCESS_FLAGS));
	return ret < 0 ? fail("QP to INIT", ret) : 0;
}

/* RTR and RTS towards @peer (and its AH for UD), as the examples' pp_connect_ctx. */
static int
connect_ctx(struct ctx *c, uint32_t my_psn, const struct pp_dest *peer)
{
	const struct opts *o = c->o;
	struct vur_user_qp_attr at = {
		.qp_state = VUR_USER_QPS_RTR,
		.path_mtu = o->mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.timeout = o->timeout,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = my_psn,
		.max_rd_atomic = 1,
	};
	struct vur_user_ah_attr *av = &at.ah_attr;
	uint32_t rtr = VUR_USER_QP_STATE, rts = VUR_USER_QP_STATE | VUR_USER_QP_SQ_PSN;
	int ret;

	memcpy(av->grh.dgid, peer->gid, 16);
	av->grh.hop_limit = 1;
	av->grh.sgid_index = o->gidx;
	if (gid_mac(peer->gid, av->dmac) < 0) {
		fprintf(stderr,
				"vur-pingpong: the peer's GID is not link-local (fe80::/64 from a "
				"MAC): give the server the port's default GID (-g of its index)\n");
		return -EINVAL;
	}
	if (o->type != VUR_USER_QPT_UD)
		rtr |= VUR_USER_QP_AV | VUR_USER_QP_PATH_MTU | VUR_USER_QP_DEST_QPN |
				VUR_USER_QP_RQ_PSN;
	if (o->type == VUR_USER_QPT_RC) {
		rtr |= VUR_USER_QP_MAX_DEST_RD_ATOMIC | VUR_USER_QP_MIN_RNR_TIMER;
		rts |= VUR_USER_QP_TIMEOUT | VUR_USER_QP_RETRY_CNT | VUR_USER_QP_RNR_RETRY |
				VUR_USER_QP_MAX_QP_RD_ATOMIC;
	}
	ret = vur_user_modify_qp(c->d, c->qpn, &at, rtr);
	if (ret < 0)
		return fail("QP to RTR", ret);
	at.qp_state = VUR_USER_QPS_RTS;
	ret = vur_user_modify_qp(c->d, c->qpn, &at, rts);
	if (ret < 0)
		return fail("QP to RTS", ret);
	if (o->type == VUR_USER_QPT_UD) {
		ret = vur_user_create_ah(c->d, c->pdn, av, &c->ah);
		if (ret < 0)
			return fail("creating the AH", ret);
	}
	return 0;
}

/* @n receives into the receive area (UD: with the GRH area before it). */
static int
post_recv(struct ctx *c, uint32_t n)
{
	bool ud = c->o->type == VUR_USER_QPT_UD;
	struct vur_user_sge sge = {
		.addr = vur_user_driver_addr(c->d, c->buf) + (ud ? 0 : GRH_LEN),
		.length = c->o->size + (ud ? GRH_LEN : 0),
		.lkey = c->mr.lkey,
	};
	struct vur_user_recv_wr wr = { .wr_id = RECV_WRID, .sg_list = &sge, .num_sge = 1 };
	uint32_t i;

	for (i = 0; i < n; i++)
		if (vur_user_post_recv(c->d, c->qpn, &wr, 1, NULL) < 0)
			break;
	return (int)i;
}

static uint8_t *
send_area(const struct ctx *c)
{
	return c->buf + GRH_LEN + c->o->size;
}

static int
post_send(struct ctx *c, uint32_t remote_qpn)
{
	struct vur_user_sge sge = {
		.addr = vur_user_driver_addr(c->d, send_area(c)),
		.length = c->o->size,
		.lkey = c->mr.lkey,
	};
	struct vur_user_send_wr wr = {
		.wr_id = SEND_WRID,
		.opcode = VUR_USER_WR_SEND,
		.send_flags = VUR_USER_SEND_SIGNALED | c->send_flags,
		.sg_list = &sge,
		.num_sge = 1,
		.inline_data = send_area(c),
		.inline_len = c->o->size,
	};

	if (c->o->type == VUR_USER_QPT_UD) {
		wr.ud.ah = c->ah;
		wr.ud.remote_qpn = remote_qpn;
		wr.ud.remote_qkey = QKEY;
	}
	return vur_user_post_send(c->d, c->qpn, &wr, 1, NULL);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A QP in ERR or SQE without a failed completion to say why (every WR
 * completed before it went there) would leave the loop waiting for ever:
 * that is a failure too.
 */
static int
check_qp(struct ctx *c)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	struct vur_user_qp_attr at;
	int ret = vur_user_query_qp(c->d, c->qpn, 0, &at);

	if (ret < 0)
		return fail("querying the QP", ret);
	if (at.qp_state != VUR_USER_QPS_ERR && at.qp_state != VUR_USER_QPS_SQE)
		return 0;
	fprintf(stderr, "QP 0x%06x went to %s\n", c->qpn, names[at.qp_state]);
	return -EIO;
}

/* Completions, waiting on the CQ's event first with -e. */
static int
poll_cq(struct ctx *c, struct vur_user_wc *wc, int n)
{
	uint64_t next_check = now_ms() + CHECK_MS;
	int ret;

	if (c->o->events) {
		while ((ret = vur_user_get_cq_event(c->d, c->cqn, CHECK_MS)) == 0)
			if (check_qp(c) < 0)
				return -EIO;
		if (ret < 0)
			return fail("waiting for a CQ event", ret);
		ret = vur_user_req_notify_cq(c->d, c->cqn, VUR_USER_NOTIFY_NEXT_COMPLETION);
		if (ret < 0)
			return fail("arming the CQ", ret);
	}
	for (;;) {
		ret = vur_user_poll_cq(c->d, c->cqn, wc, n);
		if (ret != 0 || c->o->events)
			break;
		if (now_ms() >= next_check) {
			if (check_qp(c) < 0)
				return -EIO;
			next_check = now_ms() + CHECK_MS;
		}
	}
	return ret < 0 ? fail("polling the CQ", ret) : ret;
}

/*
 * -c: the examples zero the first byte of each page they send (i / page_size
 * % sizeof(char)) and check it on receipt. This side also checks every other
 * byte against their 0x7b filling, then spoils the receive area, so that a
 * message that did not land is seen.
 */
static void
mark(struct ctx *c)
{
	for (uint32_t i = 0; i < c->o->size; i += 4096)
		send_area(c)[i] = 0;
}

static bool
check_and_spoil(struct ctx *c)
{
	uint8_t *p = c->buf + GRH_LEN;
	bool ok = true;

	for (uint32_t i = 0; i < c->o->size && ok; i++)
		ok = p[i] == (i % 4096 == 0 ? 0 : 0x7b);
	memset(p, 0xee, c->o->size);
	return ok;
}

/* The examples' loop: a send whenever the last send and receive are both done. */
static int
ping_pong(struct ctx *c, const struct pp_dest *peer, int routs)
{
	const struct opts *o = c->o;
	struct vur_user_wc wc[2];
	uint32_t rcnt = 0, scnt = 0, pending = RECV_WRID;
	struct timeval start, end;
	double usec;
	int n, ret;

	if (o->events && vur_user_req_notify_cq(c->d, c->cqn, VUR_USER_NOTIFY_NEXT_COMPLETION) < 0)
		return fail("arming the CQ", -EIO);
	gettimeofday(&start, NULL);
	if (o->server != NULL) {
		if (o->validate)
			mark(c);
		ret = post_send(c, peer->qpn);
		if (ret < 0)
			return fail("posting a send", ret);
		pending |= SEND_WRID;
	}
	while (rcnt < o->iters || scnt < o->iters) {
		n = poll_cq(c, wc, 2);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != VUR_USER_WC_SUCCESS) {
				fprintf(stderr, "Failed status %s (%u) for wr_id %d\n",
						vur_user_wc_status_str(wc[i].status), wc[i].status,
						(int)wc[i].wr_id);
				return -EIO;
			}
			if (wc[i].wr_id == SEND_WRID) {
				scnt++;
			} else if (wc[i].wr_id == RECV_WRID) {
				if (o->validate && !check_and_spoil(c)) {
					fprintf(stderr, "invalid data in the received buffer\n");
					return -EIO;
				}
				if (--routs <= 1) {
					routs += post_recv(c, o->rx_depth - (uint32_t)routs);
					if (routs < (int)o->rx_depth)
						fprintf(stderr, "Couldn't post receive (%d)\n",
								routs);
				}
				rcnt++;
			} else {
				fprintf(stderr, "Completion for unknown wr_id %d\n",
						(int)wc[i].wr_id);
				return -EIO;
			}
			pending &= ~(uint32_t)wc[i].wr_id;
			if (scnt < o->iters && pending == 0) {
				if (o->validate)
					mark(c);
				ret = post_send(c, peer->qpn);
				if (ret < 0)
					return fail("posting a send", ret);
				pending = RECV_WRID | SEND_WRID;
			}
		}
	}
	gettimeofday(&end, NULL);
	usec = (end.tv_sec - start.tv_sec) * 1e6 + (end.tv_usec - start.tv_usec);
	printf("%lu bytes in %.2f seconds = %.2f Mbit/sec\n", (unsigned long)o->size * o->iters * 2,
			usec / 1e6, o->size * (double)o->iters * 2 * 8 / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", o->iters, usec / 1e6,
			usec / o->iters);
	return 0;
}

static void
print_dest(const char *who, const struct pp_dest *d)
{
	char gid[40];

	gid_str(d->gid, gid, sizeof(gid));
	printf("%s address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", who, d->lid, d->qpn,
			d->psn, gid);
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct ctx c = { .o = &o };
	struct pp_dest mine = { 0 }, peer;
	int routs, fd = -1, ret;

	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr, "Try '%s --help'.\n", argv[0]);
		return 2;
	}
	srand48(getpid() * time(NULL));
	if (init_ctx(&c) < 0)
		goto out;
	routs = post_recv(&c, o.rx_depth);
	if (routs < (int)o.rx_depth) {
		fprintf(stderr, "vur-pingpong: couldn't post receives (%d)\n", routs);
		goto out;
	}
	mine.qpn = c.qpn;
	mine.psn = lrand48() & 0xffffff;
	memcpy(mine.gid, c.gid, 16);
	if (o.server == NULL) {
		fd = pp_server_listen(o.port);
		if (fd < 0) {
			fail("listening", fd);
			goto out;
		}
	}
	/* a server prints this once it listens: a script can start the client then */
	print_dest("  local", &mine);
	fflush(stdout);
	if (o.server != NULL) {
		ret = pp_client_exchange(o.server, o.port, &mine, &peer);
		if (ret < 0) {
			fail("exchanging addresses with the server", ret);
			goto out;
		}
		print_dest("remote", &peer);
		if (connect_ctx(&c, mine.psn, &peer) < 0)
			goto out;
	} else {
		fd = pp_server_accept(fd, &peer);
		if (fd < 0) {
			fail("waiting for a client", fd);
			goto out;
		}
		print_dest("remote", &peer);
		/* ready before the client learns our address and sends */
		if (connect_ctx(&c, mine.psn, &peer) < 0 || pp_server_reply(fd, &mine) < 0)
			goto out;
	}
	if (ping_pong(&c, &peer, routs) < 0)
		goto out;
	if (o.linger_ms > 0) {
		fflush(stdout);
		usleep(o.linger_ms * 1000u);
	}
	return vur_user_close(c.d) < 0;
out:
	vur_user_close(c.d);
	return 1;
}
