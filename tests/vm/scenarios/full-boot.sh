#!/bin/bash
# full-boot.sh (full VM: run-vm.sh --full) - the host's systemd booted as PID 1 on the VM
# kernel, with what rdmad's unit needs: udevd, dbus, the journal, transient units over D-Bus,
# and udev seeing a Soft-RoCE device. Then rdmad installed as a user installs it from a
# build tree, `meson install` with the build's default options, and nothing put in place by
# hand: the unit, the D-Bus policy and activation file, the shipped profiles must each land
# where systemd, dbus-daemon and rdmad look for them.
#   RDMAD_BUILD_DIR  the meson build directory to install from (fails when unset)
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
# the release run-vm.sh booted (the host's /lib/modules may hold others: headers of another
# kernel, installed for a module build, bring a directory there)
is "the kernel is the VM's ($VM_KERNEL_RELEASE)" "$(uname -r)" "$VM_KERNEL_RELEASE"
is "... and its modules are the ones mounted at /lib/modules/$VM_KERNEL_RELEASE" \
	"$(modinfo -F vermagic veth | cut -d' ' -f1)" "$VM_KERNEL_RELEASE"
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

# ---- rdmad installed with `meson install`, started by systemd, sandboxed, Type=notify ------
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
UNIT=/lib/systemd/system/rdmad.service # pkg-config systemd's systemdsystemunitdir
if [ -n "${RDMAD_BUILD_DIR:-}" ] && [ -f "$RDMAD_BUILD_DIR/build.ninja" ]; then
	check "meson install -C BUILD (the build's default options)" \
		logged "$VM_LOGDIR/install.log" meson install -C "$RDMAD_BUILD_DIR" --no-rebuild
	prefix=$(meson introspect --buildoptions "$RDMAD_BUILD_DIR" |
		jq -r '.[] | select(.name == "prefix") | .value')
	diag "prefix $prefix; installed: $(jq -r 'keys[]' \
		"$RDMAD_BUILD_DIR/meson-info/intro-installed.json" 2> /dev/null | wc -l) files"
	check "rdmad is on PATH" command -v rdmad
	is "rdmad --version is the build's" "$(rdmad --version | cut -d' ' -f1)" rdmad
	check "the unit is where systemd reads it ($UNIT)" test -f "$UNIT"
	check "systemd-analyze verify rdmad.service" systemd-analyze verify --man=no "$UNIT"
	check "the D-Bus policy is where dbus-daemon reads it" \
		test -f /usr/share/dbus-1/system.d/org.rdmad1.conf
	check "the activation file is where dbus-daemon reads it" \
		test -f /usr/share/dbus-1/system-services/org.rdmad1.service
	check "the shipped defaults are in <prefix>/lib/rdmad" test -f "$prefix/lib/rdmad/00-defaults.yaml"
	check "/etc/rdmad exists, with its README on drop-ins" test -f /etc/rdmad/README

	mkdir -p /etc/rdmad
	printf 'match: {device: rxe0}\nroce: {tos: 106}\n' > /etc/rdmad/50-rxe.yaml
	# One typo must not disable the node: rdmad starts with the other files, degraded.
	printf 'netdev:\n  mtuu: 9000\n' > /etc/rdmad/40-typo.yaml
	asan_unit_dropin # LeakSanitizer off under a sanitizer build (lib.sh)
	systemctl daemon-reload
	check "systemctl start rdmad (Type=notify: returns after READY=1)" \
		timeout 60 systemctl start rdmad
	check "rdmad.service is active" systemctl is-active --quiet rdmad
	is "the sandboxed daemon set the ToS before READY=1" "$(attr "$TOS")" 106

	# lldpd's socket (issue 44) is _lldpd:_lldpd 0770; lldpd is installed with the test
	# dependencies (.ci/packages: liblldpctl-dev), so its group is this root's. The generator
	# makes the installed unit join it; the sandboxed rdmad then connects to lldpd once it runs
	# (it watches /run for the socket), seen as a connection of rdmad's to lldpd's socket.
	lldpd_gid=$(getent group _lldpd | cut -d: -f3)
	is "lldpd's group exists: rdmad.service joins it (rdmad-lldpd-generator's drop-in)" \
		"$(systemctl show -p SupplementaryGroups --value rdmad)" _lldpd
	rdmad_pid=$(systemctl show -p MainPID --value rdmad)
	check "... the running rdmad has the group (gid ${lldpd_gid:-none})" \
		sh -c "[ -n '$lldpd_gid' ] && grep '^Groups:' /proc/$rdmad_pid/status | grep -qw '$lldpd_gid'"
	check "systemctl start lldpd" timeout 60 systemctl start lldpd
	is "... its socket: _lldpd:_lldpd, mode 770" \
		"$(stat -c '%U:%G %a' /run/lldpd.socket 2> /dev/null)" "_lldpd:_lldpd 770"
	talks_to_lldpd() { # a unix socket of rdmad's is connected to one lldpd accepted
		local peers
		peers=$(ss -xpnH | awk -v p="pid=$rdmad_pid," 'index($0, p) { print $8 }')
		[ -n "$peers" ] && ss -xnH | awk '$5 == "/run/lldpd.socket" { print $6 }' |
			grep -qxF -f <(echo "$peers")
	}
	check "the sandboxed rdmad connects to lldpd's socket" wait_until 30 talks_to_lldpd
	check "systemctl stop lldpd" timeout 60 systemctl stop lldpd
	status=$(systemctl show -p StatusText --value rdmad)
	diag "StatusText: $status"
	check "STATUS= counts the converged link, and says a file was left out" \
		grep -q "1 converged.*invalid profile files left out" <<< "$status"
	check "the journal has rdmad's fields (journalctl RDMA_DEVICE=rxe0)" \
		wait_until 20 sh -c "journalctl -q RDMA_DEVICE=rxe0 -o cat | grep -q converged"
	check "rdmad's state is in /run/rdmad/state, apart from the runtime profiles" \
		test -d /run/rdmad/state

	# ---- org.rdmad1 on the real system bus, as root and as an unprivileged user ------------
	# dbus-daemon found the policy by itself (inotify on its directories): nobody reloaded it.
	check "rdmad owns org.rdmad1 on the system bus" \
		wait_until 20 busctl --system status org.rdmad1
	is "started with an invalid file left out: State degraded" \
		"$(busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager State)" \
		's "degraded"'
	check "... ConfigErrors names it with file:line:col" \
		sh -c "busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager \
			ConfigErrors | grep -q '/etc/rdmad/40-typo.yaml:2:3: error'"
	check "... and so does the journal" \
		sh -c "journalctl -q -u rdmad -o cat | grep -q 'Left out 1 invalid profile file'"
	rm /etc/rdmad/40-typo.yaml
	check "typo removed: systemctl reload rdmad" timeout 60 systemctl reload rdmad
	is "... State running" \
		"$(busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager State)" \
		's "running"'
	is "the shipped defaults and the admin's profile are loaded (Manager.ConfigFiles)" \
		"$(busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager ConfigFiles)" \
		"as 2 \"$prefix/lib/rdmad/00-defaults.yaml\" \"/etc/rdmad/50-rxe.yaml\""
	for who in root nobody; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		"${as[@]}" rdmactl status --no-pager > "$VM_LOGDIR/status-$who.txt" 2>&1
		check "rdmactl status as $who shows rxe0/1 (veth0) converged" \
			grep -Eq '^rxe0/1 +veth0 +rdma_rxe +[0-9]+ +00-defaults.yaml 50-rxe.yaml +converged$' \
			"$VM_LOGDIR/status-$who.txt"
		is "Link.RoceTos over the bus, as $who" \
			"$("${as[@]}" busctl --system get-property org.rdmad1 /org/rdmad1/link/rxe0_2f1 \
				org.rdmad1.Link RoceTos)" "i 106"
		is "rdmactl gid rxe0/1 as $who equals the GID index read from sysfs" \
			"$("${as[@]}" rdmactl gid rxe0/1)" "$(rdmactl gid --root / rxe0/1)"
	done
	ENV=/run/rdmad/env/rxe0-1.env
	check "rdmad published $ENV (0644, under its RuntimeDirectory)" \
		sh -c "[ \"\$(stat -c %a $ENV)\" = 644 ]"
	is "... its RDMA_GID_INDEX is what rdmactl gid prints" \
		"$(. $ENV && echo "$RDMA_GID_INDEX")" "$(rdmactl gid rxe0/1)"
	gid=$(. $ENV && echo "$RDMA_GID_INDEX")
	is "... and it is the RoCE v2 GID of 192.0.2.1" \
		"$(attr /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/"$gid") $(attr /sys/class/infiniband/rxe0/ports/1/gids/"$gid")" \
		"RoCE v2 0000:0000:0000:0000:0000:ffff:c000:0201"
	timeout 60 ib_write_bw -F -d rxe0 -x "$gid" -n 100 -p 18520 > "$VM_LOGDIR/bw-server.log" 2>&1 &
	bw=$!
	# the client fails at once if the server is not listening yet (TCG: not within a fixed 1 s)
	wait_until 20 sh -c "ss -ltn | grep -q ':18520 '" || diag "ib_write_bw's server does not listen"
	timeout 60 ib_write_bw -F -d rxe0 -x "$gid" -n 100 -p 18520 192.0.2.1 \
		> "$VM_LOGDIR/bw-client.log" 2>&1
	check "ib_write_bw -x \$RDMA_GID_INDEX (the env file's): 100 writes (loopback on rxe0)" \
		bw_completed "$VM_LOGDIR/bw-client.log" 100
	wait "$bw" || diag "ib_write_bw's server exited $?"
	# Counters, read on demand: rxe's hw_counters moved with that traffic, and a rate shows
	# while traffic runs (rxe has no IB counters/ nor data byte counters: packets only).
	check "rdmactl counters rxe0/1: hw_counters/sent_pkts moved" \
		sh -c "rdmactl counters rxe0/1 | awk '\$3 == \"hw_counters/sent_pkts\" && \$4 > 0 { f = 1 } END { exit !f }'"
	# traffic that lasts until the watch has seen it (-D 120, stopped below), and the watch
	# started once packets move: judged by what the watch printed, not by how the traffic's
	# and the watch's start times happen to fall on a loaded machine
	timeout 150 ib_write_bw -F -d rxe0 -x "$gid" -D 120 -p 18521 > "$VM_LOGDIR/bw2-server.log" 2>&1 &
	bw=$!
	wait_until 20 sh -c "ss -ltn | grep -q ':18521 '" || diag "ib_write_bw's server does not listen"
	sent() { rdmactl counters rxe0/1 | awk '$3 == "hw_counters/sent_pkts" { print $4 }'; }
	sent0=$(sent)
	timeout 150 ib_write_bw -F -d rxe0 -x "$gid" -D 120 -p 18521 192.0.2.1 \
		> "$VM_LOGDIR/bw2-client.log" 2>&1 &
	bwc=$!
	sending() { [ "$(sent)" -gt "${sent0:-0}" ]; }
	wait_until 60 sending || diag "no packet sent by ib_write_bw yet"
	rdmactl counters --watch 1 rxe0/1 > "$VM_LOGDIR/counters-watch.txt" 2>&1 &
	watch=$!
	rate_seen() { grep -Eq '^rxe0/1 \(veth0\): [1-9][0-9]* pkt/s in, [1-9][0-9]* pkt/s out' "$VM_LOGDIR/counters-watch.txt"; }
	check "rdmactl counters --watch 1 rxe0/1 shows a packet rate during ib_write_bw" \
		wait_until 60 rate_seen
	kill "$watch" "$bwc" "$bw" 2> /dev/null
	wait "$watch" "$bwc" "$bw" 2> /dev/null
	diag "$(head -3 "$VM_LOGDIR/counters-watch.txt")"
	rdmactl metrics > "$VM_LOGDIR/metrics.prom" 2>&1
	check "rdmactl metrics: promtool check metrics passes" \
		logged "$VM_LOGDIR/promtool.log" sh -c "promtool check metrics < $VM_LOGDIR/metrics.prom"
	check "... with rxe's counters and the link's state from rdmad" \
		sh -c "grep -Eq '^rdmad_port_hw_events_total\{device=\"rxe0\",port=\"1\",netdev=\"veth0\",counter=\"sent_pkts\"\} [1-9]' $VM_LOGDIR/metrics.prom &&
			grep -q '^rdmad_link_state{device=\"rxe0\",port=\"1\",netdev=\"veth0\",profiles=\"00-defaults.yaml 50-rxe.yaml\",state=\"converged\"} 1' $VM_LOGDIR/metrics.prom"
	# the installed timer's service writes the file where node_exporter's textfile collector
	# reads it (Debian's directory), atomically: no temporary is left beside it
	TEXTFILE=/var/lib/prometheus/node-exporter
	mkdir -p $TEXTFILE
	check "systemctl start rdmad-metrics.service (the timer's)" \
		timeout 60 systemctl start rdmad-metrics.service
	check "... wrote $TEXTFILE/rdmad.prom, 0644, no temporary left, promtool accepts it" \
		sh -c "[ \"\$(stat -c %a $TEXTFILE/rdmad.prom)\" = 644 ] && [ ! -e $TEXTFILE/.rdmad.prom.tmp ] && promtool check metrics < $TEXTFILE/rdmad.prom"
	check "systemctl start rdmad-metrics.timer" timeout 60 systemctl start rdmad-metrics.timer
	is "... it is active, next run within a minute" \
		"$(systemctl is-active rdmad-metrics.timer)" active
	systemctl stop rdmad-metrics.timer
	rm -rf $TEXTFILE
	NCCL=/run/rdmad/nccl.conf
	is "$NCCL: the one link's index, for NCCL_CONF_FILE" \
		"$(grep -v '^#' $NCCL)" "$(printf 'NCCL_IB_GID_INDEX=%s\nNCCL_IB_HCA==rxe0:1' "$gid")"
	is "Manager.NcclGidIndex" \
		"$(busctl --system get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager NcclGidIndex)" \
		"i $gid"
	# The published index follows the addresses: without its IPv4 address the link has no GID
	# to publish (the file goes), with a global IPv6 one it publishes that, and an IPv4 address
	# added later wins again. Each change is a PublishedGidChanged signal and a journal entry.
	dbus-monitor --system "type='signal',interface='org.rdmad1.Manager',member='PublishedGidChanged'" \
		> "$VM_LOGDIR/gid-signals.txt" 2>&1 &
	monitor=$!
	sleep 0.5
	ip addr del 192.0.2.1/24 dev veth0
	check "the IPv4 address removed: $ENV and $NCCL removed" \
		wait_until 20 sh -c "[ ! -e $ENV ] && [ ! -e $NCCL ]"
	# rdma-online.target: with no GID to publish the link is not online; wait-online says why
	# when it times out, and a unit ordered after the target waits for the link (below).
	rc=0
	rdmactl wait-online --timeout 2 2> "$VM_LOGDIR/wait-timeout.txt" || rc=$?
	check "rdmactl wait-online --timeout 2 with no GID: exit 1 naming rxe0/1 and why" \
		sh -c "[ $rc -eq 1 ] && grep -q 'rxe0/1: converged, but has no RoCE v2 GID of an IPv4 or global IPv6 address (is an address configured on veth0?)' $VM_LOGDIR/wait-timeout.txt"
	rc=0
	rdmactl wait-online --link rxe9/1 --timeout 1 2> "$VM_LOGDIR/wait-nolink.txt" || rc=$?
	check "... --link of a link that does not exist: exit 1, 'no such RDMA link'" \
		sh -c "[ $rc -eq 1 ] && grep -q 'rxe9/1: no such RDMA link' $VM_LOGDIR/wait-nolink.txt"
	cat > /etc/systemd/system/rdma-job.service << 'UNIT'
[Unit]
Wants=rdma-online.target
After=rdma-online.target
[Service]
Type=oneshot
EnvironmentFile=/run/rdmad/env/rxe0-1.env
ExecStart=/bin/sh -c 'echo "$RDMA_GID_INDEX $RDMA_GID" > /run/rdma-job.out'
UNIT
	systemctl daemon-reload
	check "systemctl start --no-block rdma-job.service (Wants/After rdma-online.target)" \
		systemctl start --no-block rdma-job.service
	rdmactl wait-online --gid ipv4 --timeout 120 2> "$VM_LOGDIR/wait-ipv4.txt" &
	waiter4=$!
	# activating: started, and waiting (waited for: on a loaded host the queued start may take
	# a while), and the job behind it has not run
	check "... rdmad-wait-online.service is activating (waiting for the IPv4 GID)" \
		wait_until 30 sh -c '[ "$(systemctl show -P ActiveState rdmad-wait-online.service)" = activating ]'
	is "... with no GID, the job has not run" "$(test -e /run/rdma-job.out && echo ran)" ""
	ip addr add 2001:db8::1/64 dev veth0 nodad
	check "the link converges late (a global IPv6 address): rdma-job.service runs" \
		wait_until 60 test -e /run/rdma-job.out
	is "... with the env file's GID, the new one" "$(cut -d' ' -f2 /run/rdma-job.out)" \
		2001:0db8:0000:0000:0000:0000:0000:0001
	is "... rdmad-wait-online.service and rdma-online.target are active" \
		"$(systemctl is-active rdmad-wait-online.service rdma-online.target | tr '\n' ' ')" \
		"active active "
	check "rdmactl wait-online --gid ipv4 still waits (the link has only an IPv6 GID)" \
		kill -0 "$waiter4"
	check "a global IPv6 address added: $ENV published with its RoCE v2 GID" \
		wait_until 20 sh -c "[ \"\$(. $ENV 2> /dev/null && echo \$RDMA_GID)\" = 2001:0db8:0000:0000:0000:0000:0000:0001 ]"
	gid6=$(. $ENV && echo "$RDMA_GID_INDEX")
	ip addr add 192.0.2.1/24 dev veth0
	check "an IPv4 address added later: $ENV rewritten with the index rdmactl gid prints" \
		wait_until 20 sh -c "[ \"\$(. $ENV 2> /dev/null && echo \$RDMA_GID_INDEX)\" = \"\$(rdmactl gid rxe0/1 2> /dev/null)\" ] && grep -q ffff:c000:0201 $ENV"
	gid4=$(. $ENV && echo "$RDMA_GID_INDEX")
	rc=0
	wait "$waiter4" || rc=$?
	is "... and returns 0 once an IPv4 GID is published" "$rc" 0
	check "... and $NCCL is back with it" grep -qx "NCCL_IB_GID_INDEX=$gid4" $NCCL
	check "PublishedGidChanged: withdrawn, then -1 -> $gid6 (IPv6), then $gid6 -> $gid4" \
		wait_until 20 sh -c "tr -s ' \\n' ' ' < $VM_LOGDIR/gid-signals.txt | grep -Eq 'string \"rxe0/1\" int32 $gid int32 -1 .*string \"rxe0/1\" int32 -1 int32 $gid6 .*string \"rxe0/1\" int32 $gid6 int32 $gid4 string \"2001:0db8:0000:0000:0000:0000:0000:0001\" string \"0000:0000:0000:0000:0000:ffff:c000:0201\" string \"[^\"]*replaced'"
	kill "$monitor" 2> /dev/null
	wait "$monitor" 2> /dev/null
	check "... each logged with MESSAGE_ID=fbcab208ef60401685f0445a50234ef4" \
		sh -c "[ \$(journalctl -q -o cat MESSAGE_ID=fbcab208ef60401685f0445a50234ef4 RDMA_DEVICE=rxe0 | grep -c 'published GID index') -ge 3 ]"
	ip addr del 2001:db8::1/64 dev veth0
	# A waiter started before rdmad waits for it (and does not start it: no bus activation),
	# and one across a restart waits for the new rdmad's first reconcile.
	check "systemctl stop rdmad" timeout 60 systemctl stop rdmad
	rdmactl wait-online --timeout 120 2> "$VM_LOGDIR/wait-before.txt" &
	waiter=$!
	sleep 2
	is "rdmactl wait-online with rdmad stopped: waits, and rdmad stays stopped" \
		"$(kill -0 $waiter && echo waiting) $(systemctl is-active rdmad)" "waiting inactive"
	check "systemctl start rdmad" timeout 60 systemctl start rdmad
	rc=0
	wait "$waiter" || rc=$?
	is "... and returns 0 once rdmad started and converged" "$rc" 0
	rdmactl wait-online --gid ipv6 --timeout 120 2> "$VM_LOGDIR/wait-restart.txt" &
	waiter=$!
	check "systemctl restart rdmad, rdmactl wait-online --gid ipv6 waiting (no IPv6 GID)" \
		timeout 60 systemctl restart rdmad
	sleep 1
	check "... still waiting after the restart" kill -0 "$waiter"
	ip addr add 2001:db8::1/64 dev veth0 nodad
	rc=0
	wait "$waiter" || rc=$?
	is "... returns 0 once the new rdmad publishes an IPv6 GID" "$rc" 0
	ip addr del 2001:db8::1/64 dev veth0
	rm /etc/systemd/system/rdma-job.service
	systemctl daemon-reload

	# gids.publish: the profile says which GID (here: the one in a subnet) the link publishes
	ip addr add 198.51.100.1/24 dev veth0
	printf 'match: {device: rxe0}\ngids:\n  publish: {subnet: 198.51.100.0/24}\n' \
		> /etc/rdmad/55-publish.yaml
	check "gids.publish {subnet: 198.51.100.0/24}: systemctl reload rdmad" \
		timeout 60 systemctl reload rdmad
	check "... $ENV has the GID of 198.51.100.1, not of 192.0.2.1" \
		wait_until 20 grep -qx 'RDMA_GID=0000:0000:0000:0000:0000:ffff:c633:6401' $ENV
	gidp=$(. $ENV && echo "$RDMA_GID_INDEX")
	is "... rdmactl gid rxe0/1 (rdmad's answer) agrees" "$(rdmactl gid rxe0/1)" "$gidp"
	is "... and so does rdmactl gid --root / (the host and profiles read directly)" \
		"$(rdmactl gid --root / rxe0/1)" "$gidp"
	ip addr del 198.51.100.1/24 dev veth0
	check "no address in the subnet left: the link publishes nothing" \
		wait_until 20 sh -c "[ ! -e $ENV ]"
	check "... and rdmactl status shows gids.publish waiting for its GID" \
		sh -c "rdmactl status --no-pager rxe0/1 | grep -q 'gids.publish.*waiting for a GID'"
	rc=0
	rdmactl wait-online --timeout 1 2> "$VM_LOGDIR/wait-publish.txt" || rc=$?
	check "... and wait-online says it is pending on gids.publish" \
		sh -c "[ $rc -eq 1 ] && grep -q 'rxe0/1: pending (gids.publish pending: waiting for a GID of that kind)' $VM_LOGDIR/wait-publish.txt"
	rm /etc/rdmad/55-publish.yaml
	check "gids.publish removed: systemctl reload rdmad" timeout 60 systemctl reload rdmad
	check "... the default again: the GID of 192.0.2.1" \
		wait_until 20 grep -qx 'RDMA_GID=0000:0000:0000:0000:0000:ffff:c000:0201' $ENV
	check "nobody may not reload" \
		sh -c 'setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl reload 2>&1 |
			grep -q "needs root"'
	check "root may reconcile" rdmactl reconcile

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
	check "... and re-plans the host" wait_until 20 sh -c "[ \"\$(cat $TOS)\" = 96 ]"
	# security.roce-allow-from under the unit's sandbox (RestrictAddressFamilies=AF_UNIX
	# AF_NETLINK, SystemCallFilter=): libnftables' transaction and the NFNLGRP_NFTABLES watch
	modprobe nf_tables
	printf 'match: {device: rxe0}\nsecurity: {roce-allow-from: [192.0.2.0/24]}\n' \
		> /etc/rdmad/55-firewall.yaml
	check "security.roce-allow-from: systemctl reload rdmad" timeout 60 systemctl reload rdmad
	check "... rdmad.service makes table inet rdmad with veth0's chain" \
		wait_until 20 sh -c "nft list chain inet rdmad veth0 2> /dev/null |
			grep -q 'iifname \"veth0\" ip saddr 192.0.2.0/24 udp dport 4791 accept'"
	status=$(rdmactl --no-pager status rxe0/1 2>&1)
	check "... rdmactl status rxe0/1: security.roce-allow-from converged" \
		grep -Eq '^ *security\.roce-allow-from +udp/4791 from 192\.0\.2\.0/24, others dropped .*converged' \
		<<< "$status" || diag "$status"
	nft delete table inet rdmad
	check "... and puts it back after nft delete table inet rdmad" \
		wait_until 20 nft list table inet rdmad
	rm /etc/rdmad/55-firewall.yaml
	check "the key removed: systemctl reload rdmad" timeout 60 systemctl reload rdmad
	check "... table inet rdmad is removed" \
		wait_until 20 sh -c "! nft list table inet rdmad > /dev/null 2>&1"
	check "... and nothing of rdmad's failed meanwhile (no EPERM from the sandbox)" \
		sh -c "! journalctl -q -u rdmad -o cat | grep -q 'roce-allow-from.*\(failed\|refused\|could not\)'"
	# rdma.node-description under the unit. rdma-ndd.service (rdma-core) writes node_desc too;
	# udev starts it when an RDMA device appears: while it runs the row is contested, naming it.
	ND=/sys/class/infiniband/rxe0/node_desc
	printf 'match: {device: rxe0}\nrdma: {node-description: "%%h %%d"}\n' > /etc/rdmad/55-nd.yaml
	check "rdma.node-description '%h %d': systemctl start rdma-ndd, systemctl reload rdmad" \
		sh -c "timeout 60 systemctl start rdma-ndd.service && timeout 60 systemctl reload rdmad"
	check "... rdmactl status: contested, naming rdma-ndd.service and how to turn it off" \
		sh -c "rdmactl status --no-pager rxe0/1 | grep -Eq '^rdma\.node-description .*contested .*rdma-ndd\.service writes node_desc too.*systemctl disable --now rdma-ndd\.service'"
	check "systemctl mask --now rdma-ndd.service; systemctl reload rdmad" \
		sh -c "timeout 60 systemctl mask --now rdma-ndd.service && timeout 60 systemctl reload rdmad"
	check "... converged, node_desc '$(hostname) rxe0'" \
		sh -c "rdmactl status --no-pager rxe0/1 | grep -Eq '^rdma\.node-description .*converged' &&
			[ \"\$(cat $ND)\" = \"\$(hostname) rxe0\" ]"
	# No ProtectHostname= in rdmad.service: rdmad sees the host's name change.
	old_hostname=$(hostname)
	hostname rdmad-full-renamed
	check "hostname rdmad-full-renamed: rdmad.service follows it into node_desc" \
		wait_until 20 sh -c "[ \"\$(cat $ND)\" = 'rdmad-full-renamed rxe0' ]"
	hostname "$old_hostname"
	check "... and back" wait_until 20 sh -c "[ \"\$(cat $ND)\" = \"$old_hostname rxe0\" ]"
	rm /etc/rdmad/55-nd.yaml
	systemctl unmask rdma-ndd.service
	check "the key removed: systemctl reload rdmad" timeout 60 systemctl reload rdmad
	# pci.* under the unit (run-vm.sh --pcie: an e1000e behind a switch below root port 1c.0):
	# its config space past 64 bytes reads only with CAP_SYS_ADMIN, and is written through
	# /sys/devices, the one part of /sys the unit leaves writable (ProtectKernelTunables=yes).
	# The other e1000e (04:00.0, on root port 1d.0) declares upstream-acs: off too: with no GPU
	# here it is the peer, and the route between them crosses root port 1c.0.
	NIC=0000:03:00.0 RP=0000:00:1c.0
	setpci -s "$RP" ECAP_ACS+6.w=001d # as a kernel with an IOMMU sets it
	printf 'match: {pci: "%s"}\npci: {max-read-request: 4096, upstream-acs: off}\n---\nmatch: {pci: "%s"}\npci: {upstream-acs: off}\n' \
		"$NIC" 0000:04:00.0 > /etc/rdmad/55-pci.yaml
	check "pci.* on the e1000e at $NIC: systemctl reload rdmad" timeout 60 systemctl reload rdmad
	check "... rdmad.service clears the ACS P2P redirect of root port $RP (ACSCtl 0x0011)" \
		wait_until 20 sh -c "[ \"\$(setpci -s $RP ECAP_ACS+6.w)\" = 0011 ]"
	check "... and reads and writes the NIC's Device Control: unsupported, it reads back 128 (qemu)" \
		wait_until 20 sh -c "journalctl -q -u rdmad -o cat |
			grep -q 'pci.max-read-request not applied: $NIC: written, but Max_Read_Request_Size reads back 128'"
	rm /etc/rdmad/55-pci.yaml
	check "the key removed: systemctl reload rdmad" timeout 60 systemctl reload rdmad

	# rdmactl topology (issue 27) on qemu's config space: Soft-RoCE on each e1000e, one behind
	# the switch under root port 1c.0 (whose ACS is the only one: the switch ports have none),
	# the other right under root port 1d.0; no GPU.
	NIC1=0000:04:00.0
	nd0=$(ls "/sys/bus/pci/devices/$NIC/net") nd1=$(ls "/sys/bus/pci/devices/$NIC1/net")
	ip link set "$nd0" up && ip link set "$nd1" up
	check "rdma link add rxet0 on $nd0 ($NIC), rxet1 on $nd1 ($NIC1)" \
		sh -c "rdma link add rxet0 type rxe netdev $nd0 && rdma link add rxet1 type rxe netdev $nd1"
	setpci -s "$RP" ECAP_ACS+6.w=001d # P2P redirect on, as a kernel with an IOMMU sets it
	rdmactl topology > "$VM_LOGDIR/topology.txt" 2>&1
	rdmactl topology --json > "$VM_LOGDIR/topology.json" 2>&1
	diag "$(cat "$VM_LOGDIR/topology.txt")"
	is "rdmactl topology: no GPU" "$(head -1 "$VM_LOGDIR/topology.txt")" "No NVIDIA GPU found."
	link_of() { # the PCIe link as sysfs has it, in rdmactl's words: "2.5 GT/s x1"
		echo "$(cut -d' ' -f1-2 "/sys/bus/pci/devices/$1/current_link_speed") x$(cat "/sys/bus/pci/devices/$1/current_link_width")"
	}
	is "rxet0/1: its netdev, $NIC, NUMA node, PCIe link, and the redirect at root port $RP" \
		"$(awk '$1 == "rxet0/1" { print; exit }' "$VM_LOGDIR/topology.txt" | tr -s ' ')" \
		"rxet0/1 $nd0 $NIC - $(link_of "$NIC") p2p-redirect at $RP"
	is "rxet1/1: $NIC1 under root port 1d.0, ACS off there" \
		"$(awk '$1 == "rxet1/1" { print; exit }' "$VM_LOGDIR/topology.txt" | tr -s ' ')" \
		"rxet1/1 $nd1 $NIC1 - $(link_of "$NIC1") off"
	check "... the path between them: PHB (two root ports of one host bridge)" \
		grep -q '{"a":"rxet0/1","b":"rxet1/1","path":"PHB"}' "$VM_LOGDIR/topology.json"
	check "... the switch's ports have no ACS capability: none, not an error" \
		grep -q '"bridges":\[{"address":"0000:02:00.0","acs":"none"},{"address":"0000:01:00.0","acs":"none"},{"address":"0000:00:1c.0","acs":"p2p-redirect"}\]' \
		"$VM_LOGDIR/topology.json"
	check "... rxe0 on a veth: not on PCI" \
		sh -c "awk '\$1 == \"rxe0/1\" { print; exit }' $VM_LOGDIR/topology.txt | grep -q 'not on PCI'"
	check "... as nobody, ACS is unknown (needs root), never guessed" \
		sh -c "setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl topology |
			awk '\$1 == \"rxet1/1\" { print; exit }' | grep -q 'unknown (needs root)'"
	check "... and preflight's gpu family says: no GPU" \
		sh -c "rdmactl preflight --json | grep -q '\"check\":\"gpu.driver\",\"subject\":\"host\",\"status\":\"ok\",\"seen\":\"no NVIDIA GPU on this host\"'"
	setpci -s "$RP" ECAP_ACS+6.w=0011
	rdma link delete rxet0; rdma link delete rxet1

	# systemctl restart dbus: the same rdmad connects again and owns its name again
	pid=$(systemctl show -P MainPID rdmad)
	check "systemctl restart dbus" timeout 60 systemctl restart dbus
	check "rdmad owns org.rdmad1 again after the dbus restart" \
		wait_until 15 busctl --system status org.rdmad1
	is "... the same rdmad process (not restarted)" "$(systemctl show -P MainPID rdmad)" "$pid"
	is "... answering: Link.RoceTos" \
		"$(busctl --system get-property org.rdmad1 /org/rdmad1/link/rxe0_2f1 org.rdmad1.Link \
			RoceTos)" "i 96"
	check "systemctl stop rdmad" timeout 60 systemctl stop rdmad

	# D-Bus activation: a call to org.rdmad1 with rdmad stopped starts rdmad.service
	check "a call to org.rdmad1 starts rdmad.service (bus activation, SystemdService=)" \
		logged "$VM_LOGDIR/activation.log" timeout 60 \
		busctl --system call org.rdmad1 /org/rdmad1 org.rdmad1.Manager ListLinks
	# it answers the bus during its first reconcile, before READY=1 makes it active
	check "... rdmad.service is active" wait_until 60 systemctl is-active --quiet rdmad
	check "systemctl stop rdmad, again" timeout 60 systemctl stop rdmad
else
	fail "meson install -C BUILD" "no RDMAD_BUILD_DIR given, or it is not a meson build"
fi

done_testing
