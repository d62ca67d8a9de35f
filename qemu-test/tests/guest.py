# SPDX-License-Identifier: GPL-2.0-or-later
"""What the QEMU scenarios share: QEMU and the guest image (built by the
scripts beside this folder), a test script appended to the guest's
initramfs, a guest booted under TCG on a vhost-user-rdma device, its
VUR-RESULT lines, and the TAP report."""

import fcntl
import gzip
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

import harness  # backend/tests: the test helpers every test shares

QEMU_TEST = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Whole lines only: the host reads the console while the guest writes it,
# one character at a time, and a line read before its end ('VUR-WAIT
# all_members_' of 'VUR-WAIT all_members_down') is not what the guest said.
RESULT = re.compile(r'VUR-RESULT (\S+) (ok|fail) ?([^\r\n]*)\r*\n')
DONE = re.compile(r'VUR-DONE (\d+)\r*\n')
STEP = re.compile(r'VUR-WAIT ?([^\r\n]*)\r*\n')
CTL = os.path.join(os.path.dirname(QEMU_TEST), 'backend', 'mgmt', 'vhost-user-rdma-ctl')
SID_CHROOT = os.path.join(os.path.dirname(QEMU_TEST), 'scripts', 'sid-chroot.sh')


def build(script, timeout, *args):
    """Run a build script of qemu-test/ with @args; returns the path it
    prints last."""
    r = subprocess.run([os.path.join(QEMU_TEST, script), *args], capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0 or not r.stdout.strip():
        raise RuntimeError(f'{script} failed ({r.returncode}):\n{r.stderr[-4000:]}')
    return r.stdout.strip().splitlines()[-1]


def qemu_version():
    """The QEMU the scenarios run the device on: VUR_QEMU_VERSION, 7.2
    (Debian 12's source with qemu-test/vhost-user-rdma.patch, on the host;
    the default) or a newer one build-qemu.sh builds from Debian's source
    with the series qemu-test/qemu-VERSION/, run in the chroot it was built
    in (10.2: unstable's, in the sid chroot; 10.0: Debian 13's, in the
    trixie chroot). meson registers the scenarios checked there a second
    time with the suffix _qemuVERSION."""
    return os.environ.get('VUR_QEMU_VERSION', '7.2')


def build_qemu(timeout=1500):
    """qemu-system-x86_64 with the device (minutes when cold, instant after):
    a path, or a SidQemu for a version other than 7.2. VUR_QEMU=PATH takes a
    7.2 binary built elsewhere instead (local runs only: it must be
    build-qemu.sh's output of the same patch)."""
    version = qemu_version()
    if version != '7.2':
        return SidQemu(version, build('build-qemu.sh', timeout, version))
    if os.environ.get('VUR_QEMU'):
        return os.environ['VUR_QEMU']
    return build('build-qemu.sh', timeout)


class SidQemu:
    """A QEMU that links a newer Debian's libraries, run in a chroot of
    scripts/sid-chroot.sh beside other commands there ('run --shared'):
    unstable's packaged one (qemu-system-x86: 11.1.3 in 2026-11), or one
    build-qemu.sh VERSION built in the chroot it names in the build tree's
    .chroot-suite (@binary, with the firmware of that chroot's packages;
    sid when the file is missing, as in trees built before it existed).
    What a Guest gives it (the image, its initramfs, the vhost-user
    sockets) is bind-mounted at its own path; the backend runs on the
    host."""

    def __init__(self, version, binary='qemu-system-x86_64'):
        self.version = version
        self.binary = binary
        self.suite = 'sid'
        try:
            with open(os.path.join(os.path.dirname(binary), '.chroot-suite')) as f:
                self.suite = f.read().strip() or 'sid'
        except OSError:
            pass

    def command(self):
        firmware = []
        if self.binary != 'qemu-system-x86_64':
            # The packaged QEMU's firmware path (its qemu-system-data,
            # seabios and ipxe-qemu), which a build-tree QEMU does not have.
            for d in ('/usr/share/qemu', '/usr/share/seabios', '/usr/lib/ipxe/qemu'):
                firmware += ['-L', d]
        return [SID_CHROOT, 'run', '--shared', self.binary, *firmware]

    def __str__(self):
        return self.version


def patched_stock_qemu():
    """VUR_QEMU_BINARY: a qemu-system-x86_64 built in the unstable chroot
    (e.g. QEMU 10.2 with the series qemu-test/qemu-10.2-generic/) to run in
    place of the packaged one; a SidQemu, or None when unset."""
    binary = os.environ.get('VUR_QEMU_BINARY')
    if not binary:
        return None
    binary = os.path.abspath(binary)
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f'VUR_QEMU_BINARY: no executable {binary}')
    r = subprocess.run([SID_CHROOT, 'run', '--shared', binary, '--version'],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not r.stdout:
        raise RuntimeError(f'{binary} --version in the chroot: {r.stderr[-2000:]}')
    return SidQemu(r.stdout.splitlines()[0], binary)


def stock_qemu(timeout=900):
    """Debian unstable's packaged QEMU, installed into the unstable chroot
    if missing (scripts/sid-chroot.sh ensure qemu-system-x86: a minute or
    two the first time); a SidQemu. VUR_QEMU_BINARY overrides it
    (patched_stock_qemu())."""
    patched = patched_stock_qemu()
    if patched is not None:
        return patched
    r = subprocess.run([SID_CHROOT, 'ensure', 'qemu-system-x86'], capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f'sid-chroot.sh ensure qemu-system-x86 failed:\n{r.stderr[-3000:]}')
    r = subprocess.run([SID_CHROOT, 'run', '--shared', 'qemu-system-x86_64', '--version'],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not r.stdout:
        raise RuntimeError(f'qemu-system-x86_64 --version in the chroot: {r.stderr[-2000:]}')
    return SidQemu(r.stdout.splitlines()[0])


def kernel():
    """The guest kernel, build-image.sh's choice: VUR_GUEST_KERNEL, debian12
    (Debian 12's Linux 6.1, the default) or linux72 (Debian unstable's
    Linux 7.2). meson registers a scenario a second time with linux72."""
    return os.environ.get('VUR_GUEST_KERNEL', 'debian12')


def build_image(timeout=600):
    """The guest image directory of kernel(): vmlinuz, initrd.img,
    kernel-version."""
    return build('build-image.sh', timeout, kernel())


def build_sid_image(timeout=1200):
    """The guest image of kernel() with Debian unstable's verbs userspace
    and the rdma-core provider under /sid (build-sid-image.sh; it builds the
    provider in a Debian unstable chroot): vmlinuz, initrd.img."""
    return build('build-sid-image.sh', timeout, kernel())


def build_module(image, timeout=600):
    """The guest kernel driver, virtio_rdma.ko, built for the kernel of
    @image (an image directory); its path."""
    with open(os.path.join(image, 'kernel-version')) as f:
        return build('build-module.sh', timeout, f.read().strip())


def sid_image_and_module(tap):
    """build_sid_image() and build_module() for it, reported as the case
    build_sid_image_and_module: (image, ko), or None when a build failed."""
    try:
        sid_image = build_sid_image()
        ko = build_module(sid_image)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_sid_image_and_module', False, e)
        return None
    tap.case('build_sid_image_and_module', True)
    return sid_image, ko


def build_tool(source, out_dir):
    """Compile @source (a C file beside this one) into a static binary in
    @out_dir for the guest (which has no libc); its path."""
    out = os.path.join(out_dir, os.path.splitext(os.path.basename(source))[0])
    r = subprocess.run(['gcc', '-static', '-O2', '-Wall', '-Wextra', '-Werror', '-o', out,
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), source)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f'gcc {source} failed:\n{r.stderr[-3000:]}')
    return out


def module_files(ko, image):
    """The archive entries that put @ko where modprobe finds extra modules
    of the image's kernel: {path: (mode, bytes)} for Guest(files=...)."""
    with open(os.path.join(image, 'kernel-version')) as f:
        kver = f.read().strip()
    with open(ko, 'rb') as f:
        return {f'lib/modules/{kver}/extra/{os.path.basename(ko)}': (0o644, f.read())}


def boot_kernel(image):
    """What QEMU boots of @image: its vmlinux (build-image.sh: the ELF kernel,
    started by its PVH entry with no decompression in the guest), or the
    bzImage of an image built before there was one."""
    vmlinux = os.path.join(image, 'vmlinux')
    return vmlinux if os.path.exists(vmlinux) else os.path.join(image, 'vmlinuz')


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


# insmod does not read module parameters from the kernel command line
# (modprobe does): the scripts' insmod of virtio_rdma.ko takes them there.
INSMOD_CMDLINE = r'''insmod() {
    case "$1" in
    */virtio_rdma.ko)
        command insmod "$@" $(tr ' ' '\n' </proc/cmdline | sed -n 's/^virtio_rdma\.//p') ;;
    *) command insmod "$@" ;;
    esac
}
'''


def driver_layout(append, script):
    """@append and @script with virtio_rdma's layout= parameter when
    VUR_DRIVER_LAYOUT (auto, virtqueues, rings) is set: the guest driver's
    queue layout for a scenario run, the module's default (auto: rings when
    the device offers them) otherwise."""
    layout = os.environ.get('VUR_DRIVER_LAYOUT')
    if not layout:
        return append, script
    return f'{append} virtio_rdma.layout={layout}'.strip(), INSMOD_CMDLINE + script


def reported_rings(g, name='driver_layout'):
    """Whether @g's script last reported (vur_result @name ok LAYOUT, LAYOUT
    read from an ib_device's ports/1/layout) that virtio_rdma chose the rings
    layout: on rings the driver holds a PD and a DMA MR of its own in the
    device (virtio_rdma_rings.c), which hosts that count objects add."""
    layouts = [d for n, ok, d in g.results()[0] if n == name and ok]
    return bool(layouts) and layouts[-1] == 'rings'


def console_steps(text):
    """The steps (vur_step) whose whole "VUR-WAIT <what>" line is in
    console output @text, in order."""
    return [what.strip() for what in STEP.findall(text)]


def console_results(text):
    """[(name, ok, detail)] of the whole VUR-RESULT lines in console output
    @text, in order, and the script's exit status (None when its VUR-DONE
    line is not there)."""
    done = DONE.search(text)
    return ([(m[1], m[2] == 'ok', m[3].strip()) for m in RESULT.finditer(text)],
            int(done[1]) if done else None)


class Guest:
    """A TCG guest with guest memory shared (memfd) and one
    vhost-user-rdma-pci device per socket in @sockets; the serial console
    goes to a log file. A reboot ends QEMU unless @reboot. @files ({path:
    (mode, bytes)}) go into the appended archive beside the script.
    @device_opts are more properties of each device (',queue-size=1024');
    @socket_opts ({socket: properties}) replace the default page-per-vq=on
    of the device on that socket ('page-per-vq=off'). @device is the QEMU
    device (another one's properties go in @device_opts). @qemu is a path,
    or a SidQemu: QEMU then runs in its chroot, in a process group
    of its own that close() kills."""

    def __init__(self, qemu, image, script, sockets, mem_mb=512, append='', extra=(),
                 chardev_opts='', name='guest', reboot=False, files=None, device_opts='',
                 socket_opts=None, device='vhost-user-rdma-pci'):
        self.name = name
        self.steps = 0  # VUR-WAIT lines already answered (wait_step)
        append, script = driver_layout(append, script)
        self.dir = tempfile.mkdtemp(prefix='vurq-')
        env = None
        if isinstance(qemu, SidQemu):
            # Paths as the chroot sees them: each bound at its own path.
            image = os.path.realpath(image)
            binds = {image, self.dir}
            binds |= {os.path.dirname(os.path.realpath(s)) for s in sockets}
            env = dict(os.environ, VUR_CHROOT_BIND=' '.join(sorted(binds)),
                       VUR_CHROOT_SUITE=qemu.suite)
            # QEMU 9.2 replaced the chardev's reconnect (s) by reconnect-ms.
            chardev_opts = re.sub(r',reconnect=(\d+)',
                                  lambda m: f',reconnect-ms={int(m[1]) * 1000}', chardev_opts)
        initrd = os.path.join(self.dir, 'initrd.img')
        initrd_with(os.path.join(image, 'initrd.img'),
                    {'test/run.sh': (0o755, script.encode()), **(files or {})}, initrd)
        cmd = [*(qemu.command() if env else [qemu]),
               '-accel', 'tcg', '-machine', 'q35', '-cpu', 'qemu64',
               '-m', f'{mem_mb}M', '-smp', '1',
               '-object', f'memory-backend-memfd,id=mem,size={mem_mb}M,share=on',
               '-numa', 'node,memdev=mem',
               '-display', 'none', '-serial', 'stdio', '-monitor', 'none',
               *([] if reboot else ['-no-reboot']), '-nodefaults',
               '-kernel', boot_kernel(image), '-initrd', initrd,
               '-append', f'console=ttyS0 quiet panic=-1 {append}'.strip()]
        for i, sock in enumerate(sockets):
            props = (socket_opts or {}).get(sock, 'page-per-vq=on')
            cmd += ['-chardev', f'socket,path={sock},id=vrdma{i}{chardev_opts}',
                    '-device', f'{device},{props},chardev=vrdma{i}{device_opts}']
        cmd += list(extra)
        self.cmd = cmd
        # Append mode: QEMU's stdout shares this file's offset, which
        # output() moves to the start to read; without O_APPEND, what QEMU
        # writes meanwhile lands there, over the first lines.
        self.log = open(os.path.join(self.dir, 'console'), 'a+')
        self.started = time.monotonic()
        # stdin is the guest's console input (send()).
        self.group = env is not None  # QEMU is not our child but its grandchild
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=subprocess.STDOUT, env=env,
                                     preexec_fn=harness.die_with_parent,
                                     start_new_session=self.group)

    def kill(self):
        """Kill QEMU (and what runs it) and reap it."""
        if self.group:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            self.proc.kill()
        self.proc.wait()

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

    def wait_step(self, timeout):
        """Wait for the script's next "VUR-WAIT <what>" line (vur_step); returns
        <what>, or None after @timeout seconds or when QEMU exits."""
        end = time.monotonic() + timeout
        while True:
            steps = console_steps(self.output())
            if len(steps) > self.steps:
                self.steps += 1
                return steps[self.steps - 1]
            if time.monotonic() > end or self.proc.poll() is not None:
                return None
            time.sleep(0.1)

    def wait(self, timeout):
        """Wait for the guest to power off; killed after @timeout seconds.
        Returns QEMU's exit status, or None when it had to be killed."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self.elapsed = time.monotonic() - self.started

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def results(self):
        """console_results() of what the guest printed so far."""
        return console_results(self.output())

    def close(self):
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass  # QEMU is gone: what it was not sent no longer matters
        if self.proc.poll() is None or self.group:
            self.kill()  # a group's QEMU may outlive its parent
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def barrier(guests, timeout):
    """Wait until every guest in @guests reached its next vur_step, then let
    them all go on. Returns None, or why not (and then lets none go on)."""
    for g in guests:
        if g.wait_step(timeout) is None:
            return f'{g.name} never reached its next step\n' + g.output()[-4000:]
    for g in guests:
        g.send('go\n')
    return None


def wait_steps(guests, step, timeout):
    """Wait until each of @guests reached its step @step (without letting
    them go on); None, or why not."""
    for g in guests:
        what = g.wait_step(timeout)
        if what != step:
            return f'{g.name} reached {what!r}, not {step}\n' + g.output()[-4000:]
    return None


def mckey_rounds(sender, receiver):
    """Answer the sender's "mckey_sent" steps: "done" once the receiver
    reported its result (it waits 5 s for it), else "again". (None, or why
    not; whether the sender reached its step mckey_done already)."""
    for _ in range(5):
        what = sender.wait_step(120)
        if what != 'mckey_sent':
            return (None, True) if what == 'mckey_done' else (f'sender: step {what!r}', False)
        done = receiver.wait_for(r'VUR-RESULT mckey_receiver', 5)
        sender.send('done\n' if done else 'again\n')
        if done:
            return None, False
    return 'the sender ran mckey 5 times', False


def finish(tap, g, timeout):
    """Wait for @g to power off and report its script's results as cases
    (prefixed with the guest's name)."""
    status = g.wait(timeout)
    _, done = g.results()
    finished = status == 0 and done is not None
    tap.case(f'{g.name}_ran_and_powered_off', finished,
             f'{g.name} ran {g.elapsed:.1f} s' if finished
             else f'qemu status {status}, script status {done}\n' + g.output()[-6000:])
    return report(tap, g) and finished


def report(tap, g):
    """@g's VUR-RESULT lines so far as cases (prefixed with the guest's
    name); whether they all passed (and there was one)."""
    results, _ = g.results()
    for name, ok, detail in results:
        tap.case(f'{g.name}_{name}', ok, detail)
    if not results:
        tap.case(f'{g.name}_results', False, 'the guest printed no VUR-RESULT line')
    return bool(results) and all(ok for _, ok, _ in results)


def stop_backend(tap, backend, name='backend_stops_cleanly'):
    """Stop @backend (SIGTERM) as one case: exit 0 and no sanitizer report."""
    stopped = backend.stop()
    report = backend.sanitizer_report()
    clean = stopped == 0 and not report
    why = '' if clean else f'exit {stopped}\n{(report or backend.output())[-3000:]}'
    tap.case(name, clean, why)


def wait_log(backend, pattern, timeout, since=0):
    """Wait until the backend's log shows @pattern (a regex) after offset
    @since; returns the match, or None after @timeout s or when it exits."""
    end = time.monotonic() + timeout
    while True:
        m = re.search(pattern, backend.output()[since:])
        if m or time.monotonic() > end or backend.proc.poll() is not None:
            return m
        time.sleep(0.1)


def wait_ready(backend, timeout=20):
    """Wait until the backend serves its sockets and started its uplinks
    (its "device(s) ready" line; a socket file may be there before, left by
    a backend that died, and a tap's kernel side is set up after). Raises
    when it does not come."""
    if not wait_log(backend, r'device\(s\) ready', timeout):
        raise RuntimeError(f'the backend did not become ready (exit status {backend.proc.poll()}):\n'
                           + backend.output()[-3000:])


def ctl(admin, *args, timeout=30):
    """The backend's admin CLI on socket @admin; its JSON output."""
    r = subprocess.run([sys.executable, CTL, '-s', admin, *args], capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f'vhost-user-rdma-ctl {" ".join(args)}: exit {r.returncode}: '
                           f'{r.stderr.strip()}')
    return json.loads(r.stdout)


def device_of(admin, sock):
    """The device serving @sock, as the admin CLI on socket @admin lists it."""
    return next(d for d in ctl(admin, 'devices') if d['device'] == sock)


def host_step(tap, g, name, action, check, device, timeout):
    """Answer @g's step @name (vur_step): do @action, report as case
    host_@name whether @check holds for what @device() returns then, and let
    the guest go on. Returns whether it held."""
    what = g.wait_step(timeout)
    if what != name:
        tap.case(f'guest_reaches_{name}', False, f'step {what!r}\n' + g.output()[-4000:])
        return False
    try:
        action()
        d = device()
        ok, why = check(d), d
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        ok, why = False, e
    tap.case(f'host_{name}', ok, '' if ok else why)
    g.send('go\n')
    return ok


def iface_name(tag):
    """A kernel interface name unique to this process (15 characters at most)."""
    return f'vq{tag}{os.getpid() % 1000000}'[:15]


def host_address(iface, addr, mac=None, timeout=20):
    """Give the host side of a tap uplink @addr (CIDR), and @mac if given,
    and bring it up; call it after wait_ready() (starting the port resets
    the kernel side's MAC). A tap made again by a restarted backend gets a
    random MAC unless one is set: a guest's ARP entry for the host would
    then be wrong until it goes stale (30 s or more)."""
    end = time.monotonic() + timeout
    while not os.path.exists(f'/sys/class/net/{iface}'):
        if time.monotonic() > end:
            raise RuntimeError(f'no interface {iface}')
        time.sleep(0.05)
    if mac:
        subprocess.run(['ip', 'link', 'set', iface, 'address', mac], check=True)
    subprocess.run(['ip', 'addr', 'replace', addr, 'dev', iface], check=True)
    subprocess.run(['ip', 'link', 'set', iface, 'up'], check=True)


def host_ping(addr, count=3, timeout=5):
    """Ping @addr from the host (a raw ICMP socket: root; the host has no
    ping(8)), one echo request a second; returns how many were answered
    within @timeout seconds each."""
    ident = os.getpid() & 0xffff
    answered = 0
    with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP) as s:
        for seq in range(1, count + 1):
            payload = b'vhost-user-rdma %d' % seq
            header = struct.pack('!BBHHH', 8, 0, 0, ident, seq)
            words = header + payload + b'\0' * (len(payload) % 2)
            csum = sum(struct.unpack(f'!{len(words) // 2}H', words))
            csum = (csum >> 16) + (csum & 0xffff)
            csum = ~(csum + (csum >> 16)) & 0xffff
            s.sendto(struct.pack('!BBHHH', 8, 0, csum, ident, seq) + payload, (addr, 0))
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                s.settimeout(max(end - time.monotonic(), 0.01))
                try:
                    data, (src, _) = s.recvfrom(2048)
                except socket.timeout:
                    break
                ihl = (data[0] & 15) * 4
                kind, _, _, rid, rseq = struct.unpack_from('!BBHHH', data, ihl)
                if src == addr and kind == 0 and (rid, rseq) == (ident, seq):
                    answered += 1
                    time.sleep(max(end - timeout + 1 - time.monotonic(), 0))
                    break
    return answered


def take_turn(key):
    """Wait for, then hold until this process ends, the host's lock @key.
    meson runs two scenarios at once; the variants of one scenario (its
    Linux 7.2, QEMU 10.2 or stock QEMU run) give a host interface the same
    address, so they take turns. A flock on a file of /run/lock: the kernel
    drops it however the process ends."""
    os.makedirs('/run/lock', exist_ok=True)
    fd = os.open(f'/run/lock/vhost-user-rdma-{key}.lock', os.O_RDWR | os.O_CREAT, 0o644)
    t = time.monotonic()
    fcntl.flock(fd, fcntl.LOCK_EX)
    if time.monotonic() - t >= 1:
        print(f'# waited {time.monotonic() - t:.0f} s for another run of {key}', flush=True)
    return fd


def run(scenario, patched_qemu=True, turn=None):
    """Run @scenario(tap, qemu, image, sock_dir) as a test program: QEMU and
    the image built first (one case; without @patched_qemu no QEMU is built
    and qemu is None), the vhost-user sockets in a fresh folder that is
    removed after, the scenario's time as a diagnostic. Prints TAP; returns
    the exit status. Another run of the same scenario goes first (take_turn),
    or only one on the same @turn (e.g. the subnet of its host address) if
    the scenario gives each run its own."""
    key = os.path.basename(sys.argv[0]).removesuffix('.py')
    take_turn(key if turn is None else f'{key}-{turn}')
    tap = Tap()
    built = prepare(tap, patched_qemu)
    if built is None:
        return tap.done()
    t0 = time.monotonic()
    sock_dir = tempfile.mkdtemp(prefix='vurq-')
    try:
        scenario(tap, *built, sock_dir)
    except Exception:  # noqa: BLE001 - a failed case that says where, not a bare traceback
        # Without this the test ends with no TAP plan and meson shows only
        # "ERROR exit status 1" in CI's summary: the line that raised is lost.
        tap.case('scenario_ran_to_its_end', False, traceback.format_exc())
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)
    tap.diag(f'scenario {time.monotonic() - t0:.1f} s')
    return tap.done()


def prepare(tap, patched_qemu=True):
    """QEMU (unless not @patched_qemu: None) and the image, built if needed,
    as one case; (qemu, image) or None."""
    t = time.monotonic()
    name = 'build_qemu_and_image' if patched_qemu else 'build_image'
    try:
        built = build_qemu() if patched_qemu else None, build_image()
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case(name, False, e)
        return None
    tap.case(name, True)
    tap.diag(f'build {time.monotonic() - t:.1f} s')
    return built


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
