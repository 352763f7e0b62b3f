#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rdmactl check against every generated bad profile (gen-bad-profiles.py), as TAP.

Each case must exit 1 (not 0, not a crash), within 10 s (30 s under a sanitizer) and under a 512 MiB address-space
limit (RLIMIT_AS; not under a sanitizer, whose shadow memory reserves terabytes: its RSS is
reported instead), print FILE:LINE:COLUMN: error: (or FILE: error: for what is not a parse
error) naming the file, at the expected position(s) and with the expected words, and nothing that
is not a diagnostic. Unreadable cases run without CAP_DAC_OVERRIDE (setpriv), since root reads
anything. Usage: bad-profiles-test.py RDMACTL GENERATOR"""

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

TIME_MAX = 10.0  # the worst case takes ~1 s; a sanitizer build is 3 to 6 times slower: 30 s
AS_MAX = 512 * 1024 * 1024


def main():
    rdmactl, generator = sys.argv[1], sys.argv[2]
    sanitized = os.environ.get("RDMAD_SANITIZE", "none") not in ("", "none")
    global TIME_MAX
    if sanitized:
        TIME_MAX *= 3
    tmp = tempfile.mkdtemp(prefix="rdmad-bad-profiles-")
    try:
        subprocess.run([sys.executable, generator, tmp], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "cases.json")) as f:
            cases = json.load(f)
        run(rdmactl, cases, sanitized, tmp)
    finally:
        for root, dirs, _ in os.walk(tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(tmp)


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (AS_MAX, AS_MAX))


def unprivileged(cmd):
    if os.geteuid() == 0:
        # root without its capabilities: file modes apply to it again
        return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"] + cmd
    return cmd


def dropin_dirs(rdmactl, tmp):
    """The drop-in directories themselves, through --root: an unreadable one is an error
    naming it, a file where a directory should be and a *.YAML are warnings."""
    results = []
    root = os.path.join(tmp, "root-unreadable")
    os.makedirs(os.path.join(root, "etc/rdmad"))
    os.chmod(os.path.join(root, "etc/rdmad"), 0)
    p = subprocess.run(unprivileged([rdmactl, "--root", root, "check"]), capture_output=True,
                       timeout=TIME_MAX)
    err = p.stderr.decode(errors="replace")
    want = "%s/etc/rdmad: error: cannot list profiles: Permission denied" % root
    results.append(("an unreadable drop-in directory: exit 1, the directory named",
                    p.returncode == 1 and want in err.splitlines(), err))
    root = os.path.join(tmp, "root-odd")
    os.makedirs(os.path.join(root, "etc/rdmad"))
    os.makedirs(os.path.join(root, "usr/lib"))
    with open(os.path.join(root, "usr/lib/rdmad"), "w") as f:
        f.write("a file\n")
    with open(os.path.join(root, "etc/rdmad/10-roce.YAML"), "w") as f:
        f.write("roce: {tos: 1}\n")
    with open(os.path.join(root, "etc/rdmad/20-ok.yaml"), "w") as f:
        f.write("roce: {tos: 2}\n")
    p = subprocess.run([rdmactl, "--root", root, "check"], capture_output=True,
                       timeout=TIME_MAX)
    err = p.stderr.decode(errors="replace")
    want = ["%s/etc/rdmad: warning: '10-roce.YAML' is not read: profiles end in .yaml or "
            ".yml, lower case" % root,
            "%s/usr/lib/rdmad: warning: not a directory: no profiles read from it" % root]
    results.append(("a drop-in directory that is a file, a *.YAML: warnings, exit 0",
                    p.returncode == 0 and all(w in err.splitlines() for w in want), err))
    return results


def run(rdmactl, cases, sanitized, tmp):
    print("1..%d" % (len(cases) + 3))
    failed = 0
    slowest = (0.0, "")
    biggest = (0, "")
    for i, c in enumerate(cases, 1):
        cmd = [rdmactl, "check", c["path"]]
        if c["unprivileged"]:
            cmd = unprivileged(cmd)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=TIME_MAX,
                               preexec_fn=None if sanitized else limit)
            rc, out, err = p.returncode, p.stdout.decode(errors="replace"), \
                p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", "", ""
        elapsed = time.monotonic() - start
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        slowest = max(slowest, (elapsed, c["name"]))
        if rss > before:
            biggest = max(biggest, (rss, c["name"]))
        problems = judge(c, rc, out, err)
        if problems:
            failed += 1
            print("not ok %d - %s" % (i, c["name"]))
            for p in problems:
                print("# " + p)
            for line in err.splitlines()[:25]:
                print("#   " + line[:200])
        else:
            first = err.splitlines()[0] if err else ""
            print("ok %d - %s (%.2f s) %s" % (i, c["name"], elapsed,
                                            first.replace(c["path"], "FILE")[:150]))
    print("# slowest: %s, %.2f s (bound %.0f s)" % (slowest[1], slowest[0], TIME_MAX))
    print("# largest max RSS of rdmactl check: %s, %d MiB%s" % (
        biggest[1], biggest[0] // 1024,
        " (sanitizer build: no RLIMIT_AS)" if sanitized else
        " (RLIMIT_AS %d MiB)" % (AS_MAX // 1024 // 1024)))
    i = len(cases)
    for name, good, err in dropin_dirs(rdmactl, tmp):
        i += 1
        print("%s %d - %s" % ("ok" if good else "not ok", i, name))
        if not good:
            failed += 1
            for line in err.splitlines()[:10]:
                print("#   " + line[:200])
    ok = len(cases) >= 100
    print("%s %d - at least 100 cases (%d)" % ("ok" if ok else "not ok", i + 1, len(cases)))
    sys.exit(1 if failed or not ok else 0)


def judge(c, rc, out, err):
    path = c["path"]
    problems = []
    if rc == "timeout":
        return ["did not finish within %.0f s" % TIME_MAX]
    if rc != 1:
        problems.append("exit status %s, expected 1%s" % (rc, " (a signal)" if rc < 0 else ""))
    if out:
        problems.append("something on stdout: %r" % out[:200])
    lines = err.splitlines()
    diag = re.compile(r"^%s(:(\d+):(\d+))?: (error|warning): " % re.escape(path))
    more = re.compile(r"^%s: and \d+ more errors?$" % re.escape(path))
    total = re.compile(r"^\d+ errors?\.$")
    diags = [m for m in map(diag.match, lines) if m]
    if not diags:
        problems.append("no diagnostic naming %s" % path)
    for line in lines:
        if not (diag.match(line) or more.match(line) or total.match(line)):
            problems.append("not a diagnostic: %r" % line[:200])
            break
    if isinstance(c["where"], list):
        # several problems: each at its place with its words, all in one run
        for where, expect in zip(c["where"], c["expect"]):
            at = [line for line, m in zip(lines, map(diag.match, lines))
                  if m and m.group(1) and "%s:%s" % (m.group(2), m.group(3)) == where]
            if not any(expect in line for line in at):
                problems.append("expected an error at %s with %r, got %s" % (
                    where, expect, at[:5] or "none there"))
        return problems
    if c["where"] is not None and diags:
        if c["where"] == "":
            if not any(m.group(1) is None for m in diags):
                problems.append("no FILE: diagnostic (the problem is the file, not a position)")
        else:
            got = ["%s:%s" % (m.group(2), m.group(3)) for m in diags if m.group(1)]
            if c["where"] not in got:
                problems.append("expected an error at %s, got %s" % (c["where"], got[:5]))
    elif diags and all(m.group(1) is None for m in diags) and c["where"] is None:
        problems.append("expected FILE:LINE:COLUMN")
    if c["expect"] and c["expect"] not in err:
        problems.append("expected %r in the diagnostics" % c["expect"])
    return problems


if __name__ == "__main__":
    main()
