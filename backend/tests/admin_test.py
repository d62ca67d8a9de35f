# SPDX-License-Identifier: BSD-3-Clause
"""The admin RPC and its CLI against the real backend, with tap uplinks.

Usage: admin_test.py PATH/TO/vhost-user-rdma PATH/TO/vhost-user-rdma-ctl
Prints TAP. Needs root and /dev/net/tun (net_tap).
"""

import json
import os
import socket
import subprocess
import sys
import time

import harness
from harness import case

BACKEND, CTL = sys.argv[1], sys.argv[2]
# The bonding PMD's devargs key for a member: "member" since DPDK 23.11 (meson.build).
BOND_MEMBER = os.environ.get('VUR_BOND_MEMBER_KVARG', 'member')
PID = os.getpid() % 100000


def iface(n):
    """A kernel interface name of this test run (at most 15 characters)."""
    return f'vua{PID}x{n}'


def taps(n, bond_mode=None):
    """EAL arguments for @n taps, optionally bonded."""
    eal = []
    for i in range(n):
        eal += ['--vdev', f'net_tap{i},iface={iface(i)}']
    if bond_mode is not None:
        members = ','.join(f'{BOND_MEMBER}=net_tap{i}' for i in range(n))
        eal += ['--vdev', f'net_bonding0,mode={bond_mode},{members}']
    return eal


def start(*app_args, eal=()):
    b = harness.Backend(BACKEND, *app_args, prefix='vuradm', eal_extra=eal)
    try:
        b.wait_socket()
        b.wait_socket(b.admin)
    except Exception:
        finish(b)
        raise
    return b


def ctl(b, *args):
    return subprocess.run([sys.executable, CTL, '-s', b.admin, *args], capture_output=True,
                          text=True, timeout=30)


def ctl_json(b, *args):
    r = ctl(b, *args)
    assert r.returncode == 0, r
    return json.loads(r.stdout)


def raw(b, data, expect_reply=True):
    """Send @data on a fresh connection; the parsed reply, or None at EOF."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(b.admin)
        s.sendall(data)
        buf = b''
        try:
            while not buf.endswith(b'\n'):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        except socket.timeout:
            if expect_reply:
                raise
        return json.loads(buf.split(b'\n')[0]) if buf else None


def rpc(b, method, params=None, rid=1):
    req = {'jsonrpc': '2.0', 'id': rid, 'method': method}
    if params is not None:
        req['params'] = params
    return raw(b, json.dumps(req).encode())


def error_code(reply):
    assert 'error' in reply, reply
    return reply['error']['code']


def finish(b):
    """The backend stops cleanly, without a sanitizer report."""
    try:
        assert b.stop() == 0, b.output()
        assert not b.sanitizer_report(), b.sanitizer_report()
    finally:
        harness.remove_runtime_dir(b.prefix)


def device(b):
    return ctl_json(b, 'devices')[0]


def wait_for(pred, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


@case
def cli_help():
    r = subprocess.run([sys.executable, CTL, '--help'], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r
    for word in ('devices', 'uplinks', 'speeds', 'device-link', 'member-link', 'member-speed',
                 'create-device', 'delete-device'):
        assert word in r.stdout, word


@case
def no_uplink_is_loopback():
    b = start()
    try:
        assert ctl_json(b, 'uplinks') == []
        d = device(b)
        assert d['speed_mbps'] == 100000 and d['flags'] == ['loopback'], d
        assert d['total_members'] == 0 and d['link'] == 'up', d
    finally:
        finish(b)


@case
def planes_sum_and_cli_actions():
    b = start('-s', os.path.join('/tmp', f'vua{PID}.sock'), '--member-speed', 'net_tap0=25000', '--member-speed', 'net_tap1=25000',
              eal=taps(2))
    dev = os.path.join('/tmp', f'vua{PID}.sock')
    try:
        ups = ctl_json(b, 'uplinks')
        assert [u['type'] for u in ups] == ['port', 'port'], ups
        assert all(u['members'][0]['link_events'] == 'rtnetlink+poll' for u in ups), ups
        assert all(u['members'][0]['if_index'] > 0 for u in ups), ups
        d = ctl_json(b, 'devices')[0]
        assert d['device'] == dev and d['speed_mbps'] == 50000, d
        assert d['flags'] == ['aggregated'] and d['active_members'] == 2, d
        r = ctl(b, 'speeds')
        assert r.returncode == 0 and '50000 M' in r.stdout, r

        # A member's link through ethdev: the kernel side sees it too.
        m = ctl_json(b, 'member-link', 'net_tap0', 'down')
        assert m['link'] == 'down', m
        with open(f'/sys/class/net/{iface(0)}/flags') as f:
            assert int(f.read(), 16) & 1 == 0  # IFF_UP clear
        d = device(b)
        assert d['speed_mbps'] == 25000 and d['flags'] == [] and d['active_members'] == 1, d
        t = b.device(dev)
        assert t['port_speed_100mbps'] == 250 and t['active_members'] == 1, t
        assert b.telemetry('/vur/uplinks')['/vur/uplinks']['net_tap0']['link_up'] == 0
        ctl_json(b, 'member-link', 'net_tap0', 'up')
        assert device(b)['speed_mbps'] == 50000

        # The kernel side takes a tap down: an LSC event, applied within milliseconds.
        subprocess.run(['ip', 'link', 'set', iface(1), 'down'], check=True)
        assert wait_for(lambda: device(b)['speed_mbps'] == 25000), device(b)
        subprocess.run(['ip', 'link', 'set', iface(1), 'up'], check=True)
        assert wait_for(lambda: device(b)['speed_mbps'] == 50000), device(b)

        # Nominal speeds: declared, then cleared back to what the tap reports (10G).
        assert ctl_json(b, 'member-speed', 'net_tap1', '100000')['nominal_mbps'] == 100000
        assert device(b)['speed_mbps'] == 125000
        ctl_json(b, 'member-speed', 'net_tap1', '0')
        assert device(b)['speed_mbps'] == 35000

        # Every member down: loopback at the sum of their maximum speeds.
        ctl_json(b, 'member-link', 'net_tap0', 'down')
        ctl_json(b, 'member-link', 'net_tap1', 'down')
        d = device(b)
        assert d['speed_mbps'] == 35000 and d['flags'] == ['loopback'], d
        assert d['link'] == 'up' and d['active_members'] == 0, d

        # The device's own link: down is 0, whatever the members.
        d = ctl_json(b, 'device-link', dev, 'down')
        assert d['admin_link'] == 'down' and d['link'] == 'down' and d['speed_mbps'] == 0, d
        assert d['flags'] == ['link_down'], d
        t = b.device(dev)
        assert t['link_up'] == 0 and t['admin_link_up'] == 0, t
        ctl_json(b, 'device-link', dev, 'up')
        ctl_json(b, 'member-link', 'net_tap0', 'up')
        ctl_json(b, 'member-link', 'net_tap1', 'up')
        assert device(b)['speed_mbps'] == 35000 and device(b)['flags'] == ['aggregated']
    finally:
        finish(b)


def kernel_side(name, up):
    subprocess.run(['ip', 'link', 'set', name, 'up' if up else 'down'], check=True)


@case
def kernel_link_changes_without_polling():
    """rtnetlink, not the poll: with polling every 10 s, a tap's and an af_packet
    member's kernel-side changes still arrive within a second. net_af_packet itself
    never reports a link change; its veth's carrier follows the peer."""
    veth, peer = f'vua{PID}v0', f'vua{PID}v1'
    subprocess.run(['ip', 'link', 'add', veth, 'type', 'veth', 'peer', 'name', peer],
                   check=True)
    b = None
    try:
        for name in (veth, peer):
            kernel_side(name, True)
        b = start('--link-poll-ms', '10000', '--member-speed', 'net_tap0=25000',
                  '--member-speed', 'net_af_packet0=10000',
                  eal=taps(1) + ['--vdev', f'net_af_packet0,iface={veth}'])
        ups = ctl_json(b, 'uplinks')
        assert [u['members'][0]['link_events'] for u in ups] == ['rtnetlink+poll'] * 2, ups
        assert wait_for(lambda: device(b)['speed_mbps'] == 35000), device(b)
        before = b.telemetry('/vur/uplinks')['/vur/uplinks']

        def within_a_second(mbps, active):
            t0 = time.monotonic()
            ok = wait_for(lambda: device(b)['speed_mbps'] == mbps, timeout=1.0)
            d = device(b)
            assert ok and d['active_members'] == active, (d, time.monotonic() - t0)

        kernel_side(peer, False)  # the af_packet member's carrier goes
        within_a_second(25000, 1)
        kernel_side(iface(0), False)
        within_a_second(35000, 0)  # every member down: loopback at their maxima
        assert device(b)['flags'] == ['loopback'], device(b)
        kernel_side(iface(0), True)
        within_a_second(25000, 1)
        kernel_side(peer, True)
        within_a_second(35000, 2)
        after = b.telemetry('/vur/uplinks')['/vur/uplinks']
        assert after['kernel_link_events'] >= before['kernel_link_events'] + 4, (before, after)
    finally:
        if b is not None:
            finish(b)
        subprocess.run(['ip', 'link', 'del', veth], check=False)


@case
def lag_members_are_the_bond_members():
    for mode in (0, 2, 4):  # round-robin, balance, 802.3ad
        b = start('--member-speed', 'net_tap0=200000', '--member-speed', 'net_tap1=200000',
                  eal=taps(2, bond_mode=mode))
        try:
            ups = ctl_json(b, 'uplinks')
            assert len(ups) == 1 and ups[0]['type'] == 'bond', ups
            assert ups[0]['bond_mode'] == mode, ups
            assert [m['name'] for m in ups[0]['members']] == ['net_tap0', 'net_tap1'], ups
            assert device(b)['speed_mbps'] == 400000
            ctl_json(b, 'member-link', 'net_tap1', 'down')
            d = device(b)
            assert d['speed_mbps'] == 200000 and d['active_members'] == 1, (mode, d)
        finally:
            finish(b)


@case
def bad_admin_input_gets_clear_errors():
    b = start('--member-speed', 'net_tap0=1000', eal=taps(1))
    try:
        for args, code, text in (
                (('device-link', '/tmp/nope', 'down'), 1, 'no device /tmp/nope'),
                (('member-link', 'net_tap9', 'down'), 1, 'no uplink member net_tap9'),
                (('member-speed', 'net_tap9', '10'), 1, 'no uplink member net_tap9'),
                (('member-speed', 'net_tap0', '-1'), 1, 'speed_mbps'),
                (('member-link', 'net_tap0', 'sideways'), 2, "expected 'up' or 'down'"),
                (('call', 'no_such_method'), 1, 'no method no_such_method'),
                (('call', 'get_devices', '{"device": 5}'), 1, 'code -32602'),
                (('call', 'get_uplinks', '{"x": 1}'), 1, 'no parameters'),
                (('qps', '/tmp/nope'), 1, 'no device /tmp/nope'),
                (('call', 'get_devices', '{bad'), 2, 'params')):
            r = ctl(b, *args)
            assert r.returncode == code, (args, r)
            assert text in r.stderr, (args, r.stderr)

        assert error_code(rpc(b, 'set_device_link', {'device': b.sock})) == -32602
        assert error_code(rpc(b, 'set_device_link', {'device': b.sock, 'up': 1})) == -32602
        assert error_code(rpc(b, 'set_device_link',
                              {'device': b.sock, 'up': True, 'extra': 1})) == -32602
        assert error_code(rpc(b, 'set_member_speed',
                              {'member': 'net_tap0', 'speed_mbps': 2**32})) == -32602
        # quotas (issue 25): unknown kinds, negative or non-integer numbers, no device
        for q in ({'bogus': 1}, {'qps': -1}, {'mrs': 'x'}, {'wrs': 1.5}, [1]):
            assert error_code(rpc(b, 'set_device_quota', {'device': b.sock, 'quota': q})) \
                == -32602, q
        assert error_code(rpc(b, 'set_device_quota', {'device': b.sock})) == -32602
        assert error_code(rpc(b, 'set_device_quota',
                              {'device': '/tmp/nope', 'quota': {'qps': 1}})) == -19
        r = ctl_json(b, 'device-quota', b.sock, '--qps', '3', '--pinned-bytes', '4096')
        assert r['quota']['qps'] == {'max': 3, 'used': 0, 'refused': 0}, r['quota']
        assert r['quota']['pinned_bytes']['max'] == 4096 and r['quota']['cqs']['max'] == 0
        r = ctl_json(b, 'device-quota', b.sock, '--qps', '0')
        assert r['quota']['qps']['max'] == 0 and r['quota']['pinned_bytes']['max'] == 4096
        r = ctl(b, 'device-quota', b.sock)
        assert r.returncode == 2 and 'give at least one' in r.stderr, r
        # transmit limits (issue 25): wrong types, out of range, no device
        for q in ({'bogus': 1}, {'bps': -1}, {'bps': 'x'}, {'bps': 1.5e8}, {'bps': 999},
                  {'bps': 400 * 10**9 + 1}, {'pps': 10**9 + 1}, {'pps': True}, [1], 7):
            assert error_code(rpc(b, 'set_device_rate', {'device': b.sock, 'rate': q})) \
                == -32602, q
        assert error_code(rpc(b, 'set_device_rate', {'device': b.sock})) == -32602
        assert error_code(rpc(b, 'set_device_rate',
                              {'device': '/tmp/nope', 'rate': {'bps': 0}})) == -19
        r = ctl_json(b, 'device-rate', b.sock, '--rate-bps', '200M')
        assert r['rate']['bps'] == 200000000 and r['rate']['pps'] == 0, r['rate']
        r = ctl_json(b, 'device-rate', b.sock, '--rate-pps', '5k')
        assert r['rate']['bps'] == 200000000 and r['rate']['pps'] == 5000, r['rate']
        assert b.device(b.sock)['rate_bps'] == 200000000
        r = ctl_json(b, 'device-rate', b.sock, '--rate-bps', '0', '--rate-pps', '0')
        assert r['rate']['bps'] == 0 and r['rate']['pps'] == 0, r['rate']
        r = ctl(b, 'device-rate', b.sock, '--rate-bps', 'fast')
        assert r.returncode == 2, r
        r = ctl(b, 'device-rate', b.sock)
        assert r.returncode == 2 and 'give --rate-bps' in r.stderr, r
        # allowed addresses (issue 25): not addresses, multicast, not a list, too many, no device
        for ips in (['10.0.0.256'], ['ff02::1'], ['224.0.0.1'], [7], '10.0.0.1', {},
                    ['10.0.1.%d' % i for i in range(17)]):
            assert error_code(rpc(b, 'set_device_addresses',
                                  {'device': b.sock, 'allowed_ips': ips})) == -32602, ips
        assert error_code(rpc(b, 'set_device_addresses', {'device': b.sock})) == -32602
        assert error_code(rpc(b, 'set_device_addresses',
                              {'device': '/tmp/nope', 'allowed_ips': []})) == -19
        r = ctl_json(b, 'device-addresses', b.sock, '10.0.0.7', 'FD00::7', '::ffff:10.0.0.7')
        assert r['allowed_ips'] == ['10.0.0.7', 'fd00::7'] and r['refused_gids'] == 0, r
        assert ctl_json(b, 'device-addresses', b.sock)['allowed_ips'] == []
        assert b.device(b.sock)['refused_gids'] == 0
        # a pinned MAC (ROCE-DEV-POLICY-7): set alone, the addresses stay
        ctl_json(b, 'device-addresses', b.sock, '10.0.0.7')
        r = ctl_json(b, 'device-addresses', b.sock, '--keep-ips', '--pin-mac')
        assert r['mac_pinned'] is True and r['allowed_ips'] == ['10.0.0.7'], r
        assert r['refused_macs'] == 0 and r['spoofed_mac_drops'] == 0, r
        assert r['spoofed_ip_drops'] == 0, r
        assert b.device(b.sock)['mac_pinned'] == 1
        r = ctl_json(b, 'device-addresses', b.sock, '--unpin-mac')
        assert r['mac_pinned'] is False and r['allowed_ips'] == [], r
        assert error_code(rpc(b, 'set_device_addresses',
                              {'device': b.sock, 'mac_pinned': 1})) == -32602
        r = ctl(b, 'device-addresses', b.sock, '--keep-ips')
        assert r.returncode == 2 and '--keep-ips' in r.stderr, r
        assert error_code(rpc(b, 'get_devices', [1])) == -32602
        assert error_code(rpc(b, 'get_qps', {})) == -32602
        assert error_code(rpc(b, 'get_qps', {'device': 1})) == -32602
        assert error_code(rpc(b, 'get_qps', {'device': b.sock, 'x': 1})) == -32602
        # a device with no frontend has no QPs
        assert ctl_json(b, 'qps', b.sock) == []
        assert error_code(raw(b, b'[1, 2]')) == -32600
        assert error_code(raw(b, b'{"jsonrpc": "1.0", "id": 1, "method": "get_devices"}')) \
            == -32600
        assert error_code(raw(b, b'{"jsonrpc": "2.0", "id": 1}')) == -32600
        assert error_code(raw(b, b'{"jsonrpc": "2.0", "id": 1, "method": "x"} garbage')) \
            == -32601
        assert error_code(raw(b, b'}{')) == -32700
        assert error_code(raw(b, b'{"a": "' + b'x' * 5000)) == -32700  # never ends
        # A notification (no id) is executed and not answered.
        assert raw(b, b'{"jsonrpc": "2.0", "method": "set_member_speed", "params": '
                      b'{"member": "net_tap0", "speed_mbps": 3000}}', expect_reply=False) \
            is None
        assert device(b)['speed_mbps'] == 3000
        # Two requests in one write, and one split across writes.
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(b.admin)
            s.sendall(b'{"jsonrpc":"2.0","id":7,"method":"get_uplinks"}\n'
                      b'{"jsonrpc":"2.0","id":8,"method":"rpc_get_methods"}{"jsonrpc":')
            time.sleep(0.1)
            s.sendall(b'"2.0","id":9,"method":"get_devices"}')
            lines = b''
            while lines.count(b'\n') < 3:
                lines += s.recv(65536)
            ids = [json.loads(x)['id'] for x in lines.splitlines()]
            assert ids == [7, 8, 9], ids
        # More connections than slots: refused, never a crash; then all is well.
        held = []
        for _ in range(12):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(b.admin)
            held.append(s)
        for s in held:
            s.close()
        assert wait_for(lambda: ctl(b, 'devices').returncode == 0)
        assert b.proc.poll() is None
    finally:
        finish(b)


@case
def access_vlan_values():
    """An access VLAN (issue 25): 1..4094 or 0, a number; set at creation and live."""
    b = start()
    d = os.path.join(b.dir, 'v')
    try:
        assert b.device(b.sock)['vlan'] == 0
        # out of range (0x1000, 4095 reserved, negative), not a number: refused, nothing made
        for v in (0x1000, 4095, -1, '10', True, 1.5, None, [10]):
            r = rpc(b, 'create_device', {'device': d, 'vlan': v})
            assert error_code(r) == -32602 and 'vlan' in r['error']['message'], (v, r)
            assert not os.path.exists(d), v
            r = rpc(b, 'set_device_vlan', {'device': b.sock, 'vlan': v})
            assert error_code(r) == -32602 and 'vlan' in r['error']['message'], (v, r)
        assert error_code(rpc(b, 'set_device_vlan', {'device': b.sock})) == -32602
        assert error_code(rpc(b, 'set_device_vlan',
                              {'device': b.sock, 'vlan': 10, 'x': 1})) == -32602
        assert error_code(rpc(b, 'set_device_vlan', {'device': '/tmp/nope', 'vlan': 10})) == -19
        assert b.device(b.sock)['vlan'] == 0
        r = rpc(b, 'create_device', {'device': d, 'vlan': 4094})['result']
        assert r['vlan'] == 4094 and r['tagged_drops'] == 0, r
        # live: set, changed, lifted; get_devices and the CLI agree
        r = ctl_json(b, 'device-vlan', b.sock, '10')
        assert r['vlan'] == 10 and r['tagged_drops'] == 0, r
        assert [x['vlan'] for x in ctl_json(b, 'devices')] == [10, 4094]
        assert b.device(b.sock)['vlan'] == 10
        assert ctl_json(b, 'device-vlan', d, '1')['vlan'] == 1
        assert ctl_json(b, 'device-vlan', b.sock, 'none')['vlan'] == 0
        for bad in ('4095', 'ten'):
            r = ctl(b, 'device-vlan', b.sock, bad)
            assert r.returncode in (1, 2) and 'vlan' in r.stderr.lower(), (bad, r)
        assert ctl_json(b, 'devices')[0]['vlan'] == 0
        r = ctl_json(b, 'create-device', d + '2', '--vlan', '20')
        assert r['vlan'] == 20, r
        assert b.device(d + '2')['vlan'] == 20
    finally:
        finish(b)


@case
def devices_at_runtime():
    """create_device and delete_device: settings, the socket, and the CLI."""
    b = start()
    d1 = os.path.join(b.dir, 'rt1')
    try:
        d = ctl_json(b, 'create-device', d1, '--mac', '02:00:00:00:25:01', '--mtu', '9000',
                     '--max-qps', '16', '--max-cqs', '8', '--down')
        assert d['device'] == d1 and d['mac'] == '02:00:00:00:25:01', d
        assert (d['mtu'], d['max_qps'], d['max_cqs']) == (9000, 16, 8), d
        assert d['client'] is False and d['roce'] is True and d['port_speed_feature'], d
        assert d['admin_link'] == 'down' and d['link'] == 'down', d
        assert os.path.exists(d1)
        assert [x['device'] for x in ctl_json(b, 'devices')] == [b.sock, d1]
        t = b.device(d1)
        assert t['link_up'] == 0, t
        assert t['quota_qps'] == 0 and t['quota_cqs_refused'] == 0, t
        # quotas at creation (issue 25); a bad one refused and nothing made
        d = ctl_json(b, 'create-device', d1 + 'q', '--cqs', '2', '--wrs', '100')
        assert d['quota']['cqs']['max'] == 2 and d['quota']['wrs']['max'] == 100, d['quota']
        assert b.device(d1 + 'q')['quota_wrs'] == 100
        assert d['allowed_ips'] == [], d
        assert ctl_json(b, 'delete-device', d1 + 'q') is True
        d = ctl_json(b, 'create-device', d1 + 'q', '--allowed-ip', '192.0.2.1',
                     '--allowed-ip', '2001:db8::1', '--pin-mac')
        assert d['allowed_ips'] == ['192.0.2.1', '2001:db8::1'], d
        assert d['mac_pinned'] is True, d
        assert error_code(rpc(b, 'create_device',
                              {'device': d1 + 'a', 'allowed_ips': ['nope']})) == -32602
        assert not os.path.exists(d1 + 'a')
        assert ctl_json(b, 'delete-device', d1 + 'q') is True
        assert error_code(rpc(b, 'create_device',
                              {'device': d1 + 'q', 'quota': {'qps': -2}})) == -32602
        assert not os.path.exists(d1 + 'q')
        # the command line's settings where the request says nothing
        d = rpc(b, 'create_device', {'device': d1 + 'b', 'roce': False})['result']
        assert d['mtu'] == 1500 and d['max_qps'] == 64 and d['roce'] is False, d
        assert d['port_speed_feature'] is False and d['admin_link'] == 'up', d
        # a derived MAC: locally administered unicast, the same for the same path
        mac = d['mac']
        assert int(mac[:2], 16) & 3 == 2, mac
        assert ctl_json(b, 'delete-device', d1 + 'b') is True
        assert not os.path.exists(d1 + 'b')
        assert rpc(b, 'create_device', {'device': d1 + 'b'})['result']['mac'] == mac
        # a client device: nothing listens yet, it waits for its frontend
        d = rpc(b, 'create_device', {'device': d1 + 'c', 'client': True})['result']
        assert d['client'] is True and not d['connected'], d
        for path in (d1, d1 + 'b', d1 + 'c'):
            assert rpc(b, 'delete_device', {'device': path})['result'] is True
        assert not os.path.exists(d1)
        assert [x['device'] for x in ctl_json(b, 'devices')] == [b.sock]
        # the command line's device goes the same way
        assert ctl_json(b, 'delete-device', b.sock) is True and not os.path.exists(b.sock)
        assert ctl_json(b, 'devices') == []
        assert 'create_device' in ctl_json(b, 'methods')
    finally:
        finish(b)


@case
def bad_device_requests_get_clear_errors():
    """Every refusal of create_device and delete_device, with its code and reason."""
    b = start()
    d = os.path.join(b.dir, 'rt')
    afile = os.path.join(b.dir, 'a-file')
    with open(afile, 'w'):
        pass
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other.bind(os.path.join(b.dir, 'theirs'))
    other.listen(1)  # another process's socket
    try:
        assert 'result' in rpc(b, 'create_device', {'device': d, 'mac': '02:00:00:00:25:02'})
        for params, code, text in (
                ({'device': d}, -17, 'exists'),  # a duplicate path
                ({'device': d + '2', 'mac': '02:00:00:00:25:02'}, -17, "is device"),
                ({'device': afile}, -17, 'not a socket'),
                ({'device': os.path.join(b.dir, 'theirs')}, -98, 'another process'),
                ({'device': '/nonexistent-dir/x'}, -2, 'no such directory'),
                ({'device': '/tmp/' + 'x' * 110}, -36, 'longer than'),
                ({'device': 'relative/path'}, -32602, 'absolute'),
                ({'device': ''}, -32602, 'absolute'),
                ({'device': d + '2', 'mac': '03:00:00:00:00:01'}, -32602, 'not a unicast'),
                ({'device': d + '2', 'mac': '00:00:00:00:00:00'}, -32602, 'not a unicast'),
                ({'device': d + '2', 'mac': 'zz'}, -32602, 'expected XX'),
                ({'device': d + '2', 'mtu': 67}, -32602, 'mtu 67'),
                ({'device': d + '2', 'mtu': 65536}, -32602, 'mtu 65536'),
                ({'device': d + '2', 'max_qps': 2}, -32602, 'max_qps 2'),
                ({'device': d + '2', 'max_qps': 2**32}, -32602, 'positive'),
                ({'device': d + '2', 'max_qps': -1}, -32602, 'positive'),
                ({'device': d + '2', 'max_cqs': -1}, -32602, 'positive'),
                ({'device': d + '2', 'mtu': -1}, -32602, 'mtu -1'),
                ({'device': d + '2', 'max_cqs': 0}, -32602, 'max_cqs 0'),
                ({'device': d + '2', 'max_qps': 128, 'max_cqs': 64}, -32602, 'virtqueues'),
                ({'device': d + '2', 'mtu': '9000'}, -32602, 'expected'),
                ({'device': d + '2', 'bogus': 1}, -32602, 'expected'),
                ({'mtu': 1500}, -32602, 'expected'),
                (None, -32602, 'expected')):
            r = rpc(b, 'create_device', params)
            assert error_code(r) == code and text in r['error']['message'], (params, r)
            if params and params.get('device') not in (d, afile, os.path.join(b.dir, 'theirs')):
                assert not os.path.exists(params.get('device') or '/nonexistent'), params
        # the file and the other socket are left alone
        assert os.path.exists(afile) and os.path.exists(os.path.join(b.dir, 'theirs'))
        for params, code in (({'device': d + '9'}, -19), ({'device': 1}, -32602),
                             ({'device': d, 'x': 1}, -32602), (None, -32602)):
            assert error_code(rpc(b, 'delete_device', params)) == code, params
        r = ctl(b, 'delete-device', d + '9')
        assert r.returncode == 1 and 'no device' in r.stderr, r
        r = ctl(b, 'create-device', d, '--mtu', '9000')
        assert r.returncode == 1 and '(code -17)' in r.stderr, r
        # as many as the switch has device ports, then ENOSPC; nothing leaks either way
        made = [os.path.join(b.dir, f'n{i}') for i in range(62)]
        for p in made:
            assert 'result' in rpc(b, 'create_device', {'device': p, 'max_qps': 3,
                                                        'max_cqs': 1}), p
        r = rpc(b, 'create_device', {'device': os.path.join(b.dir, 'one-too-many')})
        assert error_code(r) == -28, r
        for p in made:
            assert rpc(b, 'delete_device', {'device': p})['result'] is True, p
        assert len(ctl_json(b, 'devices')) == 2
    finally:
        other.close()
        finish(b)


@case
def member_whose_driver_cannot_set_its_link():
    # net_af_packet has neither LSC nor link up/down: its link is the kernel
    # interface's (rtnetlink), and the RPC says that it cannot set it.
    b = start('--member-speed', 'net_af_packet0=1000', eal=['--vdev', 'net_af_packet0,iface=lo'])
    try:
        m = ctl_json(b, 'uplinks')[0]['members'][0]
        assert m['link_events'] == 'rtnetlink+poll' and m['if_index'] == 1, m
        r = ctl(b, 'member-link', 'net_af_packet0', 'down')
        assert r.returncode == 1 and 'cannot set its link down' in r.stderr, r
        assert '(code -95)' in r.stderr, r.stderr
        assert device(b)['speed_mbps'] == 1000
    finally:
        finish(b)


@case
def bad_uplink_options_refuse_to_start():
    for app, eal, text in ((['--uplink', 'net_tap7'], taps(1), 'no such ethdev'),
                           (['--member-speed', 'net_tap5=100'], taps(1), 'not an uplink member'),
                           (['--uplink', 'net_tap0'], taps(2, bond_mode=4), "a bond's member"),
                           ([], taps(2, bond_mode=1), 'does not add its members')):
        b = harness.Backend(BACKEND, '-s', f'/tmp/vua{PID}bad.sock', *app, prefix='vuradm',
                            eal_extra=eal)
        try:
            assert b.proc.wait(30) != 0, app
            assert text in b.output(), (app, b.output())
        finally:
            harness.remove_runtime_dir(b.prefix)


@case
def admin_socket_stale_and_live():
    path = os.path.join('/tmp', f'vua{PID}.adm')
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)
    stale.close()  # the file stays, nobody listens: a dead backend's
    b = start('--admin-socket', path)
    try:
        assert ctl(b, 'devices').returncode == 0
        # A second backend on the same admin socket runs without one and says so.
        other = harness.Backend(BACKEND, '-s', f'/tmp/vua{PID}b.sock', '--admin-socket', path,
                                prefix='vuradm')
        try:
            # The admin socket comes after the device socket and the uplinks.
            other.wait_output('in use by another backend')
            assert ctl_json(b, 'devices')[0]['device'] == b.sock  # still the first's
        finally:
            finish(other)
    finally:
        finish(b)
    assert not os.path.exists(path)


sys.exit(harness.report())
