# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 13: the backend restarts, then the guest reboots, each under a
running ibv_asyncwatch; the RDMA device comes back and the tools work again.

One backend, one device, no uplink. The guest (build-sid-image.sh's image:
Debian 12's kernel with virtio_rdma.ko, Debian unstable's rdma-core 65
userspace under /sid) gives the module's netdev 10.13.0.1/24 and runs
`ibv_asyncwatch` in the background, then unmodified `ibv_rc_pingpong`
(4 KiB x 10, -c), server and client in the guest over 127.0.0.1 on the
device's RoCE v2 GID of that address, and leaves an `ibv_rc_pingpong`
server waiting for a client that never comes: its PD, MR, CQ and QP stay in
the backend.

The backend is killed (SIGKILL) and another starts on the same socket;
QEMU (chardev reconnect=1) reconnects, and as the driver had started the
device with RoCE, whose objects the new backend does not have, sets
DEVICE_NEEDS_RESET and raises a configuration change interrupt instead of
restarting the device. virtio_rdma resets the device and probes it again:
asyncwatch prints IBV_EVENT_DEVICE_FATAL (its context is disassociated; it
then waits for events that never come),
the ib_device and the netdev come back, the netdev is given its address
again, `ibv_devinfo` shows PORT_ACTIVE and the pingpong works again; the
new backend holds only the objects made after the restart (one waiting
server's: 1 PD, 1 QP).

Then the guest reboots (reboot -f: a machine reset on the same
connection, QEMU sends VHOST_USER_RESET_DEVICE) with a new asyncwatch and
a waiting server running; after the reboot, before the module is loaded,
the backend holds no PD, MR, CQ, QP, AH or GID, and the tools work again.

Usage: scenario13_verbs_restart.py PATH/TO/vhost-user-rdma
Builds QEMU, the images, the provider and the module first. Prints TAP.
Needs root (chroot).
"""

import os
import signal
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
MAC = '02:76:75:72:0d:01'
OBJECTS = ('pds', 'mrs', 'cqs', 'qps', 'ahs', 'gids')

# The script runs on both boots; the host tells it which one this is.
GUEST_SCRIPT = r'''
. /lib/vur.sh

# device_up WHEN: the module's netdev and ib_device (found again: a reset
# device is probed anew), the netdev's address, the RoCE v2 GID, PORT_ACTIVE.
device_up() {
    N= IB= GIDX=
    for _i in $(seq 300); do
        N=$(vur_netdev_of @MAC@)
        [ -n "$N" ] && IB=$(vur_ibdev_of "$N")
        [ -n "$IB" ] && break
        sleep 0.1
    done
    vur_expect "$1_ib_device" yes "$([ -n "$IB" ] && echo yes)"
    ip addr add 10.13.0.1/24 dev "$N"
    ip link set "$N" up
    GIDX=$(vur_roce_v2_gid "$IB" 0000:0000:0000:0000:0000:ffff:)
    vur_expect "$1_roce_v2_gid" yes "$([ -n "$GIDX" ] && echo yes)"
    vur_wait_eq "4: ACTIVE" 10 cat /sys/class/infiniband/$IB/ports/1/state
    vur_expect "$1_devinfo_state" "PORT_ACTIVE (4)" "$(vur_devinfo "$IB" state)"
    # the layout the driver chose (rings by default): the host counts its PD and MR
    vur_result driver_layout ok "$(cat /sys/class/infiniband/$IB/ports/1/layout)"
    G="-d $IB -g ${GIDX:-0} -r 64 -c"
}
# asyncwatch FILE: ibv_asyncwatch on the device in the background.
asyncwatch() {
    sid ibv_asyncwatch -d "$IB" >"$1" 2>&1 &
    AW=$!
    vur_wait_eq 1 10 grep -c "^$IB: async event FD" "$1"
}
# waiting_server PORT: an ibv_rc_pingpong server whose client never comes;
# its objects stay in the device.
waiting_server() {
    sid ibv_rc_pingpong $G -s 4096 -n 10 -p $1 >/tmp/waiting.$1 2>&1 &
    WS=$!
    vur_wait_eq 1 60 vur_listening $1
}
kernel_log_clean() {
    if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
        vur_result "$1_kernel_log_clean" fail \
            "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
    else
        vur_result "$1_kernel_log_clean" ok
    fi
}

echo "VUR-WAIT boot"
read -t 300 -r boot
dmesg -n 1
ip link set lo up
insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko ||
    vur_result "insmod_$boot" fail "$(dmesg | tail -5)"
device_up "$boot"
vur_pingpong_local "rc_pingpong_$boot" 18601 ibv_rc_pingpong $G -s 4096 -n 10

if [ "$boot" = first ]; then
    asyncwatch /tmp/aw1
    vur_expect asyncwatch_started 1 "$(grep -c "^$IB: async event FD" /tmp/aw1)"
    waiting_server 18602
    OLD_IB=$IB
    vur_step restart_backend
    # The driver resets the device and probes it again: the old ib_device
    # goes (asyncwatch's context with it), a new one comes.
    vur_wait_eq 1 60 grep -c IBV_EVENT_DEVICE_FATAL /tmp/aw1
    vur_expect asyncwatch_device_fatal 1 "$(grep -c IBV_EVENT_DEVICE_FATAL /tmp/aw1)"
    # Its context is disassociated: asyncwatch waits on for events that
    # never come (the waiting server sits in accept()); both end here.
    vur_result asyncwatch_output ok "$(tr '\n' '|' </tmp/aw1)"
    kill $AW $WS 2>/dev/null
    wait $AW $WS 2>/dev/null
    dmesg | grep -q 'device needs a reset' &&
        vur_result driver_saw_needs_reset ok "$(dmesg | grep 'needs a reset')" ||
        vur_result driver_saw_needs_reset fail "$(dmesg | tail -20)"
    device_up after_restart
    vur_result driver_log_of_the_reset ok \
        "$(dmesg | sed -n '/needs a reset/,$p' | head -20 | tr '\n' '|')"
    vur_expect same_ib_device_name "$OLD_IB" "$IB"
    vur_pingpong_local rc_pingpong_after_restart 18603 ibv_rc_pingpong $G -s 4096 -n 10
    asyncwatch /tmp/aw2
    vur_expect asyncwatch_again 1 "$(grep -c "^$IB: async event FD" /tmp/aw2)"
    waiting_server 18604
    vur_step check_backend_after_restart
    kernel_log_clean first
    echo "vur: rebooting"
    reboot -f
    sleep 60
fi
kernel_log_clean again
'''


def objects(d):
    return {k: d.get(k) for k in OBJECTS + ('ctrl_errors',)}


def scenario(tap, qemu, image, sock_dir):
    built = guest.sid_image_and_module(tap)
    if built is None:
        return
    sid_image, ko = built
    sock = os.path.join(sock_dir, 'vhost-rdma0')

    def start_backend(tag):
        b = harness.Backend(BACKEND, '-s', sock, '--no-admin', '--mac', MAC,
                            prefix=f'vurq13{tag}')
        guest.wait_ready(b)
        return b

    first = start_backend('a')
    second = None
    g = None
    try:
        g = guest.Guest(qemu, sid_image, GUEST_SCRIPT.replace('@MAC@', MAC), [sock],
                        chardev_opts=',reconnect=1', reboot=True,
                        append='vur.modules=virtio_pci,ib_core,ib_uverbs',
                        files=guest.module_files(ko, sid_image))
        ok = g.wait_step(120) == 'boot'
        tap.case('guest_booted', ok, '' if ok else g.output()[-3000:])
        if not ok:
            return
        g.send('first\n')
        what = g.wait_step(600)
        tap.case('guest_ready_for_restart', what == 'restart_backend',
                 '' if what else g.output()[-4000:])
        if what != 'restart_backend':
            return
        d = first.device(sock)
        tap.case('first_backend_holds_the_waiting_server',
                 d['pds'] >= 1 and d['qps'] >= 1 and d['gids'] >= 1, objects(d))
        status = first.stop(signal.SIGKILL)
        tap.case('first_backend_killed', status == -signal.SIGKILL, f'exit {status}')
        t = time.monotonic()
        second = start_backend('b')
        # QEMU reconnects and asks for a reset; the driver's new DRIVER_OK
        # starts the device on the new backend.
        started = guest.wait_log(second, r'device started', 120)
        tap.case('second_backend_started_by_the_reprobed_driver', started is not None,
                 '' if started else second.output()[-3000:])
        if started:
            tap.diag(f'device started again {time.monotonic() - t:.1f} s after the kill')
        g.send('go\n')
        what = g.wait_step(600)
        tap.case('guest_recovered', what == 'check_backend_after_restart',
                 '' if what == 'check_backend_after_restart'
                 else f'step {what}\n' + g.output()[-4000:])
        if what != 'check_backend_after_restart':
            return
        d = second.device(sock)
        # Only the objects made after the restart: the new waiting server's
        # PD, MR, CQ and QP, and ib_mad's (its PD, DMA MR, CQ and GSI QP);
        # on rings also the driver's PD and DMA MR, set up again, and the
        # MR of the waiting server's ring QP (its rings' area).
        own = 1 if guest.reported_rings(g) else 0
        tap.case('second_backend_only_new_objects',
                 d['pds'] == 2 + own and d['mrs'] == 2 + 2 * own and d['cqs'] == 2
                 and d['qps'] == 2 and d['ahs'] == 0 and d['ctrl_errors'] == 0,
                 dict(objects(d), driver_rings=bool(own)))
        since = len(second.output())
        g.send('go\n')
        reset = guest.wait_log(second, r'device reset: [^\n]*', 150, since)
        tap.case('backend_told_of_the_reboot', reset is not None,
                 reset[0] if reset else second.output()[since:][-3000:])
        ok = g.wait_step(180) == 'boot'
        tap.case('guest_booted_again', ok, '' if ok else g.output()[-3000:])
        if not ok:
            return
        d = second.device(sock)
        tap.case('no_object_left_after_the_reboot',
                 all(d[k] == 0 for k in OBJECTS), objects(d))
        g.send('again\n')
        guest.finish(tap, g, 600)
        qemu_lines = [ln for ln in g.output().splitlines() if ln.startswith('qemu-system')]
        tap.case('qemu_asked_for_a_reset',
                 any('needs a reset' in ln for ln in qemu_lines), '\n'.join(qemu_lines[:20]))
    finally:
        if g is not None:
            g.close()
        first.stop(signal.SIGKILL)
        if second is not None:
            guest.stop_backend(tap, second, 'second_backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
