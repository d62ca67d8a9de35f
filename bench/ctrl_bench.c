/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control command round trip through the virtio-user driver: the time from
 * making a QUERY_DEVICE (and a CREATE_PD + DESTROY_PD pair) available to
 * seeing it used, over the backend's control queue. For scale it prints the
 * memcpy bandwidth measured in the same run. It never fails on a timing.
 *
 * Usage: ctrl_bench SOCKET [ITERATIONS]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_net_roce.h>

#include "vur_user.h"

#include "bench_util.h"

static int
ctrl(struct vur_user_dev *d, uint8_t cmd, const void *data, uint32_t len, void *ack,
		uint32_t ack_len)
{
	uint8_t status;
	int ret = vur_user_ctrl(d, vur_user_roce_class(d), cmd, data, len, ack, ack_len, &status);

	return ret < 0 ? ret : status == 0 ? 0 : -EIO;
}

int
main(int argc, char **argv)
{
	struct virtio_rdma_ack_query_device qd;
	struct virtio_rdma_ack_create_pd pd;
	struct virtio_rdma_cmd_destroy_pd dpd;
	struct vur_user_dev *d;
	unsigned int i, n;
	uint64_t *q_ns, *pd_ns, t0;
	int ret;

	d = bench_open(argc, argv, 5000, &n, &ret);
	if (d == NULL)
		return ret;
	ret = 0;
	q_ns = calloc(n, sizeof(*q_ns));
	pd_ns = calloc(n, sizeof(*pd_ns));
	for (i = 0; i < n && ret == 0; i++) {
		t0 = now_ns();
		ret = ctrl(d, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, &qd, sizeof(qd));
		q_ns[i] = now_ns() - t0;
	}
	for (i = 0; i < n && ret == 0; i++) {
		t0 = now_ns();
		ret = ctrl(d, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, &pd, sizeof(pd));
		dpd.pdn = pd.pdn;
		if (ret == 0)
			ret = ctrl(d, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &dpd, sizeof(dpd), NULL, 0);
		pd_ns[i] = now_ns() - t0;
	}
	if (ret < 0) {
		fprintf(stderr, "command failed: %s\n", strerror(-ret));
	} else {
		printf("control command round trip, %u virtqueues, event index %s\n",
				vur_user_num_queues(d),
				vur_user_features(d) & (1ULL << 29) ? "on" : "off");
		report("QUERY_DEVICE", q_ns, n);
		report("CREATE_PD + DESTROY_PD", pd_ns, n);
		printf("reference: memcpy %.1f GB/s (64 MiB, best of 5)\n", memcpy_gbps());
	}
	free(q_ns);
	free(pd_ns);
	vur_user_close(d);
	return ret < 0;
}
