#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Set up, build with ASan + UBSan, run every test, and end with the line
# "N passed, N failed, N skipped". Exits non-zero if any test failed, or if
# any was skipped in CI (CI=true).
# Extra arguments go to 'meson test' (e.g. --suite unit).
#
# Three stages, all counted in the closing line:
#   build-asan/  the host's DPDK (Debian 12: 22.11), every suite;
#   build-fuzz/  the libFuzzer targets (fuzz/, clang): a short seeded run of
#                each, the suite 'fuzz' (only with no extra arguments, or
#                arguments that name it);
#   build-sid/   the newest DPDK (Debian unstable), in a chroot made once and
#                reused (scripts/test-dpdk-sid.sh), every suite but qemu.
# VUR_TEST_FUZZ=0 skips the second stage, VUR_TEST_SID=0 the third.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

scripts/setup.sh || exit 1
dir=$(scripts/build.sh asan) || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# What the QEMU scenarios and the later stages build, in the background at
# idle priority while the first stage's tests run (its own process group,
# killed if this script ends first: SIGKILL, as an idle process may wait
# long for the CPU to take a SIGTERM).
fuzz_stage=0
if [ "${VUR_TEST_FUZZ:-1}" != 0 ] && { [ $# -eq 0 ] || [[ " $* " == *fuzz* ]]; }; then
    fuzz_stage=1
fi
prebuild_pid=
if [ "${VUR_PREBUILD:-1}" != 0 ] && { [ $# -eq 0 ] || [[ " $* " == *qemu* ]]; }; then
    set -m
    VUR_TEST_FUZZ=$fuzz_stage scripts/prebuild.sh "$dir/meson-logs/prebuild.log" &
    prebuild_pid=$!
    set +m
    trap '[ -z "$prebuild_pid" ] || kill -KILL -- -"$prebuild_pid" 2>/dev/null' EXIT
fi

echo "== $dir: DPDK $(pkg-config --modversion libdpdk) (host)"
meson test -C "$dir" --no-rebuild --print-errorlogs "$@"
status=$?
if [ -n "$prebuild_pid" ]; then
    # The later stages build in the same trees: wait for it, 20 minutes at
    # most (a download that hangs): then they build what it left.
    for _ in $(seq 1200); do
        kill -0 "$prebuild_pid" 2>/dev/null || break
        sleep 1
    done
    if kill -0 "$prebuild_pid" 2>/dev/null; then
        echo "prebuild: still running after 20 minutes: stopped" >>"$dir/meson-logs/prebuild.log"
        kill -KILL -- -"$prebuild_pid" 2>/dev/null
    fi
    wait "$prebuild_pid"
    prebuild_pid=
    grep '^prebuild: ' "$dir/meson-logs/prebuild.log" | sed 's/^/== /'
fi
logs=("$dir=$dir/meson-logs/testlog.json")

if [ $fuzz_stage = 1 ]; then
    echo "== build-fuzz: libFuzzer targets (clang), a short run each"
    start=$SECONDS
    # build-fuzz builds the fuzz targets only: no other suite is run there
    if fuzz_dir=$(scripts/build.sh fuzz); then
        meson test -C "$fuzz_dir" --no-rebuild --print-errorlogs --suite fuzz || status=1
    else
        status=1
        fuzz_dir=build-fuzz
        rm -f "$fuzz_dir/meson-logs/testlog.json" # counted as the stage's failure
    fi
    logs+=("$fuzz_dir=$fuzz_dir/meson-logs/testlog.json")
    echo "== build-fuzz: $((SECONDS - start)) s"
fi

if [ "${VUR_TEST_SID:-1}" != 0 ]; then
    sid_dir=build-${VUR_CHROOT_SUITE:-sid}
    echo "== $sid_dir: the newest DPDK, in a Debian ${VUR_CHROOT_SUITE:-unstable} chroot"
    start=$SECONDS
    scripts/test-dpdk-sid.sh "$@"
    sid_status=$?
    echo "== $sid_dir: $((SECONDS - start)) s"
    # No log after a failure: the stage failed before its tests (counted
    # as one failure). No log after a success: no test matched.
    if [ $sid_status -ne 0 ]; then
        status=1
        logs+=("$sid_dir=$sid_dir/meson-logs/testlog.json")
    elif [ -f "$sid_dir/meson-logs/testlog.json" ]; then
        logs+=("$sid_dir=$sid_dir/meson-logs/testlog.json")
    fi
fi

# Count every test case of every stage (TAP subtests where a test reports
# them, else the test): "N passed, N failed, N skipped", a skip never among
# the passed and each with its reason; in CI (CI=true) a skip fails the run.
python3 scripts/test-summary.py "${logs[@]}" || status=1
exit $status
