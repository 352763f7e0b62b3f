#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The built manual pages render cleanly: man-db (man -l, as a reader gets them) and groff with
# every warning enabled print nothing on stderr, in a UTF-8 and in the C locale (ASCII output,
# where a character without an ASCII form is a warning), and no line of the 80-column
# rendering is wider than 80 columns (a literal block that overflows). Prints TAP, one line
# per page.
#
#   tests/docs/man-render-test.sh PAGE...
set -euo pipefail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in man groff; do
        command -v "$tool" > /dev/null || { echo "Bail out! no $tool (Debian: man-db, groff-base)"; exit 1; }
done
echo "1..$#"
n=0
failed=0
for page in "$@"; do
        n=$((n + 1))
        name=$(basename "$page")
        problems=()
        : > "$work/stderr"
        for locale in C.UTF-8 C; do
                # man-db 2.11 passes --warnings on to groff (-ww: all of them); groff reports
                # each as "troff: <standard input>:LINE: warning: ..." on stderr.
                if ! LC_ALL=$locale MANWIDTH=80 man --warnings=w -l "$page" \
                        > "$work/out.$locale" 2>> "$work/stderr"; then
                        problems+=("man -l exited with an error ($locale)")
                fi
        done
        groff -ww -man -z "$page" 2>> "$work/stderr" || problems+=("groff -man exited with an error")
        [[ -s $work/stderr ]] && problems+=("warnings on stderr")
        # Overstrike (bold, underline) would count twice: drop it before measuring.
        wide=$(sed 's/.\x08//g' "$work/out.C" | awk 'length > 80 { print NR ": " $0 }')
        [[ -n $wide ]] && problems+=("lines wider than 80 columns")
        if [[ ${#problems[@]} -eq 0 ]]; then
                echo "ok $n - $name renders without warnings, within 80 columns"
        else
                echo "not ok $n - $name renders without warnings, within 80 columns"
                failed=1
                for p in "${problems[@]}"; do echo "# $p"; done
                sed 's/^/#   /' "$work/stderr"
                [[ -z $wide ]] || awk '{ print "#   " $0 }' <<< "$wide"
        fi
done
exit "$failed"
