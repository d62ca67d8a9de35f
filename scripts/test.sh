#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Set up, build with ASan + UBSan, run every test, and end with the line
# "N passed, N failed, N skipped". Exits non-zero if any test failed, or if
# any was skipped in CI (CI=true).
# Extra arguments go to 'meson test' (e.g. --suite unit).
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || exit 1
dir=$(scripts/build.sh asan) || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

meson test -C "$dir" --no-rebuild --print-errorlogs "$@"
status=$?

# Count every test case (TAP subtests where a test reports them, else the
# test): "N passed, N failed, N skipped", a skip never among the passed and
# each with its reason; in CI (CI=true) a skip fails the run.
python3 scripts/test-summary.py "$dir/meson-logs/testlog.json" || status=1
exit $status
