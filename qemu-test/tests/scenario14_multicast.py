# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 14: IP multicast between two stock guests through the receive filter.

A stock virtio_net negotiates VIRTIO_NET_F_CTRL_RX: it turns the device's
promiscuous reset state off and lists its groups with
VIRTIO_NET_CTRL_MAC_TABLE_SET; the switch then delivers a multicast frame to
a guest only for a group in its table. One backend serves two sockets (two
devices, no uplink); two TCG guests take 10.0.0.N/24 and fd00::N/64 on eth0:
- they ping each other over IPv4, and over IPv6, whose neighbour
  solicitation goes to the peer's solicited-node group (33:33:ff:..);
- each joins 239.1.30.1 and ff1e::1e01 (tests/mcast.c, a static program);
  the host reads both devices' filters from telemetry (promiscuous and
  all-multicast off, the groups and the guest's solicited-node group in
  the table); then each sends MCAST_COUNT datagrams to both groups, and
  each receiver checks every one (from the peer, its sequence number,
  length and pattern, none twice);
- they run rdma_cm's `mckey -m 239.1.30.1` over Linux rxe (UD multicast
  over RoCE v2, in ordinary IP multicast frames): guest 2 joins (the host
  checks that its table holds the group and rxe's 33:33:ef mapping of it)
  and must receive MCKEY_COUNT messages from guest 1.

mckey's sender posts its sends unsignaled and destroys its QP right after;
Linux 7.x rxe sends from a workqueue and flushes what a destroyed QP has not
sent, so on a one-vCPU guest the messages often never leave it (issue 22:
no frame of them reached the switch). The sender runs niced, so that rxe's
worker preempts it, and again (up to 5 times) while the receiver has not
got its messages; its result shows the runs and rxe's sent_pkts.

Usage: scenario14_multicast.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP.
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]
MCAST_COUNT = 50
MCKEY_COUNT = 10
# ff1e: global scope, so that the sender's source is its fd00:: address (a
# link-local group would take the link-local one); hop limit 1 keeps it here.
GROUP4, GROUP6 = '239.1.30.1', 'ff1e::1e01'
# rxe maps the multicast GID ::ffff:239.1.30.1 as IPv6 does: 33:33 + low 32 bits.
RXE_GROUP_MAC = '33:33:ef:01:1e:01'
# 6.1's rxe needs a crc32 module; 7.x has crc32 built in.
MODULES = ('virtio_pci,virtio_net,' + ('crc32_generic,' if guest.kernel() == 'debian12' else '')
           + 'ib_uverbs,rdma_ucm,rdma_rxe')

GUEST_SCRIPT = r'''
. /lib/vur.sh

vur_net_up @ADDR@/24 || vur_result eth0_up fail "$(ip link show eth0)"
# No duplicate address detection: the address is usable at once.
echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_dad
out=$(ip -6 addr add @ADDR6@/64 dev eth0 2>&1) ||
    vur_result eth0_ipv6 fail "$out: $(ip -6 addr show eth0 | tr '\n' '|')"
vur_ping ping_peer @PEER@ 60
# Neighbour solicitation goes to the peer's solicited-node group.
vur_ping ping6_peer @PEER6@ 30

mcast recv eth0 @GROUP4@ 5001 @PEER@ @COUNT@ 120 >/tmp/r4 2>&1 &
r4=$!
mcast recv eth0 @GROUP6@ 5002 @PEER6@ @COUNT@ 120 >/tmp/r6 2>&1 &
r6=$!
vur_wait_eq 2 10 sh -c 'cat /tmp/r4 /tmp/r6 | grep -c ^joined' ||
    vur_result mcast_join fail "$(cat /tmp/r4 /tmp/r6)"
vur_result mcast_joined ok "$(awk '$2 == "eth0" { printf "%s ", $5 }' /proc/net/dev_mcast)"
# Both guests joined before either sends; the host reads the filters.
vur_step mcast_joined
for g in ipv4:@GROUP4@:5001 ipv6:@GROUP6@:5002; do
    v=${g%%:*} g=${g#*:}
    out=$(mcast send eth0 ${g%:*} ${g##*:} @COUNT@ 20 2>&1)
    vur_result "mcast_${v}_sent" $([ $? = 0 ] && echo ok || echo fail) "$out"
done
for v in 4 6; do
    eval wait \$r$v
    st=$?
    vur_result mcast_ipv${v}_received $([ $st = 0 ] && echo ok || echo fail) "$(tail -n 1 /tmp/r$v)"
done
vur_step mcast_done

if rdma link add rxe0 type rxe netdev eth0; then
    vur_result rxe_link ok "$(rdma link show rxe0/1)"
else
    vur_result rxe_link fail "rdma link add failed"
fi
mk="mckey -m @GROUP4@ -b @ADDR@ -C @MKCOUNT@"
if [ "@ROLE@" = receiver ]; then
    timeout 120 $mk >/tmp/mk.log 2>&1 &
    pid=$!
    # Joined before the sender starts (mckey's output is buffered in a file):
    # rdma_cm's IGMP join, then rxe's attach of the QP to the group.
    vur_wait_eq 1 60 grep -c 01005e011e01 /proc/net/dev_mcast &&
        vur_wait_eq 1 30 grep -c 3333ef011e01 /proc/net/dev_mcast ||
        vur_result mckey_join fail "$(cat /proc/net/dev_mcast | tr '\n' '|')"
    vur_step mckey_joined
    wait $pid
    st=$?
    vur_result mckey_receiver $([ $st = 0 ] && grep -q 'data transfers complete' /tmp/mk.log &&
        echo ok || echo fail) "exit $st: $(tr '\n' '|' </tmp/mk.log)"
else
    vur_step mckey_joined
    # mckey's sender posts its sends unsignaled and destroys the QP at once;
    # Linux 7.x rxe sends from a workqueue, and destroying the QP flushes
    # what it has not sent yet: on a one-vCPU guest often all of it. So it
    # runs niced (rxe's worker preempts it), and again while the host says
    # the receiver still waits for messages ("again"), up to 5 times.
    vur_mckey_send /tmp/mk.log $mk -s
    vur_result mckey_sender $([ $MCKEY_STATUS = 0 ] && [ "$MCKEY_HOST" = done ] && echo ok ||
        echo fail) "$MCKEY_TRIES run(s), host said '$MCKEY_HOST', rxe: $(rdma statistic show \
        link rxe0/1 | grep -o 'sent_pkts [0-9]*'); exit $MCKEY_STATUS: $(tr '\n' '|' </tmp/mk.log)"
fi
vur_step mckey_done
'''


def solicited_node_mac(addr6_last_byte):
    """The MAC of fd00::N's solicited-node group ff02::1:ff00:N."""
    return f'33:33:ff:00:00:{addr6_last_byte:02x}'


def group_macs():
    """The MACs of GROUP4 (01:00:5e + low 23 bits) and GROUP6 (33:33 + low 32)."""
    a = [int(x) for x in GROUP4.split('.')]
    return [f'01:00:5e:{a[1] & 0x7f:02x}:{a[2]:02x}:{a[3]:02x}', '33:33:00:00:1e:01']


def check_filter(d, n, want=None):
    """Whether device info @d shows the stock driver's filter in force with
    @want in its multicast table (default: the groups of this test and the
    solicited-node group of the guest's own address fd00::@n, which the peer
    solicits); why not."""
    macs = [m.lower() for m in d.get('rx_mc_macs', [])]
    want = want or group_macs() + [solicited_node_mac(n)]
    missing = [m for m in want if m not in macs]
    ok = d.get('rx_promisc') == 0 and d.get('rx_allmulti') == 0 and not missing
    return ok, '' if ok else {k: v for k, v in d.items() if k.startswith('rx_') or k.startswith('ctrl_')
                or k == 'eth_drop_rx_filtered'} | {'missing': missing}


def scenario(tap, qemu, image, sock_dir):
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], prefix='vurq14')
    guests = []
    tool = guest.build_tool('mcast.c', sock_dir)
    with open(tool, 'rb') as f:
        files = {'usr/bin/mcast': (0o755, f.read())}
    try:
        for s in socks:
            backend.wait_socket(s)
        addrs = ['10.0.0.1', '10.0.0.2']
        addrs6 = ['fd00::1', 'fd00::2']
        for i, role in enumerate(['sender', 'receiver']):
            script = (GUEST_SCRIPT.replace('@ADDR@', addrs[i]).replace('@PEER@', addrs[1 - i])
                      .replace('@ADDR6@', addrs6[i]).replace('@PEER6@', addrs6[1 - i])
                      .replace('@GROUP4@', GROUP4).replace('@GROUP6@', GROUP6)
                      .replace('@COUNT@', str(MCAST_COUNT))
                      .replace('@MKCOUNT@', str(MCKEY_COUNT))
                      .replace('@ROLE@', role))
            guests.append(guest.Guest(qemu, image, script, [socks[i]], mem_mb=384,
                                      append=f'vur.modules={MODULES}', files=files,
                                      name=f'guest{i + 1}'))
        why = guest.wait_steps(guests, 'mcast_joined', 240)
        tap.case('both_guests_joined', why is None, why or '')
        if why is None:
            for i, s in enumerate(socks):
                ok, detail = check_filter(backend.device(s), i + 1)
                tap.case(f'filter_has_the_groups_{os.path.basename(s)}', ok, detail)
            for g in guests:
                g.send('go\n')
            why = guest.barrier(guests, 180)
            tap.case('both_guests_sent_and_received', why is None, why or '')
        if why is None:
            why = guest.wait_steps(guests, 'mckey_joined', 180)
            if why is None:
                # rdma_cm's IGMP join and rxe's attach put them in the receiver's table
                ok, detail = check_filter(backend.device(socks[1]), 2,
                                          [group_macs()[0], RXE_GROUP_MAC])
                tap.case('filter_has_the_mckey_group', ok, detail)
                for g in guests:
                    g.send('go\n')
                why, at_done = guest.mckey_rounds(guests[0], guests[1])
                why = why or guest.wait_steps(guests[1:] if at_done else guests, 'mckey_done', 180)
                for g in guests:
                    if g.proc.poll() is None:
                        g.send('go\n')
            tap.case('both_guests_ran_mckey', why is None, why or '')
        for g in guests:
            guest.finish(tap, g, 60)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
