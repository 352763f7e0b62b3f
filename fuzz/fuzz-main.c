/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Without libFuzzer: run the target once per file given, so that the corpus is a regression test
 * in every build. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "re");
		uint8_t *buf;
		long n;

		if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) < 0) {
			perror(argv[i]);
			return EXIT_FAILURE;
		}
		buf = malloc(n + 1);
		if (!buf || fread(buf, 1, n, f) != (size_t) n) {
			perror(argv[i]);
			return EXIT_FAILURE;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("%d inputs run\n", argc - 1);
	return EXIT_SUCCESS;
}
