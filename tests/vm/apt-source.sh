#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# apt-source.sh - the host's own apt source of a Debian release, moved to another suite of it.
#
# fetch-kernel.sh downloads a kernel from a suite the host's sources do not list
# (bookworm-backports on a Debian 12 host). It takes the archive from the host's own apt
# sources rather than naming a mirror: a machine behind a local mirror, a caching proxy's URI
# or a snapshot downloads from where its own apt does, with the same options (signed-by, arch,
# trusted). Only the suite changes.
#
# Usage: apt-source.sh APT_DIR SUITE BASE_SUITE...
#   APT_DIR     the apt configuration directory (/etc/apt): sources.list, then the *.list and
#               *.sources files of sources.list.d in the order apt reads them (sorted by name;
#               other names, such as foo.list.disabled or foo.list.save, are not read by apt
#               and not here)
#   SUITE       the suite to print a source for (bookworm-backports)
#   BASE_SUITE  the suites whose entry to take, in order of preference (bookworm, then the
#               host's own release): the first enabled binary ("deb") entry that lists the
#               first BASE_SUITE any entry lists. Commented-out lines, deb-src entries and
#               deb822 stanzas with "Enabled: no" do not count.
# Prints that entry with its suite replaced by SUITE, in its own format:
#   one-line   deb [OPTIONS] URI SUITE COMPONENTS...   (its trailing comment dropped)
#   deb822     the stanza, with "Suites: SUITE" and "Types: deb"; its comments and Enabled
#              field dropped, every other field (URIs, Components, Signed-By, even an inline
#              key) as it is
# and exits 0; exits 1 with a message on stderr when no entry lists any BASE_SUITE.
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 APT_DIR SUITE BASE_SUITE..." >&2
	exit 2
fi
dir=$1 suite=$2
shift 2

# the files apt reads, in its order: file names of letters, digits, '_', '-' and '.' only
files=()
[ ! -f "$dir/sources.list" ] || files+=("$dir/sources.list")
if [ -d "$dir/sources.list.d" ]; then
	while IFS= read -r f; do
		files+=("$dir/sources.list.d/$f")
	done < <(find "$dir/sources.list.d" -maxdepth 1 -type f \( -name '*.list' -o -name '*.sources' \) \
		-printf '%f\n' | grep -E '^[A-Za-z0-9_.-]+$' | LC_ALL=C sort)
fi

# pick BASE: the first enabled "deb" entry listing BASE, printed with its suite set to SUITE
pick() {
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v base="$1" -v suite="$suite" '
	function has(list, word,   n, i, w) {
		n = split(list, w, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (w[i] == word)
				return 1
		return 0
	}
	# one-line format: "#" starts a comment anywhere but inside [ ]
	function oneline(line,   i, c, inopt, out, opts, w, n, k, rest) {
		out = ""
		inopt = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "[") inopt = 1
			else if (c == "]") inopt = 0
			else if (c == "#" && !inopt) break
			out = out c
		}
		if (!match(out, /^[ \t]*deb[ \t]/))
			return
		rest = substr(out, RLENGTH + 1)
		opts = ""
		if (match(rest, /^[ \t]*\[[^]]*\]/)) {
			opts = substr(rest, RSTART, RLENGTH)
			sub(/^[ \t]*/, "", opts)
			rest = substr(rest, RLENGTH + 1)
		}
		n = split(rest, w, /[ \t]+/)
		k = 1
		if (w[k] == "") k++
		# w[k] URI, w[k+1] the suite, then the components
		if (n < k + 1 || w[k + 1] != base)
			return
		out = "deb " (opts != "" ? opts " " : "") w[k] " " suite
		for (i = k + 2; i <= n; i++)
			if (w[i] != "")
				out = out " " w[i]
		print out
		found = 1
		exit
	}
	# deb822: the stanza in lines[1..nl], field names in names[] (lower case, "" for a
	# continuation line), values of the single-line fields in val[]
	function stanza(   i, enabled, out) {
		if (nl == 0)
			return
		enabled = tolower(val["enabled"])
		if (enabled ~ /^(no|false|off|0|disable|without)$/ || !has(val["types"], "deb") ||
		    !has(val["suites"], base)) {
			nl = 0; split("", val)
			return
		}
		for (i = 1; i <= nl; i++) {
			if (names[i] == "") {
				if (keep) print lines[i]
				continue
			}
			keep = 1
			if (names[i] == "suites") print "Suites: " suite
			else if (names[i] == "types") print "Types: deb"
			else if (names[i] == "enabled") keep = 0
			else print lines[i]
			if (names[i] == "suites" || names[i] == "types") keep = 0
		}
		found = 1
		exit
	}
	FNR == 1 {
		stanza()
		nl = 0; split("", val)
		deb822 = FILENAME ~ /\.sources$/
	}
	!deb822 { oneline($0); next }
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { stanza(); next }
	/^[ \t]/ {
		lines[++nl] = $0; names[nl] = ""
		# a continuation of a word list (Suites, Types) joins it
		if (last == "suites" || last == "types") val[last] = val[last] " " $0
		next
	}
	{
		i = index($0, ":")
		last = tolower(substr($0, 1, i - 1))
		sub(/[ \t]+$/, "", last)
		lines[++nl] = $0; names[nl] = last
		val[last] = substr($0, i + 1)
		sub(/^[ \t]+/, "", val[last]); sub(/[ \t]+$/, "", val[last])
	}
	END { if (!found) stanza() }
	' "${files[@]}"
}

for base; do
	out=$(pick "$base")
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		exit 0
	fi
done
echo "apt-source: no enabled binary (deb) entry of the suite(s) $* in $dir/sources.list" \
	"or $dir/sources.list.d/*.{list,sources}" >&2
exit 1
