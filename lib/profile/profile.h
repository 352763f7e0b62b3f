/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The profile language: what one YAML document declares, and the merged Config. The key table
 * is in profile-schema.c (its value parsers profile-parse.c, profile-values*.c), the bounded
 * YAML composer in profile-compose.c, the walk in profile-load.c, drop-in discovery in
 * profile-dropin.c, matching and merging in profile-merge.c. */

#include <stdbool.h>
#include <stdint.h>

#include "devlink-param.h"
#include "diag.h"
#include "rdma-types.h"

/* Every leaf key of the schema. A profile records which ones it set in Profile.set: a key it
 * does not set means "leave alone", never "default". The string table holds the dotted path,
 * which is also the "setting" column of a plan. */
typedef enum Key {
	KEY_MATCH_DEVICE,
	KEY_MATCH_DRIVER,
	KEY_MATCH_NETDEV,
	KEY_MATCH_PCI,
	KEY_MATCH_PORT,
	KEY_MODULES,
	KEY_ROCE_MODE,
	KEY_ROCE_TOS,
	KEY_NETDEV_UP,
	KEY_NETDEV_MTU,
	KEY_NETDEV_ADDRESSES,
	KEY_NETDEV_RAIL_ROUTING,
	KEY_NETDEV_PAUSE_AUTONEG,
	KEY_NETDEV_PAUSE_RX,
	KEY_NETDEV_PAUSE_TX,
	KEY_NETDEV_EXPECT_SPEED,
	KEY_GIDS_REQUIRE,
	KEY_GIDS_PUBLISH,
	KEY_QOS_OWNER,
	KEY_QOS_TRUST,
	KEY_QOS_PFC,
	KEY_QOS_DSCP_MAP,
	KEY_QOS_ETS_PRIO_TC,
	KEY_QOS_ETS_TC_BW,
	KEY_QOS_ETS_TSA,
	KEY_QOS_MAXRATE,
	KEY_QOS_PFC_DELAY,
	KEY_QOS_BUFFER_PRIO,
	KEY_QOS_BUFFER_SIZE,
	KEY_QOS_DCBX,
	KEY_ECN_ROCE_NP,
	KEY_ECN_ROCE_RP,
	KEY_ECN_CNP_DSCP,
	KEY_ECN_CNP_PRIO,
	KEY_COUNTERS_OPTIONAL,
	KEY_SECURITY_ROCE_ALLOW_FROM,
	KEY_RDMA_NODE_DESCRIPTION,
	KEY_SRIOV_VFS,
	KEY_SRIOV_AUTOPROBE,
	KEY_SRIOV_ESWITCH,
	KEY_SRIOV_VF,
	KEY_PCI_MAX_READ_REQUEST,
	KEY_PCI_UPSTREAM_ACS,
	KEY_DEVLINK_PARAMS,
	KEY_DEVLINK_RELOAD,
	KEY_PROBE_INTERVAL,
	KEY_PROBE_TIMEOUT,
	KEY_PROBE_MESH,
	KEY_PROBE_PEERS,
	KEY_PROBE_PORT,
	KEY_LINKS,
	KEY_SYSTEM_NETNS_MODE,
	_KEY_MAX,
	_KEY_INVALID = -EINVAL,
} Key;
DECLARE_STRING_TABLE_LOOKUP(key, Key)

/* A set of keys, a bit per Key: 128 of them, where a uint64_t had room for no more than the
 * 63 there were (the probe keys come next). gcc and clang have the type; __extension__ keeps
 * -Wpedantic quiet about it. */
__extension__ typedef unsigned __int128 KeySet;
_Static_assert(_KEY_MAX <= 128, "a KeySet has a bit per key");
#define KEY_BIT(k) ((KeySet) 1 << (k))
#define KEYS_MATCH                                                                           \
	(KEY_BIT(KEY_MATCH_DEVICE) | KEY_BIT(KEY_MATCH_DRIVER) | KEY_BIT(KEY_MATCH_NETDEV) | \
	 KEY_BIT(KEY_MATCH_PCI) | KEY_BIT(KEY_MATCH_PORT))
#define KEYS_HOST (KEY_BIT(KEY_MODULES) | KEY_BIT(KEY_LINKS) | KEY_BIT(KEY_SYSTEM_NETNS_MODE))
#define KEYS_QOS                                                                                 \
	(KEY_BIT(KEY_QOS_OWNER) | KEY_BIT(KEY_QOS_TRUST) | KEY_BIT(KEY_QOS_PFC) |                \
	 KEY_BIT(KEY_QOS_DSCP_MAP) | KEY_BIT(KEY_QOS_ETS_PRIO_TC) | KEY_BIT(KEY_QOS_ETS_TC_BW) | \
	 KEY_BIT(KEY_QOS_ETS_TSA) | KEY_BIT(KEY_QOS_MAXRATE) | KEY_BIT(KEY_QOS_PFC_DELAY) |      \
	 KEY_BIT(KEY_QOS_BUFFER_PRIO) | KEY_BIT(KEY_QOS_BUFFER_SIZE) | KEY_BIT(KEY_QOS_DCBX))
#define KEYS_PAUSE                                                          \
	(KEY_BIT(KEY_NETDEV_PAUSE_AUTONEG) | KEY_BIT(KEY_NETDEV_PAUSE_RX) | \
	 KEY_BIT(KEY_NETDEV_PAUSE_TX))
#define KEYS_PORT ((((KeySet) 1 << _KEY_MAX) - 1) & ~KEYS_MATCH & ~KEYS_HOST)
/* The keys that act on the function behind a matched netdev (its PCI function, or netdevsim's
 * bus device), whether or not it has an RDMA device (plan-function.c). */
#define KEYS_SRIOV                                                                            \
	(KEY_BIT(KEY_SRIOV_VFS) | KEY_BIT(KEY_SRIOV_AUTOPROBE) | KEY_BIT(KEY_SRIOV_ESWITCH) | \
	 KEY_BIT(KEY_SRIOV_VF))
#define KEYS_PCI      (KEY_BIT(KEY_PCI_MAX_READ_REQUEST) | KEY_BIT(KEY_PCI_UPSTREAM_ACS))
#define KEYS_DEVLINK  (KEY_BIT(KEY_DEVLINK_PARAMS) | KEY_BIT(KEY_DEVLINK_RELOAD))
#define KEYS_FUNCTION (KEYS_SRIOV | KEYS_PCI | KEYS_DEVLINK)
/* What rdmad-probe does on the port (issue 29): rdmad publishes them, the prober acts. */
#define KEYS_PROBE                                                                            \
	(KEY_BIT(KEY_PROBE_INTERVAL) | KEY_BIT(KEY_PROBE_TIMEOUT) | KEY_BIT(KEY_PROBE_MESH) | \
	 KEY_BIT(KEY_PROBE_PEERS) | KEY_BIT(KEY_PROBE_PORT))

#define N_PRIO	  8
#define N_TC	  8
#define N_DSCP	  64
#define N_BUFFERS 8 /* DCBX_MAX_BUFFERS: the port buffers dcbnl knows */
/* A hw counter name with its NUL (as rdmanl.h's RDMANL_COUNTER_NAME_MAX) */
#define HW_COUNTER_NAME_MAX 64

typedef struct Address {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint8_t prefixlen;
} Address;

/* "192.0.2.10/24"; the address without a prefix gets the full length. */
int address_from_string(const char *s, Address *ret);
char *address_to_string(const Address *a);
bool address_equal(const Address *a, const Address *b) _pure_;
/* Whether a has no bits set past its prefix length (192.0.2.0/24, not 192.0.2.1/24). */
bool address_is_prefix(const Address *a) _pure_;

typedef struct SoftDevice {
	char *name;
	SoftDeviceType type;
	char *netdev;
	unsigned line, column; /* where it was declared, for later errors */
} SoftDevice;

/* One SR-IOV virtual function's settings, as sriov.vf declares them (set: the fields declared)
 * or as the PF's RTM_GETLINK with RTEXT_FILTER_VF reports them (set: the fields the kernel
 * sent). The numbers are the kernel's (linux/if_link.h). */
typedef enum VfField {
	VF_MAC,
	VF_VLAN, /* vlan, qos and vlan_proto travel together (IFLA_VF_VLAN_LIST) */
	VF_QOS,
	VF_VLAN_PROTO,
	VF_TRUST,
	VF_SPOOF_CHECK,
	VF_LINK_STATE,
	VF_MAX_RATE, /* max and min travel together (IFLA_VF_RATE) */
	VF_MIN_RATE,
	VF_NODE_GUID,
	VF_PORT_GUID,
	_VF_FIELD_MAX,
} VfField;
#define VF_BIT(f) (UINT32_C(1) << (f))

typedef struct SriovVf {
	uint32_t index;
	uint32_t set; /* VF_BIT()s */
	uint8_t mac[6];
	uint16_t vlan; /* 0: no VLAN */
	uint8_t qos;
	uint16_t vlan_proto; /* ETH_P_8021Q (0x8100) or ETH_P_8021AD (0x88a8), host order */
	bool trust, spoof_check;
	VfLinkState link_state;
	uint32_t max_rate, min_rate;   /* Mbit/s, 0: no limit */
	uint64_t node_guid, port_guid; /* host order; InfiniBand VFs */
	unsigned line, column;	       /* where it was declared (profiles only) */
} SriovVf;

/* IB_DEVICE_NODE_DESC_MAX: what the kernel keeps of a node description */
#define NODE_DESC_MAX 64

/* The desired state of one link, as one profile or the merge of several declares it. */
typedef struct PortSettings {
	KeySet set; /* KEY_BIT()s of the keys below that are declared */
	RoceMode roce_mode;
	unsigned roce_tos;
	bool netdev_up;
	unsigned netdev_mtu;
	/* Mb/s the netdev should run at (/sys/class/net/X/speed): a check (preflight's
	 * network.link-speed), never written */
	unsigned netdev_expect_speed;
	Address *addresses;
	size_t n_addresses;
	bool rail_routing;	/* per-rail source routing (rail.h); false: none wanted */
	uint32_t rail_table;	/* its table; 0: RAIL_TABLE_BASE + the netdev's ifindex */
	uint32_t gids_require;	/* bit per GidRequirement */
	GidChoice gids_publish; /* the GID jobs are told to use (env file, PreferredGidIndex) */
	QosOwner qos_owner;	/* who may write DCB when an LLDP agent manages the port */
	QosTrust qos_trust;
	uint8_t qos_pfc;	     /* bit per priority */
	int8_t qos_dscp_map[N_DSCP]; /* priority per DSCP value, -1 for "not mapped" */
	uint8_t ets_prio_tc[N_PRIO];
	uint8_t ets_tc_bw[N_TC];
	EtsTsa ets_tsa[N_TC];
	uint64_t
		qos_maxrate[N_TC]; /* kbit/s per traffic class (ieee_maxrate's unit), 0: no limit */
	unsigned qos_pfc_delay;	   /* the PFC delay field (bits of headroom; ieee_pfc.delay) */
	uint8_t qos_buffer_prio[N_PRIO];	/* the receive buffer of each priority */
	uint32_t qos_buffer_size[N_BUFFERS];	/* bytes per receive buffer */
	uint8_t qos_dcbx;			/* DCB_CAP_DCBX_* bits: one mode, one version */
	bool pause_autoneg, pause_rx, pause_tx; /* netdev.pause.*: global (802.3x) pause */
	uint8_t ecn_roce_np;			/* bit per priority */
	uint8_t ecn_roce_rp;
	unsigned ecn_cnp_dscp; /* the DSCP and 802.1p priority of the CNPs the port sends */
	unsigned ecn_cnp_prio;
	/* counters.optional: the whole set of optional hw counters to enable, as declared (none
	 * left enabled but these); NULL-terminated, empty: disable them all */
	char **counters_optional;
	/* security.roce-allow-from: the prefixes UDP 4791 (RoCE v2) is accepted from on a
	 * Soft-RoCE netdev, in order; the rest is dropped (firewall.h). Empty: all dropped. */
	Address *roce_allow_from;
	size_t n_roce_allow_from;
	/* rdma.node-description: the device's node_desc as a format, %h the host name, %d the
	 * device name, %% a '%' (rdma-ndd's RDMA_NDD_ND_FORMAT); at most NODE_DESC_MAX bytes */
	char *node_description;
	/* sriov.*: on the function behind the netdev (KEYS_FUNCTION). sriov_vf sorted by index. */
	unsigned sriov_vfs;
	bool sriov_autoprobe;
	EswitchMode sriov_eswitch;
	SriovVf *sriov_vf;
	size_t n_sriov_vf;
	/* pci.*: the function's PCIe Max_Read_Request_Size in bytes; ACS on the ports above it */
	unsigned pci_max_read_request;
	PciAcs pci_upstream_acs;
	/* devlink.*: the devlink device's parameters (sorted by name, one entry a name), and
	 * whether rdmad may reload it to bring driverinit ones into effect */
	DevlinkParam *devlink_params;
	size_t n_devlink_params;
	DevlinkReload devlink_reload;
	/* probe.*: the prober's interval and timeout in ms, whether it probes the host's other
	 * probed links, the peers' addresses (canonical text, no prefix), its rdma_cm port */
	unsigned probe_interval_ms, probe_timeout_ms;
	ProbeMesh probe_mesh;
	char **probe_peers;
	unsigned probe_port;
	const char *origin[_KEY_MAX]; /* name of the profile that set each key (merged only) */
} PortSettings;

/* The declared value of key as text ("v2", "[3,4]", "192.0.2.1/24 2001:db8::1/64"), as the
 * planner's "desired" column shows it (settings-format.c). */
int port_setting_format(const PortSettings *s, Key key, char **ret);

typedef struct Match {
	char **device; /* shell globs, any of */
	char **driver;
	char **netdev;
	char **pci;
	uint32_t *ports;
	size_t n_ports;
} Match;

typedef struct Profile {
	char *file;	   /* path it was read from */
	char *name;	   /* basename: what a plan's "profile" column shows */
	unsigned document; /* 0-based YAML document index within the file */
	Match match;
	char **modules;
	SoftDevice *soft_devices; /* the links: key */
	size_t n_soft_devices;
	NetnsMode netns_mode;
	PortSettings settings; /* .set also carries the match and host key bits */
} Profile;

void soft_devices_free(SoftDevice *l, size_t n);
Profile *profile_free(Profile *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Profile *, profile_free)
void port_settings_done(PortSettings *s);

/* What a link looks like to a match: facts the host model knows (NULL or 0 when unknown). */
typedef struct PortFacts {
	const char *device;
	const char *driver;
	const char *netdev;
	const char *pci;
	uint32_t port;
} PortFacts;

bool profile_matches(const Profile *p, const PortFacts *f);

/* All profiles of all drop-in files, in the order they apply. */
typedef struct Config {
	Profile **profiles;
	size_t n_profiles;
	char **files; /* the files read, masked ones excluded */
} Config;

Config *config_free(Config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Config *, config_free)

/* Merge every profile that matches f, in order, key by key: a later profile's key replaces an
 * earlier one's (lists whole). Fills ret (call port_settings_done() on it) and ret_profiles,
 * the names of the matching profiles. Returns the number of matching profiles. */
int config_settings_for_port(const Config *c, const PortFacts *f, PortSettings *ret,
			     char ***ret_profiles);
/* Whether any profile of c sets key (for any port): what the host must be observed for. */
bool config_declares(const Config *c, Key key) _pure_;
/* ... any of the KEY_BIT()s in keys. */
bool config_declares_any(const Config *c, KeySet keys) _pure_;

/* The checks across keys that hold for a port's settings as a whole: one profile's, or the
 * merge of several (profile A's qos.ets.tsa with profile B's qos.ets.tc-bw), which no single
 * profile shows. -EINVAL with the problem in *ret_error (naming the profiles the keys come
 * from when they differ); the caller gives it a place. */
int port_settings_validate(const PortSettings *s, char **ret_error);
/* Its two checks, each alone: qos.dcbx against qos.owner, qos.ets.tc-bw against qos.ets.tsa. */
int port_settings_validate_dcbx(const PortSettings *s, char **ret_error);
int port_settings_validate_ets(const PortSettings *s, char **ret_error);

/* Load one YAML file (any number of documents, one profile each). Problems are added to diags
 * and make it return -EINVAL; profiles are returned only when the file is clean. An empty file
 * gives zero profiles. */
int profile_load_file(const char *path, Diagnostics *diags, Profile ***ret, size_t *ret_n);
int profile_load_string(const char *name, const char *text, size_t len, Diagnostics *diags,
			Profile ***ret, size_t *ret_n);

/* The drop-in directories, highest priority first: /etc/rdmad, /run/rdmad, /usr/local/lib/rdmad,
 * /usr/lib/rdmad (from the build's options, meson.build). */
extern const char *const profile_dirs_default[];

/* Find drop-ins under root in dirs (NULL: profile_dirs_default), highest priority first:
 * *.yaml and *.yml, a file in an earlier dir masks one of the same name in a later dir, empty
 * files and symlinks to /dev/null (nothing else) mask, result sorted by file name. Returns
 * full paths (root included). A dir that does not exist is skipped; one that is not a
 * directory and names like *.YAML are warnings in diags (which may be NULL); a dir that cannot
 * be listed is an error there, with its path, and returned. */
int profile_dropins_find(const char *root, const char *const *dirs, Diagnostics *diags,
			 char ***ret);

/* Load every drop-in into a Config. On any problem, returns -EINVAL with diags filled and
 * leaves *ret untouched. */
int config_load(const char *root, const char *const *dirs, Diagnostics *diags, Config **ret);
/* The same for an explicit list of files. */
int config_load_files(char *const *files, Diagnostics *diags, Config **ret);
/* As networkd does with a bad .network file at start: every valid file is loaded, an invalid
 * one is left out whole (its problems in diags, the count in ret_n_skipped). -ENOMEM only. */
int config_load_files_skip_invalid(char *const *files, Diagnostics *diags, Config **ret,
				   size_t *ret_n_skipped);
