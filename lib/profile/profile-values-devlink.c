/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink.params: [{name: flow_steering_mode, value: smfs, cmode: runtime}, ...]. A name rdmad
 * knows (devlink-param.h) has its value checked against its type and its cmode against the
 * driver's; cmode may then be left out. A name it does not know is kept as written, with its
 * cmode required, and checked by the planner against what the device reports. */
#include <stdio.h>
#include <string.h>

#include "profile-values.h"

enum { FIELD_NAME, FIELD_VALUE, FIELD_CMODE };
static const char *const param_fields[] = { "name", "value", "cmode" };

/* What the known rows of name say of cmode: every row's when they agree, else -EINVAL (then the
 * profile must say). */
static DevlinkCmode known_cmode(const DevlinkKnownParam *const *rows, size_t n) {
	for (size_t i = 1; i < n; i++)
		if (rows[i]->cmode != rows[0]->cmode)
			return _DEVLINK_CMODE_INVALID;
	return n > 0 ? rows[0]->cmode : _DEVLINK_CMODE_INVALID;
}

static int parse_param_entry(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			     DevlinkParam *p) {
	yaml_node_t *values[ELEMENTSOF(param_fields)] = { 0 };
	const DevlinkKnownParam *rows[8];
	const char *name = NULL, *value = NULL, *cmode = NULL;
	size_t n_rows;
	int r, ret = 0;

	*p = (DevlinkParam){
		.line = node->start_mark.line + 1,
		.column = node->start_mark.column + 1,
		.cmode = _DEVLINK_CMODE_INVALID,
	};
	if (node->type != YAML_MAPPING_NODE)
		return schema_error(ctx, node,
				    "'%s' entries are mappings like {name: max_macs, value: 64, "
				    "cmode: driverinit}, got %s",
				    row->path, yaml_node_kind(node));
	r = mapping_fields(ctx, row, node, param_fields, ELEMENTSOF(param_fields),
			   "name, value or cmode", values);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ret = r;
	if (!values[FIELD_NAME] || !values[FIELD_VALUE])
		return schema_error(ctx, node, "'%s': entry has no '%s'", row->path,
				    values[FIELD_NAME] ? "value" : "name");
	r = expect_string(ctx, row, values[FIELD_NAME], &name);
	if (r < 0)
		return r;
	if (name[0] == 0 || strlen(name) >= DEVLINK_PARAM_NAME_MAX || strchr(name, ' '))
		return schema_error(ctx, values[FIELD_NAME], "'%s': '%s' is not a parameter name",
				    row->path, name);
	snprintf(p->name, sizeof(p->name), "%s", name);
	value = values[FIELD_VALUE]->type == YAML_SCALAR_NODE ? scalar(values[FIELD_VALUE]) : NULL;
	if (!value)
		return schema_error(ctx, values[FIELD_VALUE],
				    "'%s': %s's value is a %s, not a scalar", row->path, name,
				    yaml_node_kind(values[FIELD_VALUE]));
	if (values[FIELD_CMODE]) {
		r = expect_string(ctx, row, values[FIELD_CMODE], &cmode);
		if (r < 0)
			return r;
		p->cmode = devlink_cmode_from_string(cmode);
		if (p->cmode < 0)
			return schema_error(ctx, values[FIELD_CMODE],
					    "'%s': cmode '%s' is not runtime, driverinit or "
					    "permanent",
					    row->path, cmode);
	}

	n_rows = devlink_known_find(name, rows, ELEMENTSOF(rows));
	if (n_rows == 0) {
		if (!values[FIELD_CMODE])
			return schema_error(ctx, node,
					    "'%s': %s is not a parameter rdmad knows: give its "
					    "cmode (runtime, driverinit or permanent)",
					    row->path, name);
		snprintf(p->value, sizeof(p->value), "%s", value);
		return ret;
	}
	/* the known rows of a name agree on its type (the table is written so) */
	r = devlink_value_canonical(rows[0]->type, rows[0]->choices, value, p->value);
	if (r < 0) {
		char expect[96];

		if (rows[0]->choices)
			snprintf(expect, sizeof(expect), "one of %s", rows[0]->choices);
		else if (rows[0]->type == DEVLINK_PARAM_TYPE_BOOL)
			snprintf(expect, sizeof(expect), "true or false");
		else
			snprintf(expect, sizeof(expect), "a %s",
				 devlink_param_type_to_string(rows[0]->type));
		return schema_error(ctx, values[FIELD_VALUE], "'%s': %s expects %s, got '%s'",
				    row->path, name, expect, value);
	}
	if (p->cmode < 0) {
		p->cmode = known_cmode(rows, n_rows);
		if (p->cmode < 0)
			return schema_error(ctx, node,
					    "'%s': %s is runtime on some drivers and driverinit on "
					    "others: give its cmode",
					    row->path, name);
		return ret;
	}
	for (size_t i = 0; i < n_rows && i < ELEMENTSOF(rows); i++)
		if (rows[i]->cmode == p->cmode)
			return ret;
	return schema_error(ctx, values[FIELD_CMODE], "'%s': %s has no cmode %s (%s: %s)",
			    row->path, name, cmode, rows[0]->driver,
			    devlink_cmode_to_string(rows[0]->cmode));
}

static int param_compare(const void *a, const void *b) {
	return strcmp(((const DevlinkParam *) a)->name, ((const DevlinkParam *) b)->name);
}

int parse_devlink_params(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	PortSettings *s = dest;
	_cleanup_free_ DevlinkParam *params = NULL;
	bool roce = false, iwarp = false;
	size_t n = 0;
	int r, ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list, got %s", row->path,
				    yaml_node_kind(node));
	params = calloc(node_n_items(node) + 1, sizeof(DevlinkParam));
	if (!params)
		return -ENOMEM;
	for (yaml_node_item_t *i = node->data.sequence.items.start;
	     i < node->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(ctx->document, *i);
		DevlinkParam p;

		r = parse_param_entry(ctx, row, item, &p);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			ret = r;
			continue;
		}
		for (size_t k = 0; k < n && r >= 0; k++)
			if (streq(params[k].name, p.name))
				r = schema_error(ctx, item,
						 "'%s': %s is declared twice (first at line %u)",
						 row->path, p.name, params[k].line);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			ret = r;
			continue;
		}
		roce = roce || (streq(p.name, "enable_roce") && streq(p.value, "true"));
		iwarp = iwarp || (streq(p.name, "enable_iwarp") && streq(p.value, "true"));
		params[n++] = p;
	}
	/* ice refuses the second (ice_devlink_enable_roce_validate()): RDMA is one or the other */
	if (roce && iwarp) {
		r = schema_error(
			ctx, node,
			"'%s': enable_roce and enable_iwarp are both true: ice runs one of "
			"RoCE and iWARP at a time",
			row->path);
		if (r == -ENOMEM)
			return r;
		ret = r;
	}
	/* the valid entries are kept even when another was refused (the profile is refused
	 * anyway): schema_check_devlink() checks their names against match.driver */
	qsort(params, n, sizeof(DevlinkParam), param_compare);
	free(s->devlink_params);
	s->devlink_params = TAKE_PTR(params);
	s->n_devlink_params = n;
	ctx->devlink_params = node;
	return ret;
}

/* A profile whose match.driver names only drivers the table knows (no glob): a name none of
 * them has is refused at its entry, with the names they do have. */
int schema_check_devlink(SchemaContext *ctx) {
	const PortSettings *s = &ctx->profile->settings;
	char *const *drivers = ctx->profile->match.driver;
	int r, ret = 0;

	if (!ctx->devlink_params || !drivers || !drivers[0])
		return 0;
	for (char *const *d = drivers; *d; d++)
		if (strpbrk(*d, "*?[") || !devlink_known_driver(*d))
			return 0;
	for (size_t i = 0; i < s->n_devlink_params; i++) {
		const DevlinkParam *p = &s->devlink_params[i];
		yaml_node_t where = { .start_mark = { .line = p->line - 1,
						      .column = p->column - 1 } };
		char names[256];
		bool found = false;

		for (char *const *d = drivers; *d && !found; d++)
			found = devlink_known_lookup(*d, p->name);
		if (found)
			continue;
		devlink_known_names(drivers[0], names, sizeof(names));
		r = schema_error(ctx, &where,
				 "'devlink.params': %s has no parameter %s (it has %s)", drivers[0],
				 p->name, names);
		if (r == -ENOMEM)
			return r;
		ret = r;
	}
	return ret;
}
