#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the guest kernel driver (guest-driver/linux, virtio_rdma.ko) for the
# kernel of the guest image: installs linux-headers-<that version> from
# Debian's archive if missing and builds a copy of the driver's sources in
# build-kmod/<version>/ (kbuild builds in place; the source folder stays
# clean). make rebuilds only what changed.
#
# The version is the image's (build-guest/kernel-version, written by
# build-image.sh) unless given. Quiet: prints the path of the .ko as its
# last line.
#   qemu-test/build-module.sh [KERNEL-VERSION]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

kver=${1:-$(cat "$top/build-guest/kernel-version" 2>/dev/null || true)}
[ -n "$kver" ] || { echo "build-module: no kernel version (run build-image.sh first)" >&2; exit 1; }

ME=build-module
PACKAGES=(make gcc "linux-headers-$kver")
# shellcheck source=qemu-test/lib.sh
. "$top/qemu-test/lib.sh"

src=$top/guest-driver/linux
out=$top/build-kmod/$kver

mkdir -p "$out"
exec 9>"$out.lock"
flock 9

install_packages
# Copies keep their times, so make sees what changed; files gone from the
# source go from the copy too.
find "$out" -maxdepth 1 -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -delete
cp -p "$src"/*.[ch] "$src"/Kbuild "$src"/Makefile "$out/"
nice make -C "$out" KVER="$kver" VIRTIO_ROCE_ABI="$top/virtio-spec/include" >"$log" 2>&1 ||
    fail "make failed"
! grep -qi 'warning' "$log" || fail "warnings (compiler or modpost)"
echo "$out/virtio_rdma.ko"
