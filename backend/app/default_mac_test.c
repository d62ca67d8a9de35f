/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the default MAC: a hash of the host's identity and the socket path. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "default_mac.h"
#include "tests/tap.h"

#define HOST_A "0b2d6f1c9a4e4f7d8e3c5a6b7d8e9f01"
#define HOST_B "5f1e2d3c4b5a69788796a5b4c3d2e1f0"

static bool
local_unicast(const uint8_t mac[6])
{
	return (mac[0] & 0x03) == 0x02;
}

static bool
same(const uint8_t a[6], const uint8_t b[6])
{
	return memcmp(a, b, 6) == 0;
}

static void
deterministic(void)
{
	uint8_t a[6], b[6];

	vur_default_mac(HOST_A, "/tmp/vhost-rdma0", 0, a);
	vur_default_mac(HOST_A, "/tmp/vhost-rdma0", 0, b);
	TAP_CHECK(same(a, b));
	TAP_CHECK(local_unicast(a));
	/* not the old fixed default, nor all zeros */
	TAP_CHECK(!same(a, (const uint8_t[6]){ 0x52, 0x54, 0x00, 0x5e, 0x00, 0x01 }));
	TAP_CHECK(!same(a, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 0 }));
}

/* Paths and hosts that differ in one character, in length, or only in the attempt. */
static void
differs(void)
{
	static const char *const paths[] = { "/tmp/vhost-rdma0", "/tmp/vhost-rdma1",
		"/tmp/vhost-rdma10", "/tmp/vhost-rdma", "/var/run/vhost-rdma0", "/" };
	uint8_t m[6][6], h[6], again[6];

	for (size_t i = 0; i < 6; i++) {
		vur_default_mac(HOST_A, paths[i], 0, m[i]);
		TAP_CHECK(local_unicast(m[i]));
		for (size_t j = 0; j < i; j++)
			TAP_CHECK(!same(m[i], m[j]));
	}
	vur_default_mac(HOST_B, paths[0], 0, h);
	TAP_CHECK(!same(h, m[0]));
	vur_default_mac("ws-build-7", paths[0], 0, h); /* a host name */
	TAP_CHECK(!same(h, m[0]) && local_unicast(h));
	vur_default_mac(HOST_A, paths[0], 1, again);
	TAP_CHECK(!same(again, m[0]) && local_unicast(again));
	/* the separator keeps "ab" + "/c" apart from "a" + "b/c" */
	vur_default_mac("ab", "/c", 0, h);
	vur_default_mac("a", "b/c", 0, again);
	TAP_CHECK(!same(h, again));
}

/* Whatever the inputs, bit 0 of the first octet clear and bit 1 set. */
static void
always_local_unicast(void)
{
	char path[64], host[48];
	uint8_t mac[6];
	unsigned int bad = 0, seen_hi = 0, seen_lo = 0;

	for (unsigned int i = 0; i < 4096; i++) {
		snprintf(path, sizeof(path), "/run/vur/dev%u.sock", i);
		snprintf(host, sizeof(host), "%032x", i * 2654435761u);
		vur_default_mac(host, path, i % 3, mac);
		bad += !local_unicast(mac);
		/* the other bits of the first octet vary */
		seen_hi |= mac[0] & 0xfc;
		seen_lo |= mac[5];
	}
	TAP_CHECK(bad == 0);
	TAP_CHECK(seen_hi == 0xfc && seen_lo == 0xff);
}

/* A long path (the key buffer's length is not a multiple of 4 either). */
static void
long_path(void)
{
	char path[4000];
	uint8_t a[6], b[6];

	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	vur_default_mac(HOST_A, path, 0, a);
	path[sizeof(path) - 2] = 'y';
	vur_default_mac(HOST_A, path, 0, b);
	TAP_CHECK(local_unicast(a) && local_unicast(b) && !same(a, b));
}

static char tmpdir[] = "/tmp/vur-default-mac-XXXXXX";

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	TAP_CHECK(f != NULL);
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

/* machine-id's first line; the host name when the file is absent or empty. */
static void
host_identity(void)
{
	char file[96], buf[128], hostname[128] = "";
	const char *src;

	TAP_CHECK(mkdtemp(tmpdir) != NULL);
	snprintf(file, sizeof(file), "%s/machine-id", tmpdir);
	write_file(file, HOST_A "\n");
	src = vur_host_identity(file, buf, sizeof(buf));
	TAP_CHECK(strcmp(src, "machine-id") == 0 && strcmp(buf, HOST_A) == 0);

	gethostname(hostname, sizeof(hostname));
	hostname[sizeof(hostname) - 1] = '\0';
	write_file(file, "");
	src = vur_host_identity(file, buf, sizeof(buf));
	TAP_CHECK(strcmp(src, "hostname") == 0 && buf[0] != '\0');
	TAP_CHECK(hostname[0] == '\0' || strcmp(buf, hostname) == 0);
	write_file(file, "\n");
	TAP_CHECK(strcmp(vur_host_identity(file, buf, sizeof(buf)), "hostname") == 0);
	unlink(file);
	src = vur_host_identity(file, buf, sizeof(buf));
	TAP_CHECK(strcmp(src, "hostname") == 0 && buf[0] != '\0');
	rmdir(tmpdir);
}

int
main(void)
{
	TAP_RUN(deterministic);
	TAP_RUN(differs);
	TAP_RUN(always_local_unicast);
	TAP_RUN(long_path);
	TAP_RUN(host_identity);
	return tap_done();
}
