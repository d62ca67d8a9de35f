# SPDX-License-Identifier: BSD-3-Clause
"""Integration test: a device reset within one vhost-user connection.

Usage: reset_test.py PATH/TO/vhost-user-rdma
Prints TAP.

QEMU stops a device's vrings (GET_VRING_BASE) both when a VM pauses and
when the guest resets the device or reboots; only on a reset does it send
VHOST_USER_RESET_DEVICE (when the backend offers
VHOST_USER_PROTOCOL_F_RESET_DEVICE). A Python frontend makes RDMA state (a
PD) and checks that a reset frees it and the device works again once the
driver sets the rings up anew, that a stop and restart without a reset
keeps it, that a reset with the rings still running stops serving them
until they are set up again, and that a frontend which did not negotiate
the feature is refused.
"""

import struct
import sys
import time

import harness
import vhost_user as vu
from ctrl_device import ACK, CLASS_ROCE, CMD, FEATURES, VIRTIO_NET_OK, Device, wait_until
from vhost_user import DESC_F_WRITE as WRITE

BACKEND = sys.argv[1]

CREATE_PD = 4
ACK_CREATE_PD = 4  # struct virtio_rdma_ack_create_pd
WITH_RESET = (1 << vu.PROTOCOL_F_REPLY_ACK) | (1 << vu.PROTOCOL_F_RESET_DEVICE)


def create_pd(d):
    head, used = d.simple(CLASS_ROCE, CREATE_PD, room=1 + ACK_CREATE_PD, logs=0)
    assert used == (head, 1 + ACK_CREATE_PD), f'used {used}'
    ack = d.mem.read(ACK, 1 + ACK_CREATE_PD)
    assert ack[0] == VIRTIO_NET_OK, f'ack {ack[0]}'
    return struct.unpack_from('<I', ack, 1)[0]


def stop_rings(d):
    """What QEMU's vhost_dev_stop does: the backend hands back each index."""
    return [d.fe.get_vring_base(r.index) for r in d.rings]


def restart_rings(d, bases=None, features=True):
    """What QEMU's vhost_dev_start does; after a reset the driver starts
    from fresh rings and sets its features again."""
    if features:
        d.fe.call(vu.SET_FEATURES, struct.pack('<Q', FEATURES))
    d.fe.set_mem_table(d.mem)
    for i, r in enumerate(d.rings):
        if bases is None:
            r.reset()
        d.fe.set_vring(r, base=0 if bases is None else bases[i], enable=False)
    for r in d.rings:
        d.fe.enable_vring(r.index)
    d.wait_started()


def reset(d):
    d.fe.send(vu.RESET_DEVICE, flags=vu.VERSION | vu.NEED_REPLY)
    return struct.unpack('<Q', d.fe.recv(vu.RESET_DEVICE))[0]


def device(b):
    return b.device()


def case(fn):
    """One case on a fresh backend: @fn(backend)."""
    def run():
        b = harness.Backend(BACKEND, prefix='vurreset')
        try:
            b.wait_socket()
            fn(b)
        finally:
            rc = b.stop()
        assert rc == 0, f'backend exited {rc}'
        assert not b.sanitizer_report(), b.sanitizer_report()[-3000:]
    run.__name__ = fn.__name__
    harness.case(run)
    return fn


@case
def reset_frees_driver_state(b):
    d = Device(b, b.sock, WITH_RESET)
    try:
        first = create_pd(d)
        create_pd(d)
        assert device(b)['pds'] == 2
        stop_rings(d)
        assert reset(d) == 0, 'RESET_DEVICE failed'
        dev = device(b)
        assert (dev['pds'], dev['started'], dev['vid'] >= 0) == (0, 0, True), dev
        assert 'device reset: what the driver made is freed' in b.output()
        restart_rings(d)
        d.query_ok()
        again = create_pd(d)
        assert again == first, f'PD numbers start over: {again} after {first}'
        assert device(b)['pds'] == 1
    finally:
        d.close()


@case
def stop_without_reset_keeps_driver_state(b):
    d = Device(b, b.sock, WITH_RESET)
    try:
        pdn = create_pd(d)
        bases = stop_rings(d)
        wait_until('the device to stop', lambda: device(b)['started'] == 0)
        assert device(b)['pds'] == 1
        restart_rings(d, bases, features=False)
        assert device(b)['pds'] == 1
        d.query_ok()
        assert create_pd(d) != pdn
        assert device(b)['pds'] == 2
    finally:
        d.close()


@case
def reset_with_rings_running_stops_them(b):
    d = Device(b, b.sock, WITH_RESET)
    try:
        create_pd(d)
        assert reset(d) == 0, 'RESET_DEVICE failed'
        dev = device(b)
        assert (dev['pds'], dev['started']) == (0, 0), dev
        # Not served: a request made now gets no used entry (nothing to wait
        # on but time; a served request takes well under a millisecond).
        used = d.ctrl.used_idx()
        d.command(CLASS_ROCE, CREATE_PD)
        d.arm_ack()
        d.ctrl.publish(d.chain([(d.gpa(CMD), 2, 0), (d.gpa(ACK), 1 + ACK_CREATE_PD, WRITE)]))
        d.ctrl.kick()
        time.sleep(0.5)
        assert d.ctrl.used_idx() == used, 'the control queue was served after RESET_DEVICE'
        restart_rings(d)
        d.query_ok()
        assert device(b)['pds'] == 0
    finally:
        d.close()


@case
def reset_without_the_feature_refused(b):
    d = Device(b, b.sock)
    try:
        create_pd(d)
        assert reset(d) != 0, 'RESET_DEVICE accepted without its protocol feature'
        assert 'RESET_DEVICE without its protocol feature' in b.output()
        dev = device(b)
        assert (dev['pds'], dev['started']) == (1, 1), dev
        d.query_ok()
    finally:
        d.close()


if __name__ == '__main__':
    sys.exit(harness.report())
