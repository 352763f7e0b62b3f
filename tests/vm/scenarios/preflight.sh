#!/bin/bash
# preflight.sh (full VM: run-vm.sh --full) - `rdmactl preflight` on a real host: systemd as
# PID 1, udev, the host's rdma-core and libibverbs providers, Soft-RoCE. A host set up right
# has no failing check; then each break the issue names makes its check fail (or warn) with
# a fix, and repairing it clears it. Then rdmad installed with `meson install` serves
# Preflight() (to anyone) and SelfTest() (to root) over the real system bus, through a
# transient service (systemd-run), out of its sandbox.
#   RDMAD_BUILD_DIR  the meson build directory to install from (fails when unset)
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

meson_install_rdmad

# ---- a host set up right -----------------------------------------------------------------
rxe_modules || bail "no RDMA modules"
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
ip addr add 198.51.100.2/24 dev veth1
rdma link add rxe0 type rxe netdev veth0 || bail "cannot add rxe0"
udevadm settle --timeout=30
wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 192.0.2.1)" || bail "rxe0 has no IPv4 GID"
# RDMA pins memory: services and logins get no memlock limit (the fixes preflight names).
mkdir -p /etc/systemd/system.conf.d /etc/security/limits.d
printf '[Manager]\nDefaultLimitMEMLOCK=infinity\n' > /etc/systemd/system.conf.d/rdma.conf
printf '* soft memlock unlimited\n* hard memlock unlimited\n' \
	> /etc/security/limits.d/90-rdma.conf
systemctl daemon-reexec
mkdir -p /etc/rdmad
printf 'match: {device: rxe0}\nroce: {mode: v2, tos: 106}\n' > /etc/rdmad/50-rxe.yaml
systemctl daemon-reload
check "systemctl start rdmad" timeout 60 systemctl start rdmad

# status CHECK SUBJECT: the status of that row of the last run ("" when there is none)
status() {
	jq -r --arg c "$1" --arg s "$2" \
		'[.[] | select(.check == $c and .subject == $s) | .status] | first // ""' \
		"$VM_LOGDIR/preflight.json"
}
fix() {
	jq -r --arg c "$1" --arg s "$2" \
		'[.[] | select(.check == $c and .subject == $s) | .fix] | first // ""' \
		"$VM_LOGDIR/preflight.json"
}
preflight() { # preflight [ARGS]: rdmactl preflight --json into preflight.json; its exit status
	rdmactl preflight --json "$@" > "$VM_LOGDIR/preflight.json" 2> "$VM_LOGDIR/preflight.err"
}
failing() { jq -r '.[] | select(.status == "fail") | "\(.check) \(.subject): \(.seen)"' \
	"$VM_LOGDIR/preflight.json"; }
# broken NAME CHECK SUBJECT STATUS: after a break, the row says STATUS and names a fix
broken() {
	local rc=0
	preflight || rc=$?
	is "$1: $2 $3 is $4" "$(status "$2" "$3")" "$4"
	check "... with a fix ($(fix "$2" "$3"))" test -n "$(fix "$2" "$3")"
	if [ "$4" = fail ]; then
		is "... and rdmactl preflight exits 1" "$rc" 1
	fi
}
# repaired NAME CHECK SUBJECT: after the repair, the row is ok again
repaired() {
	preflight
	is "$1 repaired: $2 $3 is ok" "$(status "$2" "$3")" ok
}

rc=0
preflight || rc=$?
is "a host set up right: rdmactl preflight exits 0" "$rc" 0
is "... no check fails" "$(failing)" ""
diag "warnings: $(jq -r '.[] | select(.status == "warn") | "\(.check) \(.subject)"' \
	"$VM_LOGDIR/preflight.json" | tr '\n' ';')"
is "... rdmad is running and rxe0/1 converged" \
	"$(status rdmad.running host) $(status rdmad.link rxe0/1)" "ok ok"
is "... libibverbs sees rxe0, through its provider" \
	"$(status userspace.ibverbs rxe0) $(status userspace.provider rxe0)" "ok ok"
is "... the memlock limits are unlimited" \
	"$(status userspace.memlock services) $(status userspace.memlock login-sessions)" "ok ok"
check "... the GID row names the index rdmactl gid gives" \
	sh -c "jq -r '.[] | select(.check == \"network.gid-index\" and .subject == \"rxe0/1\" and .status == \"ok\") | .seen' $VM_LOGDIR/preflight.json | grep -q 'GID index $(rdmactl gid rxe0/1) '"
rdmactl preflight > "$VM_LOGDIR/preflight.txt" 2>&1
check "the text says READY" grep -q '^READY' "$VM_LOGDIR/preflight.txt"
check "as nobody too (no fail: the device nodes are for everyone)" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl preflight --json

# ---- each break, and its repair -----------------------------------------------------------
modprobe -r rdma_ucm
broken "rdma_ucm unloaded" kernel.module rdma_ucm fail
modprobe rdma_ucm
udevadm settle --timeout=30
repaired "rdma_ucm" kernel.module rdma_ucm

# The provider's libibverbs.d entry hidden (an empty file over it): libibverbs no longer
# binds rxe0 to librxe.
mount --bind /dev/null /etc/libibverbs.d/rxe.driver
broken "rxe.driver hidden" userspace.provider rxe0 fail
is "... and libibverbs does not see rxe0" "$(status userspace.ibverbs rxe0)" fail
umount /etc/libibverbs.d/rxe.driver
repaired "rxe.driver" userspace.provider rxe0
is "... libibverbs sees rxe0 again" "$(status userspace.ibverbs rxe0)" ok

umount /sys/kernel/config
broken "configfs unmounted" kernel.configfs host fail
mount -t configfs configfs /sys/kernel/config
repaired "configfs" kernel.configfs host

printf '[Manager]\nDefaultLimitMEMLOCK=8M\n' > /etc/systemd/system.conf.d/rdma.conf
systemctl daemon-reexec
broken "DefaultLimitMEMLOCK=8M" userspace.memlock services warn
printf '* hard memlock 8192\n* soft memlock 8192\n' > /etc/security/limits.d/90-rdma.conf
broken "limits.d memlock 8192 KiB" userspace.memlock login-sessions warn
printf '[Manager]\nDefaultLimitMEMLOCK=infinity\n' > /etc/systemd/system.conf.d/rdma.conf
systemctl daemon-reexec
printf '* soft memlock unlimited\n* hard memlock unlimited\n' \
	> /etc/security/limits.d/90-rdma.conf
repaired "services' memlock" userspace.memlock services
is "login sessions' memlock repaired too" "$(status userspace.memlock login-sessions)" ok

# Multi-rail: a second link in the same subnet, without per-interface routing.
ip addr del 198.51.100.2/24 dev veth1
ip addr add 192.0.2.2/24 dev veth1
rdma link add rxe1 type rxe netdev veth1 || fail "rdma link add rxe1"
wait_until 20 has_gid rxe1 1 "$(gid_of_ipv4 192.0.2.2)"
broken "two links in 192.0.2.0/24" network.multi-rail veth0 warn
is "... and for veth1" "$(status network.multi-rail veth1)" warn
check "... naming both netdevs and the subnet" sh -c "jq -r '.[] | select(.check == \"network.multi-rail\" and .subject == \"veth0\") | .seen' $VM_LOGDIR/preflight.json | grep veth1 | grep -q 192.0.2.0/24"
# The fix it names: a table per interface, a rule from each address, the ARP sysctls.
for i in 0 1; do
	ip route add 192.0.2.0/24 dev veth$i src 192.0.2.$((i + 1)) table $((101 + i))
	ip rule add from 192.0.2.$((i + 1)) lookup $((101 + i)) pref $((1001 + i))
	sysctl -qw net.ipv4.conf.veth$i.arp_ignore=1 net.ipv4.conf.veth$i.arp_announce=2 \
		net.ipv4.conf.veth$i.rp_filter=2
done
repaired "per-interface routing" network.multi-rail veth0
is "... and for veth1" "$(status network.multi-rail veth1)" ok

ip link set veth0 down
broken "veth0 down" network.netdev rxe0/1 fail
ip link set veth0 up
wait_until 20 sh -c '[ "$(cat /sys/class/infiniband/rxe0/ports/1/state)" = "4: ACTIVE" ]'
repaired "veth0" network.netdev rxe0/1

# ---- over D-Bus: Preflight() to anyone, SelfTest() to root, out of rdmad's sandbox --------
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${as_nobody[@]}" busctl --system --json=short call org.rdmad1 /org/rdmad1 org.rdmad1.Manager \
	Preflight > "$VM_LOGDIR/bus-preflight.json" 2>&1
jq -r '.data[0]' "$VM_LOGDIR/bus-preflight.json" > "$VM_LOGDIR/preflight.json"
is "Preflight() as nobody: rdmad.running ok" "$(status rdmad.running host)" ok
# Inside rdmad's sandbox (PrivateDevices=yes) there is no /dev/infiniband: the run must be
# out of it to see the device nodes and what libibverbs sees.
is "... run outside the sandbox: it sees /dev/infiniband and libibverbs sees rxe0" \
	"$(status userspace.ibverbs rxe0)" ok
check "... as a transient service of its own" \
	sh -c "journalctl -q -o cat | grep -Eq 'rdmad-preflight-[0-9]+-[0-9]+.service'"
is "... no check fails" "$(failing)" ""

busctl --system --json=short call org.rdmad1 /org/rdmad1 org.rdmad1.Manager SelfTest ssuuu \
	rxe0/1 "" 4096 50 60 > "$VM_LOGDIR/bus-selftest.json" 2>&1
jq -r '.data[0]' "$VM_LOGDIR/bus-selftest.json" > "$VM_LOGDIR/selftest.json"
is "SelfTest(rxe0/1) as root, loopback: pass" "$(jq -r .result "$VM_LOGDIR/selftest.json")" pass
check "... with a latency distribution (0 < p50 <= p99 <= max)" \
	jq -e '.latency_usec.p50 > 0 and .latency_usec.p50 <= .latency_usec.p99 and
		.latency_usec.p99 <= .latency_usec.max' "$VM_LOGDIR/selftest.json"
check "... and a bandwidth" jq -e '.bandwidth_bps > 0' "$VM_LOGDIR/selftest.json"
diag "SelfTest: $(jq -c '{setup_usec, latency_usec, bandwidth_bps}' "$VM_LOGDIR/selftest.json")"
check "... run as a transient service too" \
	sh -c "journalctl -q -o cat | grep -Eq 'rdmad-selftest-[0-9]+-[0-9]+.service'"
# (dbus-send: busctl prints any AccessDenied as "Access denied", without rdmad's message)
is "SelfTest() as nobody: AccessDenied naming the polkit action (polkitd answers: not authorized)" \
	"$("${as_nobody[@]}" dbus-send --system --print-reply --dest=org.rdmad1 /org/rdmad1 \
		org.rdmad1.Manager.SelfTest string:rxe0/1 string: uint32:0 uint32:0 uint32:0 2>&1)" \
	"Error org.freedesktop.DBus.Error.AccessDenied: Not authorized for org.rdmad1.selftest: needs root or polkit's authorization"
check "rdmad still running" systemctl is-active --quiet rdmad
check "systemctl stop rdmad" timeout 60 systemctl stop rdmad

done_testing
