/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Applier: the context every backend shares (the root, the state directory, the sockets and
 * libkmod opened on first use, the NEWLINK hook, test faults) and the ActionOutcome they fill. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "apply-internal.h"
#include "dcbnl-talk.h"
#include "ethtool-pause-talk.h"
#include "netlink-io.h"
#include "rdmanl-talk.h"

struct Applier {
	char *root;
	int rootfd;
	char *state_dir;
	/* opened on first use by the backend that needs it */
	struct kmod_ctx *kmod;
	struct nl_sock *rdmanl;
	struct nl_sock *dcbnl;
	struct nl_sock *ethtool; /* generic netlink, with the family's id */
	uint16_t ethtool_family;
	char *fault_file;	   /* tests only: applier_set_fault_file() */
	applier_newlink_t newlink; /* NULL: this process sends it */
	void *newlink_userdata;
};

static const char *const apply_result_table[_APPLY_RESULT_MAX] = {
	[APPLY_CHANGED] = "changed",
	[APPLY_UNCHANGED] = "unchanged",
	[APPLY_UNSUPPORTED] = "unsupported",
	[APPLY_FAILED] = "failed",
};
DEFINE_STRING_TABLE_LOOKUP(apply_result, ApplyResult)

void action_outcome_done(ActionOutcome *o) {
	free(o->message);
	*o = (ActionOutcome){ 0 };
}

int outcome_set(ActionOutcome *ret, ApplyResult result, int error, const char *format, ...) {
	char *m = NULL;
	va_list ap;

	if (format) {
		va_start(ap, format);
		if (vasprintf(&m, format, ap) < 0)
			m = NULL;
		va_end(ap);
		if (!m)
			return -ENOMEM;
	}
	free(ret->message);
	*ret = (ActionOutcome){ .result = result, .error = error, .message = m };
	return 0;
}

/* Create a directory and its parents (mkdir -p). */
static int mkdir_parents(const char *path, mode_t mode) {
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int applier_new(const char *root, const char *state_dir, Applier **ret) {
	_cleanup_(applier_freep) Applier *a = NULL;
	int r;

	a = calloc(1, sizeof(Applier));
	if (!a)
		return -ENOMEM;
	a->rootfd = -EBADF;
	a->root = strdup(root ? root : "/");
	a->state_dir = strdup(state_dir);
	if (!a->root || !a->state_dir)
		return -ENOMEM;
	a->rootfd = open(a->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->rootfd < 0)
		return -errno;
	r = mkdir_parents(a->state_dir, 0755);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(a);
	return 0;
}

static struct nl_sock *socket_free(struct nl_sock *sk) {
	if (sk)
		nl_socket_free(sk);
	return NULL;
}

Applier *applier_free(Applier *a) {
	if (!a)
		return NULL;
	applier_kmod_forget(a);
	a->rdmanl = socket_free(a->rdmanl);
	a->dcbnl = socket_free(a->dcbnl);
	a->ethtool = socket_free(a->ethtool);
	safe_close(a->rootfd);
	free(a->root);
	free(a->state_dir);
	free(a->fault_file);
	free(a);
	return NULL;
}

const char *applier_root(const Applier *a) {
	return a->root;
}

int applier_rootfd(const Applier *a) {
	return a->rootfd;
}

const char *applier_state_dir(const Applier *a) {
	return a->state_dir;
}

static int socket_get(struct nl_sock **sk, int (*open_fn)(struct nl_sock **),
		      struct nl_sock **ret) {
	if (!*sk) {
		int r = open_fn(sk);

		if (r < 0)
			return r;
	}
	*ret = *sk;
	return 0;
}

int applier_dcbnl(Applier *a, struct nl_sock **ret) {
	return socket_get(&a->dcbnl, dcbnl_socket_open, ret);
}

int applier_ethtool(Applier *a, struct nl_sock **ret, uint16_t *ret_family) {
	if (!a->ethtool) {
		struct nl_sock *sk = NULL;
		int r;

		r = netlink_open(NETLINK_GENERIC, &sk);
		if (r >= 0)
			r = ethtool_family_resolve(sk, &a->ethtool_family, NULL);
		if (r < 0) {
			socket_free(sk);
			return r;
		}
		a->ethtool = sk;
	}
	*ret = a->ethtool;
	*ret_family = a->ethtool_family;
	return 0;
}

int applier_rdmanl(Applier *a, struct nl_sock **ret) {
	return socket_get(&a->rdmanl, rdmanl_socket_open, ret);
}

/* libkmod logs errors to stderr by default; the lib does not log. */
static void kmod_log_nothing(void *data, int priority, const char *file, int line, const char *fn,
			     const char *format, va_list args) {
}

int applier_kmod(Applier *a, struct kmod_ctx **ret) {
	if (a->kmod && sym_kmod_validate_resources(a->kmod) != KMOD_RESOURCES_OK)
		applier_kmod_forget(a);
	if (!a->kmod) {
		struct kmod_ctx *k = sym_kmod_new(NULL, NULL);

		if (!k)
			return -ENOMEM;
		sym_kmod_set_log_fn(k, kmod_log_nothing, NULL);
		/* Without the indexes libkmod reads the files themselves (as modprobe does, it
		 * goes on): a missing module is reported by the lookup. */
		(void) sym_kmod_load_resources(k);
		a->kmod = k;
	}
	*ret = a->kmod;
	return 0;
}

void applier_set_newlink(Applier *a, applier_newlink_t fn, void *userdata) {
	a->newlink = fn;
	a->newlink_userdata = userdata;
}

int applier_newlink(Applier *a, struct nl_sock *sk, const char *name, const char *type,
		    const char *netdev) {
	if (a->newlink)
		return a->newlink(name, type, netdev, a->newlink_userdata);
	return rdmanl_newlink(sk, name, type, netdev);
}

void applier_kmod_forget(Applier *a) {
	/* a context exists only once libkmod was loaded */
	if (a->kmod)
		a->kmod = sym_kmod_unref(a->kmod);
}

int applier_set_fault_file(Applier *a, const char *path) {
	char *p;

	if (streq(a->root, "/"))
		return -EPERM;
	p = path ? strdup(path) : NULL;
	if (path && !p)
		return -ENOMEM;
	free(a->fault_file);
	a->fault_file = p;
	return 0;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)

static int errno_from_name(const char *s) {
	static const struct {
		const char *name;
		int error;
	} table[] = {
		{ "EBUSY", EBUSY },   { "EINVAL", EINVAL },	    { "ENOENT", ENOENT },
		{ "EIO", EIO },	      { "EPERM", EPERM },	    { "ENODEV", ENODEV },
		{ "EAGAIN", EAGAIN }, { "EOPNOTSUPP", EOPNOTSUPP },
	};

	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (streq(s, table[i].name))
			return table[i].error;
	return 0;
}

/* The fault file's line for path: its second word, and the third (NULL if none), in line. */
static int fault_find(const Applier *a, const char *path, char line[static 512], char **ret_what,
		      char **ret_arg) {
	_cleanup_(fclosep) FILE *f = NULL;

	if (!a->fault_file || streq(a->root, "/"))
		return 0;
	f = fopen(a->fault_file, "re");
	if (!f)
		return 0; /* no file: no fault */
	while (fgets(line, 512, f)) {
		char *name, *what, *save = NULL;

		name = strtok_r(line, " \t\n", &save);
		what = name ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!what || name[0] == '#')
			continue;
		while (*name == '/')
			name++;
		if (!streq(name, path))
			continue;
		*ret_what = what;
		*ret_arg = strtok_r(NULL, " \t\n", &save);
		return 1;
	}
	return 0;
}

int applier_write_fault(const Applier *a, const char *path) {
	char line[512], *what, *arg;
	int e;

	if (fault_find(a, path, line, &what, &arg) <= 0)
		return 0;
	e = errno_from_name(what);
	return e > 0 ? -e : 0;
}

int applier_write_hold(const Applier *a, const char *path, const char *text) {
	_cleanup_close_ int fd = -EBADF;
	char line[512], *what, *arg;

	if (fault_find(a, path, line, &what, &arg) <= 0 || !streq(what, "hold") || !arg)
		return 0;
	fd = open(arg, O_WRONLY | O_CLOEXEC); /* until the test opens it */
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		return -errno;
	return 0;
}
