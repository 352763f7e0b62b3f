#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fixture tier for the daemon on a GPU host (issue 27): rdmad against a copy of the dgx-gdr
# fixture, two of its ConnectX-7 netdevs as veth in a private network namespace, each link
# with an IPv4 RoCE v2 GID so that it publishes. Each link's env file names the GPUs nearest
# to it (RDMA_NEAREST_GPUS), and Describe() carries them and the GPUs. Prints TAP.
#
#   tests/daemon-gpu-test.sh RDMAD POLICY
set -euo pipefail

rdmad=$(realpath "$1")
policy=$(realpath "$2")
src=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=fixture-lib.sh
. "$src/fixture-lib.sh"
fixture_netns "$0" "$@"
fixture_workdir

cp -a "$src/fixtures/dgx-gdr" "$work/root"
root=$work/root
mkdir -p "$work/conf" "$work/state"
ip link set lo up
# mlx5_0 (NIC0, under switch A with GPU0 and GPU1: PIX) and mlx5_4 (NIC4, under the nested
# switch below switch C with GPU4 and GPU5: PXB); an IPv4 address each, and its GID, as the
# kernel adds one (slot 2, RoCE v2)
gid() { # DEV NETDEV GID
        local p=$root/sys/class/infiniband/$1/ports/1
        printf '%s\n' "$3" > "$p/gids/2"
        printf 'RoCE v2\n' > "$p/gid_attrs/types/2"
        printf '%s\n' "$2" > "$p/gid_attrs/ndevs/2"
}
gid mlx5_0 enp21s0np0 0000:0000:0000:0000:0000:ffff:c000:020a
gid mlx5_4 enp151s0np0 0000:0000:0000:0000:0000:ffff:c000:020e
for nd in enp21s0np0 enp151s0np0; do
        ip link add "$nd" type veth peer name "p-$nd"
        ip link set "$nd" up
done
ip addr add 192.0.2.10/24 dev enp21s0np0
ip addr add 192.0.2.14/24 dev enp151s0np0
printf 'match: {device: "mlx5_[04]"}\ngids: {require: [roce-v2-ipv4]}\n' > "$work/conf/50-gpu.yaml"

run() { "$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" "$@"; }

tap_begin
tap_plan 6

rc=0
run --once 2> "$work/once.log" || rc=$?
check "--once converges both links (exit 0)" "[[ $rc -eq 0 ]]" || sed 's/^/# /' "$work/once.log"
check "... and says how many GPUs it found" "grep -q '9 NVIDIA GPUs' $work/once.log"
env=$root/run/rdmad/env
is "mlx5_0-1.env: RDMA_NEAREST_GPUS, GPU0 and GPU1 under its switch" \
        "$(. "$env/mlx5_0-1.env" && echo "$RDMA_NEAREST_GPUS")" "0000:13:00.0,0000:14:00.0"
is "mlx5_4-1.env: GPU4 and GPU5, one switch up" \
        "$(. "$env/mlx5_4-1.env" && echo "$RDMA_NEAREST_GPUS")" "0000:93:00.0,0000:94:00.0"

# Describe() on a private bus with the shipped policy
fixture_bus "$policy" || not_ok "dbus-daemon started"
"$rdmad" --root "$root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        2> "$work/bus.log" &
pid=$!
state() {
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.rdmad1 /org/rdmad1 \
                org.rdmad1.Manager State 2> /dev/null
}
for _ in $(seq 600); do [[ $(state) == 's "running"' ]] && break; sleep 0.1; done
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --json=short call org.rdmad1 /org/rdmad1 \
        org.rdmad1.Manager Describe > "$work/describe.json" 2> "$work/describe.err" || true
# the document, out of busctl's JSON
describe() { python3 -c "import json, sys; d = json.loads(json.load(open('$work/describe.json'))['data'][0]); $1"; }
is "Describe(): the GPUs, with their NUMA nodes" \
        "$(describe "print(' '.join(g['address'] + '@' + str(g['numa_node']) for g in d['gpus']))")" \
        "0000:13:00.0@0 0000:14:00.0@0 0000:19:00.0@0 0000:1a:00.0@0 0000:1d:00.0@0 0000:93:00.0@1 0000:94:00.0@1 0000:a3:00.0@1 0000:a4:00.0@1"
is "... each link's nearest GPUs: mlx5_0/1 and mlx5_4/1 as their env files say, the others too" \
        "$(describe "print(' '.join(l['link'] + '=' + ','.join(l.get('nearest_gpus') or ['-']) for l in d['links'] if l['link'] in ('mlx5_0/1', 'mlx5_4/1', 'mlx5_7/1')))")" \
        "mlx5_0/1=0000:13:00.0,0000:14:00.0 mlx5_4/1=0000:93:00.0,0000:94:00.0 mlx5_7/1=0000:a3:00.0,0000:a4:00.0"
tap_end
