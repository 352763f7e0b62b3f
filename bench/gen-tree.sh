#!/usr/bin/env bash
# gen-tree.sh - generate a large synthetic sysfs root for benchmarking observers.
#
# usage: gen-tree.sh [-k rxe|mlx5] [-e EMPTY] [-j JOBS] OUTDIR [NDEV] [NGID]
#
#   OUTDIR  root to create (must not exist, or be an empty directory); use it
#           like a fixture: <OUTDIR>/sys/class/infiniband/..., sys/class/net/...
#   NDEV    number of RDMA devices, one port each            (default 1024)
#   NGID    populated GID slots per port                     (default 16)
#   -k      device kind: rxe  = Soft-RoCE on veth (virtual devices, RoCE v2 only)
#                        mlx5 = mlx5-like PCI functions, RoCE v1+v2 GID pairs
#                                                             (default rxe)
#   -e      empty (zero) GID slots after the populated ones  (default 8)
#   -j      parallel writers                                  (default: CPUs, max 8)
#
# Layout and file formats follow tests/fixtures/README.md (kernel formats, kernel-
# style relative symlinks).  Device i gets netdev <veth|enp..>i, ifindex i+2,
# MAC 02:00:00:00:HH:LL (i = HHLL), IPv4 198.18.0.0/15 (RFC 2544 benchmark range)
# and IPv6 2001:db8::/32 GIDs.  Only bash builtins write files; directories are made
# by one mkdir and symlinks by one perl process per writer (fork+exec is slow here).
set -euo pipefail
export LC_ALL=C

usage() { sed -n '3,15s/^# \{0,1\}//p' "$0" >&2; exit 2; }

KIND=rxe EMPTY=8 JOBS=""
while getopts 'k:e:j:h' o; do
	case $o in
	k) KIND=$OPTARG ;;
	e) EMPTY=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# >= 1 && $# <= 3)) || usage
OUT=$1 NDEV=${2:-1024} NGID=${3:-16}
[[ $KIND == rxe || $KIND == mlx5 ]] || { echo "gen-tree: -k must be rxe or mlx5" >&2; exit 2; }
for v in NDEV NGID EMPTY; do
	[[ ${!v} =~ ^[0-9]+$ ]] || { echo "gen-tree: $v must be a number" >&2; exit 2; }
done
((NDEV >= 1 && NDEV <= 65536)) || { echo "gen-tree: NDEV must be 1..65536" >&2; exit 2; }
((NGID >= 1)) || { echo "gen-tree: NGID must be >= 1" >&2; exit 2; }
if [[ $KIND == mlx5 ]] && ((NGID % 2)); then
	echo "gen-tree: mlx5 GIDs come in v1/v2 pairs, NGID must be even" >&2; exit 2
fi
if [[ -z $JOBS ]]; then
	JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
	((JOBS <= 8)) || JOBS=8
fi
((JOBS >= 1)) || JOBS=1
((JOBS <= NDEV)) || JOBS=$NDEV

if [[ -e $OUT ]]; then
	[[ -d $OUT && -z $(ls -A -- "$OUT") ]] || { echo "gen-tree: $OUT exists and is not an empty directory" >&2; exit 1; }
fi
mkdir -p -- "$OUT"
OUT=$(cd -- "$OUT" && pwd)
cd -- "$OUT"

HAVE_PERL=0
command -v perl >/dev/null 2>&1 && HAVE_PERL=1

ZGID=0000:0000:0000:0000:0000:0000:0000:0000
RP=sys/devices/pci0000:3a/0000:3a:00.0

# make_links: read NUL-separated "target link" pairs on stdin
make_links() {
	if ((HAVE_PERL)); then
		perl -0 -e 'while (defined(my $t = <STDIN>)) { chomp $t; my $l = <STDIN>; chomp $l;
			symlink($t, $l) or die "gen-tree: symlink $l: $!\n" }'
	else
		local t l
		while IFS= read -r -d '' t && IFS= read -r -d '' l; do ln -s -- "$t" "$l"; done
	fi
}

# names and paths of device i (sets DEV NET NDIR IDIR PCI BDF MAC LL)
dev_names() {
	local i=$1 hi=$(($1 >> 8)) lo=$(($1 & 255))
	printf -v MAC '02:00:00:00:%02x:%02x' "$hi" "$lo"
	printf -v LL 'fe80:0000:0000:0000:0000:00ff:fe00:%02x%02x' "$hi" "$lo"
	if [[ $KIND == rxe ]]; then
		DEV=rxe$i NET=veth$i
		IDIR=sys/devices/virtual/infiniband/$DEV
		NDIR=sys/devices/virtual/net/$NET
	else
		local bus=$((0x3b + hi)) d=$((lo >> 3)) f=$((lo & 7))
		printf -v BDF '0000:%02x:%02x.%x' "$bus" "$d" "$f"
		printf -v NET 'enp%ds%df%dnp0' "$bus" "$d" "$f"
		DEV=mlx5_$i
		PCI=$RP/$BDF
		IDIR=$PCI/infiniband/$DEV
		NDIR=$PCI/net/$NET
	fi
}

# gid_of i k -> G (k-th address GID of device i, k >= 1)
gid_of() {
	local i=$1 k=$2
	if ((k % 4 == 0)); then # every 4th address is IPv6
		printf -v G '2001:0db8:%04x:0000:0000:0000:0000:%04x' "$i" "$k"
	else                    # 198.18.0.0/15, address number i*NGID+k (unique below 2^17)
		local a=$(((i * NGID + k) & 0x1ffff))
		printf -v G '0000:0000:0000:0000:0000:ffff:c6%02x:%02x%02x' \
			$((18 + (a >> 16))) $(((a >> 8) & 255)) $((a & 255))
	fi
}

# gen_range FROM TO : everything for devices FROM..TO-1
gen_range() {
	local from=$1 to=$2 i k s slots p G
	local -a dirs=()
	for ((i = from; i < to; i++)); do
		dev_names "$i"
		p=$IDIR/ports/1
		dirs+=("$NDIR" "$p/gids" "$p/gid_attrs/types" "$p/gid_attrs/ndevs")
		[[ $KIND == rxe ]] || dirs+=("$PCI")
	done
	printf '%s\0' "${dirs[@]}" | xargs -0 mkdir -p --

	for ((i = from; i < to; i++)); do
		dev_names "$i"
		# --- netdev (net/core/net-sysfs.c formats)
		printf '%s\n' $((i + 2)) >"$NDIR/ifindex"
		printf '%s\n' "$MAC" >"$NDIR/address"
		printf '1500\n' >"$NDIR/mtu"
		printf 'up\n' >"$NDIR/operstate"
		printf '0x1003\n' >"$NDIR/flags"
		printf '1\n' >"$NDIR/carrier"
		printf '0\n' >"$NDIR/dev_port"
		printf '0x0\n' >"$NDIR/dev_id"
		printf '1\n' >"$NDIR/type"
		# --- RDMA device (drivers/infiniband/core/sysfs.c formats)
		printf '1: CA\n' >"$IDIR/node_type"
		if [[ $KIND == rxe ]]; then
			printf '%s\n' "${LL#fe80:0000:0000:0000:}" >"$IDIR/node_guid"
			printf '\n' >"$IDIR/fw_ver"
			printf '%s\n' "$NET" >"$IDIR/parent"
		else
			printf 'b859:9f03:00%02x:%02x%02x\n' $((i >> 16)) $(((i >> 8) & 255)) $((i & 255)) >"$IDIR/node_guid"
			printf '22.39.1002\n' >"$IDIR/fw_ver"
			printf 'MT4125\n' >"$IDIR/hca_type"
			printf '0x15b3\n' >"$PCI/vendor"
			printf '0x101d\n' >"$PCI/device"
			printf '0x020000\n' >"$PCI/class"
		fi
		p=$IDIR/ports/1
		printf '4: ACTIVE\n' >"$p/state"
		printf '5: LinkUp\n' >"$p/phys_state"
		printf 'Ethernet\n' >"$p/link_layer"
		# --- GID table: NGID populated slots, then EMPTY zero slots (no types/ndevs)
		if [[ $KIND == rxe ]]; then
			printf '10 Gb/sec (1X FDR10)\n' >"$p/rate"
			for ((s = 0; s < NGID; s++)); do
				if ((s == 0)); then G=$LL; else gid_of "$i" "$s"; fi
				printf '%s\n' "$G" >"$p/gids/$s"
				printf 'RoCE v2\n' >"$p/gid_attrs/types/$s"
				printf '%s\n' "$NET" >"$p/gid_attrs/ndevs/$s"
			done
		else
			printf '100 Gb/sec (4X EDR)\n' >"$p/rate"
			for ((s = 0; s < NGID; s += 2)); do
				if ((s == 0)); then G=$LL; else gid_of "$i" $((s / 2)); fi
				printf '%s\n' "$G" >"$p/gids/$s"
				printf '%s\n' "$G" >"$p/gids/$((s + 1))"
				printf 'IB/RoCE v1\n' >"$p/gid_attrs/types/$s"
				printf 'RoCE v2\n' >"$p/gid_attrs/types/$((s + 1))"
				printf '%s\n' "$NET" >"$p/gid_attrs/ndevs/$s"
				printf '%s\n' "$NET" >"$p/gid_attrs/ndevs/$((s + 1))"
			done
		fi
		slots=$((NGID + EMPTY))
		for ((s = NGID; s < slots; s++)); do printf '%s\n' "$ZGID" >"$p/gids/$s"; done
	done

	# --- symlinks, with the kernel's relative link text
	{
		for ((i = from; i < to; i++)); do
			dev_names "$i"
			printf '%s\0' "../../${IDIR#sys/}" "sys/class/infiniband/$DEV" \
				"../../${NDIR#sys/}" "sys/class/net/$NET"
			if [[ $KIND == mlx5 ]]; then
				printf '%s\0' "../../../$BDF" "$IDIR/device" \
					"../../../$BDF" "$NDIR/device" \
					"../../../../bus/pci/drivers/mlx5_core" "$PCI/driver" \
					"../../../../devices/pci0000:3a/0000:3a:00.0/$BDF" "sys/bus/pci/drivers/mlx5_core/$BDF"
			fi
		done
	} | make_links
}

# shared skeleton
mkdir -p sys/class/infiniband sys/class/net sys/devices/virtual/net/lo
printf '1\n' >sys/devices/virtual/net/lo/ifindex
printf '65536\n' >sys/devices/virtual/net/lo/mtu
printf 'unknown\n' >sys/devices/virtual/net/lo/operstate
printf '0x9\n' >sys/devices/virtual/net/lo/flags
printf '772\n' >sys/devices/virtual/net/lo/type
printf '00:00:00:00:00:00\n' >sys/devices/virtual/net/lo/address
ln -s ../../devices/virtual/net/lo sys/class/net/lo
if [[ $KIND == rxe ]]; then
	MODS=(ib_core ib_uverbs rdma_rxe crc32_generic)
else
	MODS=(ib_core ib_uverbs mlx5_core mlx5_ib)
	mkdir -p sys/bus/pci/drivers/mlx5_core
fi
for m in "${MODS[@]}"; do
	mkdir -p "sys/module/$m"
	printf 'live\n' >"sys/module/$m/initstate"
done
[[ $KIND == rxe ]] || ln -s ../../../../module/mlx5_core sys/bus/pci/drivers/mlx5_core/module

# split the device range across JOBS writers
pids=()
for ((j = 0; j < JOBS; j++)); do
	gen_range $((NDEV * j / JOBS)) $((NDEV * (j + 1) / JOBS)) &
	pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
((rc == 0)) || { echo "gen-tree: a writer failed" >&2; exit 1; }
printf 'gen-tree: %s: %d %s devices x 1 port x %d GIDs (+%d empty slots)\n' \
	"$OUT" "$NDEV" "$KIND" "$NGID" "$EMPTY"
