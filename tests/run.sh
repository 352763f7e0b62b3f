#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Configure (once), build and run every test tier: unit, fixture, fuzz corpus, VM.
#
#   tests/run.sh [BUILDDIR [MESON-SETUP-OPTIONS...]]
#
# e.g. tests/run.sh build-asan -Db_sanitize=address,undefined
# Needs root: the fixture tier makes private network namespaces (unshare -n).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
shift || true

if [[ ! -f $build/build.ninja ]]; then
        meson setup "$build" "$@"
elif [[ $# -gt 0 ]]; then
        meson configure "$build" "$@"
fi
meson compile -C "$build"
# One test more than there are cores: the VM tier runs two VMs at a time (run-vm.sh's slots), and
# a fixture test that mostly waits on rdmad runs beside them
meson test -C "$build" --print-errorlogs --num-processes "$(($(nproc) + 1))"
