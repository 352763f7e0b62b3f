#!/bin/bash
# deb.sh (full VM: run-vm.sh --full) - rdmad's Debian package installed with dpkg on a host
# booted with systemd: its maintainer scripts enable and start rdmad.service, the shipped
# profile is loaded, org.rdmad1 answers root and nobody, the installed alerting rules pass
# promtool, a drop-in in /etc/rdmad takes effect on `systemctl reload rdmad`, and
# `dpkg --purge` stops rdmad and leaves nothing behind.
#   RDMAD_DEB  the package (tests/deb/build-deb.sh builds it)
# Everything rdmad needs comes from the package: no unit, policy, profile or binary is put in
# place by hand (the only file written is the test's own drop-in), and no --bin is given, so
# rdmactl and rdmad are the installed ones.
# No `set -e`: a failed check is reported and the scenario goes on.
# shellcheck disable=SC2317 # the helpers below are called through check and wait_until
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

absent() { ! test -e "$1" && ! test -L "$1"; }
unit_file_count() { systemctl list-unit-files --no-legend rdmad.service 2> /dev/null | wc -l; }
activatable() { # activatable NAME: dbus-daemon would start NAME on a call
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		ListActivatableNames | grep -q "\"$1\""
}
not_activatable() { ! activatable "$1"; }
not_installed() { ! dpkg-query -W -f '${Status}' rdmad 2> /dev/null | grep -q 'ok installed'; }
leftovers() { # leftovers LIST: paths of LIST still there, but for directories other packages
	# own (one dpkg-query for them all: each call reads every package's file list)
	local p dirs=()
	while IFS= read -r p; do
		[ "$p" != /. ] || continue
		absent "$p" && continue
		if [ -d "$p" ]; then dirs+=("$p"); else echo "$p"; fi
	done < "$1"
	[ ${#dirs[@]} -gt 0 ] || return 0
	comm -23 <(printf '%s\n' "${dirs[@]}" | sort -u) \
		<(dpkg-query -S "${dirs[@]}" 2> /dev/null | sed 's/.*: //' | sort -u)
}

if [ -z "${RDMAD_DEB:-}" ] || [ ! -f "$RDMAD_DEB" ]; then
	bail "no RDMAD_DEB package given (tests/deb/build-deb.sh)"
fi
is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
diag "system state: $(systemctl is-system-running 2>&1)"
check "rdmad is not installed before the test" not_installed
check "no rdmad.service before the test" test "$(unit_file_count)" -eq 0
check "no policy-rc.d forbids starting services (a container's, hidden by init-full.sh)" \
	absent /usr/sbin/policy-rc.d

# A Soft-RoCE link for rdmad to find when it starts (configfs is left to systemd: the unit
# wants sys-kernel-config.mount)
check "modprobe rdma_rxe, rdma_ucm, veth" modprobe -a rdma_rxe rdma_ucm veth
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
check "rdma link add rxe0" rdma link add rxe0 type rxe netdev veth0
wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 192.0.2.1)" || diag "rxe0 has no IPv4 GID yet"

# man-db's dpkg trigger (the package ships manual pages) re-indexes every manual page of the
# host, over 9p under TCG: 140 s per dpkg run, measured. Its documented switch
# (man-db/auto-update false) turns that off; the index is man-db's business, and man finds
# rdmad's pages without it (systemd-analyze verify below runs man for them).
rm -f /var/lib/man-db/auto-update

# ---- install ---------------------------------------------------------------------------------
SECONDS=0
check "dpkg -i $(basename "$RDMAD_DEB")" logged "$VM_LOGDIR/dpkg-i.log" dpkg -i "$RDMAD_DEB"
diag "dpkg -i took $SECONDS s"
dpkg -L rdmad > "$VM_LOGDIR/dpkg-L.txt"
is "rdmad is installed" "$(dpkg-query -W -f '${Status}' rdmad)" "install ok installed"
is "the package's only conffile is /etc/rdmad/README (nothing under /usr/lib/rdmad)" \
	"$(dpkg-query -W -f '${Conffiles}' rdmad | awk 'NF {print $1}')" /etc/rdmad/README
is "rdmactl on PATH is the package's" "$(command -v rdmactl)" /usr/bin/rdmactl
is "rdmad.service is enabled (by the postinst)" "$(systemctl is-enabled rdmad 2>&1)" enabled
check "... through multi-user.target.wants" \
	test -L /etc/systemd/system/multi-user.target.wants/rdmad.service
check "systemd-analyze verify rdmad.service, the man pages of Documentation= included" \
	logged "$VM_LOGDIR/verify.log" systemd-analyze verify /lib/systemd/system/rdmad.service
# Type=notify: the postinst's start returns after READY=1, so it is active at once
is "rdmad.service is active when dpkg returns (started by the postinst)" \
	"$(systemctl is-active rdmad 2>&1)" active
diag "StatusText: $(systemctl show -p StatusText --value rdmad)"
is "rdmad-wait-online.service was not started by dpkg (only units that want rdma-online.target pull it)" \
	"$(systemctl is-active rdmad-wait-online.service rdma-online.target | tr '\n' ' ')" \
	"inactive inactive "
check "systemd-analyze verify rdmad-wait-online.service rdma-online.target" \
	logged "$VM_LOGDIR/verify-online.log" systemd-analyze verify \
	/lib/systemd/system/rdmad-wait-online.service /lib/systemd/system/rdma-online.target
check "sys-kernel-config.mount mounted configfs (the unit wants it)" \
	mountpoint -q /sys/kernel/config
check "rdmad's state directory /run/rdmad/state exists (RuntimeDirectory=)" test -d /run/rdmad/state
check "/etc/rdmad exists, with its README" test -f /etc/rdmad/README
check "org.rdmad1 is activatable (the package's activation file)" wait_until 20 activatable org.rdmad1
check "polkitd knows the package's actions: org.rdmad1.reload, auth_admin_keep when active" \
	logged "$VM_LOGDIR/pkaction.txt" bash -c \
	"pkaction --verbose --action-id org.rdmad1.reload | grep -Eq 'implicit active: +auth_admin_keep'"
# The alerting rules, where the README's install table says, as the package left them (not
# gzipped, as files under /usr/share/doc would be): Prometheus's own promtool (the host's
# /usr/bin/promtool) loads each, as a rule_files: entry naming it would.
for rules in rdmad.rules.yml rdmad-probe.rules.yml; do
	check "the package ships /usr/share/rdmad/prometheus/$rules" \
		grep -qx "/usr/share/rdmad/prometheus/$rules" "$VM_LOGDIR/dpkg-L.txt"
	check "... promtool check rules passes on the installed copy" \
		logged "$VM_LOGDIR/promtool-$rules.log" promtool check rules "/usr/share/rdmad/prometheus/$rules"
done

# ---- the daemon on the system bus ------------------------------------------------------------
check "rdmad owns org.rdmad1 on the system bus" wait_until 20 busctl --system status org.rdmad1
files=$(busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager ConfigFiles 2>&1)
diag "ConfigFiles: $files"
check "the shipped /usr/lib/rdmad/00-defaults.yaml is among ConfigFiles" \
	grep -q '"/usr/lib/rdmad/00-defaults.yaml"' <<< "$files"
check "rdmactl status as root" logged "$VM_LOGDIR/status-root.txt" rdmactl status --no-pager
check "... lists rxe0/1 on veth0" grep -Eq '^rxe0/1 +veth0 ' "$VM_LOGDIR/status-root.txt"
check "rdmactl status as nobody (the package's D-Bus policy)" \
	logged "$VM_LOGDIR/status-nobody.txt" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl status --no-pager
check "rdmactl check passes (the README in /etc/rdmad is not a profile)" \
	logged "$VM_LOGDIR/check.log" rdmactl check

# ---- a drop-in in /etc/rdmad, applied on reload ----------------------------------------------
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
printf 'match: {device: rxe0}\nroce: {tos: 106}\n' > /etc/rdmad/50-rxe.yaml
check "rdmactl check passes with the drop-in" logged "$VM_LOGDIR/check-dropin.log" rdmactl check
check "systemctl reload rdmad" logged "$VM_LOGDIR/reload.log" timeout 60 systemctl reload rdmad
check "... the drop-in is among ConfigFiles" \
	sh -c 'busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager ConfigFiles |
		grep -q "\"/etc/rdmad/50-rxe.yaml\""'
check "... and rdmad set rxe0's ToS to 106 (configfs rdma_cm)" \
	wait_until 20 sh -c "[ \"\$(cat $TOS)\" = 106 ]"
diag "default_roce_tos: $(attr "$TOS" 2>&1)"
gid=$(rdmactl gid rxe0/1 2> "$VM_LOGDIR/gid.log")
is "rdmactl gid rxe0/1 answers, equal to the GID index read from sysfs" \
	"$gid" "$(rdmactl gid --root / rxe0/1 2>&1)"
is "... the RoCE v2 GID of 192.0.2.1" \
	"$(attr /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/"$gid") $(attr /sys/class/infiniband/rxe0/ports/1/gids/"$gid")" \
	"RoCE v2 $(gid_of_ipv4 192.0.2.1)"
is "the package's rdmad publishes it in /run/rdmad/env/rxe0-1.env" \
	"$(. /run/rdmad/env/rxe0-1.env 2> /dev/null && echo "$RDMA_GID_INDEX")" "$gid"
check "... and in /run/rdmad/nccl.conf (the one link agrees with itself)" \
	grep -qx "NCCL_IB_GID_INDEX=$gid" /run/rdmad/nccl.conf

check "systemctl start rdma-online.target: the package's rdmad-wait-online.service returns" \
	logged "$VM_LOGDIR/online.log" timeout 150 systemctl start rdma-online.target
is "... and both are active" \
	"$(systemctl is-active rdmad-wait-online.service rdma-online.target | tr '\n' ' ')" \
	"active active "

# ---- upgrade: the same package again takes the maintainer scripts' upgrade path ---------------
pid=$(systemctl show -p MainPID --value rdmad)
check "dpkg -i again (an upgrade, as the maintainer scripts see it)" \
	logged "$VM_LOGDIR/dpkg-i-again.log" dpkg -i "$RDMAD_DEB"
new_pid=$(systemctl show -p MainPID --value rdmad)
check "... restarted rdmad.service (a new main PID: a restart, not a reload)" \
	test "$new_pid" != "$pid" -a "$new_pid" != 0
is "... which is active" "$(systemctl is-active rdmad 2>&1)" active
status=$(systemctl show -p StatusText --value rdmad)
diag "StatusText: $status"
check "... and has rxe0 converged on the drop-in again" grep -q '1 converged' <<< "$status"

# ---- remove: the administrator's profile and the conffile stay, rdmad stops ------------------
check "dpkg --remove rdmad (with a profile of the administrator's in /etc/rdmad)" \
	logged "$VM_LOGDIR/dpkg-remove.log" dpkg --remove rdmad
is "... rdmad.service is not active" "$(systemctl is-active rdmad 2>&1)" inactive
check "... /usr/sbin/rdmad is gone" absent /usr/sbin/rdmad
check "... /etc/rdmad/50-rxe.yaml is kept" test -f /etc/rdmad/50-rxe.yaml
check "... and the conffile /etc/rdmad/README, until a purge" test -f /etc/rdmad/README
is "... dpkg keeps rdmad's configuration" "$(dpkg-query -W -f '${Status}' rdmad 2>&1)" \
	"deinstall ok config-files"
check "dpkg -i after the remove" logged "$VM_LOGDIR/dpkg-i-reinstall.log" dpkg -i "$RDMAD_DEB"
is "... rdmad.service is active again (it stayed enabled)" "$(systemctl is-active rdmad 2>&1)" active
rm -f /etc/rdmad/50-rxe.yaml

# ---- purge ---------------------------------------------------------------------------------
check "the leftover check sees the installed files (it can fail below)" \
	grep -qx /usr/sbin/rdmad <(leftovers "$VM_LOGDIR/dpkg-L.txt")
SECONDS=0
check "dpkg --purge rdmad" logged "$VM_LOGDIR/dpkg-purge.log" dpkg --purge rdmad
diag "dpkg --purge took $SECONDS s"
is "rdmad.service is not active after the purge (stopped by the prerm)" \
	"$(systemctl is-active rdmad 2>&1)" inactive
check "no rdmad process is left" sh -c '! pgrep -x rdmad'
check "dpkg has no rdmad installed" not_installed
left=$(leftovers "$VM_LOGDIR/dpkg-L.txt")
is "no file of the package is left (dpkg -L before the purge)" "$left" ""
is "no rdmad.service unit file is left" "$(unit_file_count)" 0
check "no enablement symlink is left" \
	absent /etc/systemd/system/multi-user.target.wants/rdmad.service
check "deb-systemd-helper forgot rdmad.service" \
	sh -c '! grep -rqs rdmad /var/lib/systemd/deb-systemd-helper-enabled'
check "no /etc/rdmad" absent /etc/rdmad
check "no state dir /run/rdmad/state" absent /run/rdmad/state
check "no published environment files /run/rdmad/env" absent /run/rdmad/env
check "no /run/rdmad/nccl.conf" absent /run/rdmad/nccl.conf
check "no /run/rdmad (nothing else was in it)" absent /run/rdmad
check "org.rdmad1 is no longer activatable" wait_until 20 not_activatable org.rdmad1

done_testing
