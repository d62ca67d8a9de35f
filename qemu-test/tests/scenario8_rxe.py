# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 8: two stock guests run Linux soft-RoCE (rdma_rxe) over the device.

Their virtio_net does not negotiate RoCE, so every RoCE v2 frame their rxe
sends is an ordinary UDP 4791 frame for the backend's switch, delivered to
the other guest's receive queue (ROCE-DEV-WIRE-8). One backend serves two
sockets; each guest takes 10.0.0.N/24 on eth0, adds an rxe link on it and
finds the RoCE v2 GID of its IPv4 address; guest 1 runs an
`ibv_rc_pingpong` server, guest 2 the client (4 KiB, a few iterations: TCG
is slow). Both must finish their iterations. The backend's engines must
have taken none of those frames (`eth_roce_rx` 0 on both devices) and
passed them to the receive queues.

Usage: scenario8_rxe.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP.
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]
# bench/guest_verbs.sh asks for more (VUR_PP_ITERS) and for ib_write_bw,
# ib_atomic_bw and ib_atomic_lat (VUR_PP_BW=1).
ITERS = int(os.environ.get('VUR_PP_ITERS', '10'))
BW = os.environ.get('VUR_PP_BW') == '1'
MODULES = 'virtio_pci,virtio_net,crc32_generic,ib_uverbs,rdma_rxe'

GUEST_SCRIPT = r'''
. /lib/vur.sh

vur_net_up @ADDR@/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_ping ping_peer @PEER@ 60
if rdma link add rxe0 type rxe netdev eth0; then
    vur_result rxe_link ok "$(rdma link show rxe0/1)"
else
    vur_result rxe_link fail "rdma link add failed"
fi
gid=$(vur_roce_v2_gid rxe0 "0000:0000:0000:0000:0000:ffff:@GID_V4@")
vur_expect rxe_has_roce_v2_gid yes "$([ -n "$gid" ] && echo yes)"
pp="ibv_rc_pingpong -d rxe0 -g ${gid:-0} -s 4096 -n @ITERS@"
if [ "@ROLE@" = server ]; then
    $pp >/tmp/pp.log 2>&1 &
    pid=$!
    sleep 1 # listening before the client is let go
    vur_step server_listening
    if wait $pid && grep -q '@ITERS@ iters in' /tmp/pp.log; then
        vur_result rc_pingpong_server ok "$(grep iters /tmp/pp.log)"
    else
        vur_result rc_pingpong_server fail "$(tail -n 5 /tmp/pp.log | tr '\n' '|')"
    fi
else
    vur_step server_listening
    vur_pingpong_client rc_pingpong_client @ITERS@ $pp @PEER@
fi
# bw_run NAME TOOL...: a perftest tool between the guests (bench only)
bw_run() {
    _n=$1
    shift
    if [ "@ROLE@" = server ]; then
        "$@" >/tmp/$_n.log 2>&1 &
        _pid=$!
        sleep 1
        vur_step ${_n}_server_listening
        wait $_pid
        vur_result ${_n}_server $([ $? = 0 ] && echo ok || echo fail) "$(tail -n 3 /tmp/$_n.log | tr '\n' '|')"
    else
        vur_step ${_n}_server_listening
        _st=1
        for _try in 1 2 3 4 5; do
            "$@" @PEER@ >/tmp/$_n.log 2>&1 && { _st=0; break; }
            sleep 1
        done
        vur_result ${_n}_client $([ $_st = 0 ] && echo ok || echo fail) "$(tail -n 3 /tmp/$_n.log | tr '\n' '|')"
    fi
}
if [ "@BW@" = 1 ]; then
    bw_run write_bw ib_write_bw -F -d rxe0 -x ${gid:-0} -s 65536 -n 200
    # the reference for the device's atomics (scenario 12 runs the same)
    bw_run atomic_bw ib_atomic_bw -F -d rxe0 -x ${gid:-0} -n 200
    bw_run atomic_lat ib_atomic_lat -F -d rxe0 -x ${gid:-0} -n 100 -A CMP_AND_SWAP
fi
vur_step done
'''


def scenario(tap, qemu, image, sock_dir):
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], prefix='vurq8')
    guests = []
    try:
        for s in socks:
            backend.wait_socket(s)
        addrs = ['10.0.0.1', '10.0.0.2']
        for i, role in enumerate(['server', 'client']):
            v4 = [int(x) for x in addrs[i].split('.')]
            script = (GUEST_SCRIPT.replace('@ADDR@', addrs[i])
                      .replace('@GID_V4@', f'{v4[0]:02x}{v4[1]:02x}:{v4[2]:02x}{v4[3]:02x}')
                      .replace('@PEER@', addrs[1 - i]).replace('@ROLE@', role)
                      .replace('@ITERS@', str(ITERS)).replace('@BW@', '1' if BW else '0'))
            guests.append(guest.Guest(qemu, image, script, [socks[i]], mem_mb=384,
                                      append=f'vur.modules={MODULES}',
                                      name=f'guest{i + 1}'))
        why = guest.barrier(guests, 180) or guest.barrier(guests, 240 + ITERS * 0.2)
        for _ in range(3 if BW else 0):
            why = why or guest.barrier(guests, 600)
        tap.case('both_guests_ran_rc_pingpong', why is None, why or '')
        if why is None:
            for s in socks:
                d = backend.device(s)
                name = os.path.basename(s)
                eth = {k: v for k, v in d.items() if k.startswith('eth_')}
                # 4 KiB messages over a 1024-byte path MTU: 4 frames each way per iteration
                tap.case(f'rxe_frames_reach_the_receive_queue_{name}',
                         d['eth_roce_rx'] == 0 and d['eth_rx_frames'] >= 4 * ITERS, eth)
        for g in guests:
            guest.finish(tap, g, 60)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
