#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes malformed rdmad profiles into OUTDIR, one case per file, and OUTDIR/cases.json.

Each case is what an administrator could get wrong or an attacker could write: syntax, wrong
types, unknown keys, out-of-range numbers, duplicate keys, invalid UTF-8, NUL bytes, files of
4 and 10 MiB, deep nesting, alias bombs, tags, and files that are not profiles at all
(unreadable, directories, symlink loops, FIFOs, sockets, devices). Every one must be refused by
`rdmactl check` with exit status 1 and a FILE:LINE:COLUMN (or FILE: for what is not a parse
error) diagnostic, in bounded time and memory (bad-profiles-test.py)."""

import json
import os
import socket
import stat
import sys

MiB = 1024 * 1024
SIZE_MAX = 4 * MiB  # PROFILE_SIZE_MAX in lib/profile/profile-compose.h

cases = []


def case(name, content, where=None, expect=None, kind="file", unprivileged=False):
    """where: "L:C" expected position, "" for a FILE: diagnostic, None for any position.
    expect: a substring the diagnostics must contain.
    Both may be lists, for a file with several problems: each expect must be in the diagnostic
    at the where of the same rank, which all must be there."""
    cases.append(dict(name=name, content=content, where=where, expect=expect, kind=kind,
                      unprivileged=unprivileged))


def b(s):
    return s.encode() if isinstance(s, str) else s


# --- syntax
case("syntax-unclosed-flow-seq", "roce: [1, 2\n", "2:1", "did not find expected ',' or ']'")
case("syntax-unclosed-flow-map", "roce: {tos: 1\n", "2:1", "did not find expected ',' or '}'")
case("syntax-tab-indent", "roce:\n\tmode: v2\n", "2:1", "cannot start any token")
case("syntax-bad-indent", "roce:\n    mode: v2\n  tos: 1\n", "3:3", "YAML syntax error")
case("syntax-unterminated-quote", "roce: {mode: \"v2}\n", None, "found unexpected end of stream")
case("syntax-stray-bracket", "roce: {mode: v2}]\n", "1:17", "YAML syntax error")
case("syntax-mapping-in-value", "roce: mode: v2\n", "1:11", "mapping values are not allowed")
case("syntax-seq-then-map", "- a\nb: c\n", "2:1", "YAML syntax error")
case("syntax-yaml-2-directive", "%YAML 2.0\n---\nroce: {}\n", "1:1", "incompatible YAML document")
case("syntax-undefined-tag-handle", "roce: !x!foo {}\n", "1:7", "undefined tag handle")
case("syntax-reserved-indicator", "roce: @v2\n", "1:7", "cannot start any token")
case("syntax-backtick", "roce: `v2`\n", "1:7", "cannot start any token")
case("syntax-anchor-alone", "roce: {tos: &}\n", None, "did not find expected alphabetic")
case("syntax-bad-escape", "roce: {mode: \"v\\q2\"}\n", None, "found unknown escape character")
case("syntax-long-simple-key", "k" * 2000 + ": 1\n", None, "YAML syntax error")
case("syntax-document-end-garbage", "roce: {}\n... junk\n", None, "YAML syntax error")
case("syntax-complex-key", "? [roce]\n: {tos: 1}\n", "1:3", "keys must be strings")
case("syntax-root-list", "- roce\n", "1:1", "expects a mapping of keys")
case("syntax-root-scalar", "roce\n", "1:1", "expects a mapping of keys")

# --- wrong types
case("type-section-scalar", "roce: v2\n", "1:7", "'roce' expects a mapping")
case("type-tos-string", "roce:\n  tos: \"106\"\n", "2:8", "expects an integer, got a string")
case("type-tos-list", "roce:\n  tos: [1]\n", "2:8", "expects an integer, got a list")
case("type-mtu-bool", "netdev:\n  mtu: true\n", "2:8", "expects an integer")
case("type-up-yes", "netdev:\n  up: yes\n", "2:7", "expects true or false")
case("type-up-number", "netdev:\n  up: 1\n", "2:7", "expects true or false")
case("type-modules-map", "modules: {a: b}\n", "1:10", "expects a string, got a mapping")
case("type-device-map", "match:\n  device: {a: 1}\n", "2:11", "expects a string, got a mapping")
case("type-port-word", "match:\n  port: one\n", "2:9", "expects an integer")
case("type-address-no-prefix", "netdev:\n  addresses: [192.0.2.1]\n", "2:15", "has no prefix length")
case("type-address-garbage", "netdev:\n  addresses: [192.0.2.300/24]\n", "2:15", "is not an IPv4 or IPv6 address")
case("type-dscp-map-list", "qos:\n  dscp-map: [1, 2]\n", "2:13", "expects a mapping of DSCP")
case("type-tc-bw-scalar", "qos:\n  ets:\n    tc-bw: 100\n", "3:12", "expects a list of 8 integers")
case("type-tc-bw-seven", "qos:\n  ets:\n    tc-bw: [100, 0, 0, 0, 0, 0, 0]\n", "3:12", "expects 8 entries")
case("type-links-map", "links: {name: rxe0}\n", "1:8", "expects a list")
case("type-links-missing-netdev", "links:\n  - {name: rxe0, type: rxe}\n", "2:5", "entry has no 'netdev'")
case("type-gids-require-number", "gids:\n  require: 5\n", "2:12", "unknown value '5'")
case("type-maxrate-unit", "qos:\n  maxrate: [25Gb, 0, 0, 0, 0, 0, 0, 0]\n", "2:13", "expects a rate like")
case("type-null-mode", "roce:\n  mode:\n", None, "expects a string, got null")
case("type-rail-routing-word", "netdev:\n  rail-routing: maybe\n", "2:17", "expects an integer")
case("type-publish-scalar", "gids:\n  publish: v2\n", "2:12", "expects a mapping of roce, family and subnet")

# --- unknown keys
case("key-unknown-top", "colour: red\n", "1:1", "unknown key 'colour'")
case("key-typo-roce", "rcoe:\n  mode: v2\n", "1:1", "did you mean 'roce'?")
case("key-typo-nested", "roce:\n  tso: 1\n", "2:3", "unknown key 'tso' in 'roce'")
case("key-typo-match", "match:\n  devise: mlx5_0\n", "2:3", "did you mean 'device'?")
case("key-unknown-ets", "qos:\n  etss: {}\n", "2:3", "unknown key 'etss' in 'qos'")
case("key-link-extra", "links:\n  - {name: rxe0, type: rxe, netdev: eth0, mtu: 1}\n", "2:43", "unknown key 'mtu'")
case("key-publish-extra", "gids:\n  publish: {roce: v2, colour: red}\n", "2:23", "unknown key 'colour'")
case("key-dotted-top", "roce: {tos: 106}\nroce.tos: 42\n", "2:1", "keys do not nest with dots")
case("key-dotted-nested", "qos:\n  ets.tc-bw: [100, 0, 0, 0, 0, 0, 0, 0]\n", "2:3", "keys do not nest with dots")
case("key-upper-case", "netdev:\n  MTU: 9000\n", "2:3", "unknown key 'MTU'")
case("key-empty", "\"\": 1\n", "1:1", "unknown key ''")
case("key-merge", "base: &b {tos: 1}\nroce:\n  <<: *b\n", None, "unknown key")

# --- out of range
case("range-tos-256", "roce:\n  tos: 256\n", "2:8", "must be in 0..255, got 256")
case("range-tos-negative", "roce:\n  tos: -1\n", "2:8", "must be in 0..255, got -1")
case("range-mtu-67", "netdev:\n  mtu: 67\n", "2:8", "must be in 68..65535")
case("range-mtu-65536", "netdev:\n  mtu: 65536\n", "2:8", "must be in 68..65535")
case("range-port-0", "match:\n  port: 0\n", "2:9", "must be in 1..255")
case("range-port-256", "match:\n  port: [1, 256]\n", "2:13", "must be in 1..255")
case("range-pfc-8", "qos:\n  pfc: [3, 8]\n", "2:12", "must be in 0..7")
case("range-dscp-64", "qos:\n  dscp-map: {64: 1}\n", "2:14", "must be in 0..63")
case("range-dscp-prio-8", "qos:\n  dscp-map: {26: 8}\n", "2:18", "must be in 0..7")
case("range-prio-tc-8", "qos:\n  ets:\n    prio-tc: [0, 0, 0, 8, 0, 0, 0, 0]\n", "3:24", "must be in 0..7")
case("range-tc-bw-101", "qos:\n  ets:\n    tc-bw: [101, 0, 0, 0, 0, 0, 0, 0]\n", "3:13", "must be in 0..100")
case("range-huge-integer", "roce:\n  tos: 99999999999999999999999\n", "2:8", "expects an integer")
case("range-leading-zero", "roce:\n  tos: 052\n", "2:8", "leading zero, which YAML 1.1 reads as octal")
case("range-hex", "roce:\n  tos: 0x6a\n", "2:8", "expects an integer")
case("range-rail-table-254", "netdev:\n  rail-routing: 254\n", "2:17", "is reserved")
case("range-ets-sum", "qos:\n  ets:\n    tc-bw: [50, 0, 0, 0, 0, 0, 0, 0]\n    tsa: [ets, strict, strict, strict, strict, strict, strict, strict]\n", None, "error")

# --- duplicates
case("dup-top-key", "roce: {tos: 1}\nroce: {tos: 2}\n", "2:1", "duplicate key 'roce' (first set at line 1)")
case("dup-nested-key", "roce:\n  tos: 1\n  tos: 2\n", "3:3", "duplicate key 'tos'")
case("dup-module", "modules: [mlx5_ib, mlx5_ib]\n", "1:20", "listed twice")
case("dup-address", "netdev:\n  addresses: [192.0.2.1/24, 192.0.2.1/24]\n", "2:29", "listed twice")
case("dup-link", "links:\n  - {name: rxe0, type: rxe, netdev: a}\n  - {name: rxe0, type: rxe, netdev: b}\n", "3:5", "declared twice")
case("dup-pfc", "qos:\n  pfc: [3, 3]\n", "2:12", "listed twice")
case("dup-dscp", "qos:\n  dscp-map: {26: 3, 26: 4}\n", "2:21", "duplicate key '26'")
case("dup-40k-keys", "qos:\n  dscp-map:\n" + "".join("    %d: 1\n" % (i % 64) for i in range(40000)),
     None, "and 39916 more errors")

# --- invalid UTF-8 and control characters: at their position
case("utf8-invalid-byte", b"roce:\n  mode: \"v\xff2\"\n", "2:11", "invalid leading UTF-8 octet")
case("utf8-truncated", b"match:\n  device: \"mlx5\xc3\"\n", "2:17", "invalid trailing UTF-8 octet")
case("utf8-overlong", b"match:\n  device: \"\xc0\xaf\"\n", "2:12", "UTF-8")
case("utf8-surrogate", b"match:\n  device: \"\xed\xa0\x80\"\n", "2:12", "invalid Unicode character")
case("utf8-0xfe", b"\xfe\n", "1:1", "UTF-8")
case("utf8-after-accents", b"match: {device: \"\xc3\xa9t\xc3\xa9\x80\"}\n", "1:21", "invalid leading UTF-8 octet")
case("utf8-bom-utf16-odd", b"\xff\xfer\x00o\x00c", None, "YAML syntax error")
case("control-char", b"roce:\n  mode: v\x012\n", "2:10", "control characters are not allowed")
case("control-escape-key", b"roce: {\"t\\x1bos\": 1}\n", "1:8", "unknown key 't\\x1bos'")

# --- NUL bytes
case("nul-raw", b"roce:\n  tos: 4\x002\n", "2:9", "control characters are not allowed")
case("nul-escaped-key", "roce: {\"tos\\0junk\": 42}\n", "1:8", "NUL character")
case("nul-escaped-device", "match: {device: \"rxe0\\0junk\"}\n", "1:17", "NUL character")
case("nul-escaped-address", "netdev:\n  addresses: [\"192.0.2.7/24\\0junk\"]\n", "2:15", "NUL character")
case("nul-escaped-module", "modules: [\"rdma_rxe\\0evil\"]\n", "1:11", "NUL character")
case("nul-hex-escape", "roce: {mode: \"v2\\x00\"}\n", "1:14", "NUL character")
case("nul-in-link-name", "links:\n  - {name: \"rxe\\0x\", type: rxe, netdev: eth0}\n", "2:12", "NUL character")

# --- tags
case("tag-str-int", "roce:\n  tos: !!str 42\n", "2:8", "expects an integer, got a string")
case("tag-python", "roce: !!python/object {tos: 1}\n", "1:7", "unsupported YAML tag '!!python/object'")
case("tag-local", "roce: {mode: !v v2}\n", "1:14", "unsupported YAML tag '!v'")
case("tag-binary", "modules: [!!binary aGVsbG8=]\n", "1:11", "unsupported YAML tag '!!binary'")
case("tag-float", "roce: {tos: !!float 1.0}\n", "1:13", "unsupported YAML tag '!!float'")
case("tag-int-word", "roce: {tos: !!int ten}\n", "1:13", "which is not an integer")
case("tag-seq-on-map", "roce: !!seq {tos: 1}\n", "1:7", "'!!seq' on a mapping")
case("tag-verbatim", "roce: !<tag:evil.example,2026:x> {tos: 1}\n", "1:7", "unsupported YAML tag")

# --- deep nesting
case("deep-flow-65", "[" * 65 + "]" * 65 + "\n", "1:65", "nested deeper than 64 levels")
case("deep-flow-map-65", "{a: " * 65 + "}" * 65 + "\n", "1:257", "nested deeper than 64 levels")
case("deep-block-65", "".join(" " * i + "a:\n" for i in range(65)) + " " * 65 + "b: 1\n", "65:65", "nested deeper than 64 levels")
case("deep-block-seq", "".join("  " * i + "-\n" for i in range(70)), "65:129", "nested deeper than 64 levels")
case("deep-flow-4mib", "[" * (SIZE_MAX - 1), "1:65", "nested deeper than 64 levels")
case("deep-flow-map-4mib", "{a: " * ((SIZE_MAX - 1) // 4), "1:257", "nested deeper than 64 levels")
case("deep-block-4mib", "".join(" " * i + "a:\n" for i in range(2800)), "65:65", "nested deeper than 64 levels")

# --- aliases
laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    "a%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * 9)) for i in range(1, 10))
case("alias-billion-laughs", laughs, "5:10", "aliases expand to more than 10000 nodes")
big = "modules: &m [" + ", ".join("m%d" % i for i in range(5000)) + "]\n"
case("alias-quadratic", big + "x: [" + ", ".join(["*m"] * 1000) + "]\n", "2:9", "aliases expand to more than 10000 nodes")
case("alias-undefined", "roce: {tos: *nope}\n", "1:13", "no anchor '&nope'")
case("alias-self", "modules: &m [a, *m]\n", "1:17", "no anchor '&m'")
case("alias-error-at-use", "qos: {pfc: &p [3, 9]}\necn:\n  roce-np: *p\n", "3:12", "must be in 0..7, got 9")
case("alias-anchor-flood", "modules: [" + ", ".join("&a%d m%d" % (i, i) for i in range(100000)) + "]\nx: *a7\n", "2:1", "unknown key 'x'")

# --- big files
case("size-10mib-spaces", " " * (10 * MiB), "", "file too large")
case("size-10mib-nesting", "[" * (10 * MiB), "", "file too large")
case("size-10mib-modules", "modules: [" + ",".join("m%d" % i for i in range(1300000)) + "]\n", "", "file too large")
mods = "modules: [" + ",".join("m%d" % i for i in range(499999)) + ",m7]\n"
case("size-500k-modules-dup", mods, None, "module 'm7' is listed twice")
case("size-40k-unknown-keys", "".join("k%d: 1\n" % i for i in range(40000)), "1:1", "and 39980 more errors")
case("size-1m-nodes", "modules: [" + ",".join(["a"] * ((SIZE_MAX - 16) // 2)) + "]\n", None, "more than 1000000 YAML nodes")
case("size-5000-documents", "{}\n---\n" * 5000, "8192:1", "more than 4096 documents")
case("size-100k-errors-list", "qos:\n  pfc: [" + ",".join(["9"] * 100000) + "]\n", "2:9", "and 99980 more errors")
case("size-1mib-value", "roce: {mode: " + "v" * MiB + "}\n", "1:14", "unknown value")

# --- semantic problems
case("semantic-empty-match", "match:\n  pci: []\n", "2:8", "must not be an empty list")
case("semantic-bad-glob", "match:\n  device: \"mlx5_[0\"\n", "2:11", "invalid glob")
case("semantic-module-name", "modules: [\"ib uverbs\"]\n", "1:11", "is not a kernel module name")
case("semantic-subnet-family", "gids:\n  publish: {family: ipv6, subnet: 192.0.2.0/24}\n", None, "subnet")
case("semantic-link-name-slash", "links:\n  - {name: \"a/b\", type: rxe, netdev: eth0}\n", "2:12", "not a valid RDMA device name")
case("semantic-link-name-dash", "links:\n  - {name: \"-rxe0\", type: rxe, netdev: eth0}\n", "2:12", "'-rxe0' starts with '-'")
case("semantic-link-netdev-dash", "links:\n  - {name: rxe0, type: rxe, netdev: -eth0}\n", "2:37", "netdev '-eth0' starts with '-'")
case("semantic-second-document", "roce: {tos: 1}\n---\nroce: {tos: 300}\n", "3:13", "must be in 0..255")
# issue 25: what the kernel would refuse, refused by rdmactl check with its place
case("semantic-vf-past-vfs", "sriov:\n  vfs: 2\n  vf:\n    - {index: 2, trust: true}\n", "4:7",
     "VF 2 is past 'sriov.vfs: 2'")
case("semantic-vf-vlan-4096", "sriov:\n  vf:\n    - {index: 0, vlan: 4096}\n", "3:24",
     "'sriov.vf.vlan' must be in 0..4095")
case("semantic-vf-bad-mac", "sriov:\n  vf:\n    - {index: 0, mac: 02:00:00:00:0g:01}\n", "3:23",
     "is not a MAC address")
case("semantic-vf-bad-guid", "sriov:\n  vf:\n    - {index: 0, port-guid: \"00:11\"}\n", "3:29",
     "is not a GUID")
# issue 42: every error of a file in one run, the checks across keys (the VF index against
# sriov.vfs) too when a value elsewhere (a vlan in another entry, another key) was refused
case("semantic-vf-past-vfs-and-vlan-4096",
     "sriov:\n  vfs: 4\n  vf:\n    - {index: 99, mac: 02:00:00:00:00:01}\n"
     "    - {index: 1, vlan: 4096}\n",
     ["5:24", "4:7"], ["'sriov.vf.vlan' must be in 0..4095, got 4096",
                       "VF 99 is past 'sriov.vfs: 4'"])
case("semantic-vf-past-vfs-and-mtu",
     "netdev:\n  mtu: 10\nsriov:\n  vfs: 4\n  vf: [{index: 4}]\n",
     ["2:8", "5:8"], ["'netdev.mtu' must be in 68..65535, got 10",
                      "VF 4 is past 'sriov.vfs: 4'"])
case("semantic-max-read-request-3000", "pci:\n  max-read-request: 3000\n", "2:21",
     "is not a size PCIe can ask for")

# --- files that are not profiles: FILE: diagnostics
case("file-unreadable", "roce: {tos: 1}\n", "", "cannot open: Permission denied", kind="unreadable",
     unprivileged=True)
case("file-directory", None, "", "not a regular file (a directory)", kind="directory")
case("file-symlink-loop", None, "", "Too many levels of symbolic links", kind="symlink-loop")
case("file-symlink-chain-loop", None, "", "Too many levels of symbolic links", kind="symlink-chain-loop")
case("file-dangling-symlink", None, "", "No such file or directory", kind="dangling")
case("file-fifo", None, "", "not a regular file (a FIFO)", kind="fifo")
case("file-symlink-to-fifo", None, "", "not a regular file (a FIFO)", kind="symlink-fifo")
case("file-socket", None, "", "not a regular file (a socket)", kind="socket")
case("file-char-device", None, "", "not a regular file (a character device)", kind="chardev")
case("file-symlink-dev-zero", None, "", "not a regular file (a character device)", kind="devzero")
case("file-unreadable-dir", "roce: {tos: 1}\n", "", "Permission denied", kind="unreadable-dir",
     unprivileged=True)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = []
    for c in cases:
        path = os.path.join(out, c["name"] + ".yaml")
        kind = c["kind"]
        if kind in ("file", "unreadable"):
            with open(path, "wb") as f:
                f.write(b(c["content"]))
            if kind == "unreadable":
                os.chmod(path, 0)
        elif kind == "unreadable-dir":
            d = os.path.join(out, c["name"] + ".d")
            os.makedirs(d)
            path = os.path.join(d, "profile.yaml")
            with open(path, "wb") as f:
                f.write(b(c["content"]))
            os.chmod(d, 0)
        elif kind == "directory":
            os.mkdir(path)
        elif kind == "symlink-loop":
            os.symlink(os.path.basename(path), path)
        elif kind == "symlink-chain-loop":
            other = os.path.join(out, c["name"] + "-b.link")
            os.symlink(os.path.basename(other), path)
            os.symlink(os.path.basename(path), other)
        elif kind == "dangling":
            os.symlink("does-not-exist.yaml", path)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "symlink-fifo":
            fifo = os.path.join(out, c["name"] + ".fifo")
            os.mkfifo(fifo)
            os.symlink(os.path.basename(fifo), path)
        elif kind == "socket":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path)
            s.close()
        elif kind == "chardev":
            os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
        elif kind == "devzero":
            os.symlink("/dev/zero", path)
        else:
            raise SystemExit("unknown kind " + kind)
        manifest.append(dict(name=c["name"], path=path, where=c["where"], expect=c["expect"],
                             unprivileged=c["unprivileged"]))
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("%d cases in %s" % (len(manifest), out))


if __name__ == "__main__":
    main()
