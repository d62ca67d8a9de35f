# SPDX-License-Identifier: GPL-2.0-or-later
"""NVMe over Fabrics in the guests, as the NVMe-oF scenarios (16, 17, 18)
and bench/nvmeof_bench.py run it: the shell functions both ends use, the
guest set-ups (the device under virtio_rdma.ko, or Linux rxe on a plain
virtio-net device of the same backend) and the host-side checks.

Everything runs in the guests' kernels (no nvme-cli, no userspace verbs).
A target is a 16 MiB RAM disk (brd, /dev/ram0) exported by nvmet-rdma
through configfs: any host allowed, namespace 1, a port of type rdma on
ADDR:4420. A host loads nvme-rdma and writes
transport=rdma,traddr=ADDR,trsvcid=4420,nqn=NQN[,OPTIONS] to
/dev/nvme-fabrics; the namespace appears as /dev/nvme0n1. Result names
take the prefix $P (empty unless a script sets it)."""

import os

import guest

NQN = 'nqn.2026-11.org.vhost-user-rdma:'

# virtio_pci is built in on 7.2; naming it does no harm there. 6.1's
# ib_umem (which the driver links to) is in ib_uverbs.
MODULES_DEVICE = 'virtio_pci,ib_core,ib_uverbs'
# Linux rxe on virtio_net: 6.1's rxe needs a crc32 module; 7.x has crc32
# built in.
MODULES_RXE = ('virtio_pci,virtio_net,' +
               ('crc32_generic,' if guest.kernel() == 'debian12' else '') +
               'ib_uverbs,rdma_rxe')

FUNCS = r'''
. /lib/vur.sh
# A step may wait for the other guest's whole NVMe run (TCG: minutes).
VUR_STEP_TIMEOUT=600
NVMET_CFG=/sys/kernel/config/nvmet
P=${P:-}
# The target's namespace: brd's RAM disk unless a script names another disk.
NVMF_DISK=${NVMF_DISK:-/dev/ram0}

# run NAME COMMAND...: a result $P-NAME, ok when COMMAND succeeds
run() {
    _n=$1
    shift
    if _out=$("$@" 2>&1); then
        vur_result "$P$_n" ok "$_out"
    else
        vur_result "$P$_n" fail "$_out $(dmesg | tail -5 | tr '\n' '|')"
    fi
}

# kernel_log_clean [NAME]: no WARNING, BUG or call trace in the kernel log
kernel_log_clean() {
    if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
        vur_result "${1:-kernel_log_clean}" fail \
            "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
    else
        vur_result "${1:-kernel_log_clean}" ok
    fi
}

# device_setup MAC ADDR: virtio_rdma.ko on this guest's device, which must
# have fast registration; its netdev (the one with MAC) takes ADDR/24.
device_setup() {
    if ! insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko; then
        vur_result insmod_virtio_rdma fail "$(dmesg | tail -5)"
        exit 1
    fi
    vur_wait_file /sys/class/infiniband/virtio_rdma0 10
    _caps=$(dmesg | grep -o 'capabilities:.*' | head -1)
    vur_result device_fast_registration \
        $(echo "$_caps" | grep -q mem_mgt_extensions && echo ok || echo fail) "$_caps"
    netdev_up "$1" "$2"
}

# netdev_up MAC ADDR: the netdev with MAC takes ADDR/24 and comes up
netdev_up() {
    N=$(vur_netdev_of "$1")
    ip addr add "$2/24" dev "$N" && ip link set "$N" up &&
        vur_wait_eq up 10 cat /sys/class/net/$N/operstate ||
        vur_result netdev_up fail "$(ip link show $N)"
}

# rxe_setup MAC ADDR: Linux rxe (rxe0) on this guest's virtio_net netdev
# (a device of the same backend whose driver does not negotiate RoCE)
rxe_setup() {
    netdev_up "$1" "$2"
    if rdma link add rxe0 type rxe netdev "$N"; then
        vur_result rxe_link ok "$(rdma link show rxe0/1)"
    else
        vur_result rxe_link fail "rdma link add failed"
    fi
}

# nvmf_target_load [NVMET-RDMA PARAMETERS]: brd (a 16 MiB /dev/ram0),
# nvmet-rdma and configfs
nvmf_target_load() {
    run load_brd modprobe brd rd_nr=1 rd_size=16384
    run load_nvmet_rdma modprobe nvmet-rdma "$@"
    grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
}

# nvmf_export NQN ADDR PORT: $NVMF_DISK as namespace 1 of subsystem NQN (any
# host) on port PORT, rdma ADDR:4420; waits until nvmet-rdma listens. The
# namespace's UUID is made from NQN, not at random: a host that reconnects
# to the target after a reboot finds the same namespace (else nvme-core
# removes it: "identifiers changed").
nvmf_export() {
    _s=$NVMET_CFG/subsystems/$1
    _u=$(echo -n "$1" | md5sum |
        sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)\(.\{12\}\).*/\1-\2-\3-\4-\5/')
    run export_subsystem sh -c "
        mkdir $_s &&
        echo 1 >$_s/attr_allow_any_host &&
        mkdir $_s/namespaces/1 &&
        echo -n $NVMF_DISK >$_s/namespaces/1/device_path &&
        echo $_u >$_s/namespaces/1/device_uuid &&
        echo 1 >$_s/namespaces/1/enable"
    _p=$NVMET_CFG/ports/$3
    run export_port sh -c "
        mkdir $_p &&
        echo rdma >$_p/addr_trtype &&
        echo ipv4 >$_p/addr_adrfam &&
        echo $2 >$_p/addr_traddr &&
        echo 4420 >$_p/addr_trsvcid"
    nvmf_enable_port "$1" "$2" "$3"
}

# nvmf_enable_port NQN ADDR PORT: subsystem NQN on port PORT (made by
# nvmf_export); waits for one more "enabling port" line of nvmet-rdma
nvmf_enable_port() {
    _want=$(($(dmesg | grep -c "enabling port $3 ($2:4420)") + 1))
    run enable_port ln -s $NVMET_CFG/subsystems/$1 $NVMET_CFG/ports/$3/subsystems/$1
    vur_wait_eq $_want 30 sh -c "dmesg | grep -c 'enabling port $3 ($2:4420)'" &&
        vur_result port_listening ok "$(dmesg | grep 'enabling port' | tail -1)" ||
        vur_result port_listening fail "$(dmesg | tail -8 | tr '\n' '|')"
}

# nvmf_ramdisk_md5: result ramdisk_md5, the first 4 MiB of $NVMF_DISK
nvmf_ramdisk_md5() {
    vur_result ${P}ramdisk_md5 ok \
        "$(dd if=$NVMF_DISK bs=64k count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)"
}

# nvmf_unexport NQN PORT, and nvmet-rdma and nvmet unloaded
nvmf_unexport() {
    run unexport sh -c "
        rm $NVMET_CFG/ports/$2/subsystems/$1 && rmdir $NVMET_CFG/ports/$2 &&
        echo 0 >$NVMET_CFG/subsystems/$1/namespaces/1/enable &&
        rmdir $NVMET_CFG/subsystems/$1/namespaces/1 && rmdir $NVMET_CFG/subsystems/$1"
    run unload_nvmet sh -c 'rmmod nvmet_rdma && rmmod nvmet'
}

# nvmf_connect ADDR NQN [OPTIONS]: /dev/nvme0n1 appears
nvmf_connect() {
    run connect timeout 120 sh -c \
        "echo transport=rdma,traddr=$1,trsvcid=4420,nqn=$2${3:+,$3} >/dev/nvme-fabrics"
    if vur_wait_file /dev/nvme0n1 60; then
        vur_result ${P}namespace ok \
            "$(cat /sys/class/nvme/nvme0/transport) $(cat /sys/class/nvme/nvme0/address)" \
            "$(cat /sys/block/nvme0n1/size) sectors," \
            "register_always $(cat /sys/module/nvme_rdma/parameters/register_always)"
    else
        vur_result ${P}namespace fail "$(dmesg | tail -10 | tr '\n' '|')"
    fi
}

# nvmf_write_pattern: a 4 MiB random pattern (/tmp/pat) written with direct
# I/O in 1 MiB blocks, read back in 64 KiB blocks; then its first 64 KiB
# rewritten and read back in 4 KiB blocks (in the command capsule:
# nvmet-rdma's inline data). Result pattern_md5: what the disk must hold.
nvmf_write_pattern() {
    dd if=/dev/urandom of=/tmp/pat bs=64k count=64 2>/dev/null
    run write_1m timeout 120 dd if=/tmp/pat of=/dev/nvme0n1 bs=1M count=4 oflag=direct
    nvmf_read_back read_back_64k
    dd if=/dev/urandom of=/tmp/pat4k bs=4k count=16 2>/dev/null
    run write_4k timeout 120 dd if=/tmp/pat4k of=/dev/nvme0n1 bs=4k count=16 \
        oflag=direct conv=notrunc
    _want=$(md5sum </tmp/pat4k | cut -d' ' -f1)
    _got=$(timeout 120 dd if=/dev/nvme0n1 bs=4k count=16 iflag=direct 2>/dev/null |
        md5sum | cut -d' ' -f1)
    vur_expect ${P}read_back_4k "$_want" "$_got"
    dd if=/tmp/pat4k of=/tmp/pat bs=4k count=16 conv=notrunc 2>/dev/null
    vur_result ${P}pattern_md5 ok "$(md5sum </tmp/pat | cut -d' ' -f1)"
}

# nvmf_read_back NAME: the first 4 MiB of /dev/nvme0n1, read with direct
# I/O in 64 KiB blocks, equal /tmp/pat
nvmf_read_back() {
    _want=$(md5sum </tmp/pat | cut -d' ' -f1)
    _got=$(timeout 120 dd if=/dev/nvme0n1 bs=64k count=64 iflag=direct 2>/dev/null |
        md5sum | cut -d' ' -f1)
    vur_expect "$P$1" "$_want" "$_got"
}

# nvmf_disconnect: delete_controller (nvme-rdma drains each queue with
# ib_drain_qp(): the device's flush completions); /dev/nvme0n1 goes
nvmf_disconnect() {
    run disconnect timeout 120 sh -c 'echo 1 >/sys/class/nvme/nvme0/delete_controller'
    vur_wait_eq gone 30 sh -c '[ -e /dev/nvme0n1 ] || echo gone' &&
        vur_result ${P}namespace_gone ok ||
        vur_result ${P}namespace_gone fail "$(ls /dev/nvme* 2>&1)"
}
'''


def script(body, **subst):
    """FUNCS and @body with every @NAME@ replaced by subst[NAME]."""
    text = FUNCS + body
    for k, v in subst.items():
        text = text.replace(f'@{k}@', str(v))
    return text


def result(g, name):
    """The detail of @g's passed result @name, or None."""
    for n, ok, detail in g.results()[0]:
        if n == name and ok:
            return detail
    return None


def check_pattern(tap, host, target, prefix=''):
    """Case @prefix target_holds_the_host_pattern: the host's result
    pattern_md5 equals the target's ramdisk_md5."""
    written = result(host, prefix + 'pattern_md5')
    held = result(target, prefix + 'ramdisk_md5')
    tap.case(f'{prefix}target_holds_the_host_pattern', written is not None and written == held,
             f'host wrote {written}, target holds {held}')


def check_engine(tap, backend, sock, drained=True):
    """Cases for the device on @sock: no control command refused; no WR
    completed in error and no request refused with a NAK; and, if
    @drained, WRs flushed (nvme-rdma's and nvmet-rdma's drains)."""
    name = os.path.basename(sock)
    d = backend.device(sock)
    tap.case(f'no_control_errors_{name}', d['ctrl_errors'] == 0,
             {k: v for k, v in d.items() if k.startswith(('ctrl_', 'qps', 'cqs', 'mrs'))})
    eng = {k: d.get(f'rdma_{k}') for k in ('wr_errors', 'nak_inv', 'nak_access', 'nak_op',
                                           'flushed', 'cqes', 'rx_bad_icrc')}
    tap.case(f'no_wr_errors{"_queues_drained" if drained else ""}_{name}',
             eng['wr_errors'] == 0 and eng['nak_inv'] == 0 and eng['nak_access'] == 0 and
             eng['nak_op'] == 0 and (not drained or (eng['flushed'] or 0) > 0), eng)
