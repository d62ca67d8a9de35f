#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A Debian unstable (sid) chroot, shared by every part of the project that
# needs newer Debian than the host's: DPDK's newest release, Linux headers,
# rdma-core. Made once with debootstrap, kept between runs, reused.
#
#   scripts/sid-chroot.sh path              print the chroot's directory
#   scripts/sid-chroot.sh ensure [PKG...]   create it if missing, install the
#                                           packages it does not have yet
#   scripts/sid-chroot.sh run CMD [ARG...]  run CMD in it, as root, in the
#                                           current directory (the repository's
#                                           root if outside it); the repository
#                                           is bind-mounted at its own path
#   scripts/sid-chroot.sh run --shared CMD [ARG...]
#                                           the same for a CMD that only reads
#                                           the chroot (e.g. a QEMU installed
#                                           there): it runs beside other such
#                                           commands, 'ensure' and 'upgrade'
#                                           wait for it
#   scripts/sid-chroot.sh upgrade           apt-get update and dist-upgrade
#
# Environment:
#   VUR_CHROOT_SUITE   Debian suite (default sid; e.g. trixie for DPDK 24.11)
#   VUR_CHROOT_DIR     where it lives (default
#                      /var/cache/vhost-user-rdma/chroot-$VUR_CHROOT_SUITE;
#                      for sid also VUR_SID_CHROOT, as qemu-test/lib.sh's)
#   VUR_CHROOT_MIRROR  archive URL (default: the one the host's apt sources
#                      use for the host's own release)
#   VUR_CHROOT_MAX_AGE days before 'ensure' upgrades the chroot (default 7)
#   VUR_CHROOT_BIND    more host directories for 'run', bound at their own
#                      paths (space-separated)
#
# Every command holds a lock (flock on $VUR_CHROOT_DIR.lock), so concurrent
# callers wait for each other ('run --shared' holds it shared). 'run' gives CMD /proc, /sys, /dev and its own
# /tmp, /run and /dev/shm, mounted in a private mount namespace and unmounted
# when it ends; nothing stays mounted on the host. Needs root (or sudo -n).
set -euo pipefail

suite=${VUR_CHROOT_SUITE:-sid}
dir=/var/cache/vhost-user-rdma/chroot-$suite
[ "$suite" != sid ] || dir=${VUR_SID_CHROOT:-$dir}
dir=${VUR_CHROOT_DIR:-$dir}
max_age=${VUR_CHROOT_MAX_AGE:-7}
repo=$(cd "$(dirname "$0")/.." && pwd)
self=$repo/scripts/$(basename "$0")
# The archive's unstable Release file may be past its Valid-Until date.
apt_opts=(-o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false)

die() {
    echo "sid-chroot: $*" >&2
    exit 1
}

usage() {
    awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$self" >&2
    exit 2
}

[ $# -ge 1 ] || usage
cmd=$1
shift

if [ "$cmd" = path ]; then
    echo "$dir"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "needs root"
    keep=VUR_CHROOT_SUITE,VUR_CHROOT_DIR,VUR_SID_CHROOT,VUR_CHROOT_MIRROR
    exec sudo -n --preserve-env=$keep,VUR_CHROOT_MAX_AGE,VUR_CHROOT_BIND "$self" "$cmd" "$@"
fi

# The URL of the archive that serves the host's own release, from the host's
# apt sources (deb822 .sources files or one-line .list files).
host_mirror() {
    local codename
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || return 1
    python3 - "$codename" /etc/apt/sources.list.d/*.sources /etc/apt/sources.list \
        /etc/apt/sources.list.d/*.list <<'PY'
import glob, re, sys
codename, files = sys.argv[1], sys.argv[2:]
for path in files:
    try:
        text = open(path).read()
    except OSError:
        continue
    if path.endswith('.sources'):
        for stanza in re.split(r'\n\s*\n', text):
            f = {}
            for line in stanza.splitlines():
                m = re.match(r'([A-Za-z-]+):\s*(.*)', line)
                if m:
                    f[m.group(1).lower()] = m.group(2).split()
            if ('deb' in f.get('types', []) and codename in f.get('suites', [])
                    and f.get('enabled', ['yes'])[0] != 'no' and f.get('uris')):
                print(f['uris'][0])
                sys.exit(0)
    else:
        for line in text.splitlines():
            w = re.sub(r'\[[^]]*\]', '', line.split('#')[0]).split()
            if len(w) >= 3 and w[0] == 'deb' and w[2] == codename:
                print(w[1])
                sys.exit(0)
sys.exit(1)
PY
}

# Host packages the script itself needs.
need_host_tools() {
    command -v debootstrap >/dev/null && return 0
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        debootstrap >/dev/null
}

in_chroot_apt() {
    chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive apt-get -qq "${apt_opts[@]}" "$@"
}

# Mount what package scripts and tests need, in this process's private mount
# namespace (see 'unshare' below); the trap unmounts them in any case.
mounted=()
mount_one() {
    local target=$dir$1
    shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounted=("$target" "${mounted[@]}")
}
unmount_all() {
    local m
    for m in "${mounted[@]}"; do
        umount -l "$m" 2>/dev/null || true
    done
    mounted=()
}
mount_basics() {
    trap unmount_all EXIT
    mount_one /proc -t proc proc
    mount_one /sys --rbind /sys
    mount_one /dev --bind /dev
    mount_one /dev/pts --bind /dev/pts
    mount_one /dev/shm -t tmpfs -o mode=1777 tmpfs
    mount_one /tmp -t tmpfs -o mode=1777 tmpfs
    mount_one /run -t tmpfs -o mode=755 tmpfs
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

create() {
    local mirror tmp=$dir.new
    mirror=${VUR_CHROOT_MIRROR:-$(host_mirror)} ||
        die "no archive for the host's release in /etc/apt/sources*; set VUR_CHROOT_MIRROR"
    [ ! -e "$dir" ] || die "$dir exists but holds no chroot: remove it or set VUR_CHROOT_DIR"
    need_host_tools
    rm -rf "$tmp"
    mkdir -p "$(dirname "$dir")"
    echo "sid-chroot: creating the $suite chroot in $dir (a few minutes, once)" >&2
    debootstrap --variant=buildd "$suite" "$tmp" "$mirror" >"$tmp.log" 2>&1 ||
        { tail -n 30 "$tmp.log" >&2; die "debootstrap failed"; }
    rm -f "$tmp.log"
    cat >"$tmp/etc/apt/apt.conf.d/90vhost-user-rdma" <<'EOF'
// The archive's unstable Release file may be past its Valid-Until date.
Acquire::Check-Valid-Until "false";
Acquire::Languages "none";
APT::Install-Recommends "false";
EOF
    # A cache to rebuild, not data to keep: dpkg need not fsync every file.
    echo force-unsafe-io >"$tmp/etc/dpkg/dpkg.cfg.d/90vhost-user-rdma"
    mv "$tmp" "$dir"
    date +%s >"$dir/.vur-refreshed"
}

# A chroot another script made in the same place (qemu-test/lib.sh's
# in_sid, same lock) is adopted as it is, counted fresh from now.
have_chroot() {
    [ -x "$dir/usr/bin/apt-get" ] || return 1
    [ -f "$dir/.vur-refreshed" ] || date +%s >"$dir/.vur-refreshed"
    [ -f "$dir/etc/dpkg/dpkg.cfg.d/90vhost-user-rdma" ] ||
        echo force-unsafe-io >"$dir/etc/dpkg/dpkg.cfg.d/90vhost-user-rdma"
}

installed() {
    chroot "$dir" dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'
}

# Whether 'ensure "$@"' has nothing to do: the chroot is there, fresh
# enough, with every package installed. Read without the lock (dpkg
# replaces its status file by a rename), as the lock waits for every
# 'run --shared' in the chroot: minutes of a QEMU or DPDK build beside the
# tests.
ready() {
    local p last
    [ -x "$dir/usr/bin/apt-get" ] && [ -f "$dir/etc/dpkg/dpkg.cfg.d/90vhost-user-rdma" ] ||
        return 1
    last=$(cat "$dir/.vur-refreshed" 2>/dev/null || echo 0)
    [ $(($(date +%s) - last)) -le $((max_age * 86400)) ] || return 1
    for p in "$@"; do
        installed "$p" || return 1
    done
}

ensure() {
    local p missing=() last
    have_chroot || create
    mount_basics
    last=$(cat "$dir/.vur-refreshed" 2>/dev/null || echo 0)
    if [ $(($(date +%s) - last)) -gt $((max_age * 86400)) ]; then
        upgrade
    fi
    for p in "$@"; do
        installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        in_chroot_apt update || die "apt-get update failed in $dir"
        in_chroot_apt install -y "${missing[@]}" >/dev/null ||
            die "cannot install in $dir: ${missing[*]}"
    fi
    unmount_all
}

upgrade() {
    in_chroot_apt update || die "apt-get update failed in $dir"
    in_chroot_apt dist-upgrade -y >/dev/null || die "dist-upgrade failed in $dir"
    date +%s >"$dir/.vur-refreshed"
}

run() {
    local cwd=$PWD b home
    [ $# -ge 1 ] || usage
    have_chroot || die "no chroot in $dir: run '$0 ensure' first"
    mount_basics
    mount_one "$repo" --bind "$repo"
    # A git worktree may link .deps to another checkout's: bind its target.
    if [ -L "$repo/.deps" ]; then
        b=$(readlink -f "$repo/.deps")
        mount_one "$b" --bind "$b"
    fi
    for b in ${VUR_CHROOT_BIND:-}; do
        [ -d "$b" ] || die "VUR_CHROOT_BIND: no directory $b"
        b=$(cd "$b" && pwd)
        mount_one "$b" --bind "$b"
    done
    case "$cwd/" in
    "$repo"/*) ;;
    *) [ -d "$dir$cwd" ] || cwd=$repo ;;
    esac
    home=$(awk -F: '$1 == "root" { print $6 }' "$dir/etc/passwd")
    # Not exec: the trap must unmount after CMD.
    chroot "$dir" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME="${home:-/}" LANG=C.UTF-8 TERM="${TERM:-dumb}" \
        /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$cwd" "$@"
}

case "$cmd" in
ensure | run | upgrade) ;;
__inner) ;;
*) usage ;;
esac

# One caller at a time, and mounts that never leak to the host: take the lock,
# then continue in a private mount namespace that holds it.
if [ "$cmd" != __inner ]; then
    if [ "$cmd" = ensure ] && ready "$@"; then
        exit 0
    fi
    mkdir -p "$(dirname "$dir")"
    exec 9>"$dir.lock"
    if [ "$cmd" = run ] && [ "${1:-}" = --shared ]; then
        shift
        flock -s 9
    else
        flock 9
    fi
    exec unshare --mount --propagation private -- "$self" __inner "$cmd" "$@"
fi
cmd=$1
shift
case "$cmd" in
ensure) ensure "$@" ;;
run) run "$@" ;;
upgrade)
    have_chroot || create
    mount_basics
    upgrade
    ;;
esac
