#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rdmad-lldpd-generator as systemd runs it (GENERATOR NORMAL_DIR EARLY_DIR LATE_DIR), with the
# group database as the host has it: each case in a private mount namespace whose /etc/group
# has lldpd's group or has not (getent reads it through NSS, as at boot). The drop-in it writes
# is checked by systemd's own parser (systemd-analyze verify, with rdmad.service beside it).
# Needs root (unshare -m). Prints TAP.
#
#   tests/lldpd-generator-test.sh GENERATOR RDMAD_SERVICE
set -euo pipefail

gen=$(realpath "$1")
unit=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }

# run_with GROUP_FILE OUT: the generator into OUT/normal, /etc/group being GROUP_FILE
run_with() {
	mkdir -p "$2/normal" "$2/early" "$2/late"
	unshare -m sh -c 'mount --bind "$1" /etc/group && exec "$2" "$3/normal" "$3/early" "$3/late"' \
		sh "$1" "$gen" "$2"
}

grep -v '^_lldpd:' /etc/group > "$work/group-without"
{
	cat "$work/group-without"
	echo "_lldpd:x:64999:"
} > "$work/group-with"

if run_with "$work/group-without" "$work/without"; then
	ok "without lldpd's group: the generator exits 0"
else
	not_ok "without lldpd's group: the generator exits 0"
fi
left=$(find "$work/without" -type f | wc -l)
if [ "$left" = 0 ]; then
	ok "... and writes nothing: rdmad.service as shipped, no group to miss"
else
	not_ok "... and writes nothing: rdmad.service as shipped, no group to miss"
	find "$work/without" -type f -printf '# %p\n'
fi

if run_with "$work/group-with" "$work/with"; then
	ok "with lldpd's group: the generator exits 0"
else
	not_ok "with lldpd's group: the generator exits 0"
fi
dropin=$work/with/normal/rdmad.service.d/50-lldpd.conf
if [ -f "$dropin" ] && grep -qx 'SupplementaryGroups=_lldpd' "$dropin" &&
	[ "$(grep -v '^#' "$dropin" | grep -c .)" = 2 ]; then
	ok "... a drop-in for rdmad.service in the normal directory: [Service] SupplementaryGroups=_lldpd"
else
	not_ok "... a drop-in for rdmad.service in the normal directory: [Service] SupplementaryGroups=_lldpd"
	find "$work/with" -type f -printf '# %p\n' -exec sed 's/^/#   /' {} \;
fi
if [ -z "$(find "$work/with/early" "$work/with/late" -type f)" ]; then
	ok "... nothing in the early or late directories"
else
	not_ok "... nothing in the early or late directories"
fi

# systemd's parser on the unit with its drop-in: a mistyped key or section would be reported
# naming the drop-in's file. (verify also says that the build's rdmad is not installed at the
# unit's path: not this test's business, and so not read.)
mkdir -p "$work/units/rdmad.service.d"
cp "$unit" "$work/units/rdmad.service"
cp "$dropin" "$work/units/rdmad.service.d/"
out=$(SYSTEMD_UNIT_PATH="$work/units:" systemd-analyze verify --man=no \
	"$work/units/rdmad.service" 2>&1) || true
if grep -q 'Command .* is not executable\|^$' <<< "$out" || [ -z "$out" ]; then
	if ! grep -qi 'supplementarygroups\|50-lldpd' <<< "$out"; then
		ok "systemd-analyze verify reads the drop-in and says nothing of it"
	else
		not_ok "systemd-analyze verify reads the drop-in and says nothing of it"
		while read -r l; do echo "# $l"; done <<< "$out"
	fi
else
	not_ok "systemd-analyze verify ran on rdmad.service"
	while read -r l; do echo "# $l"; done <<< "$out"
fi

echo "1..$n"
exit "$failed"
