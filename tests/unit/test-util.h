/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers several unit tests share. Include after tests.h. */

#include <sys/stat.h>

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
