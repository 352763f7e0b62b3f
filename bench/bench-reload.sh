#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Reloading 1,000 profile files (issue 26): rdmad's loader (config_load_files(): read, parse,
# check every key, merge) against libyaml's bare parse of the same files (bench-reload.c). The
# files are what a big site's drop-ins look like: one per rack or device group, each with a
# match, netdev, RoCE, GID, QoS and ECN settings. Prints figures; asserts nothing.
#
#   bench/bench-reload.sh BENCH-RELOAD [FILES]
set -euo pipefail

bench=$(realpath "$1")
n=${2:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

for i in $(seq -w 0 $((n - 1))); do
        cat > "$dir/50-rack$i.yaml" << YAML
# rack $i: its ConnectX ports, lossless priority 3
match:
  driver: mlx5_core
  netdev: "ens${i}f*np*"
netdev:
  up: true
  mtu: 9000
roce:
  mode: v2
  tos: 106
gids:
  require: [roce-v2-ipv4]
qos:
  trust: dscp
  pfc: [3]
  dscp-map: {26: 3, 48: 6}
  ets:
    prio-tc: [0, 1, 2, 3, 4, 5, 6, 7]
    tc-bw:   [50, 0, 0, 50, 0, 0, 0, 0]
    tsa:     [ets, strict, strict, ets, strict, strict, strict, strict]
ecn:
  roce-np: [3]
  roce-rp: [3]
YAML
done
"$bench" "$dir"
