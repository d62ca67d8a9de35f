# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 20: a guest reboots without any teardown (sysrq b) and its RDMA
device comes back working; on the project's vhost-user-rdma-pci, and on a
stock QEMU as a user of Debian unstable brings the device up (issue 24).

VUR_QEMU_DEVICE=generic: Debian unstable's packaged QEMU 11.1
(qemu-system-x86, in the chroot of scripts/sid-chroot.sh) with its generic
vhost-user device, no patch:

    -device vhost-user-test-device-pci,chardev=c0,virtio-id=1,num_vqs=N,
            vq_size=1024,config_size=C,page-per-vq=on

N and C are what the backend logs for each socket ("QEMU's generic device:
virtio-id=1,num_vqs=203,config_size=48" for its defaults); the test checks
them against the wire ABI's layout (2 x 1 pair + 1 + CQs + 2 x QPs + 2 x
ring queue pairs) and uses them. QEMU runs in the chroot (it links
unstable's libraries; `run --shared`), the backend on the host; the socket
folder, the image and each guest's initramfs are bind-mounted into the
chroot at their own paths.
VUR_QEMU_DEVICE=generic VUR_QEMU_BINARY=PATH: the same device on a QEMU
built in the sid chroot with qemu-test/qemu-10.2-generic/ (README "The
generic device series"), given vectors=N+1: the guest must get more than
one MSI-X vector (the stock device gives it INTx), and the reboot's device
reset must reach the backend as VHOST_USER_RESET_DEVICE, as with
vhost-user-rdma-pci.
Otherwise: vhost-user-rdma-pci on the QEMU of guest.build_qemu() (7.2 by
default).

One backend, two devices, a tap uplink declared at 25 Gb/s; two Linux 7.2
guests (build-sid-image.sh linux72, the module appended). Each loads
virtio_rdma.ko, gives its netdev 10.0.17.N/24, and `ibv_devinfo` shows the
device PORT_ACTIVE at 25.0 Gbps. The host declares the uplink at 50 Gb/s:
each guest's ibv_asyncwatch prints one IBV_EVENT_DEVICE_SPEED_CHANGE and
`ibv_devinfo -v` shows 50.0 Gbps. `ibv_rc_pingpong` (4 KiB, data checked)
runs between the guests. Guest 1 then leaves a pingpong server waiting (its
PD, MR, CQ and QP stay in the backend) and reboots without any teardown
(`echo b > /proc/sysrq-trigger`: no driver's remove, no device shutdown).
The machine reset stops the vrings. vhost-user-rdma-pci also sends
VHOST_USER_RESET_DEVICE, so before the module is loaded again the backend
holds nothing of the first boot; the generic device never sends it, so the
backend still holds the first boot's objects, and the driver's first
control command at probe, RESET_OBJECTS, drops them. Either way the device
comes back, its control commands succeed, and `ibv_rc_pingpong` between
the guests works again. At the end guest 1's device holds no more objects
than guest 2's (the kernel's GSI QP and what goes with it), neither
answered a control command with an error, and neither kernel log has a
warning.

Usage: scenario20_sysrq_reboot.py PATH/TO/vhost-user-rdma
Builds QEMU (not for the generic device), the images, the provider and the
module first; with the generic device installs qemu-system-x86 into the
unstable chroot if missing. Prints TAP. Needs root (net_tap, chroot).
"""

import os
import re
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
MACS = ['02:00:00:00:11:01', '02:00:00:00:11:02']
ADDRS = ['10.0.17.1', '10.0.17.2']
PORT, WAITING_PORT = 18701, 18702
ITERS = 20
OBJECTS = ('pds', 'mrs', 'cqs', 'qps', 'ahs')
# generic: Debian unstable's packaged QEMU and its generic vhost-user device
GENERIC = os.environ.get('VUR_QEMU_DEVICE') == 'generic'
# generic on VUR_QEMU_BINARY, a QEMU with qemu-test/qemu-10.2-generic/: the
# generic device with one MSI-X vector per virtqueue ("vectors"), which
# forwards the device reset as VHOST_USER_RESET_DEVICE
PATCHED_GENERIC = GENERIC and bool(os.environ.get('VUR_QEMU_BINARY'))

# The settings line the backend logs for each socket.
SETTINGS = re.compile(r"(\S+): QEMU's generic device: virtio-id=1,num_vqs=(\d+),"
                      r'config_size=(\d+)')

GUEST_SCRIPT = r'''
. /lib/vur.sh

# device_up WHEN: the module's netdev and ib_device, the netdev's address,
# the RoCE v2 GID of it, PORT_ACTIVE, ibv_devinfo and the speed it shows.
device_up() {
    N= IB= GIDX=
    for _i in $(seq 300); do
        N=$(vur_netdev_of @MAC@)
        [ -n "$N" ] && IB=$(vur_ibdev_of "$N")
        [ -n "$IB" ] && break
        sleep 0.1
    done
    vur_expect "$1_ib_device" yes "$([ -n "$IB" ] && echo yes)"
    ip addr add @ADDR@/24 dev "$N"
    ip link set "$N" up
    GIDX=$(vur_roce_v2_gid "$IB" "0000:0000:0000:0000:0000:ffff:@GID_V4@")
    vur_expect "$1_roce_v2_gid" yes "$([ -n "$GIDX" ] && echo yes)"
    vur_wait_eq "4: ACTIVE" 10 cat /sys/class/infiniband/$IB/ports/1/state
    info=$(sid ibv_devinfo -d "$IB" 2>&1)
    if echo "$info" | grep -q "hca_id:[[:space:]]*$IB\$" &&
            echo "$info" | grep -q 'state:[[:space:]]*PORT_ACTIVE (4)'; then
        vur_result "$1_ibv_devinfo" ok \
            "$(echo "$info" | grep -E 'hca_id|state|link_layer' | tr -s ' \t' ' ' | tr '\n' '|')"
    else
        vur_result "$1_ibv_devinfo" fail "$info"
    fi
    vur_expect "$1_devinfo_effective_speed" "$2" "$(vur_devinfo "$IB" effective_speed)"
}
kernel_log_clean() {
    if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
        vur_result "$1_kernel_log_clean" fail \
            "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
    else
        vur_result "$1_kernel_log_clean" ok
    fi
}
# pingpong ROUND: ibv_rc_pingpong between the guests, the server on guest 1.
pingpong() {
    _args="-d $IB -g ${GIDX:-0} -s 4096 -n @ITERS@ -c -p @PORT@"
    if [ "@ROLE@" = server ]; then
        timeout 300 sid ibv_rc_pingpong $_args >/tmp/pp.$1 2>&1 &
        _pid=$!
        vur_wait_eq 1 60 vur_listening @PORT@
        vur_step "server_$1"
        wait $_pid
        _st=$?
        if [ $_st = 0 ] && grep -q '^@ITERS@ iters in' /tmp/pp.$1 &&
                ! grep -q 'invalid data' /tmp/pp.$1; then
            vur_result "rc_pingpong_$1" ok "$(grep iters /tmp/pp.$1)"
        else
            vur_result "rc_pingpong_$1" fail "exit $_st: $(tail -n 8 /tmp/pp.$1 | tr '\n' '|')"
        fi
    else
        vur_step "server_$1"
        vur_pingpong_client "rc_pingpong_$1" @ITERS@ sid ibv_rc_pingpong $_args @PEER@
    fi
}

echo "VUR-WAIT boot"
read -t 300 -r boot
dmesg -n 1
ip link set lo up
echo 1 >/proc/sys/kernel/sysrq
insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko ||
    vur_result "insmod_$boot" fail "$(dmesg | tail -5)"
# QEMU's generic device has one MSI-X vector: virtio_pci falls back to INTx.
vur_result "${boot}_interrupts" ok \
    "$(grep -i -E 'virtio|msi' /proc/interrupts | tr -s ' ' | head -4 | tr '\n' '|')"
# More than one MSI-X vector: @MSIX@ (yes: one per virtqueue, "vectors").
_msix=$(grep -c -E 'MSI.*virtio' /proc/interrupts)
if [ "$([ "$_msix" -gt 1 ] && echo yes || echo no)" = @MSIX@ ]; then
    vur_result "${boot}_msix_vectors" ok "$_msix"
else
    vur_result "${boot}_msix_vectors" fail "$_msix MSI-X vectors; more than one: want @MSIX@"
fi
if [ "$boot" = first ]; then
    device_up first "25.0 Gbps"
    sid ibv_asyncwatch -d "$IB" >/tmp/aw 2>&1 &
    AW=$!
    vur_wait_eq 1 10 grep -c "^$IB: async event FD" /tmp/aw
    vur_step speed_change
    vur_wait_eq 500 30 cat /sys/class/infiniband/$IB/ports/1/effective_speed
    vur_expect speed_change_sysfs 500 "$(cat /sys/class/infiniband/$IB/ports/1/effective_speed)"
    _ev='event_type IBV_EVENT_DEVICE_SPEED_CHANGE (20), port 1$'
    vur_wait_eq 1 30 grep -c "$_ev" /tmp/aw
    sleep 1 # a second event would come within this
    vur_expect speed_change_asyncwatch 1 "$(grep -c "$_ev" /tmp/aw)"
    vur_expect speed_change_devinfo "50.0 Gbps" "$(vur_devinfo "$IB" effective_speed)"
    kill $AW
    wait $AW 2>/dev/null
else
    device_up "$boot" "50.0 Gbps"
fi
vur_ping "${boot}_ping_peer" @PEER@ 60
pingpong "$boot"
if [ "@ROLE@" = server ] && [ "$boot" = first ]; then
    # A server whose client never comes: its objects stay in the backend.
    sid ibv_rc_pingpong -d $IB -g ${GIDX:-0} -s 4096 -n 10 -p @WAITING_PORT@ \
        >/tmp/waiting 2>&1 &
    vur_wait_eq 1 60 vur_listening @WAITING_PORT@
    kernel_log_clean first
    vur_step reboot
    echo "vur: sysrq b"
    echo b >/proc/sysrq-trigger
    sleep 60
fi
if [ "@ROLE@" = client ]; then
    # guest 1 reboots meanwhile
    VUR_STEP_TIMEOUT=600 pingpong again
fi
kernel_log_clean "$boot"
vur_step done
'''


def guest_script(i):
    v4 = [int(x) for x in ADDRS[i].split('.')]
    return (GUEST_SCRIPT.replace('@ROLE@', 'server' if i == 0 else 'client')
            .replace('@MAC@', MACS[i]).replace('@ADDR@', ADDRS[i])
            .replace('@PEER@', ADDRS[1 - i])
            .replace('@GID_V4@', f'{v4[0]:02x}{v4[1]:02x}:{v4[2]:02x}{v4[3]:02x}')
            .replace('@ITERS@', str(ITERS)).replace('@PORT@', str(PORT))
            .replace('@WAITING_PORT@', str(WAITING_PORT))
            .replace('@MSIX@', 'no' if GENERIC and not PATCHED_GENERIC else 'yes'))


def objects(d):
    return {k: d.get(k) for k in OBJECTS + ('ctrl_errors',)}


def generic_device_settings(tap, backend, socks):
    """The num_vqs and config_size the backend logs for each socket, checked
    against the layout of the wire ABI (one pair, the control queue, 64 CQs,
    64 QPs, 4 doorbell/event pairs: 203) and the configuration's size (48); {socket: (num_vqs,
    config_size)}, or None."""
    found = {m[1]: (int(m[2]), int(m[3])) for m in SETTINGS.finditer(backend.output())}
    want = (2 * 1 + 1 + 64 + 2 * 64 + 2 * 4, 48)  # and 4 doorbell/event pairs (rings)
    ok = all(found.get(s) == want for s in socks)
    tap.case('backend_logs_the_generic_device_settings', ok,
             f'{found}, want {want} for each of {socks}')
    return found if ok else None


def scenario(tap, qemu, _image, sock_dir):
    if GENERIC:
        try:
            qemu = guest.stock_qemu()
        except Exception as e:  # noqa: BLE001 - reported as a failed case
            tap.case('stock_qemu_in_the_unstable_chroot', False, e)
            return
        tap.case('stock_qemu_in_the_unstable_chroot', True, qemu)
    built = guest.sid_image_and_module(tap)
    if built is None:
        return
    sid_image, ko = built
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    iface = guest.iface_name('s17')
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--mac', MACS[0],
                              '--member-speed', 'net_tap0=25000', prefix='vurq17',
                              eal_extra=['--vdev', f'net_tap0,iface={iface}'])
    guests = []
    try:
        guest.wait_ready(backend)
        device = {}
        if GENERIC:
            settings = generic_device_settings(tap, backend, socks)
            if settings is None:
                return
        for i, s in enumerate(socks):
            if GENERIC:
                num_vqs, config_size = settings[s]
                device = {'device': 'vhost-user-test-device-pci',
                          'device_opts': f',virtio-id=1,num_vqs={num_vqs},vq_size=1024,'
                                         f'config_size={config_size}'}
                if PATCHED_GENERIC:
                    device['device_opts'] += f',vectors={num_vqs + 1}'
            guests.append(guest.Guest(
                qemu, sid_image, guest_script(i), [s], mem_mb=512, **device,
                append='vur.modules=virtio_pci,ib_core,ib_uverbs',
                files=guest.module_files(ko, sid_image), name=f'guest{i + 1}',
                reboot=(i == 0)))
        tap.diag(guests[0].cmd)
        run(tap, backend, guests, socks)
        for g in guests:
            guest.finish(tap, g, 120)
        for g in guests:
            lines = [ln for ln in g.output().splitlines() if ln.startswith('qemu-system')]
            if lines:
                tap.diag(f'{g.name} QEMU said:\n' + '\n'.join(lines[:10]))
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


def run(tap, backend, guests, socks):
    g1 = guests[0]
    why = guest.wait_steps(guests, 'boot', 180)
    tap.case('guests_booted', why is None, why or '')
    if why is not None:
        return
    for g in guests:
        g.send('first\n')
    why = guest.wait_steps(guests, 'speed_change', 300)
    tap.case('guests_ready_for_the_speed_change', why is None, why or '')
    if why is not None:
        return
    guest.ctl(backend.admin, 'member-speed', 'net_tap0', '50000')
    speeds = [guest.device_of(backend.admin, s)['speed_mbps'] for s in socks]
    tap.case('backend_speed_50000', speeds == [50000, 50000], speeds)
    for g in guests:
        g.send('go\n')
    why = guest.barrier(guests, 300)
    tap.case('guests_ready_for_rc_pingpong_first', why is None, why or '')
    if why is not None:
        return
    what = g1.wait_step(300)
    tap.case('guest1_ready_to_reboot', what == 'reboot', f'step {what!r}\n'
             + ('' if what == 'reboot' else g1.output()[-4000:]))
    if what != 'reboot':
        return
    before = backend.device(socks[0])
    tap.case('guest1_objects_before_the_reboot', before['qps'] >= 2 and before['pds'] >= 2,
             objects(before))
    t = time.monotonic()
    since = len(backend.output())
    g1.send('go\n')
    ok = g1.wait_step(300) == 'boot'
    tap.case('guest1_booted_again', ok, '' if ok else g1.output()[-4000:])
    if not ok:
        return
    tap.diag(f'guest 1 back at its boot step {time.monotonic() - t:.1f} s after sysrq b')
    after = backend.device(socks[0])
    reset = re.search(r'device reset[^\n]*', backend.output()[since:])
    if GENERIC and not PATCHED_GENERIC:
        # No RESET_DEVICE from this device: the first boot's objects are there.
        tap.case('first_boot_objects_still_in_the_backend', after['qps'] >= 2 and not reset,
                 f'{objects(after)}; {reset[0] if reset else "no device reset"}')
    else:
        # The machine reset sent RESET_DEVICE: nothing of the first boot is left.
        tap.case('device_reset_freed_the_first_boot_objects',
                 reset is not None and all(after[k] == 0 for k in OBJECTS),
                 f'{objects(after)}; {reset[0] if reset else "no device reset logged"}')
    g1.send('again\n')
    why = guest.barrier(guests, 600)
    tap.case('guests_ready_for_rc_pingpong_again', why is None, why or '')
    if why is not None:
        return
    why = guest.wait_steps(guests, 'done', 300)
    tap.case('guests_done', why is None, why or '')
    if why is None:
        d = [backend.device(s) for s in socks]
        tap.case('guest1_only_new_objects',
                 all(d[0][k] == d[1][k] for k in OBJECTS) and d[0]['ahs'] == 0,
                 f'guest 1 {objects(d[0])}, guest 2 {objects(d[1])}')
        tap.case('no_control_errors', all(x['ctrl_errors'] == 0 for x in d),
                 [x['ctrl_errors'] for x in d])
    for g in guests:
        g.send('go\n')


if __name__ == '__main__':
    sys.exit(guest.run(scenario, patched_qemu=not GENERIC))
