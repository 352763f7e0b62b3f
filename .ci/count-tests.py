#!/usr/bin/env python3
# Count meson test results from one or more testlog.json files: prints "PASSED FAILED SKIPPED".
# A skipped test counts on its own line: rdmad's tests do not skip, so a skip is a finding.
import json
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1  # the run did not even produce a log
        continue
    for line in lines:
        if not line.strip():
            continue
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(passed, failed, skipped)
