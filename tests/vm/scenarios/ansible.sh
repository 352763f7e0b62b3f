#!/bin/bash
# ansible.sh (full VM, through tests/deb/vm-deb.sh) - the Ansible role contrib/ansible/roles/rdmad
# run by `ansible-playbook -c local` (the host's ansible-core) on a host booted with systemd:
# the first run installs rdmad's package (RDMAD_DEB), places a profile checked by rdmactl,
# reloads rdmad and waits with `rdmactl wait-online` (the ToS is in configfs then); the second
# run changes nothing (changed=0) and leaves a profile it did not declare alone; a run with an
# invalid profile fails the play and leaves the good file as it was; a run with
# rdmad_profiles_exclusive and no profiles removes them; a canary rollout with rdmad_try (serial:
# 1, max_fail_percentage: 0) confirms the canary's profile, stops at the host whose trial rdmad
# rolled back (its netdev gate), and never reaches the third. Then the package is purged.
#   RDMAD_DEB  the package (tests/deb/build-deb.sh builds it)
# The role comes from this source tree (the scenario's path, seen over 9p). No collection is in
# reach: the role must run on ansible.builtin alone.
# No `set -e`: a failed check is reported and the scenario goes on.
# shellcheck disable=SC2317 # the helpers below are called through check
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

not_installed() { ! dpkg-query -W -f '${Status}' rdmad 2> /dev/null | grep -q 'ok installed'; }
absent() { ! test -e "$1" && ! test -L "$1"; }
fails() { ! "$@"; }

if [ -z "${RDMAD_DEB:-}" ] || [ ! -f "$RDMAD_DEB" ]; then
	bail "no RDMAD_DEB package given (tests/deb/build-deb.sh)"
fi
roles=$(cd "$(dirname "$0")/../../../contrib/ansible/roles" 2> /dev/null && pwd) ||
	bail "no contrib/ansible/roles beside $0"
command -v ansible-playbook > /dev/null ||
	bail "no ansible-playbook on the host (Debian: ansible-core, in .ci/packages)"
is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
check "rdmad is not installed before the test" not_installed
diag "$(ansible-playbook --version 2>&1 | head -n 1)"

# A Soft-RoCE link with an IPv4 GID for rdmad to converge
check "modprobe rdma_rxe, rdma_ucm, veth" modprobe -a rdma_rxe rdma_ucm veth
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
check "rdma link add rxe0" rdma link add rxe0 type rxe netdev veth0
wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 192.0.2.1)" || diag "rxe0 has no IPv4 GID yet"
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos

# man-db's dpkg trigger re-indexes every manual page over 9p (140 s per dpkg run under TCG);
# its documented switch turns that off (deb.sh says more)
rm -f /var/lib/man-db/auto-update
# The VM has no network, so the host's apt package lists are of no use in it; but the apt
# module reads them all (three apt.Cache() per run, no binary cache in a container's apt
# setup): 60-80 s per run under TCG, even with nothing to install. An empty directory over
# them leaves apt the dpkg status, all the .deb's dependency check needs.
if ! { mount -t tmpfs -o size=1m tmpfs /var/lib/apt/lists && mkdir /var/lib/apt/lists/partial; }
then
	diag "cannot hide /var/lib/apt/lists: the apt module will be slow"
fi

# ---- Ansible, offline and local --------------------------------------------------------------
# Its state and temporary files in a scratch directory (the root is a tmpfs overlay on the
# host's, read-only over 9p); no ansible.cfg of the host's; no facts, no retry files, no
# interpreter discovery; collections only from an empty directory.
work=$(mktemp -d /tmp/rdmad-ansible.XXXXXX) || bail "mktemp"
mkdir -p "$work/collections"
export ANSIBLE_CONFIG=$work/none.cfg ANSIBLE_HOME=$work/home ANSIBLE_LOCAL_TEMP=$work/local-tmp \
	ANSIBLE_REMOTE_TEMP=$work/remote-tmp ANSIBLE_ROLES_PATH=$roles ANSIBLE_GATHERING=explicit \
	ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
	ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=true ANSIBLE_LOCALHOST_WARNING=false \
	ANSIBLE_COLLECTIONS_PATH=$work/collections ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
cat > "$work/site.yml" << 'EOF'
- name: rdmad on the VM
  hosts: all
  gather_facts: false
  roles:
    - rdmad
EOF
cat > "$work/good.yml" << EOF
rdmad_deb: "$RDMAD_DEB"
rdmad_wait_online_timeout: 60
rdmad_profiles:
  50-rxe.yaml:
    match: {device: rxe0}
    roce: {tos: 106}
EOF
# The later runs only change profiles, as an administrator's would: rdmad_install: false
cat > "$work/invalid.yml" << EOF
rdmad_install: false
rdmad_wait_online_timeout: 60
rdmad_profiles:
  50-rxe.yaml:
    netdev: {mtuu: 9000}
EOF
cat > "$work/none.yml" << EOF
rdmad_install: false
rdmad_wait_online_timeout: 60
rdmad_profiles: {}
rdmad_profiles_exclusive: true
EOF

play() { # play NAME VARS: run the playbook with the variables file VARS, output in NAME.log
	SECONDS=0
	ansible-playbook -c local -i localhost, -e "@$work/$2" "$work/site.yml" \
		> "$VM_LOGDIR/$1.log" 2>&1
	local rc=$?
	diag "$1: ansible-playbook exited with $rc in $SECONDS s; $(recap "$1")"
	return "$rc"
}
recap() { sed -n 's/^localhost *: *//p' "$VM_LOGDIR/$1.log" | tr -s ' '; }
count() { recap "$1" | grep -o "$2=[0-9]*" | cut -d= -f2; } # count NAME ok|changed|failed...
handler_ran() { grep -q 'RUNNING HANDLER \[rdmad : Reload rdmad\]' "$VM_LOGDIR/$1.log"; }
after_task() { # after_task NAME TASK: the line after the header of the task TASK... in NAME.log
	grep -A1 -F "TASK [rdmad : $2" "$VM_LOGDIR/$1.log" | sed -n 2p
}

# ---- first run: install, profile, reload, wait ----------------------------------------------
check "first run: the play succeeds" play first good.yml
changed=$(count first changed)
check "... and changes something (changed=${changed:-?})" test "${changed:-0}" -gt 0
is "... with no failed or unreachable host" \
	"$(count first failed) $(count first unreachable)" "0 0"
is "... rdmad is installed from RDMAD_DEB" \
	"$(dpkg-query -W -f '${Status}' rdmad 2>&1)" "install ok installed"
is "... rdmad.service is enabled" "$(systemctl is-enabled rdmad 2>&1)" enabled
is "... and active" "$(systemctl is-active rdmad 2>&1)" active
check "... the reload handler ran" handler_ran first
is "... rdmactl wait-online ran and passed" "$(after_task first 'Wait until')" "ok: [localhost]"
is "/etc/rdmad/50-rxe.yaml holds the rendered profile" "$(cat /etc/rdmad/50-rxe.yaml 2>&1)" \
	"# Ansible managed: rdmad_profiles['50-rxe.yaml'] of the Ansible role rdmad
match:
  device: rxe0
roce:
  tos: 106"
is "... root's, mode 0644" "$(stat -c '%U:%G %a' /etc/rdmad/50-rxe.yaml 2>&1)" "root:root 644"
check "... and rdmactl check passes on it" logged "$VM_LOGDIR/check.log" \
	rdmactl check /etc/rdmad/50-rxe.yaml
# No waiting here: the reload returns once the profiles are applied, wait-online after it
is "rxe0's ToS is 106 when the play returns (configfs rdma_cm)" "$(attr "$TOS" 2>&1)" 106
good=$(sha256sum < /etc/rdmad/50-rxe.yaml)
pid=$(systemctl show -p MainPID --value rdmad)

# ---- second run: nothing to do ---------------------------------------------------------------
printf '# the administrator'"'"'s, not the role'"'"'s\nmatch: {device: rxe9}\nroce: {tos: 32}\n' \
	> /etc/rdmad/40-local.yaml
check "second run: the play succeeds" play second good.yml
is "... and changes nothing (PLAY RECAP changed=0)" "$(count second changed)" 0
check "... no reload" fails handler_ran second
is "... rdmactl wait-online ran and passed" "$(after_task second 'Wait until')" "ok: [localhost]"
is "... rdmad was neither restarted nor stopped" "$(systemctl show -p MainPID --value rdmad)" "$pid"
check "... a profile it did not declare is left alone" test -f /etc/rdmad/40-local.yaml

# ---- an invalid profile: the play fails, the good file stays ---------------------------------
check "a run with an invalid profile (netdev.mtuu) fails" fails play invalid invalid.yml
is "... one failed host in the PLAY RECAP" "$(count invalid failed)" 1
check "... the play's output has rdmactl check's error, file:line:col on ansible's temporary file" \
	grep -Eq ":[0-9]+:[0-9]+: error: unknown key 'mtuu'" "$VM_LOGDIR/invalid.log"
is "... /etc/rdmad/50-rxe.yaml is unchanged (sha256)" "$(sha256sum < /etc/rdmad/50-rxe.yaml)" "$good"
check "... no reload" fails handler_ran invalid
is "... nothing installed (rdmad_install: false)" "$(after_task invalid 'Install rdmad from')" \
	"skipping: [localhost]"
is "... rdmad still active, same process" \
	"$(systemctl is-active rdmad 2>&1) $(systemctl show -p MainPID --value rdmad)" "active $pid"
is "... rxe0's ToS is still 106" "$(attr "$TOS" 2>&1)" 106

# ---- a canary rollout through rdmactl try: the bad host stops the play ----------------------
# Three inventory hosts, all this VM (ansible_connection=local), one at a time (serial: 1,
# max_fail_percentage: 0), with rdmad_try: the canary's profile (ToS 96) holds rdmad's gates and
# is confirmed; the next host's also sets veth0 down, rdmad's netdev gate fails and rdmad rolls
# the trial back; the play stops there, and the third host is never touched.
cat > "$work/canary.ini" << 'EOF'
[rdma]
canary ansible_connection=local
bad ansible_connection=local rdmad_canary_up=false
later ansible_connection=local
EOF
cat > "$work/canary.yml" << 'EOF'
- name: a canary first, through rdmactl try
  hosts: rdma
  gather_facts: false
  serial: 1
  max_fail_percentage: 0
  vars:
    rdmad_install: false
    rdmad_try: true
    rdmad_try_timeout: 120
    rdmad_wait_online_timeout: 60
    rdmad_profiles:
      50-rxe.yaml:
        match: {device: rxe0}
        roce: {tos: 96}
        netdev: {up: "{{ rdmad_canary_up | default(true) | bool }}"}
  roles:
    - rdmad
EOF
SECONDS=0
ansible-playbook -i "$work/canary.ini" "$work/canary.yml" > "$VM_LOGDIR/canary.log" 2>&1
rc=$?
diag "canary: ansible-playbook exited with $rc in $SECONDS s"
host_failed() { sed -n "s/^$1 *: .*failed=\([0-9]*\).*/\1/p" "$VM_LOGDIR/canary.log"; }
check "the canary play fails (exit $rc)" test "$rc" -ne 0
is "... the canary: confirmed, no failure (its PLAY RECAP failed=)" "$(host_failed canary)" 0
is "... the bad host failed (failed=)" "$(host_failed bad)" 1
is "... at rdmactl try" \
	"$(grep -A1 -F 'TASK [rdmad : Apply them as a trial' "$VM_LOGDIR/canary.log" | grep -c '^fatal: \[bad\]')" 1
check "... rdmactl try said the netdev gate failed" grep -q 'veth0 is down' "$VM_LOGDIR/canary.log"
check "... and the third host never ran (not in the PLAY RECAP)" \
	sh -c "! grep -q '^later *:' $VM_LOGDIR/canary.log"
is "... veth0 is up again (rolled back)" "$(cat /sys/class/net/veth0/operstate)" up
is "... rxe0's ToS is the canary's, confirmed (96)" "$(attr "$TOS" 2>&1)" 96
check "... /etc/rdmad/50-rxe.yaml is the canary's profile" \
	sh -c "grep -q 'tos: 96' /etc/rdmad/50-rxe.yaml && grep -q 'up: true' /etc/rdmad/50-rxe.yaml"
is "... root's, mode 0644 (written by rdmactl confirm)" \
	"$(stat -c '%U:%G %a' /etc/rdmad/50-rxe.yaml 2>&1)" "root:root 644"
check "... rdmactl status: the last trial rolled back by the netdev gate" \
	sh -c "rdmactl status --no-pager | grep -i 'last trial' | grep -q netdev" ||
	diag "$(rdmactl status --no-pager 2>&1 | grep -i -A2 trial)"
diag "$(grep -E '^(canary|bad|later) ' "$VM_LOGDIR/canary.log")"
diag "$(grep -E '^fatal: \[bad\]' "$VM_LOGDIR/canary.log" | cut -c1-600)"

# ---- rdmad_profiles_exclusive with no profiles: the role removes them --------------------------
check "a run with rdmad_profiles_exclusive and no profiles succeeds" play exclusive none.yml
changed=$(count exclusive changed)
check "... and changes something (changed=${changed:-?})" test "${changed:-0}" -gt 0
check "... /etc/rdmad/50-rxe.yaml is removed" absent /etc/rdmad/50-rxe.yaml
check "... and /etc/rdmad/40-local.yaml" absent /etc/rdmad/40-local.yaml
check "... not /etc/rdmad/README (the package's conffile, not a profile)" test -f /etc/rdmad/README
check "... the reload handler ran" handler_ran exclusive
is "... no rdmactl wait-online (no profiles, so no link to wait for)" \
	"$(after_task exclusive 'Wait until')" "skipping: [localhost]"
check "... rdmad's ConfigFiles are the shipped one only" sh -c \
	'busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager ConfigFiles |
		grep -qx "as 1 \"/usr/lib/rdmad/00-defaults.yaml\""'

# ---- leave the VM as it was ------------------------------------------------------------------
check "dpkg --purge rdmad" logged "$VM_LOGDIR/dpkg-purge.log" dpkg --purge rdmad
check "rdmad is not installed after the purge" not_installed
check "no /etc/rdmad is left" absent /etc/rdmad
rm -rf "$work"

done_testing
