#!/bin/bash
# faults-systemd.sh (full VM: run-vm.sh --full) - faults with systemd as PID 1 and rdmad
# installed by `meson install` (issue 16):
#   - rdmad killed with SIGKILL while it creates Soft-RoCE links, restarted by systemd
#     (Restart=on-failure): it converges, finds the links it made in /run/rdmad/state, makes
#     none twice;
#   - a failed action and a netlink overrun land in the journal with their MESSAGE_IDs.
#   RDMAD_BUILD_DIR  the meson build directory to install from (fails when unset)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
[ -n "${RDMAD_BUILD_DIR:-}" ] && [ -f "$RDMAD_BUILD_DIR/build.ninja" ] ||
	bail "no RDMAD_BUILD_DIR given, or it is not a meson build"
check "meson install -C BUILD" \
	logged "$VM_LOGDIR/install.log" meson install -C "$RDMAD_BUILD_DIR" --no-rebuild ||
	bail "rdmad is not installed"
rxe_modules || bail "no RDMA modules"
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
for i in 0 2 4 6; do
	veth_pair "veth$i" "veth$((i + 1))" || bail "cannot create veth$i"
done
asan_unit_dropin

CM=/sys/kernel/config/rdma_cm
tos() { cat "$CM/$1/ports/1/default_roce_tos" 2> /dev/null; }
mkdir -p /etc/rdmad
cat > /etc/rdmad/50-rxe.yaml << 'YAML'
links:
  - {name: rxe0, type: rxe, netdev: veth0}
  - {name: rxe1, type: rxe, netdev: veth2}
  - {name: rxe2, type: rxe, netdev: veth4}
  - {name: rxe3, type: rxe, netdev: veth6}
---
match: {device: "rxe*"}
roce: {tos: 106}
YAML
systemctl daemon-reload
check "systemctl start rdmad" timeout 120 systemctl start rdmad
check "... the four links converged" wait_until 60 sh -c "rdmactl plan --exit-code > /dev/null"

# ---- SIGKILL mid-apply, restarted by systemd ------------------------------------------------
# Three times: the links deleted by hand, rdmad making them again, killed at a different
# point of that; systemd starts it again after RestartSec.
restarts0=$(systemctl show -P NRestarts rdmad)
for delay in 0.2 0.6 1.0; do
	pid=$(systemctl show -P MainPID rdmad)
	for l in rxe1 rxe2 rxe3; do rdma link del "$l"; done
	sleep "$delay"
	systemctl kill -s KILL rdmad
	diag "killed $pid ${delay} s after deleting rxe1-3: $(rdma link show | awk '{print $2}' | tr '\n' ' ')"
	wait_until 60 sh -c "[ \"\$(systemctl show -P MainPID rdmad)\" != $pid ] &&
		[ \"\$(systemctl show -P MainPID rdmad)\" != 0 ] && systemctl is-active --quiet rdmad"
done
is "systemd restarted rdmad after each SIGKILL (NRestarts)" \
	"$(($(systemctl show -P NRestarts rdmad) - restarts0))" 3
check "... rdmad converges" wait_until 60 sh -c "rdmactl plan --exit-code > /dev/null"
is "... each declared link exists once, on its netdev" \
	"$(rdma link show | awk '{print $2, $NF}' | sort | tr '\n' ' ')" \
	"rxe0/1 veth0 rxe1/1 veth2 rxe2/1 veth4 rxe3/1 veth6 "
is "... no other RDMA device (nothing made twice)" "$(ls /sys/class/infiniband | tr '\n' ' ')" \
	"rxe0 rxe1 rxe2 rxe3 "
is "... each recorded as rdmad's in /run/rdmad/state" \
	"$(cd /run/rdmad/state/links && cat rxe0 rxe1 rxe2 rxe3 | tr '\n' ' ')" \
	"rxe veth0 rxe veth2 rxe veth4 rxe veth6 "
is "... ToS 106 on each" "$(tos rxe0) $(tos rxe1) $(tos rxe2) $(tos rxe3)" "106 106 106 106"
# The record is what lets rdmad remove a link it made once no profile declares it.
sed -i '/rxe3/d' /etc/rdmad/50-rxe.yaml
check "rxe3 no longer declared: systemctl reload rdmad" timeout 60 systemctl reload rdmad
check "... rdmad removes rxe3, which it made before a SIGKILL" \
	wait_until 30 sh -c "! test -e /sys/class/infiniband/rxe3"

# ---- the journal's MESSAGE_IDs ---------------------------------------------------------------
printf 'match: {device: rxe0}\nmodules: [rdmad_no_such_module]\n' > /etc/rdmad/60-bad-module.yaml
check "a module that does not exist: systemctl reload rdmad" timeout 60 systemctl reload rdmad
check "... the failed action in the journal with MESSAGE_ID c4f1e2a9... and the profile" \
	wait_until 20 sh -c "journalctl -q -u rdmad MESSAGE_ID=c4f1e2a9b8d74c6e8a5f3b2d1e0c9a74 -o verbose |
		grep -q 'PROFILE=60-bad-module.yaml'"
check "... the links still converged (ToS 106 on rxe0-2)" \
	sh -c "[ \"$(tos rxe0) $(tos rxe1) $(tos rxe2)\" = '106 106 106' ]"
rm /etc/rdmad/60-bad-module.yaml
check "the bad module removed: systemctl reload, converged" \
	sh -c "timeout 60 systemctl reload rdmad && rdmactl plan --exit-code > /dev/null"

# 10,000 address changes while rdmad is stopped (SIGSTOP): ENOBUFS on its rtnetlink socket.
for i in $(seq 0 4999); do
	echo "addr add 10.$((i / 250)).$((i % 250)).1/32 dev veth1"
	echo "addr del 10.$((i / 250)).$((i % 250)).1/32 dev veth1"
done > /tmp/storm.batch
systemctl kill -s STOP rdmad
ip -batch /tmp/storm.batch
systemctl kill -s CONT rdmad
check "10,000 address changes: the overrun in the journal with MESSAGE_ID 5e0d3c7a..." \
	wait_until 30 sh -c "journalctl -q -u rdmad MESSAGE_ID=5e0d3c7a91b44f2e8d6a2b19c0f7e344 -o cat |
		grep -q 'rtnetlink socket overrun (ENOBUFS'"
check "... rdmad active, converged" \
	wait_until 30 sh -c "systemctl is-active --quiet rdmad && rdmactl plan --exit-code > /dev/null"
check "systemctl stop rdmad" timeout 60 systemctl stop rdmad
done_testing
