# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers for the guest's test scripts (". /lib/vur.sh"). Results go to the
# console as one line each, which the host side parses:
#   VUR-RESULT <name> ok|fail <detail>

# vur_result NAME ok|fail [DETAIL...]
vur_result() {
    _name=$1 _status=$2
    shift 2
    echo "VUR-RESULT $_name $_status $*"
}

# vur_expect NAME EXPECTED ACTUAL: ok when ACTUAL equals EXPECTED.
vur_expect() {
    if [ "$3" = "$2" ]; then
        vur_result "$1" ok "$3"
    else
        vur_result "$1" fail "expected '$2', got '$3'"
    fi
}

# vur_wait_file PATH SECONDS: wait until PATH exists; fails after SECONDS.
vur_wait_file() {
    _i=0
    while [ ! -e "$1" ]; do
        [ "$_i" -ge "$(($2 * 10))" ] && return 1
        sleep 0.1
        _i=$((_i + 1))
    done
}

# vur_wait_eq EXPECTED SECONDS COMMAND...: wait until COMMAND prints
# EXPECTED; fails after SECONDS.
vur_wait_eq() {
    _want=$1 _n=$(($2 * 10))
    shift 2
    while [ "$("$@" 2>/dev/null)" != "$_want" ]; do
        [ "$_n" -le 0 ] && return 1
        sleep 0.1
        _n=$((_n - 1))
    done
}

# vur_step WHAT...: print "VUR-WAIT WHAT" (the host's Guest.wait_step sees it)
# and wait up to VUR_STEP_TIMEOUT seconds (120) for the host to type "go";
# records the step as a result.
vur_step() {
    echo "VUR-WAIT $*"
    _line=
    read -t "${VUR_STEP_TIMEOUT:-120}" -r _line
    vur_expect "step_$(echo "$1" | tr -c 'a-zA-Z0-9_\n' _)" go "$_line"
}

# vur_mckey_send LOG CMD...: run rdma_cm's mckey sender CMD... (with -s),
# niced so that a kernel worker sending for it preempts it, until the host,
# which watches the receiver, answers "done" to the step "mckey_sent" (or
# "again": the messages went nowhere, e.g. flushed with the QP that mckey
# destroys right after posting them unsignaled), at most 5 times; or until
# a run fails. Sets MCKEY_TRIES, MCKEY_STATUS (the last run's exit status)
# and MCKEY_HOST (the host's last answer); the last run's output is in LOG.
vur_mckey_send() {
    _log=$1
    shift
    MCKEY_TRIES=0 MCKEY_STATUS=1 MCKEY_HOST=again
    while [ "$MCKEY_HOST" = again ] && [ $MCKEY_TRIES -lt 5 ]; do
        MCKEY_TRIES=$((MCKEY_TRIES + 1))
        timeout 60 sh -c 'renice -n 19 -p $$ >/dev/null && exec "$@"' sh "$@" >"$_log" 2>&1
        MCKEY_STATUS=$?
        [ $MCKEY_STATUS = 0 ] && grep -q 'data transfers complete' "$_log" || break
        echo "VUR-WAIT mckey_sent"
        MCKEY_HOST=
        read -t 120 -r MCKEY_HOST
    done
}

# vur_net_up ADDRESS/PREFIX: eth0 up with that address; waits up to 10 s for
# the link to be up.
vur_net_up() {
    ip addr add "$1" dev eth0 &&
        ip link set eth0 up &&
        vur_wait_eq up 10 cat /sys/class/net/eth0/operstate
}

# vur_ping_wait HOST SECONDS: wait until HOST answers a ping (one a second).
vur_ping_wait() {
    _end=$(($(date +%s) + $2))
    until ping -c 1 -W 1 "$1" >/dev/null 2>&1; do
        [ "$(date +%s)" -ge "$_end" ] && return 1
        sleep 0.5
    done
}

# vur_ping NAME HOST [WAIT]: a result NAME: after waiting up to WAIT seconds
# (default 60) for HOST to answer, three echo requests a second apart are
# each answered within 5 s. (One "ping -W 5" each: with -c 3, busybox waits
# only about two round trips for the last answer once one came, so a TCG
# stall of a second would count as a loss.)
vur_ping() {
    vur_ping_wait "$2" "${3:-60}"
    _got=0 _times=
    for _seq in 1 2 3; do
        if _out=$(ping -c 1 -W 5 "$2" 2>&1) && echo "$_out" | grep -q ' 0% packet loss'; then
            _got=$((_got + 1))
            _times="$_times $(echo "$_out" | sed -n 's/.*time=\([^ ]* ms\).*/\1/p')"
        else
            _times="$_times lost($(echo "$_out" | tail -n 1))"
        fi
        [ $_seq -lt 3 ] && sleep 1
    done
    if [ $_got -eq 3 ]; then
        vur_result "$1" ok "3 of 3 answered:$_times"
    else
        vur_result "$1" fail "$_got of 3 answered:$_times"
    fi
}

# vur_roce_v2_gid IBDEV PREFIX: the index of IBDEV's first RoCE v2 GID whose
# text (as sysfs prints it) starts with PREFIX, once the RDMA core made it;
# fails after 10 s.
vur_roce_v2_gid() {
    _port=/sys/class/infiniband/$1/ports/1
    for _try in $(seq 100); do
        for _g in "$_port"/gids/*; do
            _i=${_g##*/}
            case "$(cat "$_g" 2>/dev/null)" in
            "$2"*)
                if [ "$(cat "$_port/gid_attrs/types/$_i" 2>/dev/null)" = "RoCE v2" ]; then
                    echo "$_i"
                    return 0
                fi
                ;;
            esac
        done
        sleep 0.1
    done
    return 1
}

# vur_pingpong_client NAME ITERS COMMAND...: a result NAME for one of
# rdma-core's ping-pong clients, tried again (5 times, 1 s apart) while its
# server is not listening yet; ok when it ran its ITERS iterations.
vur_pingpong_client() {
    _name=$1 _iters=$2
    shift 2
    for _try in 1 2 3 4 5; do
        if "$@" >/tmp/pp.log 2>&1 && grep -q "^$_iters iters in" /tmp/pp.log; then
            vur_result "$_name" ok "$(grep iters /tmp/pp.log)"
            return 0
        fi
        grep -q "Couldn't connect" /tmp/pp.log || break
        sleep 1
    done
    vur_result "$_name" fail "$(tail -n 8 /tmp/pp.log | tr '\n' '|')"
    return 1
}

# vur_netdev_of MAC: the interface with that address.
vur_netdev_of() {
    for _n in /sys/class/net/*; do
        [ "$(cat "$_n/address")" = "$1" ] && { basename "$_n"; return; }
    done
}

# vur_ibdev_of NETDEV: the ib_device on the same virtio device.
vur_ibdev_of() {
    _v=$(basename "$(readlink "/sys/class/net/$1/device")")
    for _i in /sys/class/infiniband/*; do
        [ "$(basename "$(readlink "$_i/device")")" = "$_v" ] && { basename "$_i"; return; }
    done
}

# vur_devinfo IBDEV FIELD: a port field of `ibv_devinfo -v` (the sid image's).
vur_devinfo() {
    sid ibv_devinfo -v -d "$1" | sed -n "s/^[[:space:]]*$2:[[:space:]]*//p"
}

# vur_listening PORT: 1 when a TCP socket listens on PORT, else 0.
vur_listening() {
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p="$(printf ':%04X' $1)" '$2 ~ p"$" && $4 == "0A" { n++ } END { print n ? 1 : 0 }'
}

# vur_pingpong_local NAME PORT TOOL ARGS...: an unmodified rdma-core example
# (the sid image's), server and client in this guest on one device (the
# client over 127.0.0.1); both must exit 0 and print their totals, and the
# -c check must find no invalid data.
vur_pingpong_local() {
    _pp=$1 _port=$2
    shift 2
    timeout 300 sid "$@" -p $_port >/tmp/$_pp.server 2>&1 &
    _srv=$!
    vur_wait_eq 1 60 vur_listening $_port
    timeout 300 sid "$@" -p $_port 127.0.0.1 >/tmp/$_pp.client 2>&1
    _crc=$?
    wait $_srv
    _src=$?
    if [ $_crc = 0 ] && [ $_src = 0 ] && grep -q ' bytes in ' /tmp/$_pp.client &&
            grep -q ' bytes in ' /tmp/$_pp.server &&
            ! cat /tmp/$_pp.client /tmp/$_pp.server | grep -q 'invalid data'; then
        vur_result $_pp ok "$(grep ' iters in ' /tmp/$_pp.client)"
    else
        vur_result $_pp fail "client $_crc server $_src: $(tail -n 8 /tmp/$_pp.client) /" \
            "$(tail -n 8 /tmp/$_pp.server)"
    fi
}
