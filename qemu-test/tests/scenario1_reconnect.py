# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 1, backend restart: QEMU reconnects and the guest keeps its device.

A guest brings eth0 up on a backend with one loopback speed; the backend
stops and another starts on the same socket with another speed. QEMU
(chardev reconnect=1) connects again, reads the new configuration, raises a
configuration change interrupt and gives the running device to the new
backend: the guest's control commands still complete, and the driver,
probed again, reads the new speed. (Linux's virtio_net re-reads the speed
on a configuration change only when the link bit changes.)

VUR_QEMU_DEVICE=generic: the same on QEMU's generic vhost-user device
(vhost-user-test-device-pci, with the num_vqs and config_size the backend
logs) of the QEMU of guest.stock_qemu(): with VUR_QEMU_BINARY, a QEMU
built with qemu-test/qemu-10.2-generic/ (and vectors=num_vqs+1), whose
patch 3 sets a reconnected backend up again (the stock device does not:
README "A stock QEMU").

Usage: scenario1_reconnect.py PATH/TO/vhost-user-rdma
Builds QEMU and the guest image first. Prints TAP.
"""

import os
import re
import sys
import time

import guest
import harness

BACKEND = sys.argv[1]
SPEED_BEFORE, SPEED_AFTER = 40000, 10000  # Mb/s, the two backends' loopback speeds
GENERIC = os.environ.get('VUR_QEMU_DEVICE') == 'generic'
# The settings line the backend logs for each socket.
SETTINGS = re.compile(r"QEMU's generic device: (virtio-id=1,num_vqs=(\d+),config_size=\d+)")

GUEST_SCRIPT = r'''
. /lib/vur.sh

config_irqs() { awk '/virtio0-config/ { print $2 }' /proc/interrupts; }

ip link set eth0 up
vur_wait_eq up 5 cat /sys/class/net/eth0/operstate
vur_expect speed_before @BEFORE@ "$(cat /sys/class/net/eth0/speed)"
irqs=$(config_irqs)

echo VUR-WAIT restart the backend
read -t 120 -r line
vur_expect host_restarted_backend go "$line"

# QEMU raised a configuration change interrupt on reconnecting.
i=0
while [ "$(config_irqs)" = "$irqs" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
if [ "$(config_irqs)" != "$irqs" ]; then
    vur_result config_interrupt ok "virtio0-config $irqs -> $(config_irqs)"
else
    vur_result config_interrupt fail "virtio0-config stays at $irqs"
fi
vur_expect carrier_after 1 "$(cat /sys/class/net/eth0/carrier)"
if ip link set eth0 promisc on; then
    vur_result ctrl_after_reconnect ok
else
    vur_result ctrl_after_reconnect fail "ip link set eth0 promisc on failed"
fi

# virtio_net re-reads the speed only when the link bit changes: probe it
# again (a device reset too) to read the new backend's configuration.
echo virtio0 >/sys/bus/virtio/drivers/virtio_net/unbind
echo virtio0 >/sys/bus/virtio/drivers/virtio_net/bind
vur_wait_file /sys/class/net/eth0 10
ip link set eth0 up
vur_wait_eq up 5 cat /sys/class/net/eth0/operstate
vur_expect speed_after_rebind @AFTER@ "$(cat /sys/class/net/eth0/speed)"
'''


def start_backend(sock, speed, prefix):
    b = harness.Backend(BACKEND, '-s', sock, '--loopback-speed', str(speed), prefix=prefix)
    b.wait_socket(sock)
    return b


def generic_device(tap, backend):
    """Guest() arguments for the generic device the backend describes, or
    None (a failed case)."""
    m = guest.wait_log(backend, SETTINGS, 10)
    tap.case('backend_logs_the_generic_device_settings', m is not None,
             m[1] if m else backend.output()[-2000:])
    if m is None:
        return None
    opts = f',{m[1]},vq_size=1024'
    if os.environ.get('VUR_QEMU_BINARY'):
        # qemu-10.2-generic/'s "vectors": the stock device has none
        opts += f',vectors={int(m[2]) + 1}'
    return {'device': 'vhost-user-test-device-pci', 'device_opts': opts}


def scenario(tap, qemu, image, sock_dir):
    sock = os.path.join(sock_dir, 'vhost-rdma0')
    device = {}
    if GENERIC:
        try:
            qemu = guest.stock_qemu()
        except Exception as e:  # noqa: BLE001 - reported as a failed case
            tap.case('stock_qemu_in_the_unstable_chroot', False, e)
            return
        tap.case('stock_qemu_in_the_unstable_chroot', True, qemu)
    first = start_backend(sock, SPEED_BEFORE, 'vurq2a')
    second = None
    g = None
    try:
        if GENERIC:
            device = generic_device(tap, first)
            if device is None:
                return
        script = (GUEST_SCRIPT.replace('@BEFORE@', str(SPEED_BEFORE))
                  .replace('@AFTER@', str(SPEED_AFTER)))
        g = guest.Guest(qemu, image, script, [sock], chardev_opts=',reconnect=1', **device)
        ready = g.wait_for(r'VUR-WAIT', 90) is not None
        tap.case('guest_up_on_first_backend', ready, '' if ready else g.output()[-4000:])
        if not ready:
            return

        stopped = first.stop()
        tap.case('first_backend_stops', stopped == 0, '' if stopped == 0 else f'exit {stopped}')
        t = time.monotonic()
        second = start_backend(sock, SPEED_AFTER, 'vurq2b')
        started = guest.wait_log(second, r'device started', 30) is not None
        tap.case('qemu_reconnects_and_restarts_device', started,
                 '' if started else second.output()[-3000:] + '\n--- guest\n'
                 + g.output()[-3000:])
        tap.diag(f'reconnected in {time.monotonic() - t:.1f} s')

        g.send('go\n')
        guest.finish(tap, g, 120)
        qemu_lines = [ln for ln in g.output().splitlines() if ln.startswith('qemu-system')]
        if qemu_lines:
            tap.diag('QEMU said:\n' + '\n'.join(qemu_lines[:20]))
    finally:
        if g is not None:
            g.close()
        first.stop()
        if second is not None:
            guest.stop_backend(tap, second, 'second_backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario, patched_qemu=not GENERIC))
