# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fixture-lib.sh - sourced by the fixture-tier test scripts that run rdmad (daemon-test.sh,
# bus-test.sh, faults-test.sh, garbage-test.sh, valgrind-daemon-test.sh,
# bad-profiles/daemon-bad-profiles-test.sh): the private network namespace, the scratch
# directory, the private system-like bus, and the TAP helpers they share.
#
#   src=<the tests/ directory>; . "$src/fixture-lib.sh"
#   fixture_netns "$0" "$@"   first: runs the script again in a private network namespace
#   fixture_workdir           $work, a 0755 scratch directory. At exit every process whose PID
#                             is in a variable named in fixture_pids (pid, bus_pid, and what
#                             the test appends) is continued, stopped and reaped, and $work goes
#   fixture_bus POLICY        dbus-daemon configured like the system bus with the shipped policy
#                             on $work/bus, DBUS_SYSTEM_BUS_ADDRESS exported, its PID in bus_pid
#   tap_begin                 after the set-up: a failing command no longer ends the script
#                             (every check runs), and check/is return 1 on failure, so that
#                             `check NAME COND || diagnostics` prints them
#   ok NAME | not_ok NAME | check NAME COND | is NAME GOT WANT | tap_end
#                             TAP lines ($n of them, $failed 1 once one failed); tap_end prints
#                             the plan when the script did not print one first, and exits

fixture_netns() {
        if [[ -z ${RDMAD_FIXTURE_NETNS:-} ]]; then
                exec unshare --net env RDMAD_FIXTURE_NETNS=1 "$@"
        fi
}

pid= bus_pid=
fixture_pids=(pid bus_pid)
fixture_cleanup() {
        local v p
        for v in "${fixture_pids[@]}"; do
                for p in ${!v}; do
                        kill -CONT "$p" 2> /dev/null || true
                        kill "$p" 2> /dev/null && wait "$p" 2> /dev/null
                done
        done
        [[ -z ${work:-} ]] || rm -rf "$work"
}

fixture_workdir() {
        work=$(mktemp -d)
        chmod 755 "$work"
        trap fixture_cleanup EXIT
}

fixture_bus() {
        sed -e "s|@SOCKET@|$work/bus|" -e "s|@POLICY@|$1|" "$src/dbus/system.conf.in" \
                > "$work/system.conf"
        dbus-daemon --config-file="$work/system.conf" --nofork --nopidfile --nosyslog &
        bus_pid=$!
        export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus
        for _ in $(seq 50); do [[ -S $work/bus ]] && break; sleep 0.1; done
        [[ -S $work/bus ]]
}

# within_window SECONDS ROUND: what must happen inside one of rdmad's reuse windows (an answer
# given again for SECONDS to the same callers). ROUND, a function that makes the calls and keeps
# what they answered in variables, runs after an earlier answer's window lapsed, timed on the
# monotonic clock from before its first call (or from where it sets window_t0=$(uptime_cs): the
# answer's end, where the daemon's window begins) to after its last answer. A round shorter than
# SECONDS is the one to judge (the daemon's own interval lies inside it); one a loaded machine
# made longer says so and is run again, 3 rounds at most. Returns 1 when none was short enough:
# the caller's checks then fail on what the last round answered.
uptime_cs() { local u _; read -r u _ < /proc/uptime; echo "${u/./}"; }
within_window() {
        local secs=$1 round=$2 t1 i
        for i in 1 2 3; do
                sleep "$secs.2"
                window_t0=$(uptime_cs)
                "$round"
                t1=$(uptime_cs)
                ((t1 - window_t0 < secs * 100)) && return 0
                echo "# round $i of $round took $(((t1 - window_t0) / 100)) s, not within the $secs s window: again"
        done
        return 1
}

n=0
failed=0
tap_planned=0
tap_begin() { set +e; }
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; return 1; fi; }
# is NAME GOT WANT
is() { if [[ $2 == "$3" ]]; then ok "$1"; else not_ok "$1"; echo "# got '$2', want '$3'"; return 1; fi; }
tap_plan() { echo "1..$1"; tap_planned=1; }
tap_end() {
        ((tap_planned)) || echo "1..$n"
        exit "$failed"
}
