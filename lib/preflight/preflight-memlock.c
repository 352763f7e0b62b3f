/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The memlock limits RDMA jobs get: services (systemd's DefaultLimitMEMLOCK, as the running
 * manager has it: the caller asks it) and login sessions (pam_limits' limits.conf and
 * limits.d under the root), against PREFLIGHT_MEMLOCK_MIN. RDMA pins what it registers. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <strings.h>
#include <unistd.h>

#include "fileio.h"
#include "glob-util.h"
#include "preflight.h"
#include "strv.h"

#define MEMLOCK_SERVICES_FIX                                                        \
	"DefaultLimitMEMLOCK=infinity in /etc/systemd/system.conf.d/rdma.conf, or " \
	"LimitMEMLOCK= in the job's unit"
#define MEMLOCK_LOGIN_FIX                                                        \
	"a file in /etc/security/limits.d/ with `* soft memlock unlimited` and " \
	"`* hard memlock unlimited`"

static void bytes_format(uint64_t v, char *ret, size_t size) {
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	const char *unit = NULL;

	if (v == UINT64_MAX) {
		snprintf(ret, size, "unlimited");
		return;
	}
	for (size_t i = 0; v && v % 1024 == 0 && i < ELEMENTSOF(units); i++) {
		v /= 1024;
		unit = units[i];
	}
	snprintf(ret, size, "%" PRIu64 " %s", v, unit ? unit : "bytes");
}

static int check_memlock_services(Preflight *p, const PreflightInput *in) {
	char value[32], hard[32], min[32];

	bytes_format(PREFLIGHT_MEMLOCK_MIN, min, sizeof(min));
	if (in->has_service_memlock) {
		bytes_format(in->service_memlock, value, sizeof(value));
		bytes_format(in->service_memlock_hard, hard, sizeof(hard));
		/* The soft limit is what a job gets; few raise it to the hard one themselves. */
		if (in->service_memlock < PREFLIGHT_MEMLOCK_MIN)
			return preflight_add(p, "userspace.memlock", "services", PREFLIGHT_WARN,
					     MEMLOCK_SERVICES_FIX,
					     "systemd gives services %s (DefaultLimitMEMLOCK soft, "
					     "hard %s), below %s",
					     value, hard, min);
		return preflight_add(p, "userspace.memlock", "services", PREFLIGHT_OK, NULL,
				     "systemd gives services %s (DefaultLimitMEMLOCK soft, hard %s)",
				     value, hard);
	}
	return preflight_add(p, "userspace.memlock", "services", PREFLIGHT_WARN, NULL,
			     "not checked: systemd was not asked (--root names another host, or "
			     "systemd is not running)");
}

/* pam_limits' memlock entries for the "*" domain, as it applies them: limits.conf first, then
 * the limits.d files (*.conf) in name order, a later "*" line replacing an earlier one.
 * Entries for a user or @group win over "*" for those users whatever their order; they are
 * noted. */
typedef struct LoginMemlock {
	bool has_soft, has_hard;
	uint64_t soft, hard;
	char *soft_file, *hard_file;
	char **others; /* the other domains with memlock entries: "@rdma", "alice" */
} LoginMemlock;

static void login_memlock_done(LoginMemlock *l) {
	free(l->soft_file);
	free(l->hard_file);
	strv_free(l->others);
}

/* KiB, or "unlimited", "infinity", "-1". */
static bool pam_limit_parse(const char *s, uint64_t *ret) {
	uint64_t v;
	char *end;

	if (strcasecmp(s, "unlimited") == 0 || strcasecmp(s, "infinity") == 0 || streq(s, "-1")) {
		*ret = UINT64_MAX;
		return true;
	}
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT64_MAX / 1024)
		return false;
	*ret = v * 1024;
	return true;
}

static int limits_file_read(int rootfd, const char *path, LoginMemlock *l) {
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	FILE *f;
	int r = 0;

	fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	while (r >= 0 && getline(&line, &size, f) > 0) {
		char domain[128], type[16], item[32], value[64];
		bool soft, hard;
		uint64_t v;

		line[strcspn(line, "#")] = 0;
		if (sscanf(line, "%127s %15s %31s %63s", domain, type, item, value) != 4 ||
		    strcasecmp(item, "memlock") != 0)
			continue;
		soft = strcasecmp(type, "soft") == 0 || streq(type, "-");
		hard = strcasecmp(type, "hard") == 0 || streq(type, "-");
		if ((!soft && !hard) || !pam_limit_parse(value, &v))
			continue;
		if (!streq(domain, "*")) {
			if (!strv_contains(l->others, domain))
				r = strv_extend(&l->others, domain);
			continue;
		}
		if (soft) {
			l->has_soft = true;
			l->soft = v;
			free(l->soft_file);
			if (asprintf(&l->soft_file, "/%s", path) < 0) {
				l->soft_file = NULL;
				r = -ENOMEM;
			}
		}
		if (hard && r >= 0) {
			l->has_hard = true;
			l->hard = v;
			free(l->hard_file);
			if (asprintf(&l->hard_file, "/%s", path) < 0) {
				l->hard_file = NULL;
				r = -ENOMEM;
			}
		}
	}
	fclose(f);
	return r;
}

static int login_memlock_read(int rootfd, LoginMemlock *l) {
	_cleanup_strv_free_ char **files = NULL;
	_cleanup_close_ int fd = -EBADF;
	int r = 0;

	fd = openat(rootfd, "etc/security/limits.d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		DIR *dir = fdopendir_consume(TAKE_FD(fd));

		if (!dir)
			return -errno;
		for (struct dirent *de; r >= 0 && (de = readdir(dir));) {
			char path[NAME_MAX + 32];

			if (de->d_name[0] == '.' || !glob_match("*.conf", de->d_name))
				continue;
			snprintf(path, sizeof(path), "etc/security/limits.d/%s", de->d_name);
			r = strv_extend(&files, path);
		}
		closedir(dir);
		if (r < 0)
			return r;
		if (files)
			strv_sort(files);
	}
	r = limits_file_read(rootfd, "etc/security/limits.conf", l);
	STRV_FOREACH (path, files) {
		if (r < 0)
			break;
		r = limits_file_read(rootfd, *path, l);
	}
	return r;
}

/* RLIMIT_MEMLOCK's default when nothing sets it: 8 MiB since Linux 5.16, 64 KiB before. */
static uint64_t kernel_memlock_default(int rootfd) {
	_cleanup_free_ char *release = NULL;
	unsigned major, minor;

	if (read_line_at(rootfd, "proc/sys/kernel/osrelease", &release) < 0 ||
	    sscanf(release, "%u.%u", &major, &minor) != 2)
		return UINT64_C(8) << 20;
	return major > 5 || (major == 5 && minor >= 16) ? UINT64_C(8) << 20 : UINT64_C(64) << 10;
}

/* What a login session gets: its login service's limits (systemd's defaults for services, or
 * the kernel's without systemd), then what pam_limits sets for "*"; soft capped at hard. */
static int check_memlock_login(Preflight *p, const PreflightInput *in, int rootfd) {
	_cleanup_(login_memlock_done) LoginMemlock l = { 0 };
	_cleanup_free_ char *soft = NULL, *hard = NULL, *others = NULL, *note = NULL;
	char value[32], min[32];
	uint64_t base_soft, base_hard, effective;
	const char *base;
	int r;

	r = login_memlock_read(rootfd, &l);
	if (r < 0)
		return r;
	if (in->has_service_memlock) {
		base_soft = in->service_memlock;
		base_hard = in->service_memlock_hard;
		base = "systemd's DefaultLimitMEMLOCK, the login service's";
	} else {
		base_soft = base_hard = kernel_memlock_default(rootfd);
		base = "the kernel default";
	}
	bytes_format(PREFLIGHT_MEMLOCK_MIN, min, sizeof(min));
	effective = l.has_soft ? l.soft : base_soft;
	if ((l.has_hard ? l.hard : base_hard) < effective)
		effective = l.has_hard ? l.hard : base_hard; /* soft never above hard */
	if (l.has_soft) {
		bytes_format(l.soft, value, sizeof(value));
		r = asprintf(&soft, "soft %s (%s)", value, l.soft_file);
	} else {
		bytes_format(base_soft, value, sizeof(value));
		r = asprintf(&soft, "soft not set (%s, %s)", base, value);
	}
	if (r < 0)
		return -ENOMEM;
	if (l.has_hard) {
		bytes_format(l.hard, value, sizeof(value));
		r = asprintf(&hard, "hard %s (%s)", value, l.hard_file);
	} else {
		bytes_format(base_hard, value, sizeof(value));
		r = asprintf(&hard, "hard not set (%s, %s)", base, value);
	}
	if (r < 0)
		return -ENOMEM;
	if (l.others) {
		others = strv_join(l.others, ", ");
		if (!others ||
		    asprintf(&note, "; %s set their own, which wins for them", others) < 0)
			return -ENOMEM;
	}
	bytes_format(effective, value, sizeof(value));
	if (effective < PREFLIGHT_MEMLOCK_MIN)
		return preflight_add(p, "userspace.memlock", "login-sessions", PREFLIGHT_WARN,
				     MEMLOCK_LOGIN_FIX, "%s, below %s: * %s, %s%s", value, min,
				     soft, hard, strempty(note));
	return preflight_add(p, "userspace.memlock", "login-sessions", PREFLIGHT_OK, NULL,
			     "%s: * %s, %s%s", value, soft, hard, strempty(note));
}

int preflight_memlock(Preflight *p, const PreflightInput *in) {
	int rootfd, r;

	r = check_memlock_services(p, in);
	if (r < 0)
		return r;
	/* A root that cannot be opened reads as empty: the row says what it missed. */
	rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = check_memlock_login(p, in, rootfd);
	if (rootfd >= 0)
		close(rootfd);
	return r;
}
