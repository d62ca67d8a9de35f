# SPDX-License-Identifier: GPL-2.0-or-later
#
# What qemu-test's build scripts share: sourced after setting ME (the
# script's name for messages) and PACKAGES (what it needs from Debian).
# Sets up a log file that failing commands write to and fail() shows.

log=$(mktemp)
trap 'rm -f "$log"' EXIT

fail() {
    echo "$ME: $*" >&2
    tail -n 60 "$log" >&2
    exit 1
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo -n "$@"
    else
        return 1
    fi
}

# Install what of PACKAGES is missing, quietly.
install_packages() {
    local missing=() p

    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    as_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >"$log" 2>&1 || fail "cannot install: ${missing[*]}"
}
