/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The value parsers of the profile language, shared by the files that hold them and the key
 * table (profile-schema.c): profile-parse.c (scalars, integers, lists, choices), profile-values.c
 * (globs, ports, modules, counters, addresses, the firewall and rail keys, GIDs, links) and
 * profile-values-qos.c (priorities, the DSCP map, ETS, maxrate). Each parser checks a value and
 * stores it in the Profile, or adds a diagnostic at the node and returns -EINVAL. Not part of
 * librdmad's interface. */

#include "profile-schema.h"
#include "strmap.h"

/* The strings of a list as it is parsed: sized once from the node, duplicates found by hash
 * (a list may hold 500,000 items: no scan of the ones before, no realloc per item). */
typedef struct ItemList {
	char **strv;
	size_t n;
	StrMap seen;
} ItemList;

/* profile-parse.c */
int expect_integer(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, long long min,
		   long long max, long long *ret);
int expect_string(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, const char **ret);
/* A scalar or a list of scalars: calls f for each. */
int for_each_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		  int (*f)(SchemaContext *, const SchemaKey *, yaml_node_t *, void *),
		  void *userdata);
int item_list_add(ItemList *l, const char *s, bool unique);
void item_list_done(ItemList *l);
int item_list_init(ItemList *l, const yaml_node_t *node);
char **item_list_steal(ItemList *l);
/* A scalar or a list of scalars into the strv at dest (replaced only on success): item checks
 * each one and adds it to the ItemList it is given. */
int parse_item_list(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		    int (*item)(SchemaContext *, const SchemaKey *, yaml_node_t *, void *),
		    void *dest);
size_t node_n_items(const yaml_node_t *node);
int parse_bool(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_unsigned(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
/* The values of a mapping's keys, each one of fields (values[i] for fields[i], NULL when
 * absent): an unknown key names what is expected, a duplicate is refused. node is a mapping.
 * Every key is looked at: on -EINVAL, values holds the known keys' values all the same. */
int mapping_fields(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		   const char *const *fields, size_t n, const char *expected, yaml_node_t **values);
const char *scalar(const yaml_node_t *node);
/* parse_roce_mode(), parse_qos_trust(), ...: one of the words of a string table */
#define DECLARE_CHOICE_PARSER(name) \
	int parse_##name(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest)
DECLARE_CHOICE_PARSER(roce_mode);
DECLARE_CHOICE_PARSER(qos_trust);
DECLARE_CHOICE_PARSER(qos_owner);
DECLARE_CHOICE_PARSER(netns_mode);
DECLARE_CHOICE_PARSER(ets_tsa);
DECLARE_CHOICE_PARSER(gid_requirement);
DECLARE_CHOICE_PARSER(soft_device_type);
DECLARE_CHOICE_PARSER(eswitch_mode);
DECLARE_CHOICE_PARSER(pci_acs);
DECLARE_CHOICE_PARSER(vf_link_state);
DECLARE_CHOICE_PARSER(vlan_protocol);
DECLARE_CHOICE_PARSER(probe_mesh);
DECLARE_CHOICE_PARSER(devlink_reload);

/* profile-values-devlink.c */
/* devlink.params: a list of {name, value, cmode}, checked against the known parameters
 * (devlink-param.h) and, where match.driver names drivers the table knows, against theirs
 * (schema_check_devlink()). */
int parse_devlink_params(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int schema_check_devlink(SchemaContext *ctx);

/* profile-values-sriov.c */
/* sriov.vf: also on -EINVAL, the entries whose index was read are stored, for
 * schema_check_sriov() (the profile is refused anyway). */
int parse_sriov_vf(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_max_read_request(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int schema_check_sriov(SchemaContext *ctx);

/* profile-values.c */
int parse_addresses(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_counters(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_gid_publish(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_gid_requirements(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_globs(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_links(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest _unused_);
int parse_modules(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_node_description(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_ports(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_rail_routing(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_roce_allow_from(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);

/* profile-values-probe.c */
/* The most peers one port probes: each is a path, probed every interval. */
#define PROBE_PEERS_MAX 256
/* "500ms", "1s": a duration in milliseconds (an unsigned), between the row's min and max. */
int parse_duration_ms(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_probe_peers(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);

/* profile-values-qos.c */
int parse_dcbx(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_u32_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_dscp_map(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_maxrate(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_priorities(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_tsa_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
int parse_u8_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest);
