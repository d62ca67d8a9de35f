# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 7: the VM pauses and resumes; the device keeps its state.

The backend has a tap uplink whose host side is 10.0.7.254/24. The guest
(10.0.7.1/24) pings the host, then the VM is paused and resumed through
QMP (stop, cont). QEMU stops the vrings (GET_VRING_BASE) and starts them
again from the indices the backend handed back, without
VHOST_USER_RESET_DEVICE: the backend logs the device stopped and started
and no reset, and the guest's ping works again without the driver doing
anything.

Usage: scenario7_pause.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP. Needs root (net_tap).
"""

import json
import os
import socket
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]

GUEST_SCRIPT = r'''
. /lib/vur.sh

vur_net_up 10.0.7.1/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_ping ping_host_before 10.0.7.254 60
vur_step pause
vur_ping ping_host_after 10.0.7.254 10
'''


class Qmp:
    """QEMU's machine protocol on a unix socket: one command at a time."""

    def __init__(self, path, timeout=30):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        end = time.monotonic() + timeout
        while True:
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)
        self.file = self.sock.makefile('r')
        json.loads(self.file.readline())  # the greeting
        self.execute('qmp_capabilities')

    def execute(self, command):
        self.sock.sendall(json.dumps({'execute': command}).encode() + b'\n')
        while True:
            reply = json.loads(self.file.readline())
            if 'return' in reply:
                return reply['return']
            if 'error' in reply:
                raise RuntimeError(f'{command}: {reply["error"]}')
            # an event ("STOP", "RESUME"): not the answer

    def close(self):
        self.file.close()
        self.sock.close()


def scenario(tap, qemu, image, sock_dir):
    sock = os.path.join(sock_dir, 'vhost-rdma0')
    qmp_path = os.path.join(sock_dir, 'qmp')
    iface = guest.iface_name('s7')
    backend = harness.Backend(BACKEND, '-s', sock, '--no-admin', prefix='vurq8',
                              eal_extra=['--vdev', f'net_tap0,iface={iface}'])
    g = qmp = None
    try:
        guest.wait_ready(backend)
        guest.host_address(iface, '10.0.7.254/24')
        g = guest.Guest(qemu, image, GUEST_SCRIPT, [sock],
                        extra=['-qmp', f'unix:{qmp_path},server=on,wait=off'])
        qmp = Qmp(qmp_path)
        ready = g.wait_step(120) == 'pause'
        tap.case('guest_pinged_before_the_pause', ready, '' if ready else g.output()[-3000:])
        if not ready:
            return
        vid = backend.device(sock)['vid']
        since = len(backend.output())
        t = time.monotonic()
        qmp.execute('stop')
        stopped = guest.wait_log(backend, r'device stopped', 30, since)
        tap.case('pause_stops_the_device', stopped is not None, backend.output()[since:][-3000:])
        tap.diag(f'stopped {time.monotonic() - t:.2f} s after "stop"')
        mark = len(backend.output())
        t = time.monotonic()
        qmp.execute('cont')
        started = guest.wait_log(backend, r'device started', 30, mark)
        tap.case('resume_starts_it_again', started is not None, backend.output()[mark:][-3000:])
        tap.diag(f'started {time.monotonic() - t:.2f} s after "cont"')
        log = backend.output()[since:]
        d = backend.device(sock)
        tap.case('no_reset_same_connection',
                 'device reset' not in log and 'frontend disconnected' not in log
                 and d['vid'] == vid, f'vid {vid} before, {d["vid"]} after\n{log[-2000:]}')
        g.send('go\n')
        guest.finish(tap, g, 90)
    finally:
        if qmp is not None:
            qmp.close()
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend)


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
