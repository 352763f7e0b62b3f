#!/bin/bash
# faults.sh (light VM) - faults on the real kernel (issue 16). In each, rdmad keeps running,
# reports the fault where it is, converges the rest, converges once the fault is gone:
#   - a module in modules: that does not exist;
#   - RDMA devices deleted while rdmad reconciles them (rdma link add/del in a tight loop);
#   - rdmad killed with SIGKILL while it creates Soft-RoCE links, then started again: it finds
#     the links it made from /run/rdmad/state and duplicates nothing.
#   - RDMA netlink missing (ib_core cannot be loaded);
# rdmad and rdmactl come from the build (--bin); udevd relays uevents (as in daemon.sh).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

LOG=${VM_LOGDIR:-/tmp}/rdmad-faults.log
CONF=/etc/rdmad
CM=/sys/kernel/config/rdma_cm

for b in rdmad rdmactl udevadm; do
	command -v "$b" > /dev/null || bail "no $b on PATH: run-vm.sh --bin"
done

udevd_start
modprobe veth
for i in 0 2 4 6; do
	ip link add "veth$i" type veth peer name "veth$((i + 1))"
	ip link set "veth$i" up
	ip link set "veth$((i + 1))" up
done
grep -q " /sys/kernel/config configfs " /proc/mounts || mount -t configfs configfs /sys/kernel/config

tos() { cat "$CM/$1/ports/1/default_roce_tos" 2> /dev/null; }
n_links() { rdma link show 2> /dev/null | grep -c "^link $1/"; }

# ---- RDMA netlink missing: ib_core cannot be loaded ------------------------------------------
# modprobe.d makes every load of ib_core fail (an install command): rdma_rxe cannot load, there
# is no NETLINK_RDMA. rdmad says so, keeps running, and converges once ib_core can load.
is "ib_core is not loaded at boot" "$(grep -c '^ib_core ' /proc/modules)" 0
mkdir -p /etc/modprobe.d
echo 'install ib_core /bin/false' > /etc/modprobe.d/rdmad-faults.conf
mkdir -p "$CONF"
cat > "$CONF/50-rxe.yaml" << 'YAML'
links:
  - {name: rxe0, type: rxe, netdev: veth0}
YAML
rdmad -v > "$LOG.noib" 2>&1 &
RDMAD=$!
check "ib_core cannot load: rdmad says there is no RDMA netlink (ib_core is not loaded)" \
	wait_until 20 grep -q 'host: failed to set links to rxe0: .*no RDMA netlink (NETLINK_RDMA): ib_core is not loaded' "$LOG.noib"
check "... and that rdma_rxe could not be loaded" \
	grep -q 'host: failed to set modules to rdma_rxe' "$LOG.noib"
check "... and retries with backoff" wait_until 20 grep -q 'host: failed (attempt 2)' "$LOG.noib"
rm /etc/modprobe.d/rdmad-faults.conf
check "ib_core can load again: after the next retry rxe0 exists" \
	wait_until 40 test -e /sys/class/infiniband/rxe0
check "... rdmad converges (rdmactl plan --exit-code)" \
	wait_until 20 sh -c "rdmactl plan --exit-code > /dev/null"
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
rdma link del rxe0

# ---- a module that does not exist -----------------------------------------------------------
cat > "$CONF/50-rxe.yaml" << 'YAML'
links:
  - {name: rxe0, type: rxe, netdev: veth0}
  - {name: rxe1, type: rxe, netdev: veth2}
---
match: {device: rxe0}
modules: [rdmad_no_such_module]
roce: {tos: 106}
---
match: {device: rxe1}
modules: [rdma_ucm]
roce: {tos: 106}
YAML
rdmad -v > "$LOG" 2>&1 &
RDMAD=$!
check "modules: [rdmad_no_such_module]: the failure is logged, naming the module" \
	wait_until 20 grep -q 'failed to set modules to rdmad_no_such_module .*module rdmad_no_such_module not found' "$LOG"
check "... the other links converge all the same: rxe0 and rxe1 created, ToS 106" \
	wait_until 20 sh -c "[ \"\$(cat $CM/rxe0/ports/1/default_roce_tos 2> /dev/null)\" = 106 ] &&
		[ \"\$(cat $CM/rxe1/ports/1/default_roce_tos 2> /dev/null)\" = 106 ]"
check "... rxe1/1 reported converged" wait_until 20 grep -q 'rxe1/1: converged' "$LOG"
check "... and the host is retried with backoff (not at every event)" \
	wait_until 20 grep -Eq 'host: failed \(attempt 2\)' "$LOG"
is "dummy is not loaded yet" "$(grep -c '^dummy ' /proc/modules)" 0
sed -i 's/rdmad_no_such_module/dummy/' "$CONF/50-rxe.yaml"
kill -HUP "$RDMAD"
check "the module fixed (dummy, not loaded before): loaded on the reload" \
	wait_until 20 grep -q '^dummy ' /proc/modules
check "... and the host converges" wait_until 20 sh -c "rdmactl plan --exit-code > /dev/null"
check "rdmad kept running" kill -0 "$RDMAD"

# ---- devices deleted while rdmad reconciles them ---------------------------------------------
# A profile for every rxe device; rxe5 added and deleted by hand, again and again, for 10 s:
# rdmad sees it come, plans for it and finds it gone between observe and apply.
cat >> "$CONF/50-rxe.yaml" << 'YAML'
---
match: {device: "rxe*"}
roce: {tos: 106}
YAML
loaded=$(grep -c 'Loaded' "$LOG")
kill -HUP "$RDMAD"
wait_until 20 sh -c "[ \$(grep -c Loaded $LOG) -gt $loaded ]" || diag "rdmad did not say it reloaded"
lines=$(wc -l < "$LOG")
end=$(($(date +%s) + 10))
churn=0
while [ "$(date +%s)" -lt "$end" ]; do
	rdma link add rxe5 type rxe netdev veth4 2> /dev/null && churn=$((churn + 1))
	sleep 0.0$((RANDOM % 3))
	rdma link del rxe5 2> /dev/null
done
diag "rxe5 added and deleted $churn times"
check "rxe5 added and deleted $churn times under rdmad: rdmad is alive" kill -0 "$RDMAD"
is "... rxe0 and rxe1 untouched, ToS 106" "$(tos rxe0) $(tos rxe1)" "106 106"
check "... a failure on the vanishing device was put on rxe5 only" \
	sh -c "! tail -n +$((lines + 1)) $LOG | grep -E 'rxe[01]/1: failed'"
diag "$(grep -c 'rxe5/1: failed' "$LOG") failures reported on rxe5/1, e.g. $(grep -m1 'rxe5/1: failed to set' "$LOG")"
rdma link add rxe5 type rxe netdev veth4
check "rxe5 added for good: converged with ToS 106" \
	wait_until 20 sh -c "[ \"\$(cat $CM/rxe5/ports/1/default_roce_tos 2> /dev/null)\" = 106 ]"
check "... nothing left to do (rdmactl plan --exit-code)" \
	wait_until 20 sh -c "rdmactl plan --exit-code > /dev/null"
rdma link del rxe5
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0

# ---- SIGKILL while creating Soft-RoCE links --------------------------------------------------
# Four declared links; rdmad killed at a different point of creating them each time, then
# started again. The links it made are recorded in /run/rdmad/state before it goes on: found
# again, not made twice (an rxe on the same netdev under another name), nothing left over.
rdma link del rxe0
rdma link del rxe1
rm -rf /run/rdmad/state
cat > "$CONF/50-rxe.yaml" << 'YAML'
links:
  - {name: rxe0, type: rxe, netdev: veth0}
  - {name: rxe1, type: rxe, netdev: veth2}
  - {name: rxe2, type: rxe, netdev: veth4}
  - {name: rxe3, type: rxe, netdev: veth6}
---
match: {device: "rxe*"}
roce: {tos: 106}
YAML
for delay in 0.2 0.5 0.8 1.2 1.6; do
	rdmad >> "$LOG" 2>&1 &
	pid=$!
	sleep "$delay"
	kill -9 "$pid"
	wait "$pid" 2> /dev/null
	diag "killed after ${delay} s: $(rdma link show | awk '{print $2}' | tr '\n' ' ')"
	# a run that left nothing to kill midway: delete one link so that the next has work
	[ "$(rdma link show | grep -c rxe)" -eq 4 ] && rdma link del rxe3
done
rdmad -v > "$LOG.restart" 2>&1 &
RDMAD=$!
check "started again after five SIGKILLs: converges" \
	wait_until 30 sh -c "rdmactl plan --exit-code > /dev/null"
is "... each declared link exists once, on its netdev" \
	"$(rdma link show | awk '{print $2, $NF}' | sort | tr '\n' ' ')" \
	"rxe0/1 veth0 rxe1/1 veth2 rxe2/1 veth4 rxe3/1 veth6 "
is "... no other RDMA device (nothing made twice)" "$(ls /sys/class/infiniband | tr '\n' ' ')" \
	"rxe0 rxe1 rxe2 rxe3 "
is "... each recorded as rdmad's in /run/rdmad/state" \
	"$(cd /run/rdmad/state/links && cat rxe0 rxe1 rxe2 rxe3 | tr '\n' ' ')" \
	"rxe veth0 rxe veth2 rxe veth4 rxe veth6 "
is "... ToS 106 on each" "$(tos rxe0) $(tos rxe1) $(tos rxe2) $(tos rxe3)" "106 106 106 106"
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
done_testing
