#!/usr/bin/env python3
# Count meson test results from one or more testlog.json files: prints "PASSED FAILED SKIPPED".
# A skipped test counts on its own line: rdmad's tests do not skip, so a skip is a finding.
#
# With --failures, print instead each test that did not pass, with the end of its output: the
# CI shows only the tail of .ci/run's output, so a failure must be named there, next to the
# count, not only hundreds of lines above it.
#
# With --slowest N, print instead the N longest tests of each log with their wall time: where
# the CI's minutes go, seen the day a test grows.
import json
import os
import sys

TAIL = 20

def label(path):
    """The build a log is of, and which run of it: build-ci, or build-ci (testlog-6.12)."""
    build = os.path.basename(os.path.dirname(os.path.dirname(path)))
    base = os.path.splitext(os.path.basename(path))[0]
    return build if base == "testlog" else f"{build} ({base})"


args = sys.argv[1:]
failures = args[:1] == ["--failures"]
if failures:
    args = args[1:]
if args[:1] == ["--slowest"]:
    n = int(args[1])
    for path in args[2:]:
        build = label(path)
        try:
            rows = [json.loads(x) for x in open(path).read().splitlines() if x.strip()]
        except OSError:
            continue
        rows.sort(key=lambda r: -r.get("duration", 0))
        total = sum(r.get("duration", 0) for r in rows)
        print(f"{build}: {len(rows)} tests, {total:.0f} s of test time "
              f"({os.cpu_count() + 1} run at a time, two VMs of them at most)")
        for r in rows[:n]:
            print(f"  {r.get('duration', 0):6.0f}  {r.get('name')}")
    sys.exit(0)

passed = failed = skipped = 0
for path in args:
    build = label(path)
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1  # the run did not even produce a log
        if failures:
            print(f"not ok - {build}: no test log ({path})")
        continue
    for line in lines:
        if not line.strip():
            continue
        row = json.loads(line)
        result = row.get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
            continue
        if result == "SKIP":
            skipped += 1
        else:
            failed += 1
        if failures:
            print(f"not ok - {build}: {row.get('name')} ({result}, "
                  f"{row.get('duration', 0):.0f} s); the end of its output:")
            out = (row.get("stdout") or "").splitlines()
            err = (row.get("stderr") or "").splitlines()
            # a TAP test's failing checks first, wherever they are in its output
            for text in [t for t in out if t.startswith("not ok")][:10]:
                print(f"#   {text}")
            print("#   ...")
            for text in (out + err)[-TAIL:]:
                print(f"#   {text}")
if not failures:
    print(passed, failed, skipped)
