/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bounded composer (profile-compose.h): libyaml's parser events into documents, checked and
 * bounded as they come. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

#include "profile-compose.h"

static const char *scalar(const yaml_node_t *node) {
	return (const char *) node->data.scalar.value;
}

/* Line and column (1-based, in characters as libyaml counts them) of a byte offset in text:
 * libyaml reports an encoding error (invalid UTF-8, a control character) by offset only. */
static void offset_to_position(const char *text, size_t len, size_t offset, unsigned *ret_line,
			       unsigned *ret_column) {
	unsigned line = 1, column = 1;

	if (offset > len)
		offset = len;
	for (size_t i = 0; i < offset; i++) {
		if (text[i] == '\n') {
			line++;
			column = 1;
		} else if (((unsigned char) text[i] & 0xc0) != 0x80)
			column++;
	}
	*ret_line = line;
	*ret_column = column;
}

void composer_reset(Composer *c) {
	for (size_t i = 0; i < c->depth; i++) {
		free(c->stack_anchor[i]);
		c->stack_anchor[i] = NULL;
	}
	c->depth = 0;
	if (c->have_doc)
		yaml_document_delete(&c->doc);
	c->have_doc = false;
	strmap_done(&c->anchors);
	c->alias_budget = PROFILE_ALIAS_NODES_MAX;
	c->invalid = false;
}

static int composer_error(Composer *c, const yaml_mark_t *m, const char *format, ...)
	_printf_(3, 4);
static int composer_error(Composer *c, const yaml_mark_t *m, const char *format, ...) {
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int r;

	c->invalid = true;
	if (diagnostics_full(c->diags, c->file)) /* only counted: no need to format it */
		return diagnostics_add(c->diags, c->file, 0, 0, "-") < 0 ? -ENOMEM : -EINVAL;
	va_start(ap, format);
	r = vasprintf(&s, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = diagnostics_add(c->diags, c->file, m->line + 1, m->column + 1, "%s", s);
	return r < 0 ? r : -EINVAL;
}

/* The parser failed: say where, from the mark or, for an encoding error, the offset. */
static int composer_syntax_error(Composer *c) {
	const yaml_parser_t *p = &c->parser;
	unsigned line, column;
	int r;

	if (p->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (p->error == YAML_READER_ERROR) {
		offset_to_position(c->text, c->len, p->problem_offset, &line, &column);
		if (p->problem_value >= 0)
			r = diagnostics_add(c->diags, c->file, line, column,
					    "YAML syntax error: %s (byte 0x%02x)",
					    p->problem ? p->problem : "unknown problem",
					    (unsigned) p->problem_value & 0xff);
		else
			r = diagnostics_add(c->diags, c->file, line, column,
					    "YAML syntax error: %s",
					    p->problem ? p->problem : "unknown problem");
	} else
		r = diagnostics_add(c->diags, c->file, p->problem_mark.line + 1,
				    p->problem_mark.column + 1, "YAML syntax error: %s%s%s",
				    p->problem ? p->problem : "unknown problem",
				    p->context ? " " : "", p->context ? p->context : "");
	return r < 0 ? r : -EINVAL;
}

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

static const char *tag_short(const char *tag) {
	static const size_t n = sizeof(YAML_TAG_PREFIX) - 1;

	return strncmp(tag, YAML_TAG_PREFIX, n) == 0 ? tag + n : tag;
}

static bool tag_is(const char *tag, const char *name) {
	return strncmp(tag, YAML_TAG_PREFIX, sizeof(YAML_TAG_PREFIX) - 1) == 0 &&
	       streq(tag + sizeof(YAML_TAG_PREFIX) - 1, name);
}

static bool value_is_integer(const char *s) {
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Tags: the YAML 1.1 core ones are honoured (!!str makes a string of anything, so
 * `tos: !!str 42` is a string where an integer is wanted; !!int, !!bool and !!null must hold
 * what they say; !!seq and !!map their kind of node), every other one refused: rdmad builds no
 * objects from tags (!!python/object, !!binary, local !tags). Sets *style to what the schema
 * should see. */
static int tag_check(Composer *c, const yaml_event_t *e, const char *tag, yaml_node_type_t kind,
		     const char *value, yaml_scalar_style_t *style) {
	const char *what = NULL;

	if (!tag)
		return 0;
	if (kind == YAML_SCALAR_NODE) {
		if (streq(tag, "!") || tag_is(tag, "str")) {
			/* "!" is the non-specific tag: a string, as a quoted scalar is. */
			if (*style == YAML_PLAIN_SCALAR_STYLE || *style == YAML_ANY_SCALAR_STYLE)
				*style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
			return 0;
		}
		if (tag_is(tag, "int"))
			what = value_is_integer(value) ? NULL : "an integer";
		else if (tag_is(tag, "bool"))
			what = streq(value, "true") || streq(value, "false") ? NULL
									     : "true or false";
		else if (tag_is(tag, "null"))
			what = streq(value, "") || streq(value, "~") || streq(value, "null")
				       ? NULL
				       : "null";
		else
			goto unsupported;
		if (what)
			return composer_error(c, &e->start_mark, "'!!%s' on '%s', which is not %s",
					      tag_short(tag), value, what);
		*style = YAML_PLAIN_SCALAR_STYLE;
		return 0;
	}
	if ((kind == YAML_SEQUENCE_NODE && tag_is(tag, "seq")) ||
	    (kind == YAML_MAPPING_NODE && tag_is(tag, "map")))
		return 0;
	if (tag_is(tag, "seq") || tag_is(tag, "map") || tag_is(tag, "str") || tag_is(tag, "int") ||
	    tag_is(tag, "bool") || tag_is(tag, "null"))
		return composer_error(c, &e->start_mark, "'!!%s' on a %s", tag_short(tag),
				      kind == YAML_SEQUENCE_NODE ? "list" : "mapping");
unsupported:
	return composer_error(c, &e->start_mark,
			      "unsupported YAML tag '%s%s' (rdmad reads only !!str, !!int, "
			      "!!bool, !!null, !!seq and !!map)",
			      tag == tag_short(tag) ? "" : "!!", tag_short(tag));
}

/* One more node: fatal past PROFILE_NODES_MAX. */
static int composer_count_node(Composer *c, const yaml_mark_t *m) {
	if (++c->n_nodes <= PROFILE_NODES_MAX)
		return 0;
	return composer_error(c, m, "more than %d YAML nodes in one file", PROFILE_NODES_MAX);
}

static void node_set_marks(Composer *c, int id, const yaml_mark_t *start, const yaml_mark_t *end) {
	yaml_node_t *n = yaml_document_get_node(&c->doc, id);

	n->start_mark = *start;
	n->end_mark = *end;
}

/* Puts node id where the document is: the root, the next item of a list, a key or a value. */
static int composer_attach(Composer *c, int id) {
	int parent;

	if (c->depth == 0)
		return 0; /* the root: node 1, the first added */
	parent = c->stack[c->depth - 1];
	if (yaml_document_get_node(&c->doc, parent)->type == YAML_SEQUENCE_NODE)
		return yaml_document_append_sequence_item(&c->doc, parent, id) ? 0 : -ENOMEM;
	if (c->key[c->depth - 1] == 0) {
		c->key[c->depth - 1] = id;
		return 0;
	}
	if (!yaml_document_append_mapping_pair(&c->doc, parent, c->key[c->depth - 1], id))
		return -ENOMEM;
	c->key[c->depth - 1] = 0;
	return 0;
}

/* A copy of node src, every part of it placed at the alias (errors in what an alias brings
 * point at the alias, not at the anchor). Each node copied spends one of the document's
 * alias_budget: a "billion laughs" runs out of it after PROFILE_ALIAS_NODES_MAX nodes. */
static int node_copy(Composer *c, int src, const yaml_mark_t *at, int *ret) {
	yaml_node_t *n = yaml_document_get_node(&c->doc, src);
	size_t count;
	int id, r;

	if (c->alias_budget == 0)
		return -E2BIG;
	c->alias_budget--;
	r = composer_count_node(c, at);
	if (r < 0)
		return r;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		id = yaml_document_add_scalar(&c->doc, n->tag, n->data.scalar.value,
					      (int) n->data.scalar.length, n->data.scalar.style);
		if (!id)
			return -ENOMEM;
		break;
	case YAML_SEQUENCE_NODE:
		/* Adding a node moves the others: n is stale after each, look src up again. */
		count = n->data.sequence.items.top - n->data.sequence.items.start;
		id = yaml_document_add_sequence(&c->doc, n->tag, n->data.sequence.style);
		if (!id)
			return -ENOMEM;
		for (size_t i = 0; i < count; i++) {
			int item;

			n = yaml_document_get_node(&c->doc, src);
			r = node_copy(c, n->data.sequence.items.start[i], at, &item);
			if (r < 0)
				return r;
			if (!yaml_document_append_sequence_item(&c->doc, id, item))
				return -ENOMEM;
		}
		break;
	case YAML_MAPPING_NODE:
		count = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
		id = yaml_document_add_mapping(&c->doc, n->tag, n->data.mapping.style);
		if (!id)
			return -ENOMEM;
		for (size_t i = 0; i < count; i++) {
			yaml_node_pair_t pair;
			int k, v;

			n = yaml_document_get_node(&c->doc, src);
			pair = n->data.mapping.pairs.start[i];
			r = node_copy(c, pair.key, at, &k);
			if (r < 0)
				return r;
			r = node_copy(c, pair.value, at, &v);
			if (r < 0)
				return r;
			if (!yaml_document_append_mapping_pair(&c->doc, id, k, v))
				return -ENOMEM;
		}
		break;
	default:
		return -EINVAL;
	}
	node_set_marks(c, id, at, at);
	*ret = id;
	return 0;
}

static int composer_anchor(Composer *c, const char *anchor, int id) {
	if (!anchor)
		return 0;
	/* A later anchor of the same name replaces the earlier one (YAML 1.1, 3.2.2.2). */
	return strmap_put(&c->anchors, anchor, strlen(anchor), (size_t) id);
}

/* Duplicate keys: reported at the second one, which is dropped. A hash of the keys: linear. */
static int mapping_check_keys(Composer *c, int id) {
	_cleanup_(strmap_done) StrMap seen = { 0 };
	yaml_node_t *m = yaml_document_get_node(&c->doc, id);
	yaml_node_pair_t *out = m->data.mapping.pairs.start;
	int r;

	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&c->doc, p->key);
		size_t first;

		if (k->type == YAML_SCALAR_NODE) {
			r = strmap_add(&seen, k->data.scalar.value, k->data.scalar.length,
				       k->start_mark.line + 1, &first);
			if (r == -EEXIST) {
				r = composer_error(c, &k->start_mark,
						   "duplicate key '%s' (first set at line %zu)",
						   scalar(k), first);
				if (r == -ENOMEM)
					return r;
				continue;
			}
			if (r < 0)
				return r;
		}
		*out++ = *p;
	}
	m->data.mapping.pairs.top = out;
	return 0;
}

static int composer_scalar(Composer *c, const yaml_event_t *e) {
	const char *value = (const char *) e->data.scalar.value;
	size_t len = e->data.scalar.length;
	yaml_scalar_style_t style = e->data.scalar.style;
	int id, r;

	if (memchr(value, 0, len)) {
		/* "tos\0junk": C strings would stop at the NUL and apply the rest. */
		r = composer_error(c, &e->start_mark,
				   "'%s\\0...': a NUL character (\\0) is not allowed in a string",
				   value);
		if (r == -ENOMEM)
			return r;
	}
	r = composer_count_node(c, &e->start_mark);
	if (r < 0)
		return r;
	r = tag_check(c, e, (const char *) e->data.scalar.tag, YAML_SCALAR_NODE, value, &style);
	if (r == -ENOMEM)
		return r;
	id = yaml_document_add_scalar(&c->doc, NULL, e->data.scalar.value, (int) len, style);
	if (!id)
		return -ENOMEM;
	node_set_marks(c, id, &e->start_mark, &e->end_mark);
	r = composer_anchor(c, (const char *) e->data.scalar.anchor, id);
	if (r < 0)
		return r;
	return composer_attach(c, id);
}

static int composer_start(Composer *c, const yaml_event_t *e) {
	bool seq = e->type == YAML_SEQUENCE_START_EVENT;
	const char *anchor =
		(const char *) (seq ? e->data.sequence_start.anchor : e->data.mapping_start.anchor);
	const char *tag =
		(const char *) (seq ? e->data.sequence_start.tag : e->data.mapping_start.tag);
	yaml_scalar_style_t unused = YAML_ANY_SCALAR_STYLE;
	int id, r;

	if (c->depth >= PROFILE_DEPTH_MAX) {
		/* Fatal: parsing on would let the scanner go deeper. */
		r = composer_error(c, &e->start_mark,
				   "nested deeper than %d levels (a profile needs 4)",
				   PROFILE_DEPTH_MAX);
		return r;
	}
	r = composer_count_node(c, &e->start_mark);
	if (r < 0)
		return r;
	r = tag_check(c, e, tag, seq ? YAML_SEQUENCE_NODE : YAML_MAPPING_NODE, NULL, &unused);
	if (r == -ENOMEM)
		return r;
	if (seq)
		id = yaml_document_add_sequence(&c->doc, NULL, e->data.sequence_start.style);
	else
		id = yaml_document_add_mapping(&c->doc, NULL, e->data.mapping_start.style);
	if (!id)
		return -ENOMEM;
	node_set_marks(c, id, &e->start_mark, &e->end_mark);
	r = composer_attach(c, id);
	if (r < 0)
		return r;
	if (anchor) {
		c->stack_anchor[c->depth] = strdup(anchor);
		if (!c->stack_anchor[c->depth])
			return -ENOMEM;
	}
	c->stack[c->depth] = id;
	c->key[c->depth] = 0;
	c->depth++;
	return 0;
}

static int composer_end(Composer *c, const yaml_event_t *e) {
	_cleanup_free_ char *anchor = NULL;
	int id, r;

	assert(c->depth > 0);
	c->depth--;
	id = c->stack[c->depth];
	anchor = TAKE_PTR(c->stack_anchor[c->depth]);
	yaml_document_get_node(&c->doc, id)->end_mark = e->end_mark;
	if (e->type == YAML_MAPPING_END_EVENT) {
		r = mapping_check_keys(c, id);
		if (r < 0)
			return r;
	}
	/* Registered only now: an alias inside its own anchor's node is undefined, not a loop. */
	return composer_anchor(c, anchor, id);
}

static int composer_alias(Composer *c, const yaml_event_t *e) {
	const char *anchor = (const char *) e->data.alias.anchor;
	size_t src;
	int id, r;

	if (!strmap_get(&c->anchors, anchor, strlen(anchor), &src))
		/* Fatal, as in libyaml's own composer: the document has a hole. */
		return composer_error(c, &e->start_mark,
				      "alias '*%s' has no anchor '&%s' before it (or is inside it)",
				      anchor, anchor);
	r = node_copy(c, (int) src, &e->start_mark, &id);
	if (r == -E2BIG)
		return composer_error(c, &e->start_mark,
				      "alias '*%s': aliases expand to more than %d nodes in this "
				      "document",
				      anchor, PROFILE_ALIAS_NODES_MAX);
	if (r < 0)
		return r;
	return composer_attach(c, id);
}

/* Reads the events of the next document into c->doc, as libyaml's yaml_parser_load() would,
 * but bounded (depth, alias expansion), with tags checked, NULs refused, duplicate keys found
 * and the positions of what aliases bring set to the alias. Returns 1 with a document, 0 at
 * the end of the stream, -EINVAL after a problem that stops the file (reported). A problem
 * that does not stop it sets c->invalid. */
int composer_next(Composer *c) {
	composer_reset(c);
	for (;;) {
		yaml_event_t e;
		int r = 0;

		if (!yaml_parser_parse(&c->parser, &e))
			return composer_syntax_error(c);
		switch (e.type) {
		case YAML_STREAM_START_EVENT:
			break;
		case YAML_STREAM_END_EVENT:
			yaml_event_delete(&e);
			return 0;
		case YAML_DOCUMENT_START_EVENT:
			if (++c->n_documents > PROFILE_DOCUMENTS_MAX)
				r = composer_error(c, &e.start_mark,
						   "more than %d documents in one file",
						   PROFILE_DOCUMENTS_MAX);
			else if (!yaml_document_initialize(&c->doc, NULL, NULL, NULL, 0, 0))
				r = -ENOMEM;
			else
				c->have_doc = true;
			break;
		case YAML_DOCUMENT_END_EVENT:
			yaml_event_delete(&e);
			return 1;
		case YAML_SCALAR_EVENT:
			r = composer_scalar(c, &e);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			r = composer_start(c, &e);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			r = composer_end(c, &e);
			break;
		case YAML_ALIAS_EVENT:
			r = composer_alias(c, &e);
			break;
		default:
			break;
		}
		yaml_event_delete(&e);
		/* The handlers return an error only for what stops the file (depth, alias
		 * budget, memory); the others are reported and set c->invalid. */
		if (r < 0)
			return r;
	}
}
