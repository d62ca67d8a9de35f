/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Standard virtio-net control commands. The dispatcher has checked the
 * class, the feature and every fixed length; a handler checks the values
 * and the rest of a variable length, then changes the state, so that a
 * refused command leaves it as it was.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "common/log.h"
#include "ctrl/ctrl_net.h"
#include "ctrl/ctrl_target.h"
#include "net/net_state.h"
#include "rdma/rdma_dev.h"

#define F(bit) (1ULL << VIRTIO_NET_F_##bit)

static struct vur_net_state *
net(void *ctx)
{
	return ((struct vur_ctrl_target *)ctx)->net;
}

/* The device's name for logs: its socket path, kept by the RDMA side. */
static const char *
dev_name(void *ctx)
{
	const struct vur_rdma_dev *rd = ((struct vur_ctrl_target *)ctx)->rdma;

	return rd != NULL && rd->name != NULL ? rd->name : "?";
}

static uint8_t
rx_set(bool *mode, const void *cmd)
{
	uint8_t on = *(const uint8_t *)cmd;

	/* "one byte containing 0 (off) or 1 (on)" */
	if (on > 1)
		return VIRTIO_NET_ERR;
	*mode = on;
	return VIRTIO_NET_OK;
}

#define RX_HANDLER(mode)                                                              \
	static uint8_t rx_##mode(void *ctx, const void *cmd, uint32_t len, void *ack) \
	{                                                                             \
		RTE_SET_USED(len);                                                    \
		RTE_SET_USED(ack);                                                    \
		return rx_set(&net(ctx)->mode, cmd);                                  \
	}
RX_HANDLER(promisc)
RX_HANDLER(allmulti)
RX_HANDLER(alluni)
RX_HANDLER(nomulti)
RX_HANDLER(nouni)
RX_HANDLER(nobcast)

static uint8_t
mac_table_set(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	struct vur_net_state *ns = net(ctx);
	const uint8_t *p = cmd;
	uint32_t n_uc, n_mc;
	uint64_t mc_at;
	bool overflow;

	RTE_SET_USED(ack);
	/* Two tables of le32 entries; u8 macs[entries][6]: the whole length must match. */
	memcpy(&n_uc, p, sizeof(n_uc));
	n_uc = rte_le_to_cpu_32(n_uc);
	mc_at = sizeof(n_uc) + (uint64_t)n_uc * VUR_NET_ALEN;
	if (mc_at + sizeof(n_mc) > len)
		return VIRTIO_NET_ERR;
	memcpy(&n_mc, p + mc_at, sizeof(n_mc));
	n_mc = rte_le_to_cpu_32(n_mc);
	if (mc_at + sizeof(n_mc) + (uint64_t)n_mc * VUR_NET_ALEN != len)
		return VIRTIO_NET_ERR;

	overflow = ns->uc.overflow || ns->mc.overflow;
	if (vur_net_state_set_mac_tables(
			    ns, p + sizeof(n_uc), n_uc, p + mc_at + sizeof(n_mc), n_mc) != 0)
		return VIRTIO_NET_ERR;
	/* Once per fallback, not on every rx mode change of a busy guest. */
	if (!overflow && (ns->uc.overflow || ns->mc.overflow))
		VUR_LOG_LIMITED(&ns->log_rl, dev_name(ctx), net, NOTICE,
				"%u unicast, %u multicast filter entries: over %u, "
				"accepting all of that kind",
				n_uc, n_mc, VUR_NET_MAC_TABLE_LEN);
	return VIRTIO_NET_OK;
}

/* ROCE-DEV-POLICY-7: a MAC the administrator pinned is the only one the driver may set. */
static bool
mac_refused(void *ctx, const uint8_t m[VUR_NET_ALEN])
{
	struct vur_rdma_dev *rd = ((struct vur_ctrl_target *)ctx)->rdma;
	struct vur_addr_policy *p = rd != NULL ? rd->policy : NULL;

	if (p == NULL || !p->mac_pinned || memcmp(m, p->mac, VUR_NET_ALEN) == 0)
		return false;
	/* counted, not logged: a guest could flood the log; the state stays as it was */
	p->refused_macs++;
	return true;
}

static uint8_t
mac_addr_set(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	static const uint8_t zero[VUR_NET_ALEN];
	struct vur_net_state *ns = net(ctx);
	const uint8_t *m = cmd;

	RTE_SET_USED(len);
	RTE_SET_USED(ack);
	/* A station's own address: an individual one, and all zeroes is no address. */
	if ((m[0] & 1) != 0 || memcmp(m, zero, VUR_NET_ALEN) == 0 || mac_refused(ctx, m))
		return VIRTIO_NET_ERR;
	memcpy(ns->mac, m, VUR_NET_ALEN);
	VUR_LOG_LIMITED(&ns->log_rl, dev_name(ctx), net, NOTICE,
			"MAC address %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
			m[5]);
	return VIRTIO_NET_OK;
}

static uint8_t
vlan_set(void *ctx, const void *cmd, bool member)
{
	uint16_t vid;

	memcpy(&vid, cmd, sizeof(vid));
	return vur_net_state_set_vlan(net(ctx), rte_le_to_cpu_16(vid), member) == 0
			? VIRTIO_NET_OK
			: VIRTIO_NET_ERR;
}

static uint8_t
vlan_add(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	RTE_SET_USED(len);
	RTE_SET_USED(ack);
	return vlan_set(ctx, cmd, true);
}

static uint8_t
vlan_del(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	RTE_SET_USED(len);
	RTE_SET_USED(ack);
	return vlan_set(ctx, cmd, false);
}

static uint8_t
announce_ack(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(len);
	RTE_SET_USED(ack);
	/* Cleared before the buffer is used, as the spec requires. */
	net(ctx)->announce_pending = false;
	return VIRTIO_NET_OK;
}

static uint8_t
mq_vq_pairs_set(void *ctx, const void *cmd, uint32_t len, void *ack)
{
	struct vur_net_state *ns = net(ctx);
	uint16_t pairs;

	RTE_SET_USED(len);
	RTE_SET_USED(ack);
	memcpy(&pairs, cmd, sizeof(pairs));
	pairs = rte_le_to_cpu_16(pairs);
	if (pairs < VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN || pairs > ns->max_pairs)
		return VIRTIO_NET_ERR;
	ns->active_pairs = pairs;
	return VIRTIO_NET_OK;
}

#define CMD(cls, cmd, len, feat, fn)                                                      \
	{                                                                                 \
		.class = VIRTIO_NET_CTRL_##cls, .command = VIRTIO_NET_CTRL_##cls##_##cmd, \
		.name = #cls "_" #cmd, .cmd_len = len, .feature = feat, .handler = fn     \
	}

/* Commands not listed here (RSS, HASH_CONFIG, offloads, ...) are answered as unknown. */
static const struct vur_ctrl_cmd net_cmds[] = {
	CMD(RX, PROMISC, 1, F(CTRL_RX), rx_promisc),
	CMD(RX, ALLMULTI, 1, F(CTRL_RX), rx_allmulti),
	CMD(RX, ALLUNI, 1, F(CTRL_RX) | F(CTRL_RX_EXTRA), rx_alluni),
	CMD(RX, NOMULTI, 1, F(CTRL_RX) | F(CTRL_RX_EXTRA), rx_nomulti),
	CMD(RX, NOUNI, 1, F(CTRL_RX) | F(CTRL_RX_EXTRA), rx_nouni),
	CMD(RX, NOBCAST, 1, F(CTRL_RX) | F(CTRL_RX_EXTRA), rx_nobcast),
	/* Two counts at least; the second count's place depends on the first. */
	{ .class = VIRTIO_NET_CTRL_MAC,
			.command = VIRTIO_NET_CTRL_MAC_TABLE_SET,
			.name = "MAC_TABLE_SET",
			.cmd_len = 2 * sizeof(uint32_t),
			.var_elem = VUR_NET_ALEN,
			.var_count_at = VUR_CTRL_VAR_ANY,
			.feature = F(CTRL_RX),
			.handler = mac_table_set },
	/* Linux sends it with CTRL_MAC_ADDR alone, so CTRL_RX is not also required. */
	CMD(MAC, ADDR_SET, VUR_NET_ALEN, F(CTRL_MAC_ADDR), mac_addr_set),
	CMD(VLAN, ADD, sizeof(uint16_t), F(CTRL_VLAN), vlan_add),
	CMD(VLAN, DEL, sizeof(uint16_t), F(CTRL_VLAN), vlan_del),
	CMD(ANNOUNCE, ACK, 0, F(GUEST_ANNOUNCE), announce_ack),
	CMD(MQ, VQ_PAIRS_SET, sizeof(uint16_t), F(MQ), mq_vq_pairs_set),
};

unsigned int
vur_ctrl_net_commands(struct vur_ctrl_cmd *cmds)
{
	RTE_BUILD_BUG_ON(RTE_DIM(net_cmds) > VUR_CTRL_NET_MAX_CMDS);
	memcpy(cmds, net_cmds, sizeof(net_cmds));
	return RTE_DIM(net_cmds);
}
