#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier: run rdmactl on a fixture tree and compare with the expected output.
#
#   tests/fixture-test.sh RDMACTL CASE
#
# tests/fixtures/CASE is the root (sysfs, configfs); tests/expected/CASE/profiles the profiles
# (given with --config-dir); tests/expected/CASE the expected stdout of each command (FILE) and,
# where a command warns or fails, its stderr and exit status (FILE.stderr).
# The netdevs listed in tests/expected/CASE/netdevs ("NAME [ADDRESS...]") are created as veth
# in a private network namespace (unshare -n), so that rtnetlink answers for them as it would
# on the real host. Prints TAP. UPDATE=1 rewrites the expected files instead (review the diff!).
set -euo pipefail

rdmactl=$(realpath "$1")
case=$2
src=$(cd "$(dirname "$0")" && pwd)
root=fixtures/$case
expected=$src/expected/$case

if [[ -z ${RDMAD_FIXTURE_NETNS:-} ]]; then
        # A fresh network namespace: nothing of the host's network is seen or touched.
        exec unshare --net env RDMAD_FIXTURE_NETNS=1 "$0" "$@"
fi
# --root relative to tests/: what rdmactl prints of it is the same in every checkout
cd "$src"

# shellcheck source=netns-mirror.sh
. "$src/netns-mirror.sh"
ip link set lo up
if [[ -f $expected/netdevs ]]; then
        while read -r name addresses; do
                [[ -z $name || $name == \#* ]] && continue
                # shellcheck disable=SC2086 # one address per word
                netns_mirror "$root" "$name" $addresses
        done < "$expected/netdevs"
fi

profiles=()
[[ -d $expected/profiles ]] && profiles=(--config-dir "$expected/profiles")

commands=(
        "links"
        "links --json"
        "gids"
        "gids --json"
        "plan"
        "plan --json"
        "check"
)

# Commands that take arguments, one per line (e.g. "gid mlx5_0/1 --family ipv6").
if [[ -f $expected/commands ]]; then
        while read -r line; do
                [[ -z $line || $line == \#* ]] || commands+=("$line")
        done < "$expected/commands"
fi

echo "1..${#commands[@]}"
i=0
failed=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for c in "${commands[@]}"; do
        i=$((i + 1))
        file=${c// --/.}
        file=${file//[ \/]/_}
        rc=0
        # shellcheck disable=SC2086 # word splitting of the command is intended
        args=(--root "$root")
        # gid, gids and topology read no profiles
        [[ $c == gid* || $c == topology* ]] || args+=("${profiles[@]}")
        "$rdmactl" "${args[@]}" $c > "$out/stdout" 2> "$out/stderr" || rc=$?
        [[ $rc -eq 0 ]] || echo "exit status $rc" >> "$out/stderr"
        if [[ -n ${UPDATE:-} ]]; then
                cp "$out/stdout" "$expected/$file"
                if [[ -s $out/stderr ]]; then
                        cp "$out/stderr" "$expected/$file.stderr"
                else
                        rm -f "$expected/$file.stderr"
                fi
        fi
        if [[ -f $expected/$file.stderr ]]; then
                cp "$expected/$file.stderr" "$out/expected-stderr"
        else
                : > "$out/expected-stderr"
        fi
        if diff -u "$expected/$file" "$out/stdout" > "$out/diff" &&
           diff -u "$out/expected-stderr" "$out/stderr" >> "$out/diff"; then
                echo "ok $i - $case: rdmactl $c"
        else
                echo "not ok $i - $case: rdmactl $c"
                sed 's/^/# /' "$out/diff"
                failed=1
        fi
done
exit $failed
