# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 16: NVMe over Fabrics over RDMA between two guests on the device
(issue 23): the kernel's storage ULPs on the guest kernel driver.

One backend serves two devices, one per guest (build-image.sh's image:
Debian unstable's Linux 7.2 with VUR_GUEST_KERNEL=linux72, or Debian 12's
6.1; the module appended). Each guest loads virtio_rdma.ko, gives its
netdev 10.0.16.N/24 and pings the other. No userspace verbs: everything
runs in the kernels.

- The target (guest 1) loads brd (a 16 MiB RAM disk, /dev/ram0), nvmet and
  nvmet-rdma, and exports the disk through configfs: subsystem NQN, any
  host allowed, namespace 1 on /dev/ram0, port 1 of type rdma on
  10.0.16.1:4420 (nvmet-rdma listens through the RDMA CM).
- The host (guest 2) loads nvme-rdma and connects by writing
  transport=rdma,traddr=10.0.16.1,trsvcid=4420,nqn=NQN to /dev/nvme-fabrics
  (no nvme-cli): the admin queue and an I/O queue are RC QPs connected by
  the RDMA CM; nvme-rdma refuses a device without
  IB_DEVICE_MEM_MGT_EXTENSIONS, and with it registers every read and
  every write that is not sent in the command capsule with IB_WR_REG_MR
  on a fast registration MR (ALLOC_MR), which the target's answer
  invalidates (SEND_WITH_INV, IB_WC_WITH_INVALIDATE at the host) or the
  host itself (LOCAL_INV). The namespace appears as /dev/nvme0n1.
- The host writes a 4 MiB random pattern with direct I/O in 1 MiB blocks
  (dd oflag=direct), reads it back in 64 KiB blocks (iflag=direct) and
  compares checksums; then rewrites the first 64 KiB in 4 KiB blocks (in
  the command capsule: nvmet-rdma's inline data) and reads them back in
  4 KiB blocks. The target then reads its RAM disk with direct I/O: it
  must hold the host's final pattern (the host compares the checksums).
- The host disconnects (delete_controller: nvme-rdma drains its QPs with
  ib_drain_qp(), which needs the device's flush completions) and the
  namespace is gone; the target removes its configfs objects and unloads
  nvmet-rdma and nvmet.
- With VUR_NVMET_SRQ=1 (the Linux 7.2 run), the target loads nvmet-rdma
  with use_srq=1: its receive WRs go to kernel SRQs of the device (issue
  29: create_srq, post_srq_recv, QPs on an SRQ, their receive completions
  polled by the driver); its log must not say the SRQ was refused.
- On the rings layout (the driver's default on this device; meson's
  _virtqueues entries pin RFC v2's layout with VUR_DRIVER_LAYOUT=virtqueues,
  and the script follows ports/1/layout) the ULPs' kernel CQs, QPs and, with
  use_srq=1, SRQs are on rings: the host counts more than ib_mad's while
  connected, and both guests only ib_mad's QP and no SRQ once the ULPs are
  unloaded.
- Neither kernel log has a WARNING, BUG or call trace; neither device
  completed a WR in error or answered a request with a NAK, and both
  flushed WRs (the drains).

It passes only on a backend with fast registration
(VIRTIO_IB_DEVICE_MEM_MGT_EXTENSIONS); without it the host's result
device_fast_registration says so and the connect fails.

Usage: scenario16_nvmeof.py PATH/TO/vhost-user-rdma
Builds QEMU, the image and the module first. Prints TAP.
"""

import os
import sys
import time

import guest
import harness
import nvmeof

BACKEND = sys.argv[1]
NQN = nvmeof.NQN + 'scenario16'
ADDRS = ['10.0.16.1', '10.0.16.2']
MACS = ['02:00:00:00:10:01', '02:00:00:00:10:02']
# nvmet-rdma on shared receive queues (its use_srq parameter).
NVMET_SRQ = os.environ.get('VUR_NVMET_SRQ') == '1'

COMMON = r'''
# on_rings: whether the driver chose the rings layout (ports/1/layout; the
# default on a device that offers them).
on_rings() {
    [ "$(cat /sys/class/infiniband/*/ports/1/layout)" = rings ]
}
# rings_freed: on rings, the ULPs gone: ib_mad's QP left, no SRQ (the
# sysfs counters count live objects). Not CQs: ib_core's CQ pool, which
# the ULPs used, keeps its CQs until the device goes.
rings_freed() {
    on_rings || return 0
    P=$(echo /sys/class/infiniband/*/ports/1)
    vur_expect ring_qps_freed 1 "$(cat $P/ring_qps)"
    vur_expect ring_srqs_freed 0 "$(cat $P/ring_srqs)"
}
device_setup @MAC@ @ADDR@
vur_ping ping_peer @PEER@ 60
'''

TARGET = r'''
nvmf_target_load @NVMET_ARGS@
nvmf_export @NQN@ @ADDR@ 1
if [ -n "@NVMET_ARGS@" ]; then
    if dmesg | grep -q 'SRQ requested but not supported'; then
        vur_result nvmet_srq fail "$(dmesg | grep -i srq | tr '\n' '|')"
    else
        vur_result nvmet_srq ok "@NVMET_ARGS@"
    fi
fi
vur_step target_ready
vur_step host_done
# What the host wrote, as the RAM disk holds it.
nvmf_ramdisk_md5
nvmf_unexport @NQN@ 1
rings_freed
'''

HOST = r'''
run load_nvme_rdma modprobe nvme-rdma
vur_step target_ready
nvmf_connect @PEER@ @NQN@
if [ -e /dev/nvme0n1 ]; then
    # On rings: nvme-rdma's CQs and QPs on rings beside ib_mad's;
    # otherwise none.
    RC=$(cat /sys/class/infiniband/*/ports/1/ring_cqs)
    RQ=$(cat /sys/class/infiniband/*/ports/1/ring_qps)
    vur_result driver_layout ok "$(cat /sys/class/infiniband/*/ports/1/layout)"
    if on_rings; then
        [ "$RC" -gt 1 ] && vur_result ring_cqs ok "$RC" || vur_result ring_cqs fail "$RC"
        [ "$RQ" -gt 1 ] && vur_result ring_qps ok "$RQ" || vur_result ring_qps fail "$RQ"
    else
        vur_expect ring_cqs 0 "$RC"
        vur_expect ring_qps 0 "$RQ"
    fi
    nvmf_write_pattern
    nvmf_disconnect
    run unload_nvme_rdma rmmod nvme_rdma
    rings_freed
fi
vur_step host_done
'''


def guest_script(i):
    return nvmeof.script(COMMON + (TARGET if i == 0 else HOST) + 'kernel_log_clean\n',
                         NQN=NQN, ADDR=ADDRS[i], PEER=ADDRS[1 - i], MAC=MACS[i],
                         NVMET_ARGS='use_srq=1' if NVMET_SRQ else '')


def srq_barrier(tap, backend, sock, guests):
    """guest.barrier() at host_done, with the target device's SRQs counted
    while the host works (nvmet-rdma holds them while a queue is
    connected; the host disconnects before host_done): the most seen."""
    target, host = guests
    end = time.monotonic() + 300
    most = 0
    while (what := host.wait_step(0.5)) is None and time.monotonic() < end:
        most = max(most, backend.device(sock).get('srqs') or 0)
    if what is None or target.wait_step(300) is None:
        return 'a guest never reached host_done\n' + host.output()[-4000:]
    tap.case('target_device_had_srqs', most > 0, f'at most {most} live')
    for g in guests:
        g.send('go\n')
    return None


def scenario(tap, qemu, image, sock_dir):
    try:
        ko = guest.build_module(image)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_module', False, e)
        return
    tap.case('build_module', True)
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                              '--mac', MACS[0], prefix='vurq16')
    guests = []
    try:
        guest.wait_ready(backend)
        for i in range(2):
            guests.append(guest.Guest(qemu, image, guest_script(i), [socks[i]], mem_mb=512,
                                      append=f'vur.modules={nvmeof.MODULES_DEVICE}',
                                      files=guest.module_files(ko, image),
                                      name='target' if i == 0 else 'host'))
        for step in ('target_ready', 'host_done'):
            if step == 'host_done' and NVMET_SRQ:
                why = srq_barrier(tap, backend, socks[0], guests)
            else:
                why = guest.barrier(guests, 300)
            tap.case(f'guests_reach_{step}', why is None, why or '')
            if why is not None:
                break
        for g in guests:
            guest.finish(tap, g, 300)
        nvmeof.check_pattern(tap, guests[1], guests[0])
        for s in socks:
            nvmeof.check_engine(tap, backend, s)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
