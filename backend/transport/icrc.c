/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <isa-l/crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "transport/icrc.h"
#include "transport/roce_hdr.h"

#define IPV4_LEN 20
#define IPV6_LEN 40
#define UDP_LEN  8

/* The masked IP, UDP and BTH headers, crc'd after the 8 bytes of ones. */
static uint32_t
crc_headers(const uint8_t *hdrs, int ipv6)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t buf[IPV6_LEN + UDP_LEN + VUR_BTH_LEN];
	uint32_t ip_len = ipv6 ? IPV6_LEN : IPV4_LEN;
	uint32_t len = ip_len + UDP_LEN + VUR_BTH_LEN;

	memcpy(buf, hdrs, len);
	if (ipv6) {
		/* version stays; traffic class and flow label become ones */
		buf[0] |= 0x0f;
		memset(&buf[1], 0xff, 3);
		buf[7] = 0xff; /* hop limit */
	} else {
		buf[1] = 0xff;             /* TOS */
		buf[8] = 0xff;             /* TTL */
		memset(&buf[10], 0xff, 2); /* header checksum */
	}
	memset(&buf[ip_len + 6], 0xff, 2); /* UDP checksum */
	buf[ip_len + UDP_LEN + 4] = 0xff;  /* BTH: FECN, BECN, reserved */
	return crc32_gzip_refl(crc32_gzip_refl(0, ones, sizeof(ones)), buf, len);
}

uint32_t
vur_icrc_flat(const uint8_t *p, uint32_t len, int ipv6)
{
	uint32_t hlen = (ipv6 ? IPV6_LEN : IPV4_LEN) + UDP_LEN + VUR_BTH_LEN;

	if (len < hlen)
		return 0;
	return crc32_gzip_refl(crc_headers(p, ipv6), p + hlen, len - hlen);
}

uint32_t
vur_icrc_compute(const struct rte_mbuf *m, uint32_t l3_off, uint32_t icrc_off, int ipv6)
{
	uint8_t hdrs[IPV6_LEN + UDP_LEN + VUR_BTH_LEN];
	uint32_t hlen = (ipv6 ? IPV6_LEN : IPV4_LEN) + UDP_LEN + VUR_BTH_LEN;
	uint32_t off = l3_off + hlen, crc, seg_off = 0, n;
	const uint8_t *p;

	p = rte_pktmbuf_read(m, l3_off, hlen, hdrs);
	if (p == NULL || icrc_off < off)
		return 0;
	crc = crc_headers(p, ipv6);
	/* The rest, segment by segment, without a copy. */
	for (; m != NULL && off < icrc_off; m = m->next) {
		if (off >= seg_off + m->data_len) {
			seg_off += m->data_len;
			continue;
		}
		n = RTE_MIN(icrc_off, seg_off + m->data_len) - off;
		crc = crc32_gzip_refl(
				crc, rte_pktmbuf_mtod_offset(m, const uint8_t *, off - seg_off), n);
		off += n;
		seg_off += m->data_len;
	}
	return crc;
}
