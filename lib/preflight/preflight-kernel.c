/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel checks: the RDMA core modules (built in, loaded, or only available), configfs and
 * rdma_cm's directory in it, and whether lockdown or Secure Boot restrict which modules load.
 * Everything is read under in->root: <root>/proc, <root>/sys, <root>/lib/modules/<release>,
 * <root>/boot; which module is there comes from kernel-modules.c, as for the planner. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "kernel-modules.h"
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

/* One kernel.module row: the module's presence (kernel-modules.c, the evidence the planner
 * reads too) and what said so. Only what is known to be missing fails; where nothing could
 * tell, the row warns with what was looked at. */
static int check_module(Preflight *p, const KernelModules *k, const CoreModule *m) {
	_cleanup_free_ char *evidence = NULL, *fix = NULL;
	/* the release in a fix's paths; unknown, the pattern: /boot/config-<release> */
	const char *release = k->release ? k->release : "<release>";
	ModulePresence presence;
	int r;

	r = kernel_module_presence(k, m->name, &presence, &evidence);
	if (r < 0)
		return r;
	switch (presence) {
	case MODULE_BUILTIN:
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_OK, NULL,
				     "built into the kernel (%s): %s", m->role, evidence);
	case MODULE_LOADED:
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_OK, NULL,
				     "loaded (%s): %s", m->role, evidence);
	case MODULE_ABSENT:
		if (asprintf(&fix, "a kernel built with %s (Debian's linux-image has it)",
			     m->config) < 0)
			return -ENOMEM;
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_FAIL, fix,
				     "not available in this kernel (%s): %s", strna(k->release),
				     evidence);
	case MODULE_AVAILABLE:
		if (k->dep_read)
			r = asprintf(&fix,
				     "modprobe %s (rdma-core's udev rules load it when an RDMA "
				     "device appears), or `modules: [%s]` in a profile",
				     m->name, m->name);
		else
			r = asprintf(&fix,
				     "install this kernel's modules (/lib/modules/%s), or modprobe "
				     "%s where the kernel's modules are (a container's host)",
				     release, m->name);
		if (r < 0)
			return -ENOMEM;
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_FAIL, fix,
				     "not loaded: %s is missing (a module: %s)", m->role, evidence);
	case MODULE_UNKNOWN:
	default:
		if (asprintf(
			    &fix,
			    "modprobe %s if it is a module; /proc/config.gz (CONFIG_IKCONFIG_PROC) "
			    "or /boot/config-%s would tell (%s)",
			    m->name, release, m->config) < 0)
			return -ENOMEM;
		return preflight_add(p, "kernel.module", m->name, PREFLIGHT_WARN, fix,
				     "not loaded as a module, and whether this kernel has it "
				     "built in is unknown: %s",
				     evidence);
	}
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

static int check_configfs(Preflight *p, const PreflightInput *in, int rootfd,
			  const KernelModules *k, int mounted) {
	_cleanup_free_ char *evidence = NULL;
	PreflightStatus bad = configfs_status(in);
	const char *why = bad == PREFLIGHT_FAIL
				  ? "a profile sets roce.mode or roce.tos, which need it"
				  : "rdmad cannot set roce.mode or roce.tos without it";
	ModulePresence presence;
	struct stat st;
	int r;

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
	r = kernel_module_presence(k, "configfs", &presence, &evidence);
	if (r < 0)
		return r;
	switch (presence) {
	case MODULE_ABSENT:
		return preflight_add(
			p, "kernel.configfs", "host", bad,
			"a kernel built with CONFIG_CONFIGFS_FS: roce.mode and roce.tos "
			"cannot be set on this one",
			"not mounted, and this kernel has no configfs (%s); %s", evidence, why);
	case MODULE_AVAILABLE:
		return preflight_add(
			p, "kernel.configfs", "host", bad,
			"modprobe configfs && mount -t configfs none " CONFIGFS_PATH,
			"not mounted: configfs is a module that is not loaded (%s); %s", evidence,
			why);
	case MODULE_BUILTIN:
	case MODULE_LOADED:
		return preflight_add(p, "kernel.configfs", "host", bad,
				     "mount -t configfs none " CONFIGFS_PATH
				     " (systemd's sys-kernel-config.mount)",
				     "not mounted, and can be: the kernel has configfs (%s); %s",
				     evidence, why);
	case MODULE_UNKNOWN:
	default:
		/* not mounted is known; what would fix it is not */
		return preflight_add(p, "kernel.configfs", "host", PREFLIGHT_WARN,
				     "modprobe configfs && mount -t configfs none " CONFIGFS_PATH
				     " if configfs is a module; else a kernel built with "
				     "CONFIG_CONFIGFS_FS",
				     "not mounted: configfs is neither built in nor loaded, and "
				     "whether this kernel has it as a module is unknown (%s); %s",
				     evidence, why);
	}
}

static int check_configfs_rdma_cm(Preflight *p, const PreflightInput *in, int rootfd,
				  const KernelModules *k, bool mounted) {
	PreflightStatus bad = configfs_status(in);
	ModulePresence presence;
	struct stat st;
	int r;

	if (!mounted) {
		r = kernel_module_presence(k, "configfs", &presence, NULL);
		if (r < 0)
			return r;
		return preflight_add(p, "kernel.configfs-rdma-cm", "host", bad, NULL,
				     presence == MODULE_ABSENT
					     ? "cannot be there: this kernel has no configfs "
					       "(kernel.configfs)"
					     : "cannot be there: configfs is not mounted "
					       "(kernel.configfs)");
	}
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
static int check_lockdown(Preflight *p, int rootfd, const KernelModules *k) {
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
		if (strv_contains(k->out_of_tree, core_modules[i].name)) {
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
	_cleanup_(kernel_modules_freep) KernelModules *k = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	int mounted, r;

	rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A root that cannot be opened reads as empty: each row says what it missed. */
	r = kernel_modules_read(rootfd, KERNEL_MODULES_ALL, &k);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(core_modules); i++) {
		r = check_module(p, k, &core_modules[i]);
		if (r < 0)
			return r;
	}
	mounted = configfs_mounted(rootfd);
	r = check_configfs(p, in, rootfd, k, mounted);
	if (r < 0)
		return r;
	r = check_configfs_rdma_cm(p, in, rootfd, k, mounted > 0);
	if (r < 0)
		return r;
	return check_lockdown(p, rootfd, k);
}
