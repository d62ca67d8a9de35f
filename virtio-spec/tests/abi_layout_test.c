/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Layout drift test. Prints nothing and exits 0 when every size and offset
 * is what the spec text says; otherwise names each drifted field on stderr.
 * The expected numbers are written here from the spec, independently of the
 * header's own _Static_asserts, and byte images check the field widths.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <linux/virtio_net_roce.h>

static int failures;

static void
expect(const char *what, size_t got, size_t want)
{
	if (got != want) {
		fprintf(stderr, "%s: %zu, spec says %zu\n", what, got, want);
		failures++;
	}
}

#define SIZE(type, n)   expect("sizeof(struct " #type ")", sizeof(struct type), n)
#define OFF(type, f, n) expect(#type "." #f, offsetof(struct type, f), n)

static void
sizes(void)
{
	SIZE(virtio_net_roce_config, 48);
	SIZE(virtio_net_roce_config_rfc2, 40);
	SIZE(virtio_rdma_ack_query_device, 128);
	SIZE(virtio_rdma_ack_query_port, 32);
	SIZE(virtio_rdma_cmd_create_cq, 4);
	SIZE(virtio_rdma_ack_create_cq, 4);
	SIZE(virtio_rdma_cmd_destroy_cq, 4);
	SIZE(virtio_rdma_ack_create_pd, 4);
	SIZE(virtio_rdma_cmd_destroy_pd, 4);
	SIZE(virtio_rdma_cmd_get_dma_mr, 8);
	SIZE(virtio_rdma_ack_get_dma_mr, 12);
	SIZE(virtio_rdma_cmd_reg_user_mr, 32);
	SIZE(virtio_rdma_ack_reg_user_mr, 12);
	SIZE(virtio_rdma_cmd_dereg_mr, 4);
	SIZE(virtio_rdma_qp_cap, 24);
	SIZE(virtio_rdma_cmd_create_qp, 56);
	SIZE(virtio_rdma_ack_create_qp, 4);
	SIZE(virtio_rdma_global_route, 24);
	SIZE(virtio_rdma_ah_attr, 40);
	SIZE(virtio_rdma_cmd_modify_qp, 128);
	SIZE(virtio_rdma_cmd_query_qp, 8);
	SIZE(virtio_rdma_ack_query_qp, 120);
	SIZE(virtio_rdma_cmd_destroy_qp, 4);
	SIZE(virtio_rdma_cmd_create_ah, 48);
	SIZE(virtio_rdma_ack_create_ah, 4);
	SIZE(virtio_rdma_cmd_destroy_ah, 8);
	SIZE(virtio_rdma_cmd_add_gid, 24);
	SIZE(virtio_rdma_cmd_del_gid, 2);
	SIZE(virtio_rdma_cmd_req_notify, 8);
	SIZE(virtio_rdma_ack_query_port_speed, 32);
	SIZE(virtio_rdma_sge, 16);
	SIZE(virtio_rdma_sq_req, 576);
	SIZE(virtio_rdma_rq_req, 24);
	SIZE(virtio_rdma_cq_req, 48);
}

static void
offsets(void)
{
	OFF(virtio_net_roce_config, speed, 12);
	OFF(virtio_net_roce_config, supported_tunnel_types, 24);
	OFF(virtio_net_roce_config, max_rdma_qps, 28);
	OFF(virtio_net_roce_config, max_rdma_cqs, 32);
	OFF(virtio_net_roce_config, roce_port_speed, 40);
	OFF(virtio_net_roce_config_rfc2, max_rdma_qps, 24);
	OFF(virtio_net_roce_config_rfc2, roce_port_speed, 32);
	OFF(virtio_rdma_ack_query_device, hw_ver, 24);
	OFF(virtio_rdma_ack_query_device, max_ah, 64);
	OFF(virtio_rdma_ack_query_device, local_ca_ack_delay, 68);
	OFF(virtio_rdma_cmd_reg_user_mr, npages, 24);
	OFF(virtio_rdma_cmd_reg_user_mr, pages, 32);
	OFF(virtio_rdma_cmd_create_qp, send_cqn, 8);
	OFF(virtio_rdma_cmd_create_qp, cap, 16);
	OFF(virtio_rdma_cmd_modify_qp, qkey, 24);
	OFF(virtio_rdma_cmd_modify_qp, cap, 48);
	OFF(virtio_rdma_cmd_modify_qp, ah_attr, 72);
	OFF(virtio_rdma_ack_query_qp, qkey, 16);
	OFF(virtio_rdma_ack_query_qp, ah_attr, 64);
	OFF(virtio_rdma_cmd_create_ah, ah_attr, 8);
	OFF(virtio_rdma_cmd_add_gid, gid, 8);
	OFF(virtio_rdma_ack_query_port_speed, flags, 8);
	OFF(virtio_rdma_ack_query_port_speed, active_members, 12);
	OFF(virtio_rdma_ack_query_port_speed, total_members, 14);
	OFF(virtio_rdma_sq_req, imm_data, 12);
	OFF(virtio_rdma_sq_req, rdma.rkey, 24);
	OFF(virtio_rdma_sq_req, ud.ah, 24);
	OFF(virtio_rdma_sq_req, inline_data, 48);
	OFF(virtio_rdma_sq_req, num_sge, 560);
	OFF(virtio_rdma_sq_req, sg_list, 576);
	OFF(virtio_rdma_rq_req, sg_list, 24);
	OFF(virtio_rdma_cq_req, byte_len, 16);
	OFF(virtio_rdma_cq_req, wc_flags, 32);
}

/* Field widths: a wrong __leNN shows up as bytes in the wrong place. */
static void
byte_image(void)
{
	struct virtio_rdma_ack_query_port_speed a;
	static const unsigned char want[16] = {
		0x10, 0x27, 0, 0, 0, 0, 0, 0, /* speed 10000 = 1 Tb/s */
		0x03, 0, 0, 0,                /* flags */
		0x02, 0,                      /* active_members */
		0x04, 0,                      /* total_members */
	};

	memset(&a, 0, sizeof(a));
	a.speed = (__le64)10000; /* the test runs on little-endian x86 only */
	a.flags = (__le32)(VIRTIO_RDMA_PORT_SPEED_F_AGGREGATED | VIRTIO_RDMA_PORT_SPEED_F_LOOPBACK);
	a.active_members = (__le16)2;
	a.total_members = (__le16)4;
	if (memcmp(&a, want, sizeof(want)) != 0) {
		fprintf(stderr, "virtio_rdma_ack_query_port_speed: byte image differs\n");
		failures++;
	}
}

static void
numbering(void)
{
	expect("VIRTIO_NET_F_ROCE", VIRTIO_NET_F_ROCE, 58);
	expect("VIRTIO_NET_F_ROCE_PORT_SPEED", VIRTIO_NET_F_ROCE_PORT_SPEED, 4);
	expect("VIRTIO_NET_CTRL_ROCE", VIRTIO_NET_CTRL_ROCE, 64);
	expect("VIRTIO_NET_F_ROCE_RFC2", VIRTIO_NET_F_ROCE_RFC2, 55);
	expect("VIRTIO_NET_CTRL_ROCE_RFC2", VIRTIO_NET_CTRL_ROCE_RFC2, 6);
	expect("QUERY_PORT_SPEED", VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED, 18);
	expect("REQ_NOTIFY_CQ", VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ, 17);
	expect("VIRTIO_IB_WC_GENERAL_ERR", VIRTIO_IB_WC_GENERAL_ERR, 15);
	expect("VIRTIO_IB_QPS_ERR", VIRTIO_IB_QPS_ERR, 6);
	expect("VIRTIO_IB_QP_RATE_LIMIT", VIRTIO_IB_QP_RATE_LIMIT, 1 << 16);
}

/* Every queue index maps back to the object it was computed from. */
static void
vq_layout(void)
{
	const __u32 pairs = 2, cqs = 5, qps = 7;
	__u32 vq, num, total = virtio_net_roce_num_vqs(pairs, cqs, qps);
	enum virtio_net_roce_vq_kind k;

	expect("num_vqs", total, 2 * 2 + 1 + 5 + 14);
	expect("ctrl_vq", virtio_net_roce_ctrl_vq(pairs), 4);
	expect("cq_vq(0)", virtio_net_roce_cq_vq(pairs, 0), 5);
	expect("sq_vq(0)", virtio_net_roce_sq_vq(pairs, cqs, 0), 10);
	expect("rq_vq(6)", virtio_net_roce_rq_vq(pairs, cqs, 6), 23);
	for (vq = 0; vq < total + 3; vq++) {
		k = virtio_net_roce_vq_classify(vq, pairs, cqs, qps, &num);
		switch (k) {
		case VIRTIO_NET_ROCE_VQ_NET:
			expect("net pair", num, vq / 2);
			break;
		case VIRTIO_NET_ROCE_VQ_CTRL:
			expect("ctrl", vq, virtio_net_roce_ctrl_vq(pairs));
			break;
		case VIRTIO_NET_ROCE_VQ_CQ:
			expect("cq round trip", virtio_net_roce_cq_vq(pairs, num), vq);
			break;
		case VIRTIO_NET_ROCE_VQ_SQ:
			expect("sq round trip", virtio_net_roce_sq_vq(pairs, cqs, num), vq);
			break;
		case VIRTIO_NET_ROCE_VQ_RQ:
			expect("rq round trip", virtio_net_roce_rq_vq(pairs, cqs, num), vq);
			break;
		case VIRTIO_NET_ROCE_VQ_INVALID:
			expect("invalid only past the end", vq >= total, 1);
			break;
		case VIRTIO_NET_ROCE_VQ_DBQ:
		case VIRTIO_NET_ROCE_VQ_EQ:
			expect("no ring queues without rdma_ring_queues", 0, 1);
			break;
		}
		if (vq >= total)
			expect("past the end is invalid", k, VIRTIO_NET_ROCE_VQ_INVALID);
	}
}

/* With K ring queue pairs: the doorbell and event queues follow the QP pairs. */
static void
vq_layout_rings(void)
{
	const __u32 pairs = 1, cqs = 64, qps = 64, k = 4;
	__u32 vq, num, first = virtio_net_roce_num_vqs(pairs, cqs, qps);
	__u32 total = virtio_net_roce_num_vqs_rings(pairs, cqs, qps, k);
	enum virtio_net_roce_vq_kind kind;

	expect("num_vqs_rings", total, 195 + 8);
	expect("dbq_vq(0)", virtio_net_roce_dbq_vq(pairs, cqs, qps, 0), 195);
	expect("eq_vq(3)", virtio_net_roce_eq_vq(pairs, cqs, qps, 3), 202);
	for (vq = first; vq < total + 2; vq++) {
		kind = virtio_net_roce_vq_classify_rings(vq, pairs, cqs, qps, k, &num);
		if (vq >= total) {
			expect("past the rings is invalid", kind, VIRTIO_NET_ROCE_VQ_INVALID);
		} else if (kind == VIRTIO_NET_ROCE_VQ_DBQ) {
			expect("dbq round trip", virtio_net_roce_dbq_vq(pairs, cqs, qps, num), vq);
		} else {
			expect("eq kind", kind, VIRTIO_NET_ROCE_VQ_EQ);
			expect("eq round trip", virtio_net_roce_eq_vq(pairs, cqs, qps, num), vq);
		}
	}
	kind = virtio_net_roce_vq_classify_rings(first - 1, pairs, cqs, qps, k, &num);
	expect("the last rq before the rings", kind, VIRTIO_NET_ROCE_VQ_RQ);
}

int
main(void)
{
	sizes();
	offsets();
	byte_image();
	numbering();
	vq_layout();
	vq_layout_rings();
	return failures ? 1 : 0;
}
