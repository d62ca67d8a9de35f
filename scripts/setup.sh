#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Install everything the project builds and tests with, from Debian's archive,
# and prepare DPDK's memory. Idempotent and quiet: prints only on failure.
#
# Hugepages: 256 x 2 MiB are reserved and hugetlbfs is mounted when running as
# root. Without them the backend still runs with EAL's --no-huge -m 512, which
# scripts/run.sh and the tests use (librte_vhost maps guest memory from the
# frontend's file descriptors, not from hugepages).
set -euo pipefail

PACKAGES=(
    build-essential meson ninja-build pkg-config python3
    libdpdk-dev dpdk-dev libisal-dev libjansson-dev linux-libc-dev
    sparse clang-format
    clang libclang-rt-dev
    iproute2 nftables
)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

fail() {
    echo "setup: $*" >&2
    cat "$log" >&2
    exit 1
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo -n "$@"
    else
        return 1
    fi
}

missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    as_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >"$log" 2>&1 || fail "cannot install: ${missing[*]}"
fi

# Hugepages are an optimisation here, never a requirement: ignore failures.
if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
    if [ "$(cat /proc/sys/vm/nr_hugepages)" -lt 256 ]; then
        echo 256 >/proc/sys/vm/nr_hugepages 2>/dev/null || true
    fi
    if ! grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts; then
        mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
    fi
fi
exit 0
