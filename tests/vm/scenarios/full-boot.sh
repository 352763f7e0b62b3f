#!/bin/bash
# full-boot.sh (full VM: run-vm.sh --full) - the host's systemd booted as PID 1 on the VM
# kernel, with what rdmad's unit will need: udevd, dbus, the journal, transient units over
# D-Bus, and udev seeing a Soft-RoCE device.
#   RDMAD_UNIT  a unit file to check with `systemd-analyze verify` (fails when unset); the
#               --bin executables are installed where its Exec*= lines expect them first
#   RDMAD_DBUS_POLICY  units/org.rdmad1.conf, installed so that rdmad may own its name
#   RDMAD_DBUS_SERVICE the D-Bus activation file (units/org.rdmad1.service.in)
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
is "the kernel is the VM's" "$(uname -r)" "$(ls /lib/modules)"
diag "system state: $(systemctl is-system-running 2>&1)"
diag "failed units: $(systemctl list-units --state=failed --no-legend --plain | awk '{print $1}')"
for unit in systemd-journald.service systemd-udevd.service dbus.socket; do
	check "$unit is active" systemctl is-active --quiet "$unit"
done
# dbus.service is socket-activated: the first client starts it
check "busctl talks to the system bus" logged /tmp/busctl.log \
	busctl --system --no-pager list --acquired
check "dbus.service is active" systemctl is-active --quiet dbus.service
check "a transient unit runs over D-Bus (systemd-run --wait)" \
	systemd-run --wait --quiet --collect -p Type=oneshot /bin/true

if [ -n "${RDMAD_UNIT:-}" ]; then
	check "the built binaries are installed where $(basename "$RDMAD_UNIT") expects them" \
		install_unit_binaries "$RDMAD_UNIT"
	check "systemd-analyze verify $(basename "$RDMAD_UNIT")" \
		systemd-analyze verify --man=no "$RDMAD_UNIT"
else
	fail "the built binaries are installed where rdmad.service expects them" "no RDMAD_UNIT given"
	fail "systemd-analyze verify of rdmad.service" "no RDMAD_UNIT given"
fi

# udev processes Soft-RoCE devices: modules come from the VM kernel's tree (9p)
check "modprobe rdma_rxe, rdma_ucm, veth" modprobe -a rdma_rxe rdma_ucm veth
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
check "configfs rdma_cm is there" test -d /sys/kernel/config/rdma_cm
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
check "rdma link add rxe0" rdma link add rxe0 type rxe netdev veth0
check "udevadm settle" udevadm settle --timeout=30
check "udev knows rxe0 (subsystem infiniband)" \
	bash -c 'udevadm info -q property /sys/class/infiniband/rxe0 | grep -qx SUBSYSTEM=infiniband'
check "udev made /dev/infiniband/uverbs0" test -c /dev/infiniband/uverbs0

# ---- rdmad.service: started by systemd, sandboxed, Type=notify, reloads ----------------------
if [ -n "${RDMAD_UNIT:-}" ] && command -v rdmad > /dev/null; then
	TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
	mkdir -p /etc/rdmad
	printf 'match: {device: rxe0}\nroce: {tos: 106}\n' > /etc/rdmad/50-rxe.yaml
	cp "$RDMAD_UNIT" /run/systemd/system/rdmad.service
	if ldd "$(command -v rdmad)" | grep -q libasan; then
		# A sanitizer build: LeakSanitizer stops the world with ptrace, which the unit's
		# system call filter forbids ("LeakSanitizer has encountered a fatal error").
		# Leaks are checked by the other tiers; here ASan and UBSan still run.
		mkdir -p /run/systemd/system/rdmad.service.d
		printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' \
			> /run/systemd/system/rdmad.service.d/asan.conf
	fi
	systemctl daemon-reload
	if [ -n "${RDMAD_DBUS_POLICY:-}" ]; then
		install -D -m 644 "$RDMAD_DBUS_POLICY" /etc/dbus-1/system.d/org.rdmad1.conf
		busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
			ReloadConfig
	else
		fail "the D-Bus policy is installed" "no RDMAD_DBUS_POLICY given"
	fi
	check "systemctl start rdmad (Type=notify: returns after READY=1)" \
		timeout 60 systemctl start rdmad
	check "rdmad.service is active" systemctl is-active --quiet rdmad
	is "the sandboxed daemon set the ToS before READY=1" "$(attr "$TOS")" 106
	status=$(systemctl show -p StatusText --value rdmad)
	diag "StatusText: $status"
	check "STATUS= counts the converged link" grep -q '1 converged' <<< "$status"
	check "the journal has rdmad's fields (journalctl RDMA_DEVICE=rxe0)" \
		wait_until 5 sh -c "journalctl -q RDMA_DEVICE=rxe0 -o cat | grep -q converged"

	# ---- org.rdmad1 on the real system bus, and rdmactl's online commands ------------------
	check "rdmad owns org.rdmad1 on the system bus" \
		wait_until 10 busctl --system status org.rdmad1
	rdmactl status --no-pager > "$VM_LOGDIR/status.txt" 2>&1
	check "rdmactl status shows rxe0/1 (veth0) converged" \
		grep -Eq '^rxe0/1 +veth0 +rdma_rxe +[0-9]+ +50-rxe.yaml +converged$' "$VM_LOGDIR/status.txt"
	is "Link.RoceTos over the bus" \
		"$(busctl --system get-property org.rdmad1 /org/rdmad1/link/rxe0_2f1 org.rdmad1.Link RoceTos)" \
		"i 106"
	gid=$(rdmactl gid rxe0/1)
	is "rdmactl gid (from rdmad) equals the GID index read from sysfs (--root /)" \
		"$gid" "$(rdmactl gid --root / rxe0/1)"
	is "... and it is the RoCE v2 GID of 192.0.2.1" \
		"$(attr /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/"$gid") $(attr /sys/class/infiniband/rxe0/ports/1/gids/"$gid")" \
		"RoCE v2 0000:0000:0000:0000:0000:ffff:c000:0201"
	timeout 60 ib_write_bw -d rxe0 -x "$gid" -n 100 -p 18520 > "$VM_LOGDIR/bw-server.log" 2>&1 &
	bw=$!
	sleep 1
	check "ib_write_bw -x \$(rdmactl gid rxe0/1) passes (loopback on rxe0)" \
		logged "$VM_LOGDIR/bw-client.log" timeout 60 ib_write_bw -d rxe0 -x "$gid" -n 100 \
		-p 18520 192.0.2.1
	wait "$bw"
	check "ib_write_bw server side completed" test $? -eq 0
	check "nobody reads status over the bus" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl status --no-pager
	check "nobody may not reload" \
		sh -c 'setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl reload 2>&1 |
			grep -q "needs root"'

	printf 'roce:\n  tos: 999\n' > /etc/rdmad/60-broken.yaml
	rc=0
	timeout 60 systemctl reload rdmad > /tmp/reload.log 2>&1 || rc=$?
	check "systemctl reload with a broken profile fails" test "$rc" -ne 0
	check "... and rdmad keeps running" systemctl is-active --quiet rdmad
	check "... the error names file:line:col" \
		sh -c "journalctl -q -u rdmad -o cat | grep -q '60-broken.yaml:2:8: error'"
	rm /etc/rdmad/60-broken.yaml
	sed -i 's/tos: 106/tos: 96/' /etc/rdmad/50-rxe.yaml
	check "systemctl reload with good profiles succeeds" timeout 60 systemctl reload rdmad
	check "... and re-plans the host" wait_until 5 sh -c "[ \"\$(cat $TOS)\" = 96 ]"
	check "systemctl stop rdmad" timeout 60 systemctl stop rdmad

	# D-Bus activation: a call to org.rdmad1 with rdmad stopped starts rdmad.service
	if [ -n "${RDMAD_DBUS_SERVICE:-}" ]; then
		install -D -m 644 "$RDMAD_DBUS_SERVICE" \
			/usr/share/dbus-1/system-services/org.rdmad1.service
		busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
			ReloadConfig
		check "a call to org.rdmad1 starts rdmad.service (bus activation, SystemdService=)" \
			logged "$VM_LOGDIR/activation.log" timeout 60 \
			busctl --system call org.rdmad1 /org/rdmad1 org.rdmad1.Manager ListLinks
		check "... rdmad.service is active" systemctl is-active --quiet rdmad
		check "systemctl stop rdmad, again" timeout 60 systemctl stop rdmad
	else
		fail "D-Bus activation starts rdmad.service" "no RDMAD_DBUS_SERVICE given"
	fi
else
	fail "rdmad.service starts" "no RDMAD_UNIT or no rdmad (--bin) given"
fi

done_testing
