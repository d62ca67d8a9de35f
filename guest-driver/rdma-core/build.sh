#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build the rdma-core provider virtio_rdma (this folder) inside rdma-core 65,
# Debian unstable's version: a provider must come from the same rdma-core as
# the libibverbs it runs with (private ABI). Runs in a Debian unstable chroot
# (qemu-test/lib.sh's in_sid: made once with debootstrap, reused), never on
# the host: fetches rdma-core's orig tarball with apt-get source
# --download-only, unpacks it, copies this folder to providers/virtio_rdma
# (with the ABI headers of virtio-spec/include in its include/),
# adds add_subdirectory(providers/virtio_rdma) to the top CMakeLists.txt and
# builds with cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DIN_PLACE=1 and
# ninja (only what changed, after the first time; the chroot is not entered
# when the inputs and its packages are as at the last build: lib.sh's
# sid_inputs). Warnings in the provider fail the build (its CMakeLists.txt
# adds -Werror for it).
#
# Output, in build-rdma-core/: libvirtio_rdma-rdmav<ABI>.so (goes to
# libibverbs' provider directory) and virtio_rdma.driver (goes to
# /etc/libibverbs.d/). Quiet: prints the output directory as its last line.
#   guest-driver/rdma-core/build.sh
set -euo pipefail

# Inside the chroot: the repository is /vur.
if [ "${1:-}" = --in-sid ]; then
    src=/usr/src/vur-rdma-core
    pkgs=(cmake ninja-build gcc pkg-config python3 dpkg-dev libnl-3-dev libnl-route-3-dev
        libudev-dev)
    missing=()
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    # apt-get source needs a deb-src entry for the chroot's own archive.
    if ! grep -rqs '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        awk '$1 == "deb" { $1 = "deb-src"; print }' /etc/apt/sources.list \
            >/etc/apt/sources.list.d/vhost-user-rdma-deb-src.list
        missing+=(update-lists)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get -qq update
        missing=("${missing[@]/update-lists/}")
        # shellcheck disable=SC2068 # an empty word from the removal must go
        apt-get -qq install -y ${missing[@]} >/dev/null
    fi

    mkdir -p "$src" && cd "$src"
    orig=$(apt-cache showsrc rdma-core | awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 }
        f && $3 ~ /\.orig\.tar\./ { print $3; exit }')
    [ -n "$orig" ] || { echo "no orig tarball for rdma-core in apt-cache showsrc" >&2; exit 1; }
    sum=$(apt-cache showsrc rdma-core | awk -v f="$orig" '/^Checksums-Sha256:/ { s = 1; next }
        /^[^ ]/ { s = 0 } s && $3 == f { print $1; exit }')
    if ! echo "$sum  $orig" | sha256sum -c --status 2>/dev/null; then
        # The Debian tarball or the .dsc may answer 404 while the orig arrives.
        apt-get -qq source --download-only rdma-core >/dev/null 2>&1 || true
        echo "$sum  $orig" | sha256sum -c --status ||
            { echo "$orig: not downloaded or wrong sha256" >&2; exit 1; }
    fi
    tree=$src/${orig%.orig.tar.*}
    if [ ! -f "$tree/.unpacked" ]; then
        rm -rf "$tree" "$tree.tmp" && mkdir -p "$tree.tmp"
        tar -xf "$orig" -C "$tree.tmp" --strip-components=1
        touch "$tree.tmp/.unpacked" && mv "$tree.tmp" "$tree"
    fi
    # One build at a time: every checkout of the repository (git worktrees
    # too) builds in this one tree.
    exec 8>"$src/.build.lock"
    flock 8
    # The provider, with the project's ABI headers, which it includes as
    # <rdma/...> and <linux/...>. A file whose content changed is copied
    # anew (its time now), one that did not is left alone: ninja then
    # rebuilds exactly what changed, also when another checkout built here
    # last (whose files may be newer than ours); a changed CMakeLists.txt
    # makes cmake run again. Files that are no longer ours go.
    prov=$tree/providers/virtio_rdma
    mkdir -p "$prov/include/rdma" "$prov/include/linux"
    want=(/vur/guest-driver/rdma-core/CMakeLists.txt /vur/guest-driver/rdma-core/*.[ch])
    for f in "$prov"/*; do
        [ -f "$f" ] || continue
        [ -f "/vur/guest-driver/rdma-core/${f##*/}" ] || rm -f "$f"
    done
    sync_file() {
        cmp -s "$1" "$2" || cp "$1" "$2"
    }
    for f in "${want[@]}"; do
        sync_file "$f" "$prov/${f##*/}"
    done
    sync_file /vur/virtio-spec/include/rdma/virtio_rdma-abi.h "$prov/include/rdma/virtio_rdma-abi.h"
    sync_file /vur/virtio-spec/include/linux/virtio_net_roce.h \
        "$prov/include/linux/virtio_net_roce.h"
    grep -q '^add_subdirectory(providers/virtio_rdma)' "$tree/CMakeLists.txt" ||
        sed -i '/^add_subdirectory(providers\/rxe)$/a add_subdirectory(providers/virtio_rdma)' \
            "$tree/CMakeLists.txt"
    grep -q '^add_subdirectory(providers/virtio_rdma)' "$tree/CMakeLists.txt" ||
        { echo "cannot add the provider to $tree/CMakeLists.txt" >&2; exit 1; }
    mkdir -p "$tree/build" && cd "$tree/build"
    [ -f build.ninja ] ||
        cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DIN_PLACE=1 .. >/dev/null
    ninja >ninja.log 2>&1 || { tail -n 60 ninja.log >&2; exit 1; }
    # The data path against a pretend device (virtio_rdma_test.c).
    bin/virtio_rdma_test >virtio_rdma_test.log 2>&1 ||
        { grep -v '^ok ' virtio_rdma_test.log >&2; exit 1; }
    # CQs on rings against a pretend device (virtio_rdma_cq_ring_test.c).
    bin/virtio_rdma_cq_ring_test >virtio_rdma_cq_ring_test.log 2>&1 ||
        { grep -v '^ok ' virtio_rdma_cq_ring_test.log >&2; exit 1; }
    # QPs on rings against a pretend device (virtio_rdma_qp_ring_test.c).
    bin/virtio_rdma_qp_ring_test >virtio_rdma_qp_ring_test.log 2>&1 ||
        { grep -v '^ok ' virtio_rdma_qp_ring_test.log >&2; exit 1; }
    # Replaced only when changed, by a rename: build-sid-image.sh hashes
    # these files outside this lock (scripts/prebuild.sh may build an
    # image beside a test's).
    out=/vur/build-rdma-core
    mkdir -p "$out"
    publish() {
        cmp -s "$1" "$out/$2" && return
        cp "$1" "$out/.$2.new" && mv "$out/.$2.new" "$out/$2"
    }
    for f in lib/libvirtio_rdma-rdmav*.so; do
        publish "$f" "${f##*/}"
    done
    for f in "$out"/libvirtio_rdma-rdmav*.so; do
        [ -e "lib/${f##*/}" ] || rm -f "$f"
    done
    # IN_PLACE's driver file names the build tree; the image's names the
    # provider directory, as an installed one does.
    echo "driver virtio_rdma" >virtio_rdma.driver.image
    publish virtio_rdma.driver.image virtio_rdma.driver
    exit 0
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
ME=rdma-core/build
PACKAGES=()
# shellcheck source=qemu-test/lib.sh
. "$top/qemu-test/lib.sh"

out=$top/build-rdma-core
here=$top/guest-driver/rdma-core
inputs=$(sid_inputs "$0" "$here/CMakeLists.txt" "$here"/*.[ch] \
    "$top/virtio-spec/include/rdma/virtio_rdma-abi.h" \
    "$top/virtio-spec/include/linux/virtio_net_roce.h")
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$inputs" ] && [ -f "$out/virtio_rdma.driver" ] &&
        compgen -G "$out/libvirtio_rdma-rdmav*.so" >/dev/null; then
    echo "$out"
    exit 0
fi
in_sid nice bash /vur/guest-driver/rdma-core/build.sh --in-sid >"$log" 2>&1 ||
    fail "building the provider in the Debian unstable chroot failed"
echo "$inputs" >"$out/.stamp"
echo "$out"
