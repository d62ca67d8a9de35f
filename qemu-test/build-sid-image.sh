#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest image with Debian unstable's verbs userspace: build-image.sh's
# image (Debian 12's kernel and busybox, bookworm's tools) plus one more
# archive appended to its initramfs, holding a Debian unstable root under
# /sid: libibverbs1 (rdma-core 65), ibverbs-utils, perftest, rdmacm-utils
# (rping and mckey, through librdmacm1), libfabric-bin (fi_pingpong), libnl
# and the C library
# with whatever else ldd lists for them (apt-get download in the chroot,
# unpacked with dpkg -x), the provider virtio_rdma
# (guest-driver/rdma-core/build.sh) in its libibverbs directory with its
# .driver file in /sid/etc/libibverbs.d/, and /sid/usr/bin/verbs_probe and
# verbs_ex (tests/verbs_probe.c, tests/verbs_ex.c, built there against that
# libibverbs). /usr/bin/sid
# runs a command in that root: `sid ibv_devinfo -v` (chroot, with /proc,
# /sys and /dev bound in). The two userspaces never mix: the bookworm
# tools keep their libraries and libibverbs 65 finds only its own
# providers.
#
# The kernel is build-image.sh's choice: debian12 (Debian 12's Linux 6.1,
# the default; output in build-guest-sid/) or linux72 (Debian unstable's
# Linux 7.2; output in build-guest-sid72/). The /sid archive is the same
# for both, made once.
#
# Output: vmlinuz, vmlinux, initrd.img, kernel-version (as build-image.sh's),
# sid-packages. Reused as long as its inputs are unchanged. Quiet: prints
# the output directory as its last line.
#   qemu-test/build-sid-image.sh [debian12|linux72]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

# What the guest runs from Debian unstable, and the provider's ABI partner.
TOOLS=(/usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_asyncwatch
    /usr/bin/ibv_rc_pingpong /usr/bin/ibv_uc_pingpong /usr/bin/ibv_ud_pingpong
    /usr/bin/ibv_srq_pingpong /usr/bin/ib_write_bw /usr/bin/ib_read_bw /usr/bin/ib_send_lat
    /usr/bin/ib_send_bw /usr/bin/rping /usr/bin/mckey /usr/bin/fi_pingpong)
# libgcc-s1: glibc loads it for pthread_exit() (rping's threads end so).
# libfabric-bin: fi_pingpong (libfabric 2.1, its verbs provider built in).
PACKAGES=(libibverbs1 ibverbs-utils perftest rdmacm-utils libgcc-s1 libfabric-bin)

# Inside the chroot: the repository is /vur; $1 the folder to fill.
if [ "${1:-}" = --in-sid ]; then
    work=$2
    need=(libibverbs-dev ibverbs-utils gcc cpio "${PACKAGES[@]}")
    missing=()
    for p in "${need[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get -qq update
        apt-get -qq install -y "${missing[@]}" >/dev/null
    fi
    gcc -O2 -Wall -Wextra -Werror -o "$work/verbs_probe" /vur/qemu-test/tests/verbs_probe.c -libverbs
    gcc -O2 -Wall -Wextra -Werror -o "$work/verbs_ex" /vur/qemu-test/tests/verbs_ex.c -libverbs
    # The packages: ours, and the owners of every library ldd lists for the
    # tools and verbs_probe (on the chroot's own copies; apt-get download may
    # take newer versions, and the loader's check below catches a library
    # those would add). The provider needs only libibverbs
    # and libc (and IN_PLACE gave it a RUNPATH into the build tree, which
    # ldd would follow here); the check below covers it.
    libs=$(for f in "${TOOLS[@]}" "$work/verbs_probe" "$work/verbs_ex"; do
        ldd "$f" | awk '/=> \// { print $3 } /^[[:space:]]*\// { print $1 }'
    done | sort -u)
    mapfile -t pkgs < <( {
        printf '%s\n' "${PACKAGES[@]}"
        for l in $libs; do
            dpkg -S "$(readlink -f "$l")" 2>/dev/null || dpkg -S "$l"
        done | cut -d: -f1
    } | sort -u)
    rm -rf "$work/debs" "$work/root" && mkdir -p "$work/debs" "$work/root/sid"
    (cd "$work/debs" && apt-get -qq -o APT::Sandbox::User=root download "${pkgs[@]}")
    for deb in "$work"/debs/*.deb; do
        dpkg -x "$deb" "$work/root/sid"
    done
    for deb in "$work"/debs/*.deb; do dpkg-deb -W "$deb"; done >"$work/packages"
    s=$work/root/sid
    # usrmerge: the packages ship /usr only; the loader's path is /lib64/...
    for d in bin sbin lib lib64; do
        [ -e "$s/$d" ] || [ ! -d "$s/usr/$d" ] || ln -s "usr/$d" "$s/$d"
    done
    rm -rf "${s:?}/usr/share" "${s:?}/usr/lib/x86_64-linux-gnu/gconv"
    mkdir -p "$s/proc" "$s/sys" "$s/dev" "$s/tmp" "$s/etc/libibverbs.d" \
        "$s/usr/lib/x86_64-linux-gnu/libibverbs"
    cp /vur/build-rdma-core/libvirtio_rdma-rdmav*.so "$s/usr/lib/x86_64-linux-gnu/libibverbs/"
    cp /vur/build-rdma-core/virtio_rdma.driver "$s/etc/libibverbs.d/"
    cp "$work/verbs_probe" "$work/verbs_ex" "$s/usr/bin/"
    mkdir -p "$work/root/usr/bin"
    cp /vur/qemu-test/guest/sid "$work/root/usr/bin/sid"
    chmod 0755 "$work/root/usr/bin/sid"
    # Every library the tools need must now be in the root: ask its own
    # loader, with no fallback to the chroot's.
    for f in "${TOOLS[@]/#/$s}" "$s/usr/bin/verbs_probe" "$s/usr/bin/verbs_ex" \
            "$s"/usr/lib/x86_64-linux-gnu/libibverbs/libvirtio_rdma-rdmav*.so; do
        f=${f#"$s"}
        out=$(chroot "$s" /usr/lib64/ld-linux-x86-64.so.2 --list "$f" 2>&1) ||
            { echo "$f: $out" >&2; exit 1; }
        ! echo "$out" | grep -q 'not found' || { echo "$f: $out" >&2; exit 1; }
    done
    (cd "$work/root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet |
        gzip -9n) >"$work/sid.cpio.gz"
    exit 0
fi

ME=build-sid-image
PACKAGES=()
# shellcheck source=qemu-test/lib.sh
. "$top/qemu-test/lib.sh"

KERNEL=${1:-debian12}
case "$KERNEL" in
debian12) out=$top/build-guest-sid ;;
linux72) out=$top/build-guest-sid72 ;;
*)
    echo "usage: build-sid-image.sh [debian12|linux72]" >&2
    exit 2
    ;;
esac
image=$("$top/qemu-test/build-image.sh" "$KERNEL")
"$top/guest-driver/rdma-core/build.sh" >/dev/null
deps=$top/.deps/sid-image
mkdir -p "$deps"
exec 9>"$deps.lock"
flock 9
# The /sid archive, whatever the kernel: remade when its own inputs change.
sid=$(sha256sum "$0" "$top/qemu-test/guest/sid" "$top/qemu-test/tests/verbs_probe.c" \
    "$top/qemu-test/tests/verbs_ex.c" \
    "$top"/build-rdma-core/* | cut -d' ' -f1 | sha256sum | cut -d' ' -f1)
if [ "$(cat "$deps/.stamp" 2>/dev/null)" != "$sid" ] || [ ! -f "$deps/sid.cpio.gz" ]; then
    in_sid nice bash /vur/qemu-test/build-sid-image.sh --in-sid "/vur/.deps/sid-image" \
        >"$log" 2>&1 || fail "building the Debian unstable userspace in the chroot failed"
    echo "$sid" >"$deps/.stamp"
fi
want=$( {
    echo "$sid"
    sha256sum "$image/initrd.img" "$image/vmlinuz" "$image/vmlinux" | cut -d' ' -f1
} | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$want" ] && [ -f "$out/initrd.img" ]; then
    echo "$out"
    exit 0
fi
rm -rf "$out" && mkdir -p "$out"
cp "$image/vmlinuz" "$image/vmlinux" "$image/kernel-version" "$out/"
cp "$deps/packages" "$out/sid-packages"
# The image's initramfs is padded to 4 bytes; so is this one for the tests'.
cat "$image/initrd.img" "$deps/sid.cpio.gz" >"$out/initrd.img"
truncate -s $(( ($(stat -c %s "$out/initrd.img") + 3) / 4 * 4 )) "$out/initrd.img"
echo "$want" >"$out/.stamp"
echo "$out"
