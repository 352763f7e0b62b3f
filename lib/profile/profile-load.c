/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loader: each document the composer (profile-compose.c) gives walked through the key table
 * (profile-schema.c) into a Profile, files and drop-in sets into a Config. */
#include <assert.h>
#include <fcntl.h>
#include <stdarg.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <yaml.h>

#include "profile-compose.h"
#include "profile-schema.h"
#include "strmap.h"
#include "strv.h"

static const char *scalar(const yaml_node_t *node) {
	return (const char *) node->data.scalar.value;
}

static int walk_mapping(SchemaContext *ctx, yaml_node_t *node, const char *prefix) {
	int r, ret = 0;

	if (node->type != YAML_MAPPING_NODE)
		return schema_error(ctx, node, "'%s' expects a mapping of keys, got %s",
				    prefix ? prefix : "profile", yaml_node_kind(node));

	/* Duplicate keys were dropped (and reported) by the composer. */
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(ctx->document, p->key);
		yaml_node_t *v = yaml_document_get_node(ctx->document, p->value);
		_cleanup_free_ char *path = NULL;
		const SchemaKey *row;

		if (k->type != YAML_SCALAR_NODE) {
			ret = schema_error(ctx, k, "keys must be strings, got %s",
					   yaml_node_kind(k));
			continue;
		}
		/* No key has a dot: "roce.tos: 42" is not a shorthand for roce: {tos: 42} (it
		 * would be a second, silent, way to set the same key in one document). */
		if (strchr(scalar(k), '.')) {
			ret = schema_error(ctx, k,
					   "unknown key '%s': keys do not nest with dots, write "
					   "'%s' as nested mappings",
					   scalar(k), scalar(k));
			continue;
		}

		if (prefix) {
			if (asprintf(&path, "%s.%s", prefix, scalar(k)) < 0)
				return -ENOMEM;
		} else {
			path = strdup(scalar(k));
			if (!path)
				return -ENOMEM;
		}
		row = schema_find(path);
		if (!row) {
			/* No suggestion for an error that will only be counted. */
			const char *hint = diagnostics_full(ctx->diags, ctx->file)
						   ? NULL
						   : schema_suggest(prefix, scalar(k));

			if (hint)
				ret = schema_error(ctx, k,
						   "unknown key '%s'%s%s%s, did you mean '%s'?",
						   scalar(k), prefix ? " in '" : "",
						   prefix ? prefix : "", prefix ? "'" : "", hint);
			else
				ret = schema_error(ctx, k, "unknown key '%s'%s%s%s", scalar(k),
						   prefix ? " in '" : "", prefix ? prefix : "",
						   prefix ? "'" : "");
			continue;
		}
		if (!row->parse) {
			r = walk_mapping(ctx, v, row->path);
			if (r == -ENOMEM)
				return r;
			if (r < 0)
				ret = r;
			continue;
		}
		r = row->parse(ctx, row, v, (uint8_t *) ctx->profile + row->offset);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			ctx->refused |= KEY_BIT(row->key);
			ret = r;
			continue;
		}
		ctx->profile->settings.set |= KEY_BIT(row->key);
	}
	return ret;
}

static int profile_new(const char *file, unsigned document, Profile **ret) {
	_cleanup_(profile_freep) Profile *p = NULL;
	_cleanup_free_ char *copy = NULL;

	p = calloc(1, sizeof(Profile));
	if (!p)
		return -ENOMEM;
	copy = strdup(file);
	p->file = strdup(file);
	if (!copy || !p->file)
		return -ENOMEM;
	p->name = strdup(basename(copy));
	if (!p->name)
		return -ENOMEM;
	p->document = document;
	memset(p->settings.qos_dscp_map, -1, sizeof(p->settings.qos_dscp_map));
	*ret = TAKE_PTR(p);
	return 0;
}

static void profiles_free(Profile **l, size_t n) {
	for (size_t i = 0; i < n; i++)
		profile_free(l[i]);
	free(l);
}

/* One document: its profile in *ret, NULL for an empty document. */
static int composer_profile(Composer *c, unsigned i, Profile **ret) {
	_cleanup_(profile_freep) Profile *p = NULL;
	yaml_node_t *root;
	SchemaContext ctx;
	int walked, r;

	root = yaml_document_get_root_node(&c->doc);
	if (!root || (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0 &&
		      root->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)) {
		*ret = NULL; /* "---" alone: an empty document */
		return c->invalid ? -EINVAL : 0;
	}
	r = profile_new(c->file, i, &p);
	if (r < 0)
		return r;
	ctx = (SchemaContext){
		.document = &c->doc,
		.file = c->file,
		.diags = c->diags,
		.profile = p,
	};
	/* The checks across keys run after a refused value too: a file's problems are all
	 * reported in one run, as a compiler would (the checks leave the refused keys out). */
	walked = walk_mapping(&ctx, root, NULL);
	if (walked == -ENOMEM)
		return walked;
	r = schema_check_profile(&ctx);
	if (r == -ENOMEM)
		return r;
	if (walked < 0)
		return walked;
	if (r < 0)
		return r;
	if (c->invalid)
		return -EINVAL;
	*ret = TAKE_PTR(p);
	return 0;
}

int profile_load_string(const char *name, const char *text, size_t len, Diagnostics *diags,
			Profile ***ret, size_t *ret_n) {
	Composer c = {
		.file = name,
		.text = text,
		.len = len,
		.diags = diags,
	};
	Profile **list = NULL;
	size_t n = 0, n_alloc = 0, first_diag = diags->n;
	int r, ret_r = 0;

	/* libyaml's document API takes scalar lengths as int. */
	if (len > INT_MAX) {
		(void) diagnostics_add(diags, name, 0, 0, "too large (%zu bytes)", len);
		return -EFBIG;
	}
	if (!yaml_parser_initialize(&c.parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&c.parser, (const unsigned char *) text, len);

	for (unsigned i = 0;; i++) {
		Profile *p = NULL;

		r = composer_next(&c);
		if (r < 0) {
			ret_r = r;
			break;
		}
		if (r == 0)
			break;
		r = composer_profile(&c, i, &p);
		if (r == -ENOMEM) {
			ret_r = r;
			break;
		}
		if (r < 0) {
			ret_r = r;
			continue; /* report the problems of every document */
		}
		if (!p)
			continue;
		r = GREEDY_REALLOC(list, n_alloc, n + 1);
		if (r < 0) {
			profile_free(p);
			ret_r = r;
			break;
		}
		list[n++] = p;
	}
	composer_reset(&c);
	yaml_parser_delete(&c.parser);
	diagnostics_sort(diags, first_diag);

	if (ret_r < 0) {
		profiles_free(list, n);
		return ret_r;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

int profile_load_file(const char *path, Diagnostics *diags, Profile ***ret, size_t *ret_n) {
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t n = 0;
	int r;

	/* O_NONBLOCK: a FIFO (or a device) named *.yaml must not hang the loader, in the daemon
	 * its event loop. Symlinks are followed (a drop-in may be one); what they lead to is
	 * checked on the open file. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		/* A socket cannot be opened (ENXIO): say what it is rather than the errno. */
		if (stat(path, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
			(void) diagnostics_add(diags, path, 0, 0, "cannot open: %s%s", strerror(-r),
					       r == -ELOOP ? " (a symlink loop?)" : "");
			return r;
		}
	} else if (fstat(fd, &st) < 0) {
		r = -errno;
		(void) diagnostics_add(diags, path, 0, 0, "cannot stat: %s", strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		(void) diagnostics_add(diags, path, 0, 0, "not a regular file (%s)",
				       S_ISDIR(st.st_mode)    ? "a directory"
				       : S_ISFIFO(st.st_mode) ? "a FIFO"
				       : S_ISSOCK(st.st_mode) ? "a socket"
				       : S_ISCHR(st.st_mode)  ? "a character device"
				       : S_ISBLK(st.st_mode)  ? "a block device"
							      : "not a file");
		return -EINVAL;
	}
	if (st.st_size > PROFILE_SIZE_MAX) {
		(void) diagnostics_add(diags, path, 0, 0, "file too large (%lld bytes, at most %u)",
				       (long long) st.st_size, PROFILE_SIZE_MAX);
		return -EFBIG;
	}
	buf = malloc(st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	/* Read no more than fstat said: a file growing while read is cut there (and likely
	 * reported as a syntax error), never read without bound. */
	while (n < (size_t) st.st_size) {
		ssize_t k = read(fd, buf + n, st.st_size - n);

		if (k < 0) {
			r = -errno;
			(void) diagnostics_add(diags, path, 0, 0, "read failed: %s", strerror(-r));
			return r;
		}
		if (k == 0)
			break;
		n += k;
	}
	return profile_load_string(path, buf, n, diags, ret, ret_n);
}

static int config_add_file(Config *c, const char *path, Diagnostics *diags) {
	Profile **l = NULL, **m;
	size_t n = 0;
	int r;

	r = profile_load_file(path, diags, &l, &n);
	if (r < 0)
		return r;
	m = realloc(c->profiles, sizeof(Profile *) * (c->n_profiles + n + 1));
	if (!m) {
		profiles_free(l, n);
		return -ENOMEM;
	}
	c->profiles = m;
	if (n > 0)
		memcpy(c->profiles + c->n_profiles, l, sizeof(Profile *) * n);
	c->n_profiles += n;
	free(l);
	return strv_extend(&c->files, path);
}

static int config_load_files_full(char *const *files, bool skip_invalid, Diagnostics *diags,
				  Config **ret, size_t *ret_n_skipped) {
	_cleanup_(config_freep) Config *c = NULL;
	size_t n_invalid = 0;
	int r;

	c = calloc(1, sizeof(Config));
	if (!c)
		return -ENOMEM;
	c->files = calloc(1, sizeof(char *));
	if (!c->files)
		return -ENOMEM;
	STRV_FOREACH (f, files) {
		r = config_add_file(c, *f, diags);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			n_invalid++; /* go on: report every file's problems at once */
	}
	if (n_invalid > 0 && !skip_invalid)
		return -EINVAL;
	*ret = TAKE_PTR(c);
	if (ret_n_skipped)
		*ret_n_skipped = n_invalid;
	return 0;
}

int config_load_files(char *const *files, Diagnostics *diags, Config **ret) {
	return config_load_files_full(files, false, diags, ret, NULL);
}

int config_load_files_skip_invalid(char *const *files, Diagnostics *diags, Config **ret,
				   size_t *ret_n_skipped) {
	return config_load_files_full(files, true, diags, ret, ret_n_skipped);
}

int config_load(const char *root, const char *const *dirs, Diagnostics *diags, Config **ret) {
	_cleanup_strv_free_ char **files = NULL;
	int r;

	r = profile_dropins_find(root, dirs, diags, &files);
	if (r < 0)
		return r;
	return config_load_files(files, diags, ret);
}
