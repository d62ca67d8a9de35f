#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Set up, build and run the backend on its embedded default: one device on
# /tmp/vhost-rdma0, no NIC (the local switch only, link up at the loopback
# speed). Extra arguments replace the application's defaults, e.g.
#   scripts/run.sh -s /tmp/vhost-rdma0 -s /tmp/vhost-rdma1
# Stop it with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
dir=$(scripts/build.sh release)

app_args=("$@")
[ ${#app_args[@]} -gt 0 ] || app_args=(-s /tmp/vhost-rdma0)

eal=(--no-pci --file-prefix "vur$$" --log-level 'lib.eal:notice')
if grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts &&
        [ "$(cat /proc/sys/vm/nr_hugepages)" -gt 0 ]; then
    eal+=(-m 256)
else
    eal+=(--no-huge -m 512)
fi
exec "$dir/backend/vhost-user-rdma" "${eal[@]}" -- "${app_args[@]}"
