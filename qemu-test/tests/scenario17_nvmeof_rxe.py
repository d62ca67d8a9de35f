# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 17: NVMe over Fabrics between the device and Linux rxe, both
directions (issue 23): scenario 16's kernel ULPs, one end on the guest
kernel driver, the other on Linux soft-RoCE.

One backend serves two devices (MACs 02:00:00:00:11:0N). Guest 1 loads
virtio_rdma.ko (fast registration checked, as in scenario 16) and gives its
netdev 10.0.17.1/24; guest 2 loads only virtio_net, which does not
negotiate RoCE, so its device is a plain virtio-net device on the same
switch, and runs rdma_rxe on it (rxe0 on eth0, 10.0.17.2/24). Every RoCE v2
packet between them goes through the backend's switch: rxe's to the
engine, which checks its ICRC, and the engine's to rxe, made whole for it.
nvmeof.py has the shell both run.

- Phase a, the target on the device, the host on rxe: guest 1 exports a
  16 MiB RAM disk (brd) with nvmet-rdma on 10.0.17.1:4420; guest 2 loads
  nvme-rdma and connects through /dev/nvme-fabrics (rxe has fast
  registration: every read and every write not sent in the capsule is
  registered with IB_WR_REG_MR, and guest 1's nvmet-rdma answers with SEND
  with invalidate, which the engine sends with an IETH to rxe). The host
  writes a 4 MiB random pattern with direct I/O in 1 MiB blocks, reads it
  back in 64 KiB blocks and compares MD5s, rewrites the first 64 KiB in
  4 KiB blocks (nvmet-rdma's inline data) and reads them back, then
  disconnects (delete_controller); the target's RAM disk must hold the
  host's final pattern; it unexports and unloads nvmet.
- Phase b, the target on rxe, the host on the device: the same with the
  roles swapped (guest 2 exports on 10.0.17.2, guest 1 connects: the
  engine registers, rxe's nvmet-rdma invalidates remotely, the device's
  receive completion carries IB_WC_WITH_INVALIDATE).

Neither kernel log has a WARNING, BUG or call trace; guest 1's device
refused no control command, completed no WR in error, answered no request
with a NAK, saw no bad ICRC, and flushed WRs (the drains at disconnect).

Usage: scenario17_nvmeof_rxe.py PATH/TO/vhost-user-rdma
Builds QEMU, the image and the module first. Prints TAP.
"""

import os
import sys

import guest
import harness
import nvmeof

BACKEND = sys.argv[1]
ADDRS = ['10.0.17.1', '10.0.17.2']
MACS = ['02:00:00:00:11:01', '02:00:00:00:11:02']
NQNS = {'a': nvmeof.NQN + 'scenario17a', 'b': nvmeof.NQN + 'scenario17b'}

# Each phase: the target's part and the host's, by guest; every guest runs
# the steps of both phases in the same order.
TARGET = r'''
P=@PH@_
nvmf_target_load
nvmf_export @NQN@ @ADDR@ 1
vur_step @PH@_target_ready
vur_step @PH@_host_done
nvmf_ramdisk_md5
nvmf_unexport @NQN@ 1
run unload_brd rmmod brd
P=
'''

HOST = r'''
P=@PH@_
run load_nvme_rdma modprobe nvme-rdma
vur_step @PH@_target_ready
nvmf_connect @PEER@ @NQN@
if [ -e /dev/nvme0n1 ]; then
    nvmf_write_pattern
    nvmf_disconnect
fi
run unload_nvme_rdma rmmod nvme_rdma
vur_step @PH@_host_done
P=
'''

# (phase, the guest that is the target): a, the device's; b, rxe's.
PHASES = (('a', 0), ('b', 1))


def guest_script(i):
    body = ('device_setup @MAC@ @ADDR@\n' if i == 0 else 'rxe_setup @MAC@ @ADDR@\n')
    body += 'vur_ping ping_peer @PEER@ 60\n'
    for phase, target in PHASES:
        body += ((TARGET if i == target else HOST)
                 .replace('@PH@', phase).replace('@NQN@', NQNS[phase]))
    body += 'kernel_log_clean\n'
    return nvmeof.script(body, ADDR=ADDRS[i], PEER=ADDRS[1 - i], MAC=MACS[i])


def scenario(tap, qemu, image, sock_dir):
    try:
        ko = guest.build_module(image)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_module', False, e)
        return
    tap.case('build_module', True)
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                              '--mac', MACS[0], prefix='vurq17')
    guests = []
    try:
        guest.wait_ready(backend)
        guests.append(guest.Guest(qemu, image, guest_script(0), [socks[0]], mem_mb=512,
                                  append=f'vur.modules={nvmeof.MODULES_DEVICE}',
                                  files=guest.module_files(ko, image), name='device'))
        guests.append(guest.Guest(qemu, image, guest_script(1), [socks[1]], mem_mb=512,
                                  append=f'vur.modules={nvmeof.MODULES_RXE}', name='rxe'))
        for phase, _ in PHASES:
            for step in ('target_ready', 'host_done'):
                why = guest.barrier(guests, 300)
                tap.case(f'guests_reach_{phase}_{step}', why is None, why or '')
                if why is not None:
                    break
            if why is not None:
                break
        for g in guests:
            guest.finish(tap, g, 300)
        for phase, target in PHASES:
            nvmeof.check_pattern(tap, guests[1 - target], guests[target], f'{phase}_')
        nvmeof.check_engine(tap, backend, socks[0])
        d = backend.device(socks[0])
        tap.case('rxe_packets_reached_the_engine_whole',
                 d.get('eth_roce_rx', 0) > 0 and d.get('rdma_rx_bad_icrc', 0) == 0,
                 {k: v for k, v in d.items() if k.startswith(('eth_roce', 'rdma_rx'))})
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
