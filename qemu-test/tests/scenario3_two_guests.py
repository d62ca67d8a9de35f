# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 3: two guests on one backend ping each other through its switch,
then the host admin's tenant policy (issue 25) holds against a stock guest.

One backend serves two sockets (two devices, each with the MAC derived
from its socket path, no uplink); two TCG guests, each on its own memfd memory, take 10.0.0.1/24 and
10.0.0.2/24 on eth0 and ping each other (each waits up to 60 s for the
other to answer first). Neither powers off before both have pinged (a
barrier on their consoles). The backend's switch learned both MACs and
counted the frames each way.

Then, step by step, with vhost-user-rdma-ctl on the backend's admin socket
while the guests run (each step a barrier: the host changes the policy
while both guests wait):
- policy: guest 1's device may send only from 10.0.0.1, its MAC pinned
  (ROCE-DEV-POLICY-4..7). Guest 1 still reaches guest 2 from 10.0.0.1; from
  10.0.0.99, an address it added itself, nothing comes back and the device
  counts the spoofed frames; `ip link set eth0 address` fails (virtio_net's
  MAC_ADDR_SET refused) and the device counts the refusal.
- vlan10: both devices on access VLAN 10: they still reach each other
  (ROCE-DEV-POLICY-10, untagged to the guests).
- vlan20: guest 2's device moved to VLAN 20 while it runs: guest 1 reaches
  it no more (ROCE-DEV-POLICY-11, -12).

Usage: scenario3_two_guests.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP.
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]
FOREIGN_IP = '10.0.0.99'
FOREIGN_MAC = '02:00:00:00:99:99'

GUEST_SCRIPT = r'''
. /lib/vur.sh

# vur_no_answer NAME ARGS...: ping ARGS must get no answer
vur_no_answer() {
    _name=$1
    shift
    if ping -c 3 -W 1 "$@" >/dev/null 2>&1; then
        vur_result "$_name" fail "ping $* was answered"
    else
        vur_result "$_name" ok "ping $* got no answer"
    fi
}

vur_net_up @ADDR@/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_ping ping_peer @PEER@ 60
vur_step pinged
vur_step policy
if [ @ROLE@ = 1 ]; then
    vur_ping allowed_source_reaches_peer @PEER@ 10
    ip addr add @FOREIGN_IP@/24 dev eth0
    vur_no_answer foreign_source_dropped -I @FOREIGN_IP@ @PEER@
    ip addr del @FOREIGN_IP@/24 dev eth0
    if ip link set eth0 address @FOREIGN_MAC@ 2>/tmp/mac.err; then
        vur_result pinned_mac_change_refused fail "accepted: $(ip link show eth0)"
    else
        vur_result pinned_mac_change_refused ok "$(cat /tmp/mac.err)"
    fi
fi
vur_step vlan10
[ @ROLE@ = 1 ] && vur_ping same_vlan_reaches_peer @PEER@ 10
vur_step vlan20
[ @ROLE@ = 1 ] && vur_no_answer other_vlan_isolated @PEER@
vur_step done
'''


def step(tap, guests, name, change):
    """Both guests at step @name: apply @change (host side), then let them go on."""
    why = guest.wait_steps(guests, name, 120)
    if why is None:
        try:
            change()
        except (RuntimeError, OSError, ValueError) as e:
            why = f'{type(e).__name__}: {e}'
    tap.case(f'host_step_{name}', why is None, why or '')
    if why is None:
        for g in guests:
            g.send('go\n')
    return why is None


def scenario(tap, qemu, image, sock_dir):
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], prefix='vurq4')
    guests = []
    try:
        for s in socks:
            backend.wait_socket(s)
        addrs = ['10.0.0.1', '10.0.0.2']
        for i in range(2):
            script = (GUEST_SCRIPT.replace('@ADDR@', addrs[i]).replace('@PEER@', addrs[1 - i])
                      .replace('@ROLE@', str(i + 1)).replace('@FOREIGN_IP@', FOREIGN_IP)
                      .replace('@FOREIGN_MAC@', FOREIGN_MAC))
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
            policy(tap, backend, guests, socks)
        for g in guests:
            guest.finish(tap, g, 60)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


def policy(tap, backend, guests, socks):
    """The tenant policy steps (the module's docstring)."""
    admin = backend.admin
    if not step(tap, guests, 'policy',
                lambda: guest.ctl(admin, 'device-addresses', socks[0], '10.0.0.1', '--pin-mac')):
        return
    if not step(tap, guests, 'vlan10',
                lambda: [guest.ctl(admin, 'device-vlan', s, '10') for s in socks]):
        return
    d = guest.device_of(admin, socks[0])
    tap.case('spoofed_frames_counted', d['spoofed_ip_drops'] > 0,
             f'spoofed_ip_drops {d["spoofed_ip_drops"]}')
    tap.case('mac_change_counted', d['refused_macs'] >= 1, f'refused_macs {d["refused_macs"]}')
    if not step(tap, guests, 'vlan20', lambda: guest.ctl(admin, 'device-vlan', socks[1], '20')):
        return
    if not step(tap, guests, 'done', lambda: None):
        return
    d = [guest.device_of(admin, s) for s in socks]
    tap.case('devices_on_their_vlans', [x['vlan'] for x in d] == [10, 20],
             f'vlans {[x["vlan"] for x in d]}')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
