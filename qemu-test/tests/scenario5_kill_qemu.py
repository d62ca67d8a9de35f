# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 5: one of two guests' QEMU is killed; the other keeps working.

One backend serves two sockets and has a tap uplink whose host side is
10.0.5.254/24. Two TCG guests (10.0.5.1 and 10.0.5.2) ping the host. The
first guest's QEMU is then killed (SIGKILL): the backend logs "frontend
disconnected" for its socket and its telemetry shows that device without a
frontend and stopped, the other still connected and started. The host pings
the second guest, which pings the host again and still has its control
queue (promiscuous mode on).

Usage: scenario5_kill_qemu.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP. Needs root (net_tap).
"""

import os
import re
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]

GUEST_SCRIPT = r'''
. /lib/vur.sh

vur_net_up @ADDR@/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_ping ping_host_before 10.0.5.254 60
vur_step other_qemu_killed
vur_expect carrier_after 1 "$(cat /sys/class/net/eth0/carrier)"
vur_ping ping_host_after 10.0.5.254 30
if ip link set eth0 promisc on; then
    vur_result ctrl_after ok
else
    vur_result ctrl_after fail "ip link set eth0 promisc on failed"
fi
'''


def scenario(tap, qemu, image, sock_dir):
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    iface = guest.iface_name('s5')
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                              prefix='vurq6', eal_extra=['--vdev', f'net_tap0,iface={iface}'])
    guests = []
    try:
        guest.wait_ready(backend)
        guest.host_address(iface, '10.0.5.254/24')
        for i in range(2):
            script = GUEST_SCRIPT.replace('@ADDR@', f'10.0.5.{i + 1}')
            guests.append(guest.Guest(qemu, image, script, [socks[i]], mem_mb=384,
                                      name=f'guest{i + 1}'))
        victim, survivor = guests
        ready = all(g.wait_step(150) == 'other_qemu_killed' for g in guests)
        tap.case('both_guests_pinged_the_host', ready,
                 '' if ready else '\n'.join(g.output()[-3000:] for g in guests))
        if not ready:
            return
        before = [backend.device(s) for s in socks]
        tap.case('both_devices_connected_and_started',
                 all(d['vid'] >= 0 and d['started'] for d in before),
                 [(d['path'], d['vid'], d['started']) for d in before])

        since = len(backend.output())
        victim.proc.kill()
        victim.proc.wait()
        t = time.monotonic()
        line = guest.wait_log(backend, re.escape(socks[0]) + r': frontend disconnected[^\n]*',
                              10, since)
        tap.case('backend_logs_frontend_disconnected', line is not None,
                 f'{time.monotonic() - t:.2f} s after the kill: {line[0]}' if line
                 else backend.output()[since:][-3000:])
        after = [backend.device(s) for s in socks]
        keys = ('path', 'vid', 'started', 'eth_tx_frames', 'eth_rx_frames')
        tap.case('killed_device_not_connected',
                 after[0]['vid'] == -1 and not after[0]['started'],
                 {k: after[0][k] for k in keys})
        tap.case('other_device_still_connected',
                 after[1]['vid'] == before[1]['vid'] and after[1]['started'],
                 {k: after[1][k] for k in keys})
        others = [ln for ln in backend.output()[since:].splitlines()
                  if socks[1] in ln]
        tap.case('other_device_untouched_in_log', not others, '\n'.join(others))

        n = guest.host_ping('10.0.5.2', 3, 5)
        tap.case('host_pings_survivor', n == 3, f'{n} of 3 echo requests answered')
        survivor.send('go\n')
        guest.report(tap, victim)
        guest.finish(tap, survivor, 90)
        # Where a frame went missing: the survivor's device, the switch, the tap.
        d = backend.device(socks[1])
        tap.diag({k: v for k, v in d.items() if k.startswith('eth_') and v})
        tap.diag(backend.telemetry('/vur/switch')['/vur/switch'])
        stats = {n: open(f'/sys/class/net/{iface}/statistics/{n}').read().strip()
                 for n in ('rx_packets', 'tx_packets', 'rx_dropped', 'tx_dropped')}
        tap.diag(f'host side of the tap: {stats}')
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
