#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build and test against the newest DPDK Debian has: in the Debian unstable
# chroot of scripts/sid-chroot.sh (made once, then reused), into build-sid/.
# Runs every test that needs no QEMU and is about the code rather than the
# repository (not the qemu, style and repo suites), nor the tests that make
# network namespaces (suite netns: the wire test and the af_packet uplink;
# `ip netns` does not work inside a chroot, and they are about the engine and
# the data path, not the DPDK version); extra arguments go to
# 'meson test' (e.g. --suite unit). scripts/test.sh calls it and counts
# build-sid/meson-logs/testlog.json in its closing line.
#
#   scripts/test-dpdk-sid.sh [MESON TEST ARGS...]
#   scripts/test-dpdk-sid.sh --ensure       only install the build dependencies
#   scripts/test-dpdk-sid.sh --build-only   only build, once they are installed,
#                                           beside other readers of the chroot
#                                           (scripts/prebuild.sh)
#
# VUR_CHROOT_SUITE=trixie does the same in a Debian 13 chroot (DPDK 24.11),
# into build-trixie/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

dir=build-${VUR_CHROOT_SUITE:-sid}
# What the project builds and tests with (scripts/setup.sh), as Debian
# unstable names it; plus ip and sysctl for the tap tests, git for the spec
# label checks.
PACKAGES=(
    build-essential meson ninja-build pkg-config python3
    libdpdk-dev libisal-dev libjansson-dev linux-libc-dev
    sparse iproute2 procps git
)

if [ "${1:-}" = --inside ]; then
    dir=$2
    shift 2
    # A new DPDK or meson in the chroot (sid-chroot.sh upgrades it weekly)
    # wants a fresh build directory, not a reconfigured one.
    want="dpdk $(pkg-config --modversion libdpdk) meson $(meson --version) $(gcc -dumpfullversion)"
    if [ "$(cat "$dir/.vur-toolchain" 2>/dev/null)" != "$want" ]; then
        rm -rf "$dir"
    fi
    if [ ! -f "$dir/build.ninja" ]; then
        # The same sanitizers as the host's build-asan/.
        meson setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false \
            >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; exit 1; }
        rm -f "$dir.setup.log"
        echo "$want" >"$dir/.vur-toolchain"
    fi
    echo "DPDK $(pkg-config --modversion libdpdk), gcc $(gcc -dumpfullversion)," \
        "$(. /etc/os-release && echo "$PRETTY_NAME")"
    ninja -C "$dir" >/dev/null || { ninja -C "$dir"; exit 1; }
    [ "${1:-}" != --build-only ] || exit 0
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    exec meson test -C "$dir" --no-rebuild --print-errorlogs \
        --no-suite qemu --no-suite style --no-suite repo --no-suite netns "$@"
fi

case "${1:-}" in
--ensure) exec scripts/sid-chroot.sh ensure "${PACKAGES[@]}" ;;
--build-only)
    exec scripts/sid-chroot.sh run --shared scripts/test-dpdk-sid.sh --inside "$dir" --build-only
    ;;
esac
# A result from an earlier run must never be counted for this one.
rm -f "$dir/meson-logs/testlog.json"
scripts/sid-chroot.sh ensure "${PACKAGES[@]}" || exit 1
# CI=true makes a test that cannot run fail rather than skip, there too.
exec scripts/sid-chroot.sh run env CI="${CI:-}" scripts/test-dpdk-sid.sh --inside "$dir" "$@"
