#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write promtool unit tests of rdmad's fleet alerts on a simulated fleet.

    tests/prometheus/gen-fleet-tests.py [--nodes N] RULES-FILE OUTPUT

writes OUTPUT, a `promtool test rules` file that loads RULES-FILE (by its absolute path) and
simulates N nodes (default 1,000), one RoCE link each, as node_exporter exports rdmad.prom
from their textfile directories (job "node", instance "nodeNNNN:9100"):

- a drifting fleet: nine tenths of the links have profiles "50-lossless.yaml" and publish GID
  index 3, the last tenth "50-lossless.yaml 60-ipv6.yaml" and index 5 (another profile set may
  publish another index); two links of the first set publish 1, one of the second publishes 2,
  one moves from 3 to 1 at 20m; links are pending, degraded or failed for a while, one only
  briefly; one is unmanaged;
- a quiet fleet: the same two sets, each in agreement, every link converged but one, pending
  for 3 minutes.

The expected alerts (labels, annotations, values) are computed here from the scenario, not
from PromQL: RdmadLinkNotConverged, RdmadGidIndexFleetDisagreement and
RdmadPublishedGidIndexChanged each fire when they must and stay silent (exp_alerts: []) when
they must. Python 3 standard library only; every string is written as a JSON string, which
YAML reads as a double-quoted scalar.
"""

import argparse
import json
import os
import sys

JOB = "node"
DEVICE, PORT, NETDEV = "mlx5_0", "1", "ens1f0np0"
PROFILES_A = "50-lossless.yaml"
PROFILES_B = "50-lossless.yaml 60-ipv6.yaml"
STATES = ("converged", "pending", "degraded", "failed", "unmanaged")
MINUTES = 40  # samples at 0m..40m, one a minute


def q(s):
    return json.dumps(s)


def instance(n):
    return "node%04d:9100" % n


def series_name(metric, labels):
    return "%s{%s}" % (metric, ",".join('%s="%s"' % kv for kv in labels))


def expand(values):
    """promtool's expanding notation for a list of per-minute samples (None: missed scrape)."""
    out = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[i]:
            j += 1
        v = "_" if values[i] is None else str(values[i])
        out.append(v if j == i else "%sx%d" % (v, j - i))
        i = j + 1
    return " ".join(out)


class Node:
    def __init__(self, n, profiles, gid):
        self.n = n
        self.profiles = profiles
        # state per minute, published GID index per minute (None: publishes none)
        self.state = ["converged"] * (MINUTES + 1)
        self.gid = [gid] * (MINUTES + 1)

    def set_state(self, state, start, end=MINUTES):
        for t in range(start, end + 1):
            self.state[t] = state

    def set_gid(self, gid, start, end=MINUTES):
        for t in range(start, end + 1):
            self.gid[t] = gid

    def link_labels(self):
        return [("instance", instance(self.n)), ("job", JOB), ("device", DEVICE),
                ("port", PORT), ("netdev", NETDEV), ("profiles", self.profiles)]


def fleet(nodes):
    """The two profile sets: the last tenth of the nodes is set B."""
    first_b = nodes - nodes // 10 + 1
    return {n: Node(n, PROFILES_B if n >= first_b else PROFILES_A, 5 if n >= first_b else 3)
            for n in range(1, nodes + 1)}


def input_series(fleet_nodes):
    out = []
    for node in fleet_nodes.values():
        labels = node.link_labels()
        for st in STATES:
            values = [1 if s == st else 0 for s in node.state]
            out.append((series_name("rdmad_link_state", labels + [("state", st)]),
                        expand(values)))
        if any(g is not None for g in node.gid):
            out.append((series_name("rdmad_link_published_gid_index", labels),
                        expand(node.gid)))
    return out


# --- what the rules must say, computed from the scenario ---

def not_converged(fleet_nodes, t):
    """Links pending, degraded or failed (any mix) at every minute of [t-5m, t]."""
    firing = []
    for node in fleet_nodes.values() if t >= 5 else ():
        if all(node.state[u] in ("pending", "degraded", "failed") for u in range(t - 5, t + 1)):
            firing.append(node)
    return [{
        "exp_labels": dict(node.link_labels(), severity="warning"),
        "exp_annotations": {
            "summary": "RDMA link %s/%s on %s not converged" % (DEVICE, PORT, instance(node.n)),
            "description": (
                "%s port %s (%s) on %s has been pending, degraded or failed for more than "
                "5 minutes (profiles: %s). `rdmactl status %s` there says which setting is not "
                "what the profiles declare and why; `rdmactl plan` what rdmad would still "
                "change." % (DEVICE, PORT, NETDEV, instance(node.n), node.profiles, DEVICE)),
        },
    } for node in firing]


def disagreeing_at(fleet_nodes, u):
    """{node: (gid, links with the most common index of its profile set)} at minute u."""
    counts = {}
    for node in fleet_nodes.values():
        if node.gid[u] is not None:
            c = counts.setdefault(node.profiles, {})
            c[node.gid[u]] = c.get(node.gid[u], 0) + 1
    out = {}
    for node in fleet_nodes.values():
        if node.gid[u] is None:
            continue
        c = counts[node.profiles]
        top = max(c.values())
        assert list(c.values()).count(top) == 1, "scenario with a tie: topk would choose"
        if c[node.gid[u]] != top:
            out[node.n] = (node.gid[u], top)
    return out


def fleet_disagreement(fleet_nodes, t):
    """Links whose index is not their set's most common one at every minute of [t-5m, t]."""
    if t < 5:
        return []
    windows = [disagreeing_at(fleet_nodes, u) for u in range(t - 5, t + 1)]
    alerts = []
    for n, (gid, top) in sorted(windows[-1].items()):
        if not all(w.get(n, (None,))[0] == gid for w in windows):
            continue
        node = fleet_nodes[n]
        alerts.append({
            "exp_labels": dict(node.link_labels(), severity="critical", gid_index=str(gid)),
            "exp_annotations": {
                "summary": "%s %s/%s publishes GID index %d, unlike the fleet"
                           % (instance(n), DEVICE, PORT, gid),
                "description": (
                    "%s port %s (%s) on %s publishes GID index %d, while %d links with the same "
                    "profiles (%s) publish another one. NCCL uses one NCCL_IB_GID_INDEX for all "
                    "the ranks of a job: jobs spanning this node and the others cannot connect. "
                    "Compare `rdmactl gid` here with a node that agrees (addresses, VLANs or "
                    "RoCE mode of the netdev differ)."
                    % (DEVICE, PORT, NETDEV, instance(n), gid, top, node.profiles)),
            },
        })
    return alerts


def gid_changed(fleet_nodes, t):
    """Links whose index changed within [t-15m, t], at minutes t-1 and t (for: 1m). No
    node_infiniband_state_id in this simulation: no port is known to be down."""
    def active(node, u):
        seen = [g for g in node.gid[max(0, u - 15):u + 1] if g is not None]
        return node.gid[u] is not None and any(a != b for a, b in zip(seen, seen[1:]))
    alerts = []
    for node in fleet_nodes.values():
        if active(node, t - 1) and active(node, t):
            alerts.append({
                "exp_labels": dict(node.link_labels(), severity="warning"),
                "exp_annotations": {
                    "summary": "GID index of %s/%s on %s changed to %d"
                               % (DEVICE, PORT, instance(node.n), node.gid[t]),
                    "description": (
                        "%s port %s (%s) on %s now publishes GID index %d, another index than "
                        "in the last 15 minutes, and the link is up. Jobs that pinned the old "
                        "index (NCCL_IB_GID_INDEX, /run/rdmad/env) must restart; check that the "
                        "rest of the fleet publishes the same index "
                        "(RdmadGidIndexFleetDisagreement)."
                        % (DEVICE, PORT, NETDEV, instance(node.n), node.gid[t])),
                },
            })
    return alerts


def drifting_fleet(nodes):
    f = fleet(nodes)
    at = lambda per_mille: max(2, nodes * per_mille // 1000)  # noqa: E731
    # GID index: two links of set A publish 1, one of set B publishes 2, one of set A moves
    # from 3 to 1 at 20m; the link that stays pending publishes none, nor the unmanaged one.
    f[at(137)].set_gid(1, 0)
    f[at(500)].set_gid(1, 0)
    f[nodes - 1].set_gid(2, 0)
    f[at(742)].set_gid(1, 20)
    # not converged: briefly pending (10m-13m), degraded from 5m, failed from 0m, pending then
    # degraded then failed (one alert), pending throughout (and no GID); all converge at 30m
    f[3].set_state("pending", 10, 13)
    f[at(250)].set_state("degraded", 5, 29)
    f[at(800)].set_state("failed", 0, 29)
    node = f[at(800) + 1]
    node.set_state("pending", 0, 1)
    node.set_state("degraded", 2, 3)
    node.set_state("failed", 4, 29)
    f[at(10)].set_state("pending", 0, 29)
    f[at(10)].set_gid(None, 0)
    # unmanaged: no profile applies, publishes nothing
    unmanaged = f[at(900)]
    unmanaged.profiles = ""
    unmanaged.set_state("unmanaged", 0)
    unmanaged.set_gid(None, 0)
    assert len({at(137), at(500), nodes - 1, at(742), 3, at(250), at(800), at(800) + 1,
                at(10), at(900)}) == 10, "too few nodes for the scenario"
    evals = {
        "RdmadLinkNotConverged": [4, 5, 12, 14, 31],
        "RdmadGidIndexFleetDisagreement": [4, 10, 22, 26],
        "RdmadPublishedGidIndexChanged": [20, 21, 35, 36],
    }
    return f, evals


def quiet_fleet(nodes):
    f = fleet(nodes)
    f[nodes // 2].set_state("pending", 10, 12)
    evals = {
        "RdmadLinkNotConverged": [5, 12, 30],
        "RdmadGidIndexFleetDisagreement": [5, 12, 30],
        "RdmadPublishedGidIndexChanged": [5, 12, 30],
    }
    return f, evals


EXPECT = {
    "RdmadLinkNotConverged": not_converged,
    "RdmadGidIndexFleetDisagreement": fleet_disagreement,
    "RdmadPublishedGidIndexChanged": gid_changed,
}


def write_alert(w, alert):
    w("          - exp_labels:\n")
    for k, v in sorted(alert["exp_labels"].items()):
        w("              %s: %s\n" % (k, q(v)))
    w("            exp_annotations:\n")
    for k, v in sorted(alert["exp_annotations"].items()):
        w("              %s: %s\n" % (k, q(v)))


def write_test(w, title, f, evals):
    w("  # %s\n" % title)
    w("  - interval: 1m\n")
    w("    input_series:\n")
    for name, values in input_series(f):
        w("      - series: %s\n        values: %s\n" % (q(name), q(values)))
    w("    alert_rule_test:\n")
    counts = []
    for alertname, times in evals.items():
        for t in times:
            alerts = EXPECT[alertname](f, t)
            counts.append(len(alerts))
            w("      - eval_time: %dm\n" % t)
            w("        alertname: %s\n" % alertname)
            if not alerts:
                w("        exp_alerts: []\n")
                continue
            w("        exp_alerts:\n")
            for alert in alerts:
                write_alert(w, alert)
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("rules")
    ap.add_argument("output")
    args = ap.parse_args()
    if args.nodes < 50:
        ap.error("--nodes: at least 50")

    tmp = args.output + ".tmp"
    with open(tmp, "w") as out:
        w = out.write
        w("# Generated by tests/prometheus/gen-fleet-tests.py --nodes %d: do not edit.\n"
          % args.nodes)
        w("rule_files:\n  - %s\n\nevaluation_interval: 1m\n\ntests:\n"
          % q(os.path.abspath(args.rules)))
        f, evals = drifting_fleet(args.nodes)
        drifting = write_test(w, "%d nodes, a few drifting" % args.nodes, f, evals)
        f, evals = quiet_fleet(args.nodes)
        quiet = write_test(w, "%d nodes in agreement, converged" % args.nodes, f, evals)
    os.replace(tmp, args.output)
    # the scenario must make each alert both fire and stay silent
    assert min(drifting) == 0 and max(drifting) > 0 and max(quiet) == 0
    print("%s: %d nodes, %d evaluations (%d expecting alerts, %d alerts in all)"
          % (args.output, args.nodes, len(drifting) + len(quiet),
             sum(1 for c in drifting if c), sum(drifting)), file=sys.stderr)


if __name__ == "__main__":
    main()
