/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Print every key path of the profile language, sections included, one per line, in the order
 * of the schema table: the list man-schema-test.sh holds rdmad.yaml(5) to. */
#include <stdio.h>
#include <stdlib.h>

#include "profile-schema.h"

int main(void) {
	const SchemaKey *keys;
	size_t n = 0;

	keys = schema_keys(&n);
	for (size_t i = 0; i < n; i++)
		if (printf("%s\n", keys[i].path) < 0)
			return EXIT_FAILURE;
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
