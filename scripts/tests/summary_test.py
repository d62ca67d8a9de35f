#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/test-summary.py on made-up meson test logs: a skip is never a pass.

    python3 summary_test.py SCRIPTS_DIR

Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

SUMMARY = None
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def test(name, result, stdout=''):
    return {'name': 'vhost-user-rdma:unit / ' + name, 'result': result, 'stdout': stdout,
            'returncode': {'OK': 0, 'SKIP': 77}.get(result, 1)}


def summarize(tests, ci=None):
    """(exit status, output lines) of the summary over @tests."""
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        f.writelines(json.dumps(t) + '\n' for t in tests)
    env = {k: v for k, v in os.environ.items() if k != 'CI'}
    if ci is not None:
        env['CI'] = ci
    try:
        run = subprocess.run([sys.executable, SUMMARY, f.name], capture_output=True,
                             text=True, env=env)
    finally:
        os.unlink(f.name)
    return run.returncode, run.stdout.splitlines()


def expect(tests, last, status=0, lines=(), ci=None):
    rc, out = summarize(tests, ci)
    assert out and out[-1] == last, 'closing line %r, expected %r' % (out[-1:], last)
    for line in lines:
        assert line in out, 'no line %r in %r' % (line, out)
    assert rc == status, 'exit %d, expected %d: %r' % (rc, status, out)
    return out


TAP = 'ok 1 - first\n# a comment\nok 2 - second # a note\nnot ok 3 - third\n1..3\n'


@case
def plain_tests_count_once():
    expect([test('a', 'OK'), test('b', 'EXPECTEDFAIL'), test('c', 'FAIL')],
           '2 passed, 1 failed, 0 skipped', status=1)


@case
def tap_cases_count_one_by_one():
    expect([test('t', 'FAIL', TAP)], '2 passed, 1 failed, 0 skipped', status=1)


@case
def skipped_case_is_not_passed():
    out = expect([test('t', 'OK', 'ok 1 - runs\nok 2 - tun # SKIP needs /dev/net/tun\n1..2\n')],
                 '1 passed, 0 failed, 1 skipped',
                 lines=['skipped: vhost-user-rdma:unit / t - tun: needs /dev/net/tun'])
    assert len(out) == 2, out


@case
def skip_directive_in_any_case():
    expect([test('t', 'OK', 'ok 1 # skip no reason here\nok 2 - b # Skipped: root\n1..2\n')],
           '0 passed, 0 failed, 2 skipped',
           lines=['skipped: vhost-user-rdma:unit / t - ?: no reason here',
                  'skipped: vhost-user-rdma:unit / t - b: root'])


@case
def skipped_plan_is_one_skip_with_its_reason():
    expect([test('t', 'SKIP', '1..0 # SKIP needs root, /dev/net/tun and two CPUs\n')],
           '0 passed, 0 failed, 1 skipped',
           lines=['skipped: vhost-user-rdma:unit / t: needs root, /dev/net/tun and two CPUs'])


@case
def exit_77_is_a_skip_with_the_last_line():
    expect([test('e', 'SKIP', 'checking\nno sparse on this machine\n\n')],
           '0 passed, 0 failed, 1 skipped',
           lines=['skipped: vhost-user-rdma:unit / e: no sparse on this machine'])
    expect([test('e', 'SKIP')], '0 passed, 0 failed, 1 skipped',
           lines=['skipped: vhost-user-rdma:unit / e: no reason given'])


@case
def crash_after_passing_cases_is_a_failure():
    expect([test('t', 'ERROR', 'ok 1 - a\nok 2 - b\n1..2\n'), test('u', 'TIMEOUT', 'ok 1\n1..3\n')],
           '3 passed, 2 failed, 0 skipped', status=1)
    expect([test('t', 'ERROR', 'ok 1 - a\nok 2 - b\n')],     # no plan: not TAP
           '0 passed, 1 failed, 0 skipped', status=1)
    expect([test('t', 'ERROR', 'ok 1 - a\n1..1\nERROR: AddressSanitizer\n')],
           '1 passed, 1 failed, 0 skipped', status=1)


@case
def a_failure_says_which_case_and_how_its_output_ended():
    out = expect([test('t', 'FAIL', 'ok 1 - a\n# the reason\nnot ok 2 - b\n1..2\n'),
                  test('c', 'ERROR', '\n'.join('line %d' % i for i in range(100)))],
                 '1 passed, 2 failed, 0 skipped', status=1,
                 lines=['failed: vhost-user-rdma:unit / t: b',
                        'failed: vhost-user-rdma:unit / t | # the reason',
                        'failed: vhost-user-rdma:unit / c: ERROR (exit status 1)',
                        'failed: vhost-user-rdma:unit / c | line 99'])
    assert 'failed: vhost-user-rdma:unit / c | line 59' not in out, out
    assert 'failed: vhost-user-rdma:unit / c | line 60' in out, out


@case
def todo_is_an_expected_failure():
    expect([test('t', 'OK', 'not ok 1 - a # TODO later\nok 2 - b # TODO done\n1..2\n')],
           '1 passed, 1 failed, 0 skipped', status=1)


@case
def a_skip_fails_in_ci():
    tests = [test('a', 'OK'), test('t', 'SKIP', '1..0 # SKIP needs root\n')]
    expect(tests, '1 passed, 0 failed, 1 skipped', status=1, ci='true',
           lines=['CI is set: 1 skipped count as a failure; every test must run in CI'])
    expect(tests, '1 passed, 0 failed, 1 skipped', status=0, ci='false')
    expect([test('a', 'OK')], '1 passed, 0 failed, 0 skipped', status=0, ci='true')


@case
def stages_add_up_and_a_missing_log_fails():
    with tempfile.TemporaryDirectory() as top:
        logs = []
        stages = (('build-asan', [test('a', 'OK'), test('t', 'OK', 'ok 1 - a\nok 2 - b\n1..2\n')]),
                  ('build-sid', [test('a', 'OK'), test('s', 'SKIP', '1..0 # SKIP no tun\n')]))
        for name, tests in stages:
            os.makedirs(os.path.join(top, name, 'meson-logs'))
            path = os.path.join(top, name, 'meson-logs', 'testlog.json')
            with open(path, 'w') as f:
                f.writelines(json.dumps(t) + '\n' for t in tests)
            logs.append(path)
        env = {k: v for k, v in os.environ.items() if k != 'CI'}
        run = subprocess.run([sys.executable, SUMMARY, *logs], capture_output=True, text=True,
                             env=env)
        out = run.stdout.splitlines()
        assert out[-1] == '4 passed, 0 failed, 1 skipped', out
        for line in ('build-asan: passed 3, failed 0, skipped 0',
                     'build-sid: passed 1, failed 0, skipped 1',
                     'build-sid: skipped: vhost-user-rdma:unit / s: no tun'):
            assert line in out, (line, out)
        assert run.returncode == 0, out
        run = subprocess.run([sys.executable, SUMMARY, logs[0],
                              'sid=' + os.path.join(top, 'nowhere', 'testlog.json')],
                             capture_output=True, text=True, env=env)
        out = run.stdout.splitlines()
        assert out[-1] == '3 passed, 1 failed, 0 skipped', out
        assert 'sid: passed 0, failed 1, skipped 0' in out, out
        assert run.returncode == 1, out


def main(argv):
    global SUMMARY
    if len(argv) != 2:
        sys.stderr.write('usage: summary_test.py SCRIPTS_DIR\n')
        return 2
    SUMMARY = os.path.join(argv[1], 'test-summary.py')
    failed = 0
    for i, fn in enumerate(CASES, 1):
        try:
            fn()
            print('ok %d - %s' % (i, fn.__name__))
        except Exception as e:  # noqa: BLE001 - any failure fails the case
            failed += 1
            print('# %s: %s' % (type(e).__name__, str(e).replace('\n', '\n# ')))
            print('not ok %d - %s' % (i, fn.__name__))
    print('1..%d' % len(CASES))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
