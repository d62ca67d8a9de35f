#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Configure (once) and build one build directory.
#   scripts/build.sh [release|asan]
# release -> build/      (debugoptimized)
# asan    -> build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer)
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-release}
case "$kind" in
release) dir=build; opts=() ;;
asan) dir=build-asan; opts=(-Db_sanitize=address,undefined -Db_lundef=false) ;;
*) echo "usage: $0 [release|asan]" >&2; exit 2 ;;
esac

if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "${opts[@]}" >"$dir.setup.log" 2>&1 ||
        { cat "$dir.setup.log" >&2; exit 1; }
    rm -f "$dir.setup.log"
fi
ninja -C "$dir" >/dev/null || { ninja -C "$dir"; exit 1; }
echo "$dir"
