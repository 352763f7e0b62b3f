#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/vm/apt-source.sh, which fetch-kernel.sh asks for the host's own archive with another
# suite (bookworm-backports): fake apt directories in both formats (one-line sources.list and
# *.list, deb822 *.sources) with a mirror of their own, options, comments, deb-src entries,
# disabled entries and files apt does not read. Each output is compared whole, and then read
# by apt itself (`apt-get indextargets`, offline) to show that apt takes it and would download
# the Packages index of the custom mirror's new suite. Prints TAP.
#
#   tests/apt-source-test.sh APT_SOURCE_SH
set -uo pipefail

pick=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }

# apt_dir NAME FILE CONTENT [FILE CONTENT]...: an apt directory $tmp/NAME with these files
apt_dir() {
	local d=$tmp/$1
	shift
	mkdir -p "$d/sources.list.d"
	while [ $# -ge 2 ]; do
		printf '%s' "$2" > "$d/$1"
		shift 2
	done
}

# expect NAME DIR EXPECTED [BASE...]: apt-source.sh DIR bookworm-backports BASE... prints
# EXPECTED (default base: bookworm)
expect() {
	local name=$1 d=$tmp/$2 want=$3 got
	shift 3
	[ $# -gt 0 ] || set -- bookworm
	if got=$("$pick" "$d" bookworm-backports "$@" 2> "$tmp/stderr") && [ "$got" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# expected:"
		printf '%s\n' "$want" | sed 's/^/#   /'
		echo "# got:"
		printf '%s\n' "$got" | sed 's/^/#   /'
		sed 's/^/# stderr: /' "$tmp/stderr"
	fi
}

# apt_reads NAME DIR URI...: apt, given only what apt-source.sh printed for DIR as its sources,
# would fetch exactly these Packages indexes
apt_reads() {
	local name=$1 d=$tmp/$2 p=$tmp/$2.private got want
	shift 2
	mkdir -p "$p/parts" "$p/lists/partial"
	: > "$p/sources.list"
	rm -f "$p/parts/"*
	"$pick" "$d" bookworm-backports bookworm > "$p/out" 2> /dev/null
	if grep -q '^deb ' "$p/out"; then cp "$p/out" "$p/sources.list"; else cp "$p/out" "$p/parts/host.sources"; fi
	# shellcheck disable=SC2016 # $(URI) is apt's
	got=$(apt-get -o "Dir::Etc::SourceList=$p/sources.list" -o "Dir::Etc::SourceParts=$p/parts" \
		-o "Dir::State::Lists=$p/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o APT::Architectures::=i386 \
		indextargets --no-release-info --format '$(URI)' 'Created-By: Packages' 2> "$tmp/stderr" | sort)
	want=$(printf '%s\n' "$@" | sort)
	if [ "$got" = "$want" ] && [ ! -s "$tmp/stderr" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# expected: ${want//$'\n'/ }"
		echo "# got:      ${got//$'\n'/ }"
		sed 's/^/# stderr: /' "$tmp/stderr"
	fi
}

# ---- deb822 -------------------------------------------------------------------------------------
apt_dir deb822 \
	sources.list.d/debian.sources "# The archive, through the site's mirror
Types: deb
URIs: http://old.mirror.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src
URIs: http://src.mirror.example/debian
Suites: bookworm
Components: main

Types: deb deb-src
# a comment inside the stanza
URIs: https://mirror.example.net/pub/debian/
Suites: bookworm bookworm-updates
Components: main contrib non-free-firmware
Architectures: amd64 i386
Signed-By: /usr/share/keyrings/example-mirror.gpg

Types: deb
URIs: https://mirror.example.net/pub/debian-security/
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/example-mirror.gpg
" \
	sources.list.d/00-vendor.sources "Types: deb
URIs: https://vendor.example/apt
Suites: stable
Components: main
"
expect "deb822: the first enabled deb stanza of the suite, its mirror and options kept" deb822 \
	"Types: deb
URIs: https://mirror.example.net/pub/debian/
Suites: bookworm-backports
Components: main contrib non-free-firmware
Architectures: amd64 i386
Signed-By: /usr/share/keyrings/example-mirror.gpg"
apt_reads "deb822: apt reads it: the mirror's bookworm-backports, per component and architecture" \
	deb822 \
	https://mirror.example.net/pub/debian/dists/bookworm-backports/{main,contrib,non-free-firmware}/binary-{amd64,i386,all}/Packages

# "Enabled: no" in any case and order of fields, a suite on a continuation line, an inline key
apt_dir deb822-more \
	sources.list.d/a.sources "Enabled: No
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
" \
	sources.list.d/b.sources "types: deb
uris: http://mirror.example.org/debian
suites: bookworm-updates
  bookworm
components: main
signed-by:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NlOeqbPxL5+cFEsYqmeWSnd4X4h6J1l6H9ukv3xcwm/Lc3
 -----END PGP PUBLIC KEY BLOCK-----
"
expect "deb822: lower-case fields, Enabled: No skipped, a suite on a continuation line, an inline key kept" \
	deb822-more "Types: deb
uris: http://mirror.example.org/debian
Suites: bookworm-backports
components: main
signed-by:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NlOeqbPxL5+cFEsYqmeWSnd4X4h6J1l6H9ukv3xcwm/Lc3
 -----END PGP PUBLIC KEY BLOCK-----"

# ---- one-line ------------------------------------------------------------------------------------
apt_dir oneline \
	sources.list "# deb http://commented.example/debian bookworm main
deb-src http://src.example/debian bookworm main

deb http://other.example/debian bookworm-updates main
deb [ arch=amd64 signed-by=/usr/share/keyrings/example#mirror.gpg ] http://mirror.example.com:3142/debian/   bookworm main contrib # the site's apt-cacher-ng
deb http://later.example/debian bookworm main
" \
	sources.list.d/bookworm.list.disabled "deb http://disabled.example/debian bookworm main
"
expect "one-line: options (a '#' inside [ ] is no comment), the URI, components kept; comments, deb-src, another suite skipped" \
	oneline "deb [ arch=amd64 signed-by=/usr/share/keyrings/example#mirror.gpg ] http://mirror.example.com:3142/debian/ bookworm-backports main contrib"
apt_reads "one-line: apt reads it: the mirror's bookworm-backports for amd64 only" oneline \
	http://mirror.example.com:3142/debian/dists/bookworm-backports/{main,contrib}/binary-{amd64,all}/Packages

# sources.list first, then sources.list.d in name order; .list and .sources mixed
apt_dir order \
	sources.list "# nothing here
" \
	sources.list.d/20-debian.list "deb [arch=amd64] http://second.example/debian bookworm main
" \
	sources.list.d/10-debian.sources "Types: deb
URIs: http://first.example/debian
Suites: bookworm
Components: main
" \
	sources.list.d/30-debian.list.save "deb http://save.example/debian bookworm main
"
expect "sources.list.d in apt's order: 10-debian.sources before 20-debian.list" order \
	"Types: deb
URIs: http://first.example/debian
Suites: bookworm-backports
Components: main"
rm "$tmp/order/sources.list.d/10-debian.sources"
expect "... and a .list when no .sources lists the suite (not a .list.save)" order \
	"deb [arch=amd64] http://second.example/debian bookworm-backports main"

# ---- which release ------------------------------------------------------------------------------
apt_dir trixie \
	sources.list.d/debian.sources "Types: deb
URIs: http://mirror.example/debian
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"
expect "a Debian 13 host: its trixie entry, the second base suite" trixie \
	"Types: deb
URIs: http://mirror.example/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" bookworm trixie

apt_dir none \
	sources.list "# deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian-security bookworm-security main
"
if "$pick" "$tmp/none" bookworm-backports bookworm > "$tmp/out" 2> "$tmp/stderr"; then
	not_ok "no entry of the suite: exit 1"
	sed 's/^/# stdout: /' "$tmp/out"
elif [ -s "$tmp/out" ] || ! grep -q 'no enabled binary (deb) entry of the suite(s) bookworm' "$tmp/stderr"; then
	not_ok "no entry of the suite: exit 1, a message naming the suite, nothing on stdout"
	sed 's/^/# stderr: /' "$tmp/stderr"
else
	ok "no entry of the suite: exit 1, a message naming the suite, nothing on stdout"
fi

echo "1..$n"
exit "$failed"
