#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier: a long kernel write never blocks the loop (issue 43). A write to sriov_numvfs
# takes as long as the PF's driver needs to probe every new VF (mlx5: about a second a VF), and
# nothing interrupts it. rdmad runs it in a worker process; its loop goes on answering the bus.
#
# rdmad on a copy of the mlx5-dual-vf fixture (mlx5_0/1 on ens1f0np0, mlx5_1/1 on ens1f1np1,
# veth in a private network namespace), a private dbus-daemon with the shipped policy. A write to
# mlx5_1's PF's sriov_numvfs (0000:3b:00.1) is held (RDMAD_TEST_FAULTS "PATH hold FIFO",
# rdmad(8)): it hands its value to a FIFO first, whose open() blocks until the test reads it, so
# the test decides when the "kernel write" ends. (The file itself cannot be the FIFO: rdmad's
# observers read with O_NONBLOCK, which finds a FIFO empty.) The kernel blocks a read of
# sriov_numvfs while a write is in flight: strace on rdmad's loop says it opened no
# sriov_numvfs of that PF meanwhile.
#   - sriov.vfs: 4 declared and reloaded: the journal says "writing 4, off the event loop
#     (worker pid N)"; while that write blocks, Get(State) (200 of them, their latency printed
#     as a figure), Get(Settings) ("writing 4 (started N s ago)"), Describe(), Plan() ("in
#     progress", sriov_numvfs not read) and Ping are all answered: before the test lets the
#     write end, by order; an MTU changed behind rdmad's back meanwhile is queued;
#   - let go: the FIFO carries "4", the setting and the link converge, the MTU is put back;
#   - a reload (SIGHUP) while a write blocks: the write's outcome is logged when it ends, and
#     the next reconcile goes on from it with the new profiles (sriov.vfs 2 through 0, MTU 5000);
#   - SIGTERM while a write blocks: rdmad exits 0 at once, the worker goes on alone, and once the
#     write ends it logs the outcome and exits.
# Judged by order and state; every wait has a bound that only stops a hang (60 s). Prints TAP.
#
#   tests/sriov-write-test.sh RDMAD POLICY BUS-GET-LATENCY
set -euo pipefail

rdmad=$(realpath "$1")
policy=$(realpath "$2")
latency=$(realpath "$3")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_pids=(strace_pid wpid "${fixture_pids[@]}")
strace_pid= wpid=
fixture_workdir
# a worker the test could not let go of stays in open(): its reader, at exit
release_on_exit() {
        : > "$work/faults"
        [[ -p ${hold:-} ]] && timeout 5 cat "$hold" > /dev/null 2>&1
        fixture_cleanup
}
trap release_on_exit EXIT

cp -a "$src/fixtures/mlx5-dual-vf" "$work/root"
root=$work/root
mkdir -p "$root/sys/kernel/config/rdma_cm/mlx5_1/ports/1"
echo 'RoCE v2' > "$root/sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_mode"
echo 0 > "$root/sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_tos"
pf1=$(realpath "$root/sys/bus/pci/devices/0000:3b:00.1")
numvfs=$pf1/sriov_numvfs
hold=$work/hold
mkdir -p "$work/conf" "$work/state"

ip link set lo up
ip link add ens1f0np0 type veth peer name peer0
ip link add ens1f1np1 type veth peer name peer1
ip link set ens1f0np0 up
ip link set ens1f1np1 up

# profiles MTU [VFS]: both links at MTU; mlx5_1's PF with VFS VFs when given
profiles() {
        printf 'match: {device: mlx5_0}\nnetdev: {mtu: %s}\n' "$1" > "$work/conf/50-mlx5_0.yaml"
        printf 'match: {device: mlx5_1}\nnetdev: {mtu: %s}\n%s' "$1" \
                "${2:+sriov: {vfs: $2\}
}" > "$work/conf/50-mlx5_1.yaml.new"
        mv "$work/conf/50-mlx5_1.yaml.new" "$work/conf/50-mlx5_1.yaml"
}
profiles 4000

fixture_bus "$policy"

tap_begin
diag() { echo "# $*"; }
wait_until() { # SECONDS COMMAND...
        local end=$((SECONDS + $1))
        shift
        until "$@"; do
                ((SECONDS < end)) || return 1
                sleep 0.1
        done
}
bc() { busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
L1=/org/rdmad1/link/mlx5_5f1_2f1
lstate() { bc get-property org.rdmad1 "/org/rdmad1/link/mlx5_5f$1_2f1" org.rdmad1.Link State; }
# the sriov.vfs row of mlx5_1/1: "DESIRED|CURRENT|RESULT|ERROR"
vfs_row() {
        bc --json=short get-property org.rdmad1 "$L1" org.rdmad1.Link Settings |
                jq -r '.data[] | select(.[0] == "sriov.vfs") | "\(.[1])|\(.[2])|\(.[3])|\(.[4])"'
}
mtu_is() { ip link show "$1" | grep -q "mtu $2 "; }
converged() { # MTU: both links converged at MTU
        [[ $(lstate 0) == 's "converged"' && $(lstate 1) == 's "converged"' ]] &&
                mtu_is ens1f0np0 "$1" && mtu_is ens1f1np1 "$1"
}

# kernel_begin: the next write to sriov_numvfs of mlx5_1's PF waits until kernel_end
kernel_begin() {
        rm -f "$hold"
        mkfifo "$hold"
        echo "sys/bus/pci/devices/0000:3b:00.1/sriov_numvfs hold $hold" > "$work/faults"
}
# kernel_end: the write may end; what it carried in $written ("" when it had ended before: then
# someone else opened the FIFO)
kernel_end() {
        : > "$work/faults" # the writes after this one are not held
        written=$(timeout 60 cat "$hold" || true)
        rm -f "$hold"
}
# worker_started WHAT [NOT]: the log says a worker began WHAT ("writing 4"), not pid NOT: $wpid
worker_started() {
        wpid=$(grep -o "sriov.vfs: $1, off the event loop (worker pid [0-9]*)" "$work/rdmad.log" |
                tail -n 1 | grep -o '[0-9]*)$' | tr -d ')')
        [[ -n $wpid && $wpid != "${2:-}" ]]
}

: > "$work/faults"
RDMAD_TEST_FAULTS=$work/faults "$rdmad" --root "$root" --config-dir "$work/conf" \
        --state-dir "$work/state" --bus -v > "$work/rdmad.log" 2>&1 &
pid=$!
check "rdmad converges both links at MTU 4000" "wait_until 60 converged 4000" ||
        sed 's/^/# /' "$work/rdmad.log"

# ---- a write that blocks ------------------------------------------------------------------------
kernel_begin
profiles 4000 4
kill -HUP "$pid"
check "sriov.vfs: 4 reloaded: the journal says the write runs in a worker" \
        "wait_until 60 worker_started 'writing 4'" || tail -n 20 "$work/rdmad.log" | sed 's/^/# /'
diag "worker pid ${wpid:-none}; it waits in $(cat "/proc/${wpid:-0}/wchan" 2> /dev/null || echo '?')"
ip link set ens1f0np0 mtu 1500 # behind rdmad's back, while the reconcile waits
# what rdmad's loop opens from now until the test lets go (-y: with the directory of an openat)
strace -y -e trace=openat,open -p "$pid" -o "$work/strace" 2> "$work/strace.err" &
strace_pid=$!
wait_until 60 grep -q attached "$work/strace.err" || true

# All of these are answered while the FIFO has no reader: the write cannot have ended.
row=$(vfs_row 2>&1 || true)
diag "Settings, sriov.vfs of mlx5_1/1: $row"
check "Get(Settings): sriov.vfs pending, 'writing 4 (started N s ago)'" \
        "[[ '$row' =~ ^4\|0\|pending\|writing\ 4\ \(started\ [0-9]+\ s\ ago\)$ ]]"
is "Get(State) of mlx5_1/1: pending" "$(lstate 1 2>&1)" 's "pending"'
"$latency" "$L1" org.rdmad1.Link State 200 "during a blocked sriov_numvfs write" \
        > "$work/latency" 2>&1
rc=$?
diag "$(cat "$work/latency")"
check "200 Get(State) answered while the write blocks" "[[ $rc == 0 ]]"
bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Describe > "$work/describe" 2>&1
check "Describe() answered, its sriov.vfs row saying 'writing 4 (started'" \
        "grep -q 'writing 4 (started [0-9]* s ago)' '$work/describe'" ||
        head -c 600 "$work/describe" | sed 's/^/# /'
bc call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Plan > "$work/plan" 2>&1
check "Plan() answered: sriov.vfs in progress, sriov_numvfs not read" \
        "grep -q 'in progress: writing 4 (started [0-9]* s ago); sriov_numvfs is not read until it ends' '$work/plan'" ||
        head -c 600 "$work/plan" | sed 's/^/# /'
check "Ping answered" "bc call org.rdmad1 /org/rdmad1 org.freedesktop.DBus.Peer Ping"
check "... and the worker is still in the write" "[[ -n $wpid ]] && kill -0 $wpid 2> /dev/null"
kill "$strace_pid" 2> /dev/null
wait "$strace_pid" 2> /dev/null
strace_pid=
diag "the loop opened $(grep -c openat "$work/strace") files meanwhile"
check "... and rdmad's loop never opened that PF's sriov_numvfs meanwhile (a read would block)" \
        "grep -q 'sriov_numvfs' '$work/strace' && ! grep -q '0000:3b:00.1>, \"sriov_numvfs\"' '$work/strace'" ||
        grep sriov_numvfs "$work/strace" | sed 's/^/# /'

kernel_end
is "let go: the write carried '4'" "$written" 4
check "sriov.vfs converged at 4 on mlx5_1/1, both links converged" \
        "wait_until 60 eval '[[ \$(vfs_row) == \"4|4|converged|\" ]]' && wait_until 60 converged 4000"
check "... the journal has the change, after the write" \
        "grep -q 'mlx5_1/1: sriov.vfs 0 -> 4' '$work/rdmad.log'"
check "... the worker is gone" "wait_until 60 eval '! kill -0 $wpid 2> /dev/null'"
check "... the MTU changed meanwhile is put back (the event was queued)" \
        "wait_until 60 mtu_is ens1f0np0 4000"

# ---- a reload while a write blocks ----------------------------------------------------------------
# 4 -> 2 goes through 0: the first write blocks, a reload comes.
kernel_begin
profiles 4000 2
kill -HUP "$pid"
prev=$wpid
check "sriov.vfs: 2 (through 0) reloaded: 'writing 0' runs in a worker" \
        "wait_until 60 worker_started 'writing 0' $prev"
loaded() { grep -c 'Loaded 2 profile' "$work/rdmad.log"; }
n_loaded=$(loaded)
profiles 5000 2
kill -HUP "$pid"
check "a reload while it blocks is taken: the profiles are loaded again" \
        "wait_until 60 eval '(( \$(loaded) > $n_loaded ))'"
is "... and Get(State) is answered" "$(lstate 0 2>&1)" 's "converged"'
kernel_end
is "let go: the write carried '0'" "$written" 0
check "... its outcome is logged once it ends" \
        "wait_until 60 grep -q 'mlx5_1/1: sriov.vfs 4 -> 0 (first: destroys the 4 VFs, to make 2)' '$work/rdmad.log'"
check "... and the next reconcile goes on with the new profiles: 2 VFs, MTU 5000, converged" \
        "wait_until 60 eval '[[ \$(cat $numvfs) == 2 && \$(vfs_row) == \"2|2|converged|\" ]]' &&
         wait_until 60 converged 5000"

# ---- SIGTERM while a write blocks ----------------------------------------------------------------
kernel_begin
profiles 5000 3
kill -HUP "$pid"
prev=$wpid
check "sriov.vfs: 3 (through 0): 'writing 0' runs in a worker" \
        "wait_until 60 worker_started 'writing 0' $prev"
kill -TERM "$pid"
check "SIGTERM while it blocks: rdmad exits" "wait_until 60 eval '! kill -0 $pid 2> /dev/null'"
wait "$pid"
rc=$?
pid=
is "... with status 0" "$rc" 0
check "... saying the worker goes on, the kernel cannot interrupt it" \
        "grep -q 'sriov.vfs: still writing 0 in worker pid $wpid, which the kernel cannot interrupt' '$work/rdmad.log'"
check "... the worker is still in the write" "kill -0 $wpid 2> /dev/null"
kernel_end
is "let go: the write carried '0'" "$written" 0
check "... the worker logs its outcome itself and exits" \
        "wait_until 60 eval '! kill -0 $wpid 2> /dev/null' &&
         grep -q 'mlx5_1/1: sriov.vfs 0 (first: destroys the 2 VFs, to make 3) after rdmad stopped (worker pid $wpid): changed' '$work/rdmad.log'"
wpid=
tap_end
