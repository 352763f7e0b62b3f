#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier: garbage from the kernel is reported, never trusted. rdmad on a copy of the
# rxe-garbage tree (tests/fixtures/README.md: a port state, GIDs, a GID type, a 100 KB GID file,
# a configfs ToS with a NUL inside, an MTU, none of them what a kernel prints), on a private
# dbus-daemon with the shipped policy, its netdev a veth in a private network namespace. The
# link must be degraded (never converged) with each bad value named by its file in rdmactl
# status, Describe and the Link's ObserveErrors; nothing of it written back; rdmad alive; and
# converged once the values are repaired. Prints TAP.
#
#   tests/garbage-test.sh RDMAD RDMACTL POLICY
set -euo pipefail

rdmad=$(realpath "$1")
rdmactl=$(realpath "$2")
policy=$(realpath "$3")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_workdir

cp -a "$src/fixtures/rxe-garbage" "$work/root"
mkdir -p "$work/conf" "$work/state"
root=$work/root
port=$root/sys/class/infiniband/rxe0/ports/1
tos=$root/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
cp "$src/expected/rxe-garbage/profiles/50-garbage.yaml" "$work/conf/"

# shellcheck source=netns-mirror.sh
. "$src/netns-mirror.sh"
ip link set lo up
netns_mirror "$root" veth0 192.0.2.1/24

fixture_bus "$policy"

tap_begin
bc() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
link=/org/rdmad1/link/rxe0_2f1
lprop() { bc get-property org.rdmad1 "$link" org.rdmad1.Link "$1"; }
# ObserveErrors, one a line, unescaped
observe_errors() {
        bc --json=short get-property org.rdmad1 "$link" org.rdmad1.Link ObserveErrors |
                python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)["data"]))'
}

"$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        2> "$work/rdmad.log" &
pid=$!
for _ in $(seq 100); do
        [[ $(lprop State 2> /dev/null) == 's "degraded"' ]] && break
        sleep 0.1
done

"$rdmactl" status --no-pager > "$work/status" 2>&1 || true
"$rdmactl" status --no-pager rxe0/1 > "$work/status-link" 2>&1 || true
sed 's/^/# /' "$work/status"
check "the link is degraded, not converged" "[[ \$(lprop State) == 's \"degraded\"' ]]"
check "rdmactl status: rxe0/1 degraded" "grep -q '^rxe0/1: degraded' $work/status"
observe_errors > "$work/observe-errors"
has() { # DESCRIPTION TEXT: in status, in status LINK and in ObserveErrors
        if grep -qxF -- "    could not use $2" "$work/status" &&
                grep -qxF -- "  could not use $2" "$work/status-link" &&
                grep -qxF -- "$2" "$work/observe-errors"; then
                ok "status, status LINK and ObserveErrors name $1"
        else
                not_ok "status, status LINK and ObserveErrors name $1"
        fi
}
p=/sys/class/infiniband/rxe0/ports/1
has "the port state" "$p/state: unexpected content 'garbage'"
has "a GID slot holding zzzz" "$p/gids/0: unexpected content 'zzzz'"
has "an unknown GID type" "$p/gid_attrs/types/2: unexpected content 'RoCE v9'"
has "a 100 KB GID file, cut short" \
        "$p/gids/3: unexpected content 'fe80:0000:0000:0000:a810:7cff:fe...' (more than 63 bytes)"
has "a garbage MTU in sysfs" "/sys/class/net/veth0/mtu: unexpected content '15oo'"
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$work/status")
check "no status line quotes more than it should (longest: $longest chars)" "[[ $longest -lt 200 ]]"
check "the journal says why it is degraded" \
        "grep -q 'rxe0/1: degraded: .*could not use $p/state' $work/rdmad.log"
check "Describe has observe_errors" \
        "bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Describe | grep -qF 'observe_errors'"

# Not trusted, never written back: the ToS ('106\0junk' is not 106) is written whole, the
# bad GIDs are not in the table, the GID index comes from the good slot.
check "configfs ToS '106\\0junk' was not taken for 106: 106 written in its place" \
        "[[ \$(cat $tos) == 106 && \$(stat -c %s $tos) -le 4 ]]"
check "no bad GID in the table (only index 1)" \
        "[[ \$(lprop Gids) == 'a(ussss) 1 1 \"0000:0000:0000:0000:0000:ffff:c000:0201\" \"RoCE v2\" \"veth0\" \"192.0.2.1\"' ]]"
check "PreferredGidIndex is the good slot's (1)" "[[ \$(lprop PreferredGidIndex) == 'i 1' ]]"
check "the garbage files are as they were (nothing written to them)" \
        "cmp -s $port/gids/3 $src/fixtures/rxe-garbage/sys/class/infiniband/rxe0/ports/1/gids/3 && [[ \$(cat $port/state) == garbage ]]"
check "rdmad is alive" "kill -0 $pid"

# Repaired: converged, nothing left to report.
printf '4: ACTIVE\n' > "$port/state"
cp "$src/fixtures/rxe/sys/class/infiniband/rxe0/ports/1/gids/0" "$port/gids/0"
printf 'RoCE v2\n' > "$port/gid_attrs/types/2"
printf '0000:0000:0000:0000:0000:0000:0000:0000\n' > "$port/gids/3"
printf '1500\n' > "$root/sys/class/net/veth0/mtu"
bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Reconcile > /dev/null
for _ in $(seq 50); do [[ $(lprop State) == 's "converged"' ]] && break; sleep 0.1; done
check "repaired: converged" "[[ \$(lprop State) == 's \"converged\"' ]]" || lprop ObserveErrors | sed 's/^/# /'
check "repaired: ObserveErrors empty" "[[ \$(lprop ObserveErrors) == 'as 0' ]]"
check "repaired: the GID table has slots 0, 1 and 2" "[[ \$(lprop Gids) == 'a(ussss) 3 0 '* ]]"

# And broken again, by a value with a NUL and control bytes: escaped in the message.
printf '4: ACTIVE\0junk\033[2J\n' > "$port/state"
bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Reconcile > /dev/null
for _ in $(seq 50); do [[ $(lprop State) == 's "degraded"' ]] && break; sleep 0.1; done
observe_errors > "$work/observe-errors"
check "a state with a NUL and an escape inside: degraded, the bytes escaped in the message" \
        "grep -qxF \"$p/state: unexpected content '4: ACTIVE\\\\x00junk\\\\x1b[2J'\" $work/observe-errors" ||
        sed 's/^/# /' "$work/observe-errors"

kill "$pid"
rc=0
wait "$pid" || rc=$?
pid=
check "rdmad stops on SIGTERM with exit 0" "[[ $rc -eq 0 ]]" || tail -n 20 "$work/rdmad.log" | sed 's/^/# /'
tap_end
