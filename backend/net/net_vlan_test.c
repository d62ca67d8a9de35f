/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of an access VLAN's tag on frames (net_vlan.h): push in place
 * and into a copy, pop, and every frame too short or not ours to write.
 * (Beside net_frame_test.c, which needs no EAL: these need mbufs.)
 */
#include <string.h>

#include <rte_eal.h>
#include <rte_ether.h>

#include "net/net_vlan.h"
#include "tests/tap.h"

static struct rte_mempool *pool, *small;

/* A frame of @len bytes: MACs 1..12, EtherType @type, then a counting payload. */
static struct rte_mbuf *
frame(uint32_t len, uint16_t type)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);

	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i + 1);
	if (len >= 14) {
		p[12] = (uint8_t)(type >> 8);
		p[13] = (uint8_t)type;
	}
	return m;
}

/* Whether @m is @len bytes of frame(len + 4, ...) with the tag at 12..15 removed. */
static bool
same_but_tag(const struct rte_mbuf *tagged, const struct rte_mbuf *plain)
{
	uint8_t a[2048], b[2048];
	const uint8_t *pa, *pb;

	if (tagged->pkt_len != plain->pkt_len + 4 || tagged->pkt_len > sizeof(a))
		return false;
	pa = rte_pktmbuf_read(tagged, 0, tagged->pkt_len, a);
	pb = rte_pktmbuf_read(plain, 0, plain->pkt_len, b);
	return memcmp(pa, pb, 12) == 0 && memcmp(pa + 16, pb + 12, plain->pkt_len - 12) == 0;
}

static void
push_then_pop(void)
{
	struct rte_mbuf *m = frame(60, RTE_ETHER_TYPE_IPV4), *ref = frame(60, RTE_ETHER_TYPE_IPV4);
	const uint8_t *p;

	TAP_CHECK(vur_vlan_outer_vid(m) == -1);
	TAP_CHECK(vur_vlan_push(m, 10) == 0 && m->pkt_len == 64);
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	/* TPID 0x8100, PCP 0, DEI 0, VID 10 */
	TAP_CHECK(p[12] == 0x81 && p[13] == 0x00 && p[14] == 0x00 && p[15] == 10);
	TAP_CHECK(same_but_tag(m, ref));
	TAP_CHECK(vur_vlan_outer_vid(m) == 10);
	TAP_CHECK(vur_vlan_frame_tagged(p, m->data_len));
	TAP_CHECK(vur_vlan_pop(m) == 0 && m->pkt_len == 60);
	TAP_CHECK(memcmp(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_mtod(ref, void *), 60) == 0);
	TAP_CHECK(!vur_vlan_frame_tagged(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len));
	/* VID 4094, the top; only 12 bits ever written */
	TAP_CHECK(vur_vlan_push(m, 4094) == 0 && vur_vlan_outer_vid(m) == 4094);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(ref);
}

static void
push_copy_leaves_the_original(void)
{
	struct rte_mbuf *m = frame(100, RTE_ETHER_TYPE_IPV6), *t;
	uint8_t before[100];

	memcpy(before, rte_pktmbuf_mtod(m, void *), 100);
	rte_mbuf_refcnt_update(m, 1);         /* shared, as a flooded frame */
	TAP_CHECK(vur_vlan_push(m, 20) != 0); /* never in place */
	t = vur_vlan_push_copy(m, 20, pool);
	TAP_CHECK(t != NULL && vur_vlan_outer_vid(t) == 20 && same_but_tag(t, m));
	TAP_CHECK(memcmp(before, rte_pktmbuf_mtod(m, void *), 100) == 0 && m->pkt_len == 100);
	rte_pktmbuf_free(t);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(m);
}

/* A chained source into a pool of small buffers: the copy is chained too, byte for byte. */
static void
push_copy_chains(void)
{
	struct rte_mbuf *a = frame(30, RTE_ETHER_TYPE_IPV4), *b = frame(200, 0), *t, *flat;
	uint8_t buf[256];

	rte_pktmbuf_chain(a, b); /* 230 bytes in two segments */
	t = vur_vlan_push_copy(a, 7, small);
	TAP_CHECK(t != NULL && t->pkt_len == 234 && t->nb_segs > 1);
	if (t != NULL)
		TAP_CHECK(same_but_tag(t, a) && vur_vlan_outer_vid(t) == 7);
	/* the source's tag is after the MACs, wherever the segments end */
	flat = frame(12, 0);
	rte_pktmbuf_chain(flat, frame(2, 0));
	rte_pktmbuf_free(t);
	t = vur_vlan_push_copy(flat, 1, small);
	TAP_CHECK(t != NULL && t->pkt_len == 18);
	if (t != NULL)
		TAP_CHECK(memcmp(rte_pktmbuf_read(t, 12, 4, buf), "\x81\x00\x00\x01", 4) == 0);
	rte_pktmbuf_free(t);
	rte_pktmbuf_free(flat);
	rte_pktmbuf_free(a);
}

static void
truncated_frames(void)
{
	struct rte_mbuf *m;
	uint8_t p[14] = { [12] = 0x81, [13] = 0x00 };

	/* less than the MACs: nothing to push after */
	m = frame(11, 0);
	TAP_CHECK(vur_vlan_push(m, 10) != 0 && m->pkt_len == 11);
	TAP_CHECK(vur_vlan_push_copy(m, 10, pool) == NULL);
	rte_pktmbuf_free(m);
	/* exactly the MACs: a tag and nothing after, but well formed */
	m = frame(12, 0);
	TAP_CHECK(vur_vlan_push(m, 10) == 0 && m->pkt_len == 16);
	rte_pktmbuf_free(m);
	/* a tag without its EtherType after it: not popped, not read */
	m = frame(17, RTE_ETHER_TYPE_VLAN);
	TAP_CHECK(vur_vlan_outer_vid(m) == -1 && vur_vlan_pop(m) != 0 && m->pkt_len == 17);
	rte_pktmbuf_free(m);
	m = frame(18, RTE_ETHER_TYPE_VLAN);
	TAP_CHECK(vur_vlan_pop(m) == 0 && m->pkt_len == 14);
	rte_pktmbuf_free(m);
	/* the tag split over two segments: not popped (the PMD's frames never are) */
	m = frame(14, RTE_ETHER_TYPE_VLAN);
	rte_pktmbuf_chain(m, frame(10, 0));
	TAP_CHECK(vur_vlan_pop(m) != 0 && m->pkt_len == 24);
	rte_pktmbuf_free(m);
	/* the EtherType cut off */
	TAP_CHECK(!vur_vlan_frame_tagged(p, 13) && vur_vlan_frame_tagged(p, 14));
	/* no headroom left: not pushed */
	m = frame(60, RTE_ETHER_TYPE_IPV4);
	rte_pktmbuf_prepend(m, rte_pktmbuf_headroom(m));
	TAP_CHECK(vur_vlan_push(m, 10) != 0);
	rte_pktmbuf_free(m);
}

static void
only_8021q_popped(void)
{
	struct rte_mbuf *m = frame(64, RTE_ETHER_TYPE_QINQ);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	/* 802.1ad: a service tag, tagged (the guest may not send it) but not an access VLAN's */
	TAP_CHECK(vur_vlan_frame_tagged(p, 64));
	TAP_CHECK(vur_vlan_outer_vid(m) == -1 && vur_vlan_pop(m) != 0);
	rte_pktmbuf_free(m);
	/* shared: not popped */
	m = frame(64, RTE_ETHER_TYPE_VLAN);
	rte_mbuf_refcnt_update(m, 1);
	TAP_CHECK(vur_vlan_pop(m) != 0 && m->pkt_len == 64);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(m);
}

static void
valid_ids(void)
{
	TAP_CHECK(!vur_vlan_valid(0) && vur_vlan_valid(1) && vur_vlan_valid(4094));
	TAP_CHECK(!vur_vlan_valid(4095) && !vur_vlan_valid(0x1000) && !vur_vlan_valid(-1));
}

int
main(void)
{
	char *args[] = { "net_vlan_test", "--no-huge", "-m", "64", "--no-pci",
		"--file-prefix=vur_net_vlan_test", "--no-telemetry", NULL };

	if (rte_eal_init((int)RTE_DIM(args) - 1, args) < 0) {
		printf("Bail out! EAL\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("t", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	/* 64-byte buffers: a copy of a frame spans several */
	small = rte_pktmbuf_pool_create("s", 255, 0, 0, RTE_PKTMBUF_HEADROOM + 64, SOCKET_ID_ANY);
	if (pool == NULL || small == NULL) {
		printf("Bail out! pools\n");
		return 1;
	}
	TAP_RUN(push_then_pop);
	TAP_RUN(push_copy_leaves_the_original);
	TAP_RUN(push_copy_chains);
	TAP_RUN(truncated_frames);
	TAP_RUN(only_8021q_popped);
	TAP_RUN(valid_ids);
	rte_mempool_free(pool);
	rte_mempool_free(small);
	rte_eal_cleanup();
	return tap_done();
}
