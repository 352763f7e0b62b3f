/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every key of the profile language: its valid forms, and its invalid forms with the exact
 * FILE:LINE:COLUMN error the user sees. */
#include <arpa/inet.h>

#include "profile-schema.h"
#include "profile.h"
#include "rdmanl.h"
#include "strv.h"
#include "tests.h"

/* Loads text as "t.yaml"; returns the diagnostics joined by newlines ("" when clean). */
static char *load(const char *text, Profile ***ret, size_t *ret_n) {
	Diagnostics d = { 0 };
	Profile **l = NULL;
	size_t n = 0;
	char *out;
	size_t len = 0;
	int r;

	r = profile_load_string("t.yaml", text, strlen(text), &d, &l, &n);
	out = calloc(1, 1);
	for (size_t i = 0; i < d.n; i++) {
		char *s = diagnostic_format(&d.items[i]);

		out = realloc(out, len + strlen(s) + 2);
		len += sprintf(out + len, "%s%s", i ? "\n" : "", s);
		free(s);
	}
	CHECK((r < 0) == (d.n > 0));
	diagnostics_done(&d);
	if (ret) {
		*ret = l;
		*ret_n = n;
	} else {
		for (size_t i = 0; i < n; i++)
			profile_free(l[i]);
		free(l);
	}
	return out;
}

static const struct {
	const char *yaml;
	const char *error;
} invalid[] = {
	/* structure */
	{ "- a\n", "t.yaml:1:1: error: 'profile' expects a mapping of keys, got a list" },
	{ "rcoe:\n  mode: v2\n", "t.yaml:1:1: error: unknown key 'rcoe', did you mean 'roce'?" },
	{ "colour: red\n", "t.yaml:1:1: error: unknown key 'colour'" },
	{ "roce: v2\n", "t.yaml:1:7: error: 'roce' expects a mapping of keys, got a scalar" },
	{ "roce:\n  tos: 1\n  tos: 2\n",
	  "t.yaml:3:3: error: duplicate key 'tos' (first set at line 2)" },
	{ "roce: [1, 2\n",
	  "t.yaml:2:1: error: YAML syntax error: did not find expected ',' or ']' while parsing a "
	  "flow sequence" },
	{ "roce:\n\tmode: v2\n",
	  "t.yaml:2:1: error: YAML syntax error: found character that cannot start any token "
	  "while scanning for the next token" },
	{ "[a]: 1\n", "t.yaml:1:1: error: keys must be strings, got a list" },
	/* match */
	{ "match:\n  device: \"mlx5_[0\"\n",
	  "t.yaml:2:11: error: 'match.device': invalid glob 'mlx5_[0': '[' without a closing ']'" },
	{ "match:\n  netdev: [ens1, \"\"]\n",
	  "t.yaml:2:18: error: 'match.netdev': invalid glob '': empty pattern" },
	{ "match:\n  pci: []\n",
	  "t.yaml:2:8: error: 'match.pci' must not be an empty list (it would match nothing)" },
	{ "match:\n  driver: {a: b}\n",
	  "t.yaml:2:11: error: 'match.driver' expects a string, got a mapping" },
	{ "match:\n  port: 0\n", "t.yaml:2:9: error: 'match.port' must be in 1..255, got 0" },
	{ "match:\n  port: [1, x]\n",
	  "t.yaml:2:13: error: 'match.port' expects an integer, got 'x'" },
	{ "match:\n  devise: mlx5_0\n",
	  "t.yaml:2:3: error: unknown key 'devise' in 'match', did you mean 'device'?" },
	/* modules */
	{ "modules: [\"ib uverbs\"]\n",
	  "t.yaml:1:11: error: 'modules': 'ib uverbs' is not a kernel module name" },
	{ "modules: [mlx5_ib, mlx5_ib]\n",
	  "t.yaml:1:20: error: 'modules': module 'mlx5_ib' is listed twice" },
	/* counters */
	{ "counters:\n  optional: [np_cnp_sent, np_cnp_sent]\n",
	  "t.yaml:2:27: error: 'counters.optional': counter 'np_cnp_sent' is listed twice" },
	{ "counters:\n  optional: [\"CNP sent\"]\n",
	  "t.yaml:2:14: error: 'counters.optional': 'CNP sent' is not a hw counter name "
	  "(lower-case letters, digits and '_', as `rdma statistic mode supported` lists them)" },
	{ "counters:\n  optionl: [np_cnp_sent]\n",
	  "t.yaml:2:3: error: unknown key 'optionl' in 'counters', did you mean 'optional'?" },
	/* probe */
	{ "probe:\n  interval: 500\n", "t.yaml:2:13: error: 'probe.interval' expects a duration "
				       "such as 500ms or 1s, got '500'" },
	{ "probe:\n  interval: 1h\n",
	  "t.yaml:2:13: error: 'probe.interval' expects a duration such as 500ms or 1s, got '1h'" },
	{ "probe:\n  interval: 5ms\n",
	  "t.yaml:2:13: error: 'probe.interval' must be between 10ms and 3600s, got '5ms'" },
	{ "probe:\n  timeout: 99999999999999999999s\n",
	  "t.yaml:2:12: error: 'probe.timeout' must be between 1ms and 60s, got "
	  "'99999999999999999999s'" },
	{ "probe:\n  timeout: ms\n",
	  "t.yaml:2:12: error: 'probe.timeout' expects a duration such as 500ms or 1s, got 'ms'" },
	{ "probe:\n  mesh: global\n",
	  "t.yaml:2:9: error: 'probe.mesh': unknown value 'global', expected one of: none, local" },
	{ "probe:\n  peers: 192.0.2.9\n",
	  "t.yaml:2:10: error: 'probe.peers' expects a list of addresses, got a scalar" },
	{ "probe:\n  peers: [node7]\n",
	  "t.yaml:2:11: error: 'probe.peers': 'node7' is not an IPv4 or IPv6 address (a peer's "
	  "link, as its prober answers on it; host names are not resolved)" },
	{ "probe:\n  peers: [192.0.2.0/24]\n",
	  "t.yaml:2:11: error: 'probe.peers': '192.0.2.0/24' is not an IPv4 or IPv6 address (a "
	  "peer's link, as its prober answers on it; host names are not resolved)" },
	{ "probe:\n  peers: ['2001:db8::9', '2001:0db8::9']\n",
	  "t.yaml:2:26: error: 'probe.peers': '2001:0db8::9' is listed twice" },
	{ "probe:\n  port: 0\n", "t.yaml:2:9: error: 'probe.port' must be in 1..65535, got 0" },
	/* security */
	{ "security:\n  roce-allow-from: [192.0.2.0/24, 198.51.100.7/24]\n",
	  "t.yaml:2:35: error: 'security.roce-allow-from': '198.51.100.7/24' has host bits set: "
	  "did you mean 198.51.100.0/24?" },
	{ "security:\n  roce-allow-from: [192.0.2.0/33]\n",
	  "t.yaml:2:21: error: 'security.roce-allow-from': '192.0.2.0/33' is not an IPv4 or IPv6 "
	  "prefix (192.0.2.0/24, 2001:db8::/32) or address" },
	{ "security:\n  roce-allow-from: [\"2001:db8::/32\", \"2001:db8::/32\"]\n",
	  "t.yaml:2:38: error: 'security.roce-allow-from': '2001:db8::/32' is listed twice" },
	{ "security:\n  roce-allow-from: 192.0.2.0/24\n",
	  "t.yaml:2:20: error: 'security.roce-allow-from' expects a list of prefixes, got a "
	  "scalar" },
	{ "security:\n  roce-alow-from: [192.0.2.0/24]\n",
	  "t.yaml:2:3: error: unknown key 'roce-alow-from' in 'security', did you mean "
	  "'roce-allow-from'?" },
	/* roce */
	{ "roce:\n  mode: v3\n",
	  "t.yaml:2:9: error: 'roce.mode': unknown value 'v3', expected one of: v1, v2" },
	{ "roce:\n  tos: 256\n", "t.yaml:2:8: error: 'roce.tos' must be in 0..255, got 256" },
	{ "roce:\n  tos: -1\n", "t.yaml:2:8: error: 'roce.tos' must be in 0..255, got -1" },
	{ "roce:\n  tos: \"106\"\n",
	  "t.yaml:2:8: error: 'roce.tos' expects an integer, got a string" },
	{ "roce:\n  tos: 0x6a\n", "t.yaml:2:8: error: 'roce.tos' expects an integer, got '0x6a'" },
	{ "roce:\n  tos: ~\n", "t.yaml:2:8: error: 'roce.tos' expects an integer, got '~'" },
	/* netdev */
	{ "netdev:\n  mtuu: 4200\n",
	  "t.yaml:2:3: error: unknown key 'mtuu' in 'netdev', did you mean 'mtu'?" },
	{ "netdev:\n  mtu: 67\n", "t.yaml:2:8: error: 'netdev.mtu' must be in 68..65535, got 67" },
	{ "netdev:\n  expect-speed: 5\n",
	  "t.yaml:2:17: error: 'netdev.expect-speed' must be in 10..1600000, got 5" },
	{ "netdev:\n  up: yes\n",
	  "t.yaml:2:7: error: 'netdev.up' expects true or false, got 'yes'" },
	{ "netdev:\n  up: [true]\n",
	  "t.yaml:2:7: error: 'netdev.up' expects true or false, got a list" },
	{ "netdev:\n  addresses: [192.0.2.10]\n",
	  "t.yaml:2:15: error: 'netdev.addresses': '192.0.2.10' has no prefix length (write "
	  "192.0.2.10/24 or 192.0.2.10/64)" },
	{ "netdev:\n  addresses: [300.0.2.10/24]\n",
	  "t.yaml:2:15: error: 'netdev.addresses': '300.0.2.10/24' is not an IPv4 or IPv6 address "
	  "with a prefix length" },
	{ "netdev:\n  addresses: [192.0.2.10/33]\n",
	  "t.yaml:2:15: error: 'netdev.addresses': '192.0.2.10/33' is not an IPv4 or IPv6 address "
	  "with a prefix length" },
	{ "netdev:\n  addresses: [\"2001:db8::1/64\", \"2001:db8::1/64\"]\n",
	  "t.yaml:2:33: error: 'netdev.addresses': '2001:db8::1/64' is listed twice" },
	/* gids */
	{ "gids:\n  require: [roce-v3-ipv4]\n",
	  "t.yaml:2:13: error: 'gids.require': unknown value 'roce-v3-ipv4', expected one of: "
	  "roce-v1-ipv4, roce-v1-ipv6, roce-v1-link-local, roce-v1-any, roce-v2-ipv4, "
	  "roce-v2-ipv6, roce-v2-link-local, roce-v2-any" },
	{ "gids:\n  publish: ipv4\n",
	  "t.yaml:2:12: error: 'gids.publish' expects a mapping of roce, family and subnet, got a "
	  "scalar" },
	{ "gids:\n  publish: {roce: v3}\n",
	  "t.yaml:2:19: error: 'gids.publish.roce': expects v1 or v2, got 'v3'" },
	{ "gids:\n  publish: {family: ipv5}\n", "t.yaml:2:21: error: 'gids.publish.family': "
						"expects ipv4, ipv6 or link-local, got 'ipv5'" },
	{ "gids:\n  publish: {subnet: 192.0.2.1/24}\n",
	  "t.yaml:2:21: error: 'gids.publish.subnet': '192.0.2.1/24' has host bits set: a subnet "
	  "is "
	  "its network address and length" },
	{ "gids:\n  publish: {subnet: 192.0.2.0}\n",
	  "t.yaml:2:21: error: 'gids.publish.subnet': '192.0.2.0' is not an IPv4 or IPv6 prefix "
	  "(192.0.2.0/24, 2001:db8::/64)" },
	{ "gids:\n  publish: {family: ipv6, subnet: 10.0.0.0/8}\n",
	  "t.yaml:2:35: error: 'gids.publish.subnet': an IPv4 subnet, but family is ipv6" },
	{ "gids:\n  publish: {famly: ipv4}\n",
	  "t.yaml:2:13: error: 'gids.publish': unknown key 'famly' (roce, family, subnet)" },
	/* qos */
	{ "qos:\n  trust: vlan\n",
	  "t.yaml:2:10: error: 'qos.trust': unknown value 'vlan', expected one of: pcp, dscp" },
	{ "qos:\n  pfc: [8]\n", "t.yaml:2:9: error: 'qos.pfc' must be in 0..7, got 8" },
	{ "qos:\n  pfc: [3, 3]\n", "t.yaml:2:12: error: 'qos.pfc': priority 3 is listed twice" },
	{ "qos:\n  dscp-map: {64: 3}\n",
	  "t.yaml:2:14: error: 'qos.dscp-map' must be in 0..63, got 64" },
	{ "qos:\n  dscp-map: {26: 8}\n",
	  "t.yaml:2:18: error: 'qos.dscp-map' must be in 0..7, got 8" },
	{ "qos:\n  dscp-map: {26: 3, 26: 4}\n",
	  "t.yaml:2:21: error: duplicate key '26' (first set at line 2)" },
	{ "qos:\n  dscp-map: [26]\n",
	  "t.yaml:2:13: error: 'qos.dscp-map' expects a mapping of DSCP (0..63) to priority "
	  "(0..7), got a list" },
	{ "qos:\n  ets:\n    prio-tc: [0, 0, 0, 3]\n",
	  "t.yaml:3:14: error: 'qos.ets.prio-tc' expects 8 entries (one per priority), got 4" },
	{ "qos:\n  ets:\n    prio-tc: [0, 0, 0, 8, 0, 0, 0, 0]\n",
	  "t.yaml:3:24: error: 'qos.ets.prio-tc' must be in 0..7, got 8" },
	{ "qos:\n  ets:\n    tc-bw: [50, 50, 10, 0, 0, 0, 0, 0]\n",
	  "t.yaml:3:12: error: 'qos.ets.tc-bw' must add up to 100, got 110" },
	{ "qos:\n  ets:\n    tsa: [ets, ets, ets, strict, ets, ets, wfq, ets]\n",
	  "t.yaml:3:44: error: 'qos.ets.tsa': unknown value 'wfq', expected one of: strict, cbs, "
	  "ets, vendor" },
	{ "qos:\n  ets:\n    tcbw: []\n",
	  "t.yaml:3:5: error: unknown key 'tcbw' in 'qos.ets', did you mean 'tc-bw'?" },
	{ "qos:\n  ets:\n    tsa: [ets, strict, strict, ets, strict, strict, strict, strict]\n"
	  "    tc-bw: [50, 0, 0, 40, 0, 0, 10, 0]\n",
	  "t.yaml:4:12: error: 'qos.ets.tc-bw' of the ets traffic classes (0,3) must add up to "
	  "100, "
	  "got 90" },
	/* the same with tc-bw first: the check waits for the whole profile */
	{ "qos:\n  ets:\n    tc-bw: [50, 0, 0, 40, 0, 0, 10, 0]\n"
	  "    tsa: [ets, strict, strict, ets, strict, strict, strict, strict]\n",
	  "t.yaml:3:12: error: 'qos.ets.tc-bw' of the ets traffic classes (0,3) must add up to "
	  "100, "
	  "got 90" },
	{ "qos:\n  ets:\n    tc-bw: [50, 0, 0, 40, 0, 0, 101, 0]\n",
	  "t.yaml:3:33: error: 'qos.ets.tc-bw' must be in 0..100, got 101" },
	{ "qos:\n  owner: lldpad\n",
	  "t.yaml:2:10: error: 'qos.owner': unknown value 'lldpad', expected one of: auto, rdmad" },
	{ "qos:\n  maxrate: 25Gbit\n",
	  "t.yaml:2:12: error: 'qos.maxrate' expects a list of 8 rates, got a scalar" },
	{ "qos:\n  maxrate: [25Gbit]\n",
	  "t.yaml:2:12: error: 'qos.maxrate' expects 8 entries (one per traffic class), got 1" },
	{ "qos:\n  maxrate: [25G, 0, 0, 0, 0, 0, 0, 0]\n",
	  "t.yaml:2:13: error: 'qos.maxrate' expects a rate like 25Gbit, 100Mbit or 0 (no limit), "
	  "got '25G'" },
	{ "qos:\n  maxrate: [0, 0, 0, 0, 0, 0, 0, -1Gbit]\n",
	  "t.yaml:2:34: error: 'qos.maxrate' expects a rate like 25Gbit, 100Mbit or 0 (no limit), "
	  "got '-1Gbit'" },
	{ "qos:\n  maxrate: [0, 0, 0, 1500bit, 0, 0, 0, 0]\n",
	  "t.yaml:2:22: error: 'qos.maxrate': '1500bit' is not a whole number of kbit/s, the "
	  "kernel's unit" },
	{ "qos:\n  maxrate: [0, 0, 0, 1.Gbit, 0, 0, 0, [1]]\n",
	  "t.yaml:2:22: error: 'qos.maxrate' expects a rate like 25Gbit, 100Mbit or 0 (no limit), "
	  "got '1.Gbit'\n"
	  "t.yaml:2:39: error: 'qos.maxrate' expects a string, got a list" },
	/* the rest of lossless RoCE */
	{ "qos:\n  dcbx: host\n",
	  "t.yaml:2:9: error: 'qos.dcbx' expects a list of a mode (host or lld-managed) and a "
	  "version (ieee or cee), got a scalar" },
	{ "qos:\n  dcbx: [host, lld-managed]\n",
	  "t.yaml:2:16: error: 'qos.dcbx': 'lld-managed' is a second mode" },
	{ "qos:\n  dcbx: [ieee]\n",
	  "t.yaml:2:9: error: 'qos.dcbx' needs a mode (host or lld-managed) and a version (ieee or "
	  "cee)" },
	{ "qos:\n  dcbx: [host, ieee, firmware]\n", "t.yaml:2:22: error: 'qos.dcbx': unknown word "
						    "'firmware' (host, lld-managed, ieee, cee)" },
	{ "qos:\n  owner: rdmad\n  dcbx: [lld-managed, ieee]\n",
	  "t.yaml:3:9: error: 'qos.dcbx' lld-managed hands DCB to the NIC's own agent, but "
	  "'qos.owner: rdmad' has rdmad write it as the host's: declare qos.dcbx [host, ...] or "
	  "qos.owner auto" },
	{ "qos:\n  pfc-delay: 65536\n",
	  "t.yaml:2:14: error: 'qos.pfc-delay' must be in 0..65535, got 65536" },
	{ "qos:\n  buffer: {prio-buffer: [0,0,0,8,0,0,0,0]}\n",
	  "t.yaml:2:32: error: 'qos.buffer.prio-buffer' must be in 0..7, got 8" },
	{ "qos:\n  buffer: {size: [1,2,3]}\n",
	  "t.yaml:2:18: error: 'qos.buffer.size' expects 8 entries (one per buffer), got 3" },
	{ "qos:\n  buffer: {size: [0,0,0,0,0,0,0,4294967296]}\n",
	  "t.yaml:2:33: error: 'qos.buffer.size' must be in 0..4294967295, got 4294967296" },
	{ "netdev:\n  pause: {rx: off}\n",
	  "t.yaml:2:15: error: 'netdev.pause.rx' expects true or false, got 'off'" },
	{ "ecn:\n  cnp-dscp: 64\n", "t.yaml:2:13: error: 'ecn.cnp-dscp' must be in 0..63, got 64" },
	{ "ecn:\n  cnp-prio: 8\n", "t.yaml:2:13: error: 'ecn.cnp-prio' must be in 0..7, got 8" },
	/* ecn */
	{ "ecn:\n  roce-np: 3x\n",
	  "t.yaml:2:12: error: 'ecn.roce-np' expects an integer, got '3x'" },
	{ "ecn:\n  roce-rp: {3: 1}\n",
	  "t.yaml:2:12: error: 'ecn.roce-rp' expects an integer, got a mapping" },
	/* links */
	{ "links:\n  - {name: rxe0, type: rxe}\n",
	  "t.yaml:2:5: error: 'links': entry has no 'netdev'" },
	{ "links:\n  - {name: rxe0, type: iwarp, netdev: eth0}\n",
	  "t.yaml:2:24: error: 'links': unknown value 'iwarp', expected one of: rxe, siw" },
	{ "links:\n  - {name: rxe0, type: rxe, netdev: eth0, mtu: 9000}\n",
	  "t.yaml:2:43: error: 'links': unknown key 'mtu', expected name, type and netdev" },
	{ "links:\n  - {name: rxe0, type: rxe, netdev: eth0}\n  - {name: rxe0, type: rxe, netdev: "
	  "eth1}\n",
	  "t.yaml:3:5: error: 'links': link 'rxe0' is declared twice" },
	{ "links: {name: rxe0}\n", "t.yaml:1:8: error: 'links' expects a list, got a mapping" },
	{ "links:\n", "t.yaml:1:7: error: 'links' expects a list, got null (nothing)" },
	{ "links:\n  - {name: .., type: rxe, netdev: eth0}\n",
	  "t.yaml:2:12: error: 'links': '..' is not a valid RDMA device name (1-63 printable "
	  "characters, no space, '/' or '%', not . or ..)" },
	{ "links:\n  - {name: rxe%d, type: rxe, netdev: eth0}\n",
	  "t.yaml:2:12: error: 'links': 'rxe%d' is not a valid RDMA device name (1-63 printable "
	  "characters, no space, '/' or '%', not . or ..)" },
	{ "links:\n  - {name: \"\", type: rxe, netdev: eth0}\n",
	  "t.yaml:2:12: error: 'links': '' is not a valid RDMA device name (1-63 printable "
	  "characters, no space, '/' or '%', not . or ..)" },
	{ "links:\n  - {name: \"rxe\\t0\", type: rxe, netdev: eth0}\n",
	  "t.yaml:2:12: error: 'links': 'rxe\\x090' is not a valid RDMA device name (1-63 "
	  "printable "
	  "characters, no space, '/' or '%', not . or ..)" },
	{ "links:\n  - {name: rxe0, type: rxe, netdev: \"a:b\"}\n",
	  "t.yaml:2:37: error: 'links': 'a:b' is not a valid netdev name (1-15 printable "
	  "characters, no space, '/', ':' or '%', not . or ..)" },
	/* a name passed on a command line (rdmad --newlink NAME TYPE NETDEV, rdma link add) */
	{ "links:\n  - {name: -rxe0, type: rxe, netdev: eth0}\n",
	  "t.yaml:2:12: error: 'links': '-rxe0' starts with '-', which a command (rdma, ip, "
	  "rdmad's helper) would read as an option" },
	{ "links:\n  - {name: rxe0, type: rxe, netdev: \"--help\"}\n",
	  "t.yaml:2:37: error: 'links': netdev '--help' starts with '-', which a command "
	  "(rdma, ip, rdmad's helper) would read as an option" },
	/* rdma */
	{ "rdma: {node-description: \"%h %s\"}\n",
	  "t.yaml:1:26: error: 'rdma.node-description': '%s' at offset 3: the escapes are %h (host "
	  "name), %d (device name) and %%" },
	{ "rdma: {node-description: \"%h %\"}\n",
	  "t.yaml:1:26: error: 'rdma.node-description': '%' at offset 3: the escapes are %h (host "
	  "name), %d (device name) and %%" },
	{ "rdma: {node-description: \"caf\\u00e9 %d\"}\n",
	  "t.yaml:1:26: error: 'rdma.node-description': byte 0xc3 at offset 3: only printable "
	  "ASCII" },
	{ "rdma: {node-description: "
	  "\"0123456789012345678901234567890123456789012345678901234567890123456789\"}\n",
	  "t.yaml:1:26: error: 'rdma.node-description': 70 bytes, more than the 64 the kernel "
	  "keeps (the expanded text is cut there too)" },
	{ "rdma: {node-description: [a]}\n",
	  "t.yaml:1:26: error: 'rdma.node-description' expects a string, got a list" },
	/* sriov, pci */
	{ "sriov: {vfs: 2, vf: [{index: 0}, {index: 2, mac: 02:00:00:00:00:01}]}\n",
	  "t.yaml:1:34: error: 'sriov.vf': VF 2 is past 'sriov.vfs: 2' (VFs are numbered from "
	  "0)" },
	{ "sriov:\n  vf:\n    - {index: 0, vlan: 4096}\n",
	  "t.yaml:3:24: error: 'sriov.vf.vlan' must be in 0..4095, got 4096" },
	{ "sriov:\n  vf:\n    - {index: 1, mac: 02:00:00:00:00}\n",
	  "t.yaml:3:23: error: 'sriov.vf.mac': mac '02:00:00:00:00' is not a MAC address like "
	  "02:00:00:00:00:01" },
	{ "sriov:\n  vf:\n    - {index: 1, mac: 03:00:00:00:00:01}\n",
	  "t.yaml:3:23: error: 'sriov.vf.mac': mac '03:00:00:00:00:01' is a multicast address; a "
	  "VF needs a unicast one" },
	{ "sriov:\n  vf:\n    - {index: 1, node-guid: \"00:11:22:33:44:55:66\"}\n",
	  "t.yaml:3:29: error: 'sriov.vf.node-guid': '00:11:22:33:44:55:66' is not a GUID like "
	  "00:11:22:33:44:55:66:77" },
	{ "sriov:\n  vf:\n    - {index: 1, qos: 3}\n",
	  "t.yaml:3:7: error: 'sriov.vf': VF 1 sets qos or vlan-protocol without a vlan (the "
	  "kernel takes the three together)" },
	{ "sriov:\n  vf:\n    - {index: 1}\n    - {index: 1, trust: true}\n",
	  "t.yaml:4:7: error: 'sriov.vf': VF 1 is declared twice (first at line 3)" },
	{ "sriov:\n  vf:\n    - {mac: 02:00:00:00:00:01}\n",
	  "t.yaml:3:7: error: 'sriov.vf': entry has no 'index'" },
	/* devlink */
	{ "devlink:\n  params:\n    - {name: max_macs, value: many}\n",
	  "t.yaml:3:31: error: 'devlink.params': max_macs expects a u32, got 'many'" },
	{ "devlink:\n  params:\n    - {name: flow_steering_mode, value: fast}\n",
	  "t.yaml:3:41: error: 'devlink.params': flow_steering_mode expects one of dmfs|smfs|hmfs, "
	  "got 'fast'" },
	{ "devlink:\n  params:\n    - {name: test1, value: 1}\n",
	  "t.yaml:3:28: error: 'devlink.params': test1 expects true or false, got '1'" },
	{ "devlink:\n  params:\n    - {name: max_macs, value: 4294967296}\n",
	  "t.yaml:3:31: error: 'devlink.params': max_macs expects a u32, got '4294967296'" },
	{ "devlink:\n  params:\n    - {name: flow_steering_mode, value: smfs, cmode: driverinit}\n",
	  "t.yaml:3:54: error: 'devlink.params': flow_steering_mode has no cmode driverinit "
	  "(mlx5_core: runtime)" },
	{ "devlink:\n  params:\n    - {name: enable_roce, value: true}\n",
	  "t.yaml:3:7: error: 'devlink.params': enable_roce is runtime on some drivers and "
	  "driverinit on others: give its cmode" },
	{ "devlink:\n  params:\n    - {name: vendor_knob, value: 3}\n",
	  "t.yaml:3:7: error: 'devlink.params': vendor_knob is not a parameter rdmad knows: give "
	  "its cmode (runtime, driverinit or permanent)" },
	{ "devlink:\n  params:\n    - {name: max_macs, value: 1}\n    - {name: max_macs, value: "
	  "2}\n",
	  "t.yaml:4:7: error: 'devlink.params': max_macs is declared twice (first at line 3)" },
	{ "devlink:\n  params:\n    - {name: enable_roce, value: true, cmode: runtime}\n"
	  "    - {name: enable_iwarp, value: true}\n",
	  "t.yaml:3:5: error: 'devlink.params': enable_roce and enable_iwarp are both true: ice "
	  "runs one of RoCE and iWARP at a time" },
	{ "match: {driver: netdevsim}\ndevlink:\n  params:\n    - {name: flow_steering_mode, "
	  "value: smfs}\n",
	  "t.yaml:4:7: error: 'devlink.params': netdevsim has no parameter flow_steering_mode (it "
	  "has max_macs, test1)" },
	{ "devlink:\n  params:\n    - {name: max_macs, value: 1, cmode: later}\n",
	  "t.yaml:3:41: error: 'devlink.params': cmode 'later' is not runtime, driverinit or "
	  "permanent" },
	{ "devlink: {reload: sometimes}\n", "t.yaml:1:19: error: 'devlink.reload': unknown value "
					    "'sometimes', expected one of: never, "
					    "allowed" },
	{ "sriov:\n  vf:\n    - {index: 0, speed: 10}\n",
	  "t.yaml:3:18: error: 'sriov.vf': unknown key 'speed', expected index, mac, vlan, qos, "
	  "vlan-protocol, trust, spoof-check, link-state, max-rate, min-rate, node-guid or "
	  "port-guid" },
	{ "sriov:\n  vf:\n    - {index: 0, link-state: up}\n",
	  "t.yaml:3:30: error: 'sriov.vf.link-state': unknown value 'up', expected one of: auto, "
	  "enable, disable" },
	{ "sriov:\n  vf:\n    - {index: 0, max-rate: 100, min-rate: 200}\n",
	  "t.yaml:3:7: error: 'sriov.vf': VF 0's min-rate 200 is above its max-rate 100 "
	  "(Mbit/s)" },
	{ "sriov: {eswitch: offload}\n",
	  "t.yaml:1:18: error: 'sriov.eswitch': unknown value 'offload', expected one of: legacy, "
	  "switchdev" },
	{ "sriov: {vfs: -1}\n", "t.yaml:1:14: error: 'sriov.vfs' must be in 0..65535, got -1" },
	{ "pci: {max-read-request: 3000}\n",
	  "t.yaml:1:25: error: 'pci.max-read-request': 3000 is not a size PCIe can ask for: 128, "
	  "256, 512, 1024, 2048 or 4096 bytes" },
	{ "pci: {max-read-request: 8192}\n",
	  "t.yaml:1:25: error: 'pci.max-read-request' must be in 128..4096, got 8192" },
	{ "pci: {upstream-acs: clear}\n",
	  "t.yaml:1:21: error: 'pci.upstream-acs': unknown value 'clear', expected one of: keep, "
	  "off, on" },
	/* system */
	{ "system:\n  netns-mode: private\n",
	  "t.yaml:2:15: error: 'system.netns-mode': unknown value 'private', expected one of: "
	  "exclusive, shared" },
};

TEST(invalid) {
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		char *e = load(invalid[i].yaml, NULL, NULL);

		CHECK_STREQ(e, invalid[i].error);
		free(e);
	}
}

/* All errors of a file are reported, not only the first. */
TEST(every_error_reported) {
	char *e = load("roce:\n  tos: 300\n  mode: v9\nnetdev:\n  mtu: 1\n", NULL, NULL);

	CHECK_STREQ(e,
		    "t.yaml:2:8: error: 'roce.tos' must be in 0..255, got 300\n"
		    "t.yaml:3:9: error: 'roce.mode': unknown value 'v9', expected one of: v1, v2\n"
		    "t.yaml:5:8: error: 'netdev.mtu' must be in 68..65535, got 1");
	free(e);
}

/* The checks across keys run after a value error elsewhere in the file (issue 42: a VF index
 * past sriov.vfs was said only once the vlan of another entry was fixed), each leaving out the
 * keys and fields that were themselves refused: no second error for the same mistake. The
 * errors of a file come in the order of their positions, as a compiler lists them. */
static const struct {
	const char *yaml;
	const char *errors;
} cross_checks[] = {
	/* the example: a bad vlan in one entry, an index past vfs in another */
	{ "sriov:\n  vfs: 4\n  vf:\n    - {index: 99}\n    - {index: 1, vlan: 4096}\n",
	  "t.yaml:4:7: error: 'sriov.vf': VF 99 is past 'sriov.vfs: 4' (VFs are numbered from "
	  "0)\n"
	  "t.yaml:5:24: error: 'sriov.vf.vlan' must be in 0..4095, got 4096" },
	/* both in one entry, and an unknown key there too */
	{ "sriov:\n  vfs: 4\n  vf:\n    - {index: 99, speed: 1, vlan: 4096}\n",
	  "t.yaml:4:7: error: 'sriov.vf': VF 99 is past 'sriov.vfs: 4' (VFs are numbered from "
	  "0)\n"
	  "t.yaml:4:19: error: 'sriov.vf': unknown key 'speed', expected index, mac, vlan, qos, "
	  "vlan-protocol, trust, spoof-check, link-state, max-rate, min-rate, node-guid or "
	  "port-guid\n"
	  "t.yaml:4:35: error: 'sriov.vf.vlan' must be in 0..4095, got 4096" },
	/* the value error in another key, after sriov */
	{ "sriov: {vfs: 2, vf: [{index: 2}]}\nnetdev: {mtu: 1}\n",
	  "t.yaml:1:22: error: 'sriov.vf': VF 2 is past 'sriov.vfs: 2' (VFs are numbered from "
	  "0)\n"
	  "t.yaml:2:15: error: 'netdev.mtu' must be in 68..65535, got 1" },
	/* a duplicate index and a min-rate above max-rate next to a bad field */
	{ "sriov:\n  vf:\n    - {index: 1, vlan: 4096}\n"
	  "    - {index: 1, max-rate: 10, min-rate: 20}\n",
	  "t.yaml:3:24: error: 'sriov.vf.vlan' must be in 0..4095, got 4096\n"
	  "t.yaml:4:7: error: 'sriov.vf': VF 1's min-rate 20 is above its max-rate 10 (Mbit/s)\n"
	  "t.yaml:4:7: error: 'sriov.vf': VF 1 is declared twice (first at line 3)" },
	/* each check of qos and sriov, whatever the others found */
	{ "qos:\n  owner: rdmad\n  dcbx: [lld-managed, ieee]\n"
	  "  ets: {tc-bw: [0, 0, 0, 50, 0, 0, 0, 0], tsa: [strict, strict, strict, ets, strict, "
	  "strict, strict, strict]}\nsriov: {vfs: 2, vf: [{index: 2}]}\n",
	  "t.yaml:3:9: error: 'qos.dcbx' lld-managed hands DCB to the NIC's own agent, but "
	  "'qos.owner: rdmad' has rdmad write it as the host's: declare qos.dcbx [host, ...] or "
	  "qos.owner auto\n"
	  "t.yaml:4:16: error: 'qos.ets.tc-bw' of the ets traffic classes (3) must add up to "
	  "100, got 50\n"
	  "t.yaml:5:22: error: 'sriov.vf': VF 2 is past 'sriov.vfs: 2' (VFs are numbered from 0)" },
	/* no cascade: a refused sriov.vfs is not compared with */
	{ "sriov:\n  vfs: -1\n  vf: [{index: 3}]\n",
	  "t.yaml:2:8: error: 'sriov.vfs' must be in 0..65535, got -1" },
	/* ... a refused index is not, nor counted as a duplicate; the entry is named so */
	{ "sriov:\n  vfs: 1\n  vf: [{index: x, qos: 1}, {index: 0}]\n",
	  "t.yaml:3:8: error: 'sriov.vf': the entry sets qos or vlan-protocol without a vlan "
	  "(the kernel takes the three together)\n"
	  "t.yaml:3:16: error: 'sriov.vf.index' expects an integer, got 'x'" },
	/* ... a refused vlan is not a missing one */
	{ "sriov:\n  vf: [{index: 0, vlan: 4096, qos: 1}]\n",
	  "t.yaml:2:25: error: 'sriov.vf.vlan' must be in 0..4095, got 4096" },
	/* ... nor a refused rate compared */
	{ "sriov:\n  vf: [{index: 0, max-rate: -1, min-rate: 20}]\n",
	  "t.yaml:2:29: error: 'sriov.vf.max-rate' must be in 0..4294967295, got -1" },
	/* ... a refused qos.ets.tsa is not "no tsa": tc-bw is not summed over every class */
	{ "qos:\n  ets:\n    tc-bw: [0, 0, 0, 50, 0, 0, 0, 0]\n"
	  "    tsa: [strict, strict, strict, ets, bogus, strict, strict, strict]\n",
	  "t.yaml:4:40: error: 'qos.ets.tsa': unknown value 'bogus', expected one of: strict, cbs, "
	  "ets, vendor" },
};

TEST(cross_checks_after_value_errors) {
	for (size_t i = 0; i < ELEMENTSOF(cross_checks); i++) {
		char *e = load(cross_checks[i].yaml, NULL, NULL);

		CHECK_STREQ(e, cross_checks[i].errors);
		free(e);
	}
}

/* Global pause with PFC is a warning: the profile loads. */
TEST(pause_with_pfc_warns) {
	static const char text[] = "qos:\n  pfc: [3]\nnetdev:\n  pause: {rx: true}\n";
	_cleanup_(diagnostics_done) Diagnostics d = { 0 };
	Profile **l = NULL;
	size_t n = 0;
	char *m;

	CHECK(profile_load_string("t.yaml", text, strlen(text), &d, &l, &n) == 0);
	CHECK_INTEQ(n, 1);
	CHECK_INTEQ(d.n, 1);
	CHECK_INTEQ(diagnostics_n_errors(&d), 0);
	m = d.n == 1 ? diagnostic_format(&d.items[0]) : NULL;
	CHECK(m && strstr(m, "t.yaml: warning: netdev.pause turns global pause on together with "
			     "qos.pfc"));
	free(m);
	for (size_t i = 0; i < n; i++)
		profile_free(l[i]);
	free(l);
}

/* The example from the documentation, every key set. */
static const char full[] =
	"match:\n  device: \"mlx5_*\"\n  driver: mlx5_core\n"
	"  netdev: [\"ens1f*np*\", eth0]\n  pci: \"0000:3b:00.*\"\n  port: 1\n"
	"modules: [ib_uverbs, rdma_ucm]\nroce:\n"
	"  mode: v2\n  tos: 106\nnetdev:\n  up: true\n"
	"  mtu: 4200\n  addresses: [192.0.2.10/24, \"2001:db8::10/64\"]\n"
	"  rail-routing: 1011\n  pause: {autoneg: false, rx: false, tx: false}\n"
	"  expect-speed: 200000\ngids:\n"
	"  require: [roce-v2-ipv4, roce-v1-any]\n"
	"  publish: {roce: v2, family: ipv4, subnet: 10.12.0.0/15}\nqos:\n"
	"  owner: rdmad\n  trust: dscp\n  pfc: [3, 5]\n  dscp-map: {26: 3, 48: 6}\n"
	"  maxrate: [0, 0, 0, 25Gbit, 0, 0, 2.5gbit, 100Mbit]\n"
	"  ets: {prio-tc: [0,0,0,3,0,0,6,0], tc-bw: [10,0,0,60,0,0,30,0],\n"
	"        tsa: [ets,strict,strict,ets,strict,strict,ets,strict]}\n"
	"  pfc-delay: 32768\n"
	"  buffer: {prio-buffer: [0,0,0,1,0,0,0,0], size: [130944,131072,0,0,0,0,0,0]}\n"
	"  dcbx: [host, ieee]\necn:\n"
	"  roce-np: [3]\n  roce-rp: []\n  cnp-dscp: 48\n  cnp-prio: 6\n"
	"counters:\n  optional: [cc_rx_ce_pkts, np_cnp_sent]\n"
	"security:\n  roce-allow-from: [192.0.2.0/24, \"2001:db8::/32\", 198.51.100.7]\n"
	"rdma:\n  node-description: \"%h %d\"\n"
	"sriov:\n  vfs: 4\n  autoprobe: false\n  eswitch: switchdev\n"
	"  vf:\n    - {index: 3, mac: 02:00:00:00:00:03, vlan: 100, qos: 3,\n"
	"       vlan-protocol: 802.1ad, trust: true, spoof-check: false, link-state: enable,\n"
	"       max-rate: 10000, min-rate: 1000}\n"
	"    - {index: 0, node-guid: \"00:11:22:33:44:55:66:77\", port-guid: "
	"\"00:11:22:33:44:55:66:78\"}\n"
	"pci:\n  max-read-request: 4096\n  upstream-acs: off\n"
	"devlink:\n  params:\n    - {name: max_macs, value: 0x40, cmode: driverinit}\n"
	"    - {name: flow_steering_mode, value: smfs}\n  reload: allowed\n"
	"probe:\n  interval: 250ms\n  timeout: 2s\n  mesh: local\n"
	"  peers: [192.0.2.9, '2001:0db8::9']\n  port: 18515\n"
	"links:\n  - {name: rxe0, type: rxe, netdev: veth0}\n"
	"system:\n  netns-mode: exclusive\n";

TEST(full_profile) {
	Profile **l = NULL;
	size_t n = 0;
	char *e = load(full, &l, &n);
	Profile *p;

	CHECK_STREQ(e, "");
	free(e);
	CHECK_INTEQ(n, 1);
	if (n != 1)
		return;
	p = l[0];
	CHECK_STREQ(p->name, "t.yaml");
	CHECK(p->settings.set == ((KeySet) 1 << _KEY_MAX) - 1);
	CHECK_INTEQ(p->settings.probe_interval_ms, 250);
	CHECK_INTEQ(p->settings.probe_timeout_ms, 2000);
	CHECK_INTEQ(p->settings.probe_mesh, PROBE_MESH_LOCAL);
	CHECK_STREQ(p->settings.probe_peers[0], "192.0.2.9");
	CHECK_STREQ(p->settings.probe_peers[1], "2001:db8::9"); /* canonical */
	CHECK(!p->settings.probe_peers[2]);
	CHECK_INTEQ(p->settings.probe_port, 18515);
	CHECK(p->settings.rail_routing);
	CHECK_INTEQ(p->settings.rail_table, 1011);
	CHECK_STREQ(p->settings.node_description, "%h %d");
	CHECK_INTEQ(p->settings.sriov_vfs, 4);
	CHECK(!p->settings.sriov_autoprobe);
	CHECK_INTEQ(p->settings.sriov_eswitch, ESWITCH_MODE_SWITCHDEV);
	/* sorted by name, the hex value canonical, the cmode from the known table */
	CHECK_INTEQ(p->settings.n_devlink_params, 2);
	CHECK_STREQ(p->settings.devlink_params[0].name, "flow_steering_mode");
	CHECK_STREQ(p->settings.devlink_params[0].value, "smfs");
	CHECK_INTEQ(p->settings.devlink_params[0].cmode, DEVLINK_CMODE_RUNTIME);
	CHECK_STREQ(p->settings.devlink_params[1].name, "max_macs");
	CHECK_STREQ(p->settings.devlink_params[1].value, "64");
	CHECK_INTEQ(p->settings.devlink_params[1].cmode, DEVLINK_CMODE_DRIVERINIT);
	CHECK_INTEQ(p->settings.devlink_reload, DEVLINK_RELOAD_ALLOWED);
	CHECK_INTEQ(p->settings.pci_max_read_request, 4096);
	CHECK_INTEQ(p->settings.pci_upstream_acs, PCI_ACS_OFF);
	CHECK_INTEQ(p->settings.n_sriov_vf, 2);
	if (p->settings.n_sriov_vf == 2) {
		const SriovVf *a = &p->settings.sriov_vf[0], *b = &p->settings.sriov_vf[1];

		/* sorted by index */
		CHECK_INTEQ(a->index, 0);
		CHECK_INTEQ(a->set, VF_BIT(VF_NODE_GUID) | VF_BIT(VF_PORT_GUID));
		CHECK(a->node_guid == UINT64_C(0x0011223344556677));
		CHECK(a->port_guid == UINT64_C(0x0011223344556678));
		CHECK_INTEQ(b->index, 3);
		CHECK_INTEQ(b->set, VF_BIT(VF_MAC) | VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) |
					    VF_BIT(VF_VLAN_PROTO) | VF_BIT(VF_TRUST) |
					    VF_BIT(VF_SPOOF_CHECK) | VF_BIT(VF_LINK_STATE) |
					    VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE));
		CHECK_INTEQ(b->mac[5], 3);
		CHECK_INTEQ(b->vlan, 100);
		CHECK_INTEQ(b->qos, 3);
		CHECK_INTEQ(b->vlan_proto, 0x88a8);
		CHECK(b->trust && !b->spoof_check);
		CHECK_INTEQ(b->link_state, VF_LINK_STATE_ENABLE);
		CHECK_INTEQ(b->max_rate, 10000);
		CHECK_INTEQ(b->min_rate, 1000);
		CHECK_INTEQ(b->line, 48);
	}
	CHECK_INTEQ(p->settings.n_roce_allow_from, 3);
	if (p->settings.n_roce_allow_from == 3) {
		CHECK_INTEQ(p->settings.roce_allow_from[0].prefixlen, 24);
		CHECK_INTEQ(p->settings.roce_allow_from[1].family, AF_INET6);
		CHECK_INTEQ(p->settings.roce_allow_from[2].prefixlen, 32);
	}
	CHECK_STREQ(p->match.device[0], "mlx5_*");
	CHECK_STREQ(p->match.netdev[1], "eth0");
	CHECK_INTEQ(p->match.n_ports, 1);
	CHECK_INTEQ(p->match.ports[0], 1);
	CHECK_STREQ(p->modules[1], "rdma_ucm");
	CHECK_INTEQ(p->settings.roce_mode, ROCE_MODE_V2);
	CHECK_INTEQ(p->settings.roce_tos, 106);
	CHECK(p->settings.netdev_up);
	CHECK_INTEQ(p->settings.netdev_mtu, 4200);
	CHECK_INTEQ(p->settings.netdev_expect_speed, 200000);
	CHECK_INTEQ(p->settings.n_addresses, 2);
	CHECK_INTEQ(p->settings.addresses[0].family, AF_INET);
	CHECK_INTEQ(p->settings.addresses[0].prefixlen, 24);
	CHECK_INTEQ(p->settings.addresses[1].family, AF_INET6);
	CHECK_INTEQ(p->settings.gids_require,
		    (1u << GID_REQUIREMENT_ROCE_V2_IPV4) | (1u << GID_REQUIREMENT_ROCE_V1_ANY));
	CHECK_INTEQ(p->settings.gids_publish.type, GID_TYPE_ROCE_V2);
	CHECK_INTEQ(p->settings.gids_publish.family, GID_FAMILY_IPV4);
	CHECK_INTEQ(p->settings.gids_publish.subnet_family, AF_INET);
	CHECK_INTEQ(p->settings.gids_publish.subnet_prefixlen, 15);
	CHECK_INTEQ(p->settings.gids_publish.subnet[1], 12);
	CHECK_INTEQ(p->settings.qos_trust, QOS_TRUST_DSCP);
	CHECK_INTEQ(p->settings.qos_pfc, 0x28);
	CHECK_INTEQ(p->settings.qos_dscp_map[26], 3);
	CHECK_INTEQ(p->settings.qos_dscp_map[48], 6);
	CHECK_INTEQ(p->settings.qos_dscp_map[0], -1);
	CHECK_INTEQ(p->settings.ets_prio_tc[6], 6);
	CHECK_INTEQ(p->settings.ets_tc_bw[3], 60);
	CHECK_INTEQ(p->settings.ets_tsa[1], ETS_TSA_STRICT);
	CHECK_INTEQ(p->settings.qos_owner, QOS_OWNER_RDMAD);
	CHECK_INTEQ(p->settings.qos_maxrate[0], 0);
	CHECK_INTEQ(p->settings.qos_maxrate[3], 25000000);
	CHECK_INTEQ(p->settings.qos_maxrate[6], 2500000);
	CHECK_INTEQ(p->settings.qos_maxrate[7], 100000);
	CHECK_INTEQ(p->settings.ecn_roce_np, 0x08);
	CHECK_INTEQ(p->settings.ecn_roce_rp, 0);
	CHECK_INTEQ(p->settings.ecn_cnp_dscp, 48);
	CHECK_INTEQ(p->settings.ecn_cnp_prio, 6);
	CHECK_INTEQ(p->settings.qos_pfc_delay, 32768);
	CHECK_INTEQ(p->settings.qos_buffer_prio[3], 1);
	CHECK_INTEQ(p->settings.qos_buffer_prio[0], 0);
	CHECK_INTEQ(p->settings.qos_buffer_size[1], 131072);
	CHECK_INTEQ(p->settings.qos_dcbx, 0x09); /* DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE */
	CHECK(!p->settings.pause_autoneg && !p->settings.pause_rx && !p->settings.pause_tx);
	CHECK_STREQ(p->settings.counters_optional[0], "cc_rx_ce_pkts");
	CHECK_STREQ(p->settings.counters_optional[1], "np_cnp_sent");
	CHECK(!p->settings.counters_optional[2]);
	CHECK_INTEQ(p->n_soft_devices, 1);
	CHECK_STREQ(p->soft_devices[0].name, "rxe0");
	CHECK_INTEQ(p->soft_devices[0].type, SOFT_DEVICE_RXE);
	CHECK_STREQ(p->soft_devices[0].netdev, "veth0");
	CHECK_INTEQ(p->netns_mode, NETNS_MODE_EXCLUSIVE);
	for (size_t i = 0; i < n; i++)
		profile_free(l[i]);
	free(l);
}

/* Unset keys stay unset: "leave alone", not "default". */
TEST(unset_means_leave_alone) {
	Profile **l = NULL;
	size_t n = 0;
	char *e = load("roce:\n  tos: 0\n", &l, &n);

	CHECK_STREQ(e, "");
	free(e);
	CHECK_INTEQ(n, 1);
	CHECK_INTEQ(l[0]->settings.set, KEY_BIT(KEY_ROCE_TOS));
	profile_free(l[0]);
	free(l);
}

/* Valid QoS forms at the edges: bandwidth only counts for ets classes; all strict takes any
 * bandwidth; the largest and smallest rates. */
TEST(qos_valid) {
	static const char *const ok[] = {
		("qos:\n  ets:\n    tsa: [ets, strict, strict, ets, strict, strict, strict, "
		 "strict]\n"
		 "    tc-bw: [50, 0, 0, 50, 0, 0, 20, 0]\n"),
		("qos:\n  ets:\n    tsa: [strict, strict, strict, strict, strict, strict, strict, "
		 "strict]\n    tc-bw: [0, 0, 0, 0, 0, 0, 0, 0]\n"),
		"qos:\n  ets:\n    tc-bw: [13, 13, 13, 13, 12, 12, 12, 12]\n",
		"qos:\n  maxrate: [1kbit, 1Tbit, 0.001Mbit, 400GBIT, 0, 0, 0, 0]\n",
		"qos:\n  owner: auto\n  pfc: []\n  dscp-map: {}\n",
		"qos:\n  dscp-map: {0: 0, 63: 7}\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
		Profile **l = NULL;
		size_t n = 0;
		char *e = load(ok[i], &l, &n);

		CHECK_STREQ(e, "");
		free(e);
		if (i == 3 && n == 1) {
			CHECK_INTEQ(l[0]->settings.qos_maxrate[0], 1);
			CHECK_INTEQ(l[0]->settings.qos_maxrate[1], 1000000000);
			CHECK_INTEQ(l[0]->settings.qos_maxrate[2], 1);
			CHECK_INTEQ(l[0]->settings.qos_maxrate[3], 400000000);
		}
		for (size_t k = 0; k < n; k++)
			profile_free(l[k]);
		free(l);
	}
}

/* Several documents, several profiles; empty documents and comment-only files give none. */
TEST(documents) {
	Profile **l = NULL;
	size_t n = 0;
	char *e = load("roce: {tos: 1}\n---\n---\nroce: {tos: 2}\n", &l, &n);

	CHECK_STREQ(e, "");
	free(e);
	CHECK_INTEQ(n, 2);
	CHECK_INTEQ(l[1]->settings.roce_tos, 2);
	CHECK_INTEQ(l[1]->document, 2); /* the implicit first, an empty one, then this */
	for (size_t i = 0; i < n; i++)
		profile_free(l[i]);
	free(l);

	e = load("# nothing here\n", &l, &n);
	CHECK_STREQ(e, "");
	CHECK_INTEQ(n, 0);
	free(e);
	free(l);
}

/* schema_keys(): every Key has exactly one row, under the name its string table gives it (the
 * plan's "setting" column); sections have no key, no parser, and a child row. */
TEST(schema_keys) {
	unsigned seen[_KEY_MAX] = { 0 };
	const SchemaKey *t;
	size_t n = 0;

	t = schema_keys(&n);
	CHECK(t && n > _KEY_MAX);
	for (size_t i = 0; i < n; i++) {
		CHECK(schema_find(t[i].path) == &t[i]);
		if (t[i].key == _KEY_INVALID) {
			bool child = false;

			CHECK(!t[i].parse);
			for (size_t k = 0; k < n; k++)
				child |= strncmp(t[k].path, t[i].path, strlen(t[i].path)) == 0 &&
					 t[k].path[strlen(t[i].path)] == '.';
			CHECK(child);
			continue;
		}
		CHECK(t[i].key >= 0 && t[i].key < _KEY_MAX);
		CHECK(t[i].parse);
		CHECK_STREQ(t[i].path, key_to_string(t[i].key));
		seen[t[i].key]++;
	}
	for (Key k = 0; k < _KEY_MAX; k++)
		CHECK_INTEQ(seen[k], 1);
}

/* What `rdmactl check` accepts in links:, the NEWLINK builder takes, and what it refuses, the
 * loader refuses: a profile never passes check to fail only at apply. */
TEST(links_check_equals_apply) {
	static const char *const names[] = {
		"rxe0",
		"mlx5_0",
		"rxe.vlan-10",
		"..",
		".",
		"",
		"rxe%d",
		"rxe\t0",
		"a:b",
		"a/b",
		"a b",
		"eth0",
		"x123456789012345",
		"x12345678901234",
		"\xc3\xa9",
	};

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		for (int as_netdev = 0; as_netdev <= 1; as_netdev++) {
			struct nl_msg *m = NULL;
			char yaml[256];
			char *e;
			int r;

			snprintf(yaml, sizeof(yaml),
				 "links:\n  - {name: \"%s\", type: rxe, netdev: \"%s\"}\n",
				 as_netdev ? "rxe0" : names[i], as_netdev ? names[i] : "eth0");
			/* the YAML escape of a tab */
			if (strchr(names[i], '\t'))
				snprintf(yaml, sizeof(yaml),
					 "links:\n  - {name: \"%s\", type: rxe, netdev: \"%s\"}\n",
					 as_netdev ? "rxe0" : "rxe\\t0",
					 as_netdev ? "rxe\\t0" : "eth0");
			e = load(yaml, NULL, NULL);
			r = rdmanl_newlink_new(as_netdev ? "rxe0" : names[i], "rxe",
					       as_netdev ? names[i] : "eth0", &m);
			CHECK(e != NULL);
			if (!e) {
				nlmsg_free(m);
				return;
			}
			if ((r >= 0) != streq(e, ""))
				printf("# %s '%s': check says '%s', NEWLINK %d\n",
				       as_netdev ? "netdev" : "name", names[i], e, r);
			CHECK((r >= 0) == streq(e, ""));
			nlmsg_free(m);
			free(e);
		}
}

TESTS_MAIN(TEST_ENTRY(invalid), TEST_ENTRY(every_error_reported),
	   TEST_ENTRY(cross_checks_after_value_errors), TEST_ENTRY(full_profile),
	   TEST_ENTRY(pause_with_pfc_warns), TEST_ENTRY(unset_means_leave_alone),
	   TEST_ENTRY(qos_valid), TEST_ENTRY(documents), TEST_ENTRY(schema_keys),
	   TEST_ENTRY(links_check_equals_apply))
