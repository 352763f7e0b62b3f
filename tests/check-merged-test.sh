#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What only the merge of profiles makes invalid (one profile's qos.ets.tsa, another's tc-bw) is
# an error of rdmactl check, naming the port and the profiles, and rdmactl plan does not send
# it. On the mlx5 fixture with tests/check-merged. Prints TAP.
#
#   tests/check-merged-test.sh RDMACTL
set -uo pipefail

rdmactl=$(realpath "$1")
src=$(cd "$(dirname "$0")" && pwd)
args=(--root "$src/fixtures/mlx5-dual-vf" --config-dir "$src/check-merged")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "1..4"
rc=0
"$rdmactl" "${args[@]}" check > "$out/stdout" 2> "$out/stderr" || rc=$?
want="mlx5_1/1: error: the merged settings are invalid: 'qos.ets.tc-bw' of the ets traffic classes (0,3) must add up to 100, got 80 (tc-bw from 60-bw.yaml, tsa from 50-tsa.yaml)"
if [[ $rc -eq 1 ]]; then echo "ok 1 - check exits 1"; else echo "not ok 1 - check exits 1 (got $rc)"; fi
if grep -qxF "$want" "$out/stderr" && [[ $(grep -c error: "$out/stderr") -eq 1 ]]; then
        echo "ok 2 - ... naming mlx5_1/1 and both profiles, and nothing about mlx5_0/1"
else
        echo "not ok 2 - ... naming mlx5_1/1 and both profiles, and nothing about mlx5_0/1"
        sed 's/^/# /' "$out/stderr"
fi
"$rdmactl" "${args[@]}" plan --no-pager > "$out/plan" 2>&1
if grep -Eq '^mlx5_1/1 +qos\.ets\.tc-bw .*the merged settings are invalid' "$out/plan" &&
   ! grep -Eq '^mlx5_0/1 .*merged' "$out/plan"; then
        echo "ok 3 - plan: mlx5_1/1's ETS not applied, saying why"
else
        echo "not ok 3 - plan: mlx5_1/1's ETS not applied, saying why"
        sed 's/^/# /' "$out/plan"
fi
if "$rdmactl" "${args[@]}" check "$src/check-merged/50-tsa.yaml" > /dev/null 2>&1; then
        echo "ok 4 - each file alone is valid"
else
        echo "not ok 4 - each file alone is valid"
fi
