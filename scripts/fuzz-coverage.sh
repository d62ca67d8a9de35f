#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Line coverage that the fuzz corpora reach (fuzz/README.md):
#   scripts/fuzz-coverage.sh [TARGET...]
# Builds the fuzz targets again in build-fuzzcov/ with clang's source-based
# coverage (-fprofile-instr-generate -fcoverage-mapping, no sanitizer),
# replays each target's seed corpus (fuzz/corpus/TARGET) and what campaigns
# kept (build-fuzz/fuzz-out/TARGET/corpus) without mutating anything, merges
# the profiles and prints llvm-cov's line coverage of backend/transport,
# backend/ctrl and backend/vring (each file, then each folder), and of the
# whole backend. The HTML report goes to build-fuzzcov/coverage/index.html.
# Default: every target.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
    targets=(roce ctrl split_ring frame admin wr switch admin_live vhost)
dir=build-fuzzcov
prof=$dir/profiles
cov_flags="-fprofile-instr-generate -fcoverage-mapping"

# meson's compiler checks run instrumented programs: their profiles go nowhere
export LLVM_PROFILE_FILE=/dev/null
if [ ! -f "$dir/build.ninja" ]; then
    CC=clang meson setup "$dir" -Dfuzz=true -Db_lundef=false \
        -Dc_args="$cov_flags" -Dc_link_args="$cov_flags" >"$dir.setup.log" 2>&1 ||
        { cat "$dir.setup.log" >&2; exit 1; }
    rm -f "$dir.setup.log"
fi
ninja -C "$dir" fuzz >/dev/null || { ninja -C "$dir" fuzz; exit 1; }

rm -rf "$prof"
mkdir -p "$prof"
objects=()
for t in "${targets[@]}"; do
    exe=$dir/fuzz/fuzz_$t
    [ -x "$exe" ] || { echo "no fuzz target '$t'" >&2; exit 2; }
    dirs=("fuzz/corpus/$t")
    [ -d "build-fuzz/fuzz-out/$t/corpus" ] && dirs+=("build-fuzz/fuzz-out/$t/corpus")
    n=$(find "${dirs[@]}" -type f | wc -l)
    echo "== fuzz_$t: replaying $n inputs" >&2
    # -runs=0: every input once, nothing mutated; %p: one profile per process
    LLVM_PROFILE_FILE="$prof/$t-%p.profraw" "$exe" -runs=0 "${dirs[@]}" \
        >"$prof/$t.log" 2>&1 || { tail -20 "$prof/$t.log" >&2; exit 1; }
    objects+=(-object "$exe")
done
llvm-profdata merge -sparse "$prof"/*.profraw -o "$prof/all.profdata"

# llvm-cov 14 takes files, not folders: one report of everything, cut here
llvm-cov report "${objects[@]:1}" -instr-profile="$prof/all.profdata" >"$prof/report.txt"
summary() {
    # columns: file, regions, missed, cover, functions, missed, executed, lines, missed, cover
    awk -v want="$1" '
        $1 ~ "backend/" && $1 !~ /_test\.c$/ && $1 !~ /^\/usr/ {
            f = $1; sub(/.*backend\//, "backend/", f)
            split(f, p, "/"); d = p[1] "/" p[2]
            if (want != "" && d != want) next
            if (want != "")
                printf "  %-36s %5d lines %5d missed %6.1f%%\n", f, $8, $9,
                    $8 ? 100 * ($8 - $9) / $8 : 100
            lines[d] += $8; missed[d] += $9
        }
        END {
            for (d in lines) {
                printf "%-38s %5d lines %5d missed %6.1f%%\n", d, lines[d], missed[d],
                    100 * (lines[d] - missed[d]) / lines[d]
                tl += lines[d]; tm += missed[d]
            }
            if (want == "")
                printf "%-38s %5d lines %5d missed %6.1f%%\n", "backend (all)", tl, tm,
                    100 * (tl - tm) / tl
        }' "$prof/report.txt"
}
for part in transport ctrl vring; do
    echo
    echo "== backend/$part: line coverage"
    summary "backend/$part"
done
echo
echo "== every folder of the backend (unit tests excluded)"
summary "" | sort
llvm-cov show "${objects[@]:1}" -instr-profile="$prof/all.profdata" -format=html \
    -output-dir="$dir/coverage" >/dev/null
echo
echo "HTML: $dir/coverage/index.html"
