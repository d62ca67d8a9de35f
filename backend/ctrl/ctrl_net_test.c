/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the standard virtio-net control commands, through the dispatcher. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "ctrl/ctrl_net.h"
#include "ctrl/ctrl_target.h"
#include "net/net_state.h"
#include "rdma/rdma_dev.h"
#include "tests/ctrl_chain.h"
#include "tests/tap.h"

#define F(bit) (1ULL << VIRTIO_NET_F_##bit)
#define ALL    VUR_NET_CTRL_FEATURES

static const uint8_t own[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t other[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };
static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };

static struct vur_ctrl_cmd cmds[VUR_CTRL_NET_MAX_CMDS];
static struct vur_ctrl_table table = { cmds, 0 };
static struct vur_rdma_dev rd = { .name = "test" };
static struct vur_net_state ns;
static struct vur_ctrl_target target = { .rdma = &rd, .net = &ns };
static uint8_t out[1024], in[16];

/* Send class/command/data; returns why it was refused, the ack byte in in[0]. */
static enum vur_ctrl_reject
send(uint8_t cls, uint8_t cmd, const void *data, uint32_t len, uint64_t feat)
{
	struct vur_ctrl_result r;
	struct vur_chain c;

	ctrl_chain_build(&c, out, cls, cmd, data, len, in, 1);
	vur_ctrl_dispatch(&table, &target, feat, &c, &r);
	if (r.written != 1 || in[0] != r.ack ||
			r.ack != (r.reject == VUR_CTRL_REJ_NONE ? VIRTIO_NET_OK : VIRTIO_NET_ERR))
		return VUR_CTRL_REJ_COUNT;
	return r.reject;
}

/* A refused command answers VIRTIO_NET_ERR and leaves the state exactly as it was. */
static bool
refused(uint8_t cls, uint8_t cmd, const void *data, uint32_t len, uint64_t feat,
		enum vur_ctrl_reject why)
{
	struct vur_net_state before;

	memcpy(&before, &ns, sizeof(ns));
	return send(cls, cmd, data, len, feat) == why && in[0] == VIRTIO_NET_ERR &&
			memcmp(&before, &ns, sizeof(ns)) == 0;
}

static void
setup(uint16_t max_pairs)
{
	table.n_cmds = vur_ctrl_net_commands(cmds);
	vur_net_state_init(&ns, own, max_pairs);
	vur_net_state_set_features(&ns, ALL);
}

static void
table_and_features(void)
{
	uint64_t feats = 0;
	unsigned int i;

	setup(1);
	TAP_CHECK(table.n_cmds == VUR_CTRL_NET_MAX_CMDS);
	TAP_CHECK(vur_ctrl_table_validate(&table) == 0);
	for (i = 0; i < table.n_cmds; i++) {
		TAP_CHECK(cmds[i].feature != 0 && cmds[i].ack_len == 0 && cmds[i].name != NULL);
		feats |= cmds[i].feature;
	}
	TAP_CHECK(feats == VUR_NET_CTRL_FEATURES);
	/* classes and commands nobody offers */
	TAP_CHECK(refused(VIRTIO_NET_CTRL_GUEST_OFFLOADS, 0, "\0\0\0\0\0\0\0\0", 8, ALL,
			VUR_CTRL_REJ_UNKNOWN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_RX, 6, "\1", 1, ALL, VUR_CTRL_REJ_UNKNOWN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, 2, NULL, 0, ALL, VUR_CTRL_REJ_UNKNOWN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_VLAN, 2, "\1\0", 2, ALL, VUR_CTRL_REJ_UNKNOWN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_ANNOUNCE, 1, NULL, 0, ALL, VUR_CTRL_REJ_UNKNOWN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, NULL, 0, ALL,
			VUR_CTRL_REJ_UNKNOWN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_HASH_CONFIG, NULL, 0, ALL,
			VUR_CTRL_REJ_UNKNOWN));
}

static void
rx_modes(void)
{
	bool *const mode[] = {
		[VIRTIO_NET_CTRL_RX_PROMISC] = &ns.promisc,
		[VIRTIO_NET_CTRL_RX_ALLMULTI] = &ns.allmulti,
		[VIRTIO_NET_CTRL_RX_ALLUNI] = &ns.alluni,
		[VIRTIO_NET_CTRL_RX_NOMULTI] = &ns.nomulti,
		[VIRTIO_NET_CTRL_RX_NOUNI] = &ns.nouni,
		[VIRTIO_NET_CTRL_RX_NOBCAST] = &ns.nobcast,
	};
	uint8_t c;

	setup(1);
	for (c = 0; c < RTE_DIM(mode); c++) {
		TAP_CHECK(send(VIRTIO_NET_CTRL_RX, c, "\1", 1, ALL) == VUR_CTRL_REJ_NONE &&
				*mode[c]);
		TAP_CHECK(refused(VIRTIO_NET_CTRL_RX, c, "\2", 1, ALL, VUR_CTRL_REJ_HANDLER));
		TAP_CHECK(refused(VIRTIO_NET_CTRL_RX, c, "\xff", 1, ALL, VUR_CTRL_REJ_HANDLER));
		TAP_CHECK(send(VIRTIO_NET_CTRL_RX, c, "\0", 1, ALL) == VUR_CTRL_REJ_NONE &&
				!*mode[c]);
		TAP_CHECK(refused(VIRTIO_NET_CTRL_RX, c, NULL, 0, ALL, VUR_CTRL_REJ_CMD_LEN));
		TAP_CHECK(refused(VIRTIO_NET_CTRL_RX, c, "\1\0", 2, ALL, VUR_CTRL_REJ_CMD_LEN));
		TAP_CHECK(refused(VIRTIO_NET_CTRL_RX, c, "\1", 1, ALL & ~F(CTRL_RX),
				VUR_CTRL_REJ_FEATURE));
	}
	/* PROMISC and ALLMULTI need CTRL_RX alone, the other four CTRL_RX_EXTRA too */
	TAP_CHECK(send(VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, "\1", 1, F(CTRL_RX)) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(send(VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_ALLMULTI, "\1", 1, F(CTRL_RX)) ==
			VUR_CTRL_REJ_NONE);
	for (c = VIRTIO_NET_CTRL_RX_ALLUNI; c <= VIRTIO_NET_CTRL_RX_NOBCAST; c++)
		TAP_CHECK(refused(
				VIRTIO_NET_CTRL_RX, c, "\1", 1, F(CTRL_RX), VUR_CTRL_REJ_FEATURE));
	TAP_CHECK(ns.promisc && ns.allmulti && !ns.alluni && !ns.nobcast);
}

/* Build MAC_TABLE_SET data: @n_uc addresses from @uc, then @n_mc from @mc. */
static uint32_t
mac_table(uint8_t *d, uint32_t n_uc, const uint8_t *uc, uint32_t n_mc, const uint8_t *mc)
{
	uint32_t len = 0, i, n;

	n = rte_cpu_to_le_32(n_uc);
	memcpy(d, &n, 4);
	len = 4;
	for (i = 0; i < n_uc; i++, len += 6)
		memcpy(d + len, uc, 6);
	n = rte_cpu_to_le_32(n_mc);
	memcpy(d + len, &n, 4);
	len += 4;
	for (i = 0; i < n_mc; i++, len += 6)
		memcpy(d + len, mc, 6);
	return len;
}

static void
mac_table_set(void)
{
	uint8_t d[8 + 72 * 6];
	uint32_t len, n;

	setup(1);
	len = mac_table(d, 2, other, 1, mcast);
	TAP_CHECK(send(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, F(CTRL_RX)) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(ns.uc.n == 2 && ns.mc.n == 1 && memcmp(ns.mc.macs[0], mcast, 6) == 0);
	ns.promisc = false;
	TAP_CHECK(vur_net_state_accepts(&ns, other, false, 0) &&
			vur_net_state_accepts(&ns, mcast, false, 0));

	/* MAC_TABLE_SET needs CTRL_RX, CTRL_MAC_ADDR is not enough */
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len,
			F(CTRL_MAC_ADDR), VUR_CTRL_REJ_FEATURE));
	/* shorter than two counts */
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, 4, ALL,
			VUR_CTRL_REJ_CMD_LEN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, NULL, 0, ALL,
			VUR_CTRL_REJ_CMD_LEN));
	/* counts that disagree with the length: one byte short, one byte over */
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len - 1, ALL,
			VUR_CTRL_REJ_HANDLER));
	d[len] = 0;
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len + 1, ALL,
			VUR_CTRL_REJ_HANDLER));
	/* a unicast count that runs over the end, or puts the second count past it */
	n = rte_cpu_to_le_32(UINT32_MAX);
	memcpy(d, &n, 4);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL,
			VUR_CTRL_REJ_HANDLER));
	n = rte_cpu_to_le_32(3);
	memcpy(d, &n, 4);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL,
			VUR_CTRL_REJ_HANDLER));
	/* a multicast count too large for what follows */
	len = mac_table(d, 0, NULL, 2, mcast);
	n = rte_cpu_to_le_32(3);
	memcpy(d + 4, &n, 4);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL,
			VUR_CTRL_REJ_HANDLER));
	/* addresses of the wrong kind */
	len = mac_table(d, 1, mcast, 0, NULL);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL,
			VUR_CTRL_REJ_HANDLER));
	len = mac_table(d, 0, NULL, 1, other);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL,
			VUR_CTRL_REJ_HANDLER));

	/* too many entries: accepted, and that kind falls back to accept-all */
	len = mac_table(d, 1, other, 70, mcast);
	TAP_CHECK(send(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(ns.mc.overflow && !ns.uc.overflow && ns.uc.n == 1);
	len = mac_table(d, 0, NULL, 0, NULL);
	TAP_CHECK(send(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, d, len, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(ns.uc.n == 0 && ns.mc.n == 0 && !ns.mc.overflow);
	TAP_CHECK(!vur_net_state_accepts(&ns, other, false, 0));
}

/*
 * Linux's virtio_net sends the RX mode as three commands (RX_PROMISC,
 * RX_ALLMULTI, then MAC_TABLE_SET) and the table in two scatter-gather
 * entries, the unicast count and addresses, then the multicast ones: four
 * descriptors with the header and the ack. Each group reaches the table as
 * sent, and the receive filter then passes it (issue 22).
 */
static void
mac_table_set_as_linux_sends_it(void)
{
	static const uint8_t groups[3][6] = {
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
		{ 0x01, 0x00, 0x5e, 0x01, 0x1e, 0x01 },
		{ 0x33, 0x33, 0xef, 0x01, 0x1e, 0x01 },
	};
	uint8_t hdr[2] = { VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET };
	uint8_t uc[4] = { 0 }, mc[4 + sizeof(groups)], ack = 0xaa, off = 0;
	uint32_t n = rte_cpu_to_le_32(RTE_DIM(groups));
	struct vur_ctrl_result r;
	struct vur_chain c;

	setup(1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &off, 1, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(send(VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_ALLMULTI, &off, 1, ALL) ==
			VUR_CTRL_REJ_NONE);
	memcpy(mc, &n, 4);
	memcpy(mc + 4, groups, sizeof(groups));
	memset(&c, 0, sizeof(c));
	c.iov[0] = (struct iovec){ hdr, sizeof(hdr) };
	c.iov[1] = (struct iovec){ uc, sizeof(uc) };
	c.iov[2] = (struct iovec){ mc, sizeof(mc) };
	c.iov[3] = (struct iovec){ &ack, 1 };
	c.n_out = 3;
	c.n_in = 1;
	c.out_len = sizeof(hdr) + sizeof(uc) + sizeof(mc);
	c.in_len = 1;
	vur_ctrl_dispatch(&table, &target, F(CTRL_VQ) | F(CTRL_RX), &c, &r);
	TAP_CHECK(r.reject == VUR_CTRL_REJ_NONE && ack == VIRTIO_NET_OK && r.written == 1);
	TAP_CHECK(!ns.promisc && !ns.allmulti && ns.uc.n == 0 && ns.mc.n == RTE_DIM(groups));
	TAP_CHECK(memcmp(ns.mc.macs, groups, sizeof(groups)) == 0);
	for (unsigned int i = 0; i < RTE_DIM(groups); i++)
		TAP_CHECK(vur_net_state_accepts(&ns, groups[i], false, 0));
	TAP_CHECK(!vur_net_state_accepts(&ns, mcast, false, 0));
}

static void
mac_addr_set(void)
{
	static const uint8_t zero[6];

	setup(1);
	/* CTRL_MAC_ADDR alone, as Linux negotiates it */
	TAP_CHECK(send(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, other, 6,
				  F(CTRL_MAC_ADDR)) == VUR_CTRL_REJ_NONE);
	TAP_CHECK(memcmp(ns.mac, other, 6) == 0);
	ns.promisc = false;
	TAP_CHECK(vur_net_state_accepts(&ns, other, false, 0) &&
			!vur_net_state_accepts(&ns, own, false, 0));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, own, 6, F(CTRL_RX),
			VUR_CTRL_REJ_FEATURE));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, own, 5, ALL,
			VUR_CTRL_REJ_CMD_LEN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, "\x52\x54\0\1\2\3\4",
			7, ALL, VUR_CTRL_REJ_CMD_LEN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, mcast, 6, ALL,
			VUR_CTRL_REJ_HANDLER));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, zero, 6, ALL,
			VUR_CTRL_REJ_HANDLER));
}

static void
vlan(void)
{
	setup(1);
	ns.promisc = false;
	/* le16: 0x0064 is VLAN 100, 0x0fff is 4095 */
	TAP_CHECK(send(VIRTIO_NET_CTRL_VLAN, VIRTIO_NET_CTRL_VLAN_ADD, "\x64\0", 2, F(CTRL_VLAN)) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(send(VIRTIO_NET_CTRL_VLAN, VIRTIO_NET_CTRL_VLAN_ADD, "\xff\x0f", 2, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(vur_net_state_accepts(&ns, own, true, 100) &&
			vur_net_state_accepts(&ns, own, true, 4095) &&
			!vur_net_state_accepts(&ns, own, true, 99));
	TAP_CHECK(send(VIRTIO_NET_CTRL_VLAN, VIRTIO_NET_CTRL_VLAN_DEL, "\x64\0", 2, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(!vur_net_state_accepts(&ns, own, true, 100));
	TAP_CHECK(send(VIRTIO_NET_CTRL_VLAN, VIRTIO_NET_CTRL_VLAN_DEL, "\x64\0", 2, ALL) ==
			VUR_CTRL_REJ_NONE);
	for (uint8_t c = VIRTIO_NET_CTRL_VLAN_ADD; c <= VIRTIO_NET_CTRL_VLAN_DEL; c++) {
		TAP_CHECK(refused(VIRTIO_NET_CTRL_VLAN, c, "\0\x10", 2, ALL, VUR_CTRL_REJ_HANDLER));
		TAP_CHECK(refused(
				VIRTIO_NET_CTRL_VLAN, c, "\xff\xff", 2, ALL, VUR_CTRL_REJ_HANDLER));
		TAP_CHECK(refused(VIRTIO_NET_CTRL_VLAN, c, "\x64", 1, ALL, VUR_CTRL_REJ_CMD_LEN));
		TAP_CHECK(refused(
				VIRTIO_NET_CTRL_VLAN, c, "\x64\0\0", 3, ALL, VUR_CTRL_REJ_CMD_LEN));
		TAP_CHECK(refused(VIRTIO_NET_CTRL_VLAN, c, "\x64\0", 2, ALL & ~F(CTRL_VLAN),
				VUR_CTRL_REJ_FEATURE));
	}
}

static void
announce(void)
{
	setup(1);
	ns.announce_pending = true;
	TAP_CHECK(refused(VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_ANNOUNCE_ACK, NULL, 0,
			ALL & ~F(GUEST_ANNOUNCE), VUR_CTRL_REJ_FEATURE));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_ANNOUNCE_ACK, "\0", 1, ALL,
			VUR_CTRL_REJ_CMD_LEN));
	TAP_CHECK(send(VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_ANNOUNCE_ACK, NULL, 0,
				  F(GUEST_ANNOUNCE)) == VUR_CTRL_REJ_NONE);
	TAP_CHECK(!ns.announce_pending);
	/* an ACK with nothing pending is harmless */
	TAP_CHECK(send(VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_ANNOUNCE_ACK, NULL, 0, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(!ns.announce_pending);
}

static void
mq_vq_pairs_set(void)
{
	setup(1);
	TAP_CHECK(send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\1\0", 2, F(MQ)) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(ns.active_pairs == 1);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\0\0", 2, ALL,
			VUR_CTRL_REJ_HANDLER));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\2\0", 2, ALL,
			VUR_CTRL_REJ_HANDLER));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\1\1", 2, ALL,
			VUR_CTRL_REJ_HANDLER));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\1", 1, ALL,
			VUR_CTRL_REJ_CMD_LEN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\1\0\0", 3, ALL,
			VUR_CTRL_REJ_CMD_LEN));
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\1\0", 2,
			ALL & ~F(MQ), VUR_CTRL_REJ_FEATURE));
	/* the bound is max_virtqueue_pairs, whatever it is */
	setup(4);
	TAP_CHECK(send(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\4\0", 2, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(ns.active_pairs == 4);
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, "\5\0", 2, ALL,
			VUR_CTRL_REJ_HANDLER));
}

/* ROCE-DEV-POLICY-7: a pinned MAC is the only one MAC_ADDR_SET takes; a refusal is counted. */
static void
roce_dev_policy_7_pinned_mac(void)
{
	struct vur_addr_policy p = { .mac_pinned = true };

	setup(1);
	memcpy(p.mac, own, 6);
	rd.policy = &p;
	TAP_CHECK(refused(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, other, 6, ALL,
			VUR_CTRL_REJ_HANDLER));
	TAP_CHECK(p.refused_macs == 1 && memcmp(ns.mac, own, 6) == 0);
	/* setting the pinned one again is harmless */
	TAP_CHECK(send(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, own, 6, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(p.refused_macs == 1);
	/* unpinned (allowed IPs alone): the driver sets what it likes */
	p.mac_pinned = false;
	p.n = 1;
	TAP_CHECK(send(VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, other, 6, ALL) ==
			VUR_CTRL_REJ_NONE);
	TAP_CHECK(memcmp(ns.mac, other, 6) == 0 && p.refused_macs == 1);
	rd.policy = NULL;
}

int
main(void)
{
	TAP_RUN(table_and_features);
	TAP_RUN(rx_modes);
	TAP_RUN(mac_table_set);
	TAP_RUN(mac_table_set_as_linux_sends_it);
	TAP_RUN(mac_addr_set);
	TAP_RUN(roce_dev_policy_7_pinned_mac);
	TAP_RUN(vlan);
	TAP_RUN(announce);
	TAP_RUN(mq_vq_pairs_set);
	return tap_done();
}
