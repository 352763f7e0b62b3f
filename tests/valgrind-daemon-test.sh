#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The long-running daemon under valgrind's memcheck: rdmad on a copy of the rxe fixture (its
# netdev a veth in a private network namespace), on a private bus with the shipped policy,
# through what a day brings: drift put back, address churn, good and broken reloads (SIGHUP
# and D-Bus), every read method, malformed and unknown-name calls, then SIGTERM. Passes only
# when memcheck saw no error and no definitely or indirectly lost block. Prints TAP.
#
#   tests/valgrind-daemon-test.sh RDMAD RDMACTL POLICY
set -euo pipefail

rdmad=$(realpath "$1")
rdmactl=$(realpath "$2")
policy=$(realpath "$3")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_workdir

# wait_for SECONDS CMD: memcheck runs rdmad 20-50 times slower; bounded all the same
wait_for() {
        local end=$((SECONDS + $1))
        shift
        until eval "$*"; do
                ((SECONDS < end)) || return 1
                sleep 0.2
        done
}

command -v valgrind > /dev/null || { echo "1..1"; not_ok "valgrind is not installed"; exit 1; }

cp -a "$src/fixtures/rxe" "$work/root"
mkdir -p "$work/conf" "$work/state"
root=$work/root
tos=$root/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
ip link set lo up
ip link add veth0 type veth peer name peer0
ip link set veth0 up

fixture_bus "$policy"

cat > "$work/conf/50-rxe.yaml" << 'YAML'
match: {device: rxe0}
netdev: {mtu: 4000, addresses: [192.0.2.1/24]}
roce: {tos: 106}
YAML

bc() { busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
call() { bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager "$@"; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
converged() { [[ $(bc get-property org.rdmad1 /org/rdmad1/link/rxe0_2f1 org.rdmad1.Link State 2> /dev/null) == 's "converged"' ]]; }

tap_begin
tap_plan 14

export RDMAD_RDMACTL=$rdmactl
valgrind --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --track-fds=no --log-file="$work/memcheck.log" \
        "$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" --bus -v \
        > "$work/rdmad.log" 2>&1 &
pid=$!

check "under memcheck: rdmad owns org.rdmad1 and converges rxe0/1" "wait_for 120 converged" ||
        sed 's/^/# /' "$work/rdmad.log"

ip link set veth0 mtu 1500
check "MTU drift put back" "wait_for 60 \"ip link show veth0 | grep -q 'mtu 4000'\""

for i in $(seq 20); do
        ip addr add "198.18.0.$i/32" dev veth0
        ip addr del "198.18.0.$i/32" dev veth0
done
ip addr del 192.0.2.1/24 dev veth0
check "address churn, the declared address deleted: put back" \
        "wait_for 60 \"ip -4 addr show veth0 | grep -q 192.0.2.1/24\""

# Every read, as root and as nobody, and what a hostile caller sends.
reads_ok=1
for who in "" nobody; do
        $who busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 /org/rdmad1 \
                org.rdmad1.Manager ListLinks > /dev/null || reads_ok=0
        for m in Describe Plan; do
                $who busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 \
                        /org/rdmad1 org.rdmad1.Manager "$m" > /dev/null || reads_ok=0
        done
        $who busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 /org/rdmad1 \
                org.rdmad1.Manager ResolveGid sss rxe0/1 ipv4 v2 > /dev/null || reads_ok=0
        $who busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" introspect org.rdmad1 \
                /org/rdmad1/link/rxe0_2f1 > /dev/null || reads_ok=0
        $who busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 \
                /org/rdmad1/link/rxe0_2f1 org.rdmad1.Link GetCounters > /dev/null || reads_ok=0
done
check "ListLinks, Describe, Plan, ResolveGid, the Link object and GetCounters as root and nobody" \
        "[[ $reads_ok -eq 1 ]]"

bad=0
long=$(head -c 100000 /dev/zero | tr '\0' x)
for args in "GetLink s nosuch0/1" "GetLink s ../../etc" "GetLink s $long" \
        "ResolveGid sss rxe0/1 ipv5 v2" "ResolveGid sss $long ipv4 v2" "ResolveGid sss rxe0/9 ipv4 v1"; do
        # shellcheck disable=SC2086 # the words are the call
        if call $args > /dev/null 2>&1; then bad=1; fi
done
if call GetLink i 7 > /dev/null 2>&1; then bad=1; fi
if nobody busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 /org/rdmad1 \
        org.rdmad1.Manager Reload > /dev/null 2>&1; then bad=1; fi
check "unknown, path-like, huge and mistyped arguments and an unprivileged Reload: errors" \
        "[[ $bad -eq 0 ]]"
check "... and rdmad is still there" "kill -0 $pid && converged"

printf 'roce:\n  tos: 999\n' > "$work/conf/60-broken.yaml"
check "a broken D-Bus Reload fails" "! call Reload > /dev/null 2>&1"
kill -HUP "$pid"
check "a broken SIGHUP reload keeps the previous configuration" \
        "wait_for 60 \"grep -q 'keeping the previous configuration' $work/rdmad.log\""
rm "$work/conf/60-broken.yaml"
sed -i 's/tos: 106/tos: 96/' "$work/conf/50-rxe.yaml"
check "a good D-Bus Reload applies" "call Reload > /dev/null && wait_for 60 \"[[ \\\$(cat $tos) == 96 ]]\""
sed -i 's/tos: 96/tos: 106/' "$work/conf/50-rxe.yaml"
kill -HUP "$pid"
check "a good SIGHUP reload applies" "wait_for 60 \"[[ \\\$(cat $tos) == 106 ]]\""
check "Reconcile as root" "call Reconcile > /dev/null && wait_for 60 converged"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
check "SIGTERM: rdmad exits 0 under memcheck (99 would be a memcheck error)" "[[ $rc -eq 0 ]]" ||
        echo "# exit status $rc"
# Positive evidence, not the absence of complaints: memcheck ran this rdmad to its exit and
# summed up (an empty or missing log must fail).
check "memcheck ran rdmad to the end: ERROR SUMMARY: 0 errors" \
        "grep -q 'Command: $rdmad ' $work/memcheck.log && grep -q 'ERROR SUMMARY: 0 errors from 0 contexts' $work/memcheck.log"
check "memcheck: nothing definitely or indirectly lost" \
        "grep -q 'All heap blocks were freed -- no leaks are possible' $work/memcheck.log || { grep -q 'definitely lost: 0 bytes in 0 blocks' $work/memcheck.log && grep -q 'indirectly lost: 0 bytes in 0 blocks' $work/memcheck.log; }"
if [[ $failed -ne 0 ]]; then
        sed 's/^/# memcheck: /' "$work/memcheck.log" | head -n 200
        sed 's/^/# rdmad: /' "$work/rdmad.log" | tail -n 60
fi
tap_end
