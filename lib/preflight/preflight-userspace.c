/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The user-space checks: the libibverbs provider of each RDMA device (its libibverbs.d entry
 * and its library), whether libibverbs sees the device, the device nodes and who may open
 * them. The memlock limits are preflight-memlock.c.
 *
 * How libibverbs finds a provider (rdma-core libibverbs/dynamic_driver.c): it reads every
 * regular file in IBV_CONFIG_DIR (a compile-time path, /etc/libibverbs.d on Debian; no
 * environment variable changes it), each line "driver <name>"; then dlopen()s
 * VERBS_PROVIDER_DIR/lib<name>-rdmav<ABI>.so (/usr/lib/<multiarch>/libibverbs on Debian), or
 * <name>-rdmav<ABI>.so when <name> is an absolute path. RDMAV_DRIVERS/IBV_DRIVERS in a
 * program's environment add more; that is per program, not the host's, and not checked. */
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>

#include "fileio.h"
#include "glob-util.h"
#include "preflight.h"
#include "strv.h"

#define IBV_CONFIG_DIR "/etc/libibverbs.d"
#define PROVIDER_FIX   "apt install ibverbs-providers"

typedef struct Provider {
	const char *driver;   /* HostDevice.driver: the parent device's driver */
	const char *provider; /* rdma-core's name for its user-space part */
} Provider;

static const Provider providers[] = {
	{ "rdma_rxe", "rxe" },	 { "siw", "siw" },
	{ "mlx5_core", "mlx5" }, { "mlx4_core", "mlx4" },
	{ "irdma", "irdma" },	 { "ice", "irdma" },
	{ "i40e", "irdma" },	 { "bnxt_en", "bnxt_re" },
	{ "qede", "qedr" },	 { "hns3", "hns" },
	{ "erdma", "erdma" },	 { "mana", "mana" },
	{ "efa", "efa" },	 { "ionic", "ionic" },
	{ "cxgb4", "cxgb4" },	 { "vmw_pvrdma", "vmw_pvrdma" },
	{ "hfi1", "hfi1verbs" }, { "ib_qib", "ipathverbs" },
	{ "be2net", "ocrdma" },	 { "ib_mthca", "mthca" },
};

static const char *provider_find(const char *driver) {
	for (size_t i = 0; driver && i < ELEMENTSOF(providers); i++)
		if (streq(providers[i].driver, driver))
			return providers[i].provider;
	return NULL;
}

/* The "driver" lines of every regular file in the config directory, and the file each came
 * from (parallel lists). */
typedef struct ProviderConfig {
	char **names;
	char **files;
} ProviderConfig;

static void provider_config_done(ProviderConfig *c) {
	strv_free(c->names);
	strv_free(c->files);
}

static int provider_config_read_file(int dirfd, const char *name, ProviderConfig *c) {
	_cleanup_free_ char *line = NULL, *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	FILE *f;
	int r = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* libibverbs skips it too */
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	if (asprintf(&path, IBV_CONFIG_DIR "/%s", name) < 0)
		r = -ENOMEM;
	while (r >= 0 && getline(&line, &size, f) > 0) {
		char keyword[16], value[256];

		if (sscanf(line, " %15s %255s", keyword, value) != 2 || keyword[0] == '#' ||
		    !streq(keyword, "driver"))
			continue;
		r = strv_extend(&c->names, value);
		if (r >= 0)
			r = strv_extend(&c->files, path);
	}
	fclose(f);
	return r;
}

static int provider_config_read(int rootfd, ProviderConfig *ret) {
	_cleanup_close_ int fd = -EBADF;
	DIR *dir;
	int r = 0;

	fd = openat(rootfd, &IBV_CONFIG_DIR[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return -errno;
	for (struct dirent *de; r >= 0 && (de = readdir(dir));) {
		struct stat st;

		if (fstatat(dirfd(dir), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		r = provider_config_read_file(dirfd(dir), de->d_name, ret);
	}
	closedir(dir);
	return r;
}

/* The entry naming provider: "driver mlx5", or "driver /opt/x/libmlx5" (an absolute path, to
 * which libibverbs appends the suffix). Its index, or -1. */
static ssize_t provider_config_find(const ProviderConfig *c, const char *provider) {
	for (size_t i = 0; c->names && c->names[i]; i++) {
		const char *n = c->names[i], *base = strrchr(n, '/');

		if (streq(n, provider) ||
		    (n[0] == '/' && strncmp(base + 1, "lib", 3) == 0 && streq(base + 4, provider)))
			return (ssize_t) i;
	}
	return -1;
}

/* A file in dir (under root) whose name matches pattern: its path (without the root). */
static int dir_find(int rootfd, const char *dir, const char *pattern, char **ret) {
	const char *rel = dir[0] == '/' ? dir + 1 : dir;
	_cleanup_close_ int fd = -EBADF;
	char *found = NULL;
	DIR *d;
	int r = 0;

	fd = openat(rootfd, rel[0] ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir_consume(TAKE_FD(fd));
	if (!d)
		return -errno;
	for (struct dirent *de; !found && (de = readdir(d));) {
		if (!glob_match(pattern, de->d_name))
			continue;
		if (asprintf(&found, "%s%s/%s", dir[0] == '/' ? "" : "/", dir, de->d_name) < 0) {
			found = NULL;
			r = -ENOMEM;
			break;
		}
	}
	closedir(d);
	if (found)
		*ret = found;
	return r < 0 ? r : !!found;
}

/* The directories libibverbs loads providers from: /usr/lib/<multiarch>/libibverbs (Debian),
 * /usr/lib64/libibverbs and /usr/lib/libibverbs (other distributions' VERBS_PROVIDER_DIR). */
static int provider_dirs(int rootfd, char ***ret) {
	_cleanup_close_ int fd = -EBADF;
	DIR *dir;
	int r = 0;

	fd = openat(rootfd, "usr/lib", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		dir = fdopendir_consume(TAKE_FD(fd));
		if (!dir)
			return -errno;
		for (struct dirent *de; r >= 0 && (de = readdir(dir));) {
			char path[NAME_MAX + 32];
			struct stat st;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/libibverbs", de->d_name);
			if (fstatat(dirfd(dir), path, &st, 0) >= 0 && S_ISDIR(st.st_mode)) {
				snprintf(path, sizeof(path), "usr/lib/%s/libibverbs", de->d_name);
				r = strv_extend(ret, path);
			}
		}
		closedir(dir);
		if (*ret)
			strv_sort(*ret);
	}
	if (r >= 0)
		r = strv_extend(ret, "usr/lib64/libibverbs");
	if (r >= 0)
		r = strv_extend(ret, "usr/lib/libibverbs");
	return r;
}

/* The provider's library for a config entry: 1 and *ret, 0 if none. */
static int provider_library_find(int rootfd, char *const *dirs, const char *entry, char **ret) {
	char pattern[300];
	int r;

	if (entry[0] == '/') {
		_cleanup_free_ char *dir = strndup(entry, strrchr(entry, '/') - entry);

		if (!dir)
			return -ENOMEM;
		snprintf(pattern, sizeof(pattern), "%s-rdmav*.so", strrchr(entry, '/') + 1);
		return dir_find(rootfd, dir[0] ? dir : "/", pattern, ret);
	}
	snprintf(pattern, sizeof(pattern), "lib%s-rdmav*.so", entry);
	STRV_FOREACH (d, dirs) {
		r = dir_find(rootfd, *d, pattern, ret);
		if (r != 0)
			return r;
	}
	return 0;
}

typedef struct Context {
	int rootfd;
	ProviderConfig config;
	char **provider_dirs;
	/* who is asking */
	char *user;
	gid_t *groups; /* the primary group first */
	size_t n_groups;
} Context;

static void context_done(Context *c) {
	safe_close(c->rootfd);
	provider_config_done(&c->config);
	strv_free(c->provider_dirs);
	free(c->user);
	free(c->groups);
}

/* Returns 1 when the provider is there, 0 when not (its row says why), or -ENOMEM. */
static int check_provider(Preflight *p, const Context *c, const PreflightInput *in,
			  const HostDevice *d, const char *provider) {
	_cleanup_free_ char *lib = NULL, *dirs = NULL, *missing = NULL;
	/* libibverbs binding the device proves a provider, wherever this did not look. */
	bool bound = verbs_facts_find(in->verbs, d->name);
	ssize_t i;
	int r;

	if (!provider) {
		r = preflight_add(p, "userspace.provider", d->name,
				  bound ? PREFLIGHT_OK : PREFLIGHT_WARN, NULL,
				  "no libibverbs provider known here for its driver (%s)%s",
				  strna(d->driver), bound ? ", but libibverbs binds it" : "");
		return r < 0 ? r : bound;
	}
	i = provider_config_find(&c->config, provider);
	if (i < 0)
		r = asprintf(&missing, "no \"driver %s\" entry in " IBV_CONFIG_DIR, provider);
	else {
		r = provider_library_find(c->rootfd, c->provider_dirs, c->config.names[i], &lib);
		if (r < 0)
			return r;
		if (r > 0) {
			r = preflight_add(p, "userspace.provider", d->name, PREFLIGHT_OK, NULL,
					  "provider %s: %s, %s", provider, c->config.files[i], lib);
			return r < 0 ? r : 1;
		}
		dirs = strv_join(c->provider_dirs, ", /");
		if (!dirs)
			return -ENOMEM;
		r = asprintf(&missing, "%s names it, but no lib%s-rdmav*.so is in /%s",
			     c->config.files[i], provider, dirs);
	}
	if (r < 0) {
		missing = NULL;
		return -ENOMEM;
	}
	if (bound) {
		r = preflight_add(p, "userspace.provider", d->name, PREFLIGHT_OK, NULL,
				  "provider %s: libibverbs binds the device, though %s (a build "
				  "with other paths, or static providers)",
				  provider, missing);
		return r < 0 ? r : 1;
	}
	r = preflight_add(p, "userspace.provider", d->name, PREFLIGHT_FAIL, PROVIDER_FIX,
			  "provider %s: %s", provider, missing);
	return r < 0 ? r : 0;
}

/* "uverbs0" for device d: the infiniband_verbs class entry whose ibdev names it. */
static char *uverbs_find(int rootfd, const char *device) {
	_cleanup_close_ int fd = -EBADF;
	char *found = NULL;
	DIR *dir;

	fd = openat(rootfd, "sys/class/infiniband_verbs", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return NULL;
	for (struct dirent *de; !found && (de = readdir(dir));) {
		char path[NAME_MAX + 16], ibdev[128];

		if (strncmp(de->d_name, "uverbs", 6) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/ibdev", de->d_name);
		if (read_small_at(dirfd(dir), path, ibdev, sizeof(ibdev)) > 0 &&
		    streq(ibdev, device))
			found = strdup(de->d_name);
	}
	closedir(dir);
	return found;
}

/* The asker's name and groups: from NSS for this host, from <root>/etc/passwd and
 * <root>/etc/group for another root (whose users this host's NSS does not know). */
static int identity_read(Context *c, const PreflightInput *in) {
	bool this_host = streq(in->root, "/");
	char buf[4096];
	int r;

	c->groups = malloc(sizeof(gid_t));
	if (!c->groups)
		return -ENOMEM;
	c->groups[0] = in->gid;
	c->n_groups = 1;
	if (this_host) {
		struct passwd pw, *res = NULL;
		int n = 0;

		if (getpwuid_r(in->uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
			return 0;
		c->user = strdup(pw.pw_name);
		if (!c->user)
			return -ENOMEM;
		(void) getgrouplist(c->user, in->gid, NULL, &n);
		if (n > 1) {
			gid_t *l = reallocarray(NULL, n, sizeof(gid_t));

			if (!l)
				return -ENOMEM;
			if (getgrouplist(c->user, in->gid, l, &n) < 0) {
				free(l);
				return 0;
			}
			free(c->groups);
			c->groups = l;
			c->n_groups = n;
		}
		return 0;
	}

	_cleanup_close_ int fd = openat(c->rootfd, "etc/passwd", O_RDONLY | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return 0;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	for (struct passwd pw, *res; fgetpwent_r(f, &pw, buf, sizeof(buf), &res) == 0;)
		if (pw.pw_uid == in->uid) {
			c->user = strdup(pw.pw_name);
			if (!c->user) {
				fclose(f);
				return -ENOMEM;
			}
			break;
		}
	fclose(f);
	if (!c->user)
		return 0;
	fd = openat(c->rootfd, "etc/group", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	r = 0;
	for (struct group gr, *res; r >= 0 && fgetgrent_r(f, &gr, buf, sizeof(buf), &res) == 0;)
		if (gr.gr_gid != in->gid && strv_contains(gr.gr_mem, c->user)) {
			gid_t *l = reallocarray(c->groups, c->n_groups + 1, sizeof(gid_t));

			if (!l) {
				r = -ENOMEM;
				break;
			}
			c->groups = l;
			c->groups[c->n_groups++] = gr.gr_gid;
		}
	fclose(f);
	return r;
}

/* A user's or group's name (as root's files or NSS have it), or the number. */
static void id_name(const Context *c, bool this_host, bool group, unsigned id, char *ret,
		    size_t size) {
	_cleanup_close_ int fd = -EBADF;
	char buf[4096];
	FILE *f;

	snprintf(ret, size, "%u", id);
	if (this_host) {
		struct passwd pw, *pres = NULL;
		struct group gr, *gres = NULL;

		if (group && getgrgid_r(id, &gr, buf, sizeof(buf), &gres) == 0 && gres)
			snprintf(ret, size, "%s", gr.gr_name);
		else if (!group && getpwuid_r(id, &pw, buf, sizeof(buf), &pres) == 0 && pres)
			snprintf(ret, size, "%s", pw.pw_name);
		return;
	}
	fd = openat(c->rootfd, group ? "etc/group" : "etc/passwd", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return;
	if (group) {
		for (struct group gr, *res; fgetgrent_r(f, &gr, buf, sizeof(buf), &res) == 0;)
			if (gr.gr_gid == id) {
				snprintf(ret, size, "%s", gr.gr_name);
				break;
			}
	} else {
		for (struct passwd pw, *res; fgetpwent_r(f, &pw, buf, sizeof(buf), &res) == 0;)
			if (pw.pw_uid == id) {
				snprintf(ret, size, "%s", pw.pw_name);
				break;
			}
	}
	fclose(f);
}

static bool in_groups(const Context *c, gid_t gid) {
	for (size_t i = 0; i < c->n_groups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

/* Open for reading and writing, as libibverbs and librdmacm do. POSIX ACLs are not read: the
 * RDMA nodes carry none unless a local udev rule adds them. */
static bool may_open(const Context *c, const PreflightInput *in, const struct stat *st) {
	mode_t m = st->st_mode;

	if (in->uid == 0)
		return true;
	if (st->st_uid == in->uid)
		return (m & (S_IRUSR | S_IWUSR)) == (S_IRUSR | S_IWUSR);
	if (in_groups(c, st->st_gid))
		return (m & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
	return (m & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
}

static void mode_string(mode_t m, char ret[11]) {
	static const char rwx[] = "rwxrwxrwx";

	ret[0] = S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : S_ISDIR(m) ? 'd' : '-';
	for (int i = 0; i < 9; i++)
		ret[i + 1] = m & (1 << (8 - i)) ? rwx[i] : '-';
	ret[10] = 0;
}

/* A node's mode and owners, who may open it, and whether the asker may. */
static int check_node_access(Preflight *p, const Context *c, const PreflightInput *in,
			     const char *subject, const char *node, const char *kernel_name) {
	_cleanup_free_ char *fix = NULL, *who = NULL;
	bool this_host = streq(in->root, "/");
	char mode[11], owner[64], group[64], asker[96];
	mode_t rw_g = S_IRGRP | S_IWGRP, rw_o = S_IROTH | S_IWOTH, rw_u = S_IRUSR | S_IWUSR;
	struct stat st;
	int r;

	if (fstatat(c->rootfd, node + 1, &st, 0) < 0) {
		const char *module = streq(kernel_name, "rdma_cm") ? "rdma_ucm" : "ib_uverbs";

		/* With the module loaded the kernel has the device: devtmpfs or udev did not
		 * make its node (a container's own /dev, say). */
		if (host_module_loaded(in->host, module))
			return preflight_add(p, "userspace.device-node", subject, PREFLIGHT_FAIL,
					     "udevadm trigger; in a container, give it the host's "
					     "/dev/infiniband",
					     "%s does not exist, though %s is in the kernel", node,
					     module);
		if (asprintf(&fix, "modprobe %s", module) < 0)
			return -ENOMEM;
		return preflight_add(p, "userspace.device-node", subject, PREFLIGHT_FAIL, fix,
				     "%s does not exist: %s is not loaded", node, module);
	}
	mode_string(st.st_mode, mode);
	id_name(c, this_host, false, st.st_uid, owner, sizeof(owner));
	id_name(c, this_host, true, st.st_gid, group, sizeof(group));
	if ((st.st_mode & rw_o) == rw_o)
		r = asprintf(&who, "every user");
	else if ((st.st_mode & rw_g) == rw_g && st.st_uid != 0)
		r = asprintf(&who, "only root, %s and group %s", owner, group);
	else if ((st.st_mode & rw_g) == rw_g)
		r = asprintf(&who, "only root and group %s", group);
	else if ((st.st_mode & rw_u) == rw_u && st.st_uid != 0)
		r = asprintf(&who, "only root and %s", owner);
	else
		r = asprintf(&who, "only root");
	if (r < 0) {
		who = NULL;
		return -ENOMEM;
	}
	if (c->user)
		snprintf(asker, sizeof(asker), "%s (uid %u)", c->user, (unsigned) in->uid);
	else
		snprintf(asker, sizeof(asker), "uid %u", (unsigned) in->uid);
	if (may_open(c, in, &st))
		return preflight_add(p, "userspace.device-node", subject, PREFLIGHT_OK, NULL,
				     "%s %s %s:%s: %s", node, mode, owner, group, who);
	if (st.st_gid != 0 && (st.st_mode & rw_g) == rw_g) {
		if (asprintf(&fix, "usermod -aG %s %s (then log in again)", group,
			     c->user ? c->user : "USER") < 0)
			return -ENOMEM;
	} else if (asprintf(&fix,
			    "a udev rule: KERNEL==\"%s\", MODE=\"0666\" (the kernel's own mode "
			    "for it)",
			    kernel_name) < 0)
		return -ENOMEM;
	return preflight_add(p, "userspace.device-node", subject, PREFLIGHT_WARN, fix,
			     "%s %s %s:%s: %s; %s cannot open it", node, mode, owner, group, who,
			     asker);
}

/* Returns 1 when the node exists, 0 when not, or -ENOMEM. */
static int check_uverbs_node(Preflight *p, const Context *c, const PreflightInput *in,
			     const HostDevice *d) {
	_cleanup_free_ char *uverbs = uverbs_find(c->rootfd, d->name);
	char node[64 + NAME_MAX];
	struct stat st;
	int r;

	if (!uverbs) {
		r = preflight_add(p, "userspace.device-node", d->name, PREFLIGHT_FAIL,
				  "modprobe ib_uverbs",
				  "no uverbs device for it in /sys/class/infiniband_verbs: "
				  "ib_uverbs is not loaded");
		return r < 0 ? r : 0;
	}
	snprintf(node, sizeof(node), "/dev/infiniband/%s", uverbs);
	r = check_node_access(p, c, in, d->name, node, "uverbs*");
	if (r < 0)
		return r;
	return fstatat(c->rootfd, node + 1, &st, 0) >= 0;
}

static int check_ibverbs(Preflight *p, const PreflightInput *in, const HostDevice *d,
			 const char *provider, bool provider_ok, bool node_ok) {
	const VerbsDevice *vd;

	if (!in->verbs)
		return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_WARN, NULL,
				     "not checked: libibverbs was not asked (--root names another "
				     "host)");
	if (in->verbs->error < 0)
		return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_FAIL,
				     in->verbs->error == -ENOSYS ? "modprobe ib_uverbs" : NULL,
				     "ibv_get_device_list() failed: %s",
				     strerror(-in->verbs->error));
	vd = verbs_facts_find(in->verbs, d->name);
	if (vd && vd->error < 0)
		return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_WARN, NULL,
				     "libibverbs lists it but cannot open it: %s",
				     strerror(-vd->error));
	if (vd)
		return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_OK, NULL,
				     "libibverbs sees it");
	if (!provider)
		return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_FAIL, NULL,
				     "libibverbs does not see it: no provider is known for its "
				     "driver (%s)",
				     strna(d->driver));
	if (!provider_ok)
		return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_FAIL, PROVIDER_FIX,
				     "libibverbs does not see it: its provider (%s) is missing",
				     provider);
	if (!node_ok)
		return preflight_add(
			p, "userspace.ibverbs", d->name, PREFLIGHT_FAIL, "modprobe ib_uverbs",
			"libibverbs does not see it: it has no /dev/infiniband/uverbsN");
	return preflight_add(p, "userspace.ibverbs", d->name, PREFLIGHT_FAIL,
			     "an rdma-core that knows this device (newer than the NIC)",
			     "libibverbs does not see it, though provider %s and its node are "
			     "there: the provider may not know this device's PCI id, or its "
			     "ABI differs from the kernel's",
			     provider);
}

static bool device_wanted(const PreflightInput *in, const HostDevice *d) {
	for (size_t k = 0; k < d->n_ports; k++)
		if (preflight_wants_port(in, d, &d->ports[k]))
			return true;
	return !in->links;
}

static int check_device(Preflight *p, const Context *c, const PreflightInput *in,
			const HostDevice *d) {
	const char *provider = provider_find(d->driver);
	int provider_ok, node_ok;

	provider_ok = check_provider(p, c, in, d, provider);
	if (provider_ok < 0)
		return provider_ok;
	node_ok = check_uverbs_node(p, c, in, d);
	if (node_ok < 0)
		return node_ok;
	return check_ibverbs(p, in, d, provider, provider_ok, node_ok);
}

int preflight_userspace(Preflight *p, const PreflightInput *in) {
	_cleanup_(context_done) Context c = { .rootfd = -EBADF };
	int r;

	c.rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A root that cannot be opened reads as empty: each row says what it missed. */
	r = provider_config_read(c.rootfd, &c.config);
	if (r < 0)
		return r;
	r = provider_dirs(c.rootfd, &c.provider_dirs);
	if (r < 0)
		return r;
	r = identity_read(&c, in);
	if (r < 0)
		return r;
	for (size_t i = 0; i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];

		if (!device_wanted(in, d))
			continue;
		r = check_device(p, &c, in, d);
		if (r < 0)
			return r;
	}
	return check_node_access(p, &c, in, "rdma_cm", "/dev/infiniband/rdma_cm", "rdma_cm");
}
