#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A fuzzing campaign (fuzz/README.md):
#   scripts/fuzz.sh TARGET|all SECONDS [libFuzzer options...]
# TARGET: roce, ctrl, split_ring, frame, admin, wr, switch, admin_live, vhost.
# Builds build-fuzz/ (clang), then
# runs the target for SECONDS from its seed corpus (fuzz/corpus/TARGET, read
# only) and what earlier campaigns found (build-fuzz/fuzz-out/TARGET/corpus,
# kept between runs). Findings go to build-fuzz/fuzz-out/TARGET/: reproduce
# one with build-fuzz/fuzz/fuzz_TARGET FILE; once fixed, keep it as a
# regression input in fuzz/corpus/TARGET/ (named for the bug).
# FUZZ_JOBS=N runs N processes (libFuzzer -fork=N); the default is one.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 2 ] || { echo "usage: $0 TARGET|all SECONDS [libFuzzer options...]" >&2; exit 2; }
target=$1 seconds=$2
shift 2
targets=(roce ctrl split_ring frame admin wr switch admin_live vhost)
[ "$target" = all ] || targets=("$target")

dir=$(scripts/build.sh fuzz)
status=0
for t in "${targets[@]}"; do
    exe=$dir/fuzz/fuzz_$t
    [ -x "$exe" ] || { echo "no fuzz target '$t'" >&2; exit 2; }
    out=$dir/fuzz-out/$t
    mkdir -p "$out/corpus"
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$out/")
    [ -f "fuzz/$t.dict" ] && args+=(-dict="fuzz/$t.dict")
    [ -n "${FUZZ_JOBS:-}" ] && args+=(-fork="$FUZZ_JOBS" -ignore_crashes=1)
    echo "== fuzz_$t: $seconds s, findings in $out/"
    "$exe" "${args[@]}" "$@" "$out/corpus" "fuzz/corpus/$t" || status=1
done
exit $status
