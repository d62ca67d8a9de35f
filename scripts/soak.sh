#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The soak run (bench/soak.py; not in CI): two hours of mixed RC/UC/UD and
# Ethernet traffic between ten devices of one backend, frontends killed and
# reconnected, uplinks flapped, RSS/fds/objects printed every minute.
#   scripts/soak.sh [soak.py options: --duration S --interval S --seed N]
# Builds the release tree (build/) first.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(scripts/build.sh release)
exec python3 bench/soak.py --build "$dir" "$@"
