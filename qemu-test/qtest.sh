#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build and run the QEMU series' own qtest of vhost-user-rdma-pci
# (tests/qtest/vhost-user-rdma-test, patch 3 of qemu-test/qemu-10.2/) on the
# tree build-qemu.sh VERSION built, in the Debian unstable chroot. Prints
# the qtest's TAP on stdout, build output on stderr.
#   qemu-test/qtest.sh [VERSION]     (default 10.2)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
version=${1:-10.2}
chroot=$top/scripts/sid-chroot.sh

binary=$("$top/qemu-test/build-qemu.sh" "$version" | tail -n 1)
cd "$(dirname "$binary")"
"$chroot" run --shared ninja -j2 tests/qtest/vhost-user-rdma-test >&2
# The QEMU libqtest starts must find the chroot's firmware; libqtest reads
# the target from the binary's name, so the wrapper keeps it.
mkdir -p qtest-wrap
printf '#!/bin/sh\nexec %s -L /usr/share/qemu -L /usr/share/seabios -L /usr/lib/ipxe/qemu "$@"\n' \
    "$PWD/qemu-system-x86_64" >qtest-wrap/qemu-system-x86_64
chmod +x qtest-wrap/qemu-system-x86_64
exec "$chroot" run --shared env QTEST_QEMU_BINARY=qtest-wrap/qemu-system-x86_64 \
    tests/qtest/vhost-user-rdma-test --tap -k
