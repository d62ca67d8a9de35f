/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "eth_util.h"
#include "telemetry.h"

void
eth_frame(uint8_t *buf, size_t len, const uint8_t dst[6], const uint8_t src[6], uint32_t marker)
{
	uint16_t type = htons(ETH_TEST_TYPE);
	uint32_t m = htonl(marker);

	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	memcpy(buf + 12, &type, 2);
	memcpy(buf + 14, &m, 4);
	for (size_t i = 18; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + marker);
}

int
eth_is_marked(const uint8_t *buf, size_t len, uint32_t marker)
{
	uint16_t type = htons(ETH_TEST_TYPE);
	uint32_t m = htonl(marker);

	return len >= 18 && memcmp(buf + 12, &type, 2) == 0 && memcmp(buf + 14, &m, 4) == 0;
}

int
eth_recv_marked(struct vur_user_dev *dev, uint32_t marker, uint8_t *buf, size_t cap, size_t *len,
		int timeout_ms)
{
	int64_t deadline = vuser_now_ms() + timeout_ms, left;
	int ret;

	for (;;) {
		left = deadline - vuser_now_ms();
		if (left < 0)
			return -ETIMEDOUT;
		ret = vur_user_net_recv(dev, buf, cap, (int)left);
		if (ret < 0 && ret != -EMSGSIZE)
			return ret;
		if (ret > 0 && eth_is_marked(buf, (size_t)ret, marker)) {
			*len = (size_t)ret;
			return 0;
		}
	}
}

uint64_t
eth_wait_counter(const char *prefix, const char *path, const char *field, uint64_t want,
		int timeout_ms)
{
	int64_t deadline = vuser_now_ms() + timeout_ms;
	char cmd[256], out[16384];
	uint64_t v = 0;

	snprintf(cmd, sizeof(cmd), "/vur/device,%s", path);
	for (;;) {
		if (telemetry_query(prefix, cmd, out, sizeof(out)) > 0 &&
				telemetry_field(out, field, &v) == 0 && v >= want)
			return v;
		if (vuser_now_ms() >= deadline)
			return v;
		poll(NULL, 0, 10); /* telemetry has no notification to wait on */
	}
}
