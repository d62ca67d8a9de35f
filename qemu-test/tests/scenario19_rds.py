# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 19: RDS over RDMA between two guests on the device (issue 23),
in place of NFS over RDMA.

Why not NFS: the guest image is a busybox initramfs without nfs-utils. An
NFS server needs rpc.mountd, which answers the kernel's export cache
upcalls (and exportfs to give it the exports); they come with
nfs-kernel-server, which depends on rpcbind, and build-image.sh installs
its packages on the host to copy their binaries with their libraries
(installing those would start NFS and rpcbind daemons there, on CI
machines too). The client side needs mount.nfs (nfs-common): busybox's
mount builds the legacy binary mount data of NFS v2/v3 itself and cannot
pass proto=rdma. NFSv4's server also waits out its grace period (at
least 10 s) before it lets a client create a file. That is a piece of
work of its own (the nfs-utils binaries unpacked without installing them,
nfsd's /proc/fs/nfsd set up by hand), not done here.

RDS (rds_rdma) needs only the kernel: reliable datagrams over RC QPs that
the RDMA CM connects, with fast registration (rds_rdma refuses a device
without IB_DEVICE_MEM_MGT_EXTENSIONS: "rds_ib_setup_qp failed (-95)" in
the issue). One backend, two devices; each guest loads virtio_rdma.ko
(fast registration checked), gives its netdev 10.0.19.N/24 and pings the
other, then loads rds_rdma (which listens through the RDMA CM on RDS's
port). tests/rds_probe.c (static): guest 1 binds an RDS socket held to the
IB transport (SO_RDS_TRANSPORT RDS_TRANS_IB, so never RDS over TCP) and
echoes every message it receives after checking it; guest 2 sends 60
messages of 1 B to 64 KiB in turn (fragmented by RDS into its 4 KiB
receive buffers), one at a time, and checks each echo. Both must exit 0;
neither kernel log has a WARNING, BUG or call trace; the devices refused
no control command and completed no WR in error.

Usage: scenario19_rds.py PATH/TO/vhost-user-rdma
Builds QEMU, the image and the module first. Prints TAP.
"""

import os
import sys

import guest
import harness
import nvmeof

BACKEND = sys.argv[1]
ADDRS = ['10.0.19.1', '10.0.19.2']
MACS = ['02:00:00:00:13:01', '02:00:00:00:13:02']
PORT = 4000
COUNT = 60

SCRIPT = r'''
device_setup @MAC@ @ADDR@
vur_ping ping_peer @PEER@ 60
run load_rds_rdma modprobe rds_rdma
vur_step rds_loaded
if [ @ROLE@ = echo ]; then
    run rds_echo timeout 300 rds_probe echo @ADDR@ @PORT@ @COUNT@ &
    vur_step echo_started
    wait
else
    vur_step echo_started
    sleep 1
    run rds_send timeout 300 rds_probe send @ADDR@ @PEER@ @PORT@ @COUNT@
fi
vur_step done
kernel_log_clean
'''


def scenario(tap, qemu, image, sock_dir):
    try:
        ko = guest.build_module(image)
        tool = guest.build_tool('rds_probe.c', sock_dir)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_module_and_tool', False, e)
        return
    tap.case('build_module_and_tool', True)
    with open(tool, 'rb') as f:
        files = {'usr/bin/rds_probe': (0o755, f.read()), **guest.module_files(ko, image)}
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                              '--mac', MACS[0], prefix='vurq19')
    guests = []
    try:
        guest.wait_ready(backend)
        for i in range(2):
            script = nvmeof.script(SCRIPT, ADDR=ADDRS[i], PEER=ADDRS[1 - i], MAC=MACS[i],
                                   ROLE='echo' if i == 0 else 'send', PORT=PORT,
                                   COUNT=COUNT)
            guests.append(guest.Guest(qemu, image, script, [socks[i]], mem_mb=512,
                                      append=f'vur.modules={nvmeof.MODULES_DEVICE}',
                                      files=files, name='echo' if i == 0 else 'send'))
        for step in ('rds_loaded', 'echo_started', 'done'):
            why = guest.barrier(guests, 300)
            tap.case(f'guests_reach_{step}', why is None, why or '')
            if why is not None:
                break
        for g in guests:
            guest.finish(tap, g, 300)
        for s in socks:
            nvmeof.check_engine(tap, backend, s, drained=False)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
