#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build (release), start a backend on a private socket, run the benchmarks
# against it, stop it. Figures go to standard output.
#   bench/run.sh [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
dir=$(scripts/build.sh release)
tmp=$(mktemp -d)
prefix="vurbench$$"
"$dir/backend/vhost-user-rdma" --no-huge -m 256 --no-pci --file-prefix "$prefix" \
    --log-level 'lib.vhost.*:warning' -- -s "$tmp/sock" >"$tmp/backend.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp" "/var/run/dpdk/$prefix"' EXIT
for _ in $(seq 100); do [ -S "$tmp/sock" ] && break; sleep 0.1; done
"$dir/bench/ctrl_bench" "$tmp/sock" "${1:-5000}"
