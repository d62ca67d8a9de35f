# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 11: unmodified rdma-core 65 tools (Debian unstable's) on the
guest kernel driver virtio_rdma through the rdma-core provider virtio_rdma.

Two backends, one device each:
- A offers RoCE and the port speed, MTU 4200; two tap uplinks declared at
  25000 Mb/s (two planes: 50000 Mb/s, 500 in 100 Mb/s); no host address:
  nothing here crosses the uplinks;
- C offers RoCE without the port speed (--no-port-speed).
The guest (build-sid-image.sh's image: Debian 12's kernel, Debian
unstable's libibverbs, tools and the provider under /sid, run with
`sid CMD`) loads ib_core, ib_uverbs and virtio_rdma.ko. Then:
`ibv_devices` lists both devices; `ibv_devinfo -v -d virtio_rdma0` shows
PORT_ACTIVE, active_mtu 4096 (5) and effective_speed 50.0 Gbps;
`verbs_probe speed` (tests/verbs_probe.c: ibv_query_port_speed(), built
against unstable's libibverbs) returns 500, the value of the driver's sysfs
attribute (Linux 6.1 has no uverbs method: the provider reads the
attribute), and EOPNOTSUPP on C, whose `ibv_devinfo -v` prints no
effective_speed; `verbs_probe pd` allocates and frees a PD and a CQ through the
provider. The data path, on A's RoCE v2 GID of the IPv4 address the guest
gives A: `verbs_probe loop` connects two RC QPs to each other and checks
SEND (two s/g elements), SEND with immediate inline, RDMA WRITE, RDMA
WRITE with immediate, RDMA READ (completions and data byte by byte) and
post_send's EINVAL; then unmodified `ibv_rc_pingpong` (4 KiB x 100, and
x 20 with completion events, -e), `ibv_uc_pingpong` (4 KiB x 100) and
`ibv_ud_pingpong` (2 KiB x 100), server and client in the guest over
127.0.0.1, all with -c.
`ibv_asyncwatch -d virtio_rdma0` runs in the background while the host
takes a member of A down (250), up (500), and A's link down (0, PORT_DOWN)
and up (500, PORT_ACTIVE); after each step `ibv_devinfo -v` and
`verbs_probe speed` show the new speed, and asyncwatch printed exactly one
IBV_EVENT_DEVICE_SPEED_CHANGE (20) more; the link flips add one
IBV_EVENT_PORT_ERR and one IBV_EVENT_PORT_ACTIVE, and nothing else comes.

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
MAC_C = '02:76:75:72:0b:81'

GUEST_SCRIPT = r'''
. /lib/vur.sh

# aw_count NAME: how many lines asyncwatch printed for event NAME.
aw_count() { grep -c "event_type $1\$" /tmp/asyncwatch; }
# after NAME SPEED STATE GBPS SPEED_EVENTS: what a step must leave.
after() {
    vur_wait_eq "$2" 10 cat $P/effective_speed
    vur_wait_eq "$5" 10 aw_count 'IBV_EVENT_DEVICE_SPEED_CHANGE (20), port 1'
    sleep 1 # a second event would come within this
    vur_expect "$1_asyncwatch_speed_change" "$5" \
        "$(aw_count 'IBV_EVENT_DEVICE_SPEED_CHANGE (20), port 1')"
    vur_expect "$1_devinfo_state" "$3" "$(vur_devinfo $IA state)"
    vur_expect "$1_devinfo_effective_speed" "$4" "$(vur_devinfo $IA effective_speed)"
    vur_expect "$1_ibv_query_port_speed" "speed $2" "$(sid verbs_probe speed $IA)"
}

dmesg -n 1
insmod /lib/modules/$(uname -r)/extra/virtio_rdma.ko &&
    vur_result insmod_virtio_rdma ok || vur_result insmod_virtio_rdma fail "$(dmesg | tail -5)"
A=$(vur_netdev_of @MAC_A@)
C=$(vur_netdev_of @MAC_C@)
vur_wait_file /sys/class/infiniband/virtio_rdma1 5
IA=$(vur_ibdev_of "$A")
IC=$(vur_ibdev_of "$C")
vur_expect ib_device_a virtio_rdma0 "$IA"
vur_expect ib_device_c virtio_rdma1 "$IC"
P=/sys/class/infiniband/$IA/ports/1
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
vur_expect verbs_loop_rc_operations \
    "loop ok send send_imm_inline write write_imm read einval" \
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

vur_step member_down
after member_down 250 "PORT_ACTIVE (4)" "25.0 Gbps" 1
vur_step member_up
after member_up 500 "PORT_ACTIVE (4)" "50.0 Gbps" 2
vur_step device_link_down
after device_link_down 0 "PORT_DOWN (1)" "0.0 Gbps" 3
vur_step device_link_up
after device_link_up 500 "PORT_ACTIVE (4)" "50.0 Gbps" 4

vur_expect asyncwatch_port_err 1 "$(aw_count 'IBV_EVENT_PORT_ERR (10), port 1')"
vur_expect asyncwatch_port_active 1 "$(aw_count 'IBV_EVENT_PORT_ACTIVE (9), port 1')"
if [ "$(grep -c 'event_type' /tmp/asyncwatch)" = 6 ]; then
    vur_result asyncwatch_no_other_event ok
else
    vur_result asyncwatch_no_other_event fail "$(cat /tmp/asyncwatch)"
fi
kill $AW
vur_expect c_ibv_query_port_speed_still_unsupported "error EOPNOTSUPP 95" "$(sid verbs_probe speed $IC)"
if dmesg | grep -q -E 'BUG|WARNING|Call Trace'; then
    vur_result kernel_log_clean fail "$(dmesg | grep -A5 -E 'BUG|WARNING|Call Trace' | head -20)"
else
    vur_result kernel_log_clean ok
fi
'''


def scenario(tap, qemu, image, sock_dir):
    try:
        sid_image = guest.build_sid_image()
        ko = guest.build_module(sid_image)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_sid_image_and_module', False, e)
        return
    tap.case('build_sid_image_and_module', True)
    sock_a = os.path.join(sock_dir, 'vhost-rdma-a')
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
    backend_c = harness.Backend(BACKEND, '-s', sock_c, '--no-admin', '--mac', MAC_C,
                                '--no-port-speed', prefix='vurq11c')
    g = None

    def device():
        return guest.device_of(admin, sock_a)

    def step(name, action, check, timeout=180):
        return guest.host_step(tap, g, name, action, check, device, timeout)

    try:
        guest.wait_ready(backend_a)
        guest.wait_ready(backend_c)
        d = device()
        tap.case('backend_two_planes_50000', d['speed_mbps'] == 50000 and d['link'] == 'up', d)
        script = GUEST_SCRIPT.replace('@MAC_A@', MAC_A).replace('@MAC_C@', MAC_C)
        g = guest.Guest(qemu, sid_image, script, [sock_a, sock_c],
                        append='vur.modules=virtio_pci,ib_core,ib_uverbs',
                        files=guest.module_files(ko, sid_image))
        changes = []

        def member_down():
            a = backend_a.device(sock_a)
            # ib_mad's PD stays (the GSI QP's): the processes' are gone.
            tap.case('backend_pd_freed_no_control_errors',
                     a['pds'] == 1 and a['ctrl_errors'] == 0,
                     {k: a[k] for k in ('pds', 'ctrl_requests', 'ctrl_errors')})
            changes.append(a['config_changes'])
            guest.ctl(admin, 'member-link', 'net_tap1', 'down')

        # The first step comes after the data path tests: TCG is slow.
        steps = step('member_down', member_down,
                     lambda d: d['speed_mbps'] == 25000 and d['link'] == 'up', 900) \
            and step('member_up', lambda: guest.ctl(admin, 'member-link', 'net_tap1', 'up'),
                     lambda d: d['speed_mbps'] == 50000 and d['link'] == 'up') \
            and step('device_link_down', lambda: guest.ctl(admin, 'device-link', sock_a, 'down'),
                     lambda d: d['link'] == 'down') \
            and step('device_link_up', lambda: guest.ctl(admin, 'device-link', sock_a, 'up'),
                     lambda d: d['link'] == 'up' and d['speed_mbps'] == 50000)
        if steps:
            n = backend_a.device(sock_a)['config_changes'] - changes[0]
            tap.case('backend_four_config_changes', n == 4, f'{n} config changes')
        guest.finish(tap, g, 180)
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend_a, 'backend_a_stops_cleanly')
        guest.stop_backend(tap, backend_c, 'backend_c_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
