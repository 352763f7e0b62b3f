#!/bin/bash
# rdmactl.sh (light VM) - `rdmactl links` and `rdmactl gids` on real rxe devices agree with
# `rdma link show` (RDMA netlink) and with the raw sysfs files, also after addresses are
# added and removed; `rdmactl gids` (one verbs query per device) prints what `rdmactl gids
# --sysfs` does, falls back to sysfs for a device it cannot open, and the CPU time of both. rdmactl comes from the build (run-vm.sh --bin); without it this fails.
#
# The contract (JSON arrays):
#   rdmactl links [--root DIR] [--json]
#     {"link":"rxe0/1","device":"rxe0","port":1,"netdev":"veth0","driver":"rdma_rxe",
#      "state":"ACTIVE","physical_state":"LINK_UP","link_layer":"Ethernet","profiles":[]}
#   rdmactl gids [--root DIR] [--json] [DEV[/PORT]]     (populated slots only)
#     {"device":"rxe0","port":1,"index":0,"gid":"<the sysfs text of gids/N>",
#      "ipv4":"192.0.2.1" or null,"type":"RoCE v2","netdev":"veth0"}
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

IB=/sys/class/infiniband

if ! command -v rdmactl > /dev/null; then
	fail "rdmactl is on PATH" "run-vm.sh got no --bin .../rdmactl: build it first"
	bail "no rdmactl to test"
fi
pass "rdmactl is on PATH"

# ---- what rdmactl should say, from iproute2 and sysfs ------------------------------------------

expected_links() { # from RDMA netlink (rdma link show), link_layer from sysfs
	local portdir layers
	layers=$(for portdir in "$IB"/*/ports/*; do
		printf '%s/%s\t%s\n' "$(basename "${portdir%/ports/*}")" "${portdir##*/}" \
			"$(attr "$portdir/link_layer")"
	done)
	rdma -j link show | jq -S --arg layers "$layers" '
		($layers | split("\n") | map(select(length > 0) | split("\t") | {(.[0]): .[1]}) | add)
		as $layer | map({link: "\(.ifname)/\(.port)", device: .ifname, port, netdev,
			driver: "rdma_rxe", state, physical_state,
			link_layer: $layer["\(.ifname)/\(.port)"]}) | sort_by(.link)'
}

ipv4_of_gid() { # the dotted IPv4 address of an IPv4-mapped GID, or nothing
	local g=$1
	[[ "$g" == 0000:0000:0000:0000:0000:ffff:* ]] || return 0
	g=${g#0000:0000:0000:0000:0000:ffff:}
	printf '%d.%d.%d.%d' "0x${g:0:2}" "0x${g:2:2}" "0x${g:5:2}" "0x${g:7:2}"
}

expected_gids() { # [DEV[/PORT]]: every populated slot, straight from sysfs
	local want=${1:-} want_dev want_port="" portdir dev port f gid type ndev
	want_dev=${want%%/*}
	[[ "$want" != */* ]] || want_port=${want#*/}
	for portdir in "$IB"/*/ports/*; do
		dev=${portdir#"$IB"/}
		dev=${dev%%/*}
		port=${portdir##*/}
		[ -z "$want_dev" ] || [ "$dev" = "$want_dev" ] || continue
		[ -z "$want_port" ] || [ "$port" = "$want_port" ] || continue
		for f in "$portdir"/gids/*; do
			read -r gid < "$f"
			[ "$gid" != "$ZERO_GID" ] || continue
			type=$(attr "$portdir/gid_attrs/types/${f##*/}" 2> /dev/null) || continue
			ndev=$(attr "$portdir/gid_attrs/ndevs/${f##*/}" 2> /dev/null)
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dev" "$port" "${f##*/}" "$gid" \
				"$(ipv4_of_gid "$gid")" "$type" "$ndev"
		done
	done | jq -R -s -S 'split("\n") | map(select(length > 0) | split("\t") |
		{device: .[0], port: (.[1] | tonumber), index: (.[2] | tonumber), gid: .[3],
		 ipv4: (if .[4] == "" then null else .[4] end), type: .[5], netdev: .[6]})
		| sort_by(.device, .port, .index)'
}

actual_links() { # rdmactl links ARGS..., the contract's fields but profiles, sorted
	rdmactl links "$@" | jq -S 'map({link, device, port, netdev, driver, state,
		physical_state, link_layer}) | sort_by(.link)'
}
actual_gids() { # rdmactl gids ARGS..., sorted
	rdmactl gids "$@" | jq -S 'map({device, port, index, gid, ipv4, type, netdev})
		| sort_by(.device, .port, .index)'
}

agree() { # agree NAME EXPECTED ACTUAL: equal JSON, or a failure with the diff
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "$(diff -U2 -L expected -L rdmactl <(echo "$2") <(echo "$3"))"
	fi
}

# ---- two rxe devices ---------------------------------------------------------------------------
rxe_pair

# ---- links -------------------------------------------------------------------------------------
check "rdmactl links exits 0" logged /tmp/links.txt rdmactl links
check "rdmactl links --json is a JSON array" jq -e 'type == "array"' \
	< <(rdmactl links --json)
agree "links --json agrees with rdma link show and sysfs" "$(expected_links)" \
	"$(actual_links --json)"
check "every link has a profiles array" jq -e 'all(.profiles | type == "array")' \
	< <(rdmactl links --json)
states=$(for p in "$IB"/*/ports/*; do s=$(attr "$p/state"); echo "${s#*: }"; done | sort)
is "link states agree with sysfs state" \
	"$(rdmactl links --json | jq -r '.[].state' | sort)" "$states"
agree "links --root / is the same" "$(actual_links --json)" "$(actual_links --root / --json)"

# ---- gids --------------------------------------------------------------------------------------
check "rdmactl gids exits 0" logged /tmp/gids.txt rdmactl gids
agree "gids --json agrees with sysfs" "$(expected_gids)" "$(actual_gids --json)"
agree "gids --json rxe0 agrees with sysfs" "$(expected_gids rxe0)" "$(actual_gids --json rxe0)"
agree "gids --json rxe1/1 agrees with sysfs" "$(expected_gids rxe1/1)" \
	"$(actual_gids --json rxe1/1)"
agree "gids --root / is the same" "$(actual_gids --json)" "$(actual_gids --root / --json)"
is "the IPv4 GID of rxe0 says ipv4 192.0.2.1" \
	"$(rdmactl gids --json rxe0 | jq -r --arg g "$(gid_of_ipv4 192.0.2.1)" \
		'.[] | select(.gid == $g) | .ipv4')" 192.0.2.1

# ---- after address changes -------------------------------------------------------------------
v4gid=$(gid_of_ipv4 192.0.2.11)
v6gid=2001:0db8:0000:0000:0000:0000:0000:0011
ip addr add 192.0.2.11/24 dev veth0
ip addr add 2001:db8::11/64 dev veth0 nodad
if ! { wait_until 20 has_gid rxe0 1 "$v4gid" && wait_until 20 has_gid rxe0 1 "$v6gid"; }; then
	bail "the new addresses got no GIDs"
fi
agree "after adding addresses: gids agree with sysfs" "$(expected_gids)" "$(actual_gids --json)"
is "the new IPv4 GID is listed with its index and ipv4" \
	"$(rdmactl gids --json rxe0/1 | jq -r --arg g "$v4gid" \
		'.[] | select(.gid == $g) | "\(.index) \(.ipv4) \(.type) \(.netdev)"')" \
	"$(gid_index rxe0 1 "$v4gid") 192.0.2.11 RoCE v2 veth0"
is "the new IPv6 GID is listed with ipv4 null" \
	"$(rdmactl gids --json rxe0 | jq -r --arg g "$v6gid" '.[] | select(.gid == $g) | .ipv4')" \
	null

ip addr del 192.0.2.11/24 dev veth0
ip addr del 2001:db8::11/64 dev veth0
if ! { wait_until 20 lacks_gid rxe0 1 "$v4gid" && wait_until 20 lacks_gid rxe0 1 "$v6gid"; }; then
	bail "the GIDs of the removed addresses stay"
fi
agree "after removing them: gids agree with sysfs" "$(expected_gids)" "$(actual_gids --json)"
is "the removed GIDs are gone" \
	"$(rdmactl gids --json | jq --arg a "$v4gid" --arg b "$v6gid" \
		'map(select(.gid == $a or .gid == $b)) | length')" 0

# ---- gids: one verbs query per device, sysfs as the fallback ----------------------------------
# On the live host rdmactl gids asks each device's whole table of the kernel in one
# ibv_query_gid_table(); --sysfs reads three files per slot. Four devices, each netdev with two
# IPv4 and two global IPv6 addresses: both paths print the same bytes. That the query answered
# is shown by hiding the sysfs GID tables under an empty tmpfs (a sysfs read, ours or
# libibverbs' own fallback on a kernel without the method, then finds nothing); the fallback by
# making one device's uverbs node unopenable.
veth_pair veth2 veth3 || bail "cannot create veth2/veth3"
rdma link add rxe2 type rxe netdev veth2 || bail "cannot add rxe2"
rdma link add rxe3 type rxe netdev veth3 || bail "cannot add rxe3"
for i in 0 1 2 3; do
	ip addr add "198.51.100.$((i + 1))/24" dev "veth$i"
	ip addr add "203.0.113.$((i + 1))/24" dev "veth$i"
	ip addr add "2001:db8:$i::1/64" dev "veth$i" nodad
	ip addr add "2001:db8:$i::2/64" dev "veth$i" nodad
done
for i in 0 1 2 3; do
	if ! { wait_until 20 has_gid "rxe$i" 1 "$(gid_of_ipv4 "203.0.113.$((i + 1))")" &&
		wait_until 20 has_gid "rxe$i" 1 \
			"$(printf '2001:0db8:%04x:0000:0000:0000:0000:0002' "$i")"; }; then
		bail "rxe$i has not got the GIDs of its addresses"
	fi
done

# shellcheck disable=SC2317 # called through wait_until
gids_paths_agree() { # the two paths print the same bytes, text and JSON (/tmp/gids-*.json)
	rdmactl gids --json > /tmp/gids-verbs.json && rdmactl gids --sysfs --json > /tmp/gids-sysfs.json &&
		cmp -s /tmp/gids-verbs.json /tmp/gids-sysfs.json &&
		cmp -s <(rdmactl gids) <(rdmactl gids --sysfs)
}
# the link-local GIDs come when DAD is done: the tables settle, then must agree
if wait_until 20 gids_paths_agree; then
	pass "gids --json is gids --sysfs --json, byte for byte (and the text)"
else
	fail "gids --json is gids --sysfs --json, byte for byte (and the text)" \
		"$(diff -U2 -L sysfs -L verbs /tmp/gids-sysfs.json /tmp/gids-verbs.json)"
fi
agree "gids --sysfs --json agrees with sysfs" "$(expected_gids)" "$(actual_gids --sysfs --json)"
n_gids=$(jq length /tmp/gids-sysfs.json)
n_slots=$(find "$IB"/rxe*/ports/*/gids/ -mindepth 1 | wc -l)
diag "4 rxe devices, $n_gids GIDs in $n_slots slots"

# CPU time of each path over the same devices: a figure, never a verdict
cpu_of() { # cpu_of RUNS CMD...: user+sys seconds of RUNS runs of CMD
	local runs=$1 TIMEFORMAT='%3U %3S' t k
	shift
	t=$({ time for ((k = 0; k < runs; k++)); do "$@" > /dev/null 2>&1; done; } 2>&1)
	awk '{ printf "%.3f", $1 + $2 }' <<< "$t"
}
runs=20
cpu_verbs=$(cpu_of "$runs" rdmactl gids --json)
cpu_sysfs=$(cpu_of "$runs" rdmactl gids --sysfs --json)
diag "rdmactl gids --json CPU time (user+sys), $runs runs each, 4 devices, $n_gids GIDs:" \
	"$(awk -v v="$cpu_verbs" -v s="$cpu_sysfs" -v r="$runs" 'BEGIN {
		ratio = v > 0 ? s / v : 0
		printf "verbs %.1f ms/run, sysfs (--sysfs) %.1f ms/run, sysfs/verbs %.2f",
			v * 1000 / r, s * 1000 / r, ratio }')"
if command -v strace > /dev/null; then
	opened() { # opened CMD...: how many GID slot files (gids/N, gid_attrs/*/N) CMD opens,
		# by a path relative to a port's directory or a full one
		strace -f -qq -e trace=open,openat -o /tmp/gids.strace "$@" > /dev/null 2>&1
		grep -cE '["/](gids|gid_attrs/types|gid_attrs/ndevs)/[0-9]+"' /tmp/gids.strace
	}
	opened_verbs=$(opened rdmactl gids --json)
	opened_sysfs=$(opened rdmactl gids --sysfs --json)
	check "strace counts the GID files the sysfs path opens" test "$opened_sysfs" -gt 0
	is "the verbs path opens no GID file" "$opened_verbs" 0
	diag "GID slot files opened: verbs path $opened_verbs, sysfs path $opened_sysfs"
else
	diag "no strace in the image: GID files opened not counted"
fi

# hide every sysfs GID table: the query still answers every device
hidden=()
for d in "$IB"/rxe*/ports/1/gids; do
	mount -t tmpfs -o size=4k,mode=555 tmpfs "$d" && hidden+=("$d")
done
is "the sysfs GID tables are hidden (gids --sysfs lists none)" \
	"$(rdmactl gids --sysfs --json | jq length)" 0
check "with them hidden, gids --json is unchanged: the verbs query answered every device" \
	cmp /tmp/gids-sysfs.json <(rdmactl gids --json)

# rxe1's uverbs node unopenable (/dev/null bound over it): rxe1 is read from sysfs
uverbs1=""
for f in /sys/class/infiniband_verbs/uverbs*/ibdev; do
	[ "$(attr "$f")" = rxe1 ] && uverbs1=/dev/infiniband/$(basename "$(dirname "$f")")
done
if [ -n "$uverbs1" ] && mount --bind /dev/null "$uverbs1"; then
	is "rxe1 unopenable, its table hidden: rxe1 has no GIDs, the others all theirs" \
		"$(rdmactl gids --json | jq -c .)" \
		"$(jq -c 'map(select(.device != "rxe1"))' /tmp/gids-sysfs.json)"
	umount "$IB/rxe1/ports/1/gids"
	check "rxe1 unopenable, its table back: gids --json is unchanged (rxe1 from sysfs)" \
		cmp /tmp/gids-sysfs.json <(rdmactl gids --json)
	umount "$uverbs1"
else
	fail "rxe1's uverbs node made unopenable" "uverbs node '$uverbs1'"
fi
for d in "${hidden[@]}"; do umount "$d" 2> /dev/null; done
check "the tables are back: gids --sysfs --json is as before" \
	cmp /tmp/gids-sysfs.json <(rdmactl gids --sysfs --json)

rdma link del rxe2
rdma link del rxe3
ip link del veth2
for i in 0 1; do
	ip addr flush dev "veth$i" to 198.51.100.0/24
	ip addr flush dev "veth$i" to 203.0.113.0/24
	ip addr del "2001:db8:$i::1/64" dev "veth$i"
	ip addr del "2001:db8:$i::2/64" dev "veth$i"
done

# ---- after a device goes away ------------------------------------------------------------------
rdma link del rxe1
agree "after rdma link del rxe1: links agree" "$(expected_links)" "$(actual_links --json)"
agree "after rdma link del rxe1: gids agree" "$(expected_gids)" "$(actual_gids --json)"

cat /tmp/links.txt /tmp/gids.txt
done_testing
