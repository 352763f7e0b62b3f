#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Where `meson install` puts rdmad's files, for the default prefix and for --prefix=/usr,
# checked against the places the readers really look: systemd's unit search path
# (`systemd-analyze unit-paths`), dbus-daemon's system bus configuration (the <includedir>s
# of /usr/share/dbus-1/system.conf; <standard_system_servicedirs/> as dbus-daemon(1) lists
# them), bash-completion's on-demand directories, polkitd's compiled-in actions directory (the
# strings of its binary), and rdmad's own compiled profile search path; the Prometheus rules,
# which no reader looks for in one place, in rdmad's data directory. Configures scratch builds
# only (no compile, nothing installed). Prints TAP.
#
#   tests/install-layout-test.sh SOURCE_DIR
set -euo pipefail

src=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }
# in_list DESCRIPTION NEEDLE LIST...
in_list() {
        local desc=$1 needle=$2 x
        shift 2
        for x in "$@"; do
                if [[ $x == "$needle" ]]; then ok "$desc"; return; fi
        done
        not_ok "$desc"
        echo "# $needle is not one of: $*"
}

mapfile -t unit_paths < <(systemd-analyze unit-paths)
policy_dirs=()
while read -r d; do
        [[ $d == /* ]] || d=/usr/share/dbus-1/$d
        policy_dirs+=("$d")
done < <(sed -n 's|.*<includedir>\(.*\)</includedir>.*|\1|p' /usr/share/dbus-1/system.conf)
# dbus-daemon(1), <standard_system_servicedirs/>
service_dirs=(/usr/local/share/dbus-1/system-services /usr/share/dbus-1/system-services
        /lib/dbus-1/system-services)
completion_dirs=(/usr/local/share/bash-completion/completions /usr/share/bash-completion/completions)
# systemd.generator(7), the system manager's generator directories (/lib/systemd/... is
# /usr/lib/systemd/... on a merged /usr, which Debian 12 is)
generator_dirs=(/run/systemd/system-generators /etc/systemd/system-generators
        /usr/local/lib/systemd/system-generators /usr/lib/systemd/system-generators
        /lib/systemd/system-generators)
# sysusers.d(5), tmpfiles.d(5)
sysusers_dirs=(/etc/sysusers.d /run/sysusers.d /usr/local/lib/sysusers.d /usr/lib/sysusers.d)
tmpfiles_dirs=(/etc/tmpfiles.d /run/tmpfiles.d /usr/local/lib/tmpfiles.d /usr/lib/tmpfiles.d)
# polkitd reads actions from one directory, compiled in (package polkitd)
mapfile -t polkit_action_dirs < <(strings /usr/lib/polkit-1/polkitd | grep -x '/.*/polkit-1/actions')

for prefix in /usr/local /usr; do
        b=$work/build-${prefix//\//_}
        if ! meson setup --prefix="$prefix" -Dvm-tests=false "$b" "$src" > "$work/setup.log" 2>&1; then
                not_ok "meson setup --prefix=$prefix"
                sed 's/^/# /' "$work/setup.log"
                continue
        fi
        installed=$b/meson-info/intro-installed.json
        dest() { # dest NAME: the installed path of the file (or install_subdir) of that base name
                python3 -c 'import json, os, sys
for k, v in json.load(open(sys.argv[1])).items():
    if sys.argv[2] in (os.path.basename(k), os.path.basename(v)): print(v)' "$installed" "$1"
        }
        search=$(sed -n 's/^#define RDMAD_PROFILE_DIRS //p' "$b/config.h" | tr -d '",')
        read -r -a search <<< "$search"

        in_list "--prefix=$prefix: rdmad.service in systemd's unit search path" \
                "$(dirname "$(dest rdmad.service)")" "${unit_paths[@]}"
        in_list "--prefix=$prefix: rdmad-lldpd-generator where systemd runs generators" \
                "$(dirname "$(dest rdmad-lldpd-generator)")" "${generator_dirs[@]}"
        in_list "--prefix=$prefix: the D-Bus policy where dbus-daemon includes policies" \
                "$(dirname "$(dest org.rdmad1.conf)")" "${policy_dirs[@]}"
        in_list "--prefix=$prefix: the activation file in a system bus service dir" \
                "$(dirname "$(dest org.rdmad1.service)")" "${service_dirs[@]}"
        in_list "--prefix=$prefix: the polkit actions where polkitd reads actions" \
                "$(dirname "$(dest org.rdmad1.policy)")" "${polkit_action_dirs[@]}"
        in_list "--prefix=$prefix: rdmad-probe's user where systemd-sysusers reads" \
                "$(dirname "$(dest rdmad-probe.sysusers)")" "${sysusers_dirs[@]}"
        in_list "--prefix=$prefix: rdmad-probe's tmpfiles.d entry where systemd-tmpfiles reads" \
                "$(dirname "$(dest rdmad-probe.tmpfiles)")" "${tmpfiles_dirs[@]}"
        in_list "--prefix=$prefix: the shipped profiles in rdmad's compiled search path" \
                "$(dest conf.d)" "${search[@]}"
        in_list "--prefix=$prefix: the completion where bash-completion loads it" \
                "$(dirname "$(dest rdmactl | grep completions)")" "${completion_dirs[@]}"
        in_list "--prefix=$prefix: the drop-in README in the search path's first (the administrator's) dir" \
                "$(dirname "$(dest README)")" "${search[0]}"
        # no reader has a standard place: data under <datadir>/rdmad, not documentation that a
        # package gzips and a minimal image drops (contrib/meson.build)
        for rules in rdmad.rules.yml rdmad-probe.rules.yml; do
                in_list "--prefix=$prefix: the alerting rules $rules in <datadir>/rdmad/prometheus" \
                        "$(dirname "$(dest "$rules")")" "$prefix/share/rdmad/prometheus"
        done
        if [[ ${search[*]} == "/etc/rdmad /run/rdmad /usr/local/lib/rdmad /usr/lib/rdmad" ]]; then
                ok "--prefix=$prefix: search path /etc, /run, /usr/local/lib, /usr/lib (networkd's order)"
        else
                not_ok "--prefix=$prefix: search path /etc, /run, /usr/local/lib, /usr/lib (networkd's order)"
                echo "# got: ${search[*]}"
        fi
        state=$(sed -n 's/^#define RDMAD_STATE_DIR //p' "$b/config.h" | tr -d '"')
        if [[ $state == /run/rdmad/state ]]; then
                ok "--prefix=$prefix: state in /run/rdmad/state, apart from the profiles"
        else
                not_ok "--prefix=$prefix: state in /run/rdmad/state, apart from the profiles"
                echo "# got: $state"
        fi
done
echo "1..$n"
exit "$failed"
