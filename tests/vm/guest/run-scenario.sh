#!/bin/bash
# run-scenario.sh - guest side of one VM run, started by /vm/start (light VM) or by systemd's
# kernel-command-line.service (full VM) with the environment run-vm.sh wrote:
#   VM_VARIANT  light | full
#   VM_SCENARIO the scenario file (bash, prints TAP), or empty
#   VM_BINS     project executables (host paths, space-separated): on PATH by their base names
#   VM_SHELL    1: an interactive shell on the serial console after the scenario
# It prints markers run-vm.sh reads: "@@VM-START ..." and, last, "@@VM-DONE rc=N". A failing
# scenario's run also gets the guest's dmesg, the files in $VM_LOGDIR (where scenarios put
# daemon logs) and, in the full VM, the journal.
set -u
exec > /dev/ttyS0 2>&1 < /dev/null

up() { local u _; read -r u _ < /proc/uptime; echo "$u"; }

export VM_LOGDIR=/run/rdmad-vm/log
mkdir -p /run/rdmad-vm/bin "$VM_LOGDIR"
for b in ${VM_BINS:-}; do
	ln -sf "$b" /run/rdmad-vm/bin/
done
export PATH=/run/rdmad-vm/bin:$PATH

echo "@@VM-START variant=$VM_VARIANT kernel=$(uname -r) uptime=$(up)"
rc=0
if [ -n "${VM_SCENARIO:-}" ]; then
	(cd /tmp && exec bash "$VM_SCENARIO")
	rc=$?
fi
if [ "$rc" -ne 0 ]; then
	echo "@@VM-DIAG dmesg"
	dmesg
	for f in "$VM_LOGDIR"/*; do
		[ -f "$f" ] || continue
		echo "@@VM-DIAG $f"
		cat "$f"
	done
	if [ "$VM_VARIANT" = full ]; then
		echo "@@VM-DIAG journal"
		journalctl -b --no-pager -o short-monotonic | tail -n 300
	fi
fi
echo "@@VM-DONE rc=$rc uptime=$(up)"
if [ "${VM_SHELL:-0}" = 1 ]; then
	echo "@@VM-SHELL scenario rc=$rc; exit the shell to power off"
	PS1='rdmad-vm:\w# ' setsid -c bash --norc -i <> /dev/ttyS0 >&0 2>&0
fi
exit "$rc"
