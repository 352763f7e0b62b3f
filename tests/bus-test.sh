#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier for org.rdmad1: a private dbus-daemon configured like the system bus with the
# shipped policy (units/org.rdmad1.conf), rdmad on a copy of the mlx5 fixture, and every
# method, property and error of the API, PropertiesChanged, and authorization as root, as
# nobody and as nobody holding CAP_NET_ADMIN; and that the reference, org.rdmad1(5), documents
# every member the daemon introspects and every error it can return. Prints TAP.
#
#   tests/bus-test.sh RDMAD RDMACTL POLICY MAN-PAGE.scd BUS-CALL-HUGE FAKE-POLKIT
set -euo pipefail

rdmad=$(realpath "$1")
rdmactl=$(realpath "$2")
policy=$(realpath "$3")
page=$(realpath "$4")
huge_call=$(realpath "$5")
fake_polkit=$(realpath "$6")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_pids=(mon_pid pk_pid "${fixture_pids[@]}")
mon_pid= pk_pid=
fixture_workdir

cp -a "$src/fixtures/mlx5-dual-vf" "$work/root"
mkdir -p "$work/conf" "$work/state"
root=$work/root
port1=$root/sys/class/infiniband/mlx5_0/ports/1

fixture_bus "$policy"

cat > "$work/conf/50-mlx5.yaml" << 'YAML'
match: {device: mlx5_0}
roce: {mode: v2, tos: 106}
YAML

tap_begin

bc() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
# Waiting for a condition: `wait_for; until COND; do waited || break; done`. The bound is for a
# daemon that hangs, not a measure of this machine: an ASan build beside a VM once took more
# than 10 s for what takes 0.2 s alone.
wait_for() { wait_deadline=$((SECONDS + 120)); }
waited() { ((SECONDS < wait_deadline)) && sleep 0.1; }
call() { bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager "$@"; }
# "ERROR-NAME: message" of a Manager call that must fail ("" when it succeeds), as dbus-send
# prints it: METHOD TYPE:VALUE...
call_error() {
        dbus-send --system --print-reply --dest=org.rdmad1 /org/rdmad1 \
                "org.rdmad1.Manager.$1" "${@:2}" 2>&1 > /dev/null | sed -n 's/^Error //p' || true
}
link=/org/rdmad1/link/mlx5_5f0_2f1
lprop() { bc get-property org.rdmad1 "$link" org.rdmad1.Link "$1"; }
mprop() { bc get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager "$1"; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
export -f call_error 2> /dev/null || true
nobody_netadmin() {
        setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+net_admin \
                --ambient-caps=+net_admin "$@"
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# Preflight() and SelfTest() run rdmactl: this build's.
export RDMAD_RDMACTL=$rdmactl
# The unprivileged counter reads' window an hour long: the rate limit check below counts what
# the daemon answered, not how fast this machine sends (a test-only knob, under --root only).
RDMAD_TEST_RATELIMIT_INTERVAL_USEC=3600000000 \
        "$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        2> "$work/rdmad.log" &
pid=$!
wait_for
until [[ $(bc call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        NameHasOwner s org.rdmad1 2> /dev/null) == "b true" ]]; do
        waited || break
done
check "rdmad owns org.rdmad1 under the shipped policy" \
        "bc status org.rdmad1 > /dev/null 2>&1" || sed 's/^/# /' "$work/rdmad.log"
# The bus itself must refuse: its AccessDenied, not just any failure (a timeout, no tool).
is "a non-root process may not own org.rdmad1 (the policy's AccessDenied)" \
        "$(nobody timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DBus \
                /org/freedesktop/DBus org.freedesktop.DBus.RequestName string:org.rdmad1 \
                uint32:0 2>&1 | sed -n 's/^Error \([^:]*\):.*/\1/p')" \
        org.freedesktop.DBus.Error.AccessDenied

# Manager properties
is "Version is rdmad --version" "$(mprop Version)" "s \"$("$rdmad" --version | cut -d' ' -f2)\""
wait_for; until [[ $(mprop State) != 's "starting"' ]]; do waited || break; done
is "State is running" "$(mprop State)" 's "running"'
is "ConfigFiles" "$(mprop ConfigFiles)" "as 1 \"$work/conf/50-mlx5.yaml\""
is "ConfigErrors empty" "$(mprop ConfigErrors)" "as 0"
check "LastReconcileUSec is set" "[[ \$(mprop LastReconcileUSec | cut -d' ' -f2) -gt 0 ]]"
dispatches=$(mprop LoopDispatches)
check "LoopDispatches: 13 buckets, the last unbounded, dispatches counted" \
        "[[ '$dispatches' == 'a(tt) 13 100 '*' 18446744073709551615 '* ]] &&
         (( \$(echo '$dispatches' | awk '{ for (i = 4; i <= NF; i += 2) n += \$i; print n }') > 0 ))" ||
        echo "# $dispatches"

# Manager methods
links=$(call ListLinks)
check "ListLinks lists the 4 ports with object paths and states" \
        "[[ '$links' == 'a(sos) 4 \"mlx5_0/1\" \"$link\" \"converged\" \"mlx5_1/1\" '* ]]" ||
        echo "# $links"
is "GetLink by DEV/PORT" "$(call GetLink s mlx5_0/1)" "o \"$link\""
is "GetLink by netdev" "$(call GetLink s ens1f0np0)" "o \"$link\""
is "GetLink by a one-port DEV" "$(call GetLink s mlx5_0)" "o \"$link\""
is "GetLink of an unknown link: NoSuchLink" "$(call_error GetLink string:nope0)" \
        "org.rdmad1.Error.NoSuchLink: No RDMA link 'nope0'"
is "GetLink of a malformed name: InvalidArgs" "$(call_error GetLink string:a/b/c)" \
        "org.freedesktop.DBus.Error.InvalidArgs: 'a/b/c' is not DEV/PORT, DEV or a netdev name"
bad=0
for name in "" host mlx5_0/0 mlx5_0/256 /1 "$(printf 'x%.0s' $(seq 300))" "mlx5_0/1 "; do
        case $(call_error GetLink "string:$name") in
        org.freedesktop.DBus.Error.InvalidArgs:* | org.rdmad1.Error.NoSuchLink:*) ;;
        *) bad=1; echo "# GetLink '$name': $(call_error GetLink "string:$name")" ;;
        esac
done
check "GetLink of empty, 'host', port 0 or 256, '/1', 300 characters: a clear error each" \
        "[[ $bad -eq 0 ]]"
check "GetLink with a wrong signature: InvalidArgs" \
        "[[ \$(call_error GetLink uint32:1) == org.freedesktop.DBus.Error.InvalidArgs:* ]]"
is "... and rdmad still answers" "$(call GetLink s mlx5_0/1)" "o \"$link\""
is "ResolveGid: RoCE v2 IPv4 first" "$(call ResolveGid sss mlx5_0/1 '' '')" \
        'us 3 "0000:0000:0000:0000:0000:ffff:c000:020a"'
is "ResolveGid --family ipv6" "$(call ResolveGid sss ens1f0np0 ipv6 v2)" \
        'us 7 "2001:0db8:0000:0000:0000:0000:0000:0010"'
is "ResolveGid --roce v1" "$(call ResolveGid sss mlx5_0/1 '' v1 | cut -d' ' -f2)" 2
is "ResolveGid of an unknown family: InvalidArgs" \
        "$(call_error ResolveGid string:mlx5_0/1 string:ipv5 string:)" \
        "org.freedesktop.DBus.Error.InvalidArgs: Unknown GID family 'ipv5' (ipv4, ipv6, link-local, or empty for IPv4 else IPv6)"
is "ResolveGid of an unknown RoCE version: InvalidArgs" \
        "$(call_error ResolveGid string:mlx5_0/1 string: string:v3 | cut -d: -f1)" \
        org.freedesktop.DBus.Error.InvalidArgs
check "ResolveGid without such a GID: NoGid" \
        "[[ \$(call_error ResolveGid string:mlx5_1/1 string:ipv4 string:) == 'org.rdmad1.Error.NoGid: mlx5_1/1 has no RoCE v2 ipv4 GID'* ]]"
plan_online=$(call Plan | sed 's/^s //' | json 'json.dumps(json.loads(d), sort_keys=True)' 2>&1 || true)
plan_offline=$("$rdmactl" plan --json --root "$root" --config-dir "$work/conf" |
        json 'json.dumps(d, sort_keys=True)')
is "Plan() is rdmactl plan --json, converged" "$plan_online" "$plan_offline"
# An unprivileged Plan() observes the host at most once per 5 s for all such callers: a
# change within that time shows in root's Plan() (observed at each call), not in nobody's.
nplan() { nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Plan; }
tosf=$root/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos
nobody_plans() { echo 106 > "$tosf"; p1=$(nplan); echo 0 > "$tosf"; p2=$(nplan); }
within_window 5 nobody_plans
is "nobody's Plan() within 5 s of the last is that one: rdmad did not observe again" "$p2" "$p1"
check "root's Plan() observes now: the ToS rdmad would write back" \
        "[[ \$(call Plan) == *roce.tos* && '$p1' != *roce.tos* ]]"
echo 106 > "$tosf"
check "Describe() is JSON with the 4 links" \
        "[[ \$(call Describe | sed 's/^s //' | json 'len(json.loads(d)[\"links\"])') == 4 ]]"

# Link properties
is "Link.Device/Port/Netdev/Driver" \
        "$(lprop Device) $(lprop Port) $(lprop Netdev) $(lprop Driver)" \
        's "mlx5_0" u 1 s "ens1f0np0" s "mlx5_core"'
is "Link.Name" "$(lprop Name)" 's "mlx5_0/1"'
is "Link.State" "$(lprop State)" 's "converged"'
is "Link.Profiles" "$(lprop Profiles)" 'as 1 "50-mlx5.yaml"'
is "Link.RoceMode/RoceTos" "$(lprop RoceMode) $(lprop RoceTos)" 's "v2" i 106'
check "Link.Gids: 6 entries, index 3 is RoCE v2 for 192.0.2.10" \
        "[[ \$(lprop Gids) == *'3 \"0000:0000:0000:0000:0000:ffff:c000:020a\" \"RoCE v2\" \"ens1f0np0\" \"192.0.2.10\"'* && \$(lprop Gids) == 'a(ussss) 6 '* ]]"
is "Link.PreferredGidIndex" "$(lprop PreferredGidIndex)" "i 3"
is "Link.Settings" "$(lprop Settings)" \
        'a(sssss) 2 "roce.mode" "v2" "v2" "converged" "" "roce.tos" "106" "106" "converged" ""'
is "Link.LastError" "$(lprop LastError)" 's ""'
# the facts as observed: configfs, the fixture's mlx5 ECN and CNP sysfs, the netdev's MTU (the
# stand-in's, over rtnetlink); no dcbnl on the stand-in, so no trust, priority or PFC
check "Link.RoceFacts: RoCE v2, ToS 106, ECN on every priority both ways, CNP DSCP 48 on 6, no PFC" \
        "[[ \$(lprop RoceFacts) == *'\"roce-mode\" s \"v2\" \"tos\" y 106 \"ecn-np\" ay 8 0 1 2 3 4 5 6 7 \"ecn-rp\" ay 8 0 1 2 3 4 5 6 7 \"cnp-dscp\" y 48 \"cnp-priority\" y 6' && \$(lprop RoceFacts) == 'a{sv} '*'\"netdev-mtu\" u '* && \$(lprop RoceFacts) != *'\"pfc\"'* ]]" ||
        echo "# $(lprop RoceFacts)"

# The reference against the daemon itself: each method, property and signal of an org.rdmad1
# interface that rdmad introspects, on the manager and on a link object, is a term ("*Name*"
# at the start of a line) in the page's section whose heading names the interface; each error
# name in the daemon's source is a term of its ERRORS section.
members() {
        bc --xml-interface introspect org.rdmad1 "$1" | python3 -c '
import sys, xml.etree.ElementTree as ET
for i in ET.fromstring(sys.stdin.read()).findall("interface"):
    if i.get("name").startswith("org.rdmad1."):
        print(i.get("name"), "interface", "-")
        for kind in ("method", "property", "signal"):
            for m in i.findall(kind):
                print(i.get("name"), kind, m.get("name"))'
}
# documented SECTION-WORD TERM: a "# " heading containing the word, then a line starting with
# "*TERM*" (and a space, "(" or nothing after it) before the next heading. TERM "-": the
# heading alone. Literal blocks do not count.
documented() {
        awk -v word="$1" -v term="$2" '
                function escape(s) { gsub(/\./, "\\.", s); return s }
                BEGIN { re = "(^|[^A-Za-z0-9_.])" escape(word) "([^A-Za-z0-9_.]|$)" }
                /^\t*```$/ { literal = !literal; next }
                literal { next }
                /^# / { in_section = $0 ~ re; if (in_section && term == "-") found = 1; next }
                in_section && index($0, "*" term "*") == 1 {
                        c = substr($0, length(term) + 3, 1)
                        if (c == "" || c == " " || c == "(") found = 1
                }
                END { exit !found }' "$page"
}
{ members /org/rdmad1; members "$link"; } | sort -u > "$work/members"
check "introspection lists org.rdmad1.Manager and org.rdmad1.Link members" \
        "grep -q '^org.rdmad1.Manager method ' '$work/members' && grep -q '^org.rdmad1.Link property ' '$work/members'"
while read -r iface kind member; do
        if [[ $kind == interface ]]; then
                check "org.rdmad1(5) has a section for $iface" "documented '$iface' -"
        elif documented "$iface" "$member"; then
                ok "org.rdmad1(5) documents $iface.$member ($kind)"
        else
                not_ok "org.rdmad1(5) documents $iface.$member ($kind)"
                echo "# no line starting '*$member*' in the section of $iface in $page"
        fi
done < "$work/members"
grep -ohE '"org\.rdmad1\.Error\.[A-Za-z]+"' "$src"/../daemon/*.[ch] | tr -d '"' | sort -u \
        > "$work/errors"
check "the daemon's source names org.rdmad1 errors" "[[ -s '$work/errors' ]]"
while read -r error; do
        check "org.rdmad1(5) documents the error $error" "documented ERRORS '$error'"
done < "$work/errors"

# rdmactl online
is "rdmactl gid asks rdmad (no --root: the real host has no mlx5_0)" \
        "$("$rdmactl" gid mlx5_0/1)" 3
check "rdmactl status lists the links" \
        "\"$rdmactl\" status | grep -E '^mlx5_0/1 +ens1f0np0 +mlx5_core +3 +50-mlx5.yaml +converged$' > /dev/null"
check "rdmactl status --json is Describe()" \
        "[[ \$(\"$rdmactl\" status --json | json 'd[\"state\"]') == running ]]"

# Authorization: reads for everyone, changes for root or whom polkit authorizes; no polkitd
# on this bus yet: polkit cannot be asked, and the answer is no.
check "nobody may read: status" "nobody \"$rdmactl\" status > /dev/null"
check "nobody may read: ResolveGid" "[[ \$(nobody \"$rdmactl\" gid ens1f0np0) == 3 ]]"
is "nobody may not Reload without polkitd: AccessDenied naming the action" \
        "$(nobody "$rdmactl" reload 2>&1)" \
        "rdmactl reload: Not authorized for org.rdmad1.reload: needs root, and polkit could not be asked"
is "nobody may not Reconcile: AccessDenied" "$(nobody bash -c "call_error Reconcile" | cut -d: -f1)" \
        org.freedesktop.DBus.Error.AccessDenied
# dbus-daemon vouches for the caller's UID only; capabilities would come from /proc/PID, which
# the caller can change (exec a setuid or file-capability binary) after sending: not trusted.
is "nobody with CAP_NET_ADMIN is refused too (dbus-daemon does not vouch for capabilities)" \
        "$(nobody_netadmin bash -c "call_error Reconcile" | cut -d: -f1)" \
        org.freedesktop.DBus.Error.AccessDenied
check "root may Reconcile" "\"$rdmactl\" reconcile"

# polkit delegation, against a stand-in polkitd (tests/dbus/fake-polkit.c) that owns
# org.freedesktop.PolicyKit1 as the user polkitd under polkitd's own bus policy.
# The files are emptied here, not by the redirection: that runs in the child, and a check
# for "ready" made before it would read the previous stand-in's.
start_polkit() {
        : > "$work/polkit.log"
        : > "$work/polkit.err"
        setpriv --reuid=polkitd --regid=polkitd --clear-groups "$fake_polkit" "$1" \
                >> "$work/polkit.log" 2>> "$work/polkit.err" &
        pk_pid=$!
        wait_for; until grep -q ready "$work/polkit.err" || ! kill -0 "$pk_pid"; do
                waited || break
        done
}
polkit_owned() {
        [[ $(bc call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                NameHasOwner s org.freedesktop.PolicyKit1 2> /dev/null) == "b true" ]]
}
# The bus drops a dead connection's name when it reads the hang-up, which may come after the
# next stand-in asks for the name (and is refused: it exists): wait for the name to go.
stop_polkit() {
        kill "$pk_pid"
        wait "$pk_pid" 2> /dev/null || true
        pk_pid=
        wait_for; while polkit_owned; do waited || break; done
}
# What the checks of polkit's answers print when they fail: what polkit was asked, what it
# said of itself, and what rdmad logged of polkit.
polkit_diag() {
        sed 's/^/# polkit.log: /' "$work/polkit.log"
        sed 's/^/# polkit.err: /' "$work/polkit.err"
        grep -i polkit "$work/rdmad.log" | tail -8 | sed 's/^/# rdmad: /'
}
reconciles() { mprop LastReconcileUSec; }
nobody_uid=$(id -u nobody)
start_polkit "allow:$nobody_uid"
check "a polkitd stand-in owns org.freedesktop.PolicyKit1 on this bus" \
        "grep -q ready '$work/polkit.err'" || sed 's/^/# /' "$work/polkit.err"
before=$(reconciles)
check "nobody, whom polkit authorizes, may Reconcile" "nobody \"$rdmactl\" reconcile"
check "... and it ran: LastReconcileUSec moved" "[[ \$(reconciles) != '$before' ]]"
check "nobody, authorized, may Reload" "nobody \"$rdmactl\" reload"
is "rdmad asked polkit for the subject's bus name: action, flags 0 (not interactive), nobody's UID" \
        "$(cat "$work/polkit.log")" \
        "org.rdmad1.reconcile 0 $nobody_uid
org.rdmad1.reload 0 $nobody_uid"
nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --allow-interactive-authorization=yes \
        call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Reconcile > /dev/null
is "a call that allows interactive authorization: polkit's AllowUserInteraction flag (1)" \
        "$(tail -1 "$work/polkit.log")" "org.rdmad1.reconcile 1 $nobody_uid"
is "SelfTest() is polkit's org.rdmad1.selftest: authorized, nobody gets to its argument checks" \
        "$(nobody bash -c "call_error SelfTest string:mlx5_0/1 'string:x;reboot' uint32:0 uint32:0 uint32:0" | cut -d: -f1) $(tail -1 "$work/polkit.log" | cut -d' ' -f1)" \
        "org.freedesktop.DBus.Error.InvalidArgs org.rdmad1.selftest"
"$rdmactl" reconcile
is "root is not sent to polkit" "$(wc -l < "$work/polkit.log")" 4
daemon_uid=$(id -u daemon)
is "another user polkit does not authorize: AccessDenied naming the action" \
        "$(setpriv --reuid=daemon --regid=daemon --clear-groups "$rdmactl" reconcile 2>&1)" \
        "rdmactl reconcile: Not authorized for org.rdmad1.reconcile: needs root or polkit's authorization"
is "... polkit was asked for that user" "$(tail -1 "$work/polkit.log")" "org.rdmad1.reconcile 0 $daemon_uid"
stop_polkit
start_polkit challenge
is "polkit wants authentication: AccessDenied says so" \
        "$(nobody "$rdmactl" reload 2>&1)" \
        "rdmactl reload: Not authorized for org.rdmad1.reload: needs root or polkit's authorization, which needs authentication (allow interactive authorization, in a session with a polkit agent)"
stop_polkit
# A polkitd that never answers: each check waits (rdmad does not), at most 4 per user.
start_polkit hang
pend=()
for i in 1 2 3 4; do
        nobody dbus-send --system --print-reply --reply-timeout=60000 --dest=org.rdmad1 \
                /org/rdmad1 org.rdmad1.Manager.Reconcile > "$work/pending.$i" 2>&1 &
        pend+=($!)
done
# Each check reaches polkit unless rdmad answered its call already (pending.N is then not
# empty): either way, waiting longer changes nothing.
wait_for
until [[ $(wc -l < "$work/polkit.log") -ge 4 ]] || [[ -n $(cat "$work"/pending.*) ]]; do
        waited || break
done
is "four unanswered checks of nobody's: a fifth Reconcile is Busy at once" \
        "$(nobody bash -c "call_error Reconcile" | cut -d: -f1)" org.rdmad1.Error.Busy ||
        { polkit_diag; head -n 3 "$work"/pending.* | sed 's/^/# /'; }
check "... while rdmad answers everyone else (the event loop does not wait for polkit)" \
        "nobody \"$rdmactl\" status > /dev/null && \"$rdmactl\" reconcile"
stop_polkit
wait "${pend[@]}" || true
check "polkitd gone without answering: the four waiting calls get AccessDenied" \
        "[[ \$(cat $work/pending.* | grep -c 'org.freedesktop.DBus.Error.AccessDenied') == 4 ]]" ||
        sed 's/^/# /' "$work"/pending.*

# rdmad does the verbs work of Preflight() and SelfTest() through rdmactl: it links neither
# libibverbs nor librdmacm itself (rdmactl links both). libnftables (the table inet rdmad of
# security.roce-allow-from, preflight's ruleset) and libkmod (modules:) neither links: both
# load them with dlopen() when a profile needs them (daemon-dlopen checks what rdmad maps).
is "rdmad links no libibverbs, librdmacm, libnftables or libkmod" \
        "$(ldd "$rdmad" | grep -oE 'lib(ibverbs|rdmacm|nftables|kmod)\.so' | sort -u | tr '\n' ' ')" \
        ""
is "... rdmactl links libibverbs and librdmacm only" \
        "$(ldd "$rdmactl" | grep -oE 'lib(ibverbs|rdmacm|nftables|kmod)\.so' | sort -u | tr '\n' ' ')" \
        "libibverbs.so librdmacm.so "

# Preflight(): rdmactl preflight --json, run by rdmad for the host it manages (--root here),
# open to every local user.
jcall() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --json=short call org.rdmad1 /org/rdmad1 \
        org.rdmad1.Manager "$@" | json 'd["data"][0]'; }
export -f jcall json
pf=$(nobody bash -c "jcall Preflight" || true)
rows() { json 'json.dumps(sorted((r["check"], r["subject"], r["status"]) for r in d))'; }
# (exit 1: the fixture has a check that fails; the rows are what is compared)
offline=$({ "$rdmactl" preflight --json --root "$root" --config-dir "$work/conf" || true; } | rows)
online=$(rows <<< "$pf" || true)
is "nobody may call Preflight(): rdmactl preflight --json of the managed host" "$online" "$offline"
is "... with rows of the mlx5 fixture's PCI functions" \
        "$(json 'any(r["subject"] == "0000:3b:00.0" and r["check"] == "hardware.rdma-device" and r["status"] == "ok" for r in d)' <<< "$pf")" \
        True
# One run at a time, shared by the callers of one user that come meanwhile; an answer is given
# again for 5 s to the same user, never to another (device node access is judged per caller).
nruns() { grep -c 'running rdmactl preflight' "$work/rdmad.log"; }
preflights() {
        local pids=() i
        runs=$(nruns)
        for i in 1 2 3; do jcall Preflight > "$work/preflight.$i" & pids+=($!); done
        wait "${pids[@]}"
        window_t0=$(uptime_cs) # the run ended before its answers came
        runs_three=$(nruns)
        jcall Preflight > /dev/null
        runs_after=$(nruns)
}
within_window 5 preflights
check "three Preflight() calls at once: three answers, the same" \
        "[[ -s $work/preflight.1 ]] && cmp -s $work/preflight.1 $work/preflight.2 && \
         cmp -s $work/preflight.1 $work/preflight.3"
is "... from one rdmactl run" "$runs_three" "$((runs + 1))"
is "a Preflight() right after reuses that answer: no new run" "$runs_after" "$((runs + 1))"
nobody bash -c "jcall Preflight" > /dev/null
is "... but not for another user: nobody's Preflight() runs rdmactl for nobody" \
        "$(nruns) $(grep -c "running rdmactl preflight for UID $(id -u nobody)" "$work/rdmad.log")" \
        "$((runs + 2)) 2"

# SelfTest(): root only; the peer is checked before anything runs.
is "nobody may not SelfTest: AccessDenied" \
        "$(nobody bash -c "call_error SelfTest string:mlx5_0/1 string: uint32:0 uint32:0 uint32:0" | cut -d: -f1)" \
        org.freedesktop.DBus.Error.AccessDenied
is "SelfTest of an unknown link: NoSuchLink" \
        "$(call_error SelfTest string:nope0 string: uint32:0 uint32:0 uint32:0 | cut -d: -f1)" \
        org.rdmad1.Error.NoSuchLink
is "SelfTest with a peer that is no link or HOST:PORT: InvalidArgs" \
        "$(call_error SelfTest string:mlx5_0/1 'string:x;reboot' uint32:0 uint32:0 uint32:0)" \
        "org.freedesktop.DBus.Error.InvalidArgs: Peer 'x;reboot' is not a link or HOST[:PORT]"
is "SelfTest with an option out of range: InvalidArgs" \
        "$(call_error SelfTest string:mlx5_0/1 string: uint32:0 uint32:0 uint32:100000 | cut -d: -f1)" \
        org.freedesktop.DBus.Error.InvalidArgs
# The fixture's mlx5_0 is no device of this machine: rdmactl selftest runs and reports the
# failed step, which SelfTest() passes on as its result (not as a D-Bus error).
st=$(jcall SelfTest ssuuu mlx5_0/1 "" 4096 10 5 2>&1 || true)
check "root's SelfTest() returns rdmactl selftest's JSON: fail, with the step" \
        "[[ \$(echo '$st' | json 'd[\"result\"] + \" \" + str(bool(d[\"step\"]))') == 'fail True' ]]" ||
        echo "# SelfTest(): ${st:0:300}"

# PropertiesChanged: a client sees a fixture value change once rdmad reconciles
setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$rdmactl" monitor --json > "$work/monitor.json" 2> "$work/monitor.err" &
mon_pid=$!
# "Following" (on stderr, --json too): its matches are in place, the reconciles below are seen
wait_for; until grep -q Following "$work/monitor.err"; do waited || break; done
check "rdmactl monitor --json says on stderr when it follows rdmad" \
        "grep -q Following '$work/monitor.err'" || sed 's/^/# /' "$work/monitor.err"
"$rdmactl" reconcile
"$rdmactl" reconcile
wait_for; until [[ $(grep -c LastReconcileUSec "$work/monitor.json") -ge 2 ]]; do waited || break; done
is "two reconciles that change nothing: LastReconcileUSec twice, State and links not at all" \
        "$(grep -c LastReconcileUSec "$work/monitor.json") $(grep -c '"State"' "$work/monitor.json") $(grep -c '"mlx5_' "$work/monitor.json")" \
        "2 0 0"
zero=0000:0000:0000:0000:0000:0000:0000:0000
echo "$zero" > "$port1/gids/2"
echo "$zero" > "$port1/gids/3"
# Unprivileged reads come from the last reconcile: nobody's ResolveGid does not read the
# table, nor does it (or Plan(), Describe()) make rdmad reconcile.
before=$(reconciles)
is "nobody's ResolveGid answers from the last reconcile: still index 3" \
        "$(nobody "$rdmactl" gid mlx5_0/1)" 3
nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Plan > /dev/null
nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Describe > /dev/null
sleep 1.5
is "... and nobody's ResolveGid, Plan(), Describe() made rdmad reconcile nothing (LastReconcileUSec)" \
        "$(reconciles)" "$before"
# No event tells rdmad (no udev under --root): ResolveGid reads the table itself, and the
# difference it finds makes rdmad look at the device again.
is "ResolveGid reads the GID table now: the IPv6 GID 7, without a reconcile" \
        "$("$rdmactl" gid mlx5_0/1)" 7
wait_for; until grep -q PreferredGidIndex "$work/monitor.json"; do waited || break; done
check "PropertiesChanged (the reconcile ResolveGid asked for): PreferredGidIndex is now 7" \
        "grep '\"mlx5_0/1\"' \"$work/monitor.json\" | grep '\"PreferredGidIndex\":7' > /dev/null" ||
        sed 's/^/# /' "$work/monitor.json"
check "PropertiesChanged carries the new Gids" \
        "grep '\"mlx5_0/1\"' \"$work/monitor.json\" | grep '\"Gids\":\\[\\[0,' > /dev/null"

# A device that comes and goes: InterfacesAdded/Removed on the ObjectManager
ln -s "$(readlink "$root/sys/class/infiniband/mlx5_3")" "$root/sys/class/infiniband/mlx5_9"
"$rdmactl" reconcile
wait_for; until grep -q '"appeared"' "$work/monitor.json"; do waited || break; done
check "a new device: InterfacesAdded for mlx5_9/1, and ListLinks has 5" \
        "grep -q '\"object\":\"mlx5_9/1\",\"event\":\"appeared\"' \"$work/monitor.json\" && [[ \$(call ListLinks | cut -d' ' -f2) == 5 ]]"
rm "$root/sys/class/infiniband/mlx5_9"
"$rdmactl" reconcile
wait_for; until grep -q '"disappeared"' "$work/monitor.json"; do waited || break; done
check "it goes: InterfacesRemoved, and GetLink says NoSuchLink" \
        "grep -q '\"object\":\"mlx5_9/1\",\"event\":\"disappeared\"' \"$work/monitor.json\" && [[ \$(call_error GetLink string:mlx5_9/1) == org.rdmad1.Error.NoSuchLink:* ]]"

# Reload: invalid profiles change nothing and say where; valid ones apply before it returns
printf 'match: {device: mlx5_0}\nroce: {tos: 999}\n' > "$work/conf/60-bad.yaml"
"$rdmactl" reload > "$work/reload.out" 2>&1 && rc=0 || rc=$?
check "rdmactl reload of a broken profile exits non-zero with file:line:col" \
        "[[ $rc -ne 0 ]] && grep -qF \"60-bad.yaml:2:13: error: 'roce.tos' must be in 0..255\" \"$work/reload.out\"" ||
        sed 's/^/# /' "$work/reload.out"
is "... Reload() answers org.rdmad1.Error.InvalidProfiles" "$(call_error Reload | cut -d: -f1)" \
        org.rdmad1.Error.InvalidProfiles
check "ConfigErrors lists it, State is degraded" \
        "[[ \$(mprop ConfigErrors) == 'as 1 '*60-bad.yaml:2:13* && \$(mprop State) == 's \"degraded\"' ]]"
is "the previous profiles stay in force" "$(lprop RoceTos)" "i 106"
wait_for; until grep -q '"State":"degraded"' "$work/monitor.json"; do waited || break; done
check "PropertiesChanged on the manager: State degraded" \
        "grep '\"object\":\"rdmad\"' \"$work/monitor.json\" | grep '\"State\":\"degraded\"' > /dev/null"
rm "$work/conf/60-bad.yaml"
printf 'match: {device: mlx5_0}\nroce: {tos: 32}\n' > "$work/conf/60-tos.yaml"
check "rdmactl reload of good profiles succeeds" "\"$rdmactl\" reload"
is "and they are applied when it returns" "$(cat "$root/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos") $(lprop RoceTos)" "32 i 32"
is "ConfigErrors empty again, State running" "$(mprop ConfigErrors) $(mprop State)" 'as 0 s "running"'

# A link that fails: its settings say why, the manager is degraded
printf 'match: {device: mlx5_1}\nroce: {tos: 32}\n' > "$work/conf/70-mlx5_1.yaml"
"$rdmactl" reload || true
l1=/org/rdmad1/link/mlx5_5f1_2f1
check "a failing setting: Settings result failed with the error, LastError set" \
        "[[ \$(bc get-property org.rdmad1 $l1 org.rdmad1.Link Settings) == *'\"roce.tos\" \"32\" \"\" \"failed\" \"read '*'default_roce_tos: No such file or directory\"' && -n \$(bc get-property org.rdmad1 $l1 org.rdmad1.Link LastError | sed 's/^s \"\"$//') ]]"
plan_online=$(call Plan | sed 's/^s //' | json 'json.dumps(json.loads(d), sort_keys=True)' 2>&1 || true)
plan_offline=$("$rdmactl" plan --json --root "$root" --config-dir "$work/conf" |
        json 'json.dumps(d, sort_keys=True)')
check "Plan() is rdmactl plan --json with changes pending" \
        "[[ '$plan_online' == '$plan_offline' && '$plan_online' == *mlx5_1/1* ]]" ||
        echo "# online $plan_online offline $plan_offline"
check "rdmactl status says why mlx5_1/1 is not converged" \
        "\"$rdmactl\" status | grep -A2 '^mlx5_1/1: failed' | grep 'roce.tos: - -> 32: failed' > /dev/null"

# nccl.conf: while every published link agrees on an index (mlx5_0/1 alone), and none when a
# second link publishes another (a GID written into mlx5_1's fixture table at index 5).
nccl=$root/run/rdmad/nccl.conf
i0=$(lprop PreferredGidIndex | sed 's/^i //')
is "nccl.conf holds mlx5_0/1's index ($i0), the only one published; Manager.NcclGidIndex" \
        "$(grep -v '^#' "$nccl" 2> /dev/null | tr '\n' ' ')$(mprop NcclGidIndex)" \
        "NCCL_IB_GID_INDEX=$i0 NCCL_IB_HCA==mlx5_0:1 i $i0"
g1=$root/sys/class/infiniband/mlx5_1/ports/1
echo 0000:0000:0000:0000:0000:ffff:c000:020b > "$g1/gids/5"
echo "RoCE v2" > "$g1/gid_attrs/types/5"
echo ens1f1np1 > "$g1/gid_attrs/ndevs/5"
"$rdmactl" reconcile || true
check "mlx5_1/1 publishing index 5 besides mlx5_0/1's $i0: nccl.conf removed, NcclGidIndex -1" \
        "[[ ! -e $nccl && \$(mprop NcclGidIndex) == 'i -1' ]]"
check "... the journal (here stderr) says the links disagree, naming each" \
        "grep -q 'The links publish different GID indexes (mlx5_0/1 $i0, mlx5_1/1 5)' $work/rdmad.log"
check "... and rdmactl status says so" \
        "\"$rdmactl\" status | grep 'NCCL: the links publish different GID indexes' > /dev/null"
rm "$g1/gids/5" "$g1/gid_attrs/types/5" "$g1/gid_attrs/ndevs/5"
"$rdmactl" reconcile || true
is "the GID gone again: nccl.conf is back" "$(grep '^NCCL_IB_GID_INDEX' "$nccl" 2> /dev/null)" \
        "NCCL_IB_GID_INDEX=$i0"

# rdmactl metrics: rdmad's view (its Describe()), valid for Prometheus. Counters come from this
# machine's sysfs (none here); the VM tier checks them on rxe.
"$rdmactl" metrics > "$work/metrics.prom" 2> "$work/metrics.err"
check "rdmactl metrics: promtool check metrics passes" \
        "promtool check metrics < $work/metrics.prom > $work/promtool.out 2>&1"
sed 's/^/# promtool: /' "$work/promtool.out"
check "... rdmad_up 1, rdmad_link_state of mlx5_0/1 converged, the published index ($i0)" \
        "grep -qx 'rdmad_up 1' $work/metrics.prom &&
         grep -qx 'rdmad_link_state{device=\"mlx5_0\",port=\"1\",netdev=\"ens1f0np0\",profiles=\"50-mlx5.yaml 60-tos.yaml\",state=\"converged\"} 1' $work/metrics.prom &&
         grep -qx 'rdmad_link_published_gid_index{device=\"mlx5_0\",port=\"1\",netdev=\"ens1f0np0\",profiles=\"50-mlx5.yaml 60-tos.yaml\"} $i0' $work/metrics.prom"
check "... mlx5_1/1 not converged, with the reason as a label" \
        "grep -q 'rdmad_link_converged{device=\"mlx5_1\",port=\"1\",netdev=\"ens1f1np1\",reason=\"[^\"]*default_roce_tos[^\"]*\"} 0' $work/metrics.prom"
check "... how long the last reconcile took" \
        "grep -Eq '^rdmad_last_reconcile_duration_seconds [0-9.e-]+\$' $work/metrics.prom"
check "... declared and current ToS of mlx5_0/1 (32)" \
        "grep -q 'rdmad_link_roce_tos{device=\"mlx5_0\",port=\"1\",netdev=\"ens1f0np0\",source=\"declared\"} 32' $work/metrics.prom &&
         grep -q 'rdmad_link_roce_tos{device=\"mlx5_0\",port=\"1\",netdev=\"ens1f0np0\",source=\"current\"} 32' $work/metrics.prom"
"$rdmactl" metrics --output "$work/rdmad.prom"
check "rdmactl metrics --output FILE: written, 0644, no temporary left" \
        "[[ \$(stat -c %a $work/rdmad.prom) == 644 && ! -e $work/.rdmad.prom.tmp ]] && grep -qx 'rdmad_up 1' $work/rdmad.prom"

# Link.GetCounters(): read at the call, words of the data counters in bytes
mkdir -p "$root/sys/class/infiniband/mlx5_0/ports/1/counters" "$root/sys/class/infiniband/mlx5_0/ports/1/hw_counters"
echo 10 > "$root/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"
echo 3 > "$root/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"
is "Link.GetCounters() of mlx5_0/1, as nobody" \
        "$(nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.rdmad1 "$link" org.rdmad1.Link GetCounters 2>&1)" \
        'a{st} 2 "counters/port_rcv_data" 40 "hw_counters/np_cnp_sent" 3'
# Each call reads sysfs: unprivileged callers together get 64 a window (a second; an hour here),
# then Busy. The one call above was in the same window.
nobody bash -c "seq 200 | xargs -P 8 -I{} busctl --address='$DBUS_SYSTEM_BUS_ADDRESS' call \
        org.rdmad1 '$link' org.rdmad1.Link GetCounters" > "$work/counters.out" 2>&1 || true
busy=$(grep -c 'Too many counter reads' "$work/counters.out" || true)
got=$(grep -c '^a{st} 2 ' "$work/counters.out" || true)
check "200 GetCounters() by nobody in one window: $got answered, $busy refused as Busy (rate limit)" \
        "[[ $got == 63 && $busy == 137 ]]" || head -3 "$work/counters.out"
check "... root's are not limited" \
        "busctl --address='$DBUS_SYSTEM_BUS_ADDRESS' call org.rdmad1 '$link' org.rdmad1.Link GetCounters | grep -q '^a{st} 2 '"
rm -r "$root/sys/class/infiniband/mlx5_0/ports/1/counters" "$root/sys/class/infiniband/mlx5_0/ports/1/hw_counters"

# Never echo unbounded caller input: with an argument just under dbus-daemon's 32 MiB message
# limit, an error reply quoting it would be over the limit, and dbus-daemon would drop rdmad.
huge=$((31 * 1024 * 1024))
out=$("$huge_call" GetLink "$huge" 2>&1)
check "GetLink with a 31 MiB name: a short error, not an echo (got: ${out:0:80})" \
        "[[ '$out' =~ ^(org.rdmad1.Error.NoSuchLink|org.freedesktop.DBus.Error.InvalidArgs)\ [0-9]{1,3}\$ ]]"
out=$("$huge_call" ResolveGid "$huge" 2>&1)
check "ResolveGid with a 31 MiB family: a short InvalidArgs (got: ${out:0:80})" \
        "[[ '$out' =~ ^org.freedesktop.DBus.Error.InvalidArgs\ [0-9]{1,3}\$ ]]"
check "... and rdmad kept its bus connection and its name" \
        "! grep -q 'Lost the connection' '$work/rdmad.log' && bc status org.rdmad1 > /dev/null"

kill "$pid"
wait "$pid" && rc=0 || rc=$?
pid=
is "rdmad stops on SIGTERM with exit 0" "$rc" 0
wait_for; until grep -q '"stopped"' "$work/monitor.json"; do waited || break; done
check "monitor saw rdmad go" "grep -q '\"event\":\"stopped\"' \"$work/monitor.json\""
out=$("$rdmactl" status 2>&1) && rc=0 || rc=$?
check "rdmactl status without rdmad fails and says so" \
        "[[ $rc -ne 0 && '$out' == *'rdmad is not running'* ]]"

# dbus-daemon restarts (systemctl restart dbus): rdmad notices the lost connection, connects
# again and owns org.rdmad1 again, without restarting.
"$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        2> "$work/rdmad.log" &
pid=$!
owned() { [[ $(bc call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        NameHasOwner s org.rdmad1 2> /dev/null) == "b true" ]]; }
wait_for; until owned; do waited || break; done
check "rdmad started again and owns org.rdmad1" owned
kill "$bus_pid"
wait "$bus_pid" 2> /dev/null || true
dbus-daemon --config-file="$work/system.conf" --nofork --nopidfile --nosyslog &
bus_pid=$!
t0=$SECONDS
wait_for; until owned; do waited || break; done
check "after a dbus-daemon restart rdmad owns org.rdmad1 again ($((SECONDS - t0)) s)" owned
check "... the same rdmad process, which said it lost the bus" \
        "kill -0 $pid && grep -q 'Lost the connection to the system bus' '$work/rdmad.log'"
check "... and answers: rdmactl status" "\"$rdmactl\" status > /dev/null"
kill "$pid"
wait "$pid" && rc=0 || rc=$?
pid=
is "rdmad stops on SIGTERM with exit 0, after the reconnect" "$rc" 0

# --root is hermetic: without --bus, a fixture run does not take the bus name.
"$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" \
        2> "$work/rdmad-nobus.log" &
pid=$!
wait_for; until grep -q 'converged' "$work/rdmad-nobus.log"; do waited || break; done
check "rdmad --root without --bus runs and does not own org.rdmad1" "kill -0 $pid && ! owned"
kill "$pid"
wait "$pid" || true
pid=

[[ $failed -eq 0 ]] || sed 's/^/# rdmad: /' "$work/rdmad.log"
tap_end
