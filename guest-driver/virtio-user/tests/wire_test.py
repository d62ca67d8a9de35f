# SPDX-License-Identifier: BSD-3-Clause
"""The RDMA engine over a wire: two backends joined by their tap uplinks on
a Linux bridge in a private network namespace (wire.py), vur-wire on each,
RC WRITE, READ and SEND from 4 KiB to 16 MiB with 16 WRs in flight, every
byte checked, the QPs at rdma-core's defaults (timeout 14, retry 7, RNR
retry 7). One TAP case per condition of the wire, each saying how the fault
is made:

  clean             nothing injected
  loss_1pct/5pct    nftables, bridge forward hook, numgen random drop
  duplicate_5pct    nftables, netdev ingress of each tap, numgen random dup
  reorder           the userspace relay of wire.py instead of the bridge:
                    every 4th frame each way sent after the next one
  blackout_200ms    nftables, bridge forward hook: everything dropped for
                    200 ms, 50 ms after the transfer started
  ecn_ce_10pct      nftables, bridge forward hook: 10% of the RoCE frames
                    marked CE (ip/ip6 ecn set ce); every WR completes, the
                    target's engine sent CNPs and the requester took them
  nak_*             the target provokes the error: a bad rkey (REM_ACCESS_ERR)
                    or receives half the SEND's size (REM_INV_REQ_ERR); with
                    the QP's timeout 14 and 0 (no timer: the NAK must end it)
  backends_stop_clean  no backend died on the way, both stop with 0 at the
                    end, no sanitizer report

Each run of vur-wire has a deadline per case and the whole run a bound, so
a hang is a failure, never a stuck test. On a failure the case prints each
backend's log tail and the QPs' counters (vur-wire reads /vur/qps).

Usage: wire_test.py PATH/TO/vhost-user-rdma PATH/TO/vur-wire
Prints TAP. Needs root, /dev/net/tun and nftables (scripts/setup.sh).
"""

import signal
import sys
import time

import harness
import wire

BACKEND, TOOL = sys.argv[1], sys.argv[2]
W = None
DEATHS = []  # what ended a wire's backends before the end of the test


def the_wire():
    """The wire, made again if a backend died in the last condition."""
    global W
    if W is not None and not W.alive():
        codes = [p.returncode for p in W.procs]
        report = W.sanitizer_report()
        DEATHS.append(f'backends exited {codes}\n{report[-4000:]}')
        print(f'# a backend died (exit {codes}): the wire is made again', flush=True)
        W.close()
        W = None
    if W is None:
        W = wire.Wire(BACKEND, TOOL)
    return W


def runs_of(ops, sizes, count, deadline, *extra):
    """One vur-wire run: its arguments and its bound (every case's deadline, and set-up)."""
    n = len(ops.split(',')) * len(sizes.split(','))
    return (['-o', ops, '-s', sizes, '-n', str(count), '-q', '16', '-D', str(deadline),
             *extra], n * (deadline + 8) + 15)


def condition(name, runs, fault=None, on_start=None, report=None, verify=None):
    """One TAP case: @runs of vur-wire under @fault (a function of the wire);
    @verify(client and server lines) says what else is wrong, or None."""
    global W
    t0 = time.monotonic()
    lines = []
    ok = True
    try:
        w = the_wire()
        w.clear_faults()
        if fault:
            lines.append('# fault: ' + fault(w))
        for args, bound in runs:
            notes = []
            status, out, srv = w.pair(
                args, bound, on_start=on_start and (lambda w: notes.append(on_start(w))))
            lines.append('# vur-wire ' + ' '.join(args) + f': exit {status}')
            lines += ['# ' + n for n in notes]
            lines += ['# ' + ln for ln in out if not ln.startswith('start ')]
            # the server ends cleanly too: no sanitizer report, exit 0
            bad_srv = [ln for ln in srv if ln.startswith('# server exit') or
                       any(s in ln for s in harness.SANITIZER_REPORTS)]
            if status == 0 and bad_srv:
                status = 'server: ' + bad_srv[0]
            if status != 0:
                ok = False
                lines += ['# server: ' + ln for ln in srv if not ln.startswith('listening')][-40:]
                for i in range(2):
                    lines.append(f'# backend {"ab"[i]} log tail:')
                    lines += ['#   ' + ln for ln in w.log_tail(i).splitlines()]
            if verify and status == 0:
                why = verify(out + srv)
                if why:
                    ok = False
                    lines.append('# ' + why)
        if report:
            lines.append('# ' + report(w))
    except Exception as e:  # noqa: BLE001 - any failure fails the case
        ok = False
        lines.append(f'# {type(e).__name__}: {e}')
    finally:
        try:
            if W is not None and W.alive():
                W.clear_faults()
        except Exception as e:  # noqa: BLE001 - the next condition makes the wire again
            ok = False
            lines.append(f'# clearing the faults: {type(e).__name__}: {e}')
            W.close()
            W = None
    lines.append(f'# {name}: {time.monotonic() - t0:.1f} s')
    print('\n'.join(lines), flush=True)
    harness.RESULTS.append((ok, name, ''))


def nft_report(table):
    def report(w):
        pk, by = w.counters(table)
        return f'nftables {table}: {pk} frames, {by} bytes'
    return report


def qp_counter(lines, side, name):
    """The sum of counter @name over vur-wire's "qp side=@side" lines."""
    total = 0
    for ln in lines:
        if ln.startswith(f'qp side={side} '):
            for f in ln.split():
                if f.startswith(name + '='):
                    total += int(f.split('=', 1)[1])
    return total


def reacted_to_ce(lines):
    """ROCE-DEV-ECN-2, -3: the target's engine sent CNPs, the requester's took them."""
    sent, got = qp_counter(lines, 'target', 'cnp_sent'), qp_counter(lines, 'requester', 'cnp_rx')
    marks = qp_counter(lines, 'target', 'ecn_ce_rx')
    if sent == 0 or got == 0:
        return f'no congestion notification: CE marks {marks}, CNPs sent {sent}, taken {got}'
    return None


def blackout(w):
    time.sleep(0.05)
    return f'blackout: every frame dropped for {w.blackout(0.2) * 1000:.0f} ms'


def main():
    why = wire.missing()
    harness.require(why is None, why or '')
    all3 = 'write,read,send'
    condition('clean', [runs_of(all3, '4K,64K,1M', 64, 15),
                        runs_of(all3, '16M', 16, 30)])
    condition('loss_1pct', [runs_of(all3, '4K,64K,1M', 32, 15)],
              fault=lambda w: (w.loss(1), 'nftables bridge forward: numgen random mod 100 < 1 '
                               'drop')[1],
              report=nft_report('bridge vwloss'))
    condition('loss_5pct', [runs_of(all3, '4K,64K,1M', 16, 15)],
              fault=lambda w: (w.loss(5), 'nftables bridge forward: numgen random mod 100 < 5 '
                               'drop')[1],
              report=nft_report('bridge vwloss'))
    condition('duplicate_5pct', [runs_of(all3, '4K,64K,1M', 32, 15)],
              fault=lambda w: (w.duplicate(5), 'nftables netdev ingress of each tap: numgen '
                               'random mod 100 < 5 dup to the other tap')[1],
              report=nft_report('netdev vwdup'))
    condition('reorder', [runs_of(all3, '4K,64K,1M', 16, 15)],
              fault=lambda w: (w.start_relay(4), 'the userspace relay (wire.py) instead of the '
                               'bridge: every 4th frame each way sent after the next one')[1],
              report=lambda w: w.stop_relay())
    condition('blackout_200ms', [runs_of('write,read', '64K', 1000, 20)],
              fault=lambda w: 'nftables bridge forward: every frame dropped for 200 ms, 50 ms '
                              'after the transfer starts',
              on_start=blackout)
    condition('ecn_ce_10pct', [runs_of(all3, '64K,1M', 32, 15)],
              fault=lambda w: (w.ecn_mark(10), 'nftables bridge forward: numgen random mod 100 '
                               '< 10 ip/ip6 ecn set ce on UDP 4791')[1],
              report=nft_report('bridge vwecn'), verify=reacted_to_ce)
    for timeout in (14, 0):
        condition(f'nak_write_bad_rkey_timeout{timeout}',
                  [runs_of('write', '1M', 16, 10, '-x', 'rem-access', '-t', str(timeout))])
        condition(f'nak_send_too_long_timeout{timeout}',
                  [runs_of('send', '1M', 16, 10, '-x', 'rem-inv-req', '-t', str(timeout))])
    # The backends end cleanly, without a sanitizer report.
    global W
    ok, why = not DEATHS, '\n'.join(DEATHS)
    if W is not None:
        report = W.sanitizer_report()
        alive = W.alive()
        stopped = W.close()
        W = None
        if report or not alive or any(s != 0 for s in stopped):
            ok = False
            why += f'alive {alive}, exit {stopped}\n{report[-4000:]}'
    harness.RESULTS.append((ok, 'backends_stop_clean', why))
    return harness.report()


if __name__ == '__main__':
    # meson's timeout sends SIGTERM: the namespace goes all the same
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        sys.exit(main())
    finally:
        if W is not None:
            W.close()
