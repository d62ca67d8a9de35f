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
    --log-level 'lib.vhost.*:warning' -- -s "$tmp/sock" -s "$tmp/sock1" >"$tmp/backend.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp" "/var/run/dpdk/$prefix"' EXIT
for _ in $(seq 100); do [ -S "$tmp/sock1" ] && break; sleep 0.1; done

# Where the backend's control thread may run. A wake-up across CPUs costs an
# inter-processor interrupt, which in a VM can dominate a round trip, so
# each figure is taken with the client on that CPU and on another one.
ctrl_cpus=$(for t in /proc/$pid/task/*; do
    if [ "$(cat "$t/comm")" = vur-ctrl ]; then awk '/Cpus_allowed_list/ {print $2}' "$t/status"; fi
done)
ctrl_cpu=${ctrl_cpus%%[,-]*}
other_cpu=$(awk -v c="$ctrl_cpu" '/^processor/ && $3 != c {print $3; exit}' /proc/cpuinfo)
echo "backend control thread on CPU(s) ${ctrl_cpus:-?}; $(nproc) CPUs"
for cpu in "$ctrl_cpu" $other_cpu; do
    echo "== client on CPU $cpu$([ "$cpu" = "$ctrl_cpu" ] && echo ' (same as the control thread)')"
    taskset -c "$cpu" "$dir/bench/ctrl_bench" "$tmp/sock" "${1:-5000}"
    VUR_BENCH_BACKEND_PID=$pid taskset -c "$cpu" "$dir/bench/qp_bench" "$tmp/sock" \
        "$(( ${1:-5000} / 2 ))"
done

# Ethernet frames device to device through the local switch (two client threads).
echo "== Ethernet"
"$dir/bench/eth_bench" "$tmp/sock" "$tmp/sock1"

# The RDMA engine between the two devices.
echo "== RDMA (RC)"
# The client on a CPU the data path (thread vur-net: an EAL worker lcore, or a control
# thread without one) may not run on; on the same CPU both busy-poll in turn.
dp_cpus=$(for t in /proc/$pid/task/*; do
    if [ "$(cat "$t/comm")" = vur-net ]; then awk '/Cpus_allowed_list/ {print $2}' "$t/status"; fi
done)
client_cpu=$(python3 -c 'import sys
busy = set()
for part in sys.argv[1].split(","):
    lo, _, hi = part.partition("-")
    if lo:
        busy.update(range(int(lo), int(hi or lo) + 1))
free = [c for c in range(int(sys.argv[2])) if c not in busy]
print(free[0] if free else 0)' "${dp_cpus:-}" "$(nproc)")
echo "data path on CPU(s) ${dp_cpus:-?}; client on CPU $client_cpu"
VUR_BENCH_PREFIX="$prefix" taskset -c "$client_cpu" "$dir/bench/rdma_bench" "$tmp/sock" "$tmp/sock1" \
    "${RDMA_SECONDS:-1}"

# Speed-change notification latency, on a second backend with two tap members
# (needs root and /dev/net/tun for net_tap).
if [ "$(id -u)" -eq 0 ] && [ -w /dev/net/tun ]; then
    echo "== port speed notifications"
    iface="vurb$$"
    "$dir/backend/vhost-user-rdma" --no-huge -m 256 --no-pci --file-prefix "${prefix}s" \
        --log-level 'lib.vhost.*:warning' --vdev "net_tap0,iface=${iface}a" \
        --vdev "net_tap1,iface=${iface}b" -- -s "$tmp/speed" --admin-socket "$tmp/admin" \
        --member-speed net_tap0=100000 --member-speed net_tap1=100000 \
        >"$tmp/speed.log" 2>&1 &
    spid=$!
    trap 'kill $pid $spid 2>/dev/null; wait $pid $spid 2>/dev/null; rm -rf "$tmp" "/var/run/dpdk/$prefix" "/var/run/dpdk/${prefix}s"' EXIT
    for _ in $(seq 100); do [ -S "$tmp/admin" ] && break; sleep 0.1; done
    echo "backend hears of tap links from rtnetlink (polling every 20 ms as fallback); admin changes apply at once"
    "$dir/bench/speed_event_bench" "$tmp/speed" "$tmp/admin" net_tap1 "${iface}b" "${2:-200}"
fi
