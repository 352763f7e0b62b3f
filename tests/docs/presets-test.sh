#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The example profiles shipped in conf.d/examples (installed under the doc directory): each one
# passes `rdmactl check` with no error and no warning, and plans without error on the fixture
# host of its kind (the mlx5 preset on mlx5-dual-vf, where its CNP marking plans as a change).
# Prints TAP.
#
#   tests/docs/presets-test.sh RDMACTL conf.d/examples tests/fixtures
set -euo pipefail

rdmactl=$1
examples=$2
fixtures=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$work/out"; }

for f in "$examples"/*.yaml; do
        name=${f##*/}
        if "$rdmactl" check "$f" > "$work/out" 2>&1 && grep -q ': OK$' "$work/out" &&
                ! grep -q 'warning' "$work/out"; then
                ok "$name: rdmactl check, no error or warning"
        else
                not_ok "$name: rdmactl check, no error or warning"
        fi
        mkdir -p "$work/conf-$name"
        cp "$f" "$work/conf-$name/"
        root=$fixtures/rxe
        [[ $name == *mlx5* ]] && root=$fixtures/mlx5-dual-vf
        if "$rdmactl" --root "$root" --config-dir "$work/conf-$name" plan > "$work/out" 2>&1; then
                ok "$name: plans on ${root##*/}"
        else
                not_ok "$name: plans on ${root##*/}"
        fi
        if [[ $name == *mlx5* ]]; then
                if grep -Eq '^mlx5_1/1 +ecn\.cnp-dscp +26 +48 ' "$work/out" &&
                        grep -Eq '^mlx5_1/1 +ecn\.cnp-prio +3 +6 ' "$work/out"; then
                        ok "$name: mlx5_1's CNPs re-marked (DSCP 26 -> 48, priority 3 -> 6)"
                else
                        not_ok "$name: mlx5_1's CNPs re-marked (DSCP 26 -> 48, priority 3 -> 6)"
                fi
        fi
done
echo "1..$n"
exit $((failed > 0))
