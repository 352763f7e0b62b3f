#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier for trials (issue 45): rdmad on a copy of the mlx5 fixture on a private bus.
# Try() records the value before of every object its layer writes, a hand value that no
# profile managed included, and Rollback(), a timeout, a failed netdev gate and a restart after
# SIGKILL put them back; Confirm() makes the files profiles that survive a restart; a second
# Try(), invalid files, a key that cannot be rolled back, unknown options and a caller that is
# not root are refused and change nothing. Prints TAP.
#
#   tests/trial-test.sh RDMAD RDMACTL POLICY
set -euo pipefail

rdmad=$(realpath "$1")
rdmactl=$(realpath "$2")
policy=$(realpath "$3")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_workdir

cp -a "$src/fixtures/mlx5-dual-vf" "$work/root"
mkdir -p "$work/conf" "$work/state"
root=$work/root
cm=$root/sys/kernel/config/rdma_cm
operstate=$root/sys/class/net/ens1f0np0/operstate

fixture_bus "$policy"

cat > "$work/conf/50-mlx5.yaml" << 'YAML'
match: {device: mlx5_0}
roce: {mode: v2, tos: 106}
YAML
# mlx5_1's ToS set by hand: no profile manages it
mkdir -p "$cm/mlx5_1/ports/1"
echo "RoCE v2" > "$cm/mlx5_1/ports/1/default_roce_mode"
echo 32 > "$cm/mlx5_1/ports/1/default_roce_tos"
cat > "$work/trial.yaml" << 'YAML'
match: {device: [mlx5_0, mlx5_1]}
roce: {tos: 184}
YAML

tap_begin

bc() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
wait_for() { wait_deadline=$((SECONDS + 120)); }
waited() { ((SECONDS < wait_deadline)) && sleep 0.1; }
mprop() { bc get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager "$1"; }
json_prop() { mprop "$1" | python3 -c 'import json,sys; s=json.loads(sys.stdin.read()[2:]); print(s)'; }
last() { mprop LastTrial | python3 -c "import json,sys; s=json.loads(sys.stdin.read()[2:]); d=json.loads(s) if s else {}; print($1)"; }
tos() { cat "$cm/$1/ports/1/default_roce_tos"; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
call_error() {
        dbus-send --system --print-reply --dest=org.rdmad1 /org/rdmad1 \
                "org.rdmad1.Manager.$1" "${@:2}" 2>&1 > /dev/null | sed -n 's/^Error //p' || true
}

start_rdmad() {
        "$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
                --probe-state "$work/probe-state.json" 2>> "$work/rdmad.log" &
        pid=$!
        wait_for
        until [[ $(mprop State 2> /dev/null) == 's "running"' ]]; do waited || break; done
}
# until the trial ended (LastTrial's ended_usec changes)
wait_ended() {
        local before=$1
        wait_for
        until [[ $(last "d.get('ended_usec', 0)") != "$before" ]]; do waited || break; done
}
try() { "$rdmactl" try "$@" > "$work/try.out" 2>&1; }

start_rdmad
is "the profile's ToS on mlx5_0, the hand one on mlx5_1" "$(tos mlx5_0) $(tos mlx5_1)" "106 32"

# Try(): recorded, then applied
check "rdmactl try begins a trial" "try --timeout 600 '$work/trial.yaml'" || sed 's/^/# /' "$work/try.out"
check "it prints what it recorded: the hand value of mlx5_1 too" \
        "grep -q 'mlx5_1/1 roce.tos was 32' '$work/try.out' && grep -q 'mlx5_0/1 roce.tos was 106' '$work/try.out'" ||
        sed 's/^/# /' "$work/try.out"
check "the record is in the state dir, naming both objects" \
        "grep -q '^object mlx5_1/1 ens1f1np1 roce.tos 32$' '$work/state/trial/record' && grep -q '^object mlx5_0/1 ens1f0np0 roce.tos 106$' '$work/state/trial/record'" ||
        sed 's/^/# /' "$work/state/trial/record"
wait_for; until [[ $(tos mlx5_0) == 184 && $(tos mlx5_1) == 184 ]]; do waited || break; done
is "the trial's ToS is applied to both" "$(tos mlx5_0) $(tos mlx5_1)" "184 184"
is "Trial says pending" "$(json_prop Trial | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" pending
check "ConfigFiles lists the layer last" "[[ \$(mprop ConfigFiles) == *'\"trial:trial.yaml\"' ]]"
check "rdmactl status shows the pending trial" \
        "'$rdmactl' status --no-pager | grep -q '^Trial: pending'"
is "a second Try() while one is pending: TrialPending" \
        "$("$rdmactl" try "$work/trial.yaml" 2>&1)" \
        "rdmactl try: A trial is pending; confirm or roll it back first."
is "nobody may not Rollback (no polkitd): AccessDenied naming org.rdmad1.trial" \
        "$(nobody bash -c "$(declare -f call_error); call_error Rollback" | cut -d: -f1,2)" \
        "org.freedesktop.DBus.Error.AccessDenied: Not authorized for org.rdmad1.trial"

# Rollback(): the hand value comes back, read back
t0=$(last "d.get('ended_usec', 0)")
check "rdmactl rollback" "'$rdmactl' rollback > '$work/rb.out' 2>&1" || sed 's/^/# /' "$work/rb.out"
is "rolled back: the profile's and the hand ToS again" "$(tos mlx5_0) $(tos mlx5_1)" "106 32"
is "LastTrial: rolled-back, requested, 2 restored" \
        "$(last "d['outcome'], d['reason'], len(d['restored']), len(d['not_restored'])")" \
        "rolled-back requested 2 0"
check "the record is gone" "[[ ! -e '$work/state/trial/record' ]]"
is "no trial pending" "$(mprop Trial)" 's ""'
check "the journal lines say what was put back, with the link's fields" \
        "grep -q 'Trial rollback: mlx5_1/1 roce.tos put back to 32, read back' '$work/rdmad.log'"
wait_for; until [[ $(mprop ConfigFiles) != *trial:* ]]; do waited || break; done
sleep 0.5
is "and stays so: the layer is gone, the hand value left alone" "$(tos mlx5_0) $(tos mlx5_1)" "106 32"

# nothing changes on refusals
printf 'roce:\n  tos: 300\n' > "$work/bad.yaml"
refused() { ! "$rdmactl" try "$@" > "$work/refused.out" 2>&1; }
check "invalid files: InvalidProfiles with FILE:LINE:COLUMN" \
        "refused '$work/bad.yaml' && grep -q '^bad.yaml:2:8: error' '$work/refused.out'" ||
        sed 's/^/# /' "$work/refused.out"
printf 'match: {device: mlx5_0}\nsriov: {vfs: 0}\n' > "$work/vfs.yaml"
check "sriov.vfs cannot be rolled back: TrialRefused, before anything" \
        "refused '$work/vfs.yaml' && grep -q 'sriov.vfs on .* cannot be rolled back: VFs destroyed' '$work/refused.out'" ||
        sed 's/^/# /' "$work/refused.out"
printf 'match: {device: mlx5_0}\nroce: {tos: 106}\n' > "$work/same.yaml"
check "a trial that changes nothing is refused" \
        "refused '$work/same.yaml' && grep -q 'changes nothing' '$work/refused.out'" ||
        sed 's/^/# /' "$work/refused.out"
is "an unknown option: InvalidArgs, named" \
        "$(bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Try 'a(ss)ta{sv}' 1 x.yaml 'roce: {tos: 1}' 0 1 nope s x 2>&1)" \
        "Call failed: Unknown trial option 'nope'."
check "a wrong signature: InvalidArgs from sd-bus, no trial" \
        "! bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Try s x > '$work/sig.out' 2>&1 && grep -q 'Invalid' '$work/sig.out' && [[ \$(mprop Trial) == 's \"\"' ]]" ||
        sed 's/^/# /' "$work/sig.out"
is "a file name with a '/': InvalidProfiles" \
        "$(bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Try 'a(ss)ta{sv}' 1 ../x.yaml 'roce: {tos: 1}' 0 0 2>&1 | tail -1)" \
        "../x.yaml: error: not a profile file name (NAME.yaml or NAME.yml, no '/')"
is "after the refusals: no trial, no record, the same values" \
        "$(mprop Trial) $([[ -e $work/state/trial/record ]] && echo record)$(tos mlx5_0) $(tos mlx5_1)" \
        's "" 106 32'

# timeout
t0=$(last "d.get('ended_usec', 0)")
check "a trial with a 2 s timeout" "try --timeout 2 '$work/trial.yaml'" || sed 's/^/# /' "$work/try.out"
wait_ended "$t0"
is "timed out: rolled back" "$(last "d['outcome'], d['reason']") $(tos mlx5_0) $(tos mlx5_1)" \
        "rolled-back timeout 106 32"

# try --wait: exit 0 once the gates held 10 s, 1 when the trial was rolled back meanwhile
check "try --wait: the gates hold for 10 s, exit 0" "try --timeout 600 --wait '$work/trial.yaml'" ||
        sed 's/^/# /' "$work/try.out"
check "... and says so" "grep -q '^The gates held for 10 s' '$work/try.out'"
"$rdmactl" rollback > /dev/null 2>&1
check "try --wait of a trial that times out: exit 1, the outcome printed" \
        "! try --timeout 1 --wait '$work/trial.yaml' && grep -q '^Last trial: rolled-back (timeout): not confirmed within 1 s' '$work/try.out'" ||
        sed 's/^/# /' "$work/try.out"

# a netdev that goes down fails its gate
t0=$(last "d.get('ended_usec', 0)")
check "a trial, then ens1f0np0 reads down" "try --timeout 600 '$work/trial.yaml'"
wait_for; until [[ $(tos mlx5_0) == 184 ]]; do waited || break; done
echo down > "$operstate"
wait_ended "$t0"
is "the netdev gate failed, named, and the trial rolled back" \
        "$(last "d['outcome'], d['reason'], d['gate'], d['seen']") $(tos mlx5_0) $(tos mlx5_1)" \
        "rolled-back gate netdev ens1f0np0 is down (up before the trial) 106 32"
echo up > "$operstate"

# rdmad-probe's state (the file its unit writes, given with --probe-state): a path through a
# touched link that stops at connect after the change fails the probe gate, with nothing lost
probe_state() { # STATE STEP CONNECT-ERRORS
        printf '{"paths":[{"link":"mlx5_0/1","peer":"192.0.2.2","kind":"peer","state":"%s"%s,"errors":{"address":0,"route":0,"connect":%s},"sent":%s,"lost":0}],"links":[]}' \
                "$1" "${2:+,\"step\":\"$2\",\"error\":\"Connection timed out\"}" "$3" "$4" \
                > "$work/probe-state.json.tmp" && mv "$work/probe-state.json.tmp" "$work/probe-state.json"
}
probe_state probing "" 0 60
t0=$(last "d.get('ended_usec', 0)")
check "a trial, rdmad-probe's paths probing" "try --timeout 600 '$work/trial.yaml'"
wait_for; until [[ $(tos mlx5_0) == 184 ]]; do waited || break; done
sleep 1.5
is "the probe gate holds while the path is answered" "$(mprop Trial | grep -c pending)" 1
probe_state unreachable connect 1 0
wait_ended "$t0"
is "a path that newly fails at connect fails the probe gate, and the trial is rolled back" \
        "$(last "d['gate'], d['seen']") $(tos mlx5_0) $(tos mlx5_1)" \
        "probe path mlx5_0/1 -> 192.0.2.2 newly fails: unreachable, step connect: Connection timed out (probing before the trial) 106 32"
rm "$work/probe-state.json"

# SIGKILL while pending: rolled back at the next start
check "a trial, then rdmad is killed" "try --timeout 600 '$work/trial.yaml'"
wait_for; until [[ $(tos mlx5_1) == 184 ]]; do waited || break; done
kill -KILL "$pid"; wait "$pid" 2> /dev/null || true
is "killed: the trial's values stay, the record too" \
        "$(tos mlx5_0) $(tos mlx5_1) $([[ -e $work/state/trial/record ]] && echo record)" "184 184 record"
start_rdmad
wait_for; until [[ $(last "d.get('reason')") == restart ]]; do waited || break; done
is "started again: rolled back from the record" \
        "$(last "d['outcome'], d['reason']") $(tos mlx5_0) $(tos mlx5_1) $([[ -e $work/state/trial/record ]] && echo record)" \
        "rolled-back restart 106 32 "

# Confirm: the files are profiles, and survive a restart
check "a trial, confirmed" "try --timeout 600 '$work/trial.yaml' && '$rdmactl' confirm > '$work/confirm.out' 2>&1" ||
        sed 's/^/# /' "$work/confirm.out"
is "confirmed into the profile dir, the record gone" \
        "$(last "d['outcome'], d['target']") $(cat "$work/conf/trial.yaml" | tr '\n' ' ')$([[ -e $work/state/trial/record ]] && echo record)" \
        "confirmed $work/conf match: {device: [mlx5_0, mlx5_1]} roce: {tos: 184} "
kill "$pid"; wait "$pid" 2> /dev/null || true
start_rdmad
sleep 0.5
is "after a restart the confirmed ToS holds, and LastTrial still says confirmed" \
        "$(tos mlx5_0) $(tos mlx5_1) $(last "d['outcome']")" '184 184 confirmed'

# a torn record at start (cut by hand: rdmad writes it whole) is set aside and said, not used
kill "$pid"; wait "$pid" 2> /dev/null || true
mkdir -p "$work/state/trial"
printf 'rdmad-trial 1\nstarted 1\ntimeout 2\nobject mlx5_0/1 - roce.tos 1' > "$work/state/trial/record"
start_rdmad
is "a torn record: rdmad runs, writes nothing from it, sets it aside" \
        "$(mprop State) $(tos mlx5_0) $([[ -e $work/state/trial/record.torn && ! -e $work/state/trial/record ]] && echo aside)" \
        's "running" 184 aside'
check "... and says so" "grep -q 'trial record in .* is torn; it cannot be rolled back' '$work/rdmad.log'"
tap_end
