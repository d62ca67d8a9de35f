# SPDX-License-Identifier: GPL-2.0-or-later
"""What the QEMU scenarios share: QEMU and the guest image (built by the
scripts beside this folder), a test script appended to the guest's
initramfs, a guest booted under TCG on a vhost-user-rdma device, its
VUR-RESULT lines, and the TAP report."""

import gzip
import os
import re
import shutil
import subprocess
import tempfile
import time

QEMU_TEST = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RESULT = re.compile(r'VUR-RESULT (\S+) (ok|fail) ?([^\r\n]*)')
DONE = re.compile(r'VUR-DONE (\d+)')


def build(script, timeout):
    """Run a build script of qemu-test/; returns the path it prints last."""
    r = subprocess.run([os.path.join(QEMU_TEST, script)], capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0 or not r.stdout.strip():
        raise RuntimeError(f'{script} failed ({r.returncode}):\n{r.stderr[-4000:]}')
    return r.stdout.strip().splitlines()[-1]


def build_qemu(timeout=1500):
    """qemu-system-x86_64 with the device (minutes when cold, instant after)."""
    return build('build-qemu.sh', timeout)


def build_image(timeout=600):
    """The guest image directory: vmlinuz, initrd.img."""
    return build('build-image.sh', timeout)


def newc(files):
    """A newc cpio archive of @files: {path: (mode, bytes)}; parents added."""
    entries = {}
    for path in sorted(files):
        parts = path.strip('/').split('/')
        for i in range(1, len(parts)):
            entries.setdefault('/'.join(parts[:i]), (0o040755, b''))
        mode, data = files[path]
        entries['/'.join(parts)] = (0o100000 | mode, data)

    out = bytearray()

    def add(ino, name, mode, data):
        name_b = name.encode() + b'\0'
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0)
        out.extend(b'070701' + b''.join(b'%08X' % f for f in fields) + name_b)
        out.extend(b'\0' * (-len(out) % 4))
        out.extend(data)
        out.extend(b'\0' * (-len(out) % 4))

    for ino, (name, (mode, data)) in enumerate(sorted(entries.items()), 1):
        add(ino, name, mode, data)
    add(0, 'TRAILER!!!', 0, b'')
    return bytes(out)


def initrd_with(base, files, dest):
    """Write @base (a padded initramfs) followed by an archive of @files."""
    with open(dest, 'wb') as f:
        with open(base, 'rb') as b:
            shutil.copyfileobj(b, f)
        f.write(gzip.compress(newc(files), mtime=0))


class Guest:
    """A TCG guest with guest memory shared (memfd) and one
    vhost-user-rdma-pci device per socket in @sockets; the serial console
    goes to a log file."""

    def __init__(self, qemu, image, script, sockets, mem_mb=512, append='', extra=(),
                 chardev_opts=''):
        self.dir = tempfile.mkdtemp(prefix='vurq-')
        initrd = os.path.join(self.dir, 'initrd.img')
        initrd_with(os.path.join(image, 'initrd.img'),
                    {'test/run.sh': (0o755, script.encode())}, initrd)
        cmd = [qemu, '-accel', 'tcg', '-machine', 'q35', '-cpu', 'qemu64',
               '-m', f'{mem_mb}M', '-smp', '1',
               '-object', f'memory-backend-memfd,id=mem,size={mem_mb}M,share=on',
               '-numa', 'node,memdev=mem',
               '-display', 'none', '-serial', 'stdio', '-monitor', 'none',
               '-no-reboot', '-nodefaults',
               '-kernel', os.path.join(image, 'vmlinuz'), '-initrd', initrd,
               '-append', f'console=ttyS0 quiet panic=-1 {append}'.strip()]
        for i, sock in enumerate(sockets):
            cmd += ['-chardev', f'socket,path={sock},id=vrdma{i}{chardev_opts}',
                    '-device', f'vhost-user-rdma-pci,page-per-vq=on,chardev=vrdma{i}']
        cmd += list(extra)
        self.cmd = cmd
        self.log = open(os.path.join(self.dir, 'console'), 'w+')
        self.started = time.monotonic()
        # stdin is the guest's console input (send()).
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def send(self, text):
        """Type @text on the guest's console."""
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def wait_for(self, pattern, timeout):
        """Wait until the console shows @pattern (a regex); returns the match,
        or None after @timeout seconds or when QEMU exits."""
        end = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.output())
            if m or time.monotonic() > end or self.proc.poll() is not None:
                return m
            time.sleep(0.1)

    def wait(self, timeout):
        """Wait for the guest to power off; killed after @timeout seconds.
        Returns QEMU's exit status, or None when it had to be killed."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            self.elapsed = time.monotonic() - self.started

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def results(self):
        """[(name, ok, detail)] in the order the guest printed them, and the
        script's exit status (None when it did not finish)."""
        out = self.output()
        done = DONE.search(out)
        return ([(m[1], m[2] == 'ok', m[3].strip()) for m in RESULT.finditer(out)],
                int(done[1]) if done else None)

    def close(self):
        if self.proc.stdin:
            self.proc.stdin.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Tap:
    """TAP output: one line per case, the diagnostics before it."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def case(self, name, ok, why=''):
        self.n += 1
        self.failed += not ok
        if why:
            print('# ' + str(why).replace('\n', '\n# '))
        print(f'{"ok" if ok else "not ok"} {self.n} - {name}', flush=True)

    def diag(self, text):
        print('# ' + str(text).replace('\n', '\n# '), flush=True)

    def done(self):
        print(f'1..{self.n}', flush=True)
        return 0 if self.failed == 0 and self.n > 0 else 1
