#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every relative link of the Markdown files (README.md, docs/, the READMEs under lib/, tests/,
contrib/, ...) leads somewhere: the file exists, and an anchor (#section, alone or after a .md
file) is one of that file's headings as GitHub names them (lower case, punctuation dropped,
blanks as '-', '-1', '-2' ... for repeats). Code blocks are left out. One TAP line per file.

    tests/docs/md-links-test.py SOURCE_ROOT
"""
import pathlib
import re
import sys

# the folders of the source tree (never a build directory, whatever its name)
TREES = ["docs", "lib", "daemon", "tools", "probe", "tests", "contrib", "conf.d", "man", "bench",
         "fuzz", "units", "debian"]
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(text):
    seen, out = {}, set()
    for m in HEADING.finditer(FENCE.sub("", text)):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    files = [root / "README.md"]
    for t in TREES:
        files += sorted((root / t).rglob("*.md")) if (root / t).is_dir() else []
    n = failed = 0
    for f in files:
        text = f.read_text()
        bad = []
        for m in LINK.finditer(FENCE.sub("", text)):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, frag = target.partition("#")
            dest = (f.parent / path).resolve() if path else f
            if not dest.exists():
                bad.append(f"{target}: no such file")
            elif frag and dest.suffix == ".md" and frag not in anchors(dest.read_text()):
                bad.append(f"{target}: no heading #{frag} in {dest.relative_to(root)}")
        n += 1
        name = f.relative_to(root)
        if bad:
            failed += 1
            print(f"not ok {n} - {name}: every relative link leads somewhere")
            for b in bad:
                print(f"# {b}")
        else:
            print(f"ok {n} - {name}: every relative link leads somewhere")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
