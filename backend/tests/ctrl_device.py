# SPDX-License-Identifier: BSD-3-Clause
"""A started device for control-queue tests: a Python vhost-user frontend
with guest memory in a memfd, one rx/tx pair and a control ring it writes
itself, and helpers to send control commands and read their acks."""

import struct
import time

import vhost_user as vu
from vhost_user import DESC_F_NEXT as NEXT
from vhost_user import DESC_F_WRITE as WRITE

VIRTIO_NET_OK = 0
VIRTIO_NET_ERR = 1
NET_F_ROCE = 58
CLASS_ROCE = 64
QUERY_DEVICE = 0
QUERY_PORT_SPEED = 18          # needs VIRTIO_NET_F_ROCE_PORT_SPEED (4)
ACK_QUERY_DEVICE = 128         # struct virtio_rdma_ack_query_device
ROOM = 1 + ACK_QUERY_DEVICE    # the ack byte, then QUERY_DEVICE's ack data
ACK_QUERY_PORT_SPEED = 32      # struct virtio_rdma_ack_query_port_speed
PAGE_SIZE = 4096               # VIRTIO_NET_ROCE_PAGE_SIZE

FEATURES = ((1 << vu.F_VERSION_1) | (1 << vu.NET_F_CTRL_VQ) | (1 << NET_F_ROCE) |
            (1 << vu.F_PROTOCOL_FEATURES) | (1 << vu.F_INDIRECT_DESC))

# The backend gathers at most 64 segments per chain (VUR_CHAIN_MAX_IOV): a
# 64-entry control ring lets a chain of exactly the ring size be legal.
CTRL_SIZE = 64
NET_SIZE = 16
CTRL_VQ = 2                     # after the one rx/tx pair

# Guest memory layout (offsets into the region): rings from 0, then one
# area each for command bytes, ack bytes and indirect tables.
MEM_SIZE = 0x200000
CMD = 0x100000
ACK = 0x140000
TABLE = 0x180000
U64 = 1 << 64

# Bytes the test writes over the ack area before each request: whatever
# still holds them afterwards the backend did not write.
SENTINEL = 0xa5
ACK_AREA = 512

# The backend's log rate limit per control queue (VUR_RATELIMIT_BURST lines
# per VUR_RATELIMIT_INTERVAL_NS, common/ratelimit.h). The test paces its
# refusals under it, so that every refusal's reason is in the log.
LOG_BURST = 10
LOG_WINDOW = 1.0

COUNTERS = ('ctrl_requests', 'ctrl_errors', 'ctrl_bad_chains', 'ctrl_ring_broken',
            'ctrl_rej_no_ack', 'ctrl_rej_short_header', 'ctrl_rej_unknown_command',
            'ctrl_rej_feature', 'ctrl_rej_command_length', 'ctrl_rej_ack_length',
            'ctrl_rej_refused')


def check_query_device(data):
    """The fields of struct virtio_rdma_ack_query_device a driver relies on."""
    cap, max_mr_size, page_size_cap = struct.unpack_from('<QQQ', data, 0)
    # RC_RNR_NAK_GEN, MEM_MGT_EXTENSIONS, SRQ, MEM_WINDOW, ATOMIC, MULTICAST;
    # RINGS and RESIZE_CQ (with rings only) unless the backend runs without
    # ring queues (--ring-queues 0)
    assert cap & ~0xc0 == 0x3f and cap & 0xc0 in (0, 0xc0), f'device_cap_flags {cap:#x}'
    assert data[69] == 2, f'atomic_cap {data[69]}'      # GLOB: CPU atomics on driver memory
    assert page_size_cap == PAGE_SIZE, page_size_cap
    assert max_mr_size > 0
    assert data[68] == 15, f'local_ca_ack_delay {data[68]}'
    assert data[70:72] == bytes(2), 'padding not zero'
    fast_reg, = struct.unpack_from('<I', data, 72)
    assert fast_reg == 512, f'max_fast_reg_page_list_len {fast_reg}'
    max_srq, max_srq_wr, max_srq_sge = struct.unpack_from('<III', data, 76)
    assert max_srq >= 1 and 1 <= max_srq_wr <= 1024 and max_srq_sge >= 1, 'SRQ limits'
    max_mw, = struct.unpack_from('<I', data, 88)
    assert max_mw == 4096, f'max_mw {max_mw}'
    vendor, part = struct.unpack_from('<II', data, 92)
    assert (vendor, part) == (0x1af4, 0x1041), f'vendor {vendor:#x}, part {part:#x}'
    grp, qp_attach, total = struct.unpack_from('<III', data, 100)
    assert grp >= 1 and 1 <= qp_attach <= total, f'multicast limits {grp} {qp_attach} {total}'
    # ROCE-DEV-RING-1: max_ring_qp, max_ring_cq, max_ring_wr, max_ring_cqe
    rings = struct.unpack_from('<IIII', data, 112)
    want = (16384, 16384, 32768, 1 << 22) if cap & 0x40 else (0, 0, 0, 0)
    assert rings == want, f'max_ring_* {rings}'


def wait_until(what, cond, timeout=10.0, step=0.02):
    """For state that has no event to wait on (telemetry): poll, sleeping."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out waiting for {what}')
        time.sleep(step)


class Device:
    """One started device: its frontend connection, memory and three rings
    (rx, tx, control), as a virtio-net driver with one queue pair has."""

    def __init__(self, backend, path, protocol_features=1 << vu.PROTOCOL_F_REPLY_ACK):
        self.backend, self.path = backend, path
        self.mem = vu.GuestMemory(MEM_SIZE)
        rx = vu.SplitRing(self.mem, 0, NET_SIZE, 0)
        tx = vu.SplitRing(self.mem, 1, NET_SIZE, rx.end)
        self.ctrl = vu.SplitRing(self.mem, CTRL_VQ, CTRL_SIZE, tx.end)
        assert self.ctrl.end <= CMD
        self.rings = [rx, tx, self.ctrl]
        self.fe = vu.Frontend(path)
        self.fe.start_device(FEATURES, self.mem, self.rings, protocol_features)
        self.wait_started()
        self.log_mark = len(backend.output())
        self.log_times = []     # when lines this queue logs were done, at the latest
        self.next_desc = 0
        self.reference = None   # the ack data of the first good QUERY_DEVICE

    def close(self):
        try:
            self.fe.close()
            # Stopping the backend while it still has the connection would
            # leak the connection's state (librte_vhost 22.11 does not call
            # destroy_connection on unregister): wait until it saw us go.
            if self.backend.proc.poll() is None:
                wait_until('the backend to see the frontend go',
                           lambda: self.backend.device(self.path)['vid'] == -1)
        finally:
            for r in self.rings:
                r.close()
            self.mem.close()

    def wait_started(self):
        # The reply-ack of the last vring message comes before new_device
        # runs; requests made before it would still be served (the backend
        # kicks itself on start), but counters are only read once it runs.
        wait_until('the device to start',
                   lambda: self.backend.device(self.path)['started'] == 1)

    def gpa(self, off):
        return self.mem.gpa(off)

    def counters(self):
        dev = self.backend.device(self.path)
        return {k: dev[k] for k in COUNTERS}

    # Building and sending chains ------------------------------------------

    def command(self, cls, cmd, data=b''):
        self.mem.write(CMD, bytes([cls, cmd]) + data)

    def arm_ack(self):
        self.mem.fill(ACK, ACK_AREA, SENTINEL)

    def chain(self, parts):
        """Write @parts, (addr, len, flags), as descriptors chained in table
        order from a rotating start; returns the head. The ring is idle
        between requests, so any index is free."""
        head = self.next_desc
        n = len(parts)
        for k, (addr, length, flags) in enumerate(parts):
            i = (head + k) % CTRL_SIZE
            nxt = (head + k + 1) % CTRL_SIZE
            self.ctrl.set_desc(i, addr, length, flags | (NEXT if k < n - 1 else 0),
                               nxt if k < n - 1 else 0)
        self.next_desc = (head + n) % CTRL_SIZE
        return head

    def pace(self, n):
        """Wait until @n more lines from this queue get past the backend's
        log rate limit. It allows LOG_BURST lines in a window that opens at
        a line and lasts LOG_WINDOW; a line is printed if fewer than
        LOG_BURST went before it within LOG_WINDOW, which holds if fewer
        than that were done (used entry seen) within LOG_WINDOW of now."""
        assert n <= LOG_BURST
        recent = sorted(t for t in self.log_times if t > time.monotonic() - LOG_WINDOW)
        if len(recent) > LOG_BURST - n:
            # Both sides use CLOCK_MONOTONIC; the margin covers rounding.
            time.sleep(max(0.0, recent[-(LOG_BURST - n + 1)] + LOG_WINDOW + 0.01 -
                           time.monotonic()))

    def note_logged(self, n):
        self.log_times += [time.monotonic()] * n
        self.log_times = self.log_times[-4 * LOG_BURST:]

    def run(self, *heads, logs=0, pace=True):
        """Make @heads available, kick once, wait for as many used entries.
        @logs is how many lines the backend logs for them (refusals)."""
        if logs and pace:
            self.pace(logs)
        for h in heads:
            self.ctrl.publish(h)
        self.ctrl.kick()
        used = self.ctrl.wait_used(len(heads))
        self.note_logged(logs)
        return used

    def simple(self, cls, cmd, data=b'', room=ROOM, logs=1):
        """class/command/data in one readable descriptor, @room writable
        bytes. Returns the head and its used entry."""
        self.command(cls, cmd, data)
        self.arm_ack()
        head = self.chain([(self.gpa(CMD), 2 + len(data), 0), (self.gpa(ACK), room, WRITE)])
        return head, self.run(head, logs=logs)[0]

    # Checks -----------------------------------------------------------------

    def ack(self, n):
        return self.mem.read(ACK, n)

    def assert_untouched(self, start=0, end=ACK_AREA):
        got = self.mem.read(ACK + start, end - start)
        bad = [start + i for i, b in enumerate(got) if b != SENTINEL]
        assert not bad, f'backend wrote ack bytes it must not have: offsets {bad[:8]}'

    def assert_counters(self, before, **delta):
        """Every counter moved by exactly @delta (others by 0)."""
        after = self.counters()
        got = {k: after[k] - before[k] for k in COUNTERS if after[k] != before[k]}
        want = {'ctrl_' + k: v for k, v in delta.items() if v}
        assert got == want, f'counter changes {got}, expected {want}'

    def mark_log(self):
        self.log_mark = len(self.backend.output())

    def new_log(self):
        out = self.backend.output()
        new, self.log_mark = out[self.log_mark:], len(out)
        return new

    def assert_logged(self, *lines):
        """Since the last check the backend logged exactly @lines about this
        device (after its name), in this order: the reason it refused."""
        got = [ln.split(f'{self.path}: ', 1)[1] for ln in self.new_log().splitlines()
               if f' {self.path}: ctrl' in ln or f' {self.path}: control' in ln]
        assert got == list(lines), f'backend logged {got}, expected {list(lines)}'

    def query_ok(self):
        """A good QUERY_DEVICE: ack OK and the 128 bytes of ack data."""
        before = self.counters()
        head, used = self.simple(CLASS_ROCE, QUERY_DEVICE, logs=0)
        assert used == (head, ROOM), f'used {used}'
        ack = self.ack(ROOM)
        assert ack[0] == VIRTIO_NET_OK, f'ack {ack[0]}'
        self.assert_untouched(ROOM)
        check_query_device(ack[1:])
        if self.reference is None:
            self.reference = ack[1:]
        assert ack[1:] == self.reference, 'QUERY_DEVICE answered differently'
        self.assert_counters(before, requests=1)
        return ack[1:]
