# shellcheck shell=bash
# lib.sh - sourced by every VM scenario: TAP output and small helpers for Soft-RoCE setups.
#
# A scenario is a bash script that prints TAP on stdout:
#   . "$VM_LIB"
#   check "rxe0 is added" rdma link add rxe0 type rxe netdev veth0
#   is "ToS reads back" "$(cat "$tos")" 106
#   done_testing          # prints the plan "1..N", exits non-zero if anything failed
# Output of the commands goes to the console log; run-vm.sh passes only the TAP lines on.
# Test names must not contain '#'.

TAP_N=0
TAP_FAILED=0

diag() { # every line a TAP comment
	local line
	while IFS= read -r line; do echo "# $line"; done <<< "$*"
}

tap_result() { # tap_result OK|NOT_OK NAME [DIAG...]
	local result=$1 name=$2
	shift 2
	TAP_N=$((TAP_N + 1))
	if [ "$result" = ok ]; then
		echo "ok $TAP_N - $name"
	else
		TAP_FAILED=$((TAP_FAILED + 1))
		echo "not ok $TAP_N - $name"
		local d
		for d in "$@"; do diag "$d"; done
	fi
}
pass() { tap_result ok "$1"; }
fail() { tap_result not_ok "$@"; }

check() { # check NAME CMD...: passes when CMD exits 0
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name" "'$*' exited with $rc"; fi
	return "$rc"
}

is() { # is NAME GOT WANT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  '$2'" "want: '$3'"; return 1; fi
}

fails_with() { # fails_with NAME ERRNO_TEXT CMD...: CMD fails and says ERRNO_TEXT on stderr
	local name=$1 want=$2 err rc=0
	shift 2
	err=$("$@" 2>&1 > /dev/null) || rc=$?
	if [ "$rc" -ne 0 ] && [[ "$err" == *"$want"* ]]; then
		pass "$name"
	else
		fail "$name" "'$*' exited with $rc, stderr: '$err'" "want a failure with '$want'"
		return 1
	fi
}

todo() { # todo NAME REASON CMD...: a known kernel limitation, expected to fail. If it passes,
	# meson reports an unexpected pass (a failure): the limitation is gone, update the test.
	local name=$1 reason=$2 rc=0
	shift 2
	"$@" || rc=$?
	TAP_N=$((TAP_N + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $TAP_N - $name # TODO $reason"
	else
		echo "not ok $TAP_N - $name # TODO $reason"
	fi
}

bail() { # a setup step failed: nothing after it can mean anything
	echo "Bail out! $*"
	exit 1
}

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ] || exit 1
	exit 0
}

# ---- helpers --------------------------------------------------------------------------------

wait_until() { # wait_until SECONDS CMD...: poll CMD every 0.1 s until it succeeds
	local tries=$(($1 * 10))
	shift
	while ! "$@" 2> /dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

within() { # within SECONDS CMD...: CMD every 0.2 s until it succeeds, for SECONDS at most: a
	# deadline, not a count of tries (a try that reads a state file with jq takes a second
	# under TCG, so wait_until's count of 0.1 s tries would last far longer than it says)
	local end=$(($(date +%s) + $1))
	shift
	until "$@" 2> /dev/null; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# Verdicts on RDMA traffic come from what crossed the wire, never from a tool's exit status:
# rping's server can exit 255 after a complete exchange (its CM thread reads the event channel
# the main thread destroyed: "rdma_get_cm_event: Bad file descriptor" after DISCONNECT,
# rdma-core 44), and perftest's exit status covers its teardown and clock calibration too.
rping_answered() { # rping_answered LOG: the pings an rping client (-v) got answered
	grep -c '^ping data' "$1"
}
rping_served() { # rping_served LOG: the pings an rping server (-v) answered
	grep -c '^server ping data' "$1"
}
bw_completed() { # bw_completed LOG ITERATIONS: perftest's client printed its result row with
	# ITERATIONS done (ib_write_bw -n: an RC write completes once the peer acknowledged it)
	awk -v n="$2" '/#bytes/ { f = 1; next } f && $1 ~ /^[0-9]+$/ { ok = $2 == n; exit }
		END { exit !ok }' "$1"
}

tcp_listening() { # tcp_listening PORT: a TCP socket listens on PORT (a perftest server's)
	local hex
	hex=$(printf '%04X' "$1")
	grep -qE "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:0000 0A " /proc/net/tcp /proc/net/tcp6 2> /dev/null
}

udevd_start() { # systemd-udevd with no rules, relaying uevents to rdmad (the light VM runs none)
	mkdir -p /run/udev /etc/udev/rules.d /run/rdmad-vm/udevd
	ln -sf "$(command -v udevadm)" /run/rdmad-vm/udevd/systemd-udevd
	/run/rdmad-vm/udevd/systemd-udevd --daemon > "$VM_LOGDIR/udevd.log" 2>&1 ||
		bail "systemd-udevd did not start: $(cat "$VM_LOGDIR/udevd.log")"
}
private_bus_start() { # [LOG]: a system-like bus at $BUS with the shipped policy (run-vm.sh's
	# RDMAD_DBUS_CONF, RDMAD_DBUS_POLICY), its pid in /run/rdmad-vm/bus.pid, its address exported
	BUS=/run/rdmad-vm/bus
	[ -n "${RDMAD_DBUS_CONF:-}" ] && [ -n "${RDMAD_DBUS_POLICY:-}" ] ||
		bail "RDMAD_DBUS_CONF and RDMAD_DBUS_POLICY are not set (tests/vm/meson.build passes them)"
	mkdir -p /run/rdmad-vm
	sed -e "s|@SOCKET@|$BUS|" -e "s|@POLICY@|$RDMAD_DBUS_POLICY|" "$RDMAD_DBUS_CONF" \
		> /run/rdmad-vm/bus.conf
	dbus-daemon --config-file=/run/rdmad-vm/bus.conf --fork --print-pid --nosyslog \
		> /run/rdmad-vm/bus.pid 2> "$VM_LOGDIR/${1:-dbus.log}" || bail "dbus-daemon did not start"
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS
}
cm_listening() { # cm_listening PORT: an rdma_cm id listens on PORT (an rping server's, 7174)
	rdma resource show cm_id 2> /dev/null | grep -q "state LISTEN .*:$1 "
}

logged() { # logged FILE CMD...: run CMD with its output in FILE (check NAME logged FILE CMD...)
	local file=$1
	shift
	"$@" > "$file" 2>&1
}

write() { # write FILE VALUE: echo into a sysfs/configfs attribute
	echo "$2" > "$1"
}

attr() { # attr FILE: print a sysfs/configfs attribute, fail like read(2) does
	local v
	read -r v < "$1" || return 1
	echo "$v"
}

# vfiohold in the background ($holder its pid), until it holds: hold [--group] BDF. The log is
# removed first: the line an earlier holder left there must not pass for this one's (it did
# under load, and the write that should have waited on the holder raced its start instead)
hold() {
	rm -f /tmp/hold.log
	vfiohold "$@" > /tmp/hold.log 2>&1 &
	holder=$!
	wait_until 30 grep -q '^vfiohold: holding' /tmp/hold.log
}

release() { # SIGTERM to the holder; it says so and exits 0
	kill -TERM "$holder" && wait "$holder" && grep -q '^vfiohold: released' /tmp/hold.log &&
		holder=""
}

# shellcheck disable=SC2034 # for the scenarios
ZERO_GID=0000:0000:0000:0000:0000:0000:0000:0000

gid_of_ipv4() { # gid_of_ipv4 A.B.C.D: the sysfs text of its IPv4-mapped GID
	local IFS=.
	# shellcheck disable=SC2086 # split the address on dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

gid_index() { # gid_index DEV PORT GID: the first slot holding GID
	local f v
	for f in /sys/class/infiniband/"$1"/ports/"$2"/gids/*; do
		read -r v < "$f" || continue
		[ "$v" = "$3" ] && { echo "${f##*/}"; return 0; }
	done
	return 1
}

has_gid() { gid_index "$@" > /dev/null; }
lacks_gid() { ! gid_index "$@" > /dev/null; }

rxe_pair() { # two rxe devices, rxe0 on veth0 (192.0.2.1) and rxe1 on veth1 (192.0.2.2), with
	# their IPv4 RoCE v2 GIDs in place; bails out when any step fails
	rxe_modules || bail "no RDMA modules"
	veth_pair veth0 veth1 || bail "cannot create veth pair"
	ip addr add 192.0.2.1/24 dev veth0
	ip addr add 192.0.2.2/24 dev veth1
	rdma link add rxe0 type rxe netdev veth0 || bail "cannot add rxe0"
	rdma link add rxe1 type rxe netdev veth1 || bail "cannot add rxe1"
	wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 192.0.2.1)" || bail "rxe0 has no IPv4 GID"
	wait_until 20 has_gid rxe1 1 "$(gid_of_ipv4 192.0.2.2)" || bail "rxe1 has no IPv4 GID"
}

route_over_wire() { # route_over_wire IF_A IP_A IF_B IP_B: two ends of a veth pair in one netns
	# reach each other over the wire, not through lo (rxe needs the packets on its netdev):
	# packets arriving on either end are local, everything else takes a table that sends each
	# address out of the other end (accept_local lets the receiver take its "own" source).
	local conf
	for conf in all "$1" "$3"; do
		sysctl -qw "net.ipv4.conf.$conf.accept_local=1" "net.ipv4.conf.$conf.rp_filter=0"
	done
	ip rule add pref 10 iif "$1" lookup local
	ip rule add pref 11 iif "$3" lookup local
	ip route add "$2/32" dev "$3" src "$4" table 100
	ip route add "$4/32" dev "$1" src "$2" table 100
	ip rule add pref 20 lookup 100
	ip rule add pref 100 lookup local
	ip rule del pref 0
}

rxe_modules() { # the modules a Soft-RoCE setup needs
	modprobe -a rdma_rxe rdma_ucm ib_uverbs veth
}

install_unit_binaries() { # install_unit_binaries UNIT: (full VM) copy the --bin executables
	# to the paths the unit's Exec*= lines name (e.g. /usr/local/sbin/rdmad), in the VM's
	# throwaway overlay, so that the unit can be verified and started as installed
	local cmd b path
	while read -r cmd; do
		path=${cmd%% *}
		path=${path##[-@+!:]}
		path=${path##[-@+!:]}
		for b in ${VM_BINS:-}; do
			if [ "$(basename "$b")" = "$(basename "$path")" ] && [ ! -e "$path" ]; then
				install -D -m 755 "$b" "$path" || return 1
			fi
		done
	done < <(sed -n 's/^Exec[A-Za-z]*=//p' "$1")
}

veth_pair() { # veth_pair A B: a veth pair, both ends up, addresses added by the caller
	ip link add "$1" type veth peer name "$2" &&
		ip link set "$1" up && ip link set "$2" up
}

asan_unit_dropin() { # (full VM) under a sanitizer build of rdmad, a drop-in for rdmad.service
	# and rdmad-probe.service that turns LeakSanitizer off: it stops the world with ptrace,
	# which the units' system call filters forbid. ASan and UBSan still run; leaks are checked
	# by the other tiers.
	local unit
	if ldd "$(command -v rdmad)" | grep -q libasan; then
		for unit in rdmad.service rdmad-probe.service; do
			mkdir -p "/run/systemd/system/$unit.d"
			printf '[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n' \
				> "/run/systemd/system/$unit.d/asan.conf"
		done
	fi
}

meson_install_rdmad() { # (full VM) rdmad installed from $RDMAD_BUILD_DIR as a user installs it,
	# `meson install` with the build's options and nothing put in place by hand, then
	# asan_unit_dropin; bails out without a build directory
	[ -n "${RDMAD_BUILD_DIR:-}" ] && [ -f "$RDMAD_BUILD_DIR/build.ninja" ] ||
		bail "no RDMAD_BUILD_DIR given, or it is not a meson build"
	check "meson install -C BUILD" \
		logged "$VM_LOGDIR/install.log" meson install -C "$RDMAD_BUILD_DIR" --no-rebuild
	asan_unit_dropin
}
