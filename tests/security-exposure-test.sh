#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rdmad.service's sandbox as systemd sees it (`systemd-analyze security --offline=true`, the
# unit this build generates, which `meson install` installs): the overall exposure at most
# 2.5 (printed), module loading allowed but not unloading (no @module group, no
# delete_module), no Internet sockets and no IP traffic. Prints TAP.
#
#   tests/security-exposure-test.sh UNIT-FILE
set -euo pipefail

unit=$(realpath "$1")
max=2.5
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1) || true
overall=$(sed -n 's/.*Overall exposure level for rdmad.service: \([0-9.]*\).*/\1/p' <<< "$out")
echo "# $(grep 'Overall exposure level' <<< "$out" || echo "no overall exposure line")"
check "systemd-analyze security: exposure of rdmad.service ${overall:-?} (at most $max)" \
        "[[ -n '$overall' ]] && awk -v e='$overall' -v m=$max 'BEGIN { exit !(e <= m) }'" ||
        sed 's/^/# /' <<< "$out"
# a row: "✓"/"✗" NAME ...; the ✓ ones systemd counts as restricted
row() { grep -F -- " $1 " <<< "$out" | head -1; }
check "RestrictAddressFamilies: no AF_INET/AF_INET6 socket (✓)" \
        "[[ \$(row 'RestrictAddressFamilies=~AF_(INET|INET6)') == ✓* ]]"
check "IPAddressDeny: every IP range blocked (✓)" "[[ \$(row 'IPAddressDeny=') == ✓* ]]"
filters=$(sed -n 's/^SystemCallFilter=//p' "$unit")
check "SystemCallFilter allows init_module and finit_module (libkmod loads modules)" \
        "grep -qw init_module <<< '$filters' && grep -qw finit_module <<< '$filters'"
check "... but neither the @module group nor delete_module (rdmad never unloads)" \
        "! grep -qE '@module|delete_module' <<< '$filters'"
check "... which systemd-analyze agrees with: its @module example is not delete_module" \
        "[[ \$(row 'SystemCallFilter=~@module') != *'delete_module is allowed'* ]]"
echo "1..$n"
exit "$failed"
