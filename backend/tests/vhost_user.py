# SPDX-License-Identifier: BSD-3-Clause
"""A minimal vhost-user frontend for tests: the real protocol over the real
socket, one message at a time (docs/interop/vhost-user.rst in QEMU).

Besides single messages it can bring a device up the way QEMU does: guest
memory in a memfd shared with the backend (GuestMemory), split virtqueues
the test drives as a virtio driver would (SplitRing), and the vring set-up
messages that hand them to the backend (Frontend.start_device)."""

import ctypes
import mmap
import os
import select
import socket
import struct
import time

GET_FEATURES = 1
SET_FEATURES = 2
SET_OWNER = 3
RESET_OWNER = 4
SET_MEM_TABLE = 5
SET_VRING_NUM = 8
SET_VRING_ADDR = 9
SET_VRING_BASE = 10
GET_VRING_BASE = 11
SET_VRING_KICK = 12
SET_VRING_CALL = 13
GET_PROTOCOL_FEATURES = 15
SET_PROTOCOL_FEATURES = 16
SET_VRING_ENABLE = 18
GET_CONFIG = 24
SET_CONFIG = 25
RESET_DEVICE = 34

VERSION = 0x1
REPLY = 0x4
NEED_REPLY = 0x8
HDR = struct.Struct('<III')

# Feature bits (virtio 1.x section 6, virtio-net 5.1.3, vhost-user.rst).
F_INDIRECT_DESC = 28
F_EVENT_IDX = 29
F_PROTOCOL_FEATURES = 30
F_VERSION_1 = 32
NET_F_CTRL_VQ = 17
PROTOCOL_F_MQ = 0
PROTOCOL_F_REPLY_ACK = 3
PROTOCOL_F_RESET_DEVICE = 13

# struct vhost_user_memory: nregions, padding, then regions of
# guest_phys_addr, memory_size, userspace_addr, mmap_offset.
MEM_HDR = struct.Struct('<II')
MEM_REGION = struct.Struct('<QQQQ')
# struct vhost_vring_state and struct vhost_vring_addr (linux/vhost_types.h):
# note the order desc, used, avail.
VRING_STATE = struct.Struct('<II')
VRING_ADDR = struct.Struct('<IIQQQQ')

# Split ring (virtio 1.x 2.7): descriptor flags and element layouts.
DESC_F_NEXT = 1
DESC_F_WRITE = 2
DESC_F_INDIRECT = 4
DESC = struct.Struct('<QIHH')
USED_ELEM = struct.Struct('<II')


class Frontend:
    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.reply_ack = False

    def close(self):
        self.sock.close()

    def send(self, request, payload=b'', flags=VERSION, fds=()):
        msg = HDR.pack(request, flags, len(payload)) + payload
        if not fds:
            self.sock.sendall(msg)
            return
        # The fds travel with the first byte; a vhost-user message is far
        # smaller than the socket buffer, so one sendmsg carries it all.
        sent = socket.send_fds(self.sock, [msg], list(fds))
        if sent != len(msg):
            raise ConnectionError(f'short send with fds: {sent} of {len(msg)}')

    def recv(self, request):
        hdr = self._read(HDR.size)
        req, flags, size = HDR.unpack(hdr)
        if req != request or not flags & REPLY:
            raise AssertionError(f'reply to {req} flags {flags:#x}, expected {request}')
        return self._read(size)

    def _read(self, n):
        buf = b''
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError('backend closed the connection')
            buf += chunk
        return buf

    def get_u64(self, request):
        self.send(request)
        return struct.unpack('<Q', self.recv(request))[0]

    def set_u64(self, request, value):
        self.send(request, struct.pack('<Q', value))

    def call(self, request, payload=b'', fds=()):
        """A message that gets no reply of its own. Once REPLY_ACK is
        negotiated, ask for the ack: it says the backend handled the message
        (and how) before the next one is sent, which keeps tests in step."""
        if not self.reply_ack:
            self.send(request, payload, fds=fds)
            return
        self.send(request, payload, VERSION | NEED_REPLY, fds)
        status, = struct.unpack('<Q', self.recv(request))
        if status != 0:
            raise AssertionError(f'backend failed request {request}: {status:#x}')

    def get_config(self, offset, size, claimed=None):
        """GET_CONFIG; returns the region the backend sent back."""
        payload = struct.pack('<III', offset, size if claimed is None else claimed, 0)
        self.send(GET_CONFIG, payload + bytes(size))
        reply = self.recv(GET_CONFIG)
        _, rsize, _ = struct.unpack_from('<III', reply)
        return reply[12:12 + rsize]

    def set_config(self, offset, data, need_reply=True):
        payload = struct.pack('<III', offset, len(data), 0) + data
        self.send(SET_CONFIG, payload, VERSION | (NEED_REPLY if need_reply else 0))
        if need_reply:
            return struct.unpack('<Q', self.recv(SET_CONFIG))[0]
        return None

    # Device bring-up -----------------------------------------------------

    def negotiate(self, features, protocol_features=1 << PROTOCOL_F_REPLY_ACK):
        """Feature negotiation as QEMU orders it. Returns what was offered."""
        offered = self.get_u64(GET_FEATURES)
        missing = features & ~offered
        if missing:
            raise AssertionError(f'features {missing:#x} not offered ({offered:#x})')
        if features & (1 << F_PROTOCOL_FEATURES):
            proto = self.get_u64(GET_PROTOCOL_FEATURES)
            if protocol_features & ~proto:
                raise AssertionError(f'protocol features {protocol_features:#x} '
                                     f'not offered ({proto:#x})')
            self.set_u64(SET_PROTOCOL_FEATURES, protocol_features)
            self.reply_ack = bool(protocol_features & (1 << PROTOCOL_F_REPLY_ACK))
        self.call(SET_OWNER)
        self.call(SET_FEATURES, struct.pack('<Q', features))
        return offered

    def set_mem_table(self, mem):
        payload = MEM_HDR.pack(1, 0) + MEM_REGION.pack(mem.gpa_base, mem.size, mem.hva, 0)
        self.call(SET_MEM_TABLE, payload, fds=[mem.fd])

    def set_vring(self, ring, base=0, enable=True):
        """Hand one split ring to the backend: size, base, addresses
        (frontend virtual addresses, translated through the memory table's
        userspace_addr), kick and call eventfds, then enable it (needed
        because VHOST_USER_F_PROTOCOL_FEATURES is negotiated)."""
        self.call(SET_VRING_NUM, VRING_STATE.pack(ring.index, ring.size))
        self.call(SET_VRING_BASE, VRING_STATE.pack(ring.index, base))
        self.call(SET_VRING_ADDR, VRING_ADDR.pack(
            ring.index, 0, ring.mem.hva + ring.desc_off, ring.mem.hva + ring.used_off,
            ring.mem.hva + ring.avail_off, 0))
        self.call(SET_VRING_KICK, struct.pack('<Q', ring.index), fds=[ring.kickfd])
        self.call(SET_VRING_CALL, struct.pack('<Q', ring.index), fds=[ring.callfd])
        if enable:
            self.enable_vring(ring.index)

    def enable_vring(self, index, enable=True):
        self.call(SET_VRING_ENABLE, VRING_STATE.pack(index, int(enable)))

    def get_vring_base(self, index):
        """Stop a vring; the backend answers the next avail index it would read."""
        self.send(GET_VRING_BASE, VRING_STATE.pack(index, 0))
        got_index, num = VRING_STATE.unpack(self.recv(GET_VRING_BASE))
        if got_index != index:
            raise AssertionError(f'GET_VRING_BASE answered vring {got_index}, not {index}')
        return num

    def start_device(self, features, mem, rings, protocol_features=1 << PROTOCOL_F_REPLY_ACK):
        """Negotiate, map memory, set every ring up, then enable them, as
        QEMU does. librte_vhost starts the device once every vring it has
        heard of is ready: enabling any before all are known would start it
        with fewer."""
        self.negotiate(features, protocol_features)
        self.set_mem_table(mem)
        for ring in rings:
            self.set_vring(ring, enable=False)
        for ring in rings:
            self.enable_vring(ring.index)


class GuestMemory:
    """One region of "guest" memory: a memfd both sides map. Offsets are
    what the test uses; gpa() is what goes into descriptors."""

    def __init__(self, size, gpa_base=0x100000000):
        self.size = size
        self.gpa_base = gpa_base
        self.fd = os.memfd_create('vur-guest', os.MFD_CLOEXEC)
        os.ftruncate(self.fd, size)
        self.map = mmap.mmap(self.fd, size)
        # The region's userspace_addr is our own mapping's address: the
        # backend translates ring addresses through it, as with QEMU.
        self._pin = ctypes.c_char.from_buffer(self.map)
        self.hva = ctypes.addressof(self._pin)

    def close(self):
        # The ctypes views export the buffer; mmap refuses to close under them.
        self._pin = None
        self.map.close()
        os.close(self.fd)

    def gpa(self, off):
        return self.gpa_base + off

    def write(self, off, data):
        self.map[off:off + len(data)] = data

    def read(self, off, n):
        return bytes(self.map[off:off + n])

    def fill(self, off, n, byte):
        self.map[off:off + n] = bytes([byte]) * n

    def u16(self, off):
        # A ctypes view gives single 16-bit loads and stores, as the ring
        # indices need (the backend reads them concurrently).
        return ctypes.c_uint16.from_buffer(self.map, off)


class SplitRing:
    """The driver side of one split virtqueue in guest memory, without
    EVENT_IDX. The test writes descriptors itself, so that it can write
    malformed ones; publish() and kick() make them available."""

    def __init__(self, mem, index, size, off):
        self.mem, self.index, self.size = mem, index, size
        # 2.7: descriptor table 16-byte aligned, avail 2, used 4. Each part
        # gets its own page, so nothing the backend writes lands in another.
        self.desc_off = off
        self.avail_off = off + _page_round(16 * size)
        self.used_off = self.avail_off + _page_round(6 + 2 * size)
        self.end = self.used_off + _page_round(6 + 8 * size)
        mem.fill(off, self.end - off, 0)
        self.kickfd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        self.callfd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        self.avail_idx = 0   # the driver's copy of avail->idx
        self.last_used = 0   # used entries already read

    def close(self):
        os.close(self.kickfd)
        os.close(self.callfd)

    def reset(self):
        """Zero the rings, as a driver resetting the queue does."""
        self.mem.fill(self.desc_off, self.end - self.desc_off, 0)
        self.avail_idx = self.last_used = 0
        self.drain_call()

    def set_desc(self, i, addr, length, flags=0, next_=0):
        self.mem.write(self.desc_off + 16 * i, DESC.pack(addr, length, flags, next_))

    def publish(self, head):
        """Put @head in the avail ring, then move avail->idx past it."""
        slot = self.avail_off + 4 + 2 * (self.avail_idx % self.size)
        self.mem.write(slot, struct.pack('<H', head))
        self.set_avail_idx((self.avail_idx + 1) & 0xffff)

    def set_avail_idx(self, value):
        # x86 keeps stores in order: the entry is visible before the index.
        self.avail_idx = value
        self.mem.u16(self.avail_off + 2).value = value

    def kick(self):
        os.eventfd_write(self.kickfd, 1)

    def used_idx(self):
        return self.mem.u16(self.used_off + 2).value

    def drain_call(self):
        try:
            os.eventfd_read(self.callfd)
        except BlockingIOError:
            pass

    def wait_used(self, n=1, timeout=5.0):
        """Wait (on the call eventfd, never spinning) until @n more used
        entries are there. Returns them as (id, len) in ring order.

        Without EVENT_IDX or NO_INTERRUPT the device notifies after every
        pass that used entries, after the last entry of the pass: taking a
        notification as well as the entries leaves none behind for a
        request of one chain, so a later "not notified" check holds."""
        deadline = time.monotonic() + timeout
        want = (self.last_used + n) & 0xffff
        notified = False
        while not (notified and self.used_idx() == want):
            if (self.used_idx() - self.last_used) & 0xffff > n:
                raise AssertionError(f'backend used more entries than made available: '
                                     f'used idx {self.used_idx()}, expected {want}')
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f'no used entry or notification within {timeout} s '
                                     f'(used idx {self.used_idx()}, expected {want})')
            if select.select([self.callfd], [], [], left)[0]:
                self.drain_call()
                notified = True
        out = []
        for _ in range(n):
            off = self.used_off + 4 + 8 * (self.last_used % self.size)
            out.append(USED_ELEM.unpack(self.mem.read(off, 8)))
            self.last_used = (self.last_used + 1) & 0xffff
        return out


def _page_round(n):
    return (n + 4095) & ~4095
