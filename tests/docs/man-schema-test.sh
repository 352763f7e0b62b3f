#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rdmad.yaml(5) against the profile language the loader accepts: every key of the schema table
# (schema-keys prints them) is documented, the page documents no key the schema lacks, and every
# example profile in the page loads. Prints TAP: one line per key, one per example.
#
#   tests/docs/man-schema-test.sh SCHEMA-KEYS RDMACTL man/rdmad.yaml.5.scd
#
# "Documented" means: in the page's KEYS section, a subsection heading "## KEY" or a term, a
# line that starts with "*KEY*" followed by a space or the end of the line; the full dotted
# path, not a mention in running text. The examples are the literal blocks of the KEYS section,
# and those of the EXAMPLES section whose first line is a comment naming the file ("# /etc/...").
set -euo pipefail

keys_exe=$1
rdmactl=$2
page=$3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t keys < <("$keys_exe")
if [[ ${#keys[@]} -eq 0 ]]; then
        echo "Bail out! $keys_exe printed no keys"
        exit 1
fi

# The keys the page documents, one per line (scdoc escapes such as "\_" undone).
mapfile -t documented < <(awk '
        /^\t*```$/ { literal = !literal; next }
        literal { next }
        /^# / { in_keys = ($0 == "# KEYS"); next }
        !in_keys { next }
        /^## / { name = substr($0, 4) }
        /^\*[^*]+\*( |$)/ { name = $0; sub(/^\*/, "", name); sub(/\*( .*)?$/, "", name) }
        name != "" { gsub(/\\/, "", name); print name; name = "" }
' "$page")

# The example profiles: each block into $work/example-N.yaml, and "N LINE LABEL" on stdout, the
# label being the key whose entry holds the block or the file its first line names.
mapfile -t examples < <(awk -v dir="$work" '
        !inblock && /^# / { section = $0; label = ""; next }
        section != "# KEYS" && section != "# EXAMPLES" { next }
        !inblock && /^## / { label = substr($0, 4) }
        !inblock && /^\*[^*]+\*( |$)/ { label = $0; sub(/^\*/, "", label); sub(/\*( .*)?$/, "", label) }
        /^\t*```$/ {
                if (!inblock) {
                        inblock = 1; start = NR; indent = $0; sub(/```$/, "", indent)
                        n++; file = sprintf("%s/example-%d.yaml", dir, n); first = 1
                        printf "" > file
                        next
                }
                inblock = 0; close(file)
                if (section == "# KEYS" || keep)
                        printf "%d %d %s\n", n, start, section == "# KEYS" ? label : keep
                else
                        system("rm -f \"" file "\"")
                keep = ""
                next
        }
        inblock {
                line = $0
                if (substr(line, 1, length(indent)) == indent)
                        line = substr(line, length(indent) + 1)
                gsub(/\\\\/, "\\", line)
                if (first && section == "# EXAMPLES" && line ~ /^# \//)
                        keep = substr(line, 3)
                first = 0
                print line >> file
        }
' "$page")

echo "1..$((${#keys[@]} + 1 + ${#examples[@]}))"
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }

for key in "${keys[@]}"; do
        found=0
        for d in "${documented[@]}"; do
                [[ $d == "$key" ]] && found=1 && break
        done
        if [[ $found -eq 1 ]]; then
                ok "rdmad.yaml(5) documents $key"
        else
                not_ok "rdmad.yaml(5) documents $key"
                echo "# no '## $key' heading nor '*$key*' term in the KEYS section of $page"
        fi
done

stale=()
for d in "${documented[@]}"; do
        found=0
        for key in "${keys[@]}"; do
                [[ $d == "$key" ]] && found=1 && break
        done
        [[ $found -eq 1 ]] || stale+=("$d")
done
if [[ ${#stale[@]} -eq 0 ]]; then
        ok "rdmad.yaml(5) documents no key the schema lacks"
else
        not_ok "rdmad.yaml(5) documents no key the schema lacks"
        echo "# not in the schema: ${stale[*]}"
fi

for e in "${examples[@]}"; do
        read -r i line label <<< "$e"
        # An empty block would load as no profile at all: that is no example.
        if "$rdmactl" check "$work/example-$i.yaml" > "$work/check.out" 2>&1 &&
                ! grep -q ', 0 profiles' "$work/check.out"; then
                ok "the example of $label (line $line) is a valid profile"
        else
                not_ok "the example of $label (line $line) is a valid profile"
                # Where in the page: the block's line plus the line within it.
                awk -v f="$work/example-$i.yaml:" -v page="$page" -v start="$line" '
                        index($0, f) == 1 {
                                rest = substr($0, length(f) + 1)
                                l = rest; sub(/:.*/, "", l)
                                sub(/^[0-9]+:[0-9]+:/, "", rest)
                                $0 = page ":" (start + l) ":" rest
                        }
                        { print "# " $0 }' "$work/check.out"
        fi
done
exit "$failed"
