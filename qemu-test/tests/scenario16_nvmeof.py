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
import re
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
NQN = 'nqn.2026-11.org.vhost-user-rdma:scenario16'
ADDRS = ['10.0.16.1', '10.0.16.2']
MACS = ['02:00:00:00:10:01', '02:00:00:00:10:02']
# virtio_pci is built in on 7.2; naming it does no harm there. 6.1's
# ib_umem (which the driver links to) is in ib_uverbs.
MODULES = 'virtio_pci,ib_core,ib_uverbs'
# nvmet-rdma on shared receive queues (its use_srq parameter).
NVMET_SRQ = os.environ.get('VUR_NVMET_SRQ') == '1'

COMMON = r'''
. /lib/vur.sh
# A step may wait for the other guest's whole NVMe run (TCG: minutes).
VUR_STEP_TIMEOUT=600

if ! insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko; then
    vur_result insmod_virtio_rdma fail "$(dmesg | tail -5)"
    exit 1
fi
vur_wait_file /sys/class/infiniband/virtio_rdma0 10
caps=$(dmesg | grep -o 'capabilities:.*' | head -1)
vur_result device_fast_registration \
    $(echo "$caps" | grep -q mem_mgt_extensions && echo ok || echo fail) "$caps"
N=$(vur_netdev_of @MAC@)
ip addr add @ADDR@/24 dev "$N" && ip link set "$N" up &&
    vur_wait_eq up 10 cat /sys/class/net/$N/operstate ||
    vur_result netdev_up fail "$(ip link show $N)"
vur_ping ping_peer @PEER@ 60
'''

TARGET = r'''
cfg=/sys/kernel/config/nvmet
# run NAME COMMAND...: a result, ok when COMMAND succeeds
run() {
    _n=$1
    shift
    if _out=$("$@" 2>&1); then
        vur_result "$_n" ok "$_out"
    else
        vur_result "$_n" fail "$_out $(dmesg | tail -5 | tr '\n' '|')"
    fi
}
run load_brd modprobe brd rd_nr=1 rd_size=16384
run load_nvmet_rdma modprobe nvmet-rdma @NVMET_ARGS@
grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
run export_subsystem sh -c '
    mkdir @CFG@/subsystems/@NQN@ &&
    echo 1 >@CFG@/subsystems/@NQN@/attr_allow_any_host &&
    mkdir @CFG@/subsystems/@NQN@/namespaces/1 &&
    echo -n /dev/ram0 >@CFG@/subsystems/@NQN@/namespaces/1/device_path &&
    echo 1 >@CFG@/subsystems/@NQN@/namespaces/1/enable'
run export_port sh -c '
    mkdir @CFG@/ports/1 &&
    echo rdma >@CFG@/ports/1/addr_trtype &&
    echo ipv4 >@CFG@/ports/1/addr_adrfam &&
    echo @ADDR@ >@CFG@/ports/1/addr_traddr &&
    echo 4420 >@CFG@/ports/1/addr_trsvcid &&
    ln -s @CFG@/subsystems/@NQN@ @CFG@/ports/1/subsystems/@NQN@'
vur_wait_eq 1 10 sh -c "dmesg | grep -c 'enabling port 1 (@ADDR@:4420)'" &&
    vur_result port_listening ok "$(dmesg | grep 'enabling port 1')" ||
    vur_result port_listening fail "$(dmesg | tail -8 | tr '\n' '|')"
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
sum=$(dd if=/dev/ram0 bs=64k count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
vur_result ramdisk_md5 ok "$sum"
run unexport sh -c '
    rm @CFG@/ports/1/subsystems/@NQN@ && rmdir @CFG@/ports/1 &&
    echo 0 >@CFG@/subsystems/@NQN@/namespaces/1/enable &&
    rmdir @CFG@/subsystems/@NQN@/namespaces/1 && rmdir @CFG@/subsystems/@NQN@'
run unload_nvmet sh -c 'rmmod nvmet_rdma && rmmod nvmet'
'''

HOST = r'''
run() {
    _n=$1
    shift
    if _out=$("$@" 2>&1); then
        vur_result "$_n" ok "$_out"
    else
        vur_result "$_n" fail "$_out $(dmesg | tail -5 | tr '\n' '|')"
    fi
}
run load_nvme_rdma modprobe nvme-rdma
vur_step target_ready
opts=transport=rdma,traddr=@PEER@,trsvcid=4420,nqn=@NQN@
run connect timeout 120 sh -c "echo $opts >/dev/nvme-fabrics"
if vur_wait_file /dev/nvme0n1 60; then
    vur_result namespace ok "$(cat /sys/class/nvme/nvme0/transport) $(cat /sys/class/nvme/nvme0/address)" \
        "$(cat /sys/block/nvme0n1/size) sectors," \
        "register_always $(cat /sys/module/nvme_rdma/parameters/register_always)"
else
    vur_result namespace fail "$(dmesg | tail -10 | tr '\n' '|')"
fi
if [ -e /dev/nvme0n1 ]; then
    dd if=/dev/urandom of=/tmp/pat bs=64k count=64 2>/dev/null
    want=$(md5sum </tmp/pat | cut -d' ' -f1)
    run write_1m timeout 120 dd if=/tmp/pat of=/dev/nvme0n1 bs=1M count=4 oflag=direct
    got=$(timeout 120 dd if=/dev/nvme0n1 bs=64k count=64 iflag=direct 2>/dev/null |
        md5sum | cut -d' ' -f1)
    vur_expect read_back_64k "$want" "$got"
    # 4 KiB writes ride in the command capsule (nvmet-rdma's inline data)
    dd if=/dev/urandom of=/tmp/pat4k bs=4k count=16 2>/dev/null
    run write_4k timeout 120 dd if=/tmp/pat4k of=/dev/nvme0n1 bs=4k count=16 oflag=direct conv=notrunc
    want4k=$(md5sum </tmp/pat4k | cut -d' ' -f1)
    got4k=$(timeout 120 dd if=/dev/nvme0n1 bs=4k count=16 iflag=direct 2>/dev/null |
        md5sum | cut -d' ' -f1)
    vur_expect read_back_4k "$want4k" "$got4k"
    dd if=/tmp/pat4k of=/tmp/pat bs=4k count=16 conv=notrunc 2>/dev/null
    vur_result pattern_md5 ok "$(md5sum </tmp/pat | cut -d' ' -f1)"
    # ib_drain_qp() on each queue: the device's flush completions
    run disconnect timeout 120 sh -c 'echo 1 >/sys/class/nvme/nvme0/delete_controller'
    vur_wait_eq gone 30 sh -c '[ -e /dev/nvme0n1 ] || echo gone' &&
        vur_result namespace_gone ok ||
        vur_result namespace_gone fail "$(ls /dev/nvme* 2>&1)"
    run unload_nvme_rdma rmmod nvme_rdma
fi
vur_step host_done
'''

END = r'''
if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
    vur_result kernel_log_clean fail "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
else
    vur_result kernel_log_clean ok
fi
'''


def guest_script(i):
    body = COMMON + (TARGET if i == 0 else HOST) + END
    return (body.replace('@CFG@', '/sys/kernel/config/nvmet').replace('@NQN@', NQN)
            .replace('@ADDR@', ADDRS[i]).replace('@PEER@', ADDRS[1 - i])
            .replace('@MAC@', MACS[i])
            .replace('@NVMET_ARGS@', 'use_srq=1' if NVMET_SRQ else ''))


def result(g, name):
    """The detail of @g's result @name, or None."""
    for n, ok, detail in g.results()[0]:
        if n == name and ok:
            return detail
    return None


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
                                      append=f'vur.modules={MODULES}',
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
        written, held = result(guests[1], 'pattern_md5'), result(guests[0], 'ramdisk_md5')
        tap.case('target_holds_the_host_pattern', written is not None and written == held,
                 f'host wrote {written}, target holds {held}')
        for s in socks:
            d = backend.device(s)
            tap.case(f'no_control_errors_{os.path.basename(s)}', d['ctrl_errors'] == 0,
                     {k: v for k, v in d.items() if re.match(r'ctrl_|qps|cqs|mrs', k)})
            # No WR failed and no request was refused; the drains at
            # disconnect show as flushed WRs (every queue moved to ERR).
            eng = {k: d.get(f'rdma_{k}') for k in ('wr_errors', 'nak_inv', 'nak_access',
                                                   'nak_op', 'flushed', 'cqes')}
            tap.case(f'no_wr_errors_queues_drained_{os.path.basename(s)}',
                     eng['wr_errors'] == 0 and eng['nak_inv'] == 0 and
                     eng['nak_access'] == 0 and eng['nak_op'] == 0 and (eng['flushed'] or 0) > 0,
                     eng)
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
