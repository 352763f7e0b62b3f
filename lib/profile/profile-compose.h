/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The bounded composer: libyaml's events to one document at a time, with the limits below
 * enforced as the events come, anchors and duplicate keys through hash tables, and every
 * problem a diagnostic at its line and column (profile-compose.c). profile-load.c turns each
 * document into a Profile. */

#include <yaml.h>

#include "diag.h"
#include "strmap.h"

/* Bounds on what one profile file may cost, whoever wrote it. Loading is linear in the input:
 * libyaml's scanner and parser are, as long as nesting stays shallow (its scanner keeps a
 * simple-key slot per flow level and scans them all for every token: quadratic in flow depth,
 * hence PROFILE_DEPTH_MAX, enforced on the events as they come, before the scanner goes deeper);
 * the composer below is (anchors and duplicate keys through hash tables), and so is the schema
 * walk (lists are sized once, duplicates found by hash). With PROFILE_SIZE_MAX and
 * PROFILE_NODES_MAX that bounds the load of one file, in a reload on the daemon's event loop
 * under rdmad.service's WatchdogSec=30s, to about a second of CPU at worst (0.9 s for 500,000
 * modules on the build machine; bench/bench-profile-load.sh measures the worst inputs we know),
 * and its memory to about 200 MB. Many such files add up: the number of drop-ins is the
 * administrator's to bound. */
#define PROFILE_DEPTH_MAX	64
#define PROFILE_ALIAS_NODES_MAX 10000 /* nodes aliases may copy, per document */
/* What one file may hold. The size limit alone would allow 2 million nodes (~170 bytes each in
 * libyaml's document model) or 600,000 empty documents (a Profile each): these keep the memory
 * of a load to about 200 MB at worst, and real profiles are far from either. */
#define PROFILE_NODES_MAX     1000000
#define PROFILE_DOCUMENTS_MAX 4096
#define PROFILE_SIZE_MAX      (4U * 1024 * 1024)

typedef struct Composer {
	yaml_parser_t parser;
	const char *file;
	const char *text;
	size_t len;
	Diagnostics *diags;

	yaml_document_t doc;
	bool have_doc;
	int stack[PROFILE_DEPTH_MAX];	       /* open collections */
	int key[PROFILE_DEPTH_MAX];	       /* in a mapping: the key waiting for its value */
	char *stack_anchor[PROFILE_DEPTH_MAX]; /* registered when the collection ends */
	size_t depth;
	StrMap anchors; /* name -> node id, this document's */
	size_t n_nodes; /* in the file so far */
	size_t n_documents;
	size_t alias_budget;
	bool invalid; /* a problem was reported: the document gives no profile */
} Composer;

/* The next document of the stream into c->doc: 1, 0 at the end of the stream, -ENOMEM, or
 * -EINVAL on a syntax error (reported; the stream cannot go on). A document with a problem is
 * returned with c->invalid set. */
int composer_next(Composer *c);
/* Drop the current document and the state of the one being composed. */
void composer_reset(Composer *c);
