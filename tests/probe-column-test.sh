#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rdmactl probe's MISMATCH column (issue 44) from state files as rdmad-probe writes them, under a
# root: the settings that differ, "none" only where something was compared, "unknown" where the
# peer told no settings (a prober of version 1, no answer yet) or nothing both sides know, "-"
# for a state file of a prober before issue 44; --json passes the mismatches through.
#
#   tests/probe-column-test.sh RDMACTL
#
# Prints TAP.
set -uo pipefail

rdmactl=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/run/rdmad-probe"
n=0 failed=0
is() { # is NAME GOT WANT
        n=$((n + 1))
        if [[ $2 == "$3" ]]; then
                echo "ok $n - $1"
        else
                echo "not ok $n - $1"
                echo "# got '$2', want '$3'"
                failed=1
        fi
}
path() { # path PEER [JSON FIELDS]: one probing path of rxe0/1
        echo "{\"link\":\"rxe0/1\",\"peer\":\"$1\",\"kind\":\"remote\",\"state\":\"probing\",
\"clock\":\"software\",\"sent\":5,\"lost\":0,\"min_usec\":1,\"p50_usec\":1,\"p99_usec\":1,
\"max_usec\":1${2:+,$2}}"
}
m() { echo "{\"setting\":\"$1\",\"local\":\"$2\",\"peer\":\"$3\"}"; }
cat > "$root/run/rdmad-probe/state.json" << JSON
{"links": [], "paths": [
$(path v1 '"peer_settings":"unknown"'),
$(path nothing '"peer_settings":"known","compared":[],"mismatches":[]'),
$(path agrees '"peer_settings":"known","compared":["dscp","mtu"],"mismatches":[]'),
$(path differs "\"peer_settings\":\"known\",\"compared\":[\"dscp\",\"pfc\",\"mtu\"],
\"mismatches\":[$(m dscp 'DSCP 26 (ToS 106)' 'DSCP 24 (ToS 96)'),$(m mtu 'RoCE MTU 1024' 'RoCE MTU 4096')]"),
$(path old)
]}
JSON
out=$("$rdmactl" --root "$root" probe 2>&1)
is "rdmactl probe: exit 0" "$?" 0
column() { # column PEER: its MISMATCH cell (columns aligned to the header)
        awk -v p="$1" 'NR == 1 { c = index($0, "MISMATCH") }
                NR > 1 && $2 == p { v = substr($0, c); sub(/ .*/, "", v); print v }' <<< "$out"
}
is "a peer that told no settings: unknown" "$(column v1)" unknown
is "a peer that told nothing this side knows too: unknown, not none" "$(column nothing)" unknown
is "a peer that agrees on what both know: none" "$(column agrees)" none
is "a peer that differs: the settings, in the prober's order" "$(column differs)" "dscp,mtu"
is "a state file of an older prober: -" "$(column old)" "-"
json=$("$rdmactl" --root "$root" probe --json 2> /dev/null)
is "--json: both values of each mismatch" \
        "$(jq -r '.paths[3].mismatches[] | .setting + ": " + .local + " | " + .peer' <<< "$json" | paste -sd ';')" \
        "dscp: DSCP 26 (ToS 106) | DSCP 24 (ToS 96);mtu: RoCE MTU 1024 | RoCE MTU 4096"
[[ $failed == 0 ]] || echo "# $out" | head -n 10
echo "1..$n"
exit "$failed"
