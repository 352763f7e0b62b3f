#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# vm-deb.sh OUTDIR RUN-VM [RUN-VM-ARGS...] - meson's vm-deb test: build the .deb (build-deb.sh,
# cached in OUTDIR), then boot the full VM with it (RUN-VM --full --env RDMAD_DEB=...
# RUN-VM-ARGS). TAP on stdout: the build's summary and lintian's tags as comments, then the
# scenario's results; "Bail out!" when the package cannot be built.
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OUTDIR RUN-VM [RUN-VM-ARGS...]" >&2; exit 2; }
out=$1 runner=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
SECONDS=0
# vm-deb and vm-ansible run side by side with one OUTDIR: one builds, the other waits for the
# lock and finds the .deb cached. Each writes its own log, then moves it in place.
log=$out/build-deb.log
if ! deb=$(flock "$out/.lock" "$here/build-deb.sh" "$out" 2> "$log.$$"); then
	sed 's/^/# /' "$log.$$"
	mv -f "$log.$$" "$log"
	echo "Bail out! tests/deb/build-deb.sh failed (see $log)"
	exit 1
fi
sed -n 's/^build-deb: \(cached\|built\)/# .deb \1/p; s/^lintian: /# lintian: /p' "$log.$$"
mv -f "$log.$$" "$log"
echo "# $deb ready in $SECONDS s"
exec "$runner" --full --env "RDMAD_DEB=$deb" "$@"
