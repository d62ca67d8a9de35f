# SPDX-License-Identifier: BSD-3-Clause
"""A two-host wire for the RDMA engine: two backends on one machine whose
net_tap uplinks meet on a Linux bridge, all inside a network namespace this
module creates and removes (with everything in it), and vur-wire run on
both sides. Faults on the wire:

- loss: nftables, bridge family, forward hook: `numgen random mod 100 < N drop`;
- duplication: nftables, netdev family, ingress hook of each tap:
  `numgen random mod 100 < N dup to <the other tap>` (the copy goes straight
  out of the other tap, the original through the bridge after it);
- a blackout: nftables, bridge forward hook, a rule dropping everything,
  added and removed again some time after the client starts a case;
- reordering: the taps leave the bridge and a userspace relay (this file,
  `wire.py relay TAP_A TAP_B`) joins them with AF_PACKET sockets: it holds
  every 4th frame and sends it after the next one (or after 2 ms if none
  comes), in each direction.

Used by wire_test.py (the `wire` suite), bench/wire_bench.py and qemu-test's
scenario 15 (a guest's Linux rxe on one side). Needs root, /dev/net/tun,
iproute2 and nftables.
"""

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', '..', 'backend', 'tests'))
import harness  # noqa: E402 - backend/tests, beside the other integration tests

MAC_A = '02:76:77:00:00:0a'
MAC_B = '02:76:77:00:00:0b'
# EAL: no hugepages, no PCI, one data-path thread; main and worker float over the CPUs.
EAL = ['--no-huge', '-m', '512', '--no-pci', '--lcores', '0@(0-1),1@(0-1)',
       '--log-level', 'lib.eal:error']
STEP_TIMEOUT = 30  # any single command of the set-up or tear-down


def run(*cmd, timeout=STEP_TIMEOUT, check=True, inp=None):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=inp)
    if check and r.returncode != 0:
        raise AssertionError(f'{" ".join(cmd)}: exit {r.returncode}: {r.stderr.strip()}')
    return r


def missing():
    """What this machine lacks for the wire, or None."""
    if os.getuid() != 0:
        return 'needs root (network namespace, taps, nftables)'
    if not os.path.exists('/dev/net/tun'):
        return 'no /dev/net/tun'
    for tool in ('ip', 'nft'):
        if shutil.which(tool) is None:
            return f'no {tool} (scripts/setup.sh installs iproute2 and nftables)'
    return None


class Wire:
    """The namespace, its bridge, two backends and their taps. @macs: the
    devices' MACs, backend a's then b's."""

    def __init__(self, backend, tool, tag='vw', log_level=None, macs=(MAC_A, MAC_B)):
        pid = os.getpid() % 100000
        self.ns = f'{tag}{pid}'
        self.taps = (f'{tag}{pid}a', f'{tag}{pid}b')
        self.prefixes = (f'{tag}{pid}a', f'{tag}{pid}b')
        self.dir = tempfile.mkdtemp(prefix='vur-wire-')
        self.socks = (os.path.join(self.dir, 'a.sock'), os.path.join(self.dir, 'b.sock'))
        self.tool = tool
        self.procs = []
        self.logs = []
        self.port = 18600 + pid % 1000
        self.relay = None
        self.bridged = False
        try:
            run('ip', 'netns', 'add', self.ns)
            self.ip('link', 'set', 'lo', 'up')
            self.ip('link', 'add', 'br0', 'type', 'bridge', 'stp_state', '0', 'forward_delay', '0')
            self.ip('link', 'set', 'br0', 'up')
            for i, mac in enumerate(macs):
                log = open(os.path.join(self.dir, f'backend-{"ab"[i]}.log'), 'a+')
                args = ['ip', 'netns', 'exec', self.ns, backend, *EAL,
                        '--file-prefix', self.prefixes[i],
                        '--vdev', f'net_tap0,iface={self.taps[i]}', '--',
                        '-s', self.socks[i], '--mac', mac, '--no-admin', '--uplink', 'net_tap0']
                if log_level:
                    args[5:5] = ['--log-level', log_level]
                self.logs.append(log)
                self.procs.append(subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                                   preexec_fn=harness.die_with_parent))
            for i in range(2):
                self.wait_file(self.socks[i], i)
                self.wait_link(self.taps[i], i)
            self.bridge()
        except BaseException:
            self.close()
            raise

    # ---- set-up ----

    def ip(self, *args, check=True):
        return run('ip', '-n', self.ns, *args, check=check)

    def nsexec(self, *args, check=True, timeout=STEP_TIMEOUT, inp=None):
        return run('ip', 'netns', 'exec', self.ns, *args, check=check, timeout=timeout, inp=inp)

    def wait_file(self, path, i, timeout=30):
        end = time.monotonic() + timeout
        while not os.path.exists(path):
            if self.procs[i].poll() is not None:
                raise AssertionError(f'backend {"ab"[i]} exited {self.procs[i].returncode}: '
                                     + self.log_tail(i))
            if time.monotonic() > end:
                raise AssertionError(f'backend {"ab"[i]}: no socket: ' + self.log_tail(i))
            time.sleep(0.05)

    def wait_link(self, name, i, timeout=30):
        end = time.monotonic() + timeout
        while self.ip('link', 'show', name, check=False).returncode != 0:
            if time.monotonic() > end:
                raise AssertionError(f'no tap {name}: ' + self.log_tail(i))
            time.sleep(0.05)

    def bridge(self):
        for t in self.taps:
            self.ip('link', 'set', t, 'master', 'br0')
            self.ip('link', 'set', t, 'up')
        self.bridged = True

    def address(self, cidr):
        """Give the bridge itself @cidr: the namespace becomes a host on the wire
        (for a TCP exchange with a guest behind backend a, say). What the
        bridge delivers to itself passes no forward hook: no fault touches it."""
        self.ip('addr', 'add', cidr, 'dev', 'br0')

    def unbridge(self):
        for t in self.taps:
            self.ip('link', 'set', t, 'nomaster')
            self.ip('link', 'set', t, 'up')
        self.bridged = False

    def log_tail(self, i, lines=25):
        log = self.logs[i]
        log.flush()
        log.seek(0)
        text = [ln for ln in log.read().splitlines()
                if not ln.startswith('VHOST_CONFIG')]
        return '\n'.join(text[-lines:])

    def telemetry(self, i, command):
        """One DPDK telemetry command to backend @i (0: a, 1: b)."""
        return harness.telemetry(self.prefixes[i], command)

    def sanitizer_report(self):
        out = ''
        for log in self.logs:
            log.flush()
            log.seek(0)
            text = log.read()
            if any(s in text for s in harness.SANITIZER_REPORTS):
                out += text
        return out

    def alive(self):
        return all(p.poll() is None for p in self.procs)

    def stop_backends(self):
        """SIGTERM to both backends; their exit statuses ('killed' when one
        had to be killed after 20 s). Their logs stay readable until close()."""
        stopped = []
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                stopped.append(p.wait(20))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                stopped.append('killed')
        return stopped

    def close(self):
        """Everything down: relay, backends, namespace, files; never raises."""
        self.stop_relay()
        stopped = self.stop_backends()
        run('ip', 'netns', 'del', self.ns, check=False)
        for prefix in self.prefixes:
            harness.remove_runtime_dir(prefix)
        for log in self.logs:
            log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return stopped

    # ---- faults ----

    def nft(self, script):
        return self.nsexec('nft', '-f', '-', inp=script)

    def loss(self, pct, match=''):
        """Drop @pct % of the frames the bridge forwards, each way, at random;
        of those @match selects (an nftables expression, e.g. 'udp dport
        4791') if given."""
        self.nft('table bridge vwloss {\n'
                 ' chain fw { type filter hook forward priority 0; policy accept;\n'
                 f'  {match} numgen random mod 100 < {pct} counter drop\n'
                 ' }\n}\n')

    def count(self, match):
        """Count the frames @match selects that the bridge forwards, before any
        fault (table bridge vwcount, for counters())."""
        self.nft('table bridge vwcount {\n'
                 ' chain fw { type filter hook forward priority -20; policy accept;\n'
                 f'  {match} counter\n'
                 ' }\n}\n')

    def ecn_mark(self, pct):
        """Mark @pct % of the RoCE frames the bridge forwards CE (congestion experienced)."""
        self.nft('table bridge vwecn {\n'
                 ' chain fw { type filter hook forward priority 0; policy accept;\n'
                 f'  ether type ip udp dport 4791 numgen random mod 100 < {pct} ip ecn set ce '
                 'counter\n'
                 f'  ether type ip6 udp dport 4791 numgen random mod 100 < {pct} ip6 ecn set ce '
                 'counter\n'
                 ' }\n}\n')

    def duplicate(self, pct):
        """Send @pct % of each tap's frames twice: a copy straight out of the other tap."""
        a, b = self.taps
        self.nft('table netdev vwdup {\n'
                 f' chain ina {{ type filter hook ingress device "{a}" priority 0;\n'
                 f'  numgen random mod 100 < {pct} counter dup to "{b}"\n }}\n'
                 f' chain inb {{ type filter hook ingress device "{b}" priority 0;\n'
                 f'  numgen random mod 100 < {pct} counter dup to "{a}"\n }}\n'
                 '}\n')

    def blackout(self, seconds):
        """Drop every frame the bridge forwards for @seconds; the time it really lasted."""
        self.nft('table bridge vwblack {\n'
                 ' chain fw { type filter hook forward priority -10; policy accept;\n'
                 '  counter drop\n }\n}\n')
        t0 = time.monotonic()
        time.sleep(seconds)
        self.nsexec('nft', 'delete', 'table', 'bridge', 'vwblack')
        return time.monotonic() - t0

    def counters(self, table):
        """(packets, bytes) summed over the counters of nftables table @table."""
        r = self.nsexec('nft', 'list', 'table', *table.split(), check=False)
        pk = by = 0
        for m in re.finditer(r'counter packets (\d+) bytes (\d+)', r.stdout):
            pk += int(m.group(1))
            by += int(m.group(2))
        return pk, by

    def clear_faults(self):
        for table in ('bridge vwloss', 'netdev vwdup', 'bridge vwblack', 'bridge vwecn',
                      'bridge vwcount'):
            self.nsexec('nft', 'delete', 'table', *table.split(), check=False)
        self.stop_relay()
        if not self.bridged:
            self.bridge()

    def start_relay(self, every=4):
        """The taps off the bridge, joined by the reordering relay instead."""
        self.unbridge()
        self.relay_out = open(os.path.join(self.dir, 'relay.log'), 'w+')
        self.relay = subprocess.Popen(
            ['ip', 'netns', 'exec', self.ns, sys.executable, os.path.abspath(__file__),
             'relay', self.taps[0], self.taps[1], str(every)],
            stdout=self.relay_out, stderr=subprocess.STDOUT, preexec_fn=harness.die_with_parent)
        time.sleep(0.3)
        if self.relay.poll() is not None:
            raise AssertionError('the relay exited: ' + self.relay_report())

    def relay_report(self):
        self.relay_out.flush()
        self.relay_out.seek(0)
        return self.relay_out.read().strip()

    def stop_relay(self):
        if self.relay is None:
            return ''
        if self.relay.poll() is None:
            self.relay.send_signal(signal.SIGTERM)
            try:
                self.relay.wait(10)
            except subprocess.TimeoutExpired:
                self.relay.kill()
                self.relay.wait()
        out = self.relay_report()
        self.relay_out.close()
        self.relay = None
        return out

    # ---- vur-wire on both sides ----

    def pair(self, args, timeout, on_start=None, telemetry=True):
        """Run the server on backend b and the client on backend a with @args.

        @on_start(wire) runs in this thread once the client printed its first
        "start" line. The whole run is bounded by @timeout seconds. Returns
        (exit status of the client or None if killed, client output, server
        output); the server's exit status is its output's last line when it is
        not 0 ("# server exit N")."""
        self.port += 1
        port = str(self.port)
        srv_out = tempfile.TemporaryFile('w+')
        tele = lambda i: ['-T', self.prefixes[i]] if telemetry else []  # noqa: E731
        srv = subprocess.Popen(['ip', 'netns', 'exec', self.ns, self.tool, '-d', self.socks[1],
                                '-p', port, *tele(1), '-M', '320'],
                               stdout=srv_out, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=harness.die_with_parent)
        cli = None
        out = []
        status = None
        end = time.monotonic() + timeout
        try:
            while True:
                srv_out.flush()
                srv_out.seek(0)
                if 'listening' in srv_out.read():
                    break
                if srv.poll() is not None or time.monotonic() > end:
                    srv_out.seek(0)
                    raise AssertionError('the server never listened: ' + srv_out.read())
                time.sleep(0.05)
            cli = subprocess.Popen(['ip', 'netns', 'exec', self.ns, self.tool, '-d',
                                    self.socks[0], '-p', port, *tele(0), *args, '127.0.0.1'],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   preexec_fn=harness.die_with_parent)
            os.set_blocking(cli.stdout.fileno(), False)
            buf = ''
            started = False
            while True:
                left = end - time.monotonic()
                if left <= 0:
                    out.append('# the run passed its bound of %d s: killed' % timeout)
                    break
                r, _, _ = select.select([cli.stdout], [], [], min(left, 0.5))
                if r:
                    chunk = cli.stdout.read()
                    if not chunk:
                        status = cli.wait(10)
                        break
                    buf += chunk
                    while '\n' in buf:
                        line, buf = buf.split('\n', 1)
                        out.append(line)
                        if line.startswith('start ') and not started and on_start:
                            started = True
                            on_start(self)
        finally:
            if cli is not None and cli.poll() is None:
                cli.kill()
                cli.wait()
            try:
                # after BYE, or the client's end, the server ends by itself
                srv_status = srv.wait(5)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv_status = srv.wait()
            if cli is not None:
                cli.stdout.close()
            srv_out.seek(0)
            srv_text = srv_out.read().splitlines()
            srv_out.close()
        if srv_status != 0:
            srv_text.append(f'# server exit {srv_status}')
        return status, out, srv_text


def relay(tap_a, tap_b, every):
    """Frames between @tap_a and @tap_b, every @every-th of each direction held
    back and sent after the next one of that direction (or after HOLD_S)."""
    hold_s = 0.002
    socks = []
    for name in (tap_a, tap_b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind((name, 0x0003))
        s.setblocking(False)
        socks.append(s)
    other = {socks[0]: socks[1], socks[1]: socks[0]}
    seen = {socks[0]: 0, socks[1]: 0}
    held = {socks[0]: None, socks[1]: None}
    stats = {'frames': 0, 'reordered': 0, 'flushed': 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    def out(dst, frame):
        try:
            dst.send(frame)
        except OSError:
            pass  # a full tap queue drops, as a wire would

    while not stop:
        timeout = hold_s if any(held[s] for s in socks) else 0.2
        try:
            r, _, _ = select.select(socks, [], [], timeout)
        except InterruptedError:
            continue
        now = time.monotonic()
        for s in socks:
            h = held[s]
            if h is not None and now - h[1] >= hold_s:
                out(other[s], h[0])
                held[s] = None
                stats['flushed'] += 1
        for s in r:
            for _ in range(64):
                try:
                    frame, addr = s.recvfrom(65536)
                except BlockingIOError:
                    break
                if addr[2] == socket.PACKET_OUTGOING:
                    continue  # what this relay sent on this tap
                stats['frames'] += 1
                seen[s] += 1
                if held[s] is None and seen[s] % every == 0:
                    held[s] = (frame, time.monotonic())
                    continue
                out(other[s], frame)
                if held[s] is not None:
                    out(other[s], held[s][0])
                    held[s] = None
                    stats['reordered'] += 1
    print('relay: %(frames)d frames, %(reordered)d sent after the next one, '
          '%(flushed)d sent late without a next one' % stats, flush=True)


if __name__ == '__main__' and len(sys.argv) == 5 and sys.argv[1] == 'relay':
    relay(sys.argv[2], sys.argv[3], int(sys.argv[4]))
