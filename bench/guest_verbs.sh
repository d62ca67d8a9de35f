#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Unmodified rdma-core tools between two TCG guests on one backend, two ways:
#   - this device: the guest driver virtio_rdma.ko and its provider, the
#     transport in the backend's engine (qemu-test scenario 12);
#   - the reference: Linux soft-RoCE (rdma_rxe) in each guest over a plain
#     virtio-net device of the same backend, the transport inside the guest
#     (qemu-test scenario 8).
# Each runs `ibv_rc_pingpong -s 4096 -n ITERS`, `ib_write_bw -s 65536`,
# `ib_atomic_bw -n 200` (FETCH_AND_ADD) and `ib_atomic_lat -n 100 -A
# CMP_AND_SWAP` between the guests; the figures go to standard output. Needs root (taps,
# the chroot); builds QEMU, the images, the module and the provider first
# (minutes the first time). TCG makes every figure slow: compare the two.
#   bench/guest_verbs.sh [ITERS]
set -euo pipefail
cd "$(dirname "$0")/.."

iters=${1:-1000}
scripts/setup.sh
dir=$(scripts/build.sh release)
export PYTHONPATH=$PWD/qemu-test/tests:$PWD/backend/tests PYTHONDONTWRITEBYTECODE=1
export VUR_PP_ITERS=$iters VUR_PP_BW=1
backend=$dir/backend/vhost-user-rdma
pingpong=$dir/guest-driver/virtio-user/tools/vur-pingpong

# figures NAME TAP-FILE: each case's figures (the tools' own summary lines,
# from the guests' results), after the case's name.
figures() {
    echo "== $1"
    # TAP puts a case's diagnostics before its ok line: keep them until then
    awk '/usec\/iter|BW average|t_typical/ { held = held "\n" $0; next }
        /^(not )?ok / {
            sub(/^(not )?ok [0-9]+ - /, ""); name = $1
            if (name ~ /pingpong|_bw|_lat/ && name !~ /^guest[0-9]+_step_/) {
                n = split(held, part, "|")
                for (i = 1; i <= n; i++)
                    if (part[i] ~ /iters in|^[# ]*[0-9]+ +[0-9]+ +[0-9.]+/) {
                        sub(/^[\n# ]*/, "", part[i]); printf "  %-36s %s\n", name, part[i]
                    }
            }
            held = ""
        }' "$2"
    if grep -q '^not ok' "$2"; then
        echo "  (some cases failed: see $2)"
        keep=1
    fi
}

tmp=$(mktemp -d)
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$tmp"' EXIT
python3 qemu-test/tests/scenario12_verbs_pingpong.py "$backend" "$pingpong" >"$tmp/device.tap" || true
python3 qemu-test/tests/scenario8_rxe.py "$backend" >"$tmp/rxe.tap" || true
echo "ibv_rc_pingpong -s 4096 -n $iters, ib_write_bw -s 65536, ib_atomic_bw, ib_atomic_lat between two TCG guests"
figures "virtio_rdma (transport in the backend)" "$tmp/device.tap"
figures "rdma_rxe over virtio-net (transport in the guest)" "$tmp/rxe.tap"
