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
