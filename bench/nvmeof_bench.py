#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""NVMe over Fabrics between two TCG guests, two ways, in one run:
  - this device: nvme-rdma and nvmet-rdma on the guest kernel driver
    virtio_rdma.ko, the transport in the backend's engine (qemu-test
    scenario 16);
  - the reference: the same ULPs on Linux soft-RoCE (rdma_rxe) in each
    guest over a plain virtio-net device of the same backend, the
    transport inside the guests (scenario 17's rxe side on both ends).
The target exports a 16 MiB RAM disk (brd); the host connects with the
default module options (register_always: every read and every write not
in the capsule is a fast registration) and, with direct I/O and one I/O at
a time (dd): writes and reads the whole disk 4 times in 1 MiB blocks (throughput,
ROUNDS times each, the best round), then writes and reads COUNT 4 KiB
blocks (latency per I/O: 4 KiB writes go in the command capsule, reads are
registered). Times come from the guest's /proc/uptime (10 ms steps: each
measured run lasts at least a few hundred ms). fio is not in the guest
image. Prints the figures; never fails on a timing (exit 1 only when a
guest's I/O failed: then no figure for it).

TCG makes every figure slow (one vCPU per guest, both guests and the
backend on the machine's two CPUs): compare the two ways, not the numbers
with hardware.

Usage: bench/nvmeof_bench.py PATH/TO/vhost-user-rdma [COUNT [ROUNDS]]
(COUNT 4 KiB I/Os, default 500; ROUNDS, default 3). Builds QEMU, the
image and the module first, as the scenarios do.
"""

import os
import shutil
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TOP, 'qemu-test', 'tests'), os.path.join(TOP, 'backend', 'tests')]

import guest  # noqa: E402
import harness  # noqa: E402
import nvmeof  # noqa: E402

BACKEND = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 500
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
NQN = nvmeof.NQN + 'bench'
ADDRS = ['10.0.19.1', '10.0.19.2']
MACS = ['02:00:00:00:13:01', '02:00:00:00:13:02']
DISK = 16 << 20
# The disk written (or read) this many times a round: 64 MiB, so that a round
# of the device lasts a few hundred ms.
PASSES = 4

TARGET = r'''
nvmf_target_load
nvmf_export @NQN@ @ADDR@ 1
vur_step target_ready
vur_step host_done
nvmf_unexport @NQN@ 1
'''

# measure NAME PASSES DD-ARGS...: result bench_NAME "SECONDS", for PASSES
# runs of dd (direct I/O) one after the other
HOST = r'''
measure() {
    _n=$1 _passes=$2
    shift 2
    _t0=$(cut -d' ' -f1 /proc/uptime)
    for _p in $(seq $_passes); do
        _out=$(dd "$@" 2>&1) || break
    done
    _t1=$(cut -d' ' -f1 /proc/uptime)
    if [ "$_p" = "$_passes" ] && echo "$_out" | grep -q 'records out'; then
        vur_result "bench_$_n" ok "$(echo "$_t0 $_t1" | awk '{ printf "%.2f", $2 - $1 }')"
    else
        vur_result "bench_$_n" fail "$_out"
    fi
}
run load_nvme_rdma modprobe nvme-rdma
vur_step target_ready
nvmf_connect @PEER@ @NQN@
if [ -e /dev/nvme0n1 ]; then
    for r in $(seq @ROUNDS@); do
        measure write_1m_$r @PASSES@ if=/dev/zero of=/dev/nvme0n1 bs=1M count=16 oflag=direct
        measure read_1m_$r @PASSES@ if=/dev/nvme0n1 of=/dev/null bs=1M count=16 iflag=direct
    done
    measure write_4k 1 if=/dev/zero of=/dev/nvme0n1 bs=4k count=@COUNT@ oflag=direct
    measure read_4k 1 if=/dev/nvme0n1 of=/dev/null bs=4k count=@COUNT@ iflag=direct
    nvmf_disconnect
fi
vur_step host_done
'''


def run_pair(qemu, image, ko, sock_dir, way):
    """Boot a target and a host on @way ('device' or 'rxe'); returns
    {figure: seconds} from the host's results, or why not (a str)."""
    socks = [os.path.join(sock_dir, f'{way}{i}') for i in range(2)]
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                              '--mac', MACS[0], prefix=f'vurbn{way}')
    guests = []
    try:
        guest.wait_ready(backend)
        for i, body in enumerate((TARGET, HOST)):
            setup = 'device_setup' if way == 'device' else 'rxe_setup'
            script = nvmeof.script(f'{setup} @MAC@ @ADDR@\nvur_ping ping_peer @PEER@ 60\n' +
                                   body, NQN=NQN, ADDR=ADDRS[i], PEER=ADDRS[1 - i],
                                   MAC=MACS[i], COUNT=COUNT, ROUNDS=ROUNDS,
                                   PASSES=PASSES)
            if way == 'device':
                extra = {'append': f'vur.modules={nvmeof.MODULES_DEVICE}',
                         'files': guest.module_files(ko, image)}
            else:
                extra = {'append': f'vur.modules={nvmeof.MODULES_RXE}'}
            guests.append(guest.Guest(qemu, image, script, [socks[i]], mem_mb=512,
                                      name=f'{way}{i}', **extra))
        for _ in range(2):
            why = guest.barrier(guests, 600)
            if why:
                return why
        for g in guests:
            g.wait(300)
        results, _ = guests[1].results()
        failed = [f'{n}: {d}' for n, ok, d in results if not ok]
        if failed:
            return 'host: ' + '; '.join(failed)
        return {n[len('bench_'):]: float(d) for n, ok, d in results if n.startswith('bench_')}
    finally:
        for g in guests:
            g.close()
        backend.stop()


def report(way, t):
    """The figures of one way: 1 MiB MB/s (best round), 4 KiB us per I/O."""
    print(f'== {way}')
    for op in ('write', 'read'):
        best = min(t[f'{op}_1m_{r}'] for r in range(1, ROUNDS + 1))
        rounds = ' '.join(f"{PASSES * DISK / 1e6 / max(t[f'{op}_1m_{r}'], 0.01):.1f}"
                          for r in range(1, ROUNDS + 1))
        print(f'  {op:5} 1 MiB blocks  {PASSES * DISK / 1e6 / max(best, 0.01):7.1f} MB/s'
              f'   (rounds: {rounds} MB/s)')
    for op in ('write', 'read'):
        s = t[f'{op}_4k']
        print(f'  {op:5} 4 KiB blocks  {s * 1e6 / COUNT:7.0f} us per I/O'
              f'  ({COUNT / max(s, 0.01):.0f} IOPS, {COUNT * 4096 / 1e6 / max(s, 0.01):.2f} MB/s)')


def main():
    qemu, image = guest.build_qemu(), guest.build_image()
    ko = guest.build_module(image)
    sock_dir = tempfile.mkdtemp(prefix='vurbn-')
    status = 0
    print(f'NVMe-oF over RDMA between two TCG guests ({guest.kernel()}): 16 MiB RAM disk, '
          f'dd direct I/O at queue depth 1, 1 MiB x 64 (best of {ROUNDS}) and 4 KiB x {COUNT}')
    for way, what in (('device', 'virtio_rdma (transport in the backend)'),
                      ('rxe', 'rdma_rxe over virtio-net (transport in the guests)')):
        t = run_pair(qemu, image, ko, sock_dir, way)
        if isinstance(t, str):
            print(f'== {what}\n  failed: {t[-2000:]}')
            status = 1
        else:
            report(what, t)
    shutil.rmtree(sock_dir, ignore_errors=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
