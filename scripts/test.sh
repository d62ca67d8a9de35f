#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Set up, build with ASan + UBSan, run every test, and end with the line
# "N passed, N failed". Exits non-zero if any test failed.
# Extra arguments go to 'meson test' (e.g. --suite unit).
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || exit 1
dir=$(scripts/build.sh asan) || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

meson test -C "$dir" --no-rebuild --print-errorlogs "$@"
status=$?

# Count every test case: TAP subtests where a test reports them, else the test.
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, re, sys
passed = failed = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    ok = t['result'] in ('OK', 'EXPECTEDFAIL', 'SKIP')
    subs = re.findall(r'^(ok|not ok) \d+', t.get('stdout') or '', re.M)
    if subs:
        p = sum(s == 'ok' for s in subs)
        passed += p
        failed += len(subs) - p
        if not ok and p == len(subs):
            failed += 1   # the test itself failed (crash, sanitizer, timeout)
    elif ok:
        passed += 1
    else:
        failed += 1
print(f'{passed} passed, {failed} failed')
PY
exit $status
