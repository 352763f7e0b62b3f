#!/bin/bash
# run-vm.sh - boot one VM under qemu (TCG, no KVM, no NIC), run one scenario file in it and
# report its TAP results.
#
# Usage: run-vm.sh [OPTIONS] [SCENARIO]
#   --full            full VM: the host's root over 9p (read-only, tmpfs overlay) with systemd
#                     as PID 1, udevd and dbus (~25 s to the scenario). Default: the light VM,
#                     an initramfs with busybox and the RDMA tools (~5 s to the scenario).
#   --bin PATH        a project executable (rdmactl, rdmad): on the guest's PATH under its
#                     base name; the light VM gets it with its ldd libraries. Repeatable.
#   --file PATH       a file or directory the scenario needs, at its own path (the full VM
#                     sees the whole host read-only anyway). Repeatable.
#   --env NAME=VALUE  exported to the scenario. Repeatable.
#   --dcbsim          the dcbsim test module (tests/vm/dcbsim, light VM only), built for the VM
#                     kernel by build-dcbsim.sh (cached), at /lib/modules/$(uname -r)/extra/
#                     dcbsim.ko for the scenario to insmod, and tc's sch_ingress, cls_matchall
#                     and act_mirred (`depmod; modprobe -a ...`), which cable dcbsim0 to a wire
#   --devlinksim      the devlinksim test module (tests/vm/devlinksim: a devlink instance with a
#                     runtime parameter, and its netdev devlinksim0; light VM only), built for
#                     the VM kernel by build-module.sh (cached), at /lib/modules/$(uname -r)/
#                     extra/devlinksim.ko for the scenario to insmod
#   --netdevsim       the kernel's netdevsim (SR-IOV VFs, devlink eswitch; Debian does not build
#                     it), built for the VM kernel from its linux-source by build-module.sh
#                     (cached), at /lib/modules/$(uname -r)/extra/netdevsim.ko (light VM only;
#                     its dependency psample is in the image: modprobe psample, then insmod)
#   --pcie            a PCIe topology with two e1000e NICs: one behind a switch
#                     (root port rp1 -> x3130-upstream -> xio3130-downstream -> NIC: three
#                     bridges), one on a root port of its own (rp2 -> NIC); no network behind
#                     them (each on a qemu hub of its own). The light VM's guest gets e1000e.ko
#                     (`depmod; modprobe e1000e`), pciutils' lspci/setpci with pci.ids and
#                     util-linux's setpriv; the full VM has them from the host's root and the
#                     kernel's modules (udev loads e1000e). qemu traces every config space write the guest makes
#                     (pci_cfg_write) into VM_PCI_TRACE, next to the log (FILE.pci-trace, kept
#                     with the log), for the scenario's host side
#   --sriov-pci       real PCI SR-IOV functions under a vIOMMU: qemu's NVMe controller with 4 VFs
#                     (nvme-subsys, sriov_max_vfs=4) on a root port of its own (rp3, 00:1e.0),
#                     an intel-iommu with interrupt remapping (intremap=on: vfio_iommu_type1
#                     refuses a container without it; q35 kernel-irqchip=split) and intel_iommu=on
#                     on the kernel command line (every function in an IOMMU group, type
#                     DMA-FQ). The sriovsim test module (tests/vm/sriovsim, build-module.sh,
#                     cached) makes its PF and VFs Ethernet functions with netdevs:
#                     `insmod "$SRIOVSIM_KO" ids=1b36:0010 [numvfs_delay_ms=MS]`. The PF is
#                     01:00.0 (05:00.0 with --pcie), its VFs 01:00.1-01:00.4. The light VM gets
#                     sriovsim.ko at /lib/modules/$(uname -r)/extra/, vfio-pci and
#                     vfio_iommu_type1 (`depmod; modprobe -a vfio-pci vfio_iommu_type1`); the
#                     full VM insmods the cached .ko from the host's root and has
#                     modprobe.blacklist=nvme on its command line (udev would bind nvme to the
#                     PF; its udev names them enp1s0 and enp1s0v0-3). SRIOVSIM_KO is in the
#                     scenario's environment in both
#   --wire DIR:SIDE   a virtio NIC (light VM only) whose frames go to the VM of the other side,
#                     through a unix datagram socket pair in DIR (SIDE a or b; their MACs
#                     52:54:00:00:01:0a and :0b): two VMs on one wire, nothing else on it
#                     (run-pair.sh starts both). The guest gets virtio_pci.ko and virtio_net.ko
#                     (`depmod; modprobe -a virtio_pci virtio_net`), tc's sch_ingress,
#                     cls_matchall and act_mirred (to cable dcbsim0 to the wire) and
#                     WIRE_SIDE=SIDE in its env
#   --timeout SEC     stop the VM after SEC seconds and fail (default 300)
#   --log FILE        the timestamped serial console log, with the guest's dmesg, daemon logs
#                     and (full VM) journal when the scenario failed; kept only when the run
#                     fails (default: ${TMPDIR:-/tmp}/rdmad-vm-SCENARIO.log)
#   --keep-log        keep the log when the run passes, too
#   --verbose         copy the console to stderr as it runs
#   --shell           interactive: the console on this terminal and a root shell after the
#                     scenario (SCENARIO may be left out); `exit` powers off, Ctrl-A x kills qemu
#   --prepare         only fetch the kernel (and its headers) and build the cached initramfs
#                     images, dcbsim.ko, sriovsim.ko, devlinksim.ko and netdevsim.ko
#   --smp N, --mem MB guest CPUs (default $RDMAD_VM_SMP or 1) and memory (default 1024,
#                     full VM 2048)
#   --append ARGS     more kernel command line (e.g. loglevel=7 to see the boot)
#   --kernel NAME     the pinned kernel to boot: 6.1 (Debian 12's, the default) or 6.12
#                     (bookworm-backports); default $RDMAD_VM_KERNEL (fetch-kernel.sh)
#
# Output is TAP (meson's protocol: 'tap'): the scenario's "ok N - name" / "not ok N - name"
# lines and its plan, "# " diagnostics, and "Bail out! REASON" when the run itself failed:
# a timeout, a kernel panic/BUG/Oops, a missing plan or result, a VM that stopped early.
# Exit status: 0 when every planned test passed, 1 otherwise, 2 on bad usage.
#
# Host side: a scenario with the line "# run-vm: host-side" is run a second time, on the host,
# once the VM has stopped (not after a timeout, a kernel splat or a Bail out), with VM_SIDE=host,
# VM_LIB (lib.sh), VM_LOG (the console log), VM_PCI_TRACE (--pcie) and every NAME=VALUE the
# guest side printed as a line "@@VM-HOST NAME=VALUE" in its environment: checks only the
# host can make (qemu's traces). Its TAP follows the guest's (renumbered), and both plans add up.
#
# Env: RDMAD_VM_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/rdmad-vm): kernel, images, locks
#      RDMAD_VM_MAX_PARALLEL (default 2): VMs that may run at once on this host
#      RDMAD_VM_SLOT_HELD (set): the caller holds a slot for this VM (run-pair.sh takes two for
#      its pair before either VM starts)
#      RDMAD_VM_SMP (default 1): guest CPUs; two 1-CPU VMs side by side on a 2-core host
#      ran as fast as or faster than two 2-CPU VMs
#      RDMAD_VM_ACCEL (default tcg): tcg, or kvm to use /dev/kvm (a developer's machine); some
#      hosts have a /dev/kvm whose vCPUs abort qemu ("failed to set MSR 0x10a"), so not by default
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDMAD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/rdmad-vm}
MAX_PARALLEL=${RDMAD_VM_MAX_PARALLEL:-2}

variant=light scenario="" timeout=300 log="" keep_log=0 verbose=0 shell=0 prepare=0
smp=${RDMAD_VM_SMP:-1} mem="" append_extra="" dcbsim=0 devlinksim=0 netdevsim=0 pcie=0 sriov_pci=0 wire=""
bins=() files=() envs=()
usage() { sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--full) variant=full ;;
	--bin) bins+=("$(realpath "$2")"); shift ;;
	--file) files+=("$(realpath "$2")"); shift ;;
	--env) envs+=("$2"); shift ;;
	--dcbsim) dcbsim=1 ;;
	--devlinksim) devlinksim=1 ;;
	--netdevsim) netdevsim=1 ;;
	--pcie) pcie=1 ;;
	--sriov-pci) sriov_pci=1 ;;
	--wire) wire=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--log) log=$(realpath -m "$2"); shift ;;
	--keep-log) keep_log=1 ;;
	--verbose) verbose=1 ;;
	--shell) shell=1 ;;
	--prepare) prepare=1 ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append_extra+=" $2"; shift ;;
	--kernel) export RDMAD_VM_KERNEL=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "run-vm: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) [ -z "$scenario" ] || { echo "run-vm: one scenario per run" >&2; exit 2; }
	   scenario=$(realpath -m "$1") ;;
	esac
	shift
done
[ -n "$mem" ] || { [ "$variant" = full ] && mem=2048 || mem=1024; }
[ "$dcbsim" = 0 ] || [ "$variant" = light ] || { echo "run-vm: --dcbsim needs the light VM" >&2; exit 2; }
[ "$devlinksim" = 0 ] || [ "$variant" = light ] || { echo "run-vm: --devlinksim needs the light VM" >&2; exit 2; }
[ "$netdevsim" = 0 ] || [ "$variant" = light ] || { echo "run-vm: --netdevsim needs the light VM" >&2; exit 2; }
wire_side=${wire##*:} wire_dir=${wire%:*}
[ -z "$wire" ] || { [ "$variant" = light ] && [ -d "$wire_dir" ] &&
	{ [ "$wire_side" = a ] || [ "$wire_side" = b ]; }; } ||
	{ echo "run-vm: --wire DIR:SIDE needs the light VM, a directory and side a or b" >&2; exit 2; }
[ -z "$wire" ] || envs+=("WIRE_SIDE=$wire_side")

T0=${EPOCHREALTIME/./}
now="" waited="" wall=""
elapsed() { # elapsed VAR [SINCE]: seconds since the start (or SINCE, in µs), 2 decimals
	local d=$(( ${EPOCHREALTIME/./} - ${2:-$T0} ))
	printf -v "$1" '%d.%02d' $((d / 1000000)) $((d % 1000000 / 10000))
}
bail() { echo "Bail out! $*"; exit 1; }
diag() { echo "# $*"; }

# ---- host prerequisites -------------------------------------------------------------------
for tool in qemu-system-x86_64 cpio busybox depmod modprobe apt-get dpkg-deb readelf flock; do
	command -v "$tool" > /dev/null ||
		bail "$tool is not installed: run tests/vm/setup.sh (as root)"
done
[ -z "$scenario" ] || [ -f "$scenario" ] || bail "no scenario file $scenario"
for b in ${bins[@]+"${bins[@]}"}; do
	[ -x "$b" ] || bail "--bin $b: not an executable"
done
if [ "$pcie" = 1 ]; then
	for tool in lspci setpci setpriv; do
		command -v "$tool" > /dev/null ||
			bail "--pcie: $tool is not installed (packages pciutils, util-linux: .ci/packages)"
	done
fi

# ---- kernel and the cached base images ---------------------------------------------------
kdir=$("$HERE/fetch-kernel.sh") || bail "could not fetch the kernel (see fetch-kernel.sh output)"
kver=$(cat "$kdir/kver")
kernel=$kdir/vmlinux
[ -f "$kernel" ] || kernel=$kdir/vmlinuz

# A base image is rebuilt when the harness's guest side, the kernel or the host's packages
# (dpkg status) change; parallel runs build it once.
base_image() { # base_image VARIANT: path of the cached image, built if missing
	local v=$1 key img lock
	key=$( { cat "$HERE/build-initramfs.sh" "$HERE"/guest/*; echo "$kdir";
		stat -c %Y /var/lib/dpkg/status; } | sha256sum | cut -c1-16)
	# one image per variant and kernel: runs on both kernels share the cache
	img=$CACHE/initramfs/$v-$kver-$key.cpio
	if [ ! -f "$img" ]; then
		mkdir -p "$CACHE/initramfs"
		exec {lock}> "$CACHE/initramfs/.lock"
		flock "$lock"
		if [ ! -f "$img" ]; then
			rm -f "$CACHE/initramfs/$v-$kver"-*.cpio
			"$HERE/build-initramfs.sh" --variant "$v" --kernel-dir "$kdir" "$img" >&2 ||
				return 1
		fi
		exec {lock}>&-
	fi
	echo "$img"
}

if [ "$prepare" = 1 ]; then
	base_image light > /dev/null || bail "could not build the light VM initramfs"
	base_image full > /dev/null || bail "could not build the full VM initramfs"
	"$HERE/build-dcbsim.sh" > /dev/null || bail "could not build dcbsim.ko (build-dcbsim.sh)"
	"$HERE/build-module.sh" sriovsim > /dev/null ||
		bail "could not build sriovsim.ko (build-module.sh)"
	"$HERE/build-module.sh" devlinksim > /dev/null ||
		bail "could not build devlinksim.ko (build-module.sh)"
	"$HERE/build-module.sh" netdevsim > /dev/null ||
		bail "could not build netdevsim.ko (build-module.sh)"
	diag "kernel $kver in $kdir"
	echo "ok 1 - VM kernel and initramfs images ready"
	echo "1..1"
	exit 0
fi
base=$(base_image "$variant") || bail "could not build the $variant VM initramfs"

# ---- this run's files ---------------------------------------------------------------------
run=$(mktemp -d "${TMPDIR:-/tmp}/rdmad-vm-run.XXXXXX")
chmod 755 "$run"
qemu_pid=""
# shellcheck disable=SC2317 # called by the traps
cleanup() {
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2> /dev/null; then
		kill "$qemu_pid" 2> /dev/null || true
		sleep 1
		kill -9 "$qemu_pid" 2> /dev/null || true
	fi
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

sriovsim_ko=""
if [ "$sriov_pci" = 1 ]; then
	sriovsim_ko=$("$HERE/build-module.sh" sriovsim) ||
		bail "could not build sriovsim.ko (build-module.sh)"
	# the light VM has it in its image; the full VM sees the host's root: the cached .ko
	if [ "$variant" = light ]; then
		envs+=("SRIOVSIM_KO=/lib/modules/$kver/extra/sriovsim.ko")
	else
		envs+=("SRIOVSIM_KO=$sriovsim_ko")
	fi
fi

if [ -z "$log" ]; then
	name=$(basename "${scenario:-shell}" .sh)
	log=${TMPDIR:-/tmp}/rdmad-vm-$name.log
fi
mkdir -p "$(dirname "$log")"
pci_trace=""
[ "$pcie" = 0 ] || pci_trace=${log%.log}.pci-trace

# The guest's entry point: the scenario's environment, then guest/run-scenario.sh.
if [ "$variant" = light ]; then guest_dir=/vm/guest; else guest_dir=$HERE/guest; fi
{
	echo "#!/bin/bash"
	printf 'export %s=%q\n' VM_VARIANT "$variant" VM_SCENARIO "$scenario" \
		VM_BINS "${bins[*]-}" VM_SHELL "$shell" VM_LIB "$guest_dir/lib.sh" \
		VM_KERNEL_RELEASE "$kver"
	for e in ${envs[@]+"${envs[@]}"}; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	echo "exec bash $guest_dir/run-scenario.sh"
} > "$run/start"
chmod 755 "$run/start"

append="console=ttyS0 panic=-1 quiet$append_extra"
# the vIOMMU's groups are DMA-FQ (Debian's IOMMU_DEFAULT_DMA_LAZY); the full VM's udev would
# bind nvme to the PF before sriovsim can
[ "$sriov_pci" = 0 ] || append+=" intel_iommu=on"
[ "$sriov_pci" = 0 ] || [ "$variant" = light ] || append+=" modprobe.blacklist=nvme"
virtfs=()
if [ "$variant" = light ]; then
	extra=()
	for b in ${bins[@]+"${bins[@]}"}; do extra+=(--bin "$b"); done
	for f in ${files[@]+"${files[@]}"} ${scenario:+"$scenario"}; do extra+=(--file "$f"); done
	if [ "$dcbsim" = 1 ]; then
		ko=$("$HERE/build-dcbsim.sh") || bail "could not build dcbsim.ko (build-dcbsim.sh)"
		# /usr/lib: the base image has /lib as a symlink (see build-initramfs.sh)
		extra+=(--add "$ko:/usr/lib/modules/$kver/extra/dcbsim.ko")
		# tc's clsact, matchall and mirred: what cables dcbsim0 to a wire (dcb.sh's switch)
		extra+=(--kernel-dir "$kdir" --module sch_ingress --module cls_matchall --module act_mirred)
	fi
	if [ "$devlinksim" = 1 ]; then
		ko=$("$HERE/build-module.sh" devlinksim) || bail "could not build devlinksim.ko (build-module.sh)"
		extra+=(--add "$ko:/usr/lib/modules/$kver/extra/devlinksim.ko")
	fi
	if [ "$netdevsim" = 1 ]; then
		ko=$("$HERE/build-module.sh" netdevsim) || bail "could not build netdevsim.ko (build-module.sh)"
		extra+=(--add "$ko:/usr/lib/modules/$kver/extra/netdevsim.ko")
	fi
	if [ "$pcie" = 1 ]; then
		extra+=(--kernel-dir "$kdir" --module e1000e --bin "$(command -v lspci)"
			--bin "$(command -v setpci)" --bin "$(command -v setpriv)")
		# lspci's names (package pci.ids, pulled in by pciutils); it prints IDs without them
		ids=$(realpath -e /usr/share/misc/pci.ids 2> /dev/null) && extra+=(--file "$ids")
	fi
	if [ "$sriov_pci" = 1 ]; then
		extra+=(--add "$sriovsim_ko:/usr/lib/modules/$kver/extra/sriovsim.ko"
			--kernel-dir "$kdir" --module vfio-pci --module vfio_iommu_type1)
	fi
	# with tc's clsact, matchall and mirred, to cable a dcbsim netdev to the wire NIC
	[ -z "$wire" ] || extra+=(--kernel-dir "$kdir" --module virtio_pci --module virtio_net
		--module sch_ingress --module cls_matchall --module act_mirred)
	"$HERE/build-initramfs.sh" --extra-only ${extra[@]+"${extra[@]}"} \
		--add "$run/start:/vm/start" "$run/extra.cpio" || bail "could not pack the run's files"
	cat "$base" "$run/extra.cpio" > "$run/initrd.cpio"
	initrd=$run/initrd.cpio
else
	initrd=$base
	# security_model=none + readonly: the guest sees host owners and modes, writes nothing.
	# multidevs=remap: the host / spans several file systems; avoids inode collisions.
	virtfs=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$kdir/root/lib/modules/$kver,mount_tag=modules,security_model=none,readonly=on")
	# systemd.run= only pulls in sysinit.target: basic.target brings sockets (dbus.socket).
	# poweroff-immediate: no orderly shutdown of a throwaway overlay (~6 s saved).
	append+=" systemd.run=$run/start systemd.wants=basic.target systemd.show_status=error"
	append+=" systemd.run_success_action=poweroff-immediate"
	append+=" systemd.run_failure_action=poweroff-immediate"
fi

# TCG, as in CI; KVM when asked for (RDMAD_VM_ACCEL=kvm), with TCG as qemu's fallback
# shellcheck disable=SC2054 # the comma belongs to qemu's option value
accel=(-accel tcg,thread=multi)
[ "${RDMAD_VM_ACCEL:-tcg}" != kvm ] || accel=(-accel kvm "${accel[@]}")
machine=q35 viommu=()
if [ "$sriov_pci" = 1 ]; then
	# the vIOMMU comes before every other PCI device (the full VM's 9p ones too). Without
	# interrupt remapping VFIO_SET_IOMMU fails ("No interrupt remapping support", unless
	# vfio_iommu_type1 allow_unsafe_interrupts=1); under KVM, intremap=on needs the split irqchip
	# shellcheck disable=SC2054 # the commas belong to qemu's option values
	machine=q35,kernel-irqchip=split viommu=(-device intel-iommu,intremap=on)
fi
qemu=(qemu-system-x86_64 -machine "$machine" "${accel[@]}" -cpu max -m "$mem" -smp "$smp"
	-display none -nodefaults -no-reboot -nic none ${viommu[@]+"${viommu[@]}"}
	-kernel "$kernel" -initrd "$initrd" -append "$append" ${virtfs[@]+"${virtfs[@]}"})
if [ "$pcie" = 1 ]; then
	# Two paths from a NIC to the root complex: 3 bridges (rp1 -> switch -> NIC) and 1 (rp2 ->
	# NIC). Fixed slots, so that the guest's addresses stay put. Each NIC's netdev is a hub port
	# alone on its hub: frames go nowhere (qemu warns "hub N is not connected to host network").
	# The trace backend of Debian's qemu is "log": one line per config write, flushed as written.
	rm -f "$pci_trace"
	# shellcheck disable=SC2054 # the commas belong to qemu's option values
	qemu+=(-netdev hubport,id=pcie-net0,hubid=0 -netdev hubport,id=pcie-net1,hubid=1
		-device pcie-root-port,id=rp1,bus=pcie.0,addr=0x1c.0,chassis=1,slot=1
		-device x3130-upstream,id=up1,bus=rp1
		-device xio3130-downstream,id=dn1,bus=up1,chassis=2,slot=0
		-device e1000e,id=nic0,bus=dn1,addr=0.0,netdev=pcie-net0,mac=52:54:00:00:00:10
		-device pcie-root-port,id=rp2,bus=pcie.0,addr=0x1d.0,chassis=1,slot=2
		-device e1000e,id=nic1,bus=rp2,addr=0.0,netdev=pcie-net1,mac=52:54:00:00:00:11
		-trace "enable=pci_cfg_write,file=$pci_trace")
fi

if [ "$sriov_pci" = 1 ]; then
	# qemu's NVMe with 4 VFs on a root port of its own (slot 0x1e, after --pcie's 0x1c and
	# 0x1d, so that theirs keep their bus numbers). qemu's checks: sriov_vq_flexible >= 2 per
	# VF, sriov_vi_flexible >= 1 per VF, max_ioqpairs >= vq_flexible + 2, msix_qsize >=
	# vi_flexible + 1. No namespace, no drive: nothing in the guest drives the controller.
	# shellcheck disable=SC2054 # the commas belong to qemu's option values
	qemu+=(-device pcie-root-port,id=rp3,bus=pcie.0,addr=0x1e.0,chassis=1,slot=3
		-device nvme-subsys,id=sriov-subsys,nqn=rdmad-sriovsim
		-device nvme,id=sriov-pf,bus=rp3,addr=0.0,serial=sriovsim0,subsys=sriov-subsys,sriov_max_vfs=4,sriov_vq_flexible=8,sriov_vi_flexible=4,max_ioqpairs=10,msix_qsize=5)
fi

if [ -n "$wire" ]; then
	# each side binds its own socket and sends to the other's: frames sent before the other
	# side is up are dropped, as on a cable whose far end is not plugged in yet
	other=$([ "$wire_side" = a ] && echo b || echo a)
	rm -f "$wire_dir/$wire_side.sock"
	# shellcheck disable=SC2054 # the commas belong to qemu's option values
	qemu+=(-netdev "dgram,id=wire,local.type=unix,local.path=$wire_dir/$wire_side.sock,remote.type=unix,remote.path=$wire_dir/$other.sock"
		-device "virtio-net-pci,netdev=wire,mac=52:54:00:00:01:0$wire_side")
fi

if [ "$shell" = 1 ]; then
	echo "run-vm: $variant VM, kernel $kver; Ctrl-A x quits qemu" >&2
	# no exec: the EXIT trap removes the run directory afterwards
	"${qemu[@]}" -serial mon:stdio
	[ -z "$pci_trace" ] || echo "run-vm: qemu's config write trace: $pci_trace" >&2
	exit
fi

# ---- at most MAX_PARALLEL VMs on this host ------------------------------------------------
# (RDMAD_VM_SLOT_HELD: the caller holds a slot for this VM, as run-pair.sh holds two for its pair)
mkdir -p "$CACHE/slots"
wait_start=${EPOCHREALTIME/./}
slot=""
[ -z "${RDMAD_VM_SLOT_HELD:-}" ] || slot=held
while [ -z "$slot" ]; do
	for ((i = 0; i < MAX_PARALLEL; i++)); do
		exec {slot_fd}> "$CACHE/slots/$i"
		if flock -n "$slot_fd"; then slot=$i; break; fi
		exec {slot_fd}>&-
	done
	[ -n "$slot" ] || sleep 1
done
elapsed waited "$wait_start"

# ---- boot and follow the console ------------------------------------------------------------
mkfifo "$run/console"
"${qemu[@]}" -serial stdio < /dev/null > "$run/console" 2>&1 &
qemu_pid=$!
exec {console}< "$run/console"

deadline=$(( ${EPOCHREALTIME%.*} + timeout ))
timed_out=0 done_rc="" plan="" started="" boot="" panic="" ran=0 failed=0 bailed=0
host_env=()
result() { # result LINE: a TAP result, passed on and counted
	echo "$1"
	ran=$((ran + 1))
	# "# TODO": expected to fail, and a pass is unexpected (meson counts it as failed)
	if [[ "$1" =~ \#\ *[Tt][Oo][Dd][Oo] ]]; then
		[[ "$1" == "not ok"* ]] || failed=$((failed + 1))
	elif [[ "$1" == "not ok"* ]]; then
		failed=$((failed + 1))
	fi
}
: > "$log"
while :; do
	left=$(( deadline - ${EPOCHREALTIME%.*} ))
	if [ "$left" -le 0 ]; then timed_out=1; break; fi
	line="" status=0
	IFS= read -r -t "$left" line <&"$console" || status=$?
	if [ "$status" -gt 128 ]; then timed_out=1; break; fi
	# EOF: qemu exited, maybe after a last line without a newline
	if [ "$status" -ne 0 ] && [ -z "$line" ]; then break; fi
	line=${line%$'\r'}
	elapsed now
	printf '[%7s] %s\n' "$now" "$line" >> "$log"
	[ "$verbose" = 0 ] || printf '[%7s] %s\n' "$now" "$line" >&2
	case "$line" in
	"ok "[0-9]*|"not ok "[0-9]*) result "$line" ;;
	1..[0-9]*) plan=${line#1..}; plan=${plan%%[!0-9]*} ;;
	"Bail out!"*) echo "$line"; bailed=1 ;;
	"#"*) echo "$line" ;;
	"@@VM-START "*) started=$now boot=${line##*uptime=} ;;
	"@@VM-DONE rc="*) done_rc=${line#@@VM-DONE rc=}; done_rc=${done_rc%% *} ;;
	"@@VM-HOST "*)
		# NAME=VALUE for the host side's environment
		if [[ "$line" =~ ^@@VM-HOST\ ([A-Z][A-Z0-9_]*=.*)$ ]]; then
			host_env+=("${BASH_REMATCH[1]}")
		else
			diag "run-vm: ignored (not NAME=VALUE): $line"
		fi ;;
	"@@VM-INIT-FAIL "*) panic="init failed: ${line#@@VM-INIT-FAIL }" ;;
	esac
	# a kernel splat (printk time stamps are on in Debian kernels)
	if [[ "$line" =~ ^\[\ *[0-9]+\.[0-9]+\]\ (Kernel\ panic|BUG:|Oops|general\ protection) ]]; then
		[ -n "$panic" ] || panic=${line#*] }
	fi
done
exec {console}<&-
if kill -0 "$qemu_pid" 2> /dev/null; then
	kill "$qemu_pid" 2> /dev/null || true
fi
wait "$qemu_pid" 2> /dev/null || true
qemu_pid=""
elapsed wall
echo "[$wall] @@HOST qemu exited, wall $wall s, timed_out=$timed_out" >> "$log"

# ---- verdict --------------------------------------------------------------------------------
diag "$variant VM, kernel $kver: booted in ${boot:-?} s (guest uptime), scenario started" \
	"at ${started:-never} s, wall $wall s (${waited} s of it waiting for a VM slot)"
reason=""
if [ "$timed_out" = 1 ]; then
	reason="VM timed out after $timeout s"
elif [ -n "$panic" ]; then
	reason="kernel: $panic"
elif [ -z "$done_rc" ]; then
	reason="VM stopped before the scenario finished"
elif [ "$bailed" = 1 ]; then
	reason="" # the scenario said why
elif [ -z "$plan" ]; then
	reason="the scenario printed no TAP plan"
elif [ "$plan" != "$ran" ]; then
	reason="planned $plan tests, $ran ran"
elif [ "$done_rc" != 0 ] && [ "$failed" = 0 ]; then
	reason="the scenario exited with status $done_rc"
fi

# ---- the scenario's host side (see the header) ------------------------------------------------
if [ -z "$reason" ] && [ "$bailed" = 0 ] && grep -qx '# run-vm: host-side' "$scenario"; then
	host_rc=0 host_plan="" host_ran=$ran
	(cd "$run" && exec env VM_SIDE=host VM_LIB="$HERE/guest/lib.sh" VM_LOG="$log" \
		VM_PCI_TRACE="$pci_trace" ${host_env[@]+"${host_env[@]}"} \
		timeout 120 bash "$scenario") > "$run/host-side.out" 2>&1 || host_rc=$?
	while IFS= read -r line; do
		elapsed now
		printf '[%7s] host-side: %s\n' "$now" "$line" >> "$log"
		case "$line" in
		"ok "[0-9]*|"not ok "[0-9]*) # numbered on from the guest's results
			[[ "$line" =~ ^(ok|not\ ok)\ [0-9]+(.*)$ ]]
			result "${BASH_REMATCH[1]} $((ran + 1))${BASH_REMATCH[2]}" ;;
		1..[0-9]*) host_plan=${line#1..}; host_plan=${host_plan%%[!0-9]*} ;;
		"Bail out!"*) echo "$line"; bailed=1 ;;
		"#"*) echo "$line" ;;
		esac
	done < "$run/host-side.out"
	host_ran=$((ran - host_ran))
	diag "the scenario's host side: $host_ran results, exit status $host_rc"
	if [ "$bailed" = 1 ]; then
		reason=""
	elif [ -z "$host_plan" ]; then
		reason="the scenario's host side printed no TAP plan (exit status $host_rc)"
	elif [ "$host_plan" != "$host_ran" ]; then
		reason="the scenario's host side planned $host_plan tests, $host_ran ran"
	elif [ "$host_rc" != 0 ] && [ "$failed" = 0 ]; then
		reason="the scenario's host side exited with status $host_rc"
	else
		plan=$((plan + host_plan))
	fi
fi

if [ -z "$reason" ] && [ "$bailed" = 0 ] && [ "$failed" = 0 ]; then
	echo "1..$plan"
	if [ "$keep_log" = 1 ]; then
		diag "console log: $log"
		[ -z "$pci_trace" ] || diag "qemu's config write trace: $pci_trace"
	else
		rm -f "$log" ${pci_trace:+"$pci_trace"}
	fi
	exit 0
fi
diag "console log: $log"
[ -z "$pci_trace" ] || diag "qemu's config write trace: $pci_trace"
diag "---- the scenario's output (the log has the guest's dmesg, daemon logs, journal):"
sed -n '/@@VM-START/,/@@VM-DIAG\|@@VM-DONE/p' "$log" | tail -n 150 | sed 's/^/# /'
diag "---- the log's last lines:"
tail -n 15 "$log" | sed 's/^/# /'
if [ -n "$reason" ]; then
	echo "Bail out! $reason"
elif [ -n "$plan" ]; then
	echo "1..$plan"
fi
exit 1
