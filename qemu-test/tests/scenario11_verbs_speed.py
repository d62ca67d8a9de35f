# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 11: unmodified rdma-core 65 tools (Debian unstable's) on the
guest kernel driver virtio_rdma through the rdma-core provider virtio_rdma,
on Debian 12's Linux 6.1 or, with VUR_GUEST_KERNEL=linux72, on Debian
unstable's Linux 7.2 (guest.kernel()).

Three backends, one device each:
- A offers RoCE and the port speed, MTU 4200; two tap uplinks declared at
  25000 Mb/s (two planes: 50000 Mb/s, 500 in 100 Mb/s); no host address:
  nothing here crosses the uplinks;
- B uses RFC v2's numbering (--rfc2-numbering): no VIRTIO_NET_F_ROCE, a
  plain virtio-net device for the guest;
- C offers RoCE without the port speed (--no-port-speed).
The guest (build-sid-image.sh's image: the kernel, Debian unstable's
libibverbs, tools and the provider under /sid, run with `sid CMD`) loads
ib_core, ib_uverbs, virtio_net and virtio_rdma.ko, and the RoCE devices
reach virtio_rdma in one of the two ways the driver's README gives: on 6.1
virtio_rdma is loaded first and refuses B in validate; on 7.2 virtio_net is
loaded first and takes all three, then A and C are unbound from virtio_net
and bound to virtio_rdma through sysfs (7.2's virtio bus has no
driver_override attribute either: checked). Either way A and C end up on
virtio_rdma, B on virtio_net.
Then: `ibv_devices` lists A's and C's ib_devices; `ibv_devinfo -v -d
virtio_rdma0` shows PORT_ACTIVE, active_mtu 4096 (5), effective_speed
50.0 Gbps, and, once the guest gives A's netdev an IPv4 address, its RoCE
v2 GID; `verbs_probe speed` (tests/verbs_probe.c: ibv_query_port_speed(),
built against unstable's libibverbs) returns 500, the value of the
driver's sysfs attribute, and EOPNOTSUPP on C, whose `ibv_devinfo -v`
prints no effective_speed. Which way the provider took: with another
value bound over the sysfs attribute in /sid, ibv_query_port_speed() still
returns 500 on 7.2 (the kernel's UVERBS_METHOD_QUERY_PORT_SPEED, i.e. the
driver's query_port_speed op, through ibv_cmd_query_port_speed()) and
returns the bound value on 6.1 (no such method there: the provider reads
the attribute). `verbs_probe pd` allocates and frees a PD and a CQ through
the provider. The data path, on A's RoCE v2 GID: `verbs_probe loop`
connects two RC QPs to each other and checks SEND (two s/g elements),
SEND with immediate inline, RDMA WRITE, RDMA WRITE with immediate, RDMA
READ (completions and data byte by byte), fetch and add and compare and
swap (the device has atomics: original values and remote memory checked)
and post_send's EINVAL; then
unmodified `ibv_rc_pingpong` (4 KiB x 100, and x 20 with completion
events, -e), `ibv_uc_pingpong` (4 KiB x 100) and `ibv_ud_pingpong` (2 KiB
x 100), server and client in the guest over 127.0.0.1, all with -c.
Last, `verbs_probe overrun` overruns the two QPs' CQ (one signaled WRITE
more than it has buffers, none polled): once an arm meets the CQ in error
(uverbs does not return the arm's failure: the driver's event says it), the
process gets IBV_EVENT_CQ_ERR once and IBV_EVENT_QP_FATAL for each QP.
`ibv_asyncwatch -d virtio_rdma0` runs in the background while the host's
admin CLI takes A through ConnectX-7's sequence: a member down (250), the
other member down too (the loopback speed: 500), A's link down (0,
PORT_DOWN), and back (members up, then A's link: 500, PORT_ACTIVE); after
each step `ibv_devinfo -v` and `verbs_probe speed` show the new speed and
the driver's speed flags the new state, and asyncwatch printed exactly one
IBV_EVENT_DEVICE_SPEED_CHANGE (20) more; the link flips add one
IBV_EVENT_PORT_ERR and one IBV_EVENT_PORT_ACTIVE, and nothing else comes.
Then the vHCA rule (ROCE-DEV-POLICY-8): the admin allows A 10.11.0.1 and
10.11.0.9 (device-addresses) while the guest holds only the first: the
port goes down; the guest adds 10.11.0.9 and it comes up (`ibv_devinfo`,
and the backend's link).

Usage: scenario11_verbs_speed.py PATH/TO/vhost-user-rdma
Builds QEMU, the images, the provider and the module first. Prints TAP.
Needs root (net_tap, chroot).
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]
MAC_A = '02:76:75:72:0b:41'
MAC_B = '02:76:75:72:0b:61'
MAC_C = '02:76:75:72:0b:81'

# What differs between the kernels: how the RoCE devices reach virtio_rdma
# (both ways are tested, one per kernel),
# and what ibv_query_port_speed() returns with 7 bound over the driver's
# sysfs attribute (the provider's fallback reads it; the native path not).
KERNEL = {
    'debian12': {'BIND': 'load_order', 'SPEED_PATH': 'sysfs_fallback', 'SPEED_SEEN': '7'},
    'linux72': {'BIND': 'unbind_bind', 'SPEED_PATH': 'native', 'SPEED_SEEN': '500'},
}

GUEST_SCRIPT = r'''
. /lib/vur.sh

# aw_count NAME: how many lines asyncwatch printed for event NAME.
aw_count() { grep -c "event_type $1\$" /tmp/asyncwatch; }
# after NAME SPEED STATE GBPS SPEED_EVENTS FLAGS: what a step must leave.
after() {
    vur_wait_eq "$2" 10 cat $P/effective_speed
    vur_wait_eq "$6" 10 cat $P/speed_flags
    vur_expect "$1_speed_flags" "$6" "$(cat $P/speed_flags)"
    vur_wait_eq "$5" 10 aw_count 'IBV_EVENT_DEVICE_SPEED_CHANGE (20), port 1'
    sleep 1 # a second event would come within this
    vur_expect "$1_asyncwatch_speed_change" "$5" \
        "$(aw_count 'IBV_EVENT_DEVICE_SPEED_CHANGE (20), port 1')"
    vur_expect "$1_devinfo_state" "$3" "$(vur_devinfo $IA state)"
    vur_expect "$1_devinfo_effective_speed" "$4" "$(vur_devinfo $IA effective_speed)"
    vur_expect "$1_ibv_query_port_speed" "speed $2" "$(sid verbs_probe speed $IA)"
}

driver_of() { basename "$(readlink "/sys/class/net/$1/device/driver")"; }
virtio_of() { basename "$(readlink "/sys/class/net/$1/device")"; }
insmod_virtio_rdma() {
    insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko &&
        vur_result insmod_virtio_rdma ok ||
        vur_result insmod_virtio_rdma fail "$(dmesg | tail -5)"
}

dmesg -n 1
if [ @BIND@ = unbind_bind ]; then
    # virtio_net takes every device first (as udev may make it); the RoCE
    # devices then move to virtio_rdma through sysfs. Debian's 7.2 has the
    # driver core's driver_override, but its virtio bus does not take it
    # (no such attribute): what the driver's README says, checked here.
    modprobe virtio_net
    insmod_virtio_rdma
    vur_expect roce_device_first_on_virtio_net virtio_net "$(driver_of $(vur_netdev_of @MAC_A@))"
    for mac in @MAC_A@ @MAC_C@; do
        V=$(virtio_of "$(vur_netdev_of $mac)")
        echo $V >/sys/bus/virtio/drivers/virtio_net/unbind &&
            echo $V >/sys/bus/virtio/drivers/virtio_rdma/bind ||
            vur_result move_$V fail "$(dmesg | tail -5)"
    done
    vur_expect virtio_bus_no_driver_override 0 "$(ls /sys/bus/virtio/devices/*/driver_override \
        2>/dev/null | wc -l)"
else
    # virtio_rdma first, which refuses B in validate; virtio_net then takes B.
    insmod_virtio_rdma
    modprobe virtio_net
fi
A=$(vur_netdev_of @MAC_A@)
B=$(vur_netdev_of @MAC_B@)
C=$(vur_netdev_of @MAC_C@)
vur_expect roce_device_driver virtio_rdma "$(driver_of "$A")"
vur_expect roce_device_without_speed_driver virtio_rdma "$(driver_of "$C")"
vur_expect plain_device_driver virtio_net "$(driver_of "$B")"
vur_wait_file /sys/class/infiniband/virtio_rdma1 5
IA=$(vur_ibdev_of "$A")
IC=$(vur_ibdev_of "$C")
vur_expect ib_device_a virtio_rdma0 "$IA"
vur_expect ib_device_c virtio_rdma1 "$IC"
P=/sys/class/infiniband/$IA/ports/1
# the layout the driver chose (rings by default): the host counts its PD
vur_result driver_layout ok "$(cat $P/layout)"
vur_wait_eq "4: ACTIVE" 10 cat $P/state
vur_wait_eq "4: ACTIVE" 10 cat /sys/class/infiniband/$IC/ports/1/state

devs=$(sid ibv_devices 2>&1)
if echo "$devs" | grep -q "^[[:space:]]*$IA[[:space:]]" &&
        echo "$devs" | grep -q "^[[:space:]]*$IC[[:space:]]"; then
    vur_result ibv_devices ok "$(echo $devs)"
else
    vur_result ibv_devices fail "$devs"
fi
info=$(sid ibv_devinfo -v -d $IA 2>&1)
vur_expect devinfo_exit 0 "$?"
vur_expect devinfo_link_layer Ethernet "$(vur_devinfo $IA link_layer)"
vur_expect devinfo_state "PORT_ACTIVE (4)" "$(vur_devinfo $IA state)"
vur_expect devinfo_active_mtu "4096 (5)" "$(vur_devinfo $IA active_mtu)"
vur_expect devinfo_effective_speed "50.0 Gbps" "$(vur_devinfo $IA effective_speed)"
echo "$info" | grep -q 'Warning\|error' && vur_result devinfo_no_warning fail "$info" ||
    vur_result devinfo_no_warning ok
vur_expect sysfs_effective_speed 500 "$(cat $P/effective_speed)"
vur_expect ibv_query_port_speed "speed $(cat $P/effective_speed)" "$(sid verbs_probe speed $IA)"
vur_expect ibv_query_port_speed_bad_port "error EINVAL 22" "$(sid verbs_probe speed $IA 2)"
# The provider's way: another value bound over the driver's attribute,
# in /sid only (the root libibverbs reads sysfs in), tells the kernel's
# method (7.x) from the attribute (6.1).
echo 7 >/tmp/speed_7
S=/sid/sys/class/infiniband/$IA/ports/1/effective_speed
if mount --bind /tmp/speed_7 $S; then
    vur_expect ibv_query_port_speed_@SPEED_PATH@ "speed @SPEED_SEEN@" \
        "$(sid verbs_probe speed $IA)"
    umount $S
else
    vur_result ibv_query_port_speed_@SPEED_PATH@ fail "cannot bind a file over $S"
fi
# A PD and a CQ through the provider (CREATE_PD, CREATE_CQ, DESTROY_CQ,
# DESTROY_PD on the device; the CQ's rings mapped and unmapped).
vur_expect verbs_pd_and_cq "pd ok cq created" "$(sid verbs_probe pd $IA)"

# The data path: the provider's rings and doorbells, on one device over
# its RoCE v2 GID of an IPv4 address (lo for the pingpong tools' TCP
# exchange of QP numbers and GIDs).
ip link set lo up
ip addr add 10.11.0.1/24 dev "$A"
ip link set "$A" up
GIDX=$(vur_roce_v2_gid $IA 0000:0000:0000:0000:0000:ffff:)
[ -n "$GIDX" ] && vur_result roce_v2_ipv4_gid ok "index $GIDX" ||
    vur_result roce_v2_ipv4_gid fail "$(ls -l /sys/class/infiniband/$IA/ports/1/gid_attrs/types)"
# ibv_devinfo -v prints it: "GID[  1]:  ::ffff:10.11.0.1, RoCE v2".
vur_expect devinfo_roce_v2_gid 1 "$(sid ibv_devinfo -v -d $IA |
    grep -c "GID\[ *${GIDX:-x}\]:[[:space:]]*::ffff:10.11.0.1, RoCE v2$")"
vur_expect verbs_loop_rc_operations \
    "loop ok send send_imm_inline write write_imm read atomic einval" \
    "$(timeout 300 sid verbs_probe loop $IA ${GIDX:-0} 2>&1)"
# -r 64: a receive depth below the tools' default (500): queues of 64 in
# 1024-entry virtqueues (scenario 12 runs the defaults).
G="-d $IA -g ${GIDX:-0} -r 64 -c"
vur_pingpong_local rc_pingpong 18515 ibv_rc_pingpong $G -s 4096 -n 100
vur_pingpong_local rc_pingpong_events 18516 ibv_rc_pingpong $G -s 4096 -n 20 -e
vur_pingpong_local uc_pingpong 18517 ibv_uc_pingpong $G -s 4096 -n 100
vur_pingpong_local ud_pingpong 18518 ibv_ud_pingpong $G -s 2048 -n 100

# C: no VIRTIO_NET_F_ROCE_PORT_SPEED, so no effective speed.
vur_expect c_ibv_query_port_speed "error EOPNOTSUPP 95" "$(sid verbs_probe speed $IC)"
vur_expect c_devinfo_state "PORT_ACTIVE (4)" "$(vur_devinfo $IC state)"
vur_expect c_devinfo_no_effective_speed "" "$(vur_devinfo $IC effective_speed)"

sid ibv_asyncwatch -d $IA >/tmp/asyncwatch 2>&1 &
AW=$!
vur_wait_eq 1 10 grep -c "^$IA: async event FD" /tmp/asyncwatch
vur_expect asyncwatch_started 1 "$(grep -c "^$IA: async event FD" /tmp/asyncwatch)"

# ConnectX-7's sequence: the sum, one member down, all down (the loopback
# speed, the sum of the members' maximum speeds), the device down, back.
vur_step member_down
after member_down 250 "PORT_ACTIVE (4)" "25.0 Gbps" 1 0x0
vur_step all_members_down
after all_members_down 500 "PORT_ACTIVE (4)" "50.0 Gbps" 2 0x2
vur_step device_link_down
after device_link_down 0 "PORT_DOWN (1)" "0.0 Gbps" 3 0x4
vur_step back
after back 500 "PORT_ACTIVE (4)" "50.0 Gbps" 4 0x1

vur_expect asyncwatch_port_err 1 "$(aw_count 'IBV_EVENT_PORT_ERR (10), port 1')"
vur_expect asyncwatch_port_active 1 "$(aw_count 'IBV_EVENT_PORT_ACTIVE (9), port 1')"
if [ "$(grep -c 'event_type' /tmp/asyncwatch)" = 6 ]; then
    vur_result asyncwatch_no_other_event ok
else
    vur_result asyncwatch_no_other_event fail "$(tr '\n' '|' </tmp/asyncwatch)" \
        "driver's port_state_events $(cat $P/port_state_events)"
fi
kill $AW
# A CQ that overruns: its consumer and its QPs' hear it (ROCE-DRV-OVR-2, -3).
# Last: the arm that finds the CQ in error is a failed control command.
vur_expect verbs_cq_overrun_events "overrun ok cq_err 1 qp_fatal 2" \
    "$(timeout 300 sid verbs_probe overrun $IA ${GIDX:-0} 2>&1)"
vur_expect c_ibv_query_port_speed_still_unsupported "error EOPNOTSUPP 95" "$(sid verbs_probe speed $IC)"
# The vHCA rule (ROCE-DEV-POLICY-8): the host admin allows A 10.11.0.1 and
# 10.11.0.9; the port is down while the GID table lacks 10.11.0.9's, and
# comes up once the guest gives the netdev that address too.
vur_step vhca_allowed
vur_wait_eq "PORT_DOWN (1)" 10 vur_devinfo $IA state
vur_expect vhca_port_down_without_gid "PORT_DOWN (1)" "$(vur_devinfo $IA state)"
ip addr add 10.11.0.9/24 dev "$A"
vur_wait_eq "PORT_ACTIVE (4)" 10 vur_devinfo $IA state
vur_expect vhca_port_active_with_gids "PORT_ACTIVE (4)" "$(vur_devinfo $IA state)"
vur_step vhca_held
if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
    vur_result kernel_log_clean fail "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
else
    vur_result kernel_log_clean ok
fi
'''


def scenario(tap, qemu, image, sock_dir):
    built = guest.sid_image_and_module(tap)
    if built is None:
        return
    sid_image, ko = built
    sock_a = os.path.join(sock_dir, 'vhost-rdma-a')
    sock_b = os.path.join(sock_dir, 'vhost-rdma-b')
    sock_c = os.path.join(sock_dir, 'vhost-rdma-c')
    admin = os.path.join(sock_dir, 'admin.sock')
    taps = [guest.iface_name(f's11x{i}') for i in range(2)]
    eal = []
    for i, name in enumerate(taps):
        eal += ['--vdev', f'net_tap{i},iface={name}']
    backend_a = harness.Backend(BACKEND, '-s', sock_a, '--admin-socket', admin,
                                '--mac', MAC_A, '--mtu', '4200',
                                '--member-speed', 'net_tap0=25000',
                                '--member-speed', 'net_tap1=25000',
                                prefix='vurq11a', eal_extra=eal)
    backend_b = harness.Backend(BACKEND, '-s', sock_b, '--no-admin', '--mac', MAC_B,
                                '--rfc2-numbering', prefix='vurq11b')
    backend_c = harness.Backend(BACKEND, '-s', sock_c, '--no-admin', '--mac', MAC_C,
                                '--no-port-speed', prefix='vurq11c')
    g = None

    def device():
        return guest.device_of(admin, sock_a)

    def step(name, action, check, timeout=180):
        return guest.host_step(tap, g, name, action, check, device, timeout)

    try:
        for b in (backend_a, backend_b, backend_c):
            guest.wait_ready(b)
        d = device()
        tap.case('backend_two_planes_50000', d['speed_mbps'] == 50000 and d['link'] == 'up', d)
        script = GUEST_SCRIPT
        for key, value in (('MAC_A', MAC_A), ('MAC_B', MAC_B), ('MAC_C', MAC_C),
                           *KERNEL[guest.kernel()].items()):
            script = script.replace(f'@{key}@', value)
        g = guest.Guest(qemu, sid_image, script, [sock_a, sock_b, sock_c],
                        append='vur.modules=virtio_pci,ib_core,ib_uverbs',
                        files=guest.module_files(ko, sid_image))
        changes = []

        def member_down():
            a = backend_a.device(sock_a)
            # ib_mad's PD stays (the GSI QP's), and on rings the driver's
            # own: the processes' are gone.
            kernel_pds = 2 if guest.reported_rings(g) else 1
            tap.case('backend_pd_freed_no_control_errors',
                     a['pds'] == kernel_pds and a['ctrl_errors'] == 0,
                     {k: a[k] for k in ('pds', 'ctrl_requests', 'ctrl_errors')})
            changes.append(a['config_changes'])
            guest.ctl(admin, 'member-link', 'net_tap1', 'down')

        def back():
            for member in ('net_tap0', 'net_tap1'):
                guest.ctl(admin, 'member-link', member, 'up')
            guest.ctl(admin, 'device-link', sock_a, 'up')

        # The first step comes after the data path tests: TCG is slow.
        steps = step('member_down', member_down,
                     lambda d: d['speed_mbps'] == 25000 and d['flags'] == []
                     and d['link'] == 'up', 900) \
            and step('all_members_down',
                     lambda: guest.ctl(admin, 'member-link', 'net_tap0', 'down'),
                     lambda d: d['speed_mbps'] == 50000 and d['flags'] == ['loopback']
                     and d['link'] == 'up') \
            and step('device_link_down', lambda: guest.ctl(admin, 'device-link', sock_a, 'down'),
                     lambda d: d['link'] == 'down' and d['flags'] == ['link_down']) \
            and step('back', back,
                     lambda d: d['link'] == 'up' and d['speed_mbps'] == 50000
                     and d['flags'] == ['aggregated'])
        if steps:
            n = backend_a.device(sock_a)['config_changes'] - changes[0]
            tap.case('backend_four_config_changes', n == 4, f'{n} config changes')
            # ROCE-DEV-POLICY-8 with the guest driver: down without the GIDs, up with them
            _ = step('vhca_allowed', lambda: guest.ctl(admin, 'device-addresses', sock_a,
                                                       '10.11.0.1', '10.11.0.9'),
                     lambda d: d['link'] == 'down') \
                and step('vhca_held', lambda: None, lambda d: d['link'] == 'up')
        guest.finish(tap, g, 180)
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend_a, 'backend_a_stops_cleanly')
        guest.stop_backend(tap, backend_b, 'backend_b_stops_cleanly')
        guest.stop_backend(tap, backend_c, 'backend_c_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
