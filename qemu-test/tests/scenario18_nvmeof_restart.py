# SPDX-License-Identifier: GPL-2.0-or-later
"""Scenario 18: a backend restart and a reboot of the target guest while
NVMe over Fabrics is connected (issue 23): scenario 16's pair of guests
(the target exports a 16 MiB disk with nvmet-rdma, the host connects
with nvme-rdma, both on the guest kernel driver; nvmeof.py has their
shell), QEMU's chardevs with reconnect=1, the target's QEMU allowed to
reboot.

- The host connects with reconnect_delay=1,ctrl_loss_tmo=600 and writes
  scenario 16's 4 MiB pattern (1 MiB and 4 KiB direct I/O, read back).
- The backend is killed (SIGKILL) and another starts on the same sockets.
  QEMU reconnects and asks each driver for a reset; each resets its device
  and probes it again, so each ib_device is removed and made anew. That is
  not a path nvme-rdma's reconnect can take: its ib_client deletes every
  controller of a removed device (nvme_rdma_remove_one), and nvmet-rdma
  drops the listener of a removed device without repairing it. So, as an
  operator (or nvme-cli's connect-all) would: both guests give their new
  netdevs their addresses again; the target enables its port again
  (subsystem unlinked from the port and linked again: a new listener on
  the new device); the host, whose controller is gone
  (host_controller_deleted_with_its_device), connects again and reads the
  4 MiB back: the target's disk outlived the restart, and the data
  must be intact (host_restart_data_intact: the MD5 of what it wrote).
- Then the target guest reboots (reboot -f) with the host connected. The
  host's device stays: its controller loses the target (keep-alive or
  transport error), and nvme-rdma's error recovery reconnects every second
  (host_controller_left_live: its state leaves "live"). The target boots
  again, loads the module and exports its disk again; the same controller
  nvme0 comes back live by itself (host_reboot_reconnected_by_itself, with
  nvme-rdma's "Successfully reconnected" in the log), reads back what it
  wrote before the reboot (host_reboot_data_intact), then writes and
  reads back a new pattern; the target's disk holds it
  (reboot_target_holds_the_host_pattern). The target's namespace is a
  virtio-blk disk (a 16 MiB file of the host's, virtio_blk in the image),
  not scenario 16's RAM disk, so that it outlives the reboot.
- Neither guest's kernel log has a WARNING, BUG or call trace (the target
  checks on both boots); the second backend refused no control command.

Usage: scenario18_nvmeof_restart.py PATH/TO/vhost-user-rdma
Builds QEMU, the image and the module first. Prints TAP.
"""

import os
import signal
import sys

import guest
import harness
import nvmeof

BACKEND = sys.argv[1]
NQN = nvmeof.NQN + 'scenario18'
ADDRS = ['10.0.18.1', '10.0.18.2']
MACS = ['02:00:00:00:12:01', '02:00:00:00:12:02']

# reprobed: after the backend's restart, the driver probed the device again;
# its new netdev takes the address again.
FUNCS = r'''
reprobed() {
    _i=0
    vur_wait_eq 1 120 sh -c "dmesg | grep -c 'device needs a reset'" &&
        vur_wait_file /sys/class/infiniband/virtio_rdma0 60 &&
        while [ -z "$(vur_netdev_of @MAC@)" ] && [ $_i -lt 600 ]; do
            sleep 0.1
            _i=$((_i + 1))
        done && [ -n "$(vur_netdev_of @MAC@)" ] &&
        vur_result device_probed_again ok "$(dmesg | grep 'needs a reset')" ||
        vur_result device_probed_again fail "$(dmesg | tail -20 | tr '\n' '|')"
    netdev_up @MAC@ @ADDR@
    vur_ping ping_peer_after_restart @PEER@ 60
}
'''

TARGET = r'''
echo "VUR-WAIT boot"
read -t 300 -r boot
# The namespace: a virtio-blk disk (a file of the host's), which outlives
# the guest's reboot.
NVMF_DISK=/dev/vda
vur_wait_file $NVMF_DISK 10 || vur_result disk fail "$(ls /dev/vd* 2>&1)"
device_setup @MAC@ @ADDR@
nvmf_target_load
if [ "$boot" = first ]; then
    nvmf_export @NQN@ @ADDR@ 1
    vur_step exported
    vur_step written
    reprobed
    # The listener went with the removed device: enable the port again.
    run disable_port rm $NVMET_CFG/ports/1/subsystems/@NQN@
    P=restart_ nvmf_enable_port @NQN@ @ADDR@ 1
    vur_step reexported
    vur_step read_back
    kernel_log_clean first_kernel_log_clean
    echo "vur: rebooting"
    reboot -f
    sleep 60
fi
P=reboot_
nvmf_export @NQN@ @ADDR@ 1
vur_step reexported_after_reboot
vur_step host_done
nvmf_ramdisk_md5
nvmf_unexport @NQN@ 1
kernel_log_clean
'''

HOST = r'''
device_setup @MAC@ @ADDR@
vur_ping ping_peer @PEER@ 60
run load_nvme_rdma modprobe nvme-rdma
vur_step exported
nvmf_connect @PEER@ @NQN@ reconnect_delay=1,ctrl_loss_tmo=600
[ -e /dev/nvme0n1 ] && nvmf_write_pattern
vur_step written
reprobed
vur_wait_eq gone 60 sh -c '[ -e /sys/class/nvme/nvme0 ] || echo gone' &&
    vur_result controller_deleted_with_its_device ok \
        "$(dmesg | grep -i 'nvme0' | tail -3 | tr '\n' '|')" ||
    vur_result controller_deleted_with_its_device fail "$(cat /sys/class/nvme/nvme0/state)"
vur_step reexported
P=restart_
nvmf_connect @PEER@ @NQN@ reconnect_delay=1,ctrl_loss_tmo=600
nvmf_read_back data_intact
P=
vur_step read_back
# The target reboots: the controller loses it, then reconnects by itself.
vur_wait_eq yes 120 sh -c '[ "$(cat /sys/class/nvme/nvme0/state)" != live ] && echo yes' &&
    vur_result controller_left_live ok "$(cat /sys/class/nvme/nvme0/state)" ||
    vur_result controller_left_live fail "$(cat /sys/class/nvme/nvme0/state)"
vur_step reexported_after_reboot
P=reboot_
if vur_wait_eq live 180 cat /sys/class/nvme/nvme0/state; then
    vur_result ${P}reconnected_by_itself ok \
        "$(dmesg | grep -i 'reconnect' | tail -2 | tr '\n' '|')"
    # What the target's disk held before its reboot
    nvmf_read_back data_intact
    nvmf_write_pattern
    nvmf_disconnect
else
    vur_result ${P}reconnected_by_itself fail "$(dmesg | tail -20 | tr '\n' '|')"
fi
run unload_nvme_rdma rmmod nvme_rdma
vur_step host_done
kernel_log_clean
'''

STEPS = ('exported', 'written', 'reexported', 'read_back', 'reexported_after_reboot',
         'host_done')


def guest_script(i):
    return nvmeof.script(FUNCS + (TARGET if i == 0 else HOST), NQN=NQN, ADDR=ADDRS[i],
                         PEER=ADDRS[1 - i], MAC=MACS[i])


def scenario(tap, qemu, image, sock_dir):
    try:
        ko = guest.build_module(image)
    except Exception as e:  # noqa: BLE001 - reported as a failed case
        tap.case('build_module', False, e)
        return
    tap.case('build_module', True)
    socks = [os.path.join(sock_dir, f'vhost-rdma{i}') for i in range(2)]

    def start_backend(tag):
        b = harness.Backend(BACKEND, '-s', socks[0], '-s', socks[1], '--no-admin',
                            '--mac', MACS[0], prefix=f'vurq18{tag}')
        guest.wait_ready(b)
        return b

    disk = os.path.join(sock_dir, 'target-disk.raw')
    with open(disk, 'wb') as f:
        f.truncate(16 << 20)
    first = start_backend('a')
    second = None
    guests = []
    try:
        for i in range(2):
            target = i == 0
            modules = nvmeof.MODULES_DEVICE + (',virtio_blk' if target else '')
            extra = (['-drive', f'file={disk},if=none,id=disk0,format=raw',
                      '-device', 'virtio-blk-pci,drive=disk0'] if target else [])
            guests.append(guest.Guest(qemu, image, guest_script(i), [socks[i]], mem_mb=512,
                                      append=f'vur.modules={modules}', extra=extra,
                                      files=guest.module_files(ko, image),
                                      chardev_opts=',reconnect=1', reboot=target,
                                      name='target' if target else 'host'))
        target, host = guests
        ok = target.wait_step(120) == 'boot'
        tap.case('target_booted', ok, '' if ok else target.output()[-3000:])
        if not ok:
            return
        target.send('first\n')
        for step in STEPS:
            if step == 'reexported_after_reboot':
                ok = target.wait_step(300) == 'boot'
                tap.case('target_booted_again', ok, '' if ok else target.output()[-3000:])
                if not ok:
                    return
                target.send('again\n')
            if step == 'written':
                why = guest.wait_steps(guests, step, 300)
                if why is None:
                    status = first.stop(signal.SIGKILL)
                    tap.case('first_backend_killed', status == -signal.SIGKILL,
                             f'exit {status}')
                    second = start_backend('b')
                    started = guest.wait_log(second, r'device started[\s\S]*device started',
                                             120)
                    tap.case('both_devices_started_on_the_second_backend',
                             started is not None, '' if started else second.output()[-3000:])
                    for g in guests:
                        g.send('go\n')
            else:
                why = guest.barrier(guests, 300)
            tap.case(f'guests_reach_{step}', why is None, why or '')
            if why is not None:
                break
        for g in guests:
            guest.finish(tap, g, 300)
        nvmeof.check_pattern(tap, host, target, 'reboot_')
        # The host's QPs of before the target's reboot ended in error (their
        # peer was gone): only the control commands are checked.
        for s in socks:
            d = second.device(s)
            tap.case(f'no_control_errors_{os.path.basename(s)}', d['ctrl_errors'] == 0,
                     {k: v for k, v in d.items() if k.startswith(('ctrl_', 'rdma_wr', 'rdma_nak'))})
    finally:
        for g in guests:
            g.close()
        first.stop(signal.SIGKILL)
        if second is not None:
            guest.stop_backend(tap, second, 'second_backend_stops_cleanly')


if __name__ == '__main__':
    sys.exit(guest.run(scenario))
