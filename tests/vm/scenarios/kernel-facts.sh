#!/bin/bash
# kernel-facts.sh (light VM) - the kernel behaviour rdmad is built on, asserted, so that a
# kernel upgrade that changes any of it fails here first (DESIGN.md, "Kernel interfaces"):
#   - RDMA netlink: NLDEV GET (rdma dev), PORT_GET (rdma link), NEWLINK/DELLINK (rdma link
#     add/del), SYS_GET (rdma system)
#   - the rxe GID table follows the netdev's IPv4/IPv6 addresses, every entry "RoCE v2";
#     empty slots read as zeros and their gid_attrs/{types,ndevs} fail with EINVAL
#   - configfs rdma_cm: default_roce_mode/tos, their errors, tos survives rmdir+mkdir but is
#     reset to 0 when the device is deleted and added again
#   - uevents for infiniband and infiniband_verbs add/remove
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

IB=/sys/class/infiniband
PORT=$IB/rxe0/ports/1
CM=/sys/kernel/config/rdma_cm

check "modules rdma_rxe, rdma_ucm, ib_uverbs, veth load" rxe_modules || bail "no RDMA modules"
check "configfs has rdma_cm" test -d "$CM"
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
ip addr add 192.0.2.2/24 dev veth1

# kernel uevents come on NETLINK_KOBJECT_UEVENT; no udevd needed
udevadm monitor --kernel --subsystem-match=infiniband --subsystem-match=infiniband_verbs \
	> /tmp/uevents.log 2>&1 &
monitor=$!
wait_until 20 grep -q '^KERNEL - ' /tmp/uevents.log

# ---- RDMA netlink ----------------------------------------------------------------------------
check "NEWLINK: rdma link add rxe0 type rxe netdev veth0" \
	rdma link add rxe0 type rxe netdev veth0 || bail "cannot add rxe0"
is "NLDEV GET lists rxe0" "$(rdma -j dev show | jq -r '.[].ifname')" rxe0
link=$(rdma -j link show rxe0/1)
is "PORT_GET: rxe0/1 is ACTIVE/LINK_UP on veth0" \
	"$(jq -r '.[0] | "\(.state) \(.physical_state) \(.netdev)"' <<< "$link")" \
	"ACTIVE LINK_UP veth0"
# (iproute2 6.1 prints `rdma system show` as text even with -j)
is "SYS_GET: netns mode is shared" "$(rdma system show | awk '$1 == "netns" { print $2 }')" shared
is "sysfs: port state, phys_state, link_layer" \
	"$(attr "$PORT/state"), $(attr "$PORT/phys_state"), $(attr "$PORT/link_layer")" \
	"4: ACTIVE, 5: LinkUp, Ethernet"

# ---- GID table ---------------------------------------------------------------------------
slots=$(find "$PORT/gids" -mindepth 1 | wc -l)
is "rxe has 1024 GID slots" "$slots" 1024

# GID 0: the IPv6 link-local address from the MAC (EUI-64: flip the U/L bit, insert ff:fe)
IFS=: read -r m1 m2 m3 m4 m5 m6 < /sys/class/net/veth0/address
lladdr=$(printf 'fe80:0000:0000:0000:%02x%s:%sff:fe%s:%s%s' \
	$((0x$m1 ^ 2)) "$m2" "$m3" "$m4" "$m5" "$m6")
is "GID 0 is the link-local address" "$(attr "$PORT/gids/0")" "$lladdr"
is "GID 0 is RoCE v2 on veth0" \
	"$(attr "$PORT/gid_attrs/types/0") $(attr "$PORT/gid_attrs/ndevs/0")" "RoCE v2 veth0"

v4gid=$(gid_of_ipv4 192.0.2.1)
if i=$(gid_index rxe0 1 "$v4gid"); then
	pass "IPv4 192.0.2.1 has the IPv4-mapped GID $v4gid"
	is "the IPv4 GID is RoCE v2 on veth0" \
		"$(attr "$PORT/gid_attrs/types/$i") $(attr "$PORT/gid_attrs/ndevs/$i")" "RoCE v2 veth0"
else
	fail "IPv4 192.0.2.1 has the IPv4-mapped GID $v4gid"
	fail "the IPv4 GID is RoCE v2 on veth0"
fi

v6gid=2001:0db8:0000:0000:0000:0000:0000:0001
ip addr add 2001:db8::1/64 dev veth0 nodad
check "adding 2001:db8::1 adds its GID" wait_until 20 has_gid rxe0 1 "$v6gid"
i=$(gid_index rxe0 1 "$v6gid") && is "the IPv6 GID is RoCE v2" \
	"$(attr "$PORT/gid_attrs/types/$i")" "RoCE v2"

v4gid2=$(gid_of_ipv4 192.0.2.11)
ip addr add 192.0.2.11/24 dev veth0
check "adding 192.0.2.11 adds its GID" wait_until 20 has_gid rxe0 1 "$v4gid2"
slot=$(gid_index rxe0 1 "$v4gid2")
ip addr del 192.0.2.11/24 dev veth0
check "deleting 192.0.2.11 removes its GID" wait_until 20 lacks_gid rxe0 1 "$v4gid2"
is "its slot reads as zeros again" "$(attr "$PORT/gids/${slot:-1023}")" "$ZERO_GID"

types=$(for f in "$PORT"/gid_attrs/types/*; do attr "$f" 2> /dev/null; done | sort | uniq -c)
is "every populated slot is RoCE v2 (rxe has no RoCE v1)" "$(awk '{$1=""; print}' <<< "$types")" \
	" RoCE v2"
is "an empty slot reads as zeros" "$(attr "$PORT/gids/1023")" "$ZERO_GID"
fails_with "gid_attrs/types of an empty slot: EINVAL" "Invalid argument" \
	attr "$PORT/gid_attrs/types/1023"
fails_with "gid_attrs/ndevs of an empty slot: EINVAL" "Invalid argument" \
	attr "$PORT/gid_attrs/ndevs/1023"

# ---- configfs rdma_cm --------------------------------------------------------------------------
P=$CM/rxe0/ports/1
check "mkdir rdma_cm/rxe0" mkdir "$CM/rxe0"
is "default_roce_mode is RoCE v2" "$(attr "$P/default_roce_mode")" "RoCE v2"
is "default_roce_tos is 0" "$(attr "$P/default_roce_tos")" 0
write "$P/default_roce_tos" 106
is "default_roce_tos 106 reads back" "$(attr "$P/default_roce_tos")" 106
fails_with "default_roce_tos 256: ERANGE" "Numerical result out of range" \
	write "$P/default_roce_tos" 256
fails_with "default_roce_mode 'IB/RoCE v1' on rxe: EINVAL" "Invalid argument" \
	write "$P/default_roce_mode" "IB/RoCE v1"
check "default_roce_mode 'RoCE v2' is accepted" write "$P/default_roce_mode" "RoCE v2"
fails_with "mkdir for an unknown device: ENODEV" "No such device" mkdir "$CM/nosuchdev"
rmdir "$CM/rxe0" && mkdir "$CM/rxe0"
is "default_roce_tos survives rmdir + mkdir" "$(attr "$P/default_roce_tos")" 106

# ---- delete and re-add ---------------------------------------------------------------------
check "DELLINK: rdma link del rxe0" rdma link del rxe0
is "rdma dev lists no device" "$(rdma -j dev show | jq length)" 0
check "sysfs rxe0 is gone" test ! -e "$IB/rxe0"
fails_with "configfs attributes of a deleted device: ENODEV" "No such device" \
	attr "$P/default_roce_tos"
check "NEWLINK again" rdma link add rxe0 type rxe netdev veth0
is "re-add reset default_roce_tos to 0" "$(attr "$P/default_roce_tos")" 0
rmdir "$CM/rxe0" && mkdir "$CM/rxe0"
is "a fresh configfs dir reads 0 too" "$(attr "$P/default_roce_tos")" 0
rmdir "$CM/rxe0"

ip link del veth0
check "deleting the netdev deletes its rxe device" wait_until 20 test ! -e "$IB/rxe0"

# ---- uevents ---------------------------------------------------------------------------------
EVENTS=("add.*/infiniband/rxe0 (infiniband)" "remove.*/infiniband/rxe0 (infiniband)"
	"add.*/infiniband_verbs/uverbs0 (infiniband_verbs)"
	"remove.*/infiniband_verbs/uverbs0 (infiniband_verbs)")
uevents_seen() {
	local ev
	for ev in "${EVENTS[@]}"; do grep -q "^KERNEL\[.*\] $ev" /tmp/uevents.log || return 1; done
}
# the monitor writes what it got when it gets it: waited for, not a fixed 0.5 s
wait_until 20 uevents_seen
kill "$monitor"
wait "$monitor" 2> /dev/null
for ev in "${EVENTS[@]}"; do
	check "uevent: ${ev/.\*/ }" grep -q "^KERNEL\[.*\] $ev" /tmp/uevents.log
done
cat /tmp/uevents.log

done_testing
