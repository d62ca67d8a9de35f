# SPDX-License-Identifier: BSD-3-Clause
"""What the integration tests share: the backend as a child process on a
private EAL file prefix, its telemetry, and the TAP report."""

import ctypes
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SEQ = itertools.count()
RESULTS = []

# What ASan and UBSan print when they catch something in the backend.
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
SANITIZER_REPORTS = ('ERROR: AddressSanitizer', 'runtime error:', 'ERROR: LeakSanitizer')


def die_with_parent():
    """In a child before exec: SIGTERM when this process dies, even by SIGKILL,
    so that no backend, client or relay outlives its test (a backend left over
    holds its tap and sockets, and the next run's scenarios fail on them);
    `ip netns exec` keeps it."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def case(fn):
    """Run @fn now as one TAP test case; any exception fails it."""
    try:
        fn()
        RESULTS.append((True, fn.__name__, ''))
    except Exception as e:  # noqa: BLE001 - any failure fails the case
        RESULTS.append((False, fn.__name__, f'{type(e).__name__}: {e}'))
    return fn


def report():
    """Print the TAP report of every case run; returns the exit status."""
    for i, (ok, name, why) in enumerate(RESULTS, 1):
        if why:
            print('# ' + why.replace('\n', '\n# '))
        print(f'{"ok" if ok else "not ok"} {i} - {name}')
        if not ok:  # meson shows stderr with a failure: the reason, where CI logs it
            print(f'not ok {i} - {name}: {why[-2000:]}', file=sys.stderr)
    print(f'1..{len(RESULTS)}')
    return 0 if all(ok for ok, _, _ in RESULTS) else 1


def in_ci():
    """True in CI (CI set, and not to 0, false or no): nothing may skip there."""
    return os.environ.get('CI', '').strip().lower() not in ('', '0', 'false', 'no')


def require(ok, reason):
    """Unless @ok, skip the whole test with @reason (TAP "1..0 # SKIP") and
    exit; in CI fail it instead, loudly."""
    if ok:
        return
    if in_ci():
        print(f'# cannot run: {reason} (CI is set: a test that cannot run fails)')
        print('not ok 1 - preconditions')
        print('1..1')
        sys.exit(1)
    print(f'1..0 # SKIP {reason}')
    sys.exit(0)


def run_dir():
    """Where EAL keeps its runtime directories (rte_eal_get_runtime_dir)."""
    return os.environ.get('XDG_RUNTIME_DIR', '/tmp') if os.getuid() else '/var/run'


def remove_runtime_dir(prefix):
    """EAL leaves its runtime directory (config, telemetry socket) behind."""
    shutil.rmtree(os.path.join(run_dir(), 'dpdk', prefix), ignore_errors=True)


def telemetry(prefix, command):
    """One DPDK telemetry command (the v2 socket dpdk-telemetry.py uses) to the
    process on EAL file prefix @prefix."""
    path = os.path.join(run_dir(), 'dpdk', prefix, 'dpdk_telemetry.v2')
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        # Generous: CI's two cores may be busy with a TCG guest and ASan.
        s.settimeout(15)
        try:
            s.connect(path)
            s.recv(16384)  # the greeting
            s.send(command.encode())
            return json.loads(s.recv(65536).decode())
        except (OSError, ValueError) as e:
            raise RuntimeError(f'telemetry {command} to {prefix}: {e!r}') from e


class Backend:
    """The backend on a private EAL file prefix, without hugepages or PCI."""

    def __init__(self, binary, *app_args, prefix='vurtest', eal_extra=(), cwd=None, wrap=()):
        """@wrap: a command that execs the backend, e.g. ('ip', 'netns', 'exec', NS)."""
        self.dir = tempfile.mkdtemp(prefix='vur-')
        self.sock = os.path.join(self.dir, 'vhost-rdma0')
        self.admin = os.path.join(self.dir, 'admin.sock')
        self.prefix = f'{prefix}{os.getpid()}{next(SEQ)}'
        eal = ['--no-huge', '-m', '128', '--no-pci', '--file-prefix',
               self.prefix, '--log-level', 'lib.eal:error', *eal_extra]
        args = list(app_args)
        if '-s' in args:
            self.sock = args[args.index('-s') + 1]
        else:
            args = ['-s', self.sock] + args
        # Never the shared default admin socket: tests run in parallel.
        if '--admin-socket' in args:
            self.admin = args[args.index('--admin-socket') + 1]
        elif '--no-admin' not in args:
            args += ['--admin-socket', self.admin]
        # O_APPEND: the child's lines go after what is there.
        self.log = open(os.path.join(self.dir, 'log'), 'a+')
        if cwd is not None and os.sep in binary:
            binary = os.path.abspath(binary)  # a path from where we are
        self.proc = subprocess.Popen([*wrap, binary, *eal, '--', *args], cwd=cwd,
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent)

    def wait_socket(self, path=None, timeout=20):
        path = path or self.sock
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(path):
                return
            if self.proc.poll() is not None:
                raise AssertionError(f'backend exited {self.proc.returncode}: {self.output()}')
            time.sleep(0.05)
        raise AssertionError('socket never appeared')

    def wait_output(self, text, timeout=20):
        """Wait until the backend has printed @text."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.output():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f'backend exited {self.proc.returncode}: {self.output()}')
            time.sleep(0.05)
        raise AssertionError(f'never printed {text!r}: {self.output()}')

    def telemetry(self, command):
        """One DPDK telemetry command (the v2 socket dpdk-telemetry.py uses)."""
        return telemetry(self.prefix, command)

    def device(self, path=None):
        """The /vur/device telemetry of the device serving @path."""
        return self.telemetry('/vur/device,' + (path or self.sock))['/vur/device']

    def output(self):
        # Through a file description of our own: the child's shares its offset
        # with self.log, and a line it writes between a seek and a read on that
        # one would move the offset to the end (O_APPEND): the read would be empty.
        with open(self.log.name) as f:
            return f.read()

    def sanitizer_report(self):
        """The backend's output if a sanitizer reported there, else ''."""
        out = self.output()
        return out if any(s in out for s in SANITIZER_REPORTS) else ''

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError('backend did not stop on ' + sig.name)
        finally:
            remove_runtime_dir(self.prefix)
