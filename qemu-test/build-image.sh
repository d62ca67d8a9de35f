#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build a small bootable guest from Debian packages: the distribution kernel
# (vmlinuz from linux-image-*-amd64, fetched with apt-get download and
# unpacked with dpkg -x) and a busybox initramfs holding the kernel modules
# the scenarios load (with their dependencies, indexed by depmod), ethtool,
# iproute2 and rdma-core's verbs tools, rdma_cm's mckey and rxe provider
# with their shared libraries, qemu-test/guest/init as /init and
# qemu-test/guest/vur.sh as /lib/vur.sh.
#
# The kernel is one of:
#   debian12  Debian 12's (what linux-image-amd64 points to on the host's
#             bookworm); output in build-guest/. The default.
#   linux72   Debian unstable's Linux 7.2 (what linux-image-amd64 points to
#             there; its linux-base-*, linux-binary-* and linux-modules-*
#             fetched and unpacked in the Debian unstable chroot, lib.sh's
#             in_sid); output in build-guest72/. Its modules are xz'd: they
#             are decompressed into the image (busybox's insmod loads plain
#             .ko files), and virtio_pci is built in. Another version there
#             fails the build: the driver's version guards were checked on
#             6.1 and 7.2 only.
# The rest of the image is the same for both.
#
# Output: vmlinuz, vmlinux (the ELF kernel inside it, extract-vmlinux.py:
# what the tests boot, by its PVH entry), initrd.img (gzip'd newc cpio,
# padded to 4 bytes so that a test can append its own archive) and
# kernel-version. Reused as long as
# the inputs (this script, the guest files, the package versions, the host
# tools) are unchanged. Quiet: prints the output directory as its last line.
#   qemu-test/build-image.sh [debian12|linux72]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

# Inside the Debian unstable chroot: resolve, download and unpack unstable's
# kernel into $2/<linux-image package> (once per version); write
# "<package> <version>" to $2/kernel.
if [ "${1:-}" = --in-sid ]; then
    work=$2
    resolve() {
        apt-cache depends linux-image-amd64 2>/dev/null |
            awk '/Depends: linux-image-[0-9]/ && !n { print $2; n = 1 }'
    }
    kpkg=$(resolve)
    [ -n "$kpkg" ] || { apt-get -qq update && kpkg=$(resolve); }
    [ -n "$kpkg" ] || { echo "cannot resolve linux-image-amd64" >&2; exit 1; }
    ver=$(apt-cache policy "$kpkg" | awk '/Candidate:/ && !n { print $2; n = 1 }')
    dir=$work/$kpkg
    if [ "$(cat "$dir.version" 2>/dev/null)" != "$ver" ] || [ ! -d "$dir" ]; then
        # The image package is empty since 7.x: the kernel, its modules and
        # their lists (modules.builtin, modules.order) are in the packages it
        # depends on.
        mapfile -t pkgs < <(apt-cache depends "$kpkg" |
            awk '/Depends: linux-(base|binary|modules)-[0-9]/ { print $2 }')
        [ ${#pkgs[@]} -eq 3 ] || { echo "$kpkg: no linux-base/binary/modules" >&2; exit 1; }
        rm -rf "$dir" "$dir.version" "$work/debs" && mkdir -p "$work/debs"
        (cd "$work/debs" && apt-get -qq -o APT::Sandbox::User=root download "${pkgs[@]}")
        for deb in "$work"/debs/*.deb; do
            dpkg -x "$deb" "$dir"
        done
        rm -rf "$work/debs"
        # usrmerge: the modules are in usr/lib/modules; modprobe -d wants lib/.
        [ -e "$dir/lib" ] || ln -s usr/lib "$dir/lib"
        echo "$ver" >"$dir.version"
    fi
    echo "$kpkg $ver" >"$work/kernel"
    exit 0
fi

KERNEL=${1:-debian12}
case "$KERNEL" in
debian12) out=$top/build-guest deps=$top/.deps/guest ;;
linux72) out=$top/build-guest72 deps=$top/.deps/guest72 ;;
*)
    echo "usage: build-image.sh [debian12|linux72]" >&2
    exit 2
    ;;
esac

# Modules a scenario may load; their dependencies come along (NVMe over
# Fabrics, scenarios 16 to 18: nvme-rdma, nvmet-rdma and the RAM disk brd
# bring nvme-fabrics, nvme-core, nvmet, rdma_cm and configfs; RDS over
# RDMA, scenario 19: rds_rdma brings rds; virtio_blk, a disk that outlives
# a guest's reboot, for scenario 18's target). 6.1's rxe needs a crc32
# module (ENVIRONMENT: "failed to init crc32 algorithm"); 7.x has crc32 in
# its library, built in.
MODULES=(
    virtio_pci virtio_net virtio_blk
    ib_core ib_uverbs rdma_ucm rdma_rxe
    nvme-rdma nvmet-rdma brd
    rds_rdma
)
[ "$KERNEL" != debian12 ] || MODULES+=(crc32_generic crc32-pclmul)
# Host tools copied with the libraries ldd lists (bookworm's, like the guest's):
# besides the network tools, rdma-core's verbs tools and its soft-RoCE
# provider, for a guest that runs Linux rxe over the device (scenarios 8, 9;
# mckey, UD multicast through rdma_cm, 14; perftest's ib_write_bw,
# ib_atomic_bw and ib_atomic_lat for bench/guest_verbs.sh).
TOOLS=(
    /usr/sbin/ethtool /usr/sbin/ip /usr/bin/rdma
    /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong /usr/bin/ibv_uc_pingpong
    /usr/bin/ibv_ud_pingpong /usr/bin/ib_write_bw /usr/bin/ib_atomic_bw
    /usr/bin/ib_atomic_lat /usr/bin/mckey
    /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
)
# Copied as they are: libibverbs finds its providers through these.
CONFIG_FILES=(/etc/libibverbs.d/rxe.driver)
PACKAGES=(ethtool iproute2 kmod dpkg gzip xz-utils zstd ibverbs-utils ibverbs-providers
    perftest rdmacm-utils)
extract=$top/qemu-test/extract-vmlinux.py

guest=$top/qemu-test/guest

ME=build-image
# shellcheck source=qemu-test/lib.sh
. "$top/qemu-test/lib.sh"

# The kernel package linux-image-amd64 points to, e.g. linux-image-6.1.0-26-amd64.
kernel_package() {
    local pkg

    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ && !n { print $2; n = 1 }')
    if [ -z "$pkg" ]; then
        as_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
            awk '/Depends: linux-image-[0-9]/ && !n { print $2; n = 1 }')
    fi
    [ -n "$pkg" ] || fail "cannot resolve linux-image-amd64"
    echo "$pkg"
}

candidate() {
    apt-cache policy "$1" | awk '/Candidate:/ && !n { print $2; n = 1 }'
}

# Download and unpack package $1 into $deps/$1 (once per version).
unpack() {
    local pkg=$1 ver dir deb

    ver=$(candidate "$pkg")
    dir=$deps/$pkg
    if [ "$(cat "$dir.version" 2>/dev/null)" = "$ver" ] && [ -d "$dir" ]; then
        return
    fi
    rm -rf "$dir" "$dir.version" "$deps"/"${pkg}"_*.deb
    (cd "$deps" && apt-get download -qq "$pkg") >"$log" 2>&1 || fail "apt-get download $pkg failed"
    deb=$(find "$deps" -maxdepth 1 -name "${pkg}_*.deb" -print -quit)
    [ -n "$deb" ] || fail "apt-get download $pkg gave no .deb"
    dpkg -x "$deb" "$dir" >"$log" 2>&1 || fail "dpkg -x $deb failed"
    rm -f "$deb"
    echo "$ver" >"$dir.version"
}

# Copy $1 (a host path) into the image at the same path, following symlinks.
copy_host_file() {
    mkdir -p "$root/$(dirname "$1")"
    rm -f "$root/$1" # never write through a link into the host
    cp -L "$1" "$root/$1"
}

add_modules() {
    local kroot=$1 kver=$2 line path

    # The package ships no modules.dep: index the whole tree once.
    [ -f "$kroot/lib/modules/$kver/modules.dep" ] ||
        depmod -b "$kroot" "$kver" >"$log" 2>&1 || fail "depmod on the kernel package failed"
    for m in "${MODULES[@]}"; do
        modprobe -d "$kroot" -S "$kver" --show-depends "$m" >"$log" 2>&1 ||
            fail "module $m not found in $kver"
        while read -r line; do
            case "$line" in
            insmod\ *)
                path=${line#insmod }
                path=${path%% *}
                mkdir -p "$root/$(dirname "${path#"$kroot"}")"
                cp "$path" "$root/${path#"$kroot"}"
                case "$path" in
                *.ko.xz) xz -df "$root/${path#"$kroot"}" ;;
                esac
                ;;
            esac
        done <"$log"
    done
    cp "$kroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$kver/"
    depmod -b "$root" "$kver" >"$log" 2>&1 || fail "depmod on the image failed"
}

add_tools() {
    local t lib

    for t in "${TOOLS[@]}"; do
        copy_host_file "$t"
        for lib in $(ldd "$t" | awk '/=> \// { print $3 } /^[[:space:]]*\// { print $1 }'); do
            [ -e "$root/$lib" ] || copy_host_file "$lib"
        done
    done
    for t in "${CONFIG_FILES[@]}"; do
        copy_host_file "$t"
    done
}

add_busybox() {
    local bb=$deps/busybox-static/bin/busybox applet

    mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin"
    cp "$bb" "$root/bin/busybox"
    for applet in $("$bb" --list-full); do
        [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
    done
}

# Unstable's kernel, unpacked by the chroot into $deps/<package>; prints
# "<package> <version>". Asked again only when this script, the chroot's
# packages or its package lists changed (lib.sh's sid_inputs): entering the
# chroot waits for its lock, which the prebuild's QEMU 10.2 and DPDK builds
# hold for minutes while the scenarios run.
sid_kernel_inputs() {
    {
        sid_inputs "$0"
        ls -l --time-style=+%s "$(sid_dir)/var/lib/apt/lists" 2>/dev/null
    } | sha256sum | cut -d' ' -f1
}
sid_kernel() {
    if [ "$(cat "$deps/kernel.inputs" 2>/dev/null)" != "$(sid_kernel_inputs)" ] ||
            [ ! -s "$deps/kernel" ] || [ ! -d "$deps/$(cut -d' ' -f1 "$deps/kernel")" ]; then
        in_sid nice bash /vur/qemu-test/build-image.sh --in-sid "/vur/${deps#"$top"/}" \
            >"$log" 2>&1 || fail "fetching Debian unstable's kernel in the chroot failed"
        sid_kernel_inputs >"$deps/kernel.inputs"
    fi
    cat "$deps/kernel"
}

main() {
    local kpkg kver kversion want stamp vmlinuz

    mkdir -p "$deps"
    exec 9>"$deps.lock"
    flock 9 # one build at a time (tests may run in parallel)

    install_packages
    if [ "$KERNEL" = debian12 ]; then
        kpkg=$(kernel_package)
        kversion=$(candidate "$kpkg")
    else
        kpkg=$(sid_kernel)
        kversion=${kpkg#* }
        kpkg=${kpkg%% *}
        case "$kpkg" in
        linux-image-7.2.*) ;;
        *) fail "unstable's kernel is now $kpkg, not 7.2: check the driver there, then this script" ;;
        esac
    fi
    kver=${kpkg#linux-image-}
    want=$( {
        sha256sum "$0" "$extract" "$guest"/* "${TOOLS[@]}" "${CONFIG_FILES[@]}" |
            cut -d' ' -f1
        echo "$kpkg $kversion busybox-static $(candidate busybox-static)"
        echo "${MODULES[*]}"
    } | sha256sum | cut -d' ' -f1)
    stamp=$out/.stamp
    if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -f "$out/vmlinuz" ] &&
            [ -f "$out/vmlinux" ] && [ -f "$out/initrd.img" ]; then
        echo "$out"
        return
    fi

    [ "$KERNEL" != debian12 ] || unpack "$kpkg"
    unpack busybox-static

    root=$deps/root
    rm -rf "$root" "$out" && mkdir -p "$root" "$out"
    mkdir -p "$root"/{dev,proc,sys,run,tmp,etc,root,lib,test}
    add_tools
    add_modules "$deps/$kpkg" "$kver"
    add_busybox
    install -m 0755 "$guest/init" "$root/init"
    install -m 0644 "$guest/vur.sh" "$root/lib/vur.sh"

    (cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
        "$root/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -9n) >"$out/initrd.img" ||
        fail "cpio failed"
    # Appended archives must start on a 4-byte boundary; zeros are skipped.
    truncate -s $(( ($(stat -c %s "$out/initrd.img") + 3) / 4 * 4 )) "$out/initrd.img"
    # 6.1 ships it in /boot, 7.x beside its modules.
    vmlinuz=$deps/$kpkg/boot/vmlinuz-$kver
    [ -f "$vmlinuz" ] || vmlinuz=$deps/$kpkg/lib/modules/$kver/vmlinuz
    cp "$vmlinuz" "$out/vmlinuz"
    # And the kernel itself, an ELF with a PVH entry (CONFIG_PVH): QEMU
    # starts it without the boot stub's decompression, seconds of TCG a boot.
    python3 "$extract" "$vmlinuz" "$out/vmlinux" >"$log" 2>&1 || fail "no vmlinux in $vmlinuz"
    echo "$kver" >"$out/kernel-version"
    rm -rf "$root"
    echo "$want" >"$stamp"
    echo "$out"
}

main "$@"
