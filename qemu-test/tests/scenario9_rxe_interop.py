# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 9: the backend's RDMA engine and Linux soft-RoCE talk RoCE v2.

One backend serves two devices and has a tap uplink (host side 10.0.9.254).
A stock guest on the first device (its virtio_net does not negotiate RoCE)
runs rdma_rxe on eth0; on the host, vur-pingpong drives the second device
(RoCE negotiated, its GID the link-local address of its MAC). They run
rdma-core's ping-pong: the TCP address exchange goes through the tap, the
RDMA traffic through the backend's switch between the two devices. Every
packet rxe sends reaches the engine whole, with its ICRC checked there;
every packet the engine sends to rxe is made whole for it (ICRC computed by
the backend, checked by Linux). RC, UC and UD, each a few iterations with the
data validated on both ends, and RC once more at path MTU 4096 over jumbo
frames.

Usage: scenario9_rxe_interop.py PATH/TO/vhost-user-rdma PATH/TO/vur-pingpong
Builds QEMU and the guest image first. Prints TAP. Needs root (net_tap).
"""

import os
import subprocess
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
PINGPONG = sys.argv[2]
# A subnet of its own: no other scenario's tap routes it.
HOST = '10.0.9.254/24'
# Not the tools' default port, which another test may be using.
PORT = str(20000 + os.getpid() % 10000)
# The devices' MACs (--mac: the first, then +1): the guest's, vur-pingpong's.
MACS = ['02:00:00:00:09:01', '02:00:00:00:09:02']


def link_local(mac):
    """The IPv6 link-local address of @mac (modified EUI-64), as the port's GID."""
    b = [int(x, 16) for x in mac.split(':')]
    eui = [b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]]
    return 'fe80::' + ':'.join(f'{eui[i] << 8 | eui[i + 1]:x}' for i in range(0, 8, 2))
ITERS = 5
MODULES = 'virtio_pci,virtio_net,crc32_generic,ib_uverbs,rdma_rxe'
# (guest tool, vur-pingpong transport, message size, path MTU). The last
# one's 4 KiB packets fit no 2 KiB mbuf: the backend makes them whole for
# rxe in chained mbufs, and takes rxe's in chains from the transmit queue.
RUNS = [('ibv_rc_pingpong', 'rc', 4096, 1024), ('ibv_uc_pingpong', 'uc', 4096, 1024),
        ('ibv_ud_pingpong', 'ud', 1024, 1024), ('ibv_rc_pingpong', 'rc', 16384, 4096)]
# Jumbo frames on both devices and in the guest, for path MTU 4096.
MTU = 9000

GUEST_SCRIPT = r'''
. /lib/vur.sh

ip link set eth0 mtu @MTU@ || vur_result eth0_mtu fail "$(ip link show eth0)"
vur_net_up 10.0.9.1/24 || vur_result eth0_up fail "$(ip link show eth0)"
# RoCE v2 finds a peer's MAC through the IP stack (neighbour discovery, even
# for a link-local GID); vur-pingpong's device has no IP stack to answer it.
# (iproute2's ip by its path: busybox sh prefers its own applet, which cannot.)
/usr/sbin/ip -6 neigh replace @PEER_GID@ lladdr @PEER_MAC@ dev eth0 nud permanent ||
    vur_result peer_neighbour fail "ip -6 neigh replace failed"
vur_ping ping_host 10.0.9.254 60
rdma link add rxe0 type rxe netdev eth0 || vur_result rxe_link fail "rdma link add failed"
gid=$(vur_roce_v2_gid rxe0 fe80:)
vur_expect rxe_has_link_local_roce_v2_gid yes "$([ -n "$gid" ] && echo yes)"
for run in @RUNS@; do
    tool=${run%%:*} mtu=${run##*:} size=${run#*:}
    size=${size%%:*}
    # (ibv_ud_pingpong has no -m: UD packets take the port's MTU)
    mopt=
    [ "$mtu" = 1024 ] || mopt="-m $mtu"
    vur_step "start_$tool"
    vur_pingpong_client "$tool" @ITERS@ \
        $tool -d rxe0 -g "${gid:-0}" -s "$size" $mopt -n @ITERS@ -p @PORT@ -c 10.0.9.254
done
'''


def scenario(tap, qemu, image, sock_dir):
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    iface = guest.iface_name('s9')
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                              '--mac', MACS[0], '--mtu', str(MTU), prefix='vurq9',
                              eal_extra=['--vdev', f'net_tap0,iface={iface}'])
    g = None
    try:
        guest.wait_ready(backend)
        guest.host_address(iface, HOST)
        runs = ' '.join(f'{tool}:{size}:{mtu}' for tool, _, size, mtu in RUNS)
        script = (GUEST_SCRIPT.replace('@RUNS@', runs).replace('@ITERS@', str(ITERS))
                  .replace('@MTU@', str(MTU))
                  .replace('@PORT@', PORT).replace('@PEER_GID@', link_local(MACS[1]))
                  .replace('@PEER_MAC@', MACS[1]))
        g = guest.Guest(qemu, image, script, [socks[0]], mem_mb=384,
                        append=f'vur.modules={MODULES}')
        for tool, transport, size, mtu in RUNS:
            what = g.wait_step(180)
            if what != f'start_{tool}':
                tap.case(f'guest_ready_for_{tool}', False, g.output()[-4000:])
                break
            # The server: the guest's tool connects to it through the tap.
            pp = subprocess.Popen([PINGPONG, '-d', socks[1], '-T', transport, '-s', str(size),
                                   '-m', str(mtu), '-n', str(ITERS), '-p', PORT, '-c'],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                time.sleep(0.5)
                g.send('go\n')
                out, _ = pp.communicate(timeout=120)
            except (subprocess.TimeoutExpired, OSError) as e:
                pp.kill()
                out = f'{e}\n' + pp.communicate()[0]
            ok = pp.returncode == 0 and f'{ITERS} iters in' in out
            name = f'vur_pingpong_{transport}_with_{tool}'
            tap.case(name if mtu == 1024 else f'{name}_mtu{mtu}', ok,
                     f'exit {pp.returncode}\n{out[-3000:]}' + ('' if ok else
                                                              '\n' + g.output()[-3000:]))
        guest.finish(tap, g, 120)
        d = backend.device(socks[1])
        tap.case('rxe_packets_reached_the_engine_whole',
                 d['eth_roce_rx'] > 0 and d['rdma_rx_bad_icrc'] == 0,
                 {k: v for k, v in d.items() if k.startswith(('eth_roce', 'rdma_rx'))})
        d = backend.device(socks[0])
        tap.case('engine_packets_reached_rxe_whole', d['eth_drop_rx_no_mbuf'] == 0,
                 {k: v for k, v in d.items() if k.startswith('eth_')})
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
