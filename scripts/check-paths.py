#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fail if a tracked file names an absolute path of a build machine.

    python3 scripts/check-paths.py [DIR]    # DIR: the repository (default: this one)

The project stands alone: no file may send a reader, a script or a test to a
place that exists only on the machine it was written on, such as a home
directory, root's home, a work or workspace folder at the top of the file
system, a tool's mirror folder, or a tool's job folder. Paths that are part of
another path (a folder named like that inside the tree or a variable) and the
runtime paths the project documents for every user (sockets under /tmp and
/var, hugepages under /dev, system folders under /usr, /proc, /sys, /etc) are
fine. The files are those git tracks (every file under DIR, less build
folders, where DIR is not a git checkout). Prints one line per finding,
"FILE:LINE: PATH", and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

# An absolute path starts a path: not after a name, a variable or another path.
START = r'(?<![\w$}).~/-])'
MACHINE = re.compile(
    START + r'/(?:home|root|work|workspace|Users)(?![\w.-])\S*'   # home and work folders
    r'|(?<!\w)[.]mirror\b\S*'                                      # a tool's mirror folder
    r'|(?<!\w)/tmp/bash[_]jobs\S*')                                # a tool's job folder
SKIP_DIRS = ('.git', '.deps', '__pycache__')


def tracked(top):
    """The files of @top: what git tracks, else every file outside build folders."""
    run = subprocess.run(['git', '-C', top, 'ls-files', '-z'], capture_output=True)
    if run.returncode == 0:
        return [f for f in run.stdout.decode('utf-8', 'replace').split('\0') if f]
    files = []
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith('build'))
        files += [os.path.relpath(os.path.join(root, n), top) for n in sorted(names)]
    return files


def findings(top):
    for name in tracked(top):
        path = os.path.join(top, name)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, 'rb') as f:
            data = f.read()
        if b'\0' in data:
            continue        # binary
        for n, line in enumerate(data.decode('utf-8', 'replace').splitlines(), 1):
            for m in MACHINE.finditer(line):
                yield '%s:%d: %s' % (name, n, m.group(0).rstrip('.,;:)`\'"'))


def main(argv):
    if len(argv) > 2:
        sys.stderr.write('usage: check-paths.py [DIR]\n')
        return 2
    top = os.path.abspath(argv[1] if len(argv) == 2 else
                          os.path.join(os.path.dirname(__file__), '..'))
    found = list(findings(top))
    for line in found:
        print(line)
    if found:
        print('%d absolute path(s) of a build machine in tracked files: say what they hold '
              'or point inside the repository instead' % len(found))
        return 1
    print('no absolute path of a build machine in %d tracked files' % len(tracked(top)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
