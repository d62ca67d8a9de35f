# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 2: the guest's carrier and speed follow the backend's uplinks.

The backend has two tap uplinks declared at 25000 Mb/s each (two planes: the
device's speed is 50000 Mb/s). The stock virtio_net in the guest negotiates
VIRTIO_NET_F_STATUS and SPEED_DUPLEX but not the RoCE bits, so:
- a member going down changes only the speed in the configuration space
  (25000), and the backend sends no configuration change message for it
  (by design: the driver lacks VIRTIO_NET_F_ROCE_PORT_SPEED); the guest's
  interrupt count and speed stay;
- the device's link set down: a configuration change interrupt, carrier 0;
- set up again: another interrupt, carrier 1, and virtio_net, which re-reads
  the speed when the link bit turns on, shows 25000.
The host drives the steps with the admin CLI (vhost-user-rdma-ctl) and the
guest waits for each on its console (vur_step).

Usage: scenario2_speed.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP. Needs root (net_tap).
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]

GUEST_SCRIPT = r'''
. /lib/vur.sh

irqs() { awk '/virtio0-config/ { print $2 }' /proc/interrupts; }
# wait_irqs N: wait up to 10 s for the config interrupt count to exceed N.
wait_irqs() {
    _i=0
    while [ "$(irqs)" -le "$1" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
    [ "$(irqs)" -gt "$1" ]
}

vur_net_up 10.0.0.1/24 || vur_result eth0_up fail "$(ip link show eth0)"
vur_expect carrier_initial 1 "$(cat /sys/class/net/eth0/carrier)"
vur_expect speed_initial 50000 "$(cat /sys/class/net/eth0/speed)"
n0=$(irqs)
vur_result config_vector ok "virtio0-config: $n0 interrupts"

vur_step member_down
# No message for a speed-only change: no interrupt, the driver's speed stays.
sleep 1
vur_expect no_interrupt_for_speed_only "$n0" "$(irqs)"
vur_expect speed_kept_without_notification 50000 "$(cat /sys/class/net/eth0/speed)"

vur_step device_link_down
vur_wait_eq 0 10 cat /sys/class/net/eth0/carrier
vur_expect carrier_after_link_down 0 "$(cat /sys/class/net/eth0/carrier)"
vur_expect operstate_after_link_down down "$(cat /sys/class/net/eth0/operstate)"
n1=$(irqs)
if [ "$n1" -gt "$n0" ]; then
    vur_result interrupt_on_link_down ok "virtio0-config $n0 -> $n1"
else
    vur_result interrupt_on_link_down fail "virtio0-config stays at $n0"
fi

vur_step device_link_up
vur_wait_eq 1 10 cat /sys/class/net/eth0/carrier
vur_expect carrier_after_link_up 1 "$(cat /sys/class/net/eth0/carrier)"
vur_wait_eq up 5 cat /sys/class/net/eth0/operstate
vur_expect operstate_after_link_up up "$(cat /sys/class/net/eth0/operstate)"
if wait_irqs "$n1"; then
    vur_result interrupt_on_link_up ok "virtio0-config $n1 -> $(irqs)"
else
    vur_result interrupt_on_link_up fail "virtio0-config stays at $n1"
fi
vur_expect speed_after_link_up 25000 "$(cat /sys/class/net/eth0/speed)"
vur_expect ethtool_speed_after_link_up 25000Mb/s \
    "$(ethtool eth0 | sed -n 's/^[[:space:]]*Speed: //p')"
'''


def scenario(tap, qemu, image, sock_dir):
    sock = os.path.join(sock_dir, 'vhost-rdma0')
    admin = os.path.join(sock_dir, 'admin.sock')
    eal = []
    for i in range(2):
        eal += ['--vdev', f'net_tap{i},iface={guest.iface_name(f"s2x{i}")}']
    backend = harness.Backend(BACKEND, '-s', sock, '--admin-socket', admin,
                              '--member-speed', 'net_tap0=25000',
                              '--member-speed', 'net_tap1=25000',
                              prefix='vurq3', eal_extra=eal)
    g = None

    def device():
        return guest.device_of(admin, sock)

    def step(name, action, check):
        return guest.host_step(tap, g, name, action, check, device, 90)

    try:
        backend.wait_socket(sock)
        backend.wait_socket(admin)
        d = device()
        tap.case('backend_two_planes_50000', d['speed_mbps'] == 50000 and d['link'] == 'up',
                 d)
        g = guest.Guest(qemu, image, GUEST_SCRIPT, [sock])
        changes = [None]

        def member_down():
            changes[0] = backend.device(sock)['config_changes']
            guest.ctl(admin, 'member-link', 'net_tap1', 'down')

        steps = step('member_down', member_down,
                     lambda d: d['speed_mbps'] == 25000 and d['link'] == 'up'
                     and backend.device(sock)['port_speed_100mbps'] == 250) \
            and step('device_link_down', lambda: guest.ctl(admin, 'device-link', sock, 'down'),
                     lambda d: d['link'] == 'down' and d['admin_link'] == 'down') \
            and step('device_link_up', lambda: guest.ctl(admin, 'device-link', sock, 'up'),
                     lambda d: d['link'] == 'up' and d['speed_mbps'] == 25000)
        if steps:
            # Two messages: the link flips; none for the speed alone.
            n = backend.device(sock)['config_changes'] - changes[0]
            tap.case('backend_two_config_changes', n == 2, f'{n} config changes')
        guest.finish(tap, g, 90)
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
