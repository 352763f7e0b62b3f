/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: any bytes given to the profile loader must give profiles or diagnostics,
 * never a crash, a leak or a hang. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	Diagnostics d = { 0 };
	Profile **l = NULL;
	size_t n = 0;
	int r;

	r = profile_load_string("fuzz.yaml", (const char *) data, size, &d, &l, &n);
	if (r >= 0) {
		if (d.n != 0)
			abort(); /* success with errors: the loader lost track */
		for (size_t i = 0; i < n; i++) {
			if (!l[i]->name)
				abort();
			profile_free(l[i]);
		}
		free(l);
	} else {
		for (size_t i = 0; i < d.n; i++) {
			char *s = diagnostic_format(&d.items[i]);

			if (!s)
				abort();
			free(s);
		}
	}
	diagnostics_done(&d);
	return 0;
}
