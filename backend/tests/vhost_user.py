# SPDX-License-Identifier: BSD-3-Clause
"""A minimal vhost-user frontend for tests: the real protocol over the real
socket, one message at a time (docs/interop/vhost-user.rst in QEMU)."""

import socket
import struct

GET_FEATURES = 1
SET_FEATURES = 2
SET_OWNER = 3
GET_PROTOCOL_FEATURES = 15
SET_PROTOCOL_FEATURES = 16
GET_CONFIG = 24
SET_CONFIG = 25

VERSION = 0x1
REPLY = 0x4
NEED_REPLY = 0x8
HDR = struct.Struct('<III')


class Frontend:
    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)

    def close(self):
        self.sock.close()

    def send(self, request, payload=b'', flags=VERSION):
        self.sock.sendall(HDR.pack(request, flags, len(payload)) + payload)

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
