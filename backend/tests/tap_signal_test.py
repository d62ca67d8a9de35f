# SPDX-License-Identifier: BSD-3-Clause
"""A frame on a net_tap uplink reaches the sleeping data path at once, even
when the thread the kernel would give net_tap's receive signal to cannot run.

net_tap reads its queue only after its receive signal's handler has run.
The backend aims that signal at its data-path thread; otherwise the kernel
gives it to the main thread, and a data path woken by the queue's interrupt
before that handler ran reads nothing and sleeps on the frame until the
next wake-up. Here the main thread is made unable to run (SCHED_IDLE,
pinned to CPU 0, which a busy process owns meanwhile); the data path runs
on CPU 1. Each frame sent into the tap must be counted on the uplink
within a second. The host side of the tap sends nothing of its own (IPv6
off), so no other frame can wake the data path.

Usage: tap_signal_test.py PATH/TO/vhost-user-rdma
Prints TAP. Needs root, /dev/net/tun and two CPUs; runs alone (it owns
CPU 0 for a few seconds).
"""

import glob
import multiprocessing
import os
import socket
import subprocess
import sys
import time

import harness

BACKEND = sys.argv[1]
IFACE = f'vus{os.getpid() % 100000}'
FRAMES = 8


def hog(parent):
    """Keep CPU 0 busy; ends with the test, even if the test is killed."""
    os.sched_setaffinity(0, {0})
    while os.getppid() == parent:
        pass


def thread_named(pid, comm):
    for path in glob.glob(f'/proc/{pid}/task/*/comm'):
        with open(path) as f:
            if f.read().strip() == comm:
                return int(path.split('/')[-2])
    raise RuntimeError(f'no thread {comm} in {pid}')


def rx_frames(b):
    return b.telemetry('/vur/switch')['/vur/switch']['net_tap0']['rx_frames']


def wait_ready(b):
    """The main thread has finished starting (telemetry registered)."""
    end = time.monotonic() + 20
    while 'device(s) ready' not in b.output():
        assert time.monotonic() < end, b.output()[-2000:]
        time.sleep(0.05)


def frames_reach_the_data_path_while_main_thread_starves():
    b = harness.Backend(BACKEND, '--no-admin', prefix='vursig',
                        eal_extra=['--vdev', f'net_tap0,iface={IFACE}'])
    busy = None
    try:
        wait_ready(b)
        subprocess.run(['sysctl', '-q', '-w', f'net.ipv6.conf.{IFACE}.disable_ipv6=1'],
                       check=True)
        subprocess.run(['ip', 'link', 'set', IFACE, 'up'], check=True)
        main_tid, dp_tid = b.proc.pid, thread_named(b.proc.pid, 'vur-net')
        os.sched_setaffinity(dp_tid, {1})
        os.sched_setaffinity(main_tid, {0})
        os.sched_setscheduler(main_tid, os.SCHED_IDLE, os.sched_param(0))
        busy = multiprocessing.Process(target=hog, args=(os.getpid(),), daemon=True)
        busy.start()
        time.sleep(0.5)  # the data path has gone to sleep
        late = []
        with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
            s.bind((IFACE, 0))
            for i in range(FRAMES):
                before = rx_frames(b)
                s.send(b'\xff' * 6 + b'\x02\0\0\0\0\x01' + b'\x88\xb5' + bytes(50))
                t = time.monotonic()
                while rx_frames(b) == before and time.monotonic() - t < 1:
                    time.sleep(0.005)
                if rx_frames(b) == before:
                    late.append(i)
                time.sleep(0.3)  # asleep again
        assert not late, f'frames {late} of {FRAMES} not read within 1 s'
        log = b.output()
        assert 'net_tap0: receive signal aimed at the data path' in log, log[-2000:]
    finally:
        if busy is not None:
            busy.kill()
            busy.join()
        rc = b.stop()
    assert rc == 0, f'backend exited {rc}'
    # The tap's receive interrupt leaves the data path's epoll before it closes.
    assert 'epoll_ctl' not in b.output(), b.output()[-2000:]
    assert not b.sanitizer_report(), b.sanitizer_report()[-3000:]


if __name__ == '__main__':
    harness.require(os.geteuid() == 0 and os.path.exists('/dev/net/tun')
                    and os.cpu_count() >= 2, 'needs root, /dev/net/tun and two CPUs')
    harness.case(frames_reach_the_data_path_while_main_thread_starves)
    sys.exit(harness.report())
