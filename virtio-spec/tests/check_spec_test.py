#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_spec.py's upstream label check, on a copy of the spec folder.

    python3 check_spec_test.py VIRTIO_SPEC_DIR

The committed upstream-labels.txt passes with no virtio-spec checkout at hand;
a \\ref the list lacks and a label the text no longer uses fail; a stand-in
virtio-spec git repository (the listed labels, in the listed files) verifies
the list, catches a label it lacks, and --update rewrites the list with its
commit. Prints TAP.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = None
TMP = None
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def copy():
    """A scratch copy of the spec folder."""
    d = os.path.join(tempfile.mkdtemp(prefix='spec-', dir=TMP), 'virtio-spec')
    shutil.copytree(SRC, d, ignore=shutil.ignore_patterns('__pycache__', 'tests'))
    return d


def check(d, *args, env=None):
    e = {k: v for k, v in os.environ.items() if k != 'VIRTIO_SPEC_UPSTREAM'}
    e.update(env or {})
    run = subprocess.run([sys.executable, os.path.join(d, 'check_spec.py'), d, *args],
                         capture_output=True, text=True, env=e)
    return run.returncode, run.stdout + run.stderr


def labels(d):
    """(commit, [(label, file)]) of the copy's list."""
    commit, rows = None, []
    for line in open(os.path.join(d, 'upstream-labels.txt'), encoding='utf-8'):
        line = line.rstrip('\n')
        if line.startswith('commit '):
            commit = line.split()[1]
        elif line and not line.startswith('#'):
            rows.append(tuple(line.split('\t')))
    return commit, rows


def write_labels(d, commit, rows):
    path = os.path.join(d, 'upstream-labels.txt')
    keep = [x for x in open(path, encoding='utf-8') if x.startswith('#')]
    with open(path, 'w', encoding='utf-8') as f:
        f.writelines(keep + ['commit %s\n' % commit] + ['%s\t%s\n' % r for r in rows])


def git(repo, *args):
    return subprocess.run(['git', '-C', repo, '-c', 'user.name=spec-test',
                           '-c', 'user.email=spec-test@invalid', *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def stand_in(rows):
    """A git repository defining each (label, file) of @rows; its HEAD commit id."""
    repo = tempfile.mkdtemp(prefix='upstream-', dir=TMP)
    git(repo, 'init', '-q')
    by_file = {}
    for label, name in rows:
        by_file.setdefault(name, []).append('\\section{x}\\label{%s}\n' % label)
    for name, lines in by_file.items():
        os.makedirs(os.path.dirname(os.path.join(repo, name)), exist_ok=True)
        with open(os.path.join(repo, name), 'w', encoding='utf-8') as f:
            f.writelines(lines)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'labels')
    return repo, git(repo, 'rev-parse', 'HEAD')


def assert_fails_with(rc, out, text):
    assert rc == 1, 'exit %d, expected 1: %s' % (rc, out)
    assert text in out, 'no "%s" in: %s' % (text, out)


@case
def committed_list_passes_without_a_checkout():
    d = copy()
    commit, rows = labels(d)
    assert commit and len(commit) == 40, commit
    assert rows, 'the committed list is empty'
    rc, out = check(d)
    assert rc == 0 and 'spec: ok' in out, out
    assert '%d upstream labels checked' % len(rows) in out, out


@case
def ref_missing_from_the_list_fails():
    d = copy()
    commit, rows = labels(d)
    write_labels(d, commit, rows[1:])
    rc, out = check(d)
    assert_fails_with(rc, out, '\\ref{%s}: not in upstream-labels.txt' % rows[0][0])


@case
def label_no_longer_referred_to_fails():
    d = copy()
    commit, rows = labels(d)
    write_labels(d, commit, rows + [('sec:Nowhere', 'content.tex')])
    rc, out = check(d)
    assert_fails_with(rc, out, 'lists sec:Nowhere, which the .tex does not refer to')


@case
def malformed_list_fails():
    d = copy()
    commit, rows = labels(d)
    write_labels(d, commit[:12], rows)
    rc, out = check(d)
    assert_fails_with(rc, out, 'no "commit <40 hex digits>" line')


@case
def upstream_checkout_verifies_the_list():
    d = copy()
    _, rows = labels(d)
    repo, head = stand_in(rows)
    rc, out = check(d, '--upstream', repo)
    assert rc == 0 and 'spec: ok' in out, out
    assert 'verified at virtio-spec %s' % head[:12] in out, out
    rc, out = check(d, env={'VIRTIO_SPEC_UPSTREAM': repo})
    assert rc == 0 and 'verified at virtio-spec %s' % head[:12] in out, out


@case
def upstream_checkout_without_a_label_fails():
    d = copy()
    _, rows = labels(d)
    repo, head = stand_in(rows[1:])
    rc, out = check(d, '--upstream', repo)
    assert_fails_with(rc, out, '%s is not in the virtio specification at %s'
                      % (rows[0][0], head))
    rc, out = check(d, '--upstream', repo, '--update')
    assert_fails_with(rc, out, '\\ref{%s}: no such label' % rows[0][0])


@case
def update_rewrites_the_list_with_the_commit():
    d = copy()
    _, rows = labels(d)
    moved = [(label, 'moved/' + name) for label, name in rows]
    repo, head = stand_in(moved)
    rc, out = check(d, '--upstream', repo)
    assert_fails_with(rc, out, 'is in moved/')
    rc, out = check(d, '--upstream', repo, '--update')
    assert rc == 0 and 'written from virtio-spec %s' % head in out, out
    assert labels(d) == (head, sorted(moved)), labels(d)
    rc, out = check(d)
    assert rc == 0, out


@case
def update_needs_a_checkout():
    rc, out = check(copy(), '--update')
    assert rc == 2 and '--update needs --upstream' in out, out


def main(argv):
    global SRC, TMP
    if len(argv) != 2:
        sys.stderr.write('usage: check_spec_test.py VIRTIO_SPEC_DIR\n')
        return 2
    SRC = os.path.abspath(argv[1])
    failed = 0
    with tempfile.TemporaryDirectory(prefix='vur-check-spec-') as TMP:
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
