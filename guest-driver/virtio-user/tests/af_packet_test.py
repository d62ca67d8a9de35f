# SPDX-License-Identifier: BSD-3-Clause
"""Two backends joined by a veth pair through net_af_packet uplinks: RC
ping-pong between them without the 10 ms stall of an uplink that has no
receive interrupt.

net_af_packet has no receive interrupt, so nothing wakes a sleeping data
path for its frames: the backend polls such an uplink, every pass while
there is traffic and then on a timer of 50 us doubling to 1 ms (it was a
10 ms epoll timeout: 10 to 12 ms per vur-pingpong iteration). Each backend
runs in a network namespace of its own, as on two hosts (two af_packet
uplinks in one namespace can also collide on their PACKET_FANOUT group),
joined by a veth pair the test makes; the ping-pong's TCP exchange runs on
the first namespace's loopback. Nothing leaves the namespaces, which the
test deletes.

Checked: each backend's log says the uplink is polled and how, and neither
DPDK's "Rx Intr handle unset" nor "receive interrupts" appears for it; the
uplink's telemetry says "polled" and its idle timer polls count up, at most
one per 50 us; the admin RPC says "polled"; vur-pingpong RC between the two
devices (every byte checked; -e: both ends sleep on CQ events, leaving the
two CPUs to the data paths) passes, its frames counted on both uplinks,
with a median of three runs under 5 ms per iteration (a generous bound:
0.35 to 0.8 ms measured on a machine busy with other work, 11 to 12 ms
before).

Usage: af_packet_test.py PATH/TO/vhost-user-rdma PATH/TO/vur-pingpong
Prints TAP. Needs root (network namespaces); runs alone (it times).
"""

import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time

import harness
from harness import case

BACKEND, PINGPONG = sys.argv[1], sys.argv[2]
TAG = f'{os.getpid() % 100000}'
NS = [f'vurafp{TAG}a', f'vurafp{TAG}b']
IFACE = ['va', 'vb']  # the veth ends, one in each namespace
ITERS = 200
BOUND_US = 5000


def ip(*args):
    subprocess.run(['ip', *args], check=True, capture_output=True, text=True)


def make_wire():
    for ns in NS:
        ip('netns', 'add', ns)
    ip('-n', NS[0], 'link', 'add', IFACE[0], 'type', 'veth', 'peer', 'name', IFACE[1],
       'netns', NS[1])
    for ns, dev in zip(NS, IFACE):
        # only the backends' frames on the wire
        subprocess.run(['ip', 'netns', 'exec', ns, 'sysctl', '-q', '-w',
                        f'net.ipv6.conf.{dev}.disable_ipv6=1'], check=True)
        ip('-n', ns, 'link', 'set', dev, 'up')
    ip('-n', NS[0], 'link', 'set', 'lo', 'up')  # the ping-pong's TCP exchange


def remove_wire():
    for ns in NS:
        subprocess.run(['ip', 'netns', 'del', ns], capture_output=True)


def start_backends():
    out = []
    for i, ns in enumerate(NS):
        out.append(harness.Backend(
            BACKEND, prefix=f'vurafp{"ab"[i]}', wrap=('ip', 'netns', 'exec', ns),
            eal_extra=['--vdev', f'net_af_packet0,iface={IFACE[i]}',
                       '--lcores=0@(0-1),1@(0-1)']))
    for b in out:
        b.wait_output('device(s) ready')
    return out


def uplink(b):
    sw = b.telemetry('/vur/switch')['/vur/switch']
    return sw, sw['net_af_packet0']


def rpc(b, method):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(b.admin)
        s.sendall(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': method}).encode() + b'\n')
        buf = b''
        while not buf.endswith(b'\n'):
            chunk = s.recv(65536)
            assert chunk, buf
            buf += chunk
    return json.loads(buf)['result']


def pingpong_us(server_sock, client_sock, state):
    """One vur-pingpong RC run (-c: every byte checked, -e: on CQ events): its
    usec/iter. @state() describes the backends, for a run that hangs."""
    ns = ['ip', 'netns', 'exec', NS[0]]
    args = [PINGPONG, '-n', str(ITERS), '-s', '64', '-c', '-e']
    srv = subprocess.Popen([*ns, *args, '-d', server_sock], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    try:
        assert 'local address' in srv.stdout.readline()  # it listens
        try:
            cli = subprocess.run([*ns, *args, '-d', client_sock, '127.0.0.1'],
                                 capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired as e:
            # what each end and each device had done when it stopped
            srv.kill()
            raise AssertionError(f'client hung; client: {e.stdout!r} {e.stderr!r}; '
                                 f'server: {srv.communicate()[0]!r}; {state()}') from None
        srv_out = srv.communicate(timeout=60)[0]
    finally:
        srv.kill()
        srv.wait()
    assert cli.returncode == 0 and srv.returncode == 0, (cli.stdout, cli.stderr, srv_out)
    m = re.search(r'(\d+) iters in [\d.]+ seconds = ([\d.]+) usec/iter', cli.stdout)
    assert m and int(m.group(1)) == ITERS, cli.stdout
    return float(m.group(2))


def main():
    harness.require(os.geteuid() == 0, 'needs root (network namespaces)')
    harness.require(shutil.which('ip') is not None, 'needs ip (iproute2)')
    backends = []
    try:
        make_wire()
        backends = start_backends()

        @case
        def uplink_said_polled_and_how():
            for b in backends:
                log = b.output()
                assert ('uplink net_af_packet0: no receive interrupt: polled, every pass '
                        'while there is traffic, then every 50 us to 1000 us') in log, log
                assert 'Rx Intr handle unset' not in log, log
                assert 'receive interrupts' not in log, log

        @case
        def idle_uplink_polled_on_the_timer():
            for b in backends:
                sw0, up = uplink(b)
                assert up['receive'] == 'polled', up
                t0 = time.monotonic()
                time.sleep(0.5)
                sw1, _ = uplink(b)
                polls = sw1['uplink_polls'] - sw0['uplink_polls']
                # at most one per 50 us; some, even on a busy machine
                assert 0 < polls <= (time.monotonic() - t0) / 50e-6, (sw0, sw1)
                assert [u['receive'] for u in rpc(b, 'get_uplinks')] == ['polled']

        @case
        def rc_pingpong_over_the_wire_below_5ms():
            def state():
                try:
                    return [(uplink(b), b.device()) for b in backends]
                except Exception as e:  # noqa: BLE001 (a description, whatever fails)
                    return f'backends not readable: {e!r}'

            runs = [pingpong_us(backends[0].sock, backends[1].sock, state) for _ in range(3)]
            for b in backends:
                _, up = uplink(b)
                assert up['rx_frames'] >= 3 * ITERS and up['tx_frames'] >= 3 * ITERS, up
            med = statistics.median(runs)
            print(f'# vur-pingpong over net_af_packet: {runs} usec/iter, median {med}')
            assert med < BOUND_US, runs

        @case
        def backends_stop_cleanly():
            for b in backends:
                assert b.stop() == 0, b.output()[-2000:]
                assert not b.sanitizer_report(), b.sanitizer_report()[-4000:]
    finally:
        for b in backends:
            b.stop()
        remove_wire()
    return harness.report()


if __name__ == '__main__':
    sys.exit(main())
