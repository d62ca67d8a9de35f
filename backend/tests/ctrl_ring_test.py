# SPDX-License-Identifier: BSD-3-Clause
"""Integration test: malformed descriptor chains on the control virtqueue.

Usage: ctrl_ring_test.py PATH/TO/vhost-user-rdma
Prints TAP.

A Python frontend brings a device up over the real vhost-user socket (guest
memory in a memfd, split rings the test writes itself) and sends the control
queue chains a buggy or hostile driver could make. For each it checks what
the backend answers (used length, ack byte, ack data), that it wrote nothing
it should not have, which counters moved (telemetry), why it refused (its
log), and that a good request still succeeds afterwards. The expected
behaviour is backend/vring/split_ring.c and backend/ctrl/ctrl_dispatch.c,
checked against virtio 1.3 2.7 (split virtqueues) and 5.1.6.5 (control
virtqueue).
"""

import functools
import os
import select
import sys
import tempfile
import time

import harness
import vhost_user as vu
from ctrl_device import (ACK, ACK_QUERY_DEVICE, ACK_QUERY_PORT_SPEED, CLASS_ROCE, CMD, CTRL_SIZE,
                         CTRL_VQ, LOG_BURST, LOG_WINDOW, MEM_SIZE, QUERY_DEVICE,
                         QUERY_PORT_SPEED, ROOM, TABLE, U64, VIRTIO_NET_ERR, VIRTIO_NET_OK, Device,
                         wait_until)
from vhost_user import DESC_F_INDIRECT as INDIRECT
from vhost_user import DESC_F_NEXT as NEXT
from vhost_user import DESC_F_WRITE as WRITE

BACKEND = sys.argv[1]


class Session:
    """A backend with one started device, shared by the cases that leave the
    ring idle; a failed case throws it away so the next starts clean."""

    def __init__(self):
        self.backend = None
        self.dev = None

    def device(self):
        if self.dev is None:
            self.backend = harness.Backend(BACKEND, prefix='vurring')
            try:
                self.backend.wait_socket()
                self.dev = Device(self.backend, self.backend.sock)
            except BaseException:
                self.discard()
                raise
        return self.dev

    def close(self):
        """Stop the backend; it must exit cleanly, with no sanitizer report."""
        dev, backend = self.dev, self.backend
        self.dev = self.backend = None
        try:
            if dev is not None:
                dev.close()
        finally:
            if backend is not None:
                stop_clean(backend)

    def discard(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the case already failed; start over
            pass


SESSION = Session()


def stop_clean(backend):
    """Stop the backend: it must exit 0, with no sanitizer report."""
    status = backend.stop()
    assert status == 0, f'backend exit status {status}: {backend.output()[-3000:]}'
    report = backend.sanitizer_report()
    assert not report, report[-3000:]


def why_failed(e, backend):
    """@e, and if the backend died, how: a crash shows as a timeout first."""
    if backend is not None and backend.proc.poll() is not None:
        return AssertionError(f'{e}; backend died ({backend.proc.returncode}): '
                              f'{backend.output()[-3000:]}')
    return e


def ring_case(fn):
    """A case on the shared device. If it fails, say whether the backend
    died (and how), and start the next case on a fresh backend."""
    @functools.wraps(fn)
    def wrapped():
        try:
            fn()
        except Exception as e:
            err = why_failed(e, SESSION.backend)
            SESSION.discard()
            if err is e:
                raise
            raise err from e
    return harness.case(wrapped)


# Good requests --------------------------------------------------------------

@ring_case
def query_device():
    d = SESSION.device()
    d.query_ok()
    d.query_ok()


@ring_case
def disabled_ring_not_served():
    # vhost-user.rst: a disabled ring is not processed. A request made
    # while the control queue is disabled waits, and is answered once the
    # frontend enables the ring again.
    d = SESSION.device()
    before = d.counters()
    d.fe.enable_vring(CTRL_VQ, False)
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    head = d.chain([(d.gpa(CMD), 2, 0), (d.gpa(ACK), ROOM, WRITE)])
    d.ctrl.publish(head)
    d.ctrl.kick()
    assert not select.select([d.ctrl.callfd], [], [], 0.3)[0], 'served while disabled'
    assert d.ctrl.used_idx() == d.ctrl.last_used
    d.assert_untouched()
    d.fe.enable_vring(CTRL_VQ, True)
    assert d.ctrl.wait_used(1)[0] == (head, ROOM)
    assert d.ack(1)[0] == VIRTIO_NET_OK
    d.assert_counters(before, requests=1)


@ring_case
def chain_of_exactly_ring_size_accepted():
    # 2.7.5.2 allows a chain as long as the queue: 64 descriptors, the
    # header split byte by byte and the ack data over 62 pieces.
    d = SESSION.device()
    before = d.counters()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    parts = [(d.gpa(CMD), 1, 0), (d.gpa(CMD + 1), 1, 0), (d.gpa(ACK), 1, WRITE)]
    off = 1
    for size in [2] * 60 + [8]:
        parts.append((d.gpa(ACK + off), size, WRITE))
        off += size
    assert len(parts) == CTRL_SIZE and off == ROOM
    head = d.chain(parts)
    assert d.run(head)[0] == (head, ROOM)
    ack = d.ack(ROOM)
    assert ack[0] == VIRTIO_NET_OK and ack[1:] == d.query_ok()
    d.assert_counters(before, requests=2)


@ring_case
def zero_length_descriptors_accepted():
    # Empty buffers add nothing; they do not end or break the chain.
    d = SESSION.device()
    before = d.counters()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    head = d.chain([(d.gpa(CMD), 0, 0), (d.gpa(CMD), 2, 0), (0, 0, 0),
                    (d.gpa(ACK), 0, WRITE), (d.gpa(ACK), ROOM, WRITE), (U64 - 1, 0, WRITE)])
    assert d.run(head)[0] == (head, ROOM)
    assert d.ack(1)[0] == VIRTIO_NET_OK
    d.assert_counters(before, requests=1)


# Chains the ring layer refuses: used len 0, nothing written, bad_chains + 1 -

def refused(d, head, reason):
    """Run the chain at @head: refused for @reason, returned with len 0,
    no ack written; then a good request succeeds."""
    before = d.counters()
    used = d.run(head, logs=1)[0]
    assert used == (head, 0), f'used {used}, expected ({head}, 0)'
    d.assert_untouched()
    d.assert_counters(before, bad_chains=1)
    d.assert_logged('ctrl: ' + reason)
    d.query_ok()


@ring_case
def descriptor_loop_refused():
    d = SESSION.device()
    d.arm_ack()
    # desc 0 -> 1 -> 0: both writable, so only the loop bound can end it.
    d.ctrl.set_desc(0, d.gpa(ACK), 1, WRITE | NEXT, 1)
    d.ctrl.set_desc(1, d.gpa(ACK + 1), ROOM - 1, WRITE | NEXT, 0)
    refused(d, 0, 'descriptor chain loops')
    # A header pointing at itself.
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    d.ctrl.set_desc(5, d.gpa(CMD), 2, NEXT, 5)
    refused(d, 5, 'descriptor chain loops')


@ring_case
def chain_longer_than_ring_refused():
    # 65 steps on a 64-entry table: every descriptor once, then 0 again.
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    for i in range(CTRL_SIZE):
        d.ctrl.set_desc(i, d.gpa(CMD + i % 2), 1, NEXT, (i + 1) % CTRL_SIZE)
    refused(d, 0, 'descriptor chain loops')


@ring_case
def next_outside_table_refused():
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    for nxt in (CTRL_SIZE, 0xffff):
        d.arm_ack()
        d.ctrl.set_desc(3, d.gpa(CMD), 2, NEXT, 4)
        d.ctrl.set_desc(4, d.gpa(ACK), ROOM, WRITE | NEXT, nxt)
        refused(d, 3, 'descriptor index out of range')


@ring_case
def buffer_outside_memory_refused():
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    end = d.gpa(MEM_SIZE)
    for parts in (
            [(0x1000, 2, 0), (d.gpa(ACK), ROOM, WRITE)],              # below the region
            [(d.gpa(CMD), 2, 0), (end, ROOM, WRITE)],                 # just past its end
            [(end - 1, 2, 0), (d.gpa(ACK), ROOM, WRITE)],             # header across the end
            [(d.gpa(CMD), 2, 0), (end - 64, ROOM, WRITE)],            # ack across the end
            [(d.gpa(CMD), 2, 0), (d.gpa(ACK), 1, WRITE), (0, ROOM - 1, WRITE)]):  # a later piece
        d.arm_ack()
        refused(d, d.chain(parts), 'buffer outside guest memory')


@ring_case
def buffer_wrapping_2_64_refused():
    # addr + len overflows 64 bits: a bound written as addr + len <= end
    # would let these through.
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    for parts in ([(U64 - 1, 2, 0), (d.gpa(ACK), ROOM, WRITE)],
                  [(d.gpa(CMD), 2, 0), (U64 - 64, ROOM, WRITE)],
                  [(d.gpa(CMD), 2, 0), (U64 - 0x1000, 0xffffffff, WRITE)]):
        d.arm_ack()
        refused(d, d.chain(parts), 'buffer outside guest memory')


@ring_case
def readable_after_writable_refused():
    # 2.7.4: device-readable descriptors come before device-writable ones.
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    head = d.chain([(d.gpa(CMD), 2, 0), (d.gpa(ACK), ROOM, WRITE), (d.gpa(CMD + 2), 4, 0)])
    refused(d, head, 'readable descriptor after a writable one')


# Requests the dispatcher answers VIRTIO_NET_ERR ------------------------------

def answered_err(d, head, used, used_len, reject, log, before):
    """@used is VIRTIO_NET_ERR in @used_len bytes and nothing past them,
    counted under @reject, logged as @log; then a good request succeeds."""
    assert used == (head, used_len), f'used {used}, expected ({head}, {used_len})'
    if used_len:
        assert d.ack(1)[0] == VIRTIO_NET_ERR, f'ack {d.ack(1)[0]}'
    d.assert_untouched(used_len)
    d.assert_counters(before, requests=1, errors=1, **{'rej_' + reject: 1})
    d.assert_logged(log)
    d.query_ok()


@ring_case
def short_header_answered_err():
    d = SESSION.device()
    end = d.gpa(MEM_SIZE)
    d.command(CLASS_ROCE, QUERY_DEVICE)
    # A class byte in the region's last byte: the command byte would lie
    # past the backend's mapping. Reading it there crashes or misreads.
    d.mem.write(MEM_SIZE - 1, bytes([CLASS_ROCE]))
    for parts in ([(d.gpa(CMD), 1, 0), (d.gpa(ACK), ROOM, WRITE)],   # class only
                  [(d.gpa(CMD), 0, 0), (d.gpa(ACK), ROOM, WRITE)],   # empty header
                  [(d.gpa(ACK), ROOM, WRITE)],                       # none at all
                  [(end - 1, 1, 0), (d.gpa(ACK), ROOM, WRITE)]):     # last guest byte
        before = d.counters()
        d.arm_ack()
        head = d.chain(parts)
        # No command, so no ack data: only the ack byte.
        answered_err(d, head, d.run(head, logs=1)[0], 1, 'short_header',
                     'ctrl ?: shorter than class and command', before)


@ring_case
def no_writable_byte_answered_nothing():
    # Nothing to write the ack into: the request counts as refused, and the
    # chain comes back with len 0.
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    for parts in ([(d.gpa(CMD), 2, 0)], [(d.gpa(CMD), 2, 0), (d.gpa(ACK), 0, WRITE)]):
        before = d.counters()
        d.arm_ack()
        head = d.chain(parts)
        answered_err(d, head, d.run(head, logs=1)[0], 0, 'no_ack',
                     'ctrl ?: no writable ack byte', before)


@ring_case
def ack_room_too_short_answered_err():
    # QUERY_DEVICE's ack data needs 128 bytes after the ack byte; with less,
    # only the ack byte is written, and not one byte more.
    d = SESSION.device()
    for room in (1, ACK_QUERY_DEVICE):
        before = d.counters()
        head, used = d.simple(CLASS_ROCE, QUERY_DEVICE, room=room)
        answered_err(d, head, used, 1, 'ack_length',
                     'ctrl QUERY_DEVICE: no room for the ack data', before)


@ring_case
def unknown_command_answered_err():
    d = SESSION.device()
    # 29: VIRTIO_NET_CTRL_ROCE_NR_CMDS, one past the ABI's last command (RESIZE_CQ)
    for cls, cmd in ((CLASS_ROCE, 200), (CLASS_ROCE, 29), (255, 0), (63, QUERY_DEVICE)):
        before = d.counters()
        head, used = d.simple(cls, cmd)
        answered_err(d, head, used, 1, 'unknown_command',
                     'ctrl ?: unknown class or command', before)


@ring_case
def feature_not_negotiated_answered_err():
    # QUERY_PORT_SPEED needs VIRTIO_NET_F_ROCE_PORT_SPEED, not negotiated
    # here. The command is known, so its ack data is written, as zeroes.
    d = SESSION.device()
    before = d.counters()
    head, used = d.simple(CLASS_ROCE, QUERY_PORT_SPEED)
    assert d.ack(1 + ACK_QUERY_PORT_SPEED)[1:] == bytes(ACK_QUERY_PORT_SPEED)
    answered_err(d, head, used, 1 + ACK_QUERY_PORT_SPEED, 'feature',
                 'ctrl QUERY_PORT_SPEED: feature not negotiated', before)


@ring_case
def wrong_command_length_answered_err():
    d = SESSION.device()
    before = d.counters()
    head, used = d.simple(CLASS_ROCE, QUERY_DEVICE, data=b'\0')
    assert d.ack(ROOM)[1:] == bytes(ACK_QUERY_DEVICE)
    answered_err(d, head, used, ROOM, 'command_length',
                 'ctrl QUERY_DEVICE: command data of the wrong length', before)


# Indirect descriptors (VIRTIO_RING_F_INDIRECT_DESC, 2.7.5.3) -----------------

def table(d, entries, off=TABLE):
    """Write an indirect table of (addr, len, flags, next); returns its gpa."""
    for i, (addr, length, flags, nxt) in enumerate(entries):
        d.mem.write(off + 16 * i, vu.DESC.pack(addr, length, flags, nxt))
    return d.gpa(off)


def query_entries(d):
    return [(d.gpa(CMD), 2, NEXT, 1), (d.gpa(ACK), ROOM, WRITE, 0)]


@ring_case
def indirect_accepted():
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    tbl = table(d, query_entries(d))
    ack_only = table(d, [(d.gpa(ACK), ROOM, WRITE, 0)], TABLE + 0x1000)
    for parts in ([(tbl, 32, INDIRECT)],
                  # 2.7.5.3.2: the device MUST ignore WRITE on the descriptor
                  # that refers to an indirect table...
                  [(tbl, 32, INDIRECT | WRITE)],
                  # ... and MUST handle direct descriptors before it.
                  [(d.gpa(CMD), 2, 0), (ack_only, 16, INDIRECT)]):
        before = d.counters()
        d.arm_ack()
        head = d.chain(parts)
        assert d.run(head)[0] == (head, ROOM)
        assert d.ack(1)[0] == VIRTIO_NET_OK and d.ack(ROOM)[1:] == d.query_ok()
        d.assert_counters(before, requests=2)


@ring_case
def indirect_malformed_refused():
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    good = table(d, query_entries(d))
    nested = table(d, [(d.gpa(CMD), 2, NEXT, 1), (good, 32, INDIRECT, 0)], TABLE + 0x1000)
    loop = table(d, [(d.gpa(ACK), 1, WRITE | NEXT, 1), (d.gpa(ACK + 1), ROOM - 1, WRITE | NEXT, 0)],
                 TABLE + 0x2000)
    past = table(d, [(d.gpa(CMD), 2, NEXT, 1), (d.gpa(ACK), ROOM, WRITE | NEXT, 2)],
                 TABLE + 0x3000)
    # A table in the last 32 bytes of the region, claimed 48 bytes long.
    tail = table(d, query_entries(d), MEM_SIZE - 32)
    for parts, reason in (
            ([(nested, 32, INDIRECT)], 'nested indirect descriptor'),
            ([(good, 32, INDIRECT | NEXT), (d.gpa(ACK), ROOM, WRITE)],
             'indirect descriptor with NEXT'),
            ([(good, 24, INDIRECT)], 'indirect table length not a multiple of 16'),
            ([(good, 0, INDIRECT)], 'indirect table length not a multiple of 16'),
            ([(tail, 48, INDIRECT)], 'indirect table outside guest memory'),
            ([(U64 - 16, 32, INDIRECT)], 'indirect table outside guest memory'),
            ([(loop, 32, INDIRECT)], 'descriptor chain loops'),
            ([(past, 32, INDIRECT)], 'descriptor index out of range')):
        d.arm_ack()
        refused(d, d.chain(parts), reason)


@ring_case
def indirect_segments_bounded():
    # An indirect table may be longer than the ring; the walk is bounded by
    # the table, and the gathered segments by the backend's 64.
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    n = CTRL_SIZE + 1
    entries = [(d.gpa(CMD + k % 2), 1, NEXT, k + 1) for k in range(n - 1)]
    entries.append((d.gpa(ACK), ROOM, WRITE, 0))
    d.arm_ack()
    refused(d, d.chain([(table(d, entries), 16 * n, INDIRECT)]),
            'chain has too many segments')
    # The same length with empty pieces: 65 descriptors, 2 segments. The
    # backend serves it (2.7.5.3.1 forbids the driver a chain longer than the
    # queue; the device is not required to refuse one).
    entries = [(d.gpa(CMD), 2, NEXT, 1)]
    entries += [(0, 0, NEXT, k + 1) for k in range(1, n - 1)]
    entries.append((d.gpa(ACK), ROOM, WRITE, 0))
    d.arm_ack()
    before = d.counters()
    head = d.chain([(table(d, entries), 16 * n, INDIRECT)])
    assert d.run(head)[0] == (head, ROOM)
    assert d.ack(1)[0] == VIRTIO_NET_OK
    d.assert_counters(before, requests=1)


# Several chains in one kick ---------------------------------------------------

@ring_case
def bad_chains_do_not_stop_the_batch():
    # One pass over the ring answers each chain in order: a refused chain
    # does not end the pass or disturb the next ones.
    d = SESSION.device()
    d.command(CLASS_ROCE, QUERY_DEVICE)
    d.arm_ack()
    before = d.counters()
    ack2 = ACK + 256
    d.ctrl.set_desc(10, d.gpa(CMD), 2, NEXT, 11)                  # good
    d.ctrl.set_desc(11, d.gpa(ACK), ROOM, WRITE, 0)
    d.ctrl.set_desc(12, d.gpa(CMD), 2, NEXT, 12)                  # loop
    d.ctrl.set_desc(13, d.gpa(CMD), 1, NEXT, 14)                  # short header
    d.ctrl.set_desc(14, d.gpa(ack2 + 200), 1, WRITE, 0)
    d.ctrl.set_desc(15, d.gpa(CMD), 2, NEXT, 16)                  # good
    d.ctrl.set_desc(16, d.gpa(ack2), ROOM, WRITE, 0)
    used = d.run(10, 12, 13, 15, logs=2)
    assert used == [(10, ROOM), (12, 0), (13, 1), (15, ROOM)], used
    assert d.ack(ROOM)[0] == VIRTIO_NET_OK
    assert d.mem.read(ack2, ROOM)[0] == VIRTIO_NET_OK
    assert d.mem.read(ack2 + 200, 1)[0] == VIRTIO_NET_ERR
    d.assert_counters(before, requests=3, errors=1, bad_chains=1, rej_short_header=1)
    d.assert_logged('ctrl: descriptor chain loops', 'ctrl ?: shorter than class and command')
    assert d.ack(ROOM)[1:] == d.mem.read(ack2, ROOM)[1:] == d.query_ok()


@ring_case
def flood_of_bad_chains_keeps_serving():
    # Full rings of bad chains (the avail index a whole ring ahead, which is
    # still legal): every one answered and counted, the log kept short.
    d = SESSION.device()
    rounds = 4
    for i in range(CTRL_SIZE):
        d.ctrl.set_desc(i, d.gpa(CMD), 2, NEXT, CTRL_SIZE)
    before = d.counters()
    d.pace(1)
    start = time.monotonic()
    for _ in range(rounds):
        used = d.run(*range(CTRL_SIZE), logs=CTRL_SIZE, pace=False)
        assert used == [(i, 0) for i in range(CTRL_SIZE)], used
    elapsed = time.monotonic() - start
    d.assert_counters(before, bad_chains=rounds * CTRL_SIZE)
    lines = d.new_log().count(f'{d.path}: ctrl: descriptor index out of range')
    assert 1 <= lines <= LOG_BURST * (int(elapsed / LOG_WINDOW) + 1), (lines, elapsed)
    d.query_ok()


@ring_case
def backend_exits_cleanly():
    SESSION.device()
    SESSION.close()


# A corrupt ring --------------------------------------------------------------

def wait_broken(dev, count):
    # Nothing is used or notified: telemetry is the only witness.
    wait_until('ctrl_ring_broken', lambda: dev.counters()['ctrl_ring_broken'] == count)


@harness.case
def broken_ring_isolated():
    """A driver that moves avail->idx more than the ring size ahead (2.7.6)
    has corrupted the ring: the backend marks it broken and touches it no
    more, counts each time it finds it so, and keeps serving the same
    connection and other devices. Resetting the vring through vhost-user
    (GET_VRING_BASE, then set it up again) serves it afresh."""
    tmp = tempfile.mkdtemp(prefix='vur-')
    socks = [os.path.join(tmp, 'broken'), os.path.join(tmp, 'other')]
    b = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], prefix='vurbroken')
    devs = []
    try:
        for s in socks:
            b.wait_socket(s)
        devs = [Device(b, s) for s in socks]
        a, other = devs
        a.query_ok()
        other.query_ok()

        before = a.counters()
        used_before = a.ctrl.used_idx()
        a.command(CLASS_ROCE, QUERY_DEVICE)
        a.arm_ack()
        a.ctrl.set_desc(0, a.gpa(CMD), 2, NEXT, 1)
        a.ctrl.set_desc(1, a.gpa(ACK), ROOM, WRITE, 0)
        a.mem.write(a.ctrl.avail_off + 4 + 2 * (a.ctrl.avail_idx % CTRL_SIZE), b'\0\0')
        # One store moves the index CTRL_SIZE + 1 past what the backend has
        # read: a pass in between (a late kick) must not see a valid index.
        a.ctrl.set_avail_idx((a.ctrl.avail_idx + CTRL_SIZE + 1) & 0xffff)
        a.ctrl.kick()
        wait_broken(a, 1)
        a.note_logged(1)
        a.assert_counters(before, ring_broken=1)
        a.assert_logged('control queue broken: driver moved the avail index past the ring')
        assert a.ctrl.used_idx() == used_before, 'backend used a broken ring'
        assert not select.select([a.ctrl.callfd], [], [], 0)[0], 'backend notified'
        a.assert_untouched()

        # A later kick: found broken again, still nothing read or written.
        a.pace(1)
        a.ctrl.kick()
        wait_broken(a, 2)
        a.note_logged(1)
        a.assert_logged('control queue broken: driver moved the avail index past the ring')
        assert a.ctrl.used_idx() == used_before
        assert not select.select([a.ctrl.callfd], [], [], 0)[0], 'backend notified'
        a.assert_untouched()

        # The connection and the other device are unaffected.
        assert len(a.fe.get_config(0, 6)) == 6
        other.query_ok()

        # Reset the vring: the backend gives back where it stopped (after
        # the one good request), then serves the fresh ring.
        assert a.fe.get_vring_base(CTRL_VQ) == 1
        a.ctrl.reset()
        a.next_desc = 0
        a.fe.set_vring(a.ctrl)
        a.wait_started()
        a.query_ok()

        # A head outside the table breaks it too (2.7.6: ring entries are
        # descriptor indices).
        before = a.counters()
        a.pace(1)
        a.ctrl.publish(CTRL_SIZE)
        a.ctrl.kick()
        wait_broken(a, 3)
        a.note_logged(1)
        a.assert_counters(before, ring_broken=1)
        a.assert_logged('control queue broken: avail ring entry out of range')
        assert a.ctrl.used_idx() == 1
        other.query_ok()
        assert other.counters()['ctrl_ring_broken'] == 0
    except Exception as e:
        err = why_failed(e, b)
        if err is e:
            raise
        raise err from e
    finally:
        try:
            for dev in devs:
                dev.close()
        finally:
            stop_clean(b)


if __name__ == '__main__':
    SESSION.discard()
    sys.exit(harness.report())
