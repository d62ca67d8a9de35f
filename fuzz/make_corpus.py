#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of fuzz/corpus/ (the input formats are described
at the top of each fuzz_*.c): the packets, work requests, control commands,
rings and frames that the unit tests use (transport/pkt_test.c's vector and
rc_test.c's exchanges, ctrl/ctrl_roce_test.c's and ctrl_net_test.c's
commands, vring/split_ring_test.c's chains, net/net_frame_test.c's frames).
Run it again after a format changes; the files are small and checked in.

    fuzz/make_corpus.py [CORPUS_DIR]
"""
import os
import struct
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus')

MAC_DEV = bytes.fromhex('525400000001')
MAC_PEER = bytes.fromhex('525400000002')


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# --- RoCE v2 frames (fuzz_roce.c) ---------------------------------------

RC, UC, UD = 0x00, 0x20, 0x60
SEND_ONLY, SEND_ONLY_IMM, WRITE_FIRST, WRITE_LAST, WRITE_ONLY = 0x04, 0x05, 0x06, 0x08, 0x0a
READ_REQ, READ_RESP_ONLY, ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 0x0c, 0x10, 0x11, 0x12, 0x13, 0x14
SEND_ONLY_INV, CNP = 0x17, 0x81
QKEY = 0x11111111


def bth(opcode, qpn, psn, ack_req=True, pad=0):
    return struct.pack('>BBHII', opcode, pad << 4, 0xffff, qpn & 0xffffff,
                       (0x80000000 if ack_req else 0) | (psn & 0xffffff))


def frame(opcode, qp, psn=0, ext=b'', payload=b'', ipv6=False):
    """A whole RoCE v2 frame to QP index @qp (the harness maps it), ICRC left zero."""
    pad = (4 - len(payload) % 4) % 4
    roce = bth(opcode, qp, psn, pad=pad) + ext + payload + bytes(pad) + bytes(4)
    udp = struct.pack('>HHHH', 0xc123, 4791, 8 + len(roce), 0)
    if ipv6:
        ip = struct.pack('>IHBB', 0x60000000, 8 + len(roce), 17, 64) + \
            bytes.fromhex('fe800000000000000000000000000002') + \
            bytes.fromhex('fe800000000000000000000000000001')
        eth = MAC_DEV + MAC_PEER + b'\x86\xdd'
    else:
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + 8 + len(roce), 0, 0x4000, 64, 17, 0,
                         bytes([10, 0, 0, 2]), bytes([10, 0, 0, 1]))
        eth = MAC_DEV + MAC_PEER + b'\x08\x00'
    return eth + ip + udp + roce


def reth(va, rkey, length):
    return struct.pack('>QII', va, rkey, length)


def rec_frame(f, fix=0):
    return bytes([0, fix]) + struct.pack('<H', len(f)) + f


def sge(addr, length, lkey=0):
    return struct.pack('<QII', addr, length, lkey)


def rec_recv(qp, n_sge=1):
    wr = struct.pack('<QI12x', 0x1000 + qp, n_sge) + b''.join(
        sge(i * 4096, 4096) for i in range(n_sge))
    return bytes([2, qp]) + struct.pack('<H', len(wr)) + wr


def sq_req(opcode, flags=2, addr=0, rkey=0, compare=0, swap=0, sges=(), inline=None):
    """struct virtio_rdma_sq_req: 576 bytes, then the s/g list."""
    union = struct.pack('<QI4xQQ', addr, rkey, compare, swap)
    data = bytes(512)
    if inline is not None:
        data = inline + bytes(512 - len(inline))
        tail = struct.pack('<H2x12x', len(inline))
    else:
        tail = struct.pack('<I12x', len(sges))
    return struct.pack('<QBBHI', 0x2000 + opcode, opcode, flags, 0, 0) + union + data + tail + \
        b''.join(sge(a, n) for a, n in sges)


def rec_send(qp, wr):
    return bytes([1, qp]) + struct.pack('<H', len(wr)) + wr


def rec_pass(step=20):
    return bytes([3, step])


HELLO = b'hello, roce!'
roce = {
    # pkt_test.c's vector: a SEND_ONLY to a QP with a receive WR
    'send_only': rec_recv(1) + rec_frame(frame(RC | SEND_ONLY, 1, payload=HELLO)),
    'send_ipv6': rec_recv(1) + rec_frame(frame(RC | SEND_ONLY_IMM, 1, ext=b'\0\0\0\1',
                                               payload=HELLO, ipv6=True)),
    'send_no_recv': rec_frame(frame(RC | SEND_ONLY, 0, payload=bytes(300))),
    'write_only': rec_frame(frame(RC | WRITE_ONLY, 1, ext=reth(0, 0, 64), payload=bytes(64))),
    'write_first_last': rec_frame(frame(RC | WRITE_FIRST, 1, ext=reth(0, 0, 300),
                                        payload=bytes(256))) +
    rec_frame(frame(RC | WRITE_LAST, 1, psn=1, payload=bytes(44))),
    'read_request': rec_frame(frame(RC | READ_REQ, 1, ext=reth(0, 0, 600))) + rec_pass() +
    rec_pass(),
    'atomic': rec_frame(frame(RC | CMP_SWAP, 1, ext=reth(0, 0, 0)[:12] +
                              struct.pack('>QQ', 5, 0))) +
    rec_frame(frame(RC | FETCH_ADD, 1, psn=1, ext=reth(0, 0, 0)[:12] + struct.pack('>QQ', 1, 0))),
    'send_inv': rec_recv(1) + rec_frame(frame(RC | SEND_ONLY_INV, 1, ext=b'\0\0\1\0',
                                              payload=HELLO)),
    'uc_send': rec_recv(2) + rec_frame(frame(UC | SEND_ONLY, 2, payload=HELLO)),
    'ud_send': rec_recv(3) + rec_frame(frame(UD | SEND_ONLY, 3, ext=struct.pack('>II', QKEY, 9),
                                             payload=HELLO)),
    'ud_mcast': rec_frame(frame(UD | SEND_ONLY, 0xffffff, ext=struct.pack('>II', QKEY, 9),
                                payload=HELLO)),
    'cnp': rec_frame(frame(CNP, 0, ext=bytes(16))),
    'ack_stray': rec_frame(frame(RC | ACK, 0, ext=b'\0\0\0\1')),
    # rc_test.c's exchanges: the RC pair talks through the data path
    'rc_send': rec_recv(1) + rec_send(0, sq_req(2, sges=[(0, 700)])) + rec_pass() + rec_pass() +
    rec_pass(40),
    'rc_inline': rec_recv(1) + rec_send(0, sq_req(2, flags=2 | 8, inline=HELLO)) + rec_pass(),
    'rc_write': rec_send(0, sq_req(0, addr=0x100, sges=[(0, 300)])) + rec_pass() + rec_pass(),
    'rc_read': rec_send(0, sq_req(4, addr=0x100, sges=[(0x2000, 600)])) + rec_pass() +
    rec_pass() + rec_pass(),
    'rc_atomic': rec_send(0, sq_req(5, addr=0x1000, compare=0, swap=7, sges=[(0x40, 8)])) +
    rec_pass() + rec_pass(),
    # a peer's ACK by hand (the responder's own come back too: fuzz_roce.c)
    'rc_send_acked': rec_send(0, sq_req(2, sges=[(0, 700)])) + rec_pass() +
    rec_frame(frame(RC | ACK, 0, psn=2, ext=b'\x1f\0\0\1')) + rec_pass(),
    'rc_read_nak': rec_send(0, sq_req(4, addr=0x100, sges=[(0x2000, 600)])) + rec_pass() +
    rec_frame(frame(RC | ACK, 0, ext=b'\x61\0\0\1')) + rec_pass(),
    'rc_rnr': rec_send(0, sq_req(2, sges=[(0, 100)])) + rec_pass() +
    rec_frame(frame(RC | ACK, 0, ext=b'\x21\0\0\1')) + rec_pass(30) + rec_pass(30),
    'rc_timeout': rec_send(0, sq_req(2, sges=[(0, 100)])) + rec_pass() + rec_pass(31) +
    rec_pass(31),
    'local_segments': rec_frame(frame(RC | WRITE_FIRST, 1, ext=reth(0, 0, 512),
                                      payload=bytes(512))[:-4], fix=0x03),
    'chained': rec_recv(1) + rec_frame(frame(RC | SEND_ONLY, 1, payload=bytes(200)), fix=0x80),
}

# kinds from 0xf0 (fuzz_roce.c): SRQs and QPs 4 to 6 on them, a driver's
# writes (CQ arming, the records on rings), CQE and event buffers, destroys
RC_SRQ, UD_SRQ, RC_RINGS = 4, 5, 6
MAKE_SRQS = bytes([0xf0])
ARM_CQ, ARM_CQ_RINGS_CMD, CQ_NOTIFY, CQ_CONS, SRQ_LIMIT, SRQ_PROD = range(6)
SOLICITED, NEXT = 0, 1


def rec_write(what, value):
    return bytes([0xf1, what]) + struct.pack('<I', value)


def rec_cqe_bufs(n, length=64):
    return bytes([0xf2, n]) + struct.pack('<H', length)


def rec_destroy(which):
    return bytes([0xf3, which])


def rec_event_bufs(n):
    return bytes([0xf4, n])


def rec_lossy(step=20, loss=0, reverse=0):
    """A pass whose packets i with bit i % 8 of @loss set are lost, the rest reversed or not."""
    return bytes([0xf5, step, loss, reverse])


def solicited(f):
    """@f with the BTH's solicited event bit (IPv4)."""
    return f[:43] + bytes([f[43] | 0x80]) + f[44:]


roce.update({
    # REQ_NOTIFY_CQ (ROCE-DEV-NOTIFY-1, -6): NEXT fires on any CQE, SOLICITED on SE or an error
    'cq_arm_next': rec_recv(1) + rec_write(ARM_CQ, NEXT) +
    rec_frame(frame(RC | SEND_ONLY, 1, payload=HELLO)),
    'cq_arm_solicited': rec_recv(1) + rec_recv(1) + rec_write(ARM_CQ, SOLICITED) +
    rec_frame(frame(RC | SEND_ONLY, 1, payload=HELLO)) +
    rec_frame(solicited(frame(RC | SEND_ONLY, 1, psn=1, payload=HELLO))),
    # more CQE buffers than the ring holds: the driver moved avail past it (broken, overrun)
    'cq_broken': rec_write(ARM_CQ, NEXT) + rec_cqe_bufs(1) + rec_recv(1) +
    rec_frame(frame(RC | SEND_ONLY, 1, payload=HELLO)),
    # the RC QP on the SRQ on rings sends to its peer on the SRQ on a virtqueue
    'srq_rc_send': MAKE_SRQS + rec_recv(RC_SRQ) + rec_recv(RC_SRQ) +
    rec_send(RC_RINGS, sq_req(2, sges=[(0, 300)])) + rec_pass() + rec_pass() + rec_pass(),
    'srq_ud_recv': MAKE_SRQS + rec_recv(UD_SRQ) +
    rec_frame(frame(UD | SEND_ONLY, UD_SRQ, ext=struct.pack('>II', QKEY, 9), payload=HELLO)),
    # ROCE-DEV-RING-16, -17: the records arm a CQ_COMP and an SRQ_LIMIT into event queue 0
    'srq_rings_limit': MAKE_SRQS + rec_recv(RC_RINGS) + rec_recv(RC_RINGS) + rec_recv(RC_RINGS) +
    rec_write(SRQ_LIMIT, 3) + rec_write(CQ_NOTIFY, NEXT) +
    rec_send(RC_SRQ, sq_req(2, sges=[(0, 100)])) + rec_pass() + rec_pass() +
    rec_write(CQ_CONS, 0) + rec_event_bufs(2) + rec_pass(),
    # ROCE-DEV-SRQ-7, -8: busy while QPs are on it; its WRs back when it goes
    'srq_destroy': MAKE_SRQS + rec_recv(RC_SRQ) + rec_recv(RC_RINGS) + rec_destroy(0) +
    rec_destroy(2) + rec_destroy(0) + rec_destroy(3) + rec_destroy(1) +
    rec_frame(frame(RC | SEND_ONLY, RC_SRQ, payload=HELLO)),
    # the completer on a lossy wire (ROCE-DEV-RETX): READ responses lost or out of order,
    # a SEND's first packet lost (sequence NAK) until the retries run out, NAK codes
    'rc_read_lost_response': rec_send(0, sq_req(4, addr=0x100, sges=[(0x2000, 600)])) +
    rec_pass() + rec_lossy(loss=0x02) + rec_pass() + rec_pass(31) + rec_pass() + rec_pass(),
    'rc_read_reordered': rec_send(0, sq_req(4, addr=0x100, sges=[(0x2000, 600)])) +
    rec_pass() + rec_lossy(reverse=1) + rec_pass(),
    # an engine sends a message in one local packet (ROCE-DEV-WIRE-7): the second one's PSN
    # tells the responder that the first is lost
    'rc_seq_nak_retries': rec_recv(1) + rec_recv(1) + rec_send(0, sq_req(2, sges=[(0, 700)])) +
    rec_send(0, sq_req(2, sges=[(0, 100)])) + rec_lossy(loss=0x01) * 6 + rec_pass(),
    'rc_timeout_retries': rec_send(0, sq_req(0, addr=0x100, sges=[(0, 100)])) +
    rec_lossy(loss=0xff) + rec_lossy(31, 0xff) * 5,
    'rc_rnr_retries': rec_send(0, sq_req(2, sges=[(0, 100)])) + (rec_pass() + rec_pass(30)) * 6,
    'rc_nak_rem_access': rec_send(0, sq_req(0, addr=0x100, sges=[(0, 100)])) +
    rec_lossy(loss=0xff) + rec_frame(frame(RC | ACK, 0, ext=b'\x62\0\0\1')) + rec_pass(),
    'rc_nak_rem_op': rec_send(0, sq_req(0, addr=0x100, sges=[(0, 100)])) +
    rec_lossy(loss=0xff) + rec_frame(frame(RC | ACK, 0, ext=b'\x63\0\0\1')) + rec_pass(),
    'atomic_nak': rec_send(0, sq_req(5, addr=0x1000, compare=0, swap=7, sges=[(0x40, 8)])) +
    rec_lossy(loss=0xff) + rec_frame(frame(RC | ATOMIC_ACK, 0, ext=b'\x62\0\0\1' + bytes(8))) +
    rec_pass(),
})

# --- control commands (fuzz_ctrl.c) -------------------------------------

ROCE = 64


def cmd(cls, command, data=b'', ack=1):
    return bytes([cls, command]) + struct.pack('<H', len(data)) + data + bytes([ack, 255])


def create_qp(qp_type, pdn=1, cqn=1):
    cap = struct.pack('<6I', 16, 16, 2, 2, 64, 0)
    return struct.pack('<IBBBxII', pdn, qp_type, 0, 0, cqn, cqn) + cap + bytes(16)


def modify_qp(qpn, mask, state, dest=0, av=b''):
    head = struct.pack('<IIBBBBBBBBB7x', qpn, mask, state, 0, 2, 4, 4, 1, 14, 3, 3)
    nums = struct.pack('<6I', QKEY, 100, 100, dest, 0xf, 0)
    ah = av.ljust(40, b'\0')
    return head + nums + bytes(24) + ah + bytes(16)


GRH_V4 = bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 2]) + struct.pack('<IBBBx', 0, 0, 64, 0) + \
    MAC_PEER
ctrl = {
    'query': b'\0' + cmd(ROCE, 0, ack=129) + cmd(ROCE, 1, ack=33) + cmd(ROCE, 18, ack=9),
    'pd_mr': b'\0' + cmd(ROCE, 4, ack=5) + cmd(ROCE, 6, struct.pack('<II', 2, 0xf), ack=9) +
    cmd(ROCE, 8, struct.pack('<I', 0x100), ack=1) + cmd(ROCE, 5, struct.pack('<I', 2)),
    'user_mr': b'\0' + cmd(ROCE, 7, struct.pack('<IIQQII', 1, 0xf, 0x7f0000001000, 8192, 2, 0) +
                           struct.pack('<QQ', 0x140000, 0x141000), ack=9),
    'cq_qp': b'\0' + cmd(ROCE, 2, struct.pack('<I', 16), ack=5) +
    cmd(ROCE, 9, create_qp(2), ack=5) + cmd(ROCE, 10, modify_qp(6, 1, 1)) +
    cmd(ROCE, 11, struct.pack('<II', 2, 0xffffffff), ack=121) + cmd(ROCE, 12, struct.pack('<I', 6)),
    'modify_live': b'\0' + cmd(ROCE, 10, modify_qp(2, 1, 6)) + cmd(ROCE, 10, modify_qp(2, 1, 0)) +
    cmd(ROCE, 12, struct.pack('<I', 3)) + cmd(ROCE, 3, struct.pack('<I', 1)),
    'modify_rtr': b'\0' + cmd(ROCE, 9, create_qp(2), ack=5) +
    cmd(ROCE, 10, modify_qp(6, 1 | 4 | 0x10 | 0x20 | 0x200 | 0x2000 | 0x8000 | 0x800, 1)),
    'ah_gid': b'\0' + cmd(ROCE, 13, struct.pack('<II', 1, 0) + GRH_V4.ljust(40, b'\0'), ack=5) +
    cmd(ROCE, 14, struct.pack('<II', 1, 0)),
    'srq_mw_mcast': b'\0' + cmd(ROCE, 20, struct.pack('<IIII', 1, 1, 16, 2), ack=5) +
    cmd(ROCE, 22, struct.pack('<II', 1, 1), ack=5) + cmd(ROCE, 19, struct.pack('<III', 1, 0, 16),
                                                         ack=9) +
    cmd(ROCE, 24, struct.pack('<I', 5) + bytes.fromhex('ff0e0000000000000000000000000001')),
    'rfc2': b'\1' + cmd(ROCE, 0, ack=129) + cmd(ROCE, 4, ack=5),
    'net': b'\0' + cmd(0, 0, b'\0') + cmd(0, 1, b'\1') +
    cmd(1, 0, struct.pack('<I', 1) + MAC_PEER + struct.pack('<I', 1) + b'\x01\x00\x5e\x00\x00\x01') +
    cmd(1, 1, MAC_PEER) + cmd(2, 0, struct.pack('<H', 5)) + cmd(2, 1, struct.pack('<H', 5)) +
    cmd(3, 0) + cmd(4, 0, struct.pack('<H', 1)),
    'no_features': b'\2' + cmd(ROCE, 4, ack=5) + cmd(0, 0, b'\0'),
}

# --- split rings (fuzz_split_ring.c) ------------------------------------

DATA = 0x100000 + 0x3000


def desc(addr, length, flags=0, nxt=0):
    return struct.pack('<QIHH', addr, length, flags, nxt)


def ring(qsz_log, idx, descs, avail, data=b'', mode=0):
    qsz = 1 << qsz_log
    table = b''.join(descs).ljust(qsz * 16, b'\0')
    av = b''.join(struct.pack('<H', a) for a in avail).ljust(qsz * 2 + 2, b'\0')
    return bytes([qsz_log | mode | 0x20]) + struct.pack('<H', idx) + table + av + data


NEXT, WRITE, INDIRECT = 1, 2, 4
split_ring = {
    'one': ring(4, 1, [desc(0x110000, 64)], [0]),
    'chain': ring(4, 1, [desc(0x110000, 12, NEXT, 1), desc(0x111000, 100, WRITE)], [0]),
    'indirect': ring(4, 1, [desc(DATA, 32, INDIRECT)], [0],
                     (desc(0x110000, 10, NEXT, 1) + desc(0x111000, 64, WRITE)).ljust(0x2000, b'\0')),
    'across_regions': ring(4, 1, [desc(0x100000 + 0x40000 - 32, 64)], [0]),
    'loop': ring(4, 1, [desc(0x110000, 8, NEXT, 1), desc(0x110000, 8, NEXT, 0)], [0]),
    'many': ring(3, 8, [desc(0x110000 + i * 64, 64, WRITE if i % 2 else 0) for i in range(8)],
                 list(range(8)), mode=0x10),
    'bad_index': ring(4, 40, [desc(0x110000, 8)], [17]),
}

# --- Ethernet frames (fuzz_frame.c) -------------------------------------


def eth_rec(port, f):
    return bytes([port, 20]) + struct.pack('<H', len(f)) + f


roce_frame = frame(RC | SEND_ONLY, 2, payload=HELLO)
frame_seeds = {
    'roce_v4': eth_rec(0, roce_frame),
    'roce_v6': eth_rec(64, frame(RC | SEND_ONLY, 2, payload=HELLO, ipv6=True)),
    'vlan': eth_rec(1, roce_frame[:12] + b'\x81\x00\x00\x05' + roce_frame[12:]),
    'qinq': eth_rec(1, roce_frame[:12] + b'\x88\xa8\x00\x05\x81\x00\x00\x06' + roce_frame[12:]),
    'learn_then_unicast': eth_rec(2, MAC_DEV + b'\x02\0\0\0\0\x09' + b'\x08\x06' + bytes(28)) +
    eth_rec(64, b'\x02\0\0\0\0\x09' + MAC_PEER + b'\x08\x06' + bytes(28)),
    'broadcast': eth_rec(3, b'\xff' * 6 + MAC_PEER + b'\x08\x06' + bytes(28)),
    'tcp': eth_rec(0, MAC_DEV + MAC_PEER + b'\x08\x00' +
                   struct.pack('>BBHHHBBH4s4s', 0x45, 0, 40, 0, 0, 64, 6, 0, bytes(4), bytes(4)) +
                   struct.pack('>HH', 1234, 80) + bytes(16)),
}

# --- admin requests (fuzz_admin.c): backend/tests/admin_test.py's -------

admin = {
    'get_devices': b'\xff{"jsonrpc": "2.0", "method": "get_devices", "id": 1}',
    'device': b'\xff{"jsonrpc": "2.0", "method": "get_devices", "params": '
              b'{"device": "/tmp/vhost-rdma0"}, "id": "a"}',
    'pipelined': b'\x07{"jsonrpc":"2.0","method":"get_uplinks","id":1}\n'
                 b'{"jsonrpc":"2.0","method":"rpc_get_methods","id":2} '
                 b'{"jsonrpc":"2.0","method":"get_qps","params":{"device":"x"},"id":3}',
    'set_links': b'\xff{"jsonrpc":"2.0","method":"set_device_link","params":'
                 b'{"device":"/tmp/vhost-rdma0","link":"down"},"id":1}'
                 b'{"jsonrpc":"2.0","method":"set_member_link","params":'
                 b'{"member":"net_tap0","link":"up"},"id":2}'
                 b'{"jsonrpc":"2.0","method":"set_member_speed","params":'
                 b'{"member":"net_tap1","speed_mbps":200000},"id":3}',
    'notification': b'\x00{"jsonrpc":"2.0","method":"get_devices"}',
    'bad_version': b'\xff{"jsonrpc":"1.0","method":"get_devices","id":null}',
    'unknown_key': b'\xff{"jsonrpc":"2.0","method":"get_devices","params":{"x":1},"id":[1]}',
    'parse_error': b'\xff{"jsonrpc":"2.0",',
}

# --- work requests against the key table (fuzz_wr.c) ---------------------

O_DMA, O_USER, O_FAST, O_MW1, O_MW2, O_OTHER_PD, O_DEAD = range(7)
WR_WRITE, WR_WRITE_IMM, WR_SEND, WR_SEND_IMM, WR_READ, WR_CMP_SWAP, WR_FETCH_ADD, \
    WR_LOCAL_INV, WR_BIND_MW, WR_SEND_INV, WR_REG_MR = range(11)
SIGNALED, FENCE, INLINE = 2, 1, 8
ACCESS_ALL = 0x1f


def key(o, byte=0):
    """A key field of fuzz_wr.c: the object in bits 8-15, a new key byte in 0-7."""
    return o << 8 | byte


def wr_sq(opcode, union=b'', flags=SIGNALED, sges=(), inline=None, num_sge=None):
    """struct virtio_rdma_sq_req with a raw union (32 bytes), then (addr, length, key) s/g."""
    union = union.ljust(32, b'\0')
    data = bytes(512)
    if inline is not None:
        data = inline.ljust(512, b'\0')
        tail = struct.pack('<H2x12x', len(inline))
    else:
        tail = struct.pack('<I12x', len(sges) if num_sge is None else num_sge)
    return struct.pack('<QBBHI', 0x3000 + opcode, opcode, flags, 0, 0) + union + data + tail + \
        b''.join(sge(a, n, k) for a, n, k in sges)


def wr_rq(sges):
    return struct.pack('<QI12x', 0x4000, len(sges)) + b''.join(sge(a, n, k) for a, n, k in sges)


def wr_rec(kind, qp, wr):
    return bytes([kind, qp]) + struct.pack('<H', len(wr)) + wr


def wr_pass(n=3, step=20):
    return bytes([2, step]) * n


def page_list(slot, pages):
    return bytes([3, slot, len(pages)]) + bytes(pages)


def remake(o):
    return bytes([4, o])


def rdma(addr, k):
    return struct.pack('<QI', addr, k)


def reg(iova, length, k, access=ACCESS_ALL, shift=12):
    return struct.pack('<QQIIB', iova, length, k, access, shift)


def bind(addr, length, mr_lkey, rkey, access=0x6):
    return struct.pack('<QQIII', addr, length, mr_lkey, rkey, access)


A, B, UCQ, UDQ = 0, 1, 2, 3
fast_reg = page_list(0, [1, 3, 5, 7]) + wr_rec(0, A, wr_sq(
    WR_REG_MR, reg(0x5000, 16384, key(O_FAST, 0x42)), sges=[(0, 32, 0)]))
wr = {
    'send_user_mr': wr_rec(1, B, wr_rq([(0, 4096, key(O_USER))])) +
    wr_rec(0, A, wr_sq(WR_SEND, sges=[(0x100, 3000, key(O_USER))])) + wr_pass(),
    'write_user_mr': wr_rec(0, A, wr_sq(WR_WRITE, rdma(0x800, key(O_USER)),
                                        sges=[(0, 5000, key(O_DMA))])) + wr_pass(),
    'read_dma': wr_rec(0, A, wr_sq(WR_READ, rdma(0x40, key(O_DMA)),
                                   sges=[(0x2000, 700, key(O_USER))])) + wr_pass(4),
    'atomics': wr_rec(0, A, wr_sq(WR_CMP_SWAP, rdma(0x100, key(O_DMA)) + bytes(4) +
                                  struct.pack('<QQ', 0, 9), sges=[(0x40, 8, key(O_DMA))])) +
    wr_rec(0, A, wr_sq(WR_FETCH_ADD, rdma(0x100, key(O_USER)) + bytes(4) +
                       struct.pack('<QQ', 1, 0), sges=[(0x48, 8, key(O_DMA))])) + wr_pass(4),
    'inline': wr_rec(1, B, wr_rq([(0, 256, key(O_DMA))])) +
    wr_rec(0, A, wr_sq(WR_SEND_IMM, flags=SIGNALED | INLINE, inline=b'inline!' * 10)) + wr_pass(),
    'reg_mr_write_inv': fast_reg +
    wr_rec(0, A, wr_sq(WR_WRITE, rdma(0x10, key(O_FAST)), sges=[(0, 600, key(O_DMA))])) +
    wr_rec(0, A, wr_sq(WR_LOCAL_INV, struct.pack('<I', key(O_FAST)), flags=SIGNALED | FENCE)) +
    wr_pass(4),
    'send_with_inv': fast_reg + wr_rec(1, B, wr_rq([(0, 64, key(O_DMA))])) +
    wr_rec(0, A, wr_sq(WR_SEND_INV, struct.pack('<I', key(O_FAST)), sges=[(0, 64, key(O_DMA))])) +
    wr_pass(4),
    'bind_mw_read': wr_rec(0, A, wr_sq(WR_BIND_MW, bind(0, 4096, key(O_USER), key(O_MW1, 7)))) +
    wr_rec(0, A, wr_sq(WR_READ, rdma(0x10, key(O_MW1)), sges=[(0, 128, key(O_DMA))])) +
    wr_pass(4),
    'bind_mw2_remake': wr_rec(0, B, wr_sq(WR_BIND_MW, bind(0x1000, 8192, key(O_USER),
                                                           key(O_MW2, 9)))) + wr_pass(2) +
    remake(O_USER) + remake(O_MW2) + remake(O_USER) + remake(O_FAST) + remake(O_MW1),
    'other_pd': wr_rec(0, A, wr_sq(WR_SEND, sges=[(0, 64, key(O_OTHER_PD))])) +
    wr_rec(0, UCQ, wr_sq(WR_WRITE, rdma(0, key(O_DEAD)), sges=[(0, 64, key(O_DMA))])) + wr_pass(),
    'ud_send': wr_rec(1, UDQ, wr_rq([(0, 2048, key(O_DMA))])) +
    wr_rec(0, UDQ, wr_sq(WR_SEND, sges=[(0, 200, key(O_USER))])) + wr_pass(),
    'many_sges': wr_rec(1, B, wr_rq([(i * 512, 512, key(O_USER)) for i in range(4)])) +
    wr_rec(0, A, wr_sq(WR_SEND, sges=[(i * 100, 100, key(i % 2)) for i in range(4)])) + wr_pass(),
    'bad_num_sge': wr_rec(0, A, wr_sq(WR_SEND, sges=[(0, 8, 0)], num_sge=0xffffffff)) +
    wr_rec(1, B, struct.pack('<QI12x', 1, 1000)) + wr_pass(),
}

# --- frames through the switch into devices (fuzz_switch.c) ---------------

SW_DEV0, SW_DEV1, SW_DEV2, SW_BCAST, SW_GROUP, SW_MCAST, SW_STRANGER = range(7)


def sw_eth(dst, src, body):
    """An Ethernet frame whose MACs fuzz_switch.c picks: @dst of its list, @src of 0-3."""
    return bytes([dst]) + bytes(5) + bytes([src]) + bytes(5) + body


def sw_up(f, fix=0):
    return bytes([0, fix]) + struct.pack('<H', len(f)) + f


def sw_dev(d, f, fix=0):
    f = bytes(12) + f  # struct virtio_net_hdr_mrg_rxbuf
    return bytes([1, d, fix]) + struct.pack('<H', len(f)) + f


def sw_bufs(d, n=8):
    return bytes([2, d, n])


def sw_change(d, op, a0=0, a1=0):
    return bytes([3, d, op, a0, a1])


def sw_pass(n=2, step=20):
    return bytes([4, step]) * n


def sw_ud(which, length=64):
    return bytes([5, which, length])


ARP = b'\x08\x06' + bytes(28)
VLAN = b'\x81\x00'
all_bufs = sw_bufs(0) + sw_bufs(1) + sw_bufs(2)
ud_group = frame(UD | SEND_ONLY, 0xffffff, ext=struct.pack('>II', QKEY, 9), payload=HELLO,
                 ipv6=True)
ud_group = ud_group[:38] + bytes.fromhex('ff0e0000000000000000000000000001') + ud_group[54:]
rc_dev0 = frame(RC | SEND_ONLY, 2, payload=HELLO)
switch = {
    'uplink_to_devs': all_bufs + sw_up(sw_eth(SW_DEV1, 3, ARP)) + sw_up(sw_eth(SW_BCAST, 3, ARP)) +
    sw_up(sw_eth(SW_STRANGER, 3, ARP)) + sw_up(sw_eth(SW_MCAST, 3, ARP)),
    'dev_to_dev': all_bufs + sw_dev(1, sw_eth(SW_DEV2, 1, ARP)) + sw_dev(2, sw_eth(SW_DEV1, 2, ARP)) +
    sw_dev(0, sw_eth(SW_BCAST, 0, ARP)),
    'learn': all_bufs + sw_up(sw_eth(SW_DEV2, 3, ARP)) + sw_dev(2, sw_eth(SW_STRANGER, 2, ARP)),
    'mcast_to_engine': all_bufs + sw_ud(4) + sw_up(sw_eth(SW_GROUP, 3, ud_group[12:])) + sw_pass(),
    'roce_to_engine': all_bufs + sw_up(sw_eth(SW_DEV0, 3, rc_dev0[12:])) +
    sw_up(sw_eth(SW_DEV1, 3, rc_dev0[12:])) + sw_pass(),
    'engine_to_group': all_bufs + sw_ud(4) + sw_ud(2, 100) + sw_pass(3),
    'engine_to_dev1_wire': all_bufs + sw_ud(1, 200) + sw_ud(3, 50) + sw_pass(3),
    'vlan_filter': all_bufs + sw_change(1, 2, 1) + sw_change(1, 1, 5) +
    sw_up(sw_eth(SW_DEV1, 3, VLAN + b'\x00\x05' + ARP)) +
    sw_up(sw_eth(SW_DEV1, 3, VLAN + b'\x00\x06' + ARP)) + sw_change(1, 1, 5, 0x80) +
    sw_up(sw_eth(SW_DEV1, 3, VLAN + b'\x00\x05' + ARP)),
    'rx_filters': all_bufs + sw_change(2, 0, 32) + sw_change(2, 3, 0x09, 0x11) +
    sw_up(sw_eth(SW_BCAST, 3, ARP)) + sw_up(sw_eth(SW_MCAST, 3, ARP)) +
    sw_up(sw_eth(SW_GROUP, 3, ARP)) + sw_change(2, 0, 2) + sw_up(sw_eth(SW_MCAST, 3, ARP)),
    'link_down_no_merge': all_bufs + sw_change(1, 4, 1) + sw_up(sw_eth(SW_DEV1, 3, ARP)) +
    sw_change(1, 4, 0) + sw_change(1, 6, 0) + sw_up(sw_eth(SW_DEV1, 3, ARP + bytes(1400))) +
    sw_change(2, 7, 2) + sw_up(sw_eth(SW_DEV2, 3, ARP)),
    'mac_move': all_bufs + sw_change(2, 5, 7) + sw_up(sw_eth(7, 3, ARP)) +
    sw_dev(1, sw_eth(7, 1, ARP)) + sw_dev(1, sw_eth(SW_DEV2, 1, ARP)),
    'merge_chained': sw_bufs(1, 16) + sw_up(sw_eth(SW_DEV1, 3, ARP + bytes(2900)), fix=0x80),
}

# --- admin methods on live devices and uplinks (fuzz_admin_live.c) ----------


def rpc(method, params=None, rid=1):
    r = '{"jsonrpc":"2.0","method":"%s",' % method
    if params is not None:
        r += '"params":%s,' % params
    return (r + '"id":%d}' % rid).encode()


admin_live = {
    'get_devices': b'\xff' + rpc('get_devices') + rpc('get_devices', '{"device":"%1"}', 2),
    'device_down_up': b'\xff' + rpc('set_device_link', '{"device":"%0","up":false}') +
    rpc('get_devices', '{"device":"%0"}', 2) + rpc('set_device_link', '{"device":"%0","up":true}', 3),
    'members': b'\x10' + rpc('set_member_link', '{"member":"net_null0","up":false}') +
    rpc('get_uplinks', None, 2) + rpc('set_member_link', '{"member":"net_null1","up":false}', 3) +
    rpc('get_devices', None, 4) + rpc('set_member_link', '{"member":"net_null0","up":true}', 5),
    'speeds': b'\xff' + rpc('set_member_speed', '{"member":"net_null1","speed_mbps":400000}') +
    rpc('set_member_speed', '{"member":"net_null0","speed_mbps":0}', 2) + rpc('get_devices', None, 3),
    'get_qps': b'\x40' + rpc('get_qps', '{"device":"%0"}') + rpc('get_qps', '{"device":"%1"}', 2) +
    rpc('get_qps', '{"device":"/nowhere"}', 3),
    'all_down': b'\xff' + rpc('set_device_link', '{"device":"%1","up":false}') +
    rpc('set_member_link', '{"member":"net_null0","up":false}', 2) +
    rpc('set_member_link', '{"member":"net_null1","up":false}', 3) + rpc('get_devices', None, 4),
    'methods': b'\xff' + rpc('rpc_get_methods'),
}

# --- vhost-user messages (fuzz_vhost.c) ------------------------------------

(V_GET_FEATURES, V_SET_FEATURES, V_SET_OWNER, V_SET_MEM_TABLE, V_VRING_NUM, V_VRING_ADDR,
 V_VRING_BASE, V_GET_VRING_BASE, V_KICK, V_CALL, V_GET_PROTO, V_SET_PROTO, V_GET_QUEUE_NUM,
 V_VRING_ENABLE, V_GET_CONFIG, V_SET_CONFIG, V_RESET_DEVICE, V_SET_STATUS, V_GET_STATUS,
 V_RESET_OWNER) = range(20)
V_NEED_REPLY, V_RAW, V_SECOND = 0x20, 0x40, 0x80
ALL = struct.pack('<Q', (1 << 64) - 1)


def vmsg(which, payload=b''):
    return bytes([which, len(payload)]) + payload


def vstate(index, num):
    return struct.pack('<II', index, num)


def vring(i, size=64):
    base = i * 0x3000
    return vmsg(V_VRING_NUM, vstate(i, size)) + \
        vmsg(V_VRING_ADDR, struct.pack('<IIQQQQ', i, 0, base, base + 0x2000, base + 0x1000, 0)) + \
        vmsg(V_VRING_BASE, vstate(i, 0)) + vmsg(V_KICK, struct.pack('<Q', i)) + \
        vmsg(V_CALL, struct.pack('<Q', i)) + vmsg(V_VRING_ENABLE, vstate(i, 1))


def vconfig(which, offset, size, data=b''):
    return vmsg(which, struct.pack('<III', offset, size, 0) + data)


negotiate = vmsg(V_GET_FEATURES) + vmsg(V_GET_PROTO) + vmsg(V_SET_PROTO, ALL) + \
    vmsg(V_SET_OWNER) + vmsg(V_SET_FEATURES, ALL) + vmsg(V_GET_QUEUE_NUM)
mem_table = vmsg(V_SET_MEM_TABLE, struct.pack('<II', 1, 0) + struct.pack('<QQQQ', 0, 0, 0, 0))
bring_up = negotiate + mem_table + b''.join(vring(i) for i in range(4))
vhost = {
    'negotiate': negotiate + vconfig(V_GET_CONFIG, 0, 64),
    'bring_up': bring_up + vconfig(V_GET_CONFIG, 0, 64) + vmsg(V_GET_STATUS),
    'config': negotiate + vconfig(V_GET_CONFIG, 0, 256) + vconfig(V_GET_CONFIG, 60, 8) +
    vconfig(V_GET_CONFIG | V_RAW, 250, 64) + vconfig(V_SET_CONFIG, 0, 6, MAC_PEER) +
    vconfig(V_SET_CONFIG | V_NEED_REPLY, 0, 6, MAC_PEER),
    'stop_vrings': bring_up + vmsg(V_VRING_ENABLE, vstate(2, 0)) +
    b''.join(vmsg(V_GET_VRING_BASE, vstate(i, 0)) for i in range(4)),
    'reset_device': bring_up + vmsg(V_RESET_DEVICE) + vconfig(V_GET_CONFIG, 0, 16) +
    b''.join(vring(i) for i in range(4)),
    'reset_no_feature': vmsg(V_SET_FEATURES, ALL) + vmsg(V_RESET_DEVICE),
    'remap': bring_up + mem_table + vring(1) + vmsg(V_SET_STATUS, struct.pack('<Q', 15)),
    'second_frontend': negotiate + vmsg(V_SECOND) + vmsg(V_GET_FEATURES),
    'need_reply': negotiate + vmsg(V_SET_OWNER | V_NEED_REPLY) +
    vmsg(V_VRING_NUM | V_NEED_REPLY, vstate(0, 1024)) + vmsg(V_RESET_OWNER),
}

for target, seeds in (('roce', roce), ('ctrl', ctrl), ('split_ring', split_ring),
                      ('frame', frame_seeds), ('admin', admin),
                      ('wr', wr), ('switch', switch),
                      ('admin_live', admin_live), ('vhost', vhost)):
    for name, data in seeds.items():
        write(target, name, data)
