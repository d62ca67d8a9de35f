# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 1: a stock Linux guest sees a virtio-net device.

The backend serves one device with a chosen MAC and loopback speed; QEMU
(TCG) attaches vhost-user-rdma-pci to it; Debian's kernel in the guest binds
virtio_net (which does not know the RoCE bits and leaves them unnegotiated),
and eth0 shows the MAC and the speed of the backend's configuration space.

Usage: scenario1_net.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first (qemu-test/build-*.sh; minutes the
first time). Prints TAP.
"""

import os
import sys

import guest
import harness

BACKEND = sys.argv[1]
MAC = '02:76:75:72:00:01'  # not QEMU's default 52:54:00:12:34:56
SPEED = 40000  # Mb/s; the backend's loopback speed (no uplink)
MAX_QPS, MAX_CQS = 64, 64
RING_QUEUES = 4  # the backend's default rdma_ring_queues
# virtio_net_roce_num_vqs_rings(1, cqs, qps, ring_queues)
NUM_VQS = 3 + MAX_CQS + 2 * MAX_QPS + 2 * RING_QUEUES

# Runs in the guest after init loaded virtio_pci and virtio_net.
GUEST_SCRIPT = r'''
. /lib/vur.sh

pci=
for d in /sys/bus/pci/devices/*; do
    [ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x1af4:0x1041 ] && pci=$d
done
if [ -z "$pci" ]; then
    vur_result pci_function fail "no 1af4:1041 function"
    exit 1
fi
vur_result pci_function ok "${pci##*/}"
vur_expect pci_class 0x020000 "$(cat "$pci/class")"

# MSI-X table size: one vector per virtqueue and one for config changes.
cap=$(od -An -tu1 -j 52 -N1 "$pci/config" | tr -d ' ')
msix=
while [ -n "$cap" ] && [ "$cap" -ne 0 ]; do
    id=$(od -An -tu1 -j "$cap" -N1 "$pci/config" | tr -d ' ')
    if [ "$id" -eq 17 ]; then
        ctrl=$(od -An -tu2 -j $((cap + 2)) -N2 "$pci/config" | tr -d ' ')
        msix=$(((ctrl & 2047) + 1))
    fi
    cap=$(od -An -tu1 -j $((cap + 1)) -N1 "$pci/config" | tr -d ' ')
done
vur_expect msix_vectors @VECTORS@ "$msix"

vdev=$(ls -d "$pci"/virtio* 2>/dev/null | head -n1)
vur_expect virtio_device_id 0x0001 "$(cat "$vdev/device" 2>/dev/null)"
drv=$(readlink "$vdev/driver")
vur_expect virtio_net_bound virtio_net "${drv##*/}"

# Bits the driver negotiated, one character per bit.
f=$(cat "$vdev/features")
bit() { echo "$f" | cut -c$(($1 + 1)); }
vur_expect negotiated_version_1 1 "$(bit 32)"
vur_expect negotiated_speed_duplex 1 "$(bit 63)"
vur_expect roce_not_negotiated 00 "$(bit 58)$(bit 4)"

if vur_wait_file /sys/class/net/eth0 10; then
    vur_result eth0 ok "$(ls "$vdev/net")"
else
    vur_result eth0 fail "no eth0: $(ls /sys/class/net)"
    exit 1
fi
vur_expect mac @MAC@ "$(cat /sys/class/net/eth0/address)"
vur_expect ethtool_speed @SPEED@Mb/s \
    "$(ethtool eth0 | sed -n 's/^[[:space:]]*Speed: //p')"
vur_expect ethtool_duplex Full \
    "$(ethtool eth0 | sed -n 's/^[[:space:]]*Duplex: //p')"
vur_expect iproute2_mac @MAC@ \
    "$(ip -o link show eth0 | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')"

# Up: the driver sends RX mode and VLAN commands on the control queue, and
# the carrier follows the status field's link bit.
if ip link set eth0 up; then
    vur_result link_set_up ok
else
    vur_result link_set_up fail "ip link set eth0 up failed"
fi
vur_wait_eq up 5 cat /sys/class/net/eth0/operstate
vur_expect operstate up "$(cat /sys/class/net/eth0/operstate)"
vur_expect carrier 1 "$(cat /sys/class/net/eth0/carrier)"
vur_expect sysfs_speed @SPEED@ "$(cat /sys/class/net/eth0/speed)"
if ip link set eth0 promisc on; then
    vur_result ctrl_rx_promisc ok
else
    vur_result ctrl_rx_promisc fail "ip link set eth0 promisc on failed"
fi
'''


def scenario(tap, qemu, image, sock_dir):
    sock = os.path.join(sock_dir, 'vhost-rdma0')
    backend = harness.Backend(BACKEND, '-s', sock, '--mac', MAC, '--loopback-speed', str(SPEED),
                              '--max-qps', str(MAX_QPS), '--max-cqs', str(MAX_CQS),
                              prefix='vurq1')
    g = None
    try:
        backend.wait_socket(sock)
        script = (GUEST_SCRIPT.replace('@MAC@', MAC).replace('@SPEED@', str(SPEED))
                  .replace('@VECTORS@', str(NUM_VQS + 1)))
        g = guest.Guest(qemu, image, script, [sock])
        status = g.wait(timeout=180)
        tap.diag(f'guest {g.elapsed:.1f} s')
        results, done = g.results()
        finished = status == 0 and done is not None
        tap.case('guest_ran_and_powered_off', finished,
                 '' if finished else f'qemu status {status}, script status {done}\n'
                 + g.output()[-6000:] + '\n--- backend\n' + backend.output()[-3000:])
        for name, ok, detail in results:
            tap.case(name, ok, '' if ok else detail)
        if not results:
            tap.case('guest_results', False, 'the guest printed no VUR-RESULT line')
    finally:
        if g is not None:
            g.close()
        guest.stop_backend(tap, backend, 'backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
