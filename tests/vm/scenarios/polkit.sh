#!/bin/bash
# polkit.sh (full VM: run-vm.sh --full) - least privilege with real users and the real polkitd
# under systemd as PID 1. rdmad installed with `meson install` (its polkit actions too: nothing
# put in place by hand but what docs/SECURITY.md tells the administrator to write, the rule).
# A group rdmaadmin with a member (alice) and a user outside it (bob); the documented rule
# grants the group org.rdmad1.reload and org.rdmad1.reconcile: alice may reload and reconcile,
# bob and nobody may not (AccessDenied naming the action), everyone may read the status; the
# sandbox as the running systemd rates it. Trials (issue 45): org.rdmad1.trial not granted by
# the rule; root tries a file from /tmp and confirms it into /etc/rdmad under the sandbox.
#   RDMAD_BUILD_DIR  the meson build directory to install from (fails when unset)
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

[ -n "${RDMAD_BUILD_DIR:-}" ] && [ -f "$RDMAD_BUILD_DIR/build.ninja" ] ||
	bail "no RDMAD_BUILD_DIR given, or it is not a meson build"
check "meson install -C BUILD" \
	logged "$VM_LOGDIR/install.log" meson install -C "$RDMAD_BUILD_DIR" --no-rebuild
check "the polkit actions are where polkitd reads them (meson install put them there)" \
	test -f /usr/share/polkit-1/actions/org.rdmad1.policy

check "modprobe rdma_rxe veth" modprobe -a rdma_rxe veth
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
check "rdma link add rxe0" rdma link add rxe0 type rxe netdev veth0
mkdir -p /etc/rdmad
printf 'match: {device: rxe0}\nroce: {tos: 106}\n' > /etc/rdmad/50-rxe.yaml
systemctl daemon-reload
asan_unit_dropin
systemctl daemon-reload
check "systemctl start rdmad" timeout 60 systemctl start rdmad
check "rdmad owns org.rdmad1" wait_until 20 busctl --system status org.rdmad1

# ---- the administrator's step: a group, and the rule of docs/SECURITY.md ---------------------
check "groupadd rdmaadmin; useradd alice (member), bob" \
	sh -c "groupadd rdmaadmin && useradd -M -G rdmaadmin alice && useradd -M bob"
mkdir -p /etc/polkit-1/rules.d
cat > /etc/polkit-1/rules.d/50-rdmad.rules << 'RULE'
// Members of rdmaadmin may reload and reconcile rdmad without a password.
polkit.addRule(function(action, subject) {
        if ((action.id == "org.rdmad1.reload" || action.id == "org.rdmad1.reconcile") &&
            subject.isInGroup("rdmaadmin")) {
                return polkit.Result.YES;
        }
});
RULE
check "polkitd knows org.rdmad1.reload (pkaction; polkitd is bus-activated)" \
	logged "$VM_LOGDIR/pkaction.txt" pkaction --verbose --action-id org.rdmad1.reload
check "... defaults: no for any and inactive sessions, auth_admin_keep for active ones" \
	sh -c "grep -Eq 'implicit any: +no' $VM_LOGDIR/pkaction.txt &&
		grep -Eq 'implicit inactive: +no' $VM_LOGDIR/pkaction.txt &&
		grep -Eq 'implicit active: +auth_admin_keep' $VM_LOGDIR/pkaction.txt"
check "polkitd runs (polkit.service)" wait_until 20 systemctl is-active --quiet polkit.service
# polkitd reads rules.d at start and on inotify; restart it so that the rule is surely loaded
check "systemctl restart polkit (load the rule)" timeout 60 systemctl restart polkit
diag "polkitd: $(journalctl -q -u polkit -o cat | tail -3 | tr '\n' '|')"

as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
last() { busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager LastReconcileUSec; }

# ---- alice, in the group: reload and reconcile -----------------------------------------------
sed -i 's/tos: 106/tos: 96/' /etc/rdmad/50-rxe.yaml
check "alice (rdmaadmin): rdmactl reload" logged "$VM_LOGDIR/alice-reload.txt" as alice rdmactl reload
is "... the new profile is applied when it returns (configfs ToS)" \
	"$(attr /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos)" 96
before=$(last)
check "alice: Reconcile() over the bus" \
	logged "$VM_LOGDIR/alice-reconcile.txt" as alice busctl --system call org.rdmad1 /org/rdmad1 \
	org.rdmad1.Manager Reconcile
check "... it ran (LastReconcileUSec moved)" test "$(last)" != "$before"
is "alice: SelfTest() is not granted by the rule: AccessDenied for org.rdmad1.selftest" \
	"$(as alice dbus-send --system --print-reply --dest=org.rdmad1 /org/rdmad1 \
		org.rdmad1.Manager.SelfTest string:rxe0/1 string: uint32:0 uint32:0 uint32:0 2>&1 |
		grep -o 'AccessDenied: Not authorized for org.rdmad1.selftest' | head -1)" \
	"AccessDenied: Not authorized for org.rdmad1.selftest"

# ---- bob, outside it; nobody ------------------------------------------------------------------
before=$(last)
is "bob: rdmactl reload is AccessDenied naming the action" "$(as bob rdmactl reload 2>&1)" \
	"rdmactl reload: Not authorized for org.rdmad1.reload: needs root or polkit's authorization"
is "bob: rdmactl reconcile too" "$(as bob rdmactl reconcile 2>&1)" \
	"rdmactl reconcile: Not authorized for org.rdmad1.reconcile: needs root or polkit's authorization"
is "nobody: rdmactl reconcile too" "$(nobody rdmactl reconcile 2>&1)" \
	"rdmactl reconcile: Not authorized for org.rdmad1.reconcile: needs root or polkit's authorization"
check "nobody may read: rdmactl status shows rxe0/1 converged" \
	sh -c "setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl status --no-pager |
		grep -Eq '^rxe0/1 +veth0 .* converged$'"
check "bob may read: rdmactl gid rxe0/1" as bob rdmactl gid rxe0/1
sleep 1
is "... and bob's and nobody's calls made rdmad reconcile nothing" "$(last)" "$before"
check "polkitd answered each check (rdmad logged no polkit failure)" \
	sh -c "! journalctl -q -u rdmad -o cat | grep -q 'polkit could not check'"

# ---- trials (issue 45): their own action; a confirm writes /etc/rdmad under the sandbox -------
check "polkitd knows org.rdmad1.trial" pkaction --action-id org.rdmad1.trial
printf 'match: {device: rxe0}\nroce: {tos: 40}\n' > /tmp/60-trial.yaml
chmod 644 /tmp/60-trial.yaml
is "alice: rdmactl try is not granted by the rule: AccessDenied for org.rdmad1.trial" \
	"$(as alice rdmactl try /tmp/60-trial.yaml 2>&1)" \
	"rdmactl try: Not authorized for org.rdmad1.trial: needs root or polkit's authorization"
check "root: a trial rolled back" sh -c "rdmactl try --timeout 600 /tmp/60-trial.yaml > /dev/null && rdmactl rollback > $VM_LOGDIR/rollback.txt"
check "... the journal says what was put back, with the link's fields" \
	sh -c "journalctl -q -u rdmad -o cat MESSAGE_ID=d1b0e8c3a6f54b2e9c7d4a1f0e3b6c58 RDMA_DEVICE=rxe0 RDMA_PORT=1 NETDEV=veth0 |
		grep -q 'Trial rollback: rxe0/1 roce.tos put back to 96, read back'" ||
	diag "$(journalctl -q -u rdmad -o cat | grep -i trial | tail -5)"
check "root: rdmactl try, the file sent from /tmp (rdmad.service has PrivateTmp=)" \
	logged "$VM_LOGDIR/try.txt" rdmactl try --timeout 600 /tmp/60-trial.yaml
check "... its record in /run/rdmad/state/trial, the trial applied" \
	sh -c "grep -q '^object rxe0/1 veth0 roce.tos 96$' /run/rdmad/state/trial/record &&
		timeout 30 sh -c 'until [ \$(cat /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos) = 40 ]; do sleep 0.1; done'"
check "rdmactl confirm: rdmad writes /etc/rdmad/60-trial.yaml (ReadWritePaths=-/etc/rdmad)" \
	sh -c "rdmactl confirm > $VM_LOGDIR/confirm.txt 2>&1 && cmp -s /etc/rdmad/60-trial.yaml /tmp/60-trial.yaml &&
		[ ! -e /run/rdmad/state/trial/record ]" || diag "$(cat "$VM_LOGDIR/confirm.txt")"
rm -f /etc/rdmad/60-trial.yaml
rdmactl reload > /dev/null 2>&1

# ---- the sandbox, as the running systemd rates it ---------------------------------------------
exposure=$(systemd-analyze security --no-pager rdmad.service 2>&1 |
	sed -n 's/.*Overall exposure level for rdmad.service: \([0-9.]*\).*/\1/p')
check "systemd-analyze security rdmad.service (running): exposure ${exposure:-?} <= 2.5" \
	awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 2.5) }'
pid=$(systemctl show -P MainPID rdmad)
is "rdmad runs under a seccomp filter (Seccomp: 2)" \
	"$(awk '/^Seccomp:/ {print $2}' "/proc/$pid/status")" 2
check "... and no IP socket of its own (ss: none for its PID)" \
	sh -c "! ss -Hanp -f inet -f inet6 | grep -q 'pid=$pid,'"
check "systemctl stop rdmad" timeout 60 systemctl stop rdmad

done_testing
