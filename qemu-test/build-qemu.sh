#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build qemu-system-x86_64 with the vhost-user-rdma device: Debian bookworm's
# QEMU 7.2 source (apt-get source, into .deps/qemu/), plus
# qemu-test/vhost-user-rdma.patch and the wire ABI header
# virtio-spec/include/linux/virtio_net_roce.h (copied to
# linux-headers/linux/), configured for a minimal x86_64 system emulator and
# built into build-qemu/.
#
# Installs what it needs from Debian's archive (adding a deb-src entry for
# the machine's own suites if there is none). Reuses the previous build when
# the patch, the header and the configuration are unchanged; when only they
# change, rebuilds incrementally. Quiet: prints only the path of the binary,
# as its last line, or the log of the step that failed.
#   qemu-test/build-qemu.sh
#
# With a version, a newer QEMU from Debian's source with the patch series
# qemu-test/qemu-VERSION/*.patch (git format-patch files, applied in order
# with patch -p1; 0000-cover-letter.patch says what it is), built in a chroot
# of the Debian release that ships that QEMU (scripts/sid-chroot.sh with
# VUR_CHROOT_SUITE) into build-qemu-VERSION/: 10.0 is Debian 13's QEMU, so
# it is built in the trixie chroot, against the libraries and beside the
# firmware (seabios, ipxe-qemu, qemu-system-data) it is packaged with there
# (unstable has moved on to 10.2 and later and serves no 10.0 source); any
# other version comes from unstable, in the sid chroot. The binary links
# that chroot's libraries: run it there (VUR_CHROOT_SUITE=$(cat
# build-qemu-VERSION/.chroot-suite) scripts/sid-chroot.sh run --shared),
# with -L /usr/share/qemu -L /usr/share/seabios -L /usr/lib/ipxe/qemu for
# the firmware of the chroot's qemu-system-data, seabios and ipxe-qemu.
#   qemu-test/build-qemu.sh 10.2
#   qemu-test/build-qemu.sh 10.0
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

PACKAGES=(
    build-essential dpkg-dev meson ninja-build pkg-config python3
    libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev flex bison
)
SRC_LIST=/etc/apt/sources.list.d/vhost-user-rdma-deb-src.sources

patch_file=$top/qemu-test/vhost-user-rdma.patch
header=$top/virtio-spec/include/linux/virtio_net_roce.h
deps=$top/.deps/qemu
build=$top/build-qemu
binary=$build/qemu-system-x86_64
# A QEMU run from its build tree looks for data files in qemu-bundle/DATADIR.
firmware=$build/qemu-bundle/usr/local/share/qemu

CONFIGURE_ARGS=(
    --target-list=x86_64-softmmu --without-default-features --enable-kvm
    --enable-vhost-user --enable-tcg --disable-user --disable-docs
)
# Debian's source has no firmware blobs: take SeaBIOS, the option ROMs
# (-kernel needs linuxboot_dma.bin) and the boot ROMs of the default NICs
# from Debian's binary packages.
FIRMWARE_PACKAGES=(seabios qemu-system-data ipxe-qemu)
FIRMWARE=(
    usr/share/seabios/bios-256k.bin usr/share/seabios/vgabios-stdvga.bin
    usr/share/qemu/linuxboot_dma.bin usr/share/qemu/linuxboot.bin
    usr/share/qemu/multiboot_dma.bin usr/share/qemu/pvh.bin
    usr/share/qemu/kvmvapic.bin
    usr/lib/ipxe/qemu/efi-e1000e.rom usr/lib/ipxe/qemu/efi-e1000.rom
    usr/lib/ipxe/qemu/efi-virtio.rom
)

ME=build-qemu
# shellcheck source=qemu-test/lib.sh
. "$top/qemu-test/lib.sh"

# Whether apt knows the qemu source package (read all of apt-cache's output:
# with pipefail, grep -q stopping early would fail the pipeline on SIGPIPE).
have_qemu_source() {
    [ -n "$(apt-cache showsrc qemu 2>/dev/null | sed -n '/^Package: qemu$/p')" ]
}

# apt-get source needs deb-src entries: the machine's deb entries, as deb-src.
add_deb_src() {
    local f tmp

    have_qemu_source && return 0
    tmp=$(mktemp)
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != "$SRC_LIST" ] || continue
        # deb822 stanzas: keep those of type deb, retyped deb-src.
        awk 'BEGIN { RS = ""; ORS = "\n\n" }
             /(^|\n)Types:([^\n]*[ \t])?deb([ \t\n]|$)/ {
                 sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$tmp"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n 's/^[[:space:]]*deb[[:space:]]\+/deb-src /p' "$f" >>"$tmp.list"
    done
    if [ -s "$tmp" ]; then
        as_root install -m 0644 "$tmp" "$SRC_LIST"
    fi
    if [ -s "$tmp.list" ]; then
        as_root install -m 0644 "$tmp.list" "${SRC_LIST%.sources}.list"
    fi
    rm -f "$tmp" "$tmp.list"
    as_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
    have_qemu_source || fail "no source package for qemu after adding $SRC_LIST"
}

# The unpacked source tree, fetched once.
fetch_source() {
    local dir

    dir=$(find "$deps" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' -print -quit 2>/dev/null)
    if [ -n "$dir" ] && [ -x "$dir/configure" ]; then
        echo "$dir"
        return
    fi
    add_deb_src
    rm -rf "$deps" && mkdir -p "$deps"
    (cd "$deps" && apt-get source -qq qemu) >"$log" 2>&1 || fail "apt-get source qemu failed"
    dir=$(find "$deps" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' -print -quit)
    [ -n "$dir" ] && [ -x "$dir/configure" ] || fail "apt-get source gave no QEMU tree in $deps"
    echo "$dir"
}

# Bring the tree to exactly the current patch: undo the one applied before
# (so that only the files they touch change), or unpack afresh if that fails.
apply_patch() {
    local src=$1 applied=$deps/applied.patch dsc

    if [ -f "$applied" ] && cmp -s "$applied" "$patch_file"; then
        return
    fi
    if [ -f "$applied" ] && ! patch -d "$src" -p1 -R -s -f --no-backup-if-mismatch -r - <"$applied" >"$log" 2>&1; then
        dsc=$(find "$deps" -maxdepth 1 -name 'qemu_*.dsc' -print -quit)
        [ -n "$dsc" ] || fail "cannot undo the previous patch and no .dsc to unpack again"
        rm -rf "$src"
        (cd "$deps" && dpkg-source -q -x "$(basename "$dsc")" "$(basename "$src")") \
            >"$log" 2>&1 || fail "dpkg-source -x failed"
    fi
    rm -f "$applied"
    patch -d "$src" -p1 -s -f --dry-run -r - <"$patch_file" >"$log" 2>&1 ||
        fail "$patch_file does not apply to $src"
    patch -d "$src" -p1 -s -f --no-backup-if-mismatch -r - <"$patch_file" >"$log" 2>&1 || fail "patch failed"
    cp "$patch_file" "$applied"
}

install_firmware() {
    local dir=$top/.deps/qemu-firmware f deb

    for f in "${FIRMWARE[@]}"; do
        [ -f "$firmware/$(basename "$f")" ] || break
    done
    [ -f "$firmware/$(basename "$f")" ] && return
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && apt-get download -qq "${FIRMWARE_PACKAGES[@]}") >"$log" 2>&1 ||
        fail "cannot download the firmware packages"
    for deb in "$dir"/*.deb; do
        dpkg -x "$deb" "$dir/root" >"$log" 2>&1 || fail "dpkg -x $deb failed"
    done
    mkdir -p "$firmware"
    for f in "${FIRMWARE[@]}"; do
        cp -L "$dir/root/$f" "$firmware/" || fail "no $f in the firmware packages"
    done
}

main() {
    local src stamp want

    [ -f "$patch_file" ] && [ -f "$header" ] || fail "run from a vhost-user-rdma checkout"
    mkdir -p "$deps"
    exec 9>"$deps.lock"
    flock 9 # one build at a time (tests may run in parallel)

    want=$( { sha256sum "$patch_file" "$header" | cut -d' ' -f1
              echo "${CONFIGURE_ARGS[*]} ${FIRMWARE[*]}"; } | sha256sum | cut -d' ' -f1)
    stamp=$build/.vhost-user-rdma.stamp
    if [ -x "$binary" ] && [ -f "$firmware/bios-256k.bin" ] &&
            [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
        echo "$binary"
        return
    fi

    install_packages
    src=$(fetch_source)
    apply_patch "$src"
    # Copied only when it changed, so that its mtime drives the rebuild.
    cmp -s "$header" "$src/linux-headers/linux/virtio_net_roce.h" ||
        cp "$header" "$src/linux-headers/linux/virtio_net_roce.h"

    if [ ! -f "$build/build.ninja" ] ||
            [ "$(cat "$build/.configure-args" 2>/dev/null)" != "$src ${CONFIGURE_ARGS[*]}" ]; then
        rm -rf "$build" && mkdir -p "$build"
        (cd "$build" && "$src/configure" "${CONFIGURE_ARGS[@]}") >"$log" 2>&1 ||
            fail "configure failed"
        echo "$src ${CONFIGURE_ARGS[*]}" >"$build/.configure-args"
    fi
    rm -f "$stamp"
    make -C "$build" -j2 qemu-system-x86_64 >"$log" 2>&1 || fail "make failed"
    [ -x "$binary" ] || fail "no $binary after make"
    install_firmware
    echo "$want" >"$stamp"
    echo "$binary"
}

# Newer QEMUs: what the chroot needs to fetch, unpack and build the source,
# and the firmware a build-tree QEMU finds with -L there.
SID_PACKAGES=(
    build-essential dpkg-dev meson ninja-build pkg-config python3 python3-venv
    libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev flex bison
    qemu-system-data seabios ipxe-qemu
)
sid=$top/scripts/sid-chroot.sh

# The Debian release whose QEMU source and firmware build and run $version:
# Debian 13 (trixie) ships QEMU 10.0; the newer ones come from unstable.
chroot_suite() {
    case $version in
    10.0) echo trixie ;;
    *) echo sid ;;
    esac
}

# apt-get source needs a deb-src entry for the chroot's own archive.
chroot_deb_src() {
    "$sid" run sh -c 'grep -rqs "^deb-src " /etc/apt/sources.list /etc/apt/sources.list.d/ && exit
        awk '\''$1 == "deb" { $1 = "deb-src"; print }'\'' /etc/apt/sources.list \
            >/etc/apt/sources.list.d/vhost-user-rdma-deb-src.list &&
        apt-get update -qq'
}

# The unpacked tree of the chroot's newest QEMU $version.x source that the
# archive serves (the newest version's files may answer 404 while an older
# one's download), fetched once into $deps/src.
fetch_sid_source() {
    local v

    if [ -x "$deps/src/configure" ]; then
        return
    fi
    rm -rf "$deps" && mkdir -p "$deps"
    chroot_deb_src >"$log" 2>&1 || fail "cannot add a deb-src entry in the $VUR_CHROOT_SUITE chroot"
    for v in $("$sid" run --shared sh -c "apt-cache showsrc qemu | sed -n 's/^Version: //p'" |
            grep -E "^([0-9]+:)?$(echo "$version" | sed 's/\./\\./g')\." | sort -rV); do
        (cd "$deps" && "$sid" run --shared apt-get source -qq --download-only "qemu=$v") \
            >"$log" 2>&1 || continue
        (cd "$deps" && "$sid" run --shared dpkg-source -q -x "$(ls qemu_*.dsc | head -n 1)" src) \
            >"$log" 2>&1 || fail "dpkg-source -x qemu=$v failed"
        echo "$v" >"$deps/version"
        return
    done
    fail "Debian $VUR_CHROOT_SUITE serves no QEMU $version source here"
}

# The patches of series folder $1 in order, without the cover letter (0000-).
series_patches() {
    ls "$1"/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-'
}

# Bring the tree to exactly the current series: undo the one applied before,
# last patch first (so that only the files they touch change), or unpack
# afresh if that fails.
apply_series() {
    local src=$deps/src applied=$deps/applied p

    if [ -d "$applied" ] && diff -rq "$applied" "$series" >/dev/null 2>&1; then
        return
    fi
    if [ -d "$applied" ]; then
        for p in $(series_patches "$applied" | sort -r); do
            patch -d "$src" -p1 -R -s -f --no-backup-if-mismatch -r - <"$p" >"$log" 2>&1 ||
                { rm -rf "$src"; break; }
        done
        if [ ! -d "$src" ]; then
            (cd "$deps" && "$sid" run --shared dpkg-source -q -x "$(ls qemu_*.dsc | head -n 1)" src) \
                >"$log" 2>&1 || fail "dpkg-source -x failed"
        fi
    fi
    rm -rf "$applied"
    for p in $(series_patches "$series"); do
        patch -d "$src" -p1 -s -f --no-backup-if-mismatch -r - <"$p" >"$log" 2>&1 ||
            fail "$p does not apply to QEMU $(cat "$deps/version")"
    done
    cp -r "$series" "$applied"
}

main_sid() {
    local want stamp src
    local args=("${CONFIGURE_ARGS[@]}" --disable-install-blobs)

    series=$top/qemu-test/qemu-$version
    deps=$top/.deps/qemu-$version
    build=$top/build-qemu-$version
    binary=$build/qemu-system-x86_64
    VUR_CHROOT_SUITE=$(chroot_suite)
    export VUR_CHROOT_SUITE
    series_patches "$series" >/dev/null 2>&1 || fail "no patch series qemu-test/qemu-$version/"
    [ -f "$header" ] || fail "run from a vhost-user-rdma checkout"
    mkdir -p "$deps"
    exec 9>"$deps.lock"
    flock 9

    want=$( { cat $(series_patches "$series") | sha256sum | cut -d' ' -f1
              sha256sum "$header" | cut -d' ' -f1
              echo "${args[*]} $(cat "$deps/version" 2>/dev/null)"; } | sha256sum | cut -d' ' -f1)
    stamp=$build/.vhost-user-rdma.stamp
    if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
        echo "$binary"
        return
    fi

    "$sid" ensure "${SID_PACKAGES[@]}" >"$log" 2>&1 ||
        fail "cannot install in the $VUR_CHROOT_SUITE chroot"
    fetch_sid_source
    apply_series
    src=$deps/src
    cmp -s "$header" "$src/linux-headers/linux/virtio_net_roce.h" ||
        cp "$header" "$src/linux-headers/linux/virtio_net_roce.h"
    if [ ! -f "$build/build.ninja" ] ||
            [ "$(cat "$build/.configure-args" 2>/dev/null)" != "$src ${args[*]}" ]; then
        rm -rf "$build" && mkdir -p "$build"
        (cd "$build" && "$sid" run --shared "$src/configure" "${args[@]}") >"$log" 2>&1 ||
            fail "configure failed"
        echo "$src ${args[*]}" >"$build/.configure-args"
    fi
    rm -f "$stamp"
    (cd "$build" && "$sid" run --shared ninja -j2 qemu-system-x86_64) >"$log" 2>&1 ||
        fail "ninja failed"
    [ -x "$binary" ] || fail "no $binary after ninja"
    # The version may have been learnt just now: the stamp is made after.
    want=$( { cat $(series_patches "$series") | sha256sum | cut -d' ' -f1
              sha256sum "$header" | cut -d' ' -f1
              echo "${args[*]} $(cat "$deps/version")"; } | sha256sum | cut -d' ' -f1)
    # Where to run it (guest.py's SidQemu reads it).
    echo "$VUR_CHROOT_SUITE" >"$build/.chroot-suite"
    echo "$want" >"$stamp"
    echo "$binary"
}

version=${1:-7.2}
if [ "$version" = 7.2 ]; then
    main
else
    main_sid
fi
