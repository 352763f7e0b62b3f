#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier: rdmad is never deaf while it reconciles (issue 26). rdmad on a generated host of
# 1,024 Soft-RoCE links (bench/gen-tree.sh) and a private system-like bus with the shipped
# policy. One connection sends Plan(), Reconcile(), Peer.Ping, Get(State) of a link, Describe()
# and a second Reconcile() together, before reading any answer (tests/dbus/bus-order.c):
#   - the Ping, the Get and the Describe are answered before the Plan() and the first
#     Reconcile() end: both observe in slices with the bus served between them (a whole pass
#     over 1,024 links reads some 50,000 sysfs files: no machine does that in one slice);
#   - the second Reconcile() is answered after the first: it waits for a full pass that began
#     after the call;
#   - both succeed, the links stay converged, and SIGTERM in the middle of a reconcile stops
#     rdmad at once, with status 0 (LeakSanitizer, in a sanitizer build, finds the unfinished
#     reconcile freed).
#   - a Describe() sent after a change was announced describes it.
# Judged by order of answers and by states, never by time; the order over up to three rounds,
# since a loaded machine can delay one relayed call by as long as a Plan() takes. Prints TAP.
#
#   tests/never-deaf-test.sh RDMAD BUS-ORDER POLICY
set -euo pipefail

rdmad=$(realpath "$1")
order=$(realpath "$2")
policy=$(realpath "$3")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_workdir
fixture_bus "$policy"

links=1024
"$src/../bench/gen-tree.sh" "$work/root" "$links" 16 > /dev/null
mkdir -p "$work/conf" "$work/state"
printf 'gids: {require: [roce-v2-ipv4]}\n' > "$work/conf/50-gids.yaml"

bc() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
state() { bc get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager State 2> /dev/null; }
# wait_for TENTHS COMMAND...: until it succeeds
wait_for() {
        local n=$1
        shift
        for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
        return 1
}
running() { [[ $(state) == 's "running"' ]]; }
# line NAME: where NAME's answer came among the answers
line() { grep -n "^$1 " "$work/order" | cut -d: -f1; }

"$rdmad" --root "$work/root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        > "$work/rdmad.log" 2>&1 &
pid=$!

tap_begin
tap_plan 12

check "rdmad converges $links links" "wait_for 3000 running" ||
        tail -5 "$work/rdmad.log" | sed 's/^/# /'
check "every link is listed" \
        "[[ \$(bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager ListLinks | awk '{print \$2}') == $links ]]"

# The order of answers says rdmad served the bus between its slices; but a Ping can also come
# late because dbus-daemon, which relays it, got no CPU for as long as a Plan() takes (a loaded
# 2-CPU machine, a sanitizer build beside). A deaf rdmad answers in the wrong order every time,
# a busy machine now and then: so up to three rounds, and the checks on the first that has the
# answers in order, or else on the last.
in_order() {
        (($(line Ping) < $(line Plan) && $(line Ping) < $(line Reconcile) &&
                $(line Get) < $(line Reconcile) && $(line Describe) < $(line Reconcile) &&
                $(line Reconcile2) > $(line Reconcile)))
}
for round in 1 2 3; do
        "$order" /org/rdmad1/link/rxe0_2f1 > "$work/order" 2> "$work/order.err"
        sed 's/^/# /' "$work/order" "$work/order.err"
        [[ $(grep -c ' ok$' "$work/order") == 6 ]] && in_order 2> /dev/null && break
        echo "# round $round: not in order, or not all answered"
done
check "every call is answered, without error" \
        "[[ \$(grep -c ' ok$' '$work/order') == 6 ]]"
check "Ping answered before Plan() ended" "(( \$(line Ping) < \$(line Plan) ))"
check "Ping answered before the first Reconcile() ended" "(( \$(line Ping) < \$(line Reconcile) ))"
check "Get(State) answered before the first Reconcile() ended" \
        "(( \$(line Get) < \$(line Reconcile) ))"
check "Describe() answered before the first Reconcile() ended" \
        "(( \$(line Describe) < \$(line Reconcile) ))"
check "the second Reconcile() answered after the first" \
        "(( \$(line Reconcile2) > \$(line Reconcile) ))"
check "still running, converged" running

# A Describe() sent after a change was announced describes it, even while an earlier Describe()
# is being answered: a caller that comes once a document is written waits for the next one.
# (rdmactl wait-online got the first reconcile's "starting" again after its end, and waited for
# ever.) Describe() #1 of 1,024 links, answered in slices; meanwhile a profile broken and a
# reload; once ConfigErrors says so, Describe() #2 must have the error.
bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Describe > "$work/describe1" &
describe1=$!
printf 'netdev: {mtuu: 1}\n' > "$work/conf/40-typo.yaml"
kill -HUP "$pid"
reported() { bc get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager ConfigErrors 2> /dev/null |
	grep -q 40-typo; }
check "a broken profile reloaded: ConfigErrors says so" "wait_for 600 reported"
bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Describe > "$work/describe2"
wait "$describe1"
check "... and a Describe() after that has the error" "grep -q '40-typo.yaml' '$work/describe2'"
rm -f "$work/conf/40-typo.yaml"
kill -HUP "$pid"

# SIGTERM while a reconcile is at work: Reconcile() sent, its run begun (a Ping answered
# behind it), then the signal.
bc call --expect-reply=no org.rdmad1 /org/rdmad1 org.rdmad1.Manager Reconcile
bc call org.rdmad1 /org/rdmad1 org.freedesktop.DBus.Peer Ping
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "SIGTERM during a reconcile: rdmad exits 0" "[[ $rc == 0 ]]" ||
        tail -5 "$work/rdmad.log" | sed 's/^/# /'
tap_end
