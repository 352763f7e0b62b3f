/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The key table of the profile language. profile-load.c walks a YAML document and, for each key,
 * finds its row here; the row's parser checks the value and stores it in the Profile. */

#include <yaml.h>

#include "profile.h"

typedef struct SchemaContext {
	yaml_document_t *document;
	const char *file;
	Diagnostics *diags;
	Profile *profile;
	const yaml_node_t *ets_tc_bw; /* where qos.ets.tc-bw was set, for schema_check_profile() */
	const yaml_node_t *qos_dcbx;  /* where qos.dcbx was set, the same */
	const yaml_node_t *sriov_vf;  /* where sriov.vf was read, if only in part */
	const yaml_node_t *devlink_params; /* where devlink.params was read */
	/* KEY_BIT()s of the keys whose value was refused: a check across keys leaves them out
	 * rather than report their error again as another one. */
	KeySet refused;
} SchemaContext;

typedef struct SchemaKey SchemaKey;
typedef int (*schema_parse_t)(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			      void *dest);

struct SchemaKey {
	const char *path;     /* dotted path; a section (a mapping of further keys) has no parser */
	Key key;	      /* _KEY_INVALID for sections */
	schema_parse_t parse; /* NULL for sections */
	size_t offset;	      /* of the destination within Profile */
	long long min, max;   /* range of integers, where the parser takes one */
};

/* Checks across keys of one profile, once all its keys are parsed (qos.ets.tc-bw against
 * qos.ets.tsa), also when some were refused: each check the keys it needs were read for runs,
 * so that one load reports every problem of a file. Adds diagnostics and returns -EINVAL on a
 * problem. */
int schema_check_profile(SchemaContext *ctx);

const SchemaKey *schema_find(const char *path);
/* Every row of the key table, sections included, in table order (read-only): for tools and
 * tests that must cover each key, such as the check that rdmad.yaml(5) documents them all. */
const SchemaKey *schema_keys(size_t *ret_n);
/* The closest sibling of "parent.name" (parent NULL for the top level), NULL if none is close. */
const char *schema_suggest(const char *parent, const char *name);

/* Adds a diagnostic at node's position; returns -EINVAL for convenience. */
int schema_error(SchemaContext *ctx, const yaml_node_t *node, const char *format, ...)
	_printf_(3, 4);
const char *yaml_node_kind(const yaml_node_t *node);
