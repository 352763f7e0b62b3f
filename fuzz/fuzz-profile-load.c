/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: any bytes given to the profile loader must give profiles or diagnostics,
 * never a crash, a leak or a hang; and what it loads must be what the file says. The input is
 * also parsed by libyaml alone (an oracle that knows nothing of the schema), and a profile that
 * loads must agree with it:
 *   - no scalar of the file holds a NUL byte ("tos\0junk" is not "tos", "rxe0\0junk" is not
 *     "rxe0"): a loader that ignores a scalar's length would apply the part before the NUL;
 *   - every string the profile holds (match globs, modules, links, counters) is one of the
 *     file's scalars whole, byte for byte, and so are the numbers it read, printed back
 *     (roce.tos, netdev.mtu: "052" or "+42" would not print back).
 * fuzz/regressions/profile-load holds the inputs that once broke these; the unit suite replays
 * them (fuzz-profile-load-regressions). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Scalar {
	char *value;
	size_t length;
} Scalar;

typedef struct Scalars {
	Scalar *items; /* sorted (scalar_compare) once collected: the checks stay n log n */
	size_t n, n_alloc;
	bool nul; /* some scalar holds a NUL byte */
} Scalars;

static void scalars_done(Scalars *s) {
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].value);
	free(s->items);
}

static int scalar_compare(const void *a, const void *b) {
	const Scalar *x = a, *y = b;

	if (x->length != y->length)
		return x->length < y->length ? -1 : 1;
	return memcmp(x->value, y->value, x->length);
}

/* The file's scalars, as libyaml gives them; false when libyaml itself refuses the file. */
static bool scalars_collect(const uint8_t *data, size_t size, Scalars *s) {
	yaml_parser_t parser;
	bool ok = true, done = false;

	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, data, size);
	while (!done) {
		yaml_event_t e;

		if (!yaml_parser_parse(&parser, &e)) {
			ok = false;
			break;
		}
		if (e.type == YAML_SCALAR_EVENT) {
			const char *v = (const char *) e.data.scalar.value;
			size_t n = e.data.scalar.length;

			if (memchr(v, 0, n))
				s->nul = true;
			if (s->n == s->n_alloc) {
				s->n_alloc = s->n_alloc ? s->n_alloc * 2 : 64;
				s->items = realloc(s->items, s->n_alloc * sizeof(Scalar));
				if (!s->items)
					abort();
			}
			s->items[s->n].value = malloc(n + 1);
			if (!s->items[s->n].value)
				abort();
			memcpy(s->items[s->n].value, v, n);
			s->items[s->n].value[n] = 0;
			s->items[s->n++].length = n;
		}
		done = e.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&parser);
	if (s->n > 1)
		qsort(s->items, s->n, sizeof(Scalar), scalar_compare);
	return ok;
}

/* str is one of the file's scalars, whole. */
static void check_scalar(const Scalars *s, const char *str) {
	Scalar key = { .value = (char *) str, .length = strlen(str) };

	if (s->n > 0 && bsearch(&key, s->items, s->n, sizeof(Scalar), scalar_compare))
		return;
	fprintf(stderr, "loaded '%s', which is no scalar of the file\n", str);
	abort();
}

static void check_strv(const Scalars *s, char *const *l) {
	for (; l && *l; l++)
		check_scalar(s, *l);
}

static void check_profile(const Scalars *s, const Profile *p) {
	char buf[32];

	if (!p->name)
		abort();
	check_strv(s, p->match.device);
	check_strv(s, p->match.driver);
	check_strv(s, p->match.netdev);
	check_strv(s, p->match.pci);
	check_strv(s, p->modules);
	for (size_t i = 0; i < p->n_soft_devices; i++) {
		if (p->soft_devices[i].name)
			check_scalar(s, p->soft_devices[i].name);
		if (p->soft_devices[i].netdev)
			check_scalar(s, p->soft_devices[i].netdev);
	}
	check_strv(s, p->settings.counters_optional);
	if (p->settings.set & KEY_BIT(KEY_ROCE_TOS)) {
		snprintf(buf, sizeof(buf), "%u", p->settings.roce_tos);
		check_scalar(s, buf);
	}
	if (p->settings.set & KEY_BIT(KEY_NETDEV_MTU)) {
		snprintf(buf, sizeof(buf), "%u", p->settings.netdev_mtu);
		check_scalar(s, buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	Diagnostics d = { 0 };
	Scalars s = { 0 };
	Profile **l = NULL;
	size_t n = 0;
	int r;

	r = profile_load_string("fuzz.yaml", (const char *) data, size, &d, &l, &n);
	if (r >= 0) {
		if (d.n != 0)
			abort(); /* success with errors: the loader lost track */
		if (!scalars_collect(data, size, &s))
			abort(); /* loaded what libyaml refuses */
		if (s.nul) {
			fprintf(stderr, "loaded a file with a NUL inside a scalar\n");
			abort();
		}
		for (size_t i = 0; i < n; i++) {
			check_profile(&s, l[i]);
			profile_free(l[i]);
		}
		free(l);
		scalars_done(&s);
	} else {
		for (size_t i = 0; i < d.n; i++) {
			char *m = diagnostic_format(&d.items[i]);

			if (!m)
				abort();
			free(m);
		}
	}
	diagnostics_done(&d);
	return 0;
}
