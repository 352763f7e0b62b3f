#!/bin/bash
# pcie-kernel.sh (light VM, --pcie) - the PCIe config space behaviour two upcoming profile keys
# build on, on qemu's emulated PCIe topology (run-vm.sh --pcie: 03:00.0, an e1000e behind a
# switch, rp1 00:1c.0 -> 01:00.0 x3130-upstream -> 02:00.0 xio3130-downstream; 04:00.0, an
# e1000e on root port 00:1d.0):
#   - pci.upstream-acs: off: the bridges between a NIC and the root complex (the sysfs path's
#     parents), which of them have ACS (on qemu only pcie-root-port), ACS Control writable
#     there, the P2P redirect bits (RR, CR) cleared with a masked write
#   - pci.max-read-request: the NIC's Device Control (CAP_EXP+8), MRRS in bits 14:12; qemu never
#     makes it writable, so a write reads back unchanged and is checked on the host, in qemu's
#     trace of the guest's config writes (the host side below)
#   - what a user without CAP_SYS_ADMIN reads of the config space
#   - a PCI function whose netdev is in another network namespace (a VF's in a pod, issue 43):
#     what sysfs shows of it in ours
#   - kernel lockdown: config space writes refused with EPERM (last: it cannot be undone)
# The host side runs after the VM (run-vm.sh, "# run-vm: host-side" below) and reads
# VM_PCI_TRACE, with the addresses the guest side printed as @@VM-HOST lines.
# run-vm: host-side
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

# ---- the host side: qemu's trace of config writes ----------------------------------------------
if [ "${VM_SIDE:-guest}" = host ]; then
	T=${VM_PCI_TRACE:-}
	[ -n "${PCIE_NIC:-}" ] && [ -n "${PCIE_NIC_DEVCTL:-}" ] && [ -n "${PCIE_RP:-}" ] &&
		[ -n "${PCIE_RP_ACSCTL:-}" ] || bail "the guest side handed over no @@VM-HOST addresses"
	check "qemu traced the guest's config writes (run-vm.sh --pcie)" test -s "$T" ||
		bail "no trace file '$T'"
	diag "$(wc -l < "$T") config writes traced, e.g. '$(grep -m1 '^pci_cfg_write e1000e ' "$T")'"
	is "every trace line is 'pci_cfg_write TYPE BB:DD.F @0xOFFSET <- 0xVALUE'" \
		"$(grep -cvE '^pci_cfg_write [^ ]+ [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] @0x[0-9a-f]+ <- 0x[0-9a-f]+$' "$T")" 0
	writes() { # writes BB:DD.F @0xOFF N: the last N writes there, "TYPE VALUE ..."
		awk -v a="$1" -v o="$2" '$3 == a && $4 == o { print $2, $6 }' "$T" | tail -n "$3" |
			paste -sd' '
	}
	diag "every write to $PCIE_NIC's Device Control: $(writes "$PCIE_NIC" "@$PCIE_NIC_DEVCTL" 100)"
	is "$PCIE_NIC's last Device Control writes: setpci's MRRS 4096 (0x5000) and the sysfs pwrite's MRRS 512 (0x2000), each one 16-bit write the device took in and reads back as before" \
		"$(writes "$PCIE_NIC" "@$PCIE_NIC_DEVCTL" 2)" "e1000e 0x5000 e1000e 0x2000"
	is "$PCIE_RP's ACS Control writes: 0x1d, 0x11 (RR and CR cleared), 0xffff, 0x0" \
		"$(writes "$PCIE_RP" "@$PCIE_RP_ACSCTL" 4)" \
		"pcie-root-port 0x1d pcie-root-port 0x11 pcie-root-port 0xffff pcie-root-port 0x0"
	done_testing
fi

# ---- the guest side -------------------------------------------------------------------------------
# run-vm.sh --pcie put e1000e.ko into the image after the base's modules.dep was made
load_e1000e() { depmod && modprobe e1000e; }
check "depmod; modprobe e1000e" load_e1000e || bail "no e1000e"
NIC=0000:03:00.0 NIC1=0000:04:00.0 RP=0000:00:1c.0

ids() { local d; for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor"):$(cat "$d/device")" = 0x8086:0x10d3 ] && echo "${d##*/}"; done | paste -sd' '; }
is "two e1000e (82574L) functions, at 03:00.0 and 04:00.0" "$(ids)" "$NIC $NIC1"
wait_until 20 test -d "/sys/bus/pci/devices/$NIC/net" -a -d "/sys/bus/pci/devices/$NIC1/net"
netdevs=(/sys/bus/pci/devices/"$NIC"/net/* /sys/bus/pci/devices/"$NIC1"/net/*)
is "... both bound to e1000e, with a netdev each" \
	"$(basename "$(readlink "/sys/bus/pci/devices/$NIC/driver")") $(basename "$(readlink "/sys/bus/pci/devices/$NIC1/driver")") ${#netdevs[@]}" \
	"e1000e e1000e 2"
diag "$(lspci -tv)"
is "lspci -t: 03:00.0 behind the switch under root port 1c.0, 04:00.0 right under root port 1d.0" \
	"$(lspci -t | grep -Eo '1[cd]\.0-.*' | paste -sd' ')" \
	"1c.0-[01-03]----00.0-[02-03]----00.0-[03]----00.0 1d.0-[04]----00.0"

bridges() { # bridges DEV: the PCI functions above DEV in sysfs, nearest first
	local p
	p=$(dirname "$(realpath "/sys/bus/pci/devices/$1")")
	while [[ "${p##*/}" =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]]; do
		echo "${p##*/}"
		p=$(dirname "$p")
	done | paste -sd' '
}
port_type() { # port_type DEV: the PCIe capability's device/port type (bits 7:4 of CAP_EXP+2)
	case $(( (0x$(setpci -s "$1" CAP_EXP+2.w) >> 4) & 0xf )) in
	0) echo endpoint ;; 4) echo root ;; 5) echo upstream ;; 6) echo downstream ;; *) echo other ;;
	esac
}
has_acs() { lspci -vvv -s "$1" | grep -q 'Access Control Services' && echo "$1=acs" || echo "$1=none"; }
path=$(bridges "$NIC") path1=$(bridges "$NIC1")
is "the bridges from 03:00.0 up to the root complex (realpath's parents)" "$path" \
	"0000:02:00.0 0000:01:00.0 0000:00:1c.0"
is "... from 04:00.0" "$path1" "0000:00:1d.0"
# shellcheck disable=SC2086 # split the lists
is "... their port types (CAP_EXP+2.w bits 7:4)" \
	"$(for b in $path $path1; do port_type "$b"; done | paste -sd' ')" "downstream upstream root root"

# ---- ACS on the way up --------------------------------------------------------------------------------
# shellcheck disable=SC2086
is "Access Control Services (lspci -vvv): on both pcie-root-ports, on neither switch port" \
	"$(for b in $path $path1; do has_acs "$b"; done | paste -sd' ')" \
	"0000:02:00.0=none 0000:01:00.0=none 0000:00:1c.0=acs 0000:00:1d.0=acs"
fails_with "setpci ECAP_ACS on the switch's downstream port: no such capability" \
	"Extended capability 000d not found" setpci -s 0000:02:00.0 ECAP_ACS+6.w
is "ACSCap of the root ports: 005f (SV TB RR CR UF DT; no EC)" \
	"$(setpci -s "$RP" ECAP_ACS+4.w) $(setpci -s 0000:00:1d.0 ECAP_ACS+4.w)" "005f 005f"
is "ACSCtl at boot: 0000 (no IOMMU, so the kernel enabled no ACS)" \
	"$(setpci -s "$RP" ECAP_ACS+6.w) $(setpci -s 0000:00:1d.0 ECAP_ACS+6.w)" "0000 0000"
acs_off=$(lspci -s "$RP" -vvv | sed -n 's/^\tCapabilities: \[\([0-9a-f]*\)\( v[0-9]*\)\{0,1\}\] Access Control Services.*/\1/p')
diag "ACS capability of $RP at 0x$acs_off"
acsctl() { lspci -vvv -s "$RP" | sed -n 's/^\t\tACSCtl:\t//p'; }
check "setpci ECAP_ACS+6.w=001d (SV RR CR UF: what Linux enables with an IOMMU)" \
	setpci -s "$RP" ECAP_ACS+6.w=001d
is "... reads back 001d: ACSCtl is writable on pcie-root-port" "$(setpci -s "$RP" ECAP_ACS+6.w)" 001d
check "setpci ECAP_ACS+6.w=0000:000c (RR and CR cleared, the rest kept)" \
	setpci -s "$RP" ECAP_ACS+6.w=0000:000c
is "... reads back 0011" "$(setpci -s "$RP" ECAP_ACS+6.w)" 0011
is "... lspci: ReqRedir- CmpltRedir-" "$(acsctl)" \
	"SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd+ EgressCtrl- DirectTrans-"
check "setpci ECAP_ACS+6.w=ffff" setpci -s "$RP" ECAP_ACS+6.w=ffff
is "... reads back 005f: only the capability's bits are writable" "$(setpci -s "$RP" ECAP_ACS+6.w)" 005f
setpci -s "$RP" ECAP_ACS+6.w=0000

# ---- a netdev in another network namespace ----------------------------------------------------------
# What rdmad tells a VF whose netdev is in a pod by (host-pci.c): bound to a netdev driver, with a
# net/ directory that lists nothing. sysfs shows a netdev only to the network namespace that
# mounted it; the function's net/ (the class's glue directory) stays while one exists anywhere.
# Before the Max_Read_Request section: a rebind writes Device Control, which the host side reads.
fn=/sys/bus/pci/devices/$NIC
ND=$(ls "$fn/net")
net_here() { [ -d "$fn/net" ] && echo "net/: $(ls -A "$fn/net" | paste -sd' ')" || echo "no net/"; }
is "$NIC: its netdev in net/ ($ND)" "$(net_here)" "net/: $ND"
to_pod() { ip netns add pod && ip link set "$ND" netns pod; } # bash's: busybox sh has its own ip
check "ip netns add pod; ip link set $ND netns pod" to_pod
is "... net/ is still there, and lists nothing in this namespace" "$(net_here)" "net/: "
is "... still bound to e1000e, and no $ND in /sys/class/net" \
	"$(basename "$(readlink "$fn/driver")") $(test -e "/sys/class/net/$ND" && echo "$ND" || echo none)" \
	"e1000e none"
is "... the pod's own sysfs (ip netns exec mounts one) lists it" \
	"$(ip netns exec pod ls "$fn/net")" "$ND"
check "... moved back" ip -n pod link set "$ND" netns 1
is "... net/ lists it again" "$(net_here)" "net/: $ND"
ip netns del pod
check "unbind e1000e from $NIC" write /sys/bus/pci/drivers/e1000e/unbind "$NIC"
is "... its netdev gone: no net/ at all (an empty one means elsewhere, not gone)" "$(net_here)" "no net/"
check "... bound again" write /sys/bus/pci/drivers/e1000e/bind "$NIC"
wait_until 20 test -d "$fn/net"
ND=$(ls "$fn/net")

# ---- Max_Read_Request_Size ---------------------------------------------------------------------------
cap_off=$(lspci -s "$NIC" -v | sed -n 's/^\tCapabilities: \[\([0-9a-f]*\)\] Express.*/\1/p')
devctl_off=$((0x$cap_off + 8))
diag "PCIe capability of $NIC at 0x$cap_off, Device Control at $(printf '0x%x' "$devctl_off")"
mrrs() { echo $((128 << ((0x$(setpci -s "$NIC" CAP_EXP+8.w) >> 12) & 7))); }
is "$NIC's Device Control (CAP_EXP+8.w) reads 0000 (qemu's e1000e: the whole register read-only)" \
	"$(setpci -s "$NIC" CAP_EXP+8.w)" 0000
is "... MRRS 128 bytes, as lspci says" \
	"$(mrrs) $(lspci -vvv -s "$NIC" | grep -o 'MaxReadReq [0-9]* bytes')" "128 MaxReadReq 128 bytes"
check "setpci CAP_EXP+8.w=5000:7000 (MRRS 4096)" setpci -s "$NIC" CAP_EXP+8.w=5000:7000
is "... does not take: reads back 0000 (checked on the host, in qemu's trace)" \
	"$(setpci -s "$NIC" CAP_EXP+8.w)" 0000
write16() { # write16 FILE OFFSET VALUE: one 2-byte write(2) at OFFSET, little-endian
	# shellcheck disable=SC2059 # the format is the data
	printf "\\x$(printf %02x $(($3 & 0xff)))\\x$(printf %02x $(($3 >> 8)))" |
		dd of="$1" bs=2 seek=$(($2 / 2)) count=1 conv=notrunc 2> /dev/null
}
# what rdmad will do: one 2-byte pwrite(2) at the register's offset in sysfs config
check "a 2-byte write of 0x2000 (MRRS 512) at Device Control in sysfs config" \
	write16 "/sys/bus/pci/devices/$NIC/config" "$devctl_off" 0x2000
is "... reads back unchanged, MRRS 128" "$(mrrs)" 128

# ---- config space as a user ------------------------------------------------------------------------
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
is "config is 0644, 4096 bytes" "$(stat -c '%a %s' "/sys/bus/pci/devices/$NIC/config")" "644 4096"
is "nobody reads 64 bytes of it (no CAP_SYS_ADMIN), root 256 (dd bs=256 count=1)" \
	"$(nobody dd if="/sys/bus/pci/devices/$NIC/config" bs=256 count=1 2> /dev/null | wc -c) $(dd if="/sys/bus/pci/devices/$NIC/config" bs=256 count=1 2> /dev/null | wc -c)" \
	"64 256"
fails_with "... so setpci as nobody finds no PCIe capability (it is at 0x$cap_off)" \
	"Capability 0010 not found" nobody setpci -s "$NIC" CAP_EXP+8.w

# ---- kernel lockdown ----------------------------------------------------------------------------------
# integrity lockdown (what Secure Boot turns on) refuses config space writes to root with EPERM
# (pci_write_config()); reads stay. One way only: last. rdmad reports that as unsupported.
if mount -t securityfs securityfs /sys/kernel/security 2> /dev/null ||
	[ -e /sys/kernel/security/lockdown ]; then
	diag "lockdown: $(cat /sys/kernel/security/lockdown)"
	check "echo integrity > /sys/kernel/security/lockdown" write /sys/kernel/security/lockdown integrity
	fails_with "... a 2-byte write to $RP's ACS Control: EPERM" "Operation not permitted" \
		dd of="/sys/bus/pci/devices/$RP/config" bs=2 seek=$(((0x$acs_off + 6) / 2)) count=1 \
		conv=notrunc if=/dev/zero
	is "... reads still work: ACSCtl 0000" "$(setpci -s "$RP" ECAP_ACS+6.w)" 0000
else
	fail "securityfs cannot be mounted: no lockdown to test"
fi

# for the host side (the trace names functions as BB:DD.F and offsets as 0x%x)
echo "@@VM-HOST PCIE_NIC=${NIC#0000:}"
echo "@@VM-HOST PCIE_NIC_DEVCTL=$(printf '0x%x' "$devctl_off")"
echo "@@VM-HOST PCIE_RP=${RP#0000:}"
echo "@@VM-HOST PCIE_RP_ACSCTL=$(printf '0x%x' $((0x$acs_off + 6)))"
done_testing
