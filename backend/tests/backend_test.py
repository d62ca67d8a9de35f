# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests: start the real backend and talk vhost-user to it.

Usage: backend_test.py PATH/TO/vhost-user-rdma
Prints TAP. Expected values are written from the spec, not from the header.
"""

import functools
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

import harness
import vhost_user as vu
from harness import case, remove_runtime_dir

BACKEND = sys.argv[1]
Backend = functools.partial(harness.Backend, BACKEND)


def run(*args):
    return subprocess.run([BACKEND, *args], capture_output=True, text=True, timeout=30)


@case
def help_without_eal():
    r = run('--help')
    assert r.returncode == 0, r
    for word in ('--socket', '--client', '--max-qps', '--rfc2-numbering', 'net_tap0'):
        assert word in r.stdout, word


@case
def bad_arguments_exit_nonzero():
    prefix = f'vurbad{os.getpid()}'
    eal = ['--no-huge', '-m', '64', '--no-pci', '--file-prefix', prefix]
    try:
        # no device is refused only without the admin RPC (with it: a daemon, devices to come)
        for args in (['--max-qps', 'x', '-s', '/tmp/x'], ['--no-admin'], ['-s', '/tmp/x', 'stray'],
                     ['--max-qps', '200', '-s', '/tmp/x']):
            r = run(*eal, '--', *args)
            assert r.returncode != 0, args
            assert 'Try' in r.stderr, r.stderr
    finally:
        remove_runtime_dir(prefix)


@case
def features_and_config():
    b = Backend()
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        features = fe.get_u64(vu.GET_FEATURES)
        for bit in (32, 58, 4, 17, 5, 16, 3, 63, 15, 29, 28, 30):
            assert features & (1 << bit), f'feature bit {bit} missing: {features:#x}'
        assert not features & (1 << 55), 'RFC v2 bit offered by default'
        fe.send(vu.SET_OWNER)
        proto = fe.get_u64(vu.GET_PROTOCOL_FEATURES)
        for bit in (0, 3, 5, 9):  # MQ, REPLY_ACK, BACKEND_REQ, CONFIG
            assert proto & (1 << bit), f'protocol bit {bit} missing: {proto:#x}'
        fe.set_u64(vu.SET_PROTOCOL_FEATURES, proto & ((1 << 0) | (1 << 3) | (1 << 9)))

        cfg = fe.get_config(0, 48)
        assert len(cfg) == 48, len(cfg)
        # no --mac: the device's own, derived from the host and the path (logged)
        assert cfg[0] & 3 == 2, f'not locally administered unicast: {cfg[0:6].hex()}'
        assert f'{b.sock}: MAC {cfg[0:6].hex(":")} (derived from' in b.output(), b.output()
        status, pairs, mtu, speed = struct.unpack_from('<HHHI', cfg, 6)
        assert (status, pairs, mtu, speed) == (1, 1, 1500, 100000), (status, pairs, mtu, speed)
        qps, cqs, rings, rsvd, roce_speed = struct.unpack_from('<IIHHQ', cfg, 28)
        # rdma_ring_queues: 4 by default (ROCE-DEV-RING-1)
        assert (qps, cqs, rings, rsvd, roce_speed) == (64, 64, 4, 0, 1000)
        assert fe.get_config(40, 8) == struct.pack('<Q', 1000)
        fe.close()
    finally:
        assert b.stop() == 0


@case
def config_bad_ranges_refused():
    b = Backend()
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        assert fe.get_config(0, 49) == b''          # one byte past the end
        assert fe.get_config(48, 1) == b''          # starts past the end
        assert fe.get_config(0, 0) == b''           # empty
        assert fe.get_config(0, 8, claimed=300) == b''   # claims more than the region
        assert fe.set_config(28, b'\xff\xff\x00\x00') == 1   # read-only: refused
        fe.set_config(28, b'\xff\xff\x00\x00', need_reply=False)  # ignored, still connected
        qps, = struct.unpack('<I', fe.get_config(28, 4))
        assert qps == 64, qps
        fe.close()
    finally:
        assert b.stop() == 0


@case
def rfc2_numbering():
    b = None
    d = tempfile.mkdtemp(prefix='vur-')
    sock = os.path.join(d, 's')
    b = Backend('-s', sock, '--rfc2-numbering', '--no-port-speed', '--max-qps', '8',
                '--max-cqs', '4')
    try:
        b.wait_socket(sock)
        fe = vu.Frontend(sock)
        features = fe.get_u64(vu.GET_FEATURES)
        assert features & (1 << 55) and not features & (1 << 58) and not features & (1 << 4)
        cfg = fe.get_config(0, 40)
        assert struct.unpack_from('<II', cfg, 24) == (8, 4)
        assert fe.get_config(0, 41) == b''
        fe.close()
    finally:
        assert b.stop() == 0


@case
def telemetry_lists_devices():
    b = Backend()
    try:
        b.wait_socket()
        assert b.telemetry('/vur/devices') == {'/vur/devices': [b.sock]}
        dev = b.telemetry('/vur/device,' + b.sock)['/vur/device']
        assert dev['path'] == b.sock and dev['vid'] == -1 and dev['started'] == 0, dev
        assert dev['features_offered'] & (1 << 58) and dev['port_speed_100mbps'] == 1000, dev
        assert dev['ctrl_errors'] == 0 and dev['pds'] == 0, dev
        fe = vu.Frontend(b.sock)
        fe.get_u64(vu.GET_FEATURES)
        dev = b.telemetry('/vur/device,' + b.sock)['/vur/device']
        assert dev['vid'] >= 0, dev   # connected, not started
        fe.close()
        assert b.telemetry('/vur/device,/no/such/socket') == {'/vur/device': None}
    finally:
        assert b.stop() == 0


@case
def two_devices_and_clean_exit():
    d = tempfile.mkdtemp(prefix='vur-')
    socks = [os.path.join(d, f's{i}') for i in range(2)]
    b = Backend('-s', socks[0], '-s', socks[1], '--mac', '02:76:75:72:00:fe')
    try:
        for s in socks:
            b.wait_socket(s)
        fe0, fe1 = vu.Frontend(socks[0]), vu.Frontend(socks[1])
        mac0, mac1 = fe0.get_config(0, 6), fe1.get_config(0, 6)
        # --mac: the first device's, then +1 (within the last byte)
        assert (mac0.hex(), mac1.hex()) == ('0276757200fe', '0276757200ff'), (mac0, mac1)
        fe0.close()  # one frontend leaves; the other keeps working
        assert len(fe1.get_config(0, 48)) == 48
        fe1.close()
    finally:
        assert b.stop(signal.SIGINT) == 0
    for s in socks:
        assert not os.path.exists(s), f'{s} left behind'


def default_macs(socks, cwd=None):
    """The MACs of devices on @socks (paths as given, from @cwd) without --mac."""
    args = [a for s in socks for a in ('-s', s)]
    b = harness.Backend(BACKEND, *args, cwd=cwd)
    try:
        macs = []
        for s in socks:
            b.wait_socket(os.path.join(cwd or '', s))
            fe = vu.Frontend(os.path.join(cwd or '', s))
            macs.append(fe.get_config(0, 6))
            fe.close()
            line = f'{s}: MAC {macs[-1].hex(":")} (derived from the socket path and the host'
            assert line in b.output(), f'{line!r} not in {b.output()}'
        return macs
    finally:
        assert b.stop() == 0


@case
def default_mac_per_path_and_stable():
    """Two backends with defaults on two hosts (or netns) must not share a MAC:
    each device's is a hash of the host's identity and its socket path,
    locally administered unicast, the same after a restart."""
    d = tempfile.mkdtemp(prefix='vur-')
    socks = [os.path.join(d, f's{i}') for i in range(3)]
    first = default_macs(socks)
    assert len(set(first)) == 3, [m.hex() for m in first]
    for m in first:
        assert m[0] & 3 == 2, m.hex()
        assert m != bytes.fromhex('5254005e0001'), 'the old fixed default'
    # restarted: the same addresses, whatever the order of the sockets
    assert default_macs(socks[::-1]) == first[::-1]
    # a relative path is taken from where the backend starts
    assert default_macs(['s1'], cwd=d) == [first[1]]


@case
def stale_socket_replaced_live_one_kept():
    """A socket file left by a backend that died (SIGKILL) is replaced; one a
    live backend serves is not taken over."""
    d = tempfile.mkdtemp(prefix='vur-')
    sock = os.path.join(d, 's0')
    first = Backend('-s', sock)
    try:
        first.wait_socket(sock)
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL
        assert os.path.exists(sock), 'SIGKILL left no socket file'
        second = Backend('-s', sock)
        try:
            # The stale file is there already: wait until the backend listens.
            end = time.monotonic() + 20
            while 'serving (server' not in second.output():
                assert second.proc.poll() is None and time.monotonic() < end, second.output()
                time.sleep(0.05)
            assert 'removed a stale socket file' in second.output(), second.output()
            fe = vu.Frontend(sock)
            assert len(fe.get_config(0, 48)) == 48
            fe.close()
            third = Backend('-s', sock)
            try:
                assert third.proc.wait(20) != 0, 'a second backend took a live socket over'
                assert 'another process serves this socket' in third.output(), third.output()
            finally:
                third.stop()
            # Its failure left the live backend's file alone, which still serves.
            fe = vu.Frontend(sock)
            assert len(fe.get_config(0, 48)) == 48
            fe.close()
        finally:
            assert second.stop() == 0
    finally:
        first.stop(signal.SIGKILL)
    # Not a socket: refused, and left where it is.
    path = os.path.join(d, 'file')
    with open(path, 'w') as f:
        f.write('not a socket')
    b = Backend('-s', path)
    try:
        assert b.proc.wait(20) != 0, 'a backend served over a regular file'
        assert 'is not a socket' in b.output(), b.output()
    finally:
        b.stop()
    with open(path) as f:
        assert f.read() == 'not a socket'


@case
def vrings_before_memory_table():
    """A frontend that sets vrings up with RoCE negotiated before any memory
    table (or, before the backend answered RESET_OWNER itself, after
    librte_vhost's RESET_OWNER freed it): nothing starts, nothing crashes
    (librte_vhost 22.11 reads a NULL table in rte_vhost_get_mem_table; the
    input fuzz_vhost found is fuzz/corpus/vhost/regress-vring-before-mem-table)."""
    b = Backend()
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        offered = fe.get_u64(vu.GET_FEATURES)
        fe.negotiate(offered, protocol_features=1 << vu.PROTOCOL_F_REPLY_ACK)
        for i in range(4):
            fe.call(vu.SET_VRING_NUM, vu.VRING_STATE.pack(i, 64))
            fe.call(vu.SET_VRING_BASE, vu.VRING_STATE.pack(i, 0))
        fe.send(4)  # RESET_OWNER: answered by the backend, the rings stop
        fe.call(vu.SET_VRING_NUM, vu.VRING_STATE.pack(0, 64))
        assert len(fe.get_config(0, 48)) == 48  # still served
        fe.close()
        assert b.proc.poll() is None, b.output()
    finally:
        assert b.stop() == 0


@case
def unmappable_memory_tables_keep_no_fd():
    """SET_MEM_TABLE regions librte_vhost cannot map (an empty region, an
    offset and size that wrap, a length no address space holds, a payload
    shorter than the regions it counts) are refused with every fd they
    brought closed: librte_vhost closes a region's fd only once it is mapped,
    and fuzz_vhost ran the backend out of descriptors with such tables
    (fuzz/corpus/vhost/regress-mem-table-leaks-fd). The connection stays
    up (REPLY_ACK) and a good table works after them."""
    b = Backend()
    mem = vu.GuestMemory(1 << 20)
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        fe.negotiate(fe.get_u64(vu.GET_FEATURES), 1 << vu.PROTOCOL_F_REPLY_ACK)
        region = vu.MEM_REGION.pack
        tables = (
            vu.MEM_HDR.pack(1, 0) + region(mem.gpa_base, 0, mem.hva, 0),
            vu.MEM_HDR.pack(1, 0) + region(mem.gpa_base, mem.size, mem.hva, 2**64 - 4096),
            vu.MEM_HDR.pack(1, 0) + region(mem.gpa_base, 2**62, mem.hva, 0),
            vu.MEM_HDR.pack(2, 0) + region(mem.gpa_base, mem.size, mem.hva, 0),
        )
        fds = os.path.join('/proc', str(b.proc.pid), 'fd')
        before = len(os.listdir(fds))
        for _ in range(5):
            for table in tables:
                nfds = table[0]  # one per region it counts
                fe.send(vu.SET_MEM_TABLE, table, vu.VERSION | vu.NEED_REPLY, [mem.fd] * nfds)
                status, = struct.unpack('<Q', fe.recv(vu.SET_MEM_TABLE))
                assert status != 0, table.hex()
        after = len(os.listdir(fds))
        assert after <= before, f'{after - before} fds more after 20 refused tables'
        assert b.output().count('SET_MEM_TABLE refused') == 20, b.output()
        fe.set_mem_table(mem)
        assert len(fe.get_config(0, 48)) == 48
        fe.close()
        assert b.proc.poll() is None, b.output()
    finally:
        mem.close()
        assert b.stop() == 0


@case
def memory_table_past_its_file():
    """A SET_MEM_TABLE region larger than its file, or whose fd cannot be
    mapped read-write (read-only, an eventfd), is refused with its fds
    closed. librte_vhost maps a region past its file's end without error and
    reads the used ring there as soon as a vring's addresses are set: the
    backend died of SIGBUS (fuzz_vhost: corpus/vhost/regress-region-past-eof).
    The backend reads the fds from librte_vhost's message context, whose
    layout changed in DPDK 25.03: this also checks it on the DPDK built
    against. Vring addresses in the refused part, set before and after the
    table, leave the backend running, and a good table works after."""
    b = Backend()
    mem = vu.GuestMemory(1 << 20)
    efd = os.eventfd(0, os.EFD_CLOEXEC)
    ro = os.open(f'/proc/self/fd/{mem.fd}', os.O_RDONLY | os.O_CLOEXEC)
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        fe.negotiate(fe.get_u64(vu.GET_FEATURES), 1 << vu.PROTOCOL_F_REPLY_ACK)
        past = mem.hva + (2 << 20)  # inside the claimed region, past the file

        def set_vring_addr():
            """Refused while no table maps the addresses: only survival counts."""
            fe.send(vu.SET_VRING_ADDR, vu.VRING_ADDR.pack(0, 0, past, past + 0x2000,
                                                          past + 0x1000, 0),
                    vu.VERSION | vu.NEED_REPLY)
            fe.recv(vu.SET_VRING_ADDR)

        fe.call(vu.SET_VRING_NUM, vu.VRING_STATE.pack(0, 256))
        fe.enable_vring(0)  # librte_vhost translates an enabled vring's addresses
        set_vring_addr()
        tables = (
            (mem.fd, vu.MEM_REGION.pack(mem.gpa_base, 256 << 20, mem.hva, 0)),
            (mem.fd, vu.MEM_REGION.pack(mem.gpa_base, mem.size, mem.hva, 4096)),
            (ro, vu.MEM_REGION.pack(mem.gpa_base, mem.size, mem.hva, 0)),
            (efd, vu.MEM_REGION.pack(mem.gpa_base, mem.size, mem.hva, 0)),
        )
        fds = os.path.join('/proc', str(b.proc.pid), 'fd')
        before = len(os.listdir(fds))
        for fd, region in tables:
            fe.send(vu.SET_MEM_TABLE, vu.MEM_HDR.pack(1, 0) + region,
                    vu.VERSION | vu.NEED_REPLY, [fd])
            status, = struct.unpack('<Q', fe.recv(vu.SET_MEM_TABLE))
            set_vring_addr()
            assert b.proc.poll() is None, f'backend died: {b.proc.returncode}'
            assert status != 0, region.hex()
        assert len(os.listdir(fds)) <= before, 'refused tables left fds open'
        out = b.output()
        assert out.count('SET_MEM_TABLE refused') == 4, out
        assert out.count('extends past the end of its file') == 2, out
        fe.set_mem_table(mem)
        assert len(fe.get_config(0, 48)) == 48
        fe.close()
        assert b.proc.poll() is None, b.output()
    finally:
        os.close(ro)
        os.close(efd)
        mem.close()
        rc = b.stop()
        assert rc == 0, f'backend exited with {rc}: {b.output()[-2000:]}'


@case
def fds_on_answered_messages_are_closed():
    """librte_vhost closes the fds of the messages it handles but not of
    those the backend answers itself (GET_CONFIG, SET_CONFIG, RESET_DEVICE,
    RESET_OWNER carry none): fds a frontend attaches to them are closed and
    logged, and the messages are answered as without them."""
    b = Backend()
    efd = os.eventfd(0, os.EFD_CLOEXEC)
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        fe.negotiate(fe.get_u64(vu.GET_FEATURES),
                     1 << vu.PROTOCOL_F_REPLY_ACK | 1 << vu.PROTOCOL_F_RESET_DEVICE)
        fds = os.path.join('/proc', str(b.proc.pid), 'fd')
        before = len(os.listdir(fds))
        for _ in range(5):
            fe.send(vu.GET_CONFIG, struct.pack('<III', 0, 48, 0) + bytes(48), fds=[efd, efd])
            assert len(fe.recv(vu.GET_CONFIG)) == 12 + 48
            fe.call(vu.RESET_DEVICE, fds=[efd])
            fe.call(vu.RESET_OWNER, fds=[efd])
        assert len(os.listdir(fds)) <= before, 'fds on answered messages left open'
        assert b.output().count('fds it has no use for') == 15, b.output()
        fe.close()
        assert b.proc.poll() is None, b.output()
    finally:
        os.close(efd)
        assert b.stop() == 0


@case
def reset_owner_keeps_the_heap():
    """RESET_OWNER (deprecated: vhost-user.rst says to ignore it or disable
    every ring) stops the rings and leaves librte_vhost's state alone:
    librte_vhost's own reset cleared each vring without freeing its shadow
    and copy buffers, and a frontend repeating it filled the heap until
    vring allocations failed and their eventfds leaked (fuzz_vhost found
    it: corpus/vhost/regress-reset-owner-fills-heap). The heap is the same
    after 40 of them, the connection stays up and the device is served."""
    b = Backend()
    try:
        b.wait_socket()
        fe = vu.Frontend(b.sock)
        fe.negotiate(fe.get_u64(vu.GET_FEATURES), 1 << vu.PROTOCOL_F_REPLY_ACK)

        def heap():
            return b.telemetry('/eal/heap_info,0')['/eal/heap_info']['Alloc_count']

        for i in range(4):
            fe.call(vu.SET_VRING_NUM, vu.VRING_STATE.pack(i, 1024))
        before = heap()
        for _ in range(40):
            fe.call(4)  # RESET_OWNER
            for i in range(4):
                fe.call(vu.SET_VRING_NUM, vu.VRING_STATE.pack(i, 1024))
        after = heap()
        assert after <= before, f'{after - before} heap allocations more after 40 RESET_OWNER'
        assert len(fe.get_config(0, 48)) == 48
        fe.close()
        assert b.proc.poll() is None, b.output()
    finally:
        assert b.stop() == 0


if __name__ == '__main__':
    sys.exit(harness.report())
