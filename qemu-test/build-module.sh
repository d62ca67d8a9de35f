#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the guest kernel driver (guest-driver/linux, virtio_rdma.ko) for the
# kernel of a guest image, from a copy of the driver's sources in
# build-kmod/<version>/ (kbuild builds in place; the source folder stays
# clean). make rebuilds only what changed. Where: on the host, with
# linux-headers-<version> installed from Debian's archive if missing, when
# the host's archive has them (Debian 12's kernel); else in the Debian
# unstable chroot (lib.sh's in_sid), with the headers installed there
# (Linux 7.2: its kbuild tools need unstable's C library, and its objtool
# reads /proc, which in_sid mounts); not entered when the inputs and the
# chroot's packages are as at the last build (lib.sh's sid_inputs).
#
# The version is the image's (build-guest/kernel-version, written by
# build-image.sh) unless given. Quiet: prints the path of the .ko as its
# last line.
#   qemu-test/build-module.sh [KERNEL-VERSION]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

# Inside the chroot: $2 the kernel version, $3 the build folder.
if [ "${1:-}" = --in-sid ]; then
    ME=build-module
    PACKAGES=(make gcc "linux-headers-$2")
    # shellcheck source=qemu-test/lib.sh
    . "$top/qemu-test/lib.sh"
    install_packages
    make -C "$3" KVER="$2" VIRTIO_ROCE_ABI=/vur/virtio-spec/include
    exit
fi

kver=${1:-$(cat "$top/build-guest/kernel-version" 2>/dev/null || true)}
[ -n "$kver" ] || { echo "build-module: no kernel version (run build-image.sh first)" >&2; exit 1; }

ME=build-module
PACKAGES=(make gcc)
# shellcheck source=qemu-test/lib.sh
. "$top/qemu-test/lib.sh"

src=$top/guest-driver/linux
out=$top/build-kmod/$kver

mkdir -p "$out"
exec 9>"$out.lock"
flock 9

# The host's archive has the headers of its own release's kernels only.
host_has_headers() {
    dpkg-query -W -f='${Status}' "linux-headers-$kver" 2>/dev/null |
        grep -q 'install ok installed' || apt-cache show "linux-headers-$kver" >/dev/null 2>&1
}
if ! host_has_headers && ! compgen -G '/var/lib/apt/lists/*_Packages' >/dev/null; then
    as_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
fi
on_host=0
if host_has_headers; then
    on_host=1
    PACKAGES+=("linux-headers-$kver")
fi
install_packages
# Copies keep their times, so make sees what changed; files gone from the
# source go from the copy too.
find "$out" -maxdepth 1 -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -delete
cp -p "$src"/*.[ch] "$src"/Kbuild "$src"/Makefile "$out/"
if [ $on_host = 1 ]; then
    nice make -C "$out" KVER="$kver" VIRTIO_ROCE_ABI="$top/virtio-spec/include" >"$log" 2>&1 ||
        fail "make failed"
else
    want=$(sid_inputs "$0" "$out"/*.[ch] "$out/Kbuild" "$out/Makefile" \
        "$top"/virtio-spec/include/*/*.h)
    if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$want" ] && [ -f "$out/virtio_rdma.ko" ]; then
        echo "$out/virtio_rdma.ko"
        exit 0
    fi
    in_sid nice bash /vur/qemu-test/build-module.sh --in-sid "$kver" "/vur/build-kmod/$kver" \
        >"$log" 2>&1 || fail "make in the Debian unstable chroot failed"
fi
! grep -qi 'warning' "$log" || fail "warnings (compiler or modpost)"
[ $on_host = 1 ] || echo "$want" >"$out/.stamp"
echo "$out/virtio_rdma.ko"
