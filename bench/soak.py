#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The soak run (issue 26; not in CI): mixed traffic for hours against one
backend, with frontends killed and reconnected and uplinks flapped, watching
for what grows.

    bench/soak.py [--duration SECONDS] [--interval SECONDS] [--build DIR] [--seed N]

The backend (DIR/backend/vhost-user-rdma, default build/) serves ten devices
and two net_tap uplinks with nominal speeds (root: the taps are made for the
run and go with it; nothing is configured on their kernel side). Five flows run on five pairs of
devices, each a fresh pair of frontends per run (so every run connects,
creates its PD, CQ, QP and MR, and frees them when it ends or is killed):
RC, UC and UD ping-pongs with every received buffer checked (vur-pingpong
-c, rdma-core's ibv_*_pingpong), a second RC ping-pong of other sizes, and
Ethernet frames both ways with every byte checked (soak_eth). A run has a
random length and message size. At random a flow's frontends are killed
(SIGKILL, one side first) and the flow starts again; every 10 to 40 s one
uplink member goes down or up through the admin RPC (set_member_link).

Every --interval (default 60 s) it prints the backend's RSS, open fds and
threads, the RDMA objects its devices hold (telemetry /vur/device: PDs,
MRs, CQs, QPs), control-command errors, and per flow the runs that ended
well, were killed and failed. It fails (exit 1) when a run that was not
killed fails (a wrong byte, a WR in error, a timeout), when the backend dies,
or at the end when something grew: after the flows stop and their frontends
are gone every device must hold no RDMA object and the fds must be back to
what they were before the first run; RSS in the second half of the samples
may exceed the first half's peak by at most 10% + 16 MiB.
Default duration: two hours.
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

N_FLOWS = 5
MEMBERS = ('net_tap0', 'net_tap1')


def now():
    return time.monotonic()


def listening(port):
    """Whether a TCP socket of this machine listens on @port."""
    for name in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == '0A' and int(fields[1].rsplit(':', 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


class Backend:
    def __init__(self, build, n_devs):
        self.dir = tempfile.mkdtemp(prefix='vur-soak-')
        self.socks = [os.path.join(self.dir, f'd{i}') for i in range(n_devs)]
        self.admin = os.path.join(self.dir, 'admin.sock')
        self.prefix = f'vursoak{os.getpid()}'
        # two tap uplinks (their kernel ends unconfigured: nothing is routed through them),
        # named for this run; they can be set down and up, which net_null cannot
        taps = [f'vs{os.getpid() % 100000}{c}' for c in 'ab']
        args = [os.path.join(build, 'backend', 'vhost-user-rdma'), '--no-huge', '-m', '1024',
                '--no-pci', '--file-prefix', self.prefix, '--log-level', 'lib.eal:error',
                '--log-level', 'pmd.net.tap:error',
                '--vdev', f'net_tap0,iface={taps[0]}', '--vdev', f'net_tap1,iface={taps[1]}',
                '--']
        for s in self.socks:
            args += ['-s', s]
        args += ['--member-speed', 'net_tap0=25000', '--member-speed', 'net_tap1=25000',
                 '--admin-socket', self.admin]
        self.log = open(os.path.join(self.dir, 'backend.log'), 'w')
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        end = now() + 30
        while not all(os.path.exists(p) for p in self.socks + [self.admin]):
            if self.proc.poll() is not None or now() > end:
                raise SystemExit(f'soak: the backend did not start; see {self.log.name}')
            time.sleep(0.1)

    def rpc(self, method, params):
        req = {'jsonrpc': '2.0', 'method': method, 'params': params, 'id': 1}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(self.admin)
            s.sendall(json.dumps(req).encode())
            buf = b''
            while True:
                buf += s.recv(65536)
                try:
                    return json.loads(buf)
                except ValueError:
                    continue

    def telemetry(self, cmd):
        rd = os.environ.get('XDG_RUNTIME_DIR', '/tmp') if os.getuid() else '/var/run'
        path = os.path.join(rd, 'dpdk', self.prefix, 'dpdk_telemetry.v2')
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.settimeout(10)
            s.connect(path)
            s.recv(16384)
            s.send(cmd.encode())
            return json.loads(s.recv(1 << 20).decode())

    def proc_stat(self):
        pid = self.proc.pid
        rss = threads = 0
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    rss = int(line.split()[1])
                elif line.startswith('Threads:'):
                    threads = int(line.split()[1])
        return rss, len(os.listdir(f'/proc/{pid}/fd')), threads

    def connected(self, sock):
        """Whether the backend still serves a frontend on @sock."""
        return self.telemetry('/vur/device,' + sock)['/vur/device'].get('vid', -1) >= 0

    def objects(self):
        tot = {'pds': 0, 'mrs': 0, 'cqs': 0, 'qps': 0, 'ctrl_errors': 0}
        for s in self.socks:
            d = self.telemetry('/vur/device,' + s)['/vur/device']
            for k in tot:
                tot[k] += d.get(k, 0)
        return tot

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        rd = os.environ.get('XDG_RUNTIME_DIR', '/tmp') if os.getuid() else '/var/run'
        shutil.rmtree(os.path.join(rd, 'dpdk', self.prefix), ignore_errors=True)


class Flow:
    """One kind of traffic on a pair of devices; one run at a time."""

    def __init__(self, name, kind, a, b, port, tools, rng, logdir, be):
        self.name, self.kind, self.a, self.b, self.port = name, kind, a, b, port
        self.be = be
        self.idle_since = None
        self.tools, self.rng, self.logdir = tools, rng, logdir
        self.procs = []
        self.killed = False
        self.ok = self.kills = self.failed = 0
        self.run_no = 0

    def start(self):
        self.run_no += 1
        self.killed = False
        log = open(os.path.join(self.logdir, f'{self.name}.log'), 'w')
        if self.kind == 'eth':
            frames = self.rng.randint(200, 3000)
            self.procs = [subprocess.Popen(
                [self.tools['soak_eth'], self.a, self.b, str(frames), str(self.run_no)],
                stdout=log, stderr=subprocess.STDOUT)]
            return
        size = {'ud': self.rng.choice((64, 512, 1000)),
                'rc': self.rng.choice((64, 4096, 65536)),
                'uc': self.rng.choice((64, 1024, 4096)),
                'rc2': self.rng.choice((1, 300, 20000))}[self.kind]
        iters = self.rng.randint(100, 3000)
        transport = 'rc' if self.kind == 'rc2' else self.kind
        common = ['-T', transport, '-c', '-n', str(iters), '-s', str(size), '-r', '64',
                  '-p', str(self.port)]
        pp = self.tools['vur-pingpong']
        server = subprocess.Popen([pp, '-d', self.a] + common, stdout=log,
                                  stderr=subprocess.STDOUT)
        # The client goes once the server listens (it does not retry): with
        # ten busy-polling frontends on two cores the server's device and QP
        # setup took more than the 0.3 s pause this once was.
        end = now() + 30
        while not listening(self.port) and server.poll() is None and now() < end:
            time.sleep(0.05)
        client = subprocess.Popen([pp, '-d', self.b] + common + ['127.0.0.1'], stdout=log,
                                  stderr=subprocess.STDOUT)
        self.procs = [server, client]

    def kill(self):
        """The frontends die as a crashed guest's would: one side, then the other."""
        self.killed = True
        self.kills += 1
        for p in self.rng.sample(self.procs, len(self.procs)):
            if p.poll() is None:
                p.kill()
            time.sleep(self.rng.random() * 0.2)

    def poll(self, deadline_s=600):
        """Start the next run when this one is over; False when it failed."""
        if not self.procs:
            # A device serves one frontend: the next run's would be refused
            # while the backend has not yet seen the last one's socket close
            # (a killed run's, just now). Wait for that, 10 s at most: a
            # frontend the backend never lets go of then fails the run.
            if self.idle_since is None:
                self.idle_since = now()
            if now() - self.idle_since < 10 and any(self.be.connected(d)
                                                    for d in (self.a, self.b)):
                return True
            self.idle_since = None
            self.started = now()
            self.start()
            return True
        if any(p.poll() is None for p in self.procs):
            if now() - self.started > deadline_s:  # a hang is a failure
                self.kill()
                self.kills -= 1
                self.killed = False
            else:
                return True
        for p in self.procs:
            p.wait()
        good = self.killed or all(p.returncode == 0 for p in self.procs)
        if self.killed:
            pass
        elif good:
            self.ok += 1
        else:
            self.failed += 1
            shutil.copy(os.path.join(self.logdir, f'{self.name}.log'),
                        os.path.join(self.logdir, f'{self.name}-failed-{self.run_no}.log'))
        self.procs = []
        return good

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        self.procs = []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--duration', type=float, default=7200)
    ap.add_argument('--interval', type=float, default=60)
    ap.add_argument('--build', default='build')
    ap.add_argument('--seed', type=int, default=int(time.time()))
    ap.add_argument('--kill-every', type=float, default=45,
                    help='mean seconds between kills of one flow (default 45)')
    o = ap.parse_args()
    rng = random.Random(o.seed)
    tools = {'vur-pingpong': os.path.join(o.build, 'guest-driver', 'virtio-user', 'tools',
                                          'vur-pingpong'),
             'soak_eth': os.path.join(o.build, 'bench', 'soak_eth')}
    for t in tools.values():
        if not os.access(t, os.X_OK):
            raise SystemExit(f'soak: {t} missing (scripts/build.sh release)')
    be = Backend(o.build, 2 * N_FLOWS)
    s = be.socks
    flows = [Flow('rc', 'rc', s[0], s[1], 18601, tools, rng, be.dir, be),
             Flow('uc', 'uc', s[2], s[3], 18602, tools, rng, be.dir, be),
             Flow('ud', 'ud', s[4], s[5], 18603, tools, rng, be.dir, be),
             Flow('rc2', 'rc2', s[6], s[7], 18604, tools, rng, be.dir, be),
             Flow('eth', 'eth', s[8], s[9], 0, tools, rng, be.dir, be)]
    print(f'soak: seed {o.seed}, {o.duration:.0f} s, report every {o.interval:.0f} s, '
          f'logs in {be.dir}', flush=True)
    base_rss, base_fds, base_threads = be.proc_stat()
    print(f'soak: before any frontend: RSS {base_rss} kB, {base_fds} fds, '
          f'{base_threads} threads', flush=True)
    hdr = (' time  RSS_kB  fds thr  pds  mrs  cqs  qps ctrl_err flaps  '
           + '  '.join(f'{f.name}:ok/kill/fail' for f in flows))
    print(hdr, flush=True)
    start = now()
    next_report = start + o.interval
    next_flap = start + rng.uniform(10, 40)
    flaps = 0
    member_up = {m: True for m in MEMBERS}
    rss_samples = []
    failed = False
    while now() - start < o.duration:
        if be.proc.poll() is not None:
            print(f'soak: FAIL: the backend exited {be.proc.returncode}', flush=True)
            failed = True
            break
        for f in flows:
            if not f.poll():
                print(f'soak: FAIL: {f.name} run {f.run_no} failed; see '
                      f'{be.dir}/{f.name}-failed-{f.run_no}.log', flush=True)
                failed = True
            elif f.procs and not f.killed and rng.random() < 0.2 / o.kill_every:
                f.kill()
        if now() >= next_flap:
            m = rng.choice(MEMBERS)
            member_up[m] = not member_up[m]
            r = be.rpc('set_member_link', {'member': m, 'up': member_up[m]})
            if 'error' in r:
                print(f'soak: FAIL: set_member_link {m}: {r["error"]}', flush=True)
                failed = True
            flaps += 1
            next_flap = now() + rng.uniform(10, 40)
        if now() >= next_report:
            rss, fds, thr = be.proc_stat()
            ob = be.objects()
            rss_samples.append(rss)
            print(f'{now() - start:5.0f} {rss:7d} {fds:4d} {thr:3d} {ob["pds"]:4d} '
                  f'{ob["mrs"]:4d} {ob["cqs"]:4d} {ob["qps"]:4d} {ob["ctrl_errors"]:8d} '
                  f'{flaps:5d}  ' + '  '.join(f'{f.ok:>5}/{f.kills}/{f.failed}'.rjust(
                      len(f.name) + 15) for f in flows), flush=True)
            next_report += o.interval
        time.sleep(0.2)
    for f in flows:
        f.stop()
    # every frontend gone: the backend frees what they made when it sees the sockets close
    time.sleep(3)
    if be.proc.poll() is None:
        rss, fds, thr = be.proc_stat()
        ob = be.objects()
        print(f'soak: after the flows stopped: RSS {rss} kB, {fds} fds, {thr} threads, '
              f'objects {ob}', flush=True)
        if any(ob[k] for k in ('pds', 'mrs', 'cqs', 'qps')):
            print('soak: FAIL: RDMA objects left with no frontend connected', flush=True)
            failed = True
        if fds > base_fds:
            print(f'soak: FAIL: {fds - base_fds} fds more than before the first frontend',
                  flush=True)
            failed = True
        if thr > base_threads:
            print(f'soak: FAIL: {thr - base_threads} threads more than at the start',
                  flush=True)
            failed = True
        if len(rss_samples) >= 4:
            half = len(rss_samples) // 2
            first, second = max(rss_samples[:half]), max(rss_samples[half:])
            if second > first * 1.10 + 16384:
                print(f'soak: FAIL: RSS grew: peak {first} kB in the first half, {second} kB '
                      'in the second', flush=True)
                failed = True
    be.stop()
    runs = sum(f.ok for f in flows)
    fails = sum(f.failed for f in flows)
    kills = sum(f.kills for f in flows)
    print(f'soak: {"FAIL" if failed else "PASS"}: {runs} runs checked, {kills} killed, '
          f'{fails} failed, {flaps} uplink flaps in {now() - start:.0f} s', flush=True)
    if not failed:
        shutil.rmtree(be.dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
