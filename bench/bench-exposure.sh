#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The figure of tests/security-exposure-test.sh (which fails above 2.5): rdmad.service's
# exposure as `systemd-analyze security --offline=true` rates this build's unit.
#   bench/bench-exposure.sh UNIT-FILE
set -euo pipefail
line=$(systemd-analyze security --offline=true --no-pager "$1" 2>&1 | grep 'Overall exposure level')
echo "bench exposure: ${line#→ }"
