# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 6: the guest reboots; the backend is told, and networking works
again on the same connection.

The backend has a tap uplink whose host side is 10.0.6.254/24. The guest
(10.0.6.1/24) pings the host, then reboots (reboot -f: a machine reset, the
vhost-user connection stays). QEMU stops the vrings and sends
VHOST_USER_RESET_DEVICE: the backend logs "device reset: ..." and
its device stops; the rebooted guest's virtio_net sets the rings up from
the start, the device starts again on the same connection (same vid), and
the guest pings the host again.

Usage: scenario6_reboot.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP. Needs root (net_tap).
"""

import os
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]

# The script runs on both boots; the host tells it which one this is.
GUEST_SCRIPT = r'''
. /lib/vur.sh

echo "VUR-WAIT boot"
read -t 120 -r boot
vur_net_up 10.0.6.1/24 || vur_result "eth0_up_$boot" fail "$(ip link show eth0)"
vur_ping "ping_host_$boot" 10.0.6.254 60
if [ "$boot" = first ]; then
    echo "vur: rebooting"
    reboot -f
    sleep 60
fi
'''


def scenario(tap, qemu, image, sock_dir):
    sock = os.path.join(sock_dir, 'vhost-rdma0')
    iface = guest.iface_name('s6')
    backend = harness.Backend(BACKEND, '-s', sock, '--no-admin', prefix='vurq7',
                              eal_extra=['--vdev', f'net_tap0,iface={iface}'])
    g = None
    try:
        guest.wait_ready(backend)
        guest.host_address(iface, '10.0.6.254/24')
        g = guest.Guest(qemu, image, GUEST_SCRIPT, [sock], reboot=True)
        first = g.wait_step(120) == 'boot'
        tap.case('guest_booted', first, '' if first else g.output()[-3000:])
        if not first:
            return
        vid = backend.device(sock)['vid']
        since = len(backend.output())
        g.send('first\n')
        line = guest.wait_log(backend, r'device reset: [^\n]*', 150, since)
        t = time.monotonic()
        tap.case('backend_told_of_the_reset', line is not None,
                 line[0] if line else backend.output()[since:][-3000:])
        again = g.wait_step(120) == 'boot'
        tap.case('guest_booted_again', again, '' if again else g.output()[-3000:])
        if again:
            tap.diag(f'rebooted {time.monotonic() - t:.1f} s after the reset')
            d = backend.device(sock)
            tap.case('same_connection',
                     d['vid'] == vid and 'frontend disconnected' not in backend.output()[since:],
                     f'vid {vid} before, {d["vid"]} after')
            g.send('again\n')
        guest.finish(tap, g, 120)
        log = backend.output()[since:]
        stopped = log.find('device stopped')
        reset = log.find('device reset: what the driver made is freed')
        started = log.find('device started', max(reset, 0))
        tap.case('device_stopped_reset_and_started_again', -1 < stopped < reset < started,
                 log[-3000:])
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend)


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
