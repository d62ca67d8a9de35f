/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplinks: ethdev set-up and member link reading.
 *
 * Link speed comes from ethdev, or from a declared nominal speed for virtual
 * links (a tap reports 10G whatever it carries). Bonded uplinks are DPDK's
 * bonding PMD; its members are known only once the bond is configured, so
 * bonds are configured before the other ports are examined.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_eth_bond.h>
#include <rte_mbuf.h>

#include "common/dpdk_compat.h"
#include "common/log.h"
#include "port/kernel_link.h"
#include "port/uplink.h"

RTE_LOG_REGISTER_SUFFIX(vur_logtype_port, port, INFO);

#define UPLINK_RING_SIZE  1024
#define UPLINK_POOL_MBUFS 8191
#define UPLINK_POOL_CACHE 256

struct lsc_ctx {
	vur_link_event_cb_t cb;
	void *arg;
};

static struct lsc_ctx lsc_ctx;

static bool
is_bond(uint16_t port)
{
	return rte_eth_bond_mode_get(port) >= 0;
}

/* The bonding modes whose throughput is the sum of their active members. */
static bool
bond_mode_aggregates(int mode)
{
	return mode == BONDING_MODE_ROUND_ROBIN || mode == BONDING_MODE_BALANCE ||
			mode == BONDING_MODE_8023AD || mode == BONDING_MODE_TLB ||
			mode == BONDING_MODE_ALB;
}

static bool
port_has_lsc(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.dev_flags == NULL)
		return false;
	return (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
}

/* The kernel interface under @port (net_tap and net_af_packet report it), or 0. */
static uint32_t
port_if_index(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0)
		return 0;
	return info.if_index;
}

static int
configure(uint16_t port, bool rx_intr)
{
	struct rte_eth_conf conf;
	uint16_t nb_rx = UPLINK_RING_SIZE, nb_tx = UPLINK_RING_SIZE;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = port_has_lsc(port);
	conf.intr_conf.rxq = rx_intr;
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rx, &nb_tx);
	return ret;
}

static int
setup_queues(struct vur_uplinks *u, uint16_t port)
{
	uint16_t nb_rx = UPLINK_RING_SIZE, nb_tx = UPLINK_RING_SIZE;
	int socket = rte_eth_dev_socket_id(port);
	int ret;

	rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rx, &nb_tx);
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	ret = rte_eth_rx_queue_setup(port, 0, nb_rx, socket, NULL, u->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, nb_tx, socket, NULL);
	return ret;
}

/*
 * Whether the PMD gave @port's receive queue an interrupt event fd, the one
 * the data path sleeps on. Some PMDs take the configuration and start
 * without one (net_af_packet, net_bonding): there ethdev logs an error
 * ("Rx Intr handle unset") that only means "poll it", and the caller says
 * so itself; the line is kept out of the log meanwhile.
 */
static bool
rx_intr_usable(uint16_t port)
{
	int logtype = rte_log_register("lib.ethdev"); /* the existing type's id */
	int level = logtype >= 0 ? rte_log_get_level(logtype) : -1;
	int fd;

	if (level >= 0)
		rte_log_set_level(logtype, RTE_LOG_CRIT);
	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(port, 0);
	if (level >= 0)
		rte_log_set_level(logtype, (uint32_t)level);
	return fd >= 0;
}

/*
 * Start @port with receive interrupts when the PMD has them, so that an idle
 * data path can sleep; without when it does not (the PMD refuses either at
 * configure or at start, or starts without an interrupt fd: the data path
 * then polls it).
 */
static int
start_port(struct vur_uplinks *u, struct vur_uplink *up)
{
	int ret;

	for (int intr = 1; intr >= 0; intr--) {
		ret = configure(up->port_id, intr);
		if (ret == 0)
			ret = setup_queues(u, up->port_id);
		if (ret == 0)
			ret = rte_eth_dev_start(up->port_id);
		if (ret == 0) {
			up->rx_intr = intr && rx_intr_usable(up->port_id);
			break;
		}
		rte_eth_dev_stop(up->port_id);
	}
	if (ret != 0)
		return ret;
	/* The local switch forwards for the devices' own MACs, not the port's. */
	if (rte_eth_promiscuous_enable(up->port_id) != 0)
		VUR_LOG(port, WARNING, "%s: cannot enable promiscuous mode", up->name);
	return 0;
}

static int
on_lsc(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	(void)port;
	(void)type;
	(void)ret_param;
	if (lsc_ctx.cb != NULL)
		lsc_ctx.cb(arg);
	return 0;
}

static int
add_member(struct vur_uplinks *u, uint16_t uplink, uint16_t port)
{
	struct vur_member *m;

	if (u->n_members == VUR_MAX_MEMBERS) {
		VUR_LOG(port, ERR, "too many uplink members: at most %d", VUR_MAX_MEMBERS);
		return -ENOSPC;
	}
	m = &u->members[u->n_members++];
	memset(m, 0, sizeof(*m));
	m->port_id = port;
	m->uplink = uplink;
	rte_eth_dev_get_name_by_port(port, m->name);
	m->lsc = port_has_lsc(port);
	m->if_index = port_if_index(port);
	if (m->lsc)
		rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC, on_lsc, lsc_ctx.arg);
	return 0;
}

static int
add_members(struct vur_uplinks *u, uint16_t idx)
{
	struct vur_uplink *up = &u->uplinks[idx];
	uint16_t ports[RTE_MAX_ETHPORTS];
	int n, ret = 0;

	up->first_member = u->n_members;
	if (!up->bond)
		ret = add_member(u, idx, up->port_id);
	else {
		n = rte_eth_bond_members_get(up->port_id, ports, RTE_DIM(ports));
		if (n <= 0) {
			VUR_LOG(port, ERR, "%s: a bond without members", up->name);
			return -EINVAL;
		}
		for (int i = 0; i < n && ret == 0; i++)
			ret = add_member(u, idx, ports[i]);
	}
	up->n_members = u->n_members - up->first_member;
	return ret;
}

static int
add_uplink(struct vur_uplinks *u, uint16_t port)
{
	struct vur_uplink *up;

	for (uint16_t i = 0; i < u->n_uplinks; i++) {
		if (u->uplinks[i].port_id == port) {
			VUR_LOG(port, ERR, "%s: named twice", u->uplinks[i].name);
			return -EINVAL;
		}
	}
	if (u->n_uplinks == VUR_MAX_UPLINKS) {
		VUR_LOG(port, ERR, "too many uplinks: at most %d", VUR_MAX_UPLINKS);
		return -ENOSPC;
	}
	up = &u->uplinks[u->n_uplinks++];
	memset(up, 0, sizeof(*up));
	up->port_id = port;
	rte_eth_dev_get_name_by_port(port, up->name);
	up->bond = is_bond(port);
	if (up->bond) {
		up->bond_mode = rte_eth_bond_mode_get(port);
		if (!bond_mode_aggregates(up->bond_mode)) {
			VUR_LOG(port, ERR,
					"%s: bonding mode %d does not add its members' speeds; "
					"use mode 0, 2, 4, 5 or 6",
					up->name, up->bond_mode);
			return -EINVAL;
		}
	}
	return 0;
}

static bool
is_member_of_any_bond(uint16_t port)
{
	uint16_t members[RTE_MAX_ETHPORTS], p;
	int n;

	RTE_ETH_FOREACH_DEV(p) {
		if (!is_bond(p))
			continue;
		n = rte_eth_bond_members_get(p, members, RTE_DIM(members));
		for (int i = 0; i < n; i++)
			if (members[i] == port)
				return true;
	}
	return false;
}

/* Uplinks as named, or every port that is not a bond's member. */
static int
choose(struct vur_uplinks *u, const char *const *names, unsigned int n_names)
{
	uint16_t port;
	int ret = 0;

	for (unsigned int i = 0; i < n_names && ret == 0; i++) {
		if (rte_eth_dev_get_port_by_name(names[i], &port) != 0) {
			VUR_LOG(port, ERR,
					"--uplink %s: no such ethdev (give it to EAL, e.g. "
					"--vdev %s)",
					names[i], names[i]);
			return -ENODEV;
		}
		if (is_member_of_any_bond(port)) {
			VUR_LOG(port, ERR, "--uplink %s: a bond's member; name the bond", names[i]);
			return -EINVAL;
		}
		ret = add_uplink(u, port);
	}
	if (n_names > 0)
		return ret;
	RTE_ETH_FOREACH_DEV(port) {
		if (ret == 0 && !is_member_of_any_bond(port))
			ret = add_uplink(u, port);
	}
	return ret;
}

/* A bond learns its members from its devargs when first configured. */
static int
configure_bonds(void)
{
	uint16_t port;
	int ret;

	RTE_ETH_FOREACH_DEV(port) {
		if (!is_bond(port))
			continue;
		ret = configure(port, false);
		if (ret != 0) {
			VUR_LOG(port, ERR, "port %u: cannot configure the bond: %s", port,
					rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int
apply_nominal(struct vur_uplinks *u, const struct vur_nominal_speed *nominal, unsigned int n)
{
	struct vur_member *m;

	for (unsigned int i = 0; i < n; i++) {
		m = vur_uplinks_member(u, nominal[i].name);
		if (m == NULL) {
			VUR_LOG(port, ERR, "--member-speed %s: not an uplink member",
					nominal[i].name);
			return -ENODEV;
		}
		m->nominal_mbps = nominal[i].mbps;
	}
	return 0;
}

/* The socket for the kernel's view of members that have a kernel interface. */
static void
open_ifreq_sock(struct vur_uplinks *u)
{
	bool any = false;

	for (uint16_t i = 0; i < u->n_members; i++) {
		if (u->members[i].if_index == 0)
			continue;
		any = true;
		VUR_LOG(port, INFO, "member %s: kernel interface %u, its link from the kernel",
				u->members[i].name, u->members[i].if_index);
	}
	if (!any)
		return;
	u->ifreq_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	u->ifreq_open = u->ifreq_sock >= 0;
	if (!u->ifreq_open)
		VUR_LOG(port, WARNING, "no socket for the kernel's link state (%s): ethdev's only",
				strerror(errno));
}

int
vur_uplinks_start(struct vur_uplinks *u, const char *const *names, unsigned int n_names,
		const struct vur_nominal_speed *nominal, unsigned int n_nominal,
		vur_link_event_cb_t cb, void *cb_arg)
{
	int ret;

	memset(u, 0, sizeof(*u));
	lsc_ctx.cb = cb;
	lsc_ctx.arg = cb_arg;
	ret = configure_bonds();
	if (ret == 0)
		ret = choose(u, names, n_names);
	if (ret != 0 || u->n_uplinks == 0)
		return ret;

	u->pool = rte_pktmbuf_pool_create("vur_uplinks", UPLINK_POOL_MBUFS, UPLINK_POOL_CACHE, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (u->pool == NULL) {
		VUR_LOG(port, ERR, "cannot allocate packet buffers: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (uint16_t i = 0; i < u->n_uplinks; i++) {
		struct vur_uplink *up = &u->uplinks[i];

		ret = start_port(u, up);
		if (ret != 0) {
			VUR_LOG(port, ERR, "%s: cannot start: %s", up->name, rte_strerror(-ret));
			return ret;
		}
		ret = add_members(u, i);
		if (ret != 0)
			return ret;
		VUR_LOG(port, INFO, "uplink %s: %s, %u member(s), %s", up->name,
				up->bond ? "bond" : "port", up->n_members,
				up->rx_intr ? "receive interrupts" : "no receive interrupt");
	}
	open_ifreq_sock(u);
	return apply_nominal(u, nominal, n_nominal);
}

void
vur_uplinks_stop(struct vur_uplinks *u)
{
	for (uint16_t i = 0; i < u->n_members; i++)
		if (u->members[i].lsc)
			rte_eth_dev_callback_unregister(u->members[i].port_id,
					RTE_ETH_EVENT_INTR_LSC, on_lsc, lsc_ctx.arg);
	for (uint16_t i = 0; i < u->n_uplinks; i++) {
		struct vur_uplink *up = &u->uplinks[i];

		rte_eth_dev_stop(up->port_id);
		/*
		 * A bond's members close first, as EAL's cleanup closes the
		 * vdevs given before the bond. Closing a bond removes its
		 * members, which resets each member's queues; since DPDK 24.07
		 * net_tap's Tx queue release then reads the Rx queue array the
		 * reset already freed (a NULL dereference). The bond then logs
		 * that it cannot stop the members it still lists: harmless.
		 */
		for (uint16_t m = 0; up->bond && m < up->n_members; m++) {
			rte_eth_dev_stop(u->members[up->first_member + m].port_id);
			rte_eth_dev_close(u->members[up->first_member + m].port_id);
		}
		rte_eth_dev_close(up->port_id);
	}
	rte_mempool_free(u->pool);
	if (u->ifreq_open)
		close(u->ifreq_sock);
	memset(u, 0, sizeof(*u));
	lsc_ctx.cb = NULL;
}

struct vur_member *
vur_uplinks_member(struct vur_uplinks *u, const char *name)
{
	for (uint16_t i = 0; i < u->n_members; i++)
		if (strcmp(u->members[i].name, name) == 0)
			return &u->members[i];
	return NULL;
}

static uint32_t
link_mbps(const struct rte_eth_link *l)
{
	if (l->link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return l->link_speed;
}

/*
 * The kernel's carrier prevails: net_af_packet reports UP whatever the
 * interface does, and net_tap's status (LSC enabled) is a copy that its
 * interrupt thread refreshes after the kernel changed. A member whose
 * interface went away is down.
 */
static uint16_t
kernel_status(struct vur_uplinks *u, const struct vur_member *m, uint16_t ethdev)
{
	int up = vur_kernel_link_up(u->ifreq_sock, m->if_index);

	if (up < 0 && up != -ENODEV && up != -ENXIO)
		return ethdev;
	return up > 0 ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
}

bool
vur_uplinks_read(struct vur_uplinks *u, struct vur_port_member *out)
{
	struct rte_eth_link link;
	bool changed = false;

	for (uint16_t i = 0; i < u->n_members; i++) {
		struct vur_member *m = &u->members[i];

		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(m->port_id, &link) != 0)
			link.link_status = RTE_ETH_LINK_DOWN;
		else if (m->if_index != 0 && u->ifreq_open)
			link.link_status = kernel_status(u, m, link.link_status);
		if (link.link_status != m->link.link_status ||
				link.link_speed != m->link.link_speed)
			changed = true;
		m->link = link;
		if (link.link_status == RTE_ETH_LINK_UP && link_mbps(&link) > m->max_seen_mbps)
			m->max_seen_mbps = link_mbps(&link);
		out[i].up = link.link_status == RTE_ETH_LINK_UP;
		out[i].speed_mbps = m->nominal_mbps ? m->nominal_mbps : link_mbps(&link);
		out[i].max_mbps = m->nominal_mbps ? m->nominal_mbps : m->max_seen_mbps;
	}
	return changed;
}
