/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the configuration space encoding: byte images written by
 * hand from the spec's layout, not from the header's structs.
 */
#include <errno.h>
#include <string.h>

#include "tests/tap.h"
#include "vdev_config.h"

static const struct vur_config_state base = {
	.mac = { 0x52, 0x54, 0x00, 0x5e, 0x00, 0x01 },
	.link_up = true,
	.mtu = 1500,
	.max_qps = 0x40,
	.max_cqs = 0x21,
	.speed = 2000, /* 200 Gb/s */
};

static void
current_layout(void)
{
	uint8_t buf[VUR_CONFIG_MAX_LEN];
	static const uint8_t want[48] = {
		0x52, 0x54, 0x00, 0x5e, 0x00, 0x01, /* mac */
		0x01, 0x00,                         /* status: LINK_UP */
		0x01, 0x00,                         /* max_virtqueue_pairs */
		0xdc, 0x05,                         /* mtu 1500 */
		0x40, 0x0d, 0x03, 0x00,             /* speed 200000 Mb/s */
		0x01, 0x00, 0x00, 0x00,             /* duplex full, rss, indirection */
		0x00, 0x00, 0x00, 0x00,             /* supported_hash_types */
		0x00, 0x00, 0x00, 0x00,             /* supported_tunnel_types */
		0x40, 0x00, 0x00, 0x00,             /* max_rdma_qps @28 */
		0x21, 0x00, 0x00, 0x00,             /* max_rdma_cqs @32 */
		0x00, 0x00, 0x00, 0x00,             /* reserved */
		0xd0, 0x07, 0, 0, 0, 0, 0, 0,       /* roce_port_speed @40 */
	};

	TAP_CHECK(vur_config_build(&base, buf) == sizeof(want));
	TAP_CHECK(memcmp(buf, want, sizeof(want)) == 0);
}

static void
rfc2_layout(void)
{
	struct vur_config_state st = base;
	uint8_t buf[VUR_CONFIG_MAX_LEN];

	st.rfc2_numbering = true;
	TAP_CHECK(vur_config_build(&st, buf) == 40);
	TAP_CHECK(buf[24] == 0x40 && buf[25] == 0 && buf[28] == 0x21);
	TAP_CHECK(buf[32] == 0xd0 && buf[33] == 0x07);
	TAP_CHECK(buf[12] == 0x40 && buf[13] == 0x0d && buf[14] == 0x03);
}

static void
link_down_and_clamp(void)
{
	struct vur_config_state st = base;
	uint8_t buf[VUR_CONFIG_MAX_LEN];

	st.link_up = false;
	st.speed = 0;
	vur_config_build(&st, buf);
	TAP_CHECK(buf[6] == 0 && buf[12] == 0 && buf[40] == 0);
	st.announce = true; /* VIRTIO_NET_S_ANNOUNCE, bit 1 of status */
	vur_config_build(&st, buf);
	TAP_CHECK(buf[6] == 2 && buf[7] == 0);

	/* Beyond 0x7fffffff Mb/s virtio-net's field saturates; RoCE's does not. */
	st.speed = 0x100000000ULL;
	vur_config_build(&st, buf);
	TAP_CHECK(buf[12] == 0xff && buf[15] == 0x7f);
	TAP_CHECK(buf[44] == 1);
}

static void
read_ranges(void)
{
	uint8_t cfg[VUR_CONFIG_MAX_LEN], out[64];
	size_t len = vur_config_build(&base, cfg);

	TAP_CHECK(vur_config_read(cfg, len, 0, len, out) == 0);
	TAP_CHECK(memcmp(out, cfg, len) == 0);
	TAP_CHECK(vur_config_read(cfg, len, 28, 4, out) == 0 && out[0] == 0x40);
	TAP_CHECK(vur_config_read(cfg, len, 0, 0, out) == -EINVAL);
	TAP_CHECK(vur_config_read(cfg, len, len, 1, out) == -EINVAL);
	TAP_CHECK(vur_config_read(cfg, len, 40, 9, out) == -EINVAL);
	TAP_CHECK(vur_config_read(cfg, len, 0, len + 1, out) == -EINVAL);
	/* offset + size wraps around 2^32 */
	TAP_CHECK(vur_config_read(cfg, len, 8, 0xfffffffcu, out) == -EINVAL);
	TAP_CHECK(vur_config_read(cfg, len, 0xffffffffu, 2, out) == -EINVAL);
}

int
main(void)
{
	TAP_RUN(current_layout);
	TAP_RUN(rfc2_layout);
	TAP_RUN(link_down_and_clamp);
	TAP_RUN(read_ranges);
	return tap_done();
}
