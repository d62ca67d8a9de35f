#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/check-paths.py on made-up repositories: machine paths found, the
project's runtime paths left alone.

    python3 check_paths_test.py SCRIPTS_DIR

The machine paths are put together at run time, so that this file passes the
check itself. Prints TAP.
"""
import os
import subprocess
import sys
import tempfile

CHECK = None
CASES = []
S = '/'
MIRROR = '.' + 'mirror'

# Lines that name a build machine's folders, and what the check must report.
BAD = [
    ('see `' + S + 'work' + S + 'shared' + S + 'NOTES.md`', S + 'work/shared/NOTES.md'),
    ("UPSTREAM = '" + S + 'work' + S + MIRROR + S + "x+y/repo'",
     S + 'work/' + MIRROR + '/x+y/repo'),
    ('cp ' + S + 'home' + S + 'alice' + S + 'a.c .', S + 'home/alice/a.c'),
    ('python: ' + S + 'root' + S + '.pyenv' + S + 'bin', S + 'root/.pyenv/bin'),
    ('cd ' + S + 'root', S + 'root'),
    ('PATH=' + S + 'workspace' + S + 'bin:x', S + 'workspace/bin:x'),
    ('out in ' + S + 'tmp' + S + 'bash_' + 'jobs.0' + S + '3' + S + 'stdout', None),
    ("from the tool's " + MIRROR + S + 'a+b', MIRROR + '/a+b'),
    ('(' + S + 'Users' + S + 'bob' + S + 'src)', S + 'Users/bob/src'),
]

# What the project says to its users, or paths that merely contain such a name.
GOOD = [
    '-chardev socket,path=/tmp/vhost-rdma0,id=vrdma',
    'mount -t hugetlbfs nodev /dev/hugepages',
    '--admin-socket /var/tmp/vhost-user-rdma.sock; /var/run/dpdk',
    'cp -L "$dir/root/$f" "$firmware/"',
    'rootfs=${dir}/root/ and $(pwd)/home/x and ~/work/x and ../work/y and a/home/b',
    '/usr/share/qemu /proc/sys/vm/nr_hugepages /sys/class/net /etc/apt/sources.list.d',
    'the extension mirrors the speed; a git mirror; /homepage /rooted /worker',
    'https://example.org/home/x and file.mirrorlist',
]


def case(fn):
    CASES.append(fn)
    return fn


def repo(tmp, lines, git=True):
    d = tempfile.mkdtemp(dir=tmp)
    with open(os.path.join(d, 'notes.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    os.mkdir(os.path.join(d, 'build-asan'))
    with open(os.path.join(d, 'build-asan', 'untracked.txt'), 'w', encoding='utf-8') as f:
        f.write(BAD[0][0] + '\n')   # build output: neither tracked nor walked
    with open(os.path.join(d, 'blob.bin'), 'wb') as f:
        f.write(b'\0' + BAD[0][0].encode())
    if git:
        subprocess.run(['git', '-C', d, 'init', '-q'], check=True)
        subprocess.run(['git', '-C', d, 'add', 'notes.md', 'blob.bin'], check=True)
    return d


def check(d):
    run = subprocess.run([sys.executable, CHECK, d], capture_output=True, text=True)
    return run.returncode, run.stdout.splitlines()


def expect_bad(tmp, git):
    rc, out = check(repo(tmp, [line for line, _ in BAD], git))
    assert rc == 1, 'exit %d: %r' % (rc, out)
    found = [x for x in out if x.startswith('notes.md:')]
    assert len(found) == len(BAD), 'found %r' % found
    for n, (line, path) in enumerate(BAD, 1):
        want = 'notes.md:%d: %s' % (n, path or line.split()[-1])
        assert want in out, 'no %r in %r' % (want, out)
    assert not [x for x in out if 'untracked' in x or 'blob' in x], out


@case
def machine_paths_are_found():
    with tempfile.TemporaryDirectory() as tmp:
        expect_bad(tmp, True)


@case
def machine_paths_are_found_without_git():
    with tempfile.TemporaryDirectory() as tmp:
        expect_bad(tmp, False)


@case
def runtime_paths_pass():
    with tempfile.TemporaryDirectory() as tmp:
        rc, out = check(repo(tmp, GOOD))
        assert rc == 0, 'exit %d: %r' % (rc, out)


def main(argv):
    global CHECK
    if len(argv) != 2:
        sys.stderr.write('usage: check_paths_test.py SCRIPTS_DIR\n')
        return 2
    CHECK = os.path.join(os.path.abspath(argv[1]), 'check-paths.py')
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
