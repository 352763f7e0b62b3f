#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The example profiles shipped in conf.d/examples (installed under the doc directory): each one
# passes `rdmactl check` with no error and no warning, and plans without error on a fixture host
# (mlx5-dual-vf; the irdma and bnxt ones with their driver match made mlx5_core's, there being
# no such fixture), every lossless key planned; the mlx5 one re-marks mlx5_1's CNPs.
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
        # each preset on the mlx5 fixture: the mlx5 one as it is, the others with their driver
        # match made mlx5_core's, so that every key they declare is planned (as a change, or
        # not applied with a reason) rather than matching nothing
        mkdir -p "$work/conf-$name"
        sed -E 's/^(  driver: )(ice|bnxt_en)$/\1mlx5_core/' "$f" > "$work/conf-$name/$name"
        root=$fixtures/mlx5-dual-vf
        [[ $name == *soft-roce* ]] && root=$fixtures/rxe
        if "$rdmactl" --root "$root" --config-dir "$work/conf-$name" plan > "$work/out" 2>&1; then
                ok "$name: plans on ${root##*/}"
        else
                not_ok "$name: plans on ${root##*/}"
        fi
        if [[ $name == *lossless* ]]; then
                missing=
                for key in netdev.pause.rx netdev.pause.tx qos.dcbx qos.pfc qos.trust qos.dscp-map; do
                        grep -Eq "^mlx5_[01]/1 +$key " "$work/out" || missing="$missing $key"
                done
                if [[ -z $missing ]]; then
                        ok "$name: every lossless key planned on mlx5_0/mlx5_1"
                else
                        not_ok "$name: every lossless key planned on mlx5_0/mlx5_1 (missing:$missing)"
                fi
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
