#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How guest.py reads a guest's console, on made-up console text: a line
counts once it is whole. The host reads the console while QEMU writes it
one character at a time; reading a step's line before its end once made
scenario 11 answer "all_members_" for "all_members_down" and fail.

    python3 console_test.py

Prints TAP.
"""
import sys

import guest
from harness import case, report

STEPS = 'VUR-RESULT a ok\r\nVUR-WAIT member_down\r\nVUR-RESULT b ok 25.0 Gbps\r\n'


@case
def step_counts_once_its_line_ends():
    assert guest.console_steps(STEPS + 'VUR-WAIT all_members_') == ['member_down']
    assert guest.console_steps(STEPS + 'VUR-WAIT all_members_down\r') == ['member_down']
    assert guest.console_steps(STEPS + 'VUR-WAIT all_members_down\r\n') == \
        ['member_down', 'all_members_down']


@case
def step_without_a_name():
    assert guest.console_steps('VUR-WAIT\r\n') == ['']


@case
def result_counts_once_its_line_ends():
    results, done = guest.console_results(STEPS + 'VUR-RESULT c ok speed 25')
    assert results == [('a', True, ''), ('b', True, '25.0 Gbps')], results
    assert done is None
    results, _ = guest.console_results(STEPS + 'VUR-RESULT c fail speed 250\r\n')
    assert results[-1] == ('c', False, 'speed 250'), results


@case
def exit_status_once_its_line_ends():
    assert guest.console_results(STEPS + 'VUR-DONE 1')[1] is None
    assert guest.console_results(STEPS + 'VUR-DONE 12\r\n')[1] == 12
    # a serial line ends in CR LF; a plain LF is a whole line too
    assert guest.console_results('VUR-DONE 0\n')[1] == 0


@case
def kernel_message_between_lines():
    text = 'VUR-RESULT a ok x\r\n[   12.5] virtio_rdma: port 1 up\r\nVUR-WAIT go_on\r\n'
    assert guest.console_results(text)[0] == [('a', True, 'x')]
    assert guest.console_steps(text) == ['go_on']


if __name__ == '__main__':
    sys.exit(report())
