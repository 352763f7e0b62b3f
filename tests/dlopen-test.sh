#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier: rdmad maps libnftables and libkmod only when something needs them (issue 26).
# rdmad against a copy of the rxe fixture, its netdev a veth in a private network namespace:
#   - converged with modules declared (all there) and no firewall: neither library is in
#     /proc/PID/maps, nor what they pull in (libnftnl, libxtables, libcrypto), after a reload
#     too;
#   - security.roce-allow-from declared by a reload: the same process loads libnftables, makes
#     its table, and removes it when the key goes;
#   - a table left from an earlier configuration is found and removed by a fresh rdmad (which
#     loads libnftables for it);
#   - libnftables.so.1 unreadable (/dev/null over it, in a private mount namespace): rdmad
#     starts, converges the rest, and says that security.roce-allow-from needs the library.
# Prints TAP.
#
#   tests/dlopen-test.sh RDMAD
# shellcheck disable=SC2317 # the helpers run inside check's eval
set -euo pipefail

rdmad=$(realpath "$1")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_workdir

cp -a "$src/fixtures/rxe" "$work/root"
mkdir -p "$work/conf" "$work/state"
root=$work/root
ip link set lo up
ip link add veth0 type veth peer name peer0
ip link set veth0 up

cat > "$work/conf/50-rxe.yaml" << 'YAML'
match: {device: rxe0}
netdev: {mtu: 4000}
YAML
# both loaded in the fixture's /sys/module: nothing to load
printf 'modules: [rdma_rxe, ib_uverbs]\n' > "$work/conf/40-modules.yaml"
fw_declare() {
        printf 'match: {device: rxe0}\nsecurity: {roce-allow-from: [192.0.2.2]}\n' \
                > "$work/conf/60-fw.yaml"
}

start() { # LOG [WRAPPER...]: rdmad in the background, $pid
        local log=$1
        shift
        "$@" "$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" -v \
                > "$work/$log" 2>&1 &
        pid=$!
}
stop() { kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null; pid=; }
# wait_for TENTHS COMMAND...: until it succeeds
wait_for() {
        local n=$1
        shift
        for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
        return 1
}
logged() { grep -q "$2" "$work/$1"; }
# the second "Loaded" of plain.log: the reload read the profiles
reloaded() { [[ $(grep -c 'Loaded 2 profile' "$work/plain.log") -ge 2 ]]; }
# mapped SONAME-PREFIX: a file of that name is mapped into rdmad (one awk: `awk | grep -q`
# under pipefail fails when grep leaves before awk has written all of a sanitizer build's maps)
mapped() { awk -v l="/$1" 'index($6, l) { found = 1 } END { exit !found }' "/proc/$pid/maps"; }
table() { nft list table inet rdmad > /dev/null 2>&1; }
# absent: nft says the table is not there (not: nft failed for another reason)
absent() {
        local e
        e=$(nft list table inet rdmad 2>&1 > /dev/null) && return 1
        [[ $e == *"No such file or directory"* ]]
}
removed() { logged "$1" 'host: security.roce-allow-from table inet rdmad .* -> table inet rdmad: absent'; }

tap_begin
tap_plan 14

start plain.log
check "converged: modules declared (all there), no firewall" \
        "wait_for 100 logged plain.log 'rxe0/1: converged'"
check "... the check sees what rdmad maps (libsystemd)" "mapped libsystemd.so"
check "... no libnftables, libnftnl or libxtables in /proc/PID/maps" \
        "! mapped libnftables.so && ! mapped libnftnl.so && ! mapped libxtables.so"
check "... no libkmod, no libcrypto" "! mapped libkmod.so && ! mapped libcrypto.so"
kill -HUP "$pid"
# the reload's full pass comes 100 ms after it (debounce) and takes a few ms
check "after a reload (a full pass): still none of them" \
        "wait_for 600 reloaded && sleep 1 &&
         ! mapped libnftables.so && ! mapped libkmod.so && ! mapped libcrypto.so" ||
        sed 's/^/# /' "$work/plain.log"

fw_declare
kill -HUP "$pid"
check "security.roce-allow-from declared by a reload: the same rdmad makes its table" \
        "wait_for 100 table && [[ \$(nft list table inet rdmad) == *'iifname \"veth0\" ip saddr 192.0.2.2 udp dport 4791 accept'* ]]"
check "... having loaded libnftables (still no libkmod)" \
        "mapped libnftables.so.1 && ! mapped libkmod.so"
rm "$work/conf/60-fw.yaml"
kill -HUP "$pid"
check "the key removed by a reload: the table goes" "wait_for 100 removed plain.log && absent"
stop

# A table left from an earlier configuration (rdmad stopped with the key declared, then the
# profile removed): a fresh rdmad finds it by name, without libnftables, and then needs the
# library to remove it.
nft add table inet rdmad
nft add chain inet rdmad veth0
start leftover.log
check "a table left from an earlier configuration: a fresh rdmad removes it" \
        "wait_for 100 removed leftover.log && absent" || sed 's/^/# /' "$work/leftover.log"
check "... loading libnftables for it" "mapped libnftables.so.1"
stop

# libnftables.so.1 unreadable: /dev/null over the file, in a mount namespace of rdmad's own.
lib=$(ldconfig -p | awk '$1 == "libnftables.so.1" { print $NF; exit }')
lib=$(realpath "$lib")
fw_declare
ip link set veth0 mtu 1500
# shellcheck disable=SC2016 # expanded by the inner bash
start nolib.log unshare --mount --propagation private \
        bash -c 'mount --bind /dev/null "$1" && exec "${@:2}"' bash "$lib"
check "libnftables unreadable ($lib): rdmad starts and sets the rest (MTU 4000)" \
        "wait_for 100 eval 'ip link show veth0 | grep -q \"mtu 4000\"' && kill -0 $pid" ||
        sed 's/^/# /' "$work/nolib.log"
check "... the link's firewall fails, naming the key and the library" \
        "wait_for 600 logged nolib.log 'failed to set security.roce-allow-from .*: security.roce-allow-from needs libnftables.so.1: [^ ]*libnftables.so.1: file too short'" ||
        sed 's/^/# /' "$work/nolib.log"
check "... no table made, rdmad still running" "absent && kill -0 $pid"
stop
check "... and nothing crashed: no sanitizer or signal report" \
        "! grep -Eq 'Sanitizer|runtime error|Segmentation' $work/*.log"

tap_end
