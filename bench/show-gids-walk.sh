#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What show_gids (MLNX_OFED's GID table script) does, in plain bash with builtins only (no cat
# per file, which would be slower still): for every device, port and GID slot of ROOT, read the
# GID, its RoCE type and its netdev, and print the populated ones. bench-gids.sh times it next
# to rdmactl gids, as the shell walk administrators run today.
#
#   bench/show-gids-walk.sh ROOT
set -u
shopt -s nullglob
empty=0000:0000:0000:0000:0000:0000:0000:0000
for dev in "$1"/sys/class/infiniband/*; do
        for port in "$dev"/ports/*; do
                for g in "$port"/gids/*; do
                        i=${g##*/}
                        read -r gid < "$g" || continue
                        [[ $gid == "$empty" ]] && continue
                        type= ndev=
                        read -r type < "$port/gid_attrs/types/$i" 2> /dev/null
                        read -r ndev < "$port/gid_attrs/ndevs/$i" 2> /dev/null
                        echo "${dev##*/} ${port##*/} $i $gid $type $ndev"
                done
        done
done
