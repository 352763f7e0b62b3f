# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sourced by the fixture tests and the demo, inside a private network namespace (unshare -n):
# netns_mirror ROOT NAME [ADDRESS...] creates NAME as a veth whose MTU and administrative state
# mirror ROOT/sys/class/net/NAME, with the given addresses. rtnetlink then answers for the
# fixture's netdevs as it would on the real host.
netns_mirror_n=0

netns_mirror() {
        local root=$1 name=$2 sys a
        shift 2
        sys=$root/sys/class/net/$name
        ip link add "$name" type veth peer name "peer$netns_mirror_n"
        netns_mirror_n=$((netns_mirror_n + 1))
        # (a fixture of garbage values, rxe-garbage, has an MTU no kernel prints: keep 1500)
        [[ -f $sys/mtu && $(cat "$sys/mtu") =~ ^[0-9]+$ ]] && ip link set "$name" mtu "$(cat "$sys/mtu")"
        if [[ ! -f $sys/flags ]] || (($(cat "$sys/flags") & 1)); then
                ip link set "$name" up
        fi
        for a in "$@"; do
                # nodad: an IPv6 address is usable at once, as on a host up for a while
                if [[ $a == *:* ]]; then
                        ip address add "$a" dev "$name" nodad
                else
                        ip address add "$a" dev "$name"
                fi
        done
}
