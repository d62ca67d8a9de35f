#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The RDMA engine over a wire: goodput of RC WRITE (64 KiB and 1 MiB, 16 WRs
in flight) between two backends joined by their tap uplinks on a bridge in
a private network namespace (guest-driver/virtio-user/tests/wire.py), on a
clean wire and at 1 % and 5 % random loss (nftables), beside the raw frame
rate the same tap pair carries (eth_bench: Ethernet frames from a device of
one backend to a device of the other, through both switches, both taps and
the bridge), and the retransmitted bytes per lost byte: the requester QP's
payload bytes sent (tx_bytes, /vur/qps) less the bytes of the messages
delivered (or its retx_bytes counter where the backend keeps one), over the
bytes of the frames nftables dropped (data and ACKs, whole frames).

It prints figures; it never fails on one. Needs root, /dev/net/tun, nftables.

    bench/wire_bench.py [BUILD_DIR [SECONDS]]

BUILD_DIR defaults to build/ (a release build, made by scripts/build.sh if
absent); SECONDS (default 3) sizes each clean run from a first measure of the
clean wire; the runs at 1 % and 5 % loss take a half and a quarter of those
messages. Each run has a deadline of 90 s.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'guest-driver', 'virtio-user', 'tests'))
import wire  # noqa: E402

SIZES = (64 << 10, 1 << 20)
DEPTH = 16


def parse(out):
    """The client's case line and requester counters: a dict."""
    r = {}
    for ln in out:
        if ln.startswith('case '):
            for k in ('posted', 'completed', 'checked'):
                r[k] = int(re.search(rf' {k}=(\d+)', ln).group(1))
            r['statuses'] = re.search(r'completed=\d+ \[([^\]]*)\]', ln).group(1)
            r['elapsed'] = float(re.search(r'elapsed=([\d.]+)s', ln).group(1))
            r['goodput'] = float(re.search(r'goodput=([\d.]+)MB/s', ln).group(1))
            r['ok'] = 'result=ok' in ln
        elif ln.startswith('qp side=requester'):
            for k in ('tx_bytes', 'retransmits', 'retx_bytes', 'timeouts', 'nak_seq'):
                m = re.search(rf' {k}=(\d+)', ln)
                if m:
                    r[k] = int(m.group(1))
    return r


def one(w, size, count, loss):
    """One WRITE run of @count messages of @size at @loss %: its figures."""
    w.clear_faults()
    if loss:
        w.loss(loss)
    args = ['-o', 'write', '-s', str(size), '-n', str(count), '-q', str(DEPTH), '-D', '90']
    try:
        status, out, srv = w.pair(args, 150)
    except AssertionError as e:
        return {'status': str(e).strip()}
    r = parse(out)
    if status != 0:
        # what went wrong, for the record: the client's verdict, both QPs' counters
        r['detail'] = [ln for ln in out if ln.startswith(('# why', 'qp '))] + \
            [ln for ln in srv if ln.startswith('qp ')]
    r['dropped'] = w.counters('bridge vwloss') if loss else (0, 0)
    r['status'] = status
    return r


def row(cond, size, r):
    if 'posted' not in r:
        return f'| {cond} | {size >> 10} KiB | the run failed: {r["status"]} | | | | |'
    sent = r.get('tx_bytes', 0)
    delivered = r['checked'] * size
    # the backend's own count when it keeps one, else what was sent beyond the messages
    extra = r['retx_bytes'] if 'retx_bytes' in r else max(sent - delivered, 0)
    pk, by = r['dropped']
    ratio = f'{extra / by:.1f}' if by else '-'
    return (f'| {cond} | {size >> 10} KiB | {r["checked"]}/{r["posted"]} '
            f'[{r["statuses"]}] | {r["goodput"]:.1f} MB/s in {r["elapsed"]:.2f} s '
            f'| {r.get("retransmits", 0)} pkts, {extra} B | {pk} frames, {by} B | {ratio} |')


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build')
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    why = wire.missing()
    if why:
        print('wire_bench: ' + why)
        return 0
    if not os.path.exists(os.path.join(build, 'build.ninja')):
        subprocess.run([os.path.join(ROOT, 'scripts', 'build.sh'), 'release'], check=True)
    backend = os.path.join(build, 'backend', 'vhost-user-rdma')
    tool = os.path.join(build, 'guest-driver', 'virtio-user', 'tools', 'vur-wire')
    w = wire.Wire(backend, tool, tag='vwb', log_level='lib.vhost.*:warning')
    try:
        print(f'== raw frames, device of backend a to device of backend b (eth_bench), '
              f'{os.cpu_count()} CPUs')
        r = subprocess.run([os.path.join(build, 'bench', 'eth_bench'), *w.socks, '100000'],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout.strip() or r.stderr.strip())
        print(f'== RC WRITE, {DEPTH} in flight, path MTU 1024, timeout 14, retry 7')
        print('| wire | size | WRs ok/posted [statuses] | goodput | retransmitted (requester) '
              '| dropped (nftables) | retransmitted B per dropped B |')
        print('|---|---|---|---|---|---|---|')
        counts = {}
        details = []
        for size in SIZES:
            # a first run sizes the others to about SECONDS on a clean wire
            r = one(w, size, max(2 * DEPTH, (64 << 20) // size), 0)
            rate = r.get('goodput', 0) * 1e6
            counts[size] = max(2 * DEPTH, int(rate * seconds / size)) if rate else 2 * DEPTH
            counts[size] = min(counts[size], (256 << 20) // size)
        for loss in (0, 1, 5):
            for size in SIZES:
                # fewer messages where each costs more: a quarter at 5 %
                n = max(2 * DEPTH, counts[size] // {0: 1, 1: 2, 5: 4}[loss])
                r = one(w, size, n, loss)
                print(row(f'{loss} % loss' if loss else 'clean', size, r), flush=True)
                details += [f'{loss} % {size >> 10} KiB: {d}' for d in r.get('detail', [])]
        print('(retransmitted: the requester QP\'s retx_bytes, or without that counter its '
              'payload bytes sent less the bytes of messages delivered; dropped: whole frames, '
              'data and ACKs)')
        for d in details:
            print('  ' + d)
        if not w.alive():
            print('a backend died: ' + w.log_tail(0) + '\n' + w.log_tail(1))
    finally:
        w.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
