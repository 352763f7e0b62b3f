#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The Prometheus alerting rules (contrib/prometheus/rdmad.rules.yml) pass `promtool check
# rules`, their hand-written unit tests (rdmad.rules.test.yml) pass `promtool test rules`, and
# so do the tests gen-fleet-tests.py writes for a simulated fleet of 1,000 nodes; and the same
# for rdmad-probe's rules (rdmad-probe.rules.yml, on the synthetic fleets of
# rdmad-probe.rules.test.yml and rdmad-probe-week.rules.test.yml). Prints TAP.
#
#   tests/prometheus/rules-test.sh PROMTOOL PYTHON3 CONTRIB-PROMETHEUS-DIR GEN-FLEET-TESTS OUTDIR
#
# PROMTOOL is the path meson found, or empty: then the test fails (it does not skip). The
# generated file stays in OUTDIR (rdmad-fleet.rules.test.yml) to be looked at.
set -uo pipefail

[[ $# -eq 5 ]] || {
        echo "usage: $0 PROMTOOL PYTHON3 CONTRIB-PROMETHEUS-DIR GEN-FLEET-TESTS OUTDIR" >&2
        exit 2
}
promtool=$1
python3=$2
dir=$3
gen=$4
outdir=$5
rules=$dir/rdmad.rules.yml
tests=$dir/rdmad.rules.test.yml
fleet=$outdir/rdmad-fleet.rules.test.yml
nodes=1000

echo "1..6"
names=("promtool check rules rdmad.rules.yml"
       "promtool test rules rdmad.rules.test.yml"
       "promtool test rules on a generated fleet of $nodes nodes"
       "promtool check rules rdmad-probe.rules.yml"
       "promtool test rules rdmad-probe.rules.test.yml"
       "promtool test rules rdmad-probe-week.rules.test.yml")
if [[ -z $promtool ]]; then
        for i in 0 1 2 3 4 5; do echo "not ok $((i + 1)) - ${names[i]}"; done
        echo "# promtool was not found when meson configured this build: install prometheus"
        echo "# (Debian 12; listed in .ci/packages), then meson setup --reconfigure"
        exit 1
fi
echo "# $("$promtool" --version 2>&1 | head -n 1)"

failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# TAP line N for the command after it; its output as comments when it fails, and the number
# of alert evaluations (eval_time entries) it checked when it passes.
run() {
        local n=$1 file=$2
        shift 2
        if "$@" > "$work/out" 2>&1; then
                echo "ok $n - ${names[n - 1]}"
                [[ -n $file ]] && echo "# $(grep -c 'eval_time:' "$file") alert evaluations"
        else
                echo "not ok $n - ${names[n - 1]}"
                # promtool's reports of a failed rules test are long: the head says which
                head -n 200 "$work/out" | sed 's/^/# /'
                failed=1
        fi
}

run 1 "" "$promtool" check rules "$rules"
run 2 "$tests" "$promtool" test rules "$tests"
if "$python3" "$gen" --nodes "$nodes" "$rules" "$fleet" 2> "$work/gen"; then
        sed 's/^/# /' "$work/gen"
        run 3 "$fleet" "$promtool" test rules "$fleet"
else
        echo "not ok 3 - ${names[2]}"
        sed 's/^/# /' "$work/gen"
        failed=1
fi
run 4 "" "$promtool" check rules "$dir/rdmad-probe.rules.yml"
run 5 "$dir/rdmad-probe.rules.test.yml" "$promtool" test rules "$dir/rdmad-probe.rules.test.yml"
run 6 "$dir/rdmad-probe-week.rules.test.yml" \
        "$promtool" test rules "$dir/rdmad-probe-week.rules.test.yml"
exit $failed
