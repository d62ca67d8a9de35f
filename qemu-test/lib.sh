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

# The Debian unstable chroot's place (in_sid's).
sid_dir() {
    echo "${VUR_SID_CHROOT:-/var/cache/vhost-user-rdma/chroot-sid}"
}

# sid_inputs FILE...: a hash of FILE... and of the packages in the unstable
# chroot (its dpkg status, read without the chroot's lock: dpkg replaces it
# by a rename). A build in the chroot whose inputs hash as they did at its
# last run need not enter the chroot to find that out: in_sid waits for the
# lock, which a QEMU or DPDK build there holds for minutes (shared), and
# scripts/prebuild.sh runs those beside the tests.
sid_inputs() {
    {
        sha256sum "$@" | cut -d' ' -f1
        sha256sum "$(sid_dir)/var/lib/dpkg/status" 2>/dev/null | cut -d' ' -f1 || echo none
    } | sha256sum | cut -d' ' -f1
}

# Run "$@" as root in the Debian unstable chroot, made with debootstrap if
# missing and reused after; one caller at a time (flock on its .lock). It
# runs in a private mount namespace with /proc mounted in the chroot, so the
# mount goes when the command ends, whatever happens. The chroot is the one
# scripts/sid-chroot.sh is to share (same place, same lock); the archive is
# the one the host's apt sources name. VUR_SID_CHROOT overrides the place.
# The repository (the caller's $top) is bind-mounted at /vur in the chroot,
# for the command's inputs and outputs.
in_sid() {
    local dir mirror deps

    dir=$(sid_dir)
    as_root mkdir -p "$(dirname "$dir")"
    (
        exec 8>"$dir.lock"
        flock 8
        if [ ! -x "$dir/usr/bin/apt-get" ]; then
            mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
            [ -n "$mirror" ] || { echo "in_sid: no archive in the host's apt sources" >&2; exit 1; }
            PACKAGES=(debootstrap)
            install_packages
            as_root rm -rf "$dir.new"
            as_root debootstrap --variant=buildd sid "$dir.new" "$mirror" >"$log" 2>&1 || exit 1
            printf '%s\n' 'Acquire::Check-Valid-Until "false";' 'APT::Install-Recommends "false";' |
                as_root tee "$dir.new/etc/apt/apt.conf.d/90vhost-user-rdma" >/dev/null
            as_root mv "$dir.new" "$dir"
        fi
        # A git worktree may link .deps to another checkout's: bind that
        # at its own path too, so the link resolves in the chroot.
        deps=
        [ -L "${top:?}/.deps" ] && deps=$(readlink -f "$top/.deps")
        as_root unshare --mount --propagation private -- sh -c \
            'mkdir -p "$0/vur" && mount --bind "$1" "$0/vur" && mount -t proc proc "$0/proc" &&
             if [ -n "$2" ]; then mkdir -p "$0$2" && mount --bind "$2" "$0$2"; fi &&
             shift 2 && exec chroot "$0" /usr/bin/env -i \
                PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
                DEBIAN_FRONTEND=noninteractive "$@"' "$dir" "${top:?}" "$deps" "$@"
    )
}
