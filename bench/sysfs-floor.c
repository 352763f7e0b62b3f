/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The floor under `rdmactl gids`: open, read and close every GID, type and netdev file of every
 * port under ROOT, and nothing else, then print the count and the CPU time it took. sysfs has
 * one file per attribute per slot, so this is what any sysfs-based tool pays at least.
 *
 * With --list FILE: the same for the paths in FILE, one per line (bench-cold.sh lists what
 * rdmad opened), each read to its end, a directory's entries read with readdir. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static long files;

static void read_dir(int portfd, const char *sub) {
	char buf[128];
	int dfd = openat(portfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;

	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof(buf)) >= 0)
			files++;
		close(fd);
	}
	closedir(d);
}

static void print_cpu(void) {
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("%ld %.1f\n", files,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}

static int read_list(const char *list) {
	char line[4096], buf[65536];
	FILE *f = fopen(list, "re");

	if (!f) {
		perror(list);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		int fd;
		DIR *d;

		line[strcspn(line, "\n")] = 0;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		d = fdopendir(fd);
		if (d) {
			while (readdir(d))
				;
			closedir(d);
		} else {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		files++;
	}
	fclose(f);
	print_cpu();
	return 0;
}

int main(int argc, char **argv) {
	char path[4096];
	DIR *cls;

	if (argc == 3 && strcmp(argv[1], "--list") == 0)
		return read_list(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s ROOT | --list FILE\n", argv[0]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/sys/class/infiniband", argv[1]);
	cls = opendir(path);
	if (!cls) {
		perror(path);
		return 1;
	}
	for (struct dirent *de; (de = readdir(cls));) {
		int portfd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/1", argv[1],
			 de->d_name);
		portfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (portfd < 0)
			continue;
		read_dir(portfd, "gids");
		read_dir(portfd, "gid_attrs/types");
		read_dir(portfd, "gid_attrs/ndevs");
		close(portfd);
	}
	closedir(cls);
	print_cpu();
	return 0;
}
