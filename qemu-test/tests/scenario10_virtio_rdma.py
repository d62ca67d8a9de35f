# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 10: the guest kernel driver virtio_rdma on RoCE devices, and
virtio_net on a device without RoCE, in one guest.

Three backends, one device each:
- A offers RoCE and the port speed; two tap uplinks declared at 25000 Mb/s
  (two planes: 50000 Mb/s, an effective speed of 500 in 100 Mb/s), the
  host side of the first one at 10.0.8.254/24;
- B uses RFC v2's numbering (--rfc2-numbering): bit 55, not
  VIRTIO_NET_F_ROCE, so not a RoCE device for virtio_rdma;
- C offers RoCE without the port speed (--no-port-speed), no uplink, and
  its PCI function has no page-per-vq: user CQs, but no user QPs.
The guest loads ib_core, ib_uverbs and the freshly built virtio_rdma.ko
before virtio_net: A and C go to virtio_rdma (an ib_device on a netdev
with the device's MAC each), B is refused in validate and goes to
virtio_net. In the guest: port state ACTIVE, the rate, a RoCE v2 GID for
the IPv4 address, effective_speed; a ping to the host through the backend;
a small static tool (uverbs_tool.c, no libibverbs) gets a user context and
a PD through uverbs, which the host sees in the backend, and frees it; it
then drives the driver's uverbs ABI by hand: an MR, a CQ, two RC QPs
connected to each other through INIT, RTR, RTS, their mapped rings and
doorbells, one SEND and its receive seen as two CQEs in the mapped CQ and
an event on the completion channel, an AH; the QPs destroyed while still
mapped stay in the backend until unmapped, then everything is freed; then
the same with two UD QPs and a SEND through an AH, on the recycled queues.
The same tool then reads a context's asynchronous events. The
host changes A's uplinks (a member's link, a member's declared speed) and
the links of A and C with the admin CLI; after
each change the guest's effective speed, port state and carrier follow,
with exactly one more speed change event for each change of A's speed (the
driver's counter ports/1/speed_change_events and its log lines) and one
port state event per link flip; C has no effective_speed (EOPNOTSUPP) and
no speed events, and never sends QUERY_PORT_SPEED. The backend holds A's
two GIDs (IPv6 link-local, IPv4), one once the address is deleted, and
refused none of A's commands. Userspace received five
events 20 (the speed change), one PORT_ERR and one PORT_ACTIVE, and
DEVICE_FATAL when the device is unbound under its open context; another
process keeps a CQ and QPs with their rings mapped across that unbind. Last, A moves to
virtio_net and back through sysfs unbind/bind, and the module unloads.

On Linux 7.2 (VUR_GUEST_KERNEL=linux72) the same, except that 7.2's
virtio_net negotiates B's bit 55 (to it VIRTIO_NET_F_GUEST_USO6).

On the rings layout (the driver's default on this device; meson pins
VUR_DRIVER_LAYOUT=virtqueues for RFC v2's layout: the scenario follows what
ports/1/layout says the driver chose) ib_mad's CQ and
GSI QP are on rings (ports/1/ring_cqs, ring_qps), and the kernel verbs
self-test virtio_rdma_kvtest.ko runs on A: a CQ of 16384 CQEs, RC QPs and
an SRQ of 16384 WRs (rings beyond one contiguous allocation, in MRs of
their own), 5000 messages in one post (more than 4096 WRs outstanding) with
their data checked, more than 1024 CQEs held at once, the SRQ limit event, ib_drain_qp(), and
a CQ of 16 overrun by 64 SENDs: IB_EVENT_CQ_ERR and IB_EVENT_QP_FATAL once,
and ib_resize_cq() of a CQ of 256 on rings: grown to 1024 with 150 CQEs
pending in the old ring, 400 more, a shrink to 100 refused (EINVAL, the CQ
as it was), all polled in order with their data, a shrink to 64.

Usage: scenario10_virtio_rdma.py PATH/TO/vhost-user-rdma
Builds QEMU, the guest image and the module first. Prints TAP. Needs root
(net_tap).
"""

import os
import signal
import sys

import guest
import harness

BACKEND = sys.argv[1]
MAC_A = '02:76:75:72:00:41'
MAC_B = '02:76:75:72:00:61'
MAC_C = '02:76:75:72:00:81'

GUEST_SCRIPT = r'''
. /lib/vur.sh

driver_of() { basename "$(readlink "/sys/class/net/$1/device/driver")"; }
# uverbs_of IBDEV: its uverbs character device.
uverbs_of() {
    for _u in /sys/class/infiniband_verbs/uverbs*; do
        [ "$(cat "$_u/ibdev")" = "$1" ] && { basename "$_u"; return; }
    done
}
events() { cat $P/speed_change_events; }
log_lines() { dmesg | grep -c "$IA: port 1: effective speed"; }
# gid_index GID: the index of GID in the port's table, or nothing.
gid_index() {
    for _g in $P/gids/*; do
        [ "$(cat "$_g")" = "$1" ] && { basename "$_g"; return; }
    done
}
# after NAME SPEED STATE CARRIER SPEED_EVENTS STATE_EVENTS: what a step
# must leave.
after() {
    vur_wait_eq "$2" 10 cat $P/effective_speed
    vur_expect "$1_effective_speed" "$2" "$(cat $P/effective_speed)"
    vur_wait_eq "$3" 10 cat $P/state
    vur_expect "$1_port_state" "$3" "$(cat $P/state)"
    vur_wait_eq "$4" 10 cat /sys/class/net/$A/carrier
    vur_expect "$1_carrier" "$4" "$(cat /sys/class/net/$A/carrier)"
    sleep 1 # a second event would come within this
    vur_expect "$1_speed_change_events" "$5" "$(events)"
    vur_expect "$1_log_lines" "$5" "$(log_lines)"
    vur_expect "$1_port_state_events" "$6" "$(cat $P/port_state_events)"
}
# after_c NAME STATE CARRIER STATE_EVENTS: the same for C (no speed feature).
after_c() {
    vur_wait_eq "$2" 10 cat $PC/state
    vur_expect "$1_c_port_state" "$2" "$(cat $PC/state)"
    vur_wait_eq "$3" 10 cat /sys/class/net/$C/carrier
    vur_expect "$1_c_carrier" "$3" "$(cat /sys/class/net/$C/carrier)"
    vur_expect "$1_c_speed_change_events" 0 "$(cat $PC/speed_change_events)"
    vur_expect "$1_c_port_state_events" "$4" "$(cat $PC/port_state_events)"
}

# Kernel messages on the console would cut into the result lines (the
# out-of-tree module's taint warning comes at insmod): dmesg keeps them.
dmesg -n 1
insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko &&
    vur_result insmod_virtio_rdma ok || vur_result insmod_virtio_rdma fail "$(dmesg | tail -5)"
modprobe virtio_net
A=$(vur_netdev_of @MAC_A@)
B=$(vur_netdev_of @MAC_B@)
C=$(vur_netdev_of @MAC_C@)
vur_expect roce_device_driver virtio_rdma "$(driver_of "$A")"
vur_expect plain_device_driver virtio_net "$(driver_of "$B")"
vur_expect roce_device_without_speed_driver virtio_rdma "$(driver_of "$C")"
vur_wait_file /sys/class/infiniband/virtio_rdma1 5
vur_expect ib_devices "virtio_rdma0 virtio_rdma1" "$(echo $(ls /sys/class/infiniband))"
IA=$(vur_ibdev_of "$A")
IC=$(vur_ibdev_of "$C")
P=/sys/class/infiniband/$IA/ports/1
PC=/sys/class/infiniband/$IC/ports/1
vur_result ib_device_of_each_netdev ok "$A: $IA, $C: $IC"
UA=$(uverbs_of "$IA")
if [ -c "/dev/infiniband/$UA" ]; then
    vur_result uverbs_device ok "/dev/infiniband/$UA"
else
    vur_result uverbs_device fail "no uverbs device for $IA: $(ls /dev/infiniband)"
fi
# A kernel verbs provider: ib_mad opened QP 1 (GSI) and brought it to RTS.
vur_expect gsi_qp_of_ib_mad 1 \
    "$(rdma resource show qp link $IA/1 | grep -c 'lqpn 1 type GSI state RTS')"
# The layout the driver chose (ports/1/layout): rings, the default on a
# device that offers them, puts every kernel CQ and QP on rings (ib_mad's CQ
# and GSI QP); layout=virtqueues none. The host reads this result too.
L=$(cat $P/layout)
case "$(cat /sys/module/virtio_rdma/parameters/layout)/$L" in
auto/rings|rings/rings|virtqueues/virtqueues) vur_result driver_layout ok "$L" ;;
*) vur_result driver_layout fail "layout=$(cat /sys/module/virtio_rdma/parameters/layout) chose $L" ;;
esac
if [ "$L" = rings ]; then RC=1; else RC=0; fi
vur_expect ring_cqs_of_ib_mad $RC "$(cat $P/ring_cqs)"
vur_expect ring_qps_of_ib_mad $RC "$(cat $P/ring_qps)"
vur_expect ring_srqs_none 0 "$(cat $P/ring_srqs)"
vur_expect link_layer Ethernet "$(cat $P/link_layer)"
vur_expect port_state "4: ACTIVE" "$(cat $P/state)"
vur_expect port_rate "50 Gb/sec (1X HDR)" "$(cat $P/rate)"
vur_expect effective_speed 500 "$(cat $P/effective_speed)"
vur_expect speed_flags 0x1 "$(cat $P/speed_flags)"
vur_expect speed_change_events_initial 0 "$(events)"

# C: ROCE-DRV-SPEED-5, no effective speed and no speed events; the netdev's
# speed from virtio-net's speed field.
ip link set "$C" up
vur_expect c_port_state "4: ACTIVE" "$(cat $PC/state)"
vur_expect c_effective_speed_unsupported "Operation not supported" \
    "$(cat $PC/effective_speed 2>&1 >/dev/null | sed 's/.*: //')"
vur_expect c_port_rate "100 Gb/sec (1X NDR)" "$(cat $PC/rate)"
vur_wait_eq 1 10 cat /sys/class/net/$C/carrier
vur_expect c_netdev_speed 100000 "$(cat /sys/class/net/$C/speed)"

ip addr add 10.0.8.1/24 dev "$A" && ip link set "$A" up &&
    vur_wait_eq up 10 cat /sys/class/net/$A/operstate ||
    vur_result netdev_up fail "$(ip link show $A)"
vur_expect netdev_speed 50000 "$(cat /sys/class/net/$A/speed)"
gid=0000:0000:0000:0000:0000:ffff:0a00:0801
_i=0
while [ -z "$(gid_index $gid)" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
n=$(gid_index $gid)
if [ -n "$n" ]; then
    vur_result roce_gid_ipv4 ok "gids/$n"
    vur_expect roce_gid_type "RoCE v2" "$(cat $P/gid_attrs/types/$n)"
    vur_expect roce_gid_netdev "$A" "$(cat $P/gid_attrs/ndevs/$n)"
else
    vur_result roce_gid_ipv4 fail "$(cat $P/gids/* | sort -u)"
fi

# layout=rings: the kernel verbs self-test (virtio_rdma_kvtest.ko, at its
# load): a CQ of 16384 CQEs, two RC QPs of 16384 WRs, 5000 SENDs in one
# post with their data checked and more than 1024 CQEs held at once, the
# same over an SRQ of 16384 with its limit event, ib_drain_qp() of each QP; a
# CQ of 16 overrun: its CQ error and its QP's fatal error, once each; a CQ
# of 256 resized (ib_resize_cq) to 1024 with CQEs pending across the switch,
# a shrink below them refused, all polled in order with their data.
if [ $RC = 1 ]; then
    insmod /lib/modules/$(uname -r)/extra/virtio_rdma_kvtest.ko ibdev=$IA ||
        vur_result kvtest_insmod fail "$(dmesg | tail -5)"
    dmesg | sed -n 's/.*virtio_rdma_kvtest: RESULT //p' | while read -r _n _s _d; do
        vur_result "kvtest_$_n" "$_s" "$_d"
    done
    vur_expect kvtest_done 1 "$(dmesg | grep -c 'virtio_rdma_kvtest: done')"
    vur_expect kvtest_cases 11 "$(dmesg | grep -c 'virtio_rdma_kvtest: RESULT [a-z_0-9]* ok')"
    vur_expect kvtest_ring_qps_freed 1 "$(cat $P/ring_qps)"
    vur_expect kvtest_ring_srqs_freed 0 "$(cat $P/ring_srqs)"
    vur_expect kvtest_ring_cqs_freed 1 "$(cat $P/ring_cqs)"
    rmmod virtio_rdma_kvtest
fi

# A user context and a PD through uverbs (CREATE_PD on the device); the
# host counts the backend's PDs while the tool holds it.
/test/uverbs_tool pd "/dev/infiniband/$UA" || vur_result uverbs_pd fail "exit $?"

# The driver's uverbs ABI by hand (no provider here): MR, CQ, two RC QPs
# connected to each other, their mapped rings, a SEND and its receive, the
# CQEs in the mapped CQ and the completion channel's event, an AH; then the
# QPs destroyed while mapped. The host counts the backend's objects.
/test/uverbs_tool rdma "/dev/infiniband/$UA" || vur_result uverbs_rdma fail "exit $?"
# UD through an AH, on the queues the RC QPs and their CQ left behind.
/test/uverbs_tool ud "/dev/infiniband/$UA" || vur_result uverbs_ud fail "exit $?"
# C has no page-per-vq: a CQ, but no user QP (EOPNOTSUPP), said once.
/test/uverbs_tool noqp "/dev/infiniband/$(uverbs_of "$IC")" ||
    vur_result uverbs_noqp fail "exit $?"
vur_expect c_user_qps_refused_logged 1 \
    "$(dmesg | grep -c 'user QP refused: no doorbell page per virtqueue')"
vur_expect c_doorbells_shared_logged 1 "$(dmesg | grep -c 'doorbells share pages')"
dmesg | grep -i 'virtio_rdma.*user queues' | head -2

# Another context that reads its asynchronous events from here on, as
# ibv_get_async_event() would: what userspace sees of the driver's events.
/test/uverbs_tool events "/dev/infiniband/$UA" >/tmp/events 2>&1 &
EV=$!
vur_wait_eq 2 5 grep -c '^VUR-RESULT' /tmp/events
grep '^VUR-RESULT' /tmp/events

vur_step member_down
after member_down 250 "4: ACTIVE" 1 1 0
vur_expect netdev_speed_member_down 25000 "$(cat /sys/class/net/$A/speed)"
vur_ping ping_host 10.0.8.254 30

vur_step member_up
after member_up 500 "4: ACTIVE" 1 2 0

vur_step member_speed
after member_speed 650 "4: ACTIVE" 1 3 0
vur_expect rate_member_speed "56 Gb/sec (4X FDR)" "$(cat $P/rate)"
vur_expect netdev_speed_member_speed 65000 "$(cat /sys/class/net/$A/speed)"

vur_step device_link_down
after device_link_down 0 "1: DOWN" 0 4 1
after_c device_link_down "1: DOWN" 0 1

vur_step device_link_up
after device_link_up 650 "4: ACTIVE" 1 5 2
after_c device_link_up "4: ACTIVE" 1 2

# Userspace got each event once, whatever their order (ib_core delivers
# them from a workqueue): five speed changes (20, IBV_EVENT_DEVICE_SPEED_CHANGE
# as rdma-core 62+ names it), one PORT_ERR (10), one PORT_ACTIVE (9), all
# for port 1, and nothing else.
sleep 1
ev() { grep -c "^EVENT $1 $2\$" /tmp/events; }
got="$(grep '^EVENT ' /tmp/events | tr '\n' ' ')"
vur_expect uverbs_speed_change_events 5 "$(ev 20 1)"
vur_expect uverbs_port_err_events 1 "$(ev 10 1)"
vur_expect uverbs_port_active_events 1 "$(ev 9 1)"
if [ "$(grep -c '^EVENT ' /tmp/events)" = 7 ]; then
    vur_result uverbs_events_no_other ok "$got"
else
    vur_result uverbs_events_no_other fail "$got"
fi

# DEL_GID: the address goes, its GID with it (the link-local one stays).
ip addr del 10.0.8.1/24 dev "$A"
_i=0
while [ -n "$(gid_index $gid)" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
vur_expect roce_gid_ipv4_deleted "" "$(gid_index $gid)"
vur_step gid_deleted

# A process that keeps a CQ and two QPs with their rings mapped while the
# device goes away (ib_core zaps the mappings, then destroys the objects).
/test/uverbs_tool hold "/dev/infiniband/$UA" >/tmp/hold 2>&1 &
HOLD=$!
vur_wait_eq 1 10 grep -c '^HOLDING' /tmp/hold
grep '^VUR-RESULT' /tmp/hold
vur_expect hold_mapped 1 "$(grep -c '^HOLDING' /tmp/hold)"

# The documented way between the two drivers.
V=$(basename "$(readlink /sys/class/net/$A/device)")
# The events tool still holds a context: the unbind does not wait for it
# (disassociate_ucontext), the tool gets IB_EVENT_DEVICE_FATAL (8).
echo "$V" > /sys/bus/virtio/drivers/virtio_rdma/unbind
vur_wait_eq 1 5 grep -c '^EVENT 8 0$' /tmp/events
vur_expect uverbs_device_fatal_on_unbind 1 "$(ev 8 0)"
kill $EV
kill $HOLD
vur_expect hold_no_memory_kept 0 "$(dmesg | grep -c 'kept until reset')"
echo "$V" > /sys/bus/virtio/drivers/virtio_net/bind
vur_expect moved_to_virtio_net virtio_net "$(driver_of "$(vur_netdev_of @MAC_A@)")"
vur_expect ib_device_gone "" "$(vur_ibdev_of "$(vur_netdev_of @MAC_A@)")"
echo "$V" > /sys/bus/virtio/drivers/virtio_net/unbind
echo "$V" > /sys/bus/virtio/drivers/virtio_rdma/bind
A=$(vur_netdev_of @MAC_A@)
vur_expect moved_back virtio_rdma "$(driver_of "$A")"
P=/sys/class/infiniband/$(vur_ibdev_of "$A")/ports/1
vur_wait_eq "4: ACTIVE" 10 cat $P/state
vur_expect port_state_after_rebind "4: ACTIVE" "$(cat $P/state)"
vur_expect effective_speed_after_rebind 650 "$(cat $P/effective_speed)"

# Creates on rings that get no answer: the host stops C's backend before
# each (the control timeout lowered to 1 s), virtio_rdma_kvtest lost=1
# creates a QP, then an SRQ, then a CQ on C, each fails, and the driver
# keeps its rings until the device is reset (the backend, running again,
# creates it), which rmmod below does. On rings only: the host reads
# c_layout at the step lost_begin.
vur_result c_layout ok "$(cat $PC/layout)"
vur_step lost_begin
lost_seen() { dmesg | grep -c "virtio_rdma_kvtest: lost: $1"; }
if [ "$(cat $PC/layout)" = rings ]; then
    echo 1000 >/sys/module/virtio_rdma/parameters/ctrl_timeout_ms
    insmod /lib/modules/$(uname -r)/extra/virtio_rdma_kvtest.ko ibdev=$IC lost=1 &
    KV=$!
    vur_wait_eq 1 30 lost_seen ready || vur_result lost_ready fail "$(dmesg | tail -5)"
    for n in 1 2 3; do
        vur_step lost_stop
        echo $n >/sys/module/virtio_rdma_kvtest/parameters/go
        vur_wait_eq 1 30 lost_seen "$n done" || vur_result "lost_$n" fail "$(dmesg | tail -5)"
        vur_step lost_cont
        sleep 1 # the backend answers the create it was stopped before
    done
    wait $KV
    dmesg | sed -n 's/.*virtio_rdma_kvtest: RESULT \(lost_\)/\1/p' | while read -r _n _s _d; do
        vur_result "kvtest_$_n" "$_s" "$_d"
    done
    vur_expect lost_creates_kept 3 "$(dmesg | grep -c 'on rings: create .*kept until reset')"
    rmmod virtio_rdma_kvtest
    echo 10000 >/sys/module/virtio_rdma/parameters/ctrl_timeout_ms
fi
rmmod virtio_rdma && vur_result rmmod ok || vur_result rmmod fail
if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
    vur_result kernel_log_clean fail "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
else
    vur_result kernel_log_clean ok
fi
'''


# What ib_mad holds on a RoCE device while it is registered: its PD with
# ib_core's DMA MR, the CQ and the GSI QP (QP 1) of port 1.
IB_MAD = {'pds': 1, 'mrs': 1, 'cqs': 1, 'qps': 1, 'ahs': 0}


def kernel_objects(g):
    """IB_MAD, and on rings (the guest's driver_layout result: what the
    driver chose) the driver's own PD and DMA MR: the doorbell area's and its
    kernel rings' (virtio_rdma_rings.c)."""
    return dict(IB_MAD, pds=2, mrs=2) if guest.reported_rings(g) else IB_MAD


def lost_creates(tap, g, backend_c):
    """The guest's three creates without an answer on C: C's backend
    stopped (SIGSTOP: its control queue unanswered) before each, let go on
    after it; the backend, running again, creates the object."""
    for n in range(1, 4):
        for name, sig in (('lost_stop', signal.SIGSTOP), ('lost_cont', signal.SIGCONT)):
            what = g.wait_step(120)
            if what != name:
                tap.case(f'guest_reaches_{name}_{n}', False,
                         f'step {what!r}\n' + g.output()[-4000:])
                backend_c.proc.send_signal(signal.SIGCONT)
                return
            backend_c.proc.send_signal(sig)
            g.send('go\n')
    tap.case('host_lost_creates_answered_late', True)


def scenario(tap, qemu, image, sock_dir):
    try:
        ko = guest.build_module(image)
        # Built beside it (guest-driver/linux/Kbuild): the kernel verbs self-test.
        kvtest = os.path.join(os.path.dirname(ko), 'virtio_rdma_kvtest.ko')
        tool = guest.build_tool('uverbs_tool.c', sock_dir)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_module_and_tool', False, e)
        return
    tap.case('build_module_and_tool', True)
    with open(tool, 'rb') as f:
        files = {'test/uverbs_tool': (0o755, f.read()), **guest.module_files(ko, image),
                 **guest.module_files(kvtest, image)}
    sock_a = os.path.join(sock_dir, 'vhost-rdma-a')
    sock_b = os.path.join(sock_dir, 'vhost-rdma-b')
    sock_c = os.path.join(sock_dir, 'vhost-rdma-c')
    admin = os.path.join(sock_dir, 'admin.sock')
    admin_c = os.path.join(sock_dir, 'admin-c.sock')
    taps = [guest.iface_name(f's8x{i}') for i in range(2)]
    eal = []
    for i, name in enumerate(taps):
        eal += ['--vdev', f'net_tap{i},iface={name}']
    backend_a = harness.Backend(BACKEND, '-s', sock_a, '--admin-socket', admin,
                                '--mac', MAC_A,
                                '--member-speed', 'net_tap0=25000',
                                '--member-speed', 'net_tap1=25000',
                                prefix='vurq8a', eal_extra=eal)
    backend_b = harness.Backend(BACKEND, '-s', sock_b, '--no-admin', '--mac', MAC_B,
                                '--rfc2-numbering', prefix='vurq8b')
    backend_c = harness.Backend(BACKEND, '-s', sock_c, '--admin-socket', admin_c,
                                '--mac', MAC_C, '--no-port-speed', prefix='vurq8c')
    g = None

    def device():
        return guest.device_of(admin, sock_a)

    def step(name, action, check):
        return guest.host_step(tap, g, name, action, check, device, 120)

    try:
        guest.wait_ready(backend_a)
        guest.wait_ready(backend_b)
        guest.wait_ready(backend_c)
        guest.host_address(taps[0], '10.0.8.254/24')
        d = device()
        tap.case('backend_two_planes_50000', d['speed_mbps'] == 50000 and d['link'] == 'up', d)
        script = (GUEST_SCRIPT.replace('@MAC_A@', MAC_A).replace('@MAC_B@', MAC_B)
                  .replace('@MAC_C@', MAC_C))
        # C without page-per-vq: doorbells share pages, no user QPs there.
        g = guest.Guest(qemu, image, script, [sock_a, sock_b, sock_c],
                        append='vur.modules=virtio_pci,ib_core,ib_uverbs,rdma_ucm',
                        files=files, socket_opts={sock_c: 'page-per-vq=off'})
        changes = [None]

        def pd_allocated():
            # The guest is past its driver checks: B runs with virtio_net,
            # which on 6.1 does not know bit 55; 7.x's virtio_net takes it
            # as VIRTIO_NET_F_GUEST_USO6, the collision the RFC v2 variant
            # of virtio-net-roce.md warns of.
            b = backend_b.device(sock_b)
            bit55 = guest.kernel() != 'debian12'
            tap.case('plain_device_started_by_virtio_net',
                     b['vid'] >= 0 and b['started'] == 1
                     and bool(b['features_negotiated'] & (1 << 55)) == bit55,
                     {k: b[k] for k in ('vid', 'started', 'features_negotiated')})
            a = backend_a.device(sock_a)
            tap.case('backend_one_pd_while_held', a['pds'] == 1 + kernel_objects(g)['pds'],
                     {k: a[k] for k in ('pds', 'gids', 'ctrl_requests', 'ctrl_errors')})
            # ADD_GID: the IPv6 link-local GID and the IPv4 one.
            tap.case('backend_two_gids', a['gids'] == 2, f"{a['gids']} GIDs")

        def counts(a):
            return {k: a[k] for k in ('pds', 'mrs', 'cqs', 'qps', 'ahs', 'ctrl_errors')}

        def rdma_count(name, want):
            """@want: the processes' objects; ib_mad's are counted on top."""
            a = backend_a.device(sock_a)
            got = counts(a)
            tap.case(name, all(got[k] == v + kernel_objects(g)[k] for k, v in want.items()),
                     got)

        def device_links(state):
            guest.ctl(admin, 'device-link', sock_a, state)
            guest.ctl(admin_c, 'device-link', sock_c, state)

        def member_down():
            a = backend_a.device(sock_a)
            tap.case('backend_pd_destroyed', a['pds'] == kernel_objects(g)['pds'],
                     f"{a['pds']} PDs")
            changes[0] = a['config_changes']
            guest.ctl(admin, 'member-link', 'net_tap1', 'down')

        steps = step('pd_allocated', pd_allocated, lambda d: True) \
            and step('rdma_live', lambda: rdma_count(
                'backend_rdma_objects_live',
                {'pds': 1, 'mrs': 1, 'cqs': 1, 'qps': 2, 'ahs': 1}), lambda d: True) \
            and step('rdma_qps_mapped', lambda: rdma_count(
                'backend_qps_kept_while_mapped', {'qps': 2}), lambda d: True) \
            and step('rdma_freed', lambda: rdma_count(
                'backend_rdma_objects_freed',
                {'pds': 0, 'mrs': 0, 'cqs': 0, 'qps': 0, 'ahs': 0}), lambda d: True) \
            and step('member_down', member_down,
                     lambda d: d['speed_mbps'] == 25000 and d['link'] == 'up') \
            and step('member_up', lambda: guest.ctl(admin, 'member-link', 'net_tap1', 'up'),
                     lambda d: d['speed_mbps'] == 50000 and d['link'] == 'up') \
            and step('member_speed',
                     lambda: guest.ctl(admin, 'member-speed', 'net_tap0', '40000'),
                     lambda d: d['speed_mbps'] == 65000 and d['link'] == 'up') \
            and step('device_link_down', lambda: device_links('down'),
                     lambda d: d['link'] == 'down') \
            and step('device_link_up', lambda: device_links('up'),
                     lambda d: d['link'] == 'up' and d['speed_mbps'] == 65000)
        if steps:
            # With the speed feature negotiated, one message per change.
            n = backend_a.device(sock_a)['config_changes'] - changes[0]
            tap.case('backend_five_config_changes', n == 5, f'{n} config changes')
            # C: the link flips only; never QUERY_PORT_SPEED (ROCE-DRV-CTRL-2).
            c = backend_c.device(sock_c)
            tap.case('backend_c_two_config_changes_no_speed_query',
                     c['config_changes'] == 2 and c['ctrl_rej_feature'] == 0
                     and c['ctrl_errors'] == 0,
                     {k: c[k] for k in ('config_changes', 'ctrl_requests', 'ctrl_errors',
                                        'ctrl_rej_feature')})
            # DEL_GID of the IPv4 GID; no command of A's was refused.
            step('gid_deleted', lambda: None,
                 lambda d: backend_a.device(sock_a)['gids'] == 1)
            a = backend_a.device(sock_a)
            tap.case('backend_no_control_errors', a['ctrl_errors'] == 0,
                     {k: a[k] for k in ('gids', 'ctrl_requests', 'ctrl_errors')})
            what = g.wait_step(180)
            tap.case('guest_reaches_lost_begin', what == 'lost_begin',
                     f'step {what!r}\n' + g.output()[-4000:])
            if what == 'lost_begin':
                rings = guest.reported_rings(g, 'c_layout')
                g.send('go\n')
                if rings:
                    lost_creates(tap, g, backend_c)
        guest.finish(tap, g, 120)
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend_a, 'backend_a_stops_cleanly')
        guest.stop_backend(tap, backend_b, 'backend_b_stops_cleanly')
        guest.stop_backend(tap, backend_c, 'backend_c_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
