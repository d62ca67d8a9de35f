# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 3: two guests on one backend ping each other through its switch.

One backend serves two sockets (two devices, each with the MAC derived
from its socket path, no uplink); two TCG guests, each on its own memfd memory, take 10.0.0.1/24 and
10.0.0.2/24 on eth0 and ping each other (each waits up to 60 s for the
other to answer first). Neither powers off before both have pinged (a
barrier on their consoles). The backend's switch learned both MACs and
counted the frames each way.

Usage: scenario3_two_guests.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP.
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]

GUEST_SCRIPT = r'''
. /lib/vur.sh

vur_net_up @ADDR@/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_ping ping_peer @PEER@ 60
vur_step pinged
'''


def scenario(tap, qemu, image, sock_dir):
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], prefix='vurq4')
    guests = []
    try:
        for s in socks:
            backend.wait_socket(s)
        addrs = ['10.0.0.1', '10.0.0.2']
        for i in range(2):
            script = (GUEST_SCRIPT.replace('@ADDR@', addrs[i])
                      .replace('@PEER@', addrs[1 - i]))
            guests.append(guest.Guest(qemu, image, script, [socks[i]], mem_mb=384,
                                      name=f'guest{i + 1}'))
        why = guest.barrier(guests, 150)
        tap.case('both_guests_pinged', why is None, why or '')
        if why is None:
            for s in socks:
                d = backend.device(s)
                tap.case(f'backend_frames_{os.path.basename(s)}',
                         d['eth_rx_frames'] >= 3 and d['eth_tx_frames'] >= 3,
                         {k: v for k, v in d.items()
                          if k.startswith('eth_') or k in ('path', 'vid')})
        for g in guests:
            guest.finish(tap, g, 60)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
