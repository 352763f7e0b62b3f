#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The bash completion of rdmactl: _rdmactl on command lines split as readline splits them,
# COMPREPLY compared with the expected set. The commands and options are those of
# `rdmactl --help` (so a new command or option missing from the completion fails here), whose
# command table must line up (a long command name once pushed its description over); link
# names come from the fixture trees, which list their links without their netdevs present.
#
#   tests/completion-test.sh RDMACTL COMPLETION-FILE
#
# Runs in the source tree, so that fixture roots are relative as typed at a prompt. Prints TAP.
# No `set -e`: completion functions return non-zero in passing.

rdmactl=$(realpath "$1")
completion=$(realpath "$2")
cd "$(dirname "$0")/.." || exit 1

bash_completion=/usr/share/bash-completion/bash_completion
if [[ ! -f $bash_completion ]]; then
        echo "Bail out! $bash_completion is missing (Debian: bash-completion)"
        exit 1
fi
# Only bash-completion itself and ours: not the host's or the user's extra completions.
export BASH_COMPLETION_COMPAT_DIR=/nonexistent BASH_COMPLETION_USER_FILE=/dev/null
# shellcheck source=/dev/null
. "$bash_completion" > /dev/null
# shellcheck source=../contrib/bash-completion/rdmactl
. "$completion" > /dev/null
if ! declare -F _rdmactl > /dev/null; then
        echo "Bail out! $completion defines no _rdmactl"
        exit 1
fi
PATH=$(dirname "$rdmactl"):$PATH
COMP_WORDBREAKS=$' \t\n"\'@><=;|&(:' # bash's default

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/profiles/sub" "$tmp/bad"
touch "$tmp/profiles/a.yaml" "$tmp/profiles/b.yml" "$tmp/profiles/c.txt"
printf 'links: [\n' > "$tmp/bad/broken.yaml"
ln -s "$PWD/tests/fixtures/rxe" "$tmp/root:rxe"
# A device name that is shell syntax, harmless if expanded (x42); sysfs alone, no driver.
mkdir -p "$tmp/odd/sys/class/infiniband/x\$((6*7))/ports/1"

# LINE, the cursor at its end, as readline hands it to a completion function: words split at
# blanks, and each of '=' and ':' (in COMP_WORDBREAKS) a word of its own.
complete_line() {
        local line=$1 split

        split=${line//=/ = }
        split=${split//:/ : }
        read -ra COMP_WORDS <<< "$split"
        [[ $line == *' ' ]] && COMP_WORDS+=('')
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE=$line
        COMP_POINT=${#line}
        COMPREPLY=()
        _rdmactl rdmactl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2> "$tmp/stderr"
}

i=0
failed=0
# check NAME LINE [EXPECTED...]: COMPREPLY for LINE is the set EXPECTED, in any order.
check() {
        local name=$1 line=$2 got want
        shift 2

        complete_line "$line"
        got=$(printf '%s\n' "${COMPREPLY[@]}" | sort)
        want=$(printf '%s\n' "$@" | sort)
        i=$((i + 1))
        if [[ $got == "$want" && ${#COMPREPLY[@]} -eq $# && ! -s $tmp/stderr ]]; then
                echo "ok $i - $name: '$line'"
                return
        fi
        echo "not ok $i - $name: '$line'"
        echo "# expected: ${want//$'\n'/ }"
        echo "# got:      ${got//$'\n'/ }"
        sed 's/^/# stderr: /' "$tmp/stderr"
        failed=1
}

mapfile -t commands < <("$rdmactl" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
mapfile -t options < <("$rdmactl" --help | sed -n '/^Options:/,$p' | grep -o -- '--[a-z][a-z-]*' | sort -u)

# The command table of --help lines up: every description starts in one column (after the
# table's last run of two blanks), and so do the arguments of the commands that take some.
i=$((i + 1))
columns=$("$rdmactl" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {
        match($0, /.*  /); h = RLENGTH + 1; help[h]++
        match($0, /^  [^ ]+ +/); if (RLENGTH + 1 != h) args[RLENGTH + 1]++ }
        END { for (c in help) printf "help:%s ", c; for (c in args) printf "args:%s ", c }')
if [[ $columns =~ ^help:[0-9]+\ args:[0-9]+\ $ ]]; then
        echo "ok $i - the command table of rdmactl --help lines up ($columns)"
else
        echo "not ok $i - the command table of rdmactl --help lines up"
        echo "# columns where descriptions (help:) and arguments (args:) start: $columns"
        "$rdmactl" --help | sed -n '/^Commands:/,/^$/p' | sed 's/^/# /'
        failed=1
fi
check "every command of rdmactl --help" "rdmactl " "${commands[@]}"
check "a command from its prefix" "rdmactl st" status
check "commands sharing a prefix" "rdmactl re" reload reconcile
check "the command after options" "rdmactl --json st" status
check "every option of rdmactl --help" "rdmactl -" "${options[@]}"
check "the options plan accepts" "rdmactl plan --" \
        --root --config-dir --json --exit-code --no-pager --help
check "the options gid accepts" "rdmactl gid -" --root --json --family --roce --help
check "the options gids accepts" "rdmactl gids -" --root --json --sysfs --help
check "a command without options" "rdmactl reconcile -" --help
check "options given are not offered again" "rdmactl gid --json --family ipv4 --" \
        --root --roce --help
check "--family values" "rdmactl gid --family " ipv4 ipv6 link-local
check "--family values from a prefix" "rdmactl gid --family i" ipv4 ipv6
check "--roce=VALUE" "rdmactl gid --roce=" v1 v2
check "status LINK on a fixture root" "rdmactl --root tests/fixtures/mlx5-dual-vf status m" \
        mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1
check "gid LINK: links and netdevs" "rdmactl --root tests/fixtures/mlx5-dual-vf gid " \
        mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1 ens1f0np0 ens1f1np1 ens1f0v0 ens1f0v1
check "gids DEV[/PORT], --root=DIR after the command" \
        "rdmactl gids --root=tests/fixtures/mlx5-dual-vf mlx5_1" mlx5_1 mlx5_1/1
check "an option's argument is not the LINK" \
        "rdmactl --root tests/fixtures/ib-hca gid --family ipv6 " \
        mlx5_0/1 mlx5_1/1 ibp59s0f0 ibp59s0f1
check "one LINK at most" "rdmactl --root tests/fixtures/mlx5-dual-vf status mlx5_0/1 "
check "links takes no arguments" "rdmactl --root tests/fixtures/mlx5-dual-vf links "
# `links` refuses invalid profiles; the link names then come from sysfs.
if "$rdmactl" --root tests/fixtures/rxe --config-dir "$tmp/bad" links > /dev/null 2>&1; then
        echo "# rdmactl links accepts $tmp/bad: the next test no longer covers the fallback"
fi
check "links from sysfs when the profiles are invalid" \
        "rdmactl --root tests/fixtures/rxe --config-dir $tmp/bad gid " rxe0/1
# shellcheck disable=SC2016 # the $((...)) is literal
check "names from links are not expanded" "rdmactl --root $tmp/odd gid x" 'x$((6*7))/1'
# shellcheck disable=SC2016
check "names from sysfs are not expanded" "rdmactl --root $tmp/odd --config-dir $tmp/bad gids x" \
        'x$((6*7))' 'x$((6*7))/1'
check "a root with a ':' in its name" "rdmactl --root $tmp/root:rxe gid " rxe0/1 veth0
check "--root DIR after a ':' (COMPREPLY past the colon)" "rdmactl --root $tmp/root:" rxe
check "--config-dir: directories only" "rdmactl --config-dir $tmp/profiles/" "$tmp/profiles/sub"
check "check FILE: YAML files and directories" "rdmactl check $tmp/profiles/" \
        "$tmp/profiles/a.yaml" "$tmp/profiles/b.yml" "$tmp/profiles/sub"

echo "1..$i"
exit $failed
