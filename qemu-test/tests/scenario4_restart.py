# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 4: the backend dies and restarts; the guest's network recovers.

The backend has a tap uplink whose host side is 10.0.4.254/24; the guest
(10.0.4.1/24) pings the host through it. The backend is then killed
(SIGKILL: no clean-up, its sockets' files stay) and another starts on the
same vhost-user socket and tap name; QEMU (chardev reconnect=1) connects
again and restarts the device, the host side of the new tap gets its address
again, and the guest's ping works again (after waiting up to 60 s).

Usage: scenario4_restart.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP. Needs root (net_tap).
"""

import os
import signal
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
HOST = '10.0.4.254/24'
HOST_MAC = '02:76:75:72:fe:fe'  # the same on the restarted backend's tap

GUEST_SCRIPT = r'''
. /lib/vur.sh

vur_net_up 10.0.4.1/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_ping ping_host_before 10.0.4.254 60
vur_step restart_backend
vur_expect carrier_after_restart 1 "$(cat /sys/class/net/eth0/carrier)"
vur_ping ping_host_after 10.0.4.254 60
'''


def scenario(tap, qemu, image, sock_dir):
    sock = os.path.join(sock_dir, 'vhost-rdma0')
    iface = guest.iface_name('s4')

    def start_backend(tag):
        b = harness.Backend(BACKEND, '-s', sock, '--no-admin', prefix=f'vurq5{tag}',
                            eal_extra=['--vdev', f'net_tap0,iface={iface}'])
        guest.wait_ready(b)
        guest.host_address(iface, HOST, HOST_MAC)
        return b

    first = start_backend('a')
    second = None
    g = None
    try:
        g = guest.Guest(qemu, image, GUEST_SCRIPT, [sock], chardev_opts=',reconnect=1')
        what = g.wait_step(90)
        tap.case('guest_pinged_first_backend', what == 'restart_backend',
                 '' if what else g.output()[-4000:])
        if what:
            status = first.stop(signal.SIGKILL)
            tap.case('first_backend_killed', status == -signal.SIGKILL, f'exit {status}')
            t = time.monotonic()
            # The killed backend's tap goes with its file descriptors.
            end = time.monotonic() + 10
            while os.path.exists(f'/sys/class/net/{iface}') and time.monotonic() < end:
                time.sleep(0.05)
            try:
                second = start_backend('b')
                started = guest.wait_log(second, r'device started', 30)
                tap.diag(f'QEMU reconnected, device started {time.monotonic() - t:.1f} s '
                         'after the kill')
                why = '' if started else second.output()[-3000:]
            except Exception as e:  # noqa: BLE001 - reported as a failed case
                started, why = None, e
            tap.case('second_backend_serves_qemu', started is not None, why)
            g.send('go\n')
            t = time.monotonic()
        guest.finish(tap, g, 120)
        if what:
            tap.diag(f'the guest pinged again and powered off {time.monotonic() - t:.1f} s '
                     'after the restart')
        if second is not None:
            try:
                d = second.device(sock)
                ok = d['eth_tx_frames'] >= 3 and d['eth_rx_frames'] >= 3
                why = {k: v for k, v in d.items()
                       if k in ('vid', 'started', 'eth_tx_frames', 'eth_rx_frames')}
            except Exception as e:  # noqa: BLE001 - reported as a failed case
                ok, why = False, e
            tap.case('second_backend_forwarded', ok, why)
        qemu_lines = [ln for ln in g.output().splitlines() if ln.startswith('qemu-system')]
        if qemu_lines:
            tap.diag('QEMU said:\n' + '\n'.join(qemu_lines[:20]))
    finally:
        if g is not None:
            g.close()
        first.stop(signal.SIGKILL)
        if second is not None:
            guest.stop_backend(tap, second, 'second_backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
