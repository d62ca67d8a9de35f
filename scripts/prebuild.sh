#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build, in the background and at idle CPU priority, what the test command's
# later tests would each build when they first need it: QEMU 7.2 and 10.2
# with the device, the guest images and modules, Debian unstable's packaged
# QEMU, the build-sid/ tree and the fuzz targets. scripts/test.sh starts it
# beside the first stage. On two cores most QEMU scenarios keep one core busy (one TCG guest
# at a time); these builds take what the tests leave.
#
#   scripts/prebuild.sh LOG
#
# Nothing depends on it. Each test calls the same build scripts, which hold
# a lock while they build and print at once what is already built, so a test
# waits for the build in progress here or finds it done, and a step that
# fails here is only logged ("prebuild: STEP failed"): the test that needs
# it builds it again and reports why. The order is the order the tests need
# them in. VUR_TEST_SID=0 leaves out the build-sid/ tree, VUR_TEST_FUZZ=0 the
# fuzz targets (build-fuzz/).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

log=${1:?usage: prebuild.sh LOG}
: >"$log"

# Idle priority that holds across sessions: with autogroups (one group per
# session, the kernel's default) nice and SCHED_IDLE weigh only against the
# same session's tasks, so a cgroup at cpu.idle comes first (cgroup v1's
# cpu controller or v2's); nice and SCHED_IDLE stay as the fallback.
cgroup=
for parent in /sys/fs/cgroup/cpu /sys/fs/cgroup; do
    # what a run killed with SIGKILL left (rmdir takes empty ones only)
    rmdir "$parent"/vur-prebuild-* 2>/dev/null
done
for parent in /sys/fs/cgroup/cpu /sys/fs/cgroup; do
    [ -f "$parent/cgroup.procs" ] || continue
    dir=$parent/vur-prebuild-$$
    if mkdir "$dir" 2>/dev/null; then
        if echo 1 >"$dir/cpu.idle" 2>/dev/null && echo $$ >"$dir/cgroup.procs" 2>/dev/null; then
            cgroup=$dir
            break
        fi
        rmdir "$dir" 2>/dev/null
    fi
done
leave_cgroup() {
    [ -n "$cgroup" ] || return 0
    echo $$ >"$(dirname "$cgroup")/cgroup.procs" 2>/dev/null
    rmdir "$cgroup" 2>/dev/null
}
trap leave_cgroup EXIT
renice -n 19 -p $$ >/dev/null 2>&1
chrt --idle -p 0 $$ >/dev/null 2>&1
echo "prebuild: idle priority: ${cgroup:-no cgroup}, nice 19, SCHED_IDLE" >>"$log"

# Run one step; its output goes to the log, its path to stdout.
step() {
    local start=$SECONDS out
    if out=$("$@" 2>>"$log"); then
        echo "prebuild: $* ($((SECONDS - start)) s)" >>"$log"
        printf '%s\n' "$out" | tail -n 1
    else
        echo "prebuild: $* failed after $((SECONDS - start)) s" >>"$log"
        return 1
    fi
}

kernel_of() {
    cat "$1/kernel-version"
}

step qemu-test/build-qemu.sh >/dev/null
if image=$(step qemu-test/build-image.sh debian12); then
    step qemu-test/build-module.sh "$(kernel_of "$image")" >/dev/null
fi
step qemu-test/build-sid-image.sh debian12 >/dev/null
if image=$(step qemu-test/build-sid-image.sh linux72); then
    step qemu-test/build-module.sh "$(kernel_of "$image")" >/dev/null
fi
# What installs into the chroot (its exclusive lock) before the QEMU
# scenarios that run in it hold that lock shared.
step scripts/sid-chroot.sh ensure qemu-system-x86 >/dev/null
[ "${VUR_TEST_SID:-1}" = 0 ] || step scripts/test-dpdk-sid.sh --ensure >/dev/null
step qemu-test/build-qemu.sh 10.2 >/dev/null
[ "${VUR_TEST_SID:-1}" = 0 ] || step scripts/test-dpdk-sid.sh --build-only >/dev/null
[ "${VUR_TEST_FUZZ:-1}" = 0 ] || step scripts/build.sh fuzz >/dev/null
echo "prebuild: done in $SECONDS s, $(grep -c '^prebuild: .* failed after' "$log") step(s) failed" \
    >>"$log"
