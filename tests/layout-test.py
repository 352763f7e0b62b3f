#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""lib/'s folders depend one way: each file includes only headers of its own folder or of a
folder below it (lib/README.md). Reads every `#include "..."` of lib/, daemon/, tools/ and
probe/, maps each header to the folder that holds it, prints the folder graph and fails (TAP) on
an include that goes up, or sideways between folders of one rank, or from lib/ into a daemon's
folder. In daemon/ the same holds for its layers (DAEMON below): the core tells the D-Bus layer
what changed through manager-emit.h only, and never includes a bus file's header. Each daemon
has its folder on lib/ (STYLE.md): daemon/ (rdmad), tools/ (rdmactl) and probe/ (rdmad-probe)
include their own headers and lib/'s, never each other's. And no source file of those folders
grows past MAX_LINES: split it by concern first.

    tests/layout-test.py [SOURCE_ROOT]
"""
import pathlib
import re
import sys

# Bottom first. Folders of one rank may not include each other.
RANKS = {
    "basic": 0,
    "profile": 1,
    "client": 1,
    "codec": 2,
    "host": 3,
    "plan": 4,
    "apply": 5,
    "preflight": 6,
    "publish": 6,
    "verbs": 7,
}
# daemon/'s layers, by file stem: helpers, the core (the Manager, its reconcile, watches and
# publishing), the D-Bus layer (vtables and method handlers), main.
DAEMON = {
    "log": 0, "port-status": 0, "bus-args": 0, "bus-polkit": 0, "bus-util": 0,
    "manager-helper": 0, "scope-newlink": 0, "ratelimit": 0, "slice-source": 0,
    "status-gids": 0,
    "manager": 1, "manager-reconcile": 1, "manager-dirty": 1, "manager-status": 1,
    "manager-publish": 1, "manager-watch": 1, "manager-lldp": 1, "manager-devlink": 1, "manager-worker": 1,
    "manager-describe": 1, "manager-health": 1, "manager-emit": 1, "manager-plan": 1, "manager-gpus": 1,
    "manager-trial": 1, "manager-trial-gates": 1, "manager-trial-internal": 1,
    "manager-bus": 2, "link-bus": 2, "manager-checks": 2, "manager-trial-bus": 2,
    "rdmad": 3,
}
DAEMON_LAYER = ["helpers", "core", "bus", "main"]
# The most lines a .c or .h of lib/, daemon/, tools/ or probe/ may have (STYLE.md: split a file
# by concern as it passes ~800).
MAX_LINES = 900
# The daemons' folders, each on lib/ only.
TOPS = ("daemon", "tools", "probe")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    lib = root / "lib"
    headers = {}  # header name -> the folder holding it ("<stage>" of lib/, or one of TOPS)
    for d in sorted(p for p in lib.iterdir() if p.is_dir()):
        for h in d.glob("*.h"):
            headers.setdefault(h.name, []).append(d.name)
    for top in TOPS:
        for h in (root / top).glob("*.h"):
            headers.setdefault(h.name, []).append(top)

    n = 0
    failed = 0
    edges = {}

    def result(ok, name, *diag):
        nonlocal n, failed
        n += 1
        failed += not ok
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        for line in diag:
            print(f"# {line}")

    folders = sorted(p.name for p in lib.iterdir() if p.is_dir())
    unknown = [f for f in folders if f not in RANKS]
    result(not unknown, "every folder of lib/ has a rank", *(f"lib/{f}/ has none: add it to RANKS and lib/README.md" for f in unknown))
    loose = sorted(p.name for p in lib.iterdir() if p.is_file() and p.suffix in (".c", ".h"))
    result(not loose, "no source file directly in lib/", *loose)
    twice = {h: where for h, where in headers.items() if len(where) > 1}
    result(not twice, "every header name is held by one folder", *(f"{h}: {w}" for h, w in twice.items()))

    sources = sorted(lib.rglob("*.[ch]"))
    for top in TOPS:
        sources += sorted((root / top).glob("*.[ch]"))
    long = []
    for f in sources:
        lines = f.read_bytes().count(b"\n")
        if lines > MAX_LINES:
            long.append(f"{f.relative_to(root)}: {lines} lines; split it by concern")
    result(not long, f"no source file over {MAX_LINES} lines", *long)

    bad = []
    for d in folders:
        if d not in RANKS:
            continue
        for f in sorted((lib / d).glob("*.[ch]")):
            for inc in INCLUDE.findall(f.read_text(errors="replace")):
                where = headers.get(pathlib.PurePath(inc).name)
                if not where:
                    continue  # config.h, generated or system headers
                to = where[0]
                if to == d:
                    continue
                edges.setdefault(d, set()).add(to)
                if to not in RANKS:
                    bad.append(f"lib/{d}/{f.name} includes {inc} of {to}/")
                elif RANKS[to] >= RANKS[d]:
                    bad.append(f"lib/{d}/{f.name} (rank {RANKS[d]}) includes {inc} of lib/{to}/ (rank {RANKS[to]})")
    result(not bad, "lib/'s folders include only folders below them", *bad)

    daemon = root / "daemon"
    stems = sorted({f.stem for f in daemon.glob("*.[ch]")})
    unranked = [x for x in stems if x not in DAEMON]
    result(not unranked, "every file of daemon/ has a layer", *(f"daemon/{x}: add it to DAEMON" for x in unranked))
    bad = []
    for f in sorted(daemon.glob("*.[ch]")):
        if f.stem not in DAEMON:
            continue
        for inc in INCLUDE.findall(f.read_text(errors="replace")):
            stem = pathlib.PurePath(inc).stem
            if (daemon / inc).exists() and stem in DAEMON and DAEMON[stem] > DAEMON[f.stem]:
                bad.append(f"daemon/{f.name} ({DAEMON_LAYER[DAEMON[f.stem]]}) includes {inc} ({DAEMON_LAYER[DAEMON[stem]]})")
    result(not bad, "daemon/: helpers, core, bus, main include only their own layer or below", *bad)

    # Each daemon on lib/: an include of another daemon's header, even by a relative path.
    for top in ("probe", "tools", "daemon"):
        others = [t for t in TOPS if t != top]
        bad = []
        for f in sorted((root / top).glob("*.[ch]")):
            for inc in INCLUDE.findall(f.read_text(errors="replace")):
                where = headers.get(pathlib.PurePath(inc).name)
                if where and where[0] in others:
                    bad.append(f"{top}/{f.name} includes {inc} of {where[0]}/")
        result(not bad, f"{top}/ includes only its own headers and lib/'s, never {others[0]}/ or {others[1]}/", *bad)

    # The graph, and a check that it has no cycle (it cannot, with the ranks; said anyway).
    for d in sorted(edges, key=lambda x: (RANKS.get(x, 99), x)):
        print(f"# lib/{d}/ -> " + ", ".join(f"lib/{t}/" for t in sorted(edges[d], key=lambda x: (RANKS.get(x, 99), x))))
    state = {}

    def cyclic(v):
        state[v] = 1
        for w in edges.get(v, ()):
            if state.get(w) == 1 or (w not in state and cyclic(w)):
                return True
        state[v] = 2
        return False

    result(not any(cyclic(v) for v in list(edges) if v not in state), "the folder graph has no cycle")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
