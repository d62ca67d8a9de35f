# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 12: unmodified rdma-core tools and perftest move data between
two guests through the guest verbs stack (virtio_rdma.ko and the provider)
and the backend's RDMA engine, and a guest talks to vur-pingpong on the host.

One backend serves three devices: one per guest (build-sid-image.sh's
image: Debian 12's kernel, or Debian unstable's Linux 7.2 with
VUR_GUEST_KERNEL=linux72, with the module, Debian unstable's rdma-core 65
userspace with the provider under /sid), and one driven on the host by
vur-pingpong. A tap uplink (host side 10.S.12.254, S from VUR_S12_NET, 0
by default) carries the ping-pong tools' TCP exchange with the host. Guest
N takes 10.S.12.N/24 on the module's netdev and uses the RoCE v2 GID of
that IPv4 address; every RDMA packet stays in the backend's switch.

The tools run with their default depths (500 receive WRs: QEMU's default
queue-size, 1024, holds them). Between the guests, with the data checked
where the tool can (-c):
ibv_rc_pingpong and ibv_uc_pingpong 4 KiB, ibv_ud_pingpong 1 KiB; perftest
ib_write_bw, ib_read_bw (64 KiB) and ib_send_lat (8 B); through the RDMA
CM (the kernel's GSI QP on the device: ib_mad, ib_cm, rdma_cm, rdma_ucm),
rping (4 KiB, 10 pings, data validated with -V) and ib_send_bw -R (64 KiB);
then, on a device that reports atomics (ibv_devinfo -v: atomic_cap not
ATOMIC_NONE), ib_atomic_bw (fetch and add) and ib_atomic_lat (compare and
swap): MRs and QPs with REMOTE_ATOMIC through the kernel driver, the WRs and
their completions through the provider; then rdma_cm's mckey (UD multicast
to 239.1.12.1): guest 2's QP attached to the group on its device, guest 1
sends, the host checks the attachment, the receiving engine's multicast
counter and that both left the group. Last, verbs_ex (tests/verbs_ex.c,
issue 29): the extended verbs (ibv_create_qp_ex with the ibv_wr_* API:
SEND of an s/g list, SEND with immediate of inline data, RDMA WRITE, WRITE
with immediate, READ, both atomics; ibv_create_cq_ex read with
ibv_start_poll/ibv_next_poll, timestamps refused) and memory windows: a
type 1 window (ibv_bind_mw) and a type 2 one (ibv_wr_bind_mw, then
IBV_WR_BIND_MW in ibv_post_send), WRITE and READ through their keys, the
data checked; outside the window, with a key replaced by a new bind, after
the unbind, after a SEND with invalidate and after LOCAL_INV of the
window's key: remote access errors.
With VUR_S12_CASES=rings (and VUR_DRIVER_LAYOUT=rings: the kernel driver
puts the processes' CQs, QPs and SRQs on rings, issue 28) only what needs
rings runs: verbs_probe deep_cq and deep_cq_ex in each guest (a CQ of
4096 entries, and one of 131072 read with ibv_start_poll, holding 4000
CQEs unpolled, data checked), overrun (a CQ
ring that overruns: CQ_ERR, QP_FATAL for its QPs), ring_qp (ring_qps
counts the process's QPs, a QP of 8192 WRs takes 2000 WRITEs in one post,
data checked; a record lying beyond its ring and one going backwards send
only their own QP to ERR, ROCE-DEV-RING-10) and ring_rate (posts/s and
doorbell system calls per post, idle and busy: figures), ib_write_bw -q 16
(-n 100: a send CQ of 16 x 100 = 1600 CQEs), ib_write_bw -q 256 (more QPs
than the device's virtqueues), ib_write_bw -q 4200 (more ring QPs than
4096 MRs; with VUR_FEW_QUEUES only), ib_send_bw -q 64 -t 4096 (QPs deeper than a
virtqueue), ibv_rc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong with
their data checked (-c), and libfabric's verbs;ofi_rxm with its
default universe (MSG CQs of (128 + 128) x 1024 = 262144 CQEs), without the
multicast and host runs.
In every case each guest also resizes a CQ (verbs_probe resize_cq and
resize_cq_ex: grown with CQEs pending, a shrink below them refused with
the CQ intact, a shrink, 880 CQEs polled in order with their data; on
rings the CQ moves to new rings, on virtqueues it stays as deep as its
virtqueue).
With VUR_FEW_QUEUES=1 the backend's devices have 14 virtqueues (--max-qps 3,
the least it takes, --max-cqs 1 --ring-queues 2): each guest checks that its driver chose rings,
that the device has at most 16 MSI-X vectors and that max_qp and max_cq
exceed 256, and rping (the RDMA CM over ib_mad's GSI QP) runs too.
The guest driver takes rings by default when the device offers them; the
scenario's default cases run on either layout (VUR_DRIVER_LAYOUT).
The guest checks that ib_mad's GSI QP is QP 1 in RTS (`rdma resource`).
Then the first
guest's ibv_rc_pingpong and ibv_ud_pingpong run against vur-pingpong on the
host (a link-local GID: the guest gets a permanent neighbour entry, since a
virtio-user device has no IP stack to answer neighbour discovery). The
figures (usec/iter, MB/s, latency) are reported as diagnostics, never
asserted: TCG is slow.

Usage: scenario12_verbs_pingpong.py PATH/TO/vhost-user-rdma PATH/TO/vur-pingpong
Builds QEMU, the images, the provider and the module first. Prints TAP.
Needs root (net_tap, chroot).
"""

import os
import subprocess
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
PINGPONG = sys.argv[2]
# The subnet of the uplink and the guests: 10.N.12.0/24, N from VUR_S12_NET
# (default 0), one per run of this scenario in meson's list, so that meson
# may run two of them side by side (guest.run's turns are per subnet).
NET = f"10.{int(os.environ.get('VUR_S12_NET', '0'))}.12"
HOST = f'{NET}.254/24'
PORT = str(20000 + os.getpid() % 10000)
# --mac: the first device's, then +1: guest 1, guest 2, vur-pingpong.
MACS = ['02:00:00:00:0c:01', '02:00:00:00:0c:02', '02:00:00:00:0c:03']
# bench/guest_verbs.sh asks for more (VUR_PP_ITERS, VUR_PP_BW=1).
ITERS = int(os.environ.get('VUR_PP_ITERS', '20'))
# VUR_DATA_PATHS=2: the backend on two data-path threads (two EAL worker lcores that float
# over the CPUs there are), the guests' QPs spread over both.
DATA_PATHS = int(os.environ.get('VUR_DATA_PATHS', '1'))
TWO_DATA_PATHS = ['--lcores=0@(0-1),1@(0-1),2@(0-1)']
BW_N = 200 if os.environ.get('VUR_PP_BW') == '1' else 50
# (name, tool and arguments between the guests, what its output must have or
# None, how it finds its peer): rdma-core's tools take the GID index with -g,
# perftest with -x; with -R perftest connects through the RDMA CM (the peer's
# address only), rping takes the addresses with -a
PP = '@ITERS@ iters in'
GUEST_RUNS = [
    ('rc_pingpong', 'ibv_rc_pingpong -s 4096 -n @ITERS@ -c', PP, '-g'),
    ('uc_pingpong', 'ibv_uc_pingpong -s 4096 -n @ITERS@ -c', PP, '-g'),
    ('ud_pingpong', 'ibv_ud_pingpong -s 1024 -n @ITERS@ -c', PP, '-g'),
    # Shared receive queues (issue 29): 8 RC QPs on one SRQ per side, the
    # receive WRs of all of them posted to it; perftest's SEND on an SRQ.
    ('srq_pingpong', 'ibv_srq_pingpong -s 4096 -q 8 -n @ITERS@ -c', PP, '-g'),
    ('send_bw_srq', 'ib_send_bw -F --use-srq -s 65536 -n 50', None, '-x'),
    ('write_bw', f'ib_write_bw -F -s 65536 -n {BW_N}', None, '-x'),
    ('read_bw', 'ib_read_bw -F -s 65536 -n 50', None, '-x'),
    ('send_lat', 'ib_send_lat -F -s 8 -n 100', None, '-x'),
    # Through the RDMA CM (rdma_ucm, rdma_cm, ib_cm over the kernel's GSI
    # QP): rping with the data checked, perftest connected by the CM.
    ('rping', 'rping -v -V -C 10 -S 4096', 'ping data: rdma-ping-9: ', 'rping'),
    ('send_bw_cm', 'ib_send_bw -F -s 65536 -n 50', None, '-R'),
    # RC atomics (issue 29): only on a device that reports them (atomic_cap
    # not ATOMIC_NONE in ibv_devinfo -v, VIRTIO_IB_DEVICE_ATOMIC); else the
    # guests report them skipped. FETCH_AND_ADD (ib_atomic_bw's default)
    # and CMP_AND_SWAP.
    ('atomic_bw', 'ib_atomic_bw -F -n 200', None, '-x'),
    ('atomic_lat', 'ib_atomic_lat -F -n 100 -A CMP_AND_SWAP', None, '-x'),
    # The extended verbs and memory windows (issue 29): the parts the
    # device lacks are reported skipped by verbs_ex itself.
    ('verbs_ex', 'verbs_ex', 'verbs_ex: ok', '-g'),
    # libfabric 2.1 (Debian unstable's libfabric-bin), its address exchange
    # over TCP to the server's address: the verbs provider with fi_pingpong's
    # defaults (datagram endpoints: UD QPs), its MSG endpoints (RC through
    # the RDMA CM), and verbs under ofi_rxm (RDM endpoints only, on MSG
    # ones). ofi_rxm sizes its MSG CQs (128 + 128) x FI_UNIVERSE_SIZE
    # (default 256) entries, more than the device's max_cqe (the virtqueue
    # size, 1024): ibv_create_cq() fails with EINVAL; a universe of 4 fits.
    ('fi_pingpong_verbs', 'fi_pingpong -p verbs', None, 'fi'),
    ('fi_pingpong_verbs_msg', 'fi_pingpong -p verbs -e msg', None, 'fi'),
    ('fi_pingpong_verbs_rxm', "FI_UNIVERSE_SIZE=4 fi_pingpong -p 'verbs;ofi_rxm' -e rdm",
     None, 'fi'),
]
# VUR_S12_CASES=rings: only the runs that need CQs deeper than a virtqueue's
# 1024 slots (the driver's layout=rings, VUR_DRIVER_LAYOUT=rings), the deep
# CQ probes in each guest, no multicast or host runs.
RINGS_ONLY = os.environ.get('VUR_S12_CASES') == 'rings'
RINGS_RUNS = [
    # perftest's send CQ: tx_depth (128, lowered to -n) x QPs: 100 x 16 =
    # 1600 CQEs (the -q 32 -n 50 of issue 28)
    ('write_bw_q16', 'ib_write_bw -F -q 16 -s 65536 -n 100', None, '-x'),
    # ofi_rxm's MSG CQs: (128 + 128) x FI_UNIVERSE_SIZE (1024) = 262144 CQEs:
    # a ring beyond one page allocation, in an MR of the driver's own
    ('fi_pingpong_verbs_rxm', "fi_pingpong -p 'verbs;ofi_rxm' -e rdm", None, 'fi'),
    # Processes' QPs on rings (the provider asks for them): 256 QPs, more
    # than the device's QP virtqueues; 64 QPs of 4096 send WRs, deeper than
    # a virtqueue (perftest lowers -t to -n); small messages keep it short
    ('write_bw_q256', 'ib_write_bw -F -q 256 -s 4096 -n 8', None, '-x'),
    ('send_bw_q64_t4096', 'ib_send_bw -F -q 64 -t 4096 -s 64 -n 4096', None, '-x'),
    # 4200 QPs of one process: each one's rings are an MR of its own, more
    # than the 4096 MRs a device without rings offers (ROCE-DEV-RING-26);
    # on the few-queues devices only (VUR_FEW_QUEUES), 45 s of TCG
    *([('write_bw_q4200', 'ib_write_bw -F -q 4200 -s 64 -n 5', None, '-x')]
      if os.environ.get('VUR_FEW_QUEUES') == '1' else []),
    # and rdma-core's tools, which check the data (-c), on them
    ('rc_pingpong', 'ibv_rc_pingpong -s 4096 -n @ITERS@ -c', PP, '-g'),
    ('ud_pingpong', 'ibv_ud_pingpong -s 1024 -n @ITERS@ -c', PP, '-g'),
    ('srq_pingpong', 'ibv_srq_pingpong -s 4096 -q 8 -n @ITERS@ -c', PP, '-g'),
]
if RINGS_ONLY:
    GUEST_RUNS = RINGS_RUNS
# VUR_FEW_QUEUES=1: the backend's devices have 14 virtqueues (a receive and
# a transmit queue, the control queue, 1 CQ, 3 QPs (QPN 0..2: only QP 2 is
# a process's), 2 doorbell/event pairs), so QEMU gives each 15 MSI-X
# vectors: every QP and CQ of the runs
# beyond those (ib_write_bw -q 256, ib_mad's and the RDMA CM's, rping's)
# must be on rings ("far fewer queues and vectors", issue 28).
FEW_QUEUES = os.environ.get('VUR_FEW_QUEUES') == '1'
FEW_QUEUES_ARGS = ['--max-qps', '3', '--max-cqs', '1', '--ring-queues', '2']
if FEW_QUEUES:
    # the RDMA CM over ib_mad's GSI QP, on rings
    GUEST_RUNS = GUEST_RUNS + [
        ('rping', 'rping -v -V -C 10 -S 4096', 'ping data: rdma-ping-9: ', 'rping')]
# mckey: the group (its GID ::ffff:239.1.12.1, MAC 01:00:5e:01:0c:01) and the messages
MCAST, MCKEY_COUNT = '239.1.12.1', 10
# (guest tool, vur-pingpong transport, size)
HOST_RUNS = [('ibv_rc_pingpong', 'rc', 4096), ('ibv_ud_pingpong', 'ud', 1024)]


def link_local(mac):
    """The IPv6 link-local address of @mac (modified EUI-64), as the port's GID."""
    b = [int(x, 16) for x in mac.split(':')]
    eui = [b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]]
    return 'fe80::' + ':'.join(f'{eui[i] << 8 | eui[i + 1]:x}' for i in range(0, 8, 2))


GUEST_SCRIPT = r'''
. /lib/vur.sh


dmesg -n 1
insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko ||
    vur_result insmod_virtio_rdma fail "$(dmesg | tail -5)"
vur_wait_file /sys/class/infiniband/virtio_rdma0 10
# the layout the driver chose: rings by default, virtqueues when pinned
vur_result driver_layout ok "$(cat /sys/class/infiniband/virtio_rdma0/ports/1/layout)"
N=$(vur_netdev_of @MAC@)
ip addr add @ADDR@/24 dev "$N" && ip link set "$N" up &&
    vur_wait_eq up 10 cat /sys/class/net/$N/operstate ||
    vur_result netdev_up fail "$(ip link show $N)"
gid=$(vur_roce_v2_gid virtio_rdma0 "0000:0000:0000:0000:0000:ffff:@GID_V4@")
vur_expect roce_v2_gid_of_ipv4 yes "$([ -n "$gid" ] && echo yes)"
vur_ping ping_peer @PEER@ 60
# What a host has and libfabric's verbs provider uses: a loopback (its
# datagram name server stops through it) and a name that resolves.
ip link set lo up
printf '127.0.0.1 localhost\n@ADDR@ vur-guest\n' >/sid/etc/hosts

# ib_mad opened the GSI QP: QP 1, type GSI, in RTS
if rdma resource show qp link virtio_rdma0/1 2>&1 | grep -q 'lqpn 1 type GSI state RTS'; then
    vur_result gsi_qp ok "$(rdma resource show qp link virtio_rdma0/1 | grep 'lqpn 1 ')"
else
    vur_result gsi_qp fail "$(rdma resource show qp 2>&1 | head -5)"
fi

# An SRQ in this guest alone (verbs_probe srq: SENDs between two QPs of the
# device, the receiver on the SRQ; the SRQ limit event)
out=$(sid verbs_probe srq virtio_rdma0 "${gid:-0}" 2>&1)
case "$out" in
"srq ok"*) vur_result verbs_srq ok "$out" ;;
*) vur_result verbs_srq fail "$out" ;;
esac

# ibv_resize_cq in this guest alone (verbs_probe resize_cq: grown with CQEs
# pending, a shrink below them refused, a shrink, all polled in order with
# their data), through poll_cq and start/next_poll, on whichever layout the
# driver put the CQ (ring CQs move to new rings, issue 29)
# probe NAME: verbs_probe NAME on the device, result verbs_NAME
probe() {
    out=$(timeout 100 sid verbs_probe $1 virtio_rdma0 "${gid:-0}" 2>&1)
    case "$out" in
    "$1 ok"*) vur_result "verbs_$1" ok "$out" ;;
    *) vur_result "verbs_$1" fail "$out" ;;
    esac
}
probe resize_cq
probe resize_cq_ex
# A device of few virtqueues (VUR_FEW_QUEUES=1): the driver on rings, with
# few MSI-X vectors (one per queue with a callback and the configuration's,
# at most the 15 QEMU gives 14 queues), and more QPs and CQs than the
# virtqueues hold (ibv_devinfo's max_qp and max_cq: the rings' beside them)
if [ "@FEW@" = 1 ]; then
    vur_expect few_queues_layout rings "$(cat /sys/class/infiniband/virtio_rdma0/ports/1/layout)"
    D=$(readlink -f /sys/class/infiniband/virtio_rdma0/device)
    nv=$(ls "$D/../msi_irqs" 2>/dev/null | wc -l)
    nq=$(grep -c " $(basename "$D")-" /proc/interrupts)
    if [ "$nv" -ge 2 ] && [ "$nv" -le 16 ]; then
        vur_result few_queues_msix_vectors ok "$nv vectors, $nq queue/config interrupts"
    else
        vur_result few_queues_msix_vectors fail "$nv vectors: $(grep " $(basename "$D")-" /proc/interrupts | tr -s ' ' | tr '\n' '|')"
    fi
    mq=$(sid ibv_devinfo -v -d virtio_rdma0 | sed -n 's/^[[:space:]]*max_qp:[[:space:]]*//p')
    mc=$(sid ibv_devinfo -v -d virtio_rdma0 | sed -n 's/^[[:space:]]*max_cq:[[:space:]]*//p')
    if [ "${mq:-0}" -gt 256 ] && [ "${mc:-0}" -gt 256 ]; then
        vur_result few_queues_max_qp_cq ok "max_qp $mq, max_cq $mc"
    else
        vur_result few_queues_max_qp_cq fail "max_qp $mq, max_cq $mc"
    fi
fi

# CQs deeper than a virtqueue (layout=rings): 4000 CQEs held unpolled in a
# CQ of 4096, through poll_cq and through start/next_poll
if [ "@DEEP@" = 1 ]; then
    probe deep_cq
    probe deep_cq_ex
    vur_result ring_cqs_after ok "$(cat /sys/class/infiniband/virtio_rdma0/ports/1/ring_cqs 2>&1)"
    # A CQ on a ring that overruns: CQ_ERR through the event queue, then
    # QP_FATAL for both QPs (ROCE-DRV-OVR-2, -3)
    vur_expect verbs_ring_cq_overrun_events "overrun ok cq_err 1 qp_fatal 2" \
        "$(timeout 100 sid verbs_probe overrun virtio_rdma0 "${gid:-0}" 2>&1)"
    # A process's QPs on rings: ring_qps counts them, a QP of 8192 WRs,
    # a record that lies breaks only its QP (ROCE-DEV-RING-10)
    out=$(timeout 100 sid verbs_probe ring_qp virtio_rdma0 "${gid:-0}" 2>&1)
    case "$out" in
    "ring_qp ok"*) vur_result verbs_ring_qp ok "$out" ;;
    *) vur_result verbs_ring_qp fail "$out" ;;
    esac
    # Posting cost: posts/s and write()s (doorbell commands) per post, on an
    # idle QP and on a busy one (figures only: TCG is slow)
    out=$(timeout 100 sid verbs_probe ring_rate virtio_rdma0 "${gid:-0}" 2>&1)
    case "$out" in
    "ring_rate ok"*) vur_result verbs_ring_rate ok "$out" ;;
    *) vur_result verbs_ring_rate fail "$out" ;;
    esac
fi

# run NAME EXPECT GIDOPT TOOL...: one tool between the guests, the server on
# guest 1; ok when it exits 0 and its output has EXPECT (if not empty).
run() {
    # every tool bounded: a hang becomes this run's result (exit 124 and
    # its log), not a barrier timeout that hides which side stopped
    _run=$1 _expect=$2 _gidopt=$3 _tmo="timeout 150"
    shift 3
    _ok() { [ -z "$_expect" ] || grep -q "$_expect" /tmp/$_run.log; }
    _res() {
        if [ "$1" = 0 ] && _ok; then
            vur_result "$_run" ok "$(tail -n 4 /tmp/$_run.log | cut -c1-160 | tr '\n' '|')"
        else
            # stderr comes first in the log (stdout is buffered): the error lines, then the tail
            vur_result "$_run" fail "exit $1 $(grep -i -m 3 "couldn't\|error\|fail" /tmp/$_run.log | cut -c1-160 | tr '\n' '|') $(tail -n 8 /tmp/$_run.log | cut -c1-160 | tr '\n' '|')"
        fi
    }
    case $_gidopt in
    rping) _srv="-s -a @ADDR@ -p @PORT@" _cli="-c -a @PEER@ -p @PORT@" ;;
    -R) _srv="-d virtio_rdma0 -R -p @PORT@" _cli="$_srv @PEER@" ;;
    # libfabric: its warnings in the log; bounded, so that a hang is a result
    fi) _srv="" _cli="@PEER@" _tmo="timeout 90" ;;
    *) _srv="-d virtio_rdma0 $_gidopt ${gid:-0} -p @PORT@" _cli="$_srv @PEER@" ;;
    esac
    if [ "@ROLE@" = server ]; then
        FI_LOG_LEVEL=warn $_tmo sid "$@" $_srv >/tmp/$_run.log 2>&1 &
        _pid=$!
        sleep 1 # listening before the client is let go
        vur_step "server_$_run"
        wait $_pid
        _res $?
    else
        vur_step "server_$_run"
        for _try in 1 2 3 4 5; do
            FI_LOG_LEVEL=warn $_tmo sid "$@" $_cli >/tmp/$_run.log 2>&1
            _st=$?
            [ $_st = 0 ] && break
            # perftest names a rejection by number: "Unexpected CM event bl blka 8"
            _retry="couldn't connect\|connection refused\|REJECTED\|unreachable\|CM event bl blka 8$"
            grep -q -i "$_retry" /tmp/$_run.log || break
            sleep 1
        done
        _res $_st
    fi
}
# run_atomic NAME ...: run when the device has atomics, else a skipped result
# (the step is taken either way, so the guests stay in step).
atomics=$(sid ibv_devinfo -v -d virtio_rdma0 | grep -o 'atomic_cap:.*' | head -1)
case "$atomics" in
*ATOMIC_HCA*|*ATOMIC_GLOB*) vur_result device_atomics ok "has them: $atomics" ;;
*) vur_result device_atomics ok "none ($atomics): atomic runs skipped" ;;
esac
# memory windows (verbs_ex): the host then expects one refused DEREG_MR
if sid ibv_devinfo -v -d virtio_rdma0 | grep -q MEM_WINDOW_TYPE_2B; then
    vur_result device_mem_window ok "has them"
else
    vur_result device_mem_window ok "none: verbs_ex skips them"
fi
run_atomic() {
    case "$atomics" in
    *ATOMIC_HCA*|*ATOMIC_GLOB*) run "$@" ;;
    *)
        vur_step "server_$1"
        vur_result "$1" ok "skipped: the device reports no atomics ($atomics)"
        ;;
    esac
}
@RUNS@

# rdma_cm's mckey on the device (UD multicast, ATTACH_MCAST): guest 2 joins
# @MCAST@ and must receive @MKCOUNT@ messages that guest 1 sends to it.
mk="sid mckey -m @MCAST@ -b @ADDR@ -C @MKCOUNT@"
if [ "@ALL@" != 1 ]; then
    : # VUR_S12_CASES=rings: no multicast and no host runs
elif [ "@ROLE@" = client ]; then
    timeout 150 $mk >/tmp/mk.log 2>&1 &
    mkpid=$!
    vur_step mckey_joined # the host waits until the device has the QP attached
    wait $mkpid
    st=$?
    vur_result mckey_receiver $([ $st = 0 ] && grep -q 'data transfers complete' /tmp/mk.log &&
        echo ok || echo fail) "exit $st: $(tr '\n' '|' </tmp/mk.log)"
else
    vur_step mckey_joined
    vur_mckey_send /tmp/mk.log $mk -s
    vur_result mckey_sender $([ $MCKEY_STATUS = 0 ] && [ "$MCKEY_HOST" = done ] && echo ok ||
        echo fail) "$MCKEY_TRIES run(s), host said '$MCKEY_HOST'; exit $MCKEY_STATUS: $(tr '\n' '|' </tmp/mk.log)"
fi
[ "@ALL@" = 1 ] && vur_step mckey_done

if [ "@ROLE@" = server ] && [ "@ALL@" = 1 ]; then
    /usr/sbin/ip -6 neigh replace @HOST_GID@ lladdr @HOST_MAC@ dev "$N" nud permanent ||
        vur_result host_neighbour fail "ip -6 neigh replace failed"
    ll=$(vur_roce_v2_gid virtio_rdma0 fe80:)
    for run in @HOST_RUNS@; do
        tool=${run%%:*} size=${run##*:}
        vur_step "host_$tool"
        vur_pingpong_client "host_$tool" @ITERS@ \
            sid $tool -d virtio_rdma0 -g "${ll:-0}" -s "$size" -n @ITERS@ -p @PORT@ -c @HOST_IP@
    done
fi
if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
    vur_result kernel_log_clean fail "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
else
    vur_result kernel_log_clean ok
fi
vur_step done
'''


def env_of(cmd):
    """The VAR=value words @cmd starts with, as a prefix of the run line."""
    env = ''
    for word in cmd.split(' '):
        if '=' not in word:
            break
        env += word + ' '
    return env


def tool_of(cmd):
    """@cmd without its leading VAR=value words."""
    return cmd[len(env_of(cmd)):]


def guest_script(i):
    addrs = [f'{NET}.1', f'{NET}.2']
    v4 = [int(x) for x in addrs[i].split('.')]
    runs = '\n'.join(f'{env_of(cmd)}{"run_atomic" if name.startswith("atomic") else "run"} '
                     f'{name} "{expect or ""}" {opt} {tool_of(cmd)}'
                     for name, cmd, expect, opt in GUEST_RUNS)
    host_runs = ' '.join(f'{tool}:{size}' for tool, _, size in HOST_RUNS)
    return (GUEST_SCRIPT.replace('@RUNS@', runs).replace('@HOST_RUNS@', host_runs)
            .replace('@ROLE@', 'server' if i == 0 else 'client')
            .replace('@ADDR@', addrs[i]).replace('@PEER@', addrs[1 - i])
            .replace('@GID_V4@', f'{v4[0]:02x}{v4[1]:02x}:{v4[2]:02x}{v4[3]:02x}')
            .replace('@MAC@', MACS[i]).replace('@HOST_MAC@', MACS[2])
            .replace('@HOST_GID@', link_local(MACS[2]))
            .replace('@ITERS@', str(ITERS)).replace('@PORT@', PORT)
            .replace('@HOST_IP@', f'{NET}.254')
            .replace('@MCAST@', MCAST).replace('@MKCOUNT@', str(MCKEY_COUNT))
            .replace('@ALL@', '0' if RINGS_ONLY else '1')
            .replace('@DEEP@', '1' if RINGS_ONLY else '0')
            .replace('@FEW@', '1' if FEW_QUEUES else '0'))


def scenario(tap, qemu, image, sock_dir):
    built = guest.sid_image_and_module(tap)
    if built is None:
        return
    sid_image, ko = built
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(3)]
    iface = guest.iface_name('s12')
    backend = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '-s', socks[2],
                              '--no-admin', '--mac', MACS[0],
                              *(FEW_QUEUES_ARGS if FEW_QUEUES else []), prefix='vurq12',
                              eal_extra=['--vdev', f'net_tap0,iface={iface}']
                              + (TWO_DATA_PATHS if DATA_PATHS == 2 else []))
    guests = []
    try:
        guest.wait_ready(backend)
        n_dp = backend.telemetry('/vur/switch')['/vur/switch'].get('data_paths')
        tap.case('data_paths', n_dp == DATA_PATHS, f'{n_dp}, want {DATA_PATHS}')
        guest.host_address(iface, HOST)
        for i in range(2):
            script = guest_script(i)
            # rings: ib_send_bw -q 64 -t 4096 maps 64 send rings of 4 MiB
            guests.append(guest.Guest(qemu, sid_image, script, [socks[i]],
                                      mem_mb=1024 if RINGS_ONLY else 512,
                                      append='vur.modules=virtio_pci,ib_core,ib_uverbs,rdma_ucm',
                                      files=guest.module_files(ko, sid_image),
                                      name=f'guest{i + 1}'))
        for name, _, _, _ in GUEST_RUNS:
            why = guest.barrier(guests, 240)
            tap.case(f'guests_ready_for_{name}', why is None, why or '')
            if why is not None:
                break
        else:
            if not RINGS_ONLY:
                mckey_on_device(tap, backend, guests, socks[:2])
                host_runs(tap, guests[0], socks[2])
            why = guest.barrier(guests, 240)
            tap.case('guests_done', why is None, why or '')
        if DATA_PATHS == 2:
            qps_on_both_data_paths(tap, backend, socks[:2])
        for g in guests:
            guest.finish(tap, g, 120)
        if not RINGS_ONLY:
            atomics_executed(tap, backend, guests, socks[:2])
        # verbs_ex on guest 1's device deregisters an MR with a window bound
        # once, on purpose: the device refuses it (ROCE-DEV-MW-5).
        mw = not RINGS_ONLY and any(n == 'device_mem_window' and d.startswith('has them')
                                    for n, _, d in guests[0].results()[0])
        for i, s in enumerate(socks):
            d = backend.device(s)
            mw_err = 1 if i == 0 and mw else 0
            resize_errs = refused_resizes(guests[i]) if i < len(guests) else 0
            want = mw_err + resize_errs
            tap.case(f'no_control_errors_{os.path.basename(s)}'
                     + ('_but_the_dereg_mr_with_a_window_bound' if mw_err else '')
                     + (f'_but_{resize_errs}_refused_resize_cq' if resize_errs else ''),
                     d['ctrl_errors'] == want,
                     {k: d[k] for k in ('ctrl_requests', 'ctrl_errors', 'qps', 'cqs')
                      if k in d})
    finally:
        for g in guests:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


def refused_resizes(g):
    """The RESIZE_CQ commands guest @g's device refused on purpose: one per
    resize probe whose CQ was on rings (its shrink below the CQEs pending,
    ROCE-DEV-RING-23; a virtqueue CQ's resize sends no command)."""
    return sum(1 for n, _, d in g.results()[0]
               if n in ('verbs_resize_cq', 'verbs_resize_cq_ex') and ' rings ' in f'{d} ')


def mckey_on_device(tap, backend, guests, socks):
    """rdma_cm's mckey between the guests on the device: the receiver's QP
    attached to the group (ATTACH_MCAST) before the sender starts, the
    receiver's engine took the group's packets, and both left it after."""
    why = guest.wait_steps(guests, 'mckey_joined', 240)
    attached = None
    if why is None:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            attached = backend.device(socks[1]).get('mcast_attached')
            if attached:
                break
            time.sleep(0.2)
        tap.case('mckey_receiver_attached', bool(attached),
                 f'mcast_attached {attached}\n' + guests[1].output()[-2000:])
        for g in guests:
            g.send('go\n')
        why, at_done = guest.mckey_rounds(guests[0], guests[1])
        why = why or guest.wait_steps(guests[1:] if at_done else guests, 'mckey_done', 180)
        for g in guests:
            g.send('go\n')
    tap.case('guests_ran_mckey', why is None, why or '')
    rx = backend.device(socks[1]).get('rdma_mcast_rx') or 0
    tap.case('mckey_group_packets_taken', rx >= MCKEY_COUNT, f'rdma_mcast_rx {rx}')
    left = {os.path.basename(s): backend.device(s).get('mcast_attached') for s in socks}
    tap.case('mckey_groups_left', all(v == 0 for v in left.values()), left)


def atomics_executed(tap, backend, guests, socks):
    """The devices executed the atomic runs' operations as responders
    (rdma_atomics; ib_atomic_bw -n 200 and ib_atomic_lat -n 100: 300 at
    least), or none when the guests found no atomics and skipped them."""
    ran = any(n == 'device_atomics' and d.startswith('has them')
              for n, _, d in guests[0].results()[0])
    counts = {os.path.basename(s): backend.device(s).get('rdma_atomics') for s in socks}
    total = sum(c or 0 for c in counts.values())
    tap.case('atomics_executed' if ran else 'no_atomics_executed',
             total >= 300 if ran else total == 0, counts)


def qps_on_both_data_paths(tap, backend, socks):
    """The guests' QPs (their kernels' GSI QPs at least) are on both data-path threads."""
    where = {}
    for s in socks:
        qps = backend.telemetry('/vur/qps,' + s)['/vur/qps'] or {}
        where[os.path.basename(s)] = {n: q['data_path'] for n, q in qps.items()}
    seen = {dp for qps in where.values() for dp in qps.values()}
    tap.case('qps_on_both_data_paths', seen == {0, 1}, where)


def host_runs(tap, g, sock):
    """vur-pingpong on the host's device as the server of guest 1's tools."""
    for tool, transport, size in HOST_RUNS:
        what = g.wait_step(240)
        if what != f'host_{tool}':
            tap.case(f'guest_ready_for_host_{tool}', False, g.output()[-4000:])
            return
        pp = subprocess.Popen([PINGPONG, '-d', sock, '-T', transport, '-s', str(size),
                               '-n', str(ITERS), '-p', PORT, '-c'],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            time.sleep(0.5)
            g.send('go\n')
            out, _ = pp.communicate(timeout=180)
        except (subprocess.TimeoutExpired, OSError) as e:
            pp.kill()
            out = f'{e}\n' + pp.communicate()[0]
        ok = pp.returncode == 0 and f'{ITERS} iters in' in out
        tap.case(f'vur_pingpong_{transport}_with_guest_{tool}', ok,
                 f'exit {pp.returncode}\n{out[-3000:]}' + ('' if ok else
                                                          '\n' + g.output()[-3000:]))


if __name__ == '__main__':
    sys.exit(guest.run(scenario, turn=NET))
