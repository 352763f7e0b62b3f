/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plan, from its JSON form (plan_to_json() here, or the daemon's Plan()), as text or JSON. */
#include <stdio.h>

#include "output.h"
#include "rdmactl.h"

static int plan_print_text(json_object *plan, size_t *ret_pending) {
	static const char *const headers[] = { "LINK", "SETTING", "CURRENT", "DESIRED", "PROFILE" };
	static const char *const uheaders[] = { "LINK", "SETTING", "DESIRED", "NOT APPLIED" };
	_cleanup_(table_freep) Table *t = table_new(5, headers), *u = table_new(4, uheaders);
	size_t n = json_object_array_length(plan);
	int r;

	if (!t || !u)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(plan, i);

		if (json_get_string(x, "unsupported")) {
			const char *cells[] = { json_get_string(x, "link"),
						json_get_string(x, "setting"),
						json_get_string(x, "desired"),
						json_get_string(x, "unsupported") };

			r = table_add_row(u, cells);
		} else {
			const char *cells[] = { json_get_string(x, "link"),
						json_get_string(x, "setting"),
						json_get_string(x, "current"),
						json_get_string(x, "desired"),
						json_get_string(x, "profile") };

			r = table_add_row(t, cells);
		}
		if (r < 0)
			return r;
	}
	if (table_rows(t) > 0) {
		r = table_print(t, stdout);
		if (r < 0)
			return r;
	}
	if (table_rows(u) > 0) {
		printf("%s", table_rows(t) > 0 ? "\n" : "");
		r = table_print(u, stdout);
		if (r < 0)
			return r;
	}
	if (table_rows(t) == 0)
		printf("%s\n", table_rows(u) > 0
				       ? "\nNothing else to change."
				       : "Nothing to change: the host is in the declared state.");
	else
		printf("\n%zu change%s pending.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
	*ret_pending = table_rows(t);
	return 0;
}

int plan_print(json_object *plan, const Options *o) {
	size_t pending = 0;
	int r;

	if (!json_object_is_type(plan, json_type_array)) {
		fprintf(stderr, "rdmactl: the plan is not a JSON array\n");
		return EXIT_FAILURE;
	}
	if (o->json) {
		for (size_t i = 0; i < json_object_array_length(plan); i++)
			if (!json_get_string(json_object_array_get_idx(plan, i), "unsupported"))
				pending++;
		r = json_print(plan, stdout);
	} else
		r = plan_print_text(plan, &pending);
	if (r < 0) {
		fprintf(stderr, "rdmactl: failed to print the plan: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	return o->exit_code && pending > 0 ? EXIT_PENDING : EXIT_SUCCESS;
}
