# SPDX-License-Identifier: BSD-3-Clause
"""rdma_bench against the real backend: a short run prints every figure and
exits 0; a run whose QP goes to ERR (the peer device's link taken down
through the admin RPC: its requests are retried until the retry count is
exceeded) exits 1, names the failed WR's status, and prints no figure for
that run. It never checks a figure's value, only that none is negative.

Usage: rdma_bench_test.py PATH/TO/vhost-user-rdma PATH/TO/rdma_bench PATH/TO/vhost-user-rdma-ctl
Prints TAP.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

import harness
from harness import case

BACKEND, BENCH, CTL = sys.argv[1:4]
NUMBER = re.compile(r'-\d')  # a negative figure


def backend():
    d = tempfile.mkdtemp(prefix='vur-')
    socks = [os.path.join(d, f's{i}') for i in range(2)]
    b = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], prefix='vurrb')
    for s in socks:
        b.wait_socket(s)
    b.wait_output('device(s) ready')
    return b, socks


@case
def short_run_prints_every_figure():
    b, socks = backend()
    try:
        r = subprocess.run([BENCH, *socks, '0.05', 'all'], capture_output=True, text=True,
                           timeout=240)
        assert r.returncode == 0, (r.stdout, r.stderr)
        for what in ('WRITE', 'READ', 'SEND', 'message rate', 'SEND round trip    8 B',
                     'SEND round trip 4096 B', 'through an SRQ', 'RC FETCH_AND_ADD',
                     'rings vs virtqueues'):
            assert what in r.stdout, (what, r.stdout)
        assert not NUMBER.search(r.stdout), r.stdout
    finally:
        assert b.stop() == 0
        assert not b.sanitizer_report(), b.sanitizer_report()[-4000:]


@case
def qp_in_err_fails_without_a_figure():
    b, socks = backend()
    try:
        bench = subprocess.Popen([BENCH, *socks, '30', 'rate'], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        time.sleep(1)  # messages flowing
        r = subprocess.run([CTL, '-s', b.admin, 'device-link', socks[1], 'down'],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r
        out, err = bench.communicate(timeout=60)
        assert bench.returncode == 1, (bench.returncode, out, err)
        assert 'rdma_bench: 64 B SEND message rate: WR ' in err, err
        assert 'failed: status transport retry counter exceeded (10)' in err, err
        assert re.search(r'QP \d+ on the first device ERR', err) and 'no figure' in err, err
        assert 'messages/s' not in out and not NUMBER.search(out), out
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        assert b.stop() == 0
        assert not b.sanitizer_report(), b.sanitizer_report()[-4000:]


if __name__ == '__main__':
    sys.exit(harness.report())
