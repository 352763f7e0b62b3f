#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The example playbooks contrib/ansible/site.yml and canary.yml, with the role rdmad they run, pass
# `ansible-playbook --syntax-check` against its example inventory, with no Ansible collection
# in reach: the role uses ansible.builtin modules only, as ansible-core alone (Debian's
# ansible-core) provides them. No host is contacted. Prints TAP.
#
#   tests/docs/ansible-syntax-test.sh ANSIBLE-PLAYBOOK contrib/ansible
#
# ANSIBLE-PLAYBOOK is the path meson found, or empty: then the test fails (it does not skip).
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 ANSIBLE-PLAYBOOK CONTRIB-ANSIBLE-DIR" >&2; exit 2; }
playbook_exe=$1
dir=$2

playbooks=(site.yml canary.yml)
echo "1..${#playbooks[@]}"
if [[ -z $playbook_exe ]]; then
        for i in "${!playbooks[@]}"; do
                echo "not ok $((i + 1)) - contrib/ansible/${playbooks[i]}: no ansible-playbook"
        done
        echo "# ansible-playbook was not found when meson configured this build: install"
        echo "# ansible-core (Debian 12; listed in .ci/packages), then meson setup --reconfigure"
        exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/collections"
status=0
for i in "${!playbooks[@]}"; do
        name="contrib/ansible/${playbooks[i]} and the role rdmad pass ansible-playbook --syntax-check"
        # Ansible's own state and temporary files go to the scratch directory, not to ~/.ansible;
        # no ansible.cfg of the caller's applies; collections only from an empty directory.
        if env ANSIBLE_CONFIG="$work/none.cfg" ANSIBLE_HOME="$work/home" \
                ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_NOCOLOR=1 \
                ANSIBLE_COLLECTIONS_PATH="$work/collections" ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false \
                "$playbook_exe" --syntax-check -i "$dir/inventory.ini" "$dir/${playbooks[i]}" \
                > "$work/out" 2>&1; then
                echo "ok $((i + 1)) - $name"
        else
                echo "not ok $((i + 1)) - $name"
                sed 's/^/# /' "$work/out"
                status=1
        fi
done
exit "$status"
