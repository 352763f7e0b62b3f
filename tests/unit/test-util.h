/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers several unit tests share. Include after tests.h. */

#include <sys/stat.h>

#include "apply.h"
#include "plan.h"
#include "profile.h"

/* A Config from YAML texts, one file each, named "00-test.yaml", "10-test.yaml", ... A text
 * with errors fails the calling test and prints them. */
static inline Config *config_from(const char *const *texts) {
	Config *c = calloc(1, sizeof(Config));

	for (size_t i = 0; texts[i]; i++) {
		Diagnostics d = { 0 };
		Profile **l = NULL;
		size_t n = 0;
		char name[32];

		snprintf(name, sizeof(name), "%02zu-test.yaml", i * 10);
		CHECK(profile_load_string(name, texts[i], strlen(texts[i]), &d, &l, &n) == 0);
		for (size_t k = 0; k < d.n; k++)
			printf("# %s:%u:%u %s\n", name, d.items[k].line, d.items[k].column,
			       d.items[k].message);
		CHECK_INTEQ(d.n, 0);
		diagnostics_done(&d);
		if (n == 0) {
			free(l);
			continue;
		}
		c->profiles = realloc(c->profiles, sizeof(Profile *) * (c->n_profiles + n));
		memcpy(c->profiles + c->n_profiles, l, sizeof(Profile *) * n);
		c->n_profiles += n;
		free(l);
	}
	return c;
}

/* Write text to root/path, making the directories on the way ("/" between root and path is
 * added when path does not start with one). */
static inline void put_file(const char *root, const char *path, const char *text) {
	char full[600];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s%s", root, path[0] == '/' ? "" : "/", path);
	for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "we");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* A fresh scratch root under /tmp; tree_free() removes it. */
static inline char *tree_new(void) {
	char *root = strdup("/tmp/rdmad-test-root-XXXXXX");

	CHECK(root && mkdtemp(root) != NULL);
	return root;
}

static inline void tree_free(char *root) {
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	free(root);
}

/* The plan of one profile text for the host h. */
static inline Plan *plan_of(const char *text, HostState *h) {
	const char *const texts[] = { text, NULL };
	Config *c = config_from(texts);
	Plan *p = NULL;

	CHECK_INTEQ(plan_compute(c, h, &p), 0);
	config_free(c);
	return p;
}

/* Apply every action of p on the real root, with state_dir; count what changed and what was
 * found as declared. A failed or unsupported action fails the calling test, saying why. */
static inline void apply_all(const char *state_dir, const Plan *p, unsigned *changed,
			     unsigned *unchanged) {
	Applier *a = NULL;

	*changed = *unchanged = 0;
	CHECK_INTEQ(applier_new("/", state_dir, &a), 0);
	for (size_t i = 0; a && i < p->n_actions; i++) {
		ActionOutcome o = { 0 };

		CHECK_INTEQ(action_apply(a, &p->actions[i], &o), 0);
		if (o.result == APPLY_FAILED || o.result == APPLY_UNSUPPORTED)
			printf("#   %s %s: %s\n", p->actions[i].desired,
			       apply_result_to_string(o.result), o.message);
		CHECK(o.result == APPLY_CHANGED || o.result == APPLY_UNCHANGED);
		*changed += o.result == APPLY_CHANGED;
		*unchanged += o.result == APPLY_UNCHANGED;
		action_outcome_done(&o);
	}
	applier_free(a);
}
