#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A short, reproducible run of one fuzz target (the test suite 'fuzz'):
#   run-target.sh EXE CORPUS_DIR DICT RUNS
# The corpus in the repository is read, never written: what the run finds
# goes to a scratch folder removed at the end. -seed=1: the same inputs every
# time. A crash fails the test and leaves its input in the test's log.
set -uo pipefail

exe=$1 corpus=$2 dict=$3 runs=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

args=(-seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$scratch/")
[ -f "$dict" ] && args+=(-dict="$dict")
mkdir "$scratch/new"
"$exe" "${args[@]}" "$scratch/new" "$corpus"
status=$?
for f in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-*; do
    [ -f "$f" ] || continue
    echo "finding: $(basename "$f"), base64:"
    base64 -w0 "$f"
    echo
done
exit $status
