#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Count every test case of one or more meson runs and print the closing line.

    python3 scripts/test-summary.py [NAME=]BUILD_DIR/meson-logs/testlog.json...

Several logs (scripts/test.sh's stages: the host's DPDK, then the newest in a
chroot) are counted together: each gets a line "NAME: passed P, failed F,
skipped S" first (NAME defaults to the build folder), and a log that does
not exist counts as one failure (its stage failed before running a test).

A test that reports TAP (a plan "1..N" and "ok"/"not ok" lines) counts once
per case, any other test once. A skipped case ("ok N - name # SKIP reason"),
a test whose plan skips it ("1..0 # SKIP reason") and a test that exits 77
count as skipped, never as passed, and each prints one line
"skipped: TEST[ - CASE]: REASON". A test that failed without a failed case
(a crash, a sanitizer report, a timeout) counts one failure more. An
expected failure (meson's should_fail, TAP's "not ok # TODO") is a pass.

A failed test prints "failed: TEST: CASES" (its failed cases, or how it
ended) and the lines of its output up to each failed case (or its last lines
if none failed), each as "failed: TEST | LINE", so that the end of a long run
(often all a CI page keeps) says why.

The last line is "N passed, N failed, N skipped". Exit status 1 if anything
failed, or if anything was skipped while CI is set (CI=true): in CI every
test must run.
"""
import json
import os
import re
import sys

PASS = ('OK', 'EXPECTEDFAIL')
# As meson's TAP parser reads them (TAP 13: "ok 3 - name # SKIP reason").
PLAN = re.compile(r'^1\.\.(\d+)(?:[ \t]*#[ \t]*[Ss][Kk][Ii][Pp]\w*[: \t]*(.*?))?[ \t]*$', re.M)
CASE = re.compile(r'^(not ok|ok)\b[ \t]*\d*[ \t]*(?:-[ \t]*)?([^#\n]*?)[ \t]*'
                  r'(?:#[ \t]*(.*?))?[ \t]*$', re.M)
TAIL_LINES = 40   # the output shown of one failed test, at most
CASE_CONTEXT = 20  # the lines shown before a failed case
DIRECTIVE = re.compile(r'(skip\w*|todo)\b[: \t]*(.*)', re.I)


def in_ci():
    return os.environ.get('CI', '').strip().lower() not in ('', '0', 'false', 'no')


def cases(out):
    """[(result, name, reason)] of a TAP report, result pass/fail/skip; None if not TAP."""
    if not PLAN.search(out):
        return None
    found = []
    for ok, name, comment in CASE.findall(out):
        d = DIRECTIVE.match(comment)
        directive = d.group(1).upper() if d else ''
        if directive.startswith('SKIP'):
            found.append(('skip', name, d.group(2)))
        elif directive == 'TODO':       # expected to fail: passing it is the surprise
            found.append(('fail' if ok == 'ok' else 'pass', name, ''))
        else:
            found.append(('pass' if ok == 'ok' else 'fail', name, ''))
    return found


def skip_reason(out):
    """Why a whole test skipped: its plan's reason, else its last line of output."""
    plan = PLAN.search(out)
    if plan and plan.group(2):
        return plan.group(2)
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    return lines[-1] if lines else 'no reason given'


def failure_notes(t, failed_cases):
    """Lines naming failed test @t and its @failed_cases, then what its output
    says about them: the lines up to each failed case (its diagnostics come
    before it), or the output's end when no case failed (a crash, a timeout)."""
    what = ', '.join(failed_cases) or '%s (exit status %s)' % (t['result'],
                                                             t.get('returncode', '?'))
    notes = ['failed: %s: %s' % (t['name'], what)]
    lines = ((t.get('stdout') or '') + (t.get('stderr') or '')).rstrip('\n').splitlines()
    shown = []
    if failed_cases:
        for i, line in enumerate(lines):
            if line.startswith('not ok'):
                shown += lines[max(0, i - CASE_CONTEXT):i + 1]
    else:
        shown = lines[-TAIL_LINES:]
    notes += ['failed: %s | %s' % (t['name'], line[:300]) for line in shown[:TAIL_LINES]]
    return notes


def summarize(log):
    counts = {'pass': 0, 'fail': 0, 'skip': 0}
    notes = []
    for line in log:
        t = json.loads(line)
        out = t.get('stdout') or ''
        found = cases(out)
        if found:
            for result, name, reason in found:
                counts[result] += 1
                if result == 'skip':
                    notes.append('skipped: %s - %s: %s'
                                  % (t['name'], name or '?', reason or 'no reason given'))
            failed = [n or '?' for r, n, _ in found if r == 'fail']
            if t['result'] not in PASS + ('SKIP',) and not failed:
                counts['fail'] += 1    # the test itself failed (crash, sanitizer, timeout)
            if failed or t['result'] not in PASS + ('SKIP',):
                notes += failure_notes(t, failed)
        elif t['result'] == 'SKIP':
            counts['skip'] += 1
            notes.append('skipped: %s: %s' % (t['name'], skip_reason(out)))
        else:
            counts['pass' if t['result'] in PASS else 'fail'] += 1
            if t['result'] not in PASS:
                notes += failure_notes(t, [])
    return counts, notes


def stage_name(arg):
    """(name, path) of an argument NAME=PATH, or PATH (named for its build folder)."""
    if '=' in arg:
        name, path = arg.split('=', 1)
        return name, path
    parts = os.path.normpath(arg).split(os.sep)
    return (parts[-3] if len(parts) >= 3 else arg), arg


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: test-summary.py [NAME=]TESTLOG_JSON...\n')
        return 2
    counts = {'pass': 0, 'fail': 0, 'skip': 0}
    for arg in argv[1:]:
        name, path = stage_name(arg)
        try:
            with open(path, encoding='utf-8') as log:
                stage, notes = summarize(log)
        except FileNotFoundError:
            stage, notes = {'pass': 0, 'fail': 1, 'skip': 0}, \
                ['failed: %s: no test log, the stage failed before its tests' % name]
        for note in notes:
            print(note if len(argv) == 2 else '%s: %s' % (name, note))
        if len(argv) > 2:
            print('%s: passed %d, failed %d, skipped %d'
                  % (name, stage['pass'], stage['fail'], stage['skip']))
        for k in counts:
            counts[k] += stage[k]
    status = 1 if counts['fail'] else 0
    if counts['skip'] and in_ci():
        print('CI is set: %d skipped count as a failure; every test must run in CI'
              % counts['skip'])
        status = 1
    print('%d passed, %d failed, %d skipped' % (counts['pass'], counts['fail'], counts['skip']))
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
