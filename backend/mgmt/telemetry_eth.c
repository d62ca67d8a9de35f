/* SPDX-License-Identifier: BSD-3-Clause */
/* Telemetry of the Ethernet path: device counters and receive filter, /vur/switch. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "common/dpdk_compat.h"
#include "mgmt/telemetry.h"
#include "net/net_dev.h"
#include "net/net_state.h"
#include "net/net_switch.h"

/* Read under the lock; forgotten under it before the switch stops. */
static pthread_mutex_t sw_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vur_switch *tel_sw;

void
vur_telemetry_add_eth(struct rte_tel_data *d, const struct vur_net_dev_stats *st)
{
	rte_tel_data_add_dict_uint(d, "eth_tx_frames", st->tx_frames);
	rte_tel_data_add_dict_uint(d, "eth_tx_bytes", st->tx_bytes);
	rte_tel_data_add_dict_uint(d, "eth_rx_frames", st->rx_frames);
	rte_tel_data_add_dict_uint(d, "eth_rx_bytes", st->rx_bytes);
	rte_tel_data_add_dict_uint(d, "eth_rx_buffers", st->rx_buffers);
	rte_tel_data_add_dict_uint(d, "eth_roce_rx", st->roce_rx);
	for (int i = 0; i < VUR_NET_DROP_COUNT; i++) {
		char key[64];

		snprintf(key, sizeof(key), "eth_%s", vur_net_drop_name(i));
		rte_tel_data_add_dict_uint(d, key, st->drops[i]);
	}
}

static int
add_mac_table(struct rte_tel_data *d, const char *key, const struct vur_net_mac_table *t)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct rte_ether_addr ea;
	struct rte_tel_data *a;

	a = rte_tel_data_alloc();
	if (a == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (uint32_t i = 0; i < t->n; i++) {
		memcpy(ea.addr_bytes, t->macs[i], sizeof(ea.addr_bytes)); /* 2-byte aligned */
		rte_ether_format_addr(mac, sizeof(mac), &ea);
		rte_tel_data_add_array_string(a, mac);
	}
	return rte_tel_data_add_dict_container(d, key, a, 0);
}

void
vur_telemetry_add_rx_filter(struct rte_tel_data *d, const struct vur_net_state *ns)
{
	rte_tel_data_add_dict_int(d, "rx_promisc", ns->promisc);
	rte_tel_data_add_dict_int(d, "rx_allmulti", ns->allmulti);
	rte_tel_data_add_dict_int(d, "rx_alluni", ns->alluni);
	rte_tel_data_add_dict_int(d, "rx_nomulti", ns->nomulti);
	rte_tel_data_add_dict_int(d, "rx_nouni", ns->nouni);
	rte_tel_data_add_dict_int(d, "rx_nobcast", ns->nobcast);
	rte_tel_data_add_dict_int(d, "rx_mac_table_uc", ns->uc.overflow ? -1 : (int)ns->uc.n);
	rte_tel_data_add_dict_int(d, "rx_mac_table_mc", ns->mc.overflow ? -1 : (int)ns->mc.n);
	add_mac_table(d, "rx_uc_macs", &ns->uc);
	add_mac_table(d, "rx_mc_macs", &ns->mc);
}

static int
add_uplink(struct rte_tel_data *d, uint16_t i)
{
	struct vur_sw_uplink_stats st;
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_tel_data *u;
	uint16_t port;
	bool up;

	port = vur_switch_uplink_stats(tel_sw, i, &up, &st);
	if (port == UINT16_MAX)
		return 0;
	u = rte_tel_data_alloc();
	if (u == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(u);
	rte_tel_data_add_dict_int(u, "up", up);
	/* how the data path learns of its frames: its interrupt, or polling */
	rte_tel_data_add_dict_string(
			u, "receive", tel_sw->uplinks[i].rx_intr ? "interrupts" : "polled");
	rte_tel_data_add_dict_uint(u, "rx_frames", st.rx_frames);
	rte_tel_data_add_dict_uint(u, "rx_bytes", st.rx_bytes);
	rte_tel_data_add_dict_uint(u, "tx_frames", st.tx_frames);
	rte_tel_data_add_dict_uint(u, "tx_bytes", st.tx_bytes);
	rte_tel_data_add_dict_uint(u, "tx_dropped", st.tx_dropped);
	if (rte_eth_dev_get_name_by_port(port, name) != 0)
		snprintf(name, sizeof(name), "port%u", port);
	return rte_tel_data_add_dict_container(d, name, u, 0);
}

/* "busy_ns": {"dp0": N, ...}: each data-path thread's time in passes that found work. */
static int
add_busy(struct rte_tel_data *d, const struct vur_switch *sw)
{
	struct rte_tel_data *b = rte_tel_data_alloc();
	char key[16];

	if (b == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(b);
	for (unsigned int i = 0; i < sw->n_dp; i++) {
		snprintf(key, sizeof(key), "dp%u", i);
		rte_tel_data_add_dict_uint(
				b, key, __atomic_load_n(&sw->dp[i].busy_ns, __ATOMIC_RELAXED));
	}
	return rte_tel_data_add_dict_container(d, "busy_ns", b, 0);
}

static int
show_switch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vur_sw_stats st;
	int ret = 0;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&sw_lock);
	if (tel_sw == NULL)
		goto out;
	vur_switch_stats(tel_sw, &st);
	rte_tel_data_add_dict_uint(d, "data_paths", tel_sw->n_dp);
	ret = add_busy(d, tel_sw);
	if (ret != 0)
		goto out;
	rte_tel_data_add_dict_uint(d, "flooded", st.flooded);
	rte_tel_data_add_dict_uint(d, "drop_no_uplink", st.no_uplink);
	rte_tel_data_add_dict_uint(d, "drop_uplink_down", st.uplink_down);
	rte_tel_data_add_dict_uint(d, "fdb_learned", st.fdb_learned);
	rte_tel_data_add_dict_uint(d, "fdb_moved", st.fdb_moved);
	rte_tel_data_add_dict_uint(d, "fdb_evicted", st.fdb_evicted);
	rte_tel_data_add_dict_uint(d, "uplink_polls", st.uplink_polls);
	rte_tel_data_add_dict_uint(d, "drop_vlan_no_mbuf", st.vlan_no_mbuf);
	for (uint16_t i = 0; i < VUR_MAX_UPLINKS && ret == 0; i++)
		ret = add_uplink(d, i);
out:
	pthread_mutex_unlock(&sw_lock);
	return ret;
}

int
vur_telemetry_register_switch(struct vur_switch *sw)
{
	pthread_mutex_lock(&sw_lock);
	tel_sw = sw;
	pthread_mutex_unlock(&sw_lock);
	return rte_telemetry_register_cmd("/vur/switch", show_switch,
			"The local switch: counters and uplink traffic. No parameters");
}

void
vur_telemetry_unregister_switch(void)
{
	pthread_mutex_lock(&sw_lock);
	tel_sw = NULL;
	pthread_mutex_unlock(&sw_lock);
}
