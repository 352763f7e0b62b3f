#!/bin/bash
# probe-unit.sh (full VM: run-vm.sh --full) - rdmad-probe as a user has it: rdmad installed with
# `meson install`, started by systemd; a profile creates rxe0 and rxe1 on a veth pair and
# declares probing. Nothing is enabled by hand: rdmad.service wants rdmad-probe.path, which
# starts rdmad-probe.service once rdmad publishes /run/rdmad/probe.links.
#   - `meson install` made the prober's system user (sysusers.d) and it runs as that user, not
#     as root: its UID, GID and capabilities; as that user it opens the RDMA devices, reads
#     rdmad's bus and probe.links, and writes its metrics into the textfile directory, made
#     after the install (its ACL entry applied when the unit starts);
#   - the prober's own sandbox lets its probes through (no IPAddressDeny=: on Soft-RoCE the
#     kernel charges a probe's UDP socket to the prober's cgroup): both paths answered;
#   - its metrics in node_exporter's textfile directory pass promtool;
#   - killed with SIGKILL, systemd restarts it; a reader copying the metrics file all along
#     never sees it torn or missing;
#   - the probe keys removed and rdmad reloaded: the prober leaves with status 0, the unit is
#     inactive (not failed), and its metrics are gone.
#   RDMAD_BUILD_DIR  the meson build directory to install from
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
meson_install_rdmad
systemctl daemon-reload
check "rdmad.service wants rdmad-probe.path (nothing to enable)" \
	sh -c "systemctl show -P Wants rdmad.service | grep -qw rdmad-probe.path"
is "the prober's unit as installed denies no IP address" \
	"$(systemctl show -P IPAddressDeny rdmad-probe.service)" ""
check "meson install made the prober's system user, rdmad-probe" getent passwd rdmad-probe ||
	diag "$(cat "$VM_LOGDIR/install.log")"
is "... which its unit runs as" "$(systemctl show -P User rdmad-probe.service)" rdmad-probe
check "systemd-analyze verify rdmad-probe.service rdmad-probe.path" \
	logged "$VM_LOGDIR/verify.log" systemd-analyze verify \
	"$(systemctl show -P FragmentPath rdmad-probe.service)" \
	"$(systemctl show -P FragmentPath rdmad-probe.path)"

TEXTFILE=/var/lib/prometheus/node-exporter # what prometheus-node-exporter's package makes
mkdir -p "$TEXTFILE"
METRICS=$TEXTFILE/rdmad-probe.prom
STATE=/run/rdmad-probe/state.json
veth_pair veth0 veth1 || bail "cannot create veth pair"
mkdir -p /etc/rdmad
profile() { # profile PROBE-LINE: the links, their addresses, and PROBE-LINE for both
	cat > /etc/rdmad/60-probe.yaml << YAML
links:
  - {name: rxe0, type: rxe, netdev: veth0}
  - {name: rxe1, type: rxe, netdev: veth1}
---
match: {device: rxe0}
modules: [rdma_ucm]
netdev: {up: true, addresses: [192.0.2.1/24]}
gids: {require: [roce-v2-ipv4]}
---
match: {device: rxe1}
modules: [rdma_ucm]
netdev: {up: true, addresses: [192.0.2.2/24]}
gids: {require: [roce-v2-ipv4]}
---
match: {device: [rxe0, rxe1]}
$1
YAML
}
profile "probe: {interval: 200ms, timeout: 500ms, mesh: local, port: 18700}
roce: {tos: 96}"
check "systemctl start rdmad" timeout 120 systemctl start rdmad
check "rdmactl wait-online: both links converged" \
	logged "$VM_LOGDIR/wait-online.txt" rdmactl wait-online --timeout 120
# one subnet on a veth pair: each address sent out of the other end (selftest's routing)
route_over_wire veth0 192.0.2.1 veth1 192.0.2.2

check "rdmad-probe.path started rdmad-probe.service" \
	within 60 systemctl is-active -q rdmad-probe.service ||
	diag "$(systemctl status --no-pager rdmad-probe.path rdmad-probe.service 2>&1)"
paths_are() { # paths_are N FILTER: N paths of the prober's state that FILTER selects
	[ "$(jq -r "[.paths[] | select($2)] | length" "$STATE" 2> /dev/null)" = "$1" ]
}
check "under its unit's sandbox, both paths probed and answered" \
	within 90 paths_are 2 '.state == "probing" and .sent >= 10' ||
	diag "$(cat "$STATE"; journalctl -q -o cat -u rdmad-probe.service | tail -n 20)"
is "... none lost" "$(jq -r '[.paths[] | select(.lost == 0 and .sent > 0)] | length' "$STATE")" 2
# the ToS each link's probes carry, read from rdma_cm's configfs under the sandbox (issue 45:
# ProtectKernelTunables= leaves it readable, and a write by hand shows only there)
tos_read() { # both links' ToS 96 read from configfs, both paths carrying it
	jq -e '([.links[] | select(.tos == 96 and .tos_source == "configfs")] | length) == 2 and
		([.paths[] | select(.tos == 96)] | length) == 2' "$STATE" > /dev/null 2>&1
}
check "... both links' ToS 96 read from configfs as its user, both paths carrying it" \
	within 30 tos_read || diag "$(jq -c '.links' "$STATE")"
# (read once it probes: a process just forked may not have taken its credentials yet)
PID=$(systemctl show -P MainPID rdmad-probe.service)
ids() { # ids PID: its real, effective, saved and filesystem UIDs, then GIDs, one line
	awk '$1 == "Uid:" || $1 == "Gid:" { printf "%s %s %s %s ", $2, $3, $4, $5 }' "/proc/$1/status"
}
user_ids="$(id -u rdmad-probe) $(id -u rdmad-probe) $(id -u rdmad-probe) $(id -u rdmad-probe) \
$(id -g rdmad-probe) $(id -g rdmad-probe) $(id -g rdmad-probe) $(id -g rdmad-probe) "
is "rdmad-probe runs as its user, not root: every UID and GID of process $PID" \
	"$(ids "$PID")" "$user_ids"
check "... which is not root's" test "$(id -u rdmad-probe)" -ne 0
is "... with no capability" "$(awk '$1 == "CapEff:" { print $2 }' "/proc/$PID/status")" \
	0000000000000000
diag "the RDMA device nodes: $(stat -c '%n %a %U:%G' /dev/infiniband/* | tr '\n' ' ')"
diag "the textfile directory: $(stat -c '%a %U:%G' "$TEXTFILE")$(getfacl -p "$TEXTFILE" 2> /dev/null |
	grep rdmad-probe | tr '\n' ' ')"
diag "$(systemd-analyze security --no-pager rdmad-probe.service 2>&1 | grep 'Overall exposure')"
rdmactl probe > "$VM_LOGDIR/rdmactl-probe.txt" 2>&1
is "rdmactl probe: exit 0" "$?" 0
diag "$(cat "$VM_LOGDIR/rdmactl-probe.txt")"
check "its metrics in $TEXTFILE pass promtool check metrics" \
	logged "$VM_LOGDIR/promtool.txt" sh -c "promtool check metrics < $METRICS"
check "... with the round trips of rxe0/1 -> rxe1/1" grep -q \
	'^rdmad_probe_rtt_seconds_count{link="rxe0/1",peer="rxe1/1",kind="local"} [1-9]' "$METRICS"
is "... written by the prober's user" "$(stat -c %U "$METRICS")" rdmad-probe

# ---- killed: systemd restarts it, and the metrics file is never torn -------------------------
SNAP=$VM_LOGDIR/snap
mkdir -p "$SNAP"
reader() { # copies the metrics file as fast as it can until $SNAP/stop; a missing file counted
	local i=0 missing=0
	while [ ! -e "$SNAP/stop" ]; do
		i=$((i + 1))
		cat "$METRICS" > "$SNAP/$i" 2> /dev/null || { missing=$((missing + 1)); rm -f "$SNAP/$i"; }
	done
	echo "$i $missing" > "$SNAP/count"
}
reader &
READER=$!
old=$(systemctl show -P MainPID rdmad-probe.service)
check "systemctl kill -s KILL rdmad-probe.service" systemctl kill -s KILL rdmad-probe.service
restarted() {
	local pid
	pid=$(systemctl show -P MainPID rdmad-probe.service)
	[ "$pid" != 0 ] && [ "$pid" != "$old" ] && systemctl is-active -q rdmad-probe.service
}
check "systemd restarts it" within 60 restarted ||
	diag "$(systemctl status --no-pager rdmad-probe.service 2>&1)"
is "... once (NRestarts)" "$(systemctl show -P NRestarts rdmad-probe.service)" 1
# the new prober's first write replaces the old one's file: then both paths probe again
written_by_new() {
	[ "$(awk '/^rdmad_probe_last_write_timestamp_seconds / { print int($2) }' "$METRICS")" \
		-ge "$(date +%s -d "$(systemctl show -P ActiveEnterTimestamp rdmad-probe.service)")" ]
}
check "the restarted prober rewrites the metrics" within 60 written_by_new
is "... as its user again" "$(ids "$(systemctl show -P MainPID rdmad-probe.service)")" "$user_ids"
check "... and both paths probe again" \
	within 90 paths_are 2 '.state == "probing" and .sent >= 5'
touch "$SNAP/stop"
wait "$READER"
read -r reads missing < "$SNAP/count"
diag "the reader copied the metrics file $reads times"
is "the metrics file was never missing" "$missing" 0
torn=0 distinct=0
for f in $(md5sum "$SNAP"/[0-9]* | sort | uniq -w32 | awk '{ print $2 }'); do
	distinct=$((distinct + 1))
	promtool check metrics < "$f" > "$f.check" 2>&1 || {
		torn=$((torn + 1))
		diag "$f: $(head -n 3 "$f.check")"
	}
done
diag "$distinct distinct contents checked with promtool"
check "the reader saw more than one content (it read across the writes)" test "$distinct" -ge 2
is "no copy torn: every one passes promtool check metrics" "$torn" 0
rm -rf "$SNAP"

# ---- nothing left to probe -------------------------------------------------------------------
profile "roce: {mode: v2}"
check "systemctl reload rdmad" timeout 120 systemctl reload rdmad
check "no probe key: rdmad removes /run/rdmad/probe.links" \
	within 30 sh -c "! test -e /run/rdmad/probe.links"
check "... and rdmad-probe.service stops" \
	within 30 sh -c "[ \"\$(systemctl is-active rdmad-probe.service)\" = inactive ]" ||
	diag "$(systemctl status --no-pager rdmad-probe.service 2>&1)"
is "... its result: success (status 0)" "$(systemctl show -P Result rdmad-probe.service)" success
check "... and its metrics are gone" test ! -e "$METRICS"

check "systemctl stop rdmad" timeout 120 systemctl stop rdmad
done_testing
