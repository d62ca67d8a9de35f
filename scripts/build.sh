#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Configure (once) and build one build directory.
#   scripts/build.sh [release|asan|fuzz]
# release -> build/      (debugoptimized)
# asan    -> build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer)
# fuzz    -> build-fuzz/ (clang, the libFuzzer targets of fuzz/ only)
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-release}
case "$kind" in
release) dir=build; opts=() ;;
asan) dir=build-asan; opts=(-Db_sanitize=address,undefined -Db_lundef=false) ;;
fuzz) dir=build-fuzz; opts=(-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false)
    export CC=clang ;;
*) echo "usage: $0 [release|asan|fuzz]" >&2; exit 2 ;;
esac
targets=()
[ "$kind" = fuzz ] && targets=(fuzz)

if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "${opts[@]}" >"$dir.setup.log" 2>&1 ||
        { cat "$dir.setup.log" >&2; exit 1; }
    rm -f "$dir.setup.log"
fi
ninja -C "$dir" "${targets[@]}" >/dev/null || { ninja -C "$dir" "${targets[@]}"; exit 1; }
echo "$dir"
