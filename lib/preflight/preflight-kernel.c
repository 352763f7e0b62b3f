/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel checks: the RDMA core modules (built in, loaded, or only available), configfs and
 * rdma_cm's directory in it, and whether lockdown or Secure Boot restrict which modules load.
 * Everything is read under in->root: <root>/proc, <root>/sys, <root>/lib/modules/<release>. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "preflight.h"
#include "strv.h"

typedef struct CoreModule {
	const char *name;
	const char *config; /* the kernel option that builds it */
	const char *role;
} CoreModule;

static const CoreModule core_modules[] = {
	{ "ib_core", "CONFIG_INFINIBAND", "the RDMA core" },
	{ "ib_uverbs", "CONFIG_INFINIBAND_USER_ACCESS",
	  "user-space verbs, /dev/infiniband/uverbs*" },
	{ "rdma_cm", "CONFIG_INFINIBAND_ADDR_TRANS", "the connection manager" },
	{ "rdma_ucm", "CONFIG_INFINIBAND_USER_ACCESS",
	  "user-space rdma_cm, /dev/infiniband/rdma_cm" },
};

#define CONFIGFS_PATH "/sys/kernel/config"

/* The kernel's module lists: modules.dep ("kernel/.../ib_core.ko.xz: deps") and
 * modules.builtin, as module names (with _), and the modules.dep paths outside kernel/
 * (updates/, extra/: out-of-tree drivers such as MLNX_OFED's). */
typedef struct ModuleLists {
	char *release;
	bool dep_read, builtin_read;
	char **available; /* modules.dep */
	char **builtin;
	char **out_of_tree;
} ModuleLists;

static void module_lists_done(ModuleLists *l) {
	free(l->release);
	strv_free(l->available);
	strv_free(l->builtin);
	strv_free(l->out_of_tree);
}

/* "kernel/drivers/infiniband/core/ib_core.ko.zst" -> "ib_core" (the name /sys/module gives):
 * 1 and *ret, 0 for a line that names no module, -ENOMEM. */
static int module_name(const char *path, size_t len, char **ret) {
	const char *base = path, *ko = NULL;
	char *s;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	for (const char *c = base; c + 3 <= path + len; c++)
		if (strncmp(c, ".ko", 3) == 0)
			ko = c;
	if (!ko || ko == base)
		return 0;
	s = strndup(base, ko - base);
	if (!s)
		return -ENOMEM;
	for (char *c = s; *c; c++)
		if (*c == '-')
			*c = '_';
	*ret = s;
	return 1;
}

static int module_list_read(int rootfd, const char *path, char ***ret, char ***ret_out_of_tree) {
	_cleanup_free_ char *line = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	FILE *f;
	int r = 0;

	fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	while (r >= 0 && getline(&line, &size, f) > 0) {
		char *name;

		r = module_name(line, strcspn(line, ":\n"), &name);
		if (r <= 0)
			continue;
		if (ret_out_of_tree && strncmp(line, "kernel/", 7) != 0) {
			r = strv_extend(ret_out_of_tree, name);
			if (r < 0) {
				free(name);
				break;
			}
		}
		r = strv_consume(ret, name);
	}
	fclose(f);
	if (r >= 0 && !*ret) {
		*ret = calloc(1, sizeof(char *)); /* read, and empty */
		if (!*ret)
			r = -ENOMEM;
	}
	return r;
}

static int module_lists_read(int rootfd, ModuleLists *ret) {
	_cleanup_free_ char *path = NULL;
	int r;

	if (read_line_at(rootfd, "proc/sys/kernel/osrelease", &ret->release) < 0)
		return 0;
	if (strchr(ret->release, '/') || streq(ret->release, "..") || streq(ret->release, "."))
		return 0;
	if (asprintf(&path, "lib/modules/%s/modules.dep", ret->release) < 0)
		return -ENOMEM;
	r = module_list_read(rootfd, path, &ret->available, &ret->out_of_tree);
	if (r == -ENOMEM)
		return r;
	ret->dep_read = r >= 0;
	free(path);
	path = NULL;
	if (asprintf(&path, "lib/modules/%s/modules.builtin", ret->release) < 0)
		return -ENOMEM;
	r = module_list_read(rootfd, path, &ret->builtin, NULL);
	if (r == -ENOMEM)
		return r;
	ret->builtin_read = r >= 0;
	return 0;
}

static int check_module(Preflight *p, const PreflightInput *in, const ModuleLists *l,
			const CoreModule *m) {
	_cleanup_free_ char *fix = NULL;

	if (strv_contains(l->builtin, m->name))
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_OK, NULL,
				     "built into the kernel (%s)", m->role);
	if (host_module_loaded(in->host, m->name))
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_OK, NULL, "loaded (%s)",
				     m->role);
	if (asprintf(&fix,
		     "modprobe %s (rdma-core's udev rules load it when an RDMA device appears), "
		     "or `modules: [%s]` in a profile",
		     m->name, m->name) < 0)
		return -ENOMEM;
	if (strv_contains(l->available, m->name))
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_FAIL, fix,
				     "not loaded: %s is missing", m->role);
	if (l->dep_read && l->builtin_read) {
		_cleanup_free_ char *kernel_fix = NULL;

		if (asprintf(&kernel_fix, "a kernel built with %s (Debian's linux-image has it)",
			     m->config) < 0)
			return -ENOMEM;
		return preflight_add(
			p, "kernel.module", m->name, PREFLIGHT_FAIL, kernel_fix,
			"not available in this kernel (%s): neither in modules.dep nor "
			"in modules.builtin",
			l->release);
	}
	if (!l->release)
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_FAIL, fix,
				     "not loaded, and whether this kernel has it is unknown: "
				     "/proc/sys/kernel/osrelease cannot be read");
	return preflight_add(p, "kernel.module", m->name, PREFLIGHT_FAIL, fix,
			     "not loaded, and whether this kernel has it is unknown: "
			     "/lib/modules/%s/modules.dep or modules.builtin cannot be read",
			     l->release);
}

/* Whether a profile sets a key that only configfs can apply (roce.mode, roce.tos): then a
 * missing configfs stops rdmad, else it only limits what it could do. */
static PreflightStatus configfs_status(const PreflightInput *in) {
	for (size_t i = 0; in->config && i < in->config->n_profiles; i++)
		if (in->config->profiles[i]->settings.set &
		    (KEY_BIT(KEY_ROCE_MODE) | KEY_BIT(KEY_ROCE_TOS)))
			return PREFLIGHT_FAIL;
	return PREFLIGHT_WARN;
}

/* Whether configfs is mounted: a line "none /sys/kernel/config configfs rw,relatime 0 0" in
 * /proc/mounts, or rdma_cm's directory in it (a tree without /proc). 1 when mounted, 0 when
 * not, -errno when /proc/mounts cannot be read. */
static int configfs_mounted(int rootfd) {
	_cleanup_free_ char *line = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	struct stat st;
	bool found = false;
	FILE *f;

	if (fstatat(rootfd, "sys/kernel/config/rdma_cm", &st, 0) >= 0 && S_ISDIR(st.st_mode))
		return 1;
	fd = openat(rootfd, "proc/mounts", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	while (!found && getline(&line, &size, f) > 0) {
		char where[256], type[64];

		if (sscanf(line, "%*s %255s %63s", where, type) == 2)
			found = streq(where, CONFIGFS_PATH) && streq(type, "configfs");
	}
	fclose(f);
	return found;
}

/* "nodev\tconfigfs" in /proc/filesystems: the kernel has it (built in or loaded). */
static bool filesystem_known(int rootfd, const char *fs) {
	_cleanup_free_ char *line = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	bool found = false;
	FILE *f;

	fd = openat(rootfd, "proc/filesystems", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return false;
	while (!found && getline(&line, &size, f) > 0) {
		char *name = strrchr(line, '\t');

		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = 0;
		found = streq(name, fs);
	}
	fclose(f);
	return found;
}

static int check_configfs(Preflight *p, const PreflightInput *in, int rootfd, const ModuleLists *l,
			  int mounted) {
	PreflightStatus bad = configfs_status(in);
	const char *why = bad == PREFLIGHT_FAIL
				  ? "a profile sets roce.mode or roce.tos, which need it"
				  : "rdmad cannot set roce.mode or roce.tos without it";
	struct stat st;

	if (mounted < 0)
		return preflight_add(p, "kernel.configfs", "host", PREFLIGHT_WARN, NULL,
				     "cannot tell whether configfs is mounted: /proc/mounts: %s",
				     strerror(-mounted));
	if (mounted > 0)
		return preflight_add(p, "kernel.configfs", "host", PREFLIGHT_OK, NULL,
				     "mounted at " CONFIGFS_PATH);
	/* configfs makes /sys/kernel/config when it starts: the directory says it is there. */
	if (fstatat(rootfd, "sys/kernel/config", &st, 0) >= 0 && S_ISDIR(st.st_mode) &&
	    filesystem_known(rootfd, "configfs"))
		return preflight_add(
			p, "kernel.configfs", "host", bad,
			"mount -t configfs none " CONFIGFS_PATH
			" (systemd's sys-kernel-config.mount)",
			"not mounted, and can be: the kernel has configfs and " CONFIGFS_PATH
			" exists; %s",
			why);
	if (!l->dep_read)
		return preflight_add(p, "kernel.configfs", "host", bad,
				     "modprobe configfs && mount -t configfs none " CONFIGFS_PATH,
				     "not mounted: configfs is neither built in nor loaded "
				     "(whether it is a module is unknown: modules.dep cannot be "
				     "read); %s",
				     why);
	if (strv_contains(l->available, "configfs"))
		return preflight_add(p, "kernel.configfs", "host", bad,
				     "modprobe configfs && mount -t configfs none " CONFIGFS_PATH,
				     "not mounted: configfs is a module that is not loaded; %s",
				     why);
	return preflight_add(p, "kernel.configfs", "host", bad,
			     "a kernel built with CONFIG_CONFIGFS_FS",
			     "not mounted, and this kernel has no configfs; %s", why);
}

static int check_configfs_rdma_cm(Preflight *p, const PreflightInput *in, int rootfd,
				  bool mounted) {
	PreflightStatus bad = configfs_status(in);
	struct stat st;

	if (!mounted)
		return preflight_add(p, "kernel.configfs-rdma-cm", "host", bad, NULL,
				     "cannot be there: configfs is not mounted (kernel.configfs)");
	if (fstatat(rootfd, "sys/kernel/config/rdma_cm", &st, 0) >= 0 && S_ISDIR(st.st_mode))
		return preflight_add(p, "kernel.configfs-rdma-cm", "host", PREFLIGHT_OK, NULL,
				     CONFIGFS_PATH "/rdma_cm exists");
	if (!host_module_loaded(in->host, "rdma_cm"))
		return preflight_add(p, "kernel.configfs-rdma-cm", "host", bad,
				     "modprobe rdma_cm, or `modules: [rdma_cm]` in a profile",
				     "no " CONFIGFS_PATH "/rdma_cm: rdma_cm is not loaded");
	return preflight_add(p, "kernel.configfs-rdma-cm", "host", bad,
			     "a kernel built with CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS",
			     "no " CONFIGFS_PATH "/rdma_cm although rdma_cm is loaded: this "
			     "kernel's rdma_cm has no configfs support");
}

/* "none [integrity] confidentiality" -> "integrity"; NULL when unreadable. */
static int lockdown_read(int rootfd, char **ret) {
	_cleanup_free_ char *line = NULL;
	char *begin, *end, *s;
	int r;

	r = read_line_at(rootfd, "sys/kernel/security/lockdown", &line);
	if (r < 0)
		return r;
	begin = strchr(line, '[');
	end = begin ? strchr(begin, ']') : NULL;
	if (!end)
		return -EBADMSG;
	s = strndup(begin + 1, end - begin - 1);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* The SecureBoot EFI variable: 4 bytes of attributes, then the value. -ENOENT when there is
 * none (legacy boot, or efivarfs not mounted). */
static int secure_boot_read(int rootfd, bool *ret) {
	_cleanup_close_ int fd = -EBADF;
	uint8_t buf[8];
	ssize_t n;

	fd = openat(rootfd,
		    "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		    O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (n != 5)
		return -EBADMSG;
	*ret = buf[4] == 1;
	return 0;
}

/* Under lockdown (which Secure Boot turns on in Debian's kernel) only signed modules load.
 * The distribution's own modules are signed: that alone is no problem, and an ok row says it.
 * An out-of-tree RDMA stack (MLNX_OFED's DKMS modules, in updates/ or extra/) must be signed
 * with a key enrolled in MOK, else it will not load: a warning. */
static int check_lockdown(Preflight *p, int rootfd, const ModuleLists *l) {
	_cleanup_free_ char *mode = NULL, *what = NULL, *oot = NULL;
	_cleanup_strv_free_ char **rdma_oot = NULL;
	const char *sb_text;
	bool sb = false, locked;
	int r;

	r = lockdown_read(rootfd, &mode);
	if (r == -ENOMEM)
		return r;
	locked = r >= 0 && !streq(mode, "none");
	if (r < 0 &&
	    asprintf(&mode, "%s", r == -ENOENT ? "not in this kernel" : "unreadable") < 0) {
		mode = NULL;
		return -ENOMEM;
	}
	r = secure_boot_read(rootfd, &sb);
	sb_text = r >= 0	 ? (sb ? "on" : "off")
		  : r == -ENOENT ? "unknown (no EFI variable)"
				 : "unreadable";
	if (asprintf(&what, "lockdown %s, Secure Boot %s", mode, sb_text) < 0) {
		what = NULL;
		return -ENOMEM;
	}
	if (!locked && !sb)
		return preflight_add(p, "kernel.lockdown", "host", PREFLIGHT_OK, NULL,
				     "%s: unsigned modules may load", what);
	for (size_t i = 0; i < ELEMENTSOF(core_modules); i++)
		if (strv_contains(l->out_of_tree, core_modules[i].name)) {
			r = strv_extend(&rdma_oot, core_modules[i].name);
			if (r < 0)
				return r;
		}
	if (!rdma_oot)
		return preflight_add(
			p, "kernel.lockdown", "host", PREFLIGHT_OK, NULL,
			"%s: only signed modules load; the kernel's own are, an "
			"out-of-tree driver (MLNX_OFED) would need signing and its key "
			"enrolled with MOK",
			what);
	oot = strv_join(rdma_oot, ", ");
	if (!oot)
		return -ENOMEM;
	return preflight_add(p, "kernel.lockdown", "host", PREFLIGHT_WARN,
			     "sign the out-of-tree modules and enroll the key: mokutil --import "
			     "<key.der> (DKMS: /var/lib/dkms/mok.pub), then reboot",
			     "%s: only signed modules load, and out-of-tree %s is installed "
			     "(updates/ or extra/ in modules.dep)",
			     what, oot);
}

int preflight_kernel(Preflight *p, const PreflightInput *in) {
	_cleanup_(module_lists_done) ModuleLists lists = { 0 };
	_cleanup_close_ int rootfd = -EBADF;
	int mounted, r;

	rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A root that cannot be opened reads as empty: each row says what it missed. */
	r = module_lists_read(rootfd, &lists);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(core_modules); i++) {
		r = check_module(p, in, &lists, &core_modules[i]);
		if (r < 0)
			return r;
	}
	mounted = configfs_mounted(rootfd);
	r = check_configfs(p, in, rootfd, &lists, mounted);
	if (r < 0)
		return r;
	r = check_configfs_rdma_cm(p, in, rootfd, mounted > 0);
	if (r < 0)
		return r;
	return check_lockdown(p, rootfd, &lists);
}
